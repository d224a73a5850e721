//! A suite under a sequential stop rule (`abba suite --until decided`): after every
//! complete block each benchmark still running looks at its own confidence sequence, and
//! a benchmark whose look decides (and which the shape check of its run distributions does
//! not contradict, as for `abba compare --until decided`) runs in no further block. The
//! suite stops when every benchmark is decided, or at the rule's block limit.
//!
//! The rule's `alpha` is each benchmark's level: the front end sets it to the suite's
//! error rate over the number of benchmarks (Bonferroni,
//! [`bench_stats::suite::sequential_level`]), so the chance of any false claim in the suite
//! stays within the suite's alpha however the benchmarks' stops fall, each sequence being
//! anytime-valid.
//!
//! Which benchmarks ran in a block follows from the runs before it, so a reader (a resume)
//! recomputes it from the file: [`complete_prefix`] replays the decisions block by block.

use bench_stats::sequential::{dataset_log_ratios, dataset_shape, replay, shape_agrees};

use crate::design::{Schedule, Target};
use crate::experiment::Until;
use crate::raw::{EndStatus, Experiment, RawHeader, RunRecord};

use super::Suite;

/// Which benchmarks of `header`'s suite are decided after `runs` (every run so far, in
/// complete blocks), in the suite's order: a benchmark is decided when the last look of its
/// sequence decides and its shape check agrees. Time: O(runs) plus one replay per
/// benchmark, and the shape check's randomization test at a deciding look.
pub(crate) fn decided(header: &RawHeader, runs: &[RunRecord], until: &Until) -> Vec<bool> {
    let data = Experiment::new(header.clone(), runs.to_vec(), "").suite_datasets();
    data.iter()
        .map(|b| {
            let data = &b.loaded.dataset;
            let Some(logs) = dataset_log_ratios(data, None) else {
                return false;
            };
            let r = replay(&logs, &until.rule);
            match r.last() {
                Some(last) if last.decision.decided() => dataset_shape(data, None, &until.rule)
                    .is_none_or(|s| {
                        shape_agrees(last.decision, &s, data.higher_is_better, until.rule.margin)
                    }),
                _ => false,
            }
        })
        .collect()
}

/// The runs of one block of each benchmark of `suite` under `schedule`, in suite order.
pub(crate) fn runs_per_block(suite: &Suite, schedule: &Schedule) -> Vec<usize> {
    suite
        .benchmarks
        .iter()
        .map(|b| {
            schedule
                .runs
                .iter()
                .filter(|r| r.block == 0)
                .filter(|r| matches!(r.target, Target::Variant(i) if b.variants.contains(&i)))
                .count()
        })
        .collect()
}

/// How many leading runs of a suite file under a stop rule form complete blocks: block by
/// block, the benchmarks not yet decided by the runs before it must all have their runs in
/// it. Time: O(blocks × runs) plus the looks.
pub(crate) fn complete_prefix(experiment: &Experiment) -> usize {
    let (Some(suite), Some(rule)) = (experiment.suite(), experiment.header.stop_rule.as_ref())
    else {
        return 0;
    };
    let until = Until {
        rule: rule.to_rule(),
        baseline: None,
    };
    let per = runs_per_block(&suite, &experiment.schedule());
    let runs = &experiment.runs;
    let mut done = vec![false; per.len()];
    let mut at = 0;
    while at < runs.len() {
        let block = runs[at].block;
        let n = runs[at..].iter().take_while(|r| r.block == block).count();
        let expected: usize = per
            .iter()
            .zip(&done)
            .filter(|&(_, d)| !d)
            .map(|(p, _)| p)
            .sum();
        if n != expected {
            break;
        }
        at += n;
        let now = decided(&experiment.header, &runs[..at], &until);
        done.iter_mut().zip(now).for_each(|(d, n)| *d |= n);
    }
    at
}

/// How a suite's experiment ended, for its report ([`bench_stats::suite::SuiteReport::stop`]):
/// `None` for a fixed suite run without `time_budget`. Under a stop rule it says whether
/// every benchmark was decided; the budget is the one the session ran under (its end line
/// records it when it ended the session). Time: as [`decided`].
pub fn suite_stop(
    experiment: &Experiment,
    time_budget: Option<std::time::Duration>,
) -> Option<bench_stats::suite::SuiteStop> {
    let rule = experiment.header.stop_rule.as_ref();
    let end = experiment.end.as_ref();
    let budget = end
        .and_then(|t| t.time_budget_ns)
        .map(std::time::Duration::from_nanos)
        .or(time_budget);
    if rule.is_none() && budget.is_none() {
        return None;
    }
    let blocks = experiment
        .runs
        .iter()
        .map(|r| r.block.saturating_add(1))
        .max()
        .unwrap_or(0);
    let status = end.map(|t| t.status);
    let stop = match (status, rule) {
        (Some(EndStatus::TimeBudget), _) => "time-budget",
        (_, Some(rule)) => {
            let until = Until {
                rule: rule.to_rule(),
                baseline: None,
            };
            if decided(&experiment.header, &experiment.runs, &until)
                .iter()
                .all(|&d| d)
            {
                "decided"
            } else if blocks >= rule.max_blocks {
                "max-blocks"
            } else {
                "not-finished"
            }
        }
        (Some(EndStatus::Complete), None) => "complete",
        (_, None) => "not-finished",
    };
    Some(bench_stats::suite::SuiteStop::new(
        stop,
        blocks,
        experiment.header.blocks,
        budget.map(|b| b.as_secs_f64()),
        rule.map(|r| r.alpha),
    ))
}
