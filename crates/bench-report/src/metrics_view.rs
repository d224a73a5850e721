//! The other metrics of counted runs ([`bench_stats::Analysis::metrics`]) as lines: one
//! per comparison with the ratio and interval of each other recorded metric, and one on
//! how far layout moves the counts. Times and memory measured under valgrind say so.

use bench_stats::model::{MetricEffect, MetricsReport};

/// A ratio with as many decimals as show its distance from 1 (at least three).
fn ratio(r: f64) -> String {
    let d = (r - 1.0).abs();
    let k = if d == 0.0 || !d.is_finite() || d >= 1e-2 {
        3
    } else {
        ((-d.log10()).floor() as usize + 2).clamp(3, 6)
    };
    format!("{r:.k$}")
}

fn effect(m: &MetricEffect) -> String {
    let value = match (m.ratio, m.ratio_ci) {
        (Some(r), Some([lo, hi])) => {
            format!("{}x [{}, {}]", ratio(r), ratio(lo), ratio(hi))
        }
        (Some(r), None) => format!("{}x (no interval)", ratio(r)),
        _ => "no ratio".to_owned(),
    };
    let note = if m.the_programs {
        ""
    } else if m.is_memory() {
        " (under valgrind, not the program's memory)"
    } else {
        " (under valgrind, not the program's time)"
    };
    format!("{} {value}{note}", m.metric)
}

/// A count for reading: integers below a million, else three significant digits.
fn count(x: f64) -> String {
    if x.abs() < 1e6 {
        format!("{x:.0}")
    } else {
        format!("{x:.3e}")
    }
}

/// The section's lines: one per comparison, then the layout line (when the runs had
/// several environment sizes).
pub(crate) fn lines(report: &MetricsReport) -> Vec<String> {
    let mut out: Vec<String> = report
        .comparisons
        .iter()
        .filter(|c| !c.metrics.is_empty())
        .map(|c| {
            let class = c
                .class
                .as_deref()
                .map(|k| format!("[{k}] "))
                .unwrap_or_default();
            let parts: Vec<String> = c.metrics.iter().map(effect).collect();
            format!(
                "{class}{} vs {}: {}",
                c.candidate,
                c.baseline,
                parts.join(" · ")
            )
        })
        .collect();
    if let Some(first) = report.layout.first() {
        let each: Vec<String> = report
            .layout
            .iter()
            .map(|l| {
                format!(
                    "±{} ({:.4}%) for {}",
                    count(l.half_range),
                    l.relative * 100.0,
                    l.benchmark
                )
            })
            .collect();
        out.push(format!(
            "layout moves {} by {} across {} environment sizes (half the range of each size's median)",
            first.metric,
            each.join(", "),
            first.sizes
        ));
    }
    out
}

/// The section's title.
pub(crate) fn title(report: &MetricsReport) -> String {
    format!(
        "Other metrics of the same runs (the verdicts decide on {}; counted with {}):",
        report.decided_on, report.counter
    )
}
