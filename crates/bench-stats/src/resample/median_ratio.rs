//! The unpaired ratio of medians with its interval: the ratio the report leads with when
//! the data carry no blocks.

use crate::descriptive::Sample;
use crate::resample::bootstrap::{BootstrapConfig, IntervalMethod};

/// Ratio of the candidate's median to the baseline's, each sample resampled on its own.
struct MedianRatioStat<'a> {
    baseline: &'a [f64],
    candidate: &'a [f64],
}

impl crate::resample::bootstrap::Statistic for MedianRatioStat<'_> {
    fn sizes(&self) -> Vec<usize> {
        vec![self.baseline.len(), self.candidate.len()]
    }

    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let pick = |data: &[f64], ix: &[usize]| -> f64 {
            crate::descriptive::summary::median(&ix.iter().map(|&i| data[i]).collect::<Vec<_>>())
        };
        let b = pick(self.baseline, &idx[0]);
        let c = pick(self.candidate, &idx[1]);
        let r = c / b;
        (b > 0.0 && r.is_finite()).then_some(r)
    }
}

/// Above this many values in all, the unpaired median-ratio interval comes from order
/// statistics instead of the bootstrap (same coverage asymptotically, O(n log n) instead of
/// O(resamples n)).
pub(crate) const MEDIAN_RATIO_BOOTSTRAP_MAX: usize = 20_000;

/// Unpaired ratio of medians with a two-sample bootstrap interval (order-statistic interval
/// for large samples); `None` when a median is not positive.
///
/// `boot` gives resamples, confidence and seed; the interval is always a percentile one.
/// Time: O(resamples (n + m)) up to [`MEDIAN_RATIO_BOOTSTRAP_MAX`] values, O(n log n) above.
pub(crate) fn median_ratio(
    base: &Sample,
    cand: &Sample,
    boot: &BootstrapConfig,
) -> (Option<f64>, Option<[f64; 2]>) {
    if base.len() + cand.len() > MEDIAN_RATIO_BOOTSTRAP_MAX {
        return median_ratio_large(base, cand, boot.confidence);
    }
    let stat = MedianRatioStat {
        baseline: base.values(),
        candidate: cand.values(),
    };
    let boot = BootstrapConfig {
        method: IntervalMethod::Percentile,
        ..*boot
    };
    let identity = [
        (0..base.len()).collect::<Vec<_>>(),
        (0..cand.len()).collect::<Vec<_>>(),
    ];
    let point = crate::resample::bootstrap::Statistic::value(&stat, &identity);
    let ci = if base.len() >= 2 && cand.len() >= 2 && point.is_some() {
        crate::resample::bootstrap::run(&stat, &boot)
            .ok()
            .map(|i| i.bounds())
    } else {
        None
    };
    (point, ci)
}

/// Ratio of medians with a distribution-free interval for large samples: each median's
/// order-statistic interval (ranks n/2 -+ z sqrt(n)/2) gives the standard error of its log,
/// and the two combine on the log scale. Needs every value positive.
fn median_ratio_large(
    base: &Sample,
    cand: &Sample,
    confidence: f64,
) -> (Option<f64>, Option<[f64; 2]>) {
    let z = crate::special::normal_ppf(0.5 + confidence / 2.0).unwrap_or(1.96);
    let log_median_and_se = |s: &Sample| -> Option<(f64, f64)> {
        let sorted = s.sorted();
        if sorted[0] <= 0.0 {
            return None;
        }
        let med = crate::descriptive::summary::quantile_sorted(&sorted, 0.5);
        let (lo, hi) = crate::descriptive::summary::median_interval_sorted(&sorted, z);
        Some((med.ln(), (hi.ln() - lo.ln()) / (2.0 * z)))
    };
    let (Some((mb, sb)), Some((mc, sc))) = (log_median_and_se(base), log_median_and_se(cand))
    else {
        return (None, None);
    };
    let log_ratio = mc - mb;
    let se = (sb * sb + sc * sc).sqrt();
    let ci = [(log_ratio - z * se).exp(), (log_ratio + z * se).exp()];
    (
        Some(log_ratio.exp()),
        ci.iter().all(|v| v.is_finite()).then_some(ci),
    )
}
