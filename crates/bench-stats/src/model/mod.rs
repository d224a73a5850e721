//! The data model: what an analysis takes in ([`Dataset`]) and what it gives back
//! ([`Analysis`], the `abba.analysis/1` document every renderer and script reads).

pub mod blocks;
pub mod dataset;
pub mod distribution;
pub mod levels;
pub mod metrics;
pub mod native;
pub mod noise;
mod rate;
pub mod report;

pub use blocks::{AsBlocks, Blocks};
pub use dataset::{
    Dataset, Observation, Parameter, Quantity, ReferenceRun, Series, nanos_per_time_unit,
};
pub use distribution::{DistributionKind, IntervalDistribution};
pub use levels::{
    HeterogeneityReport, LevelVariance, LevelledComparison, LevelsReport, PooledBootstrap,
    PooledEffect, PooledMethod, UnitEffect,
};
pub use metrics::{LayoutSpread, MetricComparison, MetricEffect, MetricsReport};
pub use native::{NativeTimeComparison, NativeTimeReport};
pub use noise::{CpuBound, CpuTimeVerdict, NoiseComparison, NoiseFinding, NoiseReport};
pub use rate::is_rate_unit;
pub use report::*;
