//! The simulator's changes that are not shifts, its unequal replicate counts and its
//! disturbed-run flags: each against an exact hand computation on a machine without
//! noise, or against the plain simulator on the same seed.

use bench_lab::sim::{
    Change, Mode, NoiseProfile, SimConfig, SimDesign, session_truth, simulate_change,
    simulate_cycles, truth,
};

/// A machine whose only noise is bursts and spikes: every undisturbed run takes exactly
/// `mean`.
fn bursts_only() -> SimConfig {
    SimConfig {
        sigma_b: 0.0,
        sigma_w: 0.0,
        drift_sd_per_run: 0.0,
        carryover: 0.0,
        first_run: (0.0, 0.0),
        ..NoiseProfile::SharedVm.config()
    }
}

/// `a` and `b` agree to rounding.
fn same(a: (f64, f64, f64), b: (f64, f64, f64)) {
    for (x, y) in [(a.0, b.0), (a.1, b.1), (a.2, b.2)] {
        assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
    }
}

/// No noise at all: a run's time is `mean` times its program factor.
fn noiseless() -> SimConfig {
    SimConfig {
        burst_start: 0.0,
        spike_prob: 0.0,
        ..bursts_only()
    }
}

#[test]
fn no_change_is_the_plain_simulator() {
    for design in [
        SimDesign::Abba,
        SimDesign::Sequential,
        SimDesign::Alternating,
    ] {
        let cfg = NoiseProfile::Bursty.config().with_effect(1.03);
        let plain = simulate_cycles(&cfg, design, 12, 2, 9);
        let none = simulate_change(&cfg, &Change::none(), design, 12, 2, 9);
        assert_eq!(plain.runs, none.runs);
        assert_eq!(plain.disturbed, none.disturbed);
        assert_eq!(plain.runs.len(), plain.disturbed.len());
    }
}

#[test]
fn a_change_keeps_the_machine_noise_of_its_seed() {
    // The same seed with a 20 % tail on B: A's runs are identical, and each B run is its
    // A/A counterpart times 1 or 1.2.
    let cfg = NoiseProfile::SharedVm.config();
    let aa = simulate_change(&cfg, &Change::none(), SimDesign::Abba, 30, 1, 4);
    let tail = simulate_change(
        &cfg,
        &Change::share(0.3, (1.2, 1.2)),
        SimDesign::Abba,
        30,
        1,
        4,
    );
    let mut slowed = 0;
    for (x, y) in aa.runs.iter().zip(&tail.runs) {
        assert_eq!((x.0, x.1, x.2), (y.0, y.1, y.2));
        let f = y.3 / x.3;
        if x.0 == 0 {
            assert_eq!(x.3, y.3);
        } else {
            assert!((f - 1.0).abs() < 1e-12 || (f - 1.2).abs() < 1e-12, "{f}");
            slowed += u32::from(f > 1.1);
        }
    }
    // 60 B runs, 30 % slowed: 18 expected, the binomial SD 3.5.
    assert!((8..=28).contains(&slowed), "{slowed}");
    assert_eq!(aa.disturbed, tail.disturbed);
}

#[test]
fn disturbed_runs_are_the_bursts_and_spikes() {
    let cfg = bursts_only();
    let e = simulate_cycles(&cfg, SimDesign::Abba, 200, 1, 3);
    let mut disturbed = 0;
    for (r, &d) in e.runs.iter().zip(&e.disturbed) {
        if d {
            assert!(r.3 > cfg.mean * 1.14, "{r:?}");
            disturbed += 1;
        } else {
            assert!((r.3 - cfg.mean).abs() < 1e-9, "{r:?}");
        }
    }
    // The stationary share: 20 % in bursts, 3 % spikes (some of them inside bursts).
    let share = f64::from(disturbed) / e.runs.len() as f64;
    assert!((0.17..0.28).contains(&share), "{share}");
    // The oracle's dataset keeps exactly the undisturbed runs of the complete blocks.
    let clean = e.undisturbed();
    assert!(clean.series.iter().all(|s| {
        s.observations
            .iter()
            .all(|o| (o.value - cfg.mean).abs() < 1e-9 && o.block.is_some())
    }));
    let kept: usize = clean.series.iter().map(|s| s.observations.len()).sum();
    assert!(kept <= e.runs.len() - disturbed as usize && kept > e.runs.len() / 2);
    assert_eq!(clean.design, e.dataset.design);
}

#[test]
fn unequal_counts_lay_out_every_block() {
    let cfg = NoiseProfile::Quiet.config();
    let e = simulate_cycles(&cfg, SimDesign::Unequal { a: 1, b: 3 }, 4, 1, 1);
    let order =
        |b: u32| -> Vec<usize> { e.runs.iter().filter(|r| r.1 == b).map(|r| r.0).collect() };
    assert_eq!(order(0), vec![0, 1, 1, 1]);
    assert_eq!(order(1), vec![1, 1, 1, 0]);
    assert_eq!(e.dataset.series[0].observations.len(), 4);
    assert_eq!(e.dataset.series[1].observations.len(), 12);
    // Block truth: each variant's mean over its own runs.
    let two = simulate_cycles(&cfg, SimDesign::Unequal { a: 2, b: 1 }, 3, 2, 1);
    assert_eq!(two.runs.iter().filter(|r| r.1 == 2).count(), 6);
    assert_eq!(two.block_means.len(), 3);
}

#[test]
fn truth_on_a_noiseless_machine_is_the_mixture() {
    // Hand computation. 30 % of B's runs at 1.2: p10 and the median stay at 1, p90 is 1.2,
    // the mean 0.7 + 0.36 = 1.06.
    let cfg = noiseless();
    let t = truth(&cfg, &Change::share(0.3, (1.2, 1.2)), 200, 10, 1);
    same((t.p10, t.median, t.p90), (1.0, 1.0, 1.2));
    assert!((t.mean - 1.06).abs() < 0.01, "{t:?}");
    // B's fast mode 4 % faster, 55 % of its runs 15 % slower: median and p90 at 1.15, p10
    // at 0.96, mean 0.45 * 0.96 + 0.55 * 1.15 = 1.0645.
    let t = truth(&cfg, &Change::fast_and_slow(0.96, 0.55, 1.15), 200, 10, 2);
    same((t.p10, t.median, t.p90), (0.96, 1.15, 1.15));
    assert!((t.mean - 1.0645).abs() < 0.01, "{t:?}");
    // Both bimodal (30 % at 1.2), B's fast mode 4 % faster: p10 and median 0.96, p90 1.
    let t = truth(&cfg, &Change::both_bimodal(0.3, 1.2, 0.96), 200, 10, 3);
    same((t.p10, t.median, t.p90), (0.96, 0.96, 1.0));
    // A pure shift moves every quantile and the mean alike.
    let t = truth(&cfg, &Change::shift(1.02), 20, 10, 4);
    for q in [t.p10, t.median, t.p90, t.mean] {
        assert!((q - 1.02).abs() < 1e-12, "{t:?}");
    }
    // A lognormal spread of SD 0.1: the median about 1, p90 about exp(1.2816 * 0.1).
    let t = truth(&cfg, &Change::scale(0.1), 400, 10, 5);
    assert!((t.median - 1.0).abs() < 0.01, "{t:?}");
    assert!((t.p90 - 0.128_16_f64.exp()).abs() < 0.01, "{t:?}");
    assert!((t.p10 - (-0.128_16_f64).exp()).abs() < 0.01, "{t:?}");
    assert!((t.mean - 0.005_f64.exp()).abs() < 0.01, "{t:?}");
}

#[test]
fn any_mixture_any_direction() {
    // Three modes on A, a faster share on B: the mean factors are the weighted means.
    let change = Change::mixture(
        "custom",
        vec![Mode::at(1.0, 1.0), Mode::at(1.0, 1.1), Mode::at(2.0, 0.9)],
        vec![Mode {
            weight: 1.0,
            factor: (0.8, 1.0),
            log_sd: 0.0,
        }],
    );
    assert!((change.mean_factor(0) - 0.975).abs() < 1e-12);
    assert!((change.mean_factor(1) - 0.9).abs() < 1e-12);
    assert!(!change.is_none());
    assert!(Change::none().is_none());
    let t = truth(&noiseless(), &Change::share(0.6, (0.9, 0.9)), 100, 10, 6);
    same((t.median, t.p10, t.p90), (0.9, 0.9, 1.0));
    assert_eq!(
        Change::share(0.3, (1.2, 1.2)).name,
        "30% of B's runs 20% slower"
    );
    assert_eq!(
        Change::share(0.6, (1.06, 1.14)).name,
        "60% of B's runs 6-14% slower"
    );
    assert_eq!(
        Change::fast_and_slow(0.96, 0.45, 1.15).name,
        "B's fast mode 4% faster, 45% of its runs 15% slower"
    );
}

#[test]
fn analyze_change_is_the_simulated_session_analysed_with_its_seed() {
    let cfg = NoiseProfile::Quiet.config();
    let a = bench_lab::sim::analyze_change(&cfg, &Change::shift(1.10), 12, 5).unwrap();
    let e = simulate_change(&cfg, &Change::shift(1.10), SimDesign::Abba, 12, 1, 5);
    let config = bench_stats::AnalysisConfig {
        seed: 5,
        ..bench_stats::AnalysisConfig::default()
    };
    let b = bench_stats::analyze(&e.dataset, &config).unwrap();
    assert_eq!(
        a.groups[0].comparisons[0].outcome,
        b.groups[0].comparisons[0].outcome
    );
    assert_eq!(
        a.groups[0].comparisons[0].ratio,
        b.groups[0].comparisons[0].ratio
    );
    assert_eq!(
        a.groups[0].comparisons[0].outcome,
        bench_stats::Outcome::Slower
    );
}

#[test]
fn a_shifts_session_truth_is_the_shift_and_agrees_with_the_pooled_truth() {
    // Both variants run in every slot of the session with the same machine noise, so
    // a shift's session truth is the shift to rounding and no change's is exactly 1, on
    // every profile; the pooled truth (400 sessions' runs) agrees within its Monte Carlo
    // error.
    for profile in NoiseProfile::ALL {
        let cfg = profile.config();
        for (change, effect) in [(Change::shift(1.02), 1.02), (Change::none(), 1.0)] {
            let pooled = truth(&cfg, &change, 200, 30, 77);
            for seed in [1, 2, 3] {
                let e = simulate_change(&cfg, &change, SimDesign::Abba, 30, 1, seed);
                let t = session_truth(&cfg, &change, &e, 20, seed);
                for q in [t.p10, t.median, t.p90, t.mean] {
                    assert!((q - effect).abs() < 1e-12, "{profile}: {t:?}");
                }
                for (s, p) in [
                    (t.p10, pooled.p10),
                    (t.median, pooled.median),
                    (t.p90, pooled.p90),
                    (t.mean, pooled.mean),
                ] {
                    assert!((s / p - 1.0).abs() < 0.01, "{profile}: {t:?} vs {pooled:?}");
                }
            }
        }
        // The same holds with the shift in `cfg.effect`.
        let shifted = cfg.with_effect(1.05);
        let e = simulate_change(&shifted, &Change::none(), SimDesign::Abba, 30, 1, 4);
        let t = session_truth(&shifted, &Change::none(), &e, 20, 4);
        assert!((t.median - 1.05).abs() < 1e-12, "{profile}: {t:?}");
    }
}

#[test]
fn a_sessions_truth_holds_its_machine_state_and_draws_the_rest_again() {
    // A machine whose only noise is the session's level (SD 10%): every session's truth
    // is the change's mixture exactly (the level cancels), while the pooled truth blurs
    // the mixture with the levels of 200 sessions.
    let cfg = SimConfig {
        sigma_b: 0.1,
        ..noiseless()
    };
    let change = Change::share(0.3, (1.2, 1.2));
    for seed in [5, 6] {
        let e = simulate_change(&cfg, &change, SimDesign::Abba, 30, 1, seed);
        let t = session_truth(&cfg, &change, &e, 200, seed);
        same((t.p10, t.median, t.p90), (1.0, 1.0, 1.2));
        assert!((t.mean - 1.06).abs() < 0.005, "{t:?}");
    }
    // With load phases too, each run is its slot's recorded state times its program's
    // factor.
    let phased = SimConfig {
        phase_len: (5, 20),
        phase_sd: 0.05,
        ..cfg
    };
    let e = simulate_change(&phased, &change, SimDesign::Abba, 30, 1, 5);
    assert_eq!(e.machine.len(), e.runs.len());
    for (&m, r) in e.machine.iter().zip(&e.runs) {
        let f = r.3 / m;
        assert!((f - 1.0).abs() < 1e-12 || (f - 1.2).abs() < 1e-12, "{f}");
    }
    let pooled = truth(&cfg, &change, 200, 30, 7);
    assert!(pooled.median > 1.01, "{pooled:?}");
    // The run noise is drawn again: a quiet machine's session truth of a 30% share has
    // its median a little above 1 (the unchanged runs' upper half), not exactly 1.
    let quiet = NoiseProfile::Quiet.config();
    let e = simulate_change(&quiet, &change, SimDesign::Abba, 30, 1, 8);
    let t = session_truth(&quiet, &change, &e, 200, 8);
    assert!(t.median > 1.003 && t.median < 1.02, "{t:?}");
}
