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
