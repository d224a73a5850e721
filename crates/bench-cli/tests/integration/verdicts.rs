//! The cases of the verdicts issue, through the binary on committed CSV fixtures
//! (`tests/data/verdicts/`, written by hand from the numbers; the library side is
//! `crates/bench-stats/tests/verdicts.rs`).

use assert_cmd::Command;
use serde_json::Value;

fn abba() -> Command {
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    cmd
}

fn data(name: &str) -> String {
    format!("tests/data/verdicts/{name}.csv")
}

/// `abba analyze FILE --json ARGS`: the first comparison.
fn comparison(name: &str, args: &[&str]) -> Value {
    let out = abba()
        .args(["analyze", "--json", "--seed", "1"])
        .arg(data(name))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["groups"][0]["comparisons"][0].clone()
}

/// The console report, wide enough that no sentence is wrapped (wrapping is width.rs's).
fn report(name: &str, args: &[&str]) -> String {
    let out = abba()
        .env("COLUMNS", "1000")
        .args(["analyze", "--seed", "1", "--verbose"])
        .arg(data(name))
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The signed-rank estimators' p and wording (`--estimator hl-min-log-ratio`); the
/// default's are checked below and in bench-stats.
const HL: [&str; 2] = ["--estimator", "hl-min-log-ratio"];

#[test]
fn alpha_decides_and_the_p_beside_the_verdict_is_the_deciding_one() {
    let loose = comparison("alpha_between", &HL);
    let strict = comparison("alpha_between", &["--alpha", "0.01", HL[0], HL[1]]);
    assert_eq!(loose["verdict"], "significant");
    assert_eq!(strict["verdict"], "not_significant");
    assert_ne!(strict["outcome"], "slower");
    let d = &strict["decision"];
    assert_eq!(d["test"], "wilcoxon-signed-rank");
    assert_eq!(d["scale"], "block-log-ratios");
    assert!((d["p_value"].as_f64().unwrap() - 0.02099609375).abs() < 1e-12);
    let text = report("alpha_between", &["--alpha", "0.01", HL[0], HL[1]]);
    assert!(
        text.contains("wilcoxon-signed-rank on block log-ratios p = 0.021"),
        "{text}"
    );
    // The p on the verdict's scale, and the verdict follows it.
    let c = comparison("p_on_log_ratios", &HL);
    assert!((c["decision"]["p_value"].as_f64().unwrap() - 0.04248046875).abs() < 1e-12);
    assert_eq!(c["verdict"], "significant");
    assert_eq!(
        comparison("p_on_log_ratios", &["--alpha", "0.04", HL[0], HL[1]])["verdict"],
        "not_significant"
    );
    // The default decides by its randomization p, and the verdict follows alpha too.
    let typical = comparison("alpha_between", &[]);
    let p = typical["decision"]["p_value"].as_f64().unwrap();
    assert!(
        typical["distribution"]["p_value"].as_f64().unwrap() == p,
        "{typical}"
    );
    let at = |alpha: f64| {
        comparison("alpha_between", &["--alpha", &alpha.to_string()])["verdict"].clone()
    };
    assert_eq!(at(p * 1.5), "significant");
    assert_eq!(at(p / 1.5), "not_significant");
}

/// The interval beside a verdict is at `1 - alpha` unless `--confidence` asks otherwise
/// (issue 24): `--alpha 0.1` prints a 90% interval, and another level is named. (The
/// signed-rank estimators; the default's is checked below.)
#[test]
fn the_printed_interval_follows_alpha_unless_a_level_is_asked_for() {
    let v: Value = serde_json::from_slice(
        &abba()
            .args([
                "analyze", "--json", "--seed", "1", "--alpha", "0.1", HL[0], HL[1],
            ])
            .arg(data("alpha_between"))
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!((v["confidence"].as_f64().unwrap() - 0.9).abs() < 1e-12);
    let c = &v["groups"][0]["comparisons"][0];
    let ci = c["ratio_ci"].as_array().unwrap();
    let excludes = ci[0].as_f64().unwrap() > 1.0 || ci[1].as_f64().unwrap() < 1.0;
    assert_eq!(excludes, c["verdict"] == "significant", "{c}");
    assert!(
        c["summary"].as_str().unwrap().contains("80% interval"),
        "{c}"
    );
    let asked = comparison("alpha_between", &["--confidence", "0.99", HL[0], HL[1]]);
    let text = asked["summary"].as_str().unwrap();
    assert!(text.contains("at 99%, not the verdict's 95%"), "{text}");
    let default = comparison("alpha_between", &HL);
    assert!(
        !default["summary"]
            .as_str()
            .unwrap()
            .contains("not the verdict's")
    );
}

/// The default (typical run) follows `--confidence` too: its parts' intervals are together
/// at the asked level (the typical run's at `1 - c'` for the family's min-p level `c'` at
/// `1 - confidence`, between its quarter share and the whole of it), the comparison's
/// interval is the p50 one, the decision stays the tests' at alpha, and the sentence names
/// the other level. `three_runs_per_block.csv`: 16 blocks of 3 + 3 runs (seeded Python, B
/// about 3% slower, a run in five 20% slower).
#[test]
fn the_typical_runs_interval_follows_confidence() {
    let level = |c: &Value| c["distribution"]["confidence"].as_f64().unwrap();
    let ci = |c: &Value| -> [f64; 2] {
        let v = c["ratio_ci"].as_array().unwrap();
        [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()]
    };
    let p50 = |c: &Value| c["distribution"]["quantiles"][1]["interval"].clone();
    let default = comparison("three_runs_per_block", &[]);
    let asked = comparison("three_runs_per_block", &["--confidence", "0.8"]);
    let wider = comparison("three_runs_per_block", &["--confidence", "0.99"]);
    let by_alpha = comparison("three_runs_per_block", &["--alpha", "0.1"]);
    for (c, family) in [
        (&default, 0.95),
        (&asked, 0.8),
        (&wider, 0.99),
        (&by_alpha, 0.9),
    ] {
        let l = level(c);
        assert!(
            l > family && l <= 1.0 - (1.0 - family) / 4.0 + 1e-12,
            "{l} for {family}: {c}"
        );
        assert_eq!(c["distribution"]["quantiles"][1]["confidence"], l);
    }
    assert!(level(&asked) < level(&default) && level(&default) < level(&wider));
    for c in [&default, &asked, &wider, &by_alpha] {
        assert_eq!(c["ratio_ci"], p50(c), "{c}");
    }
    // Nested: a lower level gives a narrower interval, a higher one a wider.
    let (d, a, w) = (ci(&default), ci(&asked), ci(&wider));
    assert!(a[0] > d[0] && a[1] < d[1], "{a:?} inside {d:?}");
    assert!(w[0] < d[0] && w[1] > d[1], "{w:?} around {d:?}");
    // The decision is the tests' at alpha, whatever the level.
    assert_eq!(asked["outcome"], default["outcome"]);
    assert_eq!(asked["decision"]["p_value"], default["decision"]["p_value"]);
    let text = asked["summary"].as_str().unwrap();
    assert!(
        text.contains("the 4 parts' intervals together at 80.0%, not the decision's 95.0%"),
        "{text}"
    );
    assert!(
        !default["summary"]
            .as_str()
            .unwrap()
            .contains("not the decision's")
    );
    // The console prints the asked level's interval.
    let out = report("three_runs_per_block", &["--confidence", "0.8"]);
    assert!(
        out.contains(&format!(
            "{:.3}x [{:.3}, {:.3}]",
            default["ratio"].as_f64().unwrap(),
            a[0],
            a[1]
        )),
        "{out}"
    );
}

/// A quantized metric where 8 of 12 blocks gave identical values: the test is
/// conditional on the 4 that differ, which cannot reach alpha (issue 24).
#[test]
fn few_blocks_that_differ_are_not_tested_and_the_sentence_says_why() {
    let c = comparison("few_informative", &HL);
    assert_eq!(c["verdict"], "not_tested", "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("only 4 of 12 blocks differ (the other 8 gave identical values)"),
        "{c}"
    );
    let ci = c["ratio_ci"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() <= 1.0 && ci[1].as_f64().unwrap() >= 1.0);
}

#[test]
fn two_blocks_are_never_equivalent_but_identical_blocks_are() {
    let two = comparison("two_blocks", &[]);
    assert_eq!(two["verdict"], "not_tested");
    assert_ne!(two["outcome"], "equivalent");
    // Identical values in every block (as instruction counts can be): exactly [1, 1].
    let same = comparison("constant", &[]);
    assert_eq!(same["outcome"], "equivalent", "{same}");
    assert_eq!(
        same["decision"]["equivalence_ci"],
        serde_json::json!([1.0, 1.0])
    );
}

#[test]
fn size_is_judged_on_the_ratio_scale_with_the_equivalence_margin() {
    let steady = comparison("steady_tenth_percent", &HL);
    assert_eq!(steady["verdict"], "significant");
    assert_eq!(steady["outcome"], "equivalent");
    assert!(
        steady["summary"]
            .as_str()
            .unwrap()
            .contains("a real change")
    );
    // The default: a real change smaller than the margin at every checked part.
    let typical = comparison("steady_tenth_percent", &[]);
    assert_eq!(typical["verdict"], "significant");
    assert_eq!(typical["outcome"], "equivalent");
    assert!(
        typical["summary"]
            .as_str()
            .unwrap()
            .contains("differs from A by less than the ±1.0% margin in its typical run")
    );
    let tight = comparison("steady_tenth_percent", &["--equivalence-margin", "0.05%"]);
    assert_eq!(tight["outcome"], "slower");
    let slow = comparison("slowdown_17_of_30", &[]);
    assert_eq!(slow["outcome"], "slower");
    assert!(!slow["summary"].as_str().unwrap().contains("too small"));
    assert_eq!(slow["decision"]["practical_rule"], "ratio");
    let cliff = comparison("slowdown_17_of_30", &["--practical", "cliff:0.9"]);
    assert_eq!(cliff["verdict"], "not_significant");
    assert_eq!(cliff["decision"]["practical_rule"], "cliff");
    let v: Value = serde_json::from_slice(
        &abba()
            .args(["analyze", "--json", "--equivalence-margin", "2%"])
            .arg(data("slowdown_17_of_30"))
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["equivalence_margin"], 0.02);
}

#[test]
fn the_more_blocks_line_is_about_resolving_the_margin_and_looks() {
    let text = report("alpha_between", &["--alpha", "0.01"]);
    assert!(text.contains("80% power to resolve"), "{text}");
    assert!(text.contains("another look"), "{text}");
    assert!(!text.contains("likely settle"), "{text}");
}

#[test]
fn three_paired_variants_print_the_post_hoc_p_that_decided() {
    // The default decides each candidate by its own shape check (the values its ratio,
    // interval and equivalence come from); the fastest-run estimator by the signed-rank
    // test of the block values. Either way Holm-adjusted over the candidates.
    for (args, test) in [
        (&[][..], "randomization-quantiles"),
        (&HL[..], "wilcoxon-signed-rank"),
    ] {
        let text = report("three_paired", args);
        let verdicts: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.trim_start().starts_with("significant by")
                    || l.trim_start().starts_with("not significant by")
            })
            .collect();
        assert_eq!(verdicts.len(), 2, "{text}");
        for line in verdicts {
            assert!(line.contains(test), "{line}");
            assert!(line.contains("Holm-adjusted"), "{line}");
            assert!(!line.contains("Mann-Whitney"), "{line}");
        }
    }
    // Four blocks cannot reach alpha: not tested, and no p of another test beside it.
    let text = report("three_paired_4_blocks", &[]);
    let details: Vec<&str> = text.lines().filter(|l| l.trim() == "not tested").collect();
    assert_eq!(details.len(), 2, "{text}");
    assert!(!text.contains("Mann-Whitney U ="), "{text}");
}

#[test]
fn the_gate_trips_on_a_significant_slowdown_whose_interval_reaches_pct() {
    // A 2.2% slowdown with interval [1.013, 1.029]: it may be 2% or more, so the 2% gate
    // trips; it cannot be 5%, so the 5% gate does not.
    abba()
        .args(["analyze", "--fail-if-slower", "2%"])
        .arg(data("slowdown_17_of_30"))
        .assert()
        .code(1);
    abba()
        .args(["analyze", "--fail-if-slower", "5%"])
        .arg(data("slowdown_17_of_30"))
        .assert()
        .code(0);
}

#[test]
fn confirm_reruns_the_standout_of_three_variants_as_a_fresh_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("sweep.jsonl");
    let mut cmd = abba();
    cmd.args([
        "compare",
        "--metric",
        "json:v",
        "--seed",
        "1",
        "--blocks",
        "10",
        "--quiet",
        "--json",
        "--confirm",
    ])
    .arg("--output")
    .arg(&raw);
    // B is about 30% above A; C is close to A.
    for (name, base) in [("A", 100), ("B", 130), ("C", 101)] {
        cmd.args(["-n", name]).arg(format!(
            "sh tests/data/counter.sh {} {} {base}",
            dir.path().display(),
            name.to_lowercase()
        ));
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let standout = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "standout")
        .expect("the standout is named as a hypothesis");
    assert_eq!(standout["benchmark"], "B");
    let confirmation = &v["confirmation"];
    assert_ne!(confirmation["seed"], v["seed"], "a fresh seed");
    let names: Vec<&str> = confirmation["groups"][0]["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "B"]);
    assert!(dir.path().join("sweep.confirm.jsonl").is_file());
}

#[test]
fn the_shift_interval_never_contradicts_the_test() {
    // 3 against 3 runs: the exact Mann-Whitney p is at least 0.1, so no 95% interval of the
    // shift can exist; it is null, not the min..max of the differences.
    let c = comparison("three_vs_three", &[]);
    assert_eq!(c["mann_whitney"]["p_value"], 0.1);
    assert_eq!(c["hodges_lehmann"]["shift"], 3.0);
    assert!(c["hodges_lehmann"]["ci_low"].is_null());
    assert!(c["hodges_lehmann"]["ci_high"].is_null());
    assert_eq!(c["verdict"], "not_significant");
}

/// A quarter of B's runs 30% slower (`slow_tail_only.csv`, 24 blocks of 8 runs per
/// variant, written by a seeded script): a quarter of the runs moving moves the median of
/// B's runs too (the pooled median ratio is 1.034, the means' 1.075), so the typical run
/// (the quantile ratio of the two run distributions since issue 42) is slower, and the
/// claim rests on it; the sentence names the slow runs and the mean run beside it. Before
/// issue 42 the block-centred typical run read +0.5% and the claim rested on the mean run.
#[test]
fn a_quarter_of_runs_slower_moves_the_typical_run_and_the_claim_rests_on_it() {
    let c = comparison("slow_tail_only", &[]);
    assert_eq!(c["outcome"], "slower", "{c}");
    let typical = &c["distribution"]["quantiles"][1];
    assert_eq!(typical["quantile"], 0.5);
    assert_eq!(typical["part"], "slower", "{c}");
    let ratio = typical["ratio"].as_f64().unwrap();
    assert!((ratio - 1.034).abs() < 0.005, "{c}");
    assert_eq!(c["decision"]["part"], "typical-run", "{c}");
    assert!(c["decision"]["interval"][0].as_f64().unwrap() > 1.0, "{c}");
    let out = report("slow_tail_only", &[]);
    assert!(
        out.contains("in its typical run, slow runs and mean run"),
        "{out}"
    );
}

/// `holm_held_back.csv`: 8 blocks of 5 runs of a, b and c, b 1.2% slower and c 1.2%
/// faster with 2% noise per run (`python3 holm_held_back.py 32`, beside it). Each shape
/// check alone is significant (smallest adjusted p 0.047 and 0.031), but Holm over the two
/// candidates puts both at 0.0625: neither is significant, so neither reads
/// slower or faster, in the JSON or on the console, and the sentence says what held it
/// back.
#[test]
fn three_variants_not_significant_after_holm_name_no_direction() {
    let out = abba()
        .args(["analyze", "--json", "--seed", "1"])
        .arg(data("holm_held_back"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let comparisons = v["groups"][0]["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 2);
    for c in comparisons {
        assert_eq!(c["verdict"], "not_significant", "{c}");
        let adjusted = c["p_value_adjusted"].as_f64().unwrap();
        assert!(adjusted >= 0.05, "{adjusted}");
        // The shape check's own parts did move beyond the margin.
        assert!(c["distribution"]["p_value"].as_f64().unwrap() < 0.05, "{c}");
        assert_eq!(c["outcome"], "inconclusive", "{c}");
        let summary = c["summary"].as_str().unwrap();
        assert!(
            summary.contains("Holm's correction over the 2 comparisons"),
            "{summary}"
        );
        assert!(summary.contains("the data do not show"), "{summary}");
    }
    let text = report("holm_held_back", &[]);
    for cand in ["b", "c"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{cand} vs a ")))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("  INCONCLUSIVE  "), "{line}");
    }
    assert!(
        !text.contains("SLOWER") && !text.contains("FASTER"),
        "{text}"
    );
    // `compare` warns of this before the runs, and the report now keeps its word.
    // At 6 blocks no comparison of three variants can be: Holm's first step needs
    // 2 / 2^n <= 0.025.
    abba()
        .args(["compare", "--blocks", "6", "--runs-per-block", "5"])
        .args(["--dry-run", "true", "true", "true"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "6 blocks are too few for a verdict: the paired test needs at least 7 blocks",
        ))
        .stderr(predicates::str::contains(
            "no comparison can be significant, whatever the data",
        ));
}

/// A/A on a quiet machine that disturbs 8% of runs of either variant, 20-50% slower, over
/// 150 blocks (`disturbed_a_a.csv` and `disturbed_a_a_undecided.csv`, seeds 4 and 3 of
/// `fixtures/verdicts/disturbed.py`): the slow runs' own interval cannot be pinned there,
/// so EQUIVALENT holds them by the mean run (the mean of all runs) inside ±2%, the margin
/// the mean run is held to; when that is not inside it, the headline says the typical run
/// is pinned and that the mean run keeps it from EQUIVALENT, without asking for fewer
/// blocks than the file has.
#[test]
fn an_unchanged_benchmark_on_a_machine_that_disturbs_some_runs_can_be_equivalent() {
    let c = comparison("disturbed_a_a", &[]);
    assert_eq!(c["outcome"], "equivalent", "{}", c["summary"]);
    let s = &c["distribution"];
    let p90 = &s["quantiles"][2]["equivalence_interval"];
    assert!(
        p90[0].as_f64().unwrap() < 0.97 || p90[1].as_f64().unwrap() > 1.03,
        "the slow runs' own interval {p90} is inside ±3%: this file does not test the rule"
    );
    // The mean run (the mean of all runs, one estimator) inside ±2% holds them.
    assert!(s.get("all_runs").is_none(), "{s}");
    let all = &s["mean"]["equivalence_interval"];
    assert!(
        all[0].as_f64().unwrap() >= 0.98 && all[1].as_f64().unwrap() <= 1.02,
        "{all}"
    );

    let undecided = comparison("disturbed_a_a_undecided", &[]);
    assert_eq!(undecided["outcome"], "inconclusive");
    // The mean run holds the slow runs, so it alone stands in the way, at its ±2%.
    let blocking = undecided["decision"]["blocking"].as_array().unwrap();
    assert_eq!(blocking.len(), 1, "{blocking:?}");
    assert_eq!(blocking[0], "mean-run");
    let text = report("disturbed_a_a_undecided", &[]);
    assert!(
        text.contains("The typical run is pinned within ±1.0%")
            && text.contains("the mean run keeps it from EQUIVALENT: its 90% interval")
            && text.contains("is not inside ±2.0%"),
        "{text}"
    );
    assert!(text.contains("(now 150)"), "{text}");
}
