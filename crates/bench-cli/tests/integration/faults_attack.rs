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

#[test]
fn c1_h1_h2_w3_every_count_flag_is_bounded_with_exit_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("never.jsonl");
    for args in [
        &["--blocks", "4294967295"][..],
        &["--dry-run", "--blocks", "1000000000"],
        &["--runs", "4294967295"],
        &["--runs", "0"],
        &["--warmup", "4000000000"],
        &["--warmup-per-block", "4000000000"],
        &["--runs-per-block", "4000000000"],
        &["--until", "decided", "--max-blocks", "4294967295"],
        &["--resamples", "1000000000"],
        &["--min-runs", "4294967295"],
    ] {
        abba()
            .args(["compare", "-q", "-o"])
            .arg(&raw)
            .args(args)
            .args(["true", "true"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(args[args.len() - 1]));
        assert!(!raw.exists(), "{args:?} left a file");
    }
    // Each count within its bound, but their product beyond the schedule's.
    abba()
        .args(["compare", "-q", "--dry-run", "--blocks", "100000"])
        .args(["--runs-per-block", "20", "true", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "more than the 1000000 one experiment may schedule",
        ));
    abba()
        .args(["plan", "--profile", "quiet", "--blocks", "4294967295"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("4294967295"));
    abba()
        .args(["compare", "-q", "--time-budget", "0s", "true", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--time-budget must be longer than 0",
        ));
}

#[test]
fn w4_dry_run_refuses_what_the_real_run_refuses() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args(["compare", "--dry-run", "true", "no-such-program-abba"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-program-abba"));
    let raw = finished(dir.path(), "runs.jsonl");
    abba()
        .args(["compare", "--dry-run", "--blocks", "2", "-o"])
        .arg(&raw)
        .args(["true", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the file exists"));
    abba()
        .args(["compare", "--dry-run", "--resume"])
        .arg(&raw)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to resume"));
}

#[test]
fn k7_h5_an_output_that_is_a_directory_device_or_pipe_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args(["compare", "-q", "-o"])
        .arg(dir.path())
        .args(["true", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
    abba()
        .args(["compare", "-q", "-o", "/dev/null", "true", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a regular file"));
    let fifo = dir.path().join("fifo");
    assert!(
        StdCommand::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // Opening a FIFO would wait for a reader forever: refused without opening it.
    abba()
        .args(["compare", "-q", "--force", "-o"])
        .arg(&fifo)
        .args(["true", "true"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a regular file"));
}

#[test]
fn w1_resume_refuses_a_changed_direction_unit_experiment_or_host() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let before = std::fs::read(&raw).unwrap();
    for (args, named) in [
        (&["--higher-is-better"][..], "--higher-is-better differs"),
        (&["--unit", "ms"], "--unit differs"),
        (&["--experiment", "other"], "--experiment differs"),
        (&["--host", "elsewhere"], "--host differs"),
    ] {
        abba()
            .args(["compare", "-q", "--blocks", "3", "--resume"])
            .arg(&raw)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(named));
    }
    assert_eq!(std::fs::read(&raw).unwrap(), before);
}

#[test]
fn w5_an_existing_confirm_file_is_refused_before_the_experiment_runs() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    std::fs::write(dir.path().join("runs.confirm.jsonl"), "earlier").unwrap();
    let log = dir.path().join("ran.log");
    let run = format!("echo x >> {}", log.display());
    abba()
        .args(["compare", "-q", "--confirm", "--shell", "sh", "-o"])
        .arg(&raw)
        .args([&run, &run, &run])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("runs.confirm.jsonl exists"));
    assert!(!log.exists() && !raw.exists());
}

/// Sends `signal` to `pid` with kill(1).
pub(super) fn kill(signal: &str, pid: u32) {
    assert!(
        StdCommand::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
}

#[test]
fn w6_sighup_stops_the_experiment_as_sigterm_does() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("hup.jsonl");
    let child = abba_std()
        .args(["compare", "--blocks", "50", "--warmup", "0", "-q", "-o"])
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.05"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while json_lines_so_far(&raw) < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    kill("HUP", child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(129));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("abba compare --resume"), "{stderr}");
    let last = json_lines(&raw).pop().unwrap();
    assert_eq!(last["end"]["status"], "interrupted");
}

/// Complete lines in `path` so far (0 when it does not exist yet).
fn json_lines_so_far(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.matches('\n').count())
        .unwrap_or(0)
}

#[test]
fn w2_a_signal_during_the_analysis_ends_abba_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("slow.jsonl");
    // 200 blocks of `true`, analysed with 100000 block-bootstrap resamples: the analysis
    // takes seconds, the runs well under that.
    let child = abba_std()
        .args([
            "compare", "--blocks", "200", "--warmup", "0", "-q", "--seed", "2",
        ])
        .args([
            "--resamples",
            "100000",
            "--estimator",
            "pooled-median-ratio",
            "-o",
        ])
        .arg(&raw)
        .args(["true", "true"])
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
    assert_eq!(out.status.code(), Some(143));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("during the analysis"), "{stderr}");
    assert!(stderr.contains("the raw runs are complete in"), "{stderr}");
}

#[test]
fn m7_m8_suggested_commands_are_shell_quoted_and_a_running_file_is_not_offered_for_resume() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("my runs;x.jsonl");
    let child = abba_std()
        .args(["compare", "--blocks", "50", "--warmup", "0", "-q", "-o"])
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.05"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while json_lines_so_far(&raw) < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    abba()
        .args(["compare", "-q", "--blocks", "50", "-o"])
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.05"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "another abba is writing this file now",
        ))
        .stderr(predicate::str::contains("--resume").not());
    kill("INT", child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let hint = stderr
        .split("continue with: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{stderr}"))
        .trim();
    // The hint, run by a shell, names the file.
    let words = shell_words::split(hint).unwrap();
    assert_eq!(
        words,
        ["abba", "compare", "--resume", &raw.display().to_string()]
    );
}

#[test]
fn m17_a_failure_before_any_run_leaves_no_empty_raw_file() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    abba()
        .args(["compare", "-q", "--setup", "false", "-o"])
        .arg(&raw)
        .args(["true", "true"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "no run was measured, so no raw file is kept",
        ))
        .stderr(predicate::str::contains("kept in").not());
    assert!(!raw.exists());
}

#[test]
fn m18_a_raw_file_removed_while_abba_runs_is_not_called_kept() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // The commands remove the working directory (the raw file with it), then fail.
    let gone = format!("rm -rf {}; false", work.display());
    abba()
        .current_dir(&work)
        .args([
            "compare",
            "-q",
            "--warmup",
            "0",
            "--shell",
            "sh",
            "-o",
            "runs.jsonl",
        ])
        .args([&gone, &gone])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("no longer exists"))
        .stderr(predicate::str::contains("kept in").not());
}

#[test]
fn k12_a_missing_hook_program_is_named_as_the_hook() {
    abba()
        .args([
            "compare",
            "-q",
            "--prepare",
            "no-such-hook-abba",
            "true",
            "true",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "program \"no-such-hook-abba\" (variant true, its prepare hook) was not found",
        ));
}

/// Whether process `pid` is still running (a zombie counts as ended).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// Waits (up to 10 s) until none of `pids` runs; `false` when one still does.
fn all_end(pids: &[u32]) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while pids.iter().any(|&p| running(p)) {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

fn pids_in(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

#[test]
fn h3_a_flood_on_stdout_and_stderr_keeps_the_json_line_and_the_stderr_tail() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("flood.jsonl");
    // 3 MB on one stdout line (longer than any JSON line abba keeps), then the metric's
    // line, then 20 MB of stderr: the value and nothing else is kept.
    let flood = "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo '{\"v\": 7}'; \
                 head -c 20000000 /dev/zero >&2";
    abba()
        .env("TMPDIR", dir.path())
        .args([
            "compare", "--blocks", "1", "--warmup", "0", "-q", "--shell", "sh", "--metric",
            "json:v", "-o",
        ])
        .arg(&raw)
        .args([flood, flood])
        .assert()
        .success();
    let runs: Vec<Value> = json_lines(&raw)
        .into_iter()
        .filter(|l| l.get("run").is_some())
        .collect();
    assert_eq!(runs.len(), 4, "one ABBA block");
    assert!(runs.iter().all(|r| r["metric"] == 7.0), "{runs:?}");
    // The stderr tail of a flooding failure is its last words.
    abba()
        .env("TMPDIR", dir.path())
        .args([
            "compare", "--blocks", "1", "--warmup", "0", "-q", "--shell", "sh",
        ])
        .args([
            "--output",
            dir.path().join("fail.jsonl").to_str().unwrap(),
            "true",
            "head -c 20000000 /dev/zero >&2; echo LAST-WORDS >&2; exit 4",
        ])
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("LAST-WORDS").and(predicate::str::contains("exit code 4")),
        );
    // A flood that never ends is killed at its timeout and reported as timed out.
    abba()
        .args([
            "compare",
            "--blocks",
            "1",
            "--warmup",
            "0",
            "-q",
            "--metric",
            "json:v",
            "--timeout",
            "300ms",
            "--output",
        ])
        .arg(dir.path().join("yes.jsonl"))
        .args(["yes", "yes"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("timed out"));
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("abba-scratch"))
        .collect();
    assert!(left.is_empty(), "spool files left in TMPDIR: {left:?}");
}

#[test]
fn h6_a_command_that_stops_itself_is_killed_and_named_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args([
            "compare", "--blocks", "1", "--warmup", "0", "-q", "--shell", "sh", "-o",
        ])
        .arg(dir.path().join("stop.jsonl"))
        .args(["true", "kill -STOP $$"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("stopped by signal 19 (SIGSTOP)")
                .and(predicate::str::contains("abba killed it")),
        );
}

#[test]
fn m9_background_processes_of_a_run_end_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let cmd = format!("sleep 101 & echo $! >> {}; exit 0", pids.display());
    abba()
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "-q", "--shell", "sh", "-o",
        ])
        .arg(dir.path().join("bg.jsonl"))
        .args([&cmd, &cmd])
        .assert()
        .success();
    let started = pids_in(&pids);
    assert_eq!(started.len(), 8, "two ABBA blocks");
    assert!(all_end(&started), "a background sleep outlived its run");
}

#[test]
fn m9_a_process_that_leaves_the_group_with_setsid_ends_with_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    std::fs::create_dir(&pids).unwrap();
    // The sleeper leaves the run's process group and session (`setsid`), writes its pid,
    // and only then does the command exit: the group kill cannot reach it; abba, as the
    // subreaper that adopted it, must.
    let cmd = format!(
        "f={}/$$; setsid sh -c \"echo \\$\\$ > $f.tmp && mv $f.tmp $f; exec sleep 102\" & while [ ! -s $f ]; do :; done; exit 0",
        pids.display()
    );
    abba()
        .args([
            "compare", "--blocks", "1", "--warmup", "0", "-q", "--shell", "sh", "-o",
        ])
        .arg(dir.path().join("setsid.jsonl"))
        .args([&cmd, "true"])
        .assert()
        .success();
    let started: Vec<u32> = std::fs::read_dir(&pids)
        .unwrap()
        .flat_map(|e| pids_in(&e.unwrap().path()))
        .collect();
    assert_eq!(started.len(), 2, "one ABBA block: two runs of the command");
    assert!(
        all_end(&started),
        "a setsid sleeper outlived abba: {started:?}"
    );
}

#[test]
fn m9_escapees_that_exit_are_reaped_and_do_not_pile_up_as_zombies() {
    let dir = tempfile::tempdir().unwrap();
    let counts = dir.path().join("children");
    // Each run counts abba's children (the guardian, itself, and any zombie left by
    // earlier runs), then leaves a process that exits soon after the run: abba adopts it
    // and must reap it, or 24 runs leave 23 zombies behind.
    let cmd = format!(
        "wc -w < /proc/$PPID/task/$PPID/children >> {}; setsid sh -c 'sleep 0.01' & exit 0",
        counts.display()
    );
    abba()
        .args([
            "compare", "--blocks", "12", "--warmup", "0", "-q", "--shell", "sh", "-o",
        ])
        .arg(dir.path().join("zombies.jsonl"))
        .args([&cmd, "sleep 0.02"])
        .assert()
        .success();
    let seen = pids_in(&counts);
    assert_eq!(seen.len(), 24, "12 ABBA blocks: 24 runs of the command");
    assert!(
        seen.iter().all(|&n| n <= 3),
        "abba's children grew run after run: {seen:?}"
    );
}

#[test]
fn orphans_a_sigkilled_abba_takes_its_command_and_the_command_children_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let cmd = format!(
        "sleep 102 & echo $! >> {p}; echo $$ >> {p}; sleep 103",
        p = pids.display()
    );
    let mut child = abba_std()
        .args([
            "compare", "--blocks", "1", "--warmup", "0", "-q", "--shell", "sh", "-o",
        ])
        .arg(dir.path().join("killed.jsonl"))
        .args([&cmd, &cmd])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while pids_in(&pids).len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let started = pids_in(&pids);
    assert_eq!(started.len(), 2, "the command did not start");
    assert!(started.iter().all(|&p| running(p)));
    // abba records the command's group with the guardian just after spawning it; the
    // command can write its pids before that (a window of microseconds, longer only when
    // abba is not scheduled): leave it time to, as a user's SIGKILL would.
    std::thread::sleep(std::time::Duration::from_millis(300));
    kill("KILL", child.id());
    child.wait().unwrap();
    assert!(
        all_end(&started),
        "the command or its child outlived a SIGKILLed abba"
    );
}

/// stdout and stderr of `abba analyze ARGS`, with its exit code; runs of white space
/// (the report wraps its lines) made one space.
fn analyze(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    // The full report: the advice sentences are its.
    let out = abba()
        .arg("analyze")
        .arg("--verbose")
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code(),
        text.split_whitespace().collect::<Vec<_>>().join(" "),
    )
}

#[test]
fn h4_binary_or_endless_input_is_refused_fast_and_named() {
    let (code, text) = analyze(&["/dev/zero".as_ref()]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("/dev/zero: binary data (a NUL byte at byte 1)"),
        "{text}"
    );
    // One endless line through stdin: refused at the line bound, not read forever.
    let mut child = abba_std()
        .args(["analyze", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let chunk = vec![b'7'; 1 << 20];
        while stdin.write_all(&chunk).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("<stdin>:1: the line is longer than 64 MiB"),
        "{stderr}"
    );
}

#[test]
fn m10_m12_a_bom_is_skipped_and_a_second_header_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let text = std::fs::read(&raw).unwrap();
    let bom = dir.path().join("bom.jsonl");
    std::fs::write(&bom, [b"\xEF\xBB\xBF".as_slice(), &text].concat()).unwrap();
    let (code, out) = analyze(&[bom.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("CSV"), "{out}");
    let twice = dir.path().join("twice.jsonl");
    std::fs::write(&twice, [text.as_slice(), &text].concat()).unwrap();
    let header_lines = text.iter().filter(|&&b| b == b'\n').count() + 1;
    let (code, out) = analyze(&[twice.as_os_str()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(&format!(":{header_lines}: a second header line")),
        "{out}"
    );
}

#[test]
fn m14_an_end_line_saying_complete_over_a_missing_block_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("three.jsonl");
    abba()
        .args(["compare", "--blocks", "3", "--warmup", "0", "-q", "-o"])
        .arg(&raw)
        .args(["true", "true"])
        .assert()
        .success();
    let kept: Vec<String> = std::fs::read_to_string(&raw)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"block\":1,"))
        .map(str::to_owned)
        .collect();
    assert!(
        kept.len() < json_lines(&raw).len(),
        "no run of block id 1 found"
    );
    std::fs::write(&raw, kept.join("\n") + "\n").unwrap();
    let (code, out) = analyze(&[raw.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("the end line says complete, but only 2 of 3 planned blocks are in the file"),
        "{out}"
    );
}

#[test]
fn m3_analyze_of_a_file_being_written_says_the_experiment_is_running() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("live.jsonl");
    let mut child = abba_std()
        .args(["compare", "--blocks", "100", "--warmup", "0", "-q", "-o"])
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.05"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while json_lines_so_far(&raw) < 6 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (code, out) = analyze(&[raw.as_os_str()]);
    kill("TERM", child.id());
    child.wait().unwrap();
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("the experiment is still running"), "{out}");
    assert!(!out.contains("killed or crashed"), "{out}");
}

#[test]
fn m1_one_file_under_two_names_is_refused_by_content_and_identity() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let hard = dir.path().join("hard.jsonl");
    std::fs::hard_link(&raw, &hard).unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&raw, &copy).unwrap();
    for twin in [&hard, &copy] {
        let (code, out) = analyze(&[raw.as_os_str(), twin.as_os_str()]);
        assert_eq!(code, Some(2), "{out}");
        assert!(out.contains("the same content as"), "{out}");
        assert!(out.contains("its runs would count double"), "{out}");
    }
    // A copy with a blank line added differs in bytes, not in runs.
    let edited = dir.path().join("edited.jsonl");
    let mut text = std::fs::read_to_string(&raw).unwrap();
    text.push('\n');
    std::fs::write(&edited, text).unwrap();
    let (code, out) = analyze(&[raw.as_os_str(), edited.as_os_str()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("a run (session 0, block 1, variant ") && out.contains("identical to one of"),
        "{out}"
    );
    // `-` fed the same file.
    let out = abba()
        .args(["analyze", "-"])
        .arg(&raw)
        .pipe_stdin(&raw)
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the same content as <stdin>"), "{stderr}");
}

#[test]
fn m6_a_failing_warm_up_is_named_as_a_warm_up() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args(["compare", "--blocks", "2", "-q", "--shell", "sh", "-o"])
        .arg(dir.path().join("w.jsonl"))
        .args(["true", "exit 5"])
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains(
                "failed in a warm-up run, before any measured run (exit code 5)",
            )
            .and(predicate::str::contains("in block 1").not()),
        );
}

#[test]
fn m11_a_rate_unit_without_higher_is_better_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("ops.csv");
    std::fs::write(
        &csv,
        "variant,value\nA,100\nA,101\nA,99\nB,120\nB,121\nB,119\n",
    )
    .unwrap();
    let warning = "--unit ops/s looks like a rate, but without --higher-is-better lower values count as better";
    abba()
        .args(["analyze", "--unit", "ops/s"])
        .arg(&csv)
        .assert()
        .success()
        .stderr(predicate::str::contains(warning));
    abba()
        .args(["analyze", "--unit", "ops/s", "--higher-is-better"])
        .arg(&csv)
        .assert()
        .success()
        .stderr(predicate::str::contains("looks like a rate").not());
    abba()
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "-q", "--shell", "sh",
        ])
        .args(["--metric", "json:v", "--unit", "req/s", "-o"])
        .arg(dir.path().join("r.jsonl"))
        .args(["echo '{\"v\": 1}'", "echo '{\"v\": 1}'"])
        .assert()
        .success()
        .stderr(predicate::str::contains("--unit req/s looks like a rate"));
}

#[test]
fn m13_hyperfine_results_of_failed_runs_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("hf.json");
    std::fs::write(
        &export,
        r#"{"results": [
            {"command": "good", "times": [0.010, 0.011, 0.012], "exit_codes": [0, 0, 0]},
            {"command": "broken", "times": [0.001, 0.001, 0.002], "exit_codes": [1, 1, 1]}
        ]}"#,
    )
    .unwrap();
    let (code, out) = analyze(&[export.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("3 of 3 runs of \"broken\" failed") && out.contains("every run failed"),
        "{out}"
    );
    assert!(!out.contains("runs of \"good\" failed"), "{out}");
}

#[test]
fn m15_one_block_in_a_csv_with_a_block_column_is_named_as_one_block() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("one.csv");
    std::fs::write(
        &csv,
        "variant,block,value\nA,0,10\nB,0,12\nA,0,11\nB,0,13\n",
    )
    .unwrap();
    let (code, out) = analyze(&[csv.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("the data carry only one block"), "{out}");
    assert!(!out.contains("carry no blocks"), "{out}");
}

#[test]
fn m19_runs_that_succeeded_in_no_complete_block_are_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("half.jsonl");
    let flag = dir.path().join("flag");
    // The second variant succeeds once, then fails: one block, never complete.
    let flaky = format!("test -e {f} && exit 1; touch {f}", f = flag.display());
    abba()
        .args([
            "compare",
            "--blocks",
            "1",
            "--warmup",
            "0",
            "--ignore-failure",
            "-q",
        ])
        .args(["--shell", "sh", "-o"])
        .arg(&raw)
        .args(["true", &flaky])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "no complete block to analyze: 3 of 4 runs succeeded",
        ));
    let (code, out) = analyze(&[raw.as_os_str()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("no complete block to analyze"), "{out}");
    assert!(!out.contains("no successful runs"), "{out}");
}

#[test]
fn m21_m22_blank_names_and_names_with_control_characters() {
    for (name, said) in [
        ("", "a variant name cannot be empty or blank"),
        ("  ", "a variant name cannot be empty or blank"),
        (
            "a\nb",
            "--name a\\nb: a variant name cannot hold a control character (\\n)",
        ),
    ] {
        abba()
            .args(["compare", "--dry-run", "-n", name, "true", "true"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(said));
    }
    // A command of two lines names its variant with the newline escaped, everywhere.
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("lines.jsonl");
    abba()
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "-q", "--shell", "sh", "-o",
        ])
        .arg(&raw)
        .args(["true\ntrue", "true"])
        .assert()
        .success()
        .stdout(predicate::str::contains("true\\ntrue"));
    let lines = json_lines(&raw);
    assert_eq!(lines[0]["variants"][0]["name"], "true\\ntrue");
    assert_eq!(lines[0]["variants"][0]["command"], "true\ntrue");
}

/// A CSV of `blocks` blocks of three variants, two runs each: `b` 50% and `c` 1% slower
/// than `a` in every block, so every signed-rank p is its smallest, 2/2^blocks.
fn three_variants_csv(dir: &Path, blocks: u32) -> PathBuf {
    let csv = dir.join(format!("three{blocks}.csv"));
    let mut text = String::from("variant,block,value\n");
    for b in 1..=blocks {
        let level = 100.0 + f64::from(b % 3);
        for (v, r) in [("a", 1.0), ("b", 1.5), ("c", 1.01)] {
            for k in 0..2 {
                let value = level * r * (1.0 + 0.001 * f64::from((b * 2 + k) % 5));
                text.push_str(&format!("{v},{b},{value}\n"));
            }
        }
    }
    std::fs::write(&csv, text).unwrap();
    csv
}

#[test]
fn m5_more_blocks_advice_counts_the_smallest_p_and_holm() {
    let dir = tempfile::tempdir().unwrap();
    // Six blocks, every block log-ratio positive: the raw signed-rank p is 2/2^6 = 0.031,
    // Holm over the two candidates doubles it to 0.062. The advice used to name fewer
    // blocks than 7, the fewest whose smallest p (2/2^7 = 0.016) is below alpha/2.
    let six = three_variants_csv(dir.path(), 6);
    let (code, text) = analyze(&[
        six.as_os_str(),
        "--estimator".as_ref(),
        "hl-log-ratio".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("Holm-adjusted 0.062"), "{text}");
    assert!(
        text.contains(
            "At least 7 blocks in all are needed (now 6): the signed-rank test cannot reach alpha/2 = 0.025 (the first step of Holm's correction over 2 comparisons) with fewer than 7 blocks (its smallest p with n blocks that differ is 2/2^n)"
        ),
        "{text}"
    );
    assert!(
        !text.contains("About 1 blocks") && !text.contains("About 6 blocks"),
        "{text}"
    );
    // Five blocks are not tested; the count named is Holm's, not the two-variant 6.
    let five = three_variants_csv(dir.path(), 5);
    let (_, text) = analyze(&[
        five.as_os_str(),
        "--estimator".as_ref(),
        "hl-log-ratio".as_ref(),
    ]);
    assert!(
        text.contains(
            "5 blocks are too few for a paired test to reach alpha = 0.05 (it needs at least 7 to reach alpha/2 = 0.025, the first step of Holm's correction over 2 comparisons)"
        ),
        "{text}"
    );
    // Before any run: 6 blocks of three variants, two runs of each per block, under the
    // typical run cannot decide (its smallest adjusted p, the mean run's at its extreme,
    // is 2/2^6, above Holm's 0.025); 7 can (2/2^7). With one run per block only the
    // typical run is checked, and 6 blocks fall short the same way.
    let dry = |blocks: &str, per: &str| {
        abba()
            .args(["compare", "--blocks", blocks, "--runs-per-block", per])
            .args(["--dry-run", "true", "true", "true"])
            .assert()
            .success()
    };
    dry("6", "2").stderr(predicate::str::contains(
        "6 blocks are too few for a verdict: the paired test needs at least 7 blocks at alpha 0.05, its smallest p below alpha/2 for each of the 2 Holm-corrected comparisons with the baseline (--blocks 7, or --runs 14); no comparison can be significant, whatever the data",
    ));
    dry("7", "2").stderr(predicate::str::contains("too few for a verdict").not());
    dry("6", "1").stderr(predicate::str::contains(
        "6 blocks are too few for a verdict: the paired test needs at least 7 blocks",
    ));
    dry("7", "1").stderr(predicate::str::contains("too few for a verdict").not());
}

#[test]
fn m2_a_gate_that_cannot_decide_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args(["compare", "--blocks", "2", "--warmup", "0", "-q"])
        .args(["--fail-if-slower", "5%", "-o"])
        .arg(dir.path().join("g.jsonl"))
        .args(["true", "sleep 0.01"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "abba: gate: --fail-if-slower 5% cannot decide sleep 0.01 vs true: no test could run",
        ));
    // Enough blocks: the gate decides (here: a slowdown well past 5%).
    abba()
        .args(["compare", "--blocks", "8", "--warmup", "0", "-q"])
        .args(["--fail-if-slower", "5%", "-o"])
        .arg(dir.path().join("h.jsonl"))
        .args(["true", "sleep 0.02"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("is significantly slower")
                .and(predicate::str::contains("cannot decide").not()),
        );
}

#[test]
fn m4_an_exported_csv_keeps_the_baseline_when_the_first_block_was_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("drop.jsonl");
    let csv = dir.path().join("runs.csv");
    let flag = dir.path().join("flag");
    // A fails its first run only: block 1 is dropped, block 2 starts with B (BAAB).
    let first_fails = format!(
        "test -e {f} || {{ touch {f}; exit 1; }}",
        f = flag.display()
    );
    abba()
        .args([
            "compare",
            "--blocks",
            "3",
            "--warmup",
            "0",
            "--ignore-failure",
            "-q",
        ])
        .args(["--shell", "sh", "-n", "A", "-n", "B", "--export-csv"])
        .arg(&csv)
        .arg("-o")
        .arg(&raw)
        .args([&first_fails, "true"])
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    let first_row = text.lines().nth(1).unwrap();
    assert!(first_row.split(',').nth(2) == Some("A"), "{text}");
    let (code, out) = analyze(&[csv.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Baseline A"), "{out}");
}

#[test]
fn m16_k1_values_from_1e_minus_300_to_1e300_give_finite_ratios_in_scientific_notation() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("wide.csv");
    // Deterministic values spread over 600 decades, paired in 12 blocks.
    let mut text = String::from("variant,block,value\n");
    for b in 0..12 {
        for (v, shift) in [("A", 0), ("B", 17)] {
            let exp = (b * 53 + shift * 29) % 600 - 300;
            text.push_str(&format!("{v},{b},1.5e{exp}\n"));
        }
    }
    std::fs::write(&csv, text).unwrap();
    let json = dir.path().join("wide.json");
    let out = abba()
        .arg("analyze")
        .arg(&csv)
        .arg("--export-json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let report = String::from_utf8_lossy(&out.stdout);
    for bad in ["too few values", "inf", "NaN", "0.000x"] {
        assert!(!report.contains(bad), "{bad}: {report}");
    }
    // No number of more than 12 digits in a row anywhere in the report (K1).
    let longest = report
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(longest <= 12, "{report}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let c = &doc["groups"][0]["comparisons"][0];
    let ratio = c["ratio"].as_f64().expect("a finite ratio");
    assert!(ratio.is_finite() && ratio > 0.0, "{c}");
}

#[test]
fn k10_export_md_is_the_markdown_export() {
    let dir = tempfile::tempdir().unwrap();
    let raw = finished(dir.path(), "runs.jsonl");
    let md = dir.path().join("sum.md");
    abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--export-md")
        .arg(&md)
        .assert()
        .success();
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains('|') && !text.contains("<html"), "{text}");
}

/// The SVG of the chart titled `title` in an HTML report.
fn svg_titled<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html
        .find(&format!("<title>{title}</title>"))
        .unwrap_or_else(|| panic!("no chart {title}"));
    let start = html[..at].rfind("<svg").unwrap();
    &html[start..at + html[at..].find("</svg>").unwrap()]
}

/// The value of `name` in an SVG element's text.
fn svg_attr(element: &str, name: &str) -> Option<f64> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    element[start..start + element[start..].find('"')?]
        .parse()
        .ok()
}

/// The elements (`<tag ...`) of `svg` with `class`.
fn with_class<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    let key = format!("class=\"{class}\"");
    svg.split('<').filter(|e| e.contains(&key)).collect()
}

/// The frames of the plots (unfilled rectangles) as [left, top, right, bottom].
fn plot_frames(svg: &str) -> Vec<[f64; 4]> {
    svg.split("<rect ")
        .skip(1)
        .filter(|e| e.contains("fill=\"none\""))
        .map(|e| {
            let n = |k| svg_attr(&format!(" {e}"), k).unwrap();
            [n("x"), n("y"), n("x") + n("width"), n("y") + n("height")]
        })
        .collect()
}

/// The first point (`Mx y`) of every marker in the paths with `class`.
fn marker_points(svg: &str, class: &str) -> Vec<(f64, f64)> {
    with_class(svg, class)
        .into_iter()
        .flat_map(|e| {
            let d = &e[e.find("d=\"").unwrap() + 3..];
            d[..d.find('"').unwrap()].split('M').skip(1)
        })
        .map(|m| {
            let mut xy = m
                .split(|c: char| c.is_ascii_alphabetic())
                .next()
                .unwrap()
                .split(' ')
                .map(|v| v.parse::<f64>().unwrap());
            (xy.next().unwrap(), xy.next().unwrap())
        })
        .collect()
}

fn assert_inside(svg: &str, class: &str) -> usize {
    let frames = plot_frames(svg);
    let points = marker_points(svg, class);
    for (x, y) in &points {
        assert!(
            frames.iter().any(|[l, t, r, b]| l < x
                && x < r
                && t < y
                && y < b
                && (x - l).min(r - x) >= 6.0),
            "{class} point ({x}, {y}) on or outside the frames {frames:?}"
        );
    }
    points.len()
}

#[test]
fn k11_one_run_and_all_equal_blocks_are_drawn_inside_the_frame_the_bar_on_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    // Six blocks in which every run took 10 ns: every block ratio is 1, every Walsh
    // average of their logs 0, so the uncertainty histogram is one bar.
    let csv = dir.path().join("equal.csv");
    let mut text = String::from("variant,block,value\n");
    for b in 1..=6 {
        text.push_str(&format!("a,{b},10\nb,{b},10\na,{b},10\nb,{b},10\n"));
    }
    std::fs::write(&csv, text).unwrap();
    let html = dir.path().join("equal.html");
    abba()
        .arg("analyze")
        .arg(&csv)
        .args(["--estimator", "hl-log-ratio", "-q", "--export-html"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    let uncertainty = svg_titled(&page, "Uncertainty of the estimate");
    let estimate = with_class(uncertainty, "estimate");
    let x = svg_attr(estimate[0], "x1").unwrap();
    let bar = with_class(uncertainty, "histogram")[0];
    let d = &bar[bar.find("d=\"M").unwrap() + 4..];
    let left: f64 = d[..d.find(' ').unwrap()].parse().unwrap();
    let width: f64 = d[d.find('h').unwrap() + 1..d.find('v').unwrap()]
        .parse()
        .unwrap();
    assert!(
        (left + width / 2.0 - x).abs() <= 0.1,
        "the bar [{left}, {}] is not centred on the estimate at {x}",
        left + width
    );
    let effect = svg_titled(&page, "Paired effect per block");
    assert_eq!(assert_inside(effect, "points"), 6);
    // One run of one command: its point centred in the trace, not on the frame.
    let one = dir.path().join("one.html");
    abba()
        .args([
            "compare",
            "--runs",
            "1",
            "--warmup",
            "0",
            "-q",
            "--export-html",
        ])
        .arg(&one)
        .arg("true")
        .assert()
        .success();
    let page = std::fs::read_to_string(&one).unwrap();
    let trace = svg_titled(&page, "Run-order trace");
    assert_eq!(assert_inside(trace, "runs"), 1);
    let [l, _, r, _] = plot_frames(trace)[0];
    let (x, _) = marker_points(trace, "runs")[0];
    assert!(
        (x - (l + r) / 2.0).abs() <= 0.1,
        "one run at {x} of [{l}, {r}]"
    );
}

#[test]
fn k2_a_nul_byte_in_a_name_is_refused_not_written_to_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("nul.csv");
    let mut text = String::from("variant,value\n");
    // Far past the first 4 KiB, in a variant's name.
    for i in 0..400 {
        text.push_str(&format!("A,{}\nB,{}\n", 100 + i % 7, 110 + i % 5));
    }
    text.push_str("B\0evil,120\n");
    std::fs::write(&csv, text.as_bytes()).unwrap();
    let out = abba().arg("analyze").arg(&csv).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!out.stdout.contains(&0) && !out.stderr.contains(&0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("binary data (a NUL byte at byte"),
        "{stderr}"
    );
}

#[test]
fn k5_a_block_id_too_large_is_called_too_large() {
    let dir = tempfile::tempdir().unwrap();
    for big in ["4294967296", "99999999999999999999999"] {
        let csv = dir.path().join("big.csv");
        std::fs::write(&csv, format!("variant,block,value\nA,{big},1\nB,{big},2\n")).unwrap();
        abba().arg("analyze").arg(&csv).assert().code(2).stderr(
            predicate::str::contains(format!("block {big} is too large"))
                .and(predicate::str::contains("not a whole number").not()),
        );
    }
}

#[test]
fn k3_a_changed_reference_on_resume_is_worded_without_rust_debug_output() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("ref.jsonl");
    abba()
        .args([
            "compare",
            "--blocks",
            "2",
            "--warmup",
            "0",
            "-q",
            "--seed",
            "1",
            "--reference",
            "true",
            "-o",
        ])
        .arg(&raw)
        .args(["true", "true"])
        .assert()
        .success();
    let plain = finished(dir.path(), "plain.jsonl");
    let before = (std::fs::read(&raw).unwrap(), std::fs::read(&plain).unwrap());
    for (file_path, reference, file, now) in [
        (&raw, "echo", "\"true\"", "\"echo\""),
        (&plain, "true", "no reference", "\"true\""),
    ] {
        let out = abba()
            .args(["compare", "-q", "--blocks", "3", "--resume"])
            .arg(file_path)
            .args(["--reference", reference, "true", "true"])
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        assert!(
            err.contains(&format!(
                "reference differs: the file has {file}, this run has {now}"
            )),
            "{err}"
        );
        assert!(!err.contains("Some(") && !err.contains("None"), "{err}");
    }
    let after = (std::fs::read(&raw).unwrap(), std::fs::read(&plain).unwrap());
    assert!(
        after == before,
        "a refused resume leaves both files as they were"
    );
}

#[test]
fn k4_a_negative_number_is_the_flags_value_and_refused_by_its_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (args, flag) in [
        (
            &["compare", "--blocks", "-1", "true", "true"][..],
            "--blocks",
        ),
        (&["compare", "--alpha", "-0.1", "true", "true"], "--alpha"),
        (&["compare", "--warmup", "-3", "true", "true"], "--warmup"),
        (&["compare", "-r", "-10", "true", "true"], "--runs"),
        (
            &["analyze", "--equivalence-margin", "-1", "x.jsonl"],
            "--equivalence-margin",
        ),
        (&["plan", "--blocks", "-5", "x.jsonl"], "--blocks"),
    ] {
        let out = abba()
            .current_dir(dir.path())
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(
            !err.contains("unexpected argument") && !err.contains("'-- -"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing created"
    );
}

#[test]
fn a_json_metric_line_that_does_not_parse_is_named_with_its_error() {
    // `{"x": 1e999}` looks like an object but is not valid JSON for a finite reader: the
    // failure names the parse error, not "the command printed no JSON object".
    let dir = tempfile::tempdir().unwrap();
    let out = abba()
        .args([
            "compare", "-q", "--blocks", "2", "--warmup", "0", "--shell", "sh", "--metric",
            "json:x", "-o",
        ])
        .arg(dir.path().join("j.jsonl"))
        .args(["echo '{\"x\": 1e999}'", "echo '{\"x\": 1}'"])
        .assert()
        .code(3)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("number out of range"), "{err}");
    assert!(!err.contains("no JSON object"), "{err}");
    // A valid object line wins over a malformed one, before or after it.
    abba()
        .args([
            "compare", "-q", "--blocks", "2", "--warmup", "0", "--shell", "sh", "--metric",
            "json:x", "-o",
        ])
        .arg(dir.path().join("k.jsonl"))
        .args([
            "echo '{\"x\": 1e999}'; echo '{\"x\": 2}'",
            "echo '{\"x\": 1}'; echo '{not json'",
        ])
        .assert()
        .success();
}

#[test]
fn analyze_says_when_unit_or_direction_flags_do_not_apply_to_its_input() {
    // --unit and --higher-is-better describe CSV values; a raw or hyperfine file records
    // its own, and the flags were silently ignored (a QA finding).
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (file, flags, said) in [
        (
            "raw_two.jsonl",
            &["--unit", "ms"][..],
            "--unit ms applies to CSV values only",
        ),
        (
            "hyperfine.json",
            &["--higher-is-better"][..],
            "--higher-is-better applies to CSV values only",
        ),
    ] {
        abba()
            .arg("analyze")
            .arg(data.join(file))
            .args(flags)
            .assert()
            .success()
            .stderr(predicate::str::contains(said));
    }
    // On CSV they apply: no such warning.
    abba()
        .arg("analyze")
        .arg(data.join("paired_two.csv"))
        .args(["--unit", "ms", "--higher-is-better"])
        .assert()
        .success()
        .stderr(predicate::str::contains("CSV values only").not());
}
