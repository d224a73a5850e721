//! What a path names for writing, and whether two paths name one file: standard output,
//! a device or pipe written in place, or a file replaced atomically ([`crate::write_atomic`]);
//! `runs.jsonl`, `./runs.jsonl`, a hard link and a symbolic link to it are one file.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// What an export path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1` (or a link to one): abba's own
    /// standard output, written through the stream it already has (appending where the
    /// shell opened it with `>>`).
    Stdout,
    /// `/dev/stderr`, `/dev/fd/2`, `/proc/self/fd/2`: abba's standard error.
    Stderr,
    /// Another open descriptor (`/dev/fd/N`), a character device (`/dev/null`, a
    /// terminal) or a named pipe: opened and written in place, never replaced.
    InPlace(PathBuf),
    /// A regular file or a new path (symbolic links followed to their end): replaced
    /// atomically.
    File(PathBuf),
}

/// The descriptor a path of the form `/dev/fd/N`, `/proc/self/fd/N` or `/proc/PID/fd/N`
/// (PID abba's own) names, and `/dev/stdout`, `/dev/stderr` (1 and 2).
fn descriptor(path: &Path) -> Option<u32> {
    match path.to_str()? {
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        "/dev/stdin" => return Some(0),
        _ => {}
    }
    let parts: Vec<&str> = path
        .to_str()?
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    let own = std::process::id().to_string();
    let fd = match parts.as_slice() {
        ["dev", "fd", n] => n,
        ["proc", "self" | "thread-self", "fd", n] => n,
        ["proc", pid, "fd", n] if *pid == own => n,
        _ => return None,
    };
    fd.parse().ok()
}

/// What `given` names for writing an export. A walk through symbolic links stops at the
/// first that names an open descriptor; a loop of links ends after 40 steps (the write
/// then reports it).
pub fn target(given: &Path) -> Target {
    if given == Path::new("-") {
        return Target::Stdout;
    }
    let mut current = given.to_path_buf();
    for _ in 0..40 {
        match descriptor(&current) {
            Some(1) => return Target::Stdout,
            Some(2) => return Target::Stderr,
            Some(_) => return Target::InPlace(given.to_path_buf()),
            None => {}
        }
        let is_link = std::fs::symlink_metadata(&current).is_ok_and(|m| m.is_symlink());
        if !is_link {
            break;
        }
        let Ok(next) = std::fs::read_link(&current) else {
            break;
        };
        current = match current.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    match std::fs::metadata(&current) {
        Ok(m) if !m.is_file() && !m.is_dir() => Target::InPlace(current),
        _ => Target::File(current),
    }
}

/// A file's identity: device and inode when it exists, else the absolute path it would be
/// created at (its directory canonical, `.` and `..` resolved), so `runs.jsonl`,
/// `./runs.jsonl`, `$PWD/./runs.jsonl`, a hard link and a symbolic link to it are one.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    Stdout,
    Stderr,
    Inode(u64, u64),
    Path(PathBuf),
    /// A device or pipe that is not abba's output: writing it twice loses nothing.
    Special,
}

fn identity(given: &Path) -> Identity {
    match target(given) {
        Target::Stdout => Identity::Stdout,
        Target::Stderr => Identity::Stderr,
        Target::InPlace(_) => Identity::Special,
        Target::File(path) => match std::fs::metadata(&path) {
            Ok(m) => Identity::Inode(m.dev(), m.ino()),
            Err(_) => Identity::Path(absolute(&path)),
        },
    }
}

/// `path` made absolute without touching the file itself: its directory canonical where it
/// exists, `.` and `..` resolved lexically otherwise.
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let (dir, name) = match (joined.parent(), joined.file_name()) {
        (Some(dir), Some(name)) => (dir.to_path_buf(), name.to_owned()),
        _ => return lexical(&joined),
    };
    match dir.canonicalize() {
        Ok(dir) => dir.join(name),
        Err(_) => lexical(&joined),
    }
}

fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other @ (Component::Prefix(_) | Component::RootDir | Component::Normal(_)) => {
                out.push(other)
            }
        }
    }
    out
}

/// The file a symbolic link points to (followed to the end, a dangling link included);
/// any other path as it is. Exports write through links rather than replace them.
pub fn resolve_link(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    // A bounded walk: a loop of links ends in an error from the write, not a hang here.
    for _ in 0..40 {
        let is_link = std::fs::symlink_metadata(&current).is_ok_and(|m| m.is_symlink());
        if !is_link {
            break;
        }
        let Ok(target) = std::fs::read_link(&current) else {
            break;
        };
        current = match current.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    current
}

/// Whether `a` and `b` name the same file (or both abba's standard output).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (x, y) = (identity(a), identity(b));
    x != Identity::Special && x == y
}

/// Writes one export: to standard output or error for `-`, `/dev/stdout`, `/dev/stderr`
/// (through the stream the process has, so `>> FILE` appends); in place to another
/// descriptor, a device or a pipe (opened for appending, never truncated or replaced);
/// otherwise atomically ([`crate::write_atomic`]), through a symbolic link (the file it
/// points to is replaced, the link stays).
///
/// # Errors
/// The write's error, in words naming `path`.
pub fn write_export(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    match target(path) {
        Target::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("{}: cannot write to standard output: {e}", path.display()))
        }
        Target::Stderr => {
            let mut err = std::io::stderr().lock();
            err.write_all(bytes)
                .and_then(|()| err.flush())
                .map_err(|e| format!("{}: cannot write to standard error: {e}", path.display()))
        }
        Target::InPlace(dest) => std::fs::OpenOptions::new()
            .append(true)
            .open(&dest)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
            .map_err(|e| format!("{}: {e}", path.display())),
        Target::File(dest) => crate::write_atomic(dest, bytes).map_err(|e| e.to_string()),
    }
}

/// A file a command reads or records (the raw runs, an input, a history) that no export
/// may replace: how the user named it and its path.
#[derive(Debug, Clone, Copy)]
pub struct Kept<'a> {
    /// How the user named it (`--output`, `--resume`, `the input`, `--history`).
    pub role: &'a str,
    /// Its path.
    pub path: &'a Path,
}

/// Why a file a command would write is refused before anything runs
/// ([`check_not_kept`], [`check_targets`], [`check_step_summary`]): each names the flag
/// and the path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathConflict {
    /// `flag path` is one of the kept files.
    #[error("{flag} {} is the same file as {role} {}: {what} would replace it; choose another file", path.display(), kept.display())]
    Kept {
        /// The flag writing it.
        flag: String,
        /// Its path.
        path: PathBuf,
        /// What would be written there.
        what: String,
        /// How the kept file was named.
        role: String,
        /// The kept file's path.
        kept: PathBuf,
    },
    /// `--export-svg` to standard output.
    #[error("--export-svg {}: the charts are several files and need a directory, not standard output", path.display())]
    SvgToStdout {
        /// The path given.
        path: PathBuf,
    },
    /// Two exports name one file.
    #[error("{other} and {flag} name the same file ({}): {}; give each its own file", path.display(), if *stdout { "both would go to standard output" } else { "one would replace the other" })]
    SameExport {
        /// The earlier export's flag.
        other: String,
        /// This export's flag.
        flag: String,
        /// The path.
        path: PathBuf,
        /// Whether the file is standard output.
        stdout: bool,
    },
    /// An export to standard output beside `--json`.
    #[error("{flag} {} writes to standard output, where --json prints the analysis; give the export a file, or leave out --json", path.display())]
    StdoutBesideJson {
        /// The export's flag.
        flag: String,
        /// The path.
        path: PathBuf,
    },
    /// An export path that cannot be written ([`check_writable`], [`check_directory`]).
    #[error("{flag} {}: {why}", path.display())]
    Unwritable {
        /// The export's flag.
        flag: String,
        /// The path as given.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// `$GITHUB_STEP_SUMMARY` cannot take the report.
    #[error("$GITHUB_STEP_SUMMARY {}: {why}", path.display())]
    StepSummary {
        /// The summary's path.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// Refuses `flag path` (an export, or the raw runs' file) when it names one of the `kept`
/// files under any spelling ([`same_file`]); `what` is what would be written there.
///
/// # Errors
/// [`PathConflict::Kept`].
pub fn check_not_kept(
    flag: &str,
    path: &Path,
    what: &str,
    kept: &[Kept<'_>],
) -> Result<(), PathConflict> {
    match kept.iter().find(|k| same_file(path, k.path)) {
        Some(k) => Err(PathConflict::Kept {
            flag: flag.to_owned(),
            path: path.to_owned(),
            what: what.to_owned(),
            role: k.role.to_owned(),
            kept: k.path.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Refuses, before anything runs, an export of `exports` (each with its flag) that would
/// replace a `kept` file or another export, that goes to standard output beside `json`,
/// and `--export-svg -`. Time: O(n²) in the exports.
///
/// # Errors
/// The first [`PathConflict`] found.
pub fn check_targets(
    exports: &[(&str, &Path)],
    json: bool,
    kept: &[Kept<'_>],
) -> Result<(), PathConflict> {
    for (i, (flag, path)) in exports.iter().enumerate() {
        let stdout = target(path) == Target::Stdout;
        if *flag == "--export-svg" && stdout {
            return Err(PathConflict::SvgToStdout {
                path: path.to_path_buf(),
            });
        }
        check_not_kept(flag, path, "the export", kept)?;
        if let Some((other, _)) = exports[..i].iter().find(|(_, p)| same_file(path, p)) {
            return Err(PathConflict::SameExport {
                other: (*other).to_owned(),
                flag: (*flag).to_owned(),
                path: path.to_path_buf(),
                stdout,
            });
        }
        if json && stdout {
            return Err(PathConflict::StdoutBesideJson {
                flag: (*flag).to_owned(),
                path: path.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Refuses an export path (`flag given`) that cannot be written, before any work is spent
/// on it: its directory must exist and take a new file (one is created and removed
/// there), and the path must not be a directory. Standard output, a descriptor, an
/// existing device or pipe are left to the write.
///
/// # Errors
/// [`PathConflict::Unwritable`].
pub fn check_writable(flag: &str, given: &Path) -> Result<(), PathConflict> {
    let refuse = |why: String| {
        Err(PathConflict::Unwritable {
            flag: flag.to_owned(),
            path: given.to_owned(),
            why,
        })
    };
    let Target::File(path) = target(given) else {
        return Ok(());
    };
    if path.is_dir() {
        return refuse("is a directory".to_owned());
    }
    if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return refuse(format!("the directory {} does not exist", dir.display()));
    }
    bench_stats::probe::probe_writable_dir(dir)
        .or_else(|e| refuse(format!("cannot create a file in {}: {e}", dir.display())))
}

/// Refuses a directory export (`flag given`, the SVG charts) that is neither a directory
/// nor a path whose parent directory exists (it is created then).
///
/// # Errors
/// [`PathConflict::Unwritable`].
pub fn check_directory(flag: &str, given: &Path) -> Result<(), PathConflict> {
    let refuse = |why: String| {
        Err(PathConflict::Unwritable {
            flag: flag.to_owned(),
            path: given.to_owned(),
            why,
        })
    };
    let dir = resolve_link(given);
    if dir.is_dir() {
        return Ok(());
    }
    if dir.exists() {
        return refuse("exists and is not a directory".to_owned());
    }
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() && !p.is_dir() => {
            refuse(format!("the directory {} does not exist", p.display()))
        }
        _ => Ok(()),
    }
}

/// The file `$GITHUB_STEP_SUMMARY` names, when it is set (and not empty).
fn step_summary_path() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The file behind a path written in place (`-` is standard output): device and inode.
fn inode(path: &Path) -> Option<(u64, u64)> {
    let path = if path == Path::new("-") {
        Path::new("/dev/stdout")
    } else {
        path
    };
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether one of `exports` streams into the step summary's file itself
/// (`--export-markdown /dev/stdout >> "$GITHUB_STEP_SUMMARY"`): the export then is the
/// summary, and the report is not appended a second time.
pub fn step_summary_fed_by(exports: &[(&str, &Path)]) -> bool {
    let Some(summary) = step_summary_path().as_deref().and_then(inode) else {
        return false;
    };
    exports
        .iter()
        .any(|(_, p)| !matches!(target(p), Target::File(_)) && inode(p) == Some(summary))
}

/// Checks `$GITHUB_STEP_SUMMARY` (when set) before anything runs, as every export is
/// checked: not a directory nor in a directory that does not exist, an existing file opens
/// for appending, and it is none of the `kept` files (Markdown appended there would break
/// them) nor the file an export replaces (that would wipe what earlier steps wrote). An
/// export streaming into it is allowed: it is then the summary ([`step_summary_fed_by`]).
///
/// # Errors
/// [`PathConflict::StepSummary`].
pub fn check_step_summary(
    exports: &[(&str, &Path)],
    kept: &[Kept<'_>],
) -> Result<(), PathConflict> {
    let Some(path) = step_summary_path() else {
        return Ok(());
    };
    let refuse = |why: String| {
        Err(PathConflict::StepSummary {
            path: path.clone(),
            why,
        })
    };
    if let Some(k) = kept.iter().find(|k| same_file(&path, k.path)) {
        return refuse(format!(
            "is the same file as {} {}: the report would be appended into it; point the summary elsewhere, or pass --no-step-summary",
            k.role,
            k.path.display()
        ));
    }
    if let Some((flag, p)) = exports
        .iter()
        .find(|(_, p)| matches!(target(p), Target::File(_)) && same_file(&path, p))
    {
        return refuse(format!(
            "is the same file as {flag} {}: the export would replace what earlier steps wrote there (abba appends its report to the summary itself); give the export another file",
            p.display()
        ));
    }
    match target(&path) {
        Target::File(file) => {
            if file.is_dir() {
                return refuse("is a directory, not a file the report can be appended to".into());
            }
            let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(dir) = dir.filter(|d| !d.is_dir()) {
                return refuse(format!("the directory {} does not exist", dir.display()));
            }
            if file.exists() {
                if let Err(e) = std::fs::OpenOptions::new().append(true).open(&file) {
                    return refuse(e.to_string());
                }
            }
            Ok(())
        }
        // Standard output or error, a descriptor, a device or a pipe: written in place.
        Target::Stdout | Target::Stderr | Target::InPlace(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_paths_are_recognised() {
        assert_eq!(target(Path::new("-")), Target::Stdout);
        assert_eq!(target(Path::new("/dev/stdout")), Target::Stdout);
        assert_eq!(target(Path::new("/dev/fd/1")), Target::Stdout);
        assert_eq!(target(Path::new("/proc/self/fd/2")), Target::Stderr);
        assert_eq!(
            target(Path::new("/dev/fd/7")),
            Target::InPlace(PathBuf::from("/dev/fd/7"))
        );
        assert_eq!(
            target(Path::new("/dev/null")),
            Target::InPlace(PathBuf::from("/dev/null"))
        );
    }

    #[test]
    fn spellings_and_links_of_one_file_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("runs.jsonl");
        let dotted = dir.path().join(".").join("runs.jsonl");
        let up = dir.path().join("sub").join("..").join("runs.jsonl");
        // Not created yet: the same place.
        assert!(same_file(&a, &dotted));
        assert!(same_file(&a, &up));
        std::fs::write(&a, "x").unwrap();
        let hard = dir.path().join("hard.jsonl");
        std::fs::hard_link(&a, &hard).unwrap();
        let soft = dir.path().join("soft.jsonl");
        std::os::unix::fs::symlink(&a, &soft).unwrap();
        assert!(same_file(&a, &hard));
        assert!(same_file(&soft, &a));
        assert!(!same_file(&a, &dir.path().join("other.jsonl")));
        assert!(!same_file(Path::new("/dev/null"), Path::new("/dev/null")));
    }
}
