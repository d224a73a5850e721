//! # bench-sched: turning variants into runs, and saved runs back into data
//!
//! - **Designs** ([`Design`], [`Schedule`]): ABBA/BAAB blocks (Williams squares for more
//!   than two variants), random permutations per block, or the unpaired sequential baseline;
//!   pure functions of (variants, blocks, seed), printable for `--dry-run`.
//! - **Layout** ([`Layout`]): seeded environment padding ([`LAYOUT_ENV_VAR`]) per run.
//! - **Runners** ([`Runner`], [`RealRunner`], [`FakeRunner`]): one run of a [`CommandSpec`],
//!   measured ([`RunMeasurement`]: wall, user, sys, max RSS, exit), with timeouts, CPU
//!   pinning ([`CpuSet`]) and process-group kills.
//! - **The loop** ([`run_experiment`], [`ExperimentConfig`], [`Observer`],
//!   [`InterruptFlag`], [`ResumePoint`]): warm-up, schedule, failures, Ctrl-C, resume.
//! - **Raw JSONL** ([`RawWriter`], [`read_raw`], [`RawData::to_dataset`]): the
//!   `abba.raw/1` file, streamed run by run and read back tolerant of a cut-off tail.
//! - **Importers** ([`load_files`], [`read_csv`], [`read_hyperfine`]): CSV and hyperfine
//!   JSON into a [`bench_stats::Dataset`]; errors ([`InputError`]) name file, line, column.
//! - **Host facts** ([`HostFacts`]) for the header.
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
//! print!("{}", config.schedule()); // block 0: 0 1 1 0 ...
//! let mut runner = FakeRunner::new();
//! let mut sink = RawWriter::to_writer(Vec::new(), "memory");
//! let outcome = run_experiment(&config, &mut runner, &mut sink, &mut NoopObserver)?;
//! let loaded = outcome.to_dataset();
//! assert_eq!(loaded.dataset.series[0].observations.len(), 8); // 2 per block
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Harness overhead
//!
//! `cargo bench -p bench-sched --bench overhead` (`benches/overhead.rs`) runs `true` 1000
//! times through [`RealRunner`] and then `hyperfine -N --warmup 20 --runs 1000
//! --export-json` (hyperfine 1.15.0) on the same command, and prints mean and median wall
//! time per run. Figures on the shared 2-core build machine, while other builds ran (load
//! average 4 to 6, so only the order of magnitude is meaningful):
//!
//! | run | RealRunner mean / median | hyperfine -N mean / median | ratio of means |
//! | --- | --- | --- | --- |
//! | 1 | 1421.6 / 939.3 µs | 953.9 µs / – | 1.49 |
//! | 2 | 2851.5 / 1476.7 µs | 3420.1 / 2172.6 µs | 0.83 |
//!
//! The harness's own cost per run outside the measured interval (loop time minus measured
//! wall) was 27 to 53 µs. Per run it spawns with `posix_spawn`-style `Command` (no
//! `pre_exec` unless `--pin`), waits with `waitid`/`wait4`, and starts no thread unless a
//! timeout is set, so its measured wall time is in the same range as hyperfine's.
#![deny(missing_docs)]

mod cpus;
mod design;
mod error;
mod experiment;
mod host;
mod import;
mod interrupt;
mod layout;
mod raw;
mod rng;
mod runner;
mod sys;

pub use crate::cpus::{CpuListError, CpuSet, MAX_CPU};
pub use crate::design::{
    Design, DesignParseError, Pairing, PlannedRun, ReferenceRuns, Schedule, Target,
};
pub use crate::error::{InputError, ReadWarning, SchedError};
pub use crate::experiment::{
    ExperimentConfig, FailurePolicy, NoopObserver, Observer, Outcome, REFERENCE_NAME, ResumePoint,
    Variant, run_experiment,
};
pub use crate::host::{HostFacts, load_average, rfc3339_utc};
pub use crate::import::{
    CsvOptions, InputFormat, Loaded, detect_format, load_files, merge_sessions, read_csv,
    read_csv_bytes, read_hyperfine, read_hyperfine_bytes,
};
pub use crate::interrupt::{InterruptFlag, SIGINT, SIGTERM};
pub use crate::layout::{LAYOUT_ENV_VAR, Layout, LayoutParseError, MAX_LAYOUT_PAD};
pub use crate::raw::{
    RAW_SCHEMA, RawData, RawHeader, RawTrailer, RawVariant, RawWriter, RunRecord, read_raw,
    read_raw_bytes,
};
pub use crate::runner::{
    CommandSpec, FakeCall, FakeRunner, Metric, MetricParseError, OutputMode, RealRunner,
    RunMeasurement, RunRequest, Runner, STDERR_TAIL_BYTES, Shell, Termination,
};
