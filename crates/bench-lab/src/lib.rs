//! # bench-lab: abba's research room (not published)
//!
//! What serves the team rather than the user: the simulator the decision rules are
//! calibrated on, and the harness the research drivers share with xtask's chores. The
//! drivers themselves are this crate's binary (`cargo run -p bench-lab -- <command>`, or
//! `cargo xtask <command>`, which forwards here):
//!
//! | command | what it measures |
//! | --- | --- |
//! | `decision-grid`, `until-decided-grid` | the whole decision through `analyze()` on every simulated noise profile |
//! | `estimator-grid` | every paired estimator on the simulated profiles: false positives, coverage, power |
//! | `sequential` | the `--until decided` grid on the simulated profiles |
//! | `history-calibrate` | `abba history`'s change points on simulated commit histories |
//! | `calibrate`, `neighbour` | real A/A and A/B rates through `abba compare`, under a seeded noisy neighbour |
//! | `counters` | instruction counts against wall time under the neighbour |
//! | `replay`, `plan-check` | the estimators and `abba plan` on the recordings under `fixtures/recordings/` |
//! | `chain-sweep`, `scipy-timing` | chains 1..8 in randomized blocks; the rank tests' speed against SciPy |
//! | `history-demo`, `history-scale` | the history store on a toy repository; `history show` on 10,000 experiments |
//!
//! The library:
//!
//! - [`sim`]: designs, changes that are not shifts, the oracle and the truths, built on
//!   `bench_stats::sim` (the noise machine `abba plan --profile` ships with);
//! - [`run`]: finding the workspace, building `abba`, running blocked kernel experiments
//!   through `bench-sched`;
//! - [`table`]: the plain-text and Markdown tables of the reports.
//!
//! ```
//! use bench_lab::sim::{Change, NoiseProfile, SimDesign, simulate_change};
//! let cfg = NoiseProfile::SharedVm.config();
//! let e = simulate_change(&cfg, &Change::shift(1.02), SimDesign::Abba, 10, 1, 7);
//! assert_eq!(e.runs.len(), 40); // 10 blocks of ABBA
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

pub mod rank_data;
pub mod run;
pub mod sim;
pub mod table;
