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
use crate::paired::shape::{PartMove, PartStatistic, QuantileShift, ShapeAnalysis};
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

/// A part's interval inside `±margin`, with the shape check's own tolerance.
fn part_inside(interval: Option<[f64; 2]>, margin: f64) -> bool {
    interval.is_some_and(|[lo, hi]| lo >= 1.0 - margin - 1e-12 && hi <= 1.0 + margin + 1e-12)
}

/// Why an equivalence interval of positive values is absent: its ends overflow (or
/// underflow) a 64-bit float.
const OVERFLOW: &str = "the ratio of these values is beyond what a 64-bit float holds";

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
            if !interval.iter().all(|x| x.is_finite() && *x > 0.0) {
                return Equivalence::Untestable(OVERFLOW);
            }
            Equivalence::Tested {
                interval,
                inside: inside(interval, config.equivalence_margin),
            }
        }
        Ok(_) => Equivalence::Untestable("too few blocks for the interval to reach its coverage"),
        Err(_) => Equivalence::Untestable("no interval could be formed"),
    }
}

/// How much wider than the margin the tails' (p10, p90) equivalence intervals may be when
/// the typical run and the mean run are inside the margin: EQUIVALENT needs the typical run
/// and the mean run within `±margin` and each tail within `±3 margin`. With 2 runs of each
/// variant per block the tails' intervals are 2-3 times wider than the typical run's, so
/// at `±margin` an unchanged benchmark was almost never equivalent (0 of 2,400 simulated
/// experiments, `docs/calibration.md`); a tail that moved beyond its margin is a
/// significant part and blocks equivalence whatever this factor is. Calibrated by `cargo
/// xtask equivalence-grid` (`docs/calibration.md#equivalence-users-can-reach`).
pub const TAIL_MARGIN_FACTOR: f64 = 3.0;

/// How much wider than the margin the mean run's equivalence interval may be (the mean of
/// all runs, `crate::paired::all_runs`: the mean-run part, or with unequal counts the
/// mean of all runs that holds the slow runs in place of their quantile):
/// [`ALL_RUNS_MARGIN_FACTOR`] times the margin, `±2%` at the default `±1%`. On a machine
/// that disturbs some runs of both variants (8% of runs 20-50% slower) a disturbed run
/// moves the mean by its share of the total, so the interval that covers the mean ratio
/// is honestly wider than the typical run's; and the slow runs' quantile sits at the edge
/// of the disturbed runs, where it has no density to narrow on. A slow tail that grew
/// moves the mean run by its share times its size (10% of runs 30% slower: +3%), which
/// `±2%` rejects, and the mean's interval narrows with the blocks; the typical run stays
/// held to the margin itself. Calibrated by `cargo xtask equivalence-disturbed`
/// (`docs/calibration.md#equivalence-on-a-machine-that-disturbs-some-runs`).
pub const ALL_RUNS_MARGIN_FACTOR: f64 = 2.0;

/// The tails (a quantile other than the median) are held to the wider margin.
fn is_tail(q: &QuantileShift) -> bool {
    q.statistic == PartStatistic::Quantile && (q.quantile - 0.5).abs() > 1e-9
}

/// Part `q` of `s` is held for EQUIVALENT by the mean of all runs (the mean-run part when
/// it is checked), not by its own interval: the slow runs, not moved, whose own interval
/// is wider than their margin.
pub(crate) fn held_by_all_runs(
    q: &QuantileShift,
    s: &ShapeAnalysis,
    margin: f64,
    higher_is_better: bool,
) -> bool {
    q.part == PartMove::Unclear
        && is_slow_runs(q, higher_is_better)
        && !part_inside(q.equivalence_interval, part_margin(q, margin))
        && all_runs_inside(s, margin)
}

pub(crate) fn is_slow_runs(q: &QuantileShift, higher_is_better: bool) -> bool {
    is_tail(q) && (q.quantile > 0.5) != higher_is_better
}

/// The margin part `q` is held to for equivalence: `margin` for the typical run,
/// [`ALL_RUNS_MARGIN_FACTOR`] times it for the mean run, [`TAIL_MARGIN_FACTOR`] times it
/// for a tail.
pub fn part_margin(q: &QuantileShift, margin: f64) -> f64 {
    if is_tail(q) {
        margin * TAIL_MARGIN_FACTOR
    } else if q.statistic == PartStatistic::Mean {
        margin * ALL_RUNS_MARGIN_FACTOR
    } else {
        margin
    }
}

/// The mean of all runs' `1 - 2 alpha` interval ([`ShapeAnalysis::mean_of_all_runs`])
/// inside [`ALL_RUNS_MARGIN_FACTOR`] times the margin.
fn all_runs_inside(s: &ShapeAnalysis, margin: f64) -> bool {
    s.mean_of_all_runs()
        .is_some_and(|m| part_inside(m.equivalence_interval, margin * ALL_RUNS_MARGIN_FACTOR))
}

/// Whether part `q` of `s` stands in the way of EQUIVALENT: it moved beyond the margin,
/// or its `1 - 2 alpha` interval is not inside its own margin ([`part_margin`]); the slow
/// runs, not moved, are also held by the mean of all runs inside
/// [`ALL_RUNS_MARGIN_FACTOR`] times the margin. With the mean-run part checked, that is
/// the mean run's own requirement, so unmoved slow runs never stand in the way themselves:
/// the mean run does, when it is not inside its margin.
fn blocks_equivalence(
    q: &QuantileShift,
    s: &ShapeAnalysis,
    margin: f64,
    higher_is_better: bool,
) -> bool {
    match q.part {
        PartMove::Negligible | PartMove::Equivalent => false,
        PartMove::Slower | PartMove::Faster => true,
        PartMove::Unclear => {
            let wider = is_tail(q) || q.statistic == PartStatistic::Mean;
            let own = wider && part_inside(q.equivalence_interval, part_margin(q, margin));
            let by_mean = is_slow_runs(q, higher_is_better)
                && (s.mean.is_some() || all_runs_inside(s, margin));
            !(own || by_mean)
        }
    }
}

/// The parts that stand in the way of EQUIVALENT, the typical run first, then the mean
/// run, then the tails; empty when the comparison is equivalent.
pub(crate) fn equivalence_blockers(
    s: &ShapeAnalysis,
    margin: f64,
    higher_is_better: bool,
) -> Vec<&QuantileShift> {
    let mut parts: Vec<&QuantileShift> = s
        .parts()
        .filter(|q| blocks_equivalence(q, s, margin, higher_is_better))
        .collect();
    parts.sort_by_key(|q| part_rank(q));
    parts
}

/// EQUIVALENT on the shape check: the typical run inside the margin, the mean run inside
/// [`ALL_RUNS_MARGIN_FACTOR`] times it, the fast runs inside [`TAIL_MARGIN_FACTOR`] times
/// it, and the slow runs either inside theirs or, not moved, held by the mean of all runs
/// inside [`ALL_RUNS_MARGIN_FACTOR`] times it (an intersection-union test of the required parts, Berger 1982: each at
/// `1 - 2 alpha`, no correction). `higher_is_better` says which tail is the slow runs.
pub fn shape_equivalent(s: &ShapeAnalysis, margin: f64, higher_is_better: bool) -> bool {
    s.parts()
        .all(|q| !blocks_equivalence(q, s, margin, higher_is_better))
}

/// The order in which parts are named: typical run, mean run, then the tails.
fn part_rank(q: &QuantileShift) -> u8 {
    match q.statistic {
        PartStatistic::Mean => 1,
        PartStatistic::Quantile if (q.quantile - 0.5).abs() < 1e-9 => 0,
        PartStatistic::Quantile => 2,
    }
}

/// A part's stable name in the JSON: `typical-run`, `mean-run`, `fast-runs`, `slow-runs`
/// (the fast runs are the high quantiles when larger values are better).
pub(crate) fn part_key(q: &QuantileShift, higher_is_better: bool) -> &'static str {
    match q.statistic {
        PartStatistic::Mean => "mean-run",
        PartStatistic::Quantile if (q.quantile - 0.5).abs() < 1e-9 => "typical-run",
        PartStatistic::Quantile if (q.quantile < 0.5) != higher_is_better => "fast-runs",
        PartStatistic::Quantile => "slow-runs",
    }
}

/// The part a comparison's outcome rests on: for FASTER or SLOWER the typical run when it
/// moved that way, else the mean run, else the tail that moved that way with the smallest
/// p (a claim resting on a tail alone); for any other significant comparison the first
/// significant part in that order (so a significant verdict always names a part whose
/// interval excludes no change); otherwise the typical run.
pub(crate) fn deciding_part(
    s: &ShapeAnalysis,
    outcome: Outcome,
    significant: bool,
) -> &QuantileShift {
    let want = match outcome {
        Outcome::Faster => Some(PartMove::Faster),
        Outcome::Slower => Some(PartMove::Slower),
        Outcome::Equivalent | Outcome::Inconclusive | Outcome::Mixed => None,
    };
    let excludes_one = |q: &&QuantileShift| q.interval.is_some_and(|[lo, hi]| lo > 1.0 || hi < 1.0);
    let mut candidates: Vec<&QuantileShift> = match want {
        Some(w) => s.parts().filter(|q| q.part == w).collect(),
        None if significant => s.parts().filter(excludes_one).collect(),
        None => Vec::new(),
    };
    candidates.sort_by(|a, b| {
        part_rank(a)
            .min(2)
            .cmp(&part_rank(b).min(2))
            .then(a.p_value.total_cmp(&b.p_value))
    });
    candidates.first().copied().unwrap_or_else(|| s.typical())
}

/// What an undecided shape check needs: the parts in the way of EQUIVALENT
/// ([`equivalence_blockers`]) and the blocks with which the slowest of them would resolve
/// its margin ([`blocks_to_resolve`]), at least `floor`; with no part in the way, the
/// typical run's count.
pub(crate) fn shape_needs(
    s: &ShapeAnalysis,
    margin: f64,
    floor: usize,
    higher_is_better: bool,
) -> (Vec<&QuantileShift>, Option<usize>) {
    let blockers = equivalence_blockers(s, margin, higher_is_better);
    let of = |q: &QuantileShift| {
        let own = blocks_to_resolve(
            s.blocks,
            q.ratio,
            (
                q.interval.map(|i| (i, q.confidence)),
                q.equivalence_interval
                    .map(|i| (i, s.equivalence_confidence)),
            ),
            part_margin(q, margin),
            floor,
        );
        // The slow runs resolve by the mean of all runs too: the sooner of the two.
        let by_mean = s
            .mean_of_all_runs()
            .filter(|_| is_slow_runs(q, higher_is_better))
            .and_then(|m| {
                let i = m.equivalence_interval?;
                blocks_to_resolve(
                    s.blocks,
                    m.ratio,
                    (None, Some((i, s.equivalence_confidence))),
                    margin * ALL_RUNS_MARGIN_FACTOR,
                    floor,
                )
            });
        match (own, by_mean) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    };
    let needed = if blockers.is_empty() {
        of(s.typical())
    } else {
        blockers.iter().filter_map(|q| of(q)).max()
    };
    (blockers, needed)
}

/// The typical run's equivalence: an intersection-union test of the required parts
/// ([`shape_equivalent`]); the interval shown is the typical run's.
pub(crate) fn shape_equivalence(
    s: &ShapeAnalysis,
    margin: f64,
    higher_is_better: bool,
) -> Equivalence {
    let typical = s.typical();
    match typical.equivalence_interval {
        Some(interval) if s.quantiles.iter().all(|q| q.equivalence_interval.is_some()) => {
            Equivalence::Tested {
                interval,
                inside: shape_equivalent(s, margin, higher_is_better),
            }
        }
        _ => Equivalence::Untestable("too few blocks to reach alpha"),
    }
}

/// An interval with its level, as [`blocks_to_resolve`] reads it.
pub(crate) type Leveled = Option<([f64; 2], f64)>;

/// The blocks (or runs per variant) with which the deciding rule would resolve the
/// margin with 80% power if the change is what it now looks like: `n` now, the estimate
/// `ratio`, its test interval `test` and its `1 - 2 alpha` interval `equivalence`, each
/// with its level (the standard error is the half-width over the level's normal
/// quantile, and shrinks as `1 / sqrt(n)`). Resolved means either the equivalence
/// interval fits between the estimate and the margin (an estimate inside it), or the test
/// interval no longer reaches no change (a change the test then shows, inside or beyond
/// the margin): the smaller count. Never fewer than `n + 1` nor than `floor` (the fewest
/// with which the test can reach alpha at all); `None` when no interval is known.
pub(crate) fn blocks_to_resolve(
    n: usize,
    ratio: f64,
    (test, equivalence): (Leveled, Leveled),
    margin: f64,
    floor: usize,
) -> Option<usize> {
    use crate::special::normal_ppf;
    let z_power = normal_ppf(0.8)?;
    // Standard error (log scale) and the normal quantile of the interval's level.
    let se = |i: Leveled| {
        let ([lo, hi], level) = i?;
        let z = normal_ppf(0.5 + level / 2.0)?;
        (lo > 0.0 && hi >= lo && z > 0.0).then(|| ((hi.ln() - lo.ln()) / (2.0 * z), z))
    };
    let c = ratio.ln().abs();
    let m = (1.0 + margin).ln();
    let scaled = |(se, z): (f64, f64), gap: f64| n as f64 * ((z + z_power) * se / gap).powi(2);
    let inside = se(equivalence.or(test))
        .filter(|_| c < m)
        .map(|s| scaled(s, m - c));
    let shown = se(test.or(equivalence))
        .filter(|_| c > 0.0)
        .map(|s| scaled(s, c));
    let need = match (inside, shown) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    if !need.is_finite() {
        return None;
    }
    Some((need.ceil() as usize).max(n + 1).max(floor))
}

/// The typical run's outcome from how each checked part moved. Opposite directions beyond
/// the margin are mixed. A direction is claimed when the typical run (p50) or the mean run
/// moved that way beyond the margin and no part moved the other way. A tail (the fast or
/// the slow runs) that moved alone is a change of spread when the typical and the mean
/// run are both inside the margin: MIXED, said as spread ("B's runs are more (less)
/// variable"), never FASTER or SLOWER (issue 42: a B whose runs are more consistent lost
/// its lucky fast runs, and was called slower). With the typical or the mean run
/// unresolved, a tail alone claims its direction only when every other part's
/// equivalence interval rules out a move the other way beyond the margin (a spread that
/// grows makes the fast runs faster and the slow runs slower, and either tail, resolved
/// first, must not read as the whole change). Every part inside the margin is
/// equivalent; anything else is inconclusive.
pub(crate) fn shape_outcome(s: &ShapeAnalysis, margin: f64, higher_is_better: bool) -> Outcome {
    let decisive = |how: PartMove| {
        s.quantiles
            .iter()
            .chain(s.mean.as_ref())
            .any(|q| q.part == how && (q.statistic == PartStatistic::Mean || q.quantile == 0.5))
    };
    let claim = |how: PartMove, outcome: Outcome| {
        if decisive(how) {
            outcome
        } else if spread_only(s) {
            Outcome::Mixed
        } else if s.none_opposed(how == PartMove::Faster, margin, higher_is_better) {
            outcome
        } else {
            Outcome::Inconclusive
        }
    };
    match (s.any_slower(), s.any_faster()) {
        (true, true) => Outcome::Mixed,
        (true, false) => claim(PartMove::Slower, Outcome::Slower),
        (false, true) => claim(PartMove::Faster, Outcome::Faster),
        (false, false) if shape_equivalent(s, margin, higher_is_better) => Outcome::Equivalent,
        (false, false) => Outcome::Inconclusive,
    }
}

/// A change of spread alone: the typical and the mean run inside the margin
/// ([`PartMove::within_margin`]) and a tail beyond it. Needs the mean run (two or more
/// runs of each variant in every block).
pub(crate) fn spread_only(s: &ShapeAnalysis) -> bool {
    let typical = s.typical();
    s.mean.as_ref().is_some_and(|m| m.part.within_margin())
        && typical.part.within_margin()
        && s.quantiles
            .iter()
            .any(|q| is_tail(q) && matches!(q.part, PartMove::Slower | PartMove::Faster))
}

/// How the candidate's runs spread against the baseline's, from the tails that moved:
/// `Some(true)` apart (the fast runs faster or the slow runs slower, none the other
/// way: more variable), `Some(false)` together (less variable), `None` when the tails
/// say neither or both.
pub(crate) fn spread_direction(s: &ShapeAnalysis, higher_is_better: bool) -> Option<bool> {
    let (mut apart, mut together) = (false, false);
    for q in s.quantiles.iter().filter(|q| is_tail(q)) {
        let fast_end = (q.quantile < 0.5) != higher_is_better;
        match (q.part, fast_end) {
            (PartMove::Faster, true) | (PartMove::Slower, false) => apart = true,
            (PartMove::Slower, true) | (PartMove::Faster, false) => together = true,
            _ => {}
        }
    }
    match (apart, together) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
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
        (Some(_), Some(interval)) if !interval.iter().all(|x| x.is_finite() && *x > 0.0) => {
            Equivalence::Untestable(OVERFLOW)
        }
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
        part: None,
        ratio: None,
        interval: None,
        level: None,
        blocking: Vec::new(),
        needed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::{
        blocks_to_resolve, deciding_part, equivalence_blockers, held_by_all_runs, part_key,
        shape_equivalent, shape_outcome, spread_direction,
    };
    use crate::model::report::Outcome;
    use crate::paired::shape::{PartMove, PartStatistic, QuantileShift, ShapeAnalysis};

    /// A part at quantile `q` (NaN: the mean run) that moved `how`, with its intervals.
    fn part(q: f64, how: PartMove, interval: [f64; 2], equivalence: [f64; 2]) -> QuantileShift {
        QuantileShift {
            quantile: q,
            statistic: if q.is_nan() {
                PartStatistic::Mean
            } else {
                PartStatistic::Quantile
            },
            baseline: 100.0,
            candidate: 100.0,
            ratio: (interval[0] * interval[1]).sqrt(),
            interval: Some(interval),
            confidence: 0.99,
            equivalence_interval: Some(equivalence),
            p_value: if matches!(how, PartMove::Slower) {
                0.001
            } else {
                0.5
            },
            p_value_exact: 0.5,
            p_value_adjusted: 0.5,
            part: how,
        }
    }

    fn shape(
        p10: QuantileShift,
        p50: QuantileShift,
        p90: QuantileShift,
        mean: QuantileShift,
    ) -> ShapeAnalysis {
        ShapeAnalysis {
            quantiles: vec![p10, p50, p90],
            mean: Some(mean),
            all_runs: None,
            confidence: 0.98,
            equivalence_confidence: 0.9,
            permutations: 2000,
            exact: false,
            p_value: 0.004,
            blocks: 20,
        }
    }

    #[test]
    fn the_parts_of_a_value_that_is_not_a_time_are_its_low_and_high_ends() {
        // The list of parts a sequential verdict quotes at its stop (issue 42, item 6).
        use crate::analysis::verdict::shape_parts;
        let still = |q: f64| part(q, PartMove::Equivalent, [0.995, 1.005], [0.996, 1.004]);
        let s = shape(still(0.1), still(0.5), still(0.9), still(f64::NAN));
        let memory = shape_parts(&s, false, false);
        assert!(
            memory.starts_with("low end (p10) ")
                && memory.contains("typical run (p50) ")
                && memory.contains("high end (p90) ")
                && memory.contains("mean run "),
            "{memory}"
        );
        let time = shape_parts(&s, false, true);
        assert!(
            time.starts_with("fast runs (p10) ") && time.contains("slow runs (p90) "),
            "{time}"
        );
        // A throughput's fast runs are its high end.
        assert!(shape_parts(&s, true, true).starts_with("slow runs (p10) "));
    }

    #[test]
    fn a_claim_rests_on_the_typical_then_the_mean_run_and_on_a_tail_only_when_they_did_not_move() {
        let still = |q: f64| part(q, PartMove::Equivalent, [0.995, 1.005], [0.996, 1.004]);
        let slower = |q: f64| part(q, PartMove::Slower, [1.05, 1.2], [1.06, 1.19]);
        // Only the slow runs moved: a tail-only claim.
        let s = shape(still(0.1), still(0.5), slower(0.9), still(f64::NAN));
        let q = deciding_part(&s, Outcome::Slower, true);
        assert_eq!(part_key(q, false), "slow-runs");
        // The slow runs and the mean run moved: the mean run, not a tail.
        let s = shape(still(0.1), still(0.5), slower(0.9), slower(f64::NAN));
        assert_eq!(
            part_key(deciding_part(&s, Outcome::Slower, true), false),
            "mean-run"
        );
        // Everything moved: the typical run.
        let s = shape(slower(0.1), slower(0.5), slower(0.9), slower(f64::NAN));
        assert_eq!(
            part_key(deciding_part(&s, Outcome::Slower, true), false),
            "typical-run"
        );
        // For a throughput the fast runs are p90.
        let s = shape(still(0.1), still(0.5), slower(0.9), still(f64::NAN));
        assert_eq!(
            part_key(deciding_part(&s, Outcome::Slower, true), true),
            "fast-runs"
        );
    }

    #[test]
    fn a_tail_alone_with_the_typical_and_mean_run_inside_the_margin_is_mixed_said_as_spread() {
        let still = |q: f64| part(q, PartMove::Equivalent, [0.995, 1.005], [0.996, 1.004]);
        let slower = |q: f64| part(q, PartMove::Slower, [1.05, 1.2], [1.06, 1.19]);
        let faster = |q: f64| part(q, PartMove::Faster, [0.85, 0.95], [0.86, 0.94]);
        let unclear = |q: f64| part(q, PartMove::Unclear, [0.9, 1.1], [0.92, 1.08]);
        // The slow runs slower alone: more variable, never SLOWER.
        let s = shape(still(0.1), still(0.5), slower(0.9), still(f64::NAN));
        assert_eq!(shape_outcome(&s, 0.01, false), Outcome::Mixed);
        assert_eq!(spread_direction(&s, false), Some(true));
        // A more consistent B: its fast runs slower alone (it lost its lucky runs).
        let s = shape(slower(0.1), still(0.5), unclear(0.9), still(f64::NAN));
        assert_eq!(shape_outcome(&s, 0.01, false), Outcome::Mixed);
        assert_eq!(spread_direction(&s, false), Some(false));
        // Fast runs faster and slow runs slower: apart; for a throughput, together.
        let s = shape(faster(0.1), still(0.5), slower(0.9), still(f64::NAN));
        assert_eq!(shape_outcome(&s, 0.01, false), Outcome::Mixed);
        assert_eq!(spread_direction(&s, false), Some(true));
        assert_eq!(spread_direction(&s, true), Some(false));
        // The typical run moved too: a claim, not a spread.
        let s = shape(still(0.1), slower(0.5), slower(0.9), still(f64::NAN));
        assert_eq!(shape_outcome(&s, 0.01, false), Outcome::Slower);
        // The typical run unresolved and the fast runs could be faster: no claim.
        let s = shape(unclear(0.1), unclear(0.5), slower(0.9), still(f64::NAN));
        assert_eq!(shape_outcome(&s, 0.01, false), Outcome::Inconclusive);
    }

    #[test]
    fn equivalence_holds_the_tails_to_three_times_the_margin() {
        let still = |q: f64| part(q, PartMove::Equivalent, [0.995, 1.005], [0.996, 1.004]);
        // A tail not resolved at ±1% but inside ±3%: equivalent.
        let wide = |q: f64| part(q, PartMove::Unclear, [0.97, 1.03], [0.975, 1.025]);
        assert!(shape_equivalent(
            &shape(wide(0.1), still(0.5), wide(0.9), still(f64::NAN)),
            0.01,
            false
        ));
        // Beyond ±3%: not.
        let wider = |q: f64| part(q, PartMove::Unclear, [0.95, 1.05], [0.96, 1.04]);
        assert!(!shape_equivalent(
            &shape(wider(0.1), still(0.5), still(0.9), still(f64::NAN)),
            0.01,
            false
        ));
        // The typical run gets no such room, the mean run twice the margin
        // (`ALL_RUNS_MARGIN_FACTOR`): ±2.5% is beyond it, ±1.8% inside.
        assert!(!shape_equivalent(
            &shape(still(0.1), wide(0.5), still(0.9), still(f64::NAN)),
            0.01,
            false
        ));
        assert!(!shape_equivalent(
            &shape(still(0.1), still(0.5), still(0.9), wide(f64::NAN)),
            0.01,
            false
        ));
        let at_2 = |q: f64| part(q, PartMove::Unclear, [0.98, 1.02], [0.982, 1.018]);
        assert!(shape_equivalent(
            &shape(still(0.1), still(0.5), still(0.9), at_2(f64::NAN)),
            0.01,
            false
        ));
        assert!(!shape_equivalent(
            &shape(still(0.1), at_2(0.5), still(0.9), still(f64::NAN)),
            0.01,
            false
        ));
        // A tail that moved beyond the margin blocks it, however narrow.
        let moved = part(0.9, PartMove::Slower, [1.011, 1.02], [1.012, 1.019]);
        assert!(!shape_equivalent(
            &shape(still(0.1), still(0.5), moved, still(f64::NAN)),
            0.01,
            false
        ));
    }

    #[test]
    fn the_slow_runs_are_held_by_the_mean_run_when_their_own_interval_is_wide() {
        let still = |q: f64| part(q, PartMove::Equivalent, [0.995, 1.005], [0.996, 1.004]);
        // A machine that disturbs some runs: the slow runs' interval ±20%, not moved.
        let wide = |q: f64| part(q, PartMove::Unclear, [0.75, 1.25], [0.8, 1.2]);
        let mean = |i: [f64; 2]| part(f64::NAN, PartMove::Unclear, i, i);
        let disturbed = |m: QuantileShift| shape(still(0.1), still(0.5), wide(0.9), m);
        // The mean run inside ±2%: equivalent, and the slow runs are not in the way.
        let held = disturbed(mean([0.985, 1.018]));
        assert!(shape_equivalent(&held, 0.01, false));
        assert_eq!(shape_outcome(&held, 0.01, false), Outcome::Equivalent);
        assert!(held_by_all_runs(&held.quantiles[2], &held, 0.01, false));
        // Beyond ±2% (a slow tail that grew moves the mean): not, and the mean run, not the
        // slow runs it holds, is what stands in the way.
        let beyond = disturbed(mean([0.99, 1.025]));
        assert!(!shape_equivalent(&beyond, 0.01, false));
        let blockers = equivalence_blockers(&beyond, 0.01, false);
        let keys: Vec<&str> = blockers.iter().map(|q| part_key(q, false)).collect();
        assert_eq!(keys, ["mean-run"]);
        // For a throughput the slow runs are p10, and a wide p90 (its fast runs) is not
        // held by the mean.
        assert!(!shape_equivalent(&held, 0.01, true));
        let fast_wide = shape(wide(0.1), still(0.5), still(0.9), mean([0.985, 1.018]));
        assert!(shape_equivalent(&fast_wide, 0.01, true));
        assert!(!shape_equivalent(&fast_wide, 0.01, false));
        // Slow runs that moved beyond the margin block it, whatever the mean says.
        let moved = part(0.9, PartMove::Slower, [1.05, 1.3], [1.06, 1.28]);
        let s = shape(still(0.1), still(0.5), moved, still(f64::NAN));
        assert!(!shape_equivalent(&s, 0.01, false));
        // The typical run gets no such room.
        let s = shape(still(0.1), wide(0.5), still(0.9), still(f64::NAN));
        assert!(!shape_equivalent(&s, 0.01, false));
    }

    #[test]
    fn with_unequal_counts_the_slow_runs_are_held_by_the_mean_of_all_runs() {
        use crate::paired::all_runs::AllRunsMean;
        let still = |q: f64| part(q, PartMove::Equivalent, [0.995, 1.005], [0.996, 1.004]);
        let wide = |q: f64| part(q, PartMove::Unclear, [0.75, 1.25], [0.8, 1.2]);
        // No mean-run part (unequal counts): the mean of all runs holds the slow runs.
        let with = |interval: Option<[f64; 2]>| ShapeAnalysis {
            mean: None,
            all_runs: interval.map(|i| AllRunsMean::new((i[0] * i[1]).sqrt(), Some(i))),
            ..shape(still(0.1), still(0.5), wide(0.9), still(f64::NAN))
        };
        assert!(!shape_equivalent(&with(None), 0.01, false));
        let held = with(Some([0.985, 1.018]));
        assert!(shape_equivalent(&held, 0.01, false));
        assert!(held_by_all_runs(&held.quantiles[2], &held, 0.01, false));
        let beyond = with(Some([0.99, 1.025]));
        assert!(!shape_equivalent(&beyond, 0.01, false));
        let blockers = equivalence_blockers(&beyond, 0.01, false);
        let keys: Vec<&str> = blockers.iter().map(|q| part_key(q, false)).collect();
        assert_eq!(keys, ["slow-runs"]);
    }

    #[test]
    fn the_blocks_to_resolve_are_always_more_than_were_run() {
        let at = |i: [f64; 2], level: f64| Some((i, level));
        // An interval that already nearly fits, an estimate at the margin's edge, a
        // change well beyond it: never a count at or below the 20 blocks run.
        for (ratio, test, equiv) in [
            (1.0, [0.995, 1.011], [0.996, 1.010]),
            (1.0099, [0.99, 1.03], [0.995, 1.025]),
            (1.08, [0.999, 1.16], [1.01, 1.15]),
        ] {
            let k =
                blocks_to_resolve(20, ratio, (at(test, 0.95), at(equiv, 0.9)), 0.01, 7).unwrap();
            assert!(k > 20, "{ratio}: {k}");
        }
        // The floor wins when the test cannot reach alpha yet.
        assert_eq!(
            blocks_to_resolve(5, 1.0, (at([0.9, 1.1], 0.95), None), 0.5, 7),
            Some(7)
        );
        // An estimate at the margin: the count to show the change, not a runaway one.
        let k = blocks_to_resolve(
            8,
            0.99,
            (at([0.98, 1.004], 0.95), at([0.982, 1.002], 0.9)),
            0.01,
            7,
        );
        assert!(k.is_some_and(|k| k < 200), "{k:?}");
        // An unchanged estimate whose 90% interval is ±2% at 20 blocks: its standard
        // error 0.0122; ±1% with 80% power needs (1.645 + 0.842)^2 x 0.0122^2 / 0.01^2 x 20,
        // about 184 blocks.
        let k = blocks_to_resolve(
            20,
            1.0,
            (at([0.97, 1.03], 0.95), at([0.98, 1.02], 0.9)),
            0.01,
            7,
        );
        assert!(k.is_some_and(|k| (170..=200).contains(&k)), "{k:?}");
    }
}
