//! # bench-history: every experiment kept by commit, read back as series
//!
//! The history behind `abba compare --record`, `abba suite --record` and `abba history`,
//! usable without the binary:
//!
//! - [`Store`]: one SQLite file ([`MIGRATIONS`] is its schema, applied in order; a
//!   foreign or newer file is refused untouched; two writers may record at once).
//! - [`Store::record`]: an experiment and the analyses its command already made
//!   ([`Analysed`]), at the commits of a [`Context`]; each variant's level and each
//!   comparison's summary are kept, and the same experiment is kept once
//!   ([`content_hash`]). Nothing is re-read or re-analysed. A raw file read back with no
//!   analysis at hand is analysed by [`analyse`] first.
//! - [`Store::all_series`]: per benchmark and machine, the commits in history order with
//!   their levels and paired steps, the change points and the chain
//!   ([`bench_stats::history::Series`], rendered by `bench-report`).
//! - [`Recording`]: a command's record settled before it runs (the history
//!   [`history_path`] finds, the [`Context`] resolved from [`Labels`]) and kept after it
//!   with the analysis the command printed ([`Recording::record_printed`] for a file it
//!   read); [`Store::record_file`] records a raw file read back with no analysis at hand.
//! - [`git`]: the commits a record belongs to, from git; [`check_series`]: the CI check of
//!   a series, as facts.
//!
//! Record an experiment's analysis and read its series back:
//!
//! ```
//! use bench_history::{Analysed, Context, Filter, Store};
//! # use bench_sched::*;
//! # let variant = |n: &str| Ok::<_, Box<dyn std::error::Error>>(Variant { name: n.into(), command: CommandSpec::parse(n, Shell::None)? });
//! # let config = ExperimentConfig { variants: vec![variant("A")?, variant("B")?], blocks: 8, ..ExperimentConfig::default() };
//! # let mut runner = FakeRunner::new().with_script(|call, k| FakeRunner::success(if call.variant == "B" { 1_100 } else { 1_000 } + k as u64 % 7));
//! # let experiment = run_experiment(&config, &InterruptFlag::new(), &mut runner, &mut RawWriter::discard(), &mut NoopObserver)?;
//! # let dir = tempfile::tempdir()?;
//! // `experiment` was just run (bench_sched::run_experiment) and analysed:
//! let input = bench_sched::Input::from_experiment(experiment);
//! let analysis = bench_sched::analyze_input(&input, &bench_stats::AnalysisConfig::default())?;
//! let experiment = input.experiment.as_ref().expect("a run keeps its experiment");
//!
//! let mut store = Store::open(&dir.path().join("history.db"))?;
//! let context = Context { bench: Some("parse".into()), ..Context::at("example", "v1.0") };
//! store.record(experiment, &[Analysed::experiment(&input.loaded.dataset, &analysis)], &context)?;
//!
//! let series = store.all_series(Some("parse/B"), &Filter::default(), &Default::default())?;
//! let level = series[0].points[0].level.as_ref().expect("B's median run at v1.0");
//! assert!((1_100.0..1_107.0).contains(&level.median));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod analyse;
mod error;
pub mod git;
mod inputs;
mod migrations;
mod printed;
mod query;
mod record;
mod recording;
mod store;

pub use crate::analyse::{AnalysedBenchmark, analyse, cpu_twin, default_config, suite_cpu_twins};
pub use crate::error::HistoryError;
pub use crate::git::CommitInfo;
pub use crate::inputs::{RecordInputError, check_record_inputs};
pub use crate::migrations::{MIGRATIONS, schema_version};
pub use crate::printed::Printed;
pub use crate::query::{Filter, SeriesRead};
pub use crate::record::{Analysed, Context, Recorded, content_hash};
pub use crate::recording::{HISTORY_ENV, Labels, Recording, history_path, open_to_record};
pub use crate::store::{APPLICATION_ID, Store, check_recordable, default_path};
pub use bench_stats::history::{ChainCheck, ChangeState, RecentChange, SeriesCheck, check_series};
