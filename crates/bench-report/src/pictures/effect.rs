//! Chart 1: the paired effect per block. Each block's candidate/baseline ratio in run
//! order on a log scale, the estimate and its interval as a band, the line of no change,
//! and the equivalence margin as a grey band; one row per candidate.

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK, MARGIN_FILL};
use super::svg::{Anchor, Svg, num};
use super::{Chart, Pictures, block_ratios, blocked_rows};

/// Blocks drawn per row at most; beyond it every k-th block is drawn (with a note).
pub const MAX_BLOCKS_DRAWN: usize = 1500;
/// Rows (candidates) drawn at most.
pub const MAX_ROWS: usize = 16;
const ROW_HEIGHT: f64 = 150.0;
const ROW_GAP: f64 = 22.0;

/// The chart, when at least one comparison is blocked.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let rows = blocked_rows(p);
    if rows.is_empty() {
        return None;
    }
    let margin = p.analysis.equivalence_margin;
    let shown = rows.len().min(MAX_ROWS);
    // The marks of the first row (each row is drawn in its candidate's colour and shape).
    let legend = legend(margin, rows[0].1);
    // Each row's label sits in the gap above it.
    let top0 = 58.0 + ROW_GAP + frame::legend_extra(&legend);
    let height = top0 + shown as f64 * (ROW_HEIGHT + ROW_GAP) - ROW_GAP + 60.0;
    let mut svg = Svg::new(WIDTH, height);
    let title = "Paired effect per block";
    frame::heading(&mut svg, title, &legend);
    let max_blocks = rows
        .iter()
        .map(|r| block_ratios(r.2).len())
        .max()
        .unwrap_or(0);
    let mut notes = Vec::new();
    for (i, (label, color, c)) in rows.iter().take(shown).enumerate() {
        let top = top0 + i as f64 * (ROW_HEIGHT + ROW_GAP);
        let area = Area {
            bottom: top + ROW_HEIGHT,
            top,
            ..Area::of_height(height, 0.0)
        };
        let ratios = block_ratios(c);
        let stride = ratios.len().div_ceil(MAX_BLOCKS_DRAWN).max(1);
        if stride > 1 {
            notes.push(format!("{label}: one block in {stride} drawn"));
        }
        let band = c.ratio.zip(c.ratio_ci);
        row(
            &mut svg, area, &ratios, stride, max_blocks, band, margin, *color,
        );
        svg.text(
            area.left,
            area.top - 6.0,
            Anchor::Start,
            label,
            r#"font-weight="bold" class="row-label""#,
        );
    }
    let mid = (top0 + height - 60.0) / 2.0;
    svg.text(
        16.0,
        mid,
        Anchor::Middle,
        "ratio candidate / baseline per block (log scale)",
        &format!(
            r#"transform="rotate(-90 16 {})" class="axis-label""#,
            num(mid)
        ),
    );
    if rows.len() > shown {
        notes.push(format!("{} of {} candidates shown", shown, rows.len()));
    }
    let last = Area::of_height(height, 0.0);
    let xs = Scale::counts(max_blocks, last.left, last.right);
    frame::x_axis_counts(
        &mut svg,
        Area {
            bottom: height - 60.0,
            ..last
        },
        &xs,
        "block (in run order)",
        10,
    );
    if !notes.is_empty() {
        frame::note(&mut svg, height, &notes.join("; "));
    }
    let description = format!(
        "Per-block ratio of candidate to baseline for {} comparison(s), with the estimate, its interval, no change at 1 and the equivalence margin 1 ± {}",
        rows.len(),
        margin
    );
    Some(Chart {
        file_name: "paired-effect.svg".into(),
        title: title.into(),
        svg: svg.finish(title, &description),
    })
}

fn legend(margin: f64, color: usize) -> Vec<LegendItem> {
    vec![
        LegendItem {
            label: "block ratio".into(),
            swatch: Swatch::Marker(color, style::shape(color), false),
        },
        LegendItem {
            label: "estimate".into(),
            swatch: Swatch::Rule(INK, r#"stroke-width="2""#),
        },
        LegendItem {
            label: "interval".into(),
            swatch: Swatch::Band(style::color(color), 0.25),
        },
        LegendItem {
            label: "no change (1)".into(),
            swatch: Swatch::Rule(INK, r#"stroke-dasharray="5 3""#),
        },
        LegendItem {
            label: format!("equivalence margin ±{:.3}%", margin * 100.0).replace(".000%", "%"),
            swatch: Swatch::Band(MARGIN_FILL, 1.0),
        },
    ]
}

#[allow(clippy::too_many_arguments)]
fn row(
    svg: &mut Svg,
    area: Area,
    ratios: &[f64],
    stride: usize,
    max_blocks: usize,
    band: Option<(f64, [f64; 2])>,
    margin: f64,
    color: usize,
) {
    let mut lo = ratios.iter().copied().fold(1.0 - margin, f64::min);
    let mut hi = ratios.iter().copied().fold(1.0 + margin, f64::max);
    if let Some((e, ci)) = band {
        lo = lo.min(e).min(ci[0]);
        hi = hi.max(e).max(ci[1]);
    }
    let pad = ((hi / lo).ln() * 0.06).exp();
    let ys = Scale::log(lo.max(1e-12) / pad, hi * pad, area.bottom, area.top);
    let xs = Scale::counts(max_blocks, area.left, area.right);
    frame::y_axis(svg, area, &ys, "", 4);
    frame::margin_band(svg, area, &ys, margin);
    let col = style::color(color);
    if let Some((e, ci)) = band {
        let (b_lo, b_hi) = (ys.px_clamped(ci[0]), ys.px_clamped(ci[1]));
        svg.rect(
            area.left,
            b_hi,
            area.right - area.left,
            b_lo - b_hi,
            &format!(r#"fill="{col}" fill-opacity="0.25" class="interval-band""#),
        );
        let y = ys.px(e);
        svg.line(
            area.left,
            y,
            area.right,
            y,
            INK,
            r#"stroke-width="2" class="estimate""#,
        );
    }
    frame::no_change_line(svg, area, &ys);
    let mut d = String::new();
    for (i, r) in ratios.iter().enumerate().step_by(stride) {
        style::marker_path(
            &mut d,
            style::shape(color),
            xs.px((i + 1) as f64),
            ys.px(*r),
            3.0,
        );
    }
    svg.path(
        &d,
        &format!(r#"fill="{col}" stroke="{INK}" stroke-width="0.5" class="points""#),
    );
    frame::border(svg, area);
}
