//! Anytime-valid sequential experiments: a confidence sequence for the block-level
//! effect, looked at after every block, and the rule that stops at the first look that
//! decides (`abba compare --until decided`).
//!
//! # The sequence
//!
//! A fixed-sample interval covers the effect at the one sample size that was planned;
//! looked at after every block and stopped when it first excludes no change, its error
//! rate grows with the looks. A *confidence sequence* covers the effect at every block
//! count at once, with probability `1 - alpha`, so any data-dependent stop keeps it.
//!
//! abba's sequence is for the **median of the per-block log-ratios**
//! `d_i = ln(candidate_i / baseline_i)`, built from sign indicators: at the true median
//! `m` the `1{d_i <= m}` are fair coins, the beta-binomial mixture of their likelihood
//! ratios is a nonnegative martingale, and Ville's inequality turns it into a sequence of
//! order statistics `[d_(k+1), d_(t-k)]` ([`SignBoundary`]; Howard and Ramdas 2022,
//! "Sequential estimation of quantiles with applications to A/B-testing and best-arm
//! identification", Bernoulli 28(3); Howard, Ramdas, McAuliffe and Sekhon 2021 for the
//! mixture boundary). It needs no moment and no asymptotics: only independent blocks
//! whose log-ratios share their median. Ties (identical block values) are counted on the
//! side that keeps the interval wider.
//!
//! # Why the median, not the mean
//!
//! On shared machines many blocks hold a run slowed far more than the change: the plain SD
//! of the block log-ratios is many times their robust spread. The asymptotic sequence for
//! the mean (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas 2021, "Time-uniform central
//! limit theory and asymptotic confidence sequences"; [`SequenceMethod::AsymptoticMean`])
//! pays that SD in width, while the sign sequence only sees on which side each block
//! falls. The calibration (`docs/sequential.md`, with its figures; `cargo xtask
//! sequential`) keeps both within alpha under continuous monitoring, and shows the sign
//! sequence deciding small effects in far fewer blocks. Robust mean sequences (Catoni /
//! Huber style, Wang and Ramdas 2023) need a known variance bound, which a benchmark user
//! does not have; they were not adopted.
//!
//! # The decision
//!
//! After block `t >= min_blocks`: **larger / smaller** (FASTER or SLOWER, by the metric's
//! direction) when the interval excludes ratio 1 and does not lie inside the margin;
//! **equivalent** when it lies inside `1 ± margin`; else continue, and at `max_blocks`
//! INCONCLUSIVE with the interval reached ([`SequentialRule::decide`]).
//!
//! ```
//! use bench_stats::sequential::{LookDecision, SequentialRule, replay};
//! // A candidate 10% slower in every block is decided at the first look allowed.
//! let rule = SequentialRule::default();
//! let r = replay(&[0.1_f64.ln_1p(); 12], &rule);
//! let first = &r.looks[r.first_decision.unwrap()];
//! assert_eq!((first.blocks, first.decision), (7, LookDecision::Larger));
//! ```

mod asymptotic;
mod boundary;
mod look;
mod rule;
mod sequence;

pub use asymptotic::half_width as asymptotic_half_width;
pub use boundary::{DEFAULT_PRIOR, SignBoundary, ln_mixture};
pub use look::{dataset_log_ratios, dataset_shape, shape_agrees};
pub use rule::{Look, LookDecision, Replay, SequentialRule, block_log_ratios, replay};
pub use sequence::{ConfidenceSequence, SequenceMethod};
