//! Why `abba compare --resume` does not continue a file: a suite's, one whose sequential
//! rule decided, one already complete.

use std::fmt;

use super::{ExperimentConfig, ResumePoint};

/// Why a resumed file is not continued by a plain experiment; its `Display` says what to
/// do instead (after the file's name, which the caller says with its flag).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotResumable {
    /// A suite's raw file (its benchmarks): `abba suite` continues it, with its suite file.
    SuiteFile {
        /// The suite's benchmarks.
        benchmarks: Vec<String>,
        /// The file, quoted for a shell.
        quoted: String,
    },
    /// The sequential rule decided after `at` blocks and the plan does not extend it.
    Decided {
        /// The blocks after which it decided.
        at: u32,
        /// The file, quoted for a shell.
        quoted: String,
    },
    /// Every planned run is in the file.
    Complete {
        /// The file, quoted for a shell.
        quoted: String,
    },
}

impl fmt::Display for NotResumable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotResumable::SuiteFile { benchmarks, quoted } => write!(
                f,
                "the file is a suite's raw file (benchmarks {}), which abba compare does not continue; continue it with `abba suite <its suite file> --resume {quoted}`",
                benchmarks.join(", ")
            ),
            NotResumable::Decided { at, quoted } => write!(
                f,
                "nothing to resume, the sequential rule decided after {at} blocks; report it with `abba analyze {quoted}`, or raise --max-blocks to extend it (a further look)"
            ),
            NotResumable::Complete { quoted } => write!(
                f,
                "nothing to resume, every planned run is in the file; report it with `abba analyze {quoted}`, or give more --blocks to extend it (its verdict then comes from the confidence sequence)"
            ),
        }
    }
}

impl ResumePoint {
    fn quoted(&self) -> String {
        shell_words::quote(&self.path().to_string_lossy()).into_owned()
    }

    /// [`NotResumable::SuiteFile`] when the file is a suite's (`abba compare` does not
    /// continue it: the raw file does not record its suite file's name).
    pub fn suite_refusal(&self) -> Option<NotResumable> {
        let suite = &self.header().suite;
        (!suite.is_empty()).then(|| NotResumable::SuiteFile {
            benchmarks: suite.iter().map(|b| b.name.clone()).collect(),
            quoted: shell_words::quote(&self.path().display().to_string()).into_owned(),
        })
    }

    /// Why `config` (the experiment resuming this file) would run nothing: the sequential
    /// rule decided and `config` does not extend it ([`ResumePoint::extends`]), or every
    /// run `config` plans is in the file. `None` when there is something to run.
    pub fn nothing_to_resume(&self, config: &ExperimentConfig) -> Option<NotResumable> {
        if let (Some(at), false) = (self.decided_at(), self.extends(config)) {
            return Some(NotResumable::Decided {
                at,
                quoted: self.quoted(),
            });
        }
        (self.completed_runs() >= config.schedule().runs.len()).then(|| NotResumable::Complete {
            quoted: self.quoted(),
        })
    }
}
