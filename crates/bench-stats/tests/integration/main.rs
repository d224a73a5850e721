//! bench-stats' integration tests, one binary (one link instead of one per file; the
//! ripgrep layout: `autotests = false` and `[[test]] integration` in Cargo.toml). Each
//! module is one former test file; `support` (tolerances) and `sim` (the simulator's
//! names, from `bench-lab`) are shared. The modules here assert the rules (A/A at alpha,
//! the gate, the guarantees of the decision) on CI-sized simulations; the tests that
//! re-measure the simulator and the estimator grid are bench-lab's (`cargo test -p
//! bench-lab`), and the tables of `docs/estimator-grid.md` are printed by `cargo xtask
//! decision-grid`, `until-decided-grid` and `estimator-grid` (bench-lab's drivers).

// The 100-line limit (clippy.toml) is for the crates' code; a table-driven test or a
// fixture that spells out one whole analysis reads best in one piece.
#![allow(clippy::too_many_lines)]

#[path = "../sim/mod.rs"]
mod sim;
#[path = "../support/mod.rs"]
mod support;

mod analysis;
mod appendix;
mod bootstrap_reference;
mod carryover_sim;
mod carryover_verdict;
mod decision_calibration;
mod decision_grid;
mod determinism;
mod equivalence_disturbed;
mod hierarchy_reference;
mod hierarchy_sim;
mod history;
mod median_interval_reference;
mod meta_reference;
mod plan;
mod properties_paired;
mod properties_rank;
mod scipy_reference;
mod sequential_calibration;
mod shape_reference;
mod suite;
mod variance_reference;
mod verdicts;
mod welch_reference;
