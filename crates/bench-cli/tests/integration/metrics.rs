//! Deterministic data and several metrics of one run through the binary (issue 27):
//! identical values are EQUIVALENT under every estimator, a constant 0.05% is decided
//! from the fewest blocks that reach alpha, `--until decided` stops at its minimum,
//! `abba plan` and the pictures survive zero spread, `abba analyze --metric` re-decides a
//! file on another recorded metric (exit 2 naming the flag when it lacks it), and a
//! counted experiment shows its other metrics, the layout spread and valgrind's times as
//! valgrind's (valgrind part skipped only without valgrind and `ABBA_REQUIRE_VALGRIND`).
//!
//! The deterministic commands print a fixed JSON value (`--metric json:v`), which is what
//! counts are: the same number every run.

use assert_cmd::Command;
use bench_sched::{CounterProbe, SystemProbe};
use bench_stats::PairedEstimator;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1").env_remove("COLUMNS");
    cmd
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn prints(v: u64) -> String {
    format!("echo '{{\"v\": {v}}}'")
}

/// A raw file of `blocks` ABBA blocks of two commands printing `a` and `b`.
fn measured(dir: &std::path::Path, name: &str, a: u64, b: u64, extra: &[&str]) -> String {
    let raw = dir.join(name);
    let raw = raw.to_str().unwrap().to_owned();
    let (code, _, stderr) = run(abba()
        .args(["compare", "--quiet", "--metric", "json:v", "--warmup", "0"])
        .args(["-n", "A", "-n", "B", "--output", &raw])
        .args(extra)
        .arg(prints(a))
        .arg(prints(b)));
    assert_eq!(code, 0, "{stderr}");
    raw
}

fn analyzed(raw: &str, args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(abba()
        .args(["analyze", "--json", "--quiet"])
        .args(args)
        .arg(raw));
    assert_eq!(code, 0, "{args:?}: {stderr}");
    assert!(!stdout.contains("NaN"), "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn deterministic_values_are_decided_exactly_by_every_estimator() {
    let dir = tempfile::tempdir().unwrap();
    let same = measured(
        dir.path(),
        "same.jsonl",
        100_000,
        100_000,
        &["--blocks", "8"],
    );
    let five = measured(
        dir.path(),
        "five.jsonl",
        100_000,
        100_050,
        &["--blocks", "5"],
    );
    let six = measured(
        dir.path(),
        "six.jsonl",
        100_000,
        100_050,
        &["--blocks", "6"],
    );
    // The typical run needs 7 blocks (three quantiles at alpha / 3); its counts are
    // checked in bench-stats (shape module, verdicts.rs).
    for e in PairedEstimator::ALL
        .into_iter()
        .filter(|e| *e != PairedEstimator::TypicalRun)
    {
        let e = e.as_str();
        let c = &analyzed(&same, &["--estimator", e])["groups"][0]["comparisons"][0];
        assert_eq!(c["outcome"], "equivalent", "{e}: {c}");
        assert_eq!(c["ratio_ci"], serde_json::json!([1.0, 1.0]), "{e}");
        let tight = ["--estimator", e, "--equivalence-margin", "0.01%"];
        let c = &analyzed(&five, &tight)["groups"][0]["comparisons"][0];
        assert_eq!(c["verdict"], "not_tested", "{e}: {c}");
        let c = &analyzed(&six, &tight)["groups"][0]["comparisons"][0];
        assert_eq!(c["verdict"], "significant", "{e}: {c}");
        assert_eq!(c["outcome"], "slower", "{e}: {c}");
        let [lo, hi] = [c["ratio_ci"][0].as_f64(), c["ratio_ci"][1].as_f64()];
        assert!(
            (lo.unwrap() - 1.0005).abs() < 1e-9 && (hi.unwrap() - 1.0005).abs() < 1e-9,
            "{e}: an interval of zero width at the change: {c}"
        );
    }
    // The sentence shows the change and its interval with the digits they need.
    let (_, text, _) = run(abba().args([
        "analyze",
        "--verbose",
        "--estimator",
        "hl-min-log-ratio",
        "--equivalence-margin",
        "1%",
        &six,
    ]));
    assert!(
        text.contains("1.00050x [1.00050, 1.00050]") && text.contains("0.050% more v"),
        "{text}"
    );
    // The default, the typical run: at 6 blocks its mean run, at its extreme, decides
    // alone (adjusted p 2/64); with 7 every part shows the same exact change.
    let seven = measured(
        dir.path(),
        "seven.jsonl",
        100_000,
        100_050,
        &["--blocks", "7"],
    );
    let c = &analyzed(&six, &["--equivalence-margin", "0.01%"])["groups"][0]["comparisons"][0];
    assert_eq!(c["verdict"], "significant", "{c}");
    assert_eq!(c["outcome"], "slower", "{c}");
    let mean = &c["distribution"]["mean"];
    assert_eq!(mean["part"], "slower", "{c}");
    assert!(
        (mean["ratio"].as_f64().unwrap() - 1.0005).abs() < 1e-9,
        "{mean}"
    );
    let c = &analyzed(&seven, &["--equivalence-margin", "0.01%"])["groups"][0]["comparisons"][0];
    assert_eq!(c["outcome"], "slower", "{c}");
    for q in c["distribution"]["quantiles"].as_array().unwrap() {
        assert!((q["ratio"].as_f64().unwrap() - 1.0005).abs() < 1e-9, "{q}");
    }
    let (_, text, _) =
        run(abba().args(["analyze", "--verbose", "--equivalence-margin", "1%", &seven]));
    // A real change smaller than the margin, with the digits that show it.
    assert!(
        text.contains("typical run (p50) 1.00050x") && text.contains("EQUIVALENT"),
        "{text}"
    );
}

#[test]
fn until_decided_stops_at_its_minimum_on_deterministic_values() {
    let dir = tempfile::tempdir().unwrap();
    // Equivalence needs every part's 90% interval, there at 7 blocks; a direction needs
    // every part's interval at its share, the tails' from 9.
    for (name, b, outcome, stop) in [
        ("ab", 100_500, "slower", 9),
        ("aa", 100_000, "equivalent", 7),
    ] {
        let raw = measured(
            dir.path(),
            &format!("{name}.jsonl"),
            100_000,
            b,
            &[
                "--until",
                "decided",
                "--max-blocks",
                "30",
                "--equivalence-margin",
                "0.1%",
            ],
        );
        let c = &analyzed(&raw, &[])["groups"][0]["comparisons"][0];
        assert_eq!(c["outcome"], outcome, "{name}: {c}");
        // The sign sequence at alpha 0.05 decides from 7 blocks (`decided_at`).
        assert_eq!(c["sequential"]["decided_at"], 7, "{name}: {c}");
        assert_eq!(c["sequential"]["looks"], stop, "{name}: {c}");
        let runs = std::fs::read_to_string(&raw).unwrap();
        let blocks: std::collections::BTreeSet<u64> = runs
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["block"].as_u64())
            .collect();
        assert_eq!(
            blocks.len(),
            stop,
            "{name}: measured no block beyond the stop"
        );
    }
}

#[test]
fn plan_and_pictures_survive_zero_spread() {
    let dir = tempfile::tempdir().unwrap();
    let same = measured(
        dir.path(),
        "same.jsonl",
        100_000,
        100_000,
        &["--blocks", "8"],
    );
    let (code, stdout, stderr) = run(abba().args(["plan", &same]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stdout.contains("NaN") && !stdout.contains("inf"),
        "{stdout}"
    );
    assert!(stdout.contains("spread 0.0%"), "{stdout}");
    let html = dir.path().join("r.html");
    let svg = dir.path().join("svg");
    let (code, _, stderr) = run(abba()
        .args(["analyze", "--quiet", "--export-html"])
        .arg(&html)
        .arg("--export-svg")
        .arg(&svg)
        .arg(&same));
    assert_eq!(code, 0, "{stderr}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("NaN") && !page.contains("Infinity"),
        "NaN in the HTML"
    );
    let mut pictures = 0;
    for f in std::fs::read_dir(&svg).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
        pictures += 1;
    }
    assert!(pictures > 0);
}

#[test]
fn analyze_metric_re_decides_on_a_recorded_metric_and_names_the_flag_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let raw = measured(dir.path(), "r.jsonl", 100_000, 100_000, &["--blocks", "6"]);
    // Every run records its wall time: the same runs decided on it.
    let wall = analyzed(&raw, &["--metric", "wall"]);
    assert_eq!(wall["unit"], "ns");
    assert!(
        wall["groups"][0]["comparisons"][0]["ratio"]
            .as_f64()
            .is_some()
    );
    let rss = analyzed(&raw, &["--metric", "max-rss"]);
    assert_eq!(rss["unit"], "KiB");
    for (metric, needle) in [
        ("instructions", "does not record instructions"),
        ("json:other", "does not record json:other"),
        ("bogus", "unknown metric"),
    ] {
        let (code, _, stderr) = run(abba().args(["analyze", "--metric", metric, &raw]));
        assert_eq!(code, 2, "{metric}: {stderr}");
        assert!(
            stderr.contains("--metric") && stderr.contains(needle),
            "{stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
    let csv = dir.path().join("v.csv");
    std::fs::write(&csv, "variant,value\nA,1\nA,2\nB,1\nB,2\n").unwrap();
    let (code, _, stderr) = run(abba().args(["analyze", "--metric", "wall"]).arg(&csv));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--metric wall") && stderr.contains("raw file"),
        "{stderr}"
    );
}

fn have_valgrind(test: &str) -> bool {
    if SystemProbe.valgrind().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("ABBA_REQUIRE_VALGRIND").is_none(),
        "ABBA_REQUIRE_VALGRIND is set but valgrind is not on PATH"
    );
    println!("SKIPPED {test}: valgrind is not on PATH (apt-get install -y valgrind)");
    false
}

#[test]
fn a_counted_report_shows_the_other_metrics_as_valgrinds_and_the_layout_spread() {
    if !have_valgrind("a_counted_report_shows_the_other_metrics") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("c.jsonl");
    let raw_s = raw.to_str().unwrap();
    let (code, stdout, stderr) = run(abba().args([
        "compare",
        "--metric",
        "instructions",
        "--counter",
        "valgrind",
        "--blocks",
        "2",
        "--warmup",
        "0",
        "--output",
        raw_s,
        "/bin/true",
        "/bin/echo",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Other metrics of the same runs")
            && stdout.contains("wall ")
            && stdout.contains("(under valgrind, not the program's time)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("layout moves instructions by ±"),
        "{stdout}"
    );
    let json = analyzed(raw_s, &[]);
    let m = &json["metrics"];
    assert_eq!(m["decided_on"], "instructions");
    assert_eq!(m["counter"], "valgrind");
    assert_eq!(m["times_are_the_programs"], false);
    let effects = m["comparisons"][0]["metrics"].as_array().unwrap();
    let wall = effects.iter().find(|e| e["metric"] == "wall").unwrap();
    assert_eq!(wall["the_programs"], false, "{wall}");
    assert!(effects.iter().all(|e| e["metric"] != "instructions"));
    // Valgrind's times cannot decide: exit 2, naming the flag.
    let (code, _, stderr) = run(abba().args(["analyze", "--metric", "wall", raw_s]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.starts_with("abba: error: --metric wall: the file was counted under valgrind"),
        "{stderr}"
    );
}

#[test]
fn a_counted_run_that_fails_loses_nothing() {
    if !have_valgrind("a_counted_run_that_fails_loses_nothing") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("f.jsonl");
    let raw_s = raw.to_str().unwrap();
    let (code, _, stderr) = run(abba().args([
        "compare",
        "--metric",
        "instructions",
        "--counter",
        "valgrind",
        "--blocks",
        "2",
        "--warmup",
        "0",
        "--layout",
        "fixed",
        "--design",
        "sequential",
        "--output",
        raw_s,
        "/bin/true",
        "/bin/false",
    ]));
    assert_eq!(code, 3, "a failing command is exit 3: {stderr}");
    assert!(
        stderr.contains(raw_s),
        "the message names the kept file: {stderr}"
    );
    let text = std::fs::read_to_string(&raw).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is valid JSON"))
        .collect();
    // Header, A's two counted runs, B's failed run (with its exit code), the end line.
    let runs: Vec<&Value> = lines
        .iter()
        .filter(|v| v.get("wall_ns").is_some())
        .collect();
    assert_eq!(runs.len(), 3, "{text}");
    assert!(
        runs[..2]
            .iter()
            .all(|r| r["instructions"].as_u64().unwrap() > 0),
        "{text}"
    );
    assert_eq!(runs[2]["exit_code"], 1, "{text}");
    assert_eq!(lines.last().unwrap()["end"]["status"], "failed", "{text}");
    // The failed run is kept with its count too (valgrind counted it to its exit).
    assert!(runs[2]["instructions"].as_u64().is_some(), "{text}");
}

/// A raw file as the PMU would write it: B executes 2.1% fewer instructions than A but
/// takes 3.4% more wall time (a little jitter on both, by run).
fn pmu_file(dir: &std::path::Path) -> String {
    let raw = measured(dir, "base.jsonl", 100, 100, &["--blocks", "8"]);
    let text = std::fs::read_to_string(&raw).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if i == 0 {
            v["counter"] = "pmu".into();
            v["metric"] = "instructions".into();
            v["unit"] = "instructions".into();
        } else if v.get("wall_ns").is_some() {
            let b = v["variant"] == "B";
            let k = v["run"].as_u64().unwrap();
            let jitter = (k * 7919 % 13) as f64;
            let instructions = if b { 979_000.0 } else { 1_000_000.0 } + jitter;
            let wall = (if b { 1.034e7 } else { 1.0e7 }) * (1.0 + jitter * 1e-4);
            v["instructions"] = (instructions as u64).into();
            v["cycles"] = ((wall * 3.0) as u64).into();
            v["wall_ns"] = (wall as u64).into();
            v["metric"] = instructions.into();
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let path = dir.join("pmu.jsonl");
    std::fs::write(&path, out).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn metrics_that_disagree_beyond_their_intervals_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let raw = pmu_file(dir.path());
    let doc = analyzed(&raw, &[]);
    assert_eq!(doc["groups"][0]["comparisons"][0]["outcome"], "faster");
    let m = &doc["metrics"];
    assert_eq!(m["times_are_the_programs"], true);
    let wall = m["comparisons"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["metric"] == "wall")
        .unwrap()
        .clone();
    assert_eq!(wall["direction"], "larger", "{wall}");
    assert_eq!(wall["the_programs"], true);
    let warnings = doc["warnings"].as_array().unwrap();
    let w = warnings
        .iter()
        .find(|w| w["code"] == "metrics-disagree")
        .unwrap_or_else(|| panic!("no metrics-disagree warning: {warnings:?}"));
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .starts_with("B executes 2.1% fewer instructions but takes 3.4% more time than A"),
        "{w}"
    );
    // The console says so, and names the PMU's times as the program's (no valgrind note).
    let (_, text, _) = run(abba().args(["analyze", &raw]));
    assert!(
        text.contains("B executes 2.1% fewer instructions"),
        "{text}"
    );
    assert!(!text.contains("under valgrind"), "{text}");
    // The same runs re-decided on wall time, and on cycles.
    let wall = analyzed(&raw, &["--metric", "wall"]);
    assert_eq!(wall["groups"][0]["comparisons"][0]["outcome"], "slower");
    assert_eq!(wall["metrics"]["decided_on"], "wall");
    let cycles = analyzed(&raw, &["--metric", "cycles"]);
    assert_eq!(cycles["unit"], "cycles");
    assert_eq!(cycles["groups"][0]["comparisons"][0]["outcome"], "slower");
}
