//! The reference workload by simulation: how the ratio of ratios' upward bias grows with
//! the reference's own error (the `CV_r² / n` law of `paired::reference`), and whether a
//! reference measured beside every run helps when the machine goes through slow load
//! phases (a busy neighbour that changes every few seconds).
//!
//! The machine here is simpler than `sim/` on purpose, so each effect is visible alone:
//! runs follow each other back to back through one session; each run is a level `L(t)`
//! times lognormal noise (`sigma` for the variants, `sigma_ref` for the reference). `L(t)`
//! is 1 (quiet) or follows load phases: a phase lasts a uniform number of runs and holds
//! one of four levels (0-3 busy neighbour threads on 2 vCPUs: x1.00, x1.05, x1.35, x1.70).
//! The designs are the ones `bench-sched` plans: ABBA without a reference, ABBA with one
//! reference per block at a seeded place (older files), and the reference beside every run
//! (`R A B R R B A R`, `R B A R R A B R`).
//!
//! Run with `cargo test -p bench-lab --test grid reference_sim:: -- --nocapture` to see the
//! tables. Every assertion allows for Monte Carlo error.

use bench_stats::Sample;
use bench_stats::paired::ratio_of_ratios_beside;
use bench_stats::rank::paired_hodges_lehmann;
use bench_stats::resample::BootstrapConfig;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Noise of one simulated machine.
#[derive(Clone, Copy)]
struct Machine {
    /// Log-SD of a variant run's noise.
    sigma: f64,
    /// Log-SD of a reference run's own noise.
    sigma_ref: f64,
    /// Shortest and longest load phase, in runs; `None`: a constant level.
    phases: Option<(u32, u32)>,
}

const LEVELS: [f64; 4] = [1.0, 1.05, 1.35, 1.70];

/// How a block places the reference.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    None,
    OncePerBlock,
    Beside,
    /// All of A then all of B (2 runs of each per "block"), no reference.
    Sequential,
    /// The same with a reference beside every run, as `bench-sched` plans it.
    SequentialBeside,
}

/// One block's values: the variants' block means and the references' means beside each
/// (both the single reference once per block; 0 without a reference).
#[derive(Clone, Copy, Default)]
struct Block {
    b: f64,
    c: f64,
    rb: f64,
    rc: f64,
}

fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The level process of one session.
struct Level {
    value: f64,
    left: u32,
}

impl Level {
    fn next(&mut self, m: &Machine, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let Some((lo, hi)) = m.phases else {
            return 1.0;
        };
        if self.left == 0 {
            self.value = LEVELS[rng.random_range(0..LEVELS.len())];
            self.left = rng.random_range(lo..=hi);
        }
        self.left -= 1;
        self.value
    }
}

/// The run order of block `k`: `Some(v)` a variant, `None` a reference beside variant
/// `beside` (the `usize` of the pair).
fn order(layout: Layout, k: u32, rng: &mut Xoshiro256PlusPlus) -> Vec<(Option<usize>, usize)> {
    let abba: [usize; 4] = if k % 2 == 0 {
        [0, 1, 1, 0]
    } else {
        [1, 0, 0, 1]
    };
    let mut out: Vec<(Option<usize>, usize)> = Vec::new();
    match layout {
        Layout::None | Layout::Sequential => out.extend(abba.iter().map(|&v| (Some(v), v))),
        Layout::OncePerBlock => {
            out.extend(abba.iter().map(|&v| (Some(v), v)));
            let at = rng.random_range(0..=4);
            out.insert(at, (None, 2));
        }
        Layout::Beside | Layout::SequentialBeside => {
            for (slot, &v) in abba.iter().enumerate() {
                if slot % 2 == 0 {
                    out.extend([(None, v), (Some(v), v)]);
                } else {
                    out.extend([(Some(v), v), (None, v)]);
                }
            }
        }
    }
    out
}

/// One session of `blocks` back-to-back blocks; the candidate is `effect` times slower.
fn session(m: &Machine, layout: Layout, blocks: u32, effect: f64, seed: u64) -> Vec<Block> {
    if matches!(layout, Layout::Sequential | Layout::SequentialBeside) {
        return sequential(m, layout == Layout::SequentialBeside, blocks, effect, seed);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut level = Level {
        value: 1.0,
        left: 0,
    };
    (0..blocks)
        .map(|k| {
            let mut sums = [[0.0f64; 2]; 3]; // [variant 0, variant 1, refs by beside][sum, n]
            let mut refs = [[0.0f64; 2]; 3];
            for (target, beside) in order(layout, k, &mut rng) {
                let l = level.next(m, &mut rng);
                match target {
                    Some(v) => {
                        let e = if v == 1 { effect } else { 1.0 };
                        sums[v][0] += 100.0 * e * l * (m.sigma * normal(&mut rng)).exp();
                        sums[v][1] += 1.0;
                    }
                    None => {
                        refs[beside][0] += 50.0 * l * (m.sigma_ref * normal(&mut rng)).exp();
                        refs[beside][1] += 1.0;
                    }
                }
            }
            let avg = |x: [f64; 2]| if x[1] > 0.0 { x[0] / x[1] } else { 0.0 };
            let (rb, rc) = match layout {
                Layout::Beside => (avg(refs[0]), avg(refs[1])),
                _ => (avg(refs[2]), avg(refs[2])),
            };
            Block {
                b: avg(sums[0]),
                c: avg(sums[1]),
                rb,
                rc,
            }
        })
        .collect()
}

/// Sequential sessions: A's `2 blocks` runs, then B's, in one back-to-back stream (the
/// level process runs on), each run with its reference before or after it (alternating)
/// when `beside`. "Block" `k` pairs A's `k`-th two runs with B's.
fn sequential(m: &Machine, beside: bool, blocks: u32, effect: f64, seed: u64) -> Vec<Block> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut level = Level {
        value: 1.0,
        left: 0,
    };
    let mut segment = |e: f64, rng: &mut Xoshiro256PlusPlus| -> Vec<[f64; 2]> {
        (0..blocks)
            .map(|_| {
                let mut v = [0.0f64; 2]; // [variant, reference] sums over 2 runs
                for slot in 0..2 {
                    let mut run = |r: bool, rng: &mut Xoshiro256PlusPlus| {
                        let l = level.next(m, rng);
                        if r {
                            v[1] += 50.0 * l * (m.sigma_ref * normal(rng)).exp() / 2.0;
                        } else {
                            v[0] += 100.0 * e * l * (m.sigma * normal(rng)).exp() / 2.0;
                        }
                    };
                    let pair = if slot % 2 == 0 {
                        [true, false]
                    } else {
                        [false, true]
                    };
                    for r in pair.into_iter().filter(|&r| beside || !r) {
                        run(r, rng);
                    }
                }
                v
            })
            .collect()
    };
    let a = segment(1.0, &mut rng);
    let b = segment(effect, &mut rng);
    a.iter()
        .zip(&b)
        .map(|(a, b)| Block {
            b: a[0],
            c: b[0],
            rb: if beside { a[1] } else { 1.0 },
            rc: if beside { b[1] } else { 1.0 },
        })
        .collect()
}

/// `mean(c / rc) / mean(b / rb)` (the library's estimate, checked against it below).
fn ror(blocks: &[Block]) -> f64 {
    let u: f64 = blocks.iter().map(|x| x.c / x.rc).sum();
    let v: f64 = blocks.iter().map(|x| x.b / x.rb).sum();
    u / v
}

/// `mean(c) / mean(b)`: the plain ratio of block means.
fn plain(blocks: &[Block]) -> f64 {
    let u: f64 = blocks.iter().map(|x| x.c).sum();
    let v: f64 = blocks.iter().map(|x| x.b).sum();
    u / v
}

/// exp(HL of the per-block log ratios) (abba's default estimator), optionally of the
/// ratios of ratios.
fn hl(blocks: &[Block], with_reference: bool) -> f64 {
    let d: Vec<f64> = blocks
        .iter()
        .map(|x| {
            let r = if with_reference { x.rb / x.rc } else { 1.0 };
            (x.c / x.b * r).ln()
        })
        .collect();
    paired_hodges_lehmann(&d, 0.95).map_or(f64::NAN, |s| s.estimate.exp())
}

/// Mean and SD of `values`.
fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let m = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, var.sqrt())
}

#[test]
fn simulated_estimate_is_the_library_estimate() {
    let m = Machine {
        sigma: 0.02,
        sigma_ref: 0.05,
        phases: Some((20, 80)),
    };
    let blocks = session(&m, Layout::Beside, 12, 1.02, 7);
    let col = |f: fn(&Block) -> f64| Sample::from_vec(blocks.iter().map(f).collect()).unwrap();
    let lib = ratio_of_ratios_beside(
        &col(|x| x.b),
        &col(|x| x.c),
        &col(|x| x.rb),
        &col(|x| x.rc),
        &BootstrapConfig::default(),
    )
    .unwrap();
    assert!((lib.estimate - ror(&blocks)).abs() < 1e-12);
}

/// The upward bias of the ratio of ratios against the reference's own error, at 8 blocks
/// on a quiet machine with nearly noiseless variants, so the reference is the only source.
#[test]
fn ratio_of_ratios_bias_grows_with_the_reference_error_as_cv2_over_n() {
    const N: u32 = 8;
    const SESSIONS: u64 = 20_000;
    println!(
        "\nratio of ratios, A/A, {N} blocks, {SESSIONS} sessions: upward bias vs the reference's own noise"
    );
    println!(
        "ref sigma | CV of a block's ref | estimate bias (MC SE) | CV²/n | block-ratio bias | CV² | own CV read"
    );
    let mut biases = Vec::new();
    for sigma_ref in [0.01, 0.05, 0.10, 0.20, 0.30] {
        let m = Machine {
            sigma: 0.002,
            sigma_ref,
            phases: None,
        };
        let mut est = Vec::new();
        let mut block_ratio = Vec::new();
        let mut own = Vec::new();
        for s in 0..SESSIONS {
            let blocks = session(&m, Layout::Beside, N, 1.0, 1_000_000 + s);
            est.push(ror(&blocks));
            block_ratio.extend(blocks.iter().map(|x| (x.c / x.rc) / (x.b / x.rb)));
            let d: Vec<f64> = blocks.iter().map(|x| (x.rc / x.rb).ln()).collect();
            own.push(mean_sd(&d).1 / 2f64.sqrt());
        }
        // A block's reference is the mean of 2 lognormal runs.
        let cv2 = ((sigma_ref * sigma_ref).exp() - 1.0) / 2.0;
        let (e_mean, e_sd) = mean_sd(&est);
        let se = e_sd / (SESSIONS as f64).sqrt();
        let (q_mean, _) = mean_sd(&block_ratio);
        let own_mean = own.iter().sum::<f64>() / own.len() as f64;
        println!(
            "{sigma_ref:>9.2} | {:>19.4} | {:>+12.5} ({se:.5}) | {:>5.5} | {:>+16.5} | {:.5} | {own_mean:.4}",
            cv2.sqrt(),
            e_mean - 1.0,
            cv2 / f64::from(N),
            q_mean - 1.0,
            cv2
        );
        biases.push((e_mean - 1.0, se, cv2));
    }
    // Upward and growing with the reference's error.
    let (small, big) = (biases[0], biases[4]);
    assert!(
        big.0 - small.0 > 4.0 * (big.1 * big.1 + small.1 * small.1).sqrt(),
        "{biases:?}"
    );
    for &(bias, se, cv2) in &biases[2..] {
        let predicted = cv2 / f64::from(N);
        assert!(bias > 0.0, "{biases:?}");
        // The second-order law holds within Monte Carlo error plus 35 % (higher orders).
        assert!(
            (bias - predicted).abs() < 4.0 * se + 0.35 * predicted,
            "bias {bias} vs CV²/n {predicted} (se {se})"
        );
    }
}

struct Row {
    name: &'static str,
    runs: u32,
    sd: f64,
    bias: f64,
}

/// SD (over sessions) and bias of ln(estimate) for each design and estimator on `m`.
fn spread_table(m: &Machine, blocks: u32, sessions: u64, seed: u64) -> Vec<Row> {
    type Est = fn(&[Block]) -> f64;
    let cases: [(&'static str, Layout, u32, Est); 9] = [
        ("B/A means, no reference", Layout::None, blocks, plain),
        (
            "B/A means, no ref, same runs",
            Layout::None,
            2 * blocks,
            plain,
        ),
        ("HL log B/A (default), no ref", Layout::None, blocks, |b| {
            hl(b, false)
        }),
        (
            "HL log B/A, no ref, same runs",
            Layout::None,
            2 * blocks,
            |b| hl(b, false),
        ),
        ("once per block (old)", Layout::OncePerBlock, blocks, ror),
        ("ratio of ratios, beside", Layout::Beside, blocks, ror),
        (
            "HL log ratio of ratios, beside",
            Layout::Beside,
            blocks,
            |b| hl(b, true),
        ),
        (
            "sequential B/A means, no ref",
            Layout::Sequential,
            blocks,
            plain,
        ),
        (
            "sequential ratio of ratios",
            Layout::SequentialBeside,
            blocks,
            ror,
        ),
    ];
    cases
        .iter()
        .map(|&(name, layout, n, f)| {
            let logs: Vec<f64> = (0..sessions)
                .map(|s| f(&session(m, layout, n, 1.0, seed + s)).ln())
                .collect();
            let (bias, sd) = mean_sd(&logs);
            let per_block = match layout {
                Layout::None | Layout::Sequential => 4,
                Layout::OncePerBlock => 5,
                Layout::Beside | Layout::SequentialBeside => 8,
            };
            Row {
                name,
                runs: n * per_block,
                sd,
                bias,
            }
        })
        .collect()
}

fn print_table(title: &str, rows: &[Row]) {
    println!("\n{title}");
    println!(
        "{:<32} | runs | SD of ln(estimate) | mean ln(estimate)",
        "estimator"
    );
    for r in rows {
        println!(
            "{:<32} | {:>4} | {:>18.4} | {:>+17.5}",
            r.name, r.runs, r.sd, r.bias
        );
    }
}

fn sd_of(rows: &[Row], name: &str) -> f64 {
    rows.iter()
        .find(|r| r.name == name)
        .map_or(f64::NAN, |r| r.sd)
}

/// Slow load phases (20-80 runs, 1-4 s of a 50 ms command) against a quiet machine and
/// fast phases (2-6 runs), 15 blocks, A/A. The reference helps where the level moves
/// between a variant's runs and the other's inside a block and costs where it does not.
#[test]
fn reference_beside_each_run_against_load_phases() {
    const BLOCKS: u32 = 15;
    const SESSIONS: u64 = 1_500;
    // The relative SE of an SD over R sessions is ~ 1 / sqrt(2R) (~1.8 % here, more with
    // heavy tails); a ratio of two such SDs is asserted beyond 5 of its SEs.
    let margin = 5.0 * (2.0 / (2.0 * SESSIONS as f64)).sqrt();
    let quiet = Machine {
        sigma: 0.02,
        sigma_ref: 0.02,
        phases: None,
    };
    let slow = Machine {
        phases: Some((20, 80)),
        ..quiet
    };
    let fast = Machine {
        phases: Some((2, 6)),
        ..quiet
    };
    let q = spread_table(&quiet, BLOCKS, SESSIONS, 5_000_000);
    print_table("quiet machine (2% run noise), 15 blocks, A/A", &q);
    let s = spread_table(&slow, BLOCKS, SESSIONS, 6_000_000);
    print_table(
        "slow load phases (20-80 runs at x1.00/1.05/1.35/1.70), 15 blocks, A/A",
        &s,
    );
    let f = spread_table(&fast, BLOCKS, SESSIONS, 7_000_000);
    print_table("fast load phases (2-6 runs), 15 blocks, A/A", &f);

    let beside = "ratio of ratios, beside";
    let plain_same_blocks = "B/A means, no reference";
    let plain_same_runs = "B/A means, no ref, same runs";
    // Quiet: the reference only adds its own noise (about sqrt(2) more spread).
    assert!(sd_of(&q, beside) / sd_of(&q, plain_same_blocks) > 1.0 + margin);
    // The old once-per-block reference leaves the spread of the plain ratio (it cancels).
    let old = sd_of(&q, "once per block (old)") / sd_of(&q, plain_same_blocks);
    assert!((old - 1.0).abs() < margin, "{old}");
    // Slow and fast phases under ABBA: the reference beside each run does not help. ABBA
    // already cancels a level that holds over the block, and a phase change inside a block
    // separates a variant from the reference next to it as often as it separates A from B;
    // the reference's own noise comes on top. Worse than the plain ratio at the same runs,
    // and its robust (HL) form worse than the default at the same blocks.
    for t in [&s, &f] {
        let ratio = sd_of(t, beside) / sd_of(t, plain_same_runs);
        assert!(
            ratio > 1.0 + margin,
            "{beside} / {plain_same_runs} = {ratio}"
        );
        let robust =
            sd_of(t, "HL log ratio of ratios, beside") / sd_of(t, "HL log B/A (default), no ref");
        assert!(robust > 1.0 + margin, "HL: {robust}");
    }
    // What the reference is for: runs that are not interleaved. Sequential sessions under
    // slow phases are rescued by a reference beside every run (at least halved spread).
    let seq = sd_of(&s, "sequential ratio of ratios") / sd_of(&s, "sequential B/A means, no ref");
    assert!(seq < 0.5, "sequential under slow phases: {seq}");
}
