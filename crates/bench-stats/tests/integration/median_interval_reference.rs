//! The distribution-free interval of a median against SciPy's
//! `quantile_test(...).confidence_interval()`, read from `fixtures/scipy/median_ci.json`
//! (written by `fixtures/scipy/generate_median_ci.py`): the ranks for n = 1..120 and
//! larger n at 90%, 95% and 99%, and seeded samples with ties.

use bench_stats::descriptive::median_interval;
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/median_ci.json"
    );
    let text = std::fs::read_to_string(path).expect("fixtures/scipy/median_ci.json is committed");
    serde_json::from_str(&text).expect("median_ci.json parses")
}

fn expected(case: &Value) -> Option<[f64; 2]> {
    match (case["low"].as_f64(), case["high"].as_f64()) {
        (Some(lo), Some(hi)) => Some([lo, hi]),
        _ => None,
    }
}

#[test]
fn the_ranks_match_scipy_for_every_n_and_confidence() {
    let r = reference();
    let cases = r["ranks"].as_array().unwrap();
    assert!(cases.len() > 300);
    let mut with_interval = 0;
    for case in cases {
        let n = case["n"].as_u64().unwrap() as usize;
        let confidence = case["confidence"].as_f64().unwrap();
        let ranks: Vec<f64> = (1..=n).map(|i| i as f64).collect();
        let want = expected(case);
        with_interval += usize::from(want.is_some());
        assert_eq!(
            median_interval(&ranks, confidence),
            want,
            "n {n} at {confidence}"
        );
    }
    assert!(with_interval > 300, "{with_interval}");
}

#[test]
fn samples_with_ties_match_scipy() {
    let r = reference();
    for case in r["samples"].as_array().unwrap() {
        let values: Vec<f64> = case["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let confidence = case["confidence"].as_f64().unwrap();
        // Shuffled input: the function sorts.
        let mut shuffled = values.clone();
        shuffled.reverse();
        assert_eq!(
            median_interval(&shuffled, confidence),
            expected(case),
            "n {} at {confidence}",
            values.len()
        );
    }
}

#[test]
fn no_interval_from_bad_input() {
    assert_eq!(median_interval(&[], 0.95), None);
    assert_eq!(median_interval(&[1.0; 10], 1.0), None);
    assert_eq!(
        median_interval(&[1.0, f64::NAN, 2.0, 3.0, 4.0, 5.0, 6.0], 0.5),
        None
    );
}
