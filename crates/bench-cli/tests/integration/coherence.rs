//! The verdict, the table and the JSON tell one story: over every committed input of these
//! tests (`tests/data/**`, analysed as `abba analyze --json --seed 1 FILE`) and every JSON
//! snapshot (`tests/snapshots/*_json.snap`), each comparison's `decision` names the
//! estimate its outcome rests on, and
//!
//! - `verdict == "significant"` implies `decision.interval` (the named part's, or the
//!   comparison's own ratio interval) excludes 1 whenever the intervals are at
//!   `1 - alpha` (the default);
//! - FASTER / SLOWER point the way `decision.ratio` does;
//! - EQUIVALENT implies every part it requires lies inside its margin: the typical run's
//!   `1 - 2 alpha` interval inside ±margin, the mean run's inside ±2 margin
//!   (`bench_stats::analysis::ALL_RUNS_MARGIN_FACTOR`), each tail's inside ±3 margin
//!   (`TAIL_MARGIN_FACTOR`), or for the slow runs the mean run's (or, with no mean run,
//!   the mean of all runs', `distribution.all_runs`) inside ±2 margin, or without a shape
//!   check the equivalence interval inside ±margin.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const TAIL_FACTOR: f64 = 3.0;
const ALL_RUNS_FACTOR: f64 = 2.0;

fn package_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` with one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if exts.iter().any(|e| p.to_string_lossy().ends_with(e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn inside(ci: &Value, margin: f64) -> bool {
    match (ci[0].as_f64(), ci[1].as_f64()) {
        (Some(lo), Some(hi)) => lo >= 1.0 - margin - 1e-9 && hi <= 1.0 + margin + 1e-9,
        _ => false,
    }
}

/// Checks one analysis document; returns the comparisons checked.
fn check(doc: &Value, what: &str) -> usize {
    let alpha = doc["alpha"].as_f64().unwrap_or(0.05);
    let at_alpha = doc["confidence"]
        .as_f64()
        .is_some_and(|c| (c - (1.0 - alpha)).abs() < 1e-9);
    let margin = doc["equivalence_margin"].as_f64().unwrap_or(0.01);
    let higher = doc["higher_is_better"].as_bool().unwrap_or(false);
    let mut n = 0;
    for g in doc["groups"].as_array().into_iter().flatten() {
        for c in g["comparisons"].as_array().into_iter().flatten() {
            n += 1;
            let name = format!("{what}: {}", c["candidate"]);
            let d = &c["decision"];
            let interval = &d["interval"];
            if c["verdict"] == "significant" && at_alpha {
                if c["paired"].is_object() {
                    assert!(interval.is_array(), "{name}: significant, no interval: {c}");
                }
                if let (Some(lo), Some(hi)) = (interval[0].as_f64(), interval[1].as_f64()) {
                    assert!(
                        lo > 1.0 || hi < 1.0,
                        "{name}: significant, but its deciding interval {interval} holds 1: {c}"
                    );
                }
            }
            if let (Some(r), "faster" | "slower") =
                (d["ratio"].as_f64(), c["outcome"].as_str().unwrap_or(""))
            {
                let up = (c["outcome"] == "faster") == higher;
                assert_eq!(r > 1.0, up, "{name}: {} with ratio {r}", c["outcome"]);
            }
            if c["outcome"] != "equivalent" {
                continue;
            }
            match c["distribution"].as_object() {
                Some(s) => {
                    let parts = s["quantiles"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .chain(s.get("mean"));
                    let all_runs = s.get("mean").or(s.get("all_runs")).is_some_and(|a| {
                        inside(&a["equivalence_interval"], margin * ALL_RUNS_FACTOR)
                    });
                    for q in parts {
                        let at = q["quantile"].as_f64();
                        let tail = at.is_some_and(|x| (x - 0.5).abs() > 1e-9);
                        let slow = at.is_some_and(|x| (x > 0.5) != higher);
                        let m = if tail {
                            margin * TAIL_FACTOR
                        } else if at.is_none() {
                            margin * ALL_RUNS_FACTOR
                        } else {
                            margin
                        };
                        assert!(
                            inside(&q["equivalence_interval"], m) || (tail && slow && all_runs),
                            "{name}: EQUIVALENT, but a part is not inside ±{m}: {q}"
                        );
                    }
                }
                None => assert!(
                    inside(&d["equivalence_ci"], margin),
                    "{name}: EQUIVALENT, but its interval is not inside the margin: {c}"
                ),
            }
        }
    }
    n
}

#[test]
fn every_fixture_and_snapshot_tells_one_story_in_its_json() {
    let dir = package_dir();
    let mut checked = 0;
    let mut documents = 0;
    for snap in files(&dir.join("tests/snapshots"), &["_json.snap"]) {
        let text = std::fs::read_to_string(&snap).unwrap();
        // insta's header between the first two `---` lines, then the document.
        let body = text.splitn(3, "---\n").nth(2).unwrap_or_default();
        let Ok(doc) = serde_json::from_str::<Value>(body) else {
            continue;
        };
        checked += check(&doc, &snap.display().to_string());
        documents += 1;
    }
    assert!(documents >= 8, "only {documents} JSON snapshots read");
    for input in files(&dir.join("tests/data"), &[".csv", ".jsonl", ".json"]) {
        let out = Command::cargo_bin("abba")
            .unwrap()
            .current_dir(&dir)
            .args(["analyze", "--json", "--seed", "1"])
            .arg(&input)
            .output()
            .unwrap();
        // Some inputs are made to fail (a missing cell, a bad header): those are the
        // faults tests' business.
        let Ok(doc) = serde_json::from_slice::<Value>(&out.stdout) else {
            continue;
        };
        checked += check(&doc, &input.display().to_string());
        documents += 1;
    }
    assert!(
        checked >= 30,
        "only {checked} comparisons in {documents} documents"
    );
}
