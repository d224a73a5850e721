//! Timing a counted experiment natively ([`NativeTiming`], `abba compare --counter
//! valgrind`): under valgrind every run's time is valgrind's, and counts are a proxy for
//! time that can move the other way (a branchless loop executes more instructions and
//! runs faster). So after the counted blocks, [`NATIVE_BLOCKS`] blocks of the same
//! commands run natively, uncounted, into a raw file of their own (a complete experiment
//! on CPU time, so an analysis of the counted file never mixes them), and each counted
//! comparison is set beside their CPU time ([`bench_stats::diagnostics::native_time`]).
//!
//! Cost: [`NATIVE_BLOCKS`] blocks of native runs, each 20-100x shorter than a counted one
//! under valgrind: a few percent of the counted experiment's time at most.

use bench_stats::{Analysis, AnalysisConfig};

use crate::counter::CounterSource;
use crate::experiment::{ExperimentConfig, Observer, run_experiment};
use crate::interrupt::InterruptFlag;
use crate::raw::RawWriter;
use crate::runner::{Metric, Runner};

use super::confirm::ConfirmError;
use super::{Input, analyze_input};

/// The blocks of native runs after a counted experiment: enough for the runs to show a
/// plain direction (3 ABBA blocks are 6 runs of each variant, whose Mann-Whitney p can
/// reach 0.002), few enough to cost little beside the counted runs.
pub const NATIVE_BLOCKS: u32 = 3;

/// The native runs of a counted experiment.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NativeTiming {
    /// The experiment: the counted one's variants and settings, uncounted, on CPU time,
    /// [`NATIVE_BLOCKS`] blocks, not resumed, no stop rule.
    pub config: ExperimentConfig,
}

impl NativeTiming {
    /// The native runs of `config` when it counts with valgrind (whose times are not the
    /// program's); `None` otherwise (the PMU's runs are timed natively already).
    pub fn plan(config: &ExperimentConfig) -> Option<NativeTiming> {
        if config.counter != Some(CounterSource::Valgrind) {
            return None;
        }
        Some(NativeTiming {
            config: ExperimentConfig {
                counter: None,
                metric: Metric::Cpu,
                unit: None,
                higher_is_better: None,
                blocks: NATIVE_BLOCKS,
                until: None,
                resume: None,
                ..config.clone()
            },
        })
    }

    /// Runs the native blocks ([`run_experiment`], writing to `out`), analyzes them with
    /// `analysis`'s settings, and attaches the check to `counted`
    /// ([`Analysis::native_time`], and a warning per comparison whose counts and time
    /// point opposite ways).
    ///
    /// # Errors
    /// [`ConfirmError`]: the run's error, every run of a variant failed, or the analysis's.
    pub fn run(
        &self,
        stop: &InterruptFlag,
        runner: &mut dyn Runner,
        out: &mut RawWriter,
        observer: &mut dyn Observer,
        analysis: &AnalysisConfig,
        counted: &mut Analysis,
    ) -> Result<(), ConfirmError> {
        let experiment = run_experiment(&self.config, stop, runner, out, observer)?;
        experiment.check_some_run_succeeded()?;
        let native = analyze_input(&Input::from_experiment(experiment), analysis)?;
        self.attach(counted, &native);
        Ok(())
    }

    /// Attaches the check of `counted` against `native`, the analysis of the native runs.
    pub fn attach(&self, counted: &mut Analysis, native: &Analysis) {
        let (report, warnings) = bench_stats::diagnostics::native_time(
            counted,
            native,
            &self.config.metric.to_string(),
            self.config.blocks,
        );
        counted.warnings.extend(warnings);
        counted.native_time = Some(report);
    }
}
