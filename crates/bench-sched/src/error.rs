//! The two error types: [`SchedError`] for running experiments, [`InputError`] for saved data.

use std::path::PathBuf;

/// `text` quoted for a message as a shell user would write it: in single quotes, or in
/// double quotes when it holds a single quote (never with Rust's `\"` escapes).
pub(crate) fn quote_for_humans(text: &str) -> String {
    if !text.contains('\'') {
        format!("'{text}'")
    } else if !text.contains('"') {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Why an experiment could not be planned, run or recorded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchedError {
    /// The configuration cannot produce an experiment (no variants, zero blocks, ...).
    #[error("invalid experiment configuration: {0}")]
    Config(#[from] crate::experiment::ConfigError),
    /// A command string could not be split into words.
    #[error("cannot parse command {}: {message}", quote_for_humans(command))]
    CommandSyntax {
        /// The command as given.
        command: String,
        /// What is wrong with it.
        message: String,
    },
    /// A command uses shell syntax but runs without a shell.
    #[error(
        "command {} contains shell syntax ({token}) but no shell is used; it must run through a shell (`sh -c`)",
        quote_for_humans(command)
    )]
    ShellSyntaxWithoutShell {
        /// The command as given.
        command: String,
        /// The shell token found.
        token: String,
    },
    /// A program named by a command does not exist or is not executable.
    #[error("program {program:?} (variant {variant}) was not found or is not executable")]
    ProgramNotFound {
        /// The variant whose command names it.
        variant: String,
        /// The program as written.
        program: String,
    },
    /// The raw output file could not be created or written.
    #[error("cannot write {}: {source}", path.display())]
    Output {
        /// The output file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A child process could not be started or waited for.
    #[error("cannot run variant {variant}: {source}")]
    Spawn {
        /// The variant being run.
        variant: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A benchmarked command exited with a non-zero status or was killed.
    #[error(
        "variant {variant} failed in block {} ({status}){}",
        u64::from(*block) + 1,
        tail_suffix(stderr_tail)
    )]
    RunFailed {
        /// The variant that failed.
        variant: String,
        /// The block it ran in (0-based, as in the raw file; messages print it 1-based).
        block: u32,
        /// `exit code N` or `killed by signal N`.
        status: String,
        /// The last bytes of its standard error.
        stderr_tail: String,
    },
    /// A warm-up run (untimed, before the measured runs) failed or timed out.
    #[error(
        "variant {variant} failed in a warm-up run, before any measured run ({status}){}",
        tail_suffix(stderr_tail)
    )]
    WarmupFailed {
        /// The variant that failed.
        variant: String,
        /// `exit code N`, `killed by signal N` or `timed out`.
        status: String,
        /// The last bytes of its standard error.
        stderr_tail: String,
    },
    /// A benchmarked command ran longer than the timeout and was killed.
    #[error(
        "variant {variant} timed out in block {} after {timeout_ms} ms{}",
        u64::from(*block) + 1,
        tail_suffix(stderr_tail)
    )]
    TimedOut {
        /// The variant that timed out.
        variant: String,
        /// The block it ran in (0-based, as in the raw file; messages print it 1-based).
        block: u32,
        /// The timeout in milliseconds.
        timeout_ms: u128,
        /// The last bytes of its standard error.
        stderr_tail: String,
    },
    /// A hook command (`--setup`, `--prepare`, `--conclude`, `--cleanup`) failed or timed
    /// out: a failure of the run it belongs to.
    #[error(
        "the {hook} hook of variant {variant} failed {place} ({status}){}",
        tail_suffix(stderr_tail)
    )]
    HookFailed {
        /// Which hook.
        hook: crate::experiment::HookKind,
        /// The variant it belongs to.
        variant: String,
        /// Where: `in block N` or `in a warm-up`.
        place: String,
        /// `exit code N`, `killed by signal N` or `timed out`.
        status: String,
        /// The last bytes of its standard error.
        stderr_tail: String,
    },
    /// The `json:FIELD` metric could not be read from the command's output.
    #[error("variant {variant} in block {}: {message}", u64::from(*block) + 1)]
    Metric {
        /// The variant whose output was read.
        variant: String,
        /// The block it ran in (0-based, as in the raw file; messages print it 1-based).
        block: u32,
        /// What was missing or wrong.
        message: String,
    },
    /// The experiment was stopped by a signal (or [`crate::InterruptFlag::request_stop`]).
    #[error("interrupted by signal {signal}")]
    Interrupted {
        /// The signal number (2 for SIGINT, 15 for SIGTERM).
        signal: i32,
    },
    /// `--resume` was given a file that does not belong to this experiment.
    #[error("cannot resume {}: {message}", path.display())]
    ResumeMismatch {
        /// The raw file.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// `--resume` was given a file that cannot be read.
    #[error(transparent)]
    ResumeInput(#[from] InputError),
    /// Installing the SIGINT/SIGTERM handlers failed.
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
}

fn tail_suffix(tail: &str) -> String {
    let t = tail.trim_end();
    if t.is_empty() {
        String::new()
    } else {
        format!("; stderr ends with:\n{t}")
    }
}

/// Why saved data (raw JSONL, CSV, hyperfine JSON) could not be read.
///
/// `Display` starts with `FILE:LINE:COLUMN:` (or fewer parts when they are unknown), e.g.
/// `data.csv:3:2: value "abc" is not a number`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file name as given.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A problem located in the file.
    #[error("{}: {message}", location(file, *line, *column))]
    Invalid {
        /// The file name as given.
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// 1-based column (CSV: field number; JSON: character column), when known.
        column: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// Several files cannot be combined (different metrics or units).
    #[error("cannot combine {first} and {second}: {message}")]
    Incompatible {
        /// The first file.
        first: String,
        /// The file that does not fit.
        second: String,
        /// What differs.
        message: String,
    },
    /// Raw files of different experiments were given together: pooling them as one
    /// experiment would compare unlike things.
    #[error(
        "{second} is not the experiment of {first}: its {field} is {second_value}, not {first_value} (files of different experiments are not pooled)"
    )]
    DifferentExperiments {
        /// The first file (whose experiment the others must match).
        first: String,
        /// The file that differs.
        second: String,
        /// The header field that differs: `experiment`, `design`, `metric`, `unit`,
        /// `higher_is_better`, `variants` or `commands`.
        field: &'static str,
        /// The first file's value.
        first_value: String,
        /// The differing file's value.
        second_value: String,
    },
}

impl InputError {
    pub(crate) fn at(
        file: &str,
        line: Option<usize>,
        column: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        InputError::Invalid {
            file: file.to_owned(),
            line,
            column,
            message: message.into(),
        }
    }
}

fn location(file: &str, line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        (Some(l), None) => format!("{file}:{l}"),
        _ => file.to_owned(),
    }
}

/// A non-fatal remark made while reading saved data (dropped truncated lines, incomplete
/// blocks, sessions merged without pairing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadWarning {
    /// What kind of remark it is (match on this, not on the message).
    pub kind: ReadWarningKind,
    /// The file concerned.
    pub file: String,
    /// The line concerned, when there is one.
    pub line: Option<usize>,
    /// What happened, for people.
    pub message: String,
}

/// What a [`ReadWarning`] is about; [`ReadWarningKind::code`] names it stably.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReadWarningKind {
    /// Several files were merged: unpaired across sessions, blocks and reference values
    /// ignored.
    UnpairedSessions,
    /// A block lacks runs (a variant or the reference is missing) and was dropped.
    IncompleteBlocks,
    /// The file was cut short: its unparsable last line was dropped, or a sequential run
    /// ended with unequal run counts per variant.
    Truncated,
    /// Anything else: failed runs or missing values left out, duplicate names renamed.
    Input,
}

impl ReadWarningKind {
    /// The stable code: `unpaired-sessions`, `incomplete-blocks`, `truncated` or `input`.
    pub fn code(self) -> &'static str {
        match self {
            ReadWarningKind::UnpairedSessions => "unpaired-sessions",
            ReadWarningKind::IncompleteBlocks => "incomplete-blocks",
            ReadWarningKind::Truncated => "truncated",
            ReadWarningKind::Input => "input",
        }
    }
}

impl std::fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            location(&self.file, self.line, None),
            self.message
        )
    }
}
