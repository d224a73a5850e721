//! Analysing a raw experiment read back from its file, for recording it when no analysis
//! is at hand (a file imported into the history): a suite's benchmarks as `abba suite`
//! analyses them, any other experiment as `abba analyze` does.

use bench_sched::{Experiment, Input, analyze_input};
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
}

impl AnalysedBenchmark {
    /// Borrowed, for [`crate::Store::record`].
    pub fn as_analysed(&self) -> Analysed<'_> {
        Analysed {
            suite_name: self.suite_name.as_deref(),
            dataset: &self.dataset,
            analysis: &self.analysis,
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
        let list: Vec<(String, Dataset)> = experiment
            .suite_datasets()
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
        let report = analyze_suite(&list, &SuiteConfig::new(config.clone(), correction))
            .map_err(|e| failed(&e))?;
        return Ok(report
            .benchmarks
            .into_iter()
            .zip(list)
            .map(|(b, (name, dataset))| AnalysedBenchmark {
                suite_name: Some(name),
                dataset,
                analysis: b.analysis,
            })
            .collect());
    }
    let input = Input::from_experiment(experiment.clone());
    if input.is_empty() {
        return Err(HistoryError::NothingToRecord {
            file: experiment.file.clone(),
        });
    }
    let analysis = analyze_input(&input, config).map_err(|e| failed(&e))?;
    Ok(vec![AnalysedBenchmark {
        suite_name: None,
        dataset: input.loaded.dataset,
        analysis,
    }])
}
