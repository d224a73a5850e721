//! All-or-nothing file writes for every export.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::ExportError;

/// Distinguishes temporary files of concurrent writes from one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` so that readers see either the old file or the complete new
/// one, never a partial write.
///
/// The bytes go to a new temporary file in the same directory (`.NAME.tmp.PID.N`), which
/// is flushed to disk (`fsync`) and then renamed over `path`; the directory is synced
/// afterwards where the platform allows it. On any failure the temporary file is removed.
/// Time: O(bytes) plus two syncs.
///
/// # Errors
///
/// An existing device or pipe (`/dev/stdout`, `/dev/full`) is written directly, never
/// replaced.
///
/// [`ExportError::NotAFile`] when `path` has no file name, and [`ExportError::Io`] naming
/// `path` and the failed step when the directory is missing or not writable, the disk is
/// full, or the rename fails.
///
/// # Examples
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("report.md");
/// bench_report::write_atomic(&path, b"# report\n")?;
/// assert_eq!(std::fs::read(&path)?, b"# report\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), ExportError> {
    let path = path.as_ref();
    let Some(name) = path.file_name() else {
        return Err(ExportError::NotAFile {
            path: path.to_path_buf(),
        });
    };
    // A device or pipe (`/dev/stdout`, `/dev/full`, a FIFO) cannot be replaced by a rename,
    // and must never be: write to it directly and report what it says.
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return write_special(path, bytes);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(
        ".{}.tmp.{}.{}",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|source| ExportError::Io {
            path: path.to_path_buf(),
            action: "create temporary file",
            source,
        })?;
    if let Err((action, source)) = finish(file, bytes, &tmp, path) {
        // Best effort: the temporary file must not outlive a failed write.
        let _ = fs::remove_file(&tmp);
        return Err(ExportError::Io {
            path: path.to_path_buf(),
            action,
            source,
        });
    }
    // Persist the rename itself; not every platform can open a directory, so this is
    // best effort.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Writes straight to an existing device or pipe (no temporary file, no rename).
fn write_special(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    let io = |action: &'static str| {
        move |source: io::Error| ExportError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    let mut file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io("open"))?;
    file.write_all(bytes).map_err(io("write"))?;
    file.flush().map_err(io("write"))
}

/// Writes, syncs and closes the temporary file, then renames it over the destination.
/// The error carries the name of the step that failed.
fn finish(
    mut file: File,
    bytes: &[u8],
    tmp: &Path,
    dest: &Path,
) -> Result<(), (&'static str, io::Error)> {
    file.write_all(bytes).map_err(|e| ("write", e))?;
    file.sync_all().map_err(|e| ("sync", e))?;
    drop(file);
    fs::rename(tmp, dest).map_err(|e| ("rename", e))
}
