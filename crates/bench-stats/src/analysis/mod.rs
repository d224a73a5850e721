//! The whole analysis: configuration, the pluggable significance strategy, the engine
//! that turns a [`crate::Dataset`] into an [`crate::Analysis`], and the verdict words.

mod blocks;
mod comparison;
mod config;
mod engine;
mod paired_verdict;
mod significance;
mod verdict;
mod warnings;

pub use config::{AnalysisConfig, Grouping};
pub use engine::{analyze, analyze_with};
pub use significance::{
    DefaultTest, EffectSize, FriedmanTest, Group, KruskalWallisTest, MannWhitneyTest,
    PairwiseComparison, SignificanceContext, SignificanceReport, SignificanceTest,
    paired_dominance,
};
