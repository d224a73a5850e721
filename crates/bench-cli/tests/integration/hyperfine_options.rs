//! The options hyperfine users reach for, through the binary with real child processes:
//! hooks (counted and ordered through a log the children append to), warm-ups per block,
//! the shell-character warning, the CSV exports (round-tripped through `abba analyze`),
//! `--runs` and `--time-budget`.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use super::support::refused_with;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn json_of(output: &[u8]) -> Value {
    serde_json::from_slice(output)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(output)))
}

/// The header and the run lines of a raw file.
fn raw_lines(path: &Path) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let header = lines.next().unwrap();
    let runs = lines.filter(|l| l.get("wall_ns").is_some()).collect();
    (header, runs)
}

fn log_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn hooks_run_before_after_and_around_every_run_in_the_raw_files_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let raw = dir.path().join("raw.jsonl");
    let l = log.display();
    let append = |what: &str| format!("echo {what} >> {l}");
    abba()
        .args(["compare", "--shell", "sh", "--blocks", "3", "--warmup", "0"])
        .args(["--quiet", "--json", "-n", "A", "-n", "B"])
        .arg("--setup")
        .arg(append("setup-A"))
        .arg("--setup")
        .arg(append("setup-B"))
        .arg("--prepare")
        .arg(append("prepare-A"))
        .arg("--prepare")
        .arg(append("prepare-B"))
        .arg("--conclude")
        .arg(append("conclude-$0"))
        .arg("--cleanup")
        .arg(append("cleanup-A"))
        .arg("--cleanup")
        .arg(append("cleanup-B"))
        .arg("--output")
        .arg(&raw)
        .arg(append("run-A"))
        .arg(append("run-B"))
        .assert()
        .success();
    let lines = log_lines(&log);
    let (header, runs) = raw_lines(&raw);
    assert_eq!(header["hooks"][1]["prepare"], append("prepare-B"));
    assert_eq!(runs.len(), 12);
    // The runs in the log are the runs of the raw file, in its order.
    let in_log: Vec<&str> = lines
        .iter()
        .filter_map(|x| x.strip_prefix("run-"))
        .collect();
    let in_file: Vec<&str> = runs
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(in_log, in_file);
    for v in ["A", "B"] {
        let at = |what: String| -> Vec<usize> {
            (0..lines.len()).filter(|&k| lines[k] == what).collect()
        };
        let own = at(format!("run-{v}"));
        assert_eq!(own.len(), 6);
        for &k in &own {
            assert_eq!(lines[k - 1], format!("prepare-{v}"), "{lines:?}");
            assert_eq!(lines[k + 1], "conclude-sh", "{lines:?}");
        }
        assert_eq!(at(format!("prepare-{v}")).len(), 6);
        assert_eq!(at(format!("setup-{v}")), [own[0] - 2], "{lines:?}");
        assert_eq!(at(format!("cleanup-{v}")), [own[5] + 2], "{lines:?}");
    }
    assert_eq!(lines.len(), 12 * 3 + 4);
    for r in &runs {
        assert!(r["prepare_ns"].as_u64().is_some() && r["conclude_ns"].as_u64().is_some());
    }
    // Resuming with other hooks is refused, naming them.
    let other = append("other");
    let resume = [
        "compare",
        "--resume",
        raw.to_str().unwrap(),
        "--prepare",
        &other,
    ];
    refused_with(&resume, 2, "hooks differ");
}

#[test]
fn a_failing_hook_exits_3_naming_it_unless_failures_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let out = abba()
        .args(["compare", "--shell", "sh", "--blocks", "2", "--quiet"])
        .args([
            "--prepare",
            "",
            "--prepare",
            "echo no caches to drop >&2; exit 4",
        ])
        .arg("--output")
        .arg(&raw)
        .args(["true", "true #B"])
        .assert()
        .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("prepare hook of variant true #B"), "{err}");
    assert!(
        err.contains("exit code 4") && err.contains("no caches to drop"),
        "{err}"
    );
    // With --ignore-failure the runs are recorded as failed and the experiment goes on;
    // with every B run failed there is nothing to compare (exit 3 again, file complete).
    // (The first attempt measured no run, so its raw file was removed, not kept.)
    let _ = std::fs::remove_file(&raw);
    abba()
        .args([
            "compare",
            "--shell",
            "sh",
            "--blocks",
            "2",
            "--quiet",
            "--ignore-failure",
        ])
        .args(["--prepare", "", "--prepare", "exit 4"])
        .arg("--output")
        .arg(&raw)
        .args(["true", "true #B"])
        .assert()
        .code(3);
    let (_, runs) = raw_lines(&raw);
    assert_eq!(runs.len(), 8);
    for r in runs.iter().filter(|r| r["variant"] == "true #B") {
        assert_eq!(r["hook_failure"], "prepare: exit code 4", "{r}");
    }
}

#[test]
fn warmups_per_block_run_every_variant_untimed_at_every_block_start() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let raw = dir.path().join("raw.jsonl");
    let l = log.display();
    abba()
        .args(["compare", "--shell", "sh", "--blocks", "2", "--warmup", "1"])
        .args(["--warmup-per-block", "1", "--quiet", "-n", "A", "-n", "B"])
        .arg("--output")
        .arg(&raw)
        .arg(format!("echo A >> {l}"))
        .arg(format!("echo B >> {l}"))
        .assert()
        .success();
    // Initial warm-up, then per block: A B warm-ups and the block's ABBA or BAAB.
    assert_eq!(
        log_lines(&log).join(""),
        ["AB", "AB", "ABBA", "AB", "BAAB"].join("")
    );
    let (header, runs) = raw_lines(&raw);
    assert_eq!(header["warmup_per_block"], 1);
    assert_eq!(runs.len(), 8);
}

#[test]
fn shell_characters_passed_literally_are_named_once() {
    let out = abba()
        .args([
            "compare",
            "--dry-run",
            "echo $HOME ~/x",
            "ls *.txt",
            "echo '$quoted' a?",
        ])
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    for c in ["`$`", "`~`", "`*`", "`?`", "--shell sh"] {
        assert!(err.contains(c), "{c}: {err}");
    }
    // Quoted characters, or a shell, raise no warning.
    for args in [
        ["compare", "--dry-run", "echo '$HOME' \"*\"", "true"].as_slice(),
        [
            "compare",
            "--dry-run",
            "--shell",
            "sh",
            "echo $HOME *",
            "true",
        ]
        .as_slice(),
    ] {
        let out = abba().args(args).assert().success();
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(!err.contains("warning"), "{err}");
    }
}

/// A shell loop whose length sets its run time.
fn spin(iterations: u32) -> String {
    format!("sh -c 'i=0; while [ $i -lt {iterations} ]; do i=$((i+1)); done'")
}

#[test]
fn the_per_run_csv_analyzes_to_the_same_verdict_and_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let csv = dir.path().join("runs.csv");
    let summary = dir.path().join("summary.csv");
    let out = abba()
        .args([
            "compare", "--blocks", "6", "--warmup", "0", "--seed", "4", "--json",
        ])
        .args(["--quiet", "-n", "long", "-n", "short"])
        .arg("--output")
        .arg(&raw)
        .arg("--export-csv")
        .arg(&csv)
        .arg("--export-csv-summary")
        .arg(&summary)
        .arg(spin(20_000))
        .arg(spin(2_000))
        .assert()
        .success();
    let compared = json_of(&out.get_output().stdout);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut rows = text.lines();
    assert_eq!(
        rows.next().unwrap(),
        "block,position,variant,wall_ns,user_ns,sys_ns,max_rss_kib,exit_code,timed_out,env_pad,metric,value"
    );
    assert_eq!(rows.count(), 24);
    let again = abba()
        .arg("analyze")
        .arg(&csv)
        .args(["--unit", "ns", "--json"])
        .assert()
        .success();
    let analyzed = json_of(&again.get_output().stdout);
    let (a, b) = (
        &compared["groups"][0]["comparisons"][0],
        &analyzed["groups"][0]["comparisons"][0],
    );
    for field in ["candidate", "verdict", "outcome", "ratio", "ratio_ci"] {
        assert_eq!(a[field], b[field], "{field}");
    }
    assert_eq!(a["paired"]["blocks"], b["paired"]["blocks"]);
    let summary = std::fs::read_to_string(&summary).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert!(lines[0].starts_with("class,name,n,mean,stddev,median,min,max,p90,unit,user_mean_ns"));
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with(",long,12,"), "{summary}");
    // The raw file exports the same rows; CSV input has no runs to export.
    let from_raw = dir.path().join("again.csv");
    abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--export-csv")
        .arg(&from_raw)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&from_raw).unwrap(), text);
    let out = abba()
        .arg("analyze")
        .arg(&csv)
        .arg("--export-csv")
        .arg(dir.path().join("x.csv"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--export-csv needs runs"), "{err}");
}

#[test]
fn runs_choose_the_blocks_and_say_so() {
    let out = abba()
        .args(["compare", "--runs", "7", "--dry-run", "true", "false"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stdout.contains("16 measured runs"), "{stdout}");
    assert!(
        err.contains("4 blocks") && err.contains("8 runs per variant"),
        "{err}"
    );
    let both = ["compare", "--runs", "7", "--blocks", "3", "true", "false"];
    refused_with(&both, 2, "--blocks");
}

#[test]
fn a_time_budget_runs_a_pilot_block_and_as_many_blocks_as_fit() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let out = abba()
        .args(["compare", "--time-budget", "2s", "--warmup", "0", "--quiet"])
        .arg("--output")
        .arg(&raw)
        .args(["sleep 0.1", "sleep 0.12"])
        .assert()
        .success();
    let (header, runs) = raw_lines(&raw);
    let blocks = header["blocks"].as_u64().unwrap();
    // A block of four runs takes at least 0.44 s, so the 2 s budget leaves room for at
    // most (2 - 0.44) / 0.44 = 3 blocks after the pilot; allow one more for a slow pilot.
    assert!((1..=4).contains(&blocks), "{blocks}");
    assert_eq!(runs.len() as u64, blocks * 4);
    let _ = out;
    let both = [
        "compare",
        "--time-budget",
        "2s",
        "--blocks",
        "3",
        "true",
        "false",
    ];
    refused_with(&both, 2, "--blocks");
}

#[test]
fn runs_per_block_repeats_the_design_inside_each_block_and_resumes_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let raw = dir.path().join("raw.jsonl");
    let l = log.display();
    let (a, b) = (format!("echo A >> {l}"), format!("echo B >> {l}"));
    abba()
        .args(["compare", "--shell", "sh", "--blocks", "2", "--warmup", "1"])
        .args(["--runs-per-block", "4", "--quiet", "-n", "A", "-n", "B"])
        .arg("--output")
        .arg(&raw)
        .args([&a, &b])
        .assert()
        .success();
    // Warm-up, then two blocks of two cycles: ABBA ABBA, BAAB BAAB.
    assert_eq!(
        log_lines(&log).join(""),
        "AB".to_owned() + "ABBAABBA" + "BAABBAAB"
    );
    let (header, runs) = raw_lines(&raw);
    assert_eq!(header["cycles"], 2);
    assert_eq!(runs.len(), 16);
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(r["block"], i / 8, "{r}");
        assert_eq!(r["position"], i % 8, "{r}");
    }
    // An analysis reads 2 blocks of 4 runs per variant.
    let out = abba()
        .args(["analyze", "--json"])
        .arg(&raw)
        .assert()
        .success();
    let doc = json_of(&out.get_output().stdout);
    let paired = &doc["groups"][0]["comparisons"][0]["paired"];
    assert_eq!(paired["blocks"], 2, "{paired}");
    // Extending keeps the file's cycles; a different count is refused by name.
    abba()
        .args(["compare", "--quiet", "--blocks", "3", "--resume"])
        .arg(&raw)
        .assert()
        .success();
    let (_, runs) = raw_lines(&raw);
    assert_eq!(runs.len(), 24);
    let raw = raw.to_str().unwrap();
    let other = [
        "compare",
        "--quiet",
        "--blocks",
        "4",
        "--runs-per-block",
        "2",
        "--resume",
        raw,
    ];
    refused_with(&other, 2, "runs-per-block");
}

#[test]
fn runs_per_block_that_the_design_cannot_hold_is_a_usage_error() {
    for (args, needle) in [
        (vec!["--runs-per-block", "3", "./a", "./b"], "multiple of 2"),
        (vec!["--runs-per-block", "0", "./a", "./b"], "1..="),
        (
            vec![
                "--runs-per-block",
                "4",
                "--design",
                "sequential",
                "./a",
                "./b",
            ],
            "blocked design",
        ),
    ] {
        refused_with(&[&["compare", "--dry-run"][..], &args].concat(), 2, needle);
    }
    // Three variants in Williams rows: one run of each per row, so 2 means two rows.
    let out = abba()
        .args([
            "compare",
            "--dry-run",
            "--blocks",
            "1",
            "--runs-per-block",
            "2",
        ])
        // Dry runs check that the programs exist.
        .args(["true", "true", "true"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("6 measured runs"), "{text}");
}
