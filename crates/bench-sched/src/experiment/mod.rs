//! Experiments: the configuration ([`ExperimentConfig`]), the loop ([`run_experiment`]),
//! its progress hooks ([`Observer`]), what it returns (the [`crate::Experiment`] record) and
//! how it continues a previous raw file ([`ResumePoint`]).

mod budget;
mod builder;
mod config;
mod differences;
mod header;
mod hooks;
mod invalid;
mod naming;
mod observer;
mod resumable;
mod resume;
mod run;
mod stop;

pub use budget::BudgetFit;
pub use builder::{BuildError, ExperimentBuilder, HookTexts, MAX_SCHEDULED_RUNS};
pub use config::{
    DEFAULT_BLOCKS, ExperimentConfig, FailurePolicy, Identity, MAX_BLOCKS, MAX_RUNS_PER_BLOCK,
    MAX_WARMUP, REFERENCE_NAME, ScanParameter, Until, Variant,
};
pub use differences::Mismatch;
pub(crate) use hooks::raw_hooks;
pub use hooks::{HookKind, HookSpecError, Hooks};
pub use invalid::ConfigError;
pub use naming::{NameError, variant_names};
pub use observer::{NoopObserver, Observer};
pub use resumable::NotResumable;
pub use resume::ResumePoint;
pub use run::run_experiment;

#[cfg(test)]
mod tests;
