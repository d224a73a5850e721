//! Experiments: the configuration ([`ExperimentConfig`]), the loop ([`run_experiment`]),
//! its progress hooks ([`Observer`]), what it returns (the [`crate::Experiment`] record) and
//! how it continues a previous raw file ([`ResumePoint`]).

mod budget;
mod config;
mod header;
mod hooks;
mod observer;
mod resume;
mod run;
mod stop;

pub use config::{
    ExperimentConfig, FailurePolicy, Identity, REFERENCE_NAME, ScanParameter, Until, Variant,
};
pub use hooks::{HookKind, Hooks};
pub use observer::{NoopObserver, Observer};
pub use resume::ResumePoint;
pub use run::run_experiment;

#[cfg(test)]
mod tests;
