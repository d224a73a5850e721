//! Every line abba prints fits the width: `COLUMNS` or `--width`; piped without either,
//! the report is not wrapped (as hyperfine).
//! Checked for `compare` (compact and `--verbose`), the demo, and `abba analyze` of a
//! sequential (`--until decided`) file, at 60, 80 and 160 columns: prose is wrapped, tables
//! narrowed, and at 160 the report still uses the room (it is not wrapped at 80).

use std::path::Path;

use assert_cmd::Command;

fn abba(columns: Option<usize>) -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    match columns {
        Some(c) => cmd.env("COLUMNS", c.to_string()),
        None => cmd.env_remove("COLUMNS"),
    };
    cmd
}

/// The longest line of stdout and of stderr of a command that must have succeeded, in
/// characters, and stdout.
fn run(mut cmd: Command, what: &str) -> (usize, usize, String) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{what}: {stderr}\n{stdout}");
    // The progress bar is drawn only on a terminal; stderr here is the notes and warnings.
    let longest = |s: &str| s.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    (longest(&stdout), longest(&stderr), stdout)
}

fn assert_fits(columns: usize, (out, err, text): &(usize, usize, String), what: &str) {
    assert!(
        *out <= columns,
        "{what} at {columns}: stdout {out} wide:\n{text}"
    );
    assert!(*err <= columns, "{what} at {columns}: stderr {err} wide");
}

/// `abba compare` of two commands printing fixed JSON metrics (fast, no timing).
fn compare(columns: Option<usize>, dir: &Path, extra: &[&str]) -> Command {
    let mut cmd = abba(columns);
    cmd.args(["compare", "--seed", "3", "--warmup", "0", "--shell", "sh"])
        .args(["--metric", "json:v", "--force", "--output"])
        .arg(dir.join("runs.jsonl"))
        .args(extra)
        .arg("echo '{\"v\": 1.0}'")
        .arg("echo '{\"v\": 1.1}'");
    cmd
}

#[test]
fn compare_fits_60_80_and_160_columns_and_is_not_wrapped_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    let mut widest = 0;
    for columns in [60, 80, 160] {
        for verbose in [false, true] {
            let mut extra = vec!["--blocks", "7"];
            if verbose {
                extra.push("--verbose");
            }
            let got = run(compare(Some(columns), dir.path(), &extra), "compare");
            assert_fits(columns, &got, &format!("compare {extra:?}"));
            if columns == 160 {
                widest = widest.max(got.0);
            }
        }
    }
    assert!(
        widest > 100,
        "at 160 columns the report is wrapped narrower: {widest}"
    );
    let got = run(
        compare(None, dir.path(), &["--blocks", "7", "--verbose"]),
        "piped",
    );
    // Piped without COLUMNS nothing is wrapped, as hyperfine: the verbose sentence is one
    // line to grep.
    assert!(
        got.0 > 100,
        "piped without COLUMNS the report is wrapped at {}",
        got.0
    );
    // `--width N` forces a width.
    let got = run(
        compare(
            None,
            dir.path(),
            &["--blocks", "7", "--verbose", "--width", "100"],
        ),
        "piped --width 100",
    );
    assert_fits(100, &got, "compare --verbose --width 100, piped");
}

#[test]
fn the_demo_fits_60_80_and_160_columns() {
    for columns in [60, 80, 160] {
        let mut cmd = abba(Some(columns));
        cmd.args(["--demo-blocks", "2", "--demo-duration", "0.005"]);
        let got = run(cmd, "demo");
        assert_fits(columns, &got, "the demo");
    }
}

#[test]
fn analyze_of_a_sequential_file_fits_60_80_and_160_columns() {
    let dir = tempfile::tempdir().unwrap();
    let extra = ["--until", "decided", "--max-blocks", "30", "--quiet"];
    run(compare(None, dir.path(), &extra), "compare --until decided");
    let raw = dir.path().join("runs.jsonl");
    for columns in [60, 80, 160] {
        for verbose in [false, true] {
            let mut cmd = abba(Some(columns));
            cmd.arg("analyze").arg(&raw);
            if verbose {
                cmd.arg("--verbose");
            }
            let got = run(cmd, "analyze");
            // The sentence (verbose) names the sequence that decided.
            assert!(
                !verbose || got.2.contains("confidence sequence"),
                "{}",
                got.2
            );
            assert_fits(columns, &got, &format!("analyze (verbose {verbose})"));
        }
    }
}
