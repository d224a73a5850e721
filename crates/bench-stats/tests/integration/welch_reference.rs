//! Known-answer tests of Welch's t-test, the regularized incomplete beta function and
//! Student's t survival function against SciPy, read from `fixtures/scipy/welch.json`
//! (written by `fixtures/scipy/generate_welch.py` from a seeded RNG).

use crate::support::{EXACT_REL, TAIL_REL, assert_close};
use bench_stats::Sample;
use bench_stats::parametric::welch_t_test;
use bench_stats::special::{regularized_beta, student_t_sf};
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/welch.json"
    );
    let text = std::fs::read_to_string(path).expect("fixtures/scipy/welch.json is committed");
    serde_json::from_str(&text).expect("welch.json parses")
}

fn cases<'a>(r: &'a Value, key: &str) -> &'a [Value] {
    let v = r[key].as_array().unwrap_or_else(|| panic!("missing {key}"));
    assert!(v.len() >= 60, "{key} has {} cases", v.len());
    v
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number"))
}

fn values(v: &Value, key: &str) -> Vec<f64> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is not an array"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn welch_matches_scipy_ttest_ind_unequal_var() {
    let r = reference();
    for (i, c) in cases(&r, "welch").iter().enumerate() {
        let a = Sample::new(&values(c, "a")).unwrap();
        let b = Sample::new(&values(c, "b")).unwrap();
        let w = welch_t_test(&a, &b).unwrap();
        assert_close(w.t, num(c, "t"), EXACT_REL, &format!("welch {i} t"));
        assert_close(w.df, num(c, "df"), EXACT_REL, &format!("welch {i} df"));
        // The p-value's relative error grows with |t| (it is a tail probability).
        assert_close(
            w.p_value,
            num(c, "p_value"),
            TAIL_REL,
            &format!("welch {i} p"),
        );
    }
}

#[test]
fn betainc_matches_scipy() {
    let r = reference();
    for (i, c) in cases(&r, "betainc").iter().enumerate() {
        let (a, b, x) = (num(c, "a"), num(c, "b"), num(c, "x"));
        let got = regularized_beta(a, b, x).unwrap();
        assert_close(
            got,
            num(c, "value"),
            TAIL_REL,
            &format!("betainc {i} ({a}, {b}, {x})"),
        );
    }
}

#[test]
fn student_t_sf_matches_scipy() {
    let r = reference();
    for (i, c) in cases(&r, "t_sf").iter().enumerate() {
        let (t, df) = (num(c, "t"), num(c, "df"));
        let got = student_t_sf(t, df).unwrap();
        assert_close(
            got,
            num(c, "value"),
            TAIL_REL,
            &format!("t.sf {i} ({t}, {df})"),
        );
    }
}
