//! One experiment over several "hosts": real `abba compare` sessions on this machine,
//! each named as its own host and sharing one `--experiment`, merged by `abba analyze`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

/// One tiny real session: `true` against `sh -c :`, 3 ABBA blocks, as host `host`.
fn session(dir: &Path, experiment: &str, host: &str, index: u32) -> PathBuf {
    let out = dir.join(format!("{host}-{index}.jsonl"));
    abba()
        .args(["compare", "--experiment", experiment, "--host", host])
        .args(["--blocks", "3", "--warmup", "0", "--quiet", "--output"])
        .arg(&out)
        .args(["true", "sh -c :"])
        .assert()
        .success();
    out
}

#[test]
fn real_sessions_on_three_hosts_merge_as_one_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        session(dir.path(), "tiny-fleet", "alpha", 0),
        session(dir.path(), "tiny-fleet", "alpha", 1),
        session(dir.path(), "tiny-fleet", "beta", 2),
        session(dir.path(), "tiny-fleet", "gamma", 3),
    ];
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["experiment"], "tiny-fleet");
    assert_eq!(header["host"]["hostname"], "alpha");

    let out = abba()
        .arg("analyze")
        .args(&files)
        .arg("--json")
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let levels = &doc["levels"];
    assert_eq!(
        levels["hosts"],
        serde_json::json!(["alpha", "beta", "gamma"])
    );
    assert_eq!(levels["sessions"], 4);
    assert_eq!(levels["top_level"], "host");
    let c = &levels["comparisons"][0];
    assert_eq!(c["pooled"]["units"], 3);
    assert_eq!(c["pooled"]["blocks"], 12);
    assert_eq!(c["per_unit"][0]["sessions"], 2);
    assert_eq!(c["variance"].as_array().unwrap().len(), 4);
    assert!(
        c["pooled"]["note"]
            .as_str()
            .unwrap()
            .contains("barely estimable")
    );
    let codes: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"few-hosts"), "{codes:?}");
    assert!(!codes.contains(&"unpaired-sessions"), "{codes:?}");

    // The console report prints the pooled verdict, the per-host table and the levels.
    let text = abba().arg("analyze").args(&files).assert().success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(
        text.contains("Many hosts: 3 host(s), 4 session(s)"),
        "{text}"
    );
    assert!(text.contains("pooled over 3 hosts (12 blocks)"), "{text}");
    for word in ["alpha", "beta", "gamma", "session", "block", "run"] {
        assert!(text.contains(word), "{word}: {text}");
    }
}

#[test]
fn different_experiments_are_refused_unless_forced_unpaired() {
    let dir = tempfile::tempdir().unwrap();
    let a = session(dir.path(), "exp-a", "alpha", 0);
    let b = session(dir.path(), "exp-b", "beta", 1);
    let out = abba().arg("analyze").args([&a, &b]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("its experiment is exp-b, not exp-a"), "{err}");
    assert!(err.contains("--force-unpaired"), "{err}");
    let out = abba()
        .arg("analyze")
        .args([&a, &b])
        .args(["--force-unpaired", "--json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(doc.get("levels").is_none());
    assert!(
        doc["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "unpaired-sessions")
    );
}

/// One raw file per host for host `h`'s block log-ratios `blocks`: every ABBA block holds
/// two runs of `old` at 1000 s and two of `new` at `exp(d)` times that, so each block's
/// log-ratio is `d` to about 1e-12.
fn raw_host(dir: &Path, h: usize, blocks: &[f64]) -> PathBuf {
    let header = serde_json::json!({
        "schema": "abba.raw/1", "abba_version": "0.1.0", "design": "abba", "seed": h + 1,
        "blocks": blocks.len(),
        "variants": [{"name": "old", "command": "./old"}, {"name": "new", "command": "./new"}],
        "reference": null, "metric": "wall", "unit": "ns", "higher_is_better": false,
        "layout": "random", "pin": null, "warmup": 0, "settle_ns": 0,
        "host": {"cpu_model": null, "cores": 2, "kernel": null, "governor": null,
                 "turbo": null, "aslr": 2, "load_start": null, "load_end": null,
                 "env_bytes": 10, "argv_bytes": 5, "start_time": "2026-12-01T00:00:00Z",
                 "hostname": format!("host-{h}")},
        "experiment": "meta-fleet",
    });
    let mut lines = vec![header.to_string()];
    let mut run = 0;
    for (b, d) in blocks.iter().enumerate() {
        let base = 1e12_f64;
        for (p, v) in ["old", "new", "new", "old"].iter().enumerate() {
            let wall = if *v == "new" {
                (base * d.exp()).round()
            } else {
                base
            } as i64;
            lines.push(
                serde_json::json!({
                    "run": run, "block": b, "position": p, "variant": v, "wall_ns": wall,
                    "user_ns": wall, "sys_ns": 0, "max_rss_kib": 1000, "exit_code": 0,
                    "timed_out": false, "env_pad": p, "metric": null, "session": 0,
                })
                .to_string(),
            );
            run += 1;
        }
    }
    let path = dir.join(format!("host-{h}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The case `name` of `fixtures/scipy/meta.json` and one raw file per host of it in `dir`.
fn meta_case(dir: &Path, name: &str) -> (Value, Vec<PathBuf>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/meta.json"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .expect("the case is in meta.json")
        .clone();
    let files = case["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(h, sessions)| {
            let blocks: Vec<f64> = sessions[0]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            raw_host(dir, h, &blocks)
        })
        .collect();
    (case, files)
}

/// Unbalanced hosts through the binary: `abba analyze` of one raw file per host reports
/// the random-effects (DerSimonian-Laird + modified HKSJ) interval of
/// `fixtures/scipy/meta.json` (written by `fixtures/scipy/generate_meta.py`), at 95% and
/// at `--confidence 0.9`, with the bootstrap cross-check beside it.
#[test]
fn unbalanced_hosts_get_the_random_effects_interval_of_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let (case, files) = meta_case(dir.path(), "unbalanced 5 hosts tau 0.005");
    assert_eq!(case["method"], "random-effects-hksj");
    let close = |got: f64, want: f64, what: &str| {
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1e-3),
            "{what}: {got} vs {want}"
        );
    };
    let want = &case["re"];
    for (flags, key) in [
        (&[][..], "ci_0.95"),
        (&["--confidence", "0.9"][..], "ci_0.9"),
    ] {
        let out = abba()
            .arg("analyze")
            .args(&files)
            .args(flags)
            .arg("--json")
            .assert()
            .success();
        let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let c = &doc["levels"]["comparisons"][0];
        let p = &c["pooled"];
        assert_eq!(p["method"], "random-effects-hksj");
        assert_eq!(p["df"], 4);
        close(
            p["ratio"].as_f64().unwrap().ln(),
            want["estimate"].as_f64().unwrap(),
            "estimate",
        );
        for i in 0..2 {
            close(
                p["ci"][i].as_f64().unwrap().ln(),
                want[key][i].as_f64().unwrap(),
                &format!("{key}[{i}]"),
            );
        }
        close(
            p["tau_squared"].as_f64().unwrap(),
            want["tau_squared"].as_f64().unwrap(),
            "tau^2",
        );
        close(
            p["hksj_factor"].as_f64().unwrap(),
            want["hksj_factor"].as_f64().unwrap(),
            "q",
        );
        let boot = &p["bootstrap"];
        assert_eq!(boot["resamples"], doc["levels"]["resamples"]);
        assert!(boot["ci"][0].as_f64().unwrap() < boot["ci"][1].as_f64().unwrap());
        let summary = c["summary"].as_str().unwrap();
        if flags.is_empty() {
            assert_eq!(p["level"], 0.95);
            assert!(summary.contains("at 95%:"), "{summary}");
        } else {
            assert_eq!(p["level"], 0.9);
            assert!(
                summary.contains("at 90%, not the verdict's 95%"),
                "{summary}"
            );
        }
    }
    let text = abba()
        .env("COLUMNS", "400")
        .arg("analyze")
        .args(&files)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(
        text.contains("random effects over the 5 host means"),
        "{text}"
    );
    assert!(
        text.contains("cross-check: hierarchical bootstrap"),
        "{text}"
    );
}
