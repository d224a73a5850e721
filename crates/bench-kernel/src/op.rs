//! The operation each dependency chain performs per step.

use std::fmt;
use std::str::FromStr;

/// The operation a chain repeats, one per step.
///
/// Every variant is a single dependent operation per step and chain, so one chain is
/// bound by the operation's latency and many chains by the core's throughput. The
/// `Codegen` section of the crate's README shows what each compiles to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Op {
    /// Integer multiply-add, `x = x * M + c` (wrapping `u64`, `M` odd, `c` distinct per
    /// chain): one `imul` (3 cycles on current x86 cores) then one `add` (1 cycle).
    #[default]
    Int,
    /// Integer add, `x = x + t[i]` where `t` is a small per-thread table read at a
    /// position that moves with the step index: one `add reg, [mem]` per step, 1 cycle of
    /// latency on the chain (the load is off the chain).
    Add,
    /// Floating-point multiply then add, `x = x * a + b` in `f64` with `a` slightly below
    /// one and `b` small, so values stay near 1 (no overflow, no subnormals). Not fused:
    /// one `mulsd` and one `addsd`.
    Fp,
}

impl Op {
    /// Every operation, in the order used by sweeps and error messages.
    pub const ALL: [Op; 3] = [Op::Int, Op::Add, Op::Fp];

    /// The lowercase name accepted by [`FromStr`] (`"int"`, `"add"`, `"fp"`).
    pub fn name(self) -> &'static str {
        match self {
            Op::Int => "int",
            Op::Add => "add",
            Op::Fp => "fp",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error returned when a string names no [`Op`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOpError {
    given: String,
}

impl ParseOpError {
    /// The string that was rejected.
    pub fn given(&self) -> &str {
        &self.given
    }
}

impl fmt::Display for ParseOpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown op {:?}: expected one of ", self.given)?;
        for (i, op) in Op::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(op.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseOpError {}

impl FromStr for Op {
    type Err = ParseOpError;

    /// Parses `int`, `add` or `fp` (exact, lowercase).
    ///
    /// # Errors
    ///
    /// [`ParseOpError`] for any other string; its message lists the accepted names.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Op::ALL
            .into_iter()
            .find(|op| op.name() == s)
            .ok_or_else(|| ParseOpError {
                given: s.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for op in Op::ALL {
            assert_eq!(op.name().parse::<Op>(), Ok(op));
            assert_eq!(op.to_string(), op.name());
        }
    }

    #[test]
    fn unknown_name_lists_the_ops() {
        let err = "mul".parse::<Op>().unwrap_err();
        assert_eq!(err.given(), "mul");
        assert_eq!(
            err.to_string(),
            "unknown op \"mul\": expected one of int, add, fp"
        );
        assert!("INT".parse::<Op>().is_err());
        assert!("".parse::<Op>().is_err());
    }
}
