//! The history holds against its attacks (issue 38), through the binary: a step the mean
//! run decided is kept and gated, `--since REV` reads series that start after REV, a check
//! with nothing to check is not a pass, reading commands never write (nor create a
//! directory), a history on read-only storage reads, labels with control characters are
//! refused and stored ones escaped, a suite's series keep their own names, and a pull
//! request without a merge base is said.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

// The binary as the other history tests run it (no history or CI variable of the caller's).
use super::support::{abba_in as abba, refused_in, run, text};

const FIXTURE: &str = "tests/data/raw_two.jsonl";

/// A raw file of `A` and `B` over `blocks` ABBA blocks, B `ratio` times A (small wobble).
fn raw_file(dir: &Path, name: &str, seed: u64, blocks: usize, ratio: f64) -> PathBuf {
    let fixture =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap();
    let mut header: Value = serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
    header["seed"] = seed.into();
    header["blocks"] = blocks.into();
    let mut out = serde_json::to_string(&header).unwrap();
    out.push('\n');
    let mut run = 0;
    for k in 0..blocks {
        let order = if k % 2 == 0 {
            ["A", "B", "B", "A"]
        } else {
            ["B", "A", "A", "B"]
        };
        let (mut sa, mut sb) = (0.0, 0.0);
        for (pos, v) in order.iter().enumerate() {
            let base = 1000.0 + ((k * 7) % 5) as f64;
            let value = if *v == "A" {
                sa += 1.0;
                base + sa - 1.0
            } else {
                sb += 1.0;
                base * ratio + sb - 1.0 + ((k * 3) % 4) as f64
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

fn import(dir: &Path, bench: &str, file: &Path, commit: &str, base: &str) {
    let out = run(
        dir,
        &[
            "history",
            "import",
            "--history",
            "h.db",
            "--bench",
            bench,
            "--commit",
            commit,
            "--base-commit",
            base,
            file.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_step_decided_by_the_mean_run_is_shown_exported_and_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    for blocks in [6, 7] {
        let d = dir.path().join(format!("b{blocks}"));
        std::fs::create_dir(&d).unwrap();
        let raw = raw_file(&d, "r.jsonl", 11, blocks, 1.3);
        let analyze = run(&d, &["analyze", "r.jsonl"]);
        // The analysis decides the 30% step at these few blocks (the part it rests on is
        // named in --verbose); the history must keep it too.
        let first = text(&analyze.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        assert!(first.contains("+30."), "{}", text(&analyze.stdout));
        import(&d, "toy", &raw, "c2", "c1");
        let show = run(&d, &["history", "show", "toy", "--history", "h.db"]);
        let s = text(&show.stdout);
        assert!(
            s.lines()
                .any(|l| l.contains(" c2 ") && l.contains("+30.1") && l.contains("slower")),
            "{s}"
        );
        let json = run(
            &d,
            &["history", "show", "toy", "--history", "h.db", "--json"],
        );
        let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
        let step = &doc["series"][0]["points"][1]["step"];
        assert!(
            (step["ratio"].as_f64().unwrap() - 1.3).abs() < 0.01,
            "{doc}"
        );
        assert!(step["low"].as_f64().unwrap() > 1.29, "{doc}");
        if blocks == 6 {
            // No typical-run interval at 6 blocks: the mean run's is kept.
            assert!(
                step["estimator"].as_str().unwrap().ends_with(":mean-run"),
                "{doc}"
            );
        }
        let check = run(
            &d,
            &[
                "history",
                "check",
                "--fail-if-slower",
                "3%",
                "--history",
                "h.db",
            ],
        );
        assert_eq!(check.status.code(), Some(1), "{}", text(&check.stdout));
        // The chain said in the one gate's words, as compare's and suite's gates are (a
        // JSON field's values are worse, not slower).
        let said = text(&check.stdout);
        assert!(
            said.contains("#2 c2 is significantly worse than #1 c1 in its chain of 1 paired steps and may be 3.00% worse or more (ratio 1.30"),
            "{said}"
        );
    }
}

#[test]
fn since_a_commit_a_later_benchmark_lacks_reads_it_from_that_commit_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let one = raw_file(d, "1.jsonl", 1, 8, 1.0);
    let two = raw_file(d, "2.jsonl", 2, 8, 1.0);
    let three = raw_file(d, "3.jsonl", 3, 8, 1.0);
    import(d, "old", &one, "c2", "c1");
    import(d, "old", &two, "c3", "c2");
    import(d, "new", &three, "c3", "c2");
    for cmd in [
        vec!["history", "check", "--since", "c1"],
        vec!["history", "list", "--since", "c1"],
        vec!["history", "export", "--since", "c1"],
    ] {
        let mut args = cmd.clone();
        args.extend(["--history", "h.db"]);
        let out = run(d, &args);
        let err = text(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("--since c1: not a recorded commit of new"),
            "{args:?}: {err}"
        );
    }
    // No series holds it: still exit 2.
    let since = ["history", "check", "--since", "nosuch", "--history", "h.db"];
    refused_in(d, &since, 2, "nosuch");
}

#[test]
fn check_with_nothing_to_check_is_exit_2_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let one = raw_file(d, "1.jsonl", 1, 8, 1.0);
    import(d, "toy", &one, "c2", "c1");
    let machine = [
        "history",
        "check",
        "--machine",
        "nosuch",
        "--history",
        "h.db",
    ];
    refused_in(d, &machine, 2, "no series matches the filters");
    let recent = ["history", "check", "--history", "h.db", "--recent", "0"];
    refused_in(d, &recent, 2, "--recent");
    // An empty store (its schema, no experiment).
    let empty = d.join("empty.db");
    {
        std::fs::copy(d.join("h.db"), &empty).unwrap();
        let c = rusqlite::Connection::open(&empty).unwrap();
        c.execute_batch(
            "DELETE FROM summaries; DELETE FROM levels; DELETE FROM runs;
             DELETE FROM experiments; DELETE FROM benchmarks;",
        )
        .unwrap();
    }
    let empty = ["history", "check", "--history", "empty.db"];
    refused_in(d, &empty, 2, "nothing can be checked");
}

#[test]
fn reading_commands_never_write_and_a_new_history_needs_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("zero.db"), b"").unwrap();
    for cmd in [
        vec!["history", "list"],
        vec!["history", "show", "toy"],
        vec!["history", "check"],
        vec!["history", "export"],
    ] {
        let mut args = cmd.clone();
        args.extend(["--history", "zero.db"]);
        refused_in(d, &args, 2, "an empty file");
        assert_eq!(std::fs::metadata(d.join("zero.db")).unwrap().len(), 0);
        assert!(!d.join("zero.db-wal").exists() && !d.join("zero.db-shm").exists());
    }
    // A history of the first schema is read as it is, not migrated.
    let raw = raw_file(d, "1.jsonl", 1, 8, 1.0);
    import(d, "toy", &raw, "c2", "c1");
    let before = std::fs::read(d.join("h.db")).unwrap();
    let out = run(d, &["history", "show", "toy", "--history", "h.db"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(d.join("h.db")).unwrap(), before);
    // --history in a directory that does not exist: refused, nothing created.
    let missing = d.join("no/such/dir/h.db");
    let m = missing.to_str().unwrap();
    let import = [
        "history",
        "import",
        "--commit",
        "c1",
        "--history",
        m,
        "1.jsonl",
    ];
    refused_in(d, &import, 2, "does not exist");
    let record = [
        "compare", "-q", "--blocks", "2", "--record", "--commit", "c1",
    ];
    let record = [&record[..], &["--history", m, "true", "true"]].concat();
    refused_in(d, &record, 2, "--history");
    assert!(!d.join("no").exists(), "a directory was created");
}

#[test]
fn a_history_on_read_only_storage_reads_and_says_why_it_cannot_record() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let raw = raw_file(d, "1.jsonl", 1, 8, 1.3);
    import(d, "toy", &raw, "c2", "c1");
    let ro = d.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::copy(d.join("h.db"), ro.join("h.db")).unwrap();
    std::fs::copy(&raw, ro.join("1.jsonl")).unwrap();
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(&ro.join("h.db"), 0o444).unwrap();
    mode(&ro, 0o555).unwrap();
    mode(d, 0o755).unwrap();
    let before = std::fs::read(ro.join("h.db")).unwrap();
    // As root every file is writable: the reader runs as nobody there.
    let as_reader = |args: &[&str]| as_nobody(&ro, d).args(args).output().unwrap();
    let out = as_reader(&["history", "show", "toy", "--history", "h.db"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("+30.1"), "{}", text(&out.stdout));
    let out = as_reader(&[
        "history",
        "import",
        "--commit",
        "c3",
        "--history",
        "h.db",
        "1.jsonl",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("read-only storage") && !err.contains("damaged"),
        "{err}"
    );
    assert_eq!(std::fs::read(ro.join("h.db")).unwrap(), before);
    // A store of the first schema there: read as it is; recording says it needs migrating.
    mode(&ro, 0o755).unwrap();
    {
        let c = rusqlite::Connection::open(ro.join("old.db")).unwrap();
        c.execute_batch(bench_history::MIGRATIONS[0]).unwrap();
        c.execute_batch("PRAGMA user_version = 1; PRAGMA application_id = 1633837665;")
            .unwrap();
    }
    mode(&ro.join("old.db"), 0o444).unwrap();
    mode(&ro, 0o555).unwrap();
    let out = as_reader(&["history", "list", "--history", "old.db"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("0 experiments"),
        "{}",
        text(&out.stdout)
    );
    let out = as_reader(&[
        "history",
        "import",
        "--commit",
        "c3",
        "--history",
        "old.db",
        "1.jsonl",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("read-only storage") && err.contains("needs migrating from schema 1"),
        "{err}"
    );
    mode(&ro, 0o755).unwrap();
}

/// Whether this process runs as root (its files' modes do not bind it).
/// `abba` in `dir`, run as nobody when the tests run as root (root may write anything).
/// Nobody may not reach the build's own binary (a checkout under a private directory,
/// `mktemp -d`), so it runs a copy in `bin_dir` (mode 0755), with the same environment.
fn as_nobody(dir: &Path, bin_dir: &Path) -> Command {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let base = abba(dir);
    if !is_root() {
        return base;
    }
    let bin = bin_dir.join("abba-as-nobody");
    if !bin.exists() {
        std::fs::copy(base.get_program(), &bin).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut c = Command::new(&bin);
    c.current_dir(dir);
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.uid(65_534).gid(65_534);
    c
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[test]
fn labels_with_control_characters_are_refused_and_stored_ones_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let raw = raw_file(d, "1.jsonl", 1, 8, 1.0);
    for (flag, value) in [
        ("--commit", ""),
        ("--bench", "a\nb"),
        ("--branch", "x\u{1b}[31m"),
        ("--base-commit", " "),
    ] {
        let mut args = vec!["history", "import", "--history", "h.db"];
        if flag != "--commit" {
            args.extend(["--commit", "c1"]);
        }
        args.extend([flag, value, raw.to_str().unwrap()]);
        let err = refused_in(d, &args, 2, flag);
        assert!(!err.contains('\u{1b}'), "{err:?}");
        let mut args = vec![
            "compare",
            "-q",
            "--blocks",
            "2",
            "--record",
            "--history",
            "h.db",
        ];
        if flag != "--commit" {
            args.extend(["--commit", "c1"]);
        }
        args.extend([flag, value, "true", "true"]);
        refused_in(d, &args, 2, flag);
    }
    assert!(!d.join("h.db").exists());
    // A name stored by an earlier abba is shown escaped.
    import(d, "toy", &raw, "c2", "c1");
    let c = rusqlite::Connection::open(d.join("h.db")).unwrap();
    c.execute_batch(
        "UPDATE benchmarks SET name = 'to\u{1b}[2Jy'; UPDATE commits SET subject = 'a\nb'",
    )
    .unwrap();
    drop(c);
    for args in [
        vec!["history", "list", "--history", "h.db"],
        vec!["history", "show", "to\u{1b}[2Jy", "--history", "h.db"],
        vec!["history", "check", "--history", "h.db"],
    ] {
        let out = run(d, &args);
        let s = text(&out.stdout);
        assert!(!s.contains('\u{1b}'), "{args:?}: {s:?}");
        assert!(s.contains("to\\u{1b}[2Jy"), "{args:?}: {s}");
    }
}

/// A suite of two benchmarks whose runs print `{"v": N}`.
fn suite(dir: &Path) {
    let sh = dir.join("value.sh");
    std::fs::write(&sh, "#!/bin/sh\necho \"{\\\"v\\\": $1}\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let toml = format!(
        "[variants]\nbase = \"100\"\nhead = \"110\"\n\n[settings]\nmetric = \"json:v\"\nblocks = 2\nwarmup = 0\n\n[[benchmark]]\nname = \"small\"\ncommand = \"{0} {{variant}}\"\n\n[[benchmark]]\nname = \"big\"\ncommand = \"{0} {{variant}} x\"\n",
        sh.display()
    );
    std::fs::write(dir.join("abba.toml"), toml).unwrap();
}

fn benchmarks(dir: &Path) -> Vec<String> {
    let out = run(
        dir,
        &["history", "export", "--format", "json", "--history", "h.db"],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut names: Vec<String> = doc["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["benchmark"].as_str().unwrap().to_owned())
        .collect();
    names.dedup();
    names
}

#[test]
fn a_suite_s_series_keep_their_benchmark_names_with_bench_as_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d);
    let record = |extra: &[&str]| {
        let mut args = vec![
            "suite",
            "-q",
            "--no-step-summary",
            "--record",
            "--history",
            "h.db",
        ];
        args.extend(extra);
        let out = run(d, &args);
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    record(&["--commit", "v1"]);
    assert_eq!(
        benchmarks(d),
        ["big/base", "big/head", "small/base", "small/head"]
    );
    std::fs::remove_file(d.join("h.db")).unwrap();
    record(&["--commit", "v2", "--base-commit", "v1", "--bench", "ci"]);
    assert_eq!(benchmarks(d), ["ci/big", "ci/small"]);
}

#[test]
fn a_pull_request_without_a_merge_base_is_said_with_its_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .current_dir(d)
            .args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "."]);
    git(&["commit", "-q", "--allow-empty", "-m", "one"]);
    let out = abba(d)
        .env("GITHUB_BASE_REF", "main")
        .env("GIT_CEILING_DIRECTORIES", d.parent().unwrap())
        .args([
            "compare",
            "-q",
            "--blocks",
            "2",
            "--record",
            "--history",
            "h.db",
            "true",
            "true",
        ])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning") && err.contains("no merge base") && err.contains("fetch-depth: 0"),
        "{err}"
    );
}

#[test]
fn recording_into_read_only_storage_is_refused_before_anything_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ro = d.join("ro");
    std::fs::create_dir(&ro).unwrap();
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(d, 0o777).unwrap();
    mode(&ro, 0o555).unwrap();
    let marker = d.join("ran");
    // As root every directory is writable: abba runs as nobody there.
    let mut c = as_nobody(d, d);
    let touch = format!("touch {}", marker.display());
    let out = c
        .args(["compare", "--record", "--commit", "c1", "--history"])
        .arg(ro.join("h.db"))
        .args(["--blocks", "2", "-o"])
        .arg(d.join("r.jsonl"))
        .args([touch.as_str(), "true"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("read-only storage"), "{err}");
    assert!(!marker.exists(), "a benchmark ran before the refusal");
    assert!(!ro.join("h.db").exists());
    mode(&ro, 0o755).unwrap();
}
