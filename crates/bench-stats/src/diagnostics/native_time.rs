//! Counts checked against native time: [`native_time`] sets each comparison of an
//! analysis on counts (instructions under valgrind) beside the same comparison of a few
//! blocks run natively and timed, and says when the two point opposite ways.
//!
//! Time's direction is taken when its own test decided (FASTER or SLOWER), or, with the
//! few blocks such a check runs, when the runs say it plainly: the Mann-Whitney test of
//! the native runs (every run of one variant against every run of the other) below
//! alpha. Counts' direction is the counted comparison's outcome (MORE or FEWER). Only a
//! decided count set against a clear opposite time is a disagreement; anything less is
//! reported, not warned about.

use crate::model::native::{NativeTimeComparison, NativeTimeReport};
use crate::model::report::{Analysis, Comparison, Outcome, Warning, WarningCode};

/// The native-time check of `counted` (an analysis on counts) against `native` (the same
/// variants' native runs analyzed on time, `metric` naming it, over `blocks` blocks), and
/// one [`WarningCode::CountsDisagreeWithTime`] warning per comparison whose directions are
/// opposite. Time: O(comparisons).
pub fn native_time(
    counted: &Analysis,
    native: &Analysis,
    metric: &str,
    blocks: u32,
) -> (NativeTimeReport, Vec<Warning>) {
    let quantity = counted
        .quantity
        .as_ref()
        .map_or_else(|| counted.unit.clone(), |q| q.as_str().to_owned());
    let mut comparisons = Vec::new();
    let mut warnings = Vec::new();
    for g in &counted.groups {
        for c in &g.comparisons {
            let Some(t) = find(native, &g.baseline, &c.candidate) else {
                continue;
            };
            let entry = compare(&g.baseline, c, t, native.alpha, &quantity, metric);
            if let Some(s) = &entry.sentence {
                warnings.push(Warning::new(
                    WarningCode::CountsDisagreeWithTime,
                    Some(&c.candidate),
                    s,
                ));
            }
            comparisons.push(entry);
        }
    }
    (
        NativeTimeReport {
            metric: metric.to_owned(),
            blocks,
            comparisons,
        },
        warnings,
    )
}

/// `candidate`'s comparison with `baseline` in `a`.
fn find<'a>(a: &'a Analysis, baseline: &str, candidate: &str) -> Option<&'a Comparison> {
    a.groups
        .iter()
        .filter(|g| g.baseline == baseline)
        .flat_map(|g| &g.comparisons)
        .find(|c| c.candidate == candidate)
}

/// The direction a comparison's runs show: its outcome when decided, else the
/// Mann-Whitney test of its runs below `alpha`, in the direction of its ratio.
fn direction(t: &Comparison, alpha: f64) -> Option<Outcome> {
    if matches!(t.outcome, Outcome::Faster | Outcome::Slower) {
        return Some(t.outcome);
    }
    let clear = t.mann_whitney.as_ref().is_some_and(|m| m.p_value < alpha);
    match t.ratio {
        Some(r) if clear && r < 1.0 => Some(Outcome::Faster),
        Some(r) if clear && r > 1.0 => Some(Outcome::Slower),
        _ => None,
    }
}

fn compare(
    baseline: &str,
    c: &Comparison,
    t: &Comparison,
    alpha: f64,
    quantity: &str,
    metric: &str,
) -> NativeTimeComparison {
    let time_direction = direction(t, alpha);
    let counts = matches!(c.outcome, Outcome::Faster | Outcome::Slower).then_some(c.outcome);
    let disagrees = matches!((counts, time_direction), (Some(a), Some(b)) if a != b);
    let sentence = match (disagrees, c.ratio, t.ratio) {
        (true, Some(cr), Some(tr)) => {
            let more = if cr > 1.0 { "more" } else { "fewer" };
            let faster = if tr < 1.0 { "faster" } else { "slower" };
            let verb = crate::Quantity::from(quantity.to_owned())
                .count_verb()
                .unwrap_or("executes");
            let how = match (&t.outcome, &t.mann_whitney) {
                (Outcome::Faster | Outcome::Slower, _) => "its own test decided".to_owned(),
                (_, Some(m)) => format!("Mann-Whitney p = {:.3} over the native runs", m.p_value),
                (_, None) => "over the native runs".to_owned(),
            };
            let time = if metric == "cpu" { "CPU" } else { metric };
            Some(format!(
                "counts and time disagree: counts say {cand} {verb} {:.1}% {more} {quantity} than {baseline}; native {time} time says {cand} is {:.1}% {faster} ({how}). Counts are a proxy for time: decide on time when time is the question",
                (cr - 1.0).abs() * 100.0,
                (tr - 1.0).abs() * 100.0,
                cand = c.candidate,
            ))
        }
        _ => None,
    };
    NativeTimeComparison {
        baseline: baseline.to_owned(),
        candidate: c.candidate.clone(),
        count_ratio: c.ratio,
        count_outcome: c.outcome,
        time_ratio: t.ratio,
        time_ratio_ci: t.ratio_ci,
        time_outcome: t.outcome,
        time_direction,
        disagrees,
        sentence,
    }
}
