//! `abba history export` (CSV, JSON, Bencher Metric Format) and `show --export-html`.

use serde_json::{Map, Value, json};

use super::ExportArgs;
use super::series::Series;
use super::show::all_series;
use crate::exit::usage;
use crate::output::write_stdout;

/// The CSV columns, one row per (benchmark, machine, commit).
pub const CSV_COLUMNS: &str = "benchmark,metric,unit,higher_is_better,machine,fingerprint,index,commit,parent,time,subject,level,level_low,level_high,runs,step_from,step_ratio,step_low,step_high,step_outcome,step_p,change_point,change_ratio,change_p";

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

fn opt(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map(|x| x.to_string())
        .unwrap_or_default()
}

/// Every series as CSV.
pub fn csv(series: &[Series]) -> String {
    let mut out = String::from(CSV_COLUMNS);
    out.push('\n');
    for s in series {
        for (k, p) in s.points.iter().enumerate() {
            let cp = s.change_points.iter().find(|c| c.index == k);
            let cells = [
                csv_field(&s.benchmark.name),
                csv_field(&s.benchmark.metric),
                csv_field(&s.benchmark.unit),
                s.benchmark.higher_is_better.to_string(),
                csv_field(&s.machine.name),
                s.machine.fingerprint.clone(),
                (k + 1).to_string(),
                csv_field(&p.commit.sha),
                csv_field(p.commit.parent.as_deref().unwrap_or("")),
                p.commit.time.map(|t| t.to_string()).unwrap_or_default(),
                csv_field(p.commit.subject.as_deref().unwrap_or("")),
                opt(p.level.as_ref().map(|l| l.median)),
                opt(p.level.as_ref().map(|l| l.low)),
                opt(p.level.as_ref().map(|l| l.high)),
                p.level
                    .as_ref()
                    .map(|l| l.n.to_string())
                    .unwrap_or_default(),
                p.step
                    .as_ref()
                    .map(|st| (st.from + 1).to_string())
                    .unwrap_or_default(),
                opt(p.step.as_ref().map(|st| st.ratio)),
                opt(p.step.as_ref().map(|st| st.low)),
                opt(p.step.as_ref().map(|st| st.high)),
                p.step
                    .as_ref()
                    .map(|st| st.outcome.clone())
                    .unwrap_or_default(),
                opt(p.step.as_ref().and_then(|st| st.p_value)),
                cp.is_some().to_string(),
                opt(cp.map(|c| c.ratio)),
                opt(cp.map(|c| c.p_value)),
            ];
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    out
}

fn num(v: f64) -> Value {
    if v.is_finite() { json!(v) } else { Value::Null }
}

/// Every series as JSON (`abba.history/1`, described in docs/json.md).
pub fn json(series: &[Series]) -> String {
    let list: Vec<Value> = series
        .iter()
        .map(|s| {
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
        })
        .collect();
    let doc = json!({ "schema": "abba.history/1", "series": list });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Bencher Metric Format: for each series, the newest commit's level under the
/// benchmark's measure (`latency` for ns, `throughput` for ops/s, else a slug of the
/// unit), keyed by benchmark (and machine when a benchmark ran on several).
pub fn bmf(series: &[Series]) -> String {
    let mut root = Map::new();
    for s in series {
        let Some(level) = s.points.iter().rev().find_map(|p| p.level.as_ref()) else {
            continue;
        };
        let several = series
            .iter()
            .filter(|o| o.benchmark.id == s.benchmark.id)
            .count()
            > 1;
        let key = if several {
            format!("{}@{}", s.benchmark.name, s.machine.name)
        } else {
            s.benchmark.name.clone()
        };
        let measure = crate::ci::measure(&s.benchmark.unit, s.benchmark.higher_is_better);
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

/// The self-contained HTML trend chart of each series.
pub fn html(series: &[Series]) -> String {
    use bench_report::pictures::{Estimate, HistoryChart, HistoryPoint, render_history_html};
    let sections: Vec<(HistoryChart, String)> = series
        .iter()
        .map(|s| {
            let (y_scale, unit) = axis_unit(&s.benchmark.unit, s);
            let chart = HistoryChart {
                title: format!("{} on {}", s.benchmark.name, s.machine.name),
                y_label: format!("median run ({unit})"),
                y_scale,
                points: s
                    .points
                    .iter()
                    .map(|p| HistoryPoint {
                        label: p.commit.short().to_owned(),
                        level: p.level.as_ref().map(|l| Estimate {
                            value: l.median,
                            low: l.low,
                            high: l.high,
                        }),
                        step: p.step.as_ref().map(|st| Estimate {
                            value: st.ratio,
                            low: st.low,
                            high: st.high,
                        }),
                    })
                    .collect(),
                change_points: s.change_points.iter().map(|c| c.index).collect(),
            };
            (chart, super::show::render_series(s))
        })
        .collect();
    render_history_html(&sections)
}

/// The scale of the levels' axis: times in ns shown in the unit of their median.
fn axis_unit(unit: &str, s: &Series) -> (f64, String) {
    if unit != "ns" {
        return (1.0, unit.to_owned());
    }
    let typical = s
        .points
        .iter()
        .filter_map(|p| p.level.as_ref().map(|l| l.median))
        .fold(0.0_f64, f64::max);
    match typical {
        t if t >= 1e9 => (1e9, "s".into()),
        t if t >= 1e6 => (1e6, "ms".into()),
        t if t >= 1e3 => (1e3, "µs".into()),
        _ => (1.0, "ns".into()),
    }
}

/// `abba history export`.
pub(super) fn export(args: &ExportArgs) -> anyhow::Result<u8> {
    super::check_output_not_history("--output", args.output.as_deref(), &args.read)?;
    let store = args.read.open()?;
    let series = all_series(&store, args.bench.as_deref(), &args.read)?;
    let text = match args.format.as_str() {
        "json" => json(&series),
        "bmf" => bmf(&series),
        _ => csv(&series),
    };
    match &args.output {
        Some(path) => crate::output::export(path, text.as_bytes())
            .map_err(|e| usage(format!("--output {}: {e}", path.display())))?,
        None => write_stdout(&text)?,
    }
    Ok(0)
}
