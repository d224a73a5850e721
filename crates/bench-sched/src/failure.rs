//! What kind of failure a [`SchedError`] is ([`FailureKind`]), so a front end decides its
//! exit code from the error, not from its words.

use crate::error::SchedError;

/// Whose fault a [`SchedError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// What was asked cannot run: the configuration, a command's words, a missing
    /// program, a file that cannot be written or resumed.
    Input,
    /// A benchmarked command (or its hook) failed, timed out, could not be started, or
    /// gave no metric.
    Command,
    /// A signal stopped the experiment.
    Interrupted {
        /// The signal number.
        signal: i32,
    },
}

impl SchedError {
    /// Whose fault this error is ([`FailureKind`]).
    pub fn kind(&self) -> FailureKind {
        match self {
            SchedError::RunFailed { .. }
            | SchedError::WarmupFailed { .. }
            | SchedError::HookFailed { .. }
            | SchedError::TimedOut { .. }
            | SchedError::Metric { .. }
            | SchedError::Spawn { .. } => FailureKind::Command,
            SchedError::Interrupted { signal } => FailureKind::Interrupted { signal: *signal },
            SchedError::Config(_)
            | SchedError::CommandSyntax { .. }
            | SchedError::ShellSyntaxWithoutShell { .. }
            | SchedError::ProgramNotFound { .. }
            | SchedError::Output { .. }
            | SchedError::ResumeMismatch { .. }
            | SchedError::ResumeInput(_)
            | SchedError::Signals(_) => FailureKind::Input,
        }
    }
}
