//! `abba suite --shard K/N` and `--merge`: a suite split across jobs and put back together
//! gives the whole suite's report (verdicts, adjusted p's, exports) byte for byte; the
//! merge refuses shards of two suites, seeds or revisions, and names a missing shard.
//!
//! Each benchmark prints `{"v": X}` with X a function of how many times that benchmark's
//! variant has run so far (a counter file in the working directory), so the same blocks
//! give the same values whether they run in one suite or in a shard, whatever the
//! machine's load: the shards and the whole suite run in two directories.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn abba(dir: &Path) -> Command {
    let mut cmd = super::support::abba();
    cmd.env_remove("GITHUB_SHA")
        // No git repository: the shards' revision comes from $GITHUB_SHA alone.
        .env("GIT_DIR", dir.join("no-git"))
        .current_dir(dir);
    cmd
}

/// The ten benchmarks; with 3 shards the rule (FNV-1a of the name mod 3) gives shard 1
/// alpha, golf, india, juliet; shard 2 charlie, delta, echo; shard 3 bravo, foxtrot, hotel.
const NAMES: [&str; 10] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
];

/// A suite of `names`: the n-th run of a benchmark's variant prints
/// `100 + (n·a + variant·b) mod 11 + variant·shift`, head (variant 1) 6 above base in every
/// third benchmark and level with it in the others. `extra` is appended to `[settings]`.
fn suite(dir: &Path, names: &[&str], extra: &str) -> PathBuf {
    let mut text = format!(
        "[variants]\nbase = \"0\"\nhead = \"1\"\n\n[settings]\nshell = \"sh\"\nmetric = \"json:v\"\nunit = \"ms\"\nwarmup = 0\nblocks = 8\n{extra}\n"
    );
    for (i, name) in names.iter().enumerate() {
        let shift = if i % 3 == 0 { 6 } else { 0 };
        let command = format!(
            "f=c-{name}-{{name}}; n=$(cat $f 2>/dev/null || echo 0); n=$((n+1)); echo $n > $f; echo \"{{\\\"v\\\": $((100 + (n * {a} + {{variant}} * {b}) % 11 + {{variant}} * {shift}))}}\"",
            a = i + 2,
            b = i + 5,
        );
        text.push_str(&format!(
            "\n[[benchmark]]\nname = \"{name}\"\ncommand = {}\n",
            toml_string(&command)
        ));
    }
    let path = dir.join("abba.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Runs shard `k` of `n` in `dir` with `seed`, into `shard-K.jsonl`.
fn shard(dir: &Path, k: u32, n: u32, seed: u64) -> PathBuf {
    let out = dir.join(format!("shard-{k}.jsonl"));
    abba(dir)
        .args(["suite", "--no-step-summary", "-q", "--seed"])
        .arg(seed.to_string())
        .arg("--shard")
        .arg(format!("{k}/{n}"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    out
}

fn header(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The suite's outputs from `args` in `dir`: the JSON on stdout, the Markdown export and
/// the pull-request comment.
fn outputs(dir: &Path, args: &[&str]) -> (Value, String, String) {
    let out = abba(dir)
        .args(["suite", "--no-step-summary", "--json"])
        .args(args)
        .args(["--export-markdown", "report.md"])
        .args(["--export-pr-comment", "comment.md"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    (
        serde_json::from_slice(&out).unwrap(),
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        std::fs::read_to_string(dir.join("comment.md")).unwrap(),
    )
}

/// Each benchmark's name, verdict and adjusted p's, in the report's order.
fn verdicts(report: &Value) -> Vec<(String, Vec<String>, Vec<Value>)> {
    report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let outcomes = b["analysis"]["groups"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["comparisons"].as_array().unwrap())
                .map(|c| c["outcome"].as_str().unwrap().to_owned())
                .collect();
            (
                b["name"].as_str().unwrap().to_owned(),
                outcomes,
                b["p_values_adjusted"].as_array().unwrap().clone(),
            )
        })
        .collect()
}

#[test]
fn ten_benchmarks_run_as_three_shards_and_merged_report_what_the_whole_suite_reports() {
    let whole = tempfile::tempdir().unwrap();
    suite(whole.path(), &NAMES, "");
    let (one, one_md, one_comment) = outputs(whole.path(), &["--seed", "7"]);

    let split = tempfile::tempdir().unwrap();
    suite(split.path(), &NAMES, "");
    let files: Vec<PathBuf> = (1..=3).map(|k| shard(split.path(), k, 3, 7)).collect();
    let mut held = Vec::new();
    for (k, file) in files.iter().enumerate() {
        let h = header(file);
        assert_eq!(h["shard"]["index"], k as u64 + 1);
        assert_eq!(h["shard"]["count"], 3);
        assert_eq!(h["shard"]["benchmarks"], serde_json::json!(NAMES));
        assert_eq!(h["shard"]["suite"], header(&files[0])["shard"]["suite"]);
        assert!(h["shard"].get("revision").is_none());
        let names: Vec<String> = h["suite"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["name"].as_str().unwrap().to_owned())
            .collect();
        held.push(names);
    }
    assert_eq!(
        held,
        [
            vec!["alpha", "golf", "india", "juliet"],
            vec!["charlie", "delta", "echo"],
            vec!["bravo", "foxtrot", "hotel"],
        ]
    );

    // The files in any order.
    let (merged, merged_md, merged_comment) = outputs(
        split.path(),
        &["--merge", "shard-3.jsonl", "shard-1.jsonl", "shard-2.jsonl"],
    );
    let found = verdicts(&merged);
    assert_eq!(found, verdicts(&one));
    let changed: Vec<&str> = found
        .iter()
        .filter(|(_, o, _)| o.iter().any(|o| o == "slower"))
        .map(|(n, _, _)| n.as_str())
        .collect();
    // The values are fixed, so the verdicts are too: only benchmarks whose head is 6
    // above its base are slower, and the suite has both kinds.
    assert!(changed.len() >= 2, "{found:?}");
    assert!(
        changed
            .iter()
            .all(|n| ["alpha", "delta", "golf", "juliet"].contains(n)),
        "{found:?}"
    );
    assert_eq!(merged, one);
    assert_eq!(merged_md, one_md);
    // The comment's marker is the whole suite's experiment id.
    assert_eq!(merged_comment, one_comment);
}

#[test]
fn a_missing_shard_is_named_with_its_benchmarks_and_the_gate_does_not_pass() {
    let dir = tempfile::tempdir().unwrap();
    suite(dir.path(), &NAMES, "");
    shard(dir.path(), 1, 3, 7);
    shard(dir.path(), 3, 3, 7);
    abba(dir.path())
        .args(["suite", "--no-step-summary", "--fail-if-slower", "50%"])
        .args(["--merge", "shard-1.jsonl", "shard-3.jsonl"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "missing shard 2/3 (charlie, delta, echo); given shard-1.jsonl, shard-3.jsonl",
        ));
    // Two copies of one shard are not two shards.
    abba(dir.path())
        .args(["suite", "--no-step-summary"])
        .args(["--merge", "shard-1.jsonl", "shard-3.jsonl", "shard-1.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "shard-1.jsonl and shard-1.jsonl are both shard 1/3",
        ));
}

#[test]
fn shards_of_two_suites_seeds_or_revisions_are_refused_naming_the_files() {
    let first = tempfile::tempdir().unwrap();
    suite(first.path(), &NAMES[..4], "");
    shard(first.path(), 1, 2, 7);
    // The same benchmarks with a timeout: another suite.
    let other = tempfile::tempdir().unwrap();
    suite(other.path(), &NAMES[..4], "timeout = \"60s\"");
    let foreign = shard(other.path(), 2, 2, 7);
    abba(first.path())
        .args(["suite", "--no-step-summary", "--merge", "shard-1.jsonl"])
        .arg(&foreign)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "shard-1.jsonl and {} are shards of different suites",
            foreign.display()
        )));
    // The same suite with another seed.
    let reseeded = tempfile::tempdir().unwrap();
    suite(reseeded.path(), &NAMES[..4], "");
    let seeded = shard(reseeded.path(), 2, 2, 8);
    abba(first.path())
        .args(["suite", "--no-step-summary", "--merge", "shard-1.jsonl"])
        .arg(&seeded)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("different seeds (7 and 8)"));
    // The same suite and seed on another revision.
    let moved = tempfile::tempdir().unwrap();
    suite(moved.path(), &NAMES[..4], "");
    abba(moved.path())
        .env("GITHUB_SHA", "0123abcd")
        .args(["suite", "--no-step-summary", "-q", "--seed", "7"])
        .args(["--shard", "2/2", "-o", "shard-2.jsonl"])
        .assert()
        .success();
    let revised = moved.path().join("shard-2.jsonl");
    assert_eq!(header(&revised)["shard"]["revision"], "0123abcd");
    abba(first.path())
        .args(["suite", "--no-step-summary", "--merge", "shard-1.jsonl"])
        .arg(&revised)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "different revisions (unknown and 0123abcd)",
        ));
}

#[test]
fn a_shard_that_holds_no_benchmark_records_so_and_is_not_missed() {
    let dir = tempfile::tempdir().unwrap();
    // alpha is shard 1 of 3: shards 2 and 3 hold nothing.
    suite(dir.path(), &["alpha"], "");
    shard(dir.path(), 1, 3, 7);
    let empty = shard(dir.path(), 2, 3, 7);
    let h = header(&empty);
    assert_eq!(h["variants"], serde_json::json!([]));
    assert_eq!(h["shard"]["index"], 2);
    let text = std::fs::read_to_string(&empty).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    // With or without the empty shards' files, the one benchmark is reported.
    for files in [
        &["shard-1.jsonl"][..],
        &["shard-1.jsonl", "shard-2.jsonl"][..],
    ] {
        abba(dir.path())
            .args(["suite", "--no-step-summary", "--merge"])
            .args(files)
            .assert()
            .success()
            .stdout(predicate::str::contains("alpha"));
    }
}

#[test]
fn a_shard_needs_its_raw_file_and_seed_and_a_file_that_is_not_a_shard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    suite(dir.path(), &NAMES[..2], "");
    abba(dir.path())
        .args(["suite", "--shard", "1/2", "--seed", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--shard 1/2: give --output"));
    abba(dir.path())
        .args(["suite", "--shard", "1/2", "-o", "x.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--shard 1/2: give --seed N"));
    assert!(!dir.path().join("x.jsonl").exists());
    abba(dir.path())
        .args(["suite", "--shard", "3/2", "-o", "x.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--shard"));
    abba(dir.path())
        .args([
            "suite",
            "--no-step-summary",
            "-q",
            "--seed",
            "1",
            "-o",
            "whole.jsonl",
        ])
        .assert()
        .success();
    abba(dir.path())
        .args(["suite", "--merge", "whole.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "whole.jsonl: not a shard of a suite",
        ));
}

#[test]
fn a_suite_file_given_beside_merge_is_refused_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    suite(dir.path(), &NAMES[..2], "");
    let one = shard(dir.path(), 1, 1, 1);
    abba(dir.path())
        .arg("suite")
        .arg("abba.toml")
        .arg("--merge")
        .arg(&one)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--merge"))
        .stderr(predicate::str::contains("FILE"));
}
