//! Where an experiment's raw runs go ([`RawOutput`]): the `--resume` file, a new output
//! file (an existing one only when forced), or a temporary file, refused before anything
//! runs when it cannot hold them ([`OutputRefusal`]); and what a stopped experiment left
//! there ([`RawKept`]).

use std::path::{Path, PathBuf};

use crate::error::SchedError;
use crate::experiment::{ExperimentConfig, ResumePoint};

use super::RawWriter;

/// What a failed or interrupted experiment leaves in its raw file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RawKept {
    /// The file holds runs.
    Kept(PathBuf),
    /// The file vanished while the experiment ran (deleted, or its directory removed).
    Gone(PathBuf),
    /// A new file holding no run: removed rather than described as kept data.
    NothingMeasured(PathBuf),
    /// An empty file (its header never reached the disk).
    Empty(PathBuf),
}

impl RawKept {
    /// The state of `raw`; a new (`fresh`) file that holds no run is removed (a resumed
    /// one is left as it was). Time: one read of the file when it is fresh.
    pub fn check(raw: &Path, fresh: bool) -> RawKept {
        let Ok(meta) = std::fs::metadata(raw) else {
            return RawKept::Gone(raw.to_owned());
        };
        let empty = meta.len() == 0;
        if fresh && (empty || super::read_raw(raw).is_ok_and(|d| d.runs.is_empty())) {
            let _ = std::fs::remove_file(raw);
            return RawKept::NothingMeasured(raw.to_owned());
        }
        if empty {
            return RawKept::Empty(raw.to_owned());
        }
        RawKept::Kept(raw.to_owned())
    }
}

impl std::fmt::Display for RawKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RawKept::Kept(p) => write!(f, "raw data so far kept in {}", p.display()),
            RawKept::Gone(p) => write!(
                f,
                "the raw file {} no longer exists (deleted, or its directory removed, while abba ran): the runs are lost",
                p.display()
            ),
            RawKept::NothingMeasured(p) => write!(
                f,
                "no run was measured, so no raw file is kept ({} removed)",
                p.display()
            ),
            RawKept::Empty(p) => write!(
                f,
                "the raw file {} is empty: no run reached the disk",
                p.display()
            ),
        }
    }
}

/// Where a command's raw runs go when it does not resume: the output file (an existing
/// one only with `force`), else a temporary file; and the command that continues a file
/// (`abba compare --resume`), for the refusal of an existing one.
#[derive(Debug, Clone)]
pub struct RawOutput<'a> {
    /// The output file, if given.
    pub path: Option<&'a Path>,
    /// Replace an existing output file.
    pub force: bool,
    /// The command that continues a file, before its path.
    pub resume_command: String,
}

/// The raw file the runs stream to ([`RawOutput::open`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct OpenedRaw {
    /// The writer, holding the file's lock.
    pub writer: RawWriter,
    /// Its path.
    pub path: PathBuf,
    /// A temporary file (removed once the report is out).
    pub temporary: bool,
    /// A note for the user: `$TMPDIR` could not take the temporary file.
    pub note: Option<String>,
}

/// Why the raw runs cannot go where they were told ([`RawOutput::check`],
/// [`RawOutput::open`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputRefusal {
    /// The output is a directory.
    #[error("--output {}: is a directory; give the raw file's path, e.g. {}", path.display(), path.join("runs.jsonl").display())]
    Directory {
        /// The path.
        path: PathBuf,
    },
    /// The output is a device or a pipe.
    #[error("--output {}: not a regular file (a device or a pipe); the raw runs need a file they can be appended to, locked and resumed", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The output exists (and is not forced), or another process writes it.
    #[error("{0}")]
    Exists(String),
    /// No temporary directory can take a file.
    #[error("no temporary directory can take the raw runs ({}); pass --output FILE.jsonl to choose where they go", tried.join("; "))]
    NoTemporary {
        /// Each directory's error.
        tried: Vec<String>,
    },
    /// The output file cannot be created.
    #[error("--output: {0}")]
    Create(SchedError),
    /// The resumed file cannot be opened for writing.
    #[error(transparent)]
    Resume(SchedError),
}

impl RawOutput<'_> {
    /// Refuses an output that cannot hold the raw runs, without opening it: a directory, a
    /// device or a pipe (the runs must be appended, locked and resumed, and opening a pipe
    /// would wait for a reader), or an existing file without `force`. Nothing to check for
    /// a resumed experiment or without an output file.
    ///
    /// # Errors
    /// [`OutputRefusal::Directory`], [`OutputRefusal::NotAFile`] or [`OutputRefusal::Exists`].
    pub fn check(&self, config: &ExperimentConfig) -> Result<(), OutputRefusal> {
        let Some(path) = self.path.filter(|_| config.resume.is_none()) else {
            return Ok(());
        };
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(OutputRefusal::Directory {
                path: path.to_owned(),
            }),
            Ok(m) if !m.is_file() => Err(OutputRefusal::NotAFile {
                path: path.to_owned(),
            }),
            Ok(_) if !self.force => Err(self.existing(path, config)),
            _ => Ok(()),
        }
    }

    /// The raw file, created and locked now that every check has passed: the resumed file
    /// (cut after its last complete block), a new output file (an existing one only when
    /// forced), or a new file in `$TMPDIR`, else `/tmp`.
    ///
    /// # Errors
    /// [`OutputRefusal`].
    pub fn open(&self, config: &ExperimentConfig) -> Result<OpenedRaw, OutputRefusal> {
        let opened = |writer, path, temporary, note| OpenedRaw {
            writer,
            path,
            temporary,
            note,
        };
        if let Some(point) = &config.resume {
            let writer = point.open_writer(config).map_err(OutputRefusal::Resume)?;
            return Ok(opened(writer, point.path().to_owned(), false, None));
        }
        let Some(path) = self.path else {
            return temporary(config.seed);
        };
        self.check(config)?;
        let created = if self.force {
            RawWriter::create(path)
        } else {
            RawWriter::create_new(path)
        };
        match created {
            Ok(writer) => Ok(opened(writer, path.to_owned(), false, None)),
            Err(SchedError::Output { source, .. })
                if source.kind() == std::io::ErrorKind::AlreadyExists =>
            {
                Err(self.existing(path, config))
            }
            Err(e) => Err(OutputRefusal::Create(e)),
        }
    }

    /// Why an existing output file is refused, and what to do instead.
    fn existing(&self, path: &Path, config: &ExperimentConfig) -> OutputRefusal {
        let shown = path.display();
        if RawWriter::in_use(path) {
            return OutputRefusal::Exists(format!(
                "--output {shown}: another abba is writing this file now (it holds the file's lock); wait for it to end, or choose another file"
            ));
        }
        let same_experiment = super::read_raw(path).ok().map(|raw| {
            let commands: Vec<&str> = config.variants.iter().map(|v| v.command.text()).collect();
            let recorded: Vec<&str> = raw
                .header
                .variants
                .iter()
                .map(|v| v.command.as_str())
                .collect();
            (commands == recorded, raw.runs.len())
        });
        OutputRefusal::Exists(match same_experiment {
            Some((true, runs)) => format!(
                "--output {shown}: the file exists and holds {runs} runs of these commands; continue them with `{} {}`, or pass --force to overwrite it",
                self.resume_command,
                shell_words::quote(&path.to_string_lossy())
            ),
            Some((false, runs)) => format!(
                "--output {shown}: the file exists and holds {runs} runs of another experiment; choose another file, or pass --force to overwrite it"
            ),
            None => format!(
                "--output {shown}: the file exists; choose another file, or pass --force to overwrite it"
            ),
        })
    }
}

/// A new raw file in `$TMPDIR`, else in `/tmp`, so a failed or interrupted experiment
/// still leaves its data somewhere.
fn temporary(seed: u64) -> Result<OpenedRaw, OutputRefusal> {
    let tmpdir = std::env::var_os("TMPDIR").filter(|v| !v.is_empty());
    let mut dirs: Vec<PathBuf> = tmpdir.iter().map(PathBuf::from).collect();
    dirs.push(PathBuf::from("/tmp"));
    let mut tried = Vec::new();
    for dir in &dirs {
        let path = dir.join(format!("abba-{}-{seed}.jsonl", std::process::id()));
        match RawWriter::create_new(&path) {
            Ok(writer) => {
                let note =
                    (tmpdir.is_some() && Some(dir.as_os_str()) != tmpdir.as_deref()).then(|| {
                        format!(
                            "TMPDIR ({}) cannot take a file; the raw runs go to {}",
                            dirs[0].display(),
                            path.display()
                        )
                    });
                return Ok(OpenedRaw {
                    writer,
                    path,
                    temporary: true,
                    note,
                });
            }
            Err(e) => tried.push(e.to_string()),
        }
    }
    Err(OutputRefusal::NoTemporary { tried })
}

/// What a resume keeps aside, one line each: the unfinished block's runs (kept in the
/// stopped session's end line, measured again) and the reader's warnings.
pub fn resume_notes(point: &ResumePoint) -> Vec<String> {
    let superseded = point.superseded_runs();
    let mut notes: Vec<String> = superseded
        .first()
        .map(|first| {
            format!(
                "--resume: block {} was unfinished; its {} run(s) are kept in the file (the stopped session's end line, `superseded`, not analysed) and the block runs again from its start",
                first.block + 1,
                superseded.len()
            )
        })
        .into_iter()
        .collect();
    notes.extend(
        point
            .read_warnings()
            .iter()
            .map(|w| format!("--resume: {w}")),
    );
    notes
}
