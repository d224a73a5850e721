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
use crate::raw::{EndStatus, Experiment, RawHeader, Runs};

use super::Suite;

/// Which benchmarks of `header`'s suite are decided after `runs` (every run so far, in
/// complete blocks), in the suite's order: a benchmark is decided when the last look of its
/// sequence decides and its shape check agrees. Time: O(runs) plus one replay per
/// benchmark, and the shape check's randomization test at a deciding look.
pub(crate) fn decided(header: &RawHeader, runs: &Runs, until: &Until) -> Vec<bool> {
    let data = Experiment::new(header.clone(), runs.clone(), "").suite_datasets();
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
        let block = runs.block(at);
        let n = (at..runs.len())
            .take_while(|&i| runs.block(i) == block)
            .count();
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
        let now = decided(&experiment.header, &runs.slice(0..at), &until);
        done.iter_mut().zip(now).for_each(|(d, n)| *d |= n);
    }
    at
}

/// How a suite's experiment ended, for its report ([`bench_stats::suite::SuiteReport::stop`]):
/// `None` for a fixed suite run without `time_budget`. Under a stop rule it says whether
/// every benchmark was decided; the budget is the one the session ran under (its end line
/// records it when it ended the session). Time: as `decided`, the per-benchmark stop check.
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use bench_stats::sequential::SequentialRule;

    use crate::suite::SuiteBenchmark;
    use crate::*;

    /// The stop rule's refusals name the flags that change them, from the library as from
    /// the binary.
    #[test]
    fn the_stop_rules_refusals_name_their_flags() {
        use bench_stats::suite::Correction;
        let ask = |max, min| StopRequest {
            until: true,
            max_blocks: Some(max),
            min_blocks: min,
        };
        let said = |request| {
            suite_stop_rule(request, None, 0.05, 0.01, Correction::BenjaminiHochberg, 2)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            said(ask(3, None)),
            "--max-blocks 3: each benchmark's sequence runs at level 0.025 (--alpha 0.05 over 2 benchmarks) and cannot decide before 8 blocks: give --max-blocks 8 or more"
        );
        assert_eq!(
            said(ask(100, Some(300))),
            "--min-blocks 300 with --max-blocks 100: no look comes before block 300, after the limit; give --max-blocks 300 or more, or a smaller --min-blocks"
        );
        let fixed = SuiteError::StopRuleOnFixedResume.to_string();
        assert!(
            fixed.starts_with("--until decided: the file to --resume ran a fixed number of blocks"),
            "{fixed}"
        );
    }

    /// Two benchmarks: `clear` (B 10% slower than A in every block) and `seesaw` (B 5%
    /// faster and slower than A in alternate blocks: never decided), at most `max` blocks.
    fn config(max: u32) -> ExperimentConfig {
        let variant = |n: &str| Variant {
            name: n.into(),
            command: CommandSpec::parse(&format!("prog-{}", n.replace('/', "-")), Shell::None)
                .unwrap(),
        };
        ExperimentConfig {
            variants: ["clear/A", "clear/B", "seesaw/A", "seesaw/B"]
                .into_iter()
                .map(variant)
                .collect(),
            blocks: max,
            warmup: 0,
            suite: Some(Suite {
                benchmarks: vec![
                    SuiteBenchmark::new("clear", vec![0, 1]),
                    SuiteBenchmark::new("seesaw", vec![2, 3]),
                ],
            }),
            until: Some(Until {
                rule: SequentialRule {
                    max_blocks: max,
                    ..SequentialRule::new(0.025, 0.01)
                },
                baseline: None,
            }),
            ..ExperimentConfig::default()
        }
    }

    fn runner() -> FakeRunner {
        let seesaw_b = Rc::new(Cell::new(0u64));
        FakeRunner::new().with_script(move |call, n| {
            let wobble = 1.0 + 0.004 * (((n * 7919) % 13) as f64 / 6.0 - 1.0);
            let base = 1_000_000.0 * wobble;
            let t = match call.variant.as_str() {
                "clear/B" => base * 1.1,
                "seesaw/B" => {
                    let k = seesaw_b.get();
                    seesaw_b.set(k + 1);
                    if (k / 2) % 2 == 0 {
                        950_000.0
                    } else {
                        1_050_000.0
                    }
                }
                _ => base,
            };
            FakeRunner::success(t as u64)
        })
    }

    fn blocks_of(runs: &Runs, benchmark: &str) -> Vec<u32> {
        let mut b: Vec<u32> = runs
            .iter()
            .filter(|r| r.benchmark == Some(benchmark))
            .map(|r| r.block)
            .collect();
        b.dedup();
        b
    }

    #[test]
    fn a_decided_benchmark_leaves_the_blocks_and_the_rest_run_to_the_limit() {
        let config = config(24);
        let outcome = run_experiment(
            &config,
            &InterruptFlag::new(),
            &mut runner(),
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        let clear = blocks_of(&outcome.runs, "clear");
        assert!(clear.len() < 12, "{clear:?}");
        assert_eq!(blocks_of(&outcome.runs, "seesaw").len(), 24);
        // Every block the clear benchmark ran holds all four of its runs.
        for b in &clear {
            let n = outcome
                .runs
                .iter()
                .filter(|r| r.block == *b && r.benchmark == Some("clear"))
                .count();
            assert_eq!(n, 4, "block {b}");
        }
        let stop = suite_stop(&outcome, None).unwrap();
        assert_eq!((stop.stop.as_str(), stop.blocks), ("max-blocks", 24));
    }

    #[test]
    fn a_resume_cut_inside_a_block_replays_the_decisions_and_continues_the_plan() {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("full.jsonl");
        let config = config(20);
        let mut out = RawWriter::create(&full).unwrap();
        let whole = run_experiment(
            &config,
            &InterruptFlag::new(),
            &mut runner(),
            &mut out,
            &mut NoopObserver,
        )
        .unwrap();
        drop(out);
        let clear_blocks = blocks_of(&whole.runs, "clear").len();
        // Cut the file two runs into the 15th block (after `clear` was decided): the
        // header and the runs before, as a killed abba leaves them.
        let text = std::fs::read_to_string(&full).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let before = whole.runs.iter().take_while(|r| r.block < 14).count();
        let cut = dir.path().join("cut.jsonl");
        std::fs::write(&cut, lines[..1 + before + 2].join("\n") + "\n").unwrap();
        let read = read_raw(&cut).unwrap();
        assert_eq!(read.complete_prefix(), before);
        let mut more = config.clone();
        more.resume = Some(ResumePoint::load(&cut).unwrap());
        let mut out = more.resume.as_ref().unwrap().open_writer(&more).unwrap();
        run_experiment(
            &more,
            &InterruptFlag::new(),
            &mut runner(),
            &mut out,
            &mut NoopObserver,
        )
        .unwrap();
        drop(out);
        let resumed = read_raw(&cut).unwrap();
        assert_eq!(blocks_of(&resumed.runs, "clear").len(), clear_blocks);
        assert_eq!(
            blocks_of(&resumed.runs, "seesaw"),
            (0..20).collect::<Vec<u32>>()
        );
        assert_eq!(resumed.runs.len(), whole.runs.len());
        let data = resumed.suite_datasets();
        assert!(
            data.iter().all(|b| b.loaded.warnings.is_empty()),
            "{:?}",
            data.iter().map(|b| &b.loaded.warnings).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_time_budget_ends_the_suite_at_a_block_boundary_with_its_end_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.jsonl");
        let config = ExperimentConfig {
            time_budget: Some(std::time::Duration::from_nanos(1)),
            ..config(20)
        };
        let mut out = RawWriter::create(&path).unwrap();
        run_experiment(
            &config,
            &InterruptFlag::new(),
            &mut runner(),
            &mut out,
            &mut NoopObserver,
        )
        .unwrap();
        drop(out);
        let raw = read_raw(&path).unwrap();
        // One block: a budget never cuts a block.
        assert_eq!(raw.runs.len(), 8);
        let end = raw.end.as_ref().unwrap();
        assert_eq!(end.status, EndStatus::TimeBudget);
        assert_eq!(end.time_budget_ns, Some(1));
        assert_eq!(suite_stop(&raw, None).unwrap().stop, "time-budget");
    }
}

/// What the command line asks of a suite's stop: `--until decided` and its limits.
#[derive(Debug, Clone, Copy, Default)]
pub struct StopRequest {
    /// `--until decided`.
    pub until: bool,
    /// `--max-blocks`.
    pub max_blocks: Option<u32>,
    /// `--min-blocks`.
    pub min_blocks: Option<u32>,
}

/// The sequential rule of a suite of `benchmarks` benchmarks: the rule a resumed file
/// (`resumed`) ran under (its limit extended by `--max-blocks`), else with `--until
/// decided` each benchmark's sequence at the suite's `alpha` over the benchmarks
/// ([`bench_stats::suite::sequential_level`]) with `margin`; `None` for a fixed number of
/// blocks.
///
/// # Errors
/// [`super::SuiteError::StopRuleOnFixedResume`]: a stop rule asked of a resumed file that
/// ran a fixed number of blocks; [`super::SuiteError::CannotDecide`]: a limit that leaves
/// no block at which a benchmark could decide.
pub fn suite_stop_rule(
    request: StopRequest,
    resumed: Option<&RawHeader>,
    alpha: f64,
    margin: f64,
    correction: bench_stats::suite::Correction,
    benchmarks: usize,
) -> Result<Option<bench_stats::sequential::SequentialRule>, super::SuiteError> {
    use bench_stats::sequential::SequentialRule;
    let recorded = resumed.and_then(|h| h.stop_rule.as_ref());
    let rule = match recorded {
        Some(r) => SequentialRule {
            max_blocks: request.max_blocks.unwrap_or(r.max_blocks),
            ..r.to_rule()
        },
        None if !request.until => return Ok(None),
        None if resumed.is_some() => return Err(super::SuiteError::StopRuleOnFixedResume),
        None => {
            let level = bench_stats::suite::sequential_level(alpha, correction, benchmarks);
            let rule = SequentialRule::new(level, margin);
            SequentialRule {
                max_blocks: request.max_blocks.unwrap_or(rule.max_blocks),
                min_blocks: request.min_blocks.unwrap_or(rule.min_blocks),
                ..rule
            }
        }
    };
    let by_level = SequentialRule::needed_blocks(rule.alpha);
    let needed = by_level.max(rule.min_blocks);
    if rule.max_blocks < needed {
        return Err(super::SuiteError::CannotDecide {
            max_blocks: rule.max_blocks,
            level: rule.alpha,
            needed,
            alpha: recorded.is_none().then_some(alpha),
            benchmarks,
            min_blocks: request.min_blocks.filter(|&m| m > by_level),
        });
    }
    Ok(Some(rule))
}
