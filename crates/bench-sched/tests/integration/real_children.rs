//! Real child processes: run order, measurements, failures, timeouts, interruption, resume.

use std::path::Path;
use std::time::Duration;

use bench_sched::*;

fn sh_variant(name: &str, script: &str) -> Variant {
    Variant {
        name: name.into(),
        command: CommandSpec::parse(script, Shell::Sh).unwrap(),
    }
}

fn log_lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn base(variants: Vec<Variant>, blocks: u32) -> ExperimentConfig {
    ExperimentConfig {
        variants,
        blocks,
        warmup: 0,
        ..ExperimentConfig::default()
    }
}

#[test]
fn children_run_in_abba_order_and_the_file_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let out = dir.path().join("raw.jsonl");
    let l = log.display();
    let config = base(
        vec![
            sh_variant("A", &format!("echo A >> {l}")),
            sh_variant("B", &format!("echo B >> {l}")),
        ],
        2,
    );
    let mut writer = RawWriter::create(&out).unwrap();
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut writer,
        &mut NoopObserver,
    )
    .unwrap();
    drop(writer);
    assert_eq!(log_lines(&log), ["A", "B", "B", "A", "B", "A", "A", "B"]);
    let data = read_raw(&out).unwrap();
    assert_eq!(data.runs, outcome.runs);
    assert_eq!(
        data.end.as_ref().map(|t| t.status),
        Some(EndStatus::Complete)
    );
    let loaded = data.to_dataset();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.dataset.series[1].observations.len(), 4);
    assert!(
        loaded.dataset.series[0]
            .observations
            .iter()
            .all(|o| o.value > 0.0 && o.block.is_some())
    );
}

#[test]
fn williams_order_for_three_variants_reaches_the_children() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let l = log.display();
    let variants: Vec<Variant> = ["A", "B", "C"]
        .iter()
        .map(|n| sh_variant(n, &format!("echo {n} >> {l}")))
        .collect();
    let config = ExperimentConfig {
        design: Design::Random,
        seed: 3,
        ..base(variants, 4)
    };
    run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    let expected: Vec<String> = config
        .schedule()
        .runs
        .iter()
        .map(|r| match r.target {
            Target::Variant(i) => ["A", "B", "C"][i].to_owned(),
            Target::Reference => "R".to_owned(),
        })
        .collect();
    assert_eq!(log_lines(&log), expected);
}

#[test]
fn rusage_of_an_allocating_spinning_command_is_plausible() {
    // `sort` holds its whole 48 MB single-line input in memory; the shell loop burns CPU.
    let script = "head -c 48000000 /dev/zero | sort > /dev/null; i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done";
    let config = ExperimentConfig {
        metric: Metric::MaxRss,
        ..base(vec![sh_variant("A", script)], 1)
    };
    let config = ExperimentConfig {
        design: Design::Sequential,
        ..config
    };
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    let r = outcome.runs.at(0);
    assert!(r.max_rss_kib > 40_000, "max rss {} KiB", r.max_rss_kib);
    assert_eq!(r.metric, Some(r.max_rss_kib as f64));
    assert!(r.user_ns > 1_000_000, "user {} ns", r.user_ns);
    assert!(r.sys_ns > 0);
    assert!(
        r.wall_ns >= r.user_ns / 2,
        "wall {} user {}",
        r.wall_ns,
        r.user_ns
    );
    assert_eq!(r.exit_code, Some(0));
}

#[test]
fn failing_command_stops_with_variant_block_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("raw.jsonl");
    let config = base(
        vec![
            sh_variant("A", "true"),
            sh_variant("B", "echo disk on fire >&2; exit 3"),
        ],
        2,
    );
    let mut writer = RawWriter::create(&out).unwrap();
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut writer,
        &mut NoopObserver,
    )
    .unwrap_err();
    drop(writer);
    let msg = err.to_string();
    assert!(
        matches!(err, SchedError::RunFailed { ref variant, block: 0, .. } if variant == "B"),
        "{msg}"
    );
    assert!(
        msg.contains("exit code 3") && msg.contains("disk on fire"),
        "{msg}"
    );
    let data = read_raw(&out).unwrap();
    assert_eq!(data.runs.len(), 2);
    assert_eq!(data.runs.at(1).exit_code, Some(3));
    assert_eq!(data.end.unwrap().status, EndStatus::Failed);
}

#[test]
fn ignore_failure_records_and_continues() {
    let config = ExperimentConfig {
        on_failure: FailurePolicy::Ignore,
        ..base(vec![sh_variant("A", "true"), sh_variant("B", "exit 1")], 2)
    };
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    assert_eq!(outcome.runs.len(), 8);
    assert!(
        outcome
            .runs
            .iter()
            .filter(|r| r.variant == "B")
            .all(|r| r.exit_code == Some(1))
    );
    let loaded = outcome.to_dataset();
    assert!(
        loaded
            .dataset
            .series
            .iter()
            .all(|s| s.observations.is_empty())
    );
    assert!(loaded.warnings.iter().any(|w| w.message.contains("failed")));
}

#[test]
fn timeout_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("survived");
    // The grandchild would create the marker after 1 s if the group were not killed.
    let script = format!("(sleep 1; touch {}) & sleep 5", marker.display());
    let config = ExperimentConfig {
        timeout: Some(Duration::from_millis(200)),
        ..base(vec![sh_variant("slow", &script)], 1)
    };
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert!(
        matches!(err, SchedError::TimedOut { ref variant, block: 0, timeout_ms: 200, .. } if variant == "slow"),
        "{err}"
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !marker.exists(),
        "a process of the timed-out group survived"
    );
}

#[test]
fn missing_program_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let config = base(
        vec![
            sh_variant("A", &format!("echo A >> {}", log.display())),
            Variant {
                name: "B".into(),
                command: CommandSpec::parse("no-such-program-abba --x", Shell::None).unwrap(),
            },
        ],
        1,
    );
    let err = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert!(
        matches!(err, SchedError::ProgramNotFound { ref program, .. } if program == "no-such-program-abba"),
        "{err}"
    );
    assert!(!log.exists());
    let rel = Variant {
        name: "C".into(),
        command: CommandSpec::parse("./not/here", Shell::None).unwrap(),
    };
    let err = run_experiment(
        &base(vec![rel], 1),
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert!(
        matches!(err, SchedError::ProgramNotFound { ref program, .. } if program == "./not/here"),
        "{err}"
    );
}

#[test]
fn unwritable_output_is_refused_up_front() {
    let err = RawWriter::create(Path::new("/nonexistent-dir-abba/raw.jsonl")).unwrap_err();
    assert!(matches!(err, SchedError::Output { .. }));
    assert!(err.to_string().contains("/nonexistent-dir-abba/raw.jsonl"));
}

/// Pinning and `/proc/self/status` are Linux's: off Linux this test does not exist.
#[cfg(target_os = "linux")]
#[test]
fn json_metric_pads_and_pinning_reach_the_child() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let script = format!(
        "echo ${{#ABBA_LAYOUT_PAD}} $(grep Cpus_allowed_list /proc/self/status | cut -f2) >> {}; echo noise; echo '{{\"ops_per_sec\": 12.5}}'; echo trailing text",
        log.display()
    );
    let config = ExperimentConfig {
        metric: Metric::Json("ops_per_sec".into()),
        pin: Some("0".parse().unwrap()),
        ..base(vec![sh_variant("A", &script), sh_variant("B", &script)], 2)
    };
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    let lines = log_lines(&log);
    assert_eq!(lines.len(), outcome.runs.len());
    for (line, r) in lines.iter().zip(&outcome.runs) {
        assert_eq!(line, &format!("{} 0", r.env_pad));
        assert_eq!(r.metric, Some(12.5));
        assert_eq!(r.allowed_cpus, Some("0"));
    }
    let bad = ExperimentConfig {
        metric: Metric::Json("missing".into()),
        ..base(vec![sh_variant("A", "echo '{\"x\": 1}'")], 1)
    };
    let err = run_experiment(
        &bad,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap_err();
    assert!(matches!(err, SchedError::Metric { .. }), "{err}");
}

/// Requests a stop when block 2 starts its second run, after the child is long-running.
struct StopInBlock2 {
    flag: InterruptFlag,
    go_slow: std::path::PathBuf,
}

impl Observer for StopInBlock2 {
    fn on_run_start(&mut self, run: &PlannedRun, _variant: &Variant) {
        if run.block == 2 && run.position == 1 {
            std::fs::write(&self.go_slow, b"").unwrap();
            let flag = self.flag.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                flag.request_stop();
            });
        }
    }
}

#[test]
fn stop_mid_experiment_keeps_complete_blocks_and_resume_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("raw.jsonl");
    let go_slow = dir.path().join("slow");
    let script = format!("if [ -e {} ]; then sleep 5; fi", go_slow.display());
    let flag = InterruptFlag::new();
    let config = base(vec![sh_variant("A", &script), sh_variant("B", &script)], 4);
    let mut writer = RawWriter::create(&out).unwrap();
    let mut observer = StopInBlock2 {
        flag: flag.clone(),
        go_slow: go_slow.clone(),
    };
    let err = run_experiment(
        &config,
        &flag,
        &mut RealRunner::new(),
        &mut writer,
        &mut observer,
    )
    .unwrap_err();
    drop(writer);
    assert!(
        matches!(err, SchedError::Interrupted { signal: SIGINT }),
        "{err}"
    );

    let data = read_raw(&out).unwrap();
    assert_eq!(
        data.runs.len(),
        9,
        "two full blocks plus the first run of block 2; the killed run is not recorded"
    );
    assert_eq!(data.end.as_ref().unwrap().status, EndStatus::Interrupted);
    let loaded = data.to_dataset();
    assert_eq!(loaded.dataset.series[0].observations.len(), 4);
    assert!(
        loaded.warnings.iter().any(|w| w
            .message
            .contains("block 3 (id 2 in the raw file) has 1 of 4 runs")),
        "{:?}",
        loaded.warnings
    );

    // Resume: same experiment, continues at block 2 in the same file.
    std::fs::remove_file(&go_slow).unwrap();
    let resume = ResumePoint::load(&out).unwrap();
    assert_eq!(resume.completed_runs(), 8);
    let config = ExperimentConfig {
        resume: Some(resume.clone()),
        ..config
    };
    let mut writer = resume.open_writer(&config).unwrap();
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut writer,
        &mut NoopObserver,
    )
    .unwrap();
    drop(writer);
    assert_eq!(outcome.runs.len(), 16);
    let data = read_raw(&out).unwrap();
    assert_eq!(data.runs, outcome.runs);
    assert_eq!(
        data.runs.iter().map(|r| r.run).collect::<Vec<_>>(),
        (0..16).collect::<Vec<_>>()
    );
    // The first run of block 2, measured again, is kept in the interrupted end line.
    assert_eq!(data.session_ends.len(), 1);
    assert_eq!(data.session_ends[0].status, EndStatus::Interrupted);
    assert_eq!(data.session_ends[0].superseded.len(), 1);
    assert_eq!(data.session_ends[0].superseded[0].block, 2);
    let loaded = data.to_dataset();
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0]
            .message
            .contains("1 run(s) of unfinished block 3")
    );
    assert_eq!(loaded.dataset.series[1].observations.len(), 8);

    // A different seed is refused without touching the file.
    let before = std::fs::read(&out).unwrap();
    let other = ExperimentConfig {
        seed: 99,
        resume: None,
        ..config
    };
    let err = ResumePoint::load(&out)
        .unwrap()
        .open_writer(&other)
        .unwrap_err();
    assert!(matches!(err, SchedError::ResumeMismatch { .. }), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
}

#[test]
fn a_command_found_on_path_keeps_its_name_as_argv0() {
    // The runner resolves a program through PATH once and spawns it from that path (no
    // search of PATH at every run inside the timed window), with the name as given as its
    // argv[0], as execvp passes it: `sh` reads its own command line and logs argv[0].
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("argv0");
    let out = dir.path().join("raw.jsonl");
    let script = format!(
        "tr '\\0' '\\n' < /proc/$$/cmdline | head -n 1 >> {}",
        log.display()
    );
    let config = base(vec![sh_variant("A", &script), sh_variant("B", &script)], 1);
    let mut writer = RawWriter::create(&out).unwrap();
    run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut writer,
        &mut NoopObserver,
    )
    .unwrap();
    assert_eq!(log_lines(&log), ["sh", "sh", "sh", "sh"]);
}
