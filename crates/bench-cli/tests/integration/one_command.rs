//! hyperfine's most common use, one command timed alone, and its habits for two: the
//! summary (mean ± σ, min … max, median with an interval, user and system, runs) without
//! a verdict, and `-N -w 3 -r 20 A B` giving the paired report. No timing is asserted.

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    // Piped, abba wraps nothing unless told a width: these tests read it at 100.
    cmd.env("NO_COLOR", "1").env("COLUMNS", "100");
    cmd
}

fn ok(out: &std::process::Output) -> (String, String) {
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}\n{stdout}");
    (stdout, stderr)
}

/// The summary's lines in order, with the numbers where hyperfine has them.
fn assert_summary(stdout: &str, runs: u64) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "Benchmark 1: sleep 0.01", "{stdout}");
    let time = lines[1];
    assert!(time.starts_with("  Time (mean ± σ):"), "{stdout}");
    assert!(time.contains(" ms ± ") && time.contains("[User: ") && time.contains(", System: "));
    assert!(lines[2].starts_with("  Range (min … max):") && lines[2].contains(" … "));
    assert!(lines[2].ends_with(&format!("    {runs} runs")), "{stdout}");
    let median = lines[3];
    assert!(median.starts_with("  Median (95% CI):"), "{stdout}");
    // `M ms [LO ms, HI ms]` with LO <= M <= HI.
    let nums: Vec<f64> = median
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.parse().ok())
        .collect();
    let [m, lo, hi] = nums[nums.len() - 3..] else {
        panic!("{median}")
    };
    assert!(lo <= m && m <= hi, "{median}");
    for verdict in ["FASTER", "SLOWER", "EQUIVALENT", "INCONCLUSIVE", " vs "] {
        assert!(!stdout.contains(verdict), "{stdout}");
    }
    assert!(stdout.contains("no verdict"), "{stdout}");
    assert!(stdout.lines().all(|l| l.chars().count() <= 100), "{stdout}");
}

#[test]
fn one_command_is_measured_alone_and_summarized_as_hyperfine_does() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("one.jsonl");
    let out = abba()
        .args(["compare", "-o"])
        .arg(&raw)
        .arg("sleep 0.01")
        .output()
        .unwrap();
    let (stdout, _) = ok(&out);
    // The default 20 blocks: one run of the one variant in each.
    assert_summary(&stdout, 20);
    // The raw file reads back the same way.
    let out = abba().arg("analyze").arg(&raw).output().unwrap();
    assert_summary(&ok(&out).0, 20);
    // The JSON: one benchmark, nothing compared.
    let out = abba()
        .args(["analyze", "--json"])
        .arg(&raw)
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok(&out).0).unwrap();
    assert_eq!(
        v["groups"][0]["benchmarks"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(
        v["groups"][0]["comparisons"].as_array().map(Vec::len),
        Some(0)
    );
    assert_eq!(v["groups"][0]["benchmarks"][0]["n"], 20);
}

#[test]
fn hyperfines_runs_flag_counts_the_runs_of_one_command() {
    let out = abba()
        .args(["compare", "-N", "-w", "1", "-r", "8", "sleep 0.01"])
        .output()
        .unwrap();
    let (stdout, stderr) = ok(&out);
    assert_summary(&stdout, 8);
    assert!(stderr.contains("--runs 8: 8 blocks"), "{stderr}");
}

#[test]
fn flags_that_need_two_commands_are_refused_for_one() {
    for flag in [
        &["--until", "decided"][..],
        &["--confirm"],
        &["--fail-if-slower", "5%"],
    ] {
        let out = abba()
            .arg("compare")
            .args(flag)
            .arg("sleep 0.01")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(flag[0]) && stderr.contains("two or more variants"),
            "{stderr}"
        );
    }
}

#[test]
fn hyperfines_usual_two_commands_give_the_paired_report() {
    let out = abba()
        .args([
            "compare",
            "-N",
            "-w",
            "3",
            "-r",
            "20",
            "sleep 0.01",
            "sleep 0.012",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = ok(&out);
    assert!(stderr.contains("--runs 20: 10 blocks"), "{stderr}");
    assert!(stdout.contains("Baseline sleep 0.01"), "{stdout}");
    assert!(stdout.contains(" Median │"), "{stdout}");
    // The headline, whatever it says, is of 10 pairs (it may be wrapped).
    assert!(stdout.starts_with("sleep 0.012 vs sleep 0.01 "), "{stdout}");
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(" · 10 blocks"), "{stdout}");
    assert!(stdout.lines().all(|l| l.chars().count() <= 100), "{stdout}");
}
