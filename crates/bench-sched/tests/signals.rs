//! A real SIGINT delivered to this process mid-experiment (its own test binary, since the
//! handlers are process-wide).

use bench_sched::*;

#[test]
fn sigint_from_a_child_stops_the_experiment_and_kills_the_running_child() {
    let flag = InterruptFlag::from_signals().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("raw.jsonl");
    // Block 0 runs normally; in block 1 the command signals its parent (this test process)
    // and then sleeps, so only the handler's group kill lets the run end early.
    let marker = dir.path().join("block1");
    let script = format!(
        "if [ -e {m} ]; then kill -INT $PPID; sleep 5; fi",
        m = marker.display()
    );
    let v = |n: &str| Variant {
        name: n.into(),
        command: CommandSpec::parse(&script, Shell::Sh).unwrap(),
    };
    let config = ExperimentConfig {
        variants: vec![v("A"), v("B")],
        blocks: 3,
        warmup: 0,
        ..ExperimentConfig::default()
    };
    struct Mark(std::path::PathBuf);
    impl Observer for Mark {
        fn on_block_end(&mut self, block: u32) {
            if block == 0 {
                std::fs::write(&self.0, b"").unwrap();
            }
        }
    }
    let mut writer = RawWriter::create(&out).unwrap();
    let err = run_experiment(
        &config,
        &flag,
        &mut RealRunner::new(),
        &mut writer,
        &mut Mark(marker),
    )
    .unwrap_err();
    drop(writer);
    assert!(
        matches!(err, SchedError::Interrupted { signal: SIGINT }),
        "{err}"
    );
    assert_eq!(flag.stop_requested(), Some(SIGINT));
    let data = read_raw(&out).unwrap();
    assert_eq!(data.runs.len(), 4);
    assert_eq!(data.end.as_ref().unwrap().status, EndStatus::Interrupted);
    assert_eq!(data.to_dataset().dataset.series[0].observations.len(), 2);
}
