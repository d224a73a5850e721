//! `abba compare --until decided`, `--resume` extensions and `abba plan` through the
//! binary. The commands print fixed JSON metrics, so every block gives the same values and
//! the decisions are known in advance (no timing is asserted).

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    cmd
}

/// The JSON on stdout of a command that must have succeeded.
fn success_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn compare(dir: &std::path::Path, a: &str, b: &str, extra: &[&str]) -> (Value, String) {
    let out = abba()
        .args([
            "compare", "--json", "--seed", "3", "--warmup", "0", "--shell", "sh",
        ])
        .args(["--metric", "json:v", "--output"])
        .arg(dir.join("runs.jsonl"))
        .args(extra)
        .arg(format!("echo '{{\"v\": {a}}}'"))
        .arg(format!("echo '{{\"v\": {b}}}'"))
        .output()
        .unwrap();
    let v = success_json(&out);
    let raw = std::fs::read_to_string(dir.join("runs.jsonl")).unwrap();
    (v, raw)
}

#[test]
fn a_clear_change_stops_at_the_first_look_that_decides() {
    let dir = tempfile::tempdir().unwrap();
    let (v, raw) = compare(
        dir.path(),
        "1.0",
        "1.1",
        &["--until", "decided", "--max-blocks", "50"],
    );
    let c = &v["groups"][0]["comparisons"][0];
    assert_eq!(c["outcome"], "slower");
    // The sign sequence decides at 7 blocks (`decided_at`, its first decision); the stop
    // waits until every part of the shape check has its interval: the tails' eighth of
    // alpha needs 9 blocks of constant values.
    assert_eq!(c["sequential"]["decided_at"], 7);
    assert_eq!(c["sequential"]["looks"], 9);
    assert_eq!(c["sequential"]["stop"], "decided");
    assert_eq!(c["decision"]["test"], "confidence-sequence:sign-median");
    let lines: Vec<Value> = raw
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["stop_rule"]["max_blocks"], 50);
    assert_eq!(lines[0]["blocks"], 50);
    assert_eq!(lines.len(), 1 + 9 * 4 + 1, "header, 9 blocks, trailer");
    let end = &lines.last().unwrap()["end"]["sequence"];
    assert_eq!(end["decided_at"], 7);
    assert_eq!(end["looks"].as_array().unwrap().len(), 9);
    // The file analyzed again gives the same verdict from the same sequence.
    let out = abba()
        .args(["analyze", "--json"])
        .arg(dir.path().join("runs.jsonl"))
        .output()
        .unwrap();
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        again["groups"][0]["comparisons"][0]["sequential"],
        c["sequential"]
    );
    // A decided experiment has nothing to resume.
    let out = abba()
        .args(["compare", "--resume"])
        .arg(dir.path().join("runs.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("decided after 7 blocks"));
}

#[test]
fn identical_commands_stop_equivalent() {
    let dir = tempfile::tempdir().unwrap();
    let (v, _) = compare(dir.path(), "2.0", "2.0", &["--until", "decided"]);
    let c = &v["groups"][0]["comparisons"][0];
    assert_eq!(c["outcome"], "equivalent");
    assert_eq!(c["sequential"]["looks"], 7);
}

#[test]
fn extending_a_finished_experiment_is_a_further_look() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.jsonl");
    compare(dir.path(), "1.0", "1.0", &["--blocks", "8"]);
    let out = abba()
        .args(["compare", "--json", "--resume"])
        .arg(&path)
        .args(["--blocks", "10"])
        .output()
        .unwrap();
    let v = success_json(&out);
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert!(codes.contains(&"extended"), "{codes:?}");
    let s = &v["groups"][0]["comparisons"][0]["sequential"];
    assert_eq!(
        (s["looks"].as_u64(), s["extended"].as_bool()),
        (Some(10), Some(true))
    );
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["extended"][0]["from_blocks"], 8);
    assert_eq!(header["blocks"], 10);
}

#[test]
fn until_needs_two_variants_and_refuses_blocks() {
    let out = abba()
        .args(["compare", "--until", "decided", "--blocks", "5", "a", "b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = abba()
        .args([
            "compare",
            "--until",
            "decided",
            "--min-blocks",
            "30",
            "--max-blocks",
            "20",
            "true",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--min-blocks 30 is above --max-blocks 20")
    );
}

#[test]
fn plan_from_a_profile_in_words_and_json() {
    let out = abba()
        .args([
            "plan",
            "--profile",
            "quiet",
            "--effect",
            "2%",
            "--blocks",
            "20",
            "--json",
        ])
        .output()
        .unwrap();
    let v = success_json(&out);
    assert_eq!(v["schema"], "abba.plan/1");
    let plan = &v["plan"];
    assert!(plan["blocks_needed"].as_u64().unwrap() >= 6);
    assert!(plan["minimum_detectable_effect"].as_f64().unwrap() > 0.0);
    assert_eq!(plan["until_decided"].as_array().unwrap().len(), 4);
    let out = abba()
        .args(["plan", "--profile", "shared-vm", "--effect", "5%"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("power to detect a 5.0% change"), "{text}");
    assert!(text.contains("--until decided"), "{text}");
    let out = abba().args(["plan", "--effect", "5%"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A 10-block real pilot: the range of the blocks needed in words and in `abba.plan/1`
/// (additive fields beside the old ones), and the short-pilot warning with the pilot it
/// would take; the 60-block pilot of the same recording is not warned.
#[test]
fn plan_of_a_short_pilot_gives_a_range_and_a_warning() {
    let root = bench_docs::workspace_root();
    let short = root.join("fixtures/plan/quiet-e2-first10.jsonl");
    let out = abba()
        .args(["plan", "--effect", "2%", "--json"])
        .arg(&short)
        .output()
        .unwrap();
    let v = success_json(&out);
    let plan = &v["plan"];
    let point = plan["blocks_needed"].as_u64().unwrap();
    let range = &plan["blocks_needed_range"];
    let (low, high) = (
        range["low"].as_u64().unwrap(),
        range["high"].as_u64().unwrap(),
    );
    assert!(low <= point && point <= high, "{range}");
    assert_eq!(range["resamples"], 200);
    assert!(plan["centre"].as_f64().unwrap().is_finite());
    let warning = &plan["pilot_warning"];
    assert_eq!(
        warning.is_null(),
        high as f64 <= 1.5 * point as f64,
        "{plan}"
    );
    let text = String::from_utf8_lossy(
        &abba()
            .args(["plan", "--effect", "2%"])
            .arg(&short)
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    assert!(
        text.contains(&format!(
            "Blocks needed: {point} (range {low}-{high} from resampling the pilot"
        )),
        "{text}"
    );
    if let Some(advised) = warning["pilot_blocks_advised"].as_u64() {
        assert!(advised > 10);
        assert!(
            text.contains(&format!(
                "a pilot of about {advised} blocks would bring it within 1.5x"
            )),
            "{text}"
        );
    }
    let long = root.join("fixtures/plan/quiet-e2-first60.jsonl");
    let out = abba()
        .args(["plan", "--effect", "2%", "--json"])
        .arg(&long)
        .output()
        .unwrap();
    let v = success_json(&out);
    assert!(v["plan"]["pilot_warning"].is_null(), "{}", v["plan"]);
}

#[test]
fn ctrl_c_mid_sequence_leaves_a_file_whose_analysis_says_how_far_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("runs.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("abba"))
        .args(["compare", "--until", "decided", "--max-blocks", "60"])
        .args([
            "--warmup", "0", "--quiet", "--shell", "sh", "--metric", "json:v",
        ])
        .arg("--output")
        .arg(&raw)
        .args([
            "sleep 0.05; echo '{\"v\": 1.0}'",
            "sleep 0.05; echo '{\"v\": 1.1}'",
        ])
        .env("NO_COLOR", "1")
        .spawn()
        .unwrap();
    // Two complete blocks on disk (header + 8 runs), well before the 7 a decision needs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::fs::read_to_string(&raw).map_or(0, |t| t.lines().count()) < 9
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let out = abba()
        .args(["analyze", "--json"])
        .arg(&raw)
        .output()
        .unwrap();
    let v = success_json(&out);
    let c = &v["groups"][0]["comparisons"][0];
    assert_eq!(c["outcome"], "inconclusive", "{c}");
    let blocks = c["sequential"]["looks"].as_u64().unwrap();
    assert!((2..7).contains(&blocks), "{c}");
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("stopped after {blocks} blocks of at most 60")),
        "{summary}"
    );
}

#[test]
fn the_html_report_of_a_sequential_run_draws_its_confidence_sequence() {
    let dir = tempfile::tempdir().unwrap();
    compare(
        dir.path(),
        "1.0",
        "1.1",
        &["--until", "decided", "--max-blocks", "50"],
    );
    let html = dir.path().join("r.html");
    let svgs = dir.path().join("svg");
    abba()
        .arg("analyze")
        .arg(dir.path().join("runs.jsonl"))
        .arg("--export-html")
        .arg(&html)
        .arg("--export-svg")
        .arg(&svgs)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Confidence sequence over blocks"));
    let svg = std::fs::read_to_string(svgs.join("confidence-sequence.svg")).unwrap();
    assert!(svg.contains("class=\"sequence-last\""), "{svg}");
    // A fixed-count experiment has no sequence to draw.
    let fixed = tempfile::tempdir().unwrap();
    compare(fixed.path(), "1.0", "1.1", &["--blocks", "8"]);
    abba()
        .arg("analyze")
        .arg(fixed.path().join("runs.jsonl"))
        .arg("--export-svg")
        .arg(fixed.path().join("svg"))
        .assert()
        .success();
    assert!(!fixed.path().join("svg/confidence-sequence.svg").exists());
}

/// `docs/sequential.md` shows `abba plan` on the two committed pilots (`fixtures/plan/`)
/// exactly as it prints it: the plan's resampling is seeded, so the text is fixed.
#[test]
fn plan_of_the_committed_pilots_is_what_the_docs_show() {
    for command in [
        "abba plan fixtures/plan/quiet-e2-first10.jsonl --effect 2% --blocks 30",
        "abba plan fixtures/plan/quiet-e2-first60.jsonl --effect 2% --blocks 30",
    ] {
        let words: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = abba()
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .env_remove("COLUMNS")
            .args(&words)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut fig = bench_docs::Figure::new("docs/sequential.md", command);
        fig.record(String::from_utf8_lossy(&out.stdout));
        fig.check();
    }
}

#[test]
fn the_gate_of_a_sequential_experiment_reads_what_decided_it() {
    // The verdict of `--until decided` is the confidence sequence's; the gate must read
    // the same verdict and anytime-valid interval, not the shape check's fixed-sample
    // one taken at a stop the data chose (a QA finding: the gate said "significantly
    // worse ... in its typical run (p50)" beside an INCONCLUSIVE verdict). Each run's
    // value is its environment padding's length plus a constant: seeded, so fixed, and
    // spread enough that the sequence and the shape check disagree.
    let value = |base: u32| format!("echo \"{{\\\"v\\\": $(({base} + ${{#ABBA_LAYOUT_PAD}}))}}\"");
    for (b, max_blocks) in [(1300, "50"), (4000, "50")] {
        let dir = tempfile::tempdir().unwrap();
        let out = abba()
            .args([
                "compare", "--json", "--seed", "3", "--warmup", "0", "--shell", "sh",
            ])
            .args(["--metric", "json:v", "--output"])
            .arg(dir.path().join("runs.jsonl"))
            .args(["--until", "decided", "--max-blocks", max_blocks])
            .args(["--fail-if-slower", "5%"])
            .arg(value(1000))
            .arg(value(b))
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = &v["groups"][0]["comparisons"][0];
        assert_eq!(c["decision"]["test"], "confidence-sequence:sign-median");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("(p50)"),
            "no shape part names the gate:\n{err}"
        );
        if c["outcome"] == "slower" {
            assert_eq!(out.status.code(), Some(1), "{err}");
            let ci = c["ratio_ci"].as_array().unwrap();
            let quoted = format!(
                "interval [{:.4}, {:.4}]",
                ci[0].as_f64().unwrap(),
                ci[1].as_f64().unwrap()
            );
            assert!(err.contains(&quoted), "{quoted} in:\n{err}");
        } else {
            assert_eq!(out.status.code(), Some(0), "{}: {err}", c["outcome"]);
        }
    }
}
