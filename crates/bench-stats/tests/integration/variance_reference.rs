//! Variance components and the ratio of ratios against NumPy/SciPy values written by
//! `fixtures/variance/generate.py` (F of `scipy.stats.f_oneway` as an independent check of
//! MSB / MSW).

use crate::support::{EXACT_REL, assert_close};
use bench_stats::Sample;
use bench_stats::paired::{ratio_of_ratios, variance_components};
use bench_stats::resample::BootstrapConfig;
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/variance/reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn scipy_f_oneway_variance_components_cases() {
    let r = reference();
    let cases = r["variance_components"].as_array().unwrap();
    assert!(cases.len() >= 40);
    for (i, case) in cases.iter().enumerate() {
        let groups: Vec<Vec<f64>> = case["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(floats)
            .collect();
        let vc = variance_components(&groups).unwrap_or_else(|e| panic!("case {i}: {e}"));
        let what = |s: &str| format!("case {i} {s}");
        assert_close(
            vc.ms_between,
            case["ms_between"].as_f64().unwrap(),
            EXACT_REL,
            &what("msb"),
        );
        assert_close(
            vc.ms_within,
            case["ms_within"].as_f64().unwrap(),
            EXACT_REL,
            &what("msw"),
        );
        assert_close(vc.n0, case["n0"].as_f64().unwrap(), EXACT_REL, &what("n0"));
        assert_close(
            vc.ms_between / vc.ms_within,
            case["f_oneway"].as_f64().unwrap(),
            EXACT_REL,
            &what("F"),
        );
        let between = case["between"].as_f64().unwrap();
        if between == 0.0 {
            assert_eq!(vc.between_block, 0.0, "{}", what("truncated sigma_b^2"));
        } else {
            assert_close(vc.between_block, between, EXACT_REL, &what("sigma_b^2"));
        }
        assert_close(
            vc.within_block,
            case["within"].as_f64().unwrap(),
            EXACT_REL,
            &what("sigma_w^2"),
        );
    }
}

#[test]
fn numpy_ratio_of_ratios_cases() {
    let r = reference();
    for (i, case) in r["ratio_of_ratios"].as_array().unwrap().iter().enumerate() {
        let s = |k: &str| Sample::new(&floats(&case[k])).unwrap();
        let ror = ratio_of_ratios(
            &s("baseline"),
            &s("candidate"),
            &s("reference"),
            &BootstrapConfig::default(),
        )
        .unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_close(
            ror.estimate,
            case["ratio_of_ratios"].as_f64().unwrap(),
            EXACT_REL,
            &format!("case {i} ratio"),
        );
        assert_close(
            ror.reference_cv.unwrap(),
            case["reference_cv"].as_f64().unwrap(),
            EXACT_REL,
            &format!("case {i} cv"),
        );
        let ci = ror.interval.unwrap();
        assert!(
            ci.low <= ror.estimate && ror.estimate <= ci.high,
            "case {i}: {ci:?}"
        );
    }
}

#[test]
fn scipy_binomtest_carryover_cases() {
    use bench_stats::diagnostics::{BlockJoin, CarryoverConfig, CarryoverRun, carryover};
    // The generator's blocks are separated (its carryover sits at positions 1 and 3 only),
    // so the mean contrast is the whole carryover.
    let config = CarryoverConfig {
        join: BlockJoin::Separated,
        ..CarryoverConfig::default()
    };
    let r = reference();
    for (i, case) in r["carryover"].as_array().unwrap().iter().enumerate() {
        let runs: Vec<CarryoverRun> = case["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| CarryoverRun {
                variant: x["variant"].as_u64().unwrap() as usize,
                block: x["block"].as_u64().unwrap() as u32,
                position: x["position"].as_u64().unwrap() as u32,
                value: x["value"].as_f64().unwrap(),
            })
            .collect();
        let rep = carryover(&runs, &config).unwrap();
        assert_close(
            rep.position_effect,
            case["position_effect"].as_f64().unwrap(),
            1e-9,
            &format!("case {i} effect"),
        );
        assert_eq!(
            rep.positive as u64,
            case["positive"].as_u64().unwrap(),
            "case {i}"
        );
        assert_eq!(
            rep.negative as u64,
            case["negative"].as_u64().unwrap(),
            "case {i}"
        );
        assert_close(
            rep.p_value,
            case["p_value"].as_f64().unwrap(),
            EXACT_REL,
            &format!("case {i} p"),
        );
    }
}
