//! `abba history` and `--record`, through the binary: the store, recording (idempotent,
//! concurrent, crash-safe), refusing foreign or damaged files untouched, and the series
//! (levels with change points, paired steps and their chain) in show, check and export.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

const FIXTURE: &str = "tests/data/raw_two.jsonl";

fn abba() -> Command {
    let mut c = Command::cargo_bin("abba").unwrap();
    c.env_remove("ABBA_HISTORY")
        .env_remove("GITHUB_BASE_REF")
        .env_remove("GITHUB_HEAD_REF")
        .env_remove("GITHUB_REF_NAME")
        .env_remove("GITHUB_STEP_SUMMARY");
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    abba().current_dir(dir).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A raw file of two variants `A` and `B` over `a.len()` ABBA blocks, with the fixture's
/// header (its seed replaced, so each file is its own experiment) and the given metric
/// values: block `k` runs `A B B A` or `B A A B`, each variant's two runs at `a[k]` and
/// `a[k] + 1` (resp. `b[k]`, `b[k] + 1`).
fn raw_file(dir: &Path, name: &str, seed: u64, a: &[f64], b: &[f64]) -> PathBuf {
    let fixture =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap();
    let mut header: Value = serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
    header["seed"] = seed.into();
    header["blocks"] = a.len().into();
    let mut out = serde_json::to_string(&header).unwrap();
    out.push('\n');
    let mut run = 0;
    for k in 0..a.len() {
        let order = if k % 2 == 0 {
            ["A", "B", "B", "A"]
        } else {
            ["B", "A", "A", "B"]
        };
        let mut seen_a = 0;
        let mut seen_b = 0;
        for (pos, v) in order.iter().enumerate() {
            let value = if *v == "A" {
                seen_a += 1;
                a[k] + f64::from(seen_a - 1)
            } else {
                seen_b += 1;
                b[k] + f64::from(seen_b - 1)
            };
            let line = serde_json::json!({
                "run": run, "block": k, "position": pos, "variant": v, "is_reference": false,
                "wall_ns": 2_000_000 + run, "user_ns": 1_000_000, "sys_ns": 0, "max_rss_kib": 7000,
                "exit_code": 0, "signal": null, "timed_out": false, "env_pad": 100 + run,
                "metric": value, "allowed_cpus": "0-1"
            });
            out.push_str(&serde_json::to_string(&line).unwrap());
            out.push('\n');
            run += 1;
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, out).unwrap();
    path
}

/// A small deterministic wobble for the synthetic series (a fixed LCG).
fn wobble(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 33) as f64 / f64::from(u32::MAX) - 0.25) * 2.0
        })
        .collect()
}

fn import(dir: &Path, db: &Path, file: &Path, commit: &str, base: Option<&str>) -> Output {
    let mut args = vec![
        "history".to_owned(),
        "import".to_owned(),
        "--history".to_owned(),
        db.display().to_string(),
        "--commit".to_owned(),
        commit.to_owned(),
        "--bench".to_owned(),
        "toy".to_owned(),
    ];
    if let Some(b) = base {
        args.push("--base-commit".into());
        args.push(b.into());
    }
    args.push(file.display().to_string());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run(dir, &refs)
}

fn list(dir: &Path, db: &Path) -> String {
    let out = run(dir, &["history", "list", "--history", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn import_then_list_and_show_a_step() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let f = raw_file(dir.path(), "a.jsonl", 1, &[100.0; 8], &[106.0; 8]);
    let out = import(dir.path(), &db, &f, "c2", Some("c1"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("recorded"),
        "{}",
        text(&out.stderr)
    );
    let l = list(dir.path(), &db);
    assert!(l.contains("1 experiments, 32 runs"), "{l}");
    assert!(l.contains("toy") && l.contains("json:v"), "{l}");
    let out = run(
        dir.path(),
        &["history", "show", "toy", "--history", db.to_str().unwrap()],
    );
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Two commits: c1 holds A's level (median 100.5), c2 B's (106.5) and the step.
    let c1 = s.lines().find(|l| l.contains(" c1 ")).unwrap_or_default();
    let c2 = s.lines().find(|l| l.contains(" c2 ")).unwrap_or_default();
    assert!(c1.contains("100.5"), "{s}");
    assert!(c2.contains("106.5") && c2.contains("slower"), "{s}");
    assert!(s.contains("chain of 1 paired steps #1 -> #2"), "{s}");
}

#[test]
fn recording_the_same_raw_file_twice_keeps_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let f = raw_file(dir.path(), "a.jsonl", 1, &[100.0; 4], &[101.0; 4]);
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&f, &copy).unwrap();
    assert!(
        import(dir.path(), &db, &f, "c2", Some("c1"))
            .status
            .success()
    );
    let again = import(dir.path(), &db, &copy, "c2", Some("c1"));
    assert!(again.status.success());
    assert!(
        text(&again.stderr).contains("already in"),
        "{}",
        text(&again.stderr)
    );
    // analyze --record of the same file: the same experiment again.
    let out = run(
        dir.path(),
        &[
            "analyze",
            f.to_str().unwrap(),
            "--record",
            "--history",
            db.to_str().unwrap(),
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(list(dir.path(), &db).contains("1 experiments, 16 runs"));
    // A different file is a second experiment.
    let g = raw_file(dir.path(), "b.jsonl", 2, &[100.0; 4], &[101.0; 4]);
    assert!(
        import(dir.path(), &db, &g, "c3", Some("c2"))
            .status
            .success()
    );
    assert!(list(dir.path(), &db).contains("2 experiments, 32 runs"));
}

fn assert_refused_untouched(dir: &Path, db: &Path, what: &str) {
    let before = std::fs::read(db).unwrap();
    let f = raw_file(dir, "a.jsonl", 1, &[100.0; 4], &[101.0; 4]);
    let out = import(dir, db, &f, "c2", Some("c1"));
    assert_eq!(out.status.code(), Some(2), "{what}: {}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains(db.to_str().unwrap()), "{what}: {err}");
    let show = run(
        dir,
        &["history", "show", "toy", "--history", db.to_str().unwrap()],
    );
    assert_eq!(show.status.code(), Some(2), "{what}");
    assert_eq!(
        std::fs::read(db).unwrap(),
        before,
        "{what}: the file changed"
    );
    // No log of writes beside it either (a read-only look may leave an empty one).
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    assert!(
        std::fs::metadata(&wal).map_or(0, |m| m.len()) == 0,
        "{what}: a write-ahead log was written"
    );
}

#[test]
fn a_foreign_or_damaged_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // Not SQLite at all.
    let text_file = dir.path().join("notes.db");
    std::fs::write(&text_file, "my notes, not a database\n".repeat(40)).unwrap();
    assert_refused_untouched(dir.path(), &text_file, "a text file");
    // Another program's SQLite database.
    let foreign = dir.path().join("foreign.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    assert_refused_untouched(dir.path(), &foreign, "a foreign SQLite database");
    // Our own store with its pages overwritten.
    let damaged = dir.path().join("damaged.db");
    let f = raw_file(dir.path(), "x.jsonl", 9, &[100.0; 4], &[101.0; 4]);
    assert!(
        import(dir.path(), &damaged, &f, "c1", None)
            .status
            .success()
    );
    let mut bytes = std::fs::read(&damaged).unwrap();
    for b in bytes.iter_mut().skip(100) {
        *b = 0xA5;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    assert_refused_untouched(dir.path(), &damaged, "a damaged store");
}

#[test]
fn two_recordings_at_once_both_land() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut files = [Vec::new(), Vec::new()];
    for (p, list) in files.iter_mut().enumerate() {
        for k in 0..6 {
            let seed = (p * 100 + k) as u64;
            list.push(raw_file(
                dir.path(),
                &format!("p{p}-{k}.jsonl"),
                seed,
                &[100.0; 6],
                &[101.0; 6],
            ));
        }
    }
    let children: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(p, list)| {
            let mut c = abba();
            c.current_dir(dir.path()).args([
                "history",
                "import",
                "--history",
                db.to_str().unwrap(),
                "--commit",
                &format!("c{p}"),
            ]);
            c.args(list.iter().map(|f| f.to_str().unwrap()));
            c.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let l = list(dir.path(), &db);
    assert!(l.contains("12 experiments, 288 runs"), "{l}");
}

#[test]
fn a_recording_killed_mid_way_leaves_every_earlier_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let first = raw_file(dir.path(), "a.jsonl", 1, &[100.0; 4], &[101.0; 4]);
    let second = raw_file(dir.path(), "b.jsonl", 2, &[100.0; 4], &[101.0; 4]);
    assert!(import(dir.path(), &db, &first, "c1", None).status.success());
    // The second recording aborts (SIGABRT, no cleanup) after writing 5 of its runs,
    // inside its transaction.
    let out = abba()
        .current_dir(dir.path())
        .env("ABBA_HISTORY_CRASH_AFTER_RUNS", "5")
        .args([
            "history",
            "import",
            "--history",
            db.to_str().unwrap(),
            "--commit",
            "c2",
        ])
        .arg(&second)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(out.status.code(), None, "killed by a signal");
    let l = list(dir.path(), &db);
    assert!(l.contains("1 experiments, 16 runs"), "{l}");
    // And the store takes the record again afterwards.
    assert!(
        import(dir.path(), &db, &second, "c2", None)
            .status
            .success()
    );
    assert!(list(dir.path(), &db).contains("2 experiments, 32 runs"));
}

/// 30 commits, each compared with its parent (the step) on values that rise by 2% at
/// commit 15 (A is the parent's build, B the commit's).
fn thirty_commits(dir: &Path, db: &Path) {
    let level = |k: usize| if k >= 15 { 1020.0 } else { 1000.0 };
    for k in 2..=30 {
        let wa = wobble(k as u64, 7);
        let wb = wobble(1000 + k as u64, 7);
        let a: Vec<f64> = wa.iter().map(|w| level(k - 1) + 4.0 * w).collect();
        let b: Vec<f64> = wb.iter().map(|w| level(k) + 4.0 * w).collect();
        let f = raw_file(dir, &format!("c{k}.jsonl"), k as u64, &a, &b);
        let out = import(
            dir,
            db,
            &f,
            &format!("c{k:02}"),
            Some(&format!("c{:02}", k - 1)),
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
}

#[test]
fn show_marks_the_change_point_and_the_chain_carries_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    thirty_commits(dir.path(), &db);
    let out = run(
        dir.path(),
        &[
            "history",
            "show",
            "toy",
            "--history",
            db.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "abba.history/1");
    let s = &doc["series"][0];
    assert_eq!(s["points"].as_array().unwrap().len(), 30);
    let cps = s["change_points"].as_array().unwrap();
    assert_eq!(cps.len(), 1, "{cps:?}");
    assert_eq!(cps[0]["commit"], "c15");
    let ratio = cps[0]["ratio"].as_f64().unwrap();
    assert!((ratio - 1.02).abs() < 0.005, "{ratio}");
    // The chain from c01 to c30 holds the 2% and names commit 15 as its largest step.
    let chain = &s["chain"];
    let r = chain["ratio"].as_f64().unwrap();
    assert!((r - 1.02).abs() < 0.01, "{chain}");
    assert!(chain["interval"][0].as_f64().unwrap() > 1.0, "{chain}");
    assert_eq!(chain["largest_steps"][0], 14, "{chain}");
    // The table marks the row of c15 and no other.
    let table = run(
        dir.path(),
        &["history", "show", "toy", "--history", db.to_str().unwrap()],
    );
    let t = text(&table.stdout);
    let marked: Vec<&str> = t.lines().filter(|l| l.contains("<< change")).collect();
    assert_eq!(marked.len(), 1, "{t}");
    assert!(marked[0].contains(" c15 "), "{t}");
}

#[test]
fn check_fails_on_a_recent_slowdown_until_a_paired_compare_refutes_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    thirty_commits(dir.path(), &db);
    let d = db.to_str().unwrap();
    // The change at 15 is 16 commits from the newest: outside --recent 10, inside 20.
    let quiet = run(dir.path(), &["history", "check", "--history", d]);
    assert_eq!(quiet.status.code(), Some(0), "{}", text(&quiet.stdout));
    let out = run(
        dir.path(),
        &["history", "check", "--history", d, "--recent", "20"],
    );
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{s}");
    // The step recorded into c15 is already the paired comparison across it: confirmed.
    assert!(s.contains("confirmed by the paired comparison"), "{s}");
    // The cumulative gate: the chain is +2%, so 1% trips and 5% does not.
    let gate = |pct: &str| {
        run(
            dir.path(),
            &["history", "check", "--history", d, "--fail-if-slower", pct],
        )
        .status
        .code()
    };
    assert_eq!(gate("1%"), Some(1));
    assert_eq!(gate("5%"), Some(0));
}

#[test]
fn check_names_the_confirming_compare_of_an_unconfirmed_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    // Levels only (each commit's experiment compares two variants at that commit): the
    // change at c08 has no paired step across it.
    for k in 1..=12 {
        let base = if k >= 8 { 1100.0 } else { 1000.0 };
        let a: Vec<f64> = wobble(k, 7).iter().map(|w| base + 4.0 * w).collect();
        let b: Vec<f64> = wobble(50 + k, 7).iter().map(|w| base + 4.0 * w).collect();
        let f = raw_file(dir.path(), &format!("l{k}.jsonl"), k, &a, &b);
        let out = import(dir.path(), &db, &f, &format!("c{k:02}"), None);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let out = run(
        dir.path(),
        &[
            "history",
            "check",
            "toy/A",
            "--history",
            db.to_str().unwrap(),
            "--min-segment",
            "3",
        ],
    );
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(s.contains("change point at #8 c08"), "{s}");
    assert!(
        s.contains("confirm: abba compare --record --bench toy/A --base-commit c07 --commit c08"),
        "{s}"
    );
    // The paired comparison, recorded, finds no change: the check passes.
    let f = raw_file(dir.path(), "confirm.jsonl", 99, &[1000.0; 8], &[1000.0; 8]);
    let out = run(
        dir.path(),
        &[
            "history",
            "import",
            "--history",
            db.to_str().unwrap(),
            "--bench",
            "toy/A",
            "--base-commit",
            "c07",
            "--commit",
            "c08",
            f.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(
        dir.path(),
        &[
            "history",
            "check",
            "toy/A",
            "--history",
            db.to_str().unwrap(),
            "--min-segment",
            "3",
        ],
    );
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert!(s.contains("refuted") || s.contains("not confirmed"), "{s}");
}

#[test]
fn export_csv_json_bmf_and_html() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    thirty_commits(dir.path(), &db);
    let d = db.to_str().unwrap();
    let csv = run(dir.path(), &["history", "export", "--history", d]);
    let c = text(&csv.stdout);
    assert!(c.starts_with("benchmark,metric,unit,"), "{c}");
    assert_eq!(c.lines().count(), 31);
    assert_eq!(
        c.lines()
            .filter(|l| l.contains(",true,") && l.contains("c15"))
            .count(),
        1,
        "{c}"
    );
    let bmf = run(
        dir.path(),
        &["history", "export", "--history", d, "--format", "bmf"],
    );
    let b: Value = serde_json::from_slice(&bmf.stdout).unwrap();
    let m = &b["toy"];
    let (_, v) = m.as_object().unwrap().iter().next().unwrap();
    assert!(v["value"].as_f64().unwrap() > 1010.0, "{b}");
    assert!(v["lower_value"].is_number() && v["upper_value"].is_number());
    let html = dir.path().join("h.html");
    let out = run(
        dir.path(),
        &[
            "history",
            "show",
            "toy",
            "--history",
            d,
            "--export-html",
            html.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert_eq!(h.matches("<svg").count(), 2, "levels and steps");
    assert_eq!(
        h.matches("class=\"change-point\"").count(),
        2,
        "marked on both charts"
    );
    assert!(!h.contains("<script"));
}

#[test]
fn reading_a_missing_store_or_benchmark_is_exit_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let out = run(
        dir.path(),
        &["history", "list", "--history", db.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("none.db"));
    assert!(!db.exists());
    let f = raw_file(dir.path(), "a.jsonl", 1, &[100.0; 4], &[101.0; 4]);
    let db = dir.path().join("h.db");
    assert!(import(dir.path(), &db, &f, "c1", None).status.success());
    let out = run(
        dir.path(),
        &["history", "show", "nope", "--history", db.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no benchmark nope"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_default_store_is_at_the_top_of_the_git_repository() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .current_dir(dir.path())
            .args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "."]);
    git(&["commit", "-q", "--allow-empty", "-m", "first commit"]);
    git(&["commit", "-q", "--allow-empty", "-m", "second commit"]);
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let f = raw_file(&sub, "a.jsonl", 1, &[100.0; 4], &[104.0; 4]);
    let out = abba()
        .current_dir(&sub)
        .args([
            "history",
            "import",
            "--base-commit",
            "HEAD~1",
            "--bench",
            "t",
        ])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join(".abba/history.db").exists());
    let out = abba()
        .current_dir(&sub)
        .args(["history", "show", "t"])
        .output()
        .unwrap();
    let s = text(&out.stdout);
    assert!(
        s.contains("first commit") && s.contains("second commit"),
        "{s}"
    );
    // ABBA_HISTORY moves it.
    let elsewhere = dir.path().join("elsewhere.db");
    let out = abba()
        .current_dir(&sub)
        .env("ABBA_HISTORY", &elsewhere)
        .args(["history", "import", "--bench", "t"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(elsewhere.exists());
}

fn git_repo(dir: &Path, commits: usize) {
    for args in [vec!["init", "-q", "."]]
        .into_iter()
        .chain((1..=commits).map(|_| vec!["commit", "-q", "--allow-empty", "-m", "a commit"]))
    {
        let ok = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args(&args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }
}

#[test]
fn compare_record_keeps_the_step_between_head_and_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    git_repo(dir.path(), 2);
    let out = run(
        dir.path(),
        &[
            "compare",
            "--record",
            "--bench",
            "t",
            "--base-commit",
            "HEAD~1",
            "--blocks",
            "7",
            "-q",
            "--no-step-summary",
            "true",
            "true",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let l = list(dir.path(), &dir.path().join(".abba/history.db"));
    assert!(l.contains("1 experiments, 28 runs"), "{l}");
    let show = run(dir.path(), &["history", "show", "t", "--json"]);
    let doc: Value = serde_json::from_slice(&show.stdout).unwrap();
    let points = doc["series"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    assert!(points[1]["step"]["ratio"].is_number(), "{doc}");
    assert_eq!(points[1]["step"]["from"], 0);
}

#[test]
fn analyze_record_refuses_data_without_an_experiment_before_any_report() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "variant,value\nA,1\nA,2\nB,3\nB,4\n").unwrap();
    let db = dir.path().join("h.db");
    let out = run(
        dir.path(),
        &[
            "analyze",
            csv.to_str().unwrap(),
            "--record",
            "--commit",
            "c1",
            "--history",
            db.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not an abba raw file"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert!(!db.exists());
}

#[test]
fn suite_record_keeps_each_benchmark_as_a_step() {
    let dir = tempfile::tempdir().unwrap();
    let sh = dir.path().join("value.sh");
    std::fs::write(&sh, "#!/bin/sh\necho \"{\\\"v\\\": $1}\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = format!(
        "[variants]\nbase = \"100\"\nhead = \"110\"\n\n[settings]\nmetric = \"json:v\"\nblocks = 10\nwarmup = 0\n\n[[benchmark]]\nname = \"up\"\ncommand = \"{0} {{variant}}\"\n\n[[benchmark]]\nname = \"flat\"\ncommand = \"{0} 100 {{name}}\"\n",
        sh.display()
    );
    std::fs::write(dir.path().join("abba.toml"), suite).unwrap();
    let db = dir.path().join("h.db");
    let out = run(
        dir.path(),
        &[
            "suite",
            "--record",
            "--history",
            db.to_str().unwrap(),
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "-q",
            "--no-step-summary",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let show = run(
        dir.path(),
        &["history", "show", "up", "--history", db.to_str().unwrap()],
    );
    let s = text(&show.stdout);
    assert!(
        s.lines()
            .any(|l| l.contains(" c2 ") && l.contains("+10.00%") && l.contains("slower")),
        "{s}"
    );
    let l = list(dir.path(), &db);
    assert!(l.contains("up ") && l.contains("flat "), "{l}");
}

/// `suite --record` keeps each wall-time benchmark's CPU-time series beside its wall-time
/// one, as `compare --record` does (issue 36), so `history show --metric cpu` reads a
/// suite's CPU series with no rerun; a benchmark on another metric (a JSON field) gets
/// none.
#[test]
fn suite_record_keeps_each_wall_benchmarks_cpu_series_for_history_show_metric_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let sh = dir.path().join("value.sh");
    std::fs::write(&sh, "#!/bin/sh\necho \"{\\\"v\\\": $1}\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A command that spends its time on the CPU (CPU time of `true` is often 0).
    let abba_bin = assert_cmd::cargo::cargo_bin("abba");
    let suite = format!(
        "[variants]\nbase = \"100\"\nhead = \"110\"\n\n[settings]\nblocks = 6\nwarmup = 0\n\n[[benchmark]]\nname = \"work\"\ncommand = \"{0} compute --steps {{variant}}000\"\n\n[[benchmark]]\nname = \"field\"\nmetric = \"json:v\"\ncommand = \"{1} {{variant}}\"\n",
        abba_bin.display(),
        sh.display()
    );
    std::fs::write(dir.path().join("abba.toml"), suite).unwrap();
    let db = dir.path().join("h.db");
    let db_s = db.to_str().unwrap();
    let out = run(
        dir.path(),
        &[
            "suite",
            "--record",
            "--history",
            db_s,
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "-q",
            "--no-step-summary",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let show = |args: &[&str]| -> Value {
        let out = run(dir.path(), args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let cpu = show(&[
        "history",
        "show",
        "work",
        "--history",
        db_s,
        "--metric",
        "cpu",
        "--json",
    ]);
    let wall = show(&["history", "show", "work", "--history", db_s, "--json"]);
    assert_eq!(cpu["series"].as_array().unwrap().len(), 1, "{cpu}");
    assert_eq!(cpu["series"][0]["metric"], "cpu", "{cpu}");
    assert_eq!(cpu["series"][0]["unit"], "ns", "{cpu}");
    let level = cpu["series"][0]["points"][0]["level"]["median"].as_f64();
    assert!(level.is_some_and(|m| m > 0.0), "{cpu}");
    assert_eq!(wall["series"].as_array().unwrap().len(), 1, "{wall}");
    assert_eq!(wall["series"][0]["metric"], "wall", "{wall}");
    // The JSON-field benchmark keeps its own series and no CPU twin.
    let field_cpu = run(
        dir.path(),
        &[
            "history",
            "show",
            "field",
            "--history",
            db_s,
            "--metric",
            "cpu",
            "--json",
        ],
    );
    assert_eq!(field_cpu.status.code(), Some(2));
    let said = text(&field_cpu.stderr);
    assert!(said.contains("no benchmark field of metric cpu"), "{said}");
    let field = show(&["history", "show", "field", "--history", db_s, "--json"]);
    assert_eq!(field["series"][0]["metric"], "json:v", "{field}");
}

/// One recorded experiment on wall time keeps its CPU-time series too (issue 36): after
/// `compare --record` and after `history import`, `history show --metric cpu` reads the
/// CPU series without a rerun, while `history show` without a metric stays on wall time.
#[test]
fn a_recorded_wall_experiment_keeps_its_cpu_series_for_history_show_metric_cpu() {
    let dir = tempfile::tempdir().unwrap();
    git_repo(dir.path(), 2);
    // A command that spends its time on the CPU (CPU time of `true` is often 0).
    let work = format!(
        "{} compute --steps 2000000",
        assert_cmd::cargo::cargo_bin("abba").display()
    );
    let out = run(
        dir.path(),
        &[
            "compare",
            "--record",
            "--bench",
            "t",
            "--base-commit",
            "HEAD~1",
            "--blocks",
            "6",
            "-q",
            "--no-step-summary",
            &work,
            &work,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let l = list(dir.path(), &dir.path().join(".abba/history.db"));
    assert!(l.contains("cpu (ns") && l.contains("wall (ns"), "{l}");
    let show = |args: &[&str]| -> Value {
        let out = run(dir.path(), args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let cpu = show(&["history", "show", "t", "--metric", "cpu", "--json"]);
    let wall = show(&["history", "show", "t", "--json"]);
    assert_eq!(cpu["series"].as_array().unwrap().len(), 1, "{cpu}");
    assert_eq!(cpu["series"][0]["metric"], "cpu", "{cpu}");
    assert_eq!(wall["series"].as_array().unwrap().len(), 1, "{wall}");
    assert_eq!(wall["series"][0]["metric"], "wall", "{wall}");

    // An imported wall-time file: its CPU series is user + sys of the same runs.
    let raw = raw_file(dir.path(), "w.jsonl", 9, &[100.0; 6], &[100.0; 6]);
    let text_of = std::fs::read_to_string(&raw).unwrap();
    let mut lines = text_of.lines();
    let mut header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["metric"] = "wall".into();
    header["unit"] = "ns".into();
    let mut out = serde_json::to_string(&header).unwrap() + "\n";
    for line in lines {
        let mut r: Value = serde_json::from_str(line).unwrap();
        let b = r["variant"] == "B";
        // B waits longer off the CPU and computes less on it.
        r["wall_ns"] = (if b { 3_000_000 } else { 2_000_000 } + r["run"].as_u64().unwrap()).into();
        r["user_ns"] = (if b { 700_000 } else { 1_000_000 }).into();
        r["sys_ns"] = 100_000.into();
        r.as_object_mut().unwrap().remove("metric");
        out.push_str(&(serde_json::to_string(&r).unwrap() + "\n"));
    }
    std::fs::write(&raw, out).unwrap();
    let db = dir.path().join("i.db");
    let db_s = db.to_str().unwrap();
    let imported = run(
        dir.path(),
        &[
            "history",
            "import",
            "--history",
            db_s,
            "--commit",
            "c1",
            raw.to_str().unwrap(),
        ],
    );
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let cpu = show(&[
        "history",
        "show",
        "B",
        "--history",
        db_s,
        "--metric",
        "cpu",
        "--json",
    ]);
    let level = cpu["series"][0]["points"][0]["level"]["median"].as_f64();
    assert_eq!(level, Some(800_000.0), "{cpu}");
    let wall = show(&["history", "show", "B", "--history", db_s, "--json"]);
    assert_eq!(wall["series"][0]["metric"], "wall", "{wall}");
}
