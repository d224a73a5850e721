//! Run-order designs: which variant runs where, block by block.
//!
//! Every design is a pure function of (variant count, blocks, seed), so a schedule can be
//! printed before running (`--dry-run`) and rebuilt exactly when resuming.

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use rand::seq::SliceRandom;

use crate::rng::block_rng;

/// How runs are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Design {
    /// Two variants: ABBA on even block ids (0-based; blocks 1, 3, ... as printed), BAAB on
    /// odd ones, so carryover cancels within a block and its sign alternates between blocks. More variants: a Williams design
    /// (Williams 1949) whose rows are cycled block by block; over a full cycle every variant
    /// immediately precedes every other equally often (one Latin square for even k, two for
    /// odd k).
    #[default]
    Abba,
    /// A fresh seeded permutation of the variants per block (each variant once per block).
    Random,
    /// All runs of variant 0, then all of variant 1, ... The unpaired baseline design: block
    /// numbers are only repetition indices and the data must be analysed as unpaired.
    Sequential,
}

impl Design {
    /// The analysis model's name for this design.
    pub fn to_model(self) -> bench_stats::Design {
        match self {
            Design::Abba => bench_stats::Design::Abba,
            Design::Random => bench_stats::Design::Random,
            Design::Sequential => bench_stats::Design::Sequential,
        }
    }

    /// The name used on the command line and in raw files (`abba`, `random`, `sequential`).
    pub fn name(self) -> &'static str {
        match self {
            Design::Abba => "abba",
            Design::Random => "random",
            Design::Sequential => "sequential",
        }
    }

    /// Whether observations within one block are comparable (paired analysis allowed).
    pub fn pairing(self) -> Pairing {
        match self {
            Design::Abba | Design::Random => Pairing::Paired,
            Design::Sequential => Pairing::Unpaired,
        }
    }
}

impl fmt::Display for Design {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A design name that is not one of `abba`, `random`, `sequential`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown design {given:?}; expected one of: abba, random, sequential")]
pub struct DesignParseError {
    /// The rejected text.
    pub given: String,
}

impl FromStr for Design {
    type Err = DesignParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "abba" => Ok(Design::Abba),
            "random" => Ok(Design::Random),
            "sequential" => Ok(Design::Sequential),
            _ => Err(DesignParseError {
                given: s.to_owned(),
            }),
        }
    }
}

/// Whether a schedule's blocks pair their observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pairing {
    /// Runs in one block share session state; compare within blocks.
    Paired,
    /// Block numbers are repetition indices only.
    Unpaired,
}

/// Whether a planned run measures a variant or the reference workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Variant number `i` (index into the experiment's variants).
    Variant(usize),
    /// The reference workload (`--reference`).
    Reference,
}

/// One run of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlannedRun {
    /// 0-based index in execution order over the whole experiment.
    pub run_index: u32,
    /// The block (repetition index for the sequential design).
    pub block: u32,
    /// 0-based place inside the block.
    pub position: u32,
    /// What runs.
    pub target: Target,
}

/// The whole run order of an experiment, in execution order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The design that produced it.
    pub design: Design,
    /// Number of variants.
    pub variants: usize,
    /// Number of blocks.
    pub blocks: u32,
    /// The seed it was built from.
    pub seed: u64,
    /// Paired or not (sequential is unpaired).
    pub pairing: Pairing,
    /// Every run in execution order.
    pub runs: Vec<PlannedRun>,
}

/// Whether the schedule includes a reference-workload run per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReferenceRuns {
    /// No reference workload.
    #[default]
    None,
    /// One reference run per block at a seeded random position.
    PerBlock,
}

const SALT_ORDER: u64 = 0x006f_7264_6572;
const SALT_REFERENCE: u64 = 0x0072_6566_6572;

impl Schedule {
    /// Builds the schedule of `design` for `variants` variants and `blocks` blocks.
    ///
    /// Block `b`'s order depends only on (design, variants, seed, b), never on the total
    /// block count, so a resumed or extended experiment continues the same plan.
    /// Time and memory: O(blocks × variants).
    pub fn plan(
        design: Design,
        variants: usize,
        blocks: u32,
        seed: u64,
        reference: ReferenceRuns,
    ) -> Schedule {
        let mut per_block: Vec<Vec<Target>> = (0..blocks)
            .map(|b| {
                block_order(design, variants, seed, b)
                    .into_iter()
                    .map(Target::Variant)
                    .collect()
            })
            .collect();
        if reference == ReferenceRuns::PerBlock {
            for (b, order) in per_block.iter_mut().enumerate() {
                let mut rng = block_rng(seed, b as u32, SALT_REFERENCE);
                let at = rng.random_range(0..=order.len());
                order.insert(at, Target::Reference);
            }
        }
        let mut runs = Vec::new();
        match design.pairing() {
            Pairing::Paired => {
                for (b, order) in per_block.iter().enumerate() {
                    for (p, t) in order.iter().enumerate() {
                        runs.push(PlannedRun {
                            run_index: 0,
                            block: b as u32,
                            position: p as u32,
                            target: *t,
                        });
                    }
                }
            }
            Pairing::Unpaired => {
                // Reference runs first (one per repetition), then each variant's segment.
                let mut segments: Vec<Target> = Vec::new();
                if reference == ReferenceRuns::PerBlock {
                    segments.push(Target::Reference);
                }
                segments.extend((0..variants).map(Target::Variant));
                for t in segments {
                    for (b, order) in per_block.iter().enumerate() {
                        if let Some(p) = order.iter().position(|x| *x == t) {
                            runs.push(PlannedRun {
                                run_index: 0,
                                block: b as u32,
                                position: p as u32,
                                target: t,
                            });
                        }
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
            pairing: design.pairing(),
            runs,
        }
    }

    /// Number of runs in one block (reference run included).
    pub fn runs_per_block(&self) -> usize {
        if self.blocks == 0 {
            0
        } else {
            self.runs.len() / self.blocks as usize
        }
    }

    /// Renders one line per block with the given variant names (`R` names the reference).
    pub fn render(&self, names: &[&str]) -> String {
        let mut out = String::new();
        if self.pairing == Pairing::Unpaired {
            // Sequential runs are one session per variant: show them in run order.
            let mut runs: Vec<&PlannedRun> = self.runs.iter().collect();
            runs.sort_by_key(|r| r.run_index);
            let name = |r: &PlannedRun| match r.target {
                Target::Variant(i) => names
                    .get(i)
                    .map_or_else(|| i.to_string(), |n| (*n).to_owned()),
                Target::Reference => "R".to_owned(),
            };
            let mut i = 0;
            while i < runs.len() {
                let first = name(runs[i]);
                let mut j = i;
                while j < runs.len() && name(runs[j]) == first {
                    j += 1;
                }
                out.push_str(&format!("runs {}-{}: {} x {first}\n", i + 1, j, j - i));
                i = j;
            }
            return out;
        }
        let label = match self.pairing {
            Pairing::Paired => "block",
            Pairing::Unpaired => "repetition",
        };
        let mut by_block: Vec<Vec<&PlannedRun>> = vec![Vec::new(); self.blocks as usize];
        for r in &self.runs {
            if let Some(cell) = by_block.get_mut(r.block as usize) {
                cell.push(r);
            }
        }
        for (b, mut runs) in by_block.into_iter().enumerate() {
            runs.sort_by_key(|r| r.run_index);
            let cells: Vec<String> = runs
                .iter()
                .map(|r| match r.target {
                    Target::Variant(i) => names
                        .get(i)
                        .map_or_else(|| i.to_string(), |n| (*n).to_owned()),
                    Target::Reference => "R".to_owned(),
                })
                .collect();
            let sep = if cells.iter().any(|c| c.contains(char::is_whitespace)) {
                " | "
            } else {
                " "
            };
            // 1-based, as the block tables and every message count blocks.
            out.push_str(&format!("{label} {}: {}\n", b + 1, cells.join(sep)));
        }
        out
    }
}

impl fmt::Display for Schedule {
    /// One line per block, numbered from 1 as the reports count blocks: `block 3: 1 0 0 1`
    /// (variant indices, `R` for the reference);
    /// the sequential design prints its sessions in run order (`runs 1-10: 10 x 0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&[]))
    }
}

/// The variant order of block `b` (without the reference run).
fn block_order(design: Design, k: usize, seed: u64, b: u32) -> Vec<usize> {
    match design {
        Design::Abba if k == 2 => {
            if b % 2 == 0 {
                vec![0, 1, 1, 0]
            } else {
                vec![1, 0, 0, 1]
            }
        }
        Design::Abba => {
            let rows = williams_rows(k);
            if rows.is_empty() {
                Vec::new()
            } else {
                rows[b as usize % rows.len()].clone()
            }
        }
        Design::Random => {
            let mut order: Vec<usize> = (0..k).collect();
            order.shuffle(&mut block_rng(seed, b, SALT_ORDER));
            order
        }
        Design::Sequential => (0..k).collect(),
    }
}

/// The rows of a Williams design for `k` treatments: k rows for even k, 2k for odd k.
///
/// First row 0, 1, k-1, 2, k-2, ...; row i adds i modulo k; odd k appends the mirrored
/// rows. Over all rows each ordered pair (a, b), a ≠ b, is adjacent once (even k) or twice
/// (odd k). Time: O(k²).
pub(crate) fn williams_rows(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return Vec::new();
    }
    let mut first = Vec::with_capacity(k);
    let (mut lo, mut hi) = (0usize, k);
    for j in 0..k {
        if j % 2 == 0 {
            first.push(lo);
            lo += 1;
        } else {
            hi -= 1;
            first.push(hi);
        }
    }
    let mut rows: Vec<Vec<usize>> = (0..k)
        .map(|i| first.iter().map(|&x| (x + i) % k).collect())
        .collect();
    if k % 2 == 1 {
        let mirrored: Vec<Vec<usize>> = rows
            .iter()
            .map(|r| r.iter().rev().copied().collect())
            .collect();
        rows.extend(mirrored);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn variants_of_block(s: &Schedule, b: u32) -> Vec<usize> {
        s.runs
            .iter()
            .filter(|r| r.block == b)
            .filter_map(|r| match r.target {
                Target::Variant(i) => Some(i),
                Target::Reference => None,
            })
            .collect()
    }

    #[test]
    fn abba_then_baab_positions() {
        let s = Schedule::plan(Design::Abba, 2, 4, 7, ReferenceRuns::None);
        assert_eq!(variants_of_block(&s, 0), vec![0, 1, 1, 0]);
        assert_eq!(variants_of_block(&s, 1), vec![1, 0, 0, 1]);
        assert_eq!(variants_of_block(&s, 2), vec![0, 1, 1, 0]);
        assert_eq!(variants_of_block(&s, 3), vec![1, 0, 0, 1]);
        for (i, r) in s.runs.iter().enumerate() {
            assert_eq!(r.run_index as usize, i);
            assert_eq!(r.position as usize, i % 4);
            assert_eq!(r.block as usize, i / 4);
        }
        assert_eq!(
            s.to_string(),
            "block 1: 0 1 1 0\nblock 2: 1 0 0 1\nblock 3: 0 1 1 0\nblock 4: 1 0 0 1\n"
        );
    }

    fn adjacent_pair_counts(rows: &[Vec<usize>]) -> HashMap<(usize, usize), usize> {
        let mut m = HashMap::new();
        for r in rows {
            for w in r.windows(2) {
                *m.entry((w[0], w[1])).or_insert(0) += 1;
            }
        }
        m
    }

    #[test]
    fn williams_balance_for_3_4_5_6_variants() {
        for k in 3..=6 {
            let s = Schedule::plan(
                Design::Abba,
                k,
                williams_rows(k).len() as u32,
                1,
                ReferenceRuns::None,
            );
            let rows: Vec<Vec<usize>> = (0..s.blocks).map(|b| variants_of_block(&s, b)).collect();
            let expected = if k % 2 == 0 { 1 } else { 2 };
            let counts = adjacent_pair_counts(&rows);
            for a in 0..k {
                for b in 0..k {
                    if a != b {
                        assert_eq!(
                            counts.get(&(a, b)).copied().unwrap_or(0),
                            expected,
                            "k={k} pair ({a},{b})"
                        );
                    }
                }
            }
            // Each row is a permutation, and each variant is in each position equally often.
            for row in &rows {
                let mut sorted = row.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..k).collect::<Vec<_>>());
            }
            for p in 0..k {
                let mut col: Vec<usize> = rows.iter().map(|r| r[p]).collect();
                col.sort_unstable();
                col.dedup();
                assert_eq!(col.len(), k);
            }
        }
    }

    #[test]
    fn every_variant_equally_often_per_block() {
        for design in [Design::Abba, Design::Random, Design::Sequential] {
            for k in 2..=5 {
                let s = Schedule::plan(design, k, 9, 42, ReferenceRuns::PerBlock);
                for b in 0..9 {
                    let vs = variants_of_block(&s, b);
                    let per = vs.len() / k;
                    assert!(per >= 1);
                    for v in 0..k {
                        assert_eq!(
                            vs.iter().filter(|&&x| x == v).count(),
                            per,
                            "{design} k={k} block {b}"
                        );
                    }
                    let refs = s
                        .runs
                        .iter()
                        .filter(|r| r.block == b && r.target == Target::Reference)
                        .count();
                    assert_eq!(refs, 1);
                }
            }
        }
    }

    #[test]
    fn same_seed_same_schedule_different_seed_differs() {
        let a = Schedule::plan(Design::Random, 4, 20, 5, ReferenceRuns::PerBlock);
        let b = Schedule::plan(Design::Random, 4, 20, 5, ReferenceRuns::PerBlock);
        let c = Schedule::plan(Design::Random, 4, 20, 6, ReferenceRuns::PerBlock);
        assert_eq!(a, b);
        assert_ne!(a.runs, c.runs);
    }

    #[test]
    fn block_order_does_not_depend_on_total_blocks() {
        let short = Schedule::plan(Design::Random, 3, 4, 9, ReferenceRuns::PerBlock);
        let long = Schedule::plan(Design::Random, 3, 10, 9, ReferenceRuns::PerBlock);
        assert_eq!(short.runs[..], long.runs[..short.runs.len()]);
    }

    #[test]
    fn sequential_is_unpaired_and_runs_variant_by_variant() {
        let s = Schedule::plan(Design::Sequential, 2, 3, 0, ReferenceRuns::None);
        assert_eq!(s.pairing, Pairing::Unpaired);
        let order: Vec<Target> = s.runs.iter().map(|r| r.target).collect();
        assert_eq!(
            order,
            vec![
                Target::Variant(0),
                Target::Variant(0),
                Target::Variant(0),
                Target::Variant(1),
                Target::Variant(1),
                Target::Variant(1)
            ]
        );
        assert_eq!(
            s.runs.iter().map(|r| r.block).collect::<Vec<_>>(),
            vec![0, 1, 2, 0, 1, 2]
        );
        assert_eq!(s.to_string(), "runs 1-3: 3 x 0\nruns 4-6: 3 x 1\n");
    }

    #[test]
    fn design_parse_lists_options() {
        assert_eq!("random".parse::<Design>(), Ok(Design::Random));
        let e = "abab".parse::<Design>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown design \"abab\"; expected one of: abba, random, sequential"
        );
    }
}
