//! The monomorphized chain loops, the per-thread chain state and the checksum.
//!
//! Every loop takes its chain array by value into registers (`black_box` once on entry
//! and once on exit of a chunk, never per step), so the chains stay register-resident
//! and the compiler can neither delete the work nor fold several steps into one. The
//! `Codegen` section of the crate's README records what each loop compiles to.

use std::hint::black_box;

use crate::op::Op;

/// The largest supported number of chains per thread.
pub(crate) const MAX_CHAINS: usize = 16;

/// The odd multiplier of [`Op::Int`]; it fits an `imul r64, r64, imm32`.
pub(crate) const INT_MULTIPLIER: u64 = 0x5851_f42d;

/// The table of [`Op::Add`] holds `ADD_WINDOW + ADD_STRIDE * (MAX_CHAINS - 1)` entries;
/// chain `j` reads entry `(step % ADD_WINDOW) + ADD_STRIDE * j`.
pub(crate) const ADD_WINDOW: usize = 64;
/// Distance in the [`Op::Add`] table between the entries neighbouring chains read: not 1,
/// so neighbouring chains never read adjacent words (which would invite a vector load).
pub(crate) const ADD_STRIDE: usize = 3;
/// Length of the [`Op::Add`] table.
pub(crate) const ADD_TABLE_LEN: usize = ADD_WINDOW + ADD_STRIDE * (MAX_CHAINS - 1);

/// The multiplier of [`Op::Fp`] (thread `t` uses `FP_A - t * 1e-12`).
pub(crate) const FP_A: f64 = 0.999_999;
/// The addend of [`Op::Fp`]: with [`FP_A`] every chain drifts from its start in [1, 2)
/// towards the fixed point `b / (1 - a)`, about 1.5.
pub(crate) const FP_B: f64 = 1.5e-6;

/// The value whose appearance in an integer chain calls [`record_sentinel`]; the branch
/// that tests for it after every step is what keeps each chain in its own basic block,
/// out of reach of the SLP vectorizer (see the README's `Codegen` notes).
pub(crate) const INT_SENTINEL: u64 = 0x0123_4567_89ab_cdef;
/// The floating-point sentinel. Chains stay near 1.5, so it is never reached.
pub(crate) const FP_SENTINEL: f64 = -1.0;

const CHECKSUM_SEED: u64 = 0x6a09_e667_f3bc_c908;

/// SplitMix64 (Steele, Lea and Flood 2014): a bijective 64-bit mixer used to derive the
/// starting values and constants from `(thread, chain, purpose)`.
pub(crate) fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The derivation key of one value: distinct for every `(thread, chain, purpose)`.
pub(crate) fn key(thread: usize, index: usize, purpose: u64) -> u64 {
    ((thread as u64) << 24) ^ ((index as u64) << 4) ^ purpose
}

/// Folds one 64-bit value into a running checksum (order-sensitive).
pub(crate) fn mix(h: u64, v: u64) -> u64 {
    (h.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// Folds a sequence of values, in order, into one checksum.
pub(crate) fn fold_checksum(values: impl IntoIterator<Item = u64>) -> u64 {
    values.into_iter().fold(CHECKSUM_SEED, mix)
}

/// The checksum of one thread: its chain states in order, then its sentinel count.
pub(crate) fn thread_checksum(states: &[u64], sentinel_hits: u64) -> u64 {
    fold_checksum(states.iter().copied().chain([sentinel_hits]))
}

/// The starting state and constants of one chain of `op` (shared with the reference
/// implementation in the tests, so both start from the same values).
pub(crate) fn int_start(thread: usize, chain: usize) -> (u64, u64) {
    (
        splitmix64(key(thread, chain, 1)),
        splitmix64(key(thread, chain, 2)),
    )
}

/// Starting value of an [`Op::Add`] chain.
pub(crate) fn add_start(thread: usize, chain: usize) -> u64 {
    splitmix64(key(thread, chain, 3))
}

/// Entry `index` of the [`Op::Add`] table of `thread`.
pub(crate) fn add_table_entry(thread: usize, index: usize) -> u64 {
    splitmix64(key(thread, index, 4))
}

/// Starting value of an [`Op::Fp`] chain, in [1, 2).
pub(crate) fn fp_start(thread: usize, chain: usize) -> f64 {
    // 53 random mantissa bits.
    let unit = (splitmix64(key(thread, chain, 5)) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    1.0 + unit
}

/// The multiplier and addend shared by the [`Op::Fp`] chains of `thread`.
pub(crate) fn fp_constants(thread: usize) -> (f64, f64) {
    (FP_A - thread as f64 * 1.0e-12, FP_B)
}

/// Counts one chain reaching its sentinel value. Cold and never inlined, so the test
/// before it stays a branch (not a select the vectorizer could bundle).
#[cold]
#[inline(never)]
fn record_sentinel(hits: &mut u64) {
    *hits = hits.wrapping_add(1);
}

/// One thread's chains: their states and constants for every op (only the arrays of
/// the configured op are used) and the number of steps taken so far.
#[derive(Debug, Clone)]
pub(crate) struct Lanes {
    op: Op,
    chains: usize,
    int_x: [u64; MAX_CHAINS],
    int_c: [u64; MAX_CHAINS],
    add_x: [u64; MAX_CHAINS],
    add_table: [u64; ADD_TABLE_LEN],
    fp_x: [f64; MAX_CHAINS],
    fp_a: f64,
    fp_b: f64,
    steps: u64,
    sentinel_hits: u64,
}

impl Lanes {
    /// Fresh chains for `thread`. `chains` must be in `1..=MAX_CHAINS` (checked by the
    /// caller's config validation; out of range makes [`Lanes::advance`] a no-op).
    pub(crate) fn new(op: Op, chains: usize, thread: usize) -> Self {
        let mut lanes = Lanes {
            op,
            chains,
            int_x: [0; MAX_CHAINS],
            int_c: [0; MAX_CHAINS],
            add_x: [0; MAX_CHAINS],
            add_table: [0; ADD_TABLE_LEN],
            fp_x: [0.0; MAX_CHAINS],
            fp_a: 0.0,
            fp_b: 0.0,
            steps: 0,
            sentinel_hits: 0,
        };
        (lanes.fp_a, lanes.fp_b) = fp_constants(thread);
        for j in 0..MAX_CHAINS {
            (lanes.int_x[j], lanes.int_c[j]) = int_start(thread, j);
            lanes.add_x[j] = add_start(thread, j);
            lanes.fp_x[j] = fp_start(thread, j);
        }
        for (i, t) in lanes.add_table.iter_mut().enumerate() {
            *t = add_table_entry(thread, i);
        }
        lanes
    }

    /// Steps taken by each chain so far.
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// Advances every chain by `steps` steps. Time: `steps` × one operation per chain.
    pub(crate) fn advance(&mut self, steps: u64) {
        match self.chains {
            1 => self.advance_n::<1>(steps),
            2 => self.advance_n::<2>(steps),
            3 => self.advance_n::<3>(steps),
            4 => self.advance_n::<4>(steps),
            5 => self.advance_n::<5>(steps),
            6 => self.advance_n::<6>(steps),
            7 => self.advance_n::<7>(steps),
            8 => self.advance_n::<8>(steps),
            9 => self.advance_n::<9>(steps),
            10 => self.advance_n::<10>(steps),
            11 => self.advance_n::<11>(steps),
            12 => self.advance_n::<12>(steps),
            13 => self.advance_n::<13>(steps),
            14 => self.advance_n::<14>(steps),
            15 => self.advance_n::<15>(steps),
            16 => self.advance_n::<16>(steps),
            _ => return,
        }
        self.steps = self.steps.wrapping_add(steps);
    }

    fn advance_n<const N: usize>(&mut self, steps: u64) {
        match self.op {
            Op::Int => {
                if let (Some(x), Some(c)) = (
                    self.int_x.first_chunk_mut::<N>(),
                    self.int_c.first_chunk::<N>(),
                ) {
                    int_steps::<N>(x, c, steps, &mut self.sentinel_hits);
                }
            }
            Op::Add => {
                if let Some(x) = self.add_x.first_chunk_mut::<N>() {
                    add_steps::<N>(
                        x,
                        &self.add_table,
                        self.steps,
                        steps,
                        &mut self.sentinel_hits,
                    );
                }
            }
            Op::Fp => {
                if let Some(x) = self.fp_x.first_chunk_mut::<N>() {
                    fp_steps::<N>(x, self.fp_a, self.fp_b, steps, &mut self.sentinel_hits);
                }
            }
        }
    }

    /// The checksum of the configured op's chain states, folded in chain order, then
    /// the sentinel count.
    pub(crate) fn checksum(&self) -> u64 {
        let n = self.chains.min(MAX_CHAINS);
        let states: Vec<u64> = match self.op {
            Op::Int => self.int_x[..n].to_vec(),
            Op::Add => self.add_x[..n].to_vec(),
            Op::Fp => self.fp_x[..n].iter().map(|x| x.to_bits()).collect(),
        };
        thread_checksum(&states, self.sentinel_hits)
    }
}

/// `steps` steps of `x = x * M + c` on `N` chains.
#[inline(never)]
fn int_steps<const N: usize>(x: &mut [u64; N], c: &[u64; N], steps: u64, hits: &mut u64) {
    let mut s = black_box(*x);
    let c = black_box(*c);
    for _ in 0..steps {
        for j in 0..N {
            s[j] = s[j].wrapping_mul(INT_MULTIPLIER).wrapping_add(c[j]);
            if s[j] == INT_SENTINEL {
                record_sentinel(hits);
            }
        }
    }
    *x = black_box(s);
}

/// `steps` steps of `x = x + t[(step % ADD_WINDOW) + ADD_STRIDE * j]` on `N` chains,
/// numbering steps from `first_step`.
#[inline(never)]
fn add_steps<const N: usize>(
    x: &mut [u64; N],
    table: &[u64; ADD_TABLE_LEN],
    first_step: u64,
    steps: u64,
    hits: &mut u64,
) {
    let mut s = black_box(*x);
    // A local copy (about 900 bytes per chunk): loads from it cannot alias the chain
    // states, which therefore stay in registers.
    let t = black_box(*table);
    let mut step = first_step;
    for _ in 0..steps {
        let k = (step % ADD_WINDOW as u64) as usize;
        for j in 0..N {
            s[j] = s[j].wrapping_add(t[k + ADD_STRIDE * j]);
            if s[j] == INT_SENTINEL {
                record_sentinel(hits);
            }
        }
        step = step.wrapping_add(1);
    }
    *x = black_box(s);
}

/// `steps` steps of `x = x * a + b` on `N` chains (separate multiply and add).
#[inline(never)]
fn fp_steps<const N: usize>(x: &mut [f64; N], a: f64, b: f64, steps: u64, hits: &mut u64) {
    let mut s = black_box(*x);
    let a = black_box(a);
    let b = black_box(b);
    for _ in 0..steps {
        for s in s.iter_mut() {
            *s = *s * a + b;
            if *s == FP_SENTINEL {
                record_sentinel(hits);
            }
        }
    }
    *x = black_box(s);
}
