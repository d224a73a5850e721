//! A suite: many benchmarks, each with its own variants (a base build and candidates),
//! measured in one interleaved experiment.
//!
//! Every block runs every benchmark's variants in that benchmark's counterbalanced order
//! (ABBA on even blocks and BAAB on odd ones for two variants, a Williams row for more, or a
//! fresh permutation with the random design), and the benchmarks themselves in a fresh
//! seeded order per block. So a drift of the machine (a tenant arriving, the frequency
//! falling) cannot line up with one benchmark: it reaches every benchmark at a different
//! place in every block, and the pairing inside each benchmark's runs cancels what the two
//! builds shared. Block `b`'s order depends only on (suite, design, seed, b), so a resumed
//! or extended suite continues the same plan.

use rand::seq::SliceRandom;

use crate::design::{Design, Pairing, PlannedRun, Schedule, Target, block_order};
use crate::rng::block_rng;

/// The salt of the benchmarks' order in a block.
const SALT_SUITE: u64 = 0x0073_7569_7465;

/// How an experiment's variants group into benchmarks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// The benchmarks, in the suite file's order.
    pub benchmarks: Vec<SuiteBenchmark>,
}

/// One benchmark of a [`Suite`]: its name and its variants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteBenchmark {
    /// The benchmark's name (unique in the suite).
    pub name: String,
    /// Indices into the experiment's variants; the first is this benchmark's baseline.
    pub variants: Vec<usize>,
}

impl Suite {
    /// The benchmark variant `i` belongs to, if any.
    pub fn benchmark_of(&self, i: usize) -> Option<&str> {
        self.benchmarks
            .iter()
            .find(|b| b.variants.contains(&i))
            .map(|b| b.name.as_str())
    }

    /// The suite that per-variant benchmark names describe (`None` when no variant has
    /// one): consecutive or not, variants of one name form one benchmark, in order of first
    /// appearance.
    pub fn from_names<'a>(names: impl IntoIterator<Item = Option<&'a str>>) -> Option<Suite> {
        let mut benchmarks: Vec<SuiteBenchmark> = Vec::new();
        let mut any = false;
        for (i, name) in names.into_iter().enumerate() {
            let Some(name) = name else { continue };
            any = true;
            match benchmarks.iter_mut().find(|b| b.name == name) {
                Some(b) => b.variants.push(i),
                None => benchmarks.push(SuiteBenchmark {
                    name: name.to_owned(),
                    variants: vec![i],
                }),
            }
        }
        any.then_some(Suite { benchmarks })
    }

    /// The schedule of this suite: `blocks` blocks of `cycles` cycles, each block running
    /// the benchmarks in a seeded order and each benchmark's variants in `design`'s order
    /// for its variant count. The sequential design has no blocks to interleave in and is
    /// planned as blocked ABBA. Time and memory: O(blocks × cycles × variants).
    pub fn schedule(
        &self,
        design: Design,
        variants: usize,
        blocks: u32,
        cycles: u32,
        seed: u64,
    ) -> Schedule {
        let design = match design {
            Design::Sequential => Design::Abba,
            other => other,
        };
        let cycles = cycles.max(1);
        let mut runs = Vec::new();
        for b in 0..blocks {
            let mut position = 0u32;
            for c in 0..cycles {
                let mut order: Vec<usize> = (0..self.benchmarks.len()).collect();
                let unit = b.saturating_mul(cycles).saturating_add(c);
                order.shuffle(&mut block_rng(seed, unit, SALT_SUITE));
                for k in order {
                    let bench = &self.benchmarks[k];
                    let unit = match design {
                        Design::Random => unit,
                        _ => b,
                    };
                    // Each benchmark draws its own random orders.
                    let own_seed = seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    for v in block_order(design, bench.variants.len(), own_seed, unit) {
                        runs.push(PlannedRun {
                            run_index: 0,
                            block: b,
                            position,
                            target: Target::Variant(bench.variants[v]),
                            beside: None,
                        });
                        position += 1;
                    }
                }
            }
        }
        for (i, r) in runs.iter_mut().enumerate() {
            r.run_index = i as u32;
        }
        Schedule {
            design,
            variants,
            blocks,
            seed,
            cycles,
            pairing: Pairing::Paired,
            runs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(sizes: &[usize]) -> Suite {
        let mut next = 0;
        Suite {
            benchmarks: sizes
                .iter()
                .enumerate()
                .map(|(k, &n)| {
                    let variants = (next..next + n).collect();
                    next += n;
                    SuiteBenchmark {
                        name: format!("b{k}"),
                        variants,
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn every_block_holds_every_benchmark_counterbalanced_in_a_fresh_order() {
        let s = suite(&[2, 2, 2, 2]);
        let plan = s.schedule(Design::Abba, 8, 20, 1, 7);
        assert_eq!(plan.runs.len(), 20 * 16);
        let mut first_benchmark = std::collections::BTreeSet::new();
        for b in 0..20u32 {
            let block: Vec<usize> = plan
                .runs
                .iter()
                .filter(|r| r.block == b)
                .map(|r| match r.target {
                    Target::Variant(i) => i,
                    Target::Reference => unreachable!(),
                })
                .collect();
            assert_eq!(block.len(), 16);
            for (k, bench) in s.benchmarks.iter().enumerate() {
                let own: Vec<usize> = block
                    .iter()
                    .filter(|i| bench.variants.contains(i))
                    .map(|&i| i - 2 * k)
                    .collect();
                let expected = if b % 2 == 0 {
                    [0, 1, 1, 0]
                } else {
                    [1, 0, 0, 1]
                };
                assert_eq!(own, expected, "benchmark {k} in block {b}");
                // The benchmark's four runs are contiguous.
                let at: Vec<usize> = block
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| bench.variants.contains(i))
                    .map(|(p, _)| p)
                    .collect();
                assert_eq!(at[3] - at[0], 3);
            }
            first_benchmark.insert(block[0] / 2);
        }
        // The order of benchmarks changes between blocks.
        assert!(first_benchmark.len() > 1);
    }

    #[test]
    fn a_block_does_not_depend_on_the_block_count() {
        let s = suite(&[2, 3, 2]);
        let short = s.schedule(Design::Abba, 7, 5, 2, 3);
        let long = s.schedule(Design::Abba, 7, 9, 2, 3);
        let n = short.runs.len();
        assert_eq!(short.runs[..], long.runs[..n]);
        assert_eq!(short.runs_per_block(), 2 * (4 + 3 + 4));
    }

    #[test]
    fn names_group_into_benchmarks_in_order_of_appearance() {
        let s = Suite::from_names([Some("x"), Some("x"), Some("y"), Some("y")]).unwrap();
        assert_eq!(s.benchmarks.len(), 2);
        assert_eq!(s.benchmarks[1].variants, vec![2, 3]);
        assert_eq!(s.benchmark_of(2), Some("y"));
        assert!(Suite::from_names([None, None]).is_none());
    }
}
