//! Deterministic counts decided as exact.
//!
//! A count (instructions, cycles, ...: [`Quantity::is_count`]) that gave the same value in
//! every run of a variant has no spread to test: when both variants of a comparison are
//! such constants, their ratio is known exactly, at any number of blocks or runs, and the
//! comparison is decided without a test (`verdict_basis: exact`): MORE or FEWER when the
//! ratio is outside the equivalence margin, EQUIVALENT when it is inside it (a real but
//! negligible change when the counts differ at all). A count with any spread at all, even
//! one instruction in one run (the environment size moves the stack), keeps the
//! statistical path: nearly deterministic is not deterministic.

use crate::descriptive::Sample;
use crate::model::dataset::Quantity;
use crate::model::report::{Comparison, Outcome, Verdict, VerdictBasis, Warning, WarningCode};

/// The one value every run in `sample` gave, when they all gave the same positive value.
pub(crate) fn constant(sample: &Sample) -> Option<f64> {
    let v = sample.values();
    let first = *v.first()?;
    (first > 0.0 && v.iter().all(|x| *x == first)).then_some(first)
}

/// One side of an exact comparison: its name, its one count and how many runs gave it.
pub(crate) struct Side<'a> {
    pub name: &'a str,
    pub value: f64,
    pub runs: usize,
}

/// Decides `c` exactly when the values are counts and `base` and `cand` are constants
/// ([`constant`]); drops the practical gate's warning about `c`'s candidate (no test was
/// downgraded). Leaves `c` alone otherwise.
pub(crate) fn decide(
    c: &mut Comparison,
    quantity: &Quantity,
    base: &Side<'_>,
    cand: &Side<'_>,
    margin: f64,
    higher_is_better: bool,
    warnings: &mut Vec<Warning>,
) {
    let Some(verb) = quantity.count_verb() else {
        return;
    };
    let r = cand.value / base.value;
    let scope = match &c.paired {
        Some(p) => format!("paired over {} blocks", p.blocks),
        None => format!("unpaired, {} vs {} runs", base.runs, cand.runs),
    };
    let counts = format!(
        "{:.0} against {:.0} {quantity} in each of their {} and {} runs",
        cand.value, base.value, cand.runs, base.runs
    );
    let (outcome, verdict) = if r == 1.0 {
        (Outcome::Equivalent, Verdict::NotSignificant)
    } else if (r - 1.0).abs() <= margin {
        (Outcome::Equivalent, Verdict::Significant)
    } else if (r < 1.0) != higher_is_better {
        (Outcome::Faster, Verdict::Significant)
    } else {
        (Outcome::Slower, Verdict::Significant)
    };
    let pct = (r - 1.0).abs() * 100.0;
    let k = if pct == 0.0 || pct >= 0.1 {
        1
    } else {
        ((-pct.log10()).floor() as usize + 2).min(6)
    };
    let dir = if r > 1.0 { "more" } else { "fewer" };
    c.summary = if r == 1.0 {
        let plural = match verb {
            "has" => "have",
            "takes" => "take",
            _ => "execute",
        };
        format!(
            "{} and {} {plural} the same {quantity} in every run: {:.0} in each of their {} and {} runs (identical counts, so the difference is exactly zero; no test needed), {scope}.",
            cand.name, base.name, cand.value, cand.runs, base.runs
        )
    } else {
        let inside = if outcome == Outcome::Equivalent {
            format!(", inside the ±{:.1}% margin", margin * 100.0)
        } else {
            String::new()
        };
        format!(
            "{} {verb} {pct:.k$}% {dir} {quantity} than {} in every run: {counts} (identical counts in every run of each, so the ratio {r:.4}x is exact; no test needed){inside}, {scope}.",
            cand.name, base.name
        )
    };
    c.outcome = outcome;
    c.verdict = verdict;
    c.verdict_basis = VerdictBasis::Exact;
    c.ratio = Some(r);
    c.ratio_ci = Some([r, r]);
    c.p_value_adjusted = None;
    c.distribution = None;
    c.interval_distribution = None;
    if let Some(d) = c.decision.as_mut() {
        d.test = "exact".into();
        d.scale = "runs".into();
        d.p_value = None;
        d.p_value_adjusted = None;
        d.equivalence_ci = Some([r, r]);
        d.equivalence_note = None;
        d.part = None;
        d.ratio = Some(r);
        d.interval = Some([r, r]);
        d.level = Some(1.0);
        d.blocking.clear();
        d.needed = None;
    }
    warnings.retain(|w| {
        w.benchmark.as_deref() != Some(cand.name) || w.code != WarningCode::PracticalGate
    });
}
