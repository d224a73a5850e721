//! The faults of `abba suite` a QA pass found, end to end through the binary: no export
//! replaces the suite file; every count of the flags and of the file is bounded before
//! anything is allocated or run; a zero timeout in the file names its place; a rate unit
//! warns as compare's `--unit` does; `compare --resume` of a suite's raw file says how to
//! continue it; the report fits the width; one block and one benchmark are singular.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

use super::support::refused_with;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("COLUMNS");
    cmd
}

/// A suite of one benchmark `a` whose runs append a line to `ran.log` (so a test can see
/// that nothing ran), with `extra` lines added to `[settings]` and to the benchmark.
pub(super) fn suite(dir: &Path, name: &str, settings: &str, benchmark: &str) -> PathBuf {
    let log = dir.join("ran.log");
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "[variants]\nbase = \"x\"\nhead = \"y\"\n\n[settings]\nshell = \"sh\"\n{settings}\n[[benchmark]]\nname = \"a\"\ncommand = \"echo {{variant}} >> {}\"\n{benchmark}",
            log.display()
        ),
    )
    .unwrap();
    path
}

pub(super) fn nothing_ran(dir: &Path) {
    assert!(!dir.join("ran.log").exists(), "a command ran");
}

#[test]
fn s1_an_export_onto_the_suite_file_under_any_name_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = suite(dir.path(), "ok.toml", "", "");
    let before = std::fs::read_to_string(&file).unwrap();
    let hard = dir.path().join("hard.toml");
    std::fs::hard_link(&file, &hard).unwrap();
    let spellings = [
        PathBuf::from("ok.toml"),
        PathBuf::from("./ok.toml"),
        dir.path().join(".").join("ok.toml"),
        hard,
    ];
    for flag in [
        "--export-json",
        "--export-markdown",
        "--export-pr-comment",
        "--export-bmf",
        "--export-github-benchmark",
    ] {
        for spelling in &spellings {
            abba()
                .current_dir(dir.path())
                .args(["suite", "-q", "--blocks", "2"])
                .arg(flag)
                .arg(spelling)
                .arg("ok.toml")
                .assert()
                .code(2)
                .stderr(predicate::str::contains(format!(
                    "{flag} {} is the same file as the suite file ok.toml",
                    spelling.display()
                )));
        }
    }
    // The default suite file, abba.toml, too.
    std::fs::copy(&file, dir.path().join("abba.toml")).unwrap();
    abba()
        .current_dir(dir.path())
        .args(["suite", "--export-json", "abba.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--export-json abba.toml is the same file as the suite file abba.toml",
        ));
    nothing_ran(dir.path());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("abba.toml")).unwrap(),
        before
    );
}

#[test]
fn s2_counts_beyond_reason_in_the_flags_and_the_file_are_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let ok = suite(dir.path(), "ok.toml", "", "");
    for (flags, said) in [
        (&["--blocks", "4294967295"][..], "--blocks"),
        (&["--blocks", "200000"][..], "--blocks"),
        (&["--blocks", "0"][..], "--blocks"),
        (&["--warmup", "10001"][..], "--warmup"),
    ] {
        for dry in [true, false] {
            let mut cmd = abba();
            cmd.args(["suite", "-q"]).args(flags).arg(&ok);
            if dry {
                cmd.arg("--dry-run");
            }
            cmd.assert()
                .code(2)
                .stderr(predicate::str::contains(said))
                .stderr(predicate::str::contains("memory").not());
        }
    }
    // The file's counts: FILE:LINE:COL and the key, under --dry-run as in a real run.
    for (settings, benchmark, said) in [
        (
            "runs-per-block = 4000000\n",
            "",
            "r.toml:7:18: settings.runs-per-block = 4000000: must be from 1 to 10000",
        ),
        (
            "",
            "runs-per-block = 4000000\n",
            "r.toml:11:18: runs-per-block = 4000000: must be from 1 to 10000",
        ),
        (
            "warmup = 99999\n",
            "",
            "r.toml:7:10: settings.warmup = 99999: must be from 0 to 10000",
        ),
        (
            "blocks = 0\n",
            "",
            "r.toml:7:10: settings.blocks = 0: must be from 1 to 100000",
        ),
        (
            "blocks = 200000\n",
            "",
            "r.toml:7:10: settings.blocks = 200000",
        ),
        // Each bounded, their product is not: 100,000 blocks of 40 runs.
        (
            "blocks = 100000\n",
            "runs-per-block = 20\n",
            "4000000 runs, more than the 1000000",
        ),
    ] {
        let r = suite(dir.path(), "r.toml", settings, benchmark);
        for dry in [true, false] {
            let mut cmd = abba();
            cmd.args(["suite", "-q"]).arg(&r);
            if dry {
                cmd.arg("--dry-run");
            }
            cmd.assert().code(2).stderr(predicate::str::contains(said));
        }
    }
    nothing_ran(dir.path());
}

#[test]
fn s3_resamples_beyond_the_bound_are_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let ok = suite(dir.path(), "ok.toml", "", "");
    for resamples in ["4000000000", "100001"] {
        let ok = ok.to_str().unwrap();
        let args = ["suite", "-q", "--blocks", "2", "--resamples", resamples, ok];
        refused_with(&args, 2, "--resamples");
    }
    nothing_ran(dir.path());
}

#[test]
fn s4_a_zero_timeout_or_zero_blocks_in_the_file_names_its_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (settings, benchmark, said) in [
        (
            "",
            "timeout = \"0s\"\n",
            "r.toml:11:11: timeout = \"0s\": must be longer than 0",
        ),
        (
            "timeout = \"0s\"\n",
            "",
            "r.toml:7:11: settings.timeout = \"0s\": must be longer than 0",
        ),
        ("blocks = 0\n", "", "r.toml:7:10: settings.blocks = 0"),
    ] {
        let r = suite(dir.path(), "r.toml", settings, benchmark);
        abba()
            .args(["suite", "-q", "--blocks", "2"])
            .arg(&r)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(said))
            .stderr(predicate::str::contains("invalid experiment configuration").not());
    }
    let ok = suite(dir.path(), "ok.toml", "", "");
    let args = [
        "suite",
        "-q",
        "--blocks",
        "2",
        "--timeout",
        "0s",
        ok.to_str().unwrap(),
    ];
    refused_with(&args, 2, "--timeout must be longer than 0");
    nothing_ran(dir.path());
}

#[test]
fn s5_a_rate_unit_without_higher_is_better_warns_naming_the_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let rate = suite(dir.path(), "rate.toml", "", "unit = \"ops/s\"\n");
    abba()
        .args(["suite", "-q", "--dry-run", "--blocks", "2"])
        .arg(&rate)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "abba: warning: benchmark \"a\": unit ops/s looks like a rate, but without higher-is-better = true lower values count as better",
        ));
    // In [settings] too, and not when more is declared better.
    let settings = suite(dir.path(), "settings.toml", "unit = \"req/s\"\n", "");
    abba()
        .args(["suite", "--dry-run", "--blocks", "2"])
        .arg(&settings)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "benchmark \"a\": unit req/s looks like a rate",
        ));
    let higher = suite(
        dir.path(),
        "higher.toml",
        "",
        "unit = \"ops/s\"\nhigher-is-better = true\n",
    );
    abba()
        .args(["suite", "--dry-run", "--blocks", "2"])
        .arg(&higher)
        .assert()
        .success()
        .stderr(predicate::str::contains("looks like a rate").not());
}

#[test]
fn s6_compare_resume_of_a_suite_raw_file_says_to_continue_it_with_abba_suite() {
    let dir = tempfile::tempdir().unwrap();
    let ok = suite(dir.path(), "ok.toml", "warmup = 0\n", "");
    let raw = dir.path().join("runs.jsonl");
    abba()
        .args(["suite", "-q", "--blocks", "2", "--seed", "1", "-o"])
        .arg(&raw)
        .arg(&ok)
        .assert()
        .success();
    let before = std::fs::read_to_string(&raw).unwrap();
    abba()
        .args(["compare", "-q", "--resume"])
        .arg(&raw)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the file is a suite's raw file (benchmarks a)",
        ))
        .stderr(predicate::str::contains(format!(
            "abba suite <its suite file> --resume {}",
            raw.display()
        )))
        .stderr(predicate::str::contains("{\"name\"").not());
    assert_eq!(std::fs::read_to_string(&raw).unwrap(), before);
}

/// A suite of benchmarks with long names printing fixed JSON values (fast, no timing).
fn wide_suite(dir: &Path) -> PathBuf {
    let path = dir.join("wide.toml");
    let mut text = String::from(
        "[variants]\nbase = \"1.0\"\ncandidate-with-a-long-name = \"1.1\"\n\n[settings]\nshell = \"sh\"\nmetric = \"json:v\"\nwarmup = 0\n",
    );
    for name in [
        "parse-a-rather-large-json-document-from-disk",
        "render-the-page-with-every-widget-enabled",
        "short",
    ] {
        text.push_str(&format!(
            "\n[[benchmark]]\nname = \"{name}\"\ncommand = \"echo '{{\\\"v\\\": {{variant}}}}'\"\n"
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn s7_the_suite_report_fits_80_columns_and_100_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    let file = wide_suite(dir.path());
    let longest = |s: &[u8]| {
        String::from_utf8_lossy(s)
            .lines()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    };
    for columns in [Some(80), None] {
        let mut cmd = abba();
        cmd.args(["suite", "--blocks", "8", "--seed", "2"])
            .arg(&file);
        if let Some(c) = columns {
            cmd.env("COLUMNS", c.to_string());
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{}\n{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("render-the-page"), "{stdout}");
        let width = columns.unwrap_or(100);
        assert!(
            longest(&out.stdout) <= width,
            "at {width}: stdout {} wide:\n{stdout}",
            longest(&out.stdout)
        );
        if columns.is_some() {
            assert!(longest(&out.stderr) <= width, "stderr at {width}");
        }
    }
}

#[test]
fn s8_one_block_and_one_benchmark_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    let ok = suite(dir.path(), "ok.toml", "warmup = 0\n", "");
    abba()
        .args(["suite", "--list"])
        .arg(&ok)
        .assert()
        .success()
        .stdout(predicate::str::contains("1 benchmark, variants base, head"));
    abba()
        .args(["suite", "--dry-run", "--blocks", "4", "--seed", "1"])
        .arg(&ok)
        .assert()
        .success()
        .stdout(predicate::str::contains("... 1 block more,"));
    let out = abba()
        .args(["suite", "--blocks", "2", "--seed", "1"])
        .arg(&ok)
        .assert()
        .success();
    let got = out.get_output();
    let stderr = String::from_utf8_lossy(&got.stderr);
    let stdout = String::from_utf8_lossy(&got.stdout);
    assert!(
        stderr.contains("abba suite: 1 benchmark x 2 variants, 2 blocks,"),
        "{stderr}"
    );
    assert!(
        stdout.contains("1 benchmark, head against base"),
        "{stdout}"
    );
    for text in [&stderr, &stdout] {
        assert!(
            !text.contains("1 benchmarks") && !text.contains(" 1 blocks"),
            "{text}"
        );
    }
}
