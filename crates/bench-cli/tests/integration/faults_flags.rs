//! Flag faults of the QA pass, end to end through the binary: `abba plan`'s work is
//! bounded, contradictory bounds and negative durations or percentages are refused by
//! their flags before anything runs, configuration errors name the flags at fault,
//! commands are quoted for humans, counts and levels read as words, and long lines wrap.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

use super::support::refused_with;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1").env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

/// The QA pass's pilot: 8 blocks of `true` against `sleep 0.001` (blocks of a few ms,
/// so a budget of minutes fits more blocks than a plan considers).
fn pilot(dir: &Path) -> PathBuf {
    let raw = dir.join("raw.jsonl");
    abba()
        .args(["compare", "-q", "--blocks", "8", "--seed", "1", "-o"])
        .arg(&raw)
        .args(["true", "sleep 0.001"])
        .assert()
        .success();
    raw
}

/// A command that leaves a trace in `log` when it runs.
fn tracer(log: &Path) -> String {
    format!("echo x >> {}", log.display())
}

fn stderr_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

fn stdout_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

#[test]
fn f1_plan_work_is_bounded_for_large_budgets_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let raw = pilot(dir.path());
    // A budget or limit beyond what the 8-block pilot supports (300 blocks: past them the
    // normal approximation over its 8 values would call changes far below its resolution
    // detectable) is planned at 300, and says so.
    for time in ["100000h", "30m", "10m"] {
        let assert = abba()
            .arg("plan")
            .arg(&raw)
            .args(["--effect", "5%", "--time", time])
            .env("COLUMNS", "400")
            .timeout(Duration::from_secs(60))
            .assert()
            .success();
        let out = stdout_of(&assert);
        assert!(
            out.contains("Budget of 300 blocks (the most this pilot supports:"),
            "--time {time}: {out}"
        );
        assert!(
            out.contains("planned at 300 blocks, not more"),
            "--time {time}: {out}"
        );
    }
    for max in ["20000", "100000"] {
        let assert = abba()
            .arg("plan")
            .arg(&raw)
            .args(["--max-blocks", max])
            .timeout(Duration::from_secs(60))
            .assert()
            .success();
        let out = stdout_of(&assert);
        assert!(out.contains("at most 300 blocks"), "{out}");
        assert!(out.contains("planned at 300 blocks, not more"), "{out}");
    }
    let too_many = ["plan", raw.to_str().unwrap(), "--max-blocks", "100001"];
    refused_with(&too_many, 2, "--max-blocks");
}

#[test]
fn f2_a_minimum_above_its_maximum_is_refused_naming_both_flags() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ran.log");
    let run = tracer(&log);
    for (args, says) in [
        (
            &["--min-runs", "10", "--max-runs", "2"][..],
            "--min-runs 10 is above --max-runs 2",
        ),
        (
            &[
                "--until",
                "decided",
                "--min-blocks",
                "10",
                "--max-blocks",
                "8",
            ][..],
            "--min-blocks 10 is above --max-blocks 8",
        ),
    ] {
        let line = [&["compare", "--shell", "sh"][..], args, &[&run, &run]].concat();
        refused_with(&line, 2, says);
    }
    assert!(!log.exists(), "a refused experiment ran");
}

#[test]
fn f3_negative_durations_and_percentages_are_refused_by_their_flags() {
    let dir = tempfile::tempdir().unwrap();
    let raw = pilot(dir.path());
    let raw = raw.to_str().unwrap();
    let suite = dir.path().join("abba.toml");
    std::fs::write(
        &suite,
        "[variants]\nbase = \"1\"\nhead = \"2\"\n\n[[benchmark]]\nname = \"t\"\ncommand = \"true {variant}\"\n",
    )
    .unwrap();
    let suite = suite.to_str().unwrap();
    let cases: &[(&[&str], &str, &str)] = &[
        (&["compare", "true", "true"], "--timeout", "-5s"),
        (&["compare", "true", "true"], "--settle", "-1s"),
        (&["compare", "true", "true"], "--time-budget", "-1s"),
        (&["compare", "true", "true"], "--fail-if-slower", "-5%"),
        (&["compare", "true", "true"], "--equivalence-margin", "-1%"),
        (&["compare", "true", "true"], "--alpha", "-5%"),
        (&["compare", "true", "true"], "--confidence", "-5%"),
        (&["analyze", raw], "--fail-if-slower", "-5%"),
        (&["analyze", raw], "--equivalence-margin", "-1%"),
        (&["plan", raw], "--time", "-1s"),
        (&["plan", raw], "--effect", "-5%"),
        (&["plan", raw], "--power", "-5%"),
        (&["plan", raw], "--equivalence-margin", "-1%"),
        (&["suite", suite], "--timeout", "-5s"),
        (&["suite", suite], "--alpha", "-5%"),
        (&["suite", suite], "--equivalence-margin", "-1%"),
        (&["history", "check"], "--fail-if-slower", "-5%"),
    ];
    for (command, flag, value) in cases {
        let line = [*command, &[*flag, *value][..]].concat();
        let err = refused_with(&line, 2, &format!("'{value}' for '{flag} "));
        assert!(
            !err.contains("unexpected argument"),
            "{flag} {value}: {err}"
        );
    }
}

#[test]
fn f4_configuration_errors_name_the_flags_at_fault() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ran.log");
    let run = tracer(&log);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--until", "decided", "--design", "sequential", &run, &run],
            "--until decided needs a blocked design: --design sequential",
        ),
        (
            vec!["--until", "decided", &run, &run, &run],
            "--until decided compares two variants; 3 were given",
        ),
        (
            vec![
                "-n",
                "reference",
                "-n",
                "b",
                "--reference",
                &run,
                &run,
                &run,
            ],
            "-n/--name reference: with --reference, the name 'reference' is kept",
        ),
        (
            vec!["--alpha", "1e-300", &run, &run],
            "--alpha 1e-300: must be at least 1e-6",
        ),
        (
            vec!["--until", "decided", "--max-blocks", "3", &run, &run],
            "--max-blocks 3 is below the 7 blocks --until decided needs at least (the default --min-blocks",
        ),
    ];
    for (args, says) in cases {
        let err = refused_with(
            &[&["compare", "--shell", "sh"][..], &args].concat(),
            2,
            says,
        );
        assert!(!err.contains("invalid experiment configuration"), "{err}");
        assert!(!err.contains("--confidence"), "{err}");
        assert!(!err.contains("--min-blocks 7 is above"), "{err}");
    }
    assert!(!log.exists(), "a refused experiment ran");
    let plan = ["plan", "--profile", "quiet", "--alpha", "1e-300"];
    refused_with(&plan, 2, "--alpha 1e-300");
}

#[test]
fn f5_an_unparsable_command_is_quoted_for_humans() {
    let err = refused_with(
        &["compare", "true \"unterminated", "true"],
        2,
        "cannot parse command 'true \"unterminated': a quote is opened but never closed",
    );
    assert!(!err.contains("\\\""), "{err}");
}

#[test]
fn f6_one_block_is_singular_and_levels_have_no_needless_decimals() {
    let assert = abba()
        .args(["compare", "--runs", "2", "true", "true"])
        .assert();
    let err = stderr_of(&assert);
    assert!(err.contains("1 block of 2 runs per variant"), "{err}");
    assert!(!err.contains("1 blocks"), "{err}");
    let assert = abba()
        .args(["compare", "--blocks", "1", "true", "true"])
        .assert();
    let err = stderr_of(&assert);
    assert!(err.contains("1 block is too few for a verdict"), "{err}");
    assert!(!err.contains("1 blocks"), "{err}");

    // A suite of three benchmarks: levels corrected for three comparisons.
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("abba.toml");
    let mut text = String::from(
        "[variants]\nbase = \"1\"\nhead = \"2\"\n\n[settings]\nblocks = 8\nwarmup = 0\n",
    );
    for name in ["a", "b", "c"] {
        text +=
            &format!("\n[[benchmark]]\nname = \"{name}\"\ncommand = \"true {name} {{variant}}\"\n");
    }
    std::fs::write(&suite, text).unwrap();
    let assert = abba()
        .arg("suite")
        .arg(&suite)
        .args(["-q", "--seed", "3", "-o"])
        .arg(dir.path().join("runs.jsonl"))
        .env("COLUMNS", "200")
        .assert();
    let out = stdout_of(&assert);
    // Benjamini-Hochberg over three: 1 - alpha/3 (98.3%) with nothing significant, 96.7%
    // or 95.0% when real timings of `true` (an A/A run on a loaded machine) let one or
    // more comparisons through at alpha; always one decimal.
    assert!(
        ["98.3%", "96.7%", "95.0%"].iter().any(|l| out.contains(l)),
        "{out}"
    );
    assert!(!out.contains(".000%"), "{out}");
    assert!(!out.contains(".000 %"), "{out}");
}

#[test]
fn f7_plan_and_the_dry_run_schedule_wrap_to_the_width() {
    let dir = tempfile::tempdir().unwrap();
    let raw = pilot(dir.path());
    for columns in ["80", "100"] {
        let width: usize = columns.parse().unwrap();
        let assert = abba()
            .arg("plan")
            .arg(&raw)
            .env("COLUMNS", columns)
            .assert()
            .success();
        let out = stdout_of(&assert);
        for line in out.lines() {
            assert!(line.chars().count() <= width, "{width}: {line}");
        }
        let assert = abba()
            .args([
                "compare",
                "--dry-run",
                "--runs-per-block",
                "8",
                "--seed",
                "2",
            ])
            .args(["sleep 0.001 && true", "sleep 0.002 && true"])
            .args(["--shell", "sh"])
            .env("COLUMNS", columns)
            .assert()
            .success();
        let out = stdout_of(&assert);
        assert!(out.contains("block 1: "), "{out}");
        for line in out.lines() {
            assert!(line.chars().count() <= width, "{width}: {line}");
        }
        // Wrapped at run boundaries: every run's command stays whole on its line.
        let runs: usize = out
            .lines()
            .filter(|l| !l.starts_with("seed"))
            .map(|l| l.matches("sleep 0.00").count())
            .sum();
        assert_eq!(runs, out.matches("sleep 0.00").count());
        assert!(out.lines().any(|l| l.starts_with("         ")), "{out}");
    }
}
