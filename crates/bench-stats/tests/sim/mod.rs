//! The library's simulator (`bench_stats::sim`, feature `sim`) under the names these
//! calibration tests use.

#[allow(unused_imports)] // each test binary uses a subset
pub use bench_stats::sim::{
    Experiment, NoiseProfile, SimConfig, SimDesign as Design, simulate, simulate_cycles, values,
};
