//! Chart 5: the shape of the change. For each comparison with a shape check
//! ([`bench_stats::Comparison::distribution`], the typical-run estimator) the paired ratio
//! candidate / baseline at every checked quantile (p10, p50, p90; p50 alone when every
//! block holds one run of each variant) and at the mean run, each with its interval (at
//! its share of the family's level) as a whisker, a band joining the quantiles', the line
//! of no change and the equivalence margin. A part that
//! moved beyond the margin (significantly slower or faster: the parts the verdict names)
//! is a filled marker, the others hollow. Nothing here computes a statistic: the ratios,
//! intervals and parts are the analysis's.

use std::fmt::Write as _;

use bench_stats::paired::shape::{PartMove, PartStatistic, QuantileShift, ShapeAnalysis};

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK, MARGIN_FILL};
use super::svg::{Anchor, Svg, num};
use super::{Chart, Pictures};

/// Rows (comparisons) drawn at most.
pub const MAX_ROWS: usize = 8;
const ROW_HEIGHT: f64 = 170.0;
const ROW_GAP: f64 = 78.0;
/// Edge of the margin band, drawn as a line on each side.
const MARGIN_EDGE: &str = "#8c8c8c";

/// One row: its label, its candidate's colour index and its shape check.
struct Row<'a> {
    label: String,
    color: usize,
    shape: &'a ShapeAnalysis,
}

/// The chart, when at least one comparison carries a shape check.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let rows = rows(p);
    let first = rows.first()?;
    let margin = p.analysis.equivalence_margin;
    // Times and throughputs have fast and slow runs; other values low and high ends.
    let hib = (
        p.analysis.higher_is_better,
        crate::view::is_speed(p.analysis),
    );
    let shown = rows.len().min(MAX_ROWS);
    let drawn: Vec<&QuantileShift> = rows
        .iter()
        .take(shown)
        .flat_map(|r| drawable(r.shape))
        .collect();
    let legend = legend(
        margin,
        first.color,
        drawn.iter().any(|q| moved(q)),
        drawn.iter().any(|q| !moved(q)),
        drawn.iter().any(|q| q.interval.is_some()),
    );
    let top0 = 58.0 + 18.0 + frame::legend_extra(&legend);
    let height = top0 + shown as f64 * (ROW_HEIGHT + ROW_GAP) - 8.0;
    let mut svg = Svg::new(WIDTH, height);
    let title = "Shape of the change";
    frame::heading(&mut svg, title, &legend);
    let mut notes = Vec::new();
    for (i, r) in rows.iter().take(shown).enumerate() {
        let top = top0 + i as f64 * (ROW_HEIGHT + ROW_GAP);
        let area = Area {
            top,
            bottom: top + ROW_HEIGHT,
            ..Area::of_height(height, 0.0)
        };
        let missing = row(&mut svg, area, r, margin, hib);
        if missing > 0 {
            notes.push(format!(
                "{}: {missing} part(s) without an interval at their level (too few blocks)",
                r.label
            ));
        }
        let count = r.shape.parts().count();
        let scope = if count == 1 {
            "one run of each variant per block: the typical run alone".to_owned()
        } else {
            format!(
                "{count} parts, each interval at its share of the family level (typical run {}%)",
                num(r.shape.confidence * 100.0)
            )
        };
        svg.text(
            area.left,
            area.top - 6.0,
            Anchor::Start,
            &format!("{}: {scope}, {} blocks", r.label, r.shape.blocks),
            r#"font-weight="bold" class="row-label""#,
        );
    }
    if rows.len() > shown {
        notes.push(format!("{shown} of {} candidates shown", rows.len()));
    }
    if !notes.is_empty() {
        frame::note(&mut svg, height, &notes.join("; "));
    }
    let description = format!(
        "Ratio of candidate to baseline at each checked quantile of the run distributions and at the mean run for {} comparison(s), with intervals, no change at 1 and the equivalence margin 1 ± {margin}",
        rows.len()
    );
    Some(Chart {
        file_name: "shape.svg".into(),
        title: title.into(),
        svg: svg.finish(title, &description),
    })
}

/// The comparisons with a shape check.
fn rows<'a>(p: &Pictures<'a>) -> Vec<Row<'a>> {
    let mut out = Vec::new();
    for g in &p.analysis.groups {
        for c in &g.comparisons {
            let Some(shape) = &c.distribution else {
                continue;
            };
            if drawable(shape).next().is_none() {
                continue;
            }
            out.push(Row {
                label: super::comparison_label(g, c),
                color: p.variant_index(&c.candidate),
                shape,
            });
        }
    }
    out
}

/// The parts whose ratio can be placed on a log scale (finite, positive): the quantiles,
/// then the mean run.
fn drawable(s: &ShapeAnalysis) -> impl Iterator<Item = &QuantileShift> {
    s.parts().filter(|q| {
        q.ratio.is_finite()
            && q.ratio > 0.0
            && (q.quantile.is_finite() || q.statistic == PartStatistic::Mean)
    })
}

/// An interval usable on a log scale.
fn bounds(q: &QuantileShift) -> Option<[f64; 2]> {
    q.interval
        .filter(|b| b.iter().all(|v| v.is_finite() && *v > 0.0) && b[0] <= b[1])
}

/// A part that moved beyond the margin: one the verdict names.
fn moved(q: &QuantileShift) -> bool {
    matches!(q.part, PartMove::Slower | PartMove::Faster)
}

/// "p10 fast runs", "p50 typical run", "p90 slow runs" (for throughputs the low quantiles
/// are the slow runs; for values that are not times, "p10 low end" and "p90 high end") or
/// "mean run", as the verdict's sentence names them.
fn part_label(q: &QuantileShift, (higher_is_better, speed): (bool, bool)) -> String {
    if q.statistic == PartStatistic::Mean {
        return "mean run".to_owned();
    }
    format!(
        "p{} {}",
        num(q.quantile * 100.0),
        part_name(q.quantile, higher_is_better, speed)
    )
}

fn part_name(q: f64, higher_is_better: bool, speed: bool) -> &'static str {
    if (q - 0.5).abs() < 1e-9 {
        "typical run"
    } else if !speed {
        if q < 0.5 { "low end" } else { "high end" }
    } else if (q < 0.5) != higher_is_better {
        "fast runs"
    } else {
        "slow runs"
    }
}

fn legend(
    margin: f64,
    color: usize,
    filled: bool,
    hollow: bool,
    intervals: bool,
) -> Vec<LegendItem> {
    let shape = style::shape(color);
    let mut out = Vec::new();
    if filled {
        out.push(LegendItem {
            label: "ratio: moved beyond the margin".into(),
            swatch: Swatch::Marker(color, shape, false),
        });
    }
    if hollow {
        out.push(LegendItem {
            label: "ratio: not shown to move".into(),
            swatch: Swatch::Marker(color, shape, true),
        });
    }
    if intervals {
        out.push(LegendItem {
            label: "interval".into(),
            swatch: Swatch::Rule(style::color(color), r#"stroke-width="1.5""#),
        });
        out.push(LegendItem {
            label: "intervals joined".into(),
            swatch: Swatch::Band(style::color(color), 0.18),
        });
    }
    out.push(LegendItem {
        label: "no change (1)".into(),
        swatch: Swatch::Rule(INK, r#"stroke-dasharray="5 3""#),
    });
    out.push(LegendItem {
        label: format!("equivalence margin ±{}%", num(margin * 100.0)),
        swatch: Swatch::Band(MARGIN_FILL, 1.0),
    });
    out
}

/// Draws one row; returns how many drawn parts have no interval.
fn row(svg: &mut Svg, area: Area, r: &Row<'_>, margin: f64, words: (bool, bool)) -> usize {
    let parts: Vec<&QuantileShift> = drawable(r.shape).collect();
    let ys = y_scale(&parts, margin, area);
    // Categories evenly spaced, half a step inside the frame.
    let k = parts.len().max(1) as f64;
    let xs: Vec<f64> = (0..parts.len())
        .map(|i| area.left + (i as f64 + 0.5) / k * (area.right - area.left))
        .collect();
    frame::y_axis(svg, area, &ys, "", 4);
    reference_lines(svg, area, &ys, margin);
    let col = style::color(r.color);
    let with: Vec<(f64, [f64; 2], bool)> = parts
        .iter()
        .zip(&xs)
        .filter_map(|(q, &x)| bounds(q).map(|b| (x, b, q.statistic == PartStatistic::Mean)))
        .collect();
    intervals(svg, &ys, &with, col);
    points(svg, &ys, &parts, &xs, r.color);
    frame::border(svg, area);
    labels(svg, area, &parts, &xs, words);
    parts.iter().filter(|q| bounds(q).is_none()).count()
}

/// A log scale over the ratios, their intervals and the margin, padded so no mark sits on
/// the frame.
fn y_scale(parts: &[&QuantileShift], margin: f64, area: Area) -> Scale {
    let mut lo = 1.0 - margin;
    let mut hi = 1.0 + margin;
    for q in parts {
        lo = lo.min(q.ratio);
        hi = hi.max(q.ratio);
        if let Some([l, h]) = bounds(q) {
            lo = lo.min(l);
            hi = hi.max(h);
        }
    }
    let lo = lo.max(1e-12);
    let pad = ((hi / lo).ln() * 0.08).exp();
    Scale::log(lo / pad, hi * pad, area.bottom, area.top)
}

/// The margin band with its edges, and the line of no change.
fn reference_lines(svg: &mut Svg, area: Area, ys: &Scale, margin: f64) {
    let (m_lo, m_hi) = frame::margin_band(svg, area, ys, margin);
    for edge in [m_lo, m_hi] {
        svg.line(
            area.left,
            edge,
            area.right,
            edge,
            MARGIN_EDGE,
            r#"class="margin-edge""#,
        );
    }
    frame::no_change_line(svg, area, ys);
}

/// The band joining the intervals of consecutive quantiles (a box around a lone one; the
/// mean run, not a quantile, is not joined), and a whisker with caps per interval.
fn intervals(svg: &mut Svg, ys: &Scale, with: &[(f64, [f64; 2], bool)], col: &str) {
    if with.is_empty() {
        return;
    }
    let band: Vec<(f64, [f64; 2])> = with
        .iter()
        .filter(|w| !w.2)
        .map(|&(x, b, _)| (x, b))
        .collect();
    let d = match band.as_slice() {
        [] => String::new(),
        [(x, [l, h])] => format!(
            "M{a} {t}L{b} {t}L{b} {u}L{a} {u}",
            a = num(x - 14.0),
            b = num(x + 14.0),
            t = num(ys.px(*h)),
            u = num(ys.px(*l))
        ),
        _ => {
            let (mut top, mut back) = (String::new(), String::new());
            for (n, (x, [l, h])) in band.iter().enumerate() {
                let cmd = if n == 0 { "M" } else { "L" };
                let _ = write!(top, "{cmd}{} {}", num(*x), num(ys.px(*h)));
                back.insert_str(0, &format!("L{} {}", num(*x), num(ys.px(*l))));
            }
            top + &back
        }
    };
    if !d.is_empty() {
        svg.path(
            &format!("{d}Z"),
            &format!(r#"fill="{col}" fill-opacity="0.18" class="interval-band""#),
        );
    }
    let mut bars = String::new();
    for (x, [l, h], _) in with {
        let (yl, yh) = (ys.px(*l), ys.px(*h));
        let _ = write!(
            bars,
            "M{} {}V{}M{} {}h12M{} {}h12",
            num(*x),
            num(yl),
            num(yh),
            num(x - 6.0),
            num(yl),
            num(x - 6.0),
            num(yh)
        );
    }
    svg.path(
        &bars,
        &format!(r#"fill="none" stroke="{col}" stroke-width="1.5" class="interval-bars""#),
    );
}

/// A marker per part: filled when it moved beyond the margin, hollow otherwise; each
/// path carries its parts' exact `quantile:ratio` (`data-ratios`).
fn points(svg: &mut Svg, ys: &Scale, parts: &[&QuantileShift], xs: &[f64], color: usize) {
    let col = style::color(color);
    let shape = style::shape(color);
    for pick in [true, false] {
        let mut d = String::new();
        let mut data = Vec::new();
        for (q, &x) in parts.iter().zip(xs).filter(|(q, _)| moved(q) == pick) {
            style::marker_path(&mut d, shape, x, ys.px(q.ratio), 5.0);
            let at = if q.statistic == PartStatistic::Mean {
                "mean".to_owned()
            } else {
                q.quantile.to_string()
            };
            data.push(format!("{at}:{}", q.ratio));
        }
        if d.is_empty() {
            continue;
        }
        let look = if pick {
            format!(r#"fill="{col}" stroke="{INK}" stroke-width="0.8" class="points moved""#)
        } else {
            format!(r#"fill="none" stroke="{col}" stroke-width="1.5" class="points unmoved""#)
        };
        svg.path(&d, &format!(r#"{look} data-ratios="{}""#, data.join(" ")));
    }
}

/// How a part moved: `slower` / `faster` for times and throughputs, `higher` / `lower` for
/// other values (memory is not slower); the other moves as the model names them.
fn move_word(part: PartMove, (higher_is_better, speed): (bool, bool)) -> &'static str {
    match part {
        PartMove::Slower | PartMove::Faster if !speed => {
            // Slower is the worse way: up when lower is better.
            if (part == PartMove::Slower) != higher_is_better {
                "higher"
            } else {
                "lower"
            }
        }
        PartMove::Slower
        | PartMove::Faster
        | PartMove::Negligible
        | PartMove::Equivalent
        | PartMove::Unclear => part.as_str(),
    }
}

/// Under each part: its quantile and name, then its ratio and how it moved; and the y
/// axis label.
fn labels(svg: &mut Svg, area: Area, parts: &[&QuantileShift], xs: &[f64], words: (bool, bool)) {
    for (q, &x) in parts.iter().zip(xs) {
        svg.line(x, area.bottom, x, area.bottom + 5.0, INK, "");
        svg.text(
            x,
            area.bottom + 18.0,
            Anchor::Middle,
            &part_label(q, words),
            r#"class="quantile""#,
        );
        svg.text(
            x,
            area.bottom + 32.0,
            Anchor::Middle,
            &format!("{} {}", ratio_text(q.ratio), move_word(q.part, words)),
            r#"font-size="11" class="part""#,
        );
    }
    let mid = (area.top + area.bottom) / 2.0;
    svg.text(
        16.0,
        mid,
        Anchor::Middle,
        "ratio candidate / baseline (log)",
        &format!(
            r#"transform="rotate(-90 16 {})" class="axis-label""#,
            num(mid)
        ),
    );
}

/// "1.037x".
fn ratio_text(r: f64) -> String {
    format!("{r:.3}x")
}
