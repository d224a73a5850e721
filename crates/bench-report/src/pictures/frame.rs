//! The frame every chart shares: title, legend, plot area, axes with ticks and labels.

use super::scale::{Scale, tick_label};
use super::style::{self, GRID, INK, MARGIN_FILL, Shape};
use super::svg::{Anchor, Svg};

/// Width of every chart, px.
pub const WIDTH: f64 = 760.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 58.0;
const BOTTOM: f64 = 52.0;

/// One legend entry: a label with its colour, marker and line style.
#[derive(Debug, Clone)]
pub struct LegendItem {
    /// The text.
    pub label: String,
    /// What the swatch shows.
    pub swatch: Swatch,
}

/// How a legend entry is drawn.
#[derive(Debug, Clone)]
pub enum Swatch {
    /// A marker of a series: colour index and shape (hollow when `hollow`).
    Marker(usize, Shape, bool),
    /// A filled band with this fill and opacity.
    Band(&'static str, f64),
    /// A line of a fixed colour and dash attribute.
    Rule(&'static str, &'static str),
}

/// The drawing area of a chart of a given height.
#[derive(Debug, Clone, Copy)]
pub struct Area {
    /// Left edge of the plot, px.
    pub left: f64,
    /// Right edge.
    pub right: f64,
    /// Top edge.
    pub top: f64,
    /// Bottom edge.
    pub bottom: f64,
}

impl Area {
    /// The plot area of a chart `height` px tall whose legend takes `extra` px beyond
    /// its first line.
    pub fn of_height(height: f64, extra: f64) -> Area {
        Area {
            left: LEFT,
            right: WIDTH - RIGHT,
            top: TOP + extra,
            bottom: height - BOTTOM,
        }
    }

    /// The middle of the area (x, y), where a chart with nothing to draw says so.
    pub fn centre(&self) -> (f64, f64) {
        (
            (self.left + self.right) / 2.0,
            (self.top + self.bottom) / 2.0,
        )
    }
}

const LEGEND_LINE: f64 = 15.0;

/// Where each legend entry goes: (x, y) of its swatch's left edge and text baseline.
fn legend_layout(legend: &[LegendItem]) -> Vec<(f64, f64)> {
    let (mut x, mut y) = (LEFT, 40.0);
    let mut out = Vec::with_capacity(legend.len());
    for item in legend {
        let width = 30.0 + 6.5 * item.label.chars().count() as f64;
        if x + width > WIDTH - RIGHT && x > LEFT {
            x = LEFT;
            y += LEGEND_LINE;
        }
        out.push((x, y));
        x += width;
    }
    out
}

/// The height the legend takes beyond its first line: add it to the chart's height and
/// to the top of its plot area.
pub fn legend_extra(legend: &[LegendItem]) -> f64 {
    legend_layout(legend).last().map_or(0.0, |(_, y)| y - 40.0)
}

/// Draws the title and the legend (one row under the title, wrapping when long: see
/// [`legend_extra`]).
pub fn heading(svg: &mut Svg, title: &str, legend: &[LegendItem]) {
    svg.text(
        LEFT,
        20.0,
        Anchor::Start,
        title,
        r#"font-size="15" font-weight="bold""#,
    );
    for (item, (x, y)) in legend.iter().zip(legend_layout(legend)) {
        swatch(svg, &item.swatch, x + 8.0, y - 4.0);
        svg.text(x + 20.0, y, Anchor::Start, &item.label, r#"class="legend""#);
    }
}

fn swatch(svg: &mut Svg, s: &Swatch, x: f64, y: f64) {
    match s {
        Swatch::Marker(i, shape, hollow) => {
            let mut d = String::new();
            style::marker_path(&mut d, *shape, x, y, 4.0);
            let color = style::color(*i);
            let fill = if *hollow { "none" } else { color };
            svg.path(
                &d,
                &format!(r#"fill="{fill}" stroke="{color}" class="swatch""#),
            );
        }
        Swatch::Band(fill, opacity) => svg.rect(
            x - 8.0,
            y - 5.0,
            16.0,
            10.0,
            &format!(r#"fill="{fill}" fill-opacity="{opacity}" class="swatch""#),
        ),
        Swatch::Rule(color, extra) => svg.line(
            x - 8.0,
            y,
            x + 8.0,
            y,
            color,
            &format!(r#"{extra} class="swatch""#),
        ),
    }
}

/// Draws the y axis: grid lines, ticks and their labels, and the rotated axis label.
pub fn y_axis(svg: &mut Svg, area: Area, scale: &Scale, label: &str, ticks: usize) {
    let values = scale.ticks(ticks);
    for v in &values {
        let y = scale.px(*v);
        svg.line(area.left, y, area.right, y, GRID, "");
        svg.text(
            area.left - 6.0,
            y + 4.0,
            Anchor::End,
            &tick_label(*v, &values),
            "",
        );
    }
    let mid = (area.top + area.bottom) / 2.0;
    svg.text(
        16.0,
        mid,
        Anchor::Middle,
        label,
        &format!(
            r#"transform="rotate(-90 16 {})" class="axis-label""#,
            super::svg::num(mid)
        ),
    );
}

/// Draws the x axis: ticks and labels under the plot, and the axis label.
pub fn x_axis(svg: &mut Svg, area: Area, scale: &Scale, label: &str, ticks: usize) {
    x_axis_of(svg, area, scale, label, scale.ticks(ticks));
}

/// [`x_axis`] for a count (blocks, runs, chains): whole-number ticks only.
pub fn x_axis_counts(svg: &mut Svg, area: Area, scale: &Scale, label: &str, ticks: usize) {
    let whole = scale
        .ticks(ticks)
        .into_iter()
        .filter(|v| v.fract() == 0.0)
        .collect();
    x_axis_of(svg, area, scale, label, whole);
}

fn x_axis_of(svg: &mut Svg, area: Area, scale: &Scale, label: &str, values: Vec<f64>) {
    for v in &values {
        let x = scale.px(*v);
        svg.line(x, area.bottom, x, area.bottom + 5.0, INK, "");
        svg.text(
            x,
            area.bottom + 18.0,
            Anchor::Middle,
            &tick_label(*v, &values),
            "",
        );
    }
    x_label(svg, area, label);
}

/// The x axis label alone (for category axes).
pub fn x_label(svg: &mut Svg, area: Area, label: &str) {
    svg.text(
        (area.left + area.right) / 2.0,
        area.bottom + 40.0,
        Anchor::Middle,
        label,
        r#"class="axis-label""#,
    );
}

/// The shaded equivalence band (ratios within `1 ± margin`) across `area`, on the ratio
/// scale `ys`; returns its lower and upper edges in pixels.
pub fn margin_band(svg: &mut Svg, area: Area, ys: &Scale, margin: f64) -> (f64, f64) {
    let (m_lo, m_hi) = (ys.px_clamped(1.0 - margin), ys.px_clamped(1.0 + margin));
    svg.rect(
        area.left,
        m_hi,
        area.right - area.left,
        m_lo - m_hi,
        &format!(r#"fill="{MARGIN_FILL}" class="margin-band""#),
    );
    (m_lo, m_hi)
}

/// The dashed horizontal line at a ratio of 1 (no change) across `area`, on the ratio
/// scale `ys`.
pub fn no_change_line(svg: &mut Svg, area: Area, ys: &Scale) {
    let one = ys.px(1.0);
    svg.line(
        area.left,
        one,
        area.right,
        one,
        INK,
        r#"stroke-dasharray="5 3" class="no-change""#,
    );
}

/// The box around the plot area.
pub fn border(svg: &mut Svg, area: Area) {
    svg.rect(
        area.left,
        area.top,
        area.right - area.left,
        area.bottom - area.top,
        &format!(r#"fill="none" stroke="{INK}""#),
    );
}

/// A note in small italics at the bottom left (e.g. what was downsampled).
pub fn note(svg: &mut Svg, height: f64, text: &str) {
    svg.text(
        LEFT,
        height - 4.0,
        Anchor::Start,
        text,
        r#"font-size="11" font-style="italic" class="note""#,
    );
}
