//! Exit codes and the errors that carry them.

use std::fmt;

/// Why abba stopped, with the exit code the contract gives it.
#[derive(Debug)]
pub enum Exit {
    /// Bad usage or bad input: exit 2, nothing written half-way.
    Usage(String),
    /// A benchmarked command failed or timed out: exit 3, raw data kept.
    CommandFailed(String),
    /// Interrupted by SIGINT (130) or SIGTERM (143): raw data kept.
    Interrupted {
        /// The signal number.
        signal: i32,
        /// What was kept.
        message: String,
    },
}

impl Exit {
    /// The process exit code.
    pub fn code(&self) -> i32 {
        match self {
            Exit::Usage(_) => 2,
            Exit::CommandFailed(_) => 3,
            Exit::Interrupted { signal, .. } => 128 + signal,
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Usage(m) | Exit::CommandFailed(m) => f.write_str(m),
            Exit::Interrupted { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Exit {}

/// Shorthand for a usage error.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit::Usage(message.into()))
}
