//! The `hierarchy` module against independent references: SciPy's Student t, a NumPy
//! trace computation of the nested ANOVA variance components, and NumPy's Cochran's Q
//! (`fixtures/hierarchy/generate.py`, values committed in `reference.json`).

use crate::support::assert_close;
use bench_stats::hierarchy::{heterogeneity, nested_variance_components};
use bench_stats::special::{student_t_cdf as t_cdf, student_t_ppf as t_quantile};
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/hierarchy/reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn scipy_student_t_quantiles_and_cdf() {
    let r = reference();
    for case in r["t"].as_array().unwrap() {
        let df = case["df"].as_f64().unwrap();
        if let Some(q) = case.get("quantile") {
            let p = case["p"].as_f64().unwrap();
            assert_close(
                t_quantile(p, df).unwrap(),
                q.as_f64().unwrap(),
                1e-9,
                &format!("t.ppf({p}, {df})"),
            );
        } else {
            let x = case["x"].as_f64().unwrap();
            let want = case["cdf"].as_f64().unwrap();
            assert_close(
                t_cdf(x, df).unwrap(),
                want,
                1e-10,
                &format!("t.cdf({x}, {df})"),
            );
        }
    }
}

#[test]
fn numpy_trace_nested_variance_components() {
    let r = reference();
    let cases = r["nested"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for (i, case) in cases.iter().enumerate() {
        let ids: Vec<[u32; 3]> = case["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                let v: Vec<u32> = row
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as u32)
                    .collect();
                [v[0], v[1], v[2]]
            })
            .collect();
        let y = floats(&case["y"]);
        let got = nested_variance_components(&ids, &y).unwrap();
        for (l, want) in case["variance"].as_array().unwrap().iter().enumerate() {
            match (want.as_f64(), got.variance[l]) {
                (None, None) => {}
                (Some(0.0), Some(g)) => {
                    assert!(g.abs() < 1e-12, "case {i} level {l}: {g}")
                }
                (Some(w), Some(g)) => assert_close(g, w, 1e-8, &format!("case {i} level {l}")),
                (w, g) => panic!("case {i} level {l}: want {w:?}, got {g:?}"),
            }
        }
    }
}

#[test]
fn numpy_cochran_q_i_squared_and_dersimonian_laird() {
    let r = reference();
    for (i, case) in r["cochran"].as_array().unwrap().iter().enumerate() {
        let units: Vec<Vec<f64>> = case["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(floats)
            .collect();
        let h = heterogeneity(&units, 19, 1).unwrap();
        assert_close(
            h.q,
            case["q"].as_f64().unwrap(),
            1e-9,
            &format!("case {i} Q"),
        );
        let tau = case["tau_squared"].as_f64().unwrap();
        if tau == 0.0 {
            assert_eq!(h.tau_squared, 0.0);
        } else {
            assert_close(h.tau_squared, tau, 1e-9, &format!("case {i} tau^2"));
        }
        let i2 = case["i_squared"].as_f64().unwrap();
        assert!(
            (h.i_squared - i2).abs() < 1e-12,
            "case {i} I^2 {} vs {i2}",
            h.i_squared
        );
    }
}
