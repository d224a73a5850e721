//! The suite as github-action-benchmark's custom JSON.

use bench_stats::suite::SuiteReport;
use serde_json::{Map, Value, json};

use super::candidates;

/// github-action-benchmark's `customSmallerIsBetter` (or `customBiggerIsBetter`) array:
/// per (benchmark, candidate) its median run, the interval's half-width as `range`, and the
/// ratio and verdict as `extra`.
///
/// # Errors
/// Benchmarks of both directions: one file feeds one of the two tools (the message names
/// `--export-github-benchmark` and `--export-bmf`).
pub fn render_suite_github_benchmark(report: &SuiteReport) -> Result<String, String> {
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
    for c in candidates(report) {
        let comparison = c
            .analysis
            .groups
            .iter()
            .flat_map(|g| &g.comparisons)
            .nth(c.index);
        let extra = comparison.map(|c| {
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
        entry.insert("name".into(), Value::String(c.key));
        entry.insert("unit".into(), Value::String(c.analysis.unit.clone()));
        entry.insert("value".into(), json!(c.median.median));
        entry.insert(
            "range".into(),
            Value::String(format!("+/- {}", (c.median.ci[1] - c.median.ci[0]) / 2.0)),
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
