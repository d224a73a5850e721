//! The typical-run shape check against independent references: the Harrell-Davis
//! quantiles against SciPy's `mstats.hdquantiles` (`fixtures/scipy/generate_hdquantiles.py`),
//! and the randomization test's exact p against a brute-force enumeration written here
//! from the definition.

use bench_stats::paired::shape::{ShapeConfig, harrell_davis, shape_analysis};

#[test]
fn harrell_davis_matches_scipy() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/hdquantiles.json"
    ))
    .expect("fixture");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 24);
    for case in cases {
        let values: Vec<f64> = serde_json::from_value(case["values"].clone()).expect("values");
        let qs: Vec<f64> = serde_json::from_value(case["quantiles"].clone()).expect("qs");
        let want: Vec<f64> = serde_json::from_value(case["expected"].clone()).expect("expected");
        for (q, w) in qs.iter().zip(&want) {
            let got = harrell_davis(&values, *q).expect("estimate");
            assert!(
                (got - w).abs() <= 1e-9 * w.abs().max(1.0),
                "n {} q {q}: {got} vs SciPy {w}",
                values.len()
            );
        }
    }
}

/// The exact p by brute force: pool each variant's log-runs as they are (equal counts
/// here, so no block is centered), swap every subset of blocks, Harrell-Davis quantile of
/// each pool, count.
fn brute_force_p(a: &[Vec<f64>], b: &[Vec<f64>], q: f64) -> f64 {
    let n = a.len();
    let stat = |mask: u32| {
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        for i in 0..n {
            let (x, y) = if mask >> i & 1 == 1 {
                (&b[i], &a[i])
            } else {
                (&a[i], &b[i])
            };
            pa.extend(x.iter().map(|v| v.ln()));
            pb.extend(y.iter().map(|v| v.ln()));
        }
        harrell_davis(&pb, q).unwrap() - harrell_davis(&pa, q).unwrap()
    };
    let t = stat(0);
    let all: Vec<f64> = (0..1u32 << n).map(stat).collect();
    let tol = 1e-12 * t.abs();
    let up = all.iter().filter(|&&s| s >= t - tol).count();
    let down = all.iter().filter(|&&s| s <= t + tol).count();
    (2.0 * up.min(down) as f64 / all.len() as f64).min(1.0)
}

#[test]
fn the_exact_p_is_the_enumeration() {
    let blocks = 8;
    for seed in 0..6u64 {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let effect = 1.0 + 0.01 * seed as f64;
        let mut a = vec![Vec::new(); blocks];
        let mut b = vec![Vec::new(); blocks];
        for i in 0..blocks {
            let s = 1.0 + 0.1 * next();
            for _ in 0..2 {
                a[i].push(s * (1.0 + 0.03 * next()));
                b[i].push(s * effect * (1.0 + 0.03 * next()));
            }
        }
        let s = shape_analysis(&a, &b, &ShapeConfig::default()).unwrap();
        assert!(s.exact);
        for qs in &s.quantiles {
            let want = brute_force_p(&a, &b, qs.quantile);
            assert!(
                (qs.p_value_exact - want).abs() < 1e-12,
                "seed {seed} q {}: {} vs {want}",
                qs.quantile,
                qs.p_value_exact
            );
            // The reported p also holds the interval's own test: never below the exact.
            assert!(
                qs.p_value >= qs.p_value_exact,
                "seed {seed} q {}",
                qs.quantile
            );
        }
    }
}
