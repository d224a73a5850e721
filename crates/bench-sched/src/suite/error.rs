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
    /// A setting the suite cannot have.
    Invalid(String),
    /// A stop rule asked of a resumed file that ran a fixed number of blocks.
    StopRuleOnFixedResume,
    /// The stop rule's limit comes before any block at which a benchmark could decide.
    CannotDecide {
        /// The limit, in blocks.
        max_blocks: u32,
        /// Each benchmark's level (the suite's alpha over its benchmarks).
        level: f64,
        /// The fewest blocks at which a sequence at that level can decide.
        needed: u32,
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
                "the file to resume ran a fixed number of blocks, so it cannot continue under a stop rule",
            ),
            SuiteError::CannotDecide {
                max_blocks,
                level,
                needed,
            } => write!(
                f,
                "a limit of {max_blocks} blocks: each benchmark's sequence runs at level {level} and cannot decide before {needed} blocks"
            ),
        }
    }
}

impl std::error::Error for SuiteError {}
