//! Chart 4: the estimator's uncertainty. For the signed-rank interval (abba's default,
//! and the Friedman post-hoc tests) the distribution is the Walsh averages of the
//! per-block log-ratios, whose order statistics are the interval's ends; for a
//! block-bootstrap estimator it is a fresh block bootstrap of that estimator (seeded
//! by the analysis's seed). The analysis's estimate and interval are marked on it.

use std::fmt::Write as _;

use bench_stats::{Comparison, PairedEstimator, VerdictBasis};

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, INK, MARGIN_FILL};
use super::svg::{Anchor, Svg, num};
use super::{Chart, Pictures, block_ratios, blocked_rows};

/// Rows drawn at most.
pub const MAX_ROWS: usize = 8;
/// Blocks whose Walsh averages are taken at most (evenly spaced beyond it).
const MAX_WALSH_BLOCKS: usize = 1024;
const RESAMPLES: usize = 2000;
const BINS: usize = 48;
const ROW_HEIGHT: f64 = 120.0;
const ROW_GAP: f64 = 70.0;

/// Which distribution a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Walsh averages of the block log-ratios (signed-rank inversion).
    Walsh,
    /// A block bootstrap of the estimator.
    Bootstrap(PairedEstimator),
}

/// The distribution behind a comparison's interval.
pub fn source(c: &Comparison) -> Source {
    match c.verdict_basis {
        VerdictBasis::PairedBootstrap(e) => Source::Bootstrap(e),
        VerdictBasis::PairedSignedRank(_)
        | VerdictBasis::Friedman
        | VerdictBasis::KruskalWallis
        | VerdictBasis::MannWhitney
        | VerdictBasis::Custom(_) => Source::Walsh,
        _ => Source::Walsh,
    }
}

/// The chart, when at least one comparison is blocked.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let rows = blocked_rows(p);
    if rows.is_empty() {
        return None;
    }
    let shown = rows.len().min(MAX_ROWS);
    // The histogram of the first row (each row is drawn in its candidate's colour).
    let legend = legend(p.analysis.equivalence_margin, rows[0].1);
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
        let src = source(c);
        let dist = distribution(&block_ratios(c), src, p.analysis.seed);
        let what = match src {
            Source::Walsh => "Walsh averages of block log-ratios (signed-rank)".to_owned(),
            Source::Bootstrap(e) => {
                format!("block bootstrap of {} ({RESAMPLES} resamples)", e.as_str())
            }
        };
        row(
            &mut svg,
            area,
            &dist,
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

fn legend(margin: f64, color: usize) -> Vec<LegendItem> {
    vec![
        LegendItem {
            label: "distribution".into(),
            swatch: Swatch::Band(style::color(color), 0.6),
        },
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
    ]
}

/// The distribution of the ratio (not its logarithm) for `ratios`, the per-block ratios.
pub fn distribution(ratios: &[f64], src: Source, seed: u64) -> Vec<f64> {
    if ratios.len() < 2 {
        return Vec::new();
    }
    match src {
        Source::Walsh => walsh(ratios),
        Source::Bootstrap(e) => bootstrap(ratios, e, seed),
    }
}

fn walsh(ratios: &[f64]) -> Vec<f64> {
    let stride = ratios.len().div_ceil(MAX_WALSH_BLOCKS).max(1);
    let logs: Vec<f64> = ratios.iter().step_by(stride).map(|r| r.ln()).collect();
    let mut out = Vec::with_capacity(logs.len() * (logs.len() + 1) / 2);
    for i in 0..logs.len() {
        for j in i..logs.len() {
            out.push(((logs[i] + logs[j]) / 2.0).exp());
        }
    }
    out
}

fn bootstrap(ratios: &[f64], estimator: PairedEstimator, seed: u64) -> Vec<f64> {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        // SplitMix64: a small, fixed generator, so the picture is the same every time.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let n = ratios.len();
    let mut picked = vec![0.0; n];
    (0..RESAMPLES)
        .map(|_| {
            for slot in picked.iter_mut() {
                *slot = ratios[(next() % n as u64) as usize];
            }
            match estimator {
                PairedEstimator::MedianLogRatio => {
                    picked.sort_by(f64::total_cmp);
                    let m = if n % 2 == 1 {
                        picked[n / 2].ln()
                    } else {
                        (picked[n / 2 - 1].ln() + picked[n / 2].ln()) / 2.0
                    };
                    m.exp()
                }
                PairedEstimator::MeanDifference
                | PairedEstimator::RatioOfMeans
                | PairedEstimator::HodgesLehmannLogRatio
                | PairedEstimator::HodgesLehmannMinLogRatio
                | PairedEstimator::HodgesLehmannMedianLogRatio
                | PairedEstimator::PooledMedianRatio
                | PairedEstimator::TypicalRun => {
                    (picked.iter().map(|r| r.ln()).sum::<f64>() / n as f64).exp()
                }
                _ => (picked.iter().map(|r| r.ln()).sum::<f64>() / n as f64).exp(),
            }
        })
        .collect()
}

fn row(svg: &mut Svg, area: Area, dist: &[f64], c: &Comparison, margin: f64, color: usize) {
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
    for v in dist {
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
    for (k, n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let h = ys.px(0.0) - ys.px(100.0 * *n as f64 / dist.len() as f64);
        let x = area.left + k as f64 * width;
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
    svg.path(
        &d,
        &format!(r#"fill="{col}" fill-opacity="0.6" class="histogram""#),
    );
    let vline = |svg: &mut Svg, v: f64, extra: &str| {
        let x = xs.px(v);
        svg.line(x, area.top, x, area.bottom, INK, extra);
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
    frame::border(svg, area);
    frame::x_axis(svg, area, &xs, "ratio candidate / baseline (log scale)", 8);
}
