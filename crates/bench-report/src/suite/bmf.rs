//! The suite as Bencher Metric Format JSON.

use bench_stats::suite::SuiteReport;
use serde_json::{Map, Value, json};

use super::candidates;

/// The measure a benchmark's values go under in Bencher Metric Format: Bencher's
/// built-in `latency` (ns, lower is better) and `throughput` (ops/s), else a slug of the
/// unit (`value` when nothing of it is left).
///
/// # Examples
/// ```
/// use bench_report::bmf_measure;
/// assert_eq!(bmf_measure("ns", false), "latency");
/// assert_eq!(bmf_measure("ops/s", true), "throughput");
/// assert_eq!(bmf_measure("KiB", false), "kib");
/// ```
pub fn bmf_measure(unit: &str, higher_is_better: bool) -> String {
    match (unit, higher_is_better) {
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
/// interval under the benchmark's measure ([`bmf_measure`]).
pub fn render_suite_bmf(report: &SuiteReport) -> String {
    let mut root = Map::new();
    for c in candidates(report) {
        let measure = bmf_measure(&c.analysis.unit, c.analysis.higher_is_better);
        let mut metrics = Map::new();
        metrics.insert(
            measure,
            json!({ "value": c.median.median, "lower_value": c.median.ci[0], "upper_value": c.median.ci[1] }),
        );
        root.insert(c.key, Value::Object(metrics));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    text
}
