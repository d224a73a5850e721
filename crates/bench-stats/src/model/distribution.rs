//! The distribution an interval was read from ([`crate::Comparison::interval_distribution`]):
//! kept beside the interval so that a picture of it draws what the analysis used instead
//! of computing a statistic of its own.

use crate::descriptive::summary::quantile_sorted;

/// At most this many values are kept: a larger distribution (the Walsh averages of many
/// blocks) is thinned to this many evenly spaced quantiles of it.
pub const MAX_DISTRIBUTION_VALUES: usize = 8192;

/// What the values of an [`IntervalDistribution`] are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DistributionKind {
    /// The Walsh averages `(l_i + l_j) / 2`, `i <= j`, of the per-block log-ratios,
    /// exponentiated: the signed-rank interval of a Hodges-Lehmann estimator is two of
    /// their order statistics.
    WalshAverages,
    /// The replicates of a block bootstrap of the estimator (whole blocks resampled).
    BlockBootstrap,
    /// The typical run's randomization test, inverted: for each arrangement of the runs
    /// swapped inside blocks, the ratio at which it ties the observed statistic
    /// ([`crate::paired::shape`]); the interval's ends are two of its order statistics.
    Randomization,
}

impl DistributionKind {
    /// `walsh-averages`, `block-bootstrap` or `randomization`.
    pub fn as_str(self) -> &'static str {
        match self {
            DistributionKind::WalshAverages => "walsh-averages",
            DistributionKind::BlockBootstrap => "block-bootstrap",
            DistributionKind::Randomization => "randomization",
        }
    }
}

/// The distribution an interval was read from, on the interval's own scale, as the
/// analysis computed it.
///
/// Not part of the serialized document: it can hold thousands of values.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct IntervalDistribution {
    /// What the values are.
    pub kind: DistributionKind,
    /// The values, ascending; at most [`MAX_DISTRIBUTION_VALUES`] (evenly spaced quantiles
    /// of the whole distribution when it had more, `total`).
    pub values: Vec<f64>,
    /// How many values the distribution had before any thinning.
    pub total: usize,
    /// The quantile levels (linear interpolation, as [`IntervalDistribution::quantile`])
    /// at which the interval's ends lie: `alpha / 2` and `1 - alpha / 2` for the percentile
    /// bootstrap, the adjusted levels for BCa, `(k - 1) / (M - 1)` and `(M - k) / (M - 1)`
    /// for the signed-rank interval `[W_(k), W_(M+1-k)]` of `M` Walsh averages, the positions
    /// of the ends among the randomization values (an end held at no change sits where the
    /// values reach 1). `None` when the ends are not quantiles of the values (the
    /// studentized bootstrap, a randomization interval whose end lies beyond its values).
    pub levels: Option<[f64; 2]>,
}

impl IntervalDistribution {
    /// A distribution of `values` (sorted here), thinned to [`MAX_DISTRIBUTION_VALUES`].
    /// Non-finite values are dropped; `None` when none is left.
    pub(crate) fn new(
        kind: DistributionKind,
        mut values: Vec<f64>,
        levels: Option<[f64; 2]>,
    ) -> Option<IntervalDistribution> {
        values.retain(|v| v.is_finite());
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let total = values.len();
        if total > MAX_DISTRIBUTION_VALUES {
            let last = (MAX_DISTRIBUTION_VALUES - 1) as f64;
            values = (0..MAX_DISTRIBUTION_VALUES)
                .map(|i| quantile_sorted(&values, i as f64 / last))
                .collect();
        }
        Some(IntervalDistribution {
            kind,
            values,
            total,
            levels,
        })
    }

    /// The same distribution with `f` applied to every value (`f` increasing, as `exp`).
    pub(crate) fn map(mut self, f: impl Fn(f64) -> f64) -> Option<IntervalDistribution> {
        self.values.iter_mut().for_each(|v| *v = f(*v));
        self.values.retain(|v| v.is_finite());
        (!self.values.is_empty()).then_some(self)
    }

    /// The `level` quantile of the values (linear interpolation between order
    /// statistics, NumPy's default), `None` for a level outside `[0, 1]`.
    pub fn quantile(&self, level: f64) -> Option<f64> {
        (0.0..=1.0)
            .contains(&level)
            .then(|| quantile_sorted(&self.values, level))
    }

    /// The interval read from the values at [`IntervalDistribution::levels`].
    pub fn interval(&self) -> Option<[f64; 2]> {
        let [lo, hi] = self.levels?;
        Some([self.quantile(lo)?, self.quantile(hi)?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_sorted_and_thinned_to_evenly_spaced_quantiles() {
        let d = IntervalDistribution::new(
            DistributionKind::BlockBootstrap,
            vec![3.0, f64::NAN, 1.0, 2.0],
            Some([0.0, 1.0]),
        )
        .unwrap();
        assert_eq!(d.values, [1.0, 2.0, 3.0]);
        assert_eq!(d.interval(), Some([1.0, 3.0]));
        assert_eq!(d.quantile(0.25), Some(1.5));
        assert_eq!(d.quantile(1.5), None);

        let many: Vec<f64> = (0..20_001).rev().map(f64::from).collect();
        let d = IntervalDistribution::new(DistributionKind::WalshAverages, many, None).unwrap();
        assert_eq!(d.total, 20_001);
        assert_eq!(d.values.len(), MAX_DISTRIBUTION_VALUES);
        assert_eq!(
            (d.values[0], d.values[MAX_DISTRIBUTION_VALUES - 1]),
            (0.0, 20_000.0)
        );
        assert!((d.quantile(0.5).unwrap() - 10_000.0).abs() < 2.0);
        assert_eq!(d.interval(), None);
        assert!(IntervalDistribution::new(DistributionKind::WalshAverages, vec![], None).is_none());
    }
}
