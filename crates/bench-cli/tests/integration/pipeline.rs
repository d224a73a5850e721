//! `abba analyze` and a library call of the pipeline's entry point
//! ([`bench_sched::analyze_input`]) give the same analysis, controls and warnings included.
//!
//! The one difference allowed is the CLI's own words: a remedy the libraries carry as a
//! typed [`bench_stats::model::Remedy`] is printed by the CLI as the flag that applies it,
//! appended to the warning's message or the control's detail.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use bench_sched::{CsvOptions, Input, analyze_input};
use bench_stats::{Analysis, AnalysisConfig};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// What `abba analyze FILE --json` prints, and that document read back into the model.
fn cli_analysis(file: &Path) -> (String, Analysis) {
    let out = Command::cargo_bin("abba")
        .unwrap()
        .args(["analyze", "--json"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let model = serde_json::from_str(&text).expect("the analysis JSON reads back into the model");
    (text, model)
}

/// The library's analysis of the same file, with the seed the file recorded (as the CLI
/// does without `--seed`).
fn library_analysis(file: &Path) -> Analysis {
    // `abba analyze`'s default --unit for CSV values is ns.
    let csv = CsvOptions {
        unit: "ns".into(),
        ..CsvOptions::default()
    };
    let input = Input::load(&[file], &csv).unwrap();
    let config = AnalysisConfig {
        seed: input.recorded_seed().unwrap_or(1),
        ..AnalysisConfig::default()
    };
    analyze_input(&input, &config).unwrap()
}

/// Asserts that the CLI's analysis is the library's, byte for byte as JSON, but for the
/// remedies the CLI words as flags; returns how many remedies there were.
fn assert_same(file: &Path) -> usize {
    let (json, cli) = cli_analysis(file);
    let mut lib = library_analysis(file);
    assert_eq!(cli.warnings.len(), lib.warnings.len());
    assert_eq!(cli.controls.len(), lib.controls.len());
    let mut remedies = 0;
    for (c, l) in cli.warnings.iter().zip(&mut lib.warnings) {
        assert_eq!((c.code, &c.benchmark), (l.code, &l.benchmark));
        assert!(c.message.starts_with(&l.message), "{c:?} vs {l:?}");
        if l.remedy.take().is_some() {
            remedies += 1;
            assert!(
                c.message.len() > l.message.len(),
                "remedy not worded: {c:?}"
            );
        } else {
            assert_eq!(c.message, l.message);
        }
        l.message.clone_from(&c.message);
    }
    for (c, l) in cli.controls.iter().zip(&mut lib.controls) {
        assert!(c.detail.starts_with(&l.detail), "{c:?} vs {l:?}");
        if l.remedy.take().is_some() {
            remedies += 1;
        } else {
            assert_eq!(c.detail, l.detail);
        }
        l.detail.clone_from(&c.detail);
    }
    // The whole document, every number to the last digit (a JSON round trip of the CLI's
    // output may differ in the last bit, so the text is compared, not the read-back model).
    assert_eq!(json, bench_report::render_json(&lib).unwrap());
    remedies
}

#[test]
fn analyze_of_a_raw_file_is_the_library_entry_point() {
    let remedies = assert_same(&data("raw_two.jsonl"));
    // The cores control carries "pin the runs" as a remedy.
    assert!(remedies >= 1);
}

#[test]
fn analyze_of_a_cut_short_raw_file_is_the_library_entry_point() {
    let lib = library_analysis(&data("raw_two_truncated.jsonl"));
    assert!(
        lib.warnings
            .iter()
            .any(|w| w.code == bench_stats::WarningCode::Truncated)
    );
    assert_same(&data("raw_two_truncated.jsonl"));
}

#[test]
fn analyze_of_three_variants_and_of_a_csv_is_the_library_entry_point() {
    assert_same(&data("raw_three.jsonl"));
    assert_same(&data("paired_two.csv"));
}
