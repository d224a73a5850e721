//! Where CI shows a result: the GitHub Actions job summary, one pull-request comment found
//! by its hidden marker, and the JSON formats history servers read (Bencher Metric Format,
//! github-action-benchmark's custom format).

use std::io::Write;
use std::path::Path;

use bench_report::{SuiteMarkdown, render_suite_markdown};
use bench_stats::suite::SuiteReport;
use serde_json::{Map, Value, json};

use crate::suite::{PR_COMMENT_MAX, SUITE_SCHEMA};

/// The most characters abba appends to `$GITHUB_STEP_SUMMARY` in one step (GitHub takes up
/// to 1 MiB per step; this leaves room for multi-byte characters).
pub const STEP_SUMMARY_MAX: usize = 900_000;

/// Writes an export as every export of abba is written ([`crate::output::export`]): `-`
/// and `/dev/stdout` to standard output, a device or pipe in place, a file atomically.
pub fn write_export(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::output::export(path, bytes)
}

/// Appends `markdown` to the file `$GITHUB_STEP_SUMMARY` names, when it is set (GitHub
/// Actions sets it for every step); earlier steps' summaries stay. Nothing when unset.
///
/// # Errors
/// The file cannot be opened or written.
pub fn append_step_summary(markdown: &str) -> Result<(), String> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let text: String = if markdown.chars().count() > STEP_SUMMARY_MAX {
        let mut cut: String = markdown.chars().take(STEP_SUMMARY_MAX - 200).collect();
        cut.push_str("\n\n_abba: the summary was cut to GitHub's size limit._\n");
        cut
    } else {
        markdown.to_owned()
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", Path::new(&path).display()))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.write_all(b"\n"))
        .map_err(|e| format!("{}: {e}", Path::new(&path).display()))
}

/// The hidden marker a workflow finds its own comment by.
pub fn marker(id: &str) -> String {
    // `--` cannot appear inside an HTML comment.
    format!("<!-- abba:{} -->", id.replace("--", "-"))
}

/// The body of one pull-request comment: the marker first, the changed benchmarks, the
/// rest folded; at most [`PR_COMMENT_MAX`] characters.
pub fn pr_comment(report: &SuiteReport, id: &str) -> String {
    render_suite_markdown(
        report,
        &SuiteMarkdown::new(Some(marker(id)), Some(PR_COMMENT_MAX)),
    )
}

/// The suite's analysis JSON (`abba.suite/1`).
///
/// # Errors
/// A value that JSON cannot hold (never expected: the analysis has no NaN).
pub fn suite_json(report: &SuiteReport) -> anyhow::Result<String> {
    let mut value = serde_json::to_value(report)?;
    if let Value::Object(map) = &mut value {
        let mut with_schema = Map::new();
        with_schema.insert("schema".into(), Value::String(SUITE_SCHEMA.into()));
        with_schema.extend(std::mem::take(map));
        *map = with_schema;
    }
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    Ok(text)
}

/// Each (benchmark, candidate) with its key: the benchmark's name, or `benchmark/variant`
/// when it has several candidates.
fn candidates(
    report: &SuiteReport,
) -> Vec<(
    String,
    &bench_stats::suite::VariantMedian,
    &bench_stats::Analysis,
    usize,
)> {
    let mut out = Vec::new();
    for b in &report.benchmarks {
        let baseline = b
            .analysis
            .groups
            .first()
            .map(|g| g.baseline.clone())
            .unwrap_or_default();
        let cands: Vec<_> = b.medians.iter().filter(|m| m.name != baseline).collect();
        let several = cands.len() > 1;
        for (k, m) in cands.into_iter().enumerate() {
            let key = if several {
                format!(
                    "{}/{}",
                    b.name,
                    m.name.rsplit_once('/').map_or(m.name.as_str(), |x| x.1)
                )
            } else {
                b.name.clone()
            };
            out.push((key, m, &b.analysis, k));
        }
    }
    out
}

/// The measure a benchmark's values go under: Bencher's built-in `latency` (ns, lower is
/// better) and `throughput` (ops/s), else a slug of the unit.
pub(crate) fn measure(unit: &str, higher: bool) -> String {
    match (unit, higher) {
        ("ns", false) => "latency".into(),
        ("ops/s", true) => "throughput".into(),
        _ => {
            let slug: String = unit
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            let slug = slug.trim_matches('-').to_owned();
            if slug.is_empty() {
                "value".into()
            } else {
                slug
            }
        }
    }
}

/// Bencher Metric Format: per (benchmark, candidate), the candidate's median run with its
/// interval under the benchmark's measure.
pub fn bmf(report: &SuiteReport) -> String {
    let mut root = Map::new();
    for (key, m, analysis, _) in candidates(report) {
        let measure = measure(&analysis.unit, analysis.higher_is_better);
        let mut metrics = Map::new();
        metrics.insert(
            measure,
            json!({ "value": m.median, "lower_value": m.ci[0], "upper_value": m.ci[1] }),
        );
        root.insert(key, Value::Object(metrics));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    text
}

/// github-action-benchmark's `customSmallerIsBetter` (or `customBiggerIsBetter`) array:
/// per (benchmark, candidate) its median run, the interval's half-width as `range`, and the
/// ratio and verdict as `extra`.
///
/// # Errors
/// Benchmarks of both directions: one file feeds one of the two tools (use --export-bmf).
pub fn github_benchmark(report: &SuiteReport) -> Result<String, String> {
    let directions: Vec<bool> = report
        .benchmarks
        .iter()
        .map(|b| b.analysis.higher_is_better)
        .collect();
    if directions.iter().any(|d| *d != directions[0]) {
        return Err(
            "--export-github-benchmark: the suite mixes lower-is-better and higher-is-better benchmarks, and github-action-benchmark reads one direction per file; use --export-bmf".into(),
        );
    }
    let mut out = Vec::new();
    for (key, m, analysis, k) in candidates(report) {
        let c = analysis.groups.iter().flat_map(|g| &g.comparisons).nth(k);
        let extra = c.map(|c| {
            let ratio = c
                .ratio
                .map_or_else(|| "-".to_owned(), |r| format!("{r:.4}"));
            let ci = c
                .ratio_ci
                .map_or_else(String::new, |[lo, hi]| format!(" [{lo:.4}, {hi:.4}]"));
            format!(
                "ratio {ratio}{ci} against the baseline: {}",
                c.outcome.as_str()
            )
        });
        let mut entry = Map::new();
        entry.insert("name".into(), Value::String(key));
        entry.insert("unit".into(), Value::String(analysis.unit.clone()));
        entry.insert("value".into(), json!(m.median));
        entry.insert(
            "range".into(),
            Value::String(format!("+/- {}", (m.ci[1] - m.ci[0]) / 2.0)),
        );
        if let Some(extra) = extra {
            entry.insert("extra".into(), Value::String(extra));
        }
        out.push(Value::Object(entry));
    }
    let mut text = serde_json::to_string_pretty(&Value::Array(out)).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}
