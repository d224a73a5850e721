//! Known-answer tests against SciPy 1.17 (and NumPy transcriptions where SciPy has no
//! function), read from `fixtures/scipy/reference.json`, which
//! `fixtures/scipy/generate.py` writes from a seeded RNG.

use crate::support::{EXACT_REL, TAIL_REL, assert_close};
use bench_stats::Sample;
use bench_stats::rank::{
    Alternative, Magnitude, MannWhitneyConfig, MannWhitneyMethod, MannWhitneyMethodChoice,
    WilcoxonConfig, WilcoxonMethod, WilcoxonMethodChoice, cliffs_delta, friedman, hodges_lehmann,
    holm_bonferroni, kruskal_wallis, mann_whitney_u, mann_whitney_u_with, wilcoxon_signed_rank,
    wilcoxon_signed_rank_with,
};
use bench_stats::special::{chi2_sf, erfc, ln_gamma, normal_cdf, normal_ppf, normal_sf};
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/reference.json"
    );
    let text = std::fs::read_to_string(path).expect("fixtures/scipy/reference.json is committed");
    serde_json::from_str(&text).expect("reference.json parses")
}

fn cases<'a>(r: &'a Value, key: &str) -> &'a [Value] {
    let v = r[key].as_array().unwrap_or_else(|| panic!("missing {key}"));
    assert!(!v.is_empty(), "{key} has no cases");
    v
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number"))
}

fn vec(v: &Value, key: &str) -> Vec<f64> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is not an array"))
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn sample(v: &Value, key: &str) -> Sample {
    Sample::new(&vec(v, key)).expect("finite, non-empty")
}

fn alternative(v: &Value) -> Alternative {
    match v["alternative"].as_str() {
        Some("less") => Alternative::Less,
        Some("greater") => Alternative::Greater,
        _ => Alternative::TwoSided,
    }
}

#[test]
fn scipy_mannwhitneyu_exact_cases() {
    let r = reference();
    for (i, c) in cases(&r, "mannwhitneyu_exact").iter().enumerate() {
        let cfg = MannWhitneyConfig {
            alternative: alternative(c),
            ..MannWhitneyConfig::default()
        };
        let t = mann_whitney_u_with(&sample(c, "x"), &sample(c, "y"), &cfg).unwrap();
        assert_eq!(t.method, MannWhitneyMethod::Exact, "case {i}");
        assert_eq!(t.u1, num(c, "u1"), "case {i} u1");
        assert_eq!(t.u2, num(c, "u2"), "case {i} u2");
        assert_eq!(t.u, t.u1.min(t.u2));
        assert_close(
            t.p_value,
            num(c, "p_value"),
            EXACT_REL,
            &format!("exact case {i}"),
        );
    }
}

#[test]
fn scipy_mannwhitneyu_asymptotic_cases() {
    let r = reference();
    for (i, c) in cases(&r, "mannwhitneyu_asymptotic").iter().enumerate() {
        let cfg = MannWhitneyConfig {
            alternative: alternative(c),
            ..MannWhitneyConfig::default()
        };
        let t = mann_whitney_u_with(&sample(c, "x"), &sample(c, "y"), &cfg).unwrap();
        assert_eq!(t.method, MannWhitneyMethod::Asymptotic, "case {i}");
        assert_close(
            t.u1,
            num(c, "u1"),
            EXACT_REL,
            &format!("asymptotic case {i} u1"),
        );
        assert_close(
            t.p_value,
            num(c, "p_value"),
            EXACT_REL,
            &format!("asymptotic case {i}"),
        );
        assert!(t.z.is_some());
    }
}

#[test]
fn scipy_mannwhitneyu_deep_tail_cases() {
    let r = reference();
    for (i, c) in cases(&r, "mannwhitneyu_deep_tail").iter().enumerate() {
        let want = num(c, "p_value");
        assert!(
            want > 0.0 && want < 1e-60,
            "case {i} is not in the deep tail"
        );
        let t = mann_whitney_u(&sample(c, "x"), &sample(c, "y")).unwrap();
        assert_eq!(t.u1, num(c, "u1"), "deep case {i} u1");
        assert_close(t.p_value, want, TAIL_REL, &format!("deep tail case {i}"));
    }
}

#[test]
fn scipy_mannwhitneyu_forced_asymptotic_on_exact_data() {
    // The exact-method data, forced through the normal approximation, stay in [0, 1]
    // and agree with the exact p-value to within the usual approximation error.
    let r = reference();
    for c in cases(&r, "mannwhitneyu_exact") {
        let cfg = MannWhitneyConfig {
            method: MannWhitneyMethodChoice::Asymptotic,
            alternative: alternative(c),
        };
        let t = mann_whitney_u_with(&sample(c, "x"), &sample(c, "y"), &cfg).unwrap();
        assert_eq!(t.method, MannWhitneyMethod::Asymptotic);
        assert!((t.p_value - num(c, "p_value")).abs() < 0.1);
    }
}

#[test]
fn scipy_kruskal_cases() {
    let r = reference();
    for (i, c) in cases(&r, "kruskal").iter().enumerate() {
        let groups: Vec<Sample> = c["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let v: Vec<f64> = g
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                Sample::new(&v).unwrap()
            })
            .collect();
        let refs: Vec<&Sample> = groups.iter().collect();
        let kw = kruskal_wallis(&refs).unwrap();
        assert_eq!(kw.df as usize, groups.len() - 1);
        assert_close(kw.h, num(c, "h"), EXACT_REL, &format!("kruskal case {i} H"));
        assert_close(
            kw.p_value,
            num(c, "p_value"),
            EXACT_REL,
            &format!("kruskal case {i} p"),
        );
    }
}

#[test]
fn nbenchmark_kruskal_wallis_h_7_2() {
    let g1 = Sample::new(&[1.0, 2.0, 3.0]).unwrap();
    let g2 = Sample::new(&[4.0, 5.0, 6.0]).unwrap();
    let g3 = Sample::new(&[7.0, 8.0, 9.0]).unwrap();
    let kw = kruskal_wallis(&[&g1, &g2, &g3]).unwrap();
    assert_close(kw.h, 7.2, EXACT_REL, "H");
    assert_eq!(kw.df, 2);
    // chi2(2) survival is exp(-H/2).
    assert_close(kw.p_value, (-3.6_f64).exp(), EXACT_REL, "p");
    assert!((kw.p_value - 0.027).abs() < 5e-4);
}

#[test]
fn scipy_friedmanchisquare_cases() {
    let r = reference();
    for (i, c) in cases(&r, "friedmanchisquare").iter().enumerate() {
        let blocks: Vec<Vec<f64>> = c["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                row.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect();
        let fr = friedman(&blocks).unwrap();
        assert_close(
            fr.statistic,
            num(c, "statistic"),
            EXACT_REL,
            &format!("friedman {i}"),
        );
        assert_close(
            fr.p_value,
            num(c, "p_value"),
            EXACT_REL,
            &format!("friedman {i} p"),
        );
    }
}

#[test]
fn scipy_wilcoxon_exact_cases() {
    let r = reference();
    for (i, c) in cases(&r, "wilcoxon_exact").iter().enumerate() {
        let w = wilcoxon_signed_rank(&vec(c, "d")).unwrap();
        assert_eq!(w.method, WilcoxonMethod::Exact, "case {i}");
        assert_eq!(w.t_plus, num(c, "t_plus"), "case {i} T+");
        assert_eq!(w.statistic, num(c, "statistic"), "case {i} statistic");
        assert_close(
            w.p_value,
            num(c, "p_value"),
            EXACT_REL,
            &format!("wilcoxon exact {i}"),
        );
    }
}

#[test]
fn scipy_wilcoxon_asymptotic_cases() {
    let r = reference();
    let cfg = WilcoxonConfig {
        method: WilcoxonMethodChoice::Asymptotic,
        ..WilcoxonConfig::default()
    };
    for (i, c) in cases(&r, "wilcoxon_asymptotic").iter().enumerate() {
        let d = vec(c, "d");
        let w = wilcoxon_signed_rank_with(&d, &cfg).unwrap();
        assert_eq!(w.method, WilcoxonMethod::Asymptotic);
        assert_eq!(w.t_plus, num(c, "t_plus"), "case {i} T+");
        assert_eq!(w.statistic, num(c, "statistic"), "case {i} statistic");
        assert_close(
            -w.z.unwrap().abs(),
            num(c, "z"),
            EXACT_REL,
            &format!("wilcoxon z {i}"),
        );
        assert_close(
            w.p_value,
            num(c, "p_value"),
            EXACT_REL,
            &format!("wilcoxon approx {i}"),
        );
        // The automatic choice agrees whenever it also picks the approximation.
        let auto = wilcoxon_signed_rank(&d).unwrap();
        if auto.method == WilcoxonMethod::Asymptotic {
            assert_eq!(auto.p_value, w.p_value);
        }
    }
}

#[test]
fn numpy_holm_cases() {
    let r = reference();
    for (i, c) in cases(&r, "holm").iter().enumerate() {
        let p: Vec<Option<f64>> = c["p"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::as_f64)
            .collect();
        let want: Vec<Option<f64>> = c["adjusted"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::as_f64)
            .collect();
        let got = holm_bonferroni(&p);
        assert_eq!(got.len(), want.len());
        for (j, (g, w)) in got.iter().zip(&want).enumerate() {
            match (g, w) {
                (Some(g), Some(w)) => assert_close(*g, *w, EXACT_REL, &format!("holm {i}[{j}]")),
                (None, None) => {}
                _ => panic!("holm {i}[{j}]: got {g:?}, expected {w:?}"),
            }
        }
    }
}

#[test]
fn numpy_cliffs_delta_cases() {
    let r = reference();
    for (i, c) in cases(&r, "cliffs_delta").iter().enumerate() {
        let d = cliffs_delta(&sample(c, "a"), &sample(c, "b"));
        let want = num(c, "delta");
        assert_close(d.delta, want, EXACT_REL, &format!("cliff {i}"));
        assert_eq!(d.magnitude, Magnitude::from_delta(want));
    }
}

/// Brute force over all pairwise differences in NumPy, with `k` chosen as R's
/// `wilcox.test(conf.int = TRUE)` does (exact `qwilcox` without ties and for `m + n <= 20`,
/// else the normal order statistic); `null` bounds where no interval reaches the level.
#[test]
fn numpy_hodges_lehmann_cases() {
    let r = reference();
    let opt = |c: &Value, key: &str| c[key].as_f64();
    for (i, c) in cases(&r, "hodges_lehmann").iter().enumerate() {
        let s = hodges_lehmann(&sample(c, "a"), &sample(c, "b"), num(c, "confidence")).unwrap();
        let want_method = match c["method"].as_str() {
            Some("exact") => MannWhitneyMethod::Exact,
            _ => MannWhitneyMethod::Asymptotic,
        };
        assert_eq!(s.method, want_method, "hl {i} method");
        assert_eq!(s.k.map(|k| k as f64), opt(c, "k"), "hl {i} k");
        assert_close(
            s.shift,
            num(c, "shift"),
            EXACT_REL,
            &format!("hl {i} shift"),
        );
        for (got, key) in [(s.ci_low, "ci_low"), (s.ci_high, "ci_high")] {
            match (got, opt(c, key)) {
                (Some(g), Some(w)) => assert_close(g, w, EXACT_REL, &format!("hl {i} {key}")),
                (g, w) => assert_eq!(g, w, "hl {i} {key}"),
            }
        }
        assert_close(
            s.max_confidence,
            num(c, "max_confidence"),
            EXACT_REL,
            &format!("hl {i} max_confidence"),
        );
        match (s.achieved_confidence, opt(c, "achieved_confidence")) {
            (Some(g), Some(w)) => assert_close(g, w, EXACT_REL, &format!("hl {i} achieved")),
            (g, w) => assert_eq!(g, w, "hl {i} achieved"),
        }
        if let (Some(lo), Some(hi)) = (s.ci_low, s.ci_high) {
            assert!(lo <= s.shift && s.shift <= hi, "hl {i}");
            assert!(
                s.achieved_confidence.unwrap() >= s.confidence - 1e-12,
                "hl {i}"
            );
        } else {
            assert!(s.max_confidence <= s.confidence, "hl {i}");
        }
    }
}

#[test]
fn scipy_special_function_spot_values() {
    let r = reference();
    let sp = &r["special"];
    for c in cases(sp, "norm_sf") {
        let z = num(c, "z");
        assert_close(
            normal_sf(z),
            num(c, "sf"),
            EXACT_REL,
            &format!("norm.sf({z})"),
        );
    }
    for c in cases(sp, "norm_cdf") {
        let z = num(c, "z");
        assert_close(
            normal_cdf(z),
            num(c, "cdf"),
            EXACT_REL,
            &format!("norm.cdf({z})"),
        );
    }
    for c in cases(sp, "norm_ppf") {
        let p = num(c, "p");
        assert_close(
            normal_ppf(p).unwrap(),
            num(c, "ppf"),
            EXACT_REL,
            &format!("norm.ppf({p})"),
        );
    }
    for c in cases(sp, "erfc") {
        let x = num(c, "x");
        assert_close(erfc(x), num(c, "erfc"), EXACT_REL, &format!("erfc({x})"));
    }
    for c in cases(sp, "chi2_sf") {
        let (x, df) = (num(c, "x"), num(c, "df") as u32);
        let want = num(c, "sf");
        let tol = if want < 1e-7 { TAIL_REL } else { EXACT_REL };
        assert_close(
            chi2_sf(x, df).unwrap(),
            want,
            tol,
            &format!("chi2.sf({x}, {df})"),
        );
    }
    for c in cases(sp, "gammaln") {
        let x = num(c, "x");
        assert_close(
            ln_gamma(x).unwrap(),
            num(c, "gammaln"),
            EXACT_REL,
            &format!("gammaln({x})"),
        );
    }
}

#[test]
fn scipy_wilcoxon_permutation_cases() {
    use bench_stats::rank::{Alternative, WilcoxonMethodChoice};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/wilcoxon_permutation.json"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = r["cases"].as_array().unwrap();
    assert!(cases.len() >= 60);
    for (i, c) in cases.iter().enumerate() {
        let d: Vec<f64> = c["d"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let alternative = match c["alternative"].as_str().unwrap() {
            "greater" => Alternative::Greater,
            "less" => Alternative::Less,
            _ => Alternative::TwoSided,
        };
        let cfg = WilcoxonConfig {
            alternative,
            method: WilcoxonMethodChoice::Auto,
            ..WilcoxonConfig::default()
        };
        let w = wilcoxon_signed_rank_with(&d, &cfg).unwrap();
        assert_eq!(w.method, WilcoxonMethod::Permutation, "case {i}");
        assert_eq!(
            w.statistic,
            c["statistic"].as_f64().unwrap(),
            "case {i} statistic"
        );
        assert_close(
            w.p_value,
            c["p_value"].as_f64().unwrap(),
            EXACT_REL,
            &format!("wilcoxon permutation {i}"),
        );
    }
}

#[test]
fn scipy_page_trend_test_cases() {
    use bench_stats::rank::{PageMethod, PageMethodChoice, page_trend_with};
    let r = reference();
    for (i, c) in cases(&r, "page_trend_test").iter().enumerate() {
        let blocks: Vec<Vec<f64>> = c["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                row.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect();
        let (choice, method) = match c["method"].as_str() {
            Some("exact") => (PageMethodChoice::Exact, PageMethod::Exact),
            _ => (PageMethodChoice::Asymptotic, PageMethod::Asymptotic),
        };
        let t = page_trend_with(&blocks, choice).unwrap();
        assert_eq!(t.method, method, "page {i}");
        let what = format!("page {i} ({method:?})");
        assert_close(t.statistic, num(c, "statistic"), EXACT_REL, &what);
        assert_close(t.p_increasing, num(c, "p_increasing"), TAIL_REL, &what);
        assert_close(t.p_decreasing, num(c, "p_decreasing"), TAIL_REL, &what);
        let two_sided = (2.0 * num(c, "p_increasing").min(num(c, "p_decreasing"))).min(1.0);
        assert_close(t.p_value, two_sided, TAIL_REL, &what);
    }
}

/// Page's automatic choice is SciPy's `auto` rule on untied data (exact for 4 blocks of 3).
#[test]
fn scipy_page_trend_test_auto_is_exact_for_small_untied_tables() {
    use bench_stats::rank::{PageMethod, page_trend};
    let r = reference();
    let c = &cases(&r, "page_trend_test")[0];
    let blocks: Vec<Vec<f64>> = c["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    let t = page_trend(&blocks).unwrap();
    assert_eq!(t.method, PageMethod::Exact);
    assert_close(
        t.p_increasing,
        num(c, "p_increasing"),
        EXACT_REL,
        "page auto",
    );
}

/// The test of no change on zero-heavy, tied differences
/// (`fixtures/scipy/wilcoxon_conditional.json`, written by
/// `fixtures/scipy/generate_wilcoxon_conditional.py`): the conditional p on the informative
/// differences against SciPy (and a brute-force enumeration up to 13 of them), the Walsh
/// counts and the interval's p and 95% bounds against an independent transcription.
#[test]
fn scipy_wilcoxon_conditional_cases() {
    use bench_stats::rank::{paired_hodges_lehmann, signed_rank_no_change};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/wilcoxon_conditional.json"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = r["cases"].as_array().unwrap();
    assert!(cases.len() >= 80);
    let mut few = 0;
    for (i, c) in cases.iter().enumerate() {
        let d = vec(c, "d");
        let t = signed_rank_no_change(&d).unwrap();
        assert_eq!(
            t.informative,
            c["informative"].as_u64().unwrap() as usize,
            "case {i}"
        );
        few += usize::from(t.informative < 6);
        assert_close(
            t.conditional_p,
            num(c, "conditional_p"),
            EXACT_REL,
            &format!("conditional p {i}"),
        );
        if let Some(brute) = c["brute_p"].as_f64() {
            assert_close(t.conditional_p, brute, EXACT_REL, &format!("brute p {i}"));
        }
        assert_close(
            t.interval_p,
            num(c, "interval_p"),
            EXACT_REL,
            &format!("interval p {i}"),
        );
        assert_eq!(t.p_value, t.conditional_p.max(t.interval_p));
        let hl = paired_hodges_lehmann(&d, 0.95).unwrap();
        let ci = vec(c, "ci_95");
        // (JSON parsing may move a difference by an ulp: the bounds to 1e-12.)
        for (got, want) in [(hl.ci_low, ci[0]), (hl.ci_high, ci[1])] {
            assert!(
                (got - want).abs() <= 1e-12,
                "case {i} bounds {got} vs {want}"
            );
        }
        assert_eq!(
            t.p_value < 1.0 - 0.95,
            hl.ci_low > 0.0 || hl.ci_high < 0.0,
            "case {i}"
        );
    }
    assert!(
        few >= 20,
        "{few} cases with fewer than 6 informative differences"
    );
    // The audit's shape: 5 informative of 39 reach 2/32 at best, never 0.05.
    assert_eq!(num(&cases[0], "conditional_p"), 0.0625);
}
