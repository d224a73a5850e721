//! `abba history show --json` and `export --format json`: the `abba.history/1` document
//! (described in docs/json.md and docs/history.md).

use bench_stats::history::Series;
use serde_json::{Value, json};

fn num(v: f64) -> Value {
    if v.is_finite() { json!(v) } else { Value::Null }
}

fn one(s: &Series) -> Value {
    let points: Vec<Value> = s
        .points
        .iter()
        .map(|p| {
            json!({
                "commit": p.commit.sha,
                "parent": p.commit.parent,
                "time": p.commit.time,
                "subject": p.commit.subject,
                "level": p.level.as_ref().map(|l| json!({
                    "median": num(l.median), "low": num(l.low), "high": num(l.high),
                    "runs": l.n, "experiments": l.experiments,
                })),
                "step": p.step.as_ref().map(|st| json!({
                    "from": st.from, "ratio": num(st.ratio), "low": num(st.low),
                    "high": num(st.high), "confidence": num(st.confidence),
                    "outcome": st.outcome, "verdict": st.verdict,
                    "p_value": st.p_value.map(num), "estimator": st.estimator,
                })),
            })
        })
        .collect();
    let change_points: Vec<Value> = s
        .change_points
        .iter()
        .map(|c| {
            json!({
                "index": c.index, "commit": s.points[c.index].commit.sha,
                "p_value": num(c.p_value), "before": num(c.before),
                "after": num(c.after), "ratio": num(c.ratio),
            })
        })
        .collect();
    json!({
        "benchmark": s.benchmark.name,
        "metric": s.benchmark.metric,
        "unit": s.benchmark.unit,
        "higher_is_better": s.benchmark.higher_is_better,
        "machine": { "name": s.machine.name, "fingerprint": s.machine.fingerprint },
        "points": points,
        "change_points": change_points,
        "chain": s.chain.as_ref().map(|ch| json!({
            "from": ch.from, "to": ch.to, "steps": ch.steps,
            "ratio": num(ch.chain.ratio),
            "interval": [num(ch.chain.interval[0]), num(ch.chain.interval[1])],
            "largest_steps": ch.chain.largest_steps.iter()
                .filter_map(|&i| ch.steps.get(i)).collect::<Vec<_>>(),
        })),
    })
}

/// Every series as the `abba.history/1` JSON document, pretty-printed, with a final
/// newline; numbers that cannot be computed are `null`.
pub fn render_history_json(series: &[Series]) -> String {
    let list: Vec<Value> = series.iter().map(one).collect();
    let doc = json!({ "schema": "abba.history/1", "series": list });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
