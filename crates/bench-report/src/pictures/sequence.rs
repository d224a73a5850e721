//! The confidence sequence over blocks (a sequential run): the ratio estimate after each
//! block with its anytime-valid interval as a band. Drawn from [`ConfidenceSequence`]s
//! given beside the analysis; this module computes none.

use std::fmt::Write as _;

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK, MARGIN_FILL};
use super::svg::{Svg, num};
use super::{Chart, ConfidenceSequence, Pictures};

const HEIGHT: f64 = 360.0;

/// The chart, when at least one sequence has a point.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let seqs: Vec<&ConfidenceSequence> = p
        .sequences
        .iter()
        .filter(|s| !s.points.is_empty())
        .collect();
    if seqs.is_empty() {
        return None;
    }
    let margin = p.analysis.equivalence_margin;
    let points = seqs.iter().flat_map(|s| &s.points);
    let finite = |v: &f64| v.is_finite() && *v > 0.0;
    // The scale fits every estimate, the last look's interval and the margin; the wide
    // intervals of the first looks run off the edges (clamped) rather than squeezing the
    // looks that decided into a few pixels.
    let last = seqs.iter().filter_map(|s| s.points.last());
    let lo = points
        .clone()
        .map(|q| q.estimate)
        .chain(last.clone().map(|q| q.low))
        .filter(finite)
        .fold(1.0 - margin, f64::min);
    let hi = points
        .clone()
        .map(|q| q.estimate)
        .chain(last.map(|q| q.high))
        .filter(finite)
        .fold(1.0 + margin, f64::max);
    let max_blocks = points.map(|q| q.blocks).max().unwrap_or(1);
    let title = "Confidence sequence over blocks";
    let legend = legend(p, &seqs);
    let extra = frame::legend_extra(&legend);
    let area = Area::of_height(HEIGHT + extra, extra);
    let mut svg = Svg::new(WIDTH, HEIGHT + extra);
    frame::heading(&mut svg, title, &legend);
    let pad = ((hi / lo).ln() * 0.05).exp();
    let ys = Scale::log(lo / pad, hi * pad, area.bottom, area.top);
    let xs = Scale::counts(max_blocks, area.left, area.right);
    frame::y_axis(
        &mut svg,
        area,
        &ys,
        "ratio candidate / baseline (log scale)",
        5,
    );
    frame::x_axis_counts(&mut svg, area, &xs, "blocks seen", 10);
    frame::margin_band(&mut svg, area, &ys, margin);
    for s in &seqs {
        let i = p.variant_index(&s.candidate);
        draw_sequence(&mut svg, area, (&xs, &ys), s, i);
    }
    for s in &seqs {
        let i = p.variant_index(&s.candidate);
        let col = style::color(i);
        let mut marks = String::new();
        for q in s.points.iter().filter(|q| finite(&q.estimate)) {
            style::marker_path(
                &mut marks,
                style::shape(i),
                xs.px(q.blocks as f64),
                ys.px(q.estimate),
                3.5,
            );
        }
        if !marks.is_empty() {
            svg.path(
                &marks,
                &format!(r#"fill="{col}" stroke="{col}" class="sequence-looks""#),
            );
        }
    }
    frame::no_change_line(&mut svg, area, &ys);
    frame::border(&mut svg, area);
    let description = "Ratio estimate after each block with its anytime-valid interval";
    Some(Chart {
        file_name: "confidence-sequence.svg".into(),
        title: title.into(),
        svg: svg.finish(title, description),
    })
}

/// The legend: each sequence's estimate and interval, the no-change line and the margin.
fn legend(p: &Pictures<'_>, seqs: &[&ConfidenceSequence]) -> Vec<LegendItem> {
    let mut legend: Vec<LegendItem> = Vec::new();
    for s in seqs {
        let i = p.variant_index(&s.candidate);
        legend.push(LegendItem {
            label: format!("{} / {}: estimate at each look", s.candidate, s.baseline),
            swatch: Swatch::Marker(i, style::shape(i), false),
        });
        legend.push(LegendItem {
            label: "anytime-valid interval".into(),
            swatch: Swatch::Band(style::color(i), 0.2),
        });
    }
    legend.push(LegendItem {
        label: "no change (1)".into(),
        swatch: Swatch::Rule(INK, r#"stroke-dasharray="5 3""#),
    });
    legend.push(LegendItem {
        label: "equivalence margin".into(),
        swatch: Swatch::Band(MARGIN_FILL, 1.0),
    });
    legend
}

/// One sequence `s` (variant `i`'s colour): the faint lines of the unbounded looks, the
/// interval band, the estimate's line and the last look's interval as a capped bar.
fn draw_sequence(
    svg: &mut Svg,
    area: Area,
    (xs, ys): (&Scale, &Scale),
    s: &ConfidenceSequence,
    i: usize,
) {
    let finite = |v: &f64| v.is_finite() && *v > 0.0;
    let col = style::color(i);
    let pts: Vec<_> = s
        .points
        .iter()
        .filter(|q| finite(&q.low) && finite(&q.high) && finite(&q.estimate))
        .collect();
    // An unbounded interval (a look before the sequence can exclude anything) is a
    // faint line over the whole height; every look's estimate is a marker (drawn
    // last), so after an early stop each of the few looks is seen.
    for q in s.points.iter().filter(|q| finite(&q.estimate)) {
        if !(finite(&q.low) && finite(&q.high)) {
            let x = xs.px(q.blocks as f64);
            svg.line(
                x,
                area.top,
                x,
                area.bottom,
                col,
                r#"stroke-opacity="0.35" class="sequence-unbounded""#,
            );
        }
    }
    let mut band = String::new();
    for (k, q) in pts.iter().enumerate() {
        let _ = write!(
            band,
            "{}{} {}",
            if k == 0 { "M" } else { "L" },
            num(xs.px(q.blocks as f64)),
            num(ys.px_clamped(q.high))
        );
    }
    for q in pts.iter().rev() {
        let _ = write!(
            band,
            "L{} {}",
            num(xs.px(q.blocks as f64)),
            num(ys.px_clamped(q.low))
        );
    }
    band.push('Z');
    svg.path(
        &band,
        &format!(r#"fill="{col}" fill-opacity="0.2" stroke="none" class="sequence-band""#),
    );
    let mut line = String::new();
    for (k, q) in pts.iter().enumerate() {
        let _ = write!(
            line,
            "{}{} {}",
            if k == 0 { "M" } else { "L" },
            num(xs.px(q.blocks as f64)),
            num(ys.px(q.estimate))
        );
    }
    svg.path(
        &line,
        &format!(
            r#"fill="none" stroke="{col}" stroke-width="2" {} class="sequence-estimate""#,
            style::dash(i)
        ),
    );
    // The last look's interval as a bar with caps: visible even when the sequence
    // bounded the ratio at one look only (a clear change decided at the first look).
    if let Some(q) = pts.last() {
        let x = xs.px(q.blocks as f64);
        let (top, bottom) = (ys.px_clamped(q.high), ys.px_clamped(q.low));
        let attrs = r#"stroke-width="2" class="sequence-last""#;
        svg.line(x, top, x, bottom, col, attrs);
        for y in [top, bottom] {
            svg.line(x - 5.0, y, x + 5.0, y, col, attrs);
        }
    }
}
