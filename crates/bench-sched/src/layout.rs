//! Memory-layout randomisation through the size of the environment block.
//!
//! The bytes of the environment sit at the top of the child's stack, so their total size
//! shifts where the stack (and everything aligned relative to it) lands. Giving every run a
//! seeded random amount of padding turns that hidden, fixed layout draw into a visible,
//! randomised part of the noise; the padding of each run is recorded as `env_pad`.

use std::fmt;
use std::str::FromStr;

use rand::Rng;

use crate::design::PlannedRun;
use crate::rng::block_rng;

/// Name of the environment variable that carries the padding.
pub const LAYOUT_ENV_VAR: &str = "ABBA_LAYOUT_PAD";

/// Largest padding drawn by [`Layout::Random`].
pub const MAX_LAYOUT_PAD: usize = 4095;

const SALT_PAD: u64 = 0x0070_6164;

/// How much environment padding each run gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layout {
    /// A length drawn uniformly from 0..=4095 per run, from the experiment seed.
    Random,
    /// The same length for every run. `Fixed(0)` still sets the variable (empty), so the
    /// environment differs from abba's own only by that one name.
    Fixed(usize),
}

impl Default for Layout {
    /// `Random`: randomising the layout is the safer default for comparisons.
    fn default() -> Self {
        Layout::Random
    }
}

impl Layout {
    /// The padding (bytes of `x`) for one planned run: a pure function of
    /// (seed, block, position), so schedules and pads are reproducible. Time: O(1).
    pub fn pad_for(self, seed: u64, run: &PlannedRun) -> usize {
        match self {
            Layout::Fixed(n) => n,
            Layout::Random => {
                let mut rng =
                    block_rng(seed, run.block, SALT_PAD ^ (u64::from(run.position) << 32));
                rng.random_range(0..=MAX_LAYOUT_PAD)
            }
        }
    }
}

impl fmt::Display for Layout {
    /// `random` or `fixed:N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layout::Random => f.write_str("random"),
            Layout::Fixed(n) => write!(f, "fixed:{n}"),
        }
    }
}

/// A layout text that is not `random`, `fixed` or `fixed:N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown layout {given:?}; expected one of: random, fixed, fixed:N (N bytes of padding)")]
pub struct LayoutParseError {
    /// The rejected text.
    pub given: String,
}

impl FromStr for Layout {
    type Err = LayoutParseError;

    /// Parses `random`, `fixed` (= `fixed:0`) or `fixed:N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || LayoutParseError {
            given: s.to_owned(),
        };
        match s {
            "random" => Ok(Layout::Random),
            "fixed" => Ok(Layout::Fixed(0)),
            _ => {
                let n = s.strip_prefix("fixed:").ok_or_else(err)?;
                n.parse().map(Layout::Fixed).map_err(|_| err())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::{Design, ReferenceRuns, Schedule};

    #[test]
    fn pads_are_seeded_and_in_range() {
        let s = Schedule::plan(Design::Abba, 2, 30, 11, ReferenceRuns::None);
        let a: Vec<usize> = s
            .runs
            .iter()
            .map(|r| Layout::Random.pad_for(11, r))
            .collect();
        let b: Vec<usize> = s
            .runs
            .iter()
            .map(|r| Layout::Random.pad_for(11, r))
            .collect();
        let c: Vec<usize> = s
            .runs
            .iter()
            .map(|r| Layout::Random.pad_for(12, r))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|&p| p <= MAX_LAYOUT_PAD));
        let mut distinct = a.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 60, "pads should vary: {distinct:?}");
        assert!(
            s.runs
                .iter()
                .all(|r| Layout::Fixed(17).pad_for(11, r) == 17)
        );
    }

    #[test]
    fn layout_parse_and_display_round_trip() {
        for l in [Layout::Random, Layout::Fixed(0), Layout::Fixed(100)] {
            assert_eq!(l.to_string().parse::<Layout>(), Ok(l));
        }
        assert_eq!("fixed".parse::<Layout>(), Ok(Layout::Fixed(0)));
        assert!("fixed:x".parse::<Layout>().is_err());
        assert!("rand".parse::<Layout>().is_err());
    }
}
