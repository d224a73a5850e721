//! Parameter scans through the binary: `-L` and `-P` make the right variants, run them in a
//! Williams order (checked on the `--dry-run` schedule), a real scan of deterministic
//! commands reports Page's trend in the right direction (also from its raw file through
//! `abba analyze`), and bad scans exit 2 naming the flag.

use std::collections::HashMap;
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

fn counter() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/counter.sh")
}

/// The `--dry-run` schedule as rows of variant names (cells split on ` | ` when a name
/// holds a space, else on spaces).
fn dry_run(args: &[&str]) -> Vec<Vec<String>> {
    let out = abba()
        .args(["compare", "--dry-run", "--seed", "3"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("block "))
        .map(|l| {
            let (_, cells) = l.split_once(": ").unwrap();
            let sep = if cells.contains(" | ") { " | " } else { " " };
            cells.split(sep).map(str::to_owned).collect()
        })
        .collect()
}

/// Every variant immediately precedes every other equally often over the rows, and sits
/// at every position equally often (a Williams square).
fn assert_williams(rows: &[Vec<String>], variants: &[&str]) {
    let mut pairs: HashMap<(&str, &str), usize> = HashMap::new();
    for row in rows {
        let mut sorted: Vec<&str> = row.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        let mut expected = variants.to_vec();
        expected.sort_unstable();
        assert_eq!(sorted, expected, "each block runs each variant once");
        for w in row.windows(2) {
            *pairs.entry((w[0].as_str(), w[1].as_str())).or_default() += 1;
        }
    }
    let counts: Vec<usize> = variants
        .iter()
        .flat_map(|a| variants.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| pairs.get(&(*a, *b)).copied().unwrap_or(0))
        .collect();
    assert!(
        counts[0] > 0 && counts.iter().all(|&c| c == counts[0]),
        "{pairs:?}"
    );
    for p in 0..variants.len() {
        let mut column: Vec<&str> = rows.iter().map(|r| r[p].as_str()).collect();
        column.sort_unstable();
        column.dedup();
        assert_eq!(column.len(), variants.len(), "position {p}");
    }
}

#[test]
fn list_scan_makes_three_variants_in_a_williams_order() {
    // k = 3 is odd: the Williams design has 2k = 6 rows.
    let rows = dry_run(&["--blocks", "6", "-L", "n", "1,2,3", "sh counter.sh {n}"]);
    assert_eq!(rows.len(), 6);
    assert_williams(
        &rows,
        &["sh counter.sh 1", "sh counter.sh 2", "sh counter.sh 3"],
    );
}

#[test]
fn range_scan_makes_one_variant_per_value_and_names_substitute() {
    // k = 4 is even: 4 rows; the names come from --name with {n} substituted.
    let rows = dry_run(&[
        "--blocks",
        "4",
        "-P",
        "n",
        "1",
        "4",
        "-n",
        "n={n}",
        "echo --n {n}",
    ]);
    assert_williams(&rows, &["n=1", "n=2", "n=3", "n=4"]);
    let rows = dry_run(&[
        "--blocks", "2", "-P", "x", "0", "1", "-D", "0.5", "-n", "x={x}", "echo {x}",
    ]);
    assert_eq!(rows[0].len(), 3);
    assert!(rows[0].contains(&"x=0.5".to_owned()), "{rows:?}");
}

#[test]
fn several_lists_give_the_cross_product_and_random_design_permutes_each_block() {
    let rows = dry_run(&[
        "--blocks",
        "5",
        "--design",
        "random",
        "-L",
        "a",
        "1,2",
        "-L",
        "b",
        "x,y,z",
        "-n",
        "{a}{b}",
        "echo {a} {b}",
    ]);
    let mut all = ["1x", "1y", "1z", "2x", "2y", "2z"];
    all.sort_unstable();
    for row in &rows {
        let mut sorted: Vec<&str> = row.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        assert_eq!(sorted, all);
    }
    assert_ne!(rows[0], rows[1], "a fresh permutation per block");
}

fn scan_json(extra: &[&str], template: &str) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("scan.jsonl");
    let command = template
        .replace("COUNTER", &counter().display().to_string())
        .replace("DIR", &dir.path().display().to_string());
    // Six blocks unless `extra` asks for another count.
    let blocks: &[&str] = if extra.contains(&"--blocks") {
        &[]
    } else {
        &["--blocks", "6"]
    };
    let out = abba()
        .args([
            "compare", "--metric", "json:v", "--seed", "1", "--quiet", "--json", "--output",
        ])
        .arg(&raw)
        .args(blocks)
        .args(extra)
        .arg(command)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&out.stdout).unwrap(), dir)
}

#[test]
fn a_real_scan_reports_the_trend_in_the_right_direction_and_analyze_agrees() {
    // Values 100 + wobble, 200 + wobble, 300 + wobble (wobble < 19): rising with `base`.
    let (json, dir) = scan_json(
        &["-L", "base", "100,200,300", "-n", "base={base}"],
        "sh COUNTER DIR v{base} {base}",
    );
    let group = &json["groups"][0];
    assert_eq!(group["baseline"], "base=100");
    let trend = &group["trend"];
    assert_eq!(trend["test"], "page-l");
    assert_eq!(trend["parameter"], "base");
    assert_eq!(trend["values"], serde_json::json!([100.0, 200.0, 300.0]));
    assert_eq!(trend["direction"], "increasing");
    assert_eq!(trend["method"], "exact");
    assert_eq!(trend["blocks"], 6);
    // Every block ranks them 1, 2, 3: L = 6 * 14, p = 2 / 6^6.
    assert_eq!(trend["statistic"], 84.0);
    let p = trend["p_value"].as_f64().unwrap();
    assert!((p - 2.0 / 6f64.powi(6)).abs() < 1e-12, "{p}");
    assert_eq!(trend["significant"], true);
    assert_eq!(group["omnibus"]["test"], "friedman");

    // The raw header records each variant's value, so `abba analyze` finds the same trend.
    let raw = dir.path().join("scan.jsonl");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&raw)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        header["variants"][1]["parameter"],
        serde_json::json!({"name": "base", "value": 200.0})
    );
    let out = abba()
        .args(["analyze", "--json"])
        .arg(&raw)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["groups"][0]["trend"], *trend);
}

#[test]
fn a_falling_scan_is_decreasing_and_a_plain_compare_has_no_trend() {
    let (json, _dir) = scan_json(
        &["--shell", "sh", "-P", "k", "1", "3"],
        "sh COUNTER DIR v{k} $((400 - 100 * {k}))",
    );
    let trend = &json["groups"][0]["trend"];
    assert_eq!(trend["direction"], "decreasing", "{trend}");
    assert_eq!(trend["significant"], true);

    // Three commands without a scan: no parameter, no trend field.
    let dir = tempfile::tempdir().unwrap();
    let c = counter().display().to_string();
    let d = dir.path().display().to_string();
    let out = abba()
        .args([
            "compare", "--metric", "json:v", "--seed", "1", "--blocks", "6", "--quiet", "--json",
        ])
        .args([100, 200, 300].map(|b| format!("sh {c} {d} v{b} {b}")))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["groups"][0].get("trend").is_none());
}

#[test]
fn bad_scans_exit_2_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-P", "n", "3", "1", "echo {n}"],
            "-P/--parameter-scan n 3 1: MIN is greater than MAX",
        ),
        (
            &["-P", "n", "1", "3", "-D", "0", "echo {n}"],
            "-D/--parameter-step-size 0",
        ),
        (
            &["-P", "n", "1", "3", "-D", "-1", "echo {n}"],
            "-D/--parameter-step-size -1",
        ),
        (
            &["-P", "n", "0", "1.5", "echo {n}"],
            "-D/--parameter-step-size STEP",
        ),
        (&["-P", "n", "1", "65", "echo {n}"], "more than 64"),
        (
            &["-L", "n", "", "echo {n}"],
            "-L/--parameter-list n: the list is empty",
        ),
        (
            &["-L", "n", "1,2", "echo {n} {m}"],
            "{m} in \"echo {n} {m}\" is not a scanned parameter",
        ),
        (&["-L", "n", "1,2", "echo"], "{n} appears in no command"),
        (
            &["-L", "n", "1,2", "-P", "m", "1", "2", "echo {n}{m}"],
            "cannot be combined",
        ),
        (
            &["-D", "2", "-L", "n", "1,2", "echo {n}"],
            "-D/--parameter-step-size needs -P",
        ),
        (
            &["-L", "n", "1,2", "-L", "n", "3,4", "echo {n}"],
            "given twice",
        ),
    ];
    for (args, message) in cases {
        let out = abba()
            .args(["compare", "--dry-run"])
            .args(*args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn the_console_report_prints_the_trend_under_the_omnibus_line() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "sh {} {} v{{base}} {{base}}",
        counter().display(),
        dir.path().display()
    );
    // Wide enough that neither line wraps (wrapping is tests/width.rs's).
    let out = abba()
        .env("COLUMNS", "300")
        .args([
            "compare",
            "--verbose",
            "--metric",
            "json:v",
            "--seed",
            "1",
            "--blocks",
            "6",
            "--quiet",
            "-L",
            "base",
            "100,200,300",
        ])
        .arg(command)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let omnibus = stdout
        .lines()
        .position(|l| l.starts_with("Omnibus Friedman"))
        .expect("an omnibus line");
    let next = stdout.lines().nth(omnibus + 1).unwrap();
    assert!(
        next.starts_with("Trend across base (100 to 300, 3 values): Page's L = 84.00")
            && next.ends_with("significant, values rise with base"),
        "{next}"
    );
}

#[test]
fn a_resumed_scan_keeps_its_parameter_and_refuses_new_scan_flags() {
    let (json, dir) = scan_json(
        &["-L", "base", "100,200,300"],
        "sh COUNTER DIR v{base} {base}",
    );
    let full = std::fs::read_to_string(dir.path().join("scan.jsonl")).unwrap();
    // The header and four complete blocks of three runs (plus one run of the fifth).
    let cut: String = full
        .lines()
        .take(1 + 13)
        .map(|l| format!("{l}\n"))
        .collect();
    let part = dir.path().join("part.jsonl");
    std::fs::write(&part, cut).unwrap();
    let out = abba()
        .args(["compare", "--quiet", "--json", "--resume"])
        .arg(&part)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let resumed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(resumed["groups"][0]["trend"]["blocks"], 6);
    assert_eq!(
        resumed["groups"][0]["trend"]["statistic"],
        json["groups"][0]["trend"]["statistic"]
    );
    let out = abba()
        .args(["compare", "--resume"])
        .arg(&part)
        .args(["-L", "base", "1,2,3", "x {base}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-L/--parameter-list with --resume"));
}

/// The `standout` warnings of `json` (each names its candidate).
fn standouts(json: &Value) -> Vec<String> {
    json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "standout")
        .map(|w| w["message"].as_str().unwrap().to_owned())
        .collect()
}

/// Issue 25: a scan whose values rise step by step has no standout (its last value is the
/// end of the trend); one value departing from the rest, in the middle or at the end of
/// the scan, still stands out.
#[test]
fn a_monotone_scan_has_no_standout_but_a_departing_value_does() {
    let blocks = ["--blocks", "8"];
    // 100, 200, 300 (+ wobble < 19): every block ranks them 1, 2, 3.
    let (json, _dir) = scan_json(
        &[
            &blocks[..],
            &["-L", "base", "100,200,300", "-n", "base={base}"],
        ]
        .concat(),
        "sh COUNTER DIR v{base} {base}",
    );
    let group = &json["groups"][0];
    for c in group["comparisons"].as_array().unwrap() {
        assert_eq!(c["verdict"], "significant", "{c}");
    }
    let trend = &group["trend"];
    assert_eq!(trend["monotone"], true, "{trend}");
    assert_eq!(
        trend["benchmarks"],
        serde_json::json!(["base=100", "base=200", "base=300"])
    );
    assert_eq!(standouts(&json), Vec::<String>::new());

    // 100, 200, 100 (+ the same wobble for equal values): k=2 departs from the rest.
    let (json, _dir) = scan_json(
        &[
            &blocks[..],
            &["--shell", "sh", "-L", "k", "1,2,3", "-n", "k={k}"],
        ]
        .concat(),
        "sh COUNTER DIR v{k} $((100 + 100 * ({k} == 2)))",
    );
    let found = standouts(&json);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("k=2 stands out"), "{found:?}");

    // 100, 100, 200: monotone, but the last value alone departs from the rest.
    let (json, _dir) = scan_json(
        &[
            &blocks[..],
            &["--shell", "sh", "-L", "k", "1,2,3", "-n", "k={k}"],
        ]
        .concat(),
        "sh COUNTER DIR v{k} $((100 + 100 * ({k} == 3)))",
    );
    assert_eq!(json["groups"][0]["trend"]["monotone"], true);
    let found = standouts(&json);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("k=3 stands out"), "{found:?}");
}
