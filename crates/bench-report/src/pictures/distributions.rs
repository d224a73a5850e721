//! Chart 3: the distributions. Per variant, a violin (the density of its analysed runs)
//! with the runs as a jittered strip, the median as a solid line, p90 dashed, and p99
//! dotted only where the table shows it (n >= 100).

use std::fmt::Write as _;

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK};
use super::svg::{Anchor, Svg, num};
use super::trace::{quantity_word, unit_text};
use super::{Chart, Pictures, RunStatus};
use crate::units::{Scale as Display, magnitude_range};
use bench_stats::model::BenchmarkSummary;

/// Strip points drawn per variant at most (evenly spaced through the sorted values, so
/// the quantiles stay where they are); the violin always uses every run.
pub const MAX_STRIP: usize = 400;
/// Variants drawn at most.
pub const MAX_VARIANTS: usize = 24;
const HEIGHT: f64 = 400.0;
const BINS: usize = 40;

/// The chart, when the analysis has benchmarks.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let benchmarks: Vec<_> = p
        .analysis
        .groups
        .iter()
        .flat_map(|g| &g.benchmarks)
        .take(MAX_VARIANTS)
        .collect();
    if benchmarks.is_empty() {
        return None;
    }
    let values: Vec<Vec<f64>> = benchmarks.iter().map(|b| analysed(p, &b.name)).collect();
    let all = values
        .iter()
        .flatten()
        .copied()
        .chain(benchmarks.iter().flat_map(|b| [b.min, b.max]));
    let (lo, hi) = all
        .clone()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    let display =
        Display::for_magnitude(magnitude_range(all).map_or(1.0, |m| m.1), &p.analysis.unit);
    let with_p99 = benchmarks.iter().any(|b| b.p99.is_some());
    // The runs' swatch is the first variant's marks (each variant has its own).
    let first_with_runs = benchmarks
        .iter()
        .zip(&values)
        .find(|(_, v)| !v.is_empty())
        .map(|(b, _)| p.variant_index(&b.name));
    let legend = legend(with_p99, first_with_runs);
    let extra = frame::legend_extra(&legend);
    let height = HEIGHT + extra;
    let area = Area::of_height(height, extra);
    let mut svg = Svg::new(WIDTH, height);
    let title = "Distributions of the analysed runs";
    frame::heading(&mut svg, title, &legend);
    let pad = (hi - lo).abs() * 0.05;
    let ys = Scale::linear(
        display.apply(lo - pad),
        display.apply(hi + pad),
        area.bottom,
        area.top,
    );
    frame::y_axis(
        &mut svg,
        area,
        &ys,
        &format!("{} ({})", quantity_word(p), unit_text(&display)),
        6,
    );
    let width = (area.right - area.left) / benchmarks.len() as f64;
    let mut thinned = false;
    for (i, (b, vals)) in benchmarks.iter().zip(&values).enumerate() {
        let cx = area.left + width * (i as f64 + 0.5);
        let color = p.variant_index(&b.name);
        let scaled: Vec<f64> = vals.iter().map(|v| display.apply(*v)).collect();
        violin(&mut svg, &ys, &scaled, cx, width * 0.42, color);
        thinned |= strip(&mut svg, &ys, &scaled, cx, width * 0.25, color);
        quantile_lines(&mut svg, &ys, &display, b, cx, width * 0.36);
        category_label(&mut svg, area, b, cx, width);
    }
    frame::x_label(
        &mut svg,
        Area {
            bottom: area.bottom + 6.0,
            ..area
        },
        "variant",
    );
    frame::border(&mut svg, area);
    if thinned {
        frame::note(
            &mut svg,
            height,
            &format!(
                "Strips show at most {MAX_STRIP} runs per variant, evenly through the sorted values; violins and lines use every run."
            ),
        );
    }
    let description = format!(
        "Distribution of each of {} variants with median and p90 marked",
        benchmarks.len()
    );
    Some(Chart {
        file_name: "distributions.svg".into(),
        title: title.into(),
        svg: svg.finish(title, &description),
    })
}

/// Variant `b`'s median (solid), p90 (dashed) and p99 (dotted, when the table shows it)
/// across its column at `cx`, `half` wide each side.
fn quantile_lines(
    svg: &mut Svg,
    ys: &Scale,
    display: &Display,
    b: &BenchmarkSummary,
    cx: f64,
    half: f64,
) {
    let mut mark = |v: f64, extra: &str| {
        svg.line(
            cx - half,
            ys.px(display.apply(v)),
            cx + half,
            ys.px(display.apply(v)),
            INK,
            extra,
        )
    };
    mark(b.median, r#"stroke-width="2.5" class="median""#);
    mark(
        b.p90,
        r#"stroke-width="1.5" stroke-dasharray="5 3" class="p90""#,
    );
    if let Some(p99) = b.p99 {
        mark(
            p99,
            r#"stroke-width="1.5" stroke-dasharray="1.5 2.5" class="p99""#,
        );
    }
}

/// The variant's name (cut to the column's `width`) and its run count under its column.
fn category_label(svg: &mut Svg, area: Area, b: &BenchmarkSummary, cx: f64, width: f64) {
    let label: String = b
        .name
        .chars()
        .take((width / 7.0).max(4.0) as usize)
        .collect();
    svg.text(
        cx,
        area.bottom + 18.0,
        Anchor::Middle,
        &label,
        r#"class="category""#,
    );
    svg.text(
        cx,
        area.bottom + 31.0,
        Anchor::Middle,
        &format!("n={}", b.n),
        r#"font-size="10""#,
    );
}

/// The analysed values of one variant, from the runs.
fn analysed(p: &Pictures<'_>, name: &str) -> Vec<f64> {
    p.runs
        .iter()
        .flat_map(|t| &t.runs)
        .filter(|r| r.status == RunStatus::Analysed && r.variant == name)
        .filter_map(|r| r.value)
        .collect()
}

fn legend(with_p99: bool, runs_of: Option<usize>) -> Vec<LegendItem> {
    let mut items = Vec::new();
    if let Some(i) = runs_of {
        items.push(LegendItem {
            label: "runs (strip)".into(),
            swatch: Swatch::Marker(i, style::shape(i), false),
        });
        items.push(LegendItem {
            label: "density (violin)".into(),
            swatch: Swatch::Band(style::color(i), 0.2),
        });
    }
    items.push(LegendItem {
        label: "median".into(),
        swatch: Swatch::Rule(INK, r#"stroke-width="2.5""#),
    });
    items.push(LegendItem {
        label: "p90".into(),
        swatch: Swatch::Rule(INK, r#"stroke-width="1.5" stroke-dasharray="5 3""#),
    });
    if with_p99 {
        items.push(LegendItem {
            label: "p99 (n >= 100)".into(),
            swatch: Swatch::Rule(INK, r#"stroke-width="1.5" stroke-dasharray="1.5 2.5""#),
        });
    }
    items
}

/// A mirrored density outline from a smoothed histogram over the scale's range.
fn violin(svg: &mut Svg, ys: &Scale, values: &[f64], cx: f64, half: f64, color: usize) {
    if values.len() < 2 {
        return;
    }
    let (lo, hi) = (ys.lo, ys.hi);
    let mut counts = [0.0f64; BINS];
    for v in values {
        let k = (((v - lo) / (hi - lo)) * BINS as f64)
            .floor()
            .clamp(0.0, (BINS - 1) as f64) as usize;
        counts[k] += 1.0;
    }
    let smooth: Vec<f64> = (0..BINS)
        .map(|k| {
            let at = |j: isize| {
                counts
                    .get(j as usize)
                    .copied()
                    .filter(|_| j >= 0)
                    .unwrap_or(0.0)
            };
            let k = k as isize;
            0.25 * at(k - 1) + 0.5 * at(k) + 0.25 * at(k + 1)
        })
        .collect();
    let peak = smooth.iter().copied().fold(0.0, f64::max);
    if peak <= 0.0 {
        return;
    }
    let y_of = |k: usize| ys.px(lo + (k as f64 + 0.5) / BINS as f64 * (hi - lo));
    let first = smooth.iter().position(|c| *c > 0.0).unwrap_or(0);
    let last = smooth.iter().rposition(|c| *c > 0.0).unwrap_or(BINS - 1);
    let mut d = String::new();
    let occupied: Vec<(usize, f64)> = (first..=last).map(|k| (k, smooth[k] / peak)).collect();
    for &(k, w) in &occupied {
        let cmd = if k == first { "M" } else { "L" };
        let _ = write!(d, "{cmd}{} {}", num(cx + half * w), num(y_of(k)));
    }
    for &(k, w) in occupied.iter().rev() {
        let _ = write!(d, "L{} {}", num(cx - half * w), num(y_of(k)));
    }
    d.push('Z');
    let col = style::color(color);
    svg.path(
        &d,
        &format!(r#"fill="{col}" fill-opacity="0.2" stroke="{col}" class="violin""#),
    );
}

/// The jittered strip; `true` when it had to be thinned.
fn strip(svg: &mut Svg, ys: &Scale, values: &[f64], cx: f64, half: f64, color: usize) -> bool {
    if values.is_empty() {
        return false;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let shown = sorted.len().min(MAX_STRIP);
    let mut d = String::new();
    for j in 0..shown {
        let idx = if shown == sorted.len() {
            j
        } else {
            j * (sorted.len() - 1) / (shown - 1).max(1)
        };
        // A fixed low-discrepancy jitter (golden ratio): deterministic output.
        let jitter = ((j as f64 * 0.618_034).fract() - 0.5) * 2.0 * half;
        style::marker_path(
            &mut d,
            style::shape(color),
            cx + jitter,
            ys.px(sorted[idx]),
            2.0,
        );
    }
    let col = style::color(color);
    svg.path(
        &d,
        &format!(r#"fill="{col}" fill-opacity="0.55" stroke="none" class="strip""#),
    );
    shown < sorted.len()
}
