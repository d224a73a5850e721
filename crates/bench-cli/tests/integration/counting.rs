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

/// Whether valgrind is on `PATH`; without it a test is skipped (said on stdout), unless
/// `ABBA_REQUIRE_VALGRIND` is set (`.ci/run`), where its absence fails the test.
fn valgrind_or_skip() -> bool {
    if SystemProbe.valgrind().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("ABBA_REQUIRE_VALGRIND").is_none(),
        "ABBA_REQUIRE_VALGRIND is set but valgrind is not on PATH"
    );
    println!("SKIPPED: valgrind is not on PATH (apt-get install -y valgrind)");
    false
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
    if !valgrind_or_skip() {
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

/// `fixtures/counts_vs_time/branchy.c` built twice with `cc`: (branchy, branchless), or
/// `None` when there is no C compiler.
fn branchy_pair(dir: &std::path::Path) -> Option<(String, String)> {
    let source = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/counts_vs_time/branchy.c"
    );
    let build = |out: &str, flags: &[&str]| {
        let path = dir.join(out);
        std::process::Command::new("cc")
            .args(["-O1", "-o"])
            .arg(&path)
            .args(flags)
            .arg(source)
            .status()
            .ok()
            .filter(|s| s.success())
            .map(|_| path.to_str().unwrap().to_owned())
    };
    Some((build("branchy", &["-DBRANCHY"])?, build("branchless", &[])?))
}

/// No line of `text` calls a count faster, slower, better or worse (the disagreement
/// line quotes native time's own direction).
fn no_time_word(what: &str, text: &str) {
    for word in [
        "SLOWER",
        "FASTER",
        "WORSE",
        "BETTER",
        "is slower",
        "is worse",
    ] {
        let claims = text
            .lines()
            .filter(|l| l.contains(word) && !l.contains("native CPU time says"))
            .count();
        assert_eq!(claims, 0, "{what} says {word}:\n{text}");
    }
}

/// The fixture pair whose counts and time move apart: the branchless build executes ~30%
/// more instructions and runs in a fraction of the branchy build's time (mispredicted
/// branches). Every format words the counts as counts (MORE, "executes ... more
/// instructions", never slower or worse), the identical counts are decided exactly at 6
/// blocks, and the native runs flag the disagreement naming both directions. The native
/// effect is a factor of 2-3 in CPU time, far outside what a loaded machine moves.
#[test]
fn counts_that_move_opposite_to_time_are_worded_as_counts_and_flagged() {
    if !valgrind_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some((branchy, branchless)) = branchy_pair(dir.path()) else {
        println!("SKIPPED: no C compiler (cc)");
        return;
    };
    let raw = dir.path().join("raw.jsonl");
    let md = dir.path().join("report.md");
    let html = dir.path().join("report.html");
    let (code, stdout, stderr) = run(abba().args([
        "compare",
        "--metric",
        "instructions",
        "--counter",
        "valgrind",
        "--blocks",
        "6",
        "--warmup",
        "0",
        "--layout",
        "fixed",
        "--output",
        raw.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
        "--export-html",
        html.to_str().unwrap(),
        "--name",
        "branchy",
        "--name",
        "branchless",
        &format!("{branchy} 400000 5"),
        &format!("{branchless} 400000 5"),
    ]));
    assert_eq!(code, 0, "{stderr}");
    // The headline: a count, exact, no interval to wait for.
    let headline = stdout.lines().next().unwrap();
    assert!(
        headline.contains("branchless vs branchy")
            && headline.contains("MORE")
            && headline.contains("in every run (exact)"),
        "{stdout}"
    );
    assert!(stderr.contains("timing 3 blocks natively"), "{stderr}");
    // The disagreement, in one line naming both directions.
    let flagged: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("counts-disagree-with-time"))
        .collect();
    assert_eq!(flagged.len(), 1, "{stdout}");
    assert!(
        flagged[0].contains("counts say branchless executes")
            && flagged[0].contains("more instructions than branchy")
            && flagged[0].contains("native CPU time says branchless is")
            && flagged[0].contains("faster"),
        "{stdout}"
    );
    // The native runs are their own experiment on CPU time, never in the counted file.
    let native: Value = serde_json::from_str(
        std::fs::read_to_string(dir.path().join("raw.native.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(native["metric"], "cpu");
    assert!(native.get("counter").is_none_or(Value::is_null), "{native}");
    // Re-analysed on its own (JSON), the counted file is exact, and says so in words.
    let (code, json, stderr) = run(abba().args(["analyze", "--json", raw.to_str().unwrap()]));
    assert_eq!(code, 0, "{stderr}");
    let a: Value = serde_json::from_str(&json).unwrap();
    // The native runs beside it are read again: the check survives the re-analysis.
    assert_eq!(a["native_time"]["blocks"], 3, "{json}");
    assert_eq!(
        a["native_time"]["comparisons"][0]["disagrees"], true,
        "{json}"
    );
    let c = &a["groups"][0]["comparisons"][0];
    assert_eq!(c["verdict_basis"], "exact");
    assert_eq!(c["ratio_ci"][0], c["ratio_ci"][1]);
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("branchless executes")
            && summary.contains("more instructions than branchy in every run"),
        "{summary}"
    );
    // No time word on a count, in any format.
    let markdown = std::fs::read_to_string(&md).unwrap();
    for (what, text) in [
        ("console", stdout.as_str()),
        ("markdown", &markdown),
        ("json", &json),
    ] {
        no_time_word(what, text);
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<span class=\"word\">MORE</span>"), "{page}");
    assert!(!page.contains(">SLOWER<") && !page.contains("is worse than"));
}

/// `abba analyze` of a counted file reads the native runs beside it only when they are
/// this experiment's: without the file (`--native-blocks 0` times nothing natively) the
/// analysis has no `native_time` and says nothing; a file of another experiment there is
/// named in one warning and left out.
#[test]
fn native_blocks_0_times_nothing_and_analyze_uses_only_this_experiments_native_runs() {
    if !valgrind_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let native = dir.path().join("raw.native.jsonl");
    let (code, _, stderr) = run(abba().args([
        "compare",
        "--metric",
        "instructions",
        "--counter",
        "valgrind",
        "--native-blocks",
        "0",
        "--blocks",
        "2",
        "--warmup",
        "0",
        "--output",
        raw.to_str().unwrap(),
        "-n",
        "a",
        "-n",
        "b",
        "/bin/true",
        "/bin/true",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("natively"), "{stderr}");
    assert!(!native.exists());
    let (code, json, stderr) = run(abba().args(["analyze", "--json", raw.to_str().unwrap()]));
    assert_eq!(code, 0, "{stderr}");
    let a: Value = serde_json::from_str(&json).unwrap();
    assert!(a["native_time"].is_null(), "{json}");
    assert!(!stderr.contains("native"), "{stderr}");
    // Another experiment's file where the native runs go (here: the counted file itself).
    std::fs::copy(&raw, &native).unwrap();
    let (code, json, stderr) = run(abba().args(["analyze", "--json", raw.to_str().unwrap()]));
    assert_eq!(code, 0, "{stderr}");
    let a: Value = serde_json::from_str(&json).unwrap();
    assert!(a["native_time"].is_null(), "{json}");
    assert!(
        stderr.contains("the native runs beside")
            && stderr.contains("not the native runs of this experiment"),
        "{stderr}"
    );
}
