//! A hyperfine user's first minutes: hyperfine's short flags where they mean the same,
//! a refusal saying what abba does instead for every hyperfine flag abba does not have,
//! no misleading clap tips, a short `-h` grouped under headings, and the run count that
//! is too small for a verdict named before anything runs.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1").env_remove("COLUMNS");
    cmd
}

fn stderr_of(args: &[&str]) -> (i32, String) {
    let out = abba().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn stdout_of(args: &[&str]) -> String {
    let out = abba().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn header(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The schedule `--dry-run` prints ends with "N measured runs".
fn measured_runs(args: &[&str]) -> (u64, String) {
    let out = abba()
        .args(["compare", "--dry-run", "--seed", "1"])
        .args(args)
        .args(["true", "false"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let runs = stdout
        .lines()
        .find_map(|l| l.strip_suffix(" measured runs"))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run count in {stdout}"));
    (runs, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn hyperfines_short_flags_run_as_a_hyperfine_user_expects() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let out = abba()
        .args([
            "compare", "-N", "-w", "3", "-r", "20", "-i", "-u", "ms", "--json",
        ])
        .args(["-n", "short", "-n", "long", "-o"])
        .arg(&raw)
        .args(["sleep 0.01", "sleep 0.012"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let h = header(&raw);
    assert_eq!(h["warmup"], 3);
    assert_eq!(h["blocks"], 10, "-r 20: 10 ABBA blocks of 2 runs each");
    assert_eq!(h["variants"][0]["name"], "short");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--runs 20: 10 blocks"), "{stderr}");
    let analysis: Value = serde_json::from_slice(&out.stdout).unwrap();
    let comparisons = &analysis["groups"][0]["comparisons"];
    assert_eq!(comparisons.as_array().map(Vec::len), Some(1), "{analysis}");
}

#[test]
fn hooks_and_shell_take_hyperfines_short_flags() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let l = log.display();
    abba()
        .args([
            "compare", "-S", "sh", "--blocks", "1", "-w", "0", "--json", "-q",
        ])
        .args(["-s", &format!("echo s >> {l}")])
        .args(["-p", &format!("echo p >> {l}")])
        .args(["-C", &format!("echo C >> {l}")])
        .args(["-c", &format!("echo c >> {l}")])
        .args(["true", "true"])
        .assert()
        .success();
    let text = std::fs::read_to_string(&log).unwrap();
    let count = |w: &str| text.lines().filter(|l| *l == w).count();
    // Two variants, one ABBA block: 2 runs each.
    assert_eq!(
        [count("s"), count("p"), count("C"), count("c")],
        [2, 4, 4, 2]
    );
}

#[test]
fn min_and_max_runs_bound_the_blocks_not_min_blocks() {
    // Default: 20 blocks of ABBA, 2 runs of each variant per block = 80 runs.
    assert_eq!(measured_runs(&[]).0, 80);
    // -m 60: at least 60 runs each = 30 blocks = 120 runs; -M 12: 6 blocks = 24 runs.
    let (runs, stderr) = measured_runs(&["-m", "60"]);
    assert_eq!(runs, 120, "{stderr}");
    assert!(stderr.contains("--min-runs 60: 30 blocks"), "{stderr}");
    assert_eq!(measured_runs(&["--max-runs", "12"]).0, 24);
    // An odd bound rounds towards it: at least 61 runs = 31 blocks; at most 13 = 6 blocks.
    assert_eq!(measured_runs(&["--min-runs", "61"]).0, 124);
    assert_eq!(measured_runs(&["-M", "13"]).0, 24);
    // A bound the default already meets leaves it alone.
    assert_eq!(measured_runs(&["-m", "10", "-M", "400"]).0, 80);
    // With --until decided they bound its blocks.
    let (_, stderr) = measured_runs(&["--until", "decided", "-M", "60"]);
    assert!(
        stderr.contains("--until decided between 7 and 30 blocks"),
        "{stderr}"
    );
    // -m is not --min-blocks, and clap does not "correct" one into the other.
    let (code, stderr) = stderr_of(&["compare", "--min-run", "3", "a", "b"]);
    assert_eq!(code, 2);
    assert!(!stderr.contains("--min-blocks"), "{stderr}");
}

#[test]
fn every_hyperfine_flag_abba_lacks_is_refused_with_what_abba_does() {
    let cases: [(&[&str], &str); 6] = [
        (&["--export-asciidoc", "r.adoc"], "--export-markdown"),
        (&["--export-orgmode", "r.org"], "--export-html"),
        (&["--sort", "mean-time"], "--baseline"),
        (&["--input", "data.txt"], "/dev/null"),
        (&["--output", "null"], "--show-output"),
        (&["--debug-mode"], "--dry-run"),
    ];
    for (flag, instead) in cases {
        let mut args = vec!["compare"];
        args.extend_from_slice(flag);
        args.extend(["true", "true"]);
        let (code, stderr) = stderr_of(&args);
        assert_eq!(code, 2, "{flag:?}: {stderr}");
        assert!(stderr.contains(flag[0]), "{flag:?}: {stderr}");
        assert!(stderr.contains(instead), "{flag:?}: {stderr}");
    }
    let (code, stderr) = stderr_of(&["compare", "-S", "bash", "true", "true"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bash -c"), "{stderr}");
}

#[test]
fn an_unknown_flag_gets_no_tip_to_pass_it_as_a_value() {
    for flag in ["-x", "--warmups-per-run"] {
        let (code, stderr) = stderr_of(&["compare", flag, "true", "true"]);
        assert_eq!(code, 2);
        assert!(stderr.contains(flag), "{stderr}");
        assert!(!stderr.contains("as a value"), "{stderr}");
    }
    // A similar flag is still suggested.
    let (_, stderr) = stderr_of(&["compare", "--warmpu", "1", "true", "true"]);
    assert!(stderr.contains("--warmup"), "{stderr}");
}

#[test]
fn short_help_is_a_summary_under_headings_and_long_help_has_everything() {
    let short = stdout_of(&["compare", "-h"]);
    let long = stdout_of(&["compare", "--help"]);
    assert!(short.lines().count() <= 60, "{short}");
    for heading in [
        "Running:",
        "Design:",
        "Output:",
        "Analysis:",
        "Gate:",
        "Hooks:",
        "Many machines:",
    ] {
        assert!(long.lines().any(|l| l == heading), "{heading} in {long}");
        assert!(short.lines().any(|l| l == heading), "{heading} in {short}");
    }
    for flag in [
        "-r, --runs",
        "-w, --warmup",
        "-N",
        "-p, --prepare",
        "--export-html",
    ] {
        assert!(short.contains(flag), "{flag} in {short}");
    }
    for flag in [
        "--estimator",
        "--runs-per-block",
        "--parameter-scan",
        "--resume <",
    ] {
        assert!(!short.contains(flag), "{flag} in {short}");
        assert!(long.contains(flag), "{flag} in {long}");
    }
    assert!(stdout_of(&["analyze", "-h"]).lines().count() <= 60);
}

#[test]
fn a_run_count_too_small_for_a_verdict_is_named_before_anything_runs() {
    let (runs, stderr) = measured_runs(&["--runs", "10"]);
    assert_eq!(runs, 20);
    assert!(
        stderr.contains("5 blocks are too few")
            && stderr.contains("at least 6 blocks")
            && stderr.contains("--runs 12"),
        "{stderr}"
    );
    let (_, stderr) = measured_runs(&["--blocks", "6"]);
    assert!(!stderr.contains("too few"), "{stderr}");
    // At a stricter alpha more blocks are needed: the default's smallest adjusted p is
    // the mean run's at its extreme, 2 / 2^n <= 0.01 from n = 8.
    let (_, stderr) = measured_runs(&["--blocks", "7", "--alpha", "0.01"]);
    assert!(stderr.contains("at least 8 blocks"), "{stderr}");
    // The signed-rank estimators need 2 / 2^n <= 0.01: from n = 8.
    let (_, stderr) = measured_runs(&[
        "--blocks",
        "7",
        "--alpha",
        "0.01",
        "--estimator",
        "hl-min-log-ratio",
    ]);
    assert!(stderr.contains("at least 8 blocks"), "{stderr}");
}
