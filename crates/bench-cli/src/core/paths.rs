//! Where the files of one command go: what an export path names (standard output, a
//! device or pipe written in place, or a file replaced atomically), and whether two paths
//! name the same file, so no export ever replaces the raw runs, an input, or another
//! export.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use crate::args::AnalysisArgs;
use crate::core::exit::usage;
use bench_report::write_atomic;
use std::io::Write;

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

/// Writes one export: to standard output or error for `-`, `/dev/stdout`, `/dev/stderr`
/// (through the stream abba has, so `>> FILE` appends); in place to another descriptor,
/// a device or a pipe (opened for appending, never truncated or replaced); otherwise
/// atomically, through a symbolic link (the file it points to is replaced, the link stays).
pub fn export(path: &Path, bytes: &[u8]) -> Result<(), String> {
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
        Target::File(dest) => write_atomic(dest, bytes).map_err(|e| e.to_string()),
    }
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

/// A file the command reads or records (the raw runs, an input) that no export may
/// replace: the flag that names it and its path.
pub struct Kept<'a> {
    /// How the user named it (`--output`, `--resume`, `input`, `--confirm's raw file`,
    /// `--history`).
    pub role: &'a str,
    /// Its path.
    pub path: &'a Path,
}

/// Refuses `flag path` (an export, or the raw runs' file) when it names one of the `kept`
/// files (the raw runs, an input, the history database) under any spelling: device and
/// inode, or the place it will have. `what` is what would be written there.
///
/// # Errors
/// A usage error (exit 2) naming both flags and the paths.
pub fn check_not_kept(
    flag: &str,
    path: &Path,
    what: &str,
    kept: &[Kept<'_>],
) -> anyhow::Result<()> {
    if let Some(k) = kept.iter().find(|k| same_file(path, k.path)) {
        return Err(usage(format!(
            "{flag} {} is the same file as {} {}: {what} would replace it; choose another file",
            path.display(),
            k.role,
            k.path.display()
        )));
    }
    Ok(())
}

/// Every export of `args` with its flag (the SVG directory included).
fn exports(args: &AnalysisArgs) -> Vec<(&'static str, &Path)> {
    [
        ("--export-json", &args.export_json),
        ("--export-markdown", &args.export_markdown),
        ("--export-html", &args.export_html),
        ("--export-csv", &args.csv.export_csv),
        ("--export-csv-summary", &args.csv.export_csv_summary),
        ("--export-svg", &args.export_svg),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect()
}

/// Whether an export goes to standard output (the console report then goes to stderr).
pub fn exports_to_stdout(args: &AnalysisArgs) -> bool {
    exports(args)
        .iter()
        .any(|(_, p)| target(p) == Target::Stdout)
}

/// Refuses, before anything runs or is read, an export that would replace a `kept` file
/// (the raw runs, the resumed file, an input), two exports to one file, an export to
/// standard output beside `--json` or another one there, and `--export-svg -`.
///
/// # Errors
/// A usage error (exit 2) naming both flags and the path.
pub fn check_export_targets(args: &AnalysisArgs, kept: &[Kept<'_>]) -> anyhow::Result<()> {
    check_targets(&exports(args), args.json, kept)
}

/// [`check_export_targets`] of any command's `exports` (each with its flag): none may
/// replace a `kept` file or another export, nor go to standard output beside `json`.
///
/// # Errors
/// A usage error (exit 2) naming both flags and the path.
pub fn check_targets(
    exports: &[(&str, &Path)],
    json: bool,
    kept: &[Kept<'_>],
) -> anyhow::Result<()> {
    for (i, (flag, path)) in exports.iter().enumerate() {
        let shown = path.display();
        if *flag == "--export-svg" && target(path) == Target::Stdout {
            return Err(usage(format!(
                "--export-svg {shown}: the charts are several files and need a directory, not standard output"
            )));
        }
        check_not_kept(flag, path, "the export", kept)?;
        if let Some((other, _)) = exports[..i].iter().find(|(_, p)| same_file(path, p)) {
            let what = if target(path) == Target::Stdout {
                "both would go to standard output".to_owned()
            } else {
                "one would replace the other".to_owned()
            };
            return Err(usage(format!(
                "{other} and {flag} name the same file ({shown}): {what}; give each its own file"
            )));
        }
        if json && target(path) == Target::Stdout {
            return Err(usage(format!(
                "{flag} {shown} writes to standard output, where --json prints the analysis; give the export a file, or leave out --json"
            )));
        }
    }
    Ok(())
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
