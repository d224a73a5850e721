//! The remaining cases of the issue "Nothing lost, nothing misleading", through the binary:
//! each metric worded as what it is, block numbers counted one way, an outlying repeated
//! value named, and non-positive values described truthfully.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    cmd
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// `abba analyze --seed 1 ARGS` (console report), which must succeed.
fn report(args: &[&str]) -> String {
    let out = abba()
        .args(["analyze", "--seed", "1"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `abba analyze --json --seed 1 ARGS`, which must succeed.
fn analyze_json(args: &[&str]) -> Value {
    serde_json::from_str(&report(&[&["--json"], args].concat())).unwrap()
}

fn summary(doc: &Value) -> String {
    doc["groups"][0]["comparisons"][0]["summary"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn memory_and_json_fields_are_worded_as_what_they_measure() {
    let dir = tempfile::tempdir().unwrap();
    // The committed raw file measures the JSON field `v`; the same runs read as max-rss.
    let raw = fixture("raw_two.jsonl");
    let rss = raw.replace(
        r#""metric":"json:v","unit":"value""#,
        r#""metric":"max-rss","unit":"KiB""#,
    );
    assert_ne!(raw, rss);
    let rss = write(dir.path(), "rss.jsonl", &rss);
    let rss = rss.to_str().unwrap();
    // The default (the typical run) words the quantity too: here its mean run decides.
    let typical = summary(&analyze_json(&[rss]));
    assert!(
        typical.starts_with("B uses more memory than A in its mean run: mean run 1.048x")
            && typical.contains("4.8% more memory")
            && typical.contains("typical run (p50) not distinguishable (1.034x"),
        "{typical}"
    );
    assert!(!typical.contains("time"), "{typical}");
    // The fastest-run estimator says which run it is about.
    let hl = ["--estimator", "hl-min-log-ratio"];
    let doc = analyze_json(&[rss, hl[0], hl[1]]);
    let s = summary(&doc);
    assert!(
        s.starts_with(
            "B uses more memory than A in the best run of each block: memory ratio 1.046x"
        ),
        "{s}"
    );
    assert!(s.contains("(4.6% more memory)"), "{s}");
    assert_eq!(doc["quantity"], "memory");
    let text = report(&[rss, hl[0], hl[1]]);
    assert!(
        !text.contains("time ratio") && !text.contains("more time"),
        "{text}"
    );
    assert!(text.contains("  MORE  "), "{text}");

    let doc = analyze_json(&["tests/data/raw_two.jsonl", hl[0], hl[1]]);
    let s = summary(&doc);
    assert!(
        s.starts_with("B is worse than A in the best run of each block: v ratio 1.046x")
            && s.contains("(4.6% more v)"),
        "{s}"
    );
    assert_eq!(doc["quantity"], "v");

    // A CSV in MiB is memory; in ops/s a throughput; without a unit, time (the default,
    // not written to the document).
    let mib = analyze_json(&["tests/data/paired_two.csv", "--unit", "MiB"]);
    assert!(summary(&mib).contains("3.5% more memory"), "{mib}");
    let ops = analyze_json(&[
        "tests/data/paired_two.csv",
        "--unit",
        "ops/s",
        "--higher-is-better",
    ]);
    assert!(summary(&ops).contains("more throughput"), "{ops}");
    assert!(ops.get("quantity").is_none());
    let plain = analyze_json(&["tests/data/paired_two.csv"]);
    assert!(summary(&plain).contains("3.5% more time"), "{plain}");
    assert!(plain.get("quantity").is_none());
}

#[test]
fn the_header_does_not_name_a_unit_the_tables_do_not_use() {
    // Values in ns, tables in µs: the header says the values are scaled.
    let text = report(&["tests/data/paired_two.csv", "--unit", "ns"]);
    assert!(text.contains("│ 1.135 µs │"), "{text}");
    assert!(
        text.contains("values in ns, shown scaled (lower is better)"),
        "{text}"
    );
    assert!(!text.contains("unit ns"), "{text}");
    // A unit that is never rescaled is the tables' unit.
    let text = report(&["tests/data/paired_two.csv", "--unit", "KiB"]);
    assert!(text.contains("unit KiB (lower is better)"), "{text}");
}

#[test]
fn blocks_are_counted_from_1_in_the_schedule_warnings_and_errors() {
    let out = abba()
        .args(["compare", "--dry-run", "--blocks", "2", "--seed", "1"])
        // Dry runs check that the programs exist.
        .args(["-n", "A", "-n", "B", "true", "true"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("block 1: A B B A\nblock 2: B A A B\n"),
        "{text}"
    );

    // The raw file's last block (id 5) is cut short: the 6th block, as the table would
    // number it, with the file's id beside it.
    let doc = analyze_json(&["tests/data/raw_two_truncated.jsonl"]);
    let messages: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m
                .ends_with("block 6 (id 5 in the raw file) has 2 of 4 runs (incomplete); dropped")),
        "{messages:?}"
    );

    // A command failing in the first block fails "in block 1".
    let dir = tempfile::tempdir().unwrap();
    let out = abba()
        .args(["compare", "--blocks", "2", "--warmup", "0", "--quiet"])
        .arg("--output")
        .arg(dir.path().join("runs.jsonl"))
        .args(["true", "false"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("failed in block 1 (exit code 1)"),
        "{stderr}"
    );
}

/// The warnings of `abba analyze --json FILE` as `(code, message)`.
fn warnings(path: &Path) -> Vec<(String, String)> {
    let doc = analyze_json(&[path.to_str().unwrap()]);
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

#[test]
fn an_outlying_repeated_value_in_a_block_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // The issue's case: `A,500,3` appended to a valid paired file (block column 3 is the
    // 4th block, where A's other value is 1043 at line 8).
    let path = write(
        dir.path(),
        "dup.csv",
        &format!("{}A,500,3\n", fixture("paired_two.csv")),
    );
    let found = warnings(&path);
    assert!(
        found.iter().any(|(code, m)| code == "input"
            && m.contains(
                "block 4 holds an outlying value of A: 500 at line 26, against 1043 for its \
                 other value in the block"
            )
            && m.ends_with("each value is kept as a run of the block (an estimator of one value a block reads their mean, 771.5)")),
        "{found:?}"
    );
    // Two runs per block with ordinary noise (a few percent, one block slow as a whole):
    // counts are equal and no value is named.
    let mut text = String::from("variant,value,block\n");
    for b in 0..10u32 {
        let slow = if b == 6 { 40.0 } else { 0.0 };
        for (variant, base) in [("A", 100.0), ("B", 103.0)] {
            for r in 0..2u32 {
                let noise = f64::from((b * 7 + r * 5 + base as u32) % 9);
                text.push_str(&format!("{variant},{},{b}\n", base + slow + noise));
            }
        }
    }
    let path = write(dir.path(), "replicates.csv", &text);
    let found = warnings(&path);
    assert!(found.iter().all(|(code, _)| code != "input"), "{found:?}");
}

/// A CSV of 8 values per variant, in blocks when `paired`: `value(variant, i)`.
fn csv_of(paired: bool, value: impl Fn(&str, u32) -> f64) -> String {
    let mut text = String::from(if paired {
        "variant,value,block\n"
    } else {
        "variant,value\n"
    });
    for i in 0..8u32 {
        for v in ["A", "B"] {
            let x = value(v, i);
            text.push_str(&if paired {
                format!("{v},{x},{i}\n")
            } else {
                format!("{v},{x}\n")
            });
        }
    }
    text
}

#[test]
fn all_zero_values_say_nothing_varies_paired_and_unpaired() {
    let dir = tempfile::tempdir().unwrap();
    for (paired, scope) in [
        (true, "paired over 8 blocks"),
        (false, "unpaired, 8 vs 8 runs"),
    ] {
        let path = write(dir.path(), "zero.csv", &csv_of(paired, |_, _| 0.0));
        let doc = analyze_json(&[path.to_str().unwrap()]);
        let c = &doc["groups"][0]["comparisons"][0];
        assert_eq!(c["verdict"], "not_tested");
        assert_eq!(
            c["summary"],
            format!(
                "B vs A: not tested ({scope}): every value of both is 0, so nothing varies and \
                 there is no difference to test; no ratio, since ratios need positive values."
            )
        );
    }
}

#[test]
fn negative_values_are_tested_without_a_ratio_paired_and_unpaired() {
    let dir = tempfile::tempdir().unwrap();
    // Both variants negative; B is 10 higher in every block.
    let value = |v: &str, i: u32| -100.0 - 3.0 * f64::from(i) + if v == "B" { 10.0 } else { 0.0 };
    let paired = write(dir.path(), "neg_paired.csv", &csv_of(true, value));
    let doc = analyze_json(&[paired.to_str().unwrap()]);
    let c = &doc["groups"][0]["comparisons"][0];
    assert_eq!(c["verdict"], "significant");
    assert!(c["ratio"].is_null());
    assert_eq!(
        c["summary"],
        "B vs A: no ratio, since ratios need positive values; on the block differences \
         wilcoxon-signed-rank p = 0.008 finds a significant difference, paired over 8 blocks."
    );
    // Unpaired: Mann-Whitney ranks the values themselves (any sign); only the ratio of
    // medians is left out.
    let unpaired = write(dir.path(), "neg_unpaired.csv", &csv_of(false, value));
    let doc = analyze_json(&[unpaired.to_str().unwrap()]);
    let c = &doc["groups"][0]["comparisons"][0];
    assert_eq!(c["verdict"], "significant");
    assert!(c["ratio"].is_null());
    let s = c["summary"].as_str().unwrap();
    assert!(
        s.starts_with(
            "B vs A: no ratio, since ratios need positive values; on the ranks of the values \
             mann-whitney p = "
        ) && s.ends_with("finds a significant difference, unpaired, 8 vs 8 runs."),
        "{s}"
    );
    assert!(!s.contains("differences"), "{s}");
}

/// A raw file of `blocks` blocks of 8 runs (ABBAABBA, then BAABBAAB), A/A: every run
/// keeps 0.9 of the state the run before it left in its block (an AR(1) of the log-runs
/// inside blocks, SD about 5%), over block levels of SD 5%. Seeded, so the file is fixed.
fn carried_state_raw(dir: &Path, blocks: u32) -> PathBuf {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    // Standard normal draws: the sum of 12 uniforms less 6 (an xorshift stream).
    let mut normal = move || {
        let mut sum = 0.0;
        for _ in 0..12 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            sum += (seed >> 11) as f64 / (1u64 << 53) as f64;
        }
        sum - 6.0
    };
    let header = serde_json::json!({
        "schema": "abba.raw/1", "abba_version": "0.1.0", "design": "abba", "seed": 7,
        "blocks": blocks, "cycles": 2,
        "variants": [{"name": "A", "command": "./a"}, {"name": "B", "command": "./b"}],
        "reference": null, "metric": "wall", "unit": "ns", "higher_is_better": false,
        "layout": "random", "pin": null, "warmup": 0, "settle_ns": 0,
        "host": {"cpu_model": null, "cores": 2, "kernel": null, "governor": null,
                 "turbo": null, "aslr": 2, "load_start": null, "load_end": null,
                 "env_bytes": 10, "argv_bytes": 5, "start_time": "2026-12-01T00:00:00Z",
                 "hostname": "vm"},
        "experiment": "carried-state",
    });
    let mut lines = vec![header.to_string()];
    let mut run = 0;
    for b in 0..blocks {
        let order = if b % 2 == 0 { "ABBAABBA" } else { "BAABBAAB" };
        let level = 0.05 * normal();
        let mut state = 0.05 * normal();
        for (p, v) in order.chars().enumerate() {
            if p > 0 {
                state = 0.9 * state + 0.05 * (1.0f64 - 0.81).sqrt() * normal();
            }
            let wall = (1e7 * (level + state).exp()).round() as i64;
            lines.push(
                serde_json::json!({
                    "run": run, "block": b, "position": p, "variant": v.to_string(),
                    "wall_ns": wall, "user_ns": wall, "sys_ns": 0, "max_rss_kib": 1000,
                    "exit_code": 0, "timed_out": false, "env_pad": p, "metric": null,
                })
                .to_string(),
            );
            run += 1;
        }
    }
    let path = dir.join("carried.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn the_autocorrelation_warning_says_the_answer_and_keeps_its_figures_for_verbose_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let raw = carried_state_raw(dir.path(), 60);
    let raw = raw.to_str().unwrap();
    let said = "autocorrelation: neighbouring runs inside a block move together beyond the \
                block's level; the verdict holds, since its tests compare whole blocks. If a \
                run leaves a state the next one picks up (a cache, a file, heat), --settle (a \
                pause between runs) lets it clear";
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    // The compact report: the answer and what to do, no statistic.
    let compact = flat(&report(&[raw]));
    assert!(compact.contains(said), "{compact}");
    assert!(!compact.contains("sign-flip p ="), "{compact}");
    // Nothing the simulator contradicts: more runs a block are not said to add nothing
    // (`cargo xtask autocorrelation-grid --precision`, docs/estimator-grid.md).
    assert!(!compact.contains("fewer than their number"), "{compact}");
    assert!(!compact.contains("more blocks, not more runs"), "{compact}");
    // The full report adds the figures after the sentence.
    let full = flat(&report(&["-v", raw]));
    let at = full.find(said).expect("the warning in the full report");
    let figures = &full[at + said.len()..];
    assert!(
        figures
            .starts_with(" (their correlation exceeds that of runs further apart in the block by ")
            && figures.contains("exact one-sided sign-flip p = ")
            && figures.contains("undisturbed blocks, warned at p <= 0.01)"),
        "{full}"
    );
    // JSON keeps the statistic in its own field, the message as the compact report says it.
    let doc = analyze_json(&[raw]);
    let w = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "autocorrelation")
        .expect("an autocorrelation warning");
    assert!(
        said.ends_with(w["message"].as_str().unwrap())
            || said.contains(w["message"].as_str().unwrap()),
        "{w}"
    );
    let detail = w["detail"].as_str().unwrap();
    assert!(detail.contains("sign-flip p = "), "{detail}");
    // Warnings without figures carry no detail field.
    assert!(
        doc["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] != "autocorrelation")
            .all(|w| w.get("detail").is_none()),
        "{doc}"
    );
}

#[test]
fn memory_has_low_and_high_ends_not_fast_and_slow_runs_in_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let rss = fixture("raw_two.jsonl").replace(
        r#""metric":"json:v","unit":"value""#,
        r#""metric":"max-rss","unit":"KiB""#,
    );
    let rss = write(dir.path(), "rss.jsonl", &rss);
    let rss = rss.to_str().unwrap();
    let (md, html, svg) = (
        dir.path().join("r.md"),
        dir.path().join("r.html"),
        dir.path().join("svg"),
    );
    let out = abba()
        .args([
            "analyze",
            "--seed",
            "1",
            "-v",
            rss,
            "--fail-if-slower",
            "1%",
        ])
        .arg("--export-markdown")
        .arg(&md)
        .arg("--export-html")
        .arg(&html)
        .arg("--export-svg")
        .arg(&svg)
        .output()
        .unwrap();
    let console =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let shape = std::fs::read_to_string(svg.join("shape.svg")).expect("the shape chart");
    for (what, text) in [
        ("console", console.clone()),
        ("markdown", std::fs::read_to_string(&md).unwrap()),
        ("shape.svg", shape.clone()),
    ] {
        assert!(
            !text.contains("fast run") && !text.contains("slow run"),
            "{what}: {text}"
        );
    }
    // The page's caption says what p10 and p90 are for times and for other values; its
    // chart names memory's parts as the SVG does.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("p10 fast runs") && page.contains("p10 low end"),
        "{page}"
    );
    // The parts are named by where they sit in the distribution.
    assert!(
        shape.contains("p10 low end") && shape.contains("p90 high end"),
        "{shape}"
    );
    // Memory that went up is higher, not slower.
    assert!(shape.contains("1.048x higher"), "{shape}");
    assert!(console.contains("low end (p10)"), "{console}");
    // A time keeps its fast and slow runs.
    let time = dir.path().join("time.svg");
    let wall = fixture("raw_two.jsonl").replace(
        r#""metric":"json:v","unit":"value""#,
        r#""metric":"wall","unit":"ns""#,
    );
    let wall = write(dir.path(), "wall.jsonl", &wall);
    abba()
        .args(["analyze", "--seed", "1", "-q", wall.to_str().unwrap()])
        .arg("--export-svg")
        .arg(&time)
        .assert()
        .code(0);
    let shape = std::fs::read_to_string(time.join("shape.svg")).unwrap();
    assert!(
        shape.contains("p10 fast runs") && shape.contains("p90 slow runs"),
        "{shape}"
    );
}
