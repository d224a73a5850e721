//! The looks of a sequential experiment: after every complete block, the confidence
//! sequence over the blocks so far, computed exactly as `abba analyze` replays it.

use bench_stats::sequential::{Replay, dataset_log_ratios, dataset_shape, replay, shape_agrees};

use crate::raw::{Experiment, RawHeader, RawLook, RawSequence, Runs, SequenceStop};

use super::Until;

/// Every look so far over `runs` (the dataset the analysis would read from the file), and
/// whether the last look's decision agrees with the shape check of the run distributions
/// (p10, p50, p90 and the mean run: a sequence stops only on a decision that every part
/// could have contradicted and none did). `None` when the blocks cannot form log-ratios. Time: O(runs + blocks^2),
/// plus the shape check's randomization test at a decided look.
pub(super) fn looks(header: &RawHeader, runs: &Runs, until: &Until) -> Option<(Replay, bool)> {
    let data = Experiment::new(header.clone(), runs.clone(), "")
        .to_dataset()
        .dataset;
    let logs = dataset_log_ratios(&data, until.baseline.as_deref())?;
    let r = replay(&logs, &until.rule);
    let agrees = match r.last() {
        Some(last) if last.decision.decided() => {
            dataset_shape(&data, until.baseline.as_deref(), &until.rule).is_none_or(|s| {
                shape_agrees(last.decision, &s, data.higher_is_better, until.rule.margin)
            })
        }
        _ => true,
    };
    Some((r, agrees))
}

/// The trailer's record of `replay`, `finished` when the experiment ran to its end (a
/// decision or the block limit) rather than stopping early.
pub(super) fn record(replay: &Replay, until: &Until) -> RawSequence {
    let last = replay.last();
    let stop = match last {
        Some(l) if l.decision.decided() => SequenceStop::Decided,
        Some(l) if l.blocks >= until.rule.max_blocks => SequenceStop::MaxBlocks,
        _ => SequenceStop::NotFinished,
    };
    RawSequence {
        stop,
        decided_at: replay.first_decision.map(|i| replay.looks[i].blocks),
        looks: replay.looks.iter().map(RawLook::from_look).collect(),
    }
}

#[cfg(test)]
mod tests {
    use crate::*;
    use bench_stats::sequential::SequentialRule;
    use bench_stats::{AnalysisConfig, Outcome as Verdict, WarningCode};

    fn config(blocks: u32, until: bool) -> ExperimentConfig {
        let variant = |n: &str| Variant {
            name: n.into(),
            command: CommandSpec::parse(&format!("prog-{n}"), Shell::None).unwrap(),
        };
        ExperimentConfig {
            variants: vec![variant("A"), variant("B")],
            blocks,
            until: until.then(|| Until {
                rule: SequentialRule {
                    max_blocks: blocks,
                    ..SequentialRule::default()
                },
                baseline: None,
            }),
            ..ExperimentConfig::default()
        }
    }

    /// B takes `effect` times A's time, with a deterministic +-0.4% wobble per call.
    fn runner(effect: f64) -> FakeRunner {
        FakeRunner::new().with_script(move |call, n| {
            let wobble = 1.0 + 0.004 * (((n * 7919) % 13) as f64 / 6.0 - 1.0);
            let base = 1_000_000.0 * wobble;
            let t = if call.variant == "B" {
                base * effect
            } else {
                base
            };
            FakeRunner::success(t as u64)
        })
    }

    fn run(config: &ExperimentConfig, effect: f64, out: &mut RawWriter) -> Experiment {
        run_experiment(
            config,
            &InterruptFlag::new(),
            &mut runner(effect),
            out,
            &mut NoopObserver,
        )
        .unwrap()
    }

    #[test]
    fn a_clear_effect_stops_at_the_first_look_that_decides() {
        let config = config(200, true);
        let outcome = run(&config, 1.1, &mut RawWriter::discard());
        // The sign sequence decides from 7 blocks; the stop waits for every part of the
        // shape check to have its interval (8 here, where the parts move together).
        assert_eq!(outcome.runs.len(), 8 * 4);
        assert_eq!(outcome.header.stop_rule.as_ref().unwrap().max_blocks, 200);
        let a = analyze_input(
            &Input::from_experiment(outcome.clone()),
            &AnalysisConfig::default(),
        )
        .unwrap();
        let c = &a.groups[0].comparisons[0];
        assert_eq!(c.outcome, Verdict::Slower);
        let s = c.sequential.as_ref().unwrap();
        assert_eq!(
            (s.looks, s.decided_at, s.stop.as_str()),
            (8, Some(7), "decided")
        );
    }

    #[test]
    fn the_analysis_replays_the_looks_on_the_block_values_the_runner_used() {
        // B's runs are all 1.1; one of A's two runs in every block is 1.0, the other 3x
        // slow. The block medians (the default's block value, what the runner looks at)
        // show B faster in every block, and so do its mean run and slow runs; its fast
        // runs are 10% slower. The analysis must read the same values as the runner and
        // reach the same decision at the same look.
        let a_calls = std::sync::atomic::AtomicUsize::new(0);
        let mut runner = FakeRunner::new().with_script(move |call, _| {
            if call.variant == "B" {
                return FakeRunner::success(1_100_000);
            }
            let i = a_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            FakeRunner::success(if i % 2 == 1 { 3_000_000 } else { 1_000_000 })
        });
        let config = ExperimentConfig {
            warmup: 0,
            ..config(60, true)
        };
        let outcome = run_experiment(
            &config,
            &InterruptFlag::new(),
            &mut runner,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        // The block medians decide FASTER at look 7, when the fast runs cannot yet be
        // resolved at their share of alpha (no interval before 9 blocks): no stop. From 9
        // blocks on the fast runs are significantly slower and contradict it: a sequence
        // stops only on a decision the shape check could have contradicted and did not,
        // so it runs to its limit.
        assert_eq!(outcome.runs.len(), 60 * 4, "the shape check held the stop");
    }

    #[test]
    fn a_sequence_cut_short_says_how_far_it_got() {
        let mut outcome = run(&config(200, true), 1.1, &mut RawWriter::discard());
        outcome.runs.truncate(4 * 4 + 2);
        let a = analyze_input(
            &Input::from_experiment(outcome.clone()),
            &AnalysisConfig::default(),
        )
        .unwrap();
        let c = &a.groups[0].comparisons[0];
        assert_eq!(c.outcome, Verdict::Inconclusive);
        let s = c.sequential.as_ref().unwrap();
        assert_eq!(
            (s.looks, s.stop.as_str(), s.decided_at),
            (4, "not-finished", None)
        );
        assert!(
            c.summary.contains("stopped after 4 blocks of at most 200"),
            "{}",
            c.summary
        );
    }

    #[test]
    fn identical_variants_stop_equivalent_and_the_trailer_records_every_look() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("aa.jsonl");
        let mut out = RawWriter::create(&path).unwrap();
        let outcome = run(&config(60, true), 1.0, &mut out);
        drop(out);
        let raw = read_raw(&path).unwrap();
        let seq = raw.end.clone().unwrap().sequence.unwrap();
        let blocks = outcome.runs.len() as u32 / 4;
        assert!(blocks < 60, "{blocks}");
        assert_eq!(seq.stop, SequenceStop::Decided);
        assert_eq!(seq.looks.len() as u32, blocks);
        assert_eq!(
            seq.looks.last().unwrap().decision,
            bench_stats::sequential::LookDecision::Equivalent
        );
        let a = analyze_input(&Input::from_experiment(raw), &AnalysisConfig::default()).unwrap();
        let c = &a.groups[0].comparisons[0];
        assert_eq!(c.outcome, Verdict::Equivalent);
        assert_eq!(c.sequential.as_ref().unwrap().decided_at, seq.decided_at);
    }

    #[test]
    fn extending_an_ended_experiment_is_a_further_look() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        let mut out = RawWriter::create(&path).unwrap();
        run(&config(8, false), 1.0005, &mut out);
        drop(out);
        let mut more = config(12, false);
        more.resume = Some(ResumePoint::load(&path).unwrap());
        let mut out = more.resume.as_ref().unwrap().open_writer(&more).unwrap();
        let outcome = run(&more, 1.0005, &mut out);
        drop(out);
        assert_eq!(outcome.runs.len(), 12 * 4);
        let raw = read_raw(&path).unwrap();
        assert_eq!(raw.header.blocks, 12);
        assert_eq!(raw.header.extended, vec![RawExtension::new(8, 12)]);
        let a = analyze_input(&Input::from_experiment(raw), &AnalysisConfig::default()).unwrap();
        assert!(a.warnings.iter().any(|w| w.code == WarningCode::Extended));
        let s = a.groups[0].comparisons[0].sequential.as_ref().unwrap();
        assert!(s.extended);
        assert_eq!((s.looks, s.max_blocks), (12, 12));
    }
}
