//! From a test's answer to what a user acts on: the practical rule, the equivalence test,
//! and the outcome.
//!
//! - **One decision, one p.** The verdict compares the deciding test's p with alpha (a
//!   Holm-adjusted p where a correction applies); interval-based rules use the
//!   `1 - alpha` interval. [`DecisionReport`] names the test and its scale.
//! - **Equivalence is a test**: two one-sided tests (Schuirmann 1987) on the ratio scale,
//!   read off the `1 - 2 alpha` interval of the ratio: equivalent when it lies inside
//!   `[1 - margin, 1 + margin]`. Never from fewer blocks than can reach alpha, never from
//!   an interval whose coverage is below its nominal level. Identical values in every
//!   block (deterministic counts) are equivalent: the interval is exactly `[1, 1]`.
//! - **Practical size.** The ratio rule (blocked data by default): a significant change
//!   whose equivalence interval lies inside the margin is real but smaller than the margin,
//!   so *equivalent*; otherwise faster or slower. The Cliff rule (unpaired data by default,
//!   the NBenchmark gate): a significant change whose |Cliff's delta| is below the
//!   threshold is downgraded to not significant, since the two distributions overlap too
//!   much to call it a difference.

use crate::analysis::config::{AnalysisConfig, PracticalRule};
use crate::analysis::paired_verdict::min_paired_blocks;
use crate::descriptive::Sample;
use crate::model::report::{DecisionReport, Outcome, Verdict};
use crate::paired::shape::{PartMove, PartStatistic, ShapeAnalysis};
use crate::rank::wilcoxon::paired_hodges_lehmann;
use crate::resample::bootstrap::{BootstrapConfig, IntervalMethod};
use crate::resample::median_ratio::median_ratio;

/// Fewest values per group for an unpaired equivalence test: below it the percentile
/// bootstrap of a median covers less than it claims.
pub(crate) const MIN_UNPAIRED_EQUIVALENCE: usize = 8;

/// The equivalence test of one comparison.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Equivalence {
    /// The `1 - 2 alpha` ratio interval, and whether it lies inside the margin.
    Tested { interval: [f64; 2], inside: bool },
    /// No test could be made, and why.
    Untestable(&'static str),
}

impl Equivalence {
    pub(crate) fn shown(&self) -> bool {
        matches!(self, Equivalence::Tested { inside: true, .. })
    }

    pub(crate) fn interval(&self) -> Option<[f64; 2]> {
        match self {
            Equivalence::Tested { interval, .. } => Some(*interval),
            Equivalence::Untestable(_) => None,
        }
    }

    fn note(&self) -> Option<String> {
        match self {
            Equivalence::Tested { .. } => None,
            Equivalence::Untestable(why) => Some((*why).to_owned()),
        }
    }
}

fn inside(interval: [f64; 2], margin: f64) -> bool {
    interval[0] >= 1.0 - margin && interval[1] <= 1.0 + margin
}

/// Two one-sided tests on blocked data: the signed-rank interval of the block log-ratios
/// at `1 - 2 alpha`, exponentiated. Time: O(n^2 log n) in the blocks (the Walsh averages).
pub(crate) fn paired_equivalence(
    block_values: &[[f64; 2]],
    config: &AnalysisConfig,
) -> Equivalence {
    if block_values.len() < min_paired_blocks(config.alpha) {
        return Equivalence::Untestable("too few blocks to reach alpha");
    }
    if block_values.iter().any(|v| v[0] <= 0.0 || v[1] <= 0.0) {
        return Equivalence::Untestable("ratios need positive values");
    }
    let logs: Vec<f64> = block_values
        .iter()
        .map(|v| crate::special::log_ratio(v[1], v[0]))
        .collect();
    if logs.iter().all(|&d| d == 0.0) {
        // Deterministic data (instruction counts): no block differs, so every interval of
        // the ratio is the point 1, which lies inside any margin.
        return Equivalence::Tested {
            interval: [1.0, 1.0],
            inside: true,
        };
    }
    let level = 1.0 - 2.0 * config.alpha;
    match paired_hodges_lehmann(&logs, level) {
        Ok(s) if s.achieved_confidence + 1e-9 >= level => {
            let interval = [s.ci_low.exp(), s.ci_high.exp()];
            Equivalence::Tested {
                interval,
                inside: inside(interval, config.equivalence_margin),
            }
        }
        Ok(_) => Equivalence::Untestable("too few blocks for the interval to reach its coverage"),
        Err(_) => Equivalence::Untestable("no interval could be formed"),
    }
}

/// The typical run's equivalence: an intersection-union test, every checked quantile's
/// `1 - 2 alpha` interval inside the margin ([`crate::paired::shape`]); the interval shown
/// is the typical run's.
pub(crate) fn shape_equivalence(s: &ShapeAnalysis) -> Equivalence {
    let typical = s.typical();
    match typical.equivalence_interval {
        Some(interval) if s.quantiles.iter().all(|q| q.equivalence_interval.is_some()) => {
            Equivalence::Tested {
                interval,
                inside: s.all_within_margin(),
            }
        }
        _ => Equivalence::Untestable("too few blocks to reach alpha"),
    }
}

/// The typical run's outcome from how each checked part moved. Opposite directions beyond
/// the margin are mixed. A direction is claimed when the typical run (p50) or the slow
/// runs (p90 of a time, p10 of a throughput: the runs that make up most of the cost a user
/// sees) moved that way beyond the margin and no part moved the other way; the fast runs
/// alone claim a direction only when every other part's equivalence interval rules out a
/// move the other way beyond the margin (a spread that grows makes the fast runs faster
/// and the slow runs slower, and the fast runs, being the least noisy, are resolved
/// first: they alone must not read as faster). Every part inside the margin is
/// equivalent; anything else is inconclusive.
pub(crate) fn shape_outcome(s: &ShapeAnalysis, margin: f64, higher_is_better: bool) -> Outcome {
    let slow_end = if higher_is_better {
        s.quantiles.first()
    } else {
        s.quantiles.last()
    }
    .map(|q| q.quantile);
    let decisive = |how: PartMove| {
        s.quantiles.iter().chain(s.mean.as_ref()).any(|q| {
            q.part == how
                && (q.statistic == PartStatistic::Mean
                    || q.quantile == 0.5
                    || Some(q.quantile) == slow_end)
        })
    };
    let claim = |how: PartMove, outcome: Outcome| {
        if decisive(how) || s.none_opposed(how == PartMove::Faster, margin, higher_is_better) {
            outcome
        } else {
            Outcome::Inconclusive
        }
    };
    match (s.any_slower(), s.any_faster()) {
        (true, true) => Outcome::Mixed,
        (true, false) => claim(PartMove::Slower, Outcome::Slower),
        (false, true) => claim(PartMove::Faster, Outcome::Faster),
        (false, false) if s.all_within_margin() => Outcome::Equivalent,
        (false, false) => Outcome::Inconclusive,
    }
}

/// Two one-sided tests on unpaired data: the percentile-bootstrap interval of the ratio of
/// medians at `1 - 2 alpha`.
pub(crate) fn unpaired_equivalence(
    base: &Sample,
    cand: &Sample,
    config: &AnalysisConfig,
) -> Equivalence {
    if base.len().min(cand.len()) < MIN_UNPAIRED_EQUIVALENCE {
        return Equivalence::Untestable("too few values for an unpaired equivalence test");
    }
    let (b, c) = (base.values(), cand.values());
    if b.iter().chain(c).any(|&v| v <= 0.0) {
        return Equivalence::Untestable("ratios need positive values");
    }
    if b.iter().chain(c).all(|&v| v == b[0]) {
        // Every value the same: the ratio of medians is 1 in every resample.
        return Equivalence::Tested {
            interval: [1.0, 1.0],
            inside: true,
        };
    }
    let boot = BootstrapConfig {
        resamples: config.resamples,
        confidence: 1.0 - 2.0 * config.alpha,
        seed: config.seed,
        method: IntervalMethod::Percentile,
    };
    match median_ratio(base, cand, &boot) {
        (Some(_), Some(interval)) => Equivalence::Tested {
            interval,
            inside: inside(interval, config.equivalence_margin),
        },
        _ => Equivalence::Untestable("no interval could be formed"),
    }
}

/// The practical rule that applies to one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// Size on the ratio scale, margin = the equivalence margin.
    Ratio,
    /// |Cliff's delta| below the threshold downgrades.
    Cliff(f64),
    /// A custom test's practical value below the minimum downgrades.
    Custom(f64),
}

impl Rule {
    pub(crate) fn of(config: &AnalysisConfig, blocked: bool, custom: bool) -> Rule {
        if custom {
            return Rule::Custom(config.min_practical_effect);
        }
        match config
            .practical
            .resolve(blocked, config.min_practical_effect)
        {
            PracticalRule::Ratio => Rule::Ratio,
            PracticalRule::Cliff(x) => Rule::Cliff(x),
            // `resolve` never returns `Auto`.
            PracticalRule::Auto => Rule::Ratio,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Rule::Ratio => "ratio",
            Rule::Cliff(_) => "cliff",
            Rule::Custom(_) => "custom",
        }
    }

    fn threshold(self, margin: f64) -> f64 {
        match self {
            Rule::Ratio => margin,
            Rule::Cliff(x) | Rule::Custom(x) => x,
        }
    }

    /// The practical value that fails this rule's gate, if `practical` does: only the
    /// Cliff and custom rules downgrade a verdict.
    pub(crate) fn fails(self, verdict: Verdict, practical: Option<f64>) -> Option<f64> {
        let threshold = match self {
            Rule::Ratio => return None,
            Rule::Cliff(x) | Rule::Custom(x) => x,
        };
        match practical {
            Some(v) if verdict == Verdict::Significant && threshold > 0.0 && v < threshold => {
                Some(v)
            }
            _ => None,
        }
    }
}

/// Names the outcome: significant and not inside the margin (ratio rule) is faster or
/// slower by `direction` (the sign of `log(ratio)` or of the shift; `> 0` = the candidate
/// is larger); equivalence shown is equivalent (under the ratio rule, also when
/// significant: real but inside the margin); anything else is inconclusive.
pub(crate) fn outcome(
    rule: Rule,
    verdict: Verdict,
    equivalence: &Equivalence,
    direction: f64,
    higher_is_better: bool,
) -> Outcome {
    let significant = verdict == Verdict::Significant;
    let negligible = rule == Rule::Ratio && equivalence.shown();
    if significant && !negligible && direction != 0.0 {
        if (direction > 0.0) == higher_is_better {
            Outcome::Faster
        } else {
            Outcome::Slower
        }
    } else if equivalence.shown() {
        Outcome::Equivalent
    } else {
        Outcome::Inconclusive
    }
}

/// The serialized record of a decision.
pub(crate) fn report(
    test: &str,
    scale: &str,
    p_value: Option<f64>,
    p_value_adjusted: Option<f64>,
    rule: Rule,
    equivalence: &Equivalence,
    config: &AnalysisConfig,
) -> DecisionReport {
    DecisionReport {
        test: test.to_owned(),
        scale: scale.to_owned(),
        p_value,
        p_value_adjusted,
        practical_rule: rule.name().to_owned(),
        practical_threshold: rule.threshold(config.equivalence_margin),
        equivalence_ci: equivalence.interval(),
        equivalence_note: equivalence.note(),
    }
}
