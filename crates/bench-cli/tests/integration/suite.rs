//! `abba suite` end to end: the suite file's errors, --list/--dry-run/--only, a run whose
//! changed benchmarks are found and unchanged ones left alone, the CI outputs checked
//! against their published schemas, the gate, and an interrupted suite resumed.
//!
//! The benchmarks print their value as JSON (`--metric json:v` via the file's
//! `metric`), so what changed is known exactly and the verdicts do not depend on how busy
//! the machine is: the changed ones add a pseudo-random spread from the process id.

use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;

use super::support::{abba, refused_in, refused_with, script, write};

/// A suite of `benchmarks` (name, changed?) whose head is 5% above its base in the changed
/// ones and equal in the others.
fn suite_text(dir: &Path, benchmarks: &[(&str, bool)]) -> String {
    let sh = script(dir);
    let mut text = String::from(
        "[variants]\nbase = \"1.00\"\nhead = \"1.05\"\n\n[settings]\nmetric = \"json:v\"\nblocks = 12\nwarmup = 0\n",
    );
    for (name, changed) in benchmarks {
        let command = if *changed {
            format!("{} {{variant}} noisy", sh.display())
        } else {
            format!("{} 1.0 {{name}}", sh.display())
        };
        text.push_str(&format!(
            "\n[[benchmark]]\nname = \"{name}\"\ncommand = \"{command}\"\n"
        ));
    }
    text
}

#[test]
fn a_typo_in_a_key_names_file_line_column_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "abba.toml",
        "[variants]\nbase = \"a\"\nhead = \"b\"\n\n[[benchmark]]\nname = \"x\"\ncomand = \"true\"\n",
    );
    let f = f.to_str().unwrap();
    let err = refused_with(&["suite", f], 2, "abba.toml:7:1");
    assert!(err.contains("comand"), "{err}");
}

#[test]
fn a_missing_command_and_a_duplicate_name_are_refused_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "abba.toml",
        "[variants]\nbase = \"a\"\nhead = \"b\"\n\n[[benchmark]]\nname = \"x\"\n",
    );
    let err = refused_with(&["suite", f.to_str().unwrap()], 2, "abba.toml:5:1");
    assert!(err.contains("command"), "{err}");
    let f = write(
        dir.path(),
        "dup.toml",
        "[variants]\nbase = \"a\"\nhead = \"b\"\n[[benchmark]]\nname = \"x\"\ncommand = \"true\"\n[[benchmark]]\nname = \"x\"\ncommand = \"true\"\n",
    );
    let err = refused_with(&["suite", f.to_str().unwrap()], 2, "dup.toml:8:8");
    assert!(err.contains("named twice"), "{err}");
    let f = write(dir.path(), "one.toml", "[variants]\nbase = \"a\"\n");
    let one = f.to_str().unwrap();
    refused_with(&["suite", one], 2, "baseline and at least one candidate");
    refused_in(dir.path(), &["suite"], 2, "abba.toml");
}

#[test]
fn list_dry_run_and_only_select_benchmarks_by_glob() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "abba.toml",
        &suite_text(
            dir.path(),
            &[
                ("parse-small", false),
                ("parse-large", false),
                ("render", false),
            ],
        ),
    );
    abba()
        .arg("suite")
        .arg(&f)
        .args(["--list", "--only", "parse-*"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2 benchmarks"))
        .stdout(predicate::str::contains("parse-large"))
        .stdout(predicate::str::contains("render").not());
    let out = abba()
        .arg("suite")
        .arg(&f)
        .args(["--dry-run", "--seed", "3"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // 3 benchmarks x 4 runs per block x 12 blocks.
    assert!(text.contains("seed 3; 144 measured runs"), "{text}");
    let first = text.lines().next().unwrap();
    for name in ["parse-small/base", "parse-large/head", "render/base"] {
        assert!(first.contains(name), "{first}");
    }
    let f = f.to_str().unwrap();
    let only = ["suite", f, "--dry-run", "--only", "nothing*"];
    refused_with(&only, 2, "no benchmark matches");
}

/// Minimal JSON Schema (draft-07 subset: type, properties, required, patternProperties
/// `.+`, items, additionalProperties false) check of `value` against `schema`.
fn conforms(value: &Value, schema: &Value, at: &str) -> Result<(), String> {
    if let Some(t) = schema["type"].as_str() {
        let ok = match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "number" => value.is_number(),
            "string" => value.is_string(),
            _ => true,
        };
        if !ok {
            return Err(format!("{at}: expected {t}, got {value}"));
        }
    }
    if let Some(required) = schema["required"].as_array() {
        for r in required {
            let r = r.as_str().unwrap();
            if value.get(r).is_none() {
                return Err(format!("{at}: missing {r}"));
            }
        }
    }
    if let (Some(props), Some(obj)) = (schema["properties"].as_object(), value.as_object()) {
        for (k, v) in obj {
            match props.get(k) {
                Some(s) => conforms(v, s, &format!("{at}.{k}"))?,
                None if schema["additionalProperties"] == Value::Bool(false) => {
                    return Err(format!("{at}: unexpected {k}"));
                }
                None => {}
            }
        }
    }
    if let (Some(pattern), Some(obj)) = (schema["patternProperties"].as_object(), value.as_object())
    {
        let s = &pattern[".+"];
        for (k, v) in obj {
            assert!(!k.is_empty());
            conforms(v, s, &format!("{at}.{k}"))?;
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            conforms(v, items, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn schema(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/ci")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_schema_check_refuses_what_the_formats_do_not_allow() {
    let bmf = schema("bmf.schema.json");
    assert!(
        conforms(
            &serde_json::json!({"a": {"latency": {"value": 1.0}}}),
            &bmf,
            "$"
        )
        .is_ok()
    );
    assert!(
        conforms(
            &serde_json::json!({"a": {"latency": {"lower_value": 1.0}}}),
            &bmf,
            "$"
        )
        .is_err()
    );
    assert!(
        conforms(
            &serde_json::json!({"a": {"latency": {"value": "1"}}}),
            &bmf,
            "$"
        )
        .is_err()
    );
    let gh = schema("github-action-benchmark.schema.json");
    assert!(
        conforms(
            &serde_json::json!([{"name": "a", "unit": "ns", "value": 1}]),
            &gh,
            "$"
        )
        .is_ok()
    );
    assert!(conforms(&serde_json::json!([{"name": "a", "value": 1}]), &gh, "$").is_err());
    assert!(
        conforms(
            &serde_json::json!([{"name": "a", "unit": "ns", "value": 1, "x": 2}]),
            &gh,
            "$"
        )
        .is_err()
    );
}

#[test]
fn a_suite_finds_the_changed_benchmarks_and_writes_what_ci_shows() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "abba.toml",
        &suite_text(
            dir.path(),
            &[
                ("changed-a", true),
                ("same-a", false),
                ("same-b", false),
                ("changed-b", true),
                ("same-c", false),
            ],
        ),
    );
    let summary = write(dir.path(), "summary.md", "# earlier step\n");
    let comment = dir.path().join("comment.md");
    let bmf = dir.path().join("bmf.json");
    let gh = dir.path().join("gh.json");
    let json = dir.path().join("suite.json");
    let raw = dir.path().join("runs.jsonl");
    let assert = abba()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .arg("suite")
        .arg(&f)
        .args(["-q", "--seed", "5"])
        .arg("--output")
        .arg(&raw)
        .arg("--export-pr-comment")
        .arg(&comment)
        .args(["--comment-id", "pr-7"])
        .arg("--export-bmf")
        .arg(&bmf)
        .arg("--export-github-benchmark")
        .arg(&gh)
        .arg("--export-json")
        .arg(&json)
        .args([
            "--fail-if-slower",
            "2%",
            "--fail-if-slower",
            "changed-b=50%",
        ])
        .assert()
        .code(1);
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    // Both changed benchmarks read MORE (a JSON field is not a time: its direction, not
    // "slower"); the gate trips on changed-a only (changed-b's own threshold is 50%).
    for line in out.lines().filter(|l| l.starts_with("changed-")) {
        assert!(line.contains("MORE"), "{line}");
    }
    for line in out.lines().filter(|l| l.starts_with("same-")) {
        assert!(
            !line.contains("MORE") && !line.contains("FEWER") && !line.contains("SLOWER"),
            "{line}"
        );
    }
    assert!(out.contains("geometric mean of the ratios"), "{out}");
    assert!(out.contains("Benjamini-Hochberg"), "{out}");
    assert!(err.contains("gate: changed-a"), "{err}");
    assert!(!err.contains("gate: changed-b"), "{err}");
    // The job summary is appended to, the earlier step kept.
    let s = std::fs::read_to_string(&summary).unwrap();
    assert!(
        s.starts_with("# earlier step\n") && s.contains("## abba suite"),
        "{s}"
    );
    // The comment starts with its marker, names the changed ones first, under the limit.
    let c = std::fs::read_to_string(&comment).unwrap();
    assert!(c.starts_with("<!-- abba:pr-7 -->\n"), "{c}");
    assert!(c.chars().count() <= 65_536);
    let changed_at = c.find("### Changed").unwrap();
    let folded_at = c.find("<details>").unwrap();
    assert!(changed_at < folded_at);
    // Formats against their published schemas.
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&bmf).unwrap()).unwrap();
    conforms(&b, &schema("bmf.schema.json"), "$").unwrap();
    assert_eq!(b.as_object().unwrap().len(), 5);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(&gh).unwrap()).unwrap();
    conforms(&g, &schema("github-action-benchmark.schema.json"), "$").unwrap();
    let j: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["schema"], "abba.suite/1");
    assert_eq!(j["counts"]["slower"], 2);
    assert_eq!(j["correction"], "bh");
    // One raw file, every run naming its benchmark, the header listing the suite.
    let text = std::fs::read_to_string(&raw).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["suite"].as_array().unwrap().len(), 5);
    let runs: Vec<Value> = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("end").is_none())
        .collect();
    assert_eq!(runs.len(), 5 * 4 * 12);
    assert!(runs.iter().all(|r| r["benchmark"].is_string()));
}

#[test]
fn the_github_benchmark_export_refuses_mixed_directions() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = suite_text(dir.path(), &[("up", false), ("down", false)]);
    text = text.replace(
        "name = \"up\"\n",
        "name = \"up\"\nhigher-is-better = true\n",
    );
    let f = write(dir.path(), "abba.toml", &text);
    let gh = dir.path().join("gh.json");
    let (f, gh) = (f.to_str().unwrap(), gh.to_str().unwrap());
    let args = [
        "suite",
        f,
        "-q",
        "--blocks",
        "6",
        "--export-github-benchmark",
        gh,
    ];
    refused_with(&args, 2, "one direction per file");
}

#[test]
fn an_export_onto_the_raw_file_is_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "abba.toml",
        &suite_text(dir.path(), &[("x", false)]),
    );
    let raw = dir.path().join("runs.jsonl");
    let (f, r) = (f.to_str().unwrap(), raw.to_str().unwrap());
    refused_with(
        &["suite", f, "--output", r, "--export-bmf", r],
        2,
        "raw runs' file",
    );
    assert!(!raw.exists());
}

#[test]
fn the_suite_refuses_an_output_that_is_a_directory_as_compare_does() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "abba.toml",
        &suite_text(dir.path(), &[("x", false)]),
    );
    let (f, d) = (f.to_str().unwrap(), dir.path().to_str().unwrap());
    refused_with(&["suite", f, "--output", d], 2, "is a directory");
}

#[test]
fn metric_and_runs_per_block_flags_override_the_file_as_docs_ci_says() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = suite_text(dir.path(), &[("one", false), ("two", false)]);
    // A benchmark's own runs-per-block gives way to the flag too.
    text.push_str("runs-per-block = 6\n");
    let f = write(dir.path(), "abba.toml", &text);
    let dry = |extra: &[&str]| {
        let out = abba()
            .arg("suite")
            .arg(&f)
            .args(["--dry-run", "--seed", "3"])
            .args(extra)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    // File: one benchmark at 2 runs of each variant, the other at 6: (2+6) x 2 x 12.
    assert!(
        dry(&[]).contains("seed 3; 192 measured runs"),
        "{}",
        dry(&[])
    );
    // --runs-per-block 4: both at 4 runs of each variant: 2 x 4 x 2 x 12.
    let four = dry(&["--runs-per-block", "4"]);
    assert!(four.contains("seed 3; 192 measured runs"), "{four}");
    let eight = dry(&["--runs-per-block", "8", "--blocks", "2"]);
    assert!(eight.contains("seed 3; 64 measured runs"), "{eight}");
    let file = f.to_str().unwrap();
    let odd = ["suite", file, "--dry-run", "--runs-per-block", "3"];
    refused_with(&odd, 2, "--runs-per-block 3");
    // --metric cpu decides on CPU time (ns), not the file's json:v.
    let out = abba()
        .arg("suite")
        .arg(&f)
        .args(["-q", "--json", "--seed", "4", "--blocks", "2"])
        .args(["--metric", "cpu", "--runs-per-block", "2"])
        .assert()
        .get_output()
        .stdout
        .clone();
    let doc: Value = serde_json::from_slice(&out).unwrap();
    let text = doc.to_string();
    assert!(text.contains("\"unit\":\"ns\""), "{text}");
    assert!(!text.contains("\"unit\":\"value\""), "{text}");
    refused_with(
        &["suite", file, "--dry-run", "--metric", "nonsense"],
        2,
        "--metric",
    );
}
