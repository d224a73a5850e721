//! The analysis result, `abba.analysis/1`: what every renderer and script reads.
//!
//! Field names follow `shared/spec/interfaces.md` exactly; fields beyond the contract are
//! additions, never renames. A value that cannot be computed is `None` (JSON `null`).

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// The schema tag written into every analysis.
pub const ANALYSIS_SCHEMA: &str = "abba.analysis/1";

/// One whole analysis: settings, one entry per comparison group, and warnings.
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
    /// Minimum practical effect (|Cliff's delta|) a significant verdict must reach; 0 = off.
    pub min_practical_effect: f64,
    /// The run-order design of the data, when known (`abba`, `random`, `sequential`, `csv`, ...).
    pub design: Option<String>,
    /// Which estimator decides paired verdicts (`mean-percentile`, `median-log-ratio`, ...).
    pub paired_estimator: Option<String>,
    /// One per class (per-class mode) or a single group (cross-class mode).
    pub groups: Vec<GroupAnalysis>,
    /// What the experiment did about each state dimension (empty for imported data).
    pub controls: Vec<Control>,
    /// Everything the reader should distrust, never silent.
    pub warnings: Vec<Warning>,
}

/// The comparisons inside one group against its baseline.
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
    /// One per candidate (every benchmark but the baseline).
    pub comparisons: Vec<Comparison>,
}

/// Descriptive statistics of one benchmark.
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
}

/// Counts of Tukey-fence outliers.
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
pub enum OmnibusTest {
    /// Kruskal-Wallis H (unpaired groups).
    KruskalWallis,
    /// Friedman chi-square (blocked data).
    Friedman,
}

/// The omnibus result across all benchmarks of a group.
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
pub enum Outcome {
    /// Significantly better (faster, or higher throughput).
    Faster,
    /// Significantly worse.
    Slower,
    /// The whole ratio interval lies within the practical margin.
    Equivalent,
    /// The data cannot tell.
    Inconclusive,
}

/// Mann-Whitney U result as the contract lays it out.
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

/// Cliff's delta with its Romano magnitude label.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct CliffsDeltaReport {
    /// (#(b>a) - #(b<a)) / (n_a n_b), a = baseline, b = candidate.
    pub value: f64,
    /// `negligible`, `small`, `medium` or `large`.
    pub magnitude: String,
}

/// A location shift with its interval (candidate minus baseline).
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Comparison {
    /// Candidate name.
    pub candidate: String,
    /// The authoritative significance verdict.
    pub verdict: Verdict,
    /// What decided it: `paired-bootstrap`, `mann-whitney`, a custom test's name, ...
    pub verdict_basis: String,
    /// The outcome in plain terms (faster, slower, equivalent, inconclusive).
    pub outcome: Outcome,
    /// The sentence the reports print for this candidate.
    pub summary: String,
    /// Ratio candidate / baseline: of block means when paired, of medians otherwise.
    pub ratio: Option<f64>,
    /// Interval of `ratio`.
    pub ratio_ci: Option<[f64; 2]>,
    /// Mann-Whitney U on the pooled runs (always computed for reference when possible).
    pub mann_whitney: Option<MannWhitneyReport>,
    /// Holm-Bonferroni adjusted p, when an omnibus gated the post-hoc tests.
    pub p_value_adjusted: Option<f64>,
    /// Cliff's delta of candidate runs against baseline runs.
    pub cliffs_delta: Option<CliffsDeltaReport>,
    /// Hodges-Lehmann shift of candidate runs against baseline runs.
    pub hodges_lehmann: Option<ShiftReport>,
    /// Present when the data are blocked.
    pub paired: Option<PairedReport>,
    /// Present when a reference workload ran in every block.
    pub reference: Option<ReferenceReport>,
}

/// Something the reader should know before trusting a number.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Warning {
    /// Stable machine code: `drift`, `autocorrelation`, `practical-gate`, `p99-withheld`,
    /// `unpaired-design`, `layout`, `carryover`, `noisy-reference`, `incomplete-blocks`,
    /// `wall-above-cpu`, `unpaired-sessions`, ...
    pub code: String,
    /// The benchmark it concerns, if one.
    pub benchmark: Option<String>,
    /// The explanation in words.
    pub message: String,
}

/// How one state dimension of the experiment was treated (the variance-reduction seed:
/// every dimension is randomized, held fixed, or at least stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
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
}

/// Ratio of ratios against a reference workload measured in every block.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct ReferenceReport {
    /// (candidate / reference) over (baseline / reference), from block-level values.
    pub ratio_of_ratios: f64,
    /// Block-bootstrap interval of the ratio of ratios.
    pub ci: Option<[f64; 2]>,
    /// Coefficient of variation of the reference's block-level values.
    pub reference_cv: Option<f64>,
    /// The reference's value in each block, so its bias can be judged.
    pub reference_block_values: Vec<f64>,
}

/// Between- and within-block variance by one-way random-effects method of moments.
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
