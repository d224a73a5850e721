//! The kernel's configuration and its validation errors.

use std::fmt;
use std::time::Duration;

use crate::chains::MAX_CHAINS;
use crate::op::{Op, ParseOpError};

/// The largest accepted thread count.
pub const MAX_THREADS: usize = 1024;
/// The largest accepted duration, in seconds (one hour).
pub const MAX_DURATION_S: f64 = 3600.0;

/// What to run: the operation, how many independent chains per thread, how many threads,
/// and for how long.
///
/// A plain value; [`Kernel::new`](crate::Kernel::new) validates it once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelConfig {
    /// The operation every chain repeats. Default [`Op::Int`].
    pub op: Op,
    /// Independent dependency chains per thread, `1..=16`. Default 1.
    pub chains: usize,
    /// Threads, each with its own chains, `1..=1024`. Default 1.
    pub threads: usize,
    /// Wall-clock budget of a duration-bounded run: greater than 0 and at most 3600 s.
    /// Default 0.3 s.
    pub duration: Duration,
}

impl Default for KernelConfig {
    fn default() -> Self {
        KernelConfig {
            op: Op::Int,
            chains: 1,
            threads: 1,
            duration: Duration::from_millis(300),
        }
    }
}

impl KernelConfig {
    /// Checks every field, in the order chains, threads, duration.
    ///
    /// Time: O(1).
    ///
    /// # Errors
    ///
    /// The first out-of-range field as a [`KernelError`].
    pub fn validate(&self) -> Result<(), KernelError> {
        check_counts(self.chains, self.threads)?;
        let d = self.duration.as_secs_f64();
        if !(d > 0.0 && d <= MAX_DURATION_S) {
            return Err(KernelError::Duration { got: d });
        }
        Ok(())
    }

    /// Parses and validates the four settings from strings (as in `--kernel
    /// op=int,chains=2,threads=1,duration=0.3`): `op` by [`Op`]'s `FromStr`, `chains` and
    /// `threads` as unsigned integers, `duration` as seconds (a decimal number).
    ///
    /// Time: O(length of the strings).
    ///
    /// # Errors
    ///
    /// [`KernelError::Op`] or [`KernelError::Parse`] for text that is not a value of the
    /// right kind, then any error of [`KernelConfig::validate`].
    pub fn parse(
        op: &str,
        chains: &str,
        threads: &str,
        duration: &str,
    ) -> Result<Self, KernelError> {
        let op = op.trim().parse::<Op>().map_err(KernelError::Op)?;
        let int = |flag: &'static str, text: &str| {
            text.trim()
                .parse::<usize>()
                .map_err(|_| KernelError::Parse {
                    flag,
                    value: text.to_owned(),
                })
        };
        let chains = int("--chains", chains)?;
        let threads = int("--threads", threads)?;
        let secs = duration
            .trim()
            .parse::<f64>()
            .map_err(|_| KernelError::Parse {
                flag: "--duration",
                value: duration.to_owned(),
            })?;
        check_counts(chains, threads)?;
        let config = KernelConfig {
            op,
            chains,
            threads,
            duration: duration_from_secs(secs)?,
        };
        config.validate()?;
        Ok(config)
    }
}

/// Checks `chains` then `threads` against their ranges.
fn check_counts(chains: usize, threads: usize) -> Result<(), KernelError> {
    if !(1..=MAX_CHAINS).contains(&chains) {
        return Err(KernelError::Chains { got: chains });
    }
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(KernelError::Threads { got: threads });
    }
    Ok(())
}

/// Converts a duration in seconds to a [`Duration`], accepting only what
/// [`KernelConfig::validate`] accepts: finite, greater than 0, at most 3600.
///
/// # Errors
///
/// [`KernelError::Duration`] for anything else (NaN, infinities, zero, negatives,
/// more than an hour).
pub fn duration_from_secs(secs: f64) -> Result<Duration, KernelError> {
    if secs.is_finite() && secs > 0.0 && secs <= MAX_DURATION_S {
        Duration::try_from_secs_f64(secs).map_err(|_| KernelError::Duration { got: secs })
    } else {
        Err(KernelError::Duration { got: secs })
    }
}

/// A rejected kernel configuration or request. The message names the command-line flag
/// and its allowed range, so a CLI can print it as is.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum KernelError {
    /// `chains` outside `1..=16`.
    Chains {
        /// The rejected value.
        got: usize,
    },
    /// `threads` outside `1..=1024`.
    Threads {
        /// The rejected value.
        got: usize,
    },
    /// A duration that is not a finite number of seconds in (0, 3600].
    Duration {
        /// The rejected value.
        got: f64,
    },
    /// An op name that is not `int`, `add` or `fp`.
    Op(ParseOpError),
    /// Text that is not a number of the kind the flag takes.
    Parse {
        /// The flag, e.g. `--chains`.
        flag: &'static str,
        /// The rejected text.
        value: String,
    },
    /// A fixed-count run whose total operation count (steps × chains × threads) does not
    /// fit in a `u64`.
    TooManySteps {
        /// The requested steps per chain.
        steps: u64,
    },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::Chains { got } => {
                write!(f, "--chains must be between 1 and {MAX_CHAINS}, got {got}")
            }
            KernelError::Threads { got } => {
                write!(
                    f,
                    "--threads must be between 1 and {MAX_THREADS}, got {got}"
                )
            }
            KernelError::Duration { got } => write!(
                f,
                "--duration must be a finite number of seconds greater than 0 and at most {MAX_DURATION_S}, got {got}"
            ),
            KernelError::Op(e) => write!(f, "--op: {e}"),
            KernelError::Parse { flag, value } => {
                write!(f, "{flag} takes a number, got {value:?}")
            }
            KernelError::TooManySteps { steps } => write!(
                f,
                "{steps} steps per chain is too many: the operation count overflows 64 bits"
            ),
        }
    }
}

impl std::error::Error for KernelError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(chains: usize, threads: usize, duration_s: f64) -> KernelConfig {
        KernelConfig {
            op: Op::Int,
            chains,
            threads,
            duration: Duration::from_secs_f64(duration_s),
        }
    }

    #[test]
    fn default_is_valid() {
        assert_eq!(KernelConfig::default().validate(), Ok(()));
    }

    #[test]
    fn bounds_are_inclusive() {
        assert_eq!(config(1, 1, 1e-9).validate(), Ok(()));
        assert_eq!(config(16, 1024, 3600.0).validate(), Ok(()));
    }

    #[test]
    fn chains_out_of_range() {
        for chains in [0, 17, usize::MAX] {
            let err = config(chains, 1, 0.3).validate().unwrap_err();
            assert_eq!(err, KernelError::Chains { got: chains });
        }
        assert_eq!(
            config(0, 1, 0.3).validate().unwrap_err().to_string(),
            "--chains must be between 1 and 16, got 0"
        );
    }

    #[test]
    fn threads_out_of_range() {
        for threads in [0, 1025] {
            let err = config(1, threads, 0.3).validate().unwrap_err();
            assert_eq!(err, KernelError::Threads { got: threads });
        }
        assert_eq!(
            config(1, 0, 0.3).validate().unwrap_err().to_string(),
            "--threads must be between 1 and 1024, got 0"
        );
    }

    #[test]
    fn duration_out_of_range() {
        assert_eq!(
            config(1, 1, 0.0).validate(),
            Err(KernelError::Duration { got: 0.0 })
        );
        assert!(config(1, 1, 3600.5).validate().is_err());
        for d in [0.0, -0.0, -1.0, 3600.5, f64::NAN, f64::INFINITY] {
            let err = duration_from_secs(d).unwrap_err();
            assert!(matches!(err, KernelError::Duration { .. }), "{d}: {err}");
            assert!(err.to_string().starts_with("--duration must be"));
        }
        assert_eq!(
            duration_from_secs(-1.0).unwrap_err().to_string(),
            "--duration must be a finite number of seconds greater than 0 and at most 3600, got -1"
        );
        assert_eq!(duration_from_secs(0.25), Ok(Duration::from_millis(250)));
    }

    #[test]
    fn parse_from_strings() {
        assert_eq!(
            KernelConfig::parse("fp", "4", "2", "0.1"),
            Ok(KernelConfig {
                op: Op::Fp,
                chains: 4,
                threads: 2,
                duration: Duration::from_millis(100),
            })
        );
        assert_eq!(
            KernelConfig::parse("int", "x", "1", "0.3")
                .unwrap_err()
                .to_string(),
            "--chains takes a number, got \"x\""
        );
        assert!(matches!(
            KernelConfig::parse("mul", "1", "1", "0.3"),
            Err(KernelError::Op(_))
        ));
        assert_eq!(
            KernelConfig::parse("int", "1", "1", "abc"),
            Err(KernelError::Parse {
                flag: "--duration",
                value: "abc".into()
            })
        );
        assert_eq!(
            KernelConfig::parse("int", "0", "1", "0.3"),
            Err(KernelError::Chains { got: 0 })
        );
        assert!(matches!(
            KernelConfig::parse("int", "1", "1", "-2"),
            Err(KernelError::Duration { .. })
        ));
    }

    #[test]
    fn chains_checked_before_threads() {
        let err = config(0, 0, 0.0).validate().unwrap_err();
        assert_eq!(err, KernelError::Chains { got: 0 });
    }
}
