//! Confirming a standout ([`Confirmation`], `abba compare --confirm`): with three or more
//! variants the largest significant change is partly chance, so it is rerun against its
//! baseline as a new experiment (same settings, a fresh seed, its own raw file) and
//! analyzed on its own.

use bench_stats::{Analysis, AnalysisConfig, StatsError};

use crate::error::SchedError;
use crate::experiment::{ExperimentConfig, Observer, ScanParameter, run_experiment};
use crate::interrupt::InterruptFlag;
use crate::raw::{AllRunsFailed, Experiment, RawWriter};
use crate::runner::Runner;

use super::{Input, analyze_input};

/// The rerun of an analysis's standout candidate against its baseline.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Confirmation {
    /// The baseline's name.
    pub baseline: String,
    /// The standout candidate's name.
    pub candidate: String,
    /// The experiment that reruns them: the original's settings with these two variants
    /// only (their hooks and scanned values with them), a fresh seed, not resumed.
    pub config: ExperimentConfig,
}

/// Why a confirmation gave no analysis.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfirmError {
    /// The rerun could not run or stopped (a failed run, an interruption, ...).
    #[error(transparent)]
    Run(#[from] SchedError),
    /// Every run of one of the two failed (recorded with
    /// [`crate::FailurePolicy::Ignore`]).
    #[error(transparent)]
    AllRunsFailed(#[from] AllRunsFailed),
    /// The analysis refused the rerun's data.
    #[error(transparent)]
    Analysis(#[from] StatsError),
}

impl Confirmation {
    /// The rerun of the standout of `analysis`'s first group ([`bench_stats::GroupAnalysis::standout`])
    /// from `config`, the experiment `analysis` analyzed, under `seed`. `None` when
    /// nothing stands out (fewer than three variants, or no significant difference), or
    /// the two are not variants of `config`.
    pub fn plan(config: &ExperimentConfig, analysis: &Analysis, seed: u64) -> Option<Confirmation> {
        let group = analysis.groups.first()?;
        let standout = group.standout()?;
        let pick = |name: &str| config.variants.iter().position(|v| v.name == name);
        let picked = [pick(&group.baseline)?, pick(&standout.candidate)?];
        let parameter = config.parameter.as_ref().map(|p| ScanParameter {
            name: p.name.clone(),
            values: picked
                .iter()
                .filter_map(|&i| p.values.get(i).copied())
                .collect(),
        });
        let hooks = if config.hooks.is_empty() {
            Vec::new()
        } else {
            picked
                .iter()
                .filter_map(|&i| config.hooks.get(i).cloned())
                .collect()
        };
        Some(Confirmation {
            baseline: group.baseline.clone(),
            candidate: standout.candidate.clone(),
            config: ExperimentConfig {
                variants: picked.iter().map(|&i| config.variants[i].clone()).collect(),
                hooks,
                parameter,
                seed,
                resume: None,
                ..config.clone()
            },
        })
    }

    /// The analysis of the rerun's `experiment` (run [`Beside`] the one it confirms, with
    /// [`Self::config`] and [`Self::analysis_config`]).
    ///
    /// # Errors
    /// [`ConfirmError::AllRunsFailed`] or [`ConfirmError::Analysis`].
    pub fn analyze(
        &self,
        experiment: Experiment,
        analysis: &AnalysisConfig,
    ) -> Result<Analysis, ConfirmError> {
        analyze_experiment(experiment, &self.analysis_config(analysis))
    }

    /// `analysis` under the rerun's seed and the standout's baseline: the settings of the
    /// rerun's analysis, which the report shows as its confirmation
    /// ([`Analysis::confirmation`]).
    pub fn analysis_config(&self, analysis: &AnalysisConfig) -> AnalysisConfig {
        AnalysisConfig {
            seed: self.config.seed,
            baseline: Some(self.baseline.clone()),
            ..analysis.clone()
        }
    }
}

/// Where an experiment derived from another (its confirmation, the native runs of a
/// counted one) runs beside it: the stop flag, the runner, the raw file its runs stream
/// to, and its progress.
#[allow(missing_debug_implementations)]
pub struct Beside<'a> {
    /// Stops the runs (a signal, [`InterruptFlag::request_stop`]).
    pub stop: &'a InterruptFlag,
    /// Runs each command.
    pub runner: &'a mut dyn Runner,
    /// The derived experiment's own raw file.
    pub out: &'a mut RawWriter,
    /// Told of every run.
    pub observer: &'a mut dyn Observer,
}

impl Beside<'_> {
    /// Runs `config` ([`run_experiment`]) and analyzes it with `analysis`, refused when
    /// every run of a variant failed.
    ///
    /// # Errors
    /// [`ConfirmError`]: the run's error, [`AllRunsFailed`], or the analysis's.
    pub fn run(
        self,
        config: &ExperimentConfig,
        analysis: &AnalysisConfig,
    ) -> Result<Analysis, ConfirmError> {
        let experiment = run_experiment(config, self.stop, self.runner, self.out, self.observer)?;
        analyze_experiment(experiment, analysis)
    }
}

/// The analysis of an experiment just run beside another (a confirmation, the native
/// runs of a counted one): refused when every run of a variant failed.
///
/// # Errors
/// [`ConfirmError::AllRunsFailed`] or [`ConfirmError::Analysis`].
pub(super) fn analyze_experiment(
    experiment: Experiment,
    analysis: &AnalysisConfig,
) -> Result<Analysis, ConfirmError> {
    experiment.check_some_run_succeeded()?;
    Ok(analyze_input(
        &Input::from_experiment(experiment),
        analysis,
    )?)
}
