//! Counted runs for real: valgrind's instruction counts of real child processes (one that
//! forks children, one that fails, one killed by a timeout), and the counter plumbing of
//! the loop with a scripted [`FakeCounting`].
//!
//! The valgrind tests are skipped (with a message) only when valgrind is not on `PATH` and
//! `ABBA_REQUIRE_VALGRIND` is unset; `.ci/run` installs Debian's `valgrind` and sets it.

use bench_sched::*;

fn sh(name: &str, script: &str) -> Variant {
    Variant {
        name: name.into(),
        command: CommandSpec::parse(script, Shell::Sh).unwrap(),
    }
}

fn counted(variants: Vec<Variant>, blocks: u32, source: CounterSource) -> ExperimentConfig {
    ExperimentConfig {
        variants,
        blocks,
        warmup: 0,
        layout: Layout::Fixed(0),
        metric: Metric::Count(CountEvent::Instructions),
        counter: Some(source),
        ..ExperimentConfig::default()
    }
}

/// Valgrind, or `None` after saying why the test is skipped.
fn valgrind(test: &str) -> Option<Valgrind> {
    match SystemProbe.valgrind() {
        Some(path) => Some(Valgrind::new(path)),
        None => {
            assert!(
                std::env::var_os("ABBA_REQUIRE_VALGRIND").is_none(),
                "ABBA_REQUIRE_VALGRIND is set but valgrind is not on PATH (apt-get install -y valgrind)"
            );
            println!("SKIPPED {test}: valgrind is not on PATH (apt-get install -y valgrind)");
            None
        }
    }
}

fn run(
    config: &ExperimentConfig,
    counter: Box<dyn Counting>,
) -> (Result<Experiment, SchedError>, Experiment) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("raw.jsonl");
    let mut writer = RawWriter::create(&out).unwrap();
    let outcome = run_experiment(
        config,
        &InterruptFlag::new(),
        &mut RealRunner::new().with_counter(counter),
        &mut writer,
        &mut NoopObserver,
    );
    drop(writer);
    (outcome, read_raw(&out).unwrap())
}

/// `sh -c '/bin/true; /bin/true'` runs one child more than `sh -c /bin/true`: its count
/// covers one more process and one more `/bin/true`. Every block gives the same counts: with a fixed layout, a repeatable
/// program's instruction count is exact.
#[test]
fn valgrind_counts_every_process_of_the_command_exactly() {
    let Some(v) = valgrind("valgrind_counts_every_process_of_the_command_exactly") else {
        return;
    };
    let config = counted(
        vec![sh("one", "/bin/true"), sh("two", "/bin/true; /bin/true")],
        2,
        CounterSource::Valgrind,
    );
    let (outcome, data) = run(&config, Box::new(v));
    let outcome = outcome.unwrap();
    assert_eq!(data.header.counter, Some(CounterSource::Valgrind));
    assert_eq!(data.header.metric, Metric::Count(CountEvent::Instructions));
    let of = |name: &str| -> Vec<(u64, u32)> {
        data.runs
            .iter()
            .filter(|r| r.variant == name)
            .map(|r| (r.instructions.unwrap(), r.counted_processes.unwrap()))
            .collect()
    };
    let (one, two) = (of("one"), of("two"));
    assert_eq!(one.len(), 4);
    assert!(one.iter().all(|c| *c == one[0]), "repeatable: {one:?}");
    assert!(two.iter().all(|c| *c == two[0]), "repeatable: {two:?}");
    assert_eq!(two[0].1, one[0].1 + 1, "one more child: {one:?} {two:?}");
    assert!(
        two[0].0 > one[0].0 + 100_000,
        "the second /bin/true (about 130,000 instructions) was counted: {two:?} vs {one:?}"
    );
    // The metric the analysis reads is the count.
    assert_eq!(
        outcome.runs.at(0).metric,
        Some(outcome.runs.at(0).instructions.unwrap() as f64)
    );
    let loaded = data.to_dataset();
    assert_eq!(loaded.dataset.unit, "instructions");
}

/// A command that fails under valgrind: its run is recorded with its exit code and its
/// count (valgrind writes one on exit), the experiment stops with exit-3's error, and
/// the file stays valid. A run killed by SIGKILL (as a timeout kills) has no count and
/// says why.
#[test]
fn failed_and_killed_counted_runs_are_kept() {
    let Some(v) = valgrind("failed_and_killed_counted_runs_are_kept") else {
        return;
    };
    let config = counted(
        vec![sh("ok", "/bin/true"), sh("bad", "exit 3")],
        2,
        CounterSource::Valgrind,
    );
    let (outcome, data) = run(&config, Box::new(v.clone()));
    assert!(
        matches!(outcome, Err(SchedError::RunFailed { .. })),
        "{outcome:?}"
    );
    let bad = data.runs.iter().find(|r| r.variant == "bad").unwrap();
    assert_eq!(bad.exit_code, Some(3));
    assert!(bad.instructions.is_some_and(|n| n > 0));
    assert_eq!(data.end.unwrap().status, EndStatus::Failed);

    // A command killed by SIGKILL (as a timeout kills its process group): valgrind cannot
    // write its count. (Run directly, so no shell's child writes a count of its own.)
    let kill_group = Variant {
        name: "killed".into(),
        command: CommandSpec::parse("kill -9 0", Shell::None).unwrap(),
    };
    let killed = counted(
        vec![sh("ok", "/bin/true"), kill_group],
        1,
        CounterSource::Valgrind,
    );
    let (outcome, data) = run(&killed, Box::new(v));
    assert!(
        matches!(outcome, Err(SchedError::RunFailed { .. })),
        "{outcome:?}"
    );
    let killed = data.runs.iter().find(|r| r.variant == "killed").unwrap();
    assert_eq!(killed.signal, Some(9));
    assert_eq!(killed.instructions, None);
    let why = killed.count_error.unwrap();
    assert!(why.contains("valgrind wrote no count"), "{why}");
}

/// The loop with a scripted counter: measured runs and warm-ups are counted, hooks are
/// not, every count lands in its run line, and a run whose counts cannot be read stops
/// the experiment as a metric failure with the line (and its reason) kept.
#[test]
fn the_loop_records_what_the_counter_counted() {
    let fake = FakeCounting::new(CounterSource::Pmu, |argv, n| {
        let base = if argv.iter().any(|a| a.contains("two")) {
            2000
        } else {
            1000
        };
        (n < 5).then_some(Counts {
            instructions: Some(base + n as u64),
            cycles: Some(3 * base),
            ..Counts::default()
        })
    });
    let counted_argv = fake.counted();
    let mut config = counted(
        vec![sh("one", "true one"), sh("two", "true two")],
        2,
        CounterSource::Pmu,
    );
    config.warmup = 1;
    config.hooks = vec![
        Hooks::default(),
        Hooks {
            prepare: Some(CommandSpec::parse("true prepare", Shell::Sh).unwrap()),
            ..Hooks::default()
        },
    ];
    let (outcome, data) = run(&config, Box::new(fake));
    assert_eq!(data.header.counter, Some(CounterSource::Pmu));
    let argv = counted_argv.lock().unwrap().clone();
    assert!(
        argv.iter()
            .all(|a| !a.iter().any(|w| w.contains("prepare"))),
        "{argv:?}"
    );
    // 2 warm-ups + 3 measured runs counted, the 6th measured run's counts are missing.
    assert!(
        matches!(outcome, Err(SchedError::Metric { .. })),
        "{outcome:?}"
    );
    let lines: Vec<(Option<u64>, Option<u64>)> = data
        .runs
        .iter()
        .map(|r| (r.instructions, r.cycles))
        .collect();
    assert_eq!(
        lines,
        [
            (Some(1002), Some(3000)),
            (Some(2003), Some(6000)),
            (Some(2004), Some(6000)),
            (None, None)
        ]
    );
    assert!(data.runs.at(3).count_error.unwrap().contains("no counts"));
}

#[test]
fn a_count_metric_needs_a_counter_that_counts_it() {
    let mut config = counted(
        vec![sh("a", "true"), sh("b", "true")],
        1,
        CounterSource::Pmu,
    );
    config.counter = None;
    let e = config.preflight(&mut FakeRunner::new()).unwrap_err();
    assert!(e.to_string().contains("needs a counter"), "{e}");
    config.counter = Some(CounterSource::Valgrind);
    config.metric = Metric::Count(CountEvent::Cycles);
    let e = config.preflight(&mut FakeRunner::new()).unwrap_err();
    assert!(e.to_string().contains("only instructions"), "{e}");
    config.metric = Metric::Wall;
    let e = config.preflight(&mut FakeRunner::new()).unwrap_err();
    assert!(e.to_string().contains("not the program's"), "{e}");
}
