mod sim;
use bench_stats::sequential::*;
use sim::{Design, SimConfig, simulate};

fn quiet() -> SimConfig {
    SimConfig { sigma_b: 0.01, sigma_w: 0.005, burst_start: 0.01, burst_len: (1, 2), burst_extra: (0.02, 0.05), spike_prob: 0.002, spike_extra: (0.1, 0.3), carryover: 0.0, ..SimConfig::default() }
}

fn mins(e: &sim::Experiment) -> Vec<[f64;2]> {
    let n = e.block_means.len();
    let mut out = vec![[f64::INFINITY; 2]; n];
    for &(v, b, _, x) in &e.runs { let m = &mut out[b as usize][v]; if x < *m { *m = x } }
    out
}
#[test]
fn explore() {
    let profiles = [("quiet", quiet()), ("shared-vm", SimConfig::shared_vm()), ("default", SimConfig::default())];
    for (name, cfg) in profiles {
        for method in [SequenceMethod::SignMedian, SequenceMethod::AsymptoticMean] {
          for prior_uniform in [false] {
            for effect in [1.0, 1.02, 1.1] {
                let reps = 200;
                let mut fp = 0; let mut eq = 0; let mut right = 0; let mut blocks = vec![]; let mut within60 = 0;
                for seed in 0..reps {
                    let e = simulate(&cfg.with_effect(effect), Design::Abba, 500, seed);
                    let logs = if std::env::var("MINS").is_ok() { block_log_ratios(&mins(&e)).unwrap() } else { block_log_ratios(&e.block_means).unwrap() };
                    let rule = SequentialRule { max_blocks: 500, method, ..SequentialRule::default() };
                    let _ = prior_uniform;
                    let r = replay(&logs, &rule);
                    match r.first_decision {
                        Some(i) => {
                            let l = r.looks[i];
                            blocks.push(l.blocks);
                            match l.decision {
                                LookDecision::Equivalent => eq += 1,
                                LookDecision::Larger if effect > 1.0 => { right += 1; if l.blocks <= 60 { within60 += 1 } }
                                _ => fp += 1,
                            }
                        }
                        None => blocks.push(501),
                    }
                }
                blocks.sort();
                println!("{name:10} {:16} effect {effect}: wrong {fp} eq {eq} right {right} within60 {within60} median blocks {} of {reps}", method.as_str(), blocks[blocks.len()/2]);
            }
          }
        }
    }
    // spread of log ratios
    for (name, cfg) in profiles {
        let e = simulate(&cfg, Design::Abba, 2000, 9);
        let mut logs = if std::env::var("MINS").is_ok() { block_log_ratios(&mins(&e)).unwrap() } else { block_log_ratios(&e.block_means).unwrap() };
        let n = logs.len() as f64; let m = logs.iter().sum::<f64>()/n;
        let sd = (logs.iter().map(|x| (x-m)*(x-m)).sum::<f64>()/(n-1.0)).sqrt();
        logs.sort_by(|a,b| a.partial_cmp(b).unwrap());
        let iqr = logs[(0.75*n) as usize]-logs[(0.25*n) as usize];
        println!("{name}: sd {sd:.4} robust sd {:.4}", iqr/1.349);
    }
}
