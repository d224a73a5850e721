//! `abba history show --export-html`: each series' trend charts and table on one
//! self-contained page.

use bench_stats::history::Series;

use super::table::render_history_series;
use crate::pictures::{Estimate, HistoryChart, HistoryPoint, render_history_html};

/// The self-contained HTML page of `series`: per series, the levels chart, the steps
/// chart and the table of [`render_history_series`].
pub fn render_history_page(series: &[Series]) -> String {
    let sections: Vec<(HistoryChart, String)> = series
        .iter()
        .map(|s| (chart(s), render_history_series(s)))
        .collect();
    render_history_html(&sections)
}

fn chart(s: &Series) -> HistoryChart {
    let (y_scale, unit) = axis_unit(s);
    HistoryChart {
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
    }
}

/// The scale of the levels' axis: times in ns shown in the unit of their largest median.
fn axis_unit(s: &Series) -> (f64, String) {
    let unit = &s.benchmark.unit;
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
