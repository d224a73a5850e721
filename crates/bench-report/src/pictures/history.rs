//! A benchmark's history (`abba history show --export-html`): the level of each commit
//! with its interval and the change points marked, and below it the paired step of each
//! commit against an earlier one, as a ratio with its interval.

use std::fmt::Write as _;

use super::Chart;
use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK, MARGIN_FILL};
use super::svg::{Anchor, Svg, escape, num};

/// An estimate with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The estimate.
    pub value: f64,
    /// Lower end of its interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// One commit of the series.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    /// The commit's short hash (the x axis labels).
    pub label: String,
    /// Its level (median run and interval), when measured alone.
    pub level: Option<Estimate>,
    /// Its paired step (ratio to an earlier commit and interval), when compared.
    pub step: Option<Estimate>,
}

/// What a history chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryChart {
    /// The title (benchmark and machine).
    pub title: String,
    /// The y label of the levels, with its unit (`median run (ms)`).
    pub y_label: String,
    /// Divide the levels by this for the axis (the unit's scale, e.g. 1e6 for ns as ms).
    pub y_scale: f64,
    /// The commits in history order.
    pub points: Vec<HistoryPoint>,
    /// Indices of the points where a new segment starts (change points).
    pub change_points: Vec<usize>,
}

const HEIGHT: f64 = 360.0;

fn x_scale(n: usize, area: Area) -> Scale {
    Scale::linear(-0.5, n.max(1) as f64 - 0.5, area.left, area.right)
}

fn commit_axis(svg: &mut Svg, area: Area, xs: &Scale, points: &[HistoryPoint]) {
    let every = points.len().div_ceil(12).max(1);
    for (k, p) in points.iter().enumerate() {
        if k % every != 0 {
            continue;
        }
        let x = xs.px(k as f64);
        svg.line(x, area.bottom, x, area.bottom + 4.0, INK, "");
        svg.text(
            x,
            area.bottom + 16.0,
            Anchor::Middle,
            &format!("#{}", k + 1),
            r#"class="tick""#,
        );
        let _ = p;
    }
    frame::x_label(svg, area, "commit (history order)");
}

fn change_marks(svg: &mut Svg, area: Area, xs: &Scale, chart: &HistoryChart) {
    for &k in &chart.change_points {
        let x = xs.px(k as f64 - 0.5);
        svg.line(
            x,
            area.top,
            x,
            area.bottom,
            style::color(1),
            r#"stroke-width="2" stroke-dasharray="6 3" class="change-point""#,
        );
    }
}

/// The levels chart: one marker per commit with its interval, change points as dashed
/// vertical lines before the first commit of each new segment.
pub fn history_levels_chart(chart: &HistoryChart) -> Chart {
    let legend = [
        LegendItem {
            label: "level (median run)".into(),
            swatch: Swatch::Marker(0, style::Shape::Circle, false),
        },
        LegendItem {
            label: "95% interval".into(),
            swatch: Swatch::Rule(INK, r#"stroke-width="1.5""#),
        },
        LegendItem {
            label: "change point".into(),
            swatch: Swatch::Rule(
                style::color(1),
                r#"stroke-width="2" stroke-dasharray="6 3""#,
            ),
        },
    ];
    let extra = frame::legend_extra(&legend);
    let area = Area::of_height(HEIGHT + extra, extra);
    let mut svg = Svg::new(WIDTH, HEIGHT + extra);
    frame::heading(&mut svg, &chart.title, &legend);
    let s = if chart.y_scale > 0.0 {
        chart.y_scale
    } else {
        1.0
    };
    let levels: Vec<(usize, Estimate)> = chart
        .points
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.level.map(|l| (k, l)))
        .filter(|(_, l)| l.value.is_finite() && l.low.is_finite() && l.high.is_finite())
        .collect();
    let lo = levels
        .iter()
        .map(|(_, l)| l.low / s)
        .fold(f64::INFINITY, f64::min);
    let hi = levels
        .iter()
        .map(|(_, l)| l.high / s)
        .fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        let pad = ((hi - lo) * 0.08).max(hi.abs() * 1e-6).max(1e-12);
        (lo - pad, hi + pad)
    } else {
        (0.0, 1.0)
    };
    let ys = Scale::linear(lo, hi, area.bottom, area.top);
    let xs = x_scale(chart.points.len(), area);
    frame::y_axis(&mut svg, area, &ys, &chart.y_label, 6);
    commit_axis(&mut svg, area, &xs, &chart.points);
    change_marks(&mut svg, area, &xs, chart);
    draw_levels(&mut svg, area, (&xs, &ys), &levels, s);
    frame::border(&mut svg, area);
    let description = format!(
        "{} of {} commits with intervals, {} change points",
        chart.y_label,
        chart.points.len(),
        chart.change_points.len()
    );
    Chart {
        file_name: "history-levels.svg".into(),
        title: chart.title.clone(),
        svg: svg.finish(&chart.title, &description),
    }
}

/// The levels (`(commit index, estimate)`, divided by `s` for the axis): a faint line
/// through them, each one's interval as a bar and a marker; a note when there are none.
fn draw_levels(
    svg: &mut Svg,
    area: Area,
    (xs, ys): (&Scale, &Scale),
    levels: &[(usize, Estimate)],
    s: f64,
) {
    let col = style::color(0);
    let (mut bars, mut marks, mut line) = (String::new(), String::new(), String::new());
    for (i, (k, l)) in levels.iter().enumerate() {
        let x = xs.px(*k as f64);
        let _ = write!(
            bars,
            "M{} {}V{}",
            num(x),
            num(ys.px(l.low / s)),
            num(ys.px(l.high / s))
        );
        let _ = write!(
            line,
            "{}{} {}",
            if i == 0 { "M" } else { "L" },
            num(x),
            num(ys.px(l.value / s))
        );
        style::marker_path(&mut marks, style::Shape::Circle, x, ys.px(l.value / s), 3.5);
    }
    if levels.is_empty() {
        let (x, y) = area.centre();
        svg.text(
            x,
            y,
            Anchor::Middle,
            "no levels recorded (only paired steps)",
            "",
        );
    } else {
        svg.path(
            &line,
            &format!(r#"fill="none" stroke="{col}" stroke-width="1" stroke-opacity="0.5""#),
        );
        bars_and_points(svg, &bars, &marks, col);
    }
}

/// The intervals (`bars`, one path) and the markers (`marks`) of a history chart, in
/// colour `col`.
fn bars_and_points(svg: &mut Svg, bars: &str, marks: &str, col: &str) {
    svg.path(
        bars,
        &format!(r#"stroke="{INK}" stroke-width="1.5" class="error-bars""#),
    );
    svg.path(
        marks,
        &format!(r#"fill="{col}" stroke="{INK}" class="points""#),
    );
}

/// The steps chart: each commit's paired ratio to an earlier commit with its interval,
/// around a line at 1 (no change).
pub fn history_steps_chart(chart: &HistoryChart) -> Chart {
    let legend = [
        LegendItem {
            label: "paired step (ratio to the earlier commit)".into(),
            swatch: Swatch::Marker(2, style::Shape::Square, false),
        },
        LegendItem {
            label: "interval".into(),
            swatch: Swatch::Rule(INK, r#"stroke-width="1.5""#),
        },
        LegendItem {
            label: "no change".into(),
            swatch: Swatch::Band(MARGIN_FILL, 1.0),
        },
    ];
    let extra = frame::legend_extra(&legend);
    let height = 280.0;
    let area = Area::of_height(height + extra, extra);
    let mut svg = Svg::new(WIDTH, height + extra);
    let title = format!("{}: paired steps", chart.title);
    frame::heading(&mut svg, &title, &legend);
    let steps: Vec<(usize, Estimate)> = chart
        .points
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.step.map(|l| (k, l)))
        .filter(|(_, l)| l.value > 0.0 && l.low > 0.0 && l.high.is_finite())
        .collect();
    let lo = steps.iter().map(|(_, l)| l.low).fold(1.0_f64, f64::min);
    let hi = steps.iter().map(|(_, l)| l.high).fold(1.0_f64, f64::max);
    let pad = ((hi - lo) * 0.08).max(1e-4);
    let ys = Scale::linear(lo - pad, hi + pad, area.bottom, area.top);
    let xs = x_scale(chart.points.len(), area);
    frame::y_axis(&mut svg, area, &ys, "ratio (candidate / base)", 5);
    commit_axis(&mut svg, area, &xs, &chart.points);
    svg.line(
        area.left,
        ys.px(1.0),
        area.right,
        ys.px(1.0),
        "#888888",
        r#"stroke-width="1.5" class="no-change""#,
    );
    change_marks(&mut svg, area, &xs, chart);
    let col = style::color(2);
    let (mut bars, mut marks) = (String::new(), String::new());
    for (k, l) in &steps {
        let x = xs.px(*k as f64);
        let _ = write!(
            bars,
            "M{} {}V{}",
            num(x),
            num(ys.px(l.low)),
            num(ys.px(l.high))
        );
        style::marker_path(&mut marks, style::Shape::Square, x, ys.px(l.value), 3.5);
    }
    if steps.is_empty() {
        let (x, y) = area.centre();
        svg.text(x, y, Anchor::Middle, "no paired steps recorded", "");
    } else {
        bars_and_points(&mut svg, &bars, &marks, col);
    }
    frame::border(&mut svg, area);
    let description = format!("paired steps of {} commits with intervals", steps.len());
    Chart {
        file_name: "history-steps.svg".into(),
        title: title.clone(),
        svg: svg.finish(&title, &description),
    }
}

const STYLE: &str = "body{font-family:sans-serif;max-width:820px;margin:2em auto;padding:0 1em;color:#222;background:#fff}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}\
figure{margin:1.5em 0}figure svg{max-width:100%;height:auto;display:block}\
figcaption{font-size:.9em;color:#444;margin-top:.4em}\
pre{font-size:12px;line-height:1.3;overflow-x:auto;background:#f6f6f6;padding:1em;border:1px solid #ddd}";

/// A self-contained HTML page of history charts, each benchmark with its two charts and
/// its table as text (no script, no network).
pub fn render_history_html(sections: &[(HistoryChart, String)]) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>abba history</title><style>{STYLE}</style></head><body>\n<h1>abba history</h1>\n"
    );
    if sections.is_empty() {
        out.push_str("<p>No series matches the filters.</p>\n");
    }
    for (chart, table) in sections {
        let _ = writeln!(out, "<h2>{}</h2>", escape(&chart.title));
        for (c, caption) in [
            (
                history_levels_chart(chart),
                "Each commit's median run with its 95% interval; a dashed line marks a change point (e-divisive means), before the first commit of the new level.",
            ),
            (
                history_steps_chart(chart),
                "Each paired comparison of a commit with an earlier one (abba compare): the ratio and its interval; the grey line is no change.",
            ),
        ] {
            let _ = writeln!(
                out,
                "<figure>{}<figcaption>{}</figcaption></figure>",
                c.svg,
                escape(caption)
            );
        }
        let _ = writeln!(out, "<pre>{}</pre>", escape(table));
    }
    out.push_str("</body></html>\n");
    out
}
