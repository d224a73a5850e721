//! Checks of the assumptions behind the intervals: independence and stationarity of a run
//! stream (drift, autocorrelation), dependence of neighbouring runs inside blocks, carryover between the runs of an ABBA block, and
//! where a wall-time comparison's spread comes from (time on the CPU or off it).

pub mod carryover;
pub mod differential;
pub mod iid;
pub mod native_time;
pub mod off_cpu;
pub mod within_block;

pub use carryover::{
    BlockJoin, CarryoverConfig, CarryoverFinding, CarryoverReport, CarryoverRun,
    DifferentialCarryover, carryover,
};
pub use differential::{ResidualCarryover, residual_carryover};
pub use iid::{IidChecks, IidConfig, iid_checks, iid_checks_with};
pub use native_time::native_time;
pub use within_block::{
    BlockedRun, WITHIN_BLOCK_LEVEL, WITHIN_BLOCK_SCREEN, WithinBlockConfig, WithinBlockDependence,
    within_block_dependence, within_block_dependence_with,
};
