//! The attacks of issue 26, end to end through the binary: an export never replaces the
//! raw runs, an input or another export; `-` and `/dev/stdout` are written in place; a
//! resume keeps what it measures again; counts, spools, lines and stopped children are
//! bounded; exit codes say what happened.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn abba_std() -> StdCommand {
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("abba"));
    cmd.env("NO_COLOR", "1");
    cmd
}

/// A finished raw file of two quick variants.
fn finished(dir: &Path, name: &str) -> PathBuf {
    let raw = dir.join(name);
    abba()
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "-q", "--seed", "1",
        ])
        .arg("-o")
        .arg(&raw)
        .args(["true", "true"])
        .assert()
        .success();
    raw
}

fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn d1_an_export_to_the_raw_file_under_any_name_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let log = dir.path().join("ran.log");
    let run = format!("echo x >> {}", log.display());
    let spellings = [
        raw.clone(),
        dir.path().join(".").join("runs.jsonl"),
        dir.path().join("sub").join("..").join("runs.jsonl"),
    ];
    for flag in [
        "--export-json",
        "--export-markdown",
        "--export-html",
        "--export-csv",
        "--export-csv-summary",
    ] {
        for spelling in &spellings {
            abba()
                .args(["compare", "--blocks", "3", "-q", "--shell", "sh", "-o"])
                .arg(&raw)
                .arg(flag)
                .arg(spelling)
                .args([&run, &run])
                .assert()
                .code(2)
                .stderr(predicate::str::contains(format!(
                    "{flag} {} is the same file as --output",
                    spelling.display()
                )));
        }
    }
    assert!(!log.exists(), "a refused experiment ran a command");
    assert!(!raw.exists(), "a refused experiment created its raw file");
}

#[test]
fn d1_analyze_and_resume_refuse_an_export_over_their_file_its_links_included() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let before = std::fs::read(&raw).unwrap();
    let hard = dir.path().join("hard.md");
    std::fs::hard_link(&raw, &hard).unwrap();
    let soft = dir.path().join("soft.md");
    std::os::unix::fs::symlink(&raw, &soft).unwrap();
    for target in [&raw, &hard, &soft] {
        abba()
            .arg("analyze")
            .arg(&raw)
            .arg("--export-markdown")
            .arg(target)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is the same file as the input"));
    }
    abba()
        .args(["compare", "--resume"])
        .arg(&raw)
        .args(["--blocks", "3", "--export-json"])
        .arg(&soft)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is the same file as --resume"));
    assert_eq!(std::fs::read(&raw).unwrap(), before, "the raw file changed");
}

#[test]
fn m20_two_exports_to_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let out = dir.path().join("out.txt");
    abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--export-json")
        .arg(&out)
        .arg("--export-markdown")
        .arg(dir.path().join(".").join("out.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--export-json and --export-markdown name the same file",
        ));
    assert!(!out.exists());
    abba()
        .arg("analyze")
        .arg(&raw)
        .args(["--export-json", "-", "--export-csv-summary", "/dev/stdout"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("both would go to standard output"));
    abba()
        .arg("analyze")
        .arg(&raw)
        .args(["--json", "--export-markdown", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("where --json prints the analysis"));
}

#[test]
fn d2_dev_stdout_appended_by_the_shell_keeps_what_the_file_held() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "# step 1\n").unwrap();
    // `>> summary.md`: stdout opened for appending.
    let appended = OpenOptions::new().append(true).open(&summary).unwrap();
    let status = abba_std()
        .arg("analyze")
        .arg(&raw)
        .args(["--export-markdown", "/dev/stdout"])
        .stdout(appended)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // The same export to a file: the summary holds its step 1 and exactly that (the
    // console report went to stderr).
    let file = dir.path().join("report.md");
    abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--export-markdown")
        .arg(&file)
        .assert()
        .success();
    let report = std::fs::read_to_string(&file).unwrap();
    assert!(report.contains("abba benchmark report"));
    let text = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(text, format!("# step 1\n{report}"));
}

#[test]
fn d2_dash_and_dev_stdout_write_every_export_to_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    for (flag, start) in [
        ("--export-json", "{"),
        ("--export-markdown", "## abba"),
        ("--export-html", "<!DOCTYPE html>"),
        ("--export-csv", "block,position"),
        ("--export-csv-summary", "class,name"),
    ] {
        for path in ["-", "/dev/stdout"] {
            let out = abba()
                .current_dir(dir.path())
                .arg("analyze")
                .arg(&raw)
                .args([flag, path])
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            let text = String::from_utf8_lossy(&out);
            assert!(text.starts_with(start), "{flag} {path}: {text:.80}");
        }
    }
    assert!(!dir.path().join("-").exists(), "a file named - was written");
    abba()
        .arg("analyze")
        .arg(&raw)
        .args(["--export-svg", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("need a directory"));
}

/// A raw file whose experiment stopped in block 2 after one run of it: the 6th run
/// signals abba (`kill -SIGNAL $PPID`, once), so blocks 1 and the first run of block 2
/// are in the file.
fn stopped_in_block_two(dir: &Path, signal: &str) -> (PathBuf, [String; 2]) {
    let raw = dir.join("runs.jsonl");
    let log = dir.join("count.log");
    let cmd = |v: &str| {
        format!(
            "echo {v} >> {log}; [ $(wc -l < {log}) -eq 6 ] && kill -{signal} $PPID; true",
            log = log.display()
        )
    };
    let commands = [cmd("a"), cmd("b")];
    let status = abba_std()
        .args([
            "compare", "--blocks", "3", "--warmup", "0", "-q", "--seed", "4",
        ])
        .args(["--shell", "sh", "-n", "a", "-n", "b", "-o"])
        .arg(&raw)
        .args(&commands)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success());
    (raw, commands)
}

fn resume_keeps_the_unfinished_block(signal: &str, status: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (raw, _) = stopped_in_block_two(dir.path(), signal);
    let before = json_lines(&raw);
    assert_eq!(before.iter().filter(|l| l.get("run").is_some()).count(), 5);
    abba()
        .args(["compare", "--resume"])
        .arg(&raw)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "block 2 was unfinished; its 1 run(s) are kept in the file",
        ));
    let after = json_lines(&raw);
    let ends: Vec<&Value> = after.iter().filter_map(|l| l.get("end")).collect();
    assert_eq!(ends.len(), 2, "{after:?}");
    assert_eq!(ends[0]["status"], status);
    let superseded = ends[0]["superseded"].as_array().unwrap();
    assert_eq!(superseded.len(), 1);
    assert_eq!(
        superseded[0], before[5],
        "the unfinished block's run changed"
    );
    assert_eq!(ends[1]["status"], "complete");
    assert_eq!(after.iter().filter(|l| l.get("run").is_some()).count(), 12);
    abba()
        .arg("analyze")
        .arg(&raw)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 run(s) of unfinished block 2 were measured again",
        ));
}

#[test]
fn d3_resume_after_sigterm_keeps_the_partial_block_and_the_interrupted_end_line() {
    resume_keeps_the_unfinished_block("TERM", "interrupted");
}

#[test]
fn d3_resume_after_sigkill_keeps_the_partial_block_with_a_killed_end_line() {
    resume_keeps_the_unfinished_block("KILL", "killed");
}
