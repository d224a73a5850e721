//! The shared analysis flags into the library's [`AnalysisConfig`], and the fresh seed.

use bench_sched::Metric;
use bench_stats::AnalysisConfig;

use crate::args::AnalysisArgs;
use crate::core::exit::usage;

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
    let config = args.apply(AnalysisConfig {
        seed,
        // A count's verdict gets its own margin (Metric::default_equivalence_margin).
        equivalence_margin: metric.map_or(
            AnalysisConfig::DEFAULT_EQUIVALENCE_MARGIN,
            Metric::default_equivalence_margin,
        ),
        progress: crate::core::progress::AnalysisBar::hook(args.quiet),
        ..AnalysisConfig::default()
    });
    check_alpha(config.alpha)?;
    config.validate().map_err(|e| usage(format!("--{e}")))?;
    Ok(config)
}

/// A seed from the operating system's randomness (not the clock), printed and stored.
pub(crate) fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::process::id()) % 1_000_000_000
}
