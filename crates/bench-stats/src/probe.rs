//! Whether a directory takes a new file: the one write probe of the crates that write
//! files (`bench-report`'s export paths, `bench-history`'s store). Not statistics: it lives
//! here because this is the one crate below both.

use std::path::Path;

/// Creates a probe file (`.abba-write-check.PID`) in `dir` and removes it, so that a
/// directory that cannot take a file (read-only storage, no permission, `/proc`) is found
/// before any work is spent. A probe of the same name already there (a leftover of this
/// process id) counts as writable.
///
/// # Errors
/// The error of creating the probe file.
pub fn probe_writable_dir(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".abba-write-check.{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_directory_takes_a_file_and_keeps_no_probe() {
        let dir = std::env::temp_dir().join(format!("abba-probe-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(probe_writable_dir(&dir).is_ok());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = std::env::temp_dir().join(format!("abba-probe-missing-{}/x", std::process::id()));
        assert!(probe_writable_dir(&dir).is_err());
    }
}
