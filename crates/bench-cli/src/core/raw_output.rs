//! Where `abba compare` and `abba suite` stream their raw runs (the `--resume` file, a new
//! `--output` file, or a temporary one), and how their errors name what is kept there.

use std::path::{Path, PathBuf};

use bench_sched::{ExperimentConfig, RawWriter, ResumePoint, SchedError};

use crate::core::exit::{Exit, usage};
use crate::core::stdio::stderr_line;

pub(crate) fn sched_error(error: SchedError, raw: &Path, fresh: bool) -> anyhow::Error {
    let kept = raw_kept(raw, fresh);
    let held = kept.is_ok();
    let kept = kept.unwrap_or_else(|why| why);
    match error {
        SchedError::RunFailed { .. }
        | SchedError::WarmupFailed { .. }
        | SchedError::HookFailed { .. }
        | SchedError::TimedOut { .. }
        | SchedError::Metric { .. }
        | SchedError::Spawn { .. } => anyhow::Error::new(Exit::CommandFailed(format!(
            "{error}\n{kept} (use --ignore-failure to record failures and go on)"
        ))),
        SchedError::Interrupted { signal } if held => anyhow::Error::new(Exit::Interrupted {
            signal,
            message: format!(
                "interrupted by signal {signal}; {kept}; continue with: abba compare --resume {}",
                quoted(raw)
            ),
        }),
        SchedError::Interrupted { signal } => anyhow::Error::new(Exit::Interrupted {
            signal,
            message: format!("interrupted by signal {signal}; {kept}"),
        }),
        SchedError::Config(_)
        | SchedError::CommandSyntax { .. }
        | SchedError::ShellSyntaxWithoutShell { .. }
        | SchedError::ProgramNotFound { .. }
        | SchedError::Output { .. }
        | SchedError::ResumeMismatch { .. }
        | SchedError::ResumeInput(_)
        | SchedError::Signals(_) => usage(format!("{error}\n{kept}")),
        _ => usage(format!("{error}\n{kept}")),
    }
}

/// What a failed or interrupted experiment leaves: `Ok` naming the raw file that holds its
/// runs; `Err` saying why there is none: the file vanished while abba ran (deleted, or its
/// directory removed), or no run was measured (a new file holding only its header and
/// end line is removed rather than described as kept data; a `--resume`d one, `fresh`
/// false, is left as it was).
pub(crate) fn raw_kept(raw: &Path, fresh: bool) -> Result<String, String> {
    let Ok(meta) = std::fs::metadata(raw) else {
        return Err(format!(
            "the raw file {} no longer exists (deleted, or its directory removed, while abba ran): the runs are lost",
            raw.display()
        ));
    };
    // An empty new file (its header never reached the disk: a full $TMPDIR) holds no run.
    let empty = meta.len() == 0;
    if fresh && (empty || bench_sched::read_raw(raw).is_ok_and(|d| d.runs.is_empty())) {
        let _ = std::fs::remove_file(raw);
        return Err(format!(
            "no run was measured, so no raw file is kept ({} removed)",
            raw.display()
        ));
    }
    if empty {
        return Err(format!(
            "the raw file {} is empty: no run reached the disk",
            raw.display()
        ));
    }
    Ok(format!("raw data so far kept in {}", raw.display()))
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

/// Where the raw runs go when `--output` is not given: a new file in `$TMPDIR`, else in
/// `/tmp`, so a failed or interrupted experiment still leaves its data somewhere (named on
/// failure, removed once the report is out). Created only after every pre-flight check.
fn temporary_raw(seed: u64, quiet: bool) -> anyhow::Result<(RawWriter, PathBuf)> {
    let tmpdir = std::env::var_os("TMPDIR").filter(|v| !v.is_empty());
    let mut dirs: Vec<PathBuf> = tmpdir.iter().map(PathBuf::from).collect();
    dirs.push(PathBuf::from("/tmp"));
    let mut tried = Vec::new();
    for dir in &dirs {
        let path = dir.join(format!("abba-{}-{seed}.jsonl", std::process::id()));
        match RawWriter::create_new(&path) {
            Ok(writer) => {
                if !quiet && tmpdir.is_some() && Some(dir.as_os_str()) != tmpdir.as_deref() {
                    stderr_line(format_args!(
                        "abba: note: TMPDIR ({}) cannot take a file; the raw runs go to {}",
                        dirs[0].display(),
                        path.display()
                    ));
                }
                return Ok((writer, path));
            }
            Err(e) => tried.push(e.to_string()),
        }
    }
    Err(usage(format!(
        "no temporary directory can take the raw runs ({}); pass --output FILE.jsonl to choose where they go",
        tried.join("; ")
    )))
}

/// Where a command's raw runs go when it does not resume: the `--output` file (an
/// existing one only with `force`), else a temporary file; and how its messages name the
/// command that resumes it (`abba compare --resume`, `abba suite FILE --resume`).
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

/// The raw file the runs stream to, created and locked now that every check has passed:
/// the `--resume` file (cut after its last complete block), a new `--output` file (an
/// existing one only with `--force`), or a temporary file. Returns the writer, its path,
/// and whether it is temporary.
pub(crate) fn open_raw(
    out: &RawOutput<'_>,
    config: &ExperimentConfig,
) -> anyhow::Result<(RawWriter, PathBuf, bool)> {
    if let Some(point) = &config.resume {
        let writer = point
            .open_writer(config)
            .map_err(|e| usage(e.to_string()))?;
        if !out.quiet {
            resume_note(point);
        }
        return Ok((writer, point.path().to_owned(), false));
    }
    let Some(path) = out.path else {
        let (writer, path) = temporary_raw(config.seed, out.quiet)?;
        return Ok((writer, path, true));
    };
    check_output(out, config)?;
    let created = if out.force {
        RawWriter::create(path)
    } else {
        RawWriter::create_new(path)
    };
    match created {
        Ok(writer) => Ok((writer, path.to_owned(), false)),
        Err(SchedError::Output { source, .. })
            if source.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            Err(usage(existing_output(path, config, &out.resume_command)))
        }
        Err(e) => Err(usage(format!("--output: {e}"))),
    }
}

/// What a resume keeps aside: the unfinished block's runs (kept in the stopped session's
/// end line, measured again) and a cut-off last line (dropped).
fn resume_note(point: &ResumePoint) {
    let superseded = point.superseded_runs();
    if let Some(first) = superseded.first() {
        stderr_line(format_args!(
            "abba: note: --resume: block {} was unfinished; its {} run(s) are kept in the file (the stopped session's end line, `superseded`, not analysed) and the block runs again from its start",
            first.block + 1,
            superseded.len()
        ));
    }
    for w in point.read_warnings() {
        stderr_line(format_args!("abba: note: --resume: {w}"));
    }
}

/// Refuses an `--output` that cannot hold the raw runs, without opening it: a directory,
/// a device or a pipe (the runs must be appended, locked and resumed, and opening a pipe
/// would wait for a reader), or an existing file without `--force`.
pub(crate) fn check_output(out: &RawOutput<'_>, config: &ExperimentConfig) -> anyhow::Result<()> {
    let Some(path) = out.path else {
        return Ok(());
    };
    if config.resume.is_some() {
        return Ok(());
    }
    let shown = path.display();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(usage(format!(
            "--output {shown}: is a directory; give the raw file's path, e.g. {}",
            path.join("runs.jsonl").display()
        ))),
        Ok(m) if !m.is_file() => Err(usage(format!(
            "--output {shown}: not a regular file (a device or a pipe); the raw runs need a file they can be appended to, locked and resumed"
        ))),
        Ok(_) if !out.force => Err(usage(existing_output(path, config, &out.resume_command))),
        _ => Ok(()),
    }
}

/// Why an existing `--output` file is refused, and what to do instead.
fn existing_output(path: &Path, config: &ExperimentConfig, resume_command: &str) -> String {
    let shown = path.display();
    if RawWriter::in_use(path) {
        return format!(
            "--output {shown}: another abba is writing this file now (it holds the file's lock); wait for it to end, or choose another file"
        );
    }
    let same_experiment = bench_sched::read_raw(path).ok().map(|raw| {
        let commands: Vec<&str> = config.variants.iter().map(|v| v.command.text()).collect();
        let recorded: Vec<&str> = raw
            .header
            .variants
            .iter()
            .map(|v| v.command.as_str())
            .collect();
        (commands == recorded, raw.runs.len())
    });
    match same_experiment {
        Some((true, runs)) => format!(
            "--output {shown}: the file exists and holds {runs} runs of these commands; continue them with `{resume_command} {}`, or pass --force to overwrite it",
            quoted(path)
        ),
        Some((false, runs)) => format!(
            "--output {shown}: the file exists and holds {runs} runs of another experiment; choose another file, or pass --force to overwrite it"
        ),
        None => format!(
            "--output {shown}: the file exists; choose another file, or pass --force to overwrite it"
        ),
    }
}
