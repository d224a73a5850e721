//! Snapshot tests pinning, byte for byte, what `abba analyze` and `abba compare` print
//! today: the console report, the `--export-markdown` file and the `--json` document.
//!
//! The inputs are fixed: committed files under `tests/data/` for `analyze`, and for
//! `compare` a small shell script (`tests/data/counter.sh`) whose "measurement" is a
//! deterministic function of a per-variant call counter, read with `--metric json:v`. Every
//! run uses `--seed 1`, so run orders, layouts and bootstrap intervals are reproducible.
//! Nothing depends on timing.
//!
//! The only parts of the outputs that are not verbatim are the host facts of a live
//! `compare` (CPU list, governor and turbo, ASLR, abba's version, environment and argument
//! sizes, load averages) and temporary paths, which `redact_host` replaces with
//! placeholders. The snapshots of `analyze` on the committed raw files keep the facts
//! recorded in those files verbatim.
//!
//! Update the snapshots (only when a change of output is intended) with
//! `INSTA_UPDATE=always cargo test -p bench-cli --test integration snapshots::` and review the diff.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The package directory: the tests run from it, so the data paths stay relative (they
/// appear in warnings and in the committed raw files' commands).
fn package_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    // stdout is a pipe (no terminal) and NO_COLOR is set: no colour either way.
    cmd.env("NO_COLOR", "1");
    // Piped and without COLUMNS: the report fits 100 columns, whatever the terminal
    // running the tests is.
    cmd.env_remove("COLUMNS");
    cmd.current_dir(package_dir());
    cmd
}

/// A committed input, by its path relative to the package directory.
fn data(name: &str) -> String {
    format!("tests/data/{name}")
}

/// What one invocation of the binary did.
struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(mut cmd: Command) -> Outcome {
    let out = cmd.output().unwrap();
    Outcome {
        code: out.status.code().expect("abba was killed by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Asserts a successful run with nothing on stderr and returns its stdout.
fn success(cmd: Command, what: &str) -> String {
    let out = run(cmd);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (0, ""),
        "{what}: unexpected exit code or stderr; stdout:\n{}",
        out.stdout
    );
    out.stdout
}

/// Snapshots `text` under `name`, with the command line as the snapshot's description.
/// insta ignores differences in trailing newlines, so the single newline every output ends
/// with today is checked here.
fn snap(name: &str, description: &str, text: &str) {
    assert!(
        text.ends_with('\n') && !text.ends_with("\n\n"),
        "{name}: the output no longer ends with exactly one newline: {:?}",
        &text[text.len().saturating_sub(40)..]
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_description(description);
    settings.set_omit_expression(true);
    // The snapshots keep the names and the directory they had when this file was a test
    // binary of its own (`tests/snapshots/snapshots__NAME.snap`).
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    let name = format!("snapshots__{name}");
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Replaces `text[i..j]`, where `i` is the end of the first `start` and `j` the beginning
/// of the next `end` after it, with `with`; lines without both markers are left alone.
fn replace_between(line: &str, start: &str, end: &str, with: &str) -> String {
    let Some(i) = line.find(start).map(|i| i + start.len()) else {
        return line.to_string();
    };
    let Some(j) = line[i..].find(end).map(|j| i + j) else {
        return line.to_string();
    };
    format!("{}{with}{}", &line[..i], &line[j..])
}

/// Replaces the host-specific facts of the Controls section (console, Markdown or JSON)
/// with placeholders, and every path in `paths` with `[TMP]`; everything else is kept
/// verbatim.
fn redact_host(text: &str, paths: &[&Path]) -> String {
    let mut text = text.to_string();
    for path in paths {
        text = text.replace(&path.display().to_string(), "[TMP]");
    }
    let mut out = String::new();
    // In the JSON, the ASLR entry's treatment and detail follow its dimension line.
    let mut in_json_aslr = false;
    for line in text.split_inclusive('\n') {
        let mut line = line.to_string();
        line = replace_between(&line, "chose among CPU(s) ", " (use --pin", "[CPUS]");
        // The one-line controls summary names the ASLR setting too.
        if line.contains("controls: ") || line.contains("Controls: ") {
            line = line
                .replace("ASLR on", "ASLR [ASLR]")
                .replace("ASLR off", "ASLR [ASLR]");
        }
        if let Some(k) = line.find("; abba records but does not set them") {
            if let Some(g) = line[..k].rfind("governor ") {
                line = format!(
                    "{}governor [GOVERNOR], turbo [TURBO]{}",
                    &line[..g],
                    &line[k..]
                );
            }
        }
        line = replace_between(&line, "clock (abba ", ": spawn", "[VERSION]");
        line = replace_between(&line, "own environment ", " bytes and", "[N]");
        line = replace_between(&line, " bytes and arguments ", " bytes, the same", "[N]");
        line = replace_between(&line, "load average ", " at the start", "[LOAD]");
        line = replace_between(&line, "at the start, ", " at the end", "[LOAD]");
        // ASLR: the level decides the treatment and the words, so both go.
        let trimmed = line.trim_start().to_string();
        if trimmed.starts_with("ASLR: ") || trimmed.starts_with("- ASLR: ") {
            let keep = line.find("ASLR: ").unwrap() + "ASLR: ".len();
            line = format!("{}[ASLR]\n", &line[..keep]);
        }
        if trimmed.starts_with("\"dimension\": \"ASLR\"") {
            in_json_aslr = true;
        } else if in_json_aslr {
            if trimmed.starts_with('}') {
                in_json_aslr = false;
            } else if let Some(k) = line.find("\": \"") {
                let comma = if line.trim_end().ends_with(',') {
                    ","
                } else {
                    ""
                };
                line = format!("{}\": \"[ASLR]\"{comma}\n", &line[..k]);
            }
        }
        out.push_str(&line);
    }
    out
}

// ---------------------------------------------------------------------------------------
// abba analyze
// ---------------------------------------------------------------------------------------

/// Snapshots `abba analyze ARGS` three ways: the console report (`NAME_console`), the
/// `--export-markdown` file (`NAME_markdown`) and `--json` on stdout (`NAME_json`).
fn analyze_three_ways(name: &str, args: &[&str]) {
    let line = format!("abba analyze {}", args.join(" "));

    let mut cmd = abba();
    cmd.arg("analyze").args(args);
    let console = success(cmd, &line);
    snap(&format!("{name}_console"), &line, &console);

    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("report.md");
    let mut cmd = abba();
    cmd.arg("analyze")
        .args(args)
        .arg("--export-markdown")
        .arg(&md);
    let stdout = success(cmd, &line);
    assert_eq!(stdout, console, "{line}: --export-markdown changed stdout");
    let markdown = std::fs::read_to_string(&md).unwrap();
    snap(
        &format!("{name}_markdown"),
        &format!("{line} --export-markdown FILE (the file)"),
        &markdown,
    );

    let mut cmd = abba();
    cmd.arg("analyze").args(args).arg("--json");
    let json = success(cmd, &line);
    serde_json::from_str::<serde_json::Value>(&json).expect("--json prints JSON");
    snap(&format!("{name}_json"), &format!("{line} --json"), &json);
}

#[test]
fn analyze_raw_two_variants() {
    analyze_three_ways("analyze_raw_two", &[&data("raw_two.jsonl"), "--seed", "1"]);
}

#[test]
fn analyze_raw_three_variants() {
    analyze_three_ways(
        "analyze_raw_three",
        &[&data("raw_three.jsonl"), "--seed", "1"],
    );
}

/// The two-variant raw file cut in the middle of block 5, its last line half written.
#[test]
fn analyze_raw_truncated_mid_block() {
    analyze_three_ways(
        "analyze_raw_truncated",
        &[&data("raw_two_truncated.jsonl"), "--seed", "1"],
    );
}

#[test]
fn analyze_csv_paired_two_variants() {
    analyze_three_ways(
        "analyze_csv_paired_two",
        &[&data("paired_two.csv"), "--seed", "1"],
    );
}

#[test]
fn analyze_csv_paired_three_variants_friedman() {
    analyze_three_ways(
        "analyze_csv_paired_three",
        &[&data("paired_three.csv"), "--seed", "1"],
    );
}

#[test]
fn analyze_csv_unpaired_three_variants_kruskal_wallis() {
    analyze_three_ways(
        "analyze_csv_unpaired_three",
        &[&data("unpaired_three.csv"), "--unit", "ms", "--seed", "1"],
    );
}

#[test]
fn analyze_csv_classes_per_class() {
    analyze_three_ways(
        "analyze_csv_classes",
        &[&data("classes.csv"), "--seed", "1"],
    );
}

#[test]
fn analyze_csv_classes_cross_class() {
    analyze_three_ways(
        "analyze_csv_classes_cross_class",
        &[&data("classes.csv"), "--cross-class", "--seed", "1"],
    );
}

#[test]
fn analyze_hyperfine_export() {
    analyze_three_ways(
        "analyze_hyperfine",
        &[&data("hyperfine.json"), "--seed", "1"],
    );
}

/// A paired CSV whose 8th block (`block` column 7) lacks variant B: that block is dropped
/// with an incomplete-blocks warning, as in a raw file, and the other 11 are analyzed
/// (exit 0, the report on stdout, nothing on stderr).
#[test]
fn analyze_csv_block_missing_a_variant_is_dropped_with_a_warning() {
    let mut cmd = abba();
    cmd.args(["analyze", &data("missing_cell.csv"), "--seed", "1"]);
    let out = run(cmd);
    snap(
        "analyze_csv_missing_cell_dropped",
        "abba analyze tests/data/missing_cell.csv --seed 1 (exit code, stdout, stderr)",
        &format!(
            "exit code: {}\n--- stdout ---\n{}--- stderr ---\n{}",
            out.code, out.stdout, out.stderr
        ),
    );
}

/// `--fail-if-slower 2%` on the paired CSV whose B is 3.6% slower: the gate trips.
#[test]
fn analyze_fail_if_slower_trips() {
    let mut cmd = abba();
    cmd.args([
        "analyze",
        &data("paired_two.csv"),
        "--seed",
        "1",
        "--fail-if-slower",
        "2%",
    ]);
    let out = run(cmd);
    snap(
        "analyze_fail_if_slower",
        "abba analyze tests/data/paired_two.csv --seed 1 --fail-if-slower 2% (exit code, stdout, stderr)",
        &format!(
            "exit code: {}\n--- stdout ---\n{}--- stderr ---\n{}",
            out.code, out.stdout, out.stderr
        ),
    );
}

// ---------------------------------------------------------------------------------------
// abba compare
// ---------------------------------------------------------------------------------------

/// `abba compare --metric json:v --seed 1 --blocks 8 --quiet` over the counter script, one
/// variant per `(name, base)`, with `extra` arguments; a fresh counter directory each time
/// so that every invocation measures the same values. Returns the outcome and the counter
/// directory (to redact).
fn compare(variants: &[(&str, u32)], extra: &[&str]) -> (Outcome, tempfile::TempDir) {
    let counters = tempfile::tempdir().unwrap();
    let mut cmd = abba();
    cmd.args([
        "compare", "--metric", "json:v", "--seed", "1", "--blocks", "8", "--quiet",
    ]);
    for (name, _) in variants {
        cmd.args(["-n", name]);
    }
    cmd.args(extra);
    for (name, base) in variants {
        let key = name.to_lowercase();
        cmd.arg(format!(
            "sh {} {} {key} {base}",
            data("counter.sh"),
            counters.path().display()
        ));
    }
    (run(cmd), counters)
}

/// Snapshots `abba compare` three ways, host facts redacted: console (`NAME_console`),
/// `--export-markdown` (`NAME_markdown`) and `--json` (`NAME_json`).
fn compare_three_ways(name: &str, variants: &[(&str, u32)]) {
    let line = format!(
        "abba compare --metric json:v --seed 1 --blocks 8 --quiet {} (host facts redacted)",
        variants
            .iter()
            .map(|(n, b)| format!(
                "-n {n} 'sh tests/data/counter.sh DIR {} {b}'",
                n.to_lowercase()
            ))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let check = |out: &Outcome| {
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (0, ""),
            "{line}: unexpected exit code or stderr; stdout:\n{}",
            out.stdout
        );
    };

    let (out, counters) = compare(variants, &[]);
    check(&out);
    let console = redact_host(&out.stdout, &[counters.path()]);
    snap(&format!("{name}_console"), &line, &console);

    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("report.md");
    let md_arg = md.display().to_string();
    let (out, counters) = compare(variants, &["--export-markdown", &md_arg]);
    check(&out);
    assert_eq!(
        redact_host(&out.stdout, &[counters.path()]),
        console,
        "{line}: --export-markdown changed stdout"
    );
    let markdown = std::fs::read_to_string(&md).unwrap();
    snap(
        &format!("{name}_markdown"),
        &format!("{line} --export-markdown FILE (the file)"),
        &redact_host(&markdown, &[counters.path(), dir.path()]),
    );

    let (out, counters) = compare(variants, &["--json"]);
    check(&out);
    serde_json::from_str::<serde_json::Value>(&out.stdout).expect("--json prints JSON");
    snap(
        &format!("{name}_json"),
        &format!("{line} --json"),
        &redact_host(&out.stdout, &[counters.path()]),
    );
}

#[test]
fn compare_two_variants_abba() {
    compare_three_ways("compare_two", &[("A", 100), ("B", 106)]);
}

#[test]
fn compare_three_variants_abba() {
    compare_three_ways("compare_three", &[("A", 100), ("B", 106), ("C", 101)]);
}

/// The redaction touches only the host facts: a check on a made-up Controls section in
/// each of the three formats.
#[test]
fn redaction_replaces_only_host_facts() {
    let console = "\
Controls:
  cores: uncontrolled — the scheduler chose among CPU(s) 0-1 (use --pin to hold this fixed)
  frequency governor and turbo: uncontrolled — governor performance, turbo on; abba records but does not set them
  ASLR: randomized — kernel address-space randomization on (randomize_va_space = 2): fresh addresses every run
  the harness: held fixed — every run through the same runner and clock (abba 0.1.0: spawn, wait4, monotonic clock); abba's own environment 1296 bytes and arguments 241 bytes, the same for every run; 1 untimed warm-up run(s) per variant, 0 ms settle between runs
  background load: uncontrolled — 1-minute load average 5.34 at the start, n/a at the end
";
    let expected = "\
Controls:
  cores: uncontrolled — the scheduler chose among CPU(s) [CPUS] (use --pin to hold this fixed)
  frequency governor and turbo: uncontrolled — governor [GOVERNOR], turbo [TURBO]; abba records but does not set them
  ASLR: [ASLR]
  the harness: held fixed — every run through the same runner and clock (abba [VERSION]: spawn, wait4, monotonic clock); abba's own environment [N] bytes and arguments [N] bytes, the same for every run; 1 untimed warm-up run(s) per variant, 0 ms settle between runs
  background load: uncontrolled — 1-minute load average [LOAD] at the start, [LOAD] at the end
";
    assert_eq!(redact_host(console, &[]), expected);
    let markdown = "- ASLR: held fixed — disabled (randomize\\_va\\_space = 0): the same addresses every run\n- run order: x\n";
    assert_eq!(
        redact_host(markdown, &[]),
        "- ASLR: [ASLR]\n- run order: x\n"
    );
    let json = "    {\n      \"dimension\": \"ASLR\",\n      \"treatment\": \"randomized\",\n      \"detail\": \"on (randomize_va_space = 2)\"\n    },\n    {\n      \"dimension\": \"the harness\",\n      \"treatment\": \"held_fixed\",\n";
    assert_eq!(
        redact_host(json, &[]),
        "    {\n      \"dimension\": \"ASLR\",\n      \"treatment\": \"[ASLR]\",\n      \"detail\": \"[ASLR]\"\n    },\n    {\n      \"dimension\": \"the harness\",\n      \"treatment\": \"held_fixed\",\n"
    );
    assert_eq!(
        redact_host("at /tmp/xyz/report.md\n", &[Path::new("/tmp/xyz")]),
        "at [TMP]/report.md\n"
    );
}

/// The console report of `abba analyze FILE` with `COLUMNS` set, compact or `--verbose`.
fn analyze_at_width(file: &str, columns: usize, verbose: bool) -> String {
    let mut cmd = abba();
    cmd.env("COLUMNS", columns.to_string())
        .args(["analyze", &data(file)]);
    if verbose {
        cmd.arg("--verbose");
    }
    let text = success(cmd, file);
    // Every line fits: tables narrowed, prose wrapped.
    for line in text.lines() {
        assert!(
            line.chars().count() <= columns,
            "{file} at {columns} columns: a line is {} wide:\n{line}",
            line.chars().count()
        );
    }
    text
}

#[test]
fn console_compact_and_verbose_at_60_80_and_160_columns_with_long_names() {
    for columns in [60, 80, 160] {
        for verbose in [false, true] {
            let mode = if verbose { "verbose" } else { "compact" };
            let text = analyze_at_width("raw_long_names.jsonl", columns, verbose);
            snap(
                &format!("analyze_long_names_{mode}_{columns}"),
                &format!(
                    "COLUMNS={columns} abba analyze tests/data/raw_long_names.jsonl{}",
                    if verbose { " --verbose" } else { "" }
                ),
                &text,
            );
        }
    }
}

#[test]
fn console_compact_raw_two_at_60_80_and_160_columns() {
    for columns in [60, 80, 160] {
        let text = analyze_at_width("raw_two.jsonl", columns, false);
        snap(
            &format!("analyze_raw_two_compact_{columns}"),
            &format!("COLUMNS={columns} abba analyze tests/data/raw_two.jsonl"),
            &text,
        );
    }
}

#[test]
fn time_unit_and_style_as_hyperfine_spells_them() {
    let mut cmd = abba();
    cmd.args([
        "analyze",
        &data("raw_long_names.jsonl"),
        "--time-unit",
        "ms",
        "--style",
        "basic",
    ]);
    let text = success(cmd, "--time-unit ms --style basic");
    // The tables and the lines abba words are ASCII (a verdict sentence may carry a `±`).
    for line in text.lines().filter(|l| !l.starts_with(' ')) {
        assert!(line.is_ascii(), "{line}");
    }
    assert!(text.contains("values in ns, shown in ms"), "{text}");
    assert!(text.contains(" ms |"), "{text}");
    assert!(!text.contains(" us |"), "{text}");
    let mut cmd = abba();
    cmd.args(["analyze", &data("raw_two.jsonl"), "--style", "none"]);
    let plain = success(cmd, "--style none");
    assert!(
        plain.contains(" Variant ") && !plain.contains("| Variant") && !plain.contains("+-"),
        "{plain}"
    );
    assert!(plain.lines().all(|l| l == l.trim_end()), "{plain}");
    let mut cmd = abba();
    // A colored verdict (WORSE by the fastest run; the default leaves this file
    // inconclusive, which is not colored).
    cmd.args([
        "analyze",
        &data("raw_two.jsonl"),
        "--estimator",
        "hl-min-log-ratio",
        "--style",
        "color",
    ]);
    assert!(success(cmd, "--style color").contains('\u{1b}'));
}
