//! Where `abba compare` and `abba suite` stream their raw runs (the `--resume` file, a new
//! `--output` file, or a temporary one), and how their errors name what is kept there.

use std::path::{Path, PathBuf};

use bench_sched::{ExperimentConfig, FailureKind, RawKept, RawWriter, SchedError};

use crate::core::exit::{Exit, usage};
use crate::core::stdio::stderr_line;

/// A failed experiment's error with what its raw file `raw` keeps, its exit code by its
/// kind ([`SchedError::kind`]).
pub(crate) fn sched_error(error: SchedError, raw: &Path, fresh: bool) -> anyhow::Error {
    let kept = raw_kept(raw, fresh);
    let held = kept.is_ok();
    let kept = kept.unwrap_or_else(|why| why);
    match error.kind() {
        FailureKind::Command => anyhow::Error::new(Exit::CommandFailed(format!(
            "{error}\n{kept} (use --ignore-failure to record failures and go on)"
        ))),
        FailureKind::Interrupted { signal } => {
            let resume = if held {
                format!("; continue with: abba compare --resume {}", quoted(raw))
            } else {
                String::new()
            };
            anyhow::Error::new(Exit::Interrupted {
                signal,
                message: format!("interrupted by signal {signal}; {kept}{resume}"),
            })
        }
        FailureKind::Input | _ => usage(format!("{error}\n{kept}")),
    }
}

/// What a failed or interrupted experiment leaves ([`RawKept::check`]): `Ok` naming the
/// raw file that holds its runs; `Err` saying why there is none.
pub(crate) fn raw_kept(raw: &Path, fresh: bool) -> Result<String, String> {
    match RawKept::check(raw, fresh) {
        kept @ RawKept::Kept(_) => Ok(kept.to_string()),
        other @ (RawKept::Gone(_) | RawKept::NothingMeasured(_) | RawKept::Empty(_) | _) => {
            Err(other.to_string())
        }
    }
}

/// A path as a shell reads it back (quoted when it holds spaces, `;`, quotes, ...), for
/// the commands abba suggests.
pub(crate) fn quoted(path: &Path) -> String {
    shell_words::quote(&path.to_string_lossy()).into_owned()
}

/// An error after the runs (analysis, report, export) with the raw file named, its exit
/// code unchanged.
pub(crate) fn naming_raw_file(error: anyhow::Error, raw: &Path) -> anyhow::Error {
    let note = match raw_kept(raw, false) {
        Ok(_) => format!(
            "{error:#}\nthe raw runs are kept in {} (abba analyze {} reports them again)",
            raw.display(),
            quoted(raw)
        ),
        Err(why) => format!("{error:#}\n{why}"),
    };
    match error.downcast_ref::<Exit>() {
        Some(Exit::CommandFailed(_)) => anyhow::Error::new(Exit::CommandFailed(note)),
        Some(Exit::Interrupted { signal, .. }) => anyhow::Error::new(Exit::Interrupted {
            signal: *signal,
            message: note,
        }),
        _ => usage(note),
    }
}

/// Where a command's raw runs go when it does not resume ([`bench_sched::RawOutput`]), and
/// `--quiet`.
#[derive(Debug)]
pub(crate) struct RawOutput<'a> {
    /// `--output`, if given.
    pub path: Option<&'a Path>,
    /// `--force`.
    pub force: bool,
    /// `--quiet`.
    pub quiet: bool,
    /// The command a hint tells the user to continue a file with, before its path.
    pub resume_command: String,
}

impl RawOutput<'_> {
    fn library(&self) -> bench_sched::RawOutput<'_> {
        bench_sched::RawOutput {
            path: self.path,
            force: self.force,
            resume_command: self.resume_command.clone(),
        }
    }
}

/// The raw file the runs stream to, created and locked now that every check has passed
/// ([`bench_sched::RawOutput::open`]), with its notes on stderr unless quiet. Returns the
/// writer, its path, and whether it is temporary.
pub(crate) fn open_raw(
    out: &RawOutput<'_>,
    config: &ExperimentConfig,
) -> anyhow::Result<(RawWriter, PathBuf, bool)> {
    let opened = out
        .library()
        .open(config)
        .map_err(|e| usage(e.to_string()))?;
    if !out.quiet {
        let resumed = config.resume.iter().flat_map(bench_sched::resume_notes);
        for note in opened.note.into_iter().chain(resumed) {
            stderr_line(format_args!("abba: note: {note}"));
        }
    }
    Ok((opened.writer, opened.path, opened.temporary))
}

/// Refuses an `--output` that cannot hold the raw runs, without opening it
/// ([`bench_sched::RawOutput::check`]).
pub(crate) fn check_output(out: &RawOutput<'_>, config: &ExperimentConfig) -> anyhow::Result<()> {
    out.library()
        .check(config)
        .map_err(|e| usage(e.to_string()))
}
