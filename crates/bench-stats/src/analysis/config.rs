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

/// Which rule says whether a statistically significant change is large enough to act on.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub enum PracticalRule {
    /// The ratio rule for blocked data, the Cliff's-delta rule (at
    /// [`AnalysisConfig::min_practical_effect`]) for unpaired data. The default.
    #[default]
    Auto,
    /// Size on the ratio scale: a significant change whose whole `1 - 2 alpha` ratio
    /// interval lies inside `1 ± equivalence_margin` is *equivalent* (real but smaller than
    /// the margin); one whose interval reaches beyond the margin is faster or slower.
    Ratio,
    /// Overlap of the two distributions (the NBenchmark gate): a significant change whose
    /// |Cliff's delta| is below the threshold, in `[0, 1]`, is downgraded to not
    /// significant. 0 turns the gate off.
    Cliff(f64),
}

impl PracticalRule {
    /// The rule that applies to a comparison: `Auto` resolved by whether the data are
    /// blocked, with `min_practical_effect` as the Cliff threshold.
    pub fn resolve(self, blocked: bool, min_practical_effect: f64) -> PracticalRule {
        match self {
            PracticalRule::Auto if blocked => PracticalRule::Ratio,
            PracticalRule::Auto => PracticalRule::Cliff(min_practical_effect),
            rule @ (PracticalRule::Ratio | PracticalRule::Cliff(_)) => rule,
        }
    }

    /// `auto`, `ratio` or `cliff:X`.
    pub fn to_text(self) -> String {
        match self {
            PracticalRule::Auto => "auto".into(),
            PracticalRule::Ratio => "ratio".into(),
            PracticalRule::Cliff(x) => format!("cliff:{x}"),
        }
    }
}

impl std::str::FromStr for PracticalRule {
    type Err = StatsError;

    /// Parses `auto`, `ratio`, `cliff` (at 0.147) or `cliff:X` with X in `[0, 1]`.
    fn from_str(s: &str) -> Result<PracticalRule, StatsError> {
        let unknown = || StatsError::UnknownName {
            what: "practical rule (auto, ratio, cliff:X)",
            name: s.to_owned(),
        };
        match s {
            "auto" => Ok(PracticalRule::Auto),
            "ratio" => Ok(PracticalRule::Ratio),
            "cliff" => Ok(PracticalRule::Cliff(
                crate::rank::Magnitude::SMALL_THRESHOLD,
            )),
            _ => {
                let x: f64 = s
                    .strip_prefix("cliff:")
                    .ok_or_else(unknown)?
                    .parse()
                    .map_err(|_| unknown())?;
                if (0.0..=1.0).contains(&x) {
                    Ok(PracticalRule::Cliff(x))
                } else {
                    Err(unknown())
                }
            }
        }
    }
}

/// Everything an analysis can be told. `Default` gives abba's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisConfig {
    /// Significance level. Default 0.05.
    pub alpha: f64,
    /// Confidence level of every interval. Default 0.95, i.e. `1 - alpha` at the default
    /// alpha: keep it at `1 - alpha` (as the CLI does unless `--confidence` is given) and
    /// a signed-rank verdict is significant exactly when its ratio interval excludes 1.
    /// Equivalence always uses the `1 - 2 alpha` interval, whatever this says.
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
    /// Relative margin of equivalence: a candidate is equivalent to the baseline when the
    /// `1 - 2 alpha` interval of its ratio lies inside `[1 - margin, 1 + margin]` (two
    /// one-sided tests at `alpha`). Also the practical size of the ratio rule. Default 0.01.
    pub equivalence_margin: f64,
    /// Which practical-size rule applies. Default [`PracticalRule::Auto`].
    pub practical: PracticalRule,
    /// Per-class or cross-class comparison. Default per class.
    pub grouping: Grouping,
    /// Estimator deciding paired two-variant verdicts (and the ratio the report leads
    /// with). Default [`PairedEstimator::TypicalRun`]: the typical run with the fast and
    /// slow runs checked beside it (`docs/estimator-grid.md`);
    /// [`PairedEstimator::HodgesLehmannMinLogRatio`] decides on the fastest run of each
    /// block, and every sentence then says so; the appendix's mean-based intervals are
    /// always reported too.
    pub paired_estimator: PairedEstimator,
    /// Interval method of the bootstrap. Default percentile.
    pub interval: IntervalMethod,
    /// The sequential stop rule the experiment ran under, if any: two-variant paired
    /// verdicts then come from the confidence sequence replayed block by block
    /// ([`crate::sequential`]), never from the fixed-sample interval. Default none.
    pub sequential: Option<SequentialRun>,
    /// Told how far a long analysis has come (see [`crate::analysis::Progress`]); never
    /// changes a result. Default none.
    pub progress: Option<crate::analysis::ProgressHook>,
    /// Whether the checks whose only product is a warning run: each series' drift and
    /// autocorrelation, the dependence of runs inside blocks, p99 withheld. Default
    /// `true`. A caller that reads the comparisons and drops the warnings (the noise
    /// diagnosis's analysis on CPU time) turns it off to skip their cost; no verdict,
    /// ratio, interval or other field of a comparison depends on it.
    pub warning_checks: bool,
}

/// A sequential experiment as the analysis sees it: the rule, and whether the experiment
/// was extended after it ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SequentialRun {
    /// The rule (its alpha and margin are the analysis's).
    pub rule: crate::sequential::SequentialRule,
    /// Extended with `--resume` after it had ended.
    pub extended: bool,
    /// Its last session stopped because its `--time-budget` ran out (before a decision
    /// or the block limit): the report's `stop` is then `time-budget`.
    pub budget_ended: bool,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            alpha: AnalysisConfig::DEFAULT_ALPHA,
            confidence: 0.95,
            resamples: AnalysisConfig::DEFAULT_RESAMPLES,
            seed: 1,
            baseline: None,
            min_practical_effect: AnalysisConfig::DEFAULT_MIN_PRACTICAL_EFFECT,
            equivalence_margin: AnalysisConfig::DEFAULT_EQUIVALENCE_MARGIN,
            practical: PracticalRule::Auto,
            grouping: Grouping::PerClass,
            paired_estimator: PairedEstimator::TypicalRun,
            interval: IntervalMethod::Percentile,
            sequential: None,
            progress: None,
            warning_checks: true,
        }
    }
}

impl AnalysisConfig {
    /// [`AnalysisConfig::alpha`]'s default.
    pub const DEFAULT_ALPHA: f64 = 0.05;
    /// [`AnalysisConfig::resamples`]' default.
    pub const DEFAULT_RESAMPLES: u32 = 2000;
    /// [`AnalysisConfig::min_practical_effect`]'s default (Romano's negligible/small
    /// boundary).
    pub const DEFAULT_MIN_PRACTICAL_EFFECT: f64 = crate::rank::Magnitude::SMALL_THRESHOLD;
    /// [`AnalysisConfig::equivalence_margin`]'s default.
    pub const DEFAULT_EQUIVALENCE_MARGIN: f64 = 0.01;
    /// The equivalence margin for a count (instructions, cycles, ...): counts resolve a
    /// hundredth of a percent, so a change of half a percent is both measurable and what
    /// a gate on counts exists to catch; under the 1% margin it would read EQUIVALENT.
    pub const COUNT_EQUIVALENCE_MARGIN: f64 = 0.001;

    /// This config with `alpha` and the interval's confidence at `1 - alpha` (the verdict's
    /// level), as a caller overriding alpha wants unless it sets the confidence itself.
    #[must_use]
    pub fn with_alpha(self, alpha: f64) -> AnalysisConfig {
        AnalysisConfig {
            alpha,
            confidence: 1.0 - alpha,
            ..self
        }
    }

    /// The fewest blocks with which a paired comparison can be significant at `alpha`
    /// at all (6 at 0.05): the smallest exact signed-rank p-value with `n` blocks is
    /// `2 / 2^n`. Fewer blocks give a "not tested" verdict. Time: O(1).
    pub fn min_paired_blocks(&self) -> usize {
        crate::analysis::paired_verdict::min_blocks(self)
    }

    /// The fewest blocks with which a paired comparison of `variants` variants, each run
    /// `runs_per_block` times in every block, can be significant at all:
    /// [`AnalysisConfig::min_paired_blocks`] for two; for three or more each candidate's
    /// post-hoc test is Holm-corrected over the `variants - 1` candidates, so its smallest
    /// p must be below `alpha / (variants - 1)` (7 blocks at 0.05 for three variants, under
    /// the signed-rank test and the typical run's min-p adjusted parts alike). Time:
    /// O(count).
    pub fn min_paired_blocks_for(&self, variants: usize, runs_per_block: usize) -> usize {
        use crate::analysis::reach::{FloorTest, TestFloor};
        let test = if self.paired_estimator == crate::PairedEstimator::TypicalRun {
            let parts = if runs_per_block >= 2 {
                crate::paired::shape::SHAPE_PARTS
            } else {
                1
            };
            FloorTest::Quantiles(parts)
        } else {
            FloorTest::SignedRank
        };
        let holm = if variants >= 3 { variants - 1 } else { 1 };
        let floor = TestFloor::new(test, self.alpha, holm).count;
        self.min_paired_blocks()
            .max(if holm > 1 { floor } else { 0 })
    }

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
        if !(self.equivalence_margin > 0.0 && self.equivalence_margin < 1.0) {
            return bad(
                "equivalence-margin",
                self.equivalence_margin,
                "must lie strictly between 0 and 1",
            );
        }
        if let PracticalRule::Cliff(x) = self.practical {
            if !(0.0..=1.0).contains(&x) {
                return bad("practical", x, "the Cliff threshold must lie in [0, 1]");
            }
        }
        if self.alpha >= 0.5 {
            return bad(
                "alpha",
                self.alpha,
                "must be below 0.5 (equivalence uses the 1 - 2 alpha interval)",
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
