//! bench-lab's tests, one binary: the simulator against the figures it was fitted to
//! (`sim_profiles`) and against hand computations (`sim_changes`), and the seeded grids
//! that re-measure the estimators on it (`calibration`, `estimator_grid`,
//! `reference_sim`). The rules users act on (A/A at alpha, the gate, the sequential stop)
//! are asserted by bench-stats' own tests.

// The 100-line limit (clippy.toml) is for the crates' code; a table-driven test or a
// fixture that spells out one whole analysis reads best in one piece.
#![allow(clippy::too_many_lines)]

/// The simulator under the names the calibration tests use.
mod sim {
    pub use bench_lab::sim::{
        Experiment, NoiseProfile, SimConfig, SimDesign as Design, simulate, values,
    };
}

mod calibration;
mod estimator_grid;
mod reference_sim;
mod sim_changes;
mod sim_profiles;
mod the_plan_pilot;
