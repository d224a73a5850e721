//! Faults around the experiment, end to end through the binary: nothing lost (the raw runs
//! always kept and named), nothing misleading (no silent overwrite, no mixed files, no
//! changed conditions, no orphaned child, no panic on a closed channel).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn abba_child(args: &[&str]) -> StdCommand {
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("abba"));
    cmd.args(args).env("NO_COLOR", "1");
    cmd
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// Waits (up to 30 s) until `done` holds.
fn wait_for(mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether process `pid` is gone (or a zombie nobody reaped: it runs nothing).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn a_second_process_on_the_same_output_is_refused_before_it_runs_anything() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("same.jsonl");
    let log = dir.path().join("second.log");
    let first = abba_child(&["compare", "--blocks", "50", "-q", "--seed", "1", "-o"])
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.06"])
        .spawn()
        .unwrap();
    wait_for(|| lines(&raw) >= 2);
    let second = |extra: &[&str]| {
        abba()
            .args([
                "compare", "--blocks", "6", "-q", "--seed", "2", "--shell", "sh",
            ])
            .args(extra)
            .arg("-o")
            .arg(&raw)
            .arg(format!("echo a >> {}", log.display()))
            .arg(format!("echo b >> {}", log.display()))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(raw.display().to_string()))
    };
    // Not told to resume a file another abba is writing (issue 26, M8).
    second(&[]).stderr(predicate::str::contains(
        "another abba is writing this file now",
    ));
    // Even told to overwrite, it may not take a file another experiment is writing.
    second(&["--force"]).stderr(predicate::str::contains("another process"));
    assert!(!log.exists(), "the second experiment ran commands");
    stop(first);
    let text = std::fs::read_to_string(&raw).unwrap();
    assert!(
        text.lines().all(|l| !l.contains("\"seed\":2")),
        "the file mixes two experiments"
    );
}

#[test]
fn an_existing_output_is_refused_with_resume_or_force_suggested() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let run = |extra: &[&str]| {
        let mut cmd = abba();
        cmd.args(["compare", "--blocks", "2", "--warmup", "0", "-q", "--json"])
            .args(extra)
            .arg("-o")
            .arg(&raw)
            .args(["true", "true"]);
        cmd
    };
    run(&[]).assert().success();
    let before = std::fs::read(&raw).unwrap();
    run(&[]).assert().code(2).stderr(
        predicate::str::contains(format!("--resume {}", raw.display()))
            .and(predicate::str::contains("--force")),
    );
    assert_eq!(
        std::fs::read(&raw).unwrap(),
        before,
        "the refused run changed the file"
    );
    run(&["--force"]).assert().success();
    // Not a raw file: only --force is offered.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "keep me\n").unwrap();
    abba()
        .args(["compare", "--blocks", "1", "-q", "-o"])
        .arg(&notes)
        .args(["true", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force").and(predicate::str::contains("exists")));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me\n");
}

// `/dev/full` is Linux's; elsewhere the test is not compiled rather than passing empty.
#[cfg(target_os = "linux")]
#[test]
fn an_export_that_fails_after_the_runs_still_reports_and_names_the_kept_raw_file() {
    assert!(
        Path::new("/dev/full").exists(),
        "/dev/full is missing on this Linux system"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = abba()
        .env("TMPDIR", tmp.path())
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "-q", "-n", "A", "-n", "B",
        ])
        .args(["--verbose", "--export-json", "/dev/full", "true", "true"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("Controls"))
        .stderr(predicate::str::contains("/dev/full"));
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let kept: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(stderr.contains(&kept[0].display().to_string()), "{stderr}");
    abba().arg("analyze").arg(&kept[0]).assert().success();
}

#[test]
fn an_export_directory_that_cannot_take_a_file_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ran.log");
    // /proc takes no new file, not even from root; a read-only directory does the same for
    // everyone else.
    let mut places = vec![PathBuf::from("/proc/abba-report.json")];
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let mut perms = std::fs::metadata(&locked).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(&locked, perms).unwrap();
    if std::fs::write(locked.join("probe"), "").is_err() {
        places.push(locked.join("report.json"));
    }
    for place in places {
        abba()
            .args([
                "compare",
                "--blocks",
                "1",
                "-q",
                "--shell",
                "sh",
                "--export-json",
            ])
            .arg(&place)
            .arg(format!("echo a >> {}", log.display()))
            .arg(format!("echo b >> {}", log.display()))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--export-json"));
        assert!(!log.exists(), "{}: nothing may run", place.display());
    }
}

/// Makes a raw file of a finished two-block experiment with `extra` settings.
fn finished_raw(dir: &Path, extra: &[&str]) -> PathBuf {
    let raw = dir.join("done.jsonl");
    abba()
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "-q", "--json", "-o",
        ])
        .arg(&raw)
        .args(extra)
        .args(["true", "true"])
        .assert()
        .success();
    raw
}

/// A raw file cut off by SIGINT after a couple of blocks of 8 (names `old`, `new`).
fn interrupted_raw(dir: &Path) -> PathBuf {
    let raw = dir.join("int.jsonl");
    let child = abba_child(&[
        "compare", "--blocks", "8", "--warmup", "0", "-q", "--design", "random", "--seed", "9",
        "-n", "old", "-n", "new", "--settle", "10ms", "-o",
    ])
    .arg(&raw)
    .args(["sleep 0.05", "sleep 0.05"])
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    wait_for(|| lines(&raw) >= 6);
    StdCommand::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("abba compare --resume {}", raw.display())),
        "{stderr}"
    );
    raw
}

#[test]
fn resume_refuses_run_conditions_that_differ_from_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let raw = interrupted_raw(dir.path());
    let before = std::fs::read(&raw).unwrap();
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (&["--settle", "20ms"], "settle", "10ms", "20ms"),
        (&["--layout", "fixed"], "layout", "random", "fixed:0"),
        (&["--warmup", "3"], "warmup", "0", "3"),
        (&["--timeout", "5s"], "timeout", "no timeout", "5s"),
        (&["--shell", "sh"], "shell", "none", "sh"),
        (&["--blocks", "9"], "block count", "8", "9"),
    ];
    for (flags, what, file, now) in cases {
        abba()
            .args(["compare", "-q", "--resume"])
            .arg(&raw)
            .args(*flags)
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(*what)
                    .and(predicate::str::contains(*file))
                    .and(predicate::str::contains(*now)),
            );
        assert_eq!(
            std::fs::read(&raw).unwrap(),
            before,
            "{flags:?} touched the file"
        );
    }
}

#[test]
fn resume_alone_continues_from_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let raw = interrupted_raw(dir.path());
    // Arguments that match the header are allowed.
    let out = abba()
        .args(["compare", "--json", "-q", "--blocks", "8", "--resume"])
        .arg(&raw)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let c = &v["groups"][0]["comparisons"][0];
    assert_eq!(c["candidate"], "new");
    assert_eq!(c["paired"]["blocks"], 8);
    assert_eq!(v["seed"], 9);
    let runs = std::fs::read_to_string(&raw)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"wall_ns\"") && !l.starts_with("{\"end\""))
        .count();
    assert_eq!(runs, 16);
    // A finished file has nothing left to resume.
    abba()
        .args(["compare", "-q", "--resume"])
        .arg(&raw)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to resume"));
    // Different commands are named as the mismatch.
    let other = finished_raw(dir.path(), &[]);
    abba()
        .args(["compare", "-q", "--resume"])
        .arg(&other)
        .args(["true", "false"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("variants differs"));
}

#[test]
fn a_closed_stderr_gives_the_exit_code_not_a_panic() {
    for args in [
        &["analyze", "/no/such/file.csv"][..],
        &["compare", "--blocks", "1", "true", "/no/such/program"][..],
    ] {
        let mut child = abba_child(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the only reader: every write to stderr now fails with a broken pipe.
        drop(child.stderr.take());
        assert_eq!(child.wait().unwrap().code(), Some(2), "{args:?}");
    }
}

#[test]
fn abba_started_with_sigchld_ignored_still_measures_every_run() {
    // A parent that ignores SIGCHLD (a daemon, a CI agent, Python's
    // `signal(SIGCHLD, SIG_IGN)` then exec) hands that disposition to abba through exec;
    // the kernel would then reap every command itself and abba's wait4 find no child.
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let mut cmd = abba_child(&[
        "compare",
        "--blocks",
        "2",
        "-q",
        "--ignore-failure",
        "--shell",
        "sh",
        "--output",
        raw.to_str().unwrap(),
        "true",
        "exit 3",
    ]);
    // SAFETY: the hook only calls signal(2), async-signal-safe, and allocates nothing.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGCHLD, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("No child processes"), "{stderr}");
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let text = std::fs::read_to_string(&raw).unwrap();
    let runs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("variant").is_some())
        .collect();
    assert_eq!(runs.len(), 8, "{text}");
    for r in &runs {
        let want = if r["variant"] == "true" { 0 } else { 3 };
        assert_eq!(r["exit_code"], want, "{r}");
    }
}

#[test]
fn sigkill_of_abba_kills_its_running_child_and_the_file_says_how_far_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("killed.jsonl");
    let slow = dir.path().join("slow");
    let pid_file = dir.path().join("long.pid");
    // Quick runs until `slow` exists, then a run that would last a minute, its pid written.
    let command = format!(
        "if [ -e {slow} ]; then echo $$ > {pid}.tmp && mv {pid}.tmp {pid}; exec sleep 60; else exec sleep 0.02; fi",
        slow = slow.display(),
        pid = pid_file.display()
    );
    let mut child = abba_child(&[
        "compare", "--blocks", "10", "--warmup", "0", "-q", "--shell", "sh", "--seed", "4", "-n",
        "A", "-n", "B", "-o",
    ])
    .arg(&raw)
    .args([&command, &command])
    .spawn()
    .unwrap();
    wait_for(|| lines(&raw) > 8);
    std::fs::write(&slow, "").unwrap();
    wait_for(|| pid_file.exists());
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!process_gone(pid));
    child.kill().unwrap(); // SIGKILL: no handler, no trailer
    child.wait().unwrap();
    wait_for(|| process_gone(pid));
    let gone = process_gone(pid);
    if !gone {
        let _ = StdCommand::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert!(gone, "the benchmarked command outlived abba");
    let out = abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--json")
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let blocks = v["groups"][0]["comparisons"][0]["paired"]["blocks"]
        .as_u64()
        .unwrap();
    let expected = format!("{blocks} of 10 planned blocks were measured");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["code"] == "truncated" && w["message"].as_str().unwrap().contains(&expected)),
        "{expected}: {warnings:?}"
    );
}

#[test]
fn pre_flight_errors_leave_no_temp_file_and_a_missing_tmpdir_falls_back() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["compare", "--blocks", "1", "-q", "true", "/no/such/program"][..],
        &[
            "compare",
            "--blocks",
            "1",
            "-q",
            "--baseline",
            "nope",
            "true",
            "true",
        ][..],
    ] {
        abba().env("TMPDIR", tmp.path()).args(args).assert().code(2);
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // TMPDIR naming nothing: the run goes on (the raw runs in /tmp), and says so.
    abba()
        .env("TMPDIR", "/no/such/tmpdir")
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "--json", "true", "true",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("/no/such/tmpdir"));
}

#[test]
fn an_export_through_a_symlink_writes_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "variant,value\na,1\na,2\nb,4\nb,5\n").unwrap();
    let target = dir.path().join("real.json");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    abba()
        .arg("analyze")
        .arg(&csv)
        .arg("--export-json")
        .arg(&link)
        .assert()
        .success();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(written["schema"], "abba.analysis/1");
}

#[test]
fn flag_values_people_type_are_understood_or_corrected() {
    let dry = |flags: &[&str]| {
        let mut cmd = abba();
        cmd.args(["compare", "--dry-run", "--blocks", "1"])
            .args(flags)
            .args(["true", "true"]);
        cmd
    };
    dry(&["--fail-if-slower", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `2%`?"));
    dry(&["--fail-if-slower", "2%"]).assert().success();
    dry(&["--timeout", "1h"]).assert().success();
    dry(&["--timeout", "10min"]).assert().success();
    dry(&["--settle", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`5s`"));
    dry(&["--settle", "5ms"]).assert().success();
    abba()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("abba random sequential"));
}
