//! Simulated fleets: experiments over 2, 5 and 20 hosts with known variance at every
//! level and a known effect, analysed through `analyze` with their [`Levels`].
//!
//! The model, on the log scale: `ln y = ln 100 + δ·[candidate] + u_h·[candidate] + a_h +
//! b_s + c_k + e`, with host, session, block and run terms `a_h ~ N(0, σ_h²)`,
//! `b_s ~ N(0, σ_s²)`, `c_k ~ N(0, σ_b²)`, `e ~ N(0, σ_r²)`, and `u_h ~ N(0, τ²)` the
//! host's own departure from the effect (0 for the false-alarm tests). Each block holds
//! two runs of each variant (ABBA).
//!
//! The experiments are analysed with the block-mean estimator (`hl-log-ratio`, five times
//! cheaper than the default): with two runs of each variant per block its block value, the
//! mean log, is the default's median run, so the pooled numbers are the default's.
//!
//! Monte Carlo error: a rate over `R` repetitions has standard error
//! `sqrt(p (1 - p) / R)`; with `R = 200`, 1.5 points at 95% and at 5%. The coverage tests
//! ask for 95% less three standard errors (90.4%: the pooled interval is exact for
//! balanced normal hosts, so a tighter bound would fail by chance), the false-alarm tests
//! for at most alpha plus two standard errors (8.1%). Print the measured rates with
//! `-- --nocapture`; `old_vs_new` prints the table of `docs/hosts.md`.

use bench_stats::hierarchy::Levels;
use bench_stats::{AnalysisConfig, Dataset, Design, Observation, PairedEstimator, Series, analyze};
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

/// 95% less three Monte Carlo standard errors over 200 repetitions.
const COVERAGE_BOUND: f64 = 0.904;

fn config(seed: u64) -> AnalysisConfig {
    AnalysisConfig {
        resamples: 300,
        paired_estimator: PairedEstimator::HodgesLehmannLogRatio,
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

/// What [`rates`] measures over repeated experiments.
struct Rates {
    /// Coverage of the pooled interval (`pooled.ci`).
    coverage: f64,
    /// Coverage of the hierarchical bootstrap's cross-check (`pooled.bootstrap.ci`).
    bootstrap_coverage: f64,
    /// Heterogeneity check significant.
    false_alarms: f64,
}

/// Coverage of the pooled interval and of its bootstrap cross-check, and false alarms of
/// the heterogeneity check, over `reps` experiments of `fleet`.
fn rates(fleet: &Fleet, reps: u64, seed: u64) -> Rates {
    let (mut covered, mut boot, mut alarms) = (0u32, 0u32, 0u32);
    let truth = fleet.effect.exp();
    for r in 0..reps {
        let data = simulate(fleet, seed + r);
        let a = analyze(&data, &config(r + 1)).unwrap();
        let levels = a.levels.expect("several hosts");
        let c = &levels.comparisons[0];
        let [lo, hi] = c.pooled.ci.expect("2+ hosts give an interval");
        covered += u32::from(lo <= truth && truth <= hi);
        let b = c
            .pooled
            .bootstrap
            .as_ref()
            .expect("the cross-check is drawn");
        let [lo, hi] = b.ci.expect("2+ hosts give an interval");
        boot += u32::from(lo <= truth && truth <= hi);
        alarms += u32::from(c.heterogeneity.as_ref().is_some_and(|h| h.significant));
    }
    let rate = |n: u32| f64::from(n) / reps as f64;
    Rates {
        coverage: rate(covered),
        bootstrap_coverage: rate(boot),
        false_alarms: rate(alarms),
    }
}

/// With the effect the same on every host (τ = 0), the pooled interval covers it and the
/// heterogeneity check stays quiet at its level, for 2, 5 and 20 hosts.
#[test]
fn pooled_interval_covers_and_heterogeneity_holds_alpha_on_2_5_20_hosts() {
    for (hosts, reps) in [(2u32, 200u64), (5, 200), (20, 200)] {
        let fleet = Fleet { hosts, ..NOISY };
        let r = rates(&fleet, reps, 1000 * u64::from(hosts));
        let (coverage, false_alarms) = (r.coverage, r.false_alarms);
        println!(
            "{hosts} hosts, tau = 0: coverage {coverage:.3} (bootstrap cross-check {:.3}), heterogeneity false alarms {false_alarms:.3} ({reps} reps)",
            r.bootstrap_coverage
        );
        assert!(
            coverage >= COVERAGE_BOUND,
            "{hosts} hosts: coverage {coverage}"
        );
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
        let r = rates(&fleet, reps, 7000 + u64::from(hosts));
        let coverage = r.coverage;
        println!(
            "{hosts} hosts, tau = 0.02: coverage {coverage:.3} (bootstrap cross-check {:.3}) ({reps} reps)",
            r.bootstrap_coverage
        );
        assert!(
            coverage >= COVERAGE_BOUND,
            "{hosts} hosts: coverage {coverage}"
        );
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

/// The pooled interval, old against new, on fleets simulated at the level of the block
/// log-ratios (what the pooled interval sees): host `h`'s blocks are
/// `δ + u_h + N(0, σ²)` with `σ = 1%` and `u_h ~ N(0, τ²)`, one session per host, 10
/// blocks per host (balanced: the t interval on the host means) or 5, 10 and 20 blocks in
/// turn (unbalanced: random effects with HKSJ). Old is the hierarchical bootstrap
/// (`pooled.bootstrap`, 500 resamples), new the verdict's interval (`pooled.ci`), both
/// through the library functions `analyze` calls, at 95%.
mod old_vs_new {
    use super::normal;
    use bench_docs::Figure;
    use bench_stats::hierarchy::{hierarchical_bootstrap, pool_units, pooled_interval};
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    const REPS: u64 = 400;
    const SIGMA: f64 = 0.01;
    const RESAMPLES: u32 = 500;
    const LEVEL: f64 = 0.95;

    #[derive(Clone, Copy, PartialEq)]
    enum Layout {
        Balanced,
        Unbalanced,
    }

    fn fleet(layout: Layout, hosts: usize, effect: f64, tau: f64, seed: u64) -> Vec<Vec<Vec<f64>>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..hosts)
            .map(|h| {
                let n = match layout {
                    Layout::Balanced => 10,
                    Layout::Unbalanced => [5, 10, 20][h % 3],
                };
                let u = tau * normal(&mut rng);
                vec![
                    (0..n)
                        .map(|_| effect + u + SIGMA * normal(&mut rng))
                        .collect(),
                ]
            })
            .collect()
    }

    /// Per method (old, new): coverage of `effect`, P(the interval excludes 0), mean width.
    fn cell(layout: Layout, hosts: usize, effect: f64, tau: f64, seed: u64) -> [[f64; 3]; 2] {
        let mut acc = [[0.0; 3]; 2];
        for r in 0..REPS {
            let units = fleet(layout, hosts, effect, tau, seed + r);
            let b = hierarchical_bootstrap(&units, RESAMPLES, r + 1).unwrap();
            let old = pooled_interval(b.estimate, b.standard_error, hosts, LEVEL).unwrap();
            let new = pool_units(&units).unwrap().interval(LEVEL).unwrap();
            for (m, [lo, hi]) in [old, new].into_iter().enumerate() {
                acc[m][0] += f64::from(u8::from(lo <= effect && effect <= hi));
                acc[m][1] += f64::from(u8::from(hi < 0.0 || lo > 0.0));
                acc[m][2] += hi - lo;
            }
        }
        acc.map(|a| a.map(|v| v / REPS as f64))
    }

    #[test]
    fn pooled_interval_old_vs_new_coverage_and_power() {
        let mut fig = Figure::new(
            "docs/hosts.md",
            "cargo test -p bench-stats --test integration hierarchy_sim::old_vs_new -- --nocapture",
        );
        fig.line(format!(
            "pooled 95% interval, old (hierarchical bootstrap) / new (t on host means or random effects + HKSJ); {REPS} fleets per cell, block sd 1%"
        ));
        fig.line(format!(
            "{:<11} {:>5} {:>5} | {:>13} | {:>13} | {:>13} | {:>11}",
            "blocks/host",
            "hosts",
            "tau",
            "cover, no chg",
            "cover, -0.5%",
            "power, -0.5%",
            "width ratio"
        ));
        for layout in [Layout::Balanced, Layout::Unbalanced] {
            for hosts in [3usize, 5, 10] {
                for tau in [0.0, 0.005] {
                    let seed = 100_000 * hosts as u64
                        + if tau > 0.0 { 50_000 } else { 0 }
                        + if layout == Layout::Unbalanced {
                            20_000
                        } else {
                            0
                        };
                    let null = cell(layout, hosts, 0.0, tau, seed);
                    let real = cell(layout, hosts, -0.005, tau, seed + 10_000);
                    let name = match layout {
                        Layout::Balanced => "10 each",
                        Layout::Unbalanced => "5/10/20",
                    };
                    fig.line(format!(
                        "{name:<11} {hosts:>5} {:>4.1}% | {:>6.3}/{:<6.3} | {:>6.3}/{:<6.3} | {:>6.3}/{:<6.3} | {:>11.2}",
                        tau * 100.0,
                        null[0][0],
                        null[1][0],
                        real[0][0],
                        real[1][0],
                        real[0][1],
                        real[1][1],
                        (null[0][2] + real[0][2]) / (null[1][2] + real[1][2]),
                    ));
                    // Coverage at nominal within 3 Monte Carlo SDs (1.1 points each).
                    for c in [null[1][0], real[1][0]] {
                        assert!(c >= 0.917, "{name} {hosts} hosts tau {tau}: coverage {c}");
                    }
                    // The new interval is narrower, and finds the change at least as often.
                    assert!(null[1][2] < null[0][2] && real[1][2] < real[0][2]);
                    assert!(real[1][1] >= real[0][1], "{name} {hosts} tau {tau}: power");
                }
            }
        }
        fig.check();
    }
}
