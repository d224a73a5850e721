//! `abba plan --profile` simulates its pilot on bench-stats' noise machine
//! (`bench_stats::sim::abba_runs`, shipped) while the grids use the lab's simulator: the
//! two must be the same sessions, run for run, or the plan would predict from a machine
//! the calibration never measured.

use bench_lab::sim::{NoiseProfile, SimDesign, abba_runs, simulate};
use bench_stats::plan::{PROFILE_PILOT, profile_pilot};
use bench_stats::sequential::dataset_log_ratios;

#[test]
fn the_shipped_abba_session_is_the_simulators_run_for_run() {
    for profile in NoiseProfile::ALL {
        for seed in [0, 1, 99, u64::MAX] {
            let cfg = profile.config().with_effect(1.03);
            let lab = simulate(&cfg, SimDesign::Abba, 12, seed);
            let shipped = abba_runs(&cfg, 12, seed);
            assert_eq!(lab.runs.len(), shipped.len());
            for (a, b) in lab.runs.iter().zip(&shipped) {
                assert_eq!((a.0, a.1, a.2), (b.0, b.1, b.2), "{profile} seed {seed}");
                assert_eq!(a.3.to_bits(), b.3.to_bits(), "{profile} seed {seed}");
            }
        }
    }
}

#[test]
fn the_profile_pilot_is_the_log_ratios_of_the_simulated_sessions() {
    let (sessions, blocks) = PROFILE_PILOT;
    let seed = 5;
    let (logs, reps) = profile_pilot(NoiseProfile::Drift, seed);
    let mut want = Vec::new();
    for s in 0..sessions {
        let e = simulate(
            &NoiseProfile::Drift.config(),
            SimDesign::Abba,
            blocks,
            seed.wrapping_mul(1_000_003).wrapping_add(s),
        );
        want.extend(dataset_log_ratios(&e.dataset, None).unwrap());
    }
    assert_eq!(logs.len(), want.len());
    assert!(
        logs.iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    assert_eq!(reps.len(), (sessions * u64::from(blocks)) as usize);
    assert!(reps.iter().all(|[a, b]| a.len() == 2 && b.len() == 2));
}
