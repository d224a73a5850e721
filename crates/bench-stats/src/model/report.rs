//! The analysis result, `abba.analysis/1`: what every renderer and script reads.
//!
//! Field names follow `shared/spec/interfaces.md` exactly; fields beyond the contract are
//! additions, never renames (they are listed in the repository's `docs/json.md`). A value
//! that cannot be computed is `None` (JSON `null`).
//!
//! # Why the document structs are exhaustive
//!
//! The structs here ([`Analysis`], [`GroupAnalysis`], [`BenchmarkSummary`],
//! [`Comparison`], [`PairedReport`], ...) are the serialized document itself, not results
//! a caller only reads: renderers, converters and their tests build them field by field
//! (struct literals), and deserialize them from JSON. They are deliberately left without
//! `#[non_exhaustive]`, so a field added to the document is a compile error at every
//! place that builds one, which is where the new field has to be decided. The enums whose
//! sets of values will grow ([`Verdict`], [`Outcome`], [`OmnibusTest`], [`Treatment`],
//! [`WarningCode`], [`Remedy`], [`VerdictBasis`]) are `#[non_exhaustive]`: match them with
//! a wildcard arm.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

pub use crate::analysis::Grouping;
pub use crate::model::dataset::Design;
use crate::model::dataset::Quantity;
pub use crate::paired::PairedEstimator;
pub use crate::rank::CliffsDelta;

/// The schema tag written into every analysis.
pub const ANALYSIS_SCHEMA: &str = "abba.analysis/1";

/// One whole analysis: settings, one entry per comparison group, and warnings.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Analysis {
    /// Always [`ANALYSIS_SCHEMA`].
    pub schema: String,
    /// Significance level used for every test.
    pub alpha: f64,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// Bootstrap resamples per interval.
    pub resamples: u32,
    /// Seed of every random choice of the analysis (bootstrap).
    pub seed: u64,
    /// Unit of the measured values (`ns`, `ops/s`, `KiB`, or user-given).
    pub unit: String,
    /// `true` when larger values are better (throughput), `false` for times.
    pub higher_is_better: bool,
    /// What the values measure (`memory`, a JSON field's name, ...), when it is not what
    /// the direction implies: `None` means time (lower is better) or throughput (higher is
    /// better). Beyond the v1 contract; serialized only when present, so documents of times
    /// and throughputs are unchanged.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub quantity: Option<Quantity>,
    /// Minimum practical effect (|Cliff's delta|) a significant verdict must reach where
    /// the Cliff rule applies (unpaired data by default); 0 = off.
    pub min_practical_effect: f64,
    /// Relative margin of equivalence (`0.01` = ±1%): the practical size of the ratio rule
    /// and the margin of the two one-sided tests (beyond the v1 contract; `0` when read
    /// from a document without it).
    #[cfg_attr(feature = "serde", serde(default))]
    pub equivalence_margin: f64,
    /// The practical rule asked for: `auto` (ratio for blocked data, Cliff for unpaired),
    /// `ratio`, or `cliff:X` (beyond the v1 contract).
    #[cfg_attr(feature = "serde", serde(default))]
    pub practical: String,
    /// The run-order design of the data, when known.
    pub design: Option<Design>,
    /// Which estimator decides two-variant paired verdicts (`hl-log-ratio`,
    /// `mean-difference`, `ratio-of-means`, `median-log-ratio`).
    pub paired_estimator: Option<PairedEstimator>,
    /// Per-class groups (the default) or one cross-class group. Serialized only when
    /// cross-class (`"grouping": "cross-class"`), so per-class documents are unchanged.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Grouping::is_per_class")
    )]
    pub grouping: Grouping,
    /// One per class (per-class mode) or a single group (cross-class mode).
    pub groups: Vec<GroupAnalysis>,
    /// What the experiment did about each state dimension (empty for imported data).
    pub controls: Vec<Control>,
    /// Everything the reader should distrust, never silent.
    pub warnings: Vec<Warning>,
    /// An independent confirmation run of a standout candidate against the baseline
    /// (`abba compare --confirm`; beyond the v1 contract, serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub confirmation: Option<Box<Analysis>>,
    /// The experiment level by level when its blocks come from several hosts or sessions:
    /// the pooled effect, each host's effect, the variance per level and the heterogeneity
    /// check (beyond the v1 contract, serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub levels: Option<crate::model::levels::LevelsReport>,
    /// The other recorded metrics of counted runs: each comparison's ratio on wall time,
    /// CPU times, memory and every count beside the metric that decided, and how far
    /// layout moves the counts (beyond the v1 contract, serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub metrics: Option<crate::model::metrics::MetricsReport>,
    /// Where the wall-time comparisons' spread comes from: time on the CPU or off it,
    /// whether the commands are CPU-bound, and the comparisons decided on CPU time (beyond
    /// the v1 contract, serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub noise: Option<crate::model::noise::NoiseReport>,
    /// Under valgrind: each counted comparison beside the same commands' native CPU time,
    /// from a few blocks run natively, and whether the two disagree in direction (beyond
    /// the v1 contract, serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub native_time: Option<crate::model::native::NativeTimeReport>,
}

/// The comparisons inside one group against its baseline.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct GroupAnalysis {
    /// The class name, or `None` for unclassified data and cross-class mode.
    pub class: Option<String>,
    /// Name of the baseline benchmark.
    pub baseline: String,
    /// Descriptive statistics of every benchmark in the group, baseline first.
    pub benchmarks: Vec<BenchmarkSummary>,
    /// The omnibus test, for 3+ benchmarks.
    pub omnibus: Option<Omnibus>,
    /// One per candidate (every benchmark but the baseline), in the order of
    /// `benchmarks[1..]`: comparison `k` is about row `k + 1` (see [`GroupAnalysis::row_of`]).
    pub comparisons: Vec<Comparison>,
    /// The trend across a numeric parameter (a scan's values, see
    /// [`Series::with_parameter`](crate::Series::with_parameter)), for blocked data with 3+
    /// values; beyond the v1 contract, serialized only when present.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub trend: Option<TrendReport>,
}

impl GroupAnalysis {
    /// The candidate that stands out among two or more: the significant comparison with
    /// the largest change (|log ratio|), if any. With several comparisons the largest is
    /// partly chance, so it is a hypothesis to confirm with an independent run. In a
    /// parameter scan whose values move one way along the parameter (a significant
    /// [`TrendReport`] with monotone medians) the largest change is the end of the trend,
    /// not a departure from the rest, so no candidate stands out when another comparison
    /// along it is significant too ([`TrendReport::ends_with`]).
    pub fn standout(&self) -> Option<&Comparison> {
        if self.comparisons.len() < 2 {
            return None;
        }
        self.comparisons
            .iter()
            .filter(|c| c.verdict == Verdict::Significant)
            .filter_map(|c| c.largest_change().map(|(_, r)| (c, r.ln().abs())))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, _)| c)
            .filter(|c| !self.ends_a_trend(c))
    }

    /// `c` is the end of a significant, monotone trend ([`TrendReport::ends_with`]) along
    /// which some other comparison is significant too: the scan moved step by step, and
    /// `c` did not depart alone from the rest.
    fn ends_a_trend(&self, c: &Comparison) -> bool {
        let others = self
            .comparisons
            .iter()
            .filter(|o| o.verdict == Verdict::Significant && o.candidate != c.candidate)
            .count();
        others > 0
            && self
                .trend
                .as_ref()
                .is_some_and(|t| t.ends_with(&c.candidate))
    }

    /// The descriptive row of comparison `k`'s candidate: `benchmarks[k + 1]` (the
    /// baseline's row is `benchmarks[0]`). `None` when `k` is out of range.
    pub fn row_of(&self, k: usize) -> Option<&BenchmarkSummary> {
        if k < self.comparisons.len() {
            self.benchmarks.get(k + 1)
        } else {
            None
        }
    }

    /// Each comparison with its candidate's descriptive row.
    pub fn comparisons_with_rows(
        &self,
    ) -> impl Iterator<Item = (&Comparison, Option<&BenchmarkSummary>)> + '_ {
        self.comparisons
            .iter()
            .enumerate()
            .map(|(k, c)| (c, self.row_of(k)))
    }
}

/// Descriptive statistics of one benchmark.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct BenchmarkSummary {
    /// Variant name.
    pub name: String,
    /// Class of this benchmark (set in cross-class mode so rows can be told apart).
    pub class: Option<String>,
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (same as `p50`).
    pub median: f64,
    /// Sample standard deviation (n - 1); `None` when n < 2.
    pub stddev: Option<f64>,
    /// Median absolute deviation (unscaled).
    pub mad: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// 50th percentile (linear interpolation).
    pub p50: f64,
    /// 90th percentile (linear interpolation).
    pub p90: f64,
    /// 99th percentile; `None` when n < 100 (it would only be the maximum).
    pub p99: Option<f64>,
    /// Tukey-fence outliers: mild (beyond 1.5 IQR) and severe (beyond 3 IQR). Reported only.
    pub outliers: OutlierCounts,
    /// Mean user CPU time per run, in the data's unit, when the values are wall times of
    /// recorded runs (beyond the v1 contract; serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub user_mean: Option<f64>,
    /// Mean system CPU time per run, in the data's unit, under the same condition as
    /// `user_mean` (beyond the v1 contract; serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub sys_mean: Option<f64>,
}

/// Counts of Tukey-fence outliers.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct OutlierCounts {
    /// Below the low mild fence (1.5 IQR) but not the severe one.
    pub low_mild: usize,
    /// Below the low severe fence (3 IQR).
    pub low_severe: usize,
    /// Above the high mild fence but not the severe one.
    pub high_mild: usize,
    /// Above the high severe fence.
    pub high_severe: usize,
}

/// Which omnibus test was run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum OmnibusTest {
    /// Kruskal-Wallis H (unpaired groups).
    KruskalWallis,
    /// Friedman chi-square (blocked data).
    Friedman,
}

/// Which trend test was run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum TrendTest {
    /// Page's L test for ordered alternatives in blocked data (Page 1963), two-sided.
    PageL,
}

/// Which way the values move as the parameter grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum TrendDirection {
    /// The values tend to rise with the parameter (`z > 0`).
    Increasing,
    /// The values tend to fall with the parameter (`z < 0`).
    Decreasing,
    /// Neither (`z = 0`).
    None,
}

/// A monotone trend of the values across a numeric parameter, from the block table with
/// the benchmarks ordered by their parameter values.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct TrendReport {
    /// Which test.
    pub test: TrendTest,
    /// The parameter's name (a scan's `NAME`).
    pub parameter: String,
    /// The parameter values in increasing order (one benchmark each).
    pub values: Vec<f64>,
    /// The test's statistic (Page's L).
    pub statistic: f64,
    /// The standardized statistic: positive when the values rise with the parameter.
    pub z: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// `exact` or `asymptotic`.
    pub method: String,
    /// Blocks the test used.
    pub blocks: usize,
    /// Which way the values move as the parameter grows.
    pub direction: TrendDirection,
    /// `p_value < alpha`.
    pub significant: bool,
    /// The benchmarks' names in the order of `values` (one each).
    #[cfg_attr(feature = "serde", serde(default))]
    pub benchmarks: Vec<String>,
    /// The median over blocks of each benchmark's block value, taken in the order of
    /// `values`, never steps against `direction` (ties allowed): the values move one way
    /// along the whole scan, not only on average.
    #[cfg_attr(feature = "serde", serde(default))]
    pub monotone: bool,
}

impl TrendReport {
    /// A significant trend whose medians move one way along the whole scan, with
    /// `candidate` at one end of it: the end of a trend, not a value that departs from
    /// the rest.
    pub fn ends_with(&self, candidate: &str) -> bool {
        self.significant
            && self.monotone
            && (self.benchmarks.first().map(String::as_str) == Some(candidate)
                || self.benchmarks.last().map(String::as_str) == Some(candidate))
    }
}

/// The omnibus result across all benchmarks of a group.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Omnibus {
    /// Which test.
    pub test: OmnibusTest,
    /// H or the Friedman chi-square.
    pub statistic: f64,
    /// Degrees of freedom (k - 1).
    pub df: u32,
    /// Chi-square survival p-value.
    pub p_value: f64,
    /// `p_value < alpha`.
    pub significant: bool,
}

/// The significance verdict of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Verdict {
    /// The difference is statistically significant (and passes the practical gate).
    Significant,
    /// Not significant (or downgraded by the practical gate).
    NotSignificant,
    /// No test ran: too few samples, or the omnibus was not significant.
    NotTested,
}

/// The plain-words outcome of one candidate against its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Outcome {
    /// Significantly better (faster, or higher throughput).
    Faster,
    /// Significantly worse.
    Slower,
    /// The whole ratio interval lies within the practical margin.
    Equivalent,
    /// The data cannot tell.
    Inconclusive,
    /// Parts of the distribution moved in opposite directions beyond the margin (for
    /// example the fast runs faster and the slow runs slower): no single word is true.
    Mixed,
}

impl Outcome {
    /// The outcome's stable lower-case name: `faster`, `slower`, `equivalent`,
    /// `inconclusive`, `mixed` (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Faster => "faster",
            Outcome::Slower => "slower",
            Outcome::Equivalent => "equivalent",
            Outcome::Inconclusive => "inconclusive",
            Outcome::Mixed => "mixed",
        }
    }

    /// The outcome named by [`Outcome::as_str`]'s text, `None` for any other text (a
    /// record written by a newer abba).
    ///
    /// ```
    /// use bench_stats::Outcome;
    /// assert_eq!(Outcome::from_name("slower"), Some(Outcome::Slower));
    /// assert_eq!(Outcome::from_name("SLOWER"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Outcome> {
        [
            Outcome::Faster,
            Outcome::Slower,
            Outcome::Equivalent,
            Outcome::Inconclusive,
            Outcome::Mixed,
        ]
        .into_iter()
        .find(|o| o.as_str() == name)
    }

    /// Whether the outcome is a significant change (faster, slower or mixed).
    pub fn is_change(self) -> bool {
        match self {
            Outcome::Faster | Outcome::Slower | Outcome::Mixed => true,
            Outcome::Equivalent | Outcome::Inconclusive => false,
        }
    }
}

/// Mann-Whitney U result as the contract lays it out.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct MannWhitneyReport {
    /// min(U1, U2).
    pub u: f64,
    /// Raw two-sided p-value.
    pub p_value: f64,
    /// `exact` or `asymptotic`.
    pub method: String,
}

/// A location shift with its interval (candidate minus baseline).
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct ShiftReport {
    /// Point estimate.
    pub shift: f64,
    /// Lower bound; `None` when the sample is too small for an interval.
    pub ci_low: Option<f64>,
    /// Upper bound.
    pub ci_high: Option<f64>,
}

/// The paired (blocked) analysis of one candidate against the baseline.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct PairedReport {
    /// Complete blocks used.
    pub blocks: usize,
    /// Mean of per-block differences (candidate - baseline).
    pub mean_difference: f64,
    /// Block-bootstrap interval of the mean difference.
    pub difference_ci: Option<[f64; 2]>,
    /// Ratio of block means, candidate over baseline; `None` unless every value is positive.
    pub ratio: Option<f64>,
    /// Block-bootstrap interval of the ratio.
    pub ratio_ci: Option<[f64; 2]>,
    /// Mean difference over the sd of the differences; `None` when that sd is 0.
    pub cohens_dz: Option<f64>,
    /// Wilcoxon signed-rank two-sided p of the block differences.
    pub wilcoxon_p: Option<f64>,
    /// Median of per-block log-ratios, as a ratio (robust estimator).
    pub median_ratio: Option<f64>,
    /// Interval of `median_ratio` (the configured interval method).
    pub median_ratio_ci: Option<[f64; 2]>,
    /// Hodges-Lehmann estimate of the paired differences with its signed-rank interval.
    pub hodges_lehmann: Option<ShiftReport>,
    /// The per-block values (baseline mean, candidate mean) for the block table.
    pub block_values: Vec<[f64; 2]>,
    /// Variance components of the baseline-and-candidate runs, when blocks hold replicates.
    pub variance_components: Option<VarianceComponentsReport>,
}

/// One candidate against the group's baseline.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Comparison {
    /// Candidate name.
    pub candidate: String,
    /// The authoritative significance verdict.
    pub verdict: Verdict,
    /// What decided it (serialized as `paired-signed-rank:hl-log-ratio`,
    /// `paired-bootstrap:<estimator>`, `friedman+wilcoxon-holm`,
    /// `kruskal-wallis+mann-whitney-holm`, `mann-whitney`, or a custom test's name).
    pub verdict_basis: VerdictBasis,
    /// The outcome in plain terms (faster, slower, equivalent, inconclusive).
    pub outcome: Outcome,
    /// The sentence the reports print for this candidate.
    pub summary: String,
    /// Ratio candidate / baseline as the deciding estimator gives it: for two-variant
    /// paired data the configured [`PairedEstimator`]'s ratio (by default the
    /// Hodges-Lehmann estimate of the block log-ratios; the ratio of block means for
    /// `mean-difference` and `ratio-of-means`), otherwise the ratio of medians.
    pub ratio: Option<f64>,
    /// Interval of `ratio`.
    pub ratio_ci: Option<[f64; 2]>,
    /// The test that decided, its p on the scale the verdict uses, and the practical rule
    /// (beyond the v1 contract; absent from documents written before it).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub decision: Option<DecisionReport>,
    /// Mann-Whitney U on the pooled runs (always computed for reference when possible).
    pub mann_whitney: Option<MannWhitneyReport>,
    /// Holm-Bonferroni adjusted p, when an omnibus gated the post-hoc tests.
    pub p_value_adjusted: Option<f64>,
    /// Cliff's delta of candidate runs against baseline runs (its magnitude reads
    /// `negligible` when the practical gate downgraded the verdict).
    pub cliffs_delta: Option<CliffsDelta>,
    /// Hodges-Lehmann shift of candidate runs against baseline runs (all of them), with
    /// Lehmann's interval at the analysis confidence; the bounds are `None` when the run
    /// counts cannot reach that confidence (3 against 3 runs reach at most 90%).
    pub hodges_lehmann: Option<ShiftReport>,
    /// Present when the data are blocked.
    pub paired: Option<PairedReport>,
    /// Present when a reference workload ran in every block.
    pub reference: Option<ReferenceReport>,
    /// The carryover diagnostics of this candidate against the baseline, for blocked
    /// `abba` designs (beyond the v1 contract; serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub carryover: Option<CarryoverSummary>,
    /// What a custom [`crate::SignificanceTest`] answered for this candidate, when one
    /// decided the verdict (beyond the contract). Serialized only when present, so the
    /// documents of the built-in tests are unchanged.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub custom_test: Option<CustomTestReport>,
    /// The confidence sequence that decided, when the experiment ran under a sequential
    /// stop rule (`--until decided`) or was extended after it ended (beyond the contract;
    /// serialized only when present).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub sequential: Option<SequentialReport>,
    /// The two run distributions compared at several quantiles through the blocks (the
    /// shape check of the typical-run estimator); absent for other estimators.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub distribution: Option<crate::paired::shape::ShapeAnalysis>,
    /// The distribution `ratio_ci` was read from, as the analysis computed it: the Walsh
    /// averages of the block log-ratios for the Hodges-Lehmann estimators, the block
    /// bootstrap's replicates for `ratio-of-means` (and `mean-difference`, whose ratio is
    /// the ratio of block means), `median-log-ratio` and `pooled-median-ratio`. `None`
    /// for unpaired data, the typical run (whose randomization test keeps its reference
    /// distribution), a large-sample interval, and a sequential verdict (whose interval is
    /// the confidence sequence's). Not serialized.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub interval_distribution: Option<crate::model::distribution::IntervalDistribution>,
}

impl Comparison {
    /// The largest change this comparison found, as `(what, ratio)`: with a shape check,
    /// the part that moved furthest from no change among those that moved (`what` its
    /// quantile, `p10`, or `mean`), not the typical run alone; else the comparison's ratio
    /// (`what` is `ratio`). `None` without a positive, finite ratio. Time: O(parts).
    pub fn largest_change(&self) -> Option<(String, f64)> {
        use crate::paired::shape::{PartMove, PartStatistic};
        let moved = self.distribution.as_ref().and_then(|s| {
            s.parts()
                .filter(|q| matches!(q.part, PartMove::Slower | PartMove::Faster))
                .filter(|q| q.ratio > 0.0 && q.ratio.is_finite())
                .max_by(|a, b| a.ratio.ln().abs().total_cmp(&b.ratio.ln().abs()))
                .map(|q| {
                    let what = if q.statistic == PartStatistic::Mean {
                        "mean".to_owned()
                    } else {
                        format!("p{:.0}", q.quantile * 100.0)
                    };
                    (what, q.ratio)
                })
        });
        moved.or_else(|| {
            self.ratio
                .filter(|r| *r > 0.0 && r.is_finite())
                .map(|r| ("ratio".to_owned(), r))
        })
    }
}

/// How a sequential experiment was decided ([`Comparison::sequential`]): the confidence
/// sequence replayed over the blocks in order, one look per block.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct SequentialReport {
    /// The sequence: `sign-median` (or `asymptotic-mean`).
    pub method: String,
    /// Its error rate over every look together.
    pub alpha: f64,
    /// The equivalence margin it decides with.
    pub margin: f64,
    /// No look decides before this many blocks.
    pub min_blocks: u32,
    /// The experiment stops undecided here.
    pub max_blocks: u32,
    /// Looks made: one per complete block.
    pub looks: u32,
    /// Blocks at the first look that decided, if one did.
    pub decided_at: Option<u32>,
    /// `decided`, `max-blocks` (undecided at the limit), `time-budget` (undecided when
    /// its `--time-budget` ran out) or `not-finished` (stopped early without a decision:
    /// interrupted, or still running).
    pub stop: String,
    /// The interval of the ratio candidate / baseline at the last look; `None` while too
    /// few blocks bound it.
    pub ratio_ci: Option<[f64; 2]>,
    /// The anytime-valid p-value of "no change" over every look (the smallest `1 / M_t`).
    pub p_value: Option<f64>,
    /// Whether the experiment was extended with `--resume` after it had ended (its extra
    /// blocks are further looks of the same sequence).
    pub extended: bool,
    /// Every look, one per block in block order, as the analysis replayed them: what a
    /// picture of the sequence draws. Not serialized (the raw record keeps the runner's
    /// looks).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub sequence: Vec<crate::sequential::Look>,
}

/// How a comparison was decided: the deciding test and its p on the scale the verdict
/// uses, the practical rule, and the equivalence test ([`Comparison::decision`]).
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct DecisionReport {
    /// The deciding test: `wilcoxon-signed-rank`, `mann-whitney`, `block-bootstrap`
    /// (an interval at `1 - alpha`), or a custom test's name.
    pub test: String,
    /// What it was computed on: `block-log-ratios`, `block-differences` or `runs`.
    pub scale: String,
    /// Its raw two-sided p, when the rule has one.
    pub p_value: Option<f64>,
    /// The p compared with alpha after a Holm-Bonferroni adjustment, when one applied.
    pub p_value_adjusted: Option<f64>,
    /// The practical rule applied: `ratio`, `cliff` or `custom`.
    pub practical_rule: String,
    /// The threshold of that rule: the equivalence margin for `ratio`, the minimum
    /// |Cliff's delta| for `cliff`, the minimum practical value for `custom`.
    pub practical_threshold: f64,
    /// The `1 - 2 alpha` interval of the ratio used for equivalence (two one-sided tests),
    /// when one could be formed with its nominal coverage.
    pub equivalence_ci: Option<[f64; 2]>,
    /// Why no equivalence test could be made, when none could.
    pub equivalence_note: Option<String>,
    /// The part of the run distribution the outcome rests on, for the typical-run
    /// estimator: `typical-run`, `mean-run`, `fast-runs` or `slow-runs` (a FASTER or
    /// SLOWER resting on `fast-runs` or `slow-runs` alone is a tail-only claim). Absent
    /// when the comparison has one estimate, `ratio` (beyond the v1 contract, like the
    /// fields below).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub part: Option<String>,
    /// The deciding estimate's ratio, candidate over baseline: the named `part`'s, else
    /// the comparison's `ratio`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub ratio: Option<f64>,
    /// Its interval at `level`: excludes 1 whenever the verdict is significant. Absent when
    /// the deciding test has no interval on the ratio scale (Mann-Whitney: its interval is
    /// the shift's, `hodges_lehmann`).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub interval: Option<[f64; 2]>,
    /// The level of `interval`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub level: Option<f64>,
    /// The parts that stand in the way of EQUIVALENT, when the outcome is inconclusive
    /// (the typical run first): each part whose `1 - 2 alpha` interval is not inside its
    /// margin (the equivalence margin; three times it for the tails).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub blocking: Vec<String>,
    /// For an inconclusive comparison: the blocks (runs per variant when unpaired) with
    /// which the deciding rule would resolve the margin if the change is what it now
    /// looks like; always more than were run.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub needed: Option<u32>,
}

/// What a custom [`crate::SignificanceTest`] returned for one candidate
/// ([`Comparison::custom_test`]).
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct CustomTestReport {
    /// The test's name (also the comparison's `verdict_basis`).
    pub name: String,
    /// The raw p-value the test gave, if any.
    pub p_value: Option<f64>,
    /// The effect size the test gave, if any.
    pub effect: Option<EffectReport>,
    /// The location shift (candidate minus baseline) the test gave, if any.
    pub shift: Option<ShiftReport>,
}

/// An effect size as a custom test named it.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct EffectReport {
    /// What it measures (`cliffs-delta`, `median-ratio`, ...).
    pub metric: String,
    /// Its value.
    pub value: f64,
    /// The test's magnitude label (`negligible`, `small`, ...).
    pub magnitude: String,
}

/// Something the reader should know before trusting a number.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Warning {
    /// Stable machine code (serialized kebab-case: `drift`, `practical-gate`, ...).
    pub code: WarningCode,
    /// The benchmark it concerns, if one.
    pub benchmark: Option<String>,
    /// The explanation in words: facts only, no command-line flags.
    pub message: String,
    /// The figures behind `message` (a statistic and its test), for a reader who asks for
    /// them: the full report and the JSON document carry them, the compact report leaves
    /// them out. `None` when the message says it all.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub detail: Option<String>,
    /// What the user can change to address it, when something can; a front end words it
    /// in its own terms (the CLI names the flag). Not serialized.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub remedy: Option<Remedy>,
}

/// A setting that addresses a [`Warning`], named by what it does rather than by a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Remedy {
    /// Set the minimum practical effect to 0 to turn the practical gate off.
    DisablePracticalGate,
    /// Run the variants in ABBA blocks so they are paired.
    PairInBlocks,
    /// Let the machine settle between runs.
    SettleBetweenRuns,
    /// Let a state that one run leaves to the next (a cache, a file, heat) clear between
    /// runs, when there is one.
    ClearCarriedState,
    /// Pin the runs to fixed CPUs.
    PinCpus,
    /// Confirm the standout with an independent run against the baseline.
    ConfirmStandout,
    /// Randomize the memory layout per run.
    RandomizeLayout,
    /// Decide on CPU time (user + system) instead of wall time.
    DecideOnCpuTime,
    /// Break a carryover that differs between the versions: let the state clear between
    /// runs, or run the versions in an order that gives each the same predecessors.
    BreakCarryover,
}

/// How one state dimension of the experiment was treated (the variance-reduction seed:
/// every dimension is randomized, held fixed, or at least stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Treatment {
    /// Drawn at random per run or per block (the detail says over how many draws).
    Randomized,
    /// Deliberately held at one value (the detail says which).
    HeldFixed,
    /// Neither: recorded where abba could read it, but not controlled.
    Uncontrolled,
}

/// One state dimension and what the experiment did about it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Control {
    /// The dimension: `run order`, `environment size / stack layout`, `cores`, ...
    pub dimension: String,
    /// Randomized, held fixed, or uncontrolled.
    pub treatment: Treatment,
    /// In words: over how many draws, at what value, or what was observed.
    pub detail: String,
    /// What the user can change to control it, when something can (not serialized).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub remedy: Option<Remedy>,
    /// The dimension and its treatment in a few words for a one-line overview (`order
    /// counterbalanced`, `layout randomized (48 paddings)`); for an uncontrolled dimension
    /// just its short name (`cores`). Not serialized; a report falls back to `dimension`.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub brief: Option<String>,
}

impl Control {
    /// A state dimension, its treatment and the detail in words.
    pub fn new(
        dimension: impl Into<String>,
        treatment: Treatment,
        detail: impl Into<String>,
    ) -> Self {
        Control {
            dimension: dimension.into(),
            treatment,
            detail: detail.into(),
            remedy: None,
            brief: None,
        }
    }

    /// The same control with a few words for a one-line overview (see [`Control::brief`]).
    pub fn with_brief(mut self, brief: impl Into<String>) -> Self {
        self.brief = Some(brief.into());
        self
    }

    /// The same control with a remedy.
    pub fn with_remedy(mut self, remedy: Remedy) -> Self {
        self.remedy = Some(remedy);
        self
    }
}

/// Ratio of ratios against a reference workload measured in every block.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct ReferenceReport {
    /// (candidate / reference) over (baseline / reference), from block-level values.
    pub ratio_of_ratios: f64,
    /// Block-bootstrap interval of the ratio of ratios.
    pub ci: Option<[f64; 2]>,
    /// Coefficient of variation of the reference's block-level values.
    pub reference_cv: Option<f64>,
    /// The reference's value in each block, so its bias can be judged (beside each run:
    /// the mean of the two references of the block).
    pub reference_block_values: Vec<f64>,
    /// Where the reference ran (beyond the v1 contract; absent from older documents).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub placement: Option<ReferencePlacement>,
    /// Beside each run: the reference's value next to the baseline in each block.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub baseline_reference_values: Option<Vec<f64>>,
    /// Beside each run: the reference's value next to the candidate in each block.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub candidate_reference_values: Option<Vec<f64>>,
    /// Beside each run: the reference's own coefficient of variation, from the two
    /// references of each block (`sd(ln rc - ln rb) / sqrt 2`).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub reference_own_cv: Option<f64>,
    /// Beside each run: the approximate upward relative bias of `ratio_of_ratios` due to
    /// the reference, `reference_own_cv² / blocks`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub approximate_bias: Option<f64>,
}

/// Carryover of one candidate against the baseline ([`Comparison::carryover`]): for two
/// variants the ABBA cell means, the position effect and the carryover that differs
/// between the versions (`diagnostics::carryover`); for 3+ variants in Williams blocks the
/// residual-effect difference (`diagnostics::differential`).
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct CarryoverSummary {
    /// How the blocks were taken to meet: `back-to-back` (position 0 follows the previous
    /// block's last run) or `separated` (a reference run beside every variant run).
    pub join: crate::diagnostics::BlockJoin,
    /// `abba-baab` (two variants) or `residual-effects` (3+ variants).
    pub method: CarryoverMethod,
    /// Blocks used.
    pub blocks: usize,
    /// Two variants: mean of the baseline's runs at block positions 1-4 (among the
    /// variants' runs), over the blocks where it ran there; `null` where it never did.
    pub baseline_position_means: Option<[Option<f64>; 4]>,
    /// Two variants: the same for the candidate.
    pub candidate_position_means: Option<[Option<f64>; 4]>,
    /// Two variants: the extra value of a run right after the other variant (corrected for
    /// the join), in the data's unit.
    pub position_effect: Option<f64>,
    /// Two variants: the exact sign-test p of the block contrasts.
    pub position_p: Option<f64>,
    /// Carryover that differs between the versions, in the data's unit: two variants
    /// `l_candidate - l_baseline` (the extra value of a candidate run right after the
    /// baseline minus the reverse); 3+ variants `rho_candidate - rho_baseline` (how much
    /// more a run reads right after the candidate than right after the baseline).
    pub differential: Option<f64>,
    /// The bias that `differential` puts into `mean(candidate) - mean(baseline)`.
    pub version_bias: Option<f64>,
    /// Two-sided p of `differential` (two variants: Mann-Whitney of the ABBA blocks'
    /// contrasts against the BAAB blocks'; 3+: normal test of the least-squares estimate).
    pub differential_p: Option<f64>,
}

/// How [`CarryoverSummary::differential`] was estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum CarryoverMethod {
    /// Two variants: ABBA against BAAB blocks.
    AbbaBaab,
    /// 3+ variants: the crossover model's residual effects.
    ResidualEffects,
}

/// Where a reference workload ran ([`ReferenceReport::placement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum ReferencePlacement {
    /// Once per block (raw files of older versions): each block's ratio of ratios is
    /// the plain ratio; the reference only reweights blocks.
    OncePerBlock,
    /// Beside every variant run: each variant is divided by its own reference.
    BesideEachRun,
}

/// Between- and within-block variance by one-way random-effects method of moments.
///
/// Exhaustive on purpose: part of the serialized document (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct VarianceComponentsReport {
    /// Between-block variance sigma_b^2 (truncated at 0).
    pub between_block: f64,
    /// Within-block variance sigma_w^2.
    pub within_block: f64,
    /// (sigma_b^2 + sigma_w^2) / sigma_w^2: the effective-sample-size gain of pairing.
    pub pairing_gain: Option<f64>,
}

impl Warning {
    /// A warning about the whole analysis or, with `benchmark`, about one benchmark.
    pub fn new(code: WarningCode, benchmark: Option<&str>, message: impl Into<String>) -> Self {
        Warning {
            code,
            benchmark: benchmark.map(str::to_owned),
            message: message.into(),
            detail: None,
            remedy: None,
        }
    }

    /// The same warning with the figures behind it ([`Warning::detail`]).
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The same warning with a remedy.
    pub fn with_remedy(mut self, remedy: Remedy) -> Self {
        self.remedy = Some(remedy);
        self
    }
}

/// The stable code of a [`Warning`]: what kind of distrust it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum WarningCode {
    /// A series with no values was left out.
    NoData,
    /// p99 withheld: fewer than [`crate::descriptive::P99_MIN_SAMPLES`] values.
    #[cfg_attr(feature = "serde", serde(rename = "p99-withheld"))]
    P99Withheld,
    /// The first and second halves of a series differ.
    Drift,
    /// Consecutive runs are correlated.
    Autocorrelation,
    /// Blocks missing a variant were dropped.
    IncompleteBlocks,
    /// A raw file was cut short (its last run line unreadable or missing).
    Truncated,
    /// The comparison is unpaired (sequential design, or data without blocks).
    UnpairedDesign,
    /// A significant verdict was downgraded by the practical gate.
    PracticalGate,
    /// The reference workload varies enough to bias the ratio of ratios.
    NoisyReference,
    /// Runs follow their position in the block more than their version.
    Carryover,
    /// Carryover differs between the versions, which ABBA does not cancel.
    DifferentialCarryover,
    /// The memory layout was held fixed.
    Layout,
    /// Wall time far above CPU time: the command mostly waits.
    WallAboveCpu,
    /// Raw files of separate sessions were merged unpaired.
    UnpairedSessions,
    /// Any other remark of an input reader.
    Input,
    /// What is measured depends on a debug (unoptimized) build of abba itself.
    DebugBuild,
    /// The raw file was written in several sessions (`--resume`): analyses between them
    /// are extra looks at the data.
    Resumed,
    /// The experiment was extended with more blocks after it had ended: its verdict comes
    /// from the confidence sequence, every added block a further look.
    Extended,
    /// One candidate stands out among several: a hypothesis until confirmed.
    Standout,
    /// The effect differs across hosts (or sessions) more than their blocks explain.
    HostHeterogeneity,
    /// Only 2 or 3 hosts: the between-host variance is barely estimable.
    FewHosts,
    /// Two recorded metrics of the same runs move in opposite directions beyond their
    /// intervals (fewer instructions but more time).
    MetricsDisagree,
    /// The counts' direction is opposite to the native time's (under valgrind: more
    /// instructions, less time).
    CountsDisagreeWithTime,
}

impl WarningCode {
    /// The stable kebab-case code, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::NoData => "no-data",
            WarningCode::P99Withheld => "p99-withheld",
            WarningCode::Drift => "drift",
            WarningCode::Autocorrelation => "autocorrelation",
            WarningCode::IncompleteBlocks => "incomplete-blocks",
            WarningCode::Truncated => "truncated",
            WarningCode::UnpairedDesign => "unpaired-design",
            WarningCode::PracticalGate => "practical-gate",
            WarningCode::NoisyReference => "noisy-reference",
            WarningCode::Carryover => "carryover",
            WarningCode::DifferentialCarryover => "differential-carryover",
            WarningCode::Layout => "layout",
            WarningCode::WallAboveCpu => "wall-above-cpu",
            WarningCode::UnpairedSessions => "unpaired-sessions",
            WarningCode::Input => "input",
            WarningCode::DebugBuild => "debug-build",
            WarningCode::Resumed => "resumed",
            WarningCode::Extended => "extended",
            WarningCode::Standout => "standout",
            WarningCode::HostHeterogeneity => "host-heterogeneity",
            WarningCode::FewHosts => "few-hosts",
            WarningCode::MetricsDisagree => "metrics-disagree",
            WarningCode::CountsDisagreeWithTime => "counts-disagree-with-time",
        }
    }
}

impl std::fmt::Display for WarningCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What decided a comparison's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerdictBasis {
    /// Two-variant paired data, an interval from inverting the signed-rank test
    /// (`paired-signed-rank:hl-log-ratio`).
    PairedSignedRank(PairedEstimator),
    /// Two-variant paired data, a block-bootstrap interval
    /// (`paired-bootstrap:<estimator>`).
    PairedBootstrap(PairedEstimator),
    /// Friedman omnibus, then Holm-adjusted Wilcoxon signed-rank post-hoc tests
    /// (`friedman+wilcoxon-holm`).
    Friedman,
    /// Kruskal-Wallis omnibus, then Holm-adjusted Mann-Whitney post-hoc tests
    /// (`kruskal-wallis+mann-whitney-holm`).
    KruskalWallis,
    /// Mann-Whitney U of two unpaired groups.
    MannWhitney,
    /// Deterministic counts: every run of each variant gave the same count, so the
    /// difference is known exactly and no test is needed (`exact`).
    Exact,
    /// A custom [`crate::SignificanceTest`], by its name.
    Custom(String),
}

impl VerdictBasis {
    /// The paired basis of `estimator`: signed-rank inversion for the Hodges-Lehmann
    /// estimator, the block bootstrap for the others.
    pub fn paired(estimator: PairedEstimator) -> VerdictBasis {
        if estimator.is_signed_rank() {
            VerdictBasis::PairedSignedRank(estimator)
        } else {
            VerdictBasis::PairedBootstrap(estimator)
        }
    }

    /// The paired estimator, for the paired bases.
    pub fn paired_estimator(&self) -> Option<PairedEstimator> {
        match self {
            VerdictBasis::PairedSignedRank(e) | VerdictBasis::PairedBootstrap(e) => Some(*e),
            VerdictBasis::Friedman
            | VerdictBasis::KruskalWallis
            | VerdictBasis::MannWhitney
            | VerdictBasis::Exact
            | VerdictBasis::Custom(_) => None,
        }
    }

    /// The serialized form.
    pub fn to_text(&self) -> String {
        match self {
            VerdictBasis::PairedSignedRank(e) => format!("paired-signed-rank:{}", e.as_str()),
            VerdictBasis::PairedBootstrap(e) => format!("paired-bootstrap:{}", e.as_str()),
            VerdictBasis::Friedman => "friedman+wilcoxon-holm".into(),
            VerdictBasis::KruskalWallis => "kruskal-wallis+mann-whitney-holm".into(),
            VerdictBasis::MannWhitney => "mann-whitney".into(),
            VerdictBasis::Exact => "exact".into(),
            VerdictBasis::Custom(name) => name.clone(),
        }
    }

    /// Reads the serialized form back; any text that is not a built-in basis is a custom
    /// test's name.
    pub fn from_text(text: &str) -> VerdictBasis {
        let paired = |rest: &str| PairedEstimator::from_name(rest);
        if let Some(e) = text.strip_prefix("paired-signed-rank:").and_then(paired) {
            return VerdictBasis::PairedSignedRank(e);
        }
        if let Some(e) = text.strip_prefix("paired-bootstrap:").and_then(paired) {
            return VerdictBasis::PairedBootstrap(e);
        }
        match text {
            "friedman+wilcoxon-holm" => VerdictBasis::Friedman,
            "kruskal-wallis+mann-whitney-holm" => VerdictBasis::KruskalWallis,
            "mann-whitney" => VerdictBasis::MannWhitney,
            "exact" => VerdictBasis::Exact,
            other => VerdictBasis::Custom(other.to_owned()),
        }
    }
}

impl PartialEq<&str> for WarningCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<&str> for VerdictBasis {
    fn eq(&self, other: &&str) -> bool {
        self.to_text() == *other
    }
}

impl std::fmt::Display for VerdictBasis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for VerdictBasis {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_text())
    }
}

#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for VerdictBasis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(VerdictBasis::from_text(&text))
    }
}
