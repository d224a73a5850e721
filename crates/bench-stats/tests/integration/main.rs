//! bench-stats' integration tests, one binary (one link instead of one per file; the
//! ripgrep layout: `autotests = false` and `[[test]] integration` in Cargo.toml). Each
//! module is one former test file; `support` (tolerances) and `sim` (the simulator's
//! names) are shared. The tables of `docs/estimator-grid.md` are printed by `cargo xtask
//! decision-grid`, `until-decided-grid` and `estimator-grid`; `decision_grid` and
//! `estimator_grid` here are their CI checks.

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
mod calibration;
mod carryover_sim;
mod decision_calibration;
mod decision_grid;
mod determinism;
mod estimator_grid;
mod hierarchy_reference;
mod hierarchy_sim;
mod history;
mod median_interval_reference;
mod meta_reference;
mod plan;
mod properties_paired;
mod properties_rank;
mod reference_sim;
mod scipy_reference;
mod sequential_calibration;
mod shape_reference;
mod sim_changes;
mod sim_profiles;
mod suite;
mod variance_reference;
mod verdicts;
mod welch_reference;
