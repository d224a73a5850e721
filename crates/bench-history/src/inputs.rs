//! What a command reading saved data may record: one raw file.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why the inputs of a command (`abba analyze FILE...`) cannot be recorded; its `Display`
/// says what can.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordInputError {
    /// None or several inputs: a record keeps one experiment.
    NotOne,
    /// Standard input: its content is gone once read.
    Stdin,
    /// Not an abba raw file: CSV and hyperfine data hold no experiment.
    NotRaw(PathBuf),
}

impl fmt::Display for RecordInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordInputError::NotOne => {
                f.write_str("give one raw file (abba history import FILE... records several)")
            }
            RecordInputError::Stdin => f.write_str(
                "standard input cannot be recorded (its content is gone once read); save it to a file",
            ),
            RecordInputError::NotRaw(p) => write!(
                f,
                "{} is not an abba raw file (abba compare --output writes one); CSV and hyperfine data hold no experiment to record",
                p.display()
            ),
        }
    }
}

impl std::error::Error for RecordInputError {}

/// Checks, before anything is read, that `files` can be recorded: exactly one, not
/// standard input (`-`), and an abba raw file ([`bench_sched::is_raw_file`]).
///
/// # Errors
/// [`RecordInputError`].
pub fn check_record_inputs(files: &[PathBuf]) -> Result<(), RecordInputError> {
    let [file] = files else {
        return Err(RecordInputError::NotOne);
    };
    if file == Path::new("-") {
        return Err(RecordInputError::Stdin);
    }
    if !bench_sched::is_raw_file(file) {
        return Err(RecordInputError::NotRaw(file.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_raw_file_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("t.csv");
        std::fs::write(&csv, "variant,value\nA,1\n").unwrap();
        assert_eq!(check_record_inputs(&[]), Err(RecordInputError::NotOne));
        assert_eq!(
            check_record_inputs(&[csv.clone(), csv.clone()]),
            Err(RecordInputError::NotOne)
        );
        assert_eq!(
            check_record_inputs(&["-".into()]),
            Err(RecordInputError::Stdin)
        );
        assert_eq!(
            check_record_inputs(std::slice::from_ref(&csv)),
            Err(RecordInputError::NotRaw(csv))
        );
    }
}
