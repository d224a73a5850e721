//! A swept parameter: an estimate (a median throughput, say) against the parameter's
//! value, with its interval as an error bar and a band (`cargo xtask chain-sweep --svg`).

use std::fmt::Write as _;

use super::Chart;
use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK};
use super::svg::{Anchor, Svg, num};

/// One value of the parameter with its estimate and interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScanPoint {
    /// The parameter's value (e.g. the chain count).
    pub x: f64,
    /// The estimate at it.
    pub estimate: f64,
    /// Lower end of its interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// What a scan chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanChart {
    /// The title.
    pub title: String,
    /// The x axis label, with its unit when it has one (e.g. `chains (count)`).
    pub x_label: String,
    /// The y axis label with its unit (e.g. `median throughput (M ops/s)`).
    pub y_label: String,
    /// What the intervals are (for the legend), e.g. `95% bootstrap interval`.
    pub interval_label: String,
    /// The points, in any order (drawn by increasing x).
    pub points: Vec<ScanPoint>,
}

const HEIGHT: f64 = 400.0;

/// The chart of a scan, as a standalone SVG document.
pub fn scan_chart(scan: &ScanChart) -> Chart {
    let mut points: Vec<ScanPoint> = scan
        .points
        .iter()
        .copied()
        .filter(|p| p.x.is_finite() && p.estimate.is_finite())
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    let legend = [
        LegendItem {
            label: "estimate".into(),
            swatch: Swatch::Marker(0, style::Shape::Circle, false),
        },
        LegendItem {
            label: scan.interval_label.clone(),
            swatch: Swatch::Band(style::color(0), 0.2),
        },
    ];
    let extra = frame::legend_extra(&legend);
    let area = Area::of_height(HEIGHT + extra, extra);
    let mut svg = Svg::new(WIDTH, HEIGHT + extra);
    frame::heading(&mut svg, &scan.title, &legend);
    let ends = points
        .iter()
        .flat_map(|p| [p.low, p.high, p.estimate])
        .filter(|v| v.is_finite());
    let lo = ends.clone().fold(f64::INFINITY, f64::min).min(0.0);
    let hi = ends.fold(f64::NEG_INFINITY, f64::max);
    let ys = Scale::linear(lo, hi * 1.08, area.bottom, area.top);
    let (x0, x1) = (
        points.first().map_or(0.0, |p| p.x),
        points.last().map_or(1.0, |p| p.x),
    );
    let pad = (x1 - x0).abs().max(1.0) * 0.04;
    let xs = Scale::linear(x0 - pad, x1 + pad, area.left, area.right);
    frame::y_axis(&mut svg, area, &ys, &scan.y_label, 6);
    frame::x_axis(
        &mut svg,
        area,
        &xs,
        &scan.x_label,
        points.len().clamp(2, 12),
    );
    draw_points(&mut svg, area, (&xs, &ys), &points);
    frame::border(&mut svg, area);
    let description = format!(
        "{} against {}, {} points with intervals",
        scan.y_label,
        scan.x_label,
        points.len()
    );
    Chart {
        file_name: "scan.svg".into(),
        title: scan.title.clone(),
        svg: svg.finish(&scan.title, &description),
    }
}

/// The points (sorted by x): the intervals as a band and as error bars, the estimates
/// joined by a line and marked; a note when there are none.
fn draw_points(svg: &mut Svg, area: Area, (xs, ys): (&Scale, &Scale), points: &[ScanPoint]) {
    let col = style::color(0);
    let (mut band, mut back, mut line, mut bars, mut marks) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for (k, p) in points.iter().enumerate() {
        let (x, cmd) = (num(xs.px(p.x)), if k == 0 { "M" } else { "L" });
        let _ = write!(band, "{cmd}{x} {}", num(ys.px(p.high)));
        back.insert_str(0, &format!("L{x} {}", num(ys.px(p.low))));
        let _ = write!(line, "{cmd}{x} {}", num(ys.px(p.estimate)));
        let _ = write!(bars, "M{x} {}V{}", num(ys.px(p.low)), num(ys.px(p.high)));
        style::marker_path(
            &mut marks,
            style::Shape::Circle,
            xs.px(p.x),
            ys.px(p.estimate),
            4.0,
        );
    }
    if !points.is_empty() {
        svg.path(
            &format!("{band}{back}Z"),
            &format!(r#"fill="{col}" fill-opacity="0.2" class="interval-band""#),
        );
        svg.path(
            &bars,
            &format!(r#"stroke="{INK}" stroke-width="1.5" class="error-bars""#),
        );
        svg.path(
            &line,
            &format!(r#"fill="none" stroke="{col}" stroke-width="1.5""#),
        );
        svg.path(
            &marks,
            &format!(r#"fill="{col}" stroke="{INK}" class="points""#),
        );
    } else {
        let (x, y) = area.centre();
        svg.text(x, y, Anchor::Middle, "no points", "");
    }
}
