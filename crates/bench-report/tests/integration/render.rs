//! Whole reports compared against committed snapshots, built from hand-written analyses.

use crate::fixtures;

use bench_report::{Charset, ColorMode, RenderOptions, render_console, render_markdown};
use bench_stats::Analysis;

fn console(a: &Analysis) -> String {
    render_console(a, &RenderOptions::default())
}

/// The full report (`--verbose`): every section, per-block tables included.
fn verbose(a: &Analysis) -> String {
    let mut opts = RenderOptions::default();
    opts.verbose = true;
    render_console(a, &opts)
}

#[test]
fn paired_two_variants_with_blocks_and_reference() {
    let a = fixtures::paired_two();
    snap("paired_two_console", console(&a));
    snap("paired_two_markdown", render_markdown(&a));
}

#[test]
fn unpaired_three_variants_with_omnibus_and_holm() {
    let a = fixtures::unpaired_three();
    snap("unpaired_three_console", console(&a));
    snap("unpaired_three_markdown", render_markdown(&a));
}

#[test]
fn cross_class_adds_a_class_column() {
    let a = fixtures::cross_class();
    snap("cross_class_console", console(&a));
    snap("cross_class_markdown", render_markdown(&a));
}

#[test]
fn cross_class_candidates_may_be_named_class_dot_name() {
    let mut a = fixtures::cross_class();
    a.groups[0].baseline = "LegacyCodec.Encode".into();
    a.groups[0].comparisons[0].candidate = "NewCodec.Encode".into();
    let text = console(&a);
    let legacy = text.lines().find(|l| l.contains("LegacyCodec ")).unwrap();
    let new = text.lines().find(|l| l.contains("NewCodec ")).unwrap();
    assert!(
        legacy.contains("baseline") && !legacy.contains('✓'),
        "{text}"
    );
    assert!(
        new.contains("0.65x [0.63, 0.67]") && new.contains('✓'),
        "{text}"
    );
}

#[test]
fn not_tested_leaves_sig_blank() {
    let a = fixtures::not_tested();
    snap("not_tested_console", console(&a));
    snap("not_tested_markdown", render_markdown(&a));
}

#[test]
fn warnings_controls_and_per_class_groups() {
    let a = fixtures::warnings_and_controls();
    snap("warnings_controls_console", console(&a));
    snap("warnings_controls_markdown", render_markdown(&a));
}

#[test]
fn ascii_charset_prints_only_ascii() {
    let mut opts = RenderOptions::default();
    opts.charset = Charset::Ascii;
    for a in [
        fixtures::paired_two(),
        fixtures::unpaired_three(),
        fixtures::not_tested(),
    ] {
        let text = render_console(&a, &opts);
        assert!(text.is_ascii(), "non-ASCII output:\n{text}");
        assert!(!text.contains("NaN"));
    }
}

#[test]
fn colour_only_when_asked_and_by_outcome() {
    let plain = console(&fixtures::unpaired_three());
    assert!(!plain.contains('\u{1b}'));

    let mut opts = RenderOptions::default();
    opts.color = ColorMode::Always;
    // parse-v2 is slower: red, and nothing green.
    let slower = render_console(&fixtures::unpaired_three(), &opts);
    assert!(slower.contains("\u{1b}[31m"));
    assert!(!slower.contains("\u{1b}[32m"));
    // chains=2 is faster (higher is better): green, and nothing red.
    let faster = render_console(&fixtures::paired_two(), &opts);
    assert!(faster.contains("\u{1b}[32m"));
    assert!(!faster.contains("\u{1b}[31m"));
    // Removing the escapes gives back the plain report, so colour moves no column.
    assert_eq!(strip_ansi(&faster), console(&fixtures::paired_two()));
    assert_eq!(ColorMode::from(true), ColorMode::Always);
}

#[test]
fn omnibus_lines_match_the_documented_form() {
    let mut a = fixtures::not_tested();
    let g = &mut a.groups[0];
    let o = g.omnibus.as_mut().expect("fixture has an omnibus");
    o.statistic = 7.2;
    o.p_value = 0.0273;
    o.significant = true;
    let md = render_markdown(&a);
    assert!(
        md.contains(
            "Omnibus Kruskal-Wallis across 3 groups: H(2) = 7.20, p = 0.027 -> significant"
        ),
        "{md}"
    );
    // The compact console leaves the omnibus to the full report: the verdicts say what
    // to do.
    assert!(verbose(&a).contains("H(2) = 7.20, p = 0.027 → significant"));
    assert!(!console(&a).contains("Omnibus"));
}

#[test]
fn block_table_omitted_above_twenty_blocks() {
    let console = verbose;
    let text = console(&fixtures::warnings_and_controls());
    assert!(text.contains("(25 blocks, table omitted)"));
    let mut a = fixtures::paired_two();
    let p = a.groups[0].comparisons[0].paired.as_mut().unwrap();
    p.block_values.extend(p.block_values.clone()); // 24 blocks
    assert!(console(&a).contains("(24 blocks, table omitted)"));
    p_blocks_shown_at_twenty(&mut a);
}

fn p_blocks_shown_at_twenty(a: &mut Analysis) {
    let p = a.groups[0].comparisons[0].paired.as_mut().unwrap();
    p.block_values.truncate(20);
    let text = verbose(a);
    assert!(!text.contains("table omitted"));
    assert!(text.contains(" 20 │\n"), "{text}");
}

#[test]
fn missing_values_never_print_nan() {
    let mut a = fixtures::not_tested();
    let b = &mut a.groups[0].benchmarks[2];
    b.mean = f64::NAN;
    b.p90 = f64::INFINITY;
    a.groups[0].comparisons[1].ratio = Some(f64::NAN);
    a.alpha = f64::NAN;
    a.confidence = f64::INFINITY;
    a.groups[0].omnibus.as_mut().unwrap().statistic = f64::NAN;
    for text in [console(&a), render_markdown(&a)] {
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn every_line_fits_the_width_compact_and_verbose() {
    let all = [
        fixtures::paired_two(),
        fixtures::unpaired_three(),
        fixtures::cross_class(),
        fixtures::not_tested(),
        fixtures::warnings_and_controls(),
    ];
    for (k, a) in all.iter().enumerate() {
        for verbose in [false, true] {
            for width in (60..=160).step_by(20) {
                let mut opts = RenderOptions::default();
                opts.verbose = verbose;
                opts.width = Some(width);
                let text = render_console(a, &opts);
                for line in text.lines() {
                    // Prose always fits; a table whose essential columns (the names and
                    // the verdict's) are wider than 60 columns is the one exception.
                    let table = line.starts_with(['╭', '│', '├', '╰']);
                    assert!(
                        line.chars().count() <= width || (table && width < 80),
                        "fixture {k} (verbose {verbose}) at {width}: {line}"
                    );
                }
            }
        }
    }
}

/// Snapshots `text` under `name`, in the file it had when this was a test binary of its
/// own (`tests/snapshots/render__NAME.snap`).
fn snap(name: &str, text: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    let name = format!("render__{name}");
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// A decision record resting on `part` with `ratio` and its interval.
fn decided_on(part: &str, ratio: f64, interval: [f64; 2]) -> bench_stats::model::DecisionReport {
    serde_json::from_value(serde_json::json!({
        "test": "randomization-quantiles", "scale": "runs-in-blocks",
        "p_value": 0.004, "p_value_adjusted": null, "practical_rule": "ratio",
        "practical_threshold": 0.01, "equivalence_ci": null, "equivalence_note": null,
        "part": part, "ratio": ratio, "interval": interval, "level": 0.99375
    }))
    .expect("a decision record")
}

#[test]
fn a_claim_resting_on_a_tail_alone_says_so_in_its_tag_table_and_markdown() {
    let mut a = fixtures::paired_two();
    a.higher_is_better = false;
    a.unit = "ns".into();
    let c = &mut a.groups[0].comparisons[0];
    c.outcome = bench_stats::Outcome::Slower;
    c.decision = Some(decided_on("slow-runs", 1.2, [1.1, 1.3]));
    let text = console(&a);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("  SLOWER (slow runs)  +20.0% [+10.0%, +30.0%] in the slow runs"),
        "{text}"
    );
    // The Ratio column shows the same part, named, beside the ✓.
    assert!(text.contains("1.20x [1.10, 1.30]"), "{text}");
    assert!(text.contains("slow runs"), "{text}");
    let md = render_markdown(&a);
    assert!(md.contains("- **SLOWER (slow runs)** chains=2 vs "), "{md}");
    // A count is never worded as time: MORE, and the tail by its quantile.
    a.quantity = Some(bench_stats::Quantity::Named("instructions".into()));
    let text = console(&a);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("  MORE (p90)  +20.0%"),
        "{text}"
    );
    // The mean run is not a tail: no label.
    let c = &mut a.groups[0].comparisons[0];
    c.decision = Some(decided_on("mean-run", 1.2, [1.1, 1.3]));
    let text = console(&a);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("  MORE  +20.0% [+10.0%, +30.0%] in the mean run"),
        "{text}"
    );
}
