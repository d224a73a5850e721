//! The history as a library: recording an experiment from memory with the analysis its
//! caller made, reading the series back, and a store of the first schema migrated.

use std::path::Path;

use bench_history::{
    Analysed, Context, Filter, MIGRATIONS, Recorded, Store, analyse, content_hash, default_config,
};
use bench_sched::{
    CommandSpec, Experiment, ExperimentConfig, FakeRunner, Input, InterruptFlag, NoopObserver,
    RawWriter, Shell, Variant, analyze_input, read_raw, run_experiment,
};
use bench_stats::AnalysisConfig;

/// Two variants in 8 ABBA blocks, B about 10% slower, streamed to `raw` (when given).
fn experiment(raw: Option<&Path>) -> Experiment {
    let variant = |n: &str| Variant {
        name: n.into(),
        command: CommandSpec::parse(n, Shell::None).unwrap(),
    };
    let config = ExperimentConfig {
        variants: vec![variant("A"), variant("B")],
        blocks: 8,
        seed: 7,
        ..ExperimentConfig::default()
    };
    let mut runner = FakeRunner::new().with_script(|call, k| {
        let base = if call.variant == "B" { 1_100 } else { 1_000 };
        FakeRunner::success(base + (k as u64 * 7) % 13)
    });
    let mut writer = match raw {
        Some(path) => RawWriter::create(path).unwrap(),
        None => RawWriter::discard(),
    };
    run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut runner,
        &mut writer,
        &mut NoopObserver,
    )
    .unwrap()
}

fn step_context() -> Context {
    let mut ctx = Context::at("test", "c2");
    ctx.base_commit = Context::at("test", "c1").commit.into();
    ctx.bench = Some("parse".into());
    ctx
}

#[test]
fn an_experiment_is_recorded_from_memory_after_its_raw_file_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let experiment = experiment(Some(&raw));
    // What a reader of the file would key it by: the same experiment, whichever way it
    // reaches the store.
    let from_file = read_raw(&raw).unwrap();
    assert_eq!(content_hash(&experiment), content_hash(&from_file));
    std::fs::remove_file(&raw).unwrap();

    let input = Input::from_experiment(experiment);
    let analysis = analyze_input(&input, &AnalysisConfig::default()).unwrap();
    let experiment = input.experiment.as_ref().unwrap();
    let mut store = Store::open(&dir.path().join("h.db")).unwrap();
    let units = [Analysed::experiment(&input.loaded.dataset, &analysis)];
    let first = store.record(experiment, &units, &step_context()).unwrap();
    assert!(matches!(first, Recorded::New(_)));
    assert!(!raw.exists());
    // The same experiment again is kept once, even read back from a copy of its file.
    let again = store.record(&from_file, &units, &step_context()).unwrap();
    assert_eq!(again, Recorded::AlreadyKept);
    assert_eq!(store.counts().unwrap(), (1, 32));

    let series = store
        .all_series(Some("parse"), &Filter::default(), &Default::default())
        .unwrap();
    assert_eq!(series.len(), 1);
    let s = &series[0];
    let shas: Vec<&str> = s.points.iter().map(|p| p.commit.sha.as_str()).collect();
    assert_eq!(shas, ["c1", "c2"]);
    // The step is the caller's comparison, kept as it was.
    let step = s.points[1].step.as_ref().unwrap();
    let c = &analysis.groups[0].comparisons[0];
    assert_eq!(Some(step.ratio), c.ratio);
    assert_eq!(step.outcome, c.outcome.as_str());
    assert!(s.chain.is_some());
}

#[test]
fn an_imported_file_is_analysed_with_the_library_defaults_and_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    experiment(Some(&raw));
    let read = read_raw(&raw).unwrap();
    let config = default_config(&read);
    assert_eq!(config.seed, 7);
    assert_eq!(
        AnalysisConfig {
            seed: 1,
            ..config.clone()
        },
        AnalysisConfig::default()
    );
    let analysed = analyse(&read, &config, Default::default()).unwrap();
    // The wall-time analysis, then its CPU-time twin (a later `--metric cpu` needs no rerun).
    assert_eq!(analysed.len(), 2);
    assert_eq!(analysed[0].metric, None);
    assert_eq!(analysed[1].metric.as_deref(), Some("cpu"));
    let by_hand = analyze_input(&Input::from_experiment(read.clone()), &config).unwrap();
    // (By their JSON: the analysis holds NaN where a field does not apply.)
    let json = |a: &bench_stats::Analysis| serde_json::to_string(a).unwrap();
    assert_eq!(json(&analysed[0].analysis), json(&by_hand));
}

/// The first schema's insert: every run also deflated into `experiments.raw`.
fn version_1_store(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(MIGRATIONS[0]).unwrap();
    c.execute_batch(&format!(
        "PRAGMA user_version = 1; PRAGMA application_id = {};",
        bench_history::APPLICATION_ID
    ))
    .unwrap();
    c.execute_batch(
        "INSERT INTO commits (id, sha) VALUES (1, 'c1'), (2, 'c2');
         INSERT INTO machines (id, fingerprint, name) VALUES (1, '0123456789abcdef', 'ci');
         INSERT INTO benchmarks (id, name, metric, unit, higher_is_better)
             VALUES (1, 'parse', 'wall', 'ns', 0);
         INSERT INTO experiments (id, content_hash, source, seed, design, recorded_at,
             machine_id, commit_id, base_commit_id, header, raw)
             VALUES (1, 'h1', 'import', 1, 'abba', '2026-12-01T00:00:00Z', 1, 2, 1, '{}',
                     x'0102030405');
         INSERT INTO runs (experiment_id, run, block, position, variant, value, wall_ns, ok)
             VALUES (1, 0, 0, 0, 'A', 100.0, 100, 1), (1, 1, 0, 1, 'B', 103.0, 103, 1),
                    (1, 2, 1, 0, 'B', 104.0, 104, 1), (1, 3, 1, 1, 'A', 101.0, 101, 1);
         INSERT INTO levels (experiment_id, benchmark_id, commit_id, variant, n, median, low, high)
             VALUES (1, 1, 1, 'A', 2, 100.5, 100.0, 101.0), (1, 1, 2, 'B', 2, 103.5, 103.0, 104.0);
         INSERT INTO summaries (experiment_id, benchmark_id, baseline, candidate,
             base_commit_id, commit_id, ratio, low, high, confidence, verdict, outcome,
             p_value, estimator)
             VALUES (1, 1, 'A', 'B', 1, 2, 1.03, 1.02, 1.04, 0.95, 'significant', 'slower',
                     0.01, 'p50');",
    )
    .unwrap();
}

#[test]
fn a_store_of_the_first_schema_migrates_and_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    version_1_store(&path);
    // Reading leaves it as it is: schema 1, read without migrating.
    let before = std::fs::read(&path).unwrap();
    let store = Store::open_existing(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 1);
    let series = store
        .all_series(Some("parse"), &Filter::default(), &Default::default())
        .unwrap();
    assert_eq!(series[0].points[1].step.as_ref().unwrap().ratio, 1.03);
    drop(store);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Recording migrates it.
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 2);
    let columns: Vec<String> = {
        let c = rusqlite::Connection::open(&path).unwrap();
        let mut stmt = c.prepare("PRAGMA table_info(experiments)").unwrap();
        stmt.query_map([], |r| r.get(1))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert!(!columns.iter().any(|c| c == "raw"), "{columns:?}");
    assert!(columns.iter().any(|c| c == "header"), "{columns:?}");
    assert_eq!(store.counts().unwrap(), (1, 4));
    let series = store
        .all_series(Some("parse"), &Filter::default(), &Default::default())
        .unwrap();
    let s = &series[0];
    assert_eq!(s.points.len(), 2);
    assert_eq!(s.points[0].level.as_ref().unwrap().median, 100.5);
    assert_eq!(s.points[1].step.as_ref().unwrap().ratio, 1.03);
    assert_eq!(s.chain.as_ref().unwrap().steps, vec![1]);
    // And it takes new records.
    drop(store);
    let mut store = Store::open(&path).unwrap();
    let experiment = experiment(None);
    let analysed = analyse(
        &experiment,
        &default_config(&experiment),
        Default::default(),
    )
    .unwrap();
    let units: Vec<Analysed<'_>> = analysed.iter().map(|a| a.as_analysed()).collect();
    let done = store.record(&experiment, &units, &step_context()).unwrap();
    assert!(matches!(done, Recorded::New(2)));
    assert_eq!(store.counts().unwrap(), (2, 36));
}

#[test]
fn a_newer_schema_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    version_1_store(&path);
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA user_version = 99").unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let e = Store::open(&path).unwrap_err();
    assert!(e.to_string().contains("newer abba"), "{e}");
    assert!(
        !e.to_string().contains("--"),
        "a library names no flag: {e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
