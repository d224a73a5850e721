//! `abba suite --until decided`, `--time-budget` (suite and `compare --until decided`) and
//! `--variant NAME=VALUE` end to end (issue 38, "Also missing"): each benchmark stops at
//! its own decision while the others run on, a budget ends the experiment at a block
//! boundary and says so in the report, the JSON and the raw file, which `--resume`
//! continues, and the command line replaces a variant's value without an edited file.
//!
//! The decisions come from benchmarks that print their value as JSON (`json:v`), so they
//! do not depend on how busy the machine is; the budgets are set far below what the plan
//! needs (a minimum of 100 blocks of 80 ms against 1 s), so only the budget can end them.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::Value;

use super::support::{abba, json, refused_with, script, write};

/// A script printing `{"v": 100}` for the base and, for the head, 95 and 105 in
/// alternate blocks (its two runs a block share a count kept in the file `$1`): block
/// ratios of 0.95 and 1.05 in turn, which no sequence can call a change or equivalent.
fn seesaw(dir: &Path) -> PathBuf {
    let path = dir.join("seesaw.sh");
    std::fs::write(
        &path,
        "#!/bin/sh
if [ \"$2\" = base ]; then echo '{\"v\": 100}'; exit 0; fi
         n=$(cat \"$1\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$1\"
         if [ $(( (n / 2) % 2 )) = 0 ]; then echo '{\"v\": 95}'; else echo '{\"v\": 105}'; fi
",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Three benchmarks: `changed` (head 5% above base), `same` (identical values) and
/// `noisy` (head 5% below and above base in alternate blocks: never decided).
fn three(dir: &Path) -> PathBuf {
    let sh = script(dir).display().to_string();
    let seesaw = seesaw(dir).display().to_string();
    let count = dir.join("count").display().to_string();
    write(
        dir,
        "abba.toml",
        &format!(
            "[variants]\nbase = \"1.00\"\nhead = \"1.05\"\n\n[settings]\nmetric = \"json:v\"\nwarmup = 0\n\n\
             [[benchmark]]\nname = \"changed\"\ncommand = \"{sh} {{variant}} noisy\"\n\n\
             [[benchmark]]\nname = \"same\"\ncommand = \"{sh} 1.0 {{name}}\"\n\n\
             [[benchmark]]\nname = \"noisy\"\ncommand = \"{seesaw} {count} {{name}}\"\n"
        ),
    )
}

/// Each benchmark's blocks in a raw file.
fn blocks_of(raw: &Path, benchmark: &str) -> usize {
    let text = std::fs::read_to_string(raw).unwrap();
    let mut blocks: Vec<u64> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["benchmark"] == benchmark)
        .filter_map(|v| v["block"].as_u64())
        .collect();
    blocks.dedup();
    blocks.len()
}

/// The end lines of a raw file.
fn ends(raw: &Path) -> Vec<Value> {
    std::fs::read_to_string(raw)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("end").cloned())
        .collect()
}

fn comparison<'a>(report: &'a Value, benchmark: &str) -> &'a Value {
    let b = report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == benchmark)
        .unwrap();
    &b["analysis"]["groups"][0]["comparisons"][0]
}

#[test]
fn a_suite_until_decided_stops_each_benchmark_at_its_decision_and_runs_the_rest_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = three(dir.path());
    let raw = dir.path().join("r.jsonl");
    let out = abba()
        .arg("suite")
        .arg(&file)
        .args([
            "--until",
            "decided",
            "--max-blocks",
            "16",
            "--seed",
            "5",
            "--json",
        ])
        .arg("-o")
        .arg(&raw)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let report = json(&out);
    // Each benchmark's sequence ran at the suite's alpha over its 3 benchmarks.
    let level = report["stop"]["sequential_level"].as_f64().unwrap();
    assert!((level - 0.05 / 3.0).abs() < 1e-12, "{level}");
    assert_eq!(report["stop"]["stop"], "max-blocks");
    let changed = comparison(&report, "changed");
    assert_eq!(changed["outcome"], "slower");
    assert_eq!(changed["sequential"]["stop"], "decided");
    assert!((changed["sequential"]["alpha"].as_f64().unwrap() - level).abs() < 1e-12);
    let same = comparison(&report, "same");
    assert_eq!(same["outcome"], "equivalent");
    assert_eq!(same["sequential"]["stop"], "decided");
    let noisy = comparison(&report, "noisy");
    assert_eq!(noisy["outcome"], "inconclusive");
    assert_eq!(noisy["sequential"]["stop"], "max-blocks");
    // A decided benchmark ran in no further block than its stop (its last look, where
    // the sequence and the shape check agreed); the undecided one ran every block.
    assert_eq!(blocks_of(&raw, "noisy"), 16);
    for c in [changed, same] {
        let looks = c["sequential"]["looks"].as_u64().unwrap() as usize;
        let decided_at = c["sequential"]["decided_at"].as_u64().unwrap() as usize;
        assert!(decided_at <= looks && looks < 16, "{decided_at} {looks}");
    }
    assert_eq!(
        blocks_of(&raw, "changed"),
        changed["sequential"]["looks"].as_u64().unwrap() as usize
    );
    assert_eq!(
        blocks_of(&raw, "same"),
        same["sequential"]["looks"].as_u64().unwrap() as usize
    );
    assert_eq!(ends(&raw).last().unwrap()["status"], "complete");
}

#[test]
fn the_suite_report_states_each_benchmarks_level_and_why_the_suite_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let file = three(dir.path());
    let md = dir.path().join("report.md");
    abba()
        .arg("suite")
        .arg(&file)
        .args([
            "--until",
            "decided",
            "--max-blocks",
            "16",
            "--seed",
            "5",
            "-q",
        ])
        .arg("--export-markdown")
        .arg(&md)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains(
            "each benchmark looked after every block at level 0.016667 (alpha 0.05 over 3 benchmarks, Bonferroni: any false claim in the suite at most 0.05); 1 benchmark undecided at the limit of 16 blocks."
        ),
        "{text}"
    );
}

#[test]
fn a_suite_until_decided_that_cannot_decide_by_its_limit_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = three(dir.path());
    let args = [
        "suite",
        file.to_str().unwrap(),
        "--until",
        "decided",
        "--max-blocks",
        "5",
    ];
    let err = refused_with(&args, 2, "--max-blocks 5");
    assert!(err.contains("cannot decide before"), "{err}");
    assert!(!dir.path().join("abba-suite.jsonl").exists());
}

/// A suite of one A/A benchmark of 20 ms sleeps that cannot decide before 100 blocks.
fn slow_aa(dir: &Path) -> PathBuf {
    write(
        dir,
        "slow.toml",
        "[variants]\nbase = \"0.02\"\nhead = \"0.02\"\n\n[settings]\nwarmup = 0\n\n[[benchmark]]\nname = \"nap\"\ncommand = \"sleep {variant}\"\n",
    )
}

#[test]
fn a_suite_time_budget_ends_at_a_block_boundary_says_so_and_resume_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = slow_aa(dir.path());
    let raw = dir.path().join("r.jsonl");
    let run = |extra: &[&str]| {
        let out = abba()
            .arg("suite")
            .arg(&file)
            .args(["--time-budget", "1s", "--json"])
            .args(extra)
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        json(&out)
    };
    let first = run(&[
        "--until",
        "decided",
        "--min-blocks",
        "100",
        "--max-blocks",
        "100",
        "-o",
        raw.to_str().unwrap(),
    ]);
    assert_eq!(first["stop"]["stop"], "time-budget");
    assert_eq!(first["stop"]["time_budget_s"], 1.0);
    let blocks = first["stop"]["blocks"].as_u64().unwrap();
    assert!((1..100).contains(&blocks), "{blocks}");
    let nap = comparison(&first, "nap");
    assert_eq!(nap["sequential"]["stop"], "time-budget");
    assert!(
        nap["summary"]
            .as_str()
            .unwrap()
            .contains("--time-budget ran out"),
        "{}",
        nap["summary"]
    );
    // The raw file ends on a block boundary with the budget's end line.
    assert_eq!(blocks_of(&raw, "nap") as u64, blocks);
    let end = ends(&raw).pop().unwrap();
    assert_eq!(end["status"], "time-budget");
    assert_eq!(end["time_budget_ns"], 1_000_000_000u64);
    // --resume continues it under the rule the file records.
    let second = run(&["--resume", raw.to_str().unwrap()]);
    assert_eq!(second["stop"]["stop"], "time-budget");
    assert!(second["stop"]["blocks"].as_u64().unwrap() > blocks);
    assert_eq!(ends(&raw).len(), 2);
}

#[test]
fn compare_until_decided_with_a_time_budget_says_the_budget_ended_it() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("c.jsonl");
    let out = abba()
        .args(["compare", "--until", "decided", "--min-blocks", "100"])
        .args([
            "--max-blocks",
            "100",
            "--time-budget",
            "1s",
            "--warmup",
            "0",
        ])
        .args(["--json", "-o"])
        .arg(&raw)
        .args(["sleep 0.02", "sleep 0.02"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let report = json(&out);
    let c = &report["groups"][0]["comparisons"][0];
    assert_eq!(c["sequential"]["stop"], "time-budget");
    assert_eq!(c["outcome"], "inconclusive");
    let end = ends(&raw).pop().unwrap();
    assert_eq!(end["status"], "time-budget");
    assert_eq!(end["sequence"]["stop"], "time-budget");
    // Reading the file back gives the same stop.
    let again = abba()
        .args(["analyze", "--json"])
        .arg(&raw)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        json(&again)["groups"][0]["comparisons"][0]["sequential"]["stop"],
        "time-budget"
    );
}

#[test]
fn variant_on_the_command_line_replaces_the_files_value() {
    let dir = tempfile::tempdir().unwrap();
    let file = slow_aa(dir.path());
    abba()
        .arg("suite")
        .arg(&file)
        .args(["--list", "--variant", "head=0.01"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("base: sleep 0.02"))
        .stdout(predicate::str::contains("head: sleep 0.01"));
    // The run records the command it ran.
    let raw = dir.path().join("r.jsonl");
    abba()
        .arg("suite")
        .arg(&file)
        .args(["--variant", "base=0.001", "--variant", "head=0.001"])
        .args(["--blocks", "1", "-q", "-o"])
        .arg(&raw)
        .assert()
        .code(0);
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&raw)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["variants"][0]["command"], "sleep 0.001");
    assert_eq!(header["variants"][1]["command"], "sleep 0.001");
}

#[test]
fn variant_with_an_unknown_name_or_no_value_exits_2_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = slow_aa(dir.path());
    let file = file.to_str().unwrap();
    let unknown = ["suite", file, "--list", "--variant", "tip=./build"];
    let err = refused_with(&unknown, 2, "--variant tip=./build");
    assert!(err.contains("it has: base, head"), "{err}");
    let bare = ["suite", file, "--list", "--variant", "head"];
    refused_with(&bare, 2, "--variant \"head\": expected NAME=VALUE");
}

/// A suite of two benchmarks of `true` (fast, nothing to measure), `first` and `second`.
fn two_trues(dir: &Path, name: &str, [first, second]: [&str; 2]) -> PathBuf {
    write(
        dir,
        name,
        &format!(
            "[variants]\nbase = \"a\"\nhead = \"b\"\n\n[settings]\nwarmup = 0\n\n\
             [[benchmark]]\nname = \"{first}\"\ncommand = \"true {{variant}}\"\n\n\
             [[benchmark]]\nname = \"{second}\"\ncommand = \"true {{variant}}\"\n"
        ),
    )
}

#[test]
fn every_stop_rule_resume_and_merge_refusal_of_a_suite_names_its_flag_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = two_trues(d, "s.toml", ["t", "u"]);
    let file = file.to_str().unwrap();
    // A suite of a fixed number of blocks, to resume.
    let fixed = d.join("fixed.jsonl");
    abba()
        .args(["suite", file, "--blocks", "2", "-q", "-o"])
        .arg(&fixed)
        .assert()
        .code(0);
    let fixed = fixed.to_str().unwrap();
    let before = std::fs::read(fixed).unwrap();
    let lines = |e: &str| e.trim().lines().count();
    let err = refused_with(
        &["suite", file, "--resume", fixed, "--until", "decided"],
        2,
        "--until decided: the file to --resume ran a fixed number of blocks",
    );
    assert!(
        err.contains("resume it without --until (or give --blocks to extend it)")
            && lines(&err) == 1,
        "{err}"
    );
    // --min-blocks past --max-blocks names both, and what to change.
    let err = refused_with(
        &[
            "suite",
            file,
            "--until",
            "decided",
            "--min-blocks",
            "300",
            "--max-blocks",
            "100",
        ],
        2,
        "--min-blocks 300 with --max-blocks 100:",
    );
    assert!(
        err.contains("give --max-blocks 300 or more, or a smaller --min-blocks"),
        "{err}"
    );
    // The level alone: the flag, where the level comes from, and the fewest blocks.
    refused_with(
        &["suite", file, "--until", "decided", "--max-blocks", "3"],
        2,
        "--max-blocks 3: each benchmark's sequence runs at level 0.025 (--alpha 0.05 over 2 \
         benchmarks) and cannot decide before 8 blocks: give --max-blocks 8 or more",
    );
    // A file to resume that cannot be read, or of another suite.
    let missing = d.join("missing.jsonl");
    let err = refused_with(
        &["suite", file, "--resume", missing.to_str().unwrap()],
        2,
        "--resume: ",
    );
    assert!(err.contains("missing.jsonl"), "{err}");
    let other = two_trues(d, "other.toml", ["x", "y"]);
    refused_with(
        &["suite", other.to_str().unwrap(), "--resume", fixed],
        2,
        "its benchmarks (t, u) are none of this suite file's (x, y)",
    );
    // Files to merge that are not shards, or cannot be read.
    let err = refused_with(&["suite", "--merge", fixed], 2, "--merge: ");
    assert!(err.contains("not a shard of a suite"), "{err}");
    refused_with(
        &["suite", "--merge", missing.to_str().unwrap()],
        2,
        "--merge: ",
    );
    // Nothing ran: the resumed file is as it was, and no other raw file was written.
    assert_eq!(std::fs::read(fixed).unwrap(), before);
    assert!(!d.join("abba-suite.jsonl").exists());
}
