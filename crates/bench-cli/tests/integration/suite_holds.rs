//! `abba suite` holds against its attacks (issue 38), through the binary: the job summary
//! is checked as every export is and written once; a suite file of binary or endless data
//! is refused at once; a plan that cannot decide is refused, and one with too few blocks
//! warns and fails its gate; `--cross-class` keeps to what its one table can give; a
//! benchmark failing every run costs the others nothing; a signal during the analysis ends
//! abba at once; a count metric, a missing program and a mismatched resume are refused
//! before anything runs, `--dry-run` included; a complete file is resumed without a line
//! added; and a lock left by a dying writer is waited for.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::Value;

// The binary as the history tests run it (no history or CI variable of the caller's), and
// the suite of one benchmark whose runs append to `ran.log`.
use super::faults_attack::kill;
use super::faults_suite::{nothing_ran, suite};
use super::support::{abba_in as abba, run, text};

/// abba in `dir` with `$GITHUB_STEP_SUMMARY` set to `summary`.
fn with_summary(dir: &Path, summary: &Path, args: &[&str]) -> Output {
    abba(dir)
        .env("GITHUB_STEP_SUMMARY", summary)
        .args(args)
        .output()
        .unwrap()
}

/// Expects exit 2 with `says` in stderr.
fn refused(out: &Output, says: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(says), "{says:?} not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A suite of two benchmarks in `dir`/`name`: `good` (`true`) and `bad`, whose `head`
/// exits 1 on every run.
fn failing_suite(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        "[variants]\nbase = \"0\"\nhead = \"1\"\n\n[settings]\nshell = \"sh\"\nwarmup = 0\n\n[[benchmark]]\nname = \"good\"\ncommand = \"true {variant}\"\n\n[[benchmark]]\nname = \"bad\"\ncommand = \"exit {variant}\"\n",
    )
    .unwrap();
    path
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn the_step_summary_is_checked_as_an_export_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "abba.toml", "warmup = 0", "");
    let toml_before = std::fs::read(d.join("abba.toml")).unwrap();
    // The suite file, the raw --output, an export replacing it, a directory, a missing
    // directory: each refused naming $GITHUB_STEP_SUMMARY, nothing run, nothing written.
    let out = with_summary(d, &d.join("abba.toml"), &["suite", "-q", "--blocks", "2"]);
    refused(&out, "$GITHUB_STEP_SUMMARY");
    refused(&out, "is the same file as the suite file");
    assert_eq!(std::fs::read(d.join("abba.toml")).unwrap(), toml_before);
    std::fs::write(d.join("runs.jsonl"), "").unwrap();
    let out = with_summary(
        d,
        &d.join("./runs.jsonl"),
        &[
            "suite",
            "-q",
            "--blocks",
            "2",
            "--force",
            "-o",
            "runs.jsonl",
        ],
    );
    refused(&out, "is the same file as the raw runs' file --output");
    std::fs::write(d.join("s.md"), "earlier step\n").unwrap();
    for args in [
        &["suite", "-q", "--blocks", "2", "--export-markdown", "s.md"][..],
        &["suite", "-q", "--blocks", "2", "--export-json", "./s.md"][..],
        &[
            "suite",
            "-q",
            "--blocks",
            "2",
            "--dry-run",
            "--export-pr-comment",
            "s.md",
        ][..],
    ] {
        let out = with_summary(d, &d.join("s.md"), args);
        refused(&out, "would replace what earlier steps wrote there");
        assert_eq!(
            std::fs::read_to_string(d.join("s.md")).unwrap(),
            "earlier step\n"
        );
    }
    std::fs::create_dir(d.join("sub")).unwrap();
    let out = with_summary(d, &d.join("sub"), &["suite", "-q", "--blocks", "2"]);
    refused(&out, "is a directory");
    let out = with_summary(
        d,
        &d.join("no/such/s.md"),
        &["suite", "-q", "--blocks", "2"],
    );
    refused(&out, "the directory");
    refused(&out, "does not exist");
    nothing_ran(d);
    // compare's raw file and analyze's input alike.
    let out = with_summary(
        d,
        &d.join("c.jsonl"),
        &[
            "compare", "-q", "--blocks", "2", "-o", "c.jsonl", "true", "true",
        ],
    );
    refused(&out, "is the same file as --output");
    assert!(!d.join("c.jsonl").exists());
    let input = d.join("in.jsonl");
    std::fs::copy(fixture("raw_two.jsonl"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let out = with_summary(d, &input, &["analyze", "in.jsonl"]);
    refused(&out, "is the same file as the input");
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

#[test]
fn the_readme_idiom_appends_the_report_to_the_step_summary_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "abba.toml", "warmup = 0", "");
    std::fs::copy(fixture("raw_two.jsonl"), d.join("in.jsonl")).unwrap();
    let summary = d.join("s.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let appending = || {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&summary)
            .unwrap()
    };
    // `--export-markdown /dev/stdout >> "$GITHUB_STEP_SUMMARY"` under GitHub Actions.
    let out = abba(d)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["analyze", "in.jsonl", "--export-markdown", "/dev/stdout"])
        .stdout(Stdio::from(appending()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = std::fs::read_to_string(&summary).unwrap();
    assert!(after.starts_with("earlier step\n"), "{after}");
    assert_eq!(
        after.matches("## abba benchmark report").count(),
        1,
        "{after}"
    );
    let out = abba(d)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["suite", "-q", "--blocks", "2", "--export-markdown", "-"])
        .stdout(Stdio::from(appending()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = std::fs::read_to_string(&summary).unwrap();
    assert!(after.starts_with("earlier step\n"), "{after}");
    assert_eq!(after.matches("## abba suite").count(), 1, "{after}");
    // Without the idiom abba appends its report itself, once, keeping the rest.
    let out = with_summary(d, &summary, &["suite", "-q", "--blocks", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = std::fs::read_to_string(&summary).unwrap();
    assert!(after.starts_with("earlier step\n"), "{after}");
    assert_eq!(after.matches("## abba suite").count(), 2, "{after}");
    assert_eq!(after.matches("## abba benchmark report").count(), 1);
}

#[test]
fn a_suite_file_of_binary_or_endless_data_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["suite", "/dev/zero", "--dry-run"]);
    refused(&out, "/dev/zero: binary data (a NUL byte at byte 1)");
    // `yes 'x = 1' | abba suite /dev/stdin`: refused at its bound, the writer cut off.
    let mut child = abba(dir.path())
        .args(["suite", "/dev/stdin", "--dry-run"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = b"x = 1\n".repeat(10_000);
        while stdin.write_all(&line).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    refused(&out, "longer than 16 MiB: not a suite file");
}

#[test]
fn a_sequence_that_could_never_decide_is_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("ran.log");
    let cmd = format!("sh -c 'echo x >> {}'", log.display());
    let out = run(
        d,
        &[
            "compare",
            "-q",
            "--until",
            "decided",
            "--min-blocks",
            "2",
            "--max-blocks",
            "5",
            "--fail-if-slower",
            "2%",
            &cmd,
            &cmd,
        ],
    );
    refused(
        &out,
        "--max-blocks 5: the sequence of --until decided cannot decide before 7 blocks at alpha 0.05",
    );
    nothing_ran(d);
    // At its minimum it runs.
    let out = run(
        d,
        &[
            "compare",
            "-q",
            "--until",
            "decided",
            "--min-blocks",
            "2",
            "--max-blocks",
            "7",
            "--dry-run",
            &cmd,
            &cmd,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_suite_with_too_few_blocks_warns_before_the_runs_and_its_gate_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "abba.toml", "warmup = 0", "");
    let out = run(
        d,
        &[
            "suite",
            "--blocks",
            "3",
            "--dry-run",
            "--fail-if-slower",
            "2%",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("3 blocks are too few for a verdict: the paired test needs at least 6 blocks at alpha 0.05 (--blocks 6)"),
        "{err}"
    );
    assert!(
        err.contains("--fail-if-slower then fails (exit 1)"),
        "{err}"
    );
    nothing_ran(d);
    let out = run(
        d,
        &["suite", "-q", "--blocks", "3", "--fail-if-slower", "2%"],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("abba: gate: a: --fail-if-slower 2% cannot decide"),
        "{err}"
    );
    // Enough blocks: no warning.
    let out = run(d, &["suite", "--blocks", "6", "--dry-run"]);
    assert!(
        !text(&out.stderr).contains("too few"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn cross_class_refuses_the_per_benchmark_gate_and_ci_documents_and_writes_its_own_exports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "abba.toml", "warmup = 0", "");
    std::fs::write(d.join("comment.md"), "stale\n").unwrap();
    for (flag, value) in [
        ("--fail-if-slower", "5%"),
        ("--export-pr-comment", "comment.md"),
        ("--export-bmf", "b.json"),
        ("--export-github-benchmark", "g.json"),
    ] {
        let out = run(
            d,
            &["suite", "-q", "--blocks", "2", "--cross-class", flag, value],
        );
        refused(&out, "'--cross-class' cannot be used with");
        refused(&out, flag);
    }
    nothing_ran(d);
    let summary = d.join("s.md");
    let out = with_summary(
        d,
        &summary,
        &[
            "suite",
            "-q",
            "--blocks",
            "2",
            "--cross-class",
            "--export-json",
            "x.json",
            "--export-markdown",
            "x.md",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("x.json")).unwrap()).unwrap();
    assert!(json["groups"].is_array(), "{json}");
    let md = std::fs::read_to_string(d.join("x.md")).unwrap();
    assert!(md.contains("## abba benchmark report"), "{md}");
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap().trim_end(),
        md.trim_end()
    );
}

#[test]
fn one_benchmark_failing_every_run_costs_the_others_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    failing_suite(d, "abba.toml");
    let out = run(
        d,
        &[
            "suite",
            "--blocks",
            "6",
            "--ignore-failure",
            "-o",
            "runs.jsonl",
            "--export-json",
            "s.json",
            "--export-markdown",
            "s.md",
            "--export-pr-comment",
            "c.md",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    // The variant that failed is blamed, not the one that ran.
    assert!(
        err.contains("benchmark bad: variant bad/head failed 12 of its 12 runs"),
        "{err}"
    );
    assert!(!err.contains("variant bad/base"), "{err}");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("good "), "{stdout}");
    assert!(
        stdout.contains("Not compared (failed): bad (head: 12 of 12 runs failed)."),
        "{stdout}"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    let names: Vec<&str> = json["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["good"]);
    assert_eq!(json["failed"][0]["name"], "bad");
    assert_eq!(json["failed"][0]["variants"][0]["name"], "bad/head");
    assert_eq!(json["failed"][0]["variants"][0]["failed"], 12);
    for file in ["s.md", "c.md"] {
        let md = std::fs::read_to_string(d.join(file)).unwrap();
        assert!(md.contains("| good |"), "{md}");
        assert!(md.contains("bad (head: 12 of 12 runs failed)"), "{md}");
    }
    // Every run is kept, the failed ones included.
    let runs = std::fs::read_to_string(d.join("runs.jsonl")).unwrap();
    assert_eq!(
        runs.lines().filter(|l| l.contains("\"benchmark\"")).count(),
        48
    );
}

#[test]
fn a_signal_during_the_suite_analysis_ends_abba_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("abba.toml"),
        "[variants]\nbase = \"a\"\nhead = \"b\"\n\n[settings]\nwarmup = 0\n\n[[benchmark]]\nname = \"t\"\ncommand = \"true {variant}\"\n",
    )
    .unwrap();
    let raw = d.join("runs.jsonl");
    // 200 blocks of `true`, analysed with 100000 block-bootstrap resamples: the analysis
    // takes seconds, the runs well under that.
    let child = abba(d)
        .args([
            "suite",
            "-q",
            "--blocks",
            "200",
            "--resamples",
            "100000",
            "-o",
        ])
        .arg(&raw)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let ended = || {
        std::fs::read_to_string(&raw).is_ok_and(|t| t.lines().any(|l| l.starts_with("{\"end\"")))
    };
    while !ended() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    kill("TERM", child.id());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert!(err.contains("during the analysis"), "{err}");
    assert!(err.contains("the raw runs are complete in"), "{err}");
}

#[test]
fn a_count_metric_in_a_suite_is_refused_before_running_naming_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "own.toml", "", "metric = \"instructions\"");
    let out = run(d, &["suite", "own.toml", "--blocks", "2"]);
    refused(&out, "own.toml:11:10: metric: \"instructions\" is a count");
    refused(
        &out,
        "a suite measures wall, user, sys, cpu, max-rss or json:FIELD",
    );
    suite(d, "settings.toml", "metric = \"cycles\"", "");
    let out = run(d, &["suite", "settings.toml", "--blocks", "2", "--dry-run"]);
    refused(
        &out,
        "settings.toml: settings.metric: \"cycles\" is a count",
    );
    let out = run(d, &["suite", "settings.toml", "--metric", "instructions"]);
    refused(&out, "--metric: \"instructions\" is a count");
    // An unknown metric lists what a suite accepts, no count among them.
    let out = run(d, &["suite", "settings.toml", "--metric", "speed"]);
    refused(
        &out,
        "unknown metric \"speed\"; a suite measures wall, user",
    );
    assert!(!text(&out.stderr).contains("instructions"));
    nothing_ran(d);
}

#[test]
fn dry_run_refuses_what_the_real_suite_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("missing.toml"),
        "[variants]\nbase = \"a\"\nhead = \"b\"\n\n[[benchmark]]\nname = \"m\"\ncommand = \"./no-such-program {variant}\"\n",
    )
    .unwrap();
    for dry in [true, false] {
        let mut args = vec!["suite", "missing.toml", "--blocks", "2"];
        args.extend(dry.then_some("--dry-run"));
        refused(&run(d, &args), "\"./no-such-program\"");
    }
    // A stopped suite (its first block only), resumed with another warm-up or seed.
    suite(d, "abba.toml", "warmup = 0", "");
    let out = run(
        d,
        &[
            "suite",
            "-q",
            "--blocks",
            "2",
            "--seed",
            "5",
            "-o",
            "full.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let full = std::fs::read_to_string(d.join("full.jsonl")).unwrap();
    let first_block: Vec<&str> = full.lines().take(5).collect();
    std::fs::write(d.join("part.jsonl"), first_block.join("\n") + "\n").unwrap();
    std::fs::remove_file(d.join("ran.log")).unwrap();
    let before = std::fs::read(d.join("part.jsonl")).unwrap();
    for dry in [true, false] {
        let mut args = vec!["suite", "-q", "--resume", "part.jsonl", "--warmup", "3"];
        args.extend(dry.then_some("--dry-run"));
        refused(&run(d, &args), "warmup differs");
        let mut args = vec!["suite", "-q", "--resume", "part.jsonl", "--seed", "6"];
        args.extend(dry.then_some("--dry-run"));
        refused(
            &run(d, &args),
            "--seed 6 with --resume part.jsonl: the file's suite was planned with seed 5",
        );
        let mut args = vec!["suite", "-q", "--blocks", "2", "-o", "full.jsonl"];
        args.extend(dry.then_some("--dry-run"));
        refused(&run(d, &args), "--output full.jsonl: the file exists");
    }
    assert_eq!(std::fs::read(d.join("part.jsonl")).unwrap(), before);
    nothing_ran(d);
    // The file's own seed given again is no change.
    let out = run(d, &["suite", "-q", "--resume", "part.jsonl", "--seed", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_github_benchmark_export_of_mixed_directions_is_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(
        d,
        "abba.toml",
        "warmup = 0",
        "higher-is-better = true\n\n[[benchmark]]\nname = \"b\"\ncommand = \"true {variant}\"\n",
    );
    let out = run(
        d,
        &[
            "suite",
            "-q",
            "--blocks",
            "2",
            "--export-github-benchmark",
            "g.json",
        ],
    );
    refused(
        &out,
        "--export-github-benchmark g.json: the suite mixes lower-is-better and higher-is-better benchmarks, and github-action-benchmark reads one direction per file",
    );
    nothing_ran(d);
    assert!(!d.join("g.json").exists());
}

#[test]
fn resuming_a_complete_suite_adds_no_line_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "abba.toml", "warmup = 0", "");
    let out = run(d, &["suite", "-q", "--blocks", "2", "-o", "runs.jsonl"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before = std::fs::read(d.join("runs.jsonl")).unwrap();
    let runs_before = std::fs::read_to_string(d.join("ran.log")).unwrap();
    let out = run(d, &["suite", "--resume", "runs.jsonl"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("--resume runs.jsonl: the suite is complete (every planned run is in the file); nothing runs"),
        "{err}"
    );
    assert!(
        text(&out.stdout).contains("benchmark "),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(std::fs::read(d.join("runs.jsonl")).unwrap(), before);
    assert_eq!(
        std::fs::read_to_string(d.join("ran.log")).unwrap(),
        runs_before
    );
}

#[test]
fn a_resume_waits_for_a_lock_whose_holder_is_dying() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    suite(d, "abba.toml", "warmup = 0", "");
    let out = run(
        d,
        &[
            "suite",
            "-q",
            "--blocks",
            "2",
            "--seed",
            "5",
            "-o",
            "full.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let full = std::fs::read_to_string(d.join("full.jsonl")).unwrap();
    let first_block: Vec<&str> = full.lines().take(5).collect();
    std::fs::write(d.join("part.jsonl"), first_block.join("\n") + "\n").unwrap();
    // As after a SIGKILL: the process that took the lock is gone, and a copy of its
    // descriptor still lives a moment (a child between fork and exec, or the kernel's
    // teardown of the killed process).
    let held = std::process::Command::new("sh")
        .current_dir(d)
        .args([
            "-c",
            "exec 9>>part.jsonl; flock -x 9; (sleep 1; true) & exit 0",
        ])
        .status()
        .unwrap();
    assert!(held.success());
    let out = run(d, &["suite", "-q", "--resume", "part.jsonl"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let resumed = std::fs::read_to_string(d.join("part.jsonl")).unwrap();
    assert!(
        resumed.lines().last().unwrap().contains("\"complete\""),
        "{resumed}"
    );
    // A holder alive is refused at once.
    let mut alive = std::process::Command::new("flock")
        .current_dir(d)
        .args(["-x", "full.jsonl", "sleep", "30"])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string("/proc/locks")
        .unwrap()
        .contains(&format!(" {} ", alive.id()))
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = run(
        d,
        &["suite", "-q", "--blocks", "4", "--resume", "full.jsonl"],
    );
    let _ = alive.kill();
    let _ = alive.wait();
    refused(&out, "its lock is held");
}
