//! Outcomes and the plain-words sentence of each comparison.

use crate::analysis::config::AnalysisConfig;
use crate::analysis::significance::EffectSize;
use crate::model::report::{Outcome, Verdict};

/// Classifies a comparison into faster, slower, equivalent or inconclusive.
///
/// Significant verdicts become faster/slower by the direction of the ratio (respecting
/// `higher_is_better`); otherwise the comparison is equivalent when the whole ratio
/// interval lies within `1 ± equivalence_margin`, else inconclusive.
pub(crate) fn outcome_of(
    verdict: Verdict,
    ratio: Option<f64>,
    ratio_ci: Option<[f64; 2]>,
    higher_is_better: bool,
    config: &AnalysisConfig,
) -> Outcome {
    match (verdict, ratio) {
        (Verdict::Significant, Some(r)) if r != 1.0 => {
            if (r > 1.0) == higher_is_better {
                Outcome::Faster
            } else {
                Outcome::Slower
            }
        }
        _ => {
            let m = config.equivalence_margin;
            match ratio_ci {
                Some([lo, hi]) if m > 0.0 && lo >= 1.0 - m && hi <= 1.0 + m => Outcome::Equivalent,
                _ => Outcome::Inconclusive,
            }
        }
    }
}

/// What [`describe`] needs to know.
pub(crate) struct Facts<'a> {
    pub candidate: &'a str,
    pub baseline: &'a str,
    pub outcome: Outcome,
    pub verdict: Verdict,
    pub ratio: Option<f64>,
    pub ratio_ci: Option<[f64; 2]>,
    pub higher_is_better: bool,
    /// Blocks, when paired.
    pub blocks: Option<usize>,
    /// Runs of (baseline, candidate).
    pub runs: (usize, usize),
    /// What decided the verdict (for the borderline wording).
    pub basis: &'a crate::model::report::VerdictBasis,
    /// `(blocks, needed)` when a paired comparison has too few blocks to be tested.
    pub too_few_blocks: Option<(usize, usize)>,
    /// The practical value that failed the gate, if one did.
    pub downgraded: Option<f64>,
    pub effect: Option<&'a EffectSize>,
    pub config: &'a AnalysisConfig,
}

/// A ratio for reading: three decimals, scientific notation when extreme.
fn num(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:.3e}")
    } else {
        format!("{x:.3}")
    }
}

fn ratio_text(r: f64, ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!("{}x [{}, {}]", num(r), num(lo), num(hi)),
        None => format!("{}x (no interval)", num(r)),
    }
}

/// How much of a change a ratio means, as "4.8% less time" style words.
fn percent_change(r: f64, higher_is_better: bool) -> String {
    let pct = (r - 1.0).abs() * 100.0;
    let dir = if r > 1.0 { "more" } else { "less" };
    let quantity = if higher_is_better {
        "throughput"
    } else {
        "time"
    };
    if pct >= 1e6 {
        return format!("{} times the {quantity}", num(r));
    }
    format!("{pct:.1}% {dir} {quantity}")
}

/// The sentence the report prints for one comparison.
pub(crate) fn describe(f: &Facts<'_>) -> String {
    let (cand, base) = (f.candidate, f.baseline);
    let measure = if f.higher_is_better {
        "throughput"
    } else {
        "time"
    };
    let scope = match f.blocks {
        Some(b) => format!("paired over {b} blocks"),
        None => format!("unpaired, {} vs {} runs", f.runs.0, f.runs.1),
    };
    let Some(r) = f.ratio else {
        return match f.verdict {
            Verdict::NotTested => format!(
                "{cand} vs {base}: not tested ({scope}); too few values or an omnibus test that found no difference"
            ),
            _ => format!(
                "{cand} vs {base}: no ratio could be formed (values are not all positive); {scope}"
            ),
        };
    };
    let rt = ratio_text(r, f.ratio_ci);
    match f.outcome {
        Outcome::Faster | Outcome::Slower => {
            let word = if f.outcome == Outcome::Faster {
                "faster"
            } else {
                "slower"
            };
            format!(
                "{cand} is {word} than {base}: {measure} ratio {rt} ({}), {scope}.",
                percent_change(r, f.higher_is_better)
            )
        }
        Outcome::Equivalent => {
            let m = f.config.equivalence_margin * 100.0;
            format!(
                "{cand} and {base} are equivalent within ±{m:.1}%: the whole {measure} ratio interval {rt} lies inside the margin, {scope}."
            )
        }
        Outcome::Inconclusive => {
            if let Some(value) = f.downgraded {
                let metric = f.effect.map_or("effect", |e| e.metric.as_str());
                return format!(
                    "{cand} differs from {base} ({measure} ratio {rt}), but the effect is too small to matter ({metric} {value:.3} < {:.3}): treat as no practical difference, {scope}.",
                    f.config.min_practical_effect
                );
            }
            if let Some((have, need)) = f.too_few_blocks {
                return format!(
                    "{cand} vs {base}: not tested: {have} blocks are too few for a paired test to reach alpha = {} (it needs at least {need}). Ratio {rt}; run more blocks.",
                    f.config.alpha
                );
            }
            if f.verdict == Verdict::NotTested {
                return format!(
                    "{cand} vs {base}: not tested ({scope}); too few values, or with 3+ variants an omnibus test that found no difference, so no pairwise claim is made. Ratio {rt}."
                );
            }
            let more = more_data_hint(r, f.ratio_ci, f.blocks, f.runs, f.config.equivalence_margin);
            let includes = f.ratio_ci.is_none_or(|[lo, hi]| lo <= 1.0 && 1.0 <= hi);
            if includes {
                format!(
                    "The data cannot tell {cand} from {base}: {measure} ratio {rt} includes no-change, {scope}. {more}"
                )
            } else {
                format!(
                    "Borderline: the {measure} ratio {rt} excludes no-change, but the test that decides ({}) does not find {cand} different from {base}, {scope}. {more}",
                    f.basis
                )
            }
        }
    }
}

/// Whether more blocks (or runs) would help, with a rough count: the interval half-width
/// shrinks like 1/sqrt(n).
fn more_data_hint(
    r: f64,
    ci: Option<[f64; 2]>,
    blocks: Option<usize>,
    runs: (usize, usize),
    margin: f64,
) -> String {
    let unit = if blocks.is_some() {
        "blocks"
    } else {
        "runs per variant"
    };
    let n = blocks.unwrap_or(runs.0.min(runs.1)).max(1) as f64;
    let Some([lo, hi]) = ci else {
        return format!("More {unit} are needed before any interval can be formed.");
    };
    let half = (hi - lo) / 2.0;
    let offset = (r - 1.0).abs();
    // Detect the observed change, or show equivalence within the margin, whichever is nearer.
    let target = if offset >= margin / 2.0 {
        offset
    } else {
        margin - offset
    };
    if half <= 0.0 || target <= 0.0 {
        return String::new();
    }
    let needed = (n * (half / target).powi(2)).ceil();
    if !needed.is_finite() {
        return format!(
            "More {unit} would not settle it soon: the spread is extreme against the difference; reduce noise first."
        );
    }
    if needed <= n {
        format!(
            "A few more {unit} would likely settle it: the interval only just reaches no-change."
        )
    } else if needed > 50.0 * n || needed > 1e6 {
        format!(
            "More {unit} would not settle it soon: the noise is large against the difference (about {:.0}x as many {unit} would be needed); reduce noise first.",
            needed / n
        )
    } else {
        format!(
            "About {needed:.0} {unit} in all (now {n:.0}) would likely settle it, if the effect is as observed."
        )
    }
}
