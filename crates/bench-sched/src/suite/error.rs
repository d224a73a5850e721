//! Why a suite file cannot be read or planned.

use std::fmt;
use std::path::PathBuf;

use crate::error::SchedError;
use crate::experiment::ConfigError;

/// Why a suite file cannot be read, or its experiment planned. Every error the file is at
/// fault for names the file, and its line and column where it has them.
#[derive(Debug)]
#[non_exhaustive]
pub enum SuiteError {
    /// The file cannot be read.
    Read {
        /// The suite file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A value of the file at a place: `FILE:LINE:COL: message`.
    At {
        /// The suite file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file as a whole: `FILE: message`.
    File {
        /// The suite file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A benchmark's command or hook does not parse.
    Command {
        /// The file, line and column of the command, when it has one.
        at: Option<(PathBuf, usize, usize)>,
        /// Which benchmark (and variant, or hook).
        context: String,
        /// The parser's error.
        source: Box<SchedError>,
    },
    /// The planned experiment is invalid.
    Config(Box<ConfigError>),
    /// A flag's value the suite cannot have: the message starts with the flag (`--only x:
    /// no benchmark matches ...`) and says what to give instead.
    Invalid(String),
    /// A stop rule (`--until decided`) asked of a resumed file (`--resume`) that ran a
    /// fixed number of blocks.
    StopRuleOnFixedResume,
    /// The stop rule's limit (`--max-blocks`) comes before any block at which a benchmark
    /// could decide.
    CannotDecide {
        /// The limit, in blocks.
        max_blocks: u32,
        /// Each benchmark's level (the suite's alpha over its benchmarks).
        level: f64,
        /// The fewest blocks at which a sequence at that level can decide (or
        /// `--min-blocks`, when it asks for more).
        needed: u32,
        /// The suite's alpha the level comes from, or `None` when it is a resumed file's.
        alpha: Option<f64>,
        /// The benchmarks the alpha is shared over.
        benchmarks: usize,
        /// `--min-blocks`, when it and not the level makes `needed`.
        min_blocks: Option<u32>,
    },
}

impl SuiteError {
    /// The message with the command parser's error worded by `command` (a binary names its
    /// own flags there, such as `--shell sh`).
    pub fn to_string_with(&self, command: impl Fn(&SchedError) -> String) -> String {
        match self {
            SuiteError::Command {
                at: Some((path, line, column)),
                context,
                source,
            } => format!(
                "{}:{line}:{column}: {context}: {}",
                path.display(),
                command(source)
            ),
            SuiteError::Command {
                at: None,
                context,
                source,
            } => format!("{context}: {}", command(source)),
            SuiteError::Read { .. }
            | SuiteError::At { .. }
            | SuiteError::File { .. }
            | SuiteError::Config(_)
            | SuiteError::Invalid(_)
            | SuiteError::StopRuleOnFixedResume
            | SuiteError::CannotDecide { .. } => self.to_string(),
        }
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteError::Read { path, source } => {
                let hint = if source.kind() == std::io::ErrorKind::NotFound {
                    " (write one: see `abba suite --help`, or pass the suite file's path)"
                } else {
                    ""
                };
                write!(
                    f,
                    "cannot read the suite file {}: {source}{hint}",
                    path.display()
                )
            }
            SuiteError::At {
                path,
                line,
                column,
                message,
            } => write!(f, "{}:{line}:{column}: {message}", path.display()),
            SuiteError::File { path, message } => write!(f, "{}: {message}", path.display()),
            SuiteError::Command { .. } => f.write_str(&self.to_string_with(|e| e.to_string())),
            SuiteError::Config(e) => write!(f, "{}", SchedError::Config((**e).clone())),
            SuiteError::Invalid(message) => f.write_str(message),
            SuiteError::StopRuleOnFixedResume => f.write_str(
                "--until decided: the file to --resume ran a fixed number of blocks, so it cannot continue under a stop rule; resume it without --until (or give --blocks to extend it)",
            ),
            SuiteError::CannotDecide {
                max_blocks,
                needed,
                min_blocks: Some(min),
                ..
            } if min == needed => write!(
                f,
                "--min-blocks {min} with --max-blocks {max_blocks}: no look comes before block {min}, after the limit; give --max-blocks {min} or more, or a smaller --min-blocks"
            ),
            SuiteError::CannotDecide {
                max_blocks,
                level,
                needed,
                alpha,
                benchmarks,
                ..
            } => {
                let over = match alpha {
                    Some(a) if *benchmarks > 1 && level < a => {
                        format!("--alpha {a} over {benchmarks} benchmarks")
                    }
                    Some(a) => format!("--alpha {a}"),
                    None => "the resumed file's".to_owned(),
                };
                write!(
                    f,
                    "--max-blocks {max_blocks}: each benchmark's sequence runs at level {level} ({over}) and cannot decide before {needed} blocks: give --max-blocks {needed} or more"
                )
            }
        }
    }
}

impl std::error::Error for SuiteError {}
