//! Analysing a raw experiment read back from its file, for recording it when no analysis
//! is at hand (a file imported into the history): a suite's benchmarks as `abba suite`
//! analyses them, any other experiment as `abba analyze` does.

use bench_sched::{Experiment, Input, Metric, analyze_input};
use bench_stats::suite::{Correction, SuiteConfig, analyze_suite};
use bench_stats::{Analysis, AnalysisConfig, Dataset};

use crate::{Analysed, HistoryError};

/// One benchmark of an experiment with its data and analysis, owned (what [`analyse`]
/// returns; [`AnalysedBenchmark::as_analysed`] lends it to [`crate::Store::record`]).
#[derive(Debug, Clone)]
pub struct AnalysedBenchmark {
    /// The suite benchmark's name (`None` for a plain experiment).
    pub suite_name: Option<String>,
    /// Its data.
    pub dataset: Dataset,
    /// Its analysis.
    pub analysis: Analysis,
    /// The metric it is kept under when not the file's own (`cpu`: [`cpu_twin`]).
    pub metric: Option<String>,
}

impl AnalysedBenchmark {
    /// Borrowed, for [`crate::Store::record`].
    pub fn as_analysed(&self) -> Analysed<'_> {
        Analysed {
            suite_name: self.suite_name.as_deref(),
            dataset: &self.dataset,
            analysis: &self.analysis,
            metric: self.metric.as_deref(),
        }
    }
}

/// The analysis settings a recorded file gets when its command's are not known: the
/// library's defaults ([`AnalysisConfig::default`]) with the file's own seed, so the
/// resamples are the ones `abba analyze` of the file draws.
pub fn default_config(experiment: &Experiment) -> AnalysisConfig {
    AnalysisConfig {
        seed: experiment.header.seed,
        ..AnalysisConfig::default()
    }
}

/// Each benchmark of `experiment` with its analysis under `config`: the suite's
/// benchmarks (every variant with data), analysed together with `correction` as
/// `abba suite` does, or the one experiment as `abba analyze` does.
///
/// # Errors
/// [`HistoryError::NothingToRecord`] when no run succeeded, [`HistoryError::Analysis`]
/// when the analysis fails; both name the file.
pub fn analyse(
    experiment: &Experiment,
    config: &AnalysisConfig,
    correction: Correction,
) -> Result<Vec<AnalysedBenchmark>, HistoryError> {
    let failed = |e: &dyn std::fmt::Display| HistoryError::Analysis {
        file: experiment.file.clone(),
        message: e.to_string(),
    };
    if !experiment.header.suite.is_empty() {
        let list = bench_sched::suite_data(experiment).datasets;
        let mut out = analyse_suite(list, config, correction, None).map_err(|e| failed(&e))?;
        out.extend(suite_cpu_twins(experiment, config, correction));
        return Ok(out);
    }
    let input = Input::from_experiment(experiment.clone());
    if input.is_empty() {
        return Err(HistoryError::NothingToRecord {
            file: experiment.file.clone(),
        });
    }
    let analysis = analyze_input(&input, config).map_err(|e| failed(&e))?;
    let cpu = cpu_twin(experiment, config);
    let mut out = vec![AnalysedBenchmark {
        suite_name: None,
        dataset: input.loaded.dataset,
        analysis,
        metric: None,
    }];
    out.extend(cpu);
    Ok(out)
}

/// The CPU-time series (user + system) of a plain experiment decided on wall time, kept
/// beside its wall-time series so that `history show --metric cpu` needs no rerun: the
/// same runs analysed on CPU time with `config`, under the metric `cpu`. `None` for a
/// suite, another metric, runs under valgrind (whose times are not the program's), or
/// runs that do not record CPU time.
pub fn cpu_twin(experiment: &Experiment, config: &AnalysisConfig) -> Option<AnalysedBenchmark> {
    if !experiment.header.suite.is_empty() || experiment.header.metric != Metric::Wall {
        return None;
    }
    let cpu = Input::from_experiment(experiment.clone())
        .on_metric(&Metric::Cpu)
        .ok()?;
    if cpu.is_empty() {
        return None;
    }
    let analysis = analyze_input(&cpu, config).ok()?;
    Some(AnalysedBenchmark {
        suite_name: None,
        dataset: cpu.loaded.dataset,
        analysis,
        metric: Some(Metric::Cpu.to_string()),
    })
}

/// The CPU-time series of a suite's wall-time benchmarks, kept beside their wall-time
/// series as [`cpu_twin`] keeps a plain experiment's: the same runs read as user + system
/// time ([`Experiment::suite_datasets_on`]), the benchmarks with a complete block analysed
/// together with `config` and `correction` as `abba suite` analyses them, each under the
/// metric `cpu`. Empty for a file without a suite, under valgrind (whose times are not the
/// program's), or when no benchmark has a complete block.
pub fn suite_cpu_twins(
    experiment: &Experiment,
    config: &AnalysisConfig,
    correction: Correction,
) -> Vec<AnalysedBenchmark> {
    if experiment
        .header
        .counter
        .is_some_and(|c| !c.times_are_the_programs())
    {
        return Vec::new();
    }
    let list: Vec<(String, Dataset)> = experiment
        .suite_datasets_on(&Metric::Cpu)
        .into_iter()
        .filter(|b| {
            b.loaded
                .dataset
                .series
                .iter()
                .all(|s| !s.observations.is_empty())
        })
        .map(|b| (b.name, b.loaded.dataset))
        .collect();
    if list.is_empty() {
        return Vec::new();
    }
    analyse_suite(list, config, correction, Some(Metric::Cpu.to_string())).unwrap_or_default()
}

/// The benchmarks `list` analysed together as `abba suite` does, each kept under `metric`
/// (the file's own when `None`).
fn analyse_suite(
    list: Vec<(String, Dataset)>,
    config: &AnalysisConfig,
    correction: Correction,
    metric: Option<String>,
) -> Result<Vec<AnalysedBenchmark>, bench_stats::StatsError> {
    let report = analyze_suite(&list, &SuiteConfig::new(config.clone(), correction))?;
    Ok(report
        .benchmarks
        .into_iter()
        .zip(list)
        .map(|(b, (name, dataset))| AnalysedBenchmark {
            suite_name: Some(name),
            dataset,
            analysis: b.analysis,
            metric: metric.clone(),
        })
        .collect())
}
