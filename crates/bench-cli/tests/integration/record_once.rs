//! `--record` analyses once: `compare` and `suite` record the experiment they just ran
//! with the analysis they just printed, reading their raw file zero times after the runs
//! (the benchmarks below delete it while they run: a re-read would fail), and the record
//! is the same experiment a later `history import` of that file finds.

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

fn abba(dir: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("abba")
        .unwrap()
        .current_dir(dir)
        .env_remove("ABBA_HISTORY")
        .env_remove("GITHUB_BASE_REF")
        .env_remove("GITHUB_HEAD_REF")
        .env_remove("GITHUB_REF_NAME")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `value.sh N`: removes `runs.jsonl` from the current directory, then prints `{"v": N}`.
fn value_script(dir: &Path) {
    let sh = dir.join("value.sh");
    std::fs::write(
        &sh,
        "#!/bin/sh\nrm -f runs.jsonl\necho \"{\\\"v\\\": $1}\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn suite_record_reads_no_raw_file_after_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    value_script(dir.path());
    let suite = "[variants]\nbase = \"100\"\nhead = \"110\"\n\n[settings]\nmetric = \"json:v\"\nblocks = 10\nwarmup = 0\n\n[[benchmark]]\nname = \"up\"\ncommand = \"./value.sh {variant}\"\n\n[[benchmark]]\nname = \"flat\"\ncommand = \"./value.sh 100 {name}\"\n";
    std::fs::write(dir.path().join("abba.toml"), suite).unwrap();
    let out = abba(
        dir.path(),
        &[
            "suite",
            "--output",
            "runs.jsonl",
            "--record",
            "--history",
            "h.db",
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "-q",
            "--no-step-summary",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!dir.path().join("runs.jsonl").exists());
    // The report came from the runs in memory, and so did the record.
    assert!(text(&out.stdout).contains("up"), "{}", text(&out.stdout));
    let show = abba(dir.path(), &["history", "show", "up", "--history", "h.db"]);
    let s = text(&show.stdout);
    assert!(
        s.lines()
            .any(|l| l.contains(" c2 ") && l.contains("+10.00%") && l.contains("slower")),
        "{s}"
    );
    let list = text(&abba(dir.path(), &["history", "list", "--history", "h.db"]).stdout);
    assert!(list.contains("1 experiments, 80 runs"), "{list}");
}

#[test]
fn compare_record_reads_no_raw_file_after_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    value_script(dir.path());
    let out = abba(
        dir.path(),
        &[
            "compare",
            "--metric",
            "json:v",
            "--output",
            "runs.jsonl",
            "--record",
            "--bench",
            "t",
            "--history",
            "h.db",
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "--blocks",
            "7",
            "--warmup",
            "0",
            "-q",
            "--no-step-summary",
            "./value.sh 100",
            "./value.sh 105",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!dir.path().join("runs.jsonl").exists());
    let show = abba(dir.path(), &["history", "show", "t", "--history", "h.db"]);
    let s = text(&show.stdout);
    // Each commit's level: the baseline's build at c1, the candidate's at c2.
    assert!(
        s.lines()
            .any(|l| l.contains(" c1 ") && l.contains("100.0 value")),
        "{s}"
    );
    assert!(
        s.lines()
            .any(|l| l.contains(" c2 ") && l.contains("105.0 value")),
        "{s}"
    );
}

#[test]
fn a_recorded_compare_and_an_import_of_its_raw_file_are_one_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let out = abba(
        dir.path(),
        &[
            "compare",
            "--output",
            "kept.jsonl",
            "--record",
            "--bench",
            "t",
            "--history",
            "h.db",
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "--blocks",
            "7",
            "--no-step-summary",
            "true",
            "true",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("abba: recorded kept.jsonl at c1 -> c2 into h.db"),
        "{}",
        text(&out.stderr)
    );
    let again = abba(
        dir.path(),
        &[
            "history",
            "import",
            "--history",
            "h.db",
            "--commit",
            "c2",
            "--base-commit",
            "c1",
            "--bench",
            "t",
            "kept.jsonl",
        ],
    );
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("kept.jsonl is already in h.db (kept once)"),
        "{}",
        text(&again.stderr)
    );
}
