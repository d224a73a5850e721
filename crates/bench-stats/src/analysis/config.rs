//! Settings of one analysis.

use crate::error::StatsError;
use crate::paired::estimators::PairedEstimator;
use crate::resample::bootstrap::IntervalMethod;

/// Which classes are compared with each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Grouping {
    /// Each class gets its own baseline and table (the default).
    #[default]
    PerClass,
    /// Every benchmark in one table against one baseline.
    CrossClass,
}

impl Grouping {
    /// `true` for [`Grouping::PerClass`].
    pub fn is_per_class(&self) -> bool {
        *self == Grouping::PerClass
    }
}

/// Everything an analysis can be told. `Default` gives abba's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisConfig {
    /// Significance level. Default 0.05.
    pub alpha: f64,
    /// Confidence level of every interval. Default 0.95.
    pub confidence: f64,
    /// Bootstrap resamples per interval. Default 2000.
    pub resamples: u32,
    /// Seed of every bootstrap. Default 1.
    pub seed: u64,
    /// Baseline name; default the first series of each group.
    pub baseline: Option<String>,
    /// Minimum |practical effect| a significant verdict needs, in [0, 1]; 0 disables the
    /// gate. Default 0.147 (Romano's negligible/small boundary), so a significant verdict
    /// means "real and at least small".
    pub min_practical_effect: f64,
    /// Relative margin within which a candidate counts as equivalent when its whole ratio
    /// interval lies inside `[1 - margin, 1 + margin]`. Default 0.01.
    pub equivalence_margin: f64,
    /// Per-class or cross-class comparison. Default per class.
    pub grouping: Grouping,
    /// Estimator deciding paired two-variant verdicts (and the ratio the report leads
    /// with). Default [`PairedEstimator::HodgesLehmannLogRatio`], chosen by the calibration
    /// in the README's trust section (the only candidate within alpha and 95% coverage at
    /// 8 to 30 blocks on bursty, heavy-tailed noise); the appendix's mean-based intervals are
    /// always reported too.
    pub paired_estimator: PairedEstimator,
    /// Interval method of the bootstrap. Default percentile.
    pub interval: IntervalMethod,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            alpha: 0.05,
            confidence: 0.95,
            resamples: 2000,
            seed: 1,
            baseline: None,
            min_practical_effect: 0.147,
            equivalence_margin: 0.01,
            grouping: Grouping::PerClass,
            paired_estimator: PairedEstimator::HodgesLehmannLogRatio,
            interval: IntervalMethod::Percentile,
        }
    }
}

impl AnalysisConfig {
    /// Checks every setting.
    ///
    /// # Errors
    /// [`StatsError::InvalidParameter`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), StatsError> {
        let bad = |name, value, reason| {
            Err(StatsError::InvalidParameter {
                name,
                value,
                reason,
            })
        };
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return bad("alpha", self.alpha, "must be strictly between 0 and 1");
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return bad(
                "confidence",
                self.confidence,
                "must be strictly between 0 and 1",
            );
        }
        if !(0.0..=1.0).contains(&self.min_practical_effect) {
            return bad(
                "min-practical-effect",
                self.min_practical_effect,
                "must lie in [0, 1] (0 turns the gate off)",
            );
        }
        if !(0.0..1.0).contains(&self.equivalence_margin) {
            return bad(
                "equivalence-margin",
                self.equivalence_margin,
                "must lie in [0, 1)",
            );
        }
        if self.resamples < crate::resample::bootstrap::MIN_RESAMPLES {
            return bad(
                "resamples",
                f64::from(self.resamples),
                "at least 100 resamples are needed",
            );
        }
        Ok(())
    }
}
