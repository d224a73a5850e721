//! Timing a counted experiment natively ([`NativeTiming`], `abba compare --counter
//! valgrind`): under valgrind every run's time is valgrind's, and counts are a proxy for
//! time that can move the other way (a branchless loop executes more instructions and
//! runs faster). So after the counted blocks, [`NATIVE_BLOCKS`] blocks of the same
//! commands run natively, uncounted, into a raw file of their own (a complete experiment
//! on CPU time, so an analysis of the counted file never mixes them), and each counted
//! comparison is set beside their CPU time ([`bench_stats::diagnostics::native_time`]).
//!
//! Cost: [`NATIVE_BLOCKS`] blocks of native runs (`abba compare --native-blocks N`, 0 for
//! none), each 20-100x shorter than a counted one under valgrind: a few percent of the
//! counted experiment's time at most.
//!
//! The native runs stay in their file beside the counted one ([`native_path`]), so a later
//! analysis of the counted file sets it beside them again ([`NativeTiming::reattach`]).

use std::path::{Path, PathBuf};

use bench_stats::{Analysis, AnalysisConfig};

use crate::counter::CounterSource;
use crate::experiment::ExperimentConfig;
use crate::runner::Metric;

use super::confirm::{ConfirmError, analyze_experiment};
use super::{Input, InputError};

/// The blocks of native runs after a counted experiment: enough for the runs to show a
/// plain direction (3 ABBA blocks are 6 runs of each variant, whose Mann-Whitney p can
/// reach 0.002), few enough to cost little beside the counted runs.
pub const NATIVE_BLOCKS: u32 = 3;

/// The native runs of a counted experiment.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NativeTiming {
    /// The experiment: the counted one's variants and settings, uncounted, on CPU time,
    /// `blocks` blocks ([`NATIVE_BLOCKS`] by default), not resumed, no stop rule.
    pub config: ExperimentConfig,
}

/// Where the native runs of a counted experiment go: beside its raw file
/// (`runs.jsonl` → `runs.native.jsonl`).
pub fn native_path(raw: &Path) -> PathBuf {
    raw.with_extension("native.jsonl")
}

/// Why the native runs beside a counted raw file could not be set beside it again
/// ([`NativeTiming::reattach`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NativeFileError {
    /// The file could not be read as a raw file.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The file is a raw file, but not the native runs of this experiment (another seed
    /// or other commands, or counted itself).
    #[error("{} is not the native runs of this experiment (another seed, other commands, or counted itself)", path.display())]
    NotThisExperiment {
        /// The native file.
        path: PathBuf,
    },
    /// Its runs could not be analysed (every run of a variant failed, ...).
    #[error("its runs cannot be analysed: {0}")]
    Analysis(#[from] ConfirmError),
}

impl NativeTiming {
    /// The native runs of `config` when it counts with valgrind (whose times are not the
    /// program's), `blocks` of them ([`NATIVE_BLOCKS`] by default); `None` otherwise (the
    /// PMU's runs are timed natively already) or when `blocks` is 0 (turned off).
    pub fn plan(config: &ExperimentConfig, blocks: u32) -> Option<NativeTiming> {
        if config.counter != Some(CounterSource::Valgrind) || blocks == 0 {
            return None;
        }
        Some(NativeTiming {
            config: ExperimentConfig {
                counter: None,
                metric: Metric::Cpu,
                unit: None,
                higher_is_better: None,
                blocks,
                until: None,
                resume: None,
                ..config.clone()
            },
        })
    }

    /// Attaches the check of `counted` against `native`, the analysis of the native runs
    /// (run [`crate::Beside`] the counted ones with [`Self::config`]): [`Analysis::native_time`],
    /// and a warning per comparison whose counts and time point opposite ways.
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

    /// Sets `counted`, the analysis of the counted raw file at `raw` (counted under
    /// valgrind), beside the native runs ([`NativeTiming::config`]) left in [`native_path`]`(raw)`
    /// (`abba analyze` of the counted file): the same check and warnings as when the
    /// experiment ran. `Ok(false)` when there is no such file (timed with
    /// `--native-blocks 0`, or removed). Time: one read and one analysis of the native runs.
    ///
    /// # Errors
    /// [`NativeFileError`]: the file is unreadable, belongs to another experiment (its seed
    /// and commands must be the counted header's), or its runs cannot be analysed.
    pub fn reattach(
        raw: &Path,
        header: &crate::raw::RawHeader,
        counted: &mut Analysis,
        analysis: &AnalysisConfig,
    ) -> Result<bool, NativeFileError> {
        let path = native_path(raw);
        if !path.is_file() {
            return Ok(false);
        }
        let input = Input::load(&[path.as_path()], &crate::import::CsvOptions::default())?;
        let commands = |h: &crate::raw::RawHeader| -> Vec<String> {
            h.variants.iter().map(|v| v.command.clone()).collect()
        };
        let Some(native) = input.experiment.filter(|e| {
            e.header.seed == header.seed
                && e.header.counter.is_none()
                && commands(&e.header) == commands(header)
        }) else {
            return Err(NativeFileError::NotThisExperiment { path });
        };
        let timing = NativeTiming {
            config: ExperimentConfig::resumed(&native.header).map_err(ConfirmError::Run)?,
        };
        timing.attach(counted, &analyze_experiment(native, analysis)?);
        Ok(true)
    }
}
