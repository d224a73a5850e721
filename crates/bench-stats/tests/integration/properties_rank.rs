//! Invariants of the rank tests, effect sizes and special functions, on arbitrary
//! finite input (including extreme magnitudes and heavy ties).

use bench_stats::diagnostics::iid_checks;
use bench_stats::rank::{
    MannWhitneyConfig, MannWhitneyMethod, MannWhitneyMethodChoice, ShiftConfig, cliffs_delta,
    friedman, hodges_lehmann, hodges_lehmann_with, holm_bonferroni, kruskal_wallis, mann_whitney_u,
    mann_whitney_u_with, paired_hodges_lehmann, wilcoxon_signed_rank,
};
use bench_stats::special::{chi2_sf, normal_ppf, normal_sf};
use bench_stats::{Sample, StatsError};
use proptest::prelude::*;

/// Finite values mixing ordinary numbers, extreme magnitudes and a tiny palette that
/// produces many ties.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1e3..1e3_f64,
        2 => (0..4_i32).prop_map(f64::from),
        1 => prop::sample::select(vec![1e-300, -1e-300, 1e300, -1e300, 0.0, -0.0, 5e-324]),
        1 => prop::num::f64::NORMAL,
    ]
}

fn values(max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(value(), 1..max)
}

fn sample(v: &[f64]) -> Sample {
    Sample::new(v).expect("strategy yields finite non-empty values")
}

fn in_unit(p: f64) -> bool {
    (0.0..=1.0).contains(&p)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cliffs_delta_is_antisymmetric(a in values(40), b in values(40)) {
        let (sa, sb) = (sample(&a), sample(&b));
        let d_ab = cliffs_delta(&sa, &sb);
        let d_ba = cliffs_delta(&sb, &sa);
        prop_assert_eq!(d_ab.delta, -d_ba.delta);
        prop_assert!((-1.0..=1.0).contains(&d_ab.delta));
        prop_assert_eq!(d_ab.magnitude, d_ba.magnitude);
        prop_assert!(d_ab.greater + d_ab.less <= (a.len() * b.len()) as u64);
    }

    #[test]
    fn cliffs_delta_matches_brute_force(a in values(25), b in values(25)) {
        let (mut gt, mut lt) = (0_i64, 0_i64);
        for x in &a {
            for y in &b {
                if y > x { gt += 1 } else if y < x { lt += 1 }
            }
        }
        let d = cliffs_delta(&sample(&a), &sample(&b));
        prop_assert_eq!(d.greater as i64, gt);
        prop_assert_eq!(d.less as i64, lt);
    }

    #[test]
    fn mann_whitney_u1_plus_u2_is_n1_n2(a in values(60), b in values(60)) {
        match mann_whitney_u(&sample(&a), &sample(&b)) {
            Ok(t) => {
                prop_assert_eq!(t.u1 + t.u2, (a.len() * b.len()) as f64);
                prop_assert_eq!(t.u, t.u1.min(t.u2));
                prop_assert!(in_unit(t.p_value), "p = {}", t.p_value);
                if let Some(z) = t.z { prop_assert!(!z.is_nan()); }
                // Swapping the samples swaps U1 and U2 and keeps the two-sided p.
                let s = mann_whitney_u(&sample(&b), &sample(&a)).unwrap();
                prop_assert_eq!(s.u1, t.u2);
                prop_assert!((s.p_value - t.p_value).abs() <= 1e-12 * t.p_value.max(1e-300));
            }
            Err(StatsError::TooFewSamples { .. }) => prop_assert!(a.len() < 2 || b.len() < 2),
            Err(StatsError::AllTied { .. }) => {
                prop_assert!(a.iter().chain(&b).all(|v| *v == a[0]));
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    #[test]
    fn holm_adjusted_is_bounded_and_monotone(
        p in prop::collection::vec(prop::option::of(0.0..=1.0_f64), 0..20)
    ) {
        let adj = holm_bonferroni(&p);
        prop_assert_eq!(adj.len(), p.len());
        let mut pairs: Vec<(f64, f64)> = Vec::new();
        for (raw, a) in p.iter().zip(&adj) {
            match (raw, a) {
                (Some(r), Some(a)) => {
                    prop_assert!(*a >= *r && *a <= 1.0, "raw {} adjusted {}", r, a);
                    pairs.push((*r, *a));
                }
                (None, None) => {}
                _ => prop_assert!(false, "None must stay None and only None"),
            }
        }
        pairs.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        for w in pairs.windows(2) {
            prop_assert!(w[0].1 <= w[1].1, "not monotone: {:?}", w);
        }
    }

    #[test]
    fn hodges_lehmann_shift_is_equivariant(
        a in prop::collection::vec(-1e3..1e3_f64, 1..60),
        b in prop::collection::vec(-1e3..1e3_f64, 1..60),
        c in -1e3..1e3_f64,
    ) {
        let base = hodges_lehmann(&sample(&a), &sample(&b), 0.95).unwrap();
        let moved: Vec<f64> = b.iter().map(|x| x + c).collect();
        let shifted = hodges_lehmann(&sample(&a), &sample(&moved), 0.95).unwrap();
        let tol = 1e-9 * (1.0 + c.abs() + base.shift.abs());
        prop_assert!((shifted.shift - (base.shift + c)).abs() <= tol,
            "{} + {} vs {}", base.shift, c, shifted.shift);
        if let (Some(lo), Some(hi), Some(slo), Some(shi)) =
            (base.ci_low, base.ci_high, shifted.ci_low, shifted.ci_high)
        {
            prop_assert!((slo - (lo + c)).abs() <= tol);
            prop_assert!((shi - (hi + c)).abs() <= tol);
            prop_assert!(lo <= base.shift && base.shift <= hi);
        }
        prop_assert_eq!(base.ci_low.is_some(), base.ci_high.is_some());
        if base.ci_low.is_some() {
            prop_assert!(base.max_confidence >= 0.95 - 1e-12);
        }
    }

    /// Lehmann's interval inverts the test: with the exact branch (no ties, the same
    /// method rule as Mann-Whitney) it excludes 0 exactly when the exact two-sided test
    /// rejects at `alpha = 1 - confidence`, and there is no interval exactly when no
    /// outcome could reject.
    #[test]
    fn hodges_lehmann_interval_excludes_zero_iff_exact_test_rejects(
        a in prop::collection::vec(0.0..10.0_f64, 1..16),
        b in prop::collection::vec(0.0..10.0_f64, 1..16),
        shift in prop::sample::select(vec![0.0, 1.0, 2.5, 5.0, 10.0]),
        confidence in prop::sample::select(vec![0.8, 0.9, 0.95, 0.99]),
        exact_choice in any::<bool>(),
    ) {
        let b: Vec<f64> = b.iter().map(|x| x + shift).collect();
        let mut pooled: Vec<f64> = a.iter().chain(&b).copied().collect();
        pooled.sort_by(f64::total_cmp);
        prop_assume!(pooled.windows(2).all(|w| w[0] != w[1]));
        let method = if exact_choice {
            MannWhitneyMethodChoice::Exact
        } else {
            MannWhitneyMethodChoice::Auto
        };
        let config = ShiftConfig { confidence, method };
        let s = hodges_lehmann_with(&sample(&a), &sample(&b), &config).unwrap();
        if a.len() < 2 || b.len() < 2 {
            // Mann-Whitney needs two values a side; the interval still stands alone.
            prop_assert_eq!(s.method, MannWhitneyMethod::Exact);
            return Ok(());
        }
        let mw = MannWhitneyConfig { method, ..MannWhitneyConfig::default() };
        let t = mann_whitney_u_with(&sample(&a), &sample(&b), &mw).unwrap();
        prop_assert_eq!(s.method, t.method);
        if s.method == MannWhitneyMethod::Exact {
            let excludes_zero = s.ci_low.is_some_and(|lo| lo > 0.0)
                || s.ci_high.is_some_and(|hi| hi < 0.0);
            let rejects = t.p_value < 1.0 - confidence;
            prop_assert_eq!(excludes_zero, rejects,
                "p = {}, interval {:?}..{:?}", t.p_value, s.ci_low, s.ci_high);
            prop_assert_eq!(s.ci_low.is_none(), s.max_confidence <= confidence);
            if let Some(achieved) = s.achieved_confidence {
                prop_assert!(achieved > confidence);
            }
        }
    }

    #[test]
    fn paired_hodges_lehmann_is_equivariant(
        d in prop::collection::vec(-1e3..1e3_f64, 1..80),
        c in -1e3..1e3_f64,
    ) {
        let base = paired_hodges_lehmann(&d, 0.9).unwrap();
        let moved: Vec<f64> = d.iter().map(|x| x + c).collect();
        let shifted = paired_hodges_lehmann(&moved, 0.9).unwrap();
        let tol = 1e-9 * (1.0 + c.abs() + base.estimate.abs());
        prop_assert!((shifted.estimate - (base.estimate + c)).abs() <= tol);
        prop_assert!(base.ci_low <= base.estimate && base.estimate <= base.ci_high);
        prop_assert!(in_unit(base.achieved_confidence));
    }

    #[test]
    fn nothing_panics_or_returns_nan(a in values(70), b in values(70), c in values(70)) {
        let (sa, sb, sc) = (sample(&a), sample(&b), sample(&c));
        if let Ok(t) = mann_whitney_u(&sa, &sb) {
            prop_assert!(in_unit(t.p_value));
        }
        if let Ok(k) = kruskal_wallis(&[&sa, &sb, &sc]) {
            prop_assert!(in_unit(k.p_value) && k.h >= 0.0 && !k.h.is_nan());
        }
        if let Ok(w) = wilcoxon_signed_rank(&a) {
            prop_assert!(in_unit(w.p_value) && !w.statistic.is_nan());
        }
        if let Ok(h) = paired_hodges_lehmann(&a, 0.95) {
            prop_assert!(!h.estimate.is_nan() && !h.ci_low.is_nan() && !h.ci_high.is_nan());
        }
        if let Ok(s) = hodges_lehmann(&sa, &sb, 0.95) {
            prop_assert!(s.shift.is_finite());
            prop_assert!(s.ci_low.is_none_or(f64::is_finite));
            prop_assert!(s.ci_high.is_none_or(f64::is_finite));
            prop_assert!((0.0..=1.0).contains(&s.max_confidence));
        }
        let d = cliffs_delta(&sa, &sb);
        prop_assert!(!d.delta.is_nan());
        let n = a.len().min(b.len()).min(c.len());
        let blocks: Vec<[f64; 3]> = (0..n).map(|i| [a[i], b[i], c[i]]).collect();
        if let Ok(f) = friedman(&blocks) {
            prop_assert!(in_unit(f.p_value) && f.statistic >= 0.0);
        }
        let mut stream = a.clone();
        stream.extend(&b);
        if let Ok(chk) = iid_checks(&sample(&stream)) {
            prop_assert!(chk.drift_p_value.is_none_or(in_unit));
            prop_assert!(chk.lag1_autocorrelation.is_none_or(|r| (-1.0..=1.0).contains(&r)));
            prop_assert!(chk.effective_n.is_none_or(|x| !x.is_nan()));
        }
    }

    #[test]
    fn special_functions_stay_in_range(z in -40.0..40.0_f64, p in 1e-300..1.0_f64, df in 1_u32..200) {
        let sf = normal_sf(z);
        prop_assert!(in_unit(sf));
        let q = normal_ppf(p).unwrap();
        prop_assert!(q.is_finite());
        let chi = chi2_sf(z.abs() * 10.0, df).unwrap();
        prop_assert!(in_unit(chi));
    }
}

#[test]
fn one_value_per_group_is_too_few() {
    let one = Sample::new(&[1.0]).unwrap();
    let two = Sample::new(&[1.0, 2.0]).unwrap();
    assert!(matches!(
        mann_whitney_u(&one, &two),
        Err(StatsError::TooFewSamples {
            needed: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(
        kruskal_wallis(&[&two]),
        Err(StatsError::TooFewSamples { .. })
    ));
    let same = Sample::new(&[3.0, 3.0]).unwrap();
    assert!(matches!(
        kruskal_wallis(&[&same, &same]),
        Err(StatsError::AllTied { .. })
    ));
}

#[test]
fn iid_checks_need_fifty_values_and_spot_a_ramp() {
    let short: Vec<f64> = (0..49).map(f64::from).collect();
    assert!(matches!(
        iid_checks(&Sample::new(&short).unwrap()),
        Err(StatsError::TooFewSamples {
            needed: 50,
            got: 49,
            ..
        })
    ));
    // Alternating values: strongly negative autocorrelation, no drift.
    let alt: Vec<f64> = (0..100)
        .map(|i| if i % 2 == 0 { 1.0 } else { 2.0 })
        .collect();
    let c = iid_checks(&Sample::new(&alt).unwrap()).unwrap();
    assert!(!c.drift && !c.autocorrelated);
    assert!(c.lag1_autocorrelation.unwrap() < -0.9);
    // A constant stream is not testable for drift, and has no autocorrelation.
    let flat = iid_checks(&Sample::new(&[4.0; 60]).unwrap()).unwrap();
    assert_eq!(flat.drift_p_value, None);
    assert_eq!(flat.lag1_autocorrelation, None);
    assert!(!flat.any_warning());
}

/// Seeded Monte Carlo: the Hodges-Lehmann intervals cover the true shift about as often
/// as promised (deterministic, so it cannot flake).
#[test]
fn hodges_lehmann_intervals_have_nominal_coverage() {
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut normal =
        move || bench_stats::special::normal_ppf(rng.random_range(1e-12..1.0 - 1e-12)).unwrap();
    let reps = 1000;
    let (mut paired_hits, mut two_sample_hits) = (0, 0);
    for rep in 0..reps {
        // Paired: 15 differences (exact critical value) or 70 (normal approximation).
        let n = if rep % 2 == 0 { 15 } else { 70 };
        let d: Vec<f64> = (0..n).map(|_| 0.5 + normal()).collect();
        let hl = paired_hodges_lehmann(&d, 0.95).unwrap();
        if hl.ci_low <= 0.5 && 0.5 <= hl.ci_high {
            paired_hits += 1;
        }
        let a: Vec<f64> = (0..30).map(|_| normal()).collect();
        let b: Vec<f64> = (0..40).map(|_| 2.0 + normal()).collect();
        let s = hodges_lehmann(&sample(&a), &sample(&b), 0.95).unwrap();
        let (lo, hi) = s.ci_low.zip(s.ci_high).expect("30 vs 40 reach 95%");
        if lo <= 2.0 && 2.0 <= hi {
            two_sample_hits += 1;
        }
    }
    let paired = f64::from(paired_hits) / f64::from(reps);
    let two = f64::from(two_sample_hits) / f64::from(reps);
    // Binomial sd at 0.95 over 1000 draws is ~0.007.
    assert!(
        (0.925..=0.975).contains(&paired),
        "paired coverage {paired}"
    );
    assert!((0.925..=0.975).contains(&two), "two-sample coverage {two}");
}
