//! Every document of one suite's report, made from the report, its id and its noise line:
//! what `abba suite` prints and exports ([`SuiteDocuments`]).

use bench_stats::model::Remedy;
use bench_stats::suite::SuiteReport;

use super::markdown::{STEP_SUMMARY_MAX, SuiteMarkdown};

/// The documents of a suite's report: the console table, JSON, Markdown, the PR comment
/// (marked with `id`), the step summary (cut to GitHub's limit), BMF and
/// github-action-benchmark. `noise` is the suite's noise line (issue 36) as the caller words
/// it: printed under the console table and as the Markdown documents' footer.
#[derive(Debug, Clone)]
pub struct SuiteDocuments<'a> {
    report: &'a SuiteReport,
    id: String,
    noise: Option<String>,
}

impl<'a> SuiteDocuments<'a> {
    /// The documents of `report`, its PR comment marked with `id`.
    pub fn new(report: &'a SuiteReport, id: impl Into<String>, noise: Option<String>) -> Self {
        SuiteDocuments {
            report,
            id: id.into(),
            noise,
        }
    }

    /// The documents of `report` with its noise line ([`crate::suite_noise_line`]), its
    /// remedy said in the caller's words (`remedy`: the flag that applies it).
    pub fn with_noise(
        report: &'a SuiteReport,
        id: impl Into<String>,
        remedy: impl Fn(Remedy) -> &'static str,
    ) -> Self {
        let noise = crate::suite_noise_line(report).map(|line| match line.remedy {
            Some(r) => format!("{}{}", line.text, remedy(r)),
            None => line.text,
        });
        SuiteDocuments::new(report, id, noise)
    }

    /// The document of `format`.
    ///
    /// # Errors
    /// JSON that does not serialize (never for a report the analysis made), or a
    /// github-action-benchmark file of a suite that mixes directions.
    pub fn render(&self, format: SuiteFormat) -> Result<String, String> {
        match format {
            SuiteFormat::Json => self.json().map_err(|e| e.to_string()),
            SuiteFormat::Markdown => Ok(self.markdown()),
            SuiteFormat::PrComment => Ok(self.pr_comment()),
            SuiteFormat::Bmf => Ok(self.bmf()),
            SuiteFormat::GithubBenchmark => self.github_benchmark(),
        }
    }

    fn footer(&self) -> Option<String> {
        self.noise.as_ref().map(|line| format!("**Noise:** {line}"))
    }

    /// `abba.suite/1` JSON ([`super::render_suite_json`]).
    ///
    /// # Errors
    /// Serialization fails (never for a report the analysis made).
    pub fn json(&self) -> Result<String, serde_json::Error> {
        super::render_suite_json(self.report)
    }

    /// The Markdown table and summary, the noise line as its footer.
    pub fn markdown(&self) -> String {
        super::render_suite_markdown(
            self.report,
            &SuiteMarkdown::default().with_footer(self.footer()),
        )
    }

    /// The Markdown for `$GITHUB_STEP_SUMMARY`, cut to [`STEP_SUMMARY_MAX`] bytes.
    pub fn step_summary(&self) -> String {
        super::render_suite_markdown(
            self.report,
            &SuiteMarkdown::new(None, Some(STEP_SUMMARY_MAX)).with_footer(self.footer()),
        )
    }

    /// The PR comment ([`super::render_suite_pr_comment`]).
    pub fn pr_comment(&self) -> String {
        super::render_suite_pr_comment(self.report, &self.id, self.footer())
    }

    /// Bencher Metric Format ([`super::render_suite_bmf`]).
    pub fn bmf(&self) -> String {
        super::render_suite_bmf(self.report)
    }

    /// github-action-benchmark's JSON ([`super::render_suite_github_benchmark`]).
    ///
    /// # Errors
    /// The suite mixes directions, which one such file cannot hold.
    pub fn github_benchmark(&self) -> Result<String, String> {
        super::render_suite_github_benchmark(self.report)
    }

    /// The console table and summary for a terminal of `width` columns, the noise line
    /// wrapped under it.
    pub fn console(&self, width: Option<usize>) -> String {
        let mut text = super::render_suite_console(self.report, width);
        if let Some(line) = &self.noise {
            text.push('\n');
            text.push_str(&crate::wrap(line, width, "", "  "));
            text.push('\n');
        }
        text
    }
}

/// The files a suite's report exports ([`SuiteDocuments::render`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SuiteFormat {
    /// `abba.suite/1` JSON.
    Json,
    /// The Markdown table and summary.
    Markdown,
    /// The PR comment.
    PrComment,
    /// Bencher Metric Format.
    Bmf,
    /// github-action-benchmark's JSON.
    GithubBenchmark,
}
