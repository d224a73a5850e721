//! Which experiment a raw file belongs to, and on which host it was measured: what lets
//! `abba analyze` merge the files of one experiment run on many hosts, and refuse to pool
//! files of different experiments.

use super::RawHeader;

/// The prefix of an experiment id abba derived itself (no `--experiment` given).
pub const DERIVED_ID_PREFIX: &str = "auto-";

/// The experiment id derived from what defines the comparison: the design, the metric,
/// and each variant's name and command, in order. A stable 64-bit FNV-1a hash of those
/// texts (each ended by a NUL byte), printed as `auto-` and 16 hex digits; the same
/// inputs give the same id on every machine and version. Time: O(header text).
pub fn derived_experiment_id(header: &RawHeader) -> String {
    let mut h = Fnv1a::new();
    h.field(header.design.name());
    h.field(&header.metric.to_string());
    if header.cycles > 1 {
        h.field(&format!("cycles={}", header.cycles));
    }
    for v in &header.variants {
        h.field(&v.name);
        h.field(&v.command);
    }
    format!("{DERIVED_ID_PREFIX}{:016x}", h.0)
}

/// The 64-bit FNV-1a hash (Fowler, Noll & Vo) of `text`'s UTF-8 bytes, with no NUL after
/// them: the published function, stable on every machine and version. Time: O(text).
pub(crate) fn fnv1a(text: &str) -> u64 {
    let mut h = Fnv1a::new();
    for &b in text.as_bytes() {
        h.0 ^= u64::from(b);
        h.0 = h.0.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h.0
}

/// The 64-bit FNV-1a hash (Fowler, Noll & Vo).
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `text` then a NUL byte, so fields cannot run into each other.
    fn field(&mut self, text: &str) {
        for &b in text.as_bytes().iter().chain(&[0u8]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl RawHeader {
    /// The experiment this file belongs to: the id recorded in the header, else (a file
    /// written before ids were recorded) the id derived from its variants, metric and
    /// design ([`derived_experiment_id`]).
    pub fn experiment_id(&self) -> String {
        self.experiment
            .clone()
            .unwrap_or_else(|| derived_experiment_id(self))
    }

    /// The host the file was measured on, when the header names one.
    pub fn host_name(&self) -> Option<&str> {
        self.host.hostname.as_deref()
    }
}

/// This machine's name: `/proc/sys/kernel/hostname`, else the `HOSTNAME` environment
/// variable; `None` when neither gives a non-empty name (never an error).
pub fn this_host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector); our field
    /// adds a NUL after it, so check the raw step on the vector first.
    #[test]
    fn fnv_test_vector_and_stability() {
        let mut h = Fnv1a::new();
        for &b in b"a" {
            h.0 ^= u64::from(b);
            h.0 = h.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        // The published vector of "foobar".
        assert_eq!(fnv1a("foobar"), 0x8594_4171_f739_67e8);
    }
}

/// The most characters an experiment id or host name may have ([`parse_label`]).
pub const MAX_LABEL_CHARS: usize = 200;

/// Why a text cannot be an experiment id or host name; its `Display` is what it must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LabelError {
    /// Empty or blank.
    Empty,
    /// Longer than [`MAX_LABEL_CHARS`] characters.
    TooLong,
    /// A control character (a newline, a tab).
    ControlCharacter,
}

impl std::fmt::Display for LabelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelError::Empty => f.write_str("must not be empty"),
            LabelError::TooLong => write!(f, "must be at most {MAX_LABEL_CHARS} characters"),
            LabelError::ControlCharacter => {
                f.write_str("must not contain control characters (newlines, tabs)")
            }
        }
    }
}

impl std::error::Error for LabelError {}

/// An experiment id or host name as a header records it: 1 to [`MAX_LABEL_CHARS`]
/// characters, not blank, none of them a control character. Time: O(length).
///
/// # Errors
/// [`LabelError`].
///
/// # Examples
/// ```
/// assert_eq!(bench_sched::parse_label("nightly run")?, "nightly run");
/// assert!(bench_sched::parse_label("a\tb").is_err());
/// # Ok::<(), bench_sched::LabelError>(())
/// ```
pub fn parse_label(text: &str) -> Result<String, LabelError> {
    if text.trim().is_empty() {
        return Err(LabelError::Empty);
    }
    if text.chars().count() > MAX_LABEL_CHARS {
        return Err(LabelError::TooLong);
    }
    if text.chars().any(char::is_control) {
        return Err(LabelError::ControlCharacter);
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod label_tests {
    use super::*;

    #[test]
    fn a_label_is_not_blank_long_or_controlled() {
        assert_eq!(parse_label("host-1").unwrap(), "host-1");
        assert_eq!(parse_label(" "), Err(LabelError::Empty));
        assert_eq!(parse_label(&"é".repeat(200)).unwrap().chars().count(), 200);
        assert_eq!(parse_label(&"é".repeat(201)), Err(LabelError::TooLong));
        assert_eq!(
            parse_label("a\nb").unwrap_err().to_string(),
            "must not contain control characters (newlines, tabs)"
        );
    }
}
