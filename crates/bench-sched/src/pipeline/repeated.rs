//! An input given twice.

use std::fmt;
use std::path::{Path, PathBuf};

/// An input named twice among the files to read ([`repeated_input`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepeatedInput {
    /// `-` twice: standard input can be read once.
    Stdin,
    /// The same file twice (under any spelling that resolves to it): its runs would
    /// count double.
    File(PathBuf),
}

impl fmt::Display for RepeatedInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RepeatedInput::Stdin => {
                f.write_str("- (standard input) is given twice: it can be read once")
            }
            RepeatedInput::File(p) => write!(
                f,
                "{} is given twice: its runs would count double",
                p.display()
            ),
        }
    }
}

/// The first input of `paths` that an earlier one names already (the same canonical
/// path, or the same text when either cannot be resolved), as its second spelling.
/// Time: O(n^2) path resolutions.
pub fn repeated_input(paths: &[&Path]) -> Option<RepeatedInput> {
    for (i, a) in paths.iter().enumerate() {
        let same = |b: &&Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        };
        if paths[..i].iter().any(same) {
            return Some(if *a == Path::new("-") {
                RepeatedInput::Stdin
            } else {
                RepeatedInput::File(a.to_path_buf())
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_twice_under_two_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.jsonl");
        std::fs::write(&f, "").unwrap();
        let other = dir.path().join(".").join("a.jsonl");
        let g = dir.path().join("b.jsonl");
        assert_eq!(repeated_input(&[&f, &g]), None);
        assert_eq!(
            repeated_input(&[&f, &g, &other]),
            Some(RepeatedInput::File(other.clone()))
        );
        let stdin = Path::new("-");
        assert_eq!(
            repeated_input(&[stdin, &f, stdin]).unwrap().to_string(),
            "- (standard input) is given twice: it can be read once"
        );
    }
}
