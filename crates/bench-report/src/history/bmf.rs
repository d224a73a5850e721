//! `abba history export --format bmf`: Bencher Metric Format of each series' newest level.

use bench_stats::history::Series;
use serde_json::{Map, Value, json};

use crate::suite::bmf_measure;

fn num(v: f64) -> Value {
    if v.is_finite() { json!(v) } else { Value::Null }
}

/// Bencher Metric Format: for each series, the newest commit's level under the
/// benchmark's measure ([`bmf_measure`]), keyed by benchmark (and machine, `NAME@MACHINE`,
/// when a benchmark has series on several).
pub fn render_history_bmf(series: &[Series]) -> String {
    let mut root = Map::new();
    for s in series {
        let Some(level) = s.points.iter().rev().find_map(|p| p.level.as_ref()) else {
            continue;
        };
        let same = |o: &&Series| {
            o.benchmark.name == s.benchmark.name && o.benchmark.metric == s.benchmark.metric
        };
        let several = series.iter().filter(same).count() > 1;
        let key = if several {
            format!("{}@{}", s.benchmark.name, s.machine.name)
        } else {
            s.benchmark.name.clone()
        };
        let measure = bmf_measure(&s.benchmark.unit, s.benchmark.higher_is_better);
        let mut metrics = Map::new();
        metrics.insert(
            measure,
            json!({ "value": num(level.median), "lower_value": num(level.low), "upper_value": num(level.high) }),
        );
        root.insert(key, Value::Object(metrics));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    text
}
