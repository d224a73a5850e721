//! `--record` in the binary's words: the flags into a [`bench_history::Recording`] settled
//! before anything runs ([`prepare`]), the experiment recorded after with the analysis
//! the command printed ([`record_after`], [`after`]), and the history's errors said with
//! the flag that helps. The store and the commits are `bench-history`'s.

use std::path::{Path, PathBuf};

use bench_history::{Analysed, Context, HistoryError, Labels, Recorded};
use bench_sched::Experiment;

use crate::args::history::RecordArgs;
use crate::core::exit::usage;
use crate::core::output::stderr_line;

/// A history error as the binary says it: the library's fact, with the flag that helps.
pub fn said(e: &HistoryError) -> String {
    match e {
        HistoryError::NotOurs { .. } => {
            format!("{e} (give another file with --history or ABBA_HISTORY)")
        }
        HistoryError::Missing { .. } => format!(
            "{e} (record one with --record on compare, suite or analyze, or `abba history import FILE`)"
        ),
        HistoryError::UnknownSince { .. } => format!("--since {e}"),
        HistoryError::NoCommit => format!("{e}: give --commit"),
        HistoryError::Empty { .. } => format!(
            "{e} (record into it with --record on compare, suite or analyze, or `abba history import FILE`)"
        ),
        HistoryError::Label {
            which,
            value,
            reason,
        } => format!(
            "--{which} '{}': {reason}",
            bench_report::escape_terminal(value)
        ),
        HistoryError::IsDirectory { .. }
        | HistoryError::NotADirectory { .. }
        | HistoryError::Metadata { .. }
        | HistoryError::Open { .. }
        | HistoryError::CreateDirectory { .. }
        | HistoryError::NoDirectory { .. }
        | HistoryError::ReadOnly { .. }
        | HistoryError::Sql { .. }
        | HistoryError::NoWriteAheadLog { .. }
        | HistoryError::UnknownBenchmark { .. }
        | HistoryError::ChangePoints(_)
        | HistoryError::NothingToRecord { .. }
        | HistoryError::Analysis { .. }
        | _ => e.to_string(),
    }
}

/// A history error as exit 2 ([`said`]).
pub fn word(e: HistoryError) -> anyhow::Error {
    usage(said(&e))
}

/// Where the history is: `--history`, else `$ABBA_HISTORY`, else the library's default
/// ([`bench_history::history_path`]).
pub fn resolve_path(flag: Option<&Path>) -> PathBuf {
    bench_history::history_path(flag).0
}

/// A fault-injection point for the crash test: with `ABBA_HISTORY_CRASH_AFTER_RUNS=N` set,
/// the recording process aborts (no unwinding, no cleanup: as `kill -9` would stop it)
/// while inserting run `N` of a record, inside its open transaction.
fn crash_point(run_index: usize) {
    thread_local! {
        static AT: Option<usize> = std::env::var("ABBA_HISTORY_CRASH_AFTER_RUNS")
            .ok()
            .and_then(|v| v.parse().ok());
    }
    if AT.with(|at| *at == Some(run_index)) {
        std::process::abort();
    }
}

/// The record's commits and names from the flags (`who` starts an error: `--record`,
/// `history import`); a pull request's base that a shallow clone hides is warned of.
pub fn context(who: &str, source: &str, labels: Labels<'_>) -> anyhow::Result<Context> {
    let (ctx, shallow) = Context::resolve(source, labels).map_err(|e| {
        if matches!(e, HistoryError::Label { .. }) {
            word(e)
        } else {
            usage(format!("{who}: {}", said(&e)))
        }
    })?;
    if let Some(base_ref) = shallow {
        let w = bench_report::render_shallow_base(who, &base_ref, &ctx.commit.sha);
        stderr_line(format_args!("abba: warning: {w}"));
    }
    Ok(ctx)
}

/// Says what a record did (unless `quiet`): [`Recorded::describe`].
pub fn say_recorded(path: &Path, file: &str, recorded: Recorded, ctx: &Context, quiet: bool) {
    if !quiet {
        stderr_line(format_args!("abba: {}", recorded.describe(path, file, ctx)));
    }
}

/// How the user named a history: `--history` when given, else the default store.
pub fn history_role(given: bool, default: &'static str) -> &'static str {
    if given { "--history" } else { default }
}

/// `--record`'s settings, settled before anything runs ([`bench_history::Recording`]),
/// with how the user named the history.
#[derive(Debug, Clone)]
pub struct Recording {
    inner: bench_history::Recording,
    role: &'static str,
}

impl Recording {
    /// The history file as a file no export and no raw file may replace.
    pub fn kept(&self) -> crate::core::paths::Kept<'_> {
        crate::core::paths::Kept {
            role: self.role,
            path: &self.inner.path,
        }
    }

    /// Refuses a raw runs' file (`flag`, path when given) that is the history file.
    ///
    /// # Errors
    /// Exit 2 naming both.
    pub fn refuse_as_raw(&self, raw: &[(&str, Option<&Path>)]) -> anyhow::Result<()> {
        for (flag, path) in raw {
            if let Some(path) = path {
                crate::core::paths::check_not_kept(flag, path, "the raw runs", &[self.kept()])?;
            }
        }
        Ok(())
    }
}

/// The labels of `--record` (or `history import`).
pub fn labels(args: &RecordArgs) -> Labels<'_> {
    Labels {
        commit: args.commit.as_deref(),
        base_commit: args.base_commit.as_deref(),
        branch: args.branch.as_deref(),
        bench: args.bench.as_deref(),
    }
}

/// Checks `--record` of `compare`, `suite` or `analyze` (`source`) before anything runs:
/// the commit is resolved (outside git it needs `--commit`), and the history file must be
/// an abba history, an empty file or a new path. `None` without `--record`.
///
/// # Errors
/// Exit 2 naming `--record` or `--history`; nothing is written.
pub fn prepare(args: &RecordArgs, source: &str) -> anyhow::Result<Option<Recording>> {
    if !args.record {
        return Ok(None);
    }
    let ctx = context("--record", source, labels(args))?;
    let (path, default) = bench_history::history_path(args.history.as_deref());
    let inner =
        bench_history::Recording::prepare(ctx, path, default).map_err(|e| match args.history {
            Some(_) => usage(format!("--history {}", said(&e))),
            None => usage(format!("--record: the history {}", said(&e))),
        })?;
    Ok(Some(Recording {
        inner,
        role: history_role(args.history.is_some(), "the history of --record"),
    }))
}

/// `--record` after `compare`: the experiment just run, with the analyses the command made
/// of it (`benchmarks`), recorded with the commits [`prepare`] resolved. Nothing is read
/// back or analysed again; the record names the raw file `raw_path`.
///
/// # Errors
/// Exit 2 naming the store.
pub fn record_after(
    recording: Option<&Recording>,
    experiment: &mut Experiment,
    raw_path: &Path,
    benchmarks: &[Analysed<'_>],
    quiet: bool,
) -> anyhow::Result<()> {
    let file = raw_path.display().to_string();
    after(recording, &file, quiet, |r| {
        r.record(experiment, raw_path, benchmarks, Some(crash_point))
    })
}

/// A record of `recording` made by `keep` (the library's [`bench_history::Recording`]
/// methods), said unless `quiet`; nothing without `--record`.
///
/// # Errors
/// Exit 2 naming the store.
pub fn after(
    recording: Option<&Recording>,
    file: &str,
    quiet: bool,
    keep: impl FnOnce(&bench_history::Recording) -> Result<Recorded, HistoryError>,
) -> anyhow::Result<()> {
    let Some(Recording { inner, .. }) = recording else {
        return Ok(());
    };
    let recorded = keep(inner).map_err(word)?;
    say_recorded(&inner.path, file, recorded, &inner.context, quiet);
    Ok(())
}

/// The fault-injection point of the crash test ([`crash_point`]), for the library's
/// record calls.
pub fn crash_hook() -> Option<fn(usize)> {
    Some(crash_point)
}

/// `history import`: the store opened to record into (the default one's directory created
/// when missing).
pub fn open_to_record(flag: Option<&Path>) -> anyhow::Result<(bench_history::Store, PathBuf)> {
    let (path, default) = bench_history::history_path(flag);
    let store = bench_history::open_to_record(&path, default, Some(crash_point)).map_err(word)?;
    Ok((store, path))
}

/// Checks `--record` on `analyze` before anything runs: one raw file
/// ([`bench_history::check_record_inputs`]).
pub fn check_record_inputs(args: &RecordArgs, files: &[PathBuf]) -> anyhow::Result<()> {
    if !args.record {
        return Ok(());
    }
    bench_history::check_record_inputs(files).map_err(|e| usage(format!("--record: {e}")))
}
