//! Why an input holds nothing to analyze.

use std::fmt;

use super::Input;

/// Why an [`Input`] holds no value to analyze ([`Input::is_empty`]); its `Display` says
/// so in one sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NothingToAnalyze {
    /// No run succeeded (or the data hold no value at all).
    NoSuccess,
    /// Some runs succeeded, but no block is complete: a block counts only when every run
    /// in it succeeded.
    NoCompleteBlock {
        /// The runs that succeeded.
        succeeded: usize,
        /// Every run.
        runs: usize,
    },
}

impl fmt::Display for NothingToAnalyze {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NothingToAnalyze::NoSuccess => f.write_str("no successful runs or values to analyze"),
            NothingToAnalyze::NoCompleteBlock { succeeded, runs } => write!(
                f,
                "no complete block to analyze: {succeeded} of {runs} runs succeeded, but every block has a failed or missing run (a block counts only when all its runs succeeded)"
            ),
        }
    }
}

impl Input {
    /// Why this input has nothing to analyze, when [`Input::is_empty`]: for runs of which
    /// some succeeded, that no block is complete; otherwise that nothing succeeded.
    /// Time: O(runs).
    pub fn nothing_to_analyze(&self) -> NothingToAnalyze {
        let Some(e) = &self.experiment else {
            return NothingToAnalyze::NoSuccess;
        };
        match e.runs.iter().filter(|r| r.succeeded()).count() {
            0 => NothingToAnalyze::NoSuccess,
            succeeded => NothingToAnalyze::NoCompleteBlock {
                succeeded,
                runs: e.runs.len(),
            },
        }
    }
}
