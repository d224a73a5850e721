//! What abba prints holds against issue 38's attacks on its outputs, through the binary: a
//! PR comment too large keeps whole changed rows within GitHub's byte limit and counts
//! the rest; the suite refuses an alpha below one in a million, a blank or multi-line
//! comment id, and names the key, file and line of a bad suite value and the one command a
//! resume finds changed; no geometric-mean interval from too few blocks; the plan stays
//! within what its pilot supports and never prints 0.0% for a change; `--max-blocks`
//! extends a resumed sequence; values a float cannot take the ratio of are said so, never
//! as hundreds of digits or `inf`; a CSV name may hold a quoted line break; Markdown
//! escapes `&`; a full temporary directory is not named as kept data; a value that is not
//! a time reads MORE in HTML too; a bimodal unpaired change is called in the runs'
//! direction and never beside an interval that contradicts it; identical data are
//! EQUIVALENT as docs/usage.md says; `--commit ''` refuses before anything runs.

use std::path::Path;

use serde_json::Value;

use super::support::{run, script, text, write};

/// `n` changed benchmarks (head 5% above base, every run the same value) named by `name`
/// and their index, then `same` unchanged ones.
fn changed_suite(dir: &Path, n: usize, same: usize, name: impl Fn(usize) -> String) -> String {
    let sh = script(dir);
    let mut text = String::from(
        "[variants]\nbase = \"1.00\"\nhead = \"1.05\"\n\n[settings]\nmetric = \"json:v\"\nblocks = 6\nwarmup = 0\n",
    );
    for k in 0..n + same {
        let (name, command) = if k < n {
            (name(k), format!("{} {{variant}}", sh.display()))
        } else {
            (
                format!("same-{k}"),
                format!("{} 1.0 {{name}}", sh.display()),
            )
        };
        text.push_str(&format!(
            "\n[[benchmark]]\nname = \"{name}\"\ncommand = \"{command}\"\n"
        ));
    }
    text
}

#[test]
fn a_pr_comment_beyond_githubs_byte_limit_keeps_whole_changed_rows_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Names of 1,000 four-byte characters: 20 changed rows hold 80 KB but 20,000
    // characters, so only a limit counted in bytes cuts them.
    let long = |k: usize| format!("{}-{k}", "\u{1F600}".repeat(1000));
    let suite = write(d, "abba.toml", &changed_suite(d, 20, 2, long));
    let out = run(
        d,
        &[
            "suite",
            suite.to_str().unwrap(),
            "-q",
            "--seed",
            "3",
            "--export-pr-comment",
            "comment.md",
            "--export-markdown",
            "full.md",
            "--comment-id",
            "pr-1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let full = std::fs::read_to_string(d.join("full.md")).unwrap();
    assert!(full.len() > 65_536 && full.chars().count() < 65_536);
    assert_eq!(full.matches("| **MORE").count(), 20);
    let c = std::fs::read_to_string(d.join("comment.md")).unwrap();
    assert!(c.len() <= 65_536, "{} bytes", c.len());
    assert!(c.starts_with("<!-- abba:pr-1 -->\n"));
    // Whole rows: every table line ends its last cell; each names its benchmark.
    let rows: Vec<&str> = c
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("| **MORE"))
        .collect();
    assert!(rows.len() >= 10 && rows.len() < 20, "{} rows", rows.len());
    assert!(
        c.lines()
            .filter(|l| l.starts_with('|'))
            .all(|l| l.ends_with(" |"))
    );
    for (k, row) in rows.iter().enumerate() {
        assert!(row.starts_with(&format!("| {} |", long(k))), "row {k}");
        // Every run the same value: the mean run decides, and the row names it.
        assert!(row.contains("| **MORE (mean run)** |"), "row {k}");
    }
    let note = format!(
        "{} of 20 changed benchmark row(s) shown; {} changed and 2 unchanged left out to fit the size limit",
        rows.len(),
        20 - rows.len()
    );
    assert!(c.contains(&note), "{}", &c[c.len().saturating_sub(600)..]);
    // The summary counts the changed benchmarks instead of listing every name.
    assert!(c.contains("Changed: 20 benchmark row(s), named in the table below"));
}

#[test]
fn the_suite_refuses_an_alpha_below_one_in_a_million_naming_alpha() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = write(d, "abba.toml", &changed_suite(d, 1, 0, |_| "a".into()));
    for alpha in ["1e-7", "1e-300"] {
        let out = run(
            d,
            &[
                "suite",
                suite.to_str().unwrap(),
                "--dry-run",
                "--alpha",
                alpha,
            ],
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("--alpha") && err.contains("at least 1e-6"),
            "{err}"
        );
        assert!(!err.contains("--confidence"), "{err}");
    }
}

#[test]
fn a_blank_or_multi_line_comment_id_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = write(d, "abba.toml", &changed_suite(d, 1, 0, |_| "a".into()));
    for id in ["", "  ", "a\nb", "a\u{1b}[31m"] {
        let out = run(
            d,
            &[
                "suite",
                suite.to_str().unwrap(),
                "--output",
                "raw.jsonl",
                "--export-pr-comment",
                "c.md",
                "--comment-id",
                id,
            ],
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{id:?}: {err}");
        assert!(err.contains("--comment-id"), "{err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");
        assert!(!d.join("raw.jsonl").exists() && !d.join("c.md").exists());
    }
}

#[test]
fn suite_file_errors_name_the_key_file_and_line_and_a_resume_names_the_changed_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = changed_suite(d, 1, 1, |_| "moved".into());
    for (setting, place, words) in [
        ("blocks = \"ten\"", "bad.toml:7:10", "blocks: invalid type"),
        (
            "shell = \"zsh\"",
            "bad.toml:9:9",
            "shell \"zsh\": expected none or sh",
        ),
        (
            "design = \"xyz\"",
            "bad.toml:9:10",
            "design \"xyz\": expected abba or random",
        ),
        (
            "design = \"sequential\"",
            "bad.toml:9:10",
            "design \"sequential\"",
        ),
    ] {
        let text_of = if setting.starts_with("blocks") {
            good.replace("blocks = 6", setting)
        } else {
            good.replace("warmup = 0\n", &format!("warmup = 0\n{setting}\n"))
        };
        let bad = write(d, "bad.toml", &text_of);
        let out = run(d, &["suite", bad.to_str().unwrap(), "--dry-run"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(place) && err.contains(words),
            "{setting}: {err}"
        );
    }
    // A resume whose file changed one benchmark's command names that one, not all twice.
    let suite = write(d, "abba.toml", &good);
    let out = run(
        d,
        &[
            "suite",
            "abba.toml",
            "-q",
            "--seed",
            "1",
            "--output",
            "r.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let raw = std::fs::read_to_string(d.join("r.jsonl")).unwrap();
    let cut: Vec<&str> = raw.lines().filter(|l| !l.contains("\"end\"")).collect();
    std::fs::write(d.join("r.jsonl"), cut[..cut.len() - 4].join("\n") + "\n").unwrap();
    std::fs::write(&suite, good.replace("1.0 {name}", "1.1 {name}")).unwrap();
    let out = run(d, &["suite", "abba.toml", "--resume", "r.jsonl"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("variants differs") && err.contains("1.1 head"),
        "{err}"
    );
    assert!(!err.contains("moved/base"), "{err}");
}

#[test]
fn a_suite_of_too_few_blocks_gives_its_geometric_mean_without_an_interval() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = write(d, "abba.toml", &changed_suite(d, 2, 1, |k| format!("c{k}")));
    for (blocks, interval) in [("1", false), ("2", false), ("6", true)] {
        let out = run(
            d,
            &[
                "suite",
                "abba.toml",
                "-q",
                "--seed",
                "1",
                "--blocks",
                blocks,
                "--export-json",
                "s.json",
            ],
        );
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let j: Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
        let g = &j["geometric_mean"];
        assert_eq!(g["blocks"], blocks.parse::<u64>().unwrap());
        assert_eq!(g["ci"].is_array(), interval, "{g}");
        if !interval {
            assert!(g["ci"].is_null(), "{g}");
            assert!(stdout.contains("no interval:"), "{stdout}");
            assert!(stdout.contains("it needs at least 6"), "{stdout}");
        }
    }
    let _ = suite;
}

#[test]
fn the_plan_stays_within_what_its_pilot_supports_and_never_prints_a_zero_change() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pilot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/raw_two.jsonl");
    let pilot = pilot.to_str().unwrap();
    let out = run(
        d,
        &[
            "plan",
            pilot,
            "--effect",
            "0.1%",
            "--max-blocks",
            "100000",
            "--blocks",
            "100000",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["plan"]["supported_blocks"], 300);
    assert_eq!(j["plan"]["max_blocks"], 300);
    assert_eq!(j["plan"]["budget_blocks"], 300);
    let out = run(
        d,
        &[
            "plan",
            pilot,
            "--effect",
            "0.001%",
            "--max-blocks",
            "100000",
            "--blocks",
            "100000",
        ],
    );
    let words = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        words.contains("Note: planned at 300 blocks, not more"),
        "{words}"
    );
    assert!(words.contains("a 0.0010% change"), "{words}");
    assert!(
        !words.contains("a 0.0% change") && !words.contains("is 0.0%"),
        "{words}"
    );
    // Within the pilot's support, no note.
    let out = run(d, &["plan", pilot]);
    assert!(!text(&out.stdout).contains("not more"));
}

#[test]
fn max_blocks_extends_a_resumed_sequence_and_needs_a_stop_rule() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run(
        d,
        &[
            "compare",
            "-q",
            "--until",
            "decided",
            "--max-blocks",
            "8",
            "--output",
            "s.jsonl",
            "true",
            "true",
        ],
    );
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let out = run(
        d,
        &["compare", "-q", "--resume", "s.jsonl", "--max-blocks", "10"],
    );
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{said}");
    assert!(said.contains("to 10 planned blocks"), "{said}");
    let out = run(d, &["compare", "--max-blocks", "10", "true", "true"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--until") && err.contains("--resume"), "{err}");
}

/// A paired CSV of 12 blocks, A near 1e-300 and B near 1e300.
fn extreme_csv(dir: &Path, blocked: bool) -> std::path::PathBuf {
    let mut t = String::from(if blocked {
        "block,variant,value\n"
    } else {
        "variant,value\n"
    });
    for k in 0..12 {
        let (a, b) = (1.0 + k as f64 / 20.0, 1.5 + k as f64 / 30.0);
        if blocked {
            t.push_str(&format!("{k},A,{a}e-300\n{k},B,{b}e300\n"));
        } else {
            t.push_str(&format!("A,{a}e-300\nB,{b}e300\n"));
        }
    }
    write(dir, if blocked { "x.csv" } else { "u.csv" }, &t)
}

#[test]
fn values_no_float_ratio_holds_are_said_so_never_as_hundreds_of_digits_or_inf() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for blocked in [true, false] {
        let csv = extreme_csv(d, blocked);
        let out = run(d, &["analyze", csv.to_str().unwrap(), "-v"]);
        let words = text(&out.stdout);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            text(&out.stderr)
        );
        assert!(
            words.contains("beyond what a 64-bit float holds"),
            "{words}"
        );
        assert!(!words.contains("ratios need positive values"), "{words}");
        for bad in ["[inf", "inf]", " inf", "NaN"] {
            assert!(!words.contains(bad), "{words}");
        }
        let longest_number = words
            .split(|c: char| !c.is_ascii_digit())
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(longest_number < 20, "{words}");
    }
    // The per-block values of data spanning 1e-300..1e300 in scientific notation.
    let mut t = String::from("block,variant,value\n");
    for k in 0..8 {
        t.push_str(&format!(
            "{k},A,{}e-{}\n{k},B,{}e{}\n",
            k + 1,
            290 - k,
            k + 2,
            290 - k
        ));
    }
    let csv = write(d, "span.csv", &t);
    let out = run(d, &["analyze", csv.to_str().unwrap(), "-v"]);
    let words = text(&out.stdout);
    assert!(
        words
            .split(|c: char| !c.is_ascii_digit())
            .all(|n| n.len() < 20),
        "{words}"
    );
    assert!(!words.contains("[inf"), "{words}");
    // A flag's error message too.
    let out = run(
        d,
        &[
            "analyze",
            csv.to_str().unwrap(),
            "--min-practical-effect",
            "1e300",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("1e300") && !err.contains("00000000000"),
        "{err}"
    );
}

#[test]
fn a_csv_name_may_hold_a_quoted_line_break_and_is_refused_as_a_name_naming_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A quoted line break in a column that is not read is data like any other.
    let mut t = String::from("block,variant,note,value\n");
    for k in 0..8 {
        t.push_str(&format!(
            "{k},a,\"first\nsecond\",{}\n{k},b,\"x, y\",{}\n",
            1.0 + k as f64 / 100.0,
            1.1 + k as f64 / 100.0
        ));
    }
    let ok = write(d, "ok.csv", &t);
    let out = run(d, &["analyze", ok.to_str().unwrap()]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("b vs a"),
        "{}",
        text(&out.stdout)
    );
    // As a variant's name: refused at its own line and column, never "unterminated quote".
    let bad = write(d, "bad.csv", "block,variant,value\n0,\"a\nb\",1\n0,c,2\n");
    let out = run(d, &["analyze", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.csv:2:2") && err.contains("line break"),
        "{err}"
    );
    assert!(!err.contains("unterminated"), "{err}");
    // A quote that never closes is still named.
    let open = write(d, "open.csv", "block,variant,value\n0,a,1\n0,\"c,2\n");
    let err = text(&run(d, &["analyze", open.to_str().unwrap()]).stderr);
    assert!(err.contains("open.csv:3:2: unterminated quote"), "{err}");
}

#[test]
fn markdown_escapes_an_ampersand_that_would_start_an_entity() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = String::from("block,variant,value\n");
    for k in 0..8 {
        t.push_str(&format!(
            "{k},a&lt;b,{}\n{k},c && d,{}\n",
            1.0 + k as f64 / 100.0,
            1.1 + k as f64 / 100.0
        ));
    }
    let csv = write(d, "amp.csv", &t);
    let out = run(
        d,
        &[
            "analyze",
            csv.to_str().unwrap(),
            "-q",
            "--export-markdown",
            "r.md",
        ],
    );
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let md = std::fs::read_to_string(d.join("r.md")).unwrap();
    assert!(md.contains("a\\&lt;b") && !md.contains(" a&lt;b"), "{md}");
    assert!(md.contains("c && d"), "{md}");
}

#[test]
fn a_temporary_raw_file_nothing_reached_is_not_named_as_kept_data() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A file-size limit of 0 (SIGXFSZ ignored) fails every write as a full disk does: the
    // temporary raw file stays empty.
    let abba = assert_cmd::cargo::cargo_bin("abba");
    let out = std::process::Command::new("sh")
        .current_dir(d)
        .env("TMPDIR", d)
        .env("NO_COLOR", "1")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 0; exec {} compare -q --blocks 2 true true",
            abba.display()
        ))
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("raw data so far kept"), "{err}");
    assert!(err.contains("no run was measured"), "{err}");
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("abba-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_value_that_is_not_a_time_reads_more_or_fewer_in_html_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sh = script(d);
    let (base, head) = (
        format!("{} 1.00", sh.display()),
        format!("{} 1.05", sh.display()),
    );
    let out = run(
        d,
        &[
            "compare", "-q", "--seed", "2", "--blocks", "6", "--metric", "json:v", "--output",
            "r.jsonl", &base, &head,
        ],
    );
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let out = run(d, &["analyze", "r.jsonl", "-q", "--export-html", "r.html"]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("<span class=\"word\">MORE"), "{html}");
    assert!(!html.contains("SLOWER") && !html.contains("is slower than"));
}

#[test]
fn a_bimodal_unpaired_change_is_called_in_the_runs_direction_beside_no_contradicting_interval() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Half of each variant's runs near 1, half near 100; B 5% above A in each mode, its
    // median in the low mode and A's in the high one.
    let mut t = String::from("variant,value\n");
    for k in 0..40 {
        let mode = if k % 2 == 0 { 1.0 } else { 100.0 };
        let a = mode * (1.0 + (k % 7) as f64 / 400.0);
        let b = mode * (1.05 + (k % 5) as f64 / 400.0);
        t.push_str(&format!("A,{a}\nB,{b}\n"));
    }
    t.push_str("A,100\nB,1.05\n");
    let csv = write(d, "bi.csv", &t);
    let out = run(d, &["analyze", csv.to_str().unwrap()]);
    let words = text(&out.stdout);
    let head = words.lines().next().unwrap();
    assert!(head.starts_with("B vs A  SLOWER"), "{words}");
    assert!(head.contains("does not show it"), "{head}");
    let row = words.lines().find(|l| l.contains("│ B ")).unwrap();
    assert!(row.contains('✓'), "{row}");
    assert!(words.contains("medians; not the test"), "{words}");
}

#[test]
fn identical_data_are_equivalent_as_the_usage_page_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = String::from("block,variant,value\n");
    for k in 0..8 {
        t.push_str(&format!("{k},a,100\n{k},b,100\n"));
    }
    let csv = write(d, "same.csv", &t);
    let out = run(d, &["analyze", csv.to_str().unwrap()]);
    assert!(
        text(&out.stdout).starts_with("b vs a  EQUIVALENT"),
        "{}",
        text(&out.stdout)
    );
    let usage =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/usage.md"))
            .unwrap()
            .replace("\n  ", " ");
    assert!(!usage.contains("or from identical data)"));
    assert!(
        usage.contains("identical data, every block's ratio exactly 1"),
        "{usage}"
    );
}

#[test]
fn an_empty_commit_is_refused_before_any_benchmark_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for commit in ["", " "] {
        let out = run(
            d,
            &[
                "compare",
                "-q",
                "--blocks",
                "2",
                "--record",
                "--history",
                "h.db",
                "--commit",
                commit,
                "touch ran-a",
                "touch ran-b",
            ],
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--commit"), "{err}");
        assert!(!d.join("ran-a").exists() && !d.join("ran-b").exists());
        assert!(!d.join("h.db").exists());
    }
}

#[test]
fn analyze_of_a_suites_raw_file_gives_the_suites_own_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sh = script(d);
    // A benchmark on a JSON field beside one on wall time whose head fails once, in the
    // second block (a counter file): only that benchmark loses the block.
    let flaky = write(
        d,
        "flaky.sh",
        "#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count\nif [ \"$1\" = head ] && [ $n -ge 5 ] && [ ! -e failed ]; then touch failed; exit 1; fi\nexit 0\n",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&flaky, std::fs::Permissions::from_mode(0o755)).unwrap();
    let toml = format!(
        "[variants]\nbase = \"1.00\"\nhead = \"1.05\"\n\n[settings]\nblocks = 6\nwarmup = 0\n\n[[benchmark]]\nname = \"ops\"\ncommand = \"{} {{variant}}\"\nmetric = \"json:v\"\nhigher-is-better = true\n\n[[benchmark]]\nname = \"flaky\"\ncommand = \"{} {{name}}\"\n",
        sh.display(),
        flaky.display()
    );
    write(d, "abba.toml", &toml);
    let out = run(
        d,
        &[
            "suite",
            "abba.toml",
            "-q",
            "--seed",
            "4",
            "--ignore-failure",
            "--output",
            "r.jsonl",
            "--export-json",
            "suite.json",
        ],
    );
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let out = run(d, &["analyze", "r.jsonl", "--json"]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let analyzed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let suite: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("suite.json")).unwrap()).unwrap();
    assert_eq!(analyzed["schema"], "abba.suite/1");
    assert_eq!(analyzed["benchmarks"], suite["benchmarks"]);
    assert_eq!(analyzed["counts"], suite["counts"]);
    let bench = |name: &str| {
        analyzed["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .unwrap()
            .clone()
    };
    // The JSON field decides its own benchmark, on all six blocks; the failure cost only
    // the wall-time benchmark its block.
    let ops = bench("ops");
    assert_eq!(ops["analysis"]["unit"], "value", "{ops}");
    let blocks =
        |b: &Value| b["analysis"]["groups"][0]["comparisons"][0]["paired"]["blocks"].clone();
    assert_eq!(blocks(&ops), 6);
    assert_eq!(blocks(&bench("flaky")), 5);
    // The table is the suite's.
    let out = run(d, &["analyze", "r.jsonl"]);
    let table = text(&out.stdout);
    assert!(table.starts_with("benchmark "), "{table}");
    assert!(table.contains("Benjamini-Hochberg"), "{table}");
    // A format of one comparison is refused, naming the flag.
    let out = run(d, &["analyze", "r.jsonl", "--export-html", "r.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--export-html"));
}

#[test]
fn a_six_block_test_that_reached_alpha_is_not_said_to_be_unable_to() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two runs of each variant in each of 6 blocks, B under 1% above A: the randomization
    // test of the parts reaches p = 0.031, the typical run has no interval yet.
    let values = "0,A,97.806 0,B,99.049 0,A,101.583 0,B,101.971 1,A,99.973 1,B,100.647 1,A,100.910 1,B,102.103 2,A,97.563 2,B,97.605 2,A,102.015 2,B,102.677 3,A,101.574 3,B,101.577 3,A,99.672 3,B,100.751 4,A,98.373 4,B,99.767 4,A,102.409 4,B,102.456 5,A,97.153 5,B,97.942 5,A,102.635 5,B,103.222";
    let csv = write(
        d,
        "six.csv",
        &format!("block,variant,value\n{}\n", values.replace(' ', "\n")),
    );
    let out = run(d, &["analyze", csv.to_str().unwrap(), "-v"]);
    let words = text(&out.stdout);
    assert!(words.contains("p = 0.031"), "{words}");
    assert!(!words.contains("cannot reach alpha"), "{words}");
    assert!(
        words.contains(
            "At least 7 blocks in all are needed (now 6) for every part to have an interval"
        ),
        "{words}"
    );
}

#[test]
fn a_program_valgrind_cannot_run_is_not_reported_as_the_programs_crash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A valgrind that meets an instruction it does not support, as valgrind 3.19 does on
    // AVX-512: it says so in its log and raises SIGILL in the program.
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = write(
        &bin,
        "valgrind",
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --log-file=*) log=\"${a#--log-file=}\";; esac; done\nlog=$(echo \"$log\" | sed \"s/%p/$$/\")\nprintf '==%s== Cachegrind\\nvex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48\\n==%s== valgrind: Unrecognised instruction at address 0x10912d.\\n' $$ $$ > \"$log\"\nkill -ILL $$\n",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = super::support::abba_in(d)
        .env("PATH", path)
        .args([
            "compare",
            "-q",
            "--blocks",
            "2",
            "--metric",
            "instructions",
            "--counter",
            "valgrind",
            "/bin/true",
            "/bin/true",
        ])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("valgrind cannot run this program"), "{err}");
    assert!(err.contains("unhandled instruction bytes"), "{err}");
}

#[test]
fn a_typical_run_ratio_apart_from_the_medians_ratio_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Three runs of each per block: A twice low and once high, B once low and twice high,
    // so A's median is a low run and B's a high one.
    let mut t = String::from("block,variant,value\n");
    for b in 0..8 {
        let j = 1.0 + f64::from(b) * 0.001;
        for v in [1.0, 1.01, 100.0] {
            t.push_str(&format!("{b},A,{:.4}\n", v * j));
        }
        for v in [1.05, 105.0, 106.0] {
            t.push_str(&format!("{b},B,{:.4}\n", v * j));
        }
    }
    let csv = write(d, "modes.csv", &t);
    let out = run(d, &["analyze", csv.to_str().unwrap()]);
    let words = text(&out.stdout).replace("\n    ", " ");
    assert!(
        words.contains("B vs A: the typical-run ratio 69.00x is the median of each run's ratio to its own block's centre, not the ratio of the medians shown (103.96x)"),
        "{words}"
    );
    assert!(words.contains("bimodal"), "{words}");
    // Runs in one level: the medians agree with the typical run, and nothing is said.
    let mut t = String::from("block,variant,value\n");
    for b in 0..8 {
        let j = 1.0 + f64::from(b) * 0.001;
        for (v, w) in [(1.0, 1.05), (1.01, 1.06), (1.02, 1.07)] {
            t.push_str(&format!("{b},A,{:.4}\n{b},B,{:.4}\n", v * j, w * j));
        }
    }
    let one = write(d, "one.csv", &t);
    let out = run(d, &["analyze", one.to_str().unwrap()]);
    let words = text(&out.stdout);
    assert!(words.starts_with("B vs A  SLOWER"), "{words}");
    assert!(!words.contains("typical-run ratio"), "{words}");
}
