//! The verdict of a sequential experiment: the confidence sequence replayed over the
//! blocks in order ([`crate::sequential`]), in place of the fixed-sample interval, whose
//! coverage does not hold once the block count depended on the data.

use crate::analysis::config::SequentialRun;
use crate::model::report::{DecisionReport, Outcome, SequentialReport, Verdict};
use crate::paired::shape::ShapeAnalysis;
use crate::sequential::{LookDecision, Replay, replay, shape_agrees};

/// What a sequential replay decides for one comparison.
pub(crate) struct SequentialVerdict {
    pub(crate) verdict: Verdict,
    pub(crate) outcome: Outcome,
    pub(crate) ratio: Option<f64>,
    pub(crate) ratio_ci: Option<[f64; 2]>,
    pub(crate) report: SequentialReport,
    pub(crate) decision: DecisionReport,
    pub(crate) summary: String,
}

/// The sequential verdict of a paired comparison of two variants from the block
/// log-ratios the runner looked at ([`crate::sequential::dataset_log_ratios`]: the
/// default estimator's block summary, whatever `--estimator` says, so the analysis
/// replays the runner's looks exactly); `None` when there are none.
pub(crate) fn sequential_verdict(
    logs: &[f64],
    run: &SequentialRun,
    higher_is_better: bool,
    names: (&str, &str),
) -> Option<SequentialVerdict> {
    let r = replay(logs, &run.rule);
    let last = *r.last()?;
    let bounded = last
        .ratio_interval
        .iter()
        .all(|x| x.is_finite() && *x > 0.0);
    let ratio_ci = bounded.then_some(last.ratio_interval);
    let outcome = match last.decision {
        LookDecision::Larger | LookDecision::Smaller => {
            if (last.decision == LookDecision::Larger) == higher_is_better {
                Outcome::Faster
            } else {
                Outcome::Slower
            }
        }
        LookDecision::Equivalent => Outcome::Equivalent,
        LookDecision::Undecided => Outcome::Inconclusive,
    };
    let excludes_one = bounded && (last.ratio_interval[0] > 1.0 || last.ratio_interval[1] < 1.0);
    let verdict = if excludes_one {
        Verdict::Significant
    } else {
        Verdict::NotSignificant
    };
    let stop = Stop::of(&r, run);
    let report = report(&r, run, stop);
    let ratio = median_ratio(logs);
    let summary = sentence(names, outcome, ratio, &report, stop);
    let decision = DecisionReport {
        test: format!("confidence-sequence:{}", run.rule.method.as_str()),
        scale: "block-log-ratios".into(),
        p_value: report.p_value,
        p_value_adjusted: None,
        practical_rule: "ratio".into(),
        practical_threshold: run.rule.margin,
        equivalence_ci: ratio_ci,
        equivalence_note: (!bounded)
            .then(|| "too few blocks for the sequence to bound the ratio".to_owned()),
        part: None,
        ratio: None,
        interval: None,
        level: None,
        blocking: Vec::new(),
        needed: None,
    };
    Some(SequentialVerdict {
        verdict,
        outcome,
        ratio,
        ratio_ci,
        report,
        decision,
        summary,
    })
}

/// Why the sequence's last look is the last: the report's `stop`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The rule decided.
    Decided,
    /// Undecided at the limit of blocks.
    MaxBlocks,
    /// Undecided when the time budget ran out.
    TimeBudget,
    /// Stopped early without a decision (interrupted, or still running).
    NotFinished,
}

impl Stop {
    fn of(r: &Replay, run: &SequentialRun) -> Stop {
        match r.last() {
            Some(l) if l.decision.decided() => Stop::Decided,
            _ if r.looks.len() as u32 >= run.rule.max_blocks => Stop::MaxBlocks,
            _ if run.budget_ended => Stop::TimeBudget,
            _ => Stop::NotFinished,
        }
    }

    /// As the JSON's `sequential.stop` says it.
    fn as_str(self) -> &'static str {
        match self {
            Stop::Decided => "decided",
            Stop::MaxBlocks => "max-blocks",
            Stop::TimeBudget => "time-budget",
            Stop::NotFinished => "not-finished",
        }
    }
}

fn report(r: &Replay, run: &SequentialRun, stop: Stop) -> SequentialReport {
    let looks = r.looks.len() as u32;
    let decided_at = r.first_decision.map(|i| r.looks[i].blocks);
    let last = r.last();
    SequentialReport {
        method: run.rule.method.as_str().to_owned(),
        alpha: run.rule.alpha,
        margin: run.rule.margin,
        min_blocks: run.rule.min_blocks,
        max_blocks: run.rule.max_blocks,
        looks,
        decided_at,
        stop: stop.as_str().to_owned(),
        ratio_ci: last
            .map(|l| l.ratio_interval)
            .filter(|i| i.iter().all(|x| x.is_finite() && *x > 0.0)),
        p_value: r.p_value(),
        extended: run.extended,
        sequence: r.looks.clone(),
    }
}

/// The median block ratio: the point the sign sequence is centred on (always inside it).
fn median_ratio(logs: &[f64]) -> Option<f64> {
    let v: Vec<f64> = logs.iter().copied().filter(|x| x.is_finite()).collect();
    crate::descriptive::summary::median_of(&v).map(f64::exp)
}

fn interval_text(ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!("confidence sequence [{lo:.3}, {hi:.3}]"),
        None => "the confidence sequence does not bound the ratio yet".to_owned(),
    }
}

/// The sentence for a sequential comparison: what was decided, on which look, and how far
/// the experiment got.
fn sentence(
    (cand, base): (&str, &str),
    outcome: Outcome,
    ratio: Option<f64>,
    r: &SequentialReport,
    stop: Stop,
) -> String {
    let ci = interval_text(r.ratio_ci);
    let point = ratio.map_or_else(
        || "no ratio".to_owned(),
        |x| format!("median ratio {x:.3}x"),
    );
    let m = r.margin * 100.0;
    let of = format!("{} blocks of at most {}", r.looks, r.max_blocks);
    // The rule decided at its first decision (`decided_at`), which is the last look when
    // the runner stopped there; a file that went on (extended, or resumed past the stop)
    // says both.
    let decided = match r.decided_at {
        Some(at) if at < r.looks => format!(
            "{at} blocks (its first decision; the sequence shown is at the last of the file's {of})"
        ),
        Some(at) => format!("{at} blocks of at most {}", r.max_blocks),
        None => of.clone(),
    };
    let mut s = match outcome {
        Outcome::Faster | Outcome::Slower => {
            let word = if outcome == Outcome::Faster {
                "faster"
            } else {
                "slower"
            };
            format!(
                "{cand} is {word} than {base}: {point}, {ci}, decided by the sequential rule after {decided} (alpha {} over every look).",
                r.alpha
            )
        }
        Outcome::Equivalent => format!(
            "{cand} and {base} are equivalent within ±{m:.1}%: {point}, {ci} lies inside the margin, decided after {decided}."
        ),
        Outcome::Inconclusive | Outcome::Mixed if stop == Stop::MaxBlocks => format!(
            "No decision between {cand} and {base} at the limit of {} blocks: {point}, {ci} still holds both no change and a change beyond ±{m:.1}%.",
            r.max_blocks
        ),
        Outcome::Inconclusive | Outcome::Mixed if stop == Stop::TimeBudget => format!(
            "Not decided within the time budget: --time-budget ran out after {of}, before the sequential rule decided; {point}, {ci}. Continue it (--resume) to reach a decision."
        ),
        Outcome::Inconclusive | Outcome::Mixed => format!(
            "Not decided yet: the sequential experiment stopped after {of} before its rule decided; {point}, {ci}. Continue it to reach a decision."
        ),
    };
    if r.extended {
        s.push_str(" The experiment was extended after it had ended: the extra blocks are further looks of the same sequence.");
    }
    s
}

/// The sequential verdict beside the shape check at the stop ([`crate::paired::shape`]):
/// a decision no part of the distribution contradicts stands, with the parts quoted; a
/// shape check that finds the parts moved apart makes it mixed; a decision the shape check
/// contradicts is not a decision (inconclusive, both stated). `shape_sentence` is the
/// fixed-sample sentence of the shape check; `speed`: the values are times or throughputs
/// (their tails are fast and slow runs; other values' are low and high ends).
pub(crate) fn reconcile(
    mut s: SequentialVerdict,
    shape: &ShapeAnalysis,
    shape_outcome: Outcome,
    shape_sentence: &str,
    (higher_is_better, speed): (bool, bool),
) -> SequentialVerdict {
    let decision = match s.outcome {
        Outcome::Faster if higher_is_better => LookDecision::Larger,
        Outcome::Faster => LookDecision::Smaller,
        Outcome::Slower if higher_is_better => LookDecision::Smaller,
        Outcome::Slower => LookDecision::Larger,
        Outcome::Equivalent => LookDecision::Equivalent,
        Outcome::Inconclusive | Outcome::Mixed => LookDecision::Undecided,
    };
    let parts = crate::analysis::verdict::shape_parts(shape, higher_is_better, speed);
    if shape_outcome == Outcome::Mixed {
        s.summary = format!(
            "{shape_sentence} The sequential rule on each block's median runs said: {}",
            s.summary
        );
        s.outcome = Outcome::Mixed;
        s.verdict = Verdict::Significant;
    } else if decision.decided()
        && !shape_agrees(decision, shape, higher_is_better, s.report.margin)
    {
        s.summary = format!(
            "Not decided: the sequential rule on each block's median runs said {}, but the shape check of the run distributions disagrees: {shape_sentence}",
            s.outcome.as_str()
        );
        s.outcome = Outcome::Inconclusive;
        s.verdict = Verdict::NotSignificant;
    } else {
        s.summary = format!("{} Shape check at the stop: {parts}.", s.summary);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequential::SequentialRule;

    fn summary(logs: &[f64]) -> (SequentialReport, String) {
        let run = SequentialRun {
            rule: SequentialRule {
                max_blocks: 60,
                ..SequentialRule::default()
            },
            extended: false,
            budget_ended: false,
        };
        let v = sequential_verdict(logs, &run, false, ("B", "A")).unwrap();
        (v.report, v.summary)
    }

    #[test]
    fn the_sentence_names_the_block_of_the_decision() {
        // A 10% slowdown in every block: decided at the first look allowed (7 blocks).
        let (r, s) = summary(&[0.1; 7]);
        assert_eq!((r.looks, r.decided_at), (7, Some(7)));
        assert!(s.contains("after 7 blocks of at most 60 "), "{s}");
    }

    #[test]
    fn a_file_that_went_on_after_the_decision_says_where_it_was_decided() {
        // Decided at look 7, and the file goes on to 20 blocks: "after 7", never "after 20".
        let (r, s) = summary(&[0.1; 20]);
        assert_eq!((r.looks, r.decided_at), (20, Some(7)));
        assert!(
            s.contains("after 7 blocks (its first decision; the sequence shown is at the last of the file's 20 blocks of at most 60)"),
            "{s}"
        );
        assert!(!s.contains("after 20"), "{s}");
    }
}
