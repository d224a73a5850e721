//! The deterministic half of the BCa interval against SciPy, on fixed replicates
//! (`fixtures/bootstrap/reference.json`, written by `fixtures/bootstrap/generate.py` from
//! `scipy.stats._resampling._bca_interval` and `scipy.stats.quantile`).

use crate::support::{EXACT_REL, assert_close};
use bench_stats::Sample;
use bench_stats::descriptive::percentile;
use bench_stats::resample::bca_from_replicates;
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/bootstrap/reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("reference.json is readable"))
        .expect("valid JSON")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

#[test]
fn scipy_bca_mean_skewed_15_on_fixed_replicates() {
    let r = reference();
    let sample = Sample::new(&numbers(&r["mean"]["sample"])).unwrap();
    let replicates = numbers(&r["mean"]["replicates"]);
    let cases = r["mean"]["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases {
        let want = |k: &str| case[k].as_f64().unwrap();
        let confidence = want("confidence");
        let got = bca_from_replicates(&sample, &replicates, confidence).unwrap();
        // z0 and the levels go through ndtri / ndtr: our Acklam + Halley quantile and Cody
        // erfc agree with SciPy's to ~1e-15, so EXACT_REL holds.
        assert_close(got.z0, want("z0"), EXACT_REL, "z0");
        assert_close(
            got.acceleration,
            want("acceleration"),
            EXACT_REL,
            "acceleration",
        );
        assert_close(got.level_low, want("level_low"), EXACT_REL, "level_low");
        assert_close(got.level_high, want("level_high"), EXACT_REL, "level_high");
        assert_close(got.low, want("low"), EXACT_REL, "low");
        assert_close(got.high, want("high"), EXACT_REL, "high");
        // The percentile interval on the same replicates: NumPy's linear percentile.
        let reps = Sample::new(&replicates).unwrap();
        let alpha = 100.0 * (1.0 - confidence) / 2.0;
        let low = percentile(&reps, alpha).unwrap();
        let high = percentile(&reps, 100.0 - alpha).unwrap();
        assert_close(low, want("percentile_low"), EXACT_REL, "percentile low");
        assert_close(high, want("percentile_high"), EXACT_REL, "percentile high");
    }
}

#[test]
fn bca_rejects_replicates_all_on_one_side() {
    let sample = Sample::new(&[1.0, 2.0, 3.0]).unwrap();
    assert!(bca_from_replicates(&sample, &[2.5, 2.6, 2.7], 0.95).is_err());
    assert!(bca_from_replicates(&sample, &[1.5, 2.6, 2.7], 1.5).is_err());
    assert!(bca_from_replicates(&sample, &[1.5, 2.0, 2.7], 0.95).is_ok());
}
