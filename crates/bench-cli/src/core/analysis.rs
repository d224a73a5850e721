//! The shared analysis flags into the library's [`AnalysisConfig`], and the fresh seed.

use bench_sched::Metric;
use bench_stats::{AnalysisConfig, Grouping};

use crate::args::AnalysisArgs;
use crate::core::exit::usage;

/// The equivalence margin when `--equivalence-margin` is not given: 1%, or 0.1% when the
/// verdict decides on a count (instructions, cycles, ...). Counts resolve a hundredth of
/// a percent, so a change of half a percent is both measurable and what a gate on
/// instruction counts exists to catch; under a 1% margin it would read EQUIVALENT.
pub const COUNT_MARGIN: f64 = 0.001;

/// The default margin for `metric` (see [`COUNT_MARGIN`]).
pub(crate) fn default_margin(metric: Option<&Metric>) -> f64 {
    match metric {
        Some(Metric::Count(_)) => COUNT_MARGIN,
        _ => 0.01,
    }
}

/// Turns the shared analysis flags into the library's config.
pub fn analysis_config(args: &AnalysisArgs, seed: u64) -> anyhow::Result<AnalysisConfig> {
    analysis_config_for(args, seed, None)
}

/// The smallest `--alpha` accepted.
pub const MIN_ALPHA: f64 = 1e-6;

/// Refuses an `--alpha` below [`MIN_ALPHA`] naming the flag (`compare`, `analyze` and
/// `suite` alike); the library's own check covers the rest of its range.
pub fn check_alpha(alpha: f64) -> anyhow::Result<()> {
    // 1 - alpha is the default confidence: below about 1e-15 it rounds to 1 in floating
    // point, and far before that no resampling or exact test resolves the level.
    if alpha > 0.0 && alpha < MIN_ALPHA {
        return Err(usage(format!(
            "--alpha {alpha:e}: must be at least 1e-6 (one in a million); a smaller level cannot be resolved by the tests or their resamples"
        )));
    }
    Ok(())
}

/// [`analysis_config`] for data of `metric`, whose default margin depends on it.
pub fn analysis_config_for(
    args: &AnalysisArgs,
    seed: u64,
    metric: Option<&Metric>,
) -> anyhow::Result<AnalysisConfig> {
    check_alpha(args.alpha)?;
    let config = AnalysisConfig {
        alpha: args.alpha,
        // The interval beside the verdict is at the verdict's level unless asked otherwise.
        confidence: args.confidence.unwrap_or(1.0 - args.alpha),
        resamples: args.resamples,
        seed,
        baseline: args.baseline.clone(),
        min_practical_effect: args.min_practical_effect,
        equivalence_margin: args
            .equivalence_margin
            .unwrap_or_else(|| default_margin(metric)),
        practical: args.practical,
        grouping: if args.cross_class {
            Grouping::CrossClass
        } else {
            Grouping::PerClass
        },
        paired_estimator: args
            .estimator
            .unwrap_or(AnalysisConfig::default().paired_estimator),
        progress: crate::core::progress::AnalysisBar::hook(args.quiet),
        ..AnalysisConfig::default()
    };
    config.validate().map_err(|e| usage(format!("--{e}")))?;
    Ok(config)
}

/// A seed from the operating system's randomness (not the clock), printed and stored.
pub(crate) fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::process::id()) % 1_000_000_000
}
