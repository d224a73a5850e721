//! One experiment over many hosts: raw files of simulated hosts merged by experiment id,
//! files of different experiments refused, old headers still read.

use std::path::{Path, PathBuf};

use bench_sched::*;
use bench_stats::hierarchy::Levels;
use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A header of the experiment `id` (no `experiment` field when `None`, as written before
/// ids were recorded) measured on `host` (no `hostname` when `None`).
fn header(id: Option<&str>, host: Option<&str>, blocks: u32, metric: &str) -> String {
    let experiment = id
        .map(|i| format!(",\"experiment\":\"{i}\""))
        .unwrap_or_default();
    let hostname = host
        .map(|h| format!(",\"hostname\":\"{h}\""))
        .unwrap_or_default();
    format!(
        r#"{{"schema":"abba.raw/1","abba_version":"0.1.0","design":"abba","seed":1,"blocks":{blocks},"variants":[{{"name":"A","command":"./a"}},{{"name":"B","command":"./b"}}],"reference":null,"metric":"{metric}","unit":"ns","higher_is_better":false,"layout":"random","pin":null,"warmup":0,"settle_ns":0,"host":{{"cpu_model":null,"cores":2,"kernel":null,"governor":null,"turbo":null,"aslr":2,"load_start":null,"load_end":null,"env_bytes":10,"argv_bytes":5,"start_time":"2026-01-01T00:00:00Z"{hostname}}}{experiment}}}"#
    )
}

fn run_line(run: u32, block: u32, position: u32, variant: &str, wall: u64, session: u32) -> String {
    format!(
        r#"{{"run":{run},"block":{block},"position":{position},"variant":"{variant}","wall_ns":{wall},"user_ns":1,"sys_ns":1,"max_rss_kib":10,"exit_code":0,"timed_out":false,"env_pad":3,"metric":null,"session":{session}}}"#
    )
}

fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = rng.random::<f64>().max(1e-300);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Writes one raw file per host (2 sessions in each file, as a `--resume` leaves them),
/// values from known host, session, block and run variances and a 3% speed-up; returns the
/// paths and the same data as an in-memory dataset with its levels.
fn fleet(dir: &Path, hosts: u32, seed: u64) -> (Vec<PathBuf>, Dataset) {
    let (sessions, blocks) = (2u32, 5u32);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut levels = Levels::new((0..hosts).map(|h| format!("node-{h:02}")).collect());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut paths = Vec::new();
    for h in 0..hosts {
        let host_term = 0.10 * normal(&mut rng);
        let mut text = header(
            Some("fleet-1"),
            Some(&format!("node-{h:02}")),
            sessions * blocks,
            "wall",
        ) + "\n";
        let mut run = 0;
        for s in 0..sessions {
            let sid = levels.add_session(h as usize).unwrap();
            let session_term = 0.04 * normal(&mut rng);
            for k in 0..blocks {
                let block = s * blocks + k;
                let global = h * sessions * blocks + block;
                levels.assign(global, sid).unwrap();
                let block_term = 0.02 * normal(&mut rng);
                let order = if block % 2 == 0 {
                    ["A", "B", "B", "A"]
                } else {
                    ["B", "A", "A", "B"]
                };
                for (p, v) in order.iter().enumerate() {
                    let effect = if *v == "B" { -0.03 } else { 0.0 };
                    let ln = (1e8f64).ln()
                        + effect
                        + host_term
                        + session_term
                        + block_term
                        + 0.01 * normal(&mut rng);
                    let wall = ln.exp().round() as u64;
                    text += &run_line(run, block, p as u32, v, wall, s);
                    text.push('\n');
                    run += 1;
                    let o = Observation::in_block(wall as f64, global).at_position(p as u32);
                    if *v == "A" { a.push(o) } else { b.push(o) }
                }
            }
        }
        let path = dir.join(format!("node-{h:02}-1.jsonl"));
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let data = Dataset::new("ns", vec![Series::new("A", a), Series::new("B", b)])
        .with_design(Design::Abba)
        .with_levels(levels);
    (paths, data)
}

fn config() -> AnalysisConfig {
    AnalysisConfig {
        resamples: 300,
        ..AnalysisConfig::default()
    }
}

/// Raw files of 2, 5 and 20 simulated hosts merge into exactly the multi-level analysis
/// of the same values held in memory: hosts from the headers, sessions from the runs'
/// `session` field, blocks renumbered per file.
#[test]
fn simulated_fleets_of_2_5_20_hosts_merge_from_raw_files() {
    for hosts in [2u32, 5, 20] {
        let dir = tempfile::tempdir().unwrap();
        let (paths, data) = fleet(dir.path(), hosts, u64::from(hosts));
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let input = Input::load(&refs, &CsvOptions::default()).unwrap();
        let from_files = analyze_input(&input, &config()).unwrap();
        let in_memory = analyze(&data, &config()).unwrap();
        let levels = from_files.levels.expect("several hosts");
        assert_eq!(levels.hosts.len(), hosts as usize);
        assert_eq!(levels.sessions, 2 * hosts as usize);
        assert_eq!(Some(levels.clone()), in_memory.levels, "{hosts} hosts");
        let c = &levels.comparisons[0];
        assert_eq!(c.pooled.blocks, 10 * hosts as usize);
        assert_eq!(c.per_unit.len(), hosts as usize);
        assert!(
            !from_files
                .warnings
                .iter()
                .any(|w| w.code == "unpaired-sessions"),
            "one experiment is not merged unpaired"
        );
    }
}

#[test]
fn files_of_different_experiments_are_refused_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, head: String| {
        let p = dir.path().join(name);
        let mut text = head + "\n";
        for (i, v) in ["A", "B", "B", "A"].iter().enumerate() {
            text += &run_line(i as u32, 0, i as u32, v, 100 + i as u64, 0);
            text.push('\n');
        }
        std::fs::write(&p, text).unwrap();
        p
    };
    let one = write("one.jsonl", header(Some("x"), Some("h1"), 1, "wall"));
    let two = write("two.jsonl", header(Some("y"), Some("h2"), 1, "wall"));
    let cpu = write("cpu.jsonl", header(Some("x"), Some("h2"), 1, "cpu"));
    let e = Input::load(&[&one, &two], &CsvOptions::default()).unwrap_err();
    assert!(
        matches!(
            &e,
            InputError::DifferentExperiments {
                field: "experiment",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("its experiment is y, not x"), "{e}");
    let e = Input::load(&[&one, &cpu], &CsvOptions::default()).unwrap_err();
    assert!(
        matches!(
            &e,
            InputError::DifferentExperiments {
                field: "metric",
                ..
            }
        ),
        "{e}"
    );
    // Asked to, they are compared unpaired, with the warning.
    let input =
        Input::load_with(&[&one, &two], &CsvOptions::default(), MergePolicy::Unpaired).unwrap();
    assert!(input.loaded.dataset.levels.is_none());
    assert!(
        input
            .loaded
            .warnings
            .iter()
            .any(|w| w.kind == ReadWarningKind::UnpairedSessions)
    );
}

/// Files written before ids and host names were recorded still read; two of them with the
/// same variants, metric and design are one experiment (the derived id), each file its
/// own host (named by the file).
#[test]
fn old_headers_merge_by_their_derived_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for f in 0..2u32 {
        let mut text = header(None, None, 2, "wall") + "\n";
        for block in 0..2u32 {
            for (i, v) in ["A", "B", "B", "A"].iter().enumerate() {
                let wall =
                    100 + u64::from(f * 7 + block * 3) + i as u64 + if *v == "B" { 5 } else { 0 };
                text += &run_line(block * 4 + i as u32, block, i as u32, v, wall, 0);
                text.push('\n');
            }
        }
        let p = dir.path().join(format!("old-{f}.jsonl"));
        std::fs::write(&p, text).unwrap();
        paths.push(p);
    }
    let data = read_raw(&paths[0]).unwrap();
    assert_eq!(data.header.experiment, None);
    assert!(data.header.experiment_id().starts_with(DERIVED_ID_PREFIX));
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let input = Input::load(&refs, &CsvOptions::default()).unwrap();
    let levels = input.loaded.dataset.levels.as_ref().unwrap();
    assert_eq!(levels.hosts().len(), 2);
    assert!(levels.hosts()[1].ends_with("old-1.jsonl"));
    assert_eq!(input.loaded.dataset.series[0].observations.len(), 8);
}

/// The derived id is stable: the same header text gives the same id forever (a change
/// here would split old and new files of one experiment). The value is FNV-1a 64 of
/// "abba\0wall\0A\0./a\0B\0./b\0" computed in Python.
#[test]
fn derived_id_is_stable() {
    let h = read_raw_bytes("x.jsonl", (header(None, None, 1, "wall") + "\n").as_bytes()).unwrap();
    assert_eq!(derived_experiment_id(&h.header), "auto-574dcdf48c6b7593");
}
