//! A suite's raw file into the suite's analysis: the one path `abba suite` (after its
//! runs) and `abba analyze` (of its raw file) share.

use std::fmt;

use bench_stats::suite::{FailedBenchmark, SuiteConfig, SuiteReport, analyze_suite};
use bench_stats::{Dataset, StatsError};

use crate::error::ReadWarning;
use crate::raw::Experiment;

/// A suite's analysis with what it rests on.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SuiteAnalysis {
    /// The suite's report: each benchmark decided at the level the correction gives it,
    /// each wall-time benchmark with its noise diagnosis.
    pub report: SuiteReport,
    /// Each benchmark's name and dataset, in the suite's order.
    pub datasets: Vec<(String, Dataset)>,
    /// What the reading dropped (a block of one benchmark whose run failed, ...).
    pub warnings: Vec<ReadWarning>,
}

/// Why a suite's raw file gives no analysis.
#[derive(Debug)]
#[non_exhaustive]
pub enum SuiteAnalysisError {
    /// The file has no suite in its header (an `abba compare` file).
    NotASuite,
    /// No benchmark has a complete block; the first's variant had none (its runs failed in
    /// every block). A suite where some benchmarks have one lists the others in
    /// [`SuiteReport::failed`].
    NoCompleteBlock {
        /// The benchmark.
        benchmark: String,
        /// The variant.
        variant: String,
    },
    /// The analysis of a benchmark failed.
    Stats(StatsError),
}

impl fmt::Display for SuiteAnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteAnalysisError::NotASuite => f.write_str("the file holds no suite"),
            SuiteAnalysisError::NoCompleteBlock { benchmark, variant } => write!(
                f,
                "benchmark {benchmark}: variant {variant} has no complete block to compare (its runs failed)"
            ),
            SuiteAnalysisError::Stats(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SuiteAnalysisError {}

/// A suite's raw runs split for its analysis ([`suite_data`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SuiteData {
    /// Each benchmark with a complete block: its name and dataset, in the suite's order.
    pub datasets: Vec<(String, Dataset)>,
    /// Each benchmark no block holds all the runs of (a variant failed every run, with
    /// `--ignore-failure`), with the variants whose runs failed.
    pub failed: Vec<FailedBenchmark>,
    /// What the reading dropped (a block of one benchmark whose run failed, ...).
    pub warnings: Vec<ReadWarning>,
    /// The first failed benchmark's variant without data, for the error of a suite where
    /// none has a complete block.
    empty_variant: Option<String>,
}

/// The suite experiment `e`'s benchmarks: every benchmark on its own dataset (its own
/// metric, unit and direction; a block dropped only for the benchmark whose run failed in
/// it, [`Experiment::suite_datasets`]); one with no complete block costs the others
/// nothing: it is listed as failed. Time: O(runs).
pub fn suite_data(e: &Experiment) -> SuiteData {
    let mut out = SuiteData {
        datasets: Vec::new(),
        failed: Vec::new(),
        warnings: Vec::new(),
        empty_variant: None,
    };
    for b in e.suite_datasets() {
        out.warnings.extend(b.loaded.warnings.iter().cloned());
        match b
            .loaded
            .dataset
            .series
            .iter()
            .find(|s| s.observations.is_empty())
        {
            Some(s) => {
                out.empty_variant.get_or_insert_with(|| s.name.clone());
                out.failed.push(FailedBenchmark {
                    name: b.name,
                    variants: b.failed_runs,
                });
            }
            None => out.datasets.push((b.name, b.loaded.dataset)),
        }
    }
    out
}

/// The suite's analysis of the suite experiment `e`: its benchmarks ([`suite_data`]),
/// significance corrected across them ([`analyze_suite`]; under `--until decided`, each
/// benchmark by the sequence it stopped on), and each wall-time benchmark's noise
/// diagnosis ([`crate::suite_noise`]). Time: as [`analyze_suite`], twice when the noise is
/// diagnosed.
///
/// # Errors
/// [`SuiteAnalysisError`]: a file without a suite, a variant with no complete block, an
/// analysis that fails.
pub fn analyze_suite_experiment(
    e: &Experiment,
    config: &SuiteConfig,
) -> Result<SuiteAnalysis, SuiteAnalysisError> {
    if e.header.suite.is_empty() {
        return Err(SuiteAnalysisError::NotASuite);
    }
    analyze_suite_data(e, suite_data(e), config)
}

/// [`analyze_suite_experiment`] of the benchmarks `data` of `e` already split
/// ([`suite_data`]).
///
/// # Errors
/// [`SuiteAnalysisError`]: no benchmark with a complete block, an analysis that fails.
pub fn analyze_suite_data(
    e: &Experiment,
    data: SuiteData,
    config: &SuiteConfig,
) -> Result<SuiteAnalysis, SuiteAnalysisError> {
    let SuiteData {
        datasets,
        failed,
        warnings,
        empty_variant,
    } = data;
    if datasets.is_empty()
        && let (Some(variant), Some(first)) = (empty_variant, failed.first())
    {
        return Err(SuiteAnalysisError::NoCompleteBlock {
            benchmark: first.name.clone(),
            variant,
        });
    }
    // A suite under --until decided is judged by the sequences it stopped on.
    let mut config = config.clone();
    config.analysis.sequential = e
        .sequential_run(config.analysis.alpha, config.analysis.equivalence_margin)
        .filter(|_| e.header.stop_rule.is_some());
    let config = &config;
    let mut report = analyze_suite(&datasets, config).map_err(SuiteAnalysisError::Stats)?;
    report.failed = failed;
    let noise = crate::suite_noise(e, &report, config);
    for (b, n) in report.benchmarks.iter_mut().zip(noise) {
        b.analysis.noise = n;
    }
    Ok(SuiteAnalysis {
        report,
        datasets,
        warnings,
    })
}
