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
