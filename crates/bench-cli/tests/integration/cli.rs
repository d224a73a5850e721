//! The `abba` binary end to end: real child processes, real files, exit codes.

use std::path::Path;
use std::process::Command as StdCommand;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

use super::support::refused_with;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json_of(output: &[u8]) -> Value {
    serde_json::from_slice(output).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(output)
        )
    })
}

/// A shell loop whose length sets its run time.
fn spin(iterations: u32) -> String {
    format!("sh -c 'i=0; while [ $i -lt {iterations} ]; do i=$((i+1)); done'")
}

#[test]
fn compare_finds_a_real_difference_in_the_right_direction() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let out = abba()
        .args([
            "compare", "--blocks", "7", "--warmup", "0", "--seed", "3", "--json", "--quiet",
        ])
        .arg("--output")
        .arg(&raw)
        .args(["-n", "long", "-n", "short"])
        .arg(spin(60_000))
        .arg(spin(3_000))
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["schema"], "abba.analysis/1");
    assert_eq!(v["seed"], 3);
    let c = &v["groups"][0]["comparisons"][0];
    assert_eq!(c["candidate"], "short");
    assert_eq!(c["verdict"], "significant");
    assert_eq!(c["outcome"], "faster");
    assert!(c["ratio"].as_f64().unwrap() < 0.5, "{c}");
    assert_eq!(c["paired"]["blocks"], 7);
    // The raw file has a header and one line per run (7 blocks x 4 runs).
    let text = std::fs::read_to_string(&raw).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["schema"], "abba.raw/1");
    let runs = lines.iter().filter(|l| l.get("wall_ns").is_some()).count();
    assert_eq!(runs, 28);
    // ...and analyzes to the same verdict.
    let again = abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--json")
        .assert()
        .success();
    let w = json_of(&again.get_output().stdout);
    assert_eq!(w["groups"][0]["comparisons"][0]["outcome"], "faster");
    assert_eq!(w["seed"], 3);
}

#[test]
fn dry_run_prints_the_abba_schedule_without_running() {
    abba()
        .args([
            "compare",
            "--dry-run",
            "--blocks",
            "2",
            "--seed",
            "1",
            "-n",
            "A",
            "-n",
            "B",
        ])
        // Programs that exist: a dry run refuses what the real run would (issue 26, W4).
        .args(["true", "sleep 0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("A").and(predicate::str::contains("B")));
}

#[test]
fn missing_program_exits_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    abba()
        .args(["compare", "--blocks", "2", "--quiet"])
        .arg("--output")
        .arg(&raw)
        .args(["true", "/no/such/program"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/no/such/program"));
}

#[test]
fn shell_syntax_without_shell_is_refused_with_a_hint() {
    abba()
        .args([
            "compare",
            "--blocks",
            "2",
            "--quiet",
            "true",
            "echo a | wc -l",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--shell"));
}

#[test]
fn a_failing_command_exits_3_and_keeps_valid_raw_data() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    abba()
        .args([
            "compare", "--blocks", "3", "--warmup", "0", "--quiet", "--design", "random",
        ])
        .arg("--output")
        .arg(&raw)
        .args(["true", "sh -c 'echo broken-input >&2; exit 7'"])
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("broken-input")
                .and(predicate::str::contains(raw.display().to_string())),
        );
    let text = std::fs::read_to_string(&raw).unwrap();
    for line in text.lines() {
        serde_json::from_str::<Value>(line).expect("every line of the raw file parses");
    }
}

#[test]
fn a_hanging_command_times_out_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args([
            "compare",
            "--blocks",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--timeout",
            "200ms",
        ])
        .arg("--output")
        .arg(dir.path().join("r.jsonl"))
        .args(["true", "sleep 30"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("timed out"));
}

#[test]
fn an_output_directory_that_does_not_exist_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ran.log");
    abba()
        .args([
            "compare",
            "--blocks",
            "1",
            "--quiet",
            "--shell",
            "sh",
            "--output",
            "/no/such/dir/runs.jsonl",
        ])
        .arg(format!("echo a >> {}", log.display()))
        .arg(format!("echo b >> {}", log.display()))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/no/such/dir"));
    assert!(
        !log.exists(),
        "nothing may run before the output is known to be writable"
    );
}

#[test]
fn runs_follow_the_abba_order_through_a_log_the_children_append_to() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("order.log");
    abba()
        .args([
            "compare", "--blocks", "2", "--warmup", "0", "--quiet", "--shell", "sh", "--json",
        ])
        .arg("--output")
        .arg(dir.path().join("r.jsonl"))
        .arg(format!("echo A >> {}", log.display()))
        .arg(format!("echo B >> {}", log.display()))
        .assert()
        .success();
    let order: String = std::fs::read_to_string(&log)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(order, "ABBABAAB");
}

#[test]
fn analyze_reads_paired_csv_and_gates_on_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("block,variant,value\n");
    for b in 0..10 {
        let base = 100.0 + (b % 3) as f64;
        csv.push_str(&format!("{b},old,{base}\n{b},new,{}\n", base * 1.10));
    }
    let path = write(dir.path(), "t.csv", &csv);
    abba()
        .arg("analyze")
        .arg(&path)
        .args(["--unit", "ms", "--fail-if-slower", "5%"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SLOWER"))
        .stderr(predicate::str::contains("significantly slower"));
    abba()
        .arg("analyze")
        .arg(&path)
        .args(["--fail-if-slower", "20%"])
        .assert()
        .code(0);
    // The same data seen as throughput is an improvement: the gate stays quiet.
    abba()
        .arg("analyze")
        .arg(&path)
        .args(["--higher-is-better", "--fail-if-slower", "5%"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("FASTER"));
}

#[test]
fn analyze_reads_hyperfine_json_as_unpaired_variants() {
    let dir = tempfile::tempdir().unwrap();
    let times = |base: f64| {
        (0..20)
            .map(|i| base + i as f64 * 1e-4)
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let json = format!(
        r#"{{"results":[{{"command":"sleep 0.01","times":[{}]}},{{"command":"sleep 0.02","times":[{}]}}]}}"#,
        times(0.010),
        times(0.020)
    );
    let path = write(dir.path(), "hf.json", &json);
    let out = abba()
        .arg("analyze")
        .arg(&path)
        .arg("--json")
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let c = &v["groups"][0]["comparisons"][0];
    assert_eq!(c["candidate"], "sleep 0.02");
    assert!(c["paired"].is_null());
    assert_eq!(c["mann_whitney"]["method"], "asymptotic");
    assert_eq!(c["outcome"], "slower");
}

#[test]
fn exports_are_written_and_markdown_has_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "t.csv",
        "variant,value\na,1\na,2\na,3\nb,4\nb,5\nb,6\n",
    );
    let md = dir.path().join("r.md");
    let js = dir.path().join("r.json");
    abba()
        .arg("analyze")
        .arg(&csv)
        .arg("--export-markdown")
        .arg(&md)
        .arg("--export-json")
        .arg(&js)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&md).unwrap().contains("| Variant"));
    assert_eq!(
        json_of(&std::fs::read(&js).unwrap())["schema"],
        "abba.analysis/1"
    );
}

#[test]
fn html_and_svg_exports_hold_the_charts_of_a_raw_file() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let svgs = dir.path().join("charts");
    abba()
        .args(["analyze", "tests/data/raw_two.jsonl", "--export-html"])
        .arg(&html)
        .arg("--export-svg")
        .arg(&svgs)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"));
    for title in [
        "Paired effect per block",
        "Run-order trace",
        "Uncertainty of the estimate",
        "Shape of the change",
    ] {
        assert!(page.contains(&format!("<title>{title}</title>")), "{title}");
    }
    assert!(page.contains(">run (in execution order)</text>"));
    let mut files: Vec<String> = std::fs::read_dir(&svgs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "distributions.svg",
            "paired-effect.svg",
            "run-order.svg",
            "shape.svg",
            "uncertainty.svg"
        ]
    );
    // A file where the directory should be: exit 2 naming the flag, the report still out.
    let not_dir = dir.path().join("file");
    std::fs::write(&not_dir, "x").unwrap();
    abba()
        .args(["analyze", "tests/data/raw_two.jsonl", "--export-svg"])
        .arg(&not_dir)
        .assert()
        .code(2)
        .stdout(predicate::str::contains("Baseline"))
        .stderr(
            predicate::str::contains("--export-svg")
                .and(predicate::str::contains("not a directory")),
        );
}

// `/dev/full` is Linux's; elsewhere the test is not compiled rather than passing empty.
#[cfg(target_os = "linux")]
#[test]
fn an_export_to_a_full_disk_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "t.csv", "variant,value\na,1\na,2\nb,4\nb,5\n");
    assert!(
        Path::new("/dev/full").exists(),
        "/dev/full is missing on this Linux system"
    );
    abba()
        .arg("analyze")
        .arg(&csv)
        .args(["--export-json", "/dev/full"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/dev/full"));
}

/// Every malformed input of the spec gets exit 2 and a message naming where.
#[test]
fn malformed_inputs_exit_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("empty.csv", "", "empty.csv"),
        ("header.csv", "variant,value\n", "header.csv"),
        ("missing.csv", "variant,time\na,1\n", "value"),
        ("text.csv", "variant,value\na,1\na,abc\n", "3"),
        ("nan.csv", "variant,value\na,1\na,NaN\n", "3"),
        ("inf.csv", "variant,value\na,1\na,inf\n", "3"),
        ("cell.csv", "variant,value\na,1\na,\n", "3"),
        (
            "disjoint.csv",
            "block,variant,value\n0,a,1\n1,a,1\n2,b,2\n3,b,2\n",
            "disjoint.csv:4: variant \"b\" has blocks {2,3} and shares none",
        ),
        ("schema.jsonl", "{\"schema\":\"abba.raw/9\"}\n", "schema"),
        (
            "hf.json",
            "{\"results\": [ {\"command\": \"x\", \"times\": [1, \"a\"] } ]}",
            "hf.json",
        ),
    ];
    for (name, text, needle) in cases {
        let path = write(dir.path(), name, text);
        let out = abba().arg("analyze").arg(&path).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            stderr.contains(needle),
            "{name}: stderr does not name `{needle}`: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    abba()
        .args(["analyze", "/no/such/file.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/no/such/file.csv"));
}

#[test]
fn bad_flags_exit_2_naming_the_flag() {
    for (args, needle) in [
        (&["compute", "--chains", "0"][..], "--chains"),
        (&["compute", "--chains", "17"], "16"),
        (&["compute", "--duration", "-1"], "--duration"),
        (&["compute", "--op", "mul"], "--op"),
        (&["compute", "--threads", "0"], "--threads"),
        (&["compare", "--settle", "soon", "a", "b"], "--settle"),
        (
            &["compare", "--fail-if-slower", "200%", "a", "b"],
            "--fail-if-slower",
        ),
        (
            &["analyze", "--min-practical-effect", "2", "x.csv"],
            "min-practical-effect",
        ),
        (&["compare"], "needs a command"),
        // One command is measured alone, so a missing program is what is refused.
        (&["compare", "only-one"], "only-one"),
    ] {
        refused_with(args, 2, needle);
    }
}

#[test]
fn an_unknown_baseline_is_named_with_the_choices() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "t.csv", "variant,value\na,1\na,2\nb,4\nb,5\n");
    abba()
        .arg("analyze")
        .arg(&csv)
        .args(["--baseline", "c"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"c\"").and(predicate::str::contains("a, b")));
}

#[test]
fn compute_prints_one_line_or_one_json_object() {
    abba()
        .args(["compute", "--duration", "0.02", "--chains", "2"])
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(
                r"^int chains=2 threads=1: .*M ops/s \(.*M ops in 0\.0\d\d s\)\n$",
            )
            .unwrap(),
        );
    let out = abba()
        .args(["compute", "--duration", "0.02", "--op", "fp", "--json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    for key in [
        "op",
        "chains",
        "threads",
        "duration_s",
        "ops",
        "elapsed_s",
        "ops_per_sec",
        "checksum",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        abba()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("abba"));
    }
}

#[test]
fn sigint_mid_experiment_exits_130_and_leaves_analyzable_raw_data() {
    interrupt_mid_experiment("INT", 130);
}

#[test]
fn sigterm_mid_experiment_exits_143_and_leaves_analyzable_raw_data() {
    interrupt_mid_experiment("TERM", 143);
}

fn interrupt_mid_experiment(signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let bin = assert_cmd::cargo::cargo_bin("abba");
    let mut child = StdCommand::new(bin)
        .args([
            "compare", "--blocks", "200", "--warmup", "0", "--quiet", "--design", "random",
            "--seed", "5",
        ])
        .arg("--output")
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.06"])
        .env("NO_COLOR", "1")
        .spawn()
        .unwrap();
    // Wait until at least two blocks are on disk, then interrupt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let lines = std::fs::read_to_string(&raw)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 6 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    StdCommand::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(code));
    let text = std::fs::read_to_string(&raw).unwrap();
    for line in text.lines() {
        serde_json::from_str::<Value>(line).expect("every line parses after the signal");
    }
    let out = abba()
        .arg("analyze")
        .arg(&raw)
        .arg("--json")
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert!(v["groups"][0]["benchmarks"][0]["n"].as_u64().unwrap() >= 2);
}

#[test]
fn an_interrupted_experiment_resumes_to_completion() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let args = [
        "compare", "--blocks", "8", "--warmup", "0", "--quiet", "--design", "random", "--seed", "9",
    ];
    let bin = assert_cmd::cargo::cargo_bin("abba");
    let mut child = StdCommand::new(&bin)
        .args(args)
        .arg("--output")
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.05"])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::fs::read_to_string(&raw)
        .map(|t| t.lines().count())
        .unwrap_or(0)
        < 6
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    StdCommand::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let out = abba()
        .args(args)
        .arg("--resume")
        .arg(&raw)
        .args(["sleep 0.05", "sleep 0.05", "--json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["groups"][0]["comparisons"][0]["paired"]["blocks"], 8);
    let runs = std::fs::read_to_string(&raw)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"wall_ns\"") && !l.starts_with("{\"end\""))
        .count();
    assert_eq!(runs, 16);
    // The resumed session's runs say so, and the analysis counts the sessions as looks.
    let text = std::fs::read_to_string(&raw).unwrap();
    assert!(text.lines().any(|l| l.contains("\"session\":1")));
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(
            |w| w["code"] == "resumed" && w["message"].as_str().unwrap().contains("2 sessions")
        ),
        "{warnings:?}"
    );
}

#[test]
fn two_raw_sessions_merge_by_session_or_unpaired_when_forced() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for session in 0..2 {
        let raw = dir.path().join(format!("s{session}.jsonl"));
        abba()
            .args([
                "compare", "--blocks", "3", "--warmup", "0", "--quiet", "--json", "-n", "A", "-n",
                "B",
            ])
            .arg("--output")
            .arg(&raw)
            .args(["true", "true"])
            .assert()
            .success();
        files.push(raw);
    }
    // One experiment (the same derived id) on one host: its two sessions are the level
    // above the blocks, and the blocks stay paired.
    let out = abba()
        .arg("analyze")
        .args(&files)
        .arg("--json")
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["levels"]["top_level"], "session");
    assert_eq!(v["levels"]["sessions"], 2);
    assert!(v["groups"][0]["comparisons"][0]["paired"].is_object());
    let out = abba()
        .arg("analyze")
        .args(&files)
        .args(["--json", "--force-unpaired"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"unpaired-sessions"), "{codes:?}");
    assert!(v["groups"][0]["comparisons"][0]["paired"].is_null());
    assert_eq!(v["groups"][0]["benchmarks"][0]["n"], 12);
}

#[test]
fn the_demo_runs_the_kernel_pair_and_ends_with_the_next_step() {
    // The real demo is 12 blocks of 0.3 s runs; the hidden flags shorten it for the suite.
    // Compact, as compare's: the controls in one line, no per-block table.
    abba()
        .args(["--demo-blocks", "4", "--demo-duration", "0.03"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("chains=1")
                .and(predicate::str::contains("chains=2"))
                .and(predicate::str::contains("\ncontrols: "))
                .and(predicate::str::contains("Controls:").not())
                .and(predicate::str::contains("paired by block").not())
                .and(predicate::str::contains(
                    "abba compare 'old/bin --flag' 'new/bin --flag'",
                )),
        );
    // --verbose: the full report.
    abba()
        .args(["--demo-blocks", "4", "--demo-duration", "0.03", "--verbose"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("\nControls:\n")
                .and(predicate::str::contains("paired by block")),
        );
}

#[test]
fn bad_compare_settings_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ran.log");
    let a = format!("echo a >> {}", log.display());
    let b = format!("echo b >> {}", log.display());
    let cases: &[(&[&str], &str)] = &[
        (&["--baseline", "nope"], "nope"),
        (&["--timeout", "0s"], "--timeout"),
        (&["--export-json", "/no/such/dir/a.json"], "--export-json"),
        (
            &["--export-markdown", "/no/such/dir/a.md"],
            "--export-markdown",
        ),
        (&["--pin", "4095"], "--pin"),
        (&["--export-html", "/no/such/dir/a.html"], "--export-html"),
        (&["--export-svg", "/no/such/dir/charts"], "--export-svg"),
    ];
    for (flags, needle) in cases {
        abba()
            .args([
                "compare", "--blocks", "1", "--quiet", "--shell", "sh", "-n", "A", "-n", "B",
            ])
            .args(*flags)
            .arg(&a)
            .arg(&b)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*needle));
        assert!(!log.exists(), "{flags:?}: nothing may run");
    }
}

#[test]
fn a_closed_or_full_stdout_is_handled_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "t.csv", "variant,value\na,1\na,2\nb,4\nb,5\n");
    let bin = assert_cmd::cargo::cargo_bin("abba");
    // A reader that goes away at once (output far beyond a pipe's buffer): abba ends
    // quietly with 0 instead of panicking with 101.
    let out = StdCommand::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' compare --dry-run --blocks 20000 true 'sleep 0' | head -c 1 >/dev/null; echo \"status=${{PIPESTATUS[0]}}\"",
            bin.display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("status=0"),
        "{stdout} / {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    // A full stdout (`/dev/full`, Linux's) is a clear error too.
    if cfg!(target_os = "linux") {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = StdCommand::new(&bin)
            .arg("analyze")
            .arg(&csv)
            .arg("--json")
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("stdout"));
    }
}

#[test]
fn the_same_file_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "t.csv", "variant,value\na,1\na,2\nb,4\nb,5\n");
    abba()
        .arg("analyze")
        .arg(&csv)
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("twice"));
}

#[test]
fn dry_run_of_the_sequential_design_shows_one_session_per_variant() {
    abba()
        .args([
            "compare",
            "--dry-run",
            "--design",
            "sequential",
            "--blocks",
            "3",
            "-n",
            "A",
            "-n",
            "B",
            "true",
            "sleep 0",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("runs 1-3: 3 x A")
                .and(predicate::str::contains("runs 4-6: 3 x B")),
        );
}

#[test]
fn show_output_with_json_keeps_stdout_parseable() {
    let out = abba()
        .args([
            "compare",
            "--blocks",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--show-output",
            "--json",
        ])
        .args(["echo hello-from-a", "echo hello-from-b"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["schema"], "abba.analysis/1");
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("hello-from-a"));
}

#[test]
fn a_variant_whose_every_run_fails_is_a_command_failure() {
    let dir = tempfile::tempdir().unwrap();
    abba()
        .args([
            "compare",
            "--blocks",
            "2",
            "--warmup",
            "0",
            "--quiet",
            "--ignore-failure",
            "-n",
            "ok",
            "-n",
            "bad",
        ])
        .arg("--output")
        .arg(dir.path().join("r.jsonl"))
        .args(["true", "false"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("bad").and(predicate::str::contains("all 4 runs failed")));
}

#[test]
fn a_benchmark_by_variant_csv_gives_one_comparison_per_class() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("class,variant,value\n");
    for i in 0..8 {
        let j = f64::from(i) * 0.1;
        csv.push_str(&format!(
            "parse,old,{}\nparse,new,{}\nwrite,old,{}\nwrite,new,{}\n",
            10.0 + j,
            8.0 + j,
            50.0 + j,
            60.0 + j
        ));
    }
    let path = write(dir.path(), "classes.csv", &csv);
    let out = abba()
        .arg("analyze")
        .arg(&path)
        .args(["--baseline", "old", "--json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["class"], "parse");
    assert_eq!(groups[0]["baseline"], "old");
    assert_eq!(groups[0]["comparisons"][0]["outcome"], "faster");
    assert_eq!(groups[1]["class"], "write");
    assert_eq!(groups[1]["comparisons"][0]["outcome"], "slower");
    // Cross-class: one table, names repeat, each row still compared against the one baseline.
    let out = abba()
        .arg("analyze")
        .arg(&path)
        .args(["--cross-class", "--json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    assert_eq!(v["groups"][0]["comparisons"].as_array().unwrap().len(), 3);
}

/// The analysis flags carry no clap default (each overrides the one `AnalysisConfig`
/// builder's), so `--help` names the builder's default itself: the text after each flag,
/// up to the next flag, says `[default: X]` with X the builder's constant; and compare's
/// `--native-blocks` says `bench_sched::NATIVE_BLOCKS`.
#[test]
fn help_names_the_analysis_builders_defaults_for_flags_without_clap_defaults() {
    use bench_stats::AnalysisConfig;
    let defaults = [
        ("--alpha", AnalysisConfig::DEFAULT_ALPHA.to_string()),
        ("--resamples", AnalysisConfig::DEFAULT_RESAMPLES.to_string()),
        (
            "--min-practical-effect",
            AnalysisConfig::DEFAULT_MIN_PRACTICAL_EFFECT.to_string(),
        ),
        ("--practical", AnalysisConfig::default().practical.to_text()),
    ];
    let section = |help: &str, flag: &str| -> String {
        let start = help
            .find(&format!("      {flag} <"))
            .unwrap_or_else(|| panic!("{flag} is not in the help:\n{help}"));
        let rest = &help[start + flag.len() + 6..];
        let end = rest.find("\n      -").unwrap_or(rest.len());
        rest[..end].to_owned()
    };
    for command in ["compare", "analyze"] {
        let out = abba().args([command, "--help"]).output().unwrap();
        assert!(out.status.success());
        let help = String::from_utf8_lossy(&out.stdout);
        for (flag, default) in &defaults {
            let text = section(&help, flag);
            assert!(
                text.contains(&format!("[default: {default}]")),
                "abba {command} --help, {flag}: {text}"
            );
        }
        if command == "compare" {
            let text = section(&help, "--native-blocks");
            assert!(
                text.contains(&format!("[default: {}]", bench_sched::NATIVE_BLOCKS)),
                "{text}"
            );
        }
    }
}
