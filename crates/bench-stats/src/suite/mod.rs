//! A suite of benchmarks analysed together: one comparison per benchmark, significance
//! controlled across the suite, and the suite's geometric-mean ratio.
//!
//! Testing twenty benchmarks at alpha 0.05 makes one of them "change" by chance in a
//! typical A/A run. [`analyze_suite`] therefore decides every benchmark at a level that
//! the suite's correction sets:
//!
//! - [`Correction::BenjaminiHochberg`] (the default) controls the false discovery rate,
//!   the expected share of false changes among the benchmarks reported as changed
//!   (Benjamini & Hochberg 1995). With the `m` p-values sorted, the largest `k` with
//!   `p_(k) <= k alpha / m` is found, and every benchmark is then decided at the level
//!   `k alpha / m` (`alpha / m` when `k = 0`), so its interval at `1 - level` excludes no
//!   change exactly when it is a discovery: the false-coverage-statement intervals of
//!   Benjamini & Yekutieli (2005).
//! - [`Correction::Holm`] controls the family-wise error rate, the chance of any false
//!   change in the suite (Holm 1979). The benchmark of rank `i` that the step-down procedure
//!   rejects is decided at `alpha / (m - i + 1)`; the rest at the level where it stopped.
//! - [`Correction::None`]: every benchmark at `alpha`.
//!
//! Each benchmark's decision is the whole engine's ([`crate::analyze`]) at its level, so
//! its verdict, interval, equivalence test and sentence all speak at that level.
//!
//! The geometric mean of the benchmarks' ratios summarises the suite as rustc-perf does;
//! its interval comes from a bootstrap that resamples the suite's blocks (every benchmark
//! keeps the blocks drawn), so whatever a block shared across benchmarks stays in the
//! interval. Checked: the adjusted p-values against SciPy's `false_discovery_control` and
//! a transcription of R's `p.adjust` (`fixtures/scipy/generate.py`); the error rates by
//! simulation (`tests/integration/suite.rs`).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::StatsError;
use crate::analysis::AnalysisConfig;
use crate::model::{Analysis, Dataset, Outcome, Series};
use crate::rank::holm::testable_sorted;
use crate::rank::holm_bonferroni;

/// How significance is controlled across a suite's comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Correction {
    /// Benjamini-Hochberg: the false discovery rate at alpha (the default).
    #[default]
    #[cfg_attr(feature = "serde", serde(rename = "bh"))]
    BenjaminiHochberg,
    /// Holm's step-down: the family-wise error rate at alpha.
    Holm,
    /// No correction: each comparison at alpha.
    None,
}

impl Correction {
    /// The name used on the command line and in the JSON: `bh`, `holm`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Correction::BenjaminiHochberg => "bh",
            Correction::Holm => "holm",
            Correction::None => "none",
        }
    }

    /// What it controls, in words for a report.
    pub fn describe(self) -> &'static str {
        match self {
            Correction::BenjaminiHochberg => "Benjamini-Hochberg (false discovery rate)",
            Correction::Holm => "Holm (family-wise error rate)",
            Correction::None => "none (each benchmark at alpha)",
        }
    }

    /// The correction called `name` (`bh`, `holm`, `none`).
    pub fn from_name(name: &str) -> Option<Correction> {
        [
            Correction::BenjaminiHochberg,
            Correction::Holm,
            Correction::None,
        ]
        .into_iter()
        .find(|c| c.as_str() == name)
    }

    /// The adjusted p-values, in input order (`None` stays `None` and is not counted).
    /// Time: O(m log m).
    pub fn adjust(self, p_values: &[Option<f64>]) -> Vec<Option<f64>> {
        match self {
            Correction::BenjaminiHochberg => benjamini_hochberg(p_values),
            Correction::Holm => holm_bonferroni(p_values),
            Correction::None => p_values
                .iter()
                .map(|p| p.filter(|v| !v.is_nan()).map(|v| v.clamp(0.0, 1.0)))
                .collect(),
        }
    }

    /// The level each comparison is decided at so that "p <= level" is exactly "adjusted
    /// p <= alpha" (see the module docs); comparisons without a p get the smallest level
    /// any comparison gets. Time: O(m log m).
    pub fn levels(self, p_values: &[Option<f64>], alpha: f64) -> Vec<f64> {
        let tested = testable_sorted(p_values);
        let m = tested.len().max(1) as f64;
        let mut out = vec![alpha; p_values.len()];
        match self {
            Correction::None => {}
            Correction::BenjaminiHochberg => {
                let k = tested
                    .iter()
                    .enumerate()
                    .filter(|(j, (_, p))| *p <= (*j as f64 + 1.0) * alpha / m)
                    .map(|(j, _)| j + 1)
                    .max()
                    .unwrap_or(0);
                let level = (k.max(1) as f64) * alpha / m;
                out.iter_mut().for_each(|l| *l = level);
            }
            Correction::Holm => {
                let mut stop_level = alpha / m;
                let mut stopped = false;
                out.iter_mut().for_each(|l| *l = alpha / m);
                for (j, &(i, p)) in tested.iter().enumerate() {
                    let level = alpha / (m - j as f64);
                    if !stopped && p <= level {
                        out[i] = level;
                    } else {
                        if !stopped {
                            stop_level = level;
                            stopped = true;
                        }
                        out[i] = stop_level;
                    }
                }
                if !stopped {
                    stop_level = alpha;
                }
                for (i, p) in p_values.iter().enumerate() {
                    if p.is_none_or(f64::is_nan) {
                        out[i] = stop_level.min(alpha / m);
                    }
                }
            }
        }
        out
    }
}

/// Benjamini-Hochberg adjusted p-values: `min over j >= i of (m / j) p_(j)`, capped at 1,
/// in input order (`None` and NaN are left out of `m` and stay `None`). Time: O(m log m).
///
/// # Examples
/// ```
/// use bench_stats::suite::benjamini_hochberg;
/// let adj = benjamini_hochberg(&[Some(0.01), Some(0.04), Some(0.03), None]);
/// // sorted 0.01, 0.03, 0.04: 0.03, min(0.045, 0.04) = 0.04, 0.04
/// assert!((adj[0].unwrap() - 0.03).abs() < 1e-15);
/// assert!((adj[2].unwrap() - 0.04).abs() < 1e-15);
/// assert_eq!(adj[3], None);
/// ```
pub fn benjamini_hochberg(p_values: &[Option<f64>]) -> Vec<Option<f64>> {
    let tested = testable_sorted(p_values);
    let m = tested.len();
    let mut out = vec![None; p_values.len()];
    let mut running = 1.0_f64;
    for (j, &(i, p)) in tested.iter().enumerate().rev() {
        running = running.min(p * m as f64 / (j as f64 + 1.0)).min(1.0);
        out[i] = Some(running);
    }
    out
}

/// The level at which each of `comparisons` comparisons of a suite runs its sequential
/// rule (`abba suite --until decided`) so that the suite keeps `correction`'s promise at
/// `alpha` however the benchmarks' stops fall: `alpha / comparisons` (Bonferroni) for
/// [`Correction::Holm`] and [`Correction::BenjaminiHochberg`], `alpha` for
/// [`Correction::None`].
///
/// Each benchmark's confidence sequence is anytime-valid at its level, so the chance that
/// one of them ever claims a change that is not there is at most `alpha / comparisons`,
/// whenever it stops; by the union bound the chance of any false claim in the suite is
/// at most `alpha` under any dependence between the benchmarks (they share the machine).
/// That is the family-wise error rate, which bounds the false discovery rate too: the
/// adaptive levels of the fixed-sample corrections need every p-value at once, which a
/// suite whose benchmarks stop one by one does not have. Time: O(1).
///
/// # Examples
/// ```
/// use bench_stats::suite::{Correction, sequential_level};
/// assert!((sequential_level(0.05, Correction::Holm, 5) - 0.01).abs() < 1e-15);
/// assert_eq!(sequential_level(0.05, Correction::None, 5), 0.05);
/// ```
pub fn sequential_level(alpha: f64, correction: Correction, comparisons: usize) -> f64 {
    match correction {
        Correction::None => alpha,
        Correction::Holm | Correction::BenjaminiHochberg => alpha / comparisons.max(1) as f64,
    }
}

/// Settings of [`analyze_suite`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SuiteConfig {
    /// The analysis of each benchmark (its `alpha` is the suite's error rate).
    pub analysis: AnalysisConfig,
    /// How significance is controlled across the suite. Default: Benjamini-Hochberg.
    pub correction: Correction,
}

impl SuiteConfig {
    /// A suite config with `analysis` and `correction`.
    pub fn new(analysis: AnalysisConfig, correction: Correction) -> SuiteConfig {
        SuiteConfig {
            analysis,
            correction,
        }
    }
}

/// One benchmark of a suite, analysed at the level the correction gave it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SuiteBenchmarkReport {
    /// The benchmark (the class of its series).
    pub name: String,
    /// The deciding p of each comparison (candidate order), before the suite's correction.
    pub p_values: Vec<Option<f64>>,
    /// The same after the suite's correction.
    pub p_values_adjusted: Vec<Option<f64>>,
    /// The level each comparison was decided at (its interval is at `1 - level`).
    pub levels: Vec<f64>,
    /// The benchmark's whole analysis at those levels (one group, its comparisons in
    /// candidate order).
    pub analysis: Analysis,
    /// Each variant's median run with a distribution-free 95% interval (order statistics
    /// at `n/2 -+ 1.96 sqrt(n)/2`): the level a history keeps (Bencher's `value`,
    /// `lower_value`, `upper_value`).
    pub medians: Vec<VariantMedian>,
}

/// One variant's median run and its interval ([`SuiteBenchmarkReport::medians`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VariantMedian {
    /// The variant (series) name.
    pub name: String,
    /// Its median run.
    pub median: f64,
    /// The interval of the median.
    pub ci: [f64; 2],
    /// Runs it is computed from.
    pub n: usize,
}

fn medians(data: &Dataset) -> Vec<VariantMedian> {
    data.series
        .iter()
        .filter(|s| !s.observations.is_empty())
        .map(|s| {
            let mut v: Vec<f64> = s.observations.iter().map(|o| o.value).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let median = crate::descriptive::quantile_sorted(&v, 0.5);
            let (lo, hi) =
                crate::descriptive::summary::median_interval_sorted(&v, 1.959_963_984_540_054);
            VariantMedian {
                name: s.name.clone(),
                median,
                ci: [lo, hi],
                n,
            }
        })
        .collect()
}

/// The suite's summary ([`analyze_suite`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SuiteReport {
    /// The error rate the correction controls.
    pub alpha: f64,
    /// The correction: `bh`, `holm` or `none`.
    pub correction: Correction,
    /// One entry per benchmark, in the data's order.
    pub benchmarks: Vec<SuiteBenchmarkReport>,
    /// The geometric mean of the first candidate's ratio over every benchmark, with its
    /// block-bootstrap interval; `None` with fewer than one paired benchmark.
    pub geometric_mean: Option<GeometricMean>,
    /// How many comparisons came out faster, slower, equivalent and inconclusive.
    pub counts: OutcomeCounts,
    /// The benchmarks that could not be compared (a variant's runs all failed, so no block
    /// holds all of the benchmark's runs), in the suite's order; [`analyze_suite`] leaves
    /// it empty and the caller that dropped them fills it. Not in `benchmarks`, the
    /// counts or the geometric mean.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub failed: Vec<FailedBenchmark>,
    /// How the experiment ended, when a sequential rule (`--until decided`) or a time
    /// budget governed it; absent for a fixed suite without a budget. Set by the caller
    /// that knows the experiment ([`analyze_suite`] leaves it `None`).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub stop: Option<SuiteStop>,
}

/// How a suite's experiment ended under a sequential rule or a time budget
/// ([`SuiteReport::stop`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SuiteStop {
    /// `decided` (every benchmark decided), `max-blocks` (the block limit came first),
    /// `time-budget` (the session's budget ran out first: the undecided benchmarks can be
    /// continued with `--resume`), `complete` (every planned block of a fixed suite) or
    /// `not-finished` (interrupted or failed).
    pub stop: String,
    /// Blocks run (the most any benchmark ran).
    pub blocks: u32,
    /// Blocks planned: the rule's limit under `--until decided`.
    pub planned_blocks: u32,
    /// The session's time budget in seconds, when one was set.
    pub time_budget_s: Option<f64>,
    /// Under `--until decided`: the level of each benchmark's confidence sequence
    /// ([`sequential_level`]).
    pub sequential_level: Option<f64>,
}

impl SuiteStop {
    /// A record of how a suite ended: `stop` as [`SuiteStop::stop`] names it.
    pub fn new(
        stop: impl Into<String>,
        blocks: u32,
        planned_blocks: u32,
        time_budget_s: Option<f64>,
        sequential_level: Option<f64>,
    ) -> SuiteStop {
        SuiteStop {
            stop: stop.into(),
            blocks,
            planned_blocks,
            time_budget_s,
            sequential_level,
        }
    }
}

/// A benchmark of a suite that was not compared: no block holds all of its runs with a
/// value (with `--ignore-failure`, a variant that failed every run).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FailedBenchmark {
    /// The benchmark.
    pub name: String,
    /// Its variants with failed runs, the most failing first (empty when no run failed
    /// but no block was complete).
    pub variants: Vec<FailedVariant>,
}

/// A variant's failed runs ([`FailedBenchmark::variants`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FailedVariant {
    /// The variant (series) name.
    pub name: String,
    /// Its runs that failed (or gave no value).
    pub failed: usize,
    /// All its runs.
    pub runs: usize,
}

impl SuiteReport {
    /// The `(benchmark, candidate, outcome)` of every comparison whose outcome is a
    /// change (faster or slower), in the suite's order.
    pub fn changed(&self) -> Vec<(&str, &str, Outcome)> {
        let mut out = Vec::new();
        for b in &self.benchmarks {
            for group in &b.analysis.groups {
                for c in &group.comparisons {
                    if c.outcome.is_change() {
                        out.push((b.name.as_str(), c.candidate.as_str(), c.outcome));
                    }
                }
            }
        }
        out
    }
}

/// Counts of outcomes over a suite's comparisons.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OutcomeCounts {
    /// Significantly better.
    pub faster: usize,
    /// Significantly worse.
    pub slower: usize,
    /// Inside the equivalence margin.
    pub equivalent: usize,
    /// Undecided.
    pub inconclusive: usize,
    /// Parts of the distribution moved in opposite directions.
    #[cfg_attr(feature = "serde", serde(default))]
    pub mixed: usize,
}

impl OutcomeCounts {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Faster => self.faster += 1,
            Outcome::Slower => self.slower += 1,
            Outcome::Equivalent => self.equivalent += 1,
            Outcome::Inconclusive => self.inconclusive += 1,
            Outcome::Mixed => self.mixed += 1,
        }
    }
}

/// The suite's geometric-mean ratio (candidate over baseline).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GeometricMean {
    /// `exp(mean over benchmarks of ln ratio)`, each benchmark's ratio the Hodges-Lehmann
    /// estimate of its block log-ratios on the deciding estimator's block summary.
    pub ratio: f64,
    /// Percentile interval from resampling whole blocks of the suite; `None` from fewer
    /// blocks than [`GeometricMean::min_blocks`] (one block resamples to itself, a zero-
    /// width interval; a few give an interval far narrower than the blocks support).
    pub ci: Option<[f64; 2]>,
    /// The suite's blocks the interval resamples.
    #[cfg_attr(feature = "serde", serde(default))]
    pub blocks: usize,
    /// The fewest blocks an interval is given from: those with which a paired comparison
    /// can be significant at alpha at all ([`AnalysisConfig::min_paired_blocks`], 6 at
    /// 0.05).
    #[cfg_attr(feature = "serde", serde(default))]
    pub min_blocks: usize,
    /// Its confidence.
    pub confidence: f64,
    /// The benchmarks it averages.
    pub benchmarks: usize,
    /// Bootstrap resamples.
    pub resamples: u32,
    /// `true` when the benchmarks' directions differ and every ratio was taken as a cost
    /// (higher-is-better ratios inverted), so above 1 is worse; `false`: the ratios in
    /// their own direction.
    pub as_cost: bool,
}

/// The benchmarks of one dataset: its series split by class, in order of first appearance
/// (series without a class form one benchmark named ""), each with the dataset's unit and
/// direction.
pub fn split_by_class(data: &Dataset) -> Vec<(String, Dataset)> {
    let mut out: Vec<(String, Vec<Series>)> = Vec::new();
    for s in &data.series {
        let key = s.class.clone().unwrap_or_default();
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(s.clone()),
            None => out.push((key, vec![s.clone()])),
        }
    }
    out.into_iter()
        .map(|(name, series)| {
            let mut sub = data.clone();
            sub.series = series;
            (name, sub)
        })
        .collect()
}

/// The dataset of one benchmark: its series, with each run's position renumbered to its
/// place among the benchmark's own runs of the block (a suite interleaves the benchmarks,
/// so the carryover diagnostic must see `A B B A`, not places 12 to 15).
fn benchmark_dataset(data: &Dataset) -> Dataset {
    let mut series = data.series.clone();
    let mut places: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for o in series.iter().flat_map(|s| &s.observations) {
        if let (Some(b), Some(p)) = (o.block, o.position) {
            places.entry(b).or_default().push(p);
        }
    }
    places.values_mut().for_each(|v| v.sort_unstable());
    for o in series.iter_mut().flat_map(|s| s.observations.iter_mut()) {
        if let (Some(b), Some(p)) = (o.block, o.position) {
            o.position = places[&b].binary_search(&p).ok().map(|i| i as u32);
        }
    }
    let mut sub = data.clone();
    sub.series = series;
    sub.reference = None;
    sub.reference_beside = Vec::new();
    sub.levels = None;
    sub
}

fn deciding_p(analysis: &Analysis) -> Vec<Option<f64>> {
    analysis
        .groups
        .iter()
        .flat_map(|g| &g.comparisons)
        .map(|c| {
            c.decision
                .as_ref()
                .and_then(|d| d.p_value_adjusted.or(d.p_value))
        })
        .collect()
}

/// Analyses every benchmark of a suite (each its own dataset, as [`split_by_class`] or a
/// suite file's reader gives them; its first series, or the one named by
/// `config.analysis.baseline` or ending in `/NAME`, its baseline), decides each at the level
/// the correction gives it, and summarises the suite.
///
/// Time: two analyses per benchmark plus `resamples` Hodges-Lehmann estimates per
/// benchmark for the geometric mean.
///
/// # Errors
/// [`StatsError`] from the analysis of a benchmark (naming the problem, e.g. too few
/// values), or [`StatsError::InvalidParameter`] for an invalid configuration.
pub fn analyze_suite(
    benchmarks: &[(String, Dataset)],
    config: &SuiteConfig,
) -> Result<SuiteReport, StatsError> {
    config.analysis.validate()?;
    let alpha = config.analysis.alpha;
    let mut first = Vec::with_capacity(benchmarks.len());
    let mut all_p = Vec::new();
    // Under a sequential rule every benchmark is analysed at the rule's level from the
    // start (its sequence and shape check are the runner's).
    let first_level = config
        .analysis
        .sequential
        .as_ref()
        .map_or(alpha, |run| run.rule.alpha);
    for (name, data) in benchmarks {
        let sub = benchmark_dataset(data);
        let one = benchmark_config(&config.analysis, &sub.series, first_level);
        let analysis = crate::analyze(&sub, &one)?;
        let p = deciding_p(&analysis);
        all_p.extend(p.iter().copied());
        first.push((name.clone(), sub, analysis, p));
    }
    // A sequential suite decided each benchmark at its rule's level while it ran: the
    // analysis replays that rule and reports the p-values on the same scale.
    let (adjusted, levels) = match &config.analysis.sequential {
        Some(run) => {
            let level = run.rule.alpha;
            let scale = if level > 0.0 { alpha / level } else { 1.0 };
            let adjusted = all_p
                .iter()
                .map(|p| p.map(|v| (v * scale).min(1.0)))
                .collect();
            (adjusted, vec![level; all_p.len()])
        }
        None => (
            config.correction.adjust(&all_p),
            config.correction.levels(&all_p, alpha),
        ),
    };
    let mut reports = Vec::with_capacity(first.len());
    let mut counts = OutcomeCounts::default();
    let mut at = 0;
    for (name, sub, analysis, p) in first {
        let n = p.len();
        let mine = levels[at..at + n].to_vec();
        let adj = adjusted[at..at + n].to_vec();
        at += n;
        let analysis = if config.analysis.sequential.is_some() {
            analysis
        } else {
            reanalyze(&sub, config, analysis, &mine, alpha)?
        };
        for c in analysis.groups.iter().flat_map(|g| &g.comparisons) {
            counts.add(c.outcome);
        }
        reports.push(SuiteBenchmarkReport {
            name,
            p_values: p,
            p_values_adjusted: adj,
            levels: mine,
            medians: medians(&sub),
            analysis,
        });
    }
    let geometric_mean = geometric_mean(benchmarks, &config.analysis);
    Ok(SuiteReport {
        alpha,
        correction: config.correction,
        benchmarks: reports,
        geometric_mean,
        counts,
        stop: None,
        failed: Vec::new(),
    })
}

/// The analysis config of one benchmark at `level`: the baseline is the named one when it
/// is among the benchmark's series, else its first.
fn benchmark_config(base: &AnalysisConfig, series: &[Series], level: f64) -> AnalysisConfig {
    let baseline = base
        .baseline
        .as_ref()
        .and_then(|b| {
            series
                .iter()
                .find(|s| &s.name == b || s.name.ends_with(&format!("/{b}")))
        })
        .map(|s| s.name.clone());
    let confidence = if (base.alpha - level).abs() < 1e-15 {
        base.confidence
    } else {
        1.0 - level
    };
    AnalysisConfig {
        alpha: level,
        confidence,
        baseline,
        ..base.clone()
    }
}

/// The benchmark's analysis with each comparison decided at its level: comparisons whose
/// level is the suite's alpha keep the first analysis; the others come from an analysis at
/// their level (one per distinct level).
fn reanalyze(
    sub: &Dataset,
    config: &SuiteConfig,
    first: Analysis,
    levels: &[f64],
    alpha: f64,
) -> Result<Analysis, StatsError> {
    if levels.iter().all(|l| (l - alpha).abs() < 1e-15) {
        return Ok(first);
    }
    let mut distinct: Vec<f64> = levels.to_vec();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let mut at_level = Vec::with_capacity(distinct.len());
    for &level in &distinct {
        let one = benchmark_config(&config.analysis, &sub.series, level);
        at_level.push((level, crate::analyze(sub, &one)?));
    }
    // The analysis at the first comparison's level carries the document; each comparison
    // is taken from the analysis at its own level.
    let pick = |level: f64| {
        at_level
            .iter()
            .find(|(l, _)| (l - level).abs() < 1e-15)
            .map(|(_, a)| a)
    };
    let mut out = pick(levels[0]).cloned().unwrap_or(first);
    let mut k = 0;
    for g in 0..out.groups.len() {
        for c in 0..out.groups[g].comparisons.len() {
            if let Some(source) = levels.get(k).and_then(|&l| pick(l)) {
                if let Some(cmp) = source.groups.get(g).and_then(|grp| grp.comparisons.get(c)) {
                    out.groups[g].comparisons[c] = cmp.clone();
                }
            }
            k += 1;
        }
    }
    Ok(out)
}

/// Per benchmark, its first candidate's block log-ratios `(block, ln(candidate/baseline))`
/// on the deciding estimator's block summary.
fn block_log_ratios(
    series: &[Series],
    higher_is_better: bool,
    config: &AnalysisConfig,
) -> Option<Vec<(u32, f64)>> {
    let baseline = benchmark_config(config, series, config.alpha)
        .baseline
        .and_then(|b| series.iter().position(|s| s.name == b))
        .unwrap_or(0);
    let candidate = (0..series.len()).find(|&i| i != baseline)?;
    let summary = config
        .paired_estimator
        .block_summary()
        .oriented(higher_is_better);
    let per_block = |s: &Series| {
        let mut blocks: std::collections::BTreeMap<u32, Vec<f64>> = Default::default();
        for o in &s.observations {
            blocks.entry(o.block?).or_default().push(o.value);
        }
        Some(blocks)
    };
    let a = per_block(&series[baseline])?;
    let b = per_block(&series[candidate])?;
    let out: Vec<(u32, f64)> = a
        .iter()
        .filter_map(|(block, runs)| {
            let x = summary.of(runs)?;
            let y = summary.of(b.get(block)?)?;
            (x > 0.0 && y > 0.0).then(|| (*block, (y / x).ln()))
        })
        .collect();
    (!out.is_empty()).then_some(out)
}

fn hl(values: &[f64]) -> Option<f64> {
    crate::rank::wilcoxon::paired_hl_estimate(values)
}

/// A benchmark's `(block, log-ratio)` values to the values of one draw of blocks.
type Draw<'a> = &'a dyn Fn(&[(u32, f64)]) -> Vec<f64>;

/// The geometric mean of the benchmarks' ratios and its block-bootstrap interval.
fn geometric_mean(
    benchmarks: &[(String, Dataset)],
    config: &AnalysisConfig,
) -> Option<GeometricMean> {
    let first = benchmarks.first()?.1.higher_is_better;
    let mixed = benchmarks.iter().any(|(_, d)| d.higher_is_better != first);
    let per: Vec<Vec<(u32, f64)>> = benchmarks
        .iter()
        .filter_map(|(_, d)| {
            let mut r = block_log_ratios(&d.series, d.higher_is_better, config)?;
            if mixed && d.higher_is_better {
                // Mixed directions: every ratio as a cost (time-like), so > 1 is worse.
                r.iter_mut().for_each(|x| x.1 = -x.1);
            }
            Some(r)
        })
        .collect();
    if per.is_empty() {
        return None;
    }
    let point = |draw: Draw<'_>| -> Option<f64> {
        let mut sum = 0.0;
        for b in &per {
            sum += hl(&draw(b))?;
        }
        Some((sum / per.len() as f64).exp())
    };
    let ratio = point(&|b: &[(u32, f64)]| b.iter().map(|x| x.1).collect())?;
    let mut blocks: Vec<u32> = per.iter().flatten().map(|x| x.0).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let resamples = config.resamples.max(1);
    let min_blocks = config.min_paired_blocks();
    let without_interval = GeometricMean {
        ratio,
        ci: None,
        confidence: config.confidence,
        blocks: blocks.len(),
        min_blocks,
        benchmarks: per.len(),
        resamples,
        as_cost: mixed,
    };
    if blocks.len() < min_blocks {
        return Some(without_interval);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed ^ 0x7375_6974_655f_676d);
    let mut replicates = Vec::with_capacity(resamples as usize);
    for _ in 0..resamples {
        let drawn: Vec<u32> = (0..blocks.len())
            .map(|_| blocks[rng.random_range(0..blocks.len())])
            .collect();
        let draw = |b: &[(u32, f64)]| -> Vec<f64> {
            drawn
                .iter()
                .filter_map(|id| b.iter().find(|x| x.0 == *id).map(|x| x.1))
                .collect()
        };
        if let Some(r) = point(&draw) {
            replicates.push(r);
        }
    }
    if replicates.is_empty() {
        return Some(without_interval);
    }
    replicates.sort_by(f64::total_cmp);
    let tail = (1.0 - config.confidence) / 2.0;
    let q = |p: f64| {
        let at = p * (replicates.len() - 1) as f64;
        let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
        replicates[lo] + (replicates[hi] - replicates[lo]) * (at - lo as f64)
    };
    Some(GeometricMean {
        ci: Some([q(tail), q(1.0 - tail)]),
        ..without_interval
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bh_levels_make_p_below_level_the_same_as_adjusted_p_below_alpha() {
        let p = [
            Some(0.001),
            Some(0.02),
            Some(0.03),
            Some(0.2),
            None,
            Some(0.04),
        ];
        for correction in [
            Correction::BenjaminiHochberg,
            Correction::Holm,
            Correction::None,
        ] {
            let adj = correction.adjust(&p);
            let levels = correction.levels(&p, 0.05);
            for (i, q) in p.iter().enumerate() {
                if let (Some(q), Some(a)) = (q, adj[i]) {
                    assert_eq!(*q <= levels[i], a <= 0.05, "{correction:?} at {i}");
                }
            }
        }
    }

    #[test]
    fn holm_stops_at_the_first_non_rejection() {
        // sorted 0.001 (0.05/4), 0.02 (0.05/3 = 0.0167: not rejected) -> stop
        let p = [Some(0.02), Some(0.001), Some(0.04), Some(0.03)];
        let levels = Correction::Holm.levels(&p, 0.05);
        assert!((levels[1] - 0.0125).abs() < 1e-15);
        for i in [0, 2, 3] {
            assert!((levels[i] - 0.05 / 3.0).abs() < 1e-15);
        }
    }

    #[test]
    fn names_round_trip() {
        for c in [
            Correction::BenjaminiHochberg,
            Correction::Holm,
            Correction::None,
        ] {
            assert_eq!(Correction::from_name(c.as_str()), Some(c));
        }
        assert_eq!(Correction::from_name("fdr"), None);
    }
}
