//! The loop against the fake runner: order, pads, failures, metrics, stops, references.

use crate::*;
use std::io::Write;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn variants(names: &[&str]) -> Vec<Variant> {
    names
        .iter()
        .map(|n| Variant {
            name: (*n).into(),
            command: CommandSpec::parse(&format!("prog-{n}"), Shell::None).unwrap(),
        })
        .collect()
}

fn failing(code: i32, stderr: &str) -> RunMeasurement {
    RunMeasurement {
        wall_ns: 1,
        user_ns: 0,
        sys_ns: 0,
        max_rss_kib: 0,
        run_delay_ns: None,
        termination: Termination::Exited(code),
        last_json: None,
        stderr_tail: stderr.into(),
        counts: None,
    }
}

#[derive(Default)]
struct Recorder {
    events: Vec<String>,
}

impl Observer for Recorder {
    fn on_warmup(&mut self, v: &Variant) {
        self.events.push(format!("warm {}", v.name));
    }
    fn on_run_start(&mut self, r: &PlannedRun, v: &Variant) {
        self.events.push(format!("start {} {}", r.block, v.name));
    }
    fn on_block_end(&mut self, b: u32) {
        self.events.push(format!("end {b}"));
    }
}

#[test]
fn runs_follow_the_schedule_with_warmup_and_pads() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 3,
        warmup: 2,
        seed: 5,
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new();
    let mut obs = Recorder::default();
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut RawWriter::discard(),
        &mut obs,
    )
    .unwrap();
    let order: Vec<&str> = fake.calls().iter().map(|c| c.variant.as_str()).collect();
    assert_eq!(
        order,
        [
            "A", "B", "A", "B", "A", "B", "B", "A", "B", "A", "A", "B", "A", "B", "B", "A"
        ]
    );
    let schedule = config.schedule();
    for (call, (planned, rec)) in fake.calls()[4..]
        .iter()
        .zip(schedule.runs.iter().zip(&outcome.runs))
    {
        assert_eq!(call.env_pad, Layout::Random.pad_for(5, planned));
        assert_eq!(rec.env_pad, call.env_pad);
        assert_eq!(
            (rec.block, rec.position, rec.run),
            (planned.block, planned.position, planned.run_index)
        );
    }
    assert_eq!(obs.events[..2], ["warm A", "warm B"]);
    assert_eq!(
        obs.events
            .iter()
            .filter(|e| e.starts_with("end"))
            .cloned()
            .collect::<Vec<_>>(),
        ["end 0", "end 1", "end 2"]
    );
    assert_eq!(obs.events.iter().position(|e| e == "end 0"), Some(8));
}

#[test]
fn same_seed_same_pads_different_seed_differs() {
    let pads = |seed| {
        let config = ExperimentConfig {
            variants: variants(&["A", "B", "C"]),
            design: Design::Random,
            blocks: 5,
            warmup: 0,
            seed,
            ..ExperimentConfig::default()
        };
        let mut fake = FakeRunner::new();
        run_experiment(
            &config,
            &InterruptFlag::new(),
            &mut fake,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        fake.calls()
            .iter()
            .map(|c| (c.variant.clone(), c.env_pad))
            .collect::<Vec<_>>()
    };
    assert_eq!(pads(1), pads(1));
    assert_ne!(pads(1), pads(2));
}

#[test]
fn failure_stops_with_variant_block_and_stderr_unless_ignored() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 3,
        warmup: 0,
        ..ExperimentConfig::default()
    };
    // Runs: block 0 = A B B A, block 1 = B A A B; call 5 is A in block 1.
    let script = |_: &crate::runner::FakeCall, n: usize| {
        if n == 5 {
            failing(7, "segfault-ish")
        } else {
            FakeRunner::success(100)
        }
    };
    let mut fake = FakeRunner::new().with_script(script);
    let buf = Shared::default();
    let mut w = RawWriter::to_writer(buf.clone(), "mem");
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut w,
        &mut NoopObserver,
    )
    .unwrap_err();
    drop(w);
    assert_eq!(
        err.to_string(),
        "variant A failed in block 2 (exit code 7); stderr ends with:\nsegfault-ish"
    );
    let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
    assert_eq!(data.runs.len(), 6);
    assert_eq!(data.runs.at(5).exit_code, Some(7));

    let ignore = ExperimentConfig {
        on_failure: FailurePolicy::Ignore,
        ..config
    };
    let mut fake = FakeRunner::new().with_script(script);
    let outcome = run_experiment(
        &ignore,
        &InterruptFlag::new(),
        &mut fake,
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    assert_eq!(outcome.runs.len(), 12);
    let loaded = outcome.to_dataset();
    assert_eq!(
        loaded.dataset.series[0].observations.len(),
        4,
        "block 1 dropped"
    );
    assert!(loaded.warnings.iter().any(|w| {
        w.message
            .contains("block 2 (id 1 in the raw file) has a failed run")
    }));
}

#[test]
fn json_metric_reads_the_field_or_fails() {
    let mut config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 1,
        warmup: 0,
        metric: Metric::Json("ops".into()),
        ..ExperimentConfig::default()
    };
    let with_json = |json: &'static str| {
        move |_: &crate::runner::FakeCall, _: usize| RunMeasurement {
            last_json: Some(json.into()),
            ..FakeRunner::success(5)
        }
    };
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut FakeRunner::new().with_script(with_json(r#"{"ops": 3.5}"#)),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    assert!(outcome.runs.iter().all(|r| r.metric == Some(3.5)));
    assert_eq!(outcome.header.unit, "value");
    let d = outcome.to_dataset().dataset;
    assert_eq!(d.series[0].observations[0].value, 3.5);
    for bad in [r#"{"ops": "fast"}"#, r#"{"other": 1}"#] {
        let err = run_experiment(
            &config,
            &InterruptFlag::new(),
            &mut FakeRunner::new().with_script(with_json(bad)),
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap_err();
        assert!(matches!(err, SchedError::Metric { block: 0, .. }), "{err}");
    }
    // The file of such a failed experiment still reads; the block without values is
    // dropped with a warning.
    let buf = Shared::default();
    let mut w = RawWriter::to_writer(buf.clone(), "mem");
    let script = with_json(r#"{"other": 1}"#);
    run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut FakeRunner::new().with_script(script),
        &mut w,
        &mut NoopObserver,
    )
    .unwrap_err();
    drop(w);
    let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
    assert_eq!(data.runs.at(0).metric, None);
    assert_eq!(data.end.as_ref().map(|t| t.status), Some(EndStatus::Failed));
    assert!(data.to_dataset().dataset.series[0].observations.is_empty());
    config.higher_is_better = Some(true);
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut FakeRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert!(err.to_string().contains("printed no JSON object"));
}

#[test]
fn stop_request_is_not_recorded_and_reports_the_signal() {
    let flag = InterruptFlag::new();
    let f2 = flag.clone();
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 4,
        warmup: 0,
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new().with_script(move |_, n| {
        if n == 6 {
            f2.request_stop_with(SIGTERM_NUM);
        }
        FakeRunner::success(10)
    });
    let buf = Shared::default();
    let mut w = RawWriter::to_writer(buf.clone(), "mem");
    let err = run_experiment(&config, &flag, &mut fake, &mut w, &mut NoopObserver).unwrap_err();
    drop(w);
    assert!(matches!(
        err,
        SchedError::Interrupted {
            signal: SIGTERM_NUM
        }
    ));
    assert_eq!(fake.calls().len(), 7);
    let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
    assert_eq!(data.runs.len(), 6);
    let loaded = data.to_dataset();
    assert_eq!(loaded.dataset.series[0].observations.len(), 2);
    assert!(loaded.warnings.iter().any(|w| {
        w.message
            .contains("block 2 (id 1 in the raw file) has 2 of 4")
    }));
}

const SIGTERM_NUM: i32 = 15;

#[test]
fn preflight_and_config_errors_come_before_any_run() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new().with_missing("prog-B");
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "program \"prog-B\" (variant B) was not found or is not executable"
    );
    assert!(fake.calls().is_empty());
    let dup = ExperimentConfig {
        variants: variants(&["A", "A"]),
        ..ExperimentConfig::default()
    };
    assert!(matches!(
        run_experiment(
            &dup,
            &InterruptFlag::new(),
            &mut FakeRunner::new(),
            &mut RawWriter::discard(),
            &mut NoopObserver
        ),
        Err(SchedError::Config(_))
    ));
    let zero = ExperimentConfig {
        variants: variants(&["A"]),
        blocks: 0,
        ..ExperimentConfig::default()
    };
    let err = run_experiment(
        &zero,
        &InterruptFlag::new(),
        &mut FakeRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert!(matches!(err, SchedError::Config(_)), "{err}");
}

#[test]
fn reference_runs_beside_every_run_into_dataset_reference() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        reference: Some(CommandSpec::parse("ref", Shell::None).unwrap()),
        blocks: 3,
        warmup: 1,
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new();
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    // One warm-up run, then 4 per block (one beside each variant run).
    assert_eq!(
        fake.calls().iter().filter(|c| c.command == "ref").count(),
        13
    );
    let refs: Vec<_> = outcome.runs.iter().filter(|r| r.is_reference).collect();
    assert_eq!(refs.len(), 12);
    let block0: Vec<&str> = outcome
        .runs
        .iter()
        .filter(|r| r.block == 0)
        .map(|r| match (r.beside, r.is_reference) {
            (Some(v), true) => {
                if v == "A" {
                    "rA"
                } else {
                    "rB"
                }
            }
            _ => r.variant,
        })
        .collect();
    assert_eq!(block0, ["rA", "A", "B", "rB", "rB", "B", "A", "rA"]);
    assert_eq!(
        serde_json::to_value(&outcome.header).unwrap()["reference_placement"],
        "beside-each-run"
    );
    let d = outcome.to_dataset().dataset;
    assert_eq!(d.reference_beside.len(), 12);
    assert_eq!(
        d.reference_beside
            .iter()
            .filter(|r| r.variant == "B" && r.block == 2)
            .count(),
        2
    );
    assert_eq!(d.reference.as_ref().map(Vec::len), Some(12));
    assert_eq!(d.series[0].observations.len(), 6);
}

#[test]
fn sequential_yields_unpaired_observations() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        design: Design::Sequential,
        blocks: 3,
        warmup: 0,
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new();
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    let order: Vec<&str> = fake.calls().iter().map(|c| c.variant.as_str()).collect();
    assert_eq!(order, ["A", "A", "A", "B", "B", "B"]);
    let d = outcome.to_dataset().dataset;
    assert_eq!(d.design.map(|d| d.as_str()), Some("sequential"));
    assert!(
        d.series
            .iter()
            .flat_map(|s| &s.observations)
            .all(|o| o.block.is_none())
    );
}

fn hooked(name: &str) -> Hooks {
    let spec =
        |kind: &str| Some(CommandSpec::parse(&format!("{kind}-{name}"), Shell::None).unwrap());
    Hooks {
        setup: spec("setup"),
        prepare: spec("prep"),
        conclude: spec("conc"),
        cleanup: spec("clean"),
    }
}

fn commands(fake: &FakeRunner) -> Vec<String> {
    fake.calls().iter().map(|c| c.command.clone()).collect()
}

#[test]
fn hooks_run_around_every_run_and_once_per_variant() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 3,
        warmup: 1,
        hooks: vec![hooked("A"), hooked("B")],
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new();
    let buf = Shared::default();
    let mut w = RawWriter::to_writer(buf.clone(), "mem");
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut w,
        &mut NoopObserver,
    )
    .unwrap();
    let calls = commands(&fake);
    for v in ["A", "B"] {
        let prog = format!("prog-{v}");
        let runs: Vec<usize> = (0..calls.len()).filter(|&k| calls[k] == prog).collect();
        assert_eq!(runs.len(), 1 + 6, "one warm-up and 6 measured runs of {v}");
        for &k in &runs {
            assert_eq!(calls[k - 1], format!("prep-{v}"), "{calls:?}");
            assert_eq!(calls[k + 1], format!("conc-{v}"), "{calls:?}");
        }
        let at = |c: String| {
            (0..calls.len())
                .filter(|&k| calls[k] == c)
                .collect::<Vec<_>>()
        };
        assert_eq!(at(format!("setup-{v}")), [runs[0] - 2]);
        assert_eq!(at(format!("clean-{v}")), [runs[6] + 2]);
    }
    // 7 runs x 3 commands + setup + cleanup, per variant.
    assert_eq!(calls.len(), 2 * (7 * 3 + 2));
    assert!(
        outcome
            .runs
            .iter()
            .all(|r| r.prepare_ns.is_some() && r.conclude_ns.is_some())
    );
    drop(w);
    let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
    assert_eq!(data.header.hooks.len(), 2);
    assert_eq!(data.header.hooks[1].prepare.as_deref(), Some("prep-B"));
    assert_eq!(data.runs, outcome.runs);
}

#[test]
fn a_failing_hook_fails_its_run_unless_failures_are_ignored() {
    let fail_prep_b = |c: &crate::runner::FakeCall, _: usize| {
        if c.command == "prep-B" {
            failing(1, "cache drop refused")
        } else {
            FakeRunner::success(10)
        }
    };
    let mut config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 2,
        warmup: 0,
        hooks: vec![Hooks::default(), hooked("B")],
        ..ExperimentConfig::default()
    };
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut FakeRunner::new().with_script(fail_prep_b),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            SchedError::HookFailed {
                hook: HookKind::Prepare,
                ..
            }
        ),
        "{text}"
    );
    assert!(
        text.contains("prepare hook of variant B") && text.contains("cache drop refused"),
        "{text}"
    );
    config.on_failure = FailurePolicy::Ignore;
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut FakeRunner::new().with_script(fail_prep_b),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    let b: Vec<Run<'_>> = outcome.runs.iter().filter(|r| r.variant == "B").collect();
    assert!(
        b.iter()
            .all(|r| r.hook_failure == Some("prepare: exit code 1"))
    );
    assert!(b.iter().all(|r| !r.succeeded()));
    assert!(
        outcome
            .runs
            .iter()
            .filter(|r| r.variant == "A")
            .all(|r| r.succeeded())
    );
}

#[test]
fn warmups_per_block_run_every_variant_at_every_block_start() {
    let config = ExperimentConfig {
        variants: variants(&["A", "B"]),
        blocks: 2,
        warmup: 0,
        warmup_per_block: 1,
        ..ExperimentConfig::default()
    };
    let mut fake = FakeRunner::new();
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut fake,
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    let order: Vec<&str> = fake.calls().iter().map(|c| c.variant.as_str()).collect();
    assert_eq!(
        order,
        ["A", "B", "A", "B", "B", "A", "A", "B", "B", "A", "A", "B"]
    );
    assert_eq!(outcome.runs.len(), 8);
    assert_eq!(outcome.header.warmup_per_block, 1);
    let sequential = ExperimentConfig {
        design: Design::Sequential,
        ..config
    };
    assert!(matches!(
        run_experiment(
            &sequential,
            &InterruptFlag::new(),
            &mut FakeRunner::new(),
            &mut RawWriter::discard(),
            &mut NoopObserver,
        ),
        Err(SchedError::Config(_))
    ));
}

/// A configuration with every setting the header records away from its default.
fn rich_config() -> ExperimentConfig {
    let sh = |t: &str| CommandSpec::parse(t, Shell::Sh).unwrap();
    let variants: Vec<Variant> = ["A", "B"]
        .iter()
        .map(|n| Variant {
            name: (*n).into(),
            command: sh(&format!("prog-{n} | cat")),
        })
        .collect();
    ExperimentConfig {
        variants,
        reference: Some(sh("ref-prog")),
        design: Design::Random,
        blocks: 12,
        seed: 99,
        warmup: 3,
        settle: std::time::Duration::from_millis(5),
        layout: Layout::Fixed(17),
        pin: Some("0".parse().unwrap()),
        timeout: Some(std::time::Duration::from_secs(4)),
        metric: Metric::Count(CountEvent::Instructions),
        unit: Some("instr".into()),
        higher_is_better: Some(true),
        hooks: vec![
            Hooks {
                setup: Some(sh("make a")),
                ..Hooks::default()
            },
            Hooks {
                prepare: Some(sh("sync")),
                cleanup: Some(sh("rm -f b")),
                ..Hooks::default()
            },
        ],
        warmup_per_block: 1,
        cycles: 2,
        parameter: Some(ScanParameter {
            name: "n".into(),
            values: vec![1.0, 4.0],
        }),
        until: Some(Until {
            rule: bench_stats::sequential::SequentialRule {
                max_blocks: 12,
                min_blocks: 4,
                ..bench_stats::sequential::SequentialRule::new(0.01, 0.02)
            },
            baseline: None,
        }),
        identity: Identity {
            experiment: Some("exp-1".into()),
            host: Some("box".into()),
        },
        counter: Some(CounterSource::Pmu),
        ..ExperimentConfig::default()
    }
}

#[test]
fn a_header_reads_back_into_the_config_that_wrote_it() {
    let config = rich_config();
    config.validate().unwrap();
    let header = RawHeader::from_config(&config);
    let resumed = ExperimentConfig::resumed(&header).unwrap();
    assert_eq!(resumed.differences(&header), []);
    let mut again = RawHeader::from_config(&resumed);
    again.host = header.host.clone();
    assert_eq!(again, header);
    assert_eq!(resumed.variants, config.variants);
    assert_eq!(resumed.hooks, config.hooks);
    assert_eq!(resumed.until, config.until);
    assert_eq!(resumed.pin, config.pin);
    assert_eq!(resumed.parameter, config.parameter);
    // A default configuration differs in every field the header records, except the
    // experiment id and host it leaves to the file.
    let plain = ExperimentConfig {
        variants: variants(&["A", "B"]),
        ..ExperimentConfig::default()
    };
    let kinds: Vec<String> = plain
        .differences(&header)
        .iter()
        .map(|m| m.to_string().split(" differs").next().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        [
            "design",
            "seed",
            "block count",
            "variants",
            "reference",
            "reference placement",
            "metric",
            "layout",
            "warmup",
            "settle",
            "timeout",
            "shell",
            "counter",
            "pin",
            "warmup-per-block",
            "runs-per-block",
            "hooks",
            "direction",
            "unit",
        ]
    );
}

#[test]
fn every_invariant_is_a_typed_error() {
    let ok = ExperimentConfig {
        variants: variants(&["A", "B"]),
        ..ExperimentConfig::default()
    };
    let with = |f: &dyn Fn(&mut ExperimentConfig)| {
        let mut c = ok.clone();
        f(&mut c);
        c.validate().unwrap_err()
    };
    assert_eq!(with(&|c| c.variants.clear()), ConfigError::NoVariants);
    assert_eq!(with(&|c| c.blocks = 0), ConfigError::NoBlocks);
    assert_eq!(
        with(&|c| c.timeout = Some(std::time::Duration::ZERO)),
        ConfigError::ZeroTimeout
    );
    assert_eq!(
        with(&|c| {
            c.design = Design::Sequential;
            c.cycles = 2;
        }),
        ConfigError::CyclesUnblocked
    );
    let until = |min, max| Until {
        rule: bench_stats::sequential::SequentialRule {
            min_blocks: min,
            max_blocks: max,
            ..bench_stats::sequential::SequentialRule::default()
        },
        baseline: None,
    };
    assert_eq!(
        with(&|c| {
            c.blocks = 5;
            c.until = Some(until(8, 5));
        }),
        ConfigError::UntilMinAboveMax { min: 8, max: 5 }
    );
    assert_eq!(
        with(&|c| c.until = Some(until(2, 8))),
        ConfigError::UntilBlocks {
            min: 2,
            max: 8,
            blocks: crate::DEFAULT_BLOCKS
        }
    );
    // A rule that could only stop inconclusive: 5 blocks cannot reach alpha 0.05.
    assert_eq!(
        with(&|c| {
            c.blocks = 5;
            c.until = Some(until(2, 5));
        }),
        ConfigError::UntilCannotDecide {
            max: 5,
            needed: 7,
            alpha: 0.05
        }
    );
    assert_eq!(ok.cycles_for_runs_per_block(4), Ok(2));
    assert_eq!(
        ok.cycles_for_runs_per_block(3),
        Err(ConfigError::RunsPerBlock {
            runs: 3,
            per_cycle: 2,
            design: Design::Abba,
            variants: 2
        })
    );
    let sequential = ExperimentConfig {
        design: Design::Sequential,
        ..ok.clone()
    };
    assert_eq!(
        sequential.cycles_for_runs_per_block(1),
        Err(ConfigError::CyclesUnblocked)
    );
}
