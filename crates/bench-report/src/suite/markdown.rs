//! The suite report as GitHub-flavoured Markdown: the document, a pull-request comment
//! (with its hidden marker) and a job summary.

use bench_stats::suite::SuiteReport;

use super::{Row, rows_of, summary_lines};

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn md_table(rows: &[&Row]) -> String {
    let mut out = String::from(
        "| benchmark | candidate | ratio | interval | level | verdict | p | p adj |\n| --- | --- | ---: | --- | ---: | --- | ---: | ---: |\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            md_escape(&r.benchmark),
            md_escape(&r.candidate),
            r.ratio,
            r.interval,
            r.level,
            if r.changed {
                format!("**{}**", r.verdict)
            } else {
                r.verdict.clone()
            },
            r.p,
            r.p_adjusted
        ));
    }
    out
}

/// Options of [`render_suite_markdown`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SuiteMarkdown {
    /// A first line (e.g. a hidden `<!-- abba:ID -->` marker), written as given.
    pub marker: Option<String>,
    /// The most characters the document may hold; the unchanged benchmarks' table is
    /// folded first, then cut with a note. `None`: no limit.
    pub max_chars: Option<usize>,
    /// A title line (`## abba suite`); `None`: a default title.
    pub title: Option<String>,
}

impl SuiteMarkdown {
    /// Options with a marker line, a size limit and the default title.
    pub fn new(marker: Option<String>, max_chars: Option<usize>) -> SuiteMarkdown {
        SuiteMarkdown {
            marker,
            max_chars,
            title: None,
        }
    }
}

/// The suite report as Markdown for a pull-request comment or a job summary: the summary,
/// the changed benchmarks' table, and the others folded in a `<details>` block. Within
/// `options.max_chars` characters (the unchanged table is dropped, then the changed one
/// cut, each with a note saying so).
pub fn render_suite_markdown(report: &SuiteReport, options: &SuiteMarkdown) -> String {
    let rows: Vec<Row> = report.benchmarks.iter().flat_map(rows_of).collect();
    let changed: Vec<&Row> = rows.iter().filter(|r| r.changed).collect();
    let rest: Vec<&Row> = rows.iter().filter(|r| !r.changed).collect();
    let mut head = String::new();
    if let Some(marker) = &options.marker {
        head.push_str(marker);
        head.push('\n');
    }
    head.push_str(options.title.as_deref().unwrap_or("## abba suite"));
    head.push_str("\n\n");
    for line in summary_lines(report) {
        head.push_str(&md_escape(&line));
        head.push_str("  \n");
    }
    head.push('\n');
    let changed_md = if changed.is_empty() {
        String::new()
    } else {
        format!("### Changed\n\n{}\n", md_table(&changed))
    };
    let rest_md = if rest.is_empty() {
        String::new()
    } else {
        format!(
            "<details><summary>{} unchanged benchmark(s)</summary>\n\n{}\n</details>\n",
            rest.len(),
            md_table(&rest)
        )
    };
    let note = "\nIntervals are at each benchmark's decision level (the suite's correction sets it); p adj is the p after the correction.\n";
    let full = format!("{head}{changed_md}{rest_md}{note}");
    let Some(max) = options.max_chars else {
        return full;
    };
    if full.chars().count() <= max {
        return full;
    }
    let folded = format!(
        "{head}{changed_md}\n_{} unchanged benchmark(s) left out to fit the size limit; the full report is in the job's files._\n{note}",
        rest.len()
    );
    if folded.chars().count() <= max {
        return folded;
    }
    let tail =
        "\n_The table was cut to fit the size limit; the full report is in the job's files._\n";
    let budget = max.saturating_sub(tail.chars().count());
    let mut cut: String = folded.chars().take(budget).collect();
    if let Some(end) = cut.rfind('\n') {
        cut.truncate(end + 1);
    }
    cut.push_str(tail);
    cut
}

/// The most characters of a pull-request comment GitHub takes.
pub const PR_COMMENT_MAX: usize = 65_536;

/// The most characters abba appends to `$GITHUB_STEP_SUMMARY` in one step (GitHub takes up
/// to 1 MiB per step; this leaves room for multi-byte characters).
pub const STEP_SUMMARY_MAX: usize = 900_000;

/// The hidden marker a workflow finds its own comment by: `<!-- abba:ID -->`.
pub fn comment_marker(id: &str) -> String {
    // `--` cannot appear inside an HTML comment.
    format!("<!-- abba:{} -->", id.replace("--", "-"))
}

/// The body of one pull-request comment: the marker first, the changed benchmarks, the
/// rest folded; at most [`PR_COMMENT_MAX`] characters.
pub fn render_suite_pr_comment(report: &SuiteReport, id: &str) -> String {
    render_suite_markdown(
        report,
        &SuiteMarkdown::new(Some(comment_marker(id)), Some(PR_COMMENT_MAX)),
    )
}
