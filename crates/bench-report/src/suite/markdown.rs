//! The suite report as GitHub-flavoured Markdown: the document, a pull-request comment
//! (with its hidden marker) and a job summary.

use bench_stats::suite::SuiteReport;

use super::{Row, rows_of, summary_lines};

use crate::markdown::escape as md_escape;

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
    /// The most bytes (UTF-8) the document may hold, as GitHub counts its limits: the
    /// unchanged benchmarks' table is folded first, then the changed one keeps as many
    /// whole rows as fit, with a note saying how many were left out. `None`: no limit.
    pub max_bytes: Option<usize>,
    /// A title line (`## abba suite`); `None`: a default title.
    pub title: Option<String>,
    /// A last paragraph (the noise line), kept within the limit.
    pub footer: Option<String>,
}

impl SuiteMarkdown {
    /// Options with a marker line, a size limit in bytes and the default title.
    pub fn new(marker: Option<String>, max_bytes: Option<usize>) -> SuiteMarkdown {
        SuiteMarkdown {
            marker,
            max_bytes,
            title: None,
            footer: None,
        }
    }

    /// These options with a last paragraph (e.g. `**Noise:** ...`) inside the limit.
    pub fn with_footer(mut self, footer: Option<String>) -> SuiteMarkdown {
        self.footer = footer;
        self
    }
}

/// The report's head: the marker, the title and the summary lines; with `compact`, the
/// list of changed benchmarks gives way to a count (the table names them).
fn head_of(report: &SuiteReport, options: &SuiteMarkdown, compact: Option<usize>) -> String {
    let mut head = String::new();
    if let Some(marker) = &options.marker {
        head.push_str(marker);
        head.push('\n');
    }
    head.push_str(options.title.as_deref().unwrap_or("## abba suite"));
    head.push_str("\n\n");
    for line in summary_lines(report) {
        let line = match compact {
            Some(n) if line.starts_with("Changed: ") => format!(
                "Changed: {n} benchmark row(s), named in the table below as far as the size limit allows."
            ),
            _ => line,
        };
        head.push_str(&md_escape(&line));
        head.push_str("  \n");
    }
    head.push('\n');
    head
}

/// The suite report as Markdown for a pull-request comment or a job summary: the summary,
/// the changed benchmarks' table, and the others folded in a `<details>` block. Within
/// `options.max_bytes` bytes: the unchanged table is dropped first, then the changed
/// table keeps as many whole rows as fit, each step with a note saying what was left out.
pub fn render_suite_markdown(report: &SuiteReport, options: &SuiteMarkdown) -> String {
    let rows: Vec<Row> = report.benchmarks.iter().flat_map(rows_of).collect();
    let changed: Vec<&Row> = rows.iter().filter(|r| r.changed).collect();
    let rest: Vec<&Row> = rows.iter().filter(|r| !r.changed).collect();
    let head = head_of(report, options, None);
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
    let mut note = String::from(
        "\nIntervals are at each benchmark's decision level (the suite's correction sets it); p adj is the p after the correction.\n",
    );
    if let Some(footer) = &options.footer {
        note.push_str(&format!("\n{footer}\n"));
    }
    let full = format!("{head}{changed_md}{rest_md}{note}");
    let Some(max) = options.max_bytes else {
        return full;
    };
    if full.len() <= max {
        return full;
    }
    let left_out_rest = if rest.is_empty() {
        String::new()
    } else {
        format!(
            "\n_{} unchanged benchmark(s) left out to fit the size limit; the full report is in the job's files._\n",
            rest.len()
        )
    };
    let folded = format!("{head}{changed_md}{left_out_rest}{note}");
    if folded.len() <= max {
        return folded;
    }
    // The changed table keeps as many whole rows as fit, in order, and says how many it
    // left out; the head counts the changed rows instead of listing them.
    let head = head_of(report, options, Some(changed.len()));
    let table_head = "### Changed\n\n";
    let mut kept = 0;
    let fixed_part = |kept: usize| {
        let left = changed.len() - kept;
        let what = if rest.is_empty() {
            String::new()
        } else {
            format!(" and {} unchanged", rest.len())
        };
        format!(
            "\n_{kept} of {} changed benchmark row(s) shown; {left} changed{what} left out to fit the size limit; the full report is in the job's files._\n",
            changed.len()
        )
    };
    let mut table = md_table(&[]);
    let base_len = head.len() + table_head.len() + note.len();
    while kept < changed.len() {
        let row = md_table(&changed[kept..=kept]);
        let row = row.lines().skip(2).collect::<Vec<_>>().join("\n") + "\n";
        if base_len + table.len() + row.len() + fixed_part(kept + 1).len() > max {
            break;
        }
        table.push_str(&row);
        kept += 1;
    }
    let cut = format!("{head}{table_head}{table}{}{note}", fixed_part(kept));
    if cut.len() <= max {
        return cut;
    }
    // Not even the head fits: cut at a line end within the limit, saying so.
    let tail =
        "\n_The report was cut to fit the size limit; the full report is in the job's files._\n";
    let mut end = max.saturating_sub(tail.len()).min(cut.len());
    while !cut.is_char_boundary(end) {
        end -= 1;
    }
    let mut text = cut[..end].to_owned();
    if let Some(line_end) = text.rfind('\n') {
        text.truncate(line_end + 1);
    }
    text.push_str(tail);
    text
}

/// The most bytes of a pull-request comment GitHub takes (65,536).
pub const PR_COMMENT_MAX: usize = 65_536;

/// The most bytes abba appends to `$GITHUB_STEP_SUMMARY` in one step: GitHub takes up to
/// 1 MiB per step, counted in bytes (the appended line end included).
pub const STEP_SUMMARY_MAX: usize = 1024 * 1024 - 1;

/// Whether `id` can name a pull-request comment: not blank (every id-less comment would
/// share its marker) and on one line, without control characters (the marker is one line
/// a workflow searches for).
///
/// # Errors
/// The reason, for `--comment-id` to name.
pub fn check_comment_id(id: &str) -> Result<(), String> {
    if id.trim().is_empty() {
        return Err(format!(
            "--comment-id {id:?}: must not be blank (a blank id gives the marker every comment without an id shares)"
        ));
    }
    if id.chars().any(char::is_control) {
        return Err(format!(
            "--comment-id {id:?}: must be one line without control characters (the marker `<!-- abba:ID -->` is one line)"
        ));
    }
    Ok(())
}

/// The hidden marker a workflow finds its own comment by: `<!-- abba:ID -->`.
pub fn comment_marker(id: &str) -> String {
    // `--` cannot appear inside an HTML comment.
    format!("<!-- abba:{} -->", id.replace("--", "-"))
}

/// The body of one pull-request comment: the marker first, the changed benchmarks, the
/// rest folded, `footer` last; at most [`PR_COMMENT_MAX`] bytes.
pub fn render_suite_pr_comment(report: &SuiteReport, id: &str, footer: Option<String>) -> String {
    render_suite_markdown(
        report,
        &SuiteMarkdown::new(Some(comment_marker(id)), Some(PR_COMMENT_MAX)).with_footer(footer),
    )
}
