//! The many-host pooled interval against NumPy/SciPy (`fixtures/scipy/meta.json`, written by
//! `fixtures/scipy/generate_meta.py`): each host's mean and its variance, Student's t on
//! the host means (`scipy.stats.ttest_1samp(...).confidence_interval`), and the
//! random-effects meta-analysis (DerSimonian-Laird τ², the HKSJ factor and its `max(1, q)`
//! modification, `scipy.stats.t.ppf` on `k - 1` df), then the same cases through `analyze`.

use crate::support::assert_close;
use bench_stats::hierarchy::{Levels, pool_units, random_effects_hksj, t_on_means, unit_means};
use bench_stats::model::PooledMethod;
use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Outcome, Series, analyze};
use serde_json::Value;

const REL: f64 = 1e-10;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/meta.json"
    );
    let text = std::fs::read_to_string(path).expect("fixtures/scipy/meta.json is committed");
    serde_json::from_str(&text).expect("meta.json parses")
}

fn cases(r: &Value) -> &[Value] {
    let v = r["cases"].as_array().expect("cases");
    assert!(v.len() >= 20, "{} cases", v.len());
    v
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

fn hosts(c: &Value) -> Vec<Vec<Vec<f64>>> {
    c["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            h.as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_array().unwrap().iter().map(num).collect())
                .collect()
        })
        .collect()
}

fn method(c: &Value) -> PooledMethod {
    match c["method"].as_str().unwrap() {
        "t-on-means" => PooledMethod::TOnMeans,
        "random-effects-hksj" => PooledMethod::RandomEffectsHksj,
        other => panic!("unknown method {other}"),
    }
}

/// `want[f"ci_{level}"]` against `got` (log scale).
fn check_intervals(r: &Value, want: &Value, got: &bench_stats::hierarchy::PooledMeans, what: &str) {
    for level in r["levels"].as_array().unwrap().iter().map(num) {
        let ci = &want[format!("ci_{level}")];
        let [lo, hi] = got.interval(level).unwrap();
        assert_close(lo, num(&ci[0]), REL, &format!("{what} {level} low"));
        assert_close(hi, num(&ci[1]), REL, &format!("{what} {level} high"));
    }
}

#[test]
fn numpy_host_means_and_their_variances() {
    let r = reference();
    for c in cases(&r) {
        let name = c["name"].as_str().unwrap();
        let got = unit_means(&hosts(c)).unwrap();
        for (i, u) in got.iter().enumerate() {
            assert_close(
                u.mean,
                num(&c["means"][i]),
                REL,
                &format!("{name} mean {i}"),
            );
            match (c["variances"][i].as_f64(), u.variance) {
                (Some(w), Some(g)) => assert_close(g, w, REL, &format!("{name} variance {i}")),
                (None, None) => {}
                (w, g) => panic!("{name} variance {i}: {g:?} vs {w:?}"),
            }
        }
    }
}

#[test]
fn scipy_t_interval_on_the_host_means() {
    let r = reference();
    for c in cases(&r) {
        let name = c["name"].as_str().unwrap();
        let means: Vec<f64> = c["means"].as_array().unwrap().iter().map(num).collect();
        let got = t_on_means(&means).unwrap();
        let want = &c["t"];
        assert_eq!(got.method, PooledMethod::TOnMeans);
        assert_eq!(got.df as u64, want["df"].as_u64().unwrap(), "{name}");
        assert_close(got.estimate, num(&want["estimate"]), REL, name);
        assert_close(got.standard_error, num(&want["standard_error"]), REL, name);
        check_intervals(&r, want, &got, &format!("{name} t"));
    }
}

#[test]
fn dersimonian_laird_with_modified_hksj() {
    let r = reference();
    let (mut below, mut above) = (0, 0);
    for c in cases(&r).iter().filter(|c| c.get("re").is_some()) {
        let name = c["name"].as_str().unwrap();
        let means: Vec<f64> = c["means"].as_array().unwrap().iter().map(num).collect();
        let variances: Vec<f64> = c["variances"].as_array().unwrap().iter().map(num).collect();
        let got = random_effects_hksj(&means, &variances).unwrap();
        let want = &c["re"];
        let tau2 = num(&want["tau_squared"]);
        if tau2 == 0.0 {
            assert_eq!(got.tau_squared, Some(0.0), "{name}");
        } else {
            assert_close(
                got.tau_squared.unwrap(),
                tau2,
                REL,
                &format!("{name} tau^2"),
            );
        }
        let q = num(&want["hksj_factor"]);
        assert_close(got.hksj_factor.unwrap(), q, REL, &format!("{name} q"));
        if q < 1.0 {
            below += 1;
        } else if q > 1.0 + 1e-9 {
            above += 1;
        }
        assert_close(
            got.estimate,
            num(&want["estimate"]),
            REL,
            &format!("{name} mu"),
        );
        assert_close(
            got.standard_error,
            num(&want["standard_error"]),
            REL,
            &format!("{name} se"),
        );
        check_intervals(&r, want, &got, &format!("{name} re"));
    }
    assert!(
        below >= 3 && above >= 2,
        "q < 1 in {below} cases, q > 1 in {above}"
    );
}

#[test]
fn the_method_follows_the_hosts_balance() {
    let r = reference();
    let mut seen = [false; 2];
    for c in cases(&r) {
        let name = c["name"].as_str().unwrap();
        let got = pool_units(&hosts(c)).unwrap();
        assert_eq!(got.method, method(c), "{name}");
        let want = match got.method {
            PooledMethod::TOnMeans => &c["t"],
            _ => &c["re"],
        };
        seen[usize::from(got.method == PooledMethod::TOnMeans)] = true;
        assert_close(got.estimate, num(&want["estimate"]), REL, name);
        assert_close(got.standard_error, num(&want["standard_error"]), REL, name);
    }
    assert_eq!(seen, [true, true]);
}

/// The same cases as experiments: one run of each variant per block, the candidate
/// `exp(d)` times the baseline, each host one `Levels` host and each session its own.
/// `analyze` reports the reference's pooled ratio and interval at its confidence, the
/// method, τ² and the HKSJ factor.
#[test]
fn analyze_reports_the_reference_pooled_interval() {
    let r = reference();
    let mut outcomes = Vec::new();
    for c in cases(&r) {
        let name = c["name"].as_str().unwrap();
        let fleet = hosts(c);
        let mut levels = Levels::new((0..fleet.len()).map(|h| format!("host-{h}")).collect());
        let (mut base, mut cand) = (Vec::new(), Vec::new());
        let mut block = 0u32;
        for (h, sessions) in fleet.iter().enumerate() {
            for session in sessions {
                let s = levels.add_session(h).unwrap();
                for d in session {
                    levels.assign(block, s).unwrap();
                    base.push(Observation::in_block(100.0, block));
                    cand.push(Observation::in_block(100.0 * d.exp(), block));
                    block += 1;
                }
            }
        }
        let data = Dataset::new("ns", vec![Series::new("A", base), Series::new("B", cand)])
            .with_design(Design::Abba)
            .with_levels(levels);
        for confidence in [0.95, 0.90] {
            let config = AnalysisConfig {
                confidence,
                resamples: 200,
                ..AnalysisConfig::default()
            };
            let a = analyze(&data, &config).unwrap();
            let p = &a.levels.as_ref().unwrap().comparisons[0].pooled;
            assert_eq!(p.method, method(c), "{name}");
            let want = match p.method {
                PooledMethod::TOnMeans => &c["t"],
                _ => &c["re"],
            };
            // exp and ln round trips: the log-ratios come back to ~1e-15 absolute.
            let tol = 1e-9;
            assert_close(p.ratio.ln(), num(&want["estimate"]), tol, name);
            assert_close(
                p.standard_error.unwrap(),
                num(&want["standard_error"]),
                1e-8,
                name,
            );
            assert_eq!(p.level, confidence);
            let ci = &want[format!("ci_{confidence}")];
            let [lo, hi] = p.ci.unwrap();
            assert_close(
                lo.ln(),
                num(&ci[0]),
                tol,
                &format!("{name} {confidence} low"),
            );
            assert_close(
                hi.ln(),
                num(&ci[1]),
                tol,
                &format!("{name} {confidence} high"),
            );
            match p.method {
                PooledMethod::TOnMeans => assert_eq!((p.tau_squared, p.hksj_factor), (None, None)),
                _ => assert_close(
                    p.hksj_factor.unwrap(),
                    num(&want["hksj_factor"]),
                    1e-8,
                    name,
                ),
            }
            // The verdict is taken at 1 - alpha whatever the printed level: equivalent when
            // the 90% interval lies inside ±1%, else faster/slower when the 95% one
            // excludes 0.
            let at = |key: &str| [num(&want[key][0]), num(&want[key][1])];
            let ([lo95, hi95], [lo90, hi90]) = (at("ci_0.95"), at("ci_0.9"));
            let expected = if lo90 >= 0.99f64.ln() && hi90 <= 1.01f64.ln() {
                Outcome::Equivalent
            } else if hi95 < 0.0 {
                Outcome::Faster
            } else if lo95 > 0.0 {
                Outcome::Slower
            } else {
                Outcome::Inconclusive
            };
            assert_eq!(p.outcome, expected, "{name} at {confidence}");
            outcomes.push(expected);
            let boot = p.bootstrap.as_ref().expect("the cross-check is drawn");
            assert_eq!(boot.resamples, 200);
        }
    }
    // The cases reach more than one verdict, so the check above can tell them apart.
    for o in [Outcome::Faster, Outcome::Inconclusive] {
        assert!(outcomes.contains(&o), "no {o:?} case");
    }
}
