//! # bench-sched: turning variants into runs, and saved runs back into data
//!
//! - **Designs** ([`Design`], [`Schedule`]): ABBA/BAAB blocks (Williams squares for more
//!   than two variants), random permutations per block, or the unpaired sequential baseline;
//!   pure functions of (variants, blocks, seed), printable for `--dry-run`.
//! - **Layout** ([`Layout`]): seeded environment padding ([`LAYOUT_ENV_VAR`]) per run.
//! - **Runners** ([`Runner`], [`RealRunner`], [`FakeRunner`]): one run of a [`CommandSpec`],
//!   measured ([`RunMeasurement`]: wall, user, sys, max RSS, exit), with timeouts, CPU
//!   pinning ([`CpuSet`]) and process-group kills.
//! - **The loop** ([`run_experiment`], [`ExperimentConfig`], [`Hooks`], [`Observer`],
//!   [`InterruptFlag`], [`ResumePoint`]): warm-up, hooks, schedule, failures, Ctrl-C,
//!   resume.
//! - **The record** ([`Experiment`]: [`RawHeader`], [`RunRecord`]s, [`RawTrailer`]): one
//!   experiment as its raw file holds it, whether read back or just measured, with the one
//!   [`Experiment::to_dataset`]. Every named value of the header (design, metric, layout,
//!   ...) is an enum written as the same text the file has always held.
//! - **Raw JSONL** ([`RawWriter`], [`read_raw`]): the `abba.raw/1` file, streamed run by
//!   run and read back tolerant of a cut-off tail.
//! - **Importers** ([`load_files`], [`read_csv`], [`read_hyperfine`]): CSV and hyperfine
//!   JSON into a [`bench_stats::Dataset`]; errors ([`InputError`]) name file, line, column.
//! - **CSV exports** ([`runs_csv`], [`summary_csv`]): the analysed runs (readable again as
//!   CSV input) or one summary row per benchmark.
//! - **Host facts** ([`HostFacts`]) for the header.
//! - **The whole analysis** ([`analyze_input`], [`Input`]): saved or fresh runs into the
//!   complete `abba.analysis/1` result, controls and run-level warnings included; the one
//!   entry point `abba compare`, `abba analyze` and the xtask commands share.
//!
//! ```
//! use bench_sched::*;
//! let config = ExperimentConfig {
//!     variants: vec![
//!         Variant { name: "A".into(), command: CommandSpec::parse("./a --fast", Shell::None)? },
//!         Variant { name: "B".into(), command: CommandSpec::parse("./b --fast", Shell::None)? },
//!     ],
//!     blocks: 4,
//!     seed: 7,
//!     ..ExperimentConfig::default()
//! };
//! print!("{}", config.schedule()); // block 1: 0 1 1 0 ...
//! let mut runner = FakeRunner::new();
//! let mut sink = RawWriter::to_writer(Vec::new(), "memory");
//! let stop = InterruptFlag::new(); // a binary uses InterruptFlag::from_signals()?
//! let outcome = run_experiment(&config, &stop, &mut runner, &mut sink, &mut NoopObserver)?;
//! let loaded = outcome.to_dataset();
//! assert_eq!(loaded.dataset.series[0].observations.len(), 8); // 2 per block
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Harness overhead
//!
//! Per run [`RealRunner`] spawns the command with `posix_spawn` (a `pre_exec` hook only
//! with `--pin`), waits for its exit in one `poll` (a pidfd where the kernel has one) and
//! reaps it with `wait4`, starting no thread; the timed window holds the spawn and the
//! wait, so its wall time is comparable with hyperfine's `-N`. The
//! measured ratio to hyperfine and the harness's cost outside the window are in
//! `docs/performance.md`, beside their command (`cargo bench -p bench-sched --bench
//! overhead`).
#![deny(missing_docs)]
// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod counter;
mod cpus;
mod design;
mod duration;
mod error;
mod experiment;
mod export;
mod failure;
mod host;
mod import;
mod interrupt;
mod layout;
mod pipeline;
mod raw;
mod rng;
mod runner;
mod scan;
mod suite;
mod sys;

pub use crate::counter::{
    CachegrindError, CountError, CountEvent, CountedRun, CounterChoice, CounterError,
    CounterParseError, CounterProbe, CounterSource, CounterUnavailable, Counting, Counts,
    FakeCounting, FakeProbe, INSTALL_VALGRIND, Pmu, PmuRefusal, SelectedCounter, SystemProbe,
    Valgrind, choose_counter, counting_for, parse_cachegrind_out, select_counter,
};
pub use crate::cpus::{CpuListError, CpuSet, MAX_CPU};
pub use crate::design::{
    Design, DesignParseError, Pairing, PlannedRun, ReferenceRuns, Schedule, Target,
};
pub use crate::duration::{DurationParseError, parse_duration, parse_duration_with_unit};
pub use crate::error::{InputError, ReadWarning, ReadWarningKind, SchedError};
pub use crate::experiment::{
    BudgetFit, BuildError, ConfigError, DEFAULT_BLOCKS, ExperimentBuilder, ExperimentConfig,
    FailurePolicy, HookKind, HookSpecError, HookTexts, Hooks, Identity, MAX_BLOCKS,
    MAX_RUNS_PER_BLOCK, MAX_SCHEDULED_RUNS, MAX_WARMUP, Mismatch, NameError, NoopObserver,
    NotResumable, Observer, REFERENCE_NAME, ResumePoint, ScanParameter, Until, Variant,
    run_experiment, variant_names,
};
pub use crate::export::{
    CsvExport, RUNS_CSV_COLUMNS, SUMMARY_CSV_COLUMNS, csv_exports, runs_csv, summary_csv,
};
pub use crate::failure::FailureKind;
pub use crate::host::{HostFacts, load_average, rfc3339_utc};
pub use crate::import::{
    CsvOptions, InputFormat, Loaded, MergePolicy, detect_format, is_raw_file, load_files,
    merge_sessions, read_csv, read_csv_bytes, read_hyperfine, read_hyperfine_bytes,
};
pub use crate::interrupt::{InterruptFlag, SIGHUP, SIGINT, SIGTERM};
pub use crate::layout::{LAYOUT_ENV_VAR, Layout, LayoutParseError, MAX_LAYOUT_PAD};
pub use crate::pipeline::{
    Beside, ConfirmError, Confirmation, Input, MetricUnavailable, NATIVE_BLOCKS, NativeFileError,
    NativeTiming, NothingToAnalyze, Pilot, PilotError, RepeatedInput, SuiteAnalysis,
    SuiteAnalysisError, SuiteData, analyze_input, analyze_suite_data, analyze_suite_experiment,
    diagnose_noise, native_path, recorded_metrics, repeated_input, suite_data, suite_noise,
};
pub use crate::raw::{
    AllRunsFailed, DERIVED_ID_PREFIX, EndStatus, Experiment, LabelError, MAX_LABEL_CHARS,
    OpenedRaw, OutputRefusal, RAW_SCHEMA, RawExtension, RawHeader, RawHooks, RawKept, RawLook,
    RawOutput, RawSequence, RawShard, RawStopRule, RawSuiteBenchmark, RawTrailer, RawVariant,
    RawWriter, ReferencePlacement, Run, RunRecord, Runs, RunsIter, SequenceStop, StopRuleKind,
    derived_experiment_id, parse_label, read_raw, read_raw_bytes, resume_notes, this_host_name,
};
pub use crate::runner::{
    CommandSpec, FakeCall, FakeRunner, MAX_JSON_LINE_BYTES, Metric, MetricParseError, OutputMode,
    RealRunner, RunMeasurement, RunRequest, Runner, STDERR_TAIL_BYTES, Shell, Termination,
};
pub use crate::scan::{MAX_VARIANTS, ScanError, ScanExpansion, ScanInput, ScanSpec};
pub use crate::suite::{
    BenchmarkData, BenchmarkEntry, GateRequest, MAX_SUITE_FILE_BYTES, SUITE_BLOCKS, Settings,
    Shard, ShardError, StopRequest, Suite, SuiteBenchmark, SuiteError, SuiteFile, SuiteOptions,
    SuitePlan, SuiteRequest, SuiteSession, SuiteSpec, Variants, analyze_suite_run,
    cross_class_analysis, expand_command, glob, merge_shards, suite_digest, suite_gates,
    suite_metric, suite_stop, suite_stop_rule,
};
