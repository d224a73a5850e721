//! The shape check's randomization references at scale: the machinery only (what is
//! estimated, and how the runs are centred, is the parent module's).
//!
//! The direct way ([`super::arranged_stat`]) builds both pools of an arrangement and sorts
//! them, `O(N log N)` for each of `K` arrangements and each part. Here:
//! - **Weights once, where they count.** The Harrell-Davis weights of a size and a
//!   quantile are computed once ([`HdWindow`]), and only over the ranks they reach: from
//!   the rank where the Beta distribution function first rounds to 1 downwards to the
//!   rank where a weight falls below `2^-100` of the largest (about 12 standard
//!   deviations of the Beta distribution below the quantile). The weights kept are the
//!   very numbers [`super::harrell_davis_weights`] computes; those above are exactly 0,
//!   those below are under `2^-100` of the largest and change no bit of a sum in
//!   practice. Up to [`FULL_WEIGHTS_UNTIL`] runs a variant every weight is kept.
//! - **One sort per alignment.** Every run of the data (as observed, or aligned at a
//!   quantile's estimate) is sorted once ([`SortedRuns`]); an arrangement's two pools are
//!   the runs whose variant, after the block's swap, is the baseline (resp. the
//!   candidate), already in order. An arrangement's quantile is read from a window of
//!   that array ([`Reader`]): how many of its pool lie below the window is counted from
//!   the block swap bits by popcount, and the window is scanned once. An arrangement whose
//!   pools do not fill the window (beyond 7 standard deviations of the count) is read from
//!   the whole array.
//! - **One pass over the arrangements** ([`random_references`]): each random arrangement
//!   is drawn once from the same seeded stream as [`super::Arrangements::each`] and gives
//!   every part's statistic; the mean run's signed-rank statistic is updated from the
//!   blocks' fixed signed ranks (a swap negates a block's log-ratio, never its rank). The
//!   arrangements are drawn in order on one thread and evaluated in parallel (with the
//!   `parallel` feature), so the references are the same on any number of threads.
//!
//! Time: `O(N log N)` for the sorts, then `O(n + sqrt(N))` per arrangement and part for
//! `n` blocks and `N` runs, instead of `O(N log N)`.

use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::special::regularized_beta;

/// Up to this many runs of a variant the Harrell-Davis weights are all kept (the direct
/// and the windowed sums are then the same sum).
pub(super) const FULL_WEIGHTS_UNTIL: usize = 4096;

/// Arrangements drawn ahead of their evaluation (one chunk drawn while the previous is
/// evaluated).
const CHUNK: usize = 64;

/// The Harrell-Davis weights of a sample of `n` at `q` over the ranks they reach:
/// `weights[i]` is the weight of the order statistic of 0-based rank `start + i`.
#[derive(Debug, Clone)]
pub(super) struct HdWindow {
    pub(super) start: usize,
    pub(super) weights: Vec<f64>,
    /// The sample's size.
    n: usize,
}

impl HdWindow {
    /// The weights of `n` values at `q` (see the module docs). Time: `O(n)` beta
    /// functions up to [`FULL_WEIGHTS_UNTIL`], `O(sqrt(n))` above.
    pub(super) fn new(n: usize, q: f64) -> HdWindow {
        if n <= FULL_WEIGHTS_UNTIL {
            return HdWindow {
                start: 0,
                weights: super::harrell_davis_weights(n, q),
                n,
            };
        }
        // The same distribution function, at the same points, as harrell_davis_weights.
        let m = n as f64 + 1.0;
        let (a, b) = (q * m, (1.0 - q) * m);
        let cdf = |i: usize| -> f64 {
            let x = i as f64 / n as f64;
            if x <= 0.0 {
                0.0
            } else if x >= 1.0 {
                1.0
            } else {
                regularized_beta(a, b, x).unwrap_or(x)
            }
        };
        // 1-based ranks; weight(i) = cdf(i) - cdf(i - 1).
        let centre = ((q * n as f64).round() as usize).clamp(1, n);
        let mut below = Vec::new();
        let mut upper = cdf(centre);
        let mut largest = 0.0f64;
        let mut i = centre;
        // Downwards: stop at a weight below 2^-100 of the largest seen.
        loop {
            let lower = cdf(i - 1);
            let w = upper - lower;
            largest = largest.max(w);
            below.push(w);
            if i == 1 || (w < largest * 2f64.powi(-100) && i < centre) {
                break;
            }
            upper = lower;
            i -= 1;
        }
        let start = i - 1;
        below.reverse();
        // Upwards: until the distribution function is 1 (every later weight is 0).
        let mut prev = cdf(centre);
        let mut j = centre;
        while prev < 1.0 && j < n {
            j += 1;
            let c = cdf(j);
            below.push(c - prev);
            prev = c;
        }
        HdWindow {
            start,
            weights: below,
            n,
        }
    }

    /// One past the last rank kept.
    pub(super) fn end(&self) -> usize {
        self.start + self.weights.len()
    }

    /// The weights over every rank (0 outside the window).
    pub(super) fn spread(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.n];
        w[self.start..self.end()].copy_from_slice(&self.weights);
        w
    }

    /// The Harrell-Davis sum of `sorted` (all `n` values, ascending).
    pub(super) fn dot(&self, sorted: &[f64]) -> f64 {
        self.weights
            .iter()
            .zip(&sorted[self.start..])
            .map(|(w, v)| w * v)
            .sum()
    }
}

/// Every run of one alignment, sorted, each with its block and variant:
/// `tags[g] = block << 1 | candidate`.
pub(super) struct SortedRuns {
    values: Vec<f64>,
    tags: Vec<u32>,
    /// Runs of each variant in each block (equal counts).
    per_block: Vec<u32>,
}

impl SortedRuns {
    /// `blocks[b]`: block `b`'s (baseline, candidate) runs, as many of each.
    pub(super) fn new(blocks: &[(Vec<f64>, Vec<f64>)]) -> SortedRuns {
        let total: usize = blocks.iter().map(|(a, b)| a.len() + b.len()).sum();
        let mut runs: Vec<(f64, u32)> = Vec::with_capacity(total);
        for (i, (a, b)) in blocks.iter().enumerate() {
            let tag = (i as u32) << 1;
            runs.extend(a.iter().map(|&x| (x, tag)));
            runs.extend(b.iter().map(|&x| (x, tag | 1)));
        }
        runs.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        let (values, tags) = runs.into_iter().unzip();
        SortedRuns {
            values,
            tags,
            per_block: blocks.iter().map(|(a, _)| a.len() as u32).collect(),
        }
    }
}

/// One arrangement: which blocks swap, as bits.
pub(super) struct Draw {
    bits: Vec<u64>,
    /// Candidate runs landing in the baseline's pool.
    moved: usize,
    /// The mean run's signed-rank statistic, when the mean run is checked.
    mean: f64,
}

/// Where a quantile's statistic is read in a [`SortedRuns`] for any arrangement: the
/// positions `lo..hi`, and how many runs of the baseline's pool lie below `lo` as a
/// function of the swapped blocks.
struct Reader {
    lo: usize,
    hi: usize,
    /// Baseline runs below `lo` with no block swapped.
    base: i64,
    /// Bit planes of `d_b + offset` (`d_b`: candidate minus baseline runs of block `b`
    /// below `lo`, what swapping the block adds to the baseline pool's count below `lo`).
    planes: Vec<Vec<u64>>,
    offset: i64,
}

impl Reader {
    fn new(runs: &SortedRuns, window: &HdWindow) -> Reader {
        let total = runs.values.len();
        let (k0, k1) = (window.start, window.end());
        let place = |lo: usize| -> (i64, Vec<i64>) {
            let mut d = vec![0i64; runs.per_block.len()];
            let mut base = 0;
            for &tag in &runs.tags[..lo] {
                let b = (tag >> 1) as usize;
                if tag & 1 == 1 {
                    d[b] += 1;
                } else {
                    d[b] -= 1;
                    base += 1;
                }
            }
            (base, d)
        };
        // Over random swaps each run is in either pool with probability 1/2: the count
        // below g is g/2 on average, with variance sum d_b^2 / 4. The window reaches 7
        // standard deviations of the count beyond the ranks at each end (two passes: the
        // deviation is read where the bounds fall).
        let full = k0 == 0 && k1 == total / 2;
        let mut margin = 16.0
            + 3.5
                * (runs
                    .per_block
                    .iter()
                    .map(|&r| f64::from(r))
                    .fold(0.0, f64::max)
                    * total as f64
                    / 2.0)
                    .sqrt();
        let mut bounds = (0, total);
        if !full {
            for _ in 0..2 {
                let lo = (2.0 * k0 as f64 - 2.0 * margin).max(0.0) as usize;
                let hi = ((2.0 * k1 as f64 + 2.0 * margin).ceil() as usize).min(total);
                bounds = (lo, hi);
                let (_, d) = place(lo);
                let var_lo: f64 = d.iter().map(|&x| (x * x) as f64).sum::<f64>() / 4.0;
                let (_, d) = place(hi);
                let var_hi: f64 = d.iter().map(|&x| (x * x) as f64).sum::<f64>() / 4.0;
                margin = 16.0 + 7.0 * var_lo.max(var_hi).sqrt();
            }
        }
        let (lo, hi) = bounds;
        let (base, d) = place(lo);
        let offset = runs.per_block.iter().copied().max().unwrap_or(0) as i64;
        let span = (2 * offset) as u64;
        let planes_needed = (64 - span.leading_zeros()) as usize;
        let words = runs.per_block.len().div_ceil(64);
        let mut planes = vec![vec![0u64; words]; planes_needed];
        for (b, &x) in d.iter().enumerate() {
            let e = (x + offset) as u64;
            for (j, plane) in planes.iter_mut().enumerate() {
                if e >> j & 1 == 1 {
                    plane[b >> 6] |= 1 << (b & 63);
                }
            }
        }
        Reader {
            lo,
            hi,
            base,
            planes,
            offset,
        }
    }

    /// The statistic (candidate's Harrell-Davis sum minus the baseline's) of the
    /// arrangement `draw` with `swapped` blocks swapped; `None` when its pools do not fill
    /// the window.
    fn stat(&self, runs: &SortedRuns, window: &HdWindow, draw: &Draw, swapped: i64) -> Option<f64> {
        let mut shift = -self.offset * swapped;
        for (j, plane) in self.planes.iter().enumerate() {
            let ones: u32 = plane
                .iter()
                .zip(&draw.bits)
                .map(|(p, s)| (p & s).count_ones())
                .sum();
            shift += i64::from(ones) << j;
        }
        let below_a = self.base + shift;
        let below_b = self.lo as i64 - below_a;
        let k0 = window.start as i64;
        if below_a > k0 || below_b > k0 || below_a < 0 || below_b < 0 {
            return None;
        }
        scan(
            runs,
            window,
            draw,
            (self.lo, self.hi),
            [below_b as usize, below_a as usize],
        )
    }
}

/// The statistic of `draw` read from `runs[lo..hi]`, with `below[1]` runs of the
/// baseline's pool and `below[0]` of the candidate's under `lo`; `None` when the pools do
/// not fill the window's ranks. With `(0, N)` and no run below, every arrangement.
fn scan(
    runs: &SortedRuns,
    window: &HdWindow,
    draw: &Draw,
    (lo, hi): (usize, usize),
    below: [usize; 2],
) -> Option<f64> {
    let mut counts = below;
    let (mut sum_a, mut sum_b) = (0.0, 0.0);
    let len = window.weights.len();
    let k0 = window.start;
    for g in lo..hi {
        let tag = runs.tags[g];
        let block = (tag >> 1) as usize;
        let swap = draw.bits[block >> 6] >> (block & 63) & 1;
        // In the baseline's pool: a baseline run of an unswapped block, or a candidate run
        // of a swapped one.
        let in_a = usize::from(u64::from(tag & 1) == swap);
        let rank = counts[in_a];
        counts[in_a] = rank + 1;
        let i = rank.wrapping_sub(k0);
        if i < len {
            let term = window.weights[i] * runs.values[g];
            if in_a == 1 {
                sum_a += term;
            } else {
                sum_b += term;
            }
        }
    }
    let k1 = window.end();
    if counts[0] < k1 || counts[1] < k1 {
        return None;
    }
    Some(sum_b - sum_a)
}

/// Every random arrangement's statistics: for each part, `(runs, window)` (an index into
/// `sorted`, the alignment, and the quantile's weights), `(T, c)` as
/// [`super::arranged_stat`] gives them, and the mean run's signed-rank statistic when
/// `signed_ranks` (each block's rank of `|d|` times the sign of `d`, 0 for `d = 0`) is
/// given. Equal run counts in every block. `progress(done)` after each chunk.
pub(super) fn random_references(
    sorted: &[SortedRuns],
    parts: &[(usize, &HdWindow)],
    count: usize,
    seed: u64,
    signed_ranks: Option<&[f64]>,
    progress: &mut dyn FnMut(usize),
) -> (Vec<super::Reference>, Option<Vec<f64>>) {
    let readers: Vec<Reader> = parts
        .iter()
        .map(|&(r, window)| Reader::new(&sorted[r], window))
        .collect();
    let Some(first) = sorted.first() else {
        return (Vec::new(), None);
    };
    let per_block = &first.per_block;
    let n = per_block.len();
    let pool = first.values.len() / 2;
    let mean_observed: f64 = signed_ranks.map_or(0.0, |r| r.iter().sum());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut draw_chunk = |size: usize| -> Vec<Draw> {
        (0..size)
            .map(|_| {
                let mut bits = vec![0u64; n.div_ceil(64)];
                let mut moved = 0u64;
                for (i, &r) in per_block.iter().enumerate() {
                    // As Arrangements::each draws them: one bool per block (`random::<bool>`
                    // is the top bit of the next 64), then the seed of the reassignments
                    // (unused with equal counts). Without a branch: the bits are coin flips.
                    let bit = rng.next_u64() >> 63;
                    bits[i >> 6] |= bit << (i & 63);
                    moved += bit * u64::from(r);
                }
                let _reassignments: u64 = rng.random();
                // Sums of signed ranks are exact in any order (multiples of 1/2).
                let mut flipped = 0.0;
                if let Some(ranks) = signed_ranks {
                    for (w, &word) in bits.iter().enumerate() {
                        let mut rest = word;
                        while rest != 0 {
                            flipped += ranks[w * 64 + rest.trailing_zeros() as usize];
                            rest &= rest - 1;
                        }
                    }
                }
                Draw {
                    bits,
                    moved: moved as usize,
                    mean: mean_observed - 2.0 * flipped,
                }
            })
            .collect()
    };
    let evaluate = |draw: &Draw| -> Vec<f64> {
        let swapped: i64 = draw.bits.iter().map(|w| i64::from(w.count_ones())).sum();
        parts
            .iter()
            .zip(&readers)
            .map(|(&(r, window), reader)| {
                let runs = &sorted[r];
                // Beyond the window: the whole array (every arrangement fills it).
                reader
                    .stat(runs, window, draw, swapped)
                    .or_else(|| scan(runs, window, draw, (0, runs.values.len()), [0, 0]))
                    .unwrap_or(f64::NAN)
            })
            .collect()
    };
    let mut references: Vec<super::Reference> = vec![Vec::with_capacity(count); parts.len()];
    let mut mean = signed_ranks.map(|_| Vec::with_capacity(count));
    let mut done = 0;
    let mut current = draw_chunk(CHUNK.min(count));
    while !current.is_empty() {
        let next_size = CHUNK.min(count - done - current.len());
        let (next, values) = both(
            || draw_chunk(next_size),
            || map_in_order(&current, &evaluate),
        );
        for (draw, stats) in current.iter().zip(values) {
            let stayed = pool - draw.moved;
            let c = stayed as f64 / pool as f64 - draw.moved as f64 / pool as f64;
            for (r, t) in references.iter_mut().zip(stats) {
                r.push((t, c));
            }
            if let Some(m) = &mut mean {
                m.push(draw.mean);
            }
        }
        done += current.len();
        progress(done);
        current = next;
    }
    (references, mean)
}

/// `a()` and `b()`, side by side when parallel.
fn both<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (a(), b())
    }
}

/// `f` of every item, in order (in parallel when enabled).
fn map_in_order<T: Sync, U: Send>(items: &[T], f: &(impl Fn(&T) -> U + Sync)) -> Vec<U> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// Each value's signed rank: its rank among the `|d|` (midranks for ties) times the sign
/// of `d`, 0 for `d = 0`; their sum is the signed-rank statistic, and a swap that negates
/// `d_i` negates its term alone. The ranks are multiples of 1/2, so every sum of them is
/// exact in `f64` (below 2^52).
pub(super) fn signed_ranks(d: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..d.len()).filter(|&i| d[i] != 0.0).collect();
    idx.sort_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()));
    let mut out = vec![0.0; d.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && d[idx[j + 1]].abs() == d[idx[i]].abs() {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            out[k] = rank * d[k].signum();
        }
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Arrangements, LogBlocks, reference, signed_rank_statistic};
    use super::*;

    /// `blocks` blocks of `runs` + `runs` runs: a session effect, a heavy tail and the
    /// candidate `shift` slower.
    fn data(blocks: usize, runs: usize, shift: f64, seed: u64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut run = |s: f64| {
            let slow = if rng.random::<f64>() < 0.1 { 1.5 } else { 1.0 };
            s * slow * (1.0 + 0.02 * rng.random::<f64>())
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..blocks {
            let s = 1.0 + 0.1 * ((i * 7 % 11) as f64);
            a.push((0..runs).map(|_| run(s)).collect());
            b.push((0..runs).map(|_| run(s) * shift).collect());
        }
        (a, b)
    }

    #[test]
    fn windowed_weights_are_the_full_weights_where_kept_and_negligible_elsewhere() {
        for (n, q) in [(5000, 0.5), (9001, 0.1), (20_000, 0.9), (4097, 0.5)] {
            let full = super::super::harrell_davis_weights(n, q);
            let w = HdWindow::new(n, q);
            assert!(w.weights.len() < n, "{n} {q}");
            assert_eq!(&full[w.start..w.end()], &w.weights[..], "{n} {q}");
            let largest = full.iter().copied().fold(0.0, f64::max);
            assert!(
                full[..w.start]
                    .iter()
                    .all(|&x| x < largest * 2f64.powi(-100))
            );
            assert!(full[w.end()..].iter().all(|&x| x == 0.0), "{n} {q}");
        }
        // Up to FULL_WEIGHTS_UNTIL: all of them.
        let w = HdWindow::new(FULL_WEIGHTS_UNTIL, 0.1);
        assert_eq!(
            w.weights,
            super::super::harrell_davis_weights(FULL_WEIGHTS_UNTIL, 0.1)
        );
    }

    /// The references of `random_references` against the sorted pools of every
    /// arrangement ([`reference`], with every Harrell-Davis weight) and the signed-rank
    /// statistic recomputed per arrangement: the same numbers, bit for bit.
    fn check_against_sorted_pools(blocks: usize, runs: usize, count: usize) {
        let (a, b) = data(blocks, runs, 1.01, blocks as u64);
        let logs = LogBlocks::new(&a, &b).unwrap();
        let observed = logs.normalized(0.0);
        let aligned = logs.normalized(0.0123);
        let pool = blocks * runs;
        let qs = [0.1, 0.5, 0.9];
        let windows: Vec<HdWindow> = qs.iter().map(|&q| HdWindow::new(pool, q)).collect();
        let sorted = vec![SortedRuns::new(&observed), SortedRuns::new(&aligned)];
        let parts: Vec<(usize, &HdWindow)> = windows
            .iter()
            .map(|w| (0, w))
            .chain(windows.iter().map(|w| (1, w)))
            .collect();
        let lmean = |v: &[f64]| (v.iter().map(|x| x.exp()).sum::<f64>() / v.len() as f64).ln();
        let d: Vec<f64> = logs
            .a
            .iter()
            .zip(&logs.b)
            .map(|(a, b)| lmean(b) - lmean(a))
            .collect();
        let ranks = signed_ranks(&d);
        let mut reported = Vec::new();
        let (got, mean) = random_references(&sorted, &parts, count, 5, Some(&ranks), &mut |k| {
            reported.push(k)
        });
        assert_eq!(reported.last(), Some(&count));
        let arrangements = Arrangements::Random(count);
        for (j, &q) in qs.iter().enumerate() {
            let w = super::super::harrell_davis_weights(pool, q);
            for (k, blocks) in [&observed, &aligned].into_iter().enumerate() {
                let want = reference(blocks, &w, &w, arrangements, 5);
                assert_eq!(got[k * qs.len() + j], want, "q {q} alignment {k}");
            }
        }
        let mut flipped = vec![0.0; d.len()];
        let want = arrangements.each(d.len(), 5, |swap, _| {
            for (i, x) in flipped.iter_mut().enumerate() {
                *x = if swap(i) { -d[i] } else { d[i] };
            }
            signed_rank_statistic(&flipped)
        });
        assert_eq!(mean.unwrap(), want);
    }

    #[test]
    fn few_blocks_give_the_sorted_pools_numbers() {
        check_against_sorted_pools(40, 2, 300);
        check_against_sorted_pools(13, 3, 200);
    }

    #[test]
    fn many_runs_give_the_sorted_pools_numbers_through_the_window() {
        // 4400 runs a variant: the weights are windowed, and so is the reading.
        check_against_sorted_pools(2200, 2, 24);
    }

    #[test]
    fn an_arrangement_outside_the_window_is_read_from_the_whole_array() {
        let (a, b) = data(2200, 2, 1.01, 3);
        let logs = LogBlocks::new(&a, &b).unwrap();
        let runs = SortedRuns::new(&logs.normalized(0.0));
        let window = HdWindow::new(4400, 0.5);
        let reader = Reader::new(&runs, &window);
        assert!(reader.hi - reader.lo < runs.values.len());
        let words = 2200usize.div_ceil(64);
        // Every candidate run in the baseline's pool below the median: far outside.
        let mut bits = vec![0u64; words];
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            if y[0] < x[0] {
                bits[i >> 6] |= 1 << (i & 63);
            }
        }
        let draw = Draw {
            bits,
            moved: 0,
            mean: 0.0,
        };
        let swapped = draw.bits.iter().map(|w| i64::from(w.count_ones())).sum();
        let all = scan(&runs, &window, &draw, (0, runs.values.len()), [0, 0]);
        assert!(all.is_some());
        if let Some(t) = reader.stat(&runs, &window, &draw, swapped) {
            assert_eq!(Some(t), all);
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn the_references_are_the_same_on_any_number_of_threads() {
        let (a, b) = data(300, 2, 1.02, 9);
        let logs = LogBlocks::new(&a, &b).unwrap();
        let sorted = vec![SortedRuns::new(&logs.normalized(0.0))];
        let window = HdWindow::new(600, 0.5);
        let parts = [(0, &window)];
        let on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| random_references(&sorted, &parts, 500, 2, None, &mut |_| {}))
        };
        assert_eq!(on(1), on(3));
    }
}
