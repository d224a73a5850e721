//! `cargo xtask reproduce-appendix`: Appendix F ("Statistical Reasoning for Benchmarks")
//! measured again on this machine through abba's own scheduler and kernel, and its
//! published figures recomputed from its own tables.
//!
//! Three experiments run, each `abba compute --op int --threads 1 --duration S --json` as
//! child processes with seeded layout padding:
//!
//! 1. the real effect, `chains=1` vs `chains=2`, one run of each per block in a fresh
//!    random order per block ([`bench_sched::Design::Random`]);
//! 2. the null pair, `chains=1` twice per block under the names `run A` / `run B`, same
//!    design;
//! 3. the unpaired contrast: two sessions of `chains=1`, one after the other, analysed by
//!    resampling individual runs ([`bench_stats::resample::unpaired_bootstrap_difference`]).
//!
//! The paired statistics are the appendix's: mean-based block bootstrap (2000 resamples,
//! 95 % percentile interval) of the difference and of the ratio of means, and Cohen's
//! dz ([`bench_stats::paired::paired_analysis`]). `--check` recomputes them from `fixtures/appendix/` and
//! compares them with the published figures within the tolerances the fixture states.
//!
//! One file per concern: [`fixture`] (the appendix's tables and figures), [`stats`] (the
//! statistics), [`check`] (`--check`), [`measure`] (the experiments on this machine) and
//! [`report`] (console, Markdown and JSON).

mod check;
mod fixture;
mod measure;
mod report;
mod stats;

pub use check::run_check;
pub use measure::{OutputFormat, ReproduceConfig, reproduce};

/// Resamples of every bootstrap interval (the appendix's 2000).
pub const RESAMPLES: u32 = 2000;
/// Confidence of every interval (the appendix's 95 %).
pub const CONFIDENCE: f64 = 0.95;
/// Simulated repetitions behind the null false-positive rate.
const NULL_SIMULATIONS: u32 = 400;
