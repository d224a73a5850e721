//! Chart 4: the estimator's uncertainty. Each row draws the distribution the analysis read
//! the comparison's interval from ([`Comparison::interval_distribution`]): for the
//! signed-rank interval (abba's default, and the Friedman post-hoc tests) the Walsh
//! averages of the per-block log-ratios, whose order statistics are the interval's ends;
//! for a block-bootstrap estimator its replicates; for the typical run (the default) its
//! randomization test inverted, one ratio per arrangement of the runs swapped inside
//! blocks, whose order statistics are the interval's ends. The analysis's estimate and
//! interval are marked on it. Nothing here computes a statistic: a row whose interval has
//! no such distribution (a confidence sequence, a large-sample interval) marks the
//! interval alone and says so.

use std::fmt::Write as _;

use bench_stats::model::{DistributionKind, IntervalDistribution};
use bench_stats::{Comparison, PairedEstimator};

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK, MARGIN_FILL};
use super::svg::{Anchor, Svg, num};
use super::{Chart, Pictures, blocked_rows};

/// Rows drawn at most.
pub const MAX_ROWS: usize = 8;
const BINS: usize = 48;
const ROW_HEIGHT: f64 = 120.0;
const ROW_GAP: f64 = 70.0;

/// The chart, when at least one comparison is blocked.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let rows = blocked_rows(p);
    if rows.is_empty() {
        return None;
    }
    let shown = rows.len().min(MAX_ROWS);
    // The histogram of the first row (each row is drawn in its candidate's colour).
    let drawn = rows
        .iter()
        .take(shown)
        .any(|r| r.2.interval_distribution.is_some());
    let legend = legend(p.analysis.equivalence_margin, rows[0].1, drawn);
    // Each row's label sits above it.
    let top0 = 58.0 + 18.0 + frame::legend_extra(&legend);
    let height = top0 + shown as f64 * (ROW_HEIGHT + ROW_GAP) + 4.0;
    let mut svg = Svg::new(WIDTH, height);
    let title = "Uncertainty of the estimate";
    frame::heading(&mut svg, title, &legend);
    for (i, (label, color, c)) in rows.iter().take(shown).enumerate() {
        let top = top0 + i as f64 * (ROW_HEIGHT + ROW_GAP);
        let area = Area {
            top,
            bottom: top + ROW_HEIGHT,
            ..Area::of_height(height, 0.0)
        };
        let estimator = c
            .verdict_basis
            .paired_estimator()
            .or(p.analysis.paired_estimator);
        let dist = c.interval_distribution.as_ref();
        let what = describe(c, dist, estimator);
        row(
            &mut svg,
            area,
            dist,
            c,
            p.analysis.equivalence_margin,
            *color,
        );
        svg.text(
            area.left,
            area.top - 6.0,
            Anchor::Start,
            &format!("{label}: {what}"),
            r#"font-weight="bold" class="row-label""#,
        );
    }
    if rows.len() > shown {
        frame::note(
            &mut svg,
            height,
            &format!("{shown} of {} candidates shown", rows.len()),
        );
    }
    let description =
        "Sampling distribution of each candidate's ratio with the estimate and interval marked";
    Some(Chart {
        file_name: "uncertainty.svg".into(),
        title: title.into(),
        svg: svg.finish(title, description),
    })
}

/// What a row shows, in words.
fn describe(
    c: &Comparison,
    dist: Option<&IntervalDistribution>,
    estimator: Option<PairedEstimator>,
) -> String {
    let thinned = |d: &IntervalDistribution| {
        if d.total > d.values.len() {
            format!(", {} quantiles of {}", d.values.len(), d.total)
        } else {
            String::new()
        }
    };
    match dist {
        Some(d) if d.kind == DistributionKind::WalshAverages => {
            let of = estimator
                .filter(|e| *e != PairedEstimator::HodgesLehmannLogRatio)
                .map(|e| format!(" of {}", e.estimand()))
                .unwrap_or_default();
            format!(
                "Walsh averages of block log-ratios{of} (signed-rank{})",
                thinned(d)
            )
        }
        Some(d) if d.kind == DistributionKind::Randomization => {
            let held = match (d.interval(), c.ratio_ci) {
                (None, Some(ci)) if ci.contains(&1.0) => {
                    "; an end held at no change: the exact test does not reject"
                }
                // The interval is the hull of the inversion and the part's own interval
                // (its standard error over the blocks), which can reach beyond every value.
                (None, Some(_)) => {
                    "; an end beyond these values: the part's own interval, from its standard error over the blocks"
                }
                _ => "",
            };
            format!(
                "randomization test of the typical run, inverted ({} arrangements{}{held})",
                d.total,
                thinned(d)
            )
        }
        Some(d) => {
            let name = estimator.map_or("the estimator", PairedEstimator::as_str);
            format!(
                "block bootstrap of {name} ({} resamples{})",
                d.total,
                thinned(d)
            )
        }
        None if c.sequential.is_some() => {
            "the confidence sequence's interval (anytime-valid: no sampling distribution)"
                .to_owned()
        }
        None => "the interval alone (no resampled distribution behind it)".to_owned(),
    }
}

/// The legend; `drawn` when some row has a histogram.
fn legend(margin: f64, color: usize, drawn: bool) -> Vec<LegendItem> {
    let histogram = drawn.then(|| LegendItem {
        label: "distribution".into(),
        swatch: Swatch::Band(style::color(color), 0.6),
    });
    let marks = [
        LegendItem {
            label: "estimate".into(),
            swatch: Swatch::Rule(INK, r#"stroke-width="2""#),
        },
        LegendItem {
            label: "interval".into(),
            swatch: Swatch::Rule(INK, r#"stroke-dasharray="6 3" stroke-width="1.5""#),
        },
        LegendItem {
            label: "no change (1)".into(),
            swatch: Swatch::Rule(INK, r#"stroke-dasharray="2 2""#),
        },
        LegendItem {
            label: format!("equivalence margin ±{}%", num(margin * 100.0)),
            swatch: Swatch::Band(MARGIN_FILL, 1.0),
        },
    ];
    histogram.into_iter().chain(marks).collect()
}

fn row(
    svg: &mut Svg,
    area: Area,
    dist: Option<&IntervalDistribution>,
    c: &Comparison,
    margin: f64,
    color: usize,
) {
    // Ratios: positive, as the log scale needs.
    let dist: Vec<f64> = dist
        .map(|d| d.values.iter().copied().filter(|v| *v > 0.0).collect())
        .unwrap_or_default();
    let mut lo = dist.iter().copied().fold(1.0 - margin, f64::min);
    let mut hi = dist.iter().copied().fold(1.0 + margin, f64::max);
    for v in c.ratio.into_iter().chain(c.ratio_ci.into_iter().flatten()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let pad = ((hi / lo).ln() * 0.04).exp();
    let xs = Scale::log(lo.max(1e-12) / pad, hi * pad, area.left, area.right);
    let mut counts = [0usize; BINS];
    let (a, b) = (xs.lo.ln(), xs.hi.ln());
    for v in &dist {
        let k = ((v.ln() - a) / (b - a) * BINS as f64)
            .floor()
            .clamp(0.0, (BINS - 1) as f64) as usize;
        counts[k] += 1;
    }
    let peak = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let share = 100.0 * peak / dist.len().max(1) as f64;
    let ys = Scale::linear(0.0, share * 1.1, area.bottom, area.top);
    frame::y_axis(svg, area, &ys, "share (%)", 3);
    let (m_lo, m_hi) = (xs.px_clamped(1.0 - margin), xs.px_clamped(1.0 + margin));
    svg.rect(
        m_lo,
        area.top,
        m_hi - m_lo,
        area.bottom - area.top,
        &format!(r#"fill="{MARGIN_FILL}" class="margin-band""#),
    );
    let col = style::color(color);
    let mut d = String::new();
    let width = (area.right - area.left) / BINS as f64;
    // All values equal (every block gave the same ratio): one bar centred on that value,
    // where the estimate and the interval's ends are marked, not the bin's left edge.
    let single = match (dist.first(), dist.iter().copied().reduce(f64::max)) {
        (Some(&v), Some(max)) if dist.iter().copied().fold(v, f64::min) == max => Some(v),
        _ => None,
    };
    for (k, n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let h = ys.px(0.0) - ys.px(100.0 * *n as f64 / dist.len() as f64);
        let x = single.map_or(area.left + k as f64 * width, |v| {
            xs.px(v) - (width - 1.0) / 2.0
        });
        let _ = write!(
            d,
            "M{} {}h{}v{}h-{}z",
            num(x),
            num(area.bottom),
            num(width - 1.0),
            num(-h),
            num(width - 1.0)
        );
    }
    if !dist.is_empty() {
        svg.path(
            &d,
            &format!(
                r#"fill="{col}" fill-opacity="0.6" class="histogram" data-values="{}""#,
                dist.len()
            ),
        );
    }
    mark_values(svg, area, &xs, c);
    frame::border(svg, area);
    frame::x_axis(svg, area, &xs, "ratio candidate / baseline (log scale)", 8);
}

/// The vertical lines at no change (1), the interval's ends and the estimate, each with
/// its exact ratio (`data-ratio`).
fn mark_values(svg: &mut Svg, area: Area, xs: &Scale, c: &Comparison) {
    // Each marked value carries its exact ratio (`data-ratio`), beside its pixel.
    let vline = |svg: &mut Svg, v: f64, extra: &str| {
        let x = xs.px(v);
        svg.line(
            x,
            area.top,
            x,
            area.bottom,
            INK,
            &format!(r#"{extra} data-ratio="{v}""#),
        );
    };
    vline(svg, 1.0, r#"stroke-dasharray="2 2" class="no-change""#);
    if let Some([l, h]) = c.ratio_ci {
        vline(
            svg,
            l,
            r#"stroke-dasharray="6 3" stroke-width="1.5" class="interval""#,
        );
        vline(
            svg,
            h,
            r#"stroke-dasharray="6 3" stroke-width="1.5" class="interval""#,
        );
    }
    if let Some(e) = c.ratio {
        vline(svg, e, r#"stroke-width="2" class="estimate""#);
    }
}
