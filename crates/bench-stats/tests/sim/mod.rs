//! The workspace's simulator (`bench_lab::sim`, on bench-stats' noise machine) under the
//! names these calibration tests use.

#[allow(unused_imports)] // each test binary uses a subset
pub use bench_lab::sim::{
    Experiment, NoiseProfile, SimConfig, SimDesign as Design, simulate, simulate_cycles, values,
};
