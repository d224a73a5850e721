//! CPU lists such as `0,2-3` (`--pin`).

use std::fmt;
use std::str::FromStr;

/// Largest CPU number accepted (the size of the kernel's fixed `cpu_set_t`, minus one).
pub const MAX_CPU: usize = 1023;

/// A non-empty, sorted set of CPU numbers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CpuSet(Vec<usize>);

impl CpuSet {
    /// Builds a set from CPU numbers (sorted and deduplicated).
    ///
    /// # Errors
    /// [`CpuListError`] when the list is empty or a number exceeds [`MAX_CPU`].
    pub fn from_cpus(cpus: impl IntoIterator<Item = usize>) -> Result<CpuSet, CpuListError> {
        let mut v: Vec<usize> = cpus.into_iter().collect();
        if let Some(&c) = v.iter().find(|&&c| c > MAX_CPU) {
            return Err(CpuListError {
                given: c.to_string(),
                message: format!("CPU {c} is above {MAX_CPU}"),
            });
        }
        v.sort_unstable();
        v.dedup();
        if v.is_empty() {
            return Err(CpuListError {
                given: String::new(),
                message: "the CPU list is empty".into(),
            });
        }
        Ok(CpuSet(v))
    }

    /// The CPU numbers, ascending.
    pub fn cpus(&self) -> &[usize] {
        &self.0
    }
}

impl fmt::Display for CpuSet {
    /// Compact list form: `0,2-3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        let mut i = 0;
        while i < self.0.len() {
            let start = self.0[i];
            let mut end = start;
            while i + 1 < self.0.len() && self.0[i + 1] == end + 1 {
                i += 1;
                end = self.0[i];
            }
            parts.push(if start == end {
                start.to_string()
            } else {
                format!("{start}-{end}")
            });
            i += 1;
        }
        f.write_str(&parts.join(","))
    }
}

/// A CPU list that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid CPU list {given:?}: {message} (expected e.g. `0,2-3`)")]
pub struct CpuListError {
    /// The rejected text.
    pub given: String,
    /// What is wrong.
    pub message: String,
}

impl FromStr for CpuSet {
    type Err = CpuListError;

    /// Parses comma-separated CPU numbers and inclusive ranges (`0,2-3`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |message: String| CpuListError {
            given: s.to_owned(),
            message,
        };
        let num = |t: &str| -> Result<usize, CpuListError> {
            t.trim()
                .parse::<usize>()
                .map_err(|_| err(format!("{:?} is not a CPU number", t.trim())))
        };
        let mut cpus = Vec::new();
        for part in s.split(',') {
            if part.trim().is_empty() {
                return Err(err("empty entry".into()));
            }
            match part.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (num(a)?, num(b)?);
                    if a > b {
                        return Err(err(format!("range {a}-{b} is reversed")));
                    }
                    if b > MAX_CPU {
                        return Err(err(format!("CPU {b} is above {MAX_CPU}")));
                    }
                    cpus.extend(a..=b);
                }
                None => cpus.push(num(part)?),
            }
        }
        CpuSet::from_cpus(cpus).map_err(|e| err(e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_ranges() {
        let s: CpuSet = "0,2-3".parse().unwrap();
        assert_eq!(s.cpus(), &[0, 2, 3]);
        assert_eq!(s.to_string(), "0,2-3");
        assert_eq!("3,1,2".parse::<CpuSet>().unwrap().to_string(), "1-3");
    }

    #[test]
    fn rejects_bad_lists() {
        for bad in ["", "a", "1,,2", "3-1", "0-5000", "-1", "1-"] {
            assert!(bad.parse::<CpuSet>().is_err(), "{bad:?}");
        }
        assert!(
            "3-1"
                .parse::<CpuSet>()
                .unwrap_err()
                .to_string()
                .contains("reversed")
        );
    }
}
