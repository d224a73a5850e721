//! Simulation calibration of abba's paired verdicts (probe 2).

mod sim;

use std::time::Instant;

use bench_stats::{
    BootstrapConfig, IntervalMethod, PairedEstimator, Sample, block_bootstrap, mann_whitney_u,
};
use sim::{Design, Experiment, SimConfig, simulate, values};

const SIZES: [usize; 4] = [8, 12, 20, 30];
const ESTIMATORS: [PairedEstimator; 3] = [
    PairedEstimator::MeanDifference,
    PairedEstimator::RatioOfMeans,
    PairedEstimator::MedianLogRatio,
];
const METHODS: [IntervalMethod; 3] = [
    IntervalMethod::Percentile,
    IntervalMethod::Bca,
    IntervalMethod::Studentized,
];

fn prefix(e: &Experiment, n: usize) -> (Sample, Sample) {
    let a: Vec<f64> = e.block_means[..n].iter().map(|x| x[0]).collect();
    let b: Vec<f64> = e.block_means[..n].iter().map(|x| x[1]).collect();
    (Sample::new(&a).unwrap(), Sample::new(&b).unwrap())
}

#[test]
fn probe() {
    let cfg = SimConfig::default();
    let r: u64 = std::env::var("R")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let bc = |m| BootstrapConfig {
        resamples: 1000,
        method: m,
        ..BootstrapConfig::default()
    };
    for est in [PairedEstimator::MedianLogRatio] {
        for m in [IntervalMethod::Percentile] {
            let t0 = Instant::now();
            let mut fp = [0; 4];
            let mut pw = [0; 4];
            let mut cov = [0; 4];
            for s in 0..r {
                let null = simulate(&cfg, Design::Abba, 30, 10_000 + s);
                let eff = simulate(
                    &cfg.with_effect(1.02),
                    Design::Abba,
                    30,
                    std::env::var("OFF")
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(20_000u64)
                        + s,
                );
                for (k, &n) in SIZES.iter().enumerate() {
                    let (a, b) = prefix(&null, n);
                    let ci = block_bootstrap(&a, &b, est, &bc(m)).unwrap();
                    let nv = est.null_value();
                    if ci.low > nv || ci.high < nv {
                        fp[k] += 1;
                    }
                    let (a, b) = prefix(&eff, n);
                    let ci = block_bootstrap(&a, &b, est, &bc(m)).unwrap();
                    if ci.low > nv {
                        pw[k] += 1;
                    }
                    let truth = if est == PairedEstimator::MeanDifference {
                        eff.block_truth[..n].iter().sum::<f64>() / n as f64
                    } else {
                        1.02
                    };
                    if ci.contains(truth) {
                        cov[k] += 1;
                    }
                }
            }
            let f = |x: [u32; 4]| x.map(|v| format!("{:.3}", v as f64 / r as f64)).join(" ");
            println!(
                "{:>16} {:>11} fpr {} cov {} pow {}  {:?}",
                est.as_str(),
                m.as_str(),
                f(fp),
                f(cov),
                f(pw),
                t0.elapsed()
            );
        }
    }
    let mut fp = [0; 4];
    let mut pw = [0; 4];
    for s in 0..r {
        let null = simulate(&cfg, Design::Sequential, 30, 30_000 + s);
        let eff = simulate(&cfg.with_effect(1.02), Design::Sequential, 30, 40_000 + s);
        for (k, &n) in SIZES.iter().enumerate() {
            for (e, c) in [(&null, &mut fp), (&eff, &mut pw)] {
                let a: Vec<f64> = values(e, 0)[..2 * n].to_vec();
                let b: Vec<f64> = values(e, 1)[..2 * n].to_vec();
                let mw =
                    mann_whitney_u(&Sample::new(&a).unwrap(), &Sample::new(&b).unwrap()).unwrap();
                if mw.p_value < 0.05 {
                    c[k] += 1;
                }
            }
        }
    }
    let f = |x: [u32; 4]| x.map(|v| format!("{:.3}", v as f64 / r as f64)).join(" ");
    println!("seq mwu fpr {} pow(two-sided) {}", f(fp), f(pw));
}
