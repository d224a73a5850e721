//! `abba history export --format csv`: one row per (benchmark, machine, commit).

use bench_stats::history::Series;

/// The CSV columns, one row per (benchmark, machine, commit).
pub const HISTORY_CSV_COLUMNS: &str = "benchmark,metric,unit,higher_is_better,machine,fingerprint,index,commit,parent,time,subject,level,level_low,level_high,runs,step_from,step_ratio,step_low,step_high,step_outcome,step_p,change_point,change_ratio,change_p";

fn field(text: &str) -> String {
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

/// Every series as CSV ([`HISTORY_CSV_COLUMNS`]); numbers that cannot be computed are
/// empty.
pub fn render_history_csv(series: &[Series]) -> String {
    let mut out = String::from(HISTORY_CSV_COLUMNS);
    out.push('\n');
    for s in series {
        for (k, p) in s.points.iter().enumerate() {
            let cp = s.change_points.iter().find(|c| c.index == k);
            let step = p.step.as_ref();
            let level = p.level.as_ref();
            let cells = [
                field(&s.benchmark.name),
                field(&s.benchmark.metric),
                field(&s.benchmark.unit),
                s.benchmark.higher_is_better.to_string(),
                field(&s.machine.name),
                s.machine.fingerprint.clone(),
                (k + 1).to_string(),
                field(&p.commit.sha),
                field(p.commit.parent.as_deref().unwrap_or("")),
                p.commit.time.map(|t| t.to_string()).unwrap_or_default(),
                field(p.commit.subject.as_deref().unwrap_or("")),
                opt(level.map(|l| l.median)),
                opt(level.map(|l| l.low)),
                opt(level.map(|l| l.high)),
                level.map(|l| l.n.to_string()).unwrap_or_default(),
                step.map(|st| (st.from + 1).to_string()).unwrap_or_default(),
                opt(step.map(|st| st.ratio)),
                opt(step.map(|st| st.low)),
                opt(step.map(|st| st.high)),
                step.map(|st| st.outcome.clone()).unwrap_or_default(),
                opt(step.and_then(|st| st.p_value)),
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
