//! The last step of the pipeline: saved or freshly measured runs into the complete
//! [`Analysis`], controls and run-level warnings included.
//!
//! It lives here, one layer above `bench-stats`, because it needs both sides: the
//! statistics come from [`bench_stats::analyze`], while the controls section and the
//! run-level warnings are read off the raw experiment (its header, every run record, the
//! load at the end), which only this crate knows. `abba compare`, `abba analyze` and the
//! xtask commands all call [`analyze_input`]; a library user gets exactly the report the
//! CLI prints, minus the CLI's wording of remedies as flags.
//!
//! ```
//! use bench_sched::*;
//! use bench_stats::AnalysisConfig;
//! let config = ExperimentConfig {
//!     variants: vec![
//!         Variant { name: "A".into(), command: CommandSpec::parse("./a", Shell::None)? },
//!         Variant { name: "B".into(), command: CommandSpec::parse("./b", Shell::None)? },
//!     ],
//!     blocks: 8,
//!     ..ExperimentConfig::default()
//! };
//! let mut sink = RawWriter::to_writer(Vec::new(), "memory");
//! let stop = InterruptFlag::new();
//! let outcome = run_experiment(&config, &stop, &mut FakeRunner::new(), &mut sink, &mut NoopObserver)?;
//! let analysis = analyze_input(&Input::from_experiment(outcome), &AnalysisConfig::default())?;
//! assert_eq!(analysis.groups[0].comparisons.len(), 1);
//! assert!(!analysis.controls.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod confirm;
mod controls;
mod metrics;
mod native;
mod noise;
mod nothing;
mod pilot;
mod repeated;
mod suite;

pub use confirm::{Beside, ConfirmError, Confirmation};
pub use metrics::{MetricUnavailable, recorded_metrics};
pub use native::{NATIVE_BLOCKS, NativeFileError, NativeTiming, native_path};
pub use noise::{diagnose as diagnose_noise, suite_noise};
pub use nothing::NothingToAnalyze;
pub use pilot::{Pilot, PilotError};
pub use repeated::{RepeatedInput, repeated_input};
pub use suite::{
    SuiteAnalysis, SuiteAnalysisError, SuiteData, analyze_suite_data, analyze_suite_experiment,
    suite_data,
};

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};
use std::path::Path;

use bench_stats::analysis::SequentialRun;
use bench_stats::sequential::SequentialRule;
use bench_stats::{Analysis, AnalysisConfig, Dataset, Design, StatsError, Warning, WarningCode};

use crate::error::{InputError, ReadWarning, ReadWarningKind};
use crate::import::levels::{RawPart, check_same_experiment, merge_levels, mergeable};
use crate::import::{
    CsvOptions, Loaded, MergePolicy, extension, merge_sessions, read_bytes, read_file, read_named,
};
use crate::raw::{EndStatus, Experiment, RawHeader, Runs};
use crate::runner::Metric;

/// The files read so far, to refuse one given twice under two names (a hard link, a copy,
/// `-` fed the same file): by content, and for raw files by the runs' experiment identity
/// (the header) and the whole run line, so a copy with a line added is caught too.
#[derive(Default)]
struct Twins {
    contents: HashMap<(u64, usize), String>,
    runs: HashMap<(u64, u32, u64), String>,
}

impl Twins {
    fn hash(bytes: &[u8]) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        h.finish()
    }

    fn twin(name: &str, other: &str, what: &str) -> InputError {
        InputError::at(
            name,
            None,
            None,
            format!("{what} {other}: its runs would count double; give it once"),
        )
    }

    fn content(&mut self, name: &str, bytes: &[u8]) -> Result<(), InputError> {
        match self.contents.entry((Self::hash(bytes), bytes.len())) {
            Entry::Occupied(prev) => Err(Self::twin(name, prev.get(), "the same content as")),
            Entry::Vacant(v) => {
                v.insert(name.to_owned());
                Ok(())
            }
        }
    }

    fn runs(&mut self, name: &str, raw: &Experiment) -> Result<(), InputError> {
        let header = Self::hash(&serde_json::to_vec(&raw.header).unwrap_or_default());
        let mut mine = HashMap::new();
        for r in &raw.runs {
            // The whole run line, times to the nanosecond: two hosts never measure alike.
            let run = Self::hash(&serde_json::to_vec(&r.to_record()).unwrap_or_default());
            let key = (header, r.session, run);
            if let Some(prev) = self.runs.get(&key) {
                return Err(Self::twin(
                    name,
                    prev,
                    &format!(
                        "a run (session {}, block {}, variant {}) identical to one of",
                        r.session,
                        u64::from(r.block) + 1,
                        r.variant
                    ),
                ));
            }
            mine.insert(key, ());
        }
        for key in mine.into_keys() {
            self.runs.insert(key, name.to_owned());
        }
        Ok(())
    }
}

/// Data ready to analyze: the dataset with the readers' remarks, and the experiment it
/// came from when there is exactly one.
#[derive(Debug, Clone)]
pub struct Input {
    /// The dataset and the readers' warnings.
    pub loaded: Loaded,
    /// The experiment, for one raw file or a run just made.
    pub experiment: Option<Experiment>,
}

impl Input {
    /// Reads saved data: raw JSONL, CSV or hyperfine JSON, detected from the content, each
    /// file read once; the path `-` reads standard input. A single raw file keeps its
    /// experiment. Several raw files of one experiment merge by levels (host, session,
    /// block, run); several raw files of different experiments are an error; any other
    /// mix merges unpaired (see [`Input::load_with`]).
    ///
    /// # Errors
    /// [`InputError`] naming the file (and line, column) that cannot be read, or
    /// [`InputError::DifferentExperiments`].
    pub fn load(paths: &[&Path], csv: &CsvOptions) -> Result<Input, InputError> {
        Input::load_with(paths, csv, MergePolicy::ByExperiment)
    }

    /// [`Input::load`] with the choice of how several raw files combine: by levels when
    /// they are one experiment ([`MergePolicy::ByExperiment`]), or all unpaired with a
    /// warning ([`MergePolicy::Unpaired`], as for files of different experiments).
    /// Several raw files keep only each file's header and block sessions, not its runs.
    ///
    /// # Errors
    /// As [`Input::load`]; with [`MergePolicy::Unpaired`] never
    /// [`InputError::DifferentExperiments`].
    pub fn load_with(
        paths: &[&Path],
        csv: &CsvOptions,
        policy: MergePolicy,
    ) -> Result<Input, InputError> {
        if paths.len() == 1 {
            let (name, mut loaded, raw) = read_file(paths[0], csv)?;
            let running = raw.as_ref().is_some_and(|r| r.end.is_none())
                && paths[0] != Path::new("-")
                && std::fs::File::open(paths[0])
                    .and_then(|f| crate::sys::is_locked(&f))
                    .unwrap_or(false);
            let claims_complete = raw
                .as_ref()
                .and_then(|r| r.end.as_ref())
                .is_some_and(|t| t.status == EndStatus::Complete && t.sequence.is_none())
                && raw.as_ref().is_some_and(|r| r.header.stop_rule.is_none());
            let experiment = raw;
            if let Some(e) = experiment.as_ref().filter(|_| claims_complete) {
                let done = e.complete_blocks();
                if done < e.header.blocks {
                    loaded.warnings.push(ReadWarning {
                        kind: ReadWarningKind::Truncated,
                        file: name,
                        line: None,
                        message: format!(
                            "the end line says complete, but only {done} of {} planned blocks \
                             are in the file: runs were removed or lost after the experiment \
                             ended",
                            e.header.blocks
                        ),
                    });
                }
            }
            if let Some(e) = experiment.as_ref().filter(|_| running) {
                // Said instead of "killed or crashed" (a Truncated remark silences that).
                loaded.warnings.push(ReadWarning {
                    kind: ReadWarningKind::Truncated,
                    file: paths[0].display().to_string(),
                    line: None,
                    message: format!(
                        "the experiment is still running (another abba holds the file's \
                         lock): {} of {} planned blocks measured so far",
                        e.complete_blocks(),
                        e.header.blocks
                    ),
                });
            }
            return Ok(Input { loaded, experiment });
        }
        let mut files = Vec::with_capacity(paths.len());
        let mut twins = Twins::default();
        for path in paths {
            let (name, bytes) = read_named(path)?;
            twins.content(&name, &bytes)?;
            let (name, one, raw) = read_bytes(&name, &bytes, extension(path).as_deref(), csv)?;
            drop(bytes);
            if let Some(r) = &raw {
                twins.runs(&name, r)?;
            }
            files.push((name, one, raw.as_ref().map(RawPart::of)));
        }
        if policy == MergePolicy::ByExperiment {
            let headers: Vec<(&str, &RawHeader)> = files
                .iter()
                .filter_map(|(n, _, p)| p.as_ref().map(|p| (n.as_str(), &p.header)))
                .collect();
            if headers.len() > 1 {
                check_same_experiment(&headers)?;
            }
            let parts: Vec<Option<RawPart>> = files.iter().map(|f| f.2.clone()).collect();
            if mergeable(&parts) {
                let files = files
                    .into_iter()
                    .filter_map(|(n, l, p)| p.map(|p| (n, l, p)))
                    .collect();
                return Ok(Input {
                    loaded: merge_levels(files)?,
                    experiment: None,
                });
            }
        }
        let sessions = files.into_iter().map(|(n, l, _)| (n, l)).collect();
        Ok(Input {
            loaded: merge_sessions(sessions)?,
            experiment: None,
        })
    }

    /// One experiment's data: read from a raw file ([`crate::read_raw`]) or just measured
    /// ([`crate::run_experiment`]).
    pub fn from_experiment(experiment: Experiment) -> Input {
        Input {
            loaded: experiment.to_dataset(),
            experiment: Some(experiment),
        }
    }

    /// The seed the experiment recorded, when there is one.
    pub fn recorded_seed(&self) -> Option<u64> {
        self.experiment.as_ref().map(|e| e.header.seed)
    }

    /// `true` when no series holds a value.
    pub fn is_empty(&self) -> bool {
        self.loaded
            .dataset
            .series
            .iter()
            .all(|s| s.observations.is_empty())
    }
}

/// The remark for an experiment that stopped without its end line before every planned
/// block was measured (abba killed, the machine down), unless a reader already said the
/// file was cut short.
fn stopped_early(e: &Experiment, remarks: &[ReadWarning]) -> Option<Warning> {
    if e.ended() || remarks.iter().any(|w| w.kind == ReadWarningKind::Truncated) {
        return None;
    }
    let done = e.complete_blocks();
    (done < e.header.blocks).then(|| {
        Warning::new(
            WarningCode::Truncated,
            None,
            format!(
                "{done} of {} planned blocks were measured (the run stopped early: the file has no end line, so abba was killed or crashed)",
                e.header.blocks
            ),
        )
    })
}

/// The complete analysis of `input`: [`bench_stats::analyze`] of its dataset (imported
/// data of unknown design are named by what the analysis assumes: paired by the file's
/// blocks, or unpaired), then the readers' remarks, the experiment's controls and its
/// run-level warnings.
///
/// # Errors
/// [`StatsError`] from [`bench_stats::analyze`]: a setting out of range, an unknown
/// baseline, or no values at all.
pub fn analyze_input(input: &Input, config: &AnalysisConfig) -> Result<Analysis, StatsError> {
    // The noise diagnosis decides a wall-time experiment again on CPU time: its shape
    // check reads the arrangements the first one drew (the same numbers, drawn once; a
    // check of more than 16 MiB of coin flips draws them again instead of keeping them).
    match &input.experiment {
        Some(e) if noise::diagnosed(e) => {
            bench_stats::paired::shape::share_arrangements(|| analyze_input_once(input, config))
        }
        _ => analyze_input_once(input, config),
    }
}

/// [`analyze_input`], its arrangements drawn anew by each analysis.
fn analyze_input_once(input: &Input, config: &AnalysisConfig) -> Result<Analysis, StatsError> {
    let config = &sequential_config(input, config);
    let mut analysis = analyze_dataset(input, &input.loaded.dataset, config)?;
    analysis
        .warnings
        .extend(input.loaded.warnings.iter().map(read_warning));
    if let Some(e) = &input.experiment {
        analysis.controls = controls::controls(&e.header, &e.runs, e.load_end());
        fill_cpu_times(&mut analysis, e);
        analysis
            .warnings
            .extend(controls::run_warnings(&e.header, &e.runs));
        if config.sequential.is_none() {
            analysis.warnings.extend(resumed_warning(&e.runs));
        }
        analysis.warnings.extend(extended_warning(&e.header));
        analysis
            .warnings
            .extend(stopped_early(e, &input.loaded.warnings));
        if let Some((report, disagree)) = metrics::metrics_report(input, &analysis, config) {
            analysis.metrics = Some(report);
            analysis.warnings.extend(disagree);
        }
        analysis.noise = noise::noise_report(input, &analysis, config);
    }
    Ok(analysis)
}

/// [`bench_stats::analyze`] of `dataset`, one of `input`'s (its own, or its runs on
/// another metric) as [`analyze_input`] analyses it: imported data of unknown design named
/// by what the analysis assumes, the sequential rule the experiment records; nothing
/// added after.
fn analyze_dataset(
    input: &Input,
    dataset: &Dataset,
    config: &AnalysisConfig,
) -> Result<Analysis, StatsError> {
    let mut dataset = std::borrow::Cow::Borrowed(dataset);
    if dataset.design.is_none() {
        let blocked = dataset
            .series
            .iter()
            .all(|s| s.observations.iter().all(|o| o.block.is_some()));
        dataset.to_mut().design = Some(if blocked {
            Design::BlocksFromFile
        } else {
            Design::Unpaired
        });
    }
    let config = &sequential_config(input, config);
    bench_stats::analyze(&dataset, config)
}

/// Sets each benchmark's `user_mean` and `sys_mean` (in the data's unit) when the
/// analysed values are wall times, so the CPU times read beside them; left out for any
/// other metric, whose values are not comparable with a time.
fn fill_cpu_times(analysis: &mut Analysis, e: &Experiment) {
    let Some(ns_per_unit) = bench_stats::model::nanos_per_time_unit(&e.header.unit) else {
        return;
    };
    if e.header.metric != Metric::Wall {
        return;
    }
    let means = e.cpu_time_means();
    for b in analysis.groups.iter_mut().flat_map(|g| &mut g.benchmarks) {
        if let Some((user, sys)) = means.get(&b.name) {
            b.user_mean = Some(user / ns_per_unit);
            b.sys_mean = Some(sys / ns_per_unit);
        }
    }
}

/// `config` with the sequential rule the experiment's header records (`--until decided`),
/// or, for a fixed experiment extended after it ended, the default rule at the analysis's
/// alpha and margin up to the new block count: such a verdict comes from the confidence
/// sequence, never from the fixed-sample interval as if the count had been planned. A rule
/// the caller set is kept.
fn sequential_config(input: &Input, config: &AnalysisConfig) -> AnalysisConfig {
    let mut config = config.clone();
    let Some(e) = input.experiment.as_ref() else {
        return config;
    };
    if config.sequential.is_some() {
        return config;
    }
    config.sequential = e.sequential_run(config.alpha, config.equivalence_margin);
    config
}

impl Experiment {
    /// The sequential run the analysis of this file replays: the header's stop rule (or,
    /// for a fixed experiment extended after it ended, the default rule at `alpha` and
    /// `margin` up to its blocks), whether it was extended, and whether its last session
    /// ended on its `--time-budget` (end status `time-budget`). `None` for a fixed
    /// experiment never extended.
    pub fn sequential_run(&self, alpha: f64, margin: f64) -> Option<SequentialRun> {
        let h = &self.header;
        let extended = !h.extended.is_empty();
        let rule = match &h.stop_rule {
            Some(r) => r.to_rule(),
            None if extended => SequentialRule {
                max_blocks: h.blocks,
                ..SequentialRule::new(alpha, margin)
            },
            None => return None,
        };
        let budget_ended = self
            .end
            .as_ref()
            .is_some_and(|t| t.status == EndStatus::TimeBudget);
        Some(SequentialRun {
            rule,
            extended,
            budget_ended,
        })
    }
}

/// The remark for an experiment extended after it had ended.
fn extended_warning(header: &RawHeader) -> Option<Warning> {
    let first = header.extended.first()?;
    Some(Warning::new(
        WarningCode::Extended,
        None,
        format!(
            "the experiment was extended after it had ended (from {} to {} planned blocks{}): every added block is a further look, so the verdict comes from the confidence sequence over all blocks, not from a fixed-sample interval",
            first.from_blocks,
            header.blocks,
            if header.extended.len() > 1 {
                format!(", {} extensions", header.extended.len())
            } else {
                String::new()
            }
        ),
    ))
}

/// The looks a resumed experiment may have had: one per session that wrote runs.
fn resumed_warning(runs: &Runs) -> Option<Warning> {
    let sessions = runs.iter().map(|r| r.session).max()? + 1;
    (sessions > 1).then(|| {
        Warning::new(
            WarningCode::Resumed,
            None,
            format!(
                "the runs were recorded in {sessions} sessions (resumed {} time(s)): if the data were analysed between sessions, each analysis was a look, and a verdict reached after several looks has more than alpha chance of a false positive",
                sessions - 1
            ),
        )
    })
}

/// A reader's remark as an analysis warning, coded by its kind.
fn read_warning(w: &ReadWarning) -> Warning {
    let code = match w.kind {
        ReadWarningKind::UnpairedSessions => WarningCode::UnpairedSessions,
        ReadWarningKind::IncompleteBlocks => WarningCode::IncompleteBlocks,
        ReadWarningKind::Truncated => WarningCode::Truncated,
        ReadWarningKind::Input => WarningCode::Input,
    };
    Warning::new(code, None, w.to_string())
}
