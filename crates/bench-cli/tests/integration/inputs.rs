//! `abba analyze` on imperfect saved data, through the binary: what is dropped or warned
//! about and analyzed anyway, and what is refused (exit 2) with a message naming the format
//! expected and the line at fault.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The committed paired CSV (12 blocks, A and B), as text.
fn paired_two() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/paired_two.csv");
    std::fs::read_to_string(path).unwrap()
}

/// `abba analyze PATH --json --seed 1`: exit 0, and the analysis document.
fn analyze_json(path: &Path) -> Value {
    let out = abba()
        .arg("analyze")
        .arg(path)
        .args(["--json", "--seed", "1"])
        .assert()
        .code(0);
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The `(code, message)` of every warning of an analysis document.
fn warnings(doc: &Value) -> Vec<(String, String)> {
    doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["code"].as_str().unwrap().to_owned(),
                w["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `abba analyze PATH`: exit 2, and stderr.
fn refused(path: &Path) -> String {
    let out = abba().arg("analyze").arg(path).assert().code(2);
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

#[test]
fn a_csv_block_lacking_a_variant_is_dropped_like_a_raw_one() {
    let dir = tempfile::tempdir().unwrap();
    // Drop B's row of block 6 (the 7th block) from the committed 12-block file.
    let text: String = paired_two()
        .lines()
        .filter(|l| !(l.starts_with("B,") && l.ends_with(",6")))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(text.lines().count(), 24, "one row removed");
    let path = write(dir.path(), "gap.csv", &text);
    let doc = analyze_json(&path);
    let incomplete: Vec<String> = warnings(&doc)
        .into_iter()
        .filter(|(code, _)| code == "incomplete-blocks")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(incomplete.len(), 1, "{doc}");
    assert!(
        incomplete[0].ends_with(
            "block 7 (block column 6, line 14) lacks B: dropped; 11 of 12 blocks remain"
        ),
        "{}",
        incomplete[0]
    );
    let paired = &doc["groups"][0]["comparisons"][0]["paired"];
    assert_eq!(paired["blocks"], 11, "{doc}");
    assert_eq!(
        doc["groups"][0]["benchmarks"][0]["n"], 11,
        "A lost its row of block 7"
    );
}

#[test]
fn unbalanced_csv_blocks_name_the_first_row_of_the_offending_block_or_variant() {
    let dir = tempfile::tempdir().unwrap();
    // B's first row is line 3, but the block only B ran in starts at line 6.
    let path = write(
        dir.path(),
        "extra.csv",
        "variant,value,block\nA,1,0\nB,2,0\nA,3,1\nB,4,1\nB,5,2\n",
    );
    let doc = analyze_json(&path);
    assert!(
        warnings(&doc)
            .iter()
            .any(|(code, m)| code == "incomplete-blocks"
                && m.ends_with(
                    "block 3 (block column 2, line 6) lacks A: dropped; 2 of 3 blocks remain"
                )),
        "{doc}"
    );
    // Variants that share no block are refused, naming the first row of the one that shares
    // none with those before it.
    let path = write(
        dir.path(),
        "disjoint.csv",
        "variant,value,block\nA,1,0\nA,3,1\nB,2,2\nB,4,3\n",
    );
    let stderr = refused(&path);
    assert!(
        stderr
            .contains("disjoint.csv:4: variant \"B\" has blocks {2,3} and shares none with \"A\""),
        "{stderr}"
    );
}

#[test]
fn a_repeated_variant_block_row_is_kept_but_named() {
    let dir = tempfile::tempdir().unwrap();
    let plain = analyze_json(&write(dir.path(), "plain.csv", &paired_two()));
    assert!(
        warnings(&plain).iter().all(|(code, _)| code != "input"),
        "{plain}"
    );
    // The issue's case: `A,500,3` appended to a valid paired file (block column 3 is the
    // 4th block; A's first row of it is line 8, the appended row line 26).
    let path = write(dir.path(), "dup.csv", &format!("{}A,500,3\n", paired_two()));
    let doc = analyze_json(&path);
    assert!(
        warnings(&doc).iter().any(|(code, m)| code == "input"
            && m.ends_with(
                "block 4 holds 2 values of A (lines 8, 26), the others 1: \
                 unequal counts, as a duplicated or missing row leaves; each value is kept \
                 as a run of the block (an estimator of one value a block reads their mean)"
            )),
        "{doc}"
    );
    assert_eq!(
        doc["groups"][0]["benchmarks"][0]["n"], 13,
        "the row is kept"
    );
}

/// A raw JSONL file written by `compare --output` (the committed two-variant one).
fn raw_two() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/raw_two.jsonl");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn errors_name_the_format_expected_and_the_line_at_fault() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_two();
    let body: String = raw.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let third_run = raw.lines().nth(3).unwrap();
    let run_lines = raw.lines().count();
    let duplicated = format!("{raw}{third_run}\n");
    let cases: &[(&str, &str, String)] = &[
        (
            "empty.jsonl",
            "",
            "empty.jsonl: empty file: a raw JSONL file starts with an abba.raw/1 header line"
                .to_owned(),
        ),
        (
            "empty.json",
            "",
            "empty.json: empty file: a hyperfine --export-json file is a JSON object {\"results\""
                .to_owned(),
        ),
        (
            "headless.jsonl",
            &body,
            "headless.jsonl:1: the header line is missing: line 1 is a run line".to_owned(),
        ),
        (
            "array.json",
            "[{\"command\": \"a\", \"times\": [0.1]}]\n",
            "array.json: a JSON array is not a hyperfine export: a hyperfine --export-json file \
             is a JSON object {\"results\": [{\"command\": \"...\", \"times\": [seconds, ...]}"
                .to_owned(),
        ),
        (
            "dup.jsonl",
            &duplicated,
            format!("dup.jsonl:{}: duplicate run line: run 2 ", run_lines + 1),
        ),
    ];
    for (name, text, needle) in cases {
        let stderr = refused(&write(dir.path(), name, text));
        assert!(
            stderr.contains(needle.as_str()),
            "{name}: stderr does not contain `{needle}`: {stderr}"
        );
        assert!(
            stderr.contains("at line 4") || *name != "dup.jsonl",
            "{name}: the first copy's line: {stderr}"
        );
    }
}

#[test]
fn an_unknown_design_metric_or_end_status_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_two();
    let runs = raw.lines().count();
    let cases = [
        (
            r#""design":"abba""#,
            r#""design":"counterbalanced""#,
            1,
            "unknown design \"counterbalanced\"",
        ),
        (
            r#""metric":"json:v""#,
            r#""metric":"speed""#,
            1,
            "unknown metric \"speed\"",
        ),
        (
            r#""layout":"random""#,
            r#""layout":"shuffled""#,
            1,
            "unknown layout \"shuffled\"",
        ),
        (
            r#""shell":"none""#,
            r#""shell":"bash""#,
            1,
            "unknown shell \"bash\"",
        ),
    ];
    for (from, to, line, needle) in cases {
        assert!(raw.contains(from), "{from}");
        let path = write(dir.path(), "bad.jsonl", &raw.replacen(from, to, 1));
        let stderr = refused(&path);
        assert!(
            stderr.contains(&format!("bad.jsonl:{line}: ")) && stderr.contains(needle),
            "{to}: {stderr}"
        );
    }
    let ended = raw.replacen(r#""status":"complete""#, r#""status":"done""#, 1);
    let stderr = refused(&write(dir.path(), "ended.jsonl", &ended));
    assert!(
        stderr.contains(&format!("ended.jsonl:{runs}: "))
            && stderr.contains("unknown end status \"done\""),
        "{stderr}"
    );
}

#[test]
fn analyze_dash_reads_standard_input_of_any_format() {
    let dir = tempfile::tempdir().unwrap();
    // The same document from stdin as from the file, for a CSV and for a raw file (whose
    // recorded seed and controls come along).
    for (name, text) in [("paired.csv", paired_two()), ("raw.jsonl", raw_two())] {
        let from_file = analyze_json(&write(dir.path(), name, &text));
        let out = abba()
            .args(["analyze", "-", "--json", "--seed", "1"])
            .write_stdin(text)
            .assert()
            .code(0);
        let from_stdin: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let strip = |doc: &Value| {
            doc.to_string()
                .replace(&dir.path().join(name).display().to_string(), "FILE")
        };
        assert_eq!(
            strip(&from_stdin).replace("<stdin>", "FILE"),
            strip(&from_file),
            "{name}"
        );
    }
    // Errors name standard input; an empty one says what it could have been.
    let out = abba()
        .args(["analyze", "-"])
        .write_stdin("variant,value\nA,1\nA,x\n")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("<stdin>:3:2: value \"x\" is not a number"),
        "{stderr}"
    );
    let out = abba()
        .args(["analyze", "-"])
        .write_stdin("")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("<stdin>: empty input: expected raw JSONL"),
        "{stderr}"
    );
    let out = abba()
        .args(["analyze", "-", "-"])
        .write_stdin("variant,value\nA,1\n")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("standard input) is given twice"),
        "{stderr}"
    );
    // And the help says so.
    let out = abba().args(["analyze", "--help"]).assert().code(0);
    let help = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("`-` reads standard input"), "{help}");
}
