//! Run-order designs: which variant runs where, block by block.
//!
//! Every design is a pure function of (variant count, blocks, seed), so a schedule can be
//! printed before running (`--dry-run`) and rebuilt exactly when resuming.
//!
//! # Where the reference workload runs
//! With `--reference`, every variant run gets its own reference run right beside it
//! ([`ReferenceRuns::BesideEachRun`]): slot `s` of the block's variant order becomes the
//! pair `R X` or `X R`. The ratio of ratios then divides each variant by a reference that
//! saw the same moment of the session, so a load phase that starts or ends inside a block
//! moves a variant and its reference together. The placement keeps order effects balanced:
//!
//! - **ABBA, two variants**: the reference goes before the variant in even slots and after
//!   it in odd ones, so block `A B B A` runs `R A B R R B A R` and block `B A A B` runs
//!   `R B A R R A B R`. In every block each variant has one reference just before one of its
//!   runs and one just after the other: a reference run's own carryover (the run after a
//!   reference, or the reference after a variant) reaches both variants equally. The mean
//!   time of each variant's runs equals that of its references (A at 1 and 6, its
//!   references at 0 and 7; B at 2 and 5, its references at 3 and 4), so a linear drift
//!   cancels inside the block. Each variant follows the other once and a reference once,
//!   so the ABBA carryover contrast keeps its meaning (with "after a reference" as the
//!   comparison instead of "first in the block").
//! - **Williams and random orders (3+ variants)**: a block holds each variant once, so the
//!   before/after choice cannot balance inside one block. It alternates by slot, and the
//!   whole pattern flips every full cycle of block orders (`(slot + cycle) % 2`), so over
//!   two cycles every variant sits in every slot once with its reference before and once
//!   with it after.
//! - **Sequential**: each variant's session carries its own reference pairs, in the same
//!   order as above, so each variant is normalised by a reference from its own session.
//!
//! The cost is one reference run per variant run: the experiment takes about twice as
//! long. Files written before this placement ran one reference per block at a seeded
//! random place ([`ReferenceRuns::PerBlock`]); they are still read and analysed that way.

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
    /// For a reference run placed beside a variant run ([`ReferenceRuns::BesideEachRun`]),
    /// that variant; `None` for variant runs and for the once-per-block reference.
    pub beside: Option<usize>,
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
    /// Cycles of the design's order inside each block (1: one ABBA per block; see
    /// [`Schedule::plan_cycles`]).
    pub cycles: u32,
    /// Paired or not (sequential is unpaired).
    pub pairing: Pairing,
    /// Every run in execution order.
    pub runs: Vec<PlannedRun>,
}

/// Whether and where the schedule runs a reference workload (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReferenceRuns {
    /// No reference workload.
    #[default]
    None,
    /// One reference run per block at a seeded random position: the placement of raw files
    /// written before [`ReferenceRuns::BesideEachRun`], kept to read them.
    PerBlock,
    /// One reference run right before or after every variant run (what `--reference`
    /// plans now).
    BesideEachRun,
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
        Schedule::plan_cycles(design, variants, blocks, 1, seed, reference)
    }

    /// [`Schedule::plan`] with `cycles` cycles of the design's order in every block
    /// (`--runs-per-block`): block `b` repeats the one-cycle plan's block `b` `cycles`
    /// times (a random design draws a fresh order for each cycle). Two variants in ABBA
    /// with 2 cycles run `A B B A A B B A`, then `B A A B B A A B`: which variant opens a
    /// block still alternates, so a slow or fast first run of a block (after a settle
    /// pause, warm-ups or hooks) falls on each variant equally often, and each cycle keeps
    /// the balance properties above. (Running the one-cycle plan's blocks `2b` and `2b + 1`
    /// as one block instead would open every block with `A`: what that does to the false
    /// positives and coverage on simulated noise is the runs-per-block table of
    /// `docs/estimator-grid.md`, `cargo xtask estimator-grid --runs-per-block`.) `cycles`
    /// below 1 counts as 1.
    /// Time and memory: O(blocks × cycles × variants).
    pub fn plan_cycles(
        design: Design,
        variants: usize,
        blocks: u32,
        cycles: u32,
        seed: u64,
        reference: ReferenceRuns,
    ) -> Schedule {
        let cycles = cycles.max(1);
        let per_block: Vec<Vec<(Target, Option<usize>)>> = (0..blocks)
            .map(|b| {
                (0..cycles)
                    .flat_map(|c| {
                        let unit = match design {
                            Design::Random => b.saturating_mul(cycles).saturating_add(c),
                            Design::Abba | Design::Sequential => b,
                        };
                        block_with_reference(design, variants, seed, unit, reference)
                    })
                    .collect()
            })
            .collect();
        let mut runs = Vec::new();
        let mut push = |b: usize, p: usize, (target, beside): (Target, Option<usize>)| {
            runs.push(PlannedRun {
                run_index: 0,
                block: b as u32,
                position: p as u32,
                target,
                beside,
            });
        };
        match design.pairing() {
            Pairing::Paired => {
                for (b, order) in per_block.iter().enumerate() {
                    for (p, t) in order.iter().enumerate() {
                        push(b, p, *t);
                    }
                }
            }
            Pairing::Unpaired => {
                // One session per segment: the legacy reference runs first (one per
                // repetition), then each variant with the reference runs beside it.
                let mut segments: Vec<(Target, Option<usize>)> = Vec::new();
                if reference == ReferenceRuns::PerBlock {
                    segments.push((Target::Reference, None));
                }
                segments.extend((0..variants).map(|v| (Target::Variant(v), Some(v))));
                for (target, owner) in segments {
                    for (b, order) in per_block.iter().enumerate() {
                        for (p, t) in order.iter().enumerate() {
                            let mine = t.0 == target
                                || (t.0 == Target::Reference && t.1.is_some() && t.1 == owner);
                            if mine {
                                push(b, p, *t);
                            }
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
            cycles,
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

/// Block `b`'s runs with the reference runs `reference` asks for: `(target, beside)`.
fn block_with_reference(
    design: Design,
    k: usize,
    seed: u64,
    b: u32,
    reference: ReferenceRuns,
) -> Vec<(Target, Option<usize>)> {
    let order = block_order(design, k, seed, b);
    let mut out: Vec<(Target, Option<usize>)> =
        order.iter().map(|&v| (Target::Variant(v), None)).collect();
    match reference {
        ReferenceRuns::None => {}
        ReferenceRuns::PerBlock => {
            let mut rng = block_rng(seed, b, SALT_REFERENCE);
            let at = rng.random_range(0..=out.len());
            out.insert(at, (Target::Reference, None));
        }
        ReferenceRuns::BesideEachRun => {
            let flip = reference_flip(design, k, b);
            out = Vec::with_capacity(2 * order.len());
            for (slot, &v) in order.iter().enumerate() {
                let pair = [(Target::Reference, Some(v)), (Target::Variant(v), None)];
                if (slot + flip) % 2 == 0 {
                    out.extend(pair);
                } else {
                    out.extend(pair.into_iter().rev());
                }
            }
        }
    }
    out
}

/// 0 or 1: whether block `b` puts the reference after the variant in even slots. ABBA
/// blocks of two variants balance inside the block (never flipped); other designs flip
/// every full cycle of their block orders (see the module docs).
fn reference_flip(design: Design, k: usize, b: u32) -> usize {
    let cycle = match design {
        Design::Abba if k == 2 => return 0,
        Design::Abba => williams_rows(k).len().max(1),
        Design::Random | Design::Sequential => 1,
    };
    (b as usize / cycle) % 2
}

/// The variant order of block `b` (without the reference run).
pub(crate) fn block_order(design: Design, k: usize, seed: u64, b: u32) -> Vec<usize> {
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

    #[test]
    fn cycles_lengthen_blocks_and_keep_the_run_order() {
        // Two variants: block b repeats the one-cycle block b, so the variant that opens
        // a block alternates as with one cycle.
        let two = Schedule::plan_cycles(Design::Abba, 2, 4, 2, 7, ReferenceRuns::None);
        assert_eq!(two.cycles, 2);
        assert_eq!(two.runs_per_block(), 8);
        assert_eq!(variants_of_block(&two, 0), vec![0, 1, 1, 0, 0, 1, 1, 0]);
        assert_eq!(variants_of_block(&two, 1), vec![1, 0, 0, 1, 1, 0, 0, 1]);
        assert_eq!(variants_of_block(&two, 2), vec![0, 1, 1, 0, 0, 1, 1, 0]);
        // Three variants: each block runs its Williams row twice.
        let three = Schedule::plan_cycles(Design::Abba, 3, 2, 2, 7, ReferenceRuns::None);
        let one = Schedule::plan(Design::Abba, 3, 2, 7, ReferenceRuns::None);
        for b in 0..2 {
            let row = variants_of_block(&one, b);
            assert_eq!(variants_of_block(&three, b), [row.clone(), row].concat());
        }
        for (i, r) in two.runs.iter().enumerate() {
            assert_eq!(r.position as usize, i % 8);
            assert_eq!(r.block as usize, i / 8);
        }
        // Every design and reference placement: each block holds `cycles` times the
        // one-cycle block's runs of every variant, and cycles 0 is 1.
        for design in [Design::Abba, Design::Random] {
            for k in [2, 3, 4] {
                for reference in [ReferenceRuns::None, ReferenceRuns::BesideEachRun] {
                    let base = Schedule::plan(design, k, 1, 3, reference).runs_per_block();
                    let s = Schedule::plan_cycles(design, k, 5, 3, 3, reference);
                    assert_eq!(s.runs_per_block(), 3 * base);
                    for b in 0..5 {
                        let v = variants_of_block(&s, b);
                        for x in 0..k {
                            let n = v.iter().filter(|&&y| y == x).count();
                            assert_eq!(n * k, v.len(), "design {design} k {k} block {b}");
                        }
                    }
                    assert_eq!(
                        Schedule::plan_cycles(design, k, 5, 0, 3, reference),
                        Schedule::plan(design, k, 5, 3, reference)
                    );
                }
            }
        }
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

    /// `R` for a reference (with its variant after a colon), the variant index otherwise.
    fn labels(s: &Schedule, b: u32) -> Vec<String> {
        s.runs
            .iter()
            .filter(|r| r.block == b)
            .map(|r| match (r.target, r.beside) {
                (Target::Reference, Some(v)) => format!("R:{v}"),
                (Target::Reference, None) => "R".to_owned(),
                (Target::Variant(i), _) => i.to_string(),
            })
            .collect()
    }

    #[test]
    fn abba_reference_beside_every_run_mirrored_in_the_block() {
        let s = Schedule::plan(Design::Abba, 2, 4, 3, ReferenceRuns::BesideEachRun);
        assert_eq!(
            labels(&s, 0),
            ["R:0", "0", "1", "R:1", "R:1", "1", "0", "R:0"]
        );
        assert_eq!(
            labels(&s, 1),
            ["R:1", "1", "0", "R:0", "R:0", "0", "1", "R:1"]
        );
        assert_eq!(labels(&s, 2), labels(&s, 0));
        assert_eq!(s.runs_per_block(), 8);
        // Inside every block each variant's runs and its references have the same mean
        // time (linear drift cancels), and it has one reference before and one after.
        for b in 0..4 {
            let l = labels(&s, b);
            for v in ["0", "1"] {
                let r = format!("R:{v}");
                let at = |x: &str| -> Vec<usize> {
                    l.iter()
                        .enumerate()
                        .filter(|(_, y)| *y == x)
                        .map(|(i, _)| i)
                        .collect()
                };
                let (runs, refs) = (at(v), at(&r));
                assert_eq!(runs.iter().sum::<usize>(), refs.iter().sum::<usize>());
                let before = runs.iter().filter(|&&p| p > 0 && l[p - 1] == r).count();
                assert_eq!(before, 1, "block {b} variant {v}: {l:?}");
            }
        }
    }

    #[test]
    fn williams_reference_before_and_after_balance_over_two_cycles() {
        for k in 3..=5 {
            let cycle = williams_rows(k).len() as u32;
            let s = Schedule::plan(Design::Abba, k, 2 * cycle, 1, ReferenceRuns::BesideEachRun);
            assert_eq!(s.runs_per_block(), 2 * k);
            let mut before = vec![0usize; k];
            let mut after = vec![0usize; k];
            for w in s.runs.windows(2).filter(|w| w[0].block == w[1].block) {
                match (w[0].target, w[1].target) {
                    (Target::Reference, Target::Variant(v)) if w[0].beside == Some(v) => {
                        before[v] += 1;
                    }
                    (Target::Variant(v), Target::Reference) if w[1].beside == Some(v) => {
                        after[v] += 1;
                    }
                    _ => {}
                }
            }
            for v in 0..k {
                assert_eq!(before[v], cycle as usize, "k={k} v={v}");
                assert_eq!(after[v], cycle as usize, "k={k} v={v}");
            }
        }
    }

    #[test]
    fn sequential_sessions_carry_their_own_references() {
        let s = Schedule::plan(Design::Sequential, 2, 2, 0, ReferenceRuns::BesideEachRun);
        let order: Vec<String> = s
            .runs
            .iter()
            .map(|r| match r.target {
                Target::Reference => format!("R:{}", r.beside.unwrap_or(9)),
                Target::Variant(i) => i.to_string(),
            })
            .collect();
        // Variant 1 sat in slot 1 of block 1 (reference after) and, flipped, of block 2.
        assert_eq!(order, ["R:0", "0", "0", "R:0", "1", "R:1", "R:1", "1"]);
    }

    #[test]
    fn reference_placement_round_trips_through_the_header_name() {
        use crate::raw::ReferencePlacement;
        for r in [ReferenceRuns::BesideEachRun, ReferenceRuns::PerBlock] {
            assert_eq!(ReferencePlacement::runs(true, ReferencePlacement::of(r)), r);
        }
        assert_eq!(
            ReferencePlacement::runs(false, Some(ReferencePlacement::BesideEachRun)),
            ReferenceRuns::None
        );
        assert_eq!(
            ReferencePlacement::BesideEachRun.name(),
            "beside-each-run",
            "the name every raw file with a reference records"
        );
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
