//! The JSON export (field names of `abba.analysis/1`, no NaN) and the atomic writer.

use crate::fixtures;

use std::collections::BTreeSet;
use std::fs;

use bench_report::{ExportError, render_json, render_markdown, write_atomic};
use bench_stats::{CustomTestReport, Grouping};
use serde_json::Value;

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .unwrap_or_else(|| panic!("expected an object, got {v}"))
        .keys()
        .cloned()
        .collect()
}

/// The keys the spec fixes, plus the additions the model documents; any rename or
/// removal fails here.
fn expect(v: &Value, spec: &[&str], added: &[&str]) {
    let want: BTreeSet<String> = spec.iter().chain(added).map(|s| s.to_string()).collect();
    assert_eq!(keys(v), want);
}

fn analysis_json(a: &bench_stats::Analysis) -> Value {
    serde_json::from_str(&render_json(a).expect("finite analysis exports")).expect("valid JSON")
}

#[test]
fn json_has_the_field_names_of_the_spec() {
    for a in [fixtures::paired_two(), fixtures::unpaired_three()] {
        let v = analysis_json(&a);
        expect(
            &v,
            &[
                "schema",
                "alpha",
                "confidence",
                "resamples",
                "seed",
                "unit",
                "higher_is_better",
                "groups",
                "warnings",
            ],
            &[
                "min_practical_effect",
                "design",
                "paired_estimator",
                "controls",
                "equivalence_margin",
                "practical",
            ],
        );
        assert_eq!(v["schema"], "abba.analysis/1");
        let g = &v["groups"][0];
        expect(
            g,
            &["class", "baseline", "benchmarks", "omnibus", "comparisons"],
            &[],
        );
        for b in g["benchmarks"].as_array().unwrap() {
            expect(
                b,
                &[
                    "name", "n", "mean", "median", "stddev", "mad", "min", "max", "p50", "p90",
                    "p99",
                ],
                &["class", "outliers"],
            );
        }
        let c = &g["comparisons"][0];
        expect(
            c,
            &[
                "candidate",
                "verdict",
                "verdict_basis",
                "mann_whitney",
                "p_value_adjusted",
                "cliffs_delta",
                "hodges_lehmann",
                "paired",
            ],
            &["outcome", "summary", "ratio", "ratio_ci", "reference"],
        );
        expect(&c["mann_whitney"], &["u", "p_value", "method"], &[]);
        expect(&c["cliffs_delta"], &["value", "magnitude"], &[]);
        expect(&c["hodges_lehmann"], &["shift", "ci_low", "ci_high"], &[]);
        assert_eq!(c["verdict"], "significant");
    }

    let v = analysis_json(&fixtures::paired_two());
    let p = &v["groups"][0]["comparisons"][0]["paired"];
    expect(
        p,
        &[
            "blocks",
            "mean_difference",
            "difference_ci",
            "ratio",
            "ratio_ci",
            "cohens_dz",
            "wilcoxon_p",
        ],
        &[
            "median_ratio",
            "median_ratio_ci",
            "hodges_lehmann",
            "block_values",
            "variance_components",
        ],
    );
    assert_eq!(p["difference_ci"].as_array().map(Vec::len), Some(2));
    assert!(p["blocks"].is_u64());
    assert!(v["groups"][0]["omnibus"].is_null());
    assert!(v["groups"][0]["benchmarks"][0]["p99"].is_null());

    let v = analysis_json(&fixtures::unpaired_three());
    let o = &v["groups"][0]["omnibus"];
    expect(
        o,
        &["test", "statistic", "df", "p_value", "significant"],
        &[],
    );
    assert_eq!(o["test"], "kruskal-wallis");
    assert!(v["groups"][0]["comparisons"][0]["paired"].is_null());
    assert!(v["groups"][0]["comparisons"][0]["p_value_adjusted"].is_f64());

    let v = analysis_json(&fixtures::warnings_and_controls());
    assert_eq!(v["groups"][0]["omnibus"]["test"], "friedman");
    for w in v["warnings"].as_array().unwrap() {
        expect(w, &["code", "benchmark", "message"], &[]);
    }
    assert!(v["warnings"][2]["benchmark"].is_null());
}

#[test]
fn json_round_trips_to_the_same_analysis() {
    let a = fixtures::warnings_and_controls();
    let text = render_json(&a).unwrap();
    let back: bench_stats::Analysis = serde_json::from_str(&text).unwrap();
    assert_eq!(back.groups.len(), a.groups.len());
    assert_eq!(render_json(&back).unwrap(), text);
}

/// Our model's null handling: a value that could not be computed is written as `null`
/// (the key is kept, as the contract asks), while the additions beyond the contract
/// (`grouping`, `custom_test`) are left out entirely unless they say something.
#[test]
fn json_keeps_missing_values_as_null_and_leaves_out_unused_additions() {
    let mut a = fixtures::paired_two();
    a.groups[0].comparisons[0].reference = None;
    a.groups[0].comparisons[0].custom_test = None;
    a.grouping = Grouping::PerClass;
    let v = analysis_json(&a);
    let comparison = v["groups"][0]["comparisons"][0].as_object().unwrap();
    assert_eq!(comparison.get("reference"), Some(&Value::Null));
    assert!(!comparison.contains_key("custom_test"), "{comparison:?}");
    assert!(v.as_object().unwrap().get("grouping").is_none());

    a.grouping = Grouping::CrossClass;
    a.groups[0].comparisons[0].custom_test = Some(CustomTestReport {
        name: "median-ratio".into(),
        p_value: None,
        effect: None,
        shift: None,
    });
    let v = analysis_json(&a);
    assert_eq!(v["grouping"], "cross-class");
    let custom = &v["groups"][0]["comparisons"][0]["custom_test"];
    assert_eq!(custom["name"], "median-ratio");
    // Inside the addition, absent values are null like everywhere else.
    assert_eq!(custom["p_value"], Value::Null);
}

#[test]
fn render_json_refuses_non_finite_numbers_and_names_the_field() {
    let mut a = fixtures::paired_two();
    a.groups[0].benchmarks[1].mean = f64::NAN;
    match render_json(&a) {
        Err(ExportError::NonFinite { field }) => {
            assert_eq!(field, "groups[0].benchmarks[1].mean");
        }
        other => panic!("expected NonFinite, got {other:?}"),
    }

    let mut a = fixtures::paired_two();
    a.groups[0].comparisons[0]
        .paired
        .as_mut()
        .unwrap()
        .block_values[3][1] = f64::INFINITY;
    let err = render_json(&a).unwrap_err();
    assert!(
        err.to_string()
            .contains("groups[0].comparisons[0].paired.block_values[3][1]"),
        "{err}"
    );

    // Inside `Some` too: a NaN must never pass for a computed value.
    let mut a = fixtures::unpaired_three();
    a.groups[0].comparisons[1].p_value_adjusted = Some(f64::NAN);
    assert!(matches!(
        render_json(&a),
        Err(ExportError::NonFinite { field }) if field == "groups[0].comparisons[1].p_value_adjusted"
    ));
}

#[test]
fn write_atomic_replaces_the_file_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.md");
    fs::write(&path, "old contents that are longer than the new ones").unwrap();
    let md = render_markdown(&fixtures::paired_two());
    write_atomic(&path, md.as_bytes()).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), md);
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("report.md")]);
}

#[test]
fn write_atomic_into_a_missing_directory_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("analysis.json");
    let err = write_atomic(&path, b"{}").unwrap_err();
    match &err {
        ExportError::Io {
            path: p, action, ..
        } => {
            assert_eq!(p, &path);
            assert_eq!(*action, "create temporary file");
        }
        other => panic!("expected Io, got {other:?}"),
    }
    assert!(
        err.to_string().contains("no-such-dir/analysis.json"),
        "{err}"
    );
    assert!(!path.exists());
}

#[test]
fn write_atomic_under_a_regular_file_fails_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.txt");
    fs::write(&file, "keep me").unwrap();
    let err = write_atomic(file.join("analysis.json"), b"{}").unwrap_err();
    assert!(matches!(err, ExportError::Io { .. }), "{err:?}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep me");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn write_atomic_over_a_directory_fails_at_rename_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("occupied");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("inside"), "x").unwrap();
    let err = write_atomic(&target, b"{}").unwrap_err();
    match err {
        ExportError::Io { action, .. } => assert_eq!(action, "rename"),
        other => panic!("expected Io, got {other:?}"),
    }
    // Only the directory remains: the temporary file was removed.
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("occupied")]);
}

#[test]
fn write_atomic_rejects_a_path_without_a_file_name() {
    assert!(matches!(
        write_atomic("/", b"x"),
        Err(ExportError::NotAFile { .. })
    ));
    assert!(matches!(
        write_atomic("", b"x"),
        Err(ExportError::NotAFile { .. })
    ));
}

// `/dev/full` is Linux's; elsewhere the test is not compiled rather than passing empty.
#[cfg(target_os = "linux")]
#[test]
fn write_atomic_to_a_full_device_reports_the_error_and_keeps_the_device() {
    use std::os::unix::fs::FileTypeExt;
    let full = std::path::Path::new("/dev/full");
    assert!(
        std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()),
        "/dev/full is not a character device on this Linux system"
    );
    let err = bench_report::write_atomic(full, b"{\"schema\": \"abba.analysis/1\"}\n").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("/dev/full"), "{text}");
    assert!(
        std::fs::metadata(full)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // No temporary file was left in /dev.
    let leftovers = std::fs::read_dir("/dev")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".full.tmp"))
        .count();
    assert_eq!(leftovers, 0);
}
