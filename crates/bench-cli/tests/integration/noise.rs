//! The noise diagnosis through the binary (issue 36): a raw file whose runs' wall, user,
//! system and waiting times are set by hand, so what is on and off the CPU is known
//! exactly. A CPU-bound pair whose wall time drowns in time off the CPU gets one line with
//! the CPU-time verdict and the flag; a sleeping pair and a two-thread pair are told why
//! CPU time is not offered; the JSON carries the typed diagnosis.

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1").env_remove("COLUMNS");
    cmd
}

/// The kind of command the hand-made runs stand for.
#[derive(Clone, Copy)]
enum Kind {
    /// On the CPU all along, B doing 2% more work; other tenants add 0-200% of waiting.
    CpuBound,
    /// 1 ms of CPU in a 20 ms sleep.
    Sleeps,
    /// Two busy threads: CPU time twice the wall time.
    Threads,
}

/// A raw file of 10 ABBA blocks (`abba compare` of two echo commands) whose run lines
/// are rewritten as `kind`'s runs, decided on wall time.
fn raw_file(dir: &std::path::Path, kind: Kind) -> String {
    let raw = dir.join("echo.jsonl");
    let out = abba()
        .args([
            "compare", "--quiet", "--force", "--warmup", "0", "--blocks", "10",
        ])
        .args(["--seed", "1", "-n", "A", "-n", "B", "--output"])
        .arg(&raw)
        .args(["echo a", "echo b"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&raw).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v.get("wall_ns").is_some() {
            let b = v["variant"] == "B";
            let k = v["run"].as_u64().unwrap();
            // Fixed pseudo-random numbers: waiting of 0-200% of the run, a 0.1% jitter.
            let wait = ((k * 7919 + 13) % 101) as f64 / 50.0;
            let jitter = 1.0 + ((k * 104_729) % 11) as f64 * 1e-4;
            let (cpu, wall, delay) = match kind {
                Kind::CpuBound => {
                    let cpu = 1.0e7 * jitter * if b { 1.02 } else { 1.0 };
                    (cpu, cpu * (1.0 + wait), cpu * wait)
                }
                Kind::Sleeps => {
                    let cpu = 1.0e6 * jitter;
                    (cpu, 2.0e7 * (1.0 + wait), 2.0e7 * wait)
                }
                Kind::Threads => {
                    let cpu = 2.0e7 * jitter * if b { 1.02 } else { 1.0 };
                    (cpu, 1.0e7 * (1.0 + wait), 1.0e7 * wait)
                }
            };
            v["user_ns"] = ((cpu * 0.9) as u64).into();
            v["sys_ns"] = ((cpu * 0.1) as u64).into();
            v["wall_ns"] = (wall as u64).into();
            v["run_delay_ns"] = (delay as u64).into();
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let path = dir.join("runs.jsonl");
    std::fs::write(&path, out).unwrap();
    path.to_str().unwrap().to_owned()
}

fn analyze(raw: &str, args: &[&str]) -> String {
    let out = abba().arg("analyze").args(args).arg(raw).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_cpu_bound_pair_drowned_in_waiting_is_decided_on_cpu_time_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(dir.path(), Kind::CpuBound);
    let doc: Value = serde_json::from_str(&analyze(&raw, &["--json", "--quiet"])).unwrap();
    assert_eq!(
        doc["groups"][0]["comparisons"][0]["outcome"],
        "inconclusive"
    );
    let n = &doc["noise"]["comparisons"][0];
    assert_eq!(n["cpu_bound"], "yes", "{n}");
    assert_eq!(n["finding"], "cpu_decides", "{n}");
    assert_eq!(n["cpu_time"]["outcome"], "slower", "{n}");
    assert!(n["off_cpu_share"].as_f64().unwrap() > 0.99, "{n}");
    // On the CPU all along once the wait for a CPU is taken out.
    assert!(n["on_cpu"][0].as_f64().unwrap() > 0.99, "{n}");
    let ratio = n["cpu_time"]["ratio"].as_f64().unwrap();
    assert!((ratio - 1.02).abs() < 0.001, "{n}");
    // The same verdict as deciding the file on CPU time.
    let cpu: Value =
        serde_json::from_str(&analyze(&raw, &["--json", "--quiet", "--metric", "cpu"])).unwrap();
    assert_eq!(
        cpu["groups"][0]["comparisons"][0]["ratio"],
        n["cpu_time"]["ratio"]
    );
    assert!(
        cpu.get("noise").is_none(),
        "decided on CPU time: no diagnosis"
    );
    // Console and Markdown: one line, with the flag.
    let text = analyze(&raw, &[]);
    let line = text
        .lines()
        .find(|l| l.starts_with("wall time cannot decide"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("% of its spread is time off the CPU (other tenants)"),
        "{line}"
    );
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("CPU time decides: SLOWER +2.0% [") && joined.contains("] (--metric cpu)"),
        "{joined}"
    );
    let md = dir.path().join("r.md");
    analyze(
        &raw,
        &["--quiet", "--export-markdown", md.to_str().unwrap()],
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("**Noise:** wall time cannot decide"), "{md}");
    assert!(md.contains("(--metric cpu)"), "{md}");
}

#[test]
fn cpu_time_is_not_offered_for_a_sleeping_or_a_threaded_command() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, cpu_bound, why) in [
        (
            Kind::Sleeps,
            "off_cpu",
            "is on the CPU for 5% of its wall time",
        ),
        (
            Kind::Threads,
            "threads",
            "uses 2.0x its wall time in CPU time",
        ),
    ] {
        let raw = raw_file(dir.path(), kind);
        let doc: Value = serde_json::from_str(&analyze(&raw, &["--json", "--quiet"])).unwrap();
        let n = &doc["noise"]["comparisons"][0];
        assert_eq!(n["cpu_bound"], cpu_bound, "{n}");
        assert_eq!(n["cpu_time"], Value::Null, "{n}");
        assert_eq!(
            doc["groups"][0]["comparisons"][0]["outcome"],
            "inconclusive"
        );
        assert_eq!(n["finding"], "not_cpu_bound", "{n}");
        let text = analyze(&raw, &[]);
        let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(joined.contains("but CPU time is not offered"), "{joined}");
        assert!(joined.contains(why), "{joined}");
        assert!(!joined.contains("--metric cpu"), "{joined}");
    }
}

#[test]
fn plan_reads_the_pilot_on_cpu_time_with_metric_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(dir.path(), Kind::CpuBound);
    let plan = |extra: &[&str]| -> Value {
        let out = abba()
            .args(["plan", "--json", "--effect", "1%"])
            .args(extra)
            .arg(&raw)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // The hand-made CPU times move by a 0.1% jitter; the wall times by 0-200% of waiting.
    let wall = plan(&[])["plan"]["robust_sd"].as_f64().unwrap();
    let cpu = plan(&["--metric", "cpu"])["plan"]["robust_sd"]
        .as_f64()
        .unwrap();
    assert!(cpu < 0.005 && wall > 0.1, "cpu {cpu}, wall {wall}");
    let out = abba()
        .args(["plan", "--metric", "nonsense"])
        .arg(&raw)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metric"));
}
