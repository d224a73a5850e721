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

/// `analyze --record` keeps the analysis it printed: its raw file is read once, before
/// the report. The job summary is a FIFO whose buffer the test fills, so abba blocks
/// writing it, after the analysis and before the record; the raw file is removed then,
/// and only then is the FIFO drained: a record that read the file again would fail.
#[cfg(target_os = "linux")]
#[test]
fn analyze_record_reads_its_raw_file_once() {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let made = abba(
        dir.path(),
        &[
            "compare",
            "-q",
            "--blocks",
            "6",
            "--output",
            "runs.jsonl",
            "true",
            "true",
        ],
    );
    assert!(made.status.success(), "{}", text(&made.stderr));
    let fifo = dir.path().canonicalize().unwrap().join("summary.fifo");
    let mkfifo = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(mkfifo.success());
    // Opened both ways, a FIFO opens at once; filled, the next write waits for a reader.
    let mut both = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut size = 0;
    loop {
        match both.write(&[b'x'; 4096]) {
            Ok(n) => size += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(size > 0);
    let mut child = Command::cargo_bin("abba")
        .unwrap()
        .current_dir(dir.path())
        .env_remove("ABBA_HISTORY")
        .env_remove("GITHUB_BASE_REF")
        .env("GITHUB_STEP_SUMMARY", &fifo)
        .args(["analyze", "runs.jsonl", "--record", "--history", "h.db"])
        .args(["--commit", "c1", "--bench", "t"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // abba opens the summary once the report is made, then waits on the full FIFO.
    let fds = format!("/proc/{}/fd", child.id());
    let start = std::time::Instant::now();
    let opened = || {
        std::fs::read_dir(&fds).is_ok_and(|d| {
            d.flatten()
                .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == fifo))
        })
    };
    while !opened() {
        assert!(
            start.elapsed().as_secs() < 120,
            "abba never opened the summary"
        );
        assert!(child.try_wait().unwrap().is_none(), "abba ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::remove_file(&raw).unwrap();
    let mut reader = std::fs::File::open(&fifo).unwrap();
    drop(both);
    let mut summary = Vec::new();
    reader.read_to_end(&mut summary).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("abba: recorded runs.jsonl at c1 into h.db"),
        "{}",
        text(&out.stderr)
    );
    assert!(summary.len() > size, "abba wrote no summary");
    let list = text(&abba(dir.path(), &["history", "list", "--history", "h.db"]).stdout);
    assert!(list.contains("1 experiments, 24 runs"), "{list}");
}
