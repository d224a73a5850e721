//! The multi-level part of an analysis: one experiment measured on several hosts and in
//! several sessions ([`Analysis::levels`](crate::Analysis::levels), beyond the v1
//! contract, serialized only when present).
//!
//! Exhaustive on purpose, as the rest of the document (see [`crate::model::report`]).

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::model::report::Outcome;

/// The whole experiment seen level by level: hosts, then sessions, then blocks, then runs.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct LevelsReport {
    /// The host names, in the order the data named them.
    pub hosts: Vec<String>,
    /// Sessions in all (an `abba compare` run, or each `--resume` of one).
    pub sessions: usize,
    /// The top level the pooled interval pools over: `host` with 2+ hosts, else `session`.
    pub top_level: String,
    /// Resamples of the hierarchical bootstrap (the cross-check, `pooled.bootstrap`).
    pub resamples: u32,
    /// Permutations of the heterogeneity test.
    pub permutations: u32,
    /// One per comparison of two blocked variants (candidate against its baseline).
    pub comparisons: Vec<LevelledComparison>,
}

/// One candidate against its baseline, pooled over the levels.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct LevelledComparison {
    /// The class of the group, if any.
    pub class: Option<String>,
    /// The baseline's name.
    pub baseline: String,
    /// The candidate's name.
    pub candidate: String,
    /// The pooled effect and what it claims.
    pub pooled: PooledEffect,
    /// Each host's own effect (or each session's, when there is one host).
    pub per_unit: Vec<UnitEffect>,
    /// Variance of the log values at each level (host, session, block, run).
    pub variance: Vec<LevelVariance>,
    /// Does the effect differ across the top-level units more than their blocks explain?
    /// `None` when it cannot be tested (a unit with fewer than 2 blocks, or no spread
    /// within a unit).
    pub heterogeneity: Option<HeterogeneityReport>,
    /// The sentence a report prints for the pooled verdict.
    pub summary: String,
}

/// The pooled effect of a candidate: a mean over top-level units of their mean block
/// log-ratios, as a ratio, with its interval.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct PooledEffect {
    /// Candidate over baseline, `exp` of the pooled mean block log-ratio: with
    /// [`PooledMethod::TOnMeans`] the plain mean of the units' means (each unit weighs the
    /// same), with [`PooledMethod::RandomEffectsHksj`] their random-effects weighted mean.
    pub ratio: f64,
    /// The interval of `ratio` at `level`, by `method`: `estimate ± t(df) · standard_error`
    /// on the log scale; `None` with one top-level unit.
    pub ci: Option<[f64; 2]>,
    /// Confidence level of `ci`: the analysis's confidence (`1 - alpha` unless asked
    /// otherwise). The verdict is always taken at `1 - alpha`.
    pub level: f64,
    /// Degrees of freedom of `ci`: top-level units minus 1.
    pub df: usize,
    /// Standard error of the pooled log-ratio by `method`.
    pub standard_error: Option<f64>,
    /// Faster, slower (the `1 - alpha` interval excludes no change), equivalent (the
    /// `1 - 2 alpha` interval inside the margin) or inconclusive.
    pub outcome: Outcome,
    /// Top-level units pooled (hosts, or sessions with one host).
    pub units: usize,
    /// Blocks pooled.
    pub blocks: usize,
    /// What the verdict can claim given the number of units, in words.
    pub note: String,
    /// How the interval is built: a t interval on the units' means (balanced units), or a
    /// random-effects meta-analysis with the Hartung-Knapp-Sidik-Jonkman variance.
    pub method: PooledMethod,
    /// The DerSimonian-Laird between-unit variance of the effect (log scale) the
    /// random-effects weights use; `None` for the t interval on the means.
    pub tau_squared: Option<f64>,
    /// The HKSJ factor `q = Σ w (y - μ)² / (k - 1)` before its truncation at 1 (the
    /// variance is `max(1, q) / Σ w`); `None` for the t interval on the means.
    pub hksj_factor: Option<f64>,
    /// The hierarchical bootstrap's interval, kept as a cross-check (conservative: it
    /// counts the within-unit noise twice); `None` when it could not be drawn.
    pub bootstrap: Option<PooledBootstrap>,
}

/// How a pooled interval is built from the top-level units' mean block log-ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum PooledMethod {
    /// Student's t on the units' means, `k - 1` degrees of freedom: for balanced units
    /// (every unit the same sessions and blocks), or when a unit has no within-unit
    /// variance to weigh it by.
    TOnMeans,
    /// A random-effects meta-analysis of the units' means: DerSimonian-Laird `τ²`, weights
    /// `1 / (v + τ²)`, the Hartung-Knapp-Sidik-Jonkman variance with its `max(1, q)`
    /// modification for few units, Student's t with `k - 1` degrees of freedom.
    RandomEffectsHksj,
}

impl PooledMethod {
    /// The stable name, as serialized: `t-on-means`, `random-effects-hksj`.
    pub fn as_str(self) -> &'static str {
        match self {
            PooledMethod::TOnMeans => "t-on-means",
            PooledMethod::RandomEffectsHksj => "random-effects-hksj",
        }
    }
}

/// The hierarchical bootstrap's view of the pooled effect (units, then sessions, then
/// blocks resampled with replacement), beside the interval that decides.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct PooledBootstrap {
    /// `exp` of the plain mean over units of their mean block log-ratio.
    pub ratio: f64,
    /// `estimate ± t(df) · SE · sqrt(k / (k - 1))` at the pooled `level`, as ratios.
    pub ci: Option<[f64; 2]>,
    /// The standard deviation of the resampled pooled log-ratios.
    pub standard_error: f64,
    /// Resamples drawn.
    pub resamples: u32,
}

/// One host's (or session's) own effect.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct UnitEffect {
    /// The host's name (or `host/session N`).
    pub name: String,
    /// Its sessions.
    pub sessions: usize,
    /// Its complete blocks.
    pub blocks: usize,
    /// `exp` of the mean block log-ratio.
    pub ratio: f64,
    /// Student t interval of the mean block log-ratio at the pooled level, as ratios;
    /// `None` with fewer than 2 blocks.
    pub ci: Option<[f64; 2]>,
    /// Standard error of the mean block log-ratio; `None` with fewer than 2 blocks.
    pub standard_error: Option<f64>,
}

/// The variance of the log values at one level.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct LevelVariance {
    /// `host`, `session`, `block` or `run`.
    pub level: String,
    /// Units at this level.
    pub units: usize,
    /// The variance component of the natural log of the values (truncated at 0); `None`
    /// when the level cannot be told apart from the one above (each unit above holds
    /// exactly one of its units), its variance then counted in the level above.
    pub variance: Option<f64>,
    /// Its share of the total (0 to 1); `None` when the total is 0 or `variance` is.
    pub share: Option<f64>,
}

/// Cochran's Q across the units' mean block log-ratios, with a permutation p-value.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct HeterogeneityReport {
    /// Cochran's Q: the inverse-variance weighted squared deviations of the units' means.
    pub q: f64,
    /// Units minus 1.
    pub df: usize,
    /// Share of the spread beyond chance, `max(0, (Q - df) / Q)` (Higgins & Thompson).
    pub i_squared: f64,
    /// The between-unit variance of the effect (DerSimonian-Laird, truncated at 0), on the
    /// log scale.
    pub tau_squared: f64,
    /// Permutation p-value of Q (blocks shuffled across units, sizes kept).
    pub p_value: f64,
    /// `p_value < alpha`: the effect differs across units.
    pub significant: bool,
}
