//! [`RawWriter`]: streams the header and each run as one flushed JSON line.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{RawHeader, RawTrailer, RunRecord, TrailerLine};
use crate::error::SchedError;

/// Writes a raw JSONL file line by line.
///
/// Every line is flushed to the operating system as soon as it is written, so a crash or
/// Ctrl-C loses at most the run in progress. Lines are not `fsync`ed: flushing protects
/// against the process dying, which is the failure that matters here; surviving a power
/// loss is not worth a disk sync inside the measurement loop.
pub struct RawWriter {
    out: Option<BufWriter<Box<dyn Write + Send>>>,
    path: PathBuf,
    header_written: bool,
}

impl std::fmt::Debug for RawWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawWriter")
            .field("path", &self.path)
            .field("header_written", &self.header_written)
            .finish()
    }
}

/// How long a lock whose holders are all dying ([`crate::sys::lock_holders_dying`]) is
/// waited for: a killed process's teardown takes milliseconds, a loaded machine's longer.
const STALE_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Takes the exclusive lock of a raw file, or says who has it. A lock still held by a
/// process that is dying (an abba just SIGKILLed, or a child it forked that has not yet
/// `exec`ed) is waited for while its holders keep dying, so `--resume` right after a
/// `kill -9` resumes instead of calling the file taken; a live holder is refused at once.
fn lock(f: &File, path: &Path) -> Result<(), SchedError> {
    let deadline = std::time::Instant::now() + STALE_LOCK_WAIT;
    let mut taken = crate::sys::try_lock_exclusive(f);
    // No holder listed: released between the two looks; tried again, a few times.
    let mut unlisted = 0;
    while matches!(taken, Ok(false)) && std::time::Instant::now() < deadline {
        match crate::sys::lock_holders_dying(f) {
            Some(true) => std::thread::sleep(std::time::Duration::from_millis(5)),
            None if unlisted < 3 => unlisted += 1,
            Some(false) | None => break,
        }
        taken = crate::sys::try_lock_exclusive(f);
    }
    match taken {
        Ok(true) => Ok(()),
        Ok(false) => Err(SchedError::Output {
            path: path.to_owned(),
            source: io::Error::new(
                io::ErrorKind::WouldBlock,
                "another process is writing it (its lock is held): one raw file, one experiment",
            ),
        }),
        Err(source) => Err(SchedError::Output {
            path: path.to_owned(),
            source,
        }),
    }
}

impl RawWriter {
    /// Creates (or truncates) `path` now, so an unwritable output is refused before any
    /// run, and locks it (see [`RawWriter::create_new`]); the file is truncated only once
    /// the lock is held, so a writer that is refused never damages the owner's file.
    ///
    /// # Errors
    /// [`SchedError::Output`] when the file cannot be created, or another process holds
    /// its lock.
    pub fn create(path: &Path) -> Result<RawWriter, SchedError> {
        let err = |source| SchedError::Output {
            path: path.to_owned(),
            source,
        };
        let f = File::options()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(err)?;
        lock(&f, path)?;
        f.set_len(0).map_err(err)?;
        Ok(RawWriter::locked(f, path, false))
    }

    /// Creates `path`, which must not exist yet, and takes an exclusive advisory lock on
    /// it (`flock`) for as long as the writer lives: one raw file, one writer.
    ///
    /// # Errors
    /// [`SchedError::Output`] when the file exists (kind
    /// [`io::ErrorKind::AlreadyExists`]), cannot be created, or is locked by another
    /// process (kind [`io::ErrorKind::WouldBlock`]).
    pub fn create_new(path: &Path) -> Result<RawWriter, SchedError> {
        let f = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| SchedError::Output {
                path: path.to_owned(),
                source,
            })?;
        lock(&f, path)?;
        Ok(RawWriter::locked(f, path, false))
    }

    /// Opens `path` for appending after its first `keep_bytes` bytes, once the lock is
    /// held: what follows them is replaced by `then` (the stopped session's end line, which
    /// keeps its unfinished block's runs), written over it in one write and synced, so the
    /// file never lacks both; used by resume, which keeps the existing header.
    pub(crate) fn append_after(
        path: &Path,
        keep_bytes: u64,
        then: &[u8],
    ) -> Result<RawWriter, SchedError> {
        use std::io::{Seek, SeekFrom};
        use std::os::unix::fs::FileExt;
        let err = |source| SchedError::Output {
            path: path.to_owned(),
            source,
        };
        let mut f = File::options().write(true).open(path).map_err(err)?;
        lock(&f, path)?;
        if !then.is_empty() {
            f.write_all_at(then, keep_bytes).map_err(err)?;
        }
        let end = keep_bytes + then.len() as u64;
        f.set_len(end).map_err(err)?;
        if !then.is_empty() {
            f.sync_data().map_err(err)?;
        }
        f.seek(SeekFrom::Start(end)).map_err(err)?;
        Ok(RawWriter::locked(f, path, true))
    }

    /// One end line as the file holds it (JSON and a newline).
    pub(crate) fn trailer_bytes(trailer: &RawTrailer) -> io::Result<Vec<u8>> {
        let mut line = serde_json::to_vec(&TrailerLine {
            end: trailer.clone(),
        })?;
        line.push(b'\n');
        Ok(line)
    }

    /// Rewrites `path` with a new header line, keeping its run lines (bytes `runs_from`
    /// to `runs_to` of the old file) followed by `then` (the ended session's end line),
    /// then opens it for appending; used by a resume that extends an ended experiment.
    /// The new content is written to a sibling file and renamed over the old one, so a
    /// crash leaves either.
    pub(crate) fn rewrite_header(
        path: &Path,
        header: &RawHeader,
        runs_from: u64,
        runs_to: u64,
        then: &[u8],
    ) -> Result<RawWriter, SchedError> {
        let err = |source| SchedError::Output {
            path: path.to_owned(),
            source,
        };
        let old = File::options()
            .read(true)
            .write(true)
            .open(path)
            .map_err(err)?;
        lock(&old, path)?;
        let bytes = std::fs::read(path).map_err(err)?;
        let runs = bytes
            .get(runs_from as usize..runs_to as usize)
            .unwrap_or_default();
        let mut text = serde_json::to_vec(header).map_err(|e| err(io::Error::from(e)))?;
        text.push(b'\n');
        text.extend_from_slice(runs);
        text.extend_from_slice(then);
        let tmp = path.with_extension("jsonl.extending");
        std::fs::write(&tmp, &text).map_err(err)?;
        std::fs::rename(&tmp, path).map_err(err)?;
        drop(old);
        let f = File::options().append(true).open(path).map_err(err)?;
        lock(&f, path)?;
        Ok(RawWriter::locked(f, path, true))
    }

    /// Whether another process (another abba) holds the lock of the raw file at `path`
    /// now: it is writing the file. `false` when the file cannot be opened.
    pub fn in_use(path: &Path) -> bool {
        let Ok(f) = File::open(path) else {
            return false;
        };
        // Our own probe takes the lock when it is free; it goes with `f`.
        matches!(crate::sys::try_lock_exclusive(&f), Ok(false))
    }

    fn locked(f: File, path: &Path, header_written: bool) -> RawWriter {
        RawWriter {
            out: Some(BufWriter::new(Box::new(f))),
            path: path.to_owned(),
            header_written,
        }
    }

    /// Writes to any sink (a `Vec<u8>`, a pipe); `name` is used in error messages.
    pub fn to_writer(sink: impl Write + Send + 'static, name: &str) -> RawWriter {
        RawWriter {
            out: Some(BufWriter::new(Box::new(sink))),
            path: PathBuf::from(name),
            header_written: false,
        }
    }

    /// A writer that keeps nothing (no `--output`).
    pub fn discard() -> RawWriter {
        RawWriter {
            out: None,
            path: PathBuf::from("(discarded)"),
            header_written: false,
        }
    }

    /// Whether a header is already in the file (resume).
    pub(crate) fn has_header(&self) -> bool {
        self.header_written
    }

    fn line<T: serde::Serialize>(&mut self, value: &T) -> Result<(), SchedError> {
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        let res = serde_json::to_writer(&mut *out, value)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        res.map_err(|source| SchedError::Output {
            path: self.path.clone(),
            source,
        })
    }

    /// Writes the header line.
    ///
    /// # Errors
    /// [`SchedError::Output`] on a write failure.
    pub fn write_header(&mut self, header: &RawHeader) -> Result<(), SchedError> {
        self.line(header)?;
        self.header_written = true;
        Ok(())
    }

    /// Writes and flushes one run line.
    ///
    /// # Errors
    /// [`SchedError::Output`] on a write failure.
    pub fn write_run(&mut self, run: &RunRecord) -> Result<(), SchedError> {
        self.line(run)
    }

    /// Writes the trailer line.
    ///
    /// # Errors
    /// [`SchedError::Output`] on a write failure.
    pub fn write_trailer(&mut self, trailer: &RawTrailer) -> Result<(), SchedError> {
        self.line(&TrailerLine {
            end: trailer.clone(),
        })
    }
}
