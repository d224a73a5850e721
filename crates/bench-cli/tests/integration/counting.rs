//! `--metric instructions` from the command line: the one-line refusals (no counter, a
//! counter that cannot count, another counter on resume) and a real counted experiment
//! under valgrind (skipped only when valgrind is missing and `ABBA_REQUIRE_VALGRIND` is
//! unset; `.ci/run` installs it and sets it).

use assert_cmd::Command;
use bench_sched::{CounterProbe, SystemProbe};
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1").env_remove("COLUMNS");
    cmd
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn no_valgrind_and_no_pmu_is_exit_2_with_one_line_saying_how_to_install() {
    let no_path = || {
        let mut c = abba();
        c.env("PATH", "/nonexistent-dir");
        c
    };
    let (code, _, stderr) = run(no_path().args([
        "compare",
        "--metric",
        "instructions",
        "--counter",
        "valgrind",
        "/bin/true",
        "/bin/true",
    ]));
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("valgrind is not installed") && stderr.contains("apt-get install valgrind"),
        "{stderr}"
    );
    if SystemProbe.pmu().is_err() {
        // auto: the PMU is refused here too, so both reasons are named.
        let (code, _, stderr) = run(no_path().args([
            "compare",
            "--metric",
            "instructions",
            "/bin/true",
            "/bin/true",
        ]));
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("perf_event") && stderr.contains("apt-get install valgrind"),
            "{stderr}"
        );
    }
    for (args, needle) in [
        (
            vec!["--metric", "instructions", "--counter", "papi"],
            "--counter: unknown counter",
        ),
        (vec!["--metric", "instruction"], "--metric: unknown metric"),
        (
            vec!["--metric", "wall", "--counter", "valgrind"],
            "--counter valgrind with --metric wall",
        ),
    ] {
        let (code, _, stderr) = run(abba()
            .arg("compare")
            .args(&args)
            .args(["/bin/true", "/bin/true"]));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn a_counted_experiment_records_its_counter_and_resume_keeps_it() {
    if SystemProbe.valgrind().is_none() {
        assert!(
            std::env::var_os("ABBA_REQUIRE_VALGRIND").is_none(),
            "ABBA_REQUIRE_VALGRIND is set but valgrind is not on PATH"
        );
        println!("SKIPPED: valgrind is not on PATH (apt-get install -y valgrind)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let raw_s = raw.to_str().unwrap();
    let (code, stdout, stderr) = run(abba().args([
        "compare",
        "--metric",
        "instructions",
        "--counter",
        "valgrind",
        "--blocks",
        "1",
        "--warmup",
        "0",
        "--layout",
        "fixed",
        "--json",
        "--output",
        raw_s,
        "/bin/true",
        "/bin/echo",
    ]));
    assert_eq!(code, 0, "{stderr}");
    let analysis: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(analysis["unit"], "instructions");
    let text = std::fs::read_to_string(&raw).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["counter"], "valgrind");
    assert_eq!(header["metric"], "instructions");
    let run1: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert!(run1["instructions"].as_u64().unwrap() > 10_000, "{run1}");
    // Another counter on resume is refused before anything runs.
    let (code, _, stderr) = run(abba().args([
        "compare",
        "--resume",
        raw_s,
        "--blocks",
        "2",
        "--counter",
        "pmu",
    ]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("counted with valgrind"), "{stderr}");
}
