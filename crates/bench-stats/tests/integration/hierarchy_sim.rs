//! Simulated fleets: experiments over 2, 5 and 20 hosts with known variance at every
//! level and a known effect, analysed through `analyze` with their [`Levels`].
//!
//! The model, on the log scale: `ln y = ln 100 + δ·[candidate] + u_h·[candidate] + a_h +
//! b_s + c_k + e`, with host, session, block and run terms `a_h ~ N(0, σ_h²)`,
//! `b_s ~ N(0, σ_s²)`, `c_k ~ N(0, σ_b²)`, `e ~ N(0, σ_r²)`, and `u_h ~ N(0, τ²)` the
//! host's own departure from the effect (0 for the false-alarm tests). Each block holds
//! two runs of each variant (ABBA).
//!
//! Monte Carlo error: a rate over `R` repetitions has standard error
//! `sqrt(p (1 - p) / R)`; with `R = 200`, 1.5 points at 95% and at 5%. The coverage tests
//! ask for at least 93%, the false-alarm tests for at most alpha plus two standard errors
//! (8.1%). Print the measured rates with `-- --nocapture`.

use bench_stats::hierarchy::Levels;
use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The known truth of one simulated fleet.
#[derive(Clone, Copy)]
struct Fleet {
    hosts: u32,
    sessions: u32,
    blocks: u32,
    sd_host: f64,
    sd_session: f64,
    sd_block: f64,
    sd_run: f64,
    effect: f64,
    tau: f64,
}

fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    // Box-Muller.
    let u1: f64 = rng.random::<f64>().max(1e-300);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// One experiment of `fleet`, as a dataset with its levels.
fn simulate(f: &Fleet, seed: u64) -> Dataset {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut levels = Levels::new((0..f.hosts).map(|h| format!("host-{h}")).collect());
    let (mut base, mut cand) = (Vec::new(), Vec::new());
    let mut block = 0u32;
    for h in 0..f.hosts {
        let a = f.sd_host * normal(&mut rng);
        let u = f.tau * normal(&mut rng);
        for _ in 0..f.sessions {
            let s = levels.add_session(h as usize).unwrap();
            let b = f.sd_session * normal(&mut rng);
            for _ in 0..f.blocks {
                levels.assign(block, s).unwrap();
                let c = f.sd_block * normal(&mut rng);
                for is_cand in [false, true, true, false] {
                    let e = f.sd_run * normal(&mut rng);
                    let shift = if is_cand { f.effect + u } else { 0.0 };
                    let v = (100f64.ln() + shift + a + b + c + e).exp();
                    let o = Observation::in_block(v, block);
                    if is_cand { cand.push(o) } else { base.push(o) }
                }
                block += 1;
            }
        }
    }
    Dataset::new("ns", vec![Series::new("A", base), Series::new("B", cand)])
        .with_design(Design::Abba)
        .with_levels(levels)
}

fn config(seed: u64) -> AnalysisConfig {
    AnalysisConfig {
        resamples: 300,
        seed,
        ..AnalysisConfig::default()
    }
}

const NOISY: Fleet = Fleet {
    hosts: 5,
    sessions: 2,
    blocks: 6,
    sd_host: 0.10,
    sd_session: 0.04,
    sd_block: 0.02,
    sd_run: 0.01,
    effect: -0.03,
    tau: 0.0,
};

/// Coverage of the pooled interval and false alarms of the heterogeneity check over `reps`
/// experiments of `fleet`.
fn rates(fleet: &Fleet, reps: u64, seed: u64) -> (f64, f64) {
    let (mut covered, mut alarms) = (0u32, 0u32);
    for r in 0..reps {
        let data = simulate(fleet, seed + r);
        let a = analyze(&data, &config(r + 1)).unwrap();
        let levels = a.levels.expect("several hosts");
        let c = &levels.comparisons[0];
        let [lo, hi] = c.pooled.ci.expect("2+ hosts give an interval");
        covered += u32::from(lo <= fleet.effect.exp() && fleet.effect.exp() <= hi);
        alarms += u32::from(c.heterogeneity.as_ref().is_some_and(|h| h.significant));
    }
    (
        f64::from(covered) / reps as f64,
        f64::from(alarms) / reps as f64,
    )
}

/// With the effect the same on every host (τ = 0), the pooled interval covers it and the
/// heterogeneity check stays quiet at its level, for 2, 5 and 20 hosts.
#[test]
fn pooled_interval_covers_and_heterogeneity_holds_alpha_on_2_5_20_hosts() {
    for (hosts, reps) in [(2u32, 200u64), (5, 200), (20, 200)] {
        let fleet = Fleet { hosts, ..NOISY };
        let (coverage, false_alarms) = rates(&fleet, reps, 1000 * u64::from(hosts));
        println!(
            "{hosts} hosts, tau = 0: coverage {coverage:.3}, heterogeneity false alarms {false_alarms:.3} ({reps} reps)"
        );
        assert!(coverage >= 0.93, "{hosts} hosts: coverage {coverage}");
        let bound = 0.05 + 2.0 * (0.05f64 * 0.95 / reps as f64).sqrt();
        assert!(
            false_alarms <= bound,
            "{hosts} hosts: false alarms {false_alarms} > {bound}"
        );
    }
}

/// When the effect itself varies between hosts (τ = 0.02, as large as the block noise),
/// the pooled interval still covers the fleet's mean effect: it counts that spread.
#[test]
fn pooled_interval_covers_when_the_effect_varies_by_host() {
    for (hosts, reps) in [(2u32, 200u64), (5, 200), (20, 200)] {
        let fleet = Fleet {
            hosts,
            tau: 0.02,
            ..NOISY
        };
        let (coverage, _) = rates(&fleet, reps, 7000 + u64::from(hosts));
        println!("{hosts} hosts, tau = 0.02: coverage {coverage:.3} ({reps} reps)");
        assert!(coverage >= 0.93, "{hosts} hosts: coverage {coverage}");
    }
}

/// The check has power: with τ = 0.05 over 20 hosts it fires in most experiments, and its
/// τ² estimate is near the truth on average.
#[test]
fn heterogeneity_is_found_when_hosts_differ() {
    let fleet = Fleet {
        hosts: 20,
        tau: 0.05,
        ..NOISY
    };
    let reps = 40u64;
    let (mut fired, mut tau2) = (0u32, 0.0);
    for r in 0..reps {
        let a = analyze(&simulate(&fleet, 500 + r), &config(r + 1)).unwrap();
        let c = &a.levels.unwrap().comparisons[0];
        let h = c.heterogeneity.as_ref().unwrap();
        fired += u32::from(h.significant);
        tau2 += h.tau_squared / reps as f64;
    }
    println!("tau = 0.05 over 20 hosts: fired {fired}/{reps}, mean tau^2 {tau2:.5} (truth 0.0025)");
    assert!(fired >= 36, "fired {fired}/{reps}");
    assert!((tau2 - 0.0025).abs() < 0.0008, "mean tau^2 {tau2}");
}

/// The variance components come back near the truth on average: the mean of the
/// estimates over 60 experiments is within 4 Monte Carlo standard errors of each level's
/// variance (the host level only for 20 hosts: with 2 it is barely estimable).
#[test]
fn variance_components_recover_the_known_levels() {
    for hosts in [2u32, 5, 20] {
        let fleet = Fleet { hosts, ..NOISY };
        let reps = 60u64;
        let mut est = vec![Vec::new(); 4];
        for r in 0..reps {
            let a = analyze(&simulate(&fleet, 9000 + r), &config(1)).unwrap();
            let c = &a.levels.unwrap().comparisons[0];
            for (l, v) in c.variance.iter().enumerate() {
                est[l].push(v.variance.unwrap());
            }
        }
        let truth = [
            fleet.sd_host.powi(2),
            fleet.sd_session.powi(2),
            fleet.sd_block.powi(2),
            fleet.sd_run.powi(2),
        ];
        for (l, name) in ["host", "session", "block", "run"].iter().enumerate() {
            let n = est[l].len() as f64;
            let m = est[l].iter().sum::<f64>() / n;
            let sd = (est[l].iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let mc = sd / n.sqrt();
            println!(
                "{hosts} hosts, {name}: mean estimate {m:.3e} (truth {:.3e}, MC se {mc:.1e})",
                truth[l]
            );
            if *name == "host" && hosts < 20 {
                continue;
            }
            // Truncation at 0 biases a level upwards by at most its chance of a negative
            // estimate; the allowance of 4 standard errors plus 5% covers it here.
            assert!(
                (m - truth[l]).abs() <= 4.0 * mc + 0.05 * truth[l],
                "{hosts} hosts, {name}: {m} vs {}",
                truth[l]
            );
        }
    }
}

/// One host with several sessions: the sessions take the hosts' place.
#[test]
fn one_host_pools_its_sessions() {
    let fleet = Fleet {
        hosts: 1,
        sessions: 4,
        ..NOISY
    };
    let a = analyze(&simulate(&fleet, 3), &config(1)).unwrap();
    let levels = a.levels.unwrap();
    assert_eq!(levels.top_level, "session");
    let c = &levels.comparisons[0];
    assert_eq!(c.pooled.units, 4);
    assert_eq!(c.per_unit.len(), 4);
    assert!(c.pooled.note.contains("one host"));
    // The host level cannot be told apart with one host.
    assert_eq!(c.variance[0].variance, None);
}

/// One host and one session is an ordinary experiment: no levels section.
#[test]
fn one_session_has_no_levels_section() {
    let fleet = Fleet {
        hosts: 1,
        sessions: 1,
        ..NOISY
    };
    let a = analyze(&simulate(&fleet, 3), &config(1)).unwrap();
    assert!(a.levels.is_none());
}

/// Few hosts are said to be few, in the note and as a warning.
#[test]
fn two_hosts_say_the_between_host_variance_is_barely_estimable() {
    let fleet = Fleet { hosts: 2, ..NOISY };
    let a = analyze(&simulate(&fleet, 5), &config(1)).unwrap();
    let c = &a.levels.as_ref().unwrap().comparisons[0];
    assert!(
        c.pooled.note.contains("barely estimable"),
        "{}",
        c.pooled.note
    );
    assert_eq!(c.pooled.df, 1);
    assert!(a.warnings.iter().any(|w| w.code == "few-hosts"));
}
