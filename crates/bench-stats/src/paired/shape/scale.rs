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

/// From this many blocks on, the arrangements of a chunk are drawn side by side, each from
/// where the seeded stream reaches it ([`crate::resample::jump`]): the same flips as drawn
/// in order, at the cost of one jump (a few microseconds) an arrangement.
const DRAW_APART_FROM: usize = 4096;

/// From this many blocks on, a random arrangement's flips come 64 to a draw of the
/// generator (flip `i` is bit `i % 64` of the `i / 64`-th draw) instead of one draw each
/// (the top bit, as `random::<bool>()`): the same fair, independent flips, a 64th of the
/// draws. Below, every arrangement (and every figure and snapshot made on it) is as it
/// was.
pub(super) const WORD_FLIPS_FROM: usize = 4096;

/// Generator steps one random arrangement of `n` blocks takes: its flips, then the seed of
/// its reassignments.
fn steps_per_arrangement(n: usize) -> u64 {
    let flips = if n >= WORD_FLIPS_FROM {
        n.div_ceil(64)
    } else {
        n
    };
    flips as u64 + 1
}

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

/// Makes every run of an alignment again, sorted (a sorted order of the same runs).
pub(super) type Again = Box<dyn Fn() -> SortedRuns + Send + Sync>;

/// Every run of one alignment, sorted, each with its block and variant:
/// `tags[g] = block << 1 | candidate`; or only the positions one quantile's reader reads
/// ([`SortedRuns::windowed`]).
pub(super) struct SortedRuns {
    /// The values at positions `from..from + values.len()`.
    values: Vec<f64>,
    tags: Vec<u32>,
    /// The first position held (0 when every run is).
    from: usize,
    /// How many runs the alignment has.
    total: usize,
    /// When only a window is held: the reader of the window's quantile (made on every
    /// run), and how every run is made again ([`SortedRuns::whole`]).
    windowed: Option<(Reader, Again)>,
    /// Runs of each variant in each block (equal counts), shared by the alignments.
    per_block: std::sync::Arc<[u32]>,
}

impl SortedRuns {
    /// `blocks[b]`: block `b`'s (baseline, candidate) runs, as many of each.
    pub(super) fn new(blocks: &super::Pairs) -> SortedRuns {
        let total: usize = blocks.iter().map(|(a, b)| a.len() + b.len()).sum();
        let mut runs: Vec<(f64, u32)> = Vec::with_capacity(total);
        for (i, (a, b)) in blocks.iter().enumerate() {
            let tag = (i as u32) << 1;
            runs.extend(a.iter().map(|&x| (x, tag)));
            runs.extend(b.iter().map(|&x| (x, tag | 1)));
        }
        runs.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        let (values, tags): (Vec<f64>, Vec<u32>) = runs.into_iter().unzip();
        SortedRuns::held(
            values,
            tags,
            blocks.iter().map(|(a, _)| a.len() as u32).collect(),
        )
    }

    /// Every run held, `values` ascending with their `tags`.
    fn held(values: Vec<f64>, tags: Vec<u32>, per_block: std::sync::Arc<[u32]>) -> SortedRuns {
        SortedRuns {
            total: values.len(),
            values,
            tags,
            from: 0,
            windowed: None,
            per_block,
        }
    }

    /// Only the positions the reader of `window` reads (with that reader, made on every
    /// run), when the window is narrower than the runs: for an alignment that quantile
    /// alone reads. An arrangement beyond the reader's window (7 standard deviations of
    /// its count) reads every run, made `again` (any sorted order of the same runs gives
    /// the same sums). Memory: the window's runs instead of every run.
    pub(super) fn windowed(self, window: &HdWindow, again: Again) -> SortedRuns {
        if self.from != 0 || self.windowed.is_some() {
            return self;
        }
        let reader = Reader::new(&self, window);
        let (lo, hi) = (reader.lo, reader.hi);
        if hi - lo >= self.total / 2 {
            return self;
        }
        SortedRuns {
            values: self.values[lo..hi].to_vec(),
            tags: self.tags[lo..hi].to_vec(),
            from: lo,
            total: self.total,
            windowed: Some((reader, again)),
            per_block: self.per_block,
        }
    }

    /// Every run, made again when only a window is held; `None` when all are held.
    fn whole(&self) -> Option<SortedRuns> {
        self.windowed.as_ref().map(|(_, again)| again())
    }

    /// The tags and values at positions `lo..hi` (held).
    fn at(&self, (lo, hi): (usize, usize)) -> (&[u32], &[f64]) {
        let (lo, hi) = (lo - self.from, hi - self.from);
        (&self.tags[lo..hi], &self.values[lo..hi])
    }
}

/// The runs of `observed` (all held) with the candidate's shifted down by `shift`, merged
/// as [`SortedSides::shifted`] merges them.
fn merged_again(observed: &SortedRuns, shift: f64) -> SortedRuns {
    let r = observed;
    let side = |candidate: u32| {
        r.values
            .iter()
            .zip(&r.tags)
            .filter(move |(_, t)| *t & 1 == candidate)
            .map(|(&x, &t)| (x, t))
    };
    merge(
        side(0),
        side(1),
        r.values.len(),
        shift,
        std::sync::Arc::clone(&r.per_block),
    )
}

/// The runs of the data as observed, sorted ([`SortedSides::into_runs`]): each variant's
/// runs are sorted apart and merged, and the runs of an alignment that shifts every
/// candidate run by the same amount are the merge of the two variants' runs read back from
/// that order ([`SortedSides::shifted`]), a shift keeping the candidate's runs in order
/// (rounding is monotone). Two sorts of `N / 2` runs, then `O(N)` an alignment, for one
/// sort of `N` runs an alignment; the runs are held once (the observed order), not once
/// more per variant.
pub(super) struct SortedSides<'a> {
    observed: &'a super::Pairs,
    runs: SortedRuns,
}

impl<'a> SortedSides<'a> {
    /// `observed[b]`: block `b`'s (baseline, candidate) runs, as many of each.
    pub(super) fn new(observed: &'a super::Pairs) -> SortedSides<'a> {
        let side = |candidate: bool| {
            let mut runs: Vec<(f64, u32)> = Vec::new();
            for (i, (a, b)) in observed.iter().enumerate() {
                let tag = (i as u32) << 1 | u32::from(candidate);
                runs.extend(if candidate { b } else { a }.iter().map(|&x| (x, tag)));
            }
            runs.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
            runs
        };
        let (a, b) = both(|| side(false), || side(true));
        let per_block: std::sync::Arc<[u32]> =
            observed.iter().map(|(a, _)| a.len() as u32).collect();
        let runs = merge(
            a.iter().copied(),
            b.iter().copied(),
            a.len() + b.len(),
            0.0,
            per_block,
        );
        SortedSides { observed, runs }
    }

    /// The [`SortedRuns`] of `aligned`: by a merge when `aligned` is the data as observed
    /// with every candidate run `x` replaced by `x - shift` (bit for bit, checked run by
    /// run), else by [`SortedRuns::new`]. Either way a sorted order of the same runs, and
    /// the statistics read from any sorted order are the same numbers (runs of equal value
    /// trade places without changing a pool's sum). Time: `O(N)` when merged.
    pub(super) fn shifted(&self, aligned: &super::Pairs, shift: f64) -> SortedRuns {
        if !self.merges(aligned, shift) {
            return SortedRuns::new(aligned);
        }
        // Each variant's runs in the observed order: the order it was sorted in.
        merged_again(&self.runs, shift)
    }

    /// Whether `aligned` is the data as observed with every candidate run `x` replaced by
    /// `x - shift`, bit for bit.
    fn merges(&self, aligned: &super::Pairs, shift: f64) -> bool {
        let same = |x: &[f64], y: &[f64], by: f64| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(x, y)| (y - by).to_bits() == x.to_bits())
        };
        aligned.len() == self.observed.len()
            && aligned
                .iter()
                .zip(self.observed)
                .all(|((a, b), (oa, ob))| same(a, oa, 0.0) && same(b, ob, shift))
    }

    /// The runs as observed, sorted (the [`SortedRuns`] of `shifted(observed, 0.0)`).
    pub(super) fn into_runs(self) -> SortedRuns {
        self.runs
    }
}

/// The baseline's runs `a` and the candidate's `b` (each ascending, `(value, tag)`),
/// every candidate run shifted down by `shift`, merged in order (a baseline run first
/// on a tie).
fn merge(
    a: impl Iterator<Item = (f64, u32)>,
    b: impl Iterator<Item = (f64, u32)>,
    total: usize,
    shift: f64,
    per_block: std::sync::Arc<[u32]>,
) -> SortedRuns {
    let mut values = Vec::with_capacity(total);
    let mut tags = Vec::with_capacity(total);
    let (mut a, mut b) = (a.peekable(), b.map(|(x, t)| (x - shift, t)).peekable());
    while let (Some(&(x, s)), Some(&(y, t))) = (a.peek(), b.peek()) {
        if x.total_cmp(&y).is_le() {
            values.push(x);
            tags.push(s);
            a.next();
        } else {
            values.push(y);
            tags.push(t);
            b.next();
        }
    }
    for (x, tag) in a.chain(b) {
        values.push(x);
        tags.push(tag);
    }
    SortedRuns::held(values, tags, per_block)
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
#[derive(Clone)]
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
        let total = runs.total;
        debug_assert_eq!(runs.values.len(), total, "a reader is made on every run");
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

    /// Where the arrangement `draw` with `swapped` blocks swapped enters the window: the
    /// runs of the candidate's and of the baseline's pool below `lo`; `None` when its
    /// pools do not fill the window's ranks from there.
    fn below(&self, window: &HdWindow, draw: &Draw, swapped: i64) -> Option<[usize; 2]> {
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
        Some([below_b as usize, below_a as usize])
    }

    /// The statistic (candidate's Harrell-Davis sum minus the baseline's) of the
    /// arrangement `draw` with `swapped` blocks swapped; `None` when its pools do not fill
    /// the window.
    #[cfg(test)]
    fn stat(&self, runs: &SortedRuns, window: &HdWindow, draw: &Draw, swapped: i64) -> Option<f64> {
        let below = self.below(window, draw, swapped)?;
        scan(runs, window, &draw.bits, (self.lo, self.hi), below)
    }
}

/// The statistic of `draw` read from `runs[lo..hi]`, with `below[1]` runs of the
/// baseline's pool and `below[0]` of the candidate's under `lo`; `None` when the pools do
/// not fill the window's ranks. With `(0, N)` and no run below, every arrangement.
fn scan(
    runs: &SortedRuns,
    window: &HdWindow,
    bits: &[u64],
    (lo, hi): (usize, usize),
    below: [usize; 2],
) -> Option<f64> {
    let (mut sum_a, mut sum_b) = (0.0, 0.0);
    let len = window.weights.len();
    let k0 = window.start;
    // Runs of the baseline's pool met so far (the candidate's: the rest). Without a branch
    // on the pool, which a random arrangement makes unpredictable: the term of the other
    // pool is multiplied by 0, and adding a zero leaves a sum's bits as they are (a sum
    // that starts at +0 is never -0), so the sums are the branching loop's.
    let mut met_a = 0usize;
    let (tags, values) = runs.at((lo, hi));
    for (g, (&tag, &value)) in tags.iter().zip(values).enumerate() {
        let block = (tag >> 1) as usize;
        let swap = bits[block >> 6] >> (block & 63) & 1;
        // In the baseline's pool: a baseline run of an unswapped block, or a candidate run
        // of a swapped one.
        let in_a = usize::from(u64::from(tag & 1) == swap);
        let rank = if in_a == 1 {
            below[1] + met_a
        } else {
            below[0] + (g - met_a)
        };
        met_a += in_a;
        let i = rank.wrapping_sub(k0);
        if i < len {
            let term = window.weights[i] * value;
            let a = in_a as f64;
            sum_a += term * a;
            sum_b += term * (1.0 - a);
        }
    }
    let k1 = window.end();
    let counts = [below[0] + (hi - lo - met_a), below[1] + met_a];
    if counts[0] < k1 || counts[1] < k1 {
        return None;
    }
    Some(sum_b - sum_a)
}

/// A window's weights with one 0 after the last, so that a rank outside the window reads
/// a weight (0) without a branch.
struct Weights {
    start: usize,
    padded: Vec<f64>,
}

impl Weights {
    fn new(window: &HdWindow) -> Weights {
        let mut padded = Vec::with_capacity(window.weights.len() + 1);
        padded.extend_from_slice(&window.weights);
        padded.push(0.0);
        Weights {
            start: window.start,
            padded,
        }
    }
}

/// [`scan`] of four arrangements (their swap bits `bits`, their runs below `lo`
/// `below`) in one pass over `runs[lo..hi]`: each run's value and block are read once for
/// the four, and the eight sums are independent chains (one arrangement's two sums add
/// one after the other, each waiting on the adder's latency). Each sum adds the same
/// terms in the same order as one arrangement's [`scan`], so the same bits: a run outside
/// the window adds `0 * value`, a run of the other pool `0`, and adding a zero leaves a
/// sum's bits as they are (a sum that starts at +0 is never -0). Written out for four
/// (a loop over an array of sums kept them in memory: 3.5x slower in a standalone
/// measurement); 2.2x faster per arrangement than [`scan`] in the same measurement
/// (one window of 2 x 7,000 ranks, 250,000 blocks of 2 + 2 runs).
fn scan4(
    runs: &SortedRuns,
    weights: &Weights,
    bits: [&[u64]; GROUP],
    (lo, hi): (usize, usize),
    below: [[usize; 2]; GROUP],
) -> [Option<f64>; GROUP] {
    let (mut a0, mut a1, mut a2, mut a3) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut b0, mut b1, mut b2, mut b3) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    // Runs of each arrangement's baseline pool met so far (the candidate's: the rest).
    let (mut m0, mut m1, mut m2, mut m3) = (0usize, 0usize, 0usize, 0usize);
    let k0 = weights.start;
    let padded = &weights.padded[..];
    let len = padded.len() - 1;
    let words = bits[0].len();
    let [x0, x1, x2, x3] = bits.map(|b| &b[..words]);
    let (tags, values) = runs.at((lo, hi));
    for (g, (&tag, &value)) in tags.iter().zip(values).enumerate() {
        let block = (tag >> 1) as usize;
        let (word, bit) = (block >> 6, block & 63);
        let candidate = u64::from(tag & 1);
        // One arrangement's step: in the baseline's pool are a baseline run of an
        // unswapped block and a candidate run of a swapped one.
        macro_rules! step {
            ($x:ident, $m:ident, $a:ident, $b:ident, $d:expr) => {
                let in_a = candidate == $x[word] >> bit & 1;
                let rank = if in_a {
                    below[$d][1] + $m
                } else {
                    below[$d][0] + (g - $m)
                };
                $m += usize::from(in_a);
                let term = padded[rank.wrapping_sub(k0).min(len)] * value;
                $a += if in_a { term } else { 0.0 };
                $b += if in_a { 0.0 } else { term };
            };
        }
        step!(x0, m0, a0, b0, 0);
        step!(x1, m1, a1, b1, 1);
        step!(x2, m2, a2, b2, 2);
        step!(x3, m3, a3, b3, 3);
    }
    let k1 = k0 + len;
    let (met, sum_a, sum_b) = ([m0, m1, m2, m3], [a0, a1, a2, a3], [b0, b1, b2, b3]);
    std::array::from_fn(|d| {
        let counts = [below[d][0] + (hi - lo - met[d]), below[d][1] + met[d]];
        (counts[0] >= k1 && counts[1] >= k1).then(|| sum_b[d] - sum_a[d])
    })
}

/// Arrangements read together by [`scan4`].
const GROUP: usize = 4;

/// Every part's statistic of each arrangement of `draws`: for each part, the
/// arrangements whose pools fill its window from the reader's start are read
/// [`GROUP`] at a time ([`scan4`]), the others from the whole array.
fn evaluate_draws(
    sorted: &[SortedRuns],
    parts: &[(usize, &HdWindow)],
    readers: &[(Reader, Weights)],
    draws: &[Draw],
) -> Vec<Vec<f64>> {
    let mut out = vec![vec![f64::NAN; parts.len()]; draws.len()];
    let swapped: Vec<i64> = draws
        .iter()
        .map(|d| d.bits.iter().map(|w| i64::from(w.count_ones())).sum())
        .collect();
    let mut inside: Vec<(usize, [usize; 2])> = Vec::with_capacity(draws.len());
    for (p, (&(r, window), (reader, weights))) in parts.iter().zip(readers).enumerate() {
        let runs = &sorted[r];
        let whole = (0, runs.total);
        // Beyond the window: the whole array (every arrangement fills it), merged again
        // when only the window is held.
        let outside = |m: usize| {
            let merged = runs.whole();
            let every = merged.as_ref().unwrap_or(runs);
            scan(every, window, &draws[m].bits, whole, [0, 0]).unwrap_or(f64::NAN)
        };
        inside.clear();
        for (m, draw) in draws.iter().enumerate() {
            match reader.below(window, draw, swapped[m]) {
                Some(below) => inside.push((m, below)),
                None => out[m][p] = outside(m),
            }
        }
        for group in inside.chunks(GROUP) {
            // A short group is filled with its first arrangement, read twice.
            let at = |d: usize| group[d.min(group.len() - 1)];
            let stats = scan4(
                runs,
                weights,
                std::array::from_fn(|d| &draws[at(d).0].bits[..]),
                (reader.lo, reader.hi),
                std::array::from_fn(|d| at(d).1),
            );
            for (&(m, _), t) in group.iter().zip(stats) {
                out[m][p] = t.unwrap_or_else(|| outside(m));
            }
        }
    }
    out
}

/// At most this many bytes of coin flips are kept for a later shape check
/// ([`share_arrangements`]): 16 MiB, the flips of 2,000 arrangements of 67,000 blocks.
/// Beyond it the later check draws its flips again (the same ones, from the seed): kept,
/// the flips of 2,000 arrangements of a 10^6-run file's 250,000 blocks (62.5 MB) would
/// stand on top of the analysis's own peak and hold it above issue 39's ~300 MB.
const SHARED_FLIPS_MAX_BYTES: usize = 16 << 20;

/// The coin flips of one shape check's random arrangements, kept for the next check of
/// the same blocks and seed while a [`share_arrangements`] scope is open.
struct SharedFlips {
    /// `(seed, blocks, arrangements)`: what the flips are a function of.
    key: (u64, usize, usize),
    /// Arrangement `m`'s words of flips at `m * words..(m + 1) * words`.
    bits: std::sync::Arc<Vec<u64>>,
}

/// The scopes open ([`share_arrangements`]) and the flips kept while any is. The flips
/// are a function of their key alone, so whichever analysis reads them (on any thread)
/// reads the very flips it would draw.
static SHARED: std::sync::Mutex<(usize, Option<SharedFlips>)> = std::sync::Mutex::new((0, None));

/// Runs `f` with the random arrangements of the shape check drawn once and read again by
/// every later check of as many blocks with the same seed and count while `f` runs: the
/// same draws, so the same numbers, without drawing them again. The noise diagnosis
/// decides a wall-time experiment a second time on CPU time; its shape check reads the
/// wall-time check's arrangements. The last check's flips are kept (one bit a block and
/// arrangement, up to 16 MiB: a larger check's are drawn again) until the last open scope
/// closes.
pub fn share_arrangements<R>(f: impl FnOnce() -> R) -> R {
    /// Closes the scope when `f` returns or unwinds.
    struct Close;
    impl Drop for Close {
        fn drop(&mut self) {
            if let Ok(mut shared) = SHARED.lock() {
                shared.0 -= 1;
                if shared.0 == 0 {
                    shared.1 = None;
                }
            }
        }
    }
    let _close = match SHARED.lock() {
        Ok(mut shared) => {
            shared.0 += 1;
            Some(Close)
        }
        Err(_) => None,
    };
    f()
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
    // A window's runs come with their reader (of the one quantile that reads them).
    let readers: Vec<(Reader, Weights)> = map_in_order(parts, &|&(r, window)| {
        let reader = match &sorted[r].windowed {
            Some((reader, _)) => reader.clone(),
            None => Reader::new(&sorted[r], window),
        };
        (reader, Weights::new(window))
    });
    let Some(first) = sorted.first() else {
        return (Vec::new(), None);
    };
    let per_block = &first.per_block;
    let n = per_block.len();
    let pool = first.total / 2;
    let mean_observed: f64 = signed_ranks.map_or(0.0, |r| r.iter().sum());
    let table = signed_ranks.and_then(FlipTable::new);
    // Every block's count, when they are all the same (the usual layout).
    let same_count = per_block
        .first()
        .filter(|&&r| per_block.iter().all(|&x| x == r))
        .map(|&r| u64::from(r));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let words = n.div_ceil(64);
    // The flips of an earlier check of these blocks in a sharing scope, else drawn here
    // (and kept for a later one when they fit).
    let key = (seed, n, count);
    let (reused, mut record) = shared_flips(key, words);
    let mut drawn = 0usize;
    // An arrangement's draw from its flips: the runs it moves and the mean run's statistic.
    let make = |bits: Vec<u64>| -> Draw {
        let moved: u64 = match same_count {
            Some(r) => r * bits.iter().map(|w| u64::from(w.count_ones())).sum::<u64>(),
            None => set_bits(&bits).map(|i| u64::from(per_block[i])).sum(),
        };
        let flipped: f64 = match (&table, signed_ranks) {
            (Some(table), _) => table.flipped_sum(&bits),
            (None, Some(ranks)) => flipped_sum(&bits, ranks),
            (None, None) => 0.0,
        };
        Draw {
            bits,
            moved: moved as usize,
            mean: mean_observed - 2.0 * flipped,
        }
    };
    // Many blocks: each arrangement drawn from where the one stream reaches it (n flips and
    // one reassignment seed before it, for every earlier arrangement), the arrangements of
    // a chunk side by side; the very flips of the stream drawn in order.
    let apart = reused.is_none() && n >= DRAW_APART_FROM && cfg!(feature = "parallel");
    let mut draw_chunk = |size: usize| -> Vec<Draw> {
        if apart {
            let draws = draw_apart((seed, n, words), drawn..drawn + size, &make);
            drawn += size;
            if let Some(r) = &mut record {
                for d in &draws {
                    r.extend_from_slice(&d.bits);
                }
            }
            return draws;
        }
        (0..size)
            .map(|_| {
                let mut bits = vec![0u64; words];
                match &reused {
                    Some(all) => bits.copy_from_slice(&all[drawn * words..(drawn + 1) * words]),
                    None => {
                        // As Arrangements::each draws them: the flips ([`draw_flips`]),
                        // then the seed of the reassignments (unused with equal counts).
                        draw_flips(&mut rng, &mut bits, n);
                        let _reassignments: u64 = rng.random();
                        if let Some(r) = &mut record {
                            r.extend_from_slice(&bits);
                        }
                    }
                }
                drawn += 1;
                make(bits)
            })
            .collect()
    };
    // Arrangements in groups of GROUP, the groups spread over the threads.
    let evaluate = |group: &&[Draw]| evaluate_draws(sorted, parts, &readers, group);
    let mut references: Vec<super::Reference> = vec![Vec::with_capacity(count); parts.len()];
    let mut mean = signed_ranks.map(|_| Vec::with_capacity(count));
    let mut done = 0;
    let mut current = draw_chunk(CHUNK.min(count));
    while !current.is_empty() {
        let next_size = CHUNK.min(count - done - current.len());
        let groups: Vec<&[Draw]> = current.chunks(GROUP).collect();
        let (next, values) = both(
            || draw_chunk(next_size),
            || map_in_order(&groups, &evaluate),
        );
        for (draw, stats) in current.iter().zip(values.into_iter().flatten()) {
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
    if let Some(bits) = record {
        keep_flips(key, bits);
    }
    (references, mean)
}

/// Arrangements `which` of `n` blocks (`words` words of flips each) under `seed`, side by
/// side, each drawn from where the seeded stream reaches it: `n` flips and one seed of
/// the reassignments for every arrangement before it. `make` turns flips into a draw.
fn draw_apart(
    (seed, n, words): (u64, usize, usize),
    which: std::ops::Range<usize>,
    make: &(impl Fn(Vec<u64>) -> Draw + Sync),
) -> Vec<Draw> {
    let ms: Vec<u64> = (which.start as u64..which.end as u64).collect();
    map_in_order(&ms, &|&m| {
        let mut at = crate::resample::jump::xoshiro_after(seed, m * steps_per_arrangement(n));
        let mut bits = vec![0u64; words];
        draw_flips(&mut at, &mut bits, n);
        make(bits)
    })
}

/// In a sharing scope ([`share_arrangements`]): the flips kept for `key` (`(seed, blocks,
/// arrangements)`), or else an empty list to record the flips drawn into when they fit
/// (`words` an arrangement). Outside one: neither.
#[allow(clippy::type_complexity)]
fn shared_flips(
    key: (u64, usize, usize),
    words: usize,
) -> (Option<std::sync::Arc<Vec<u64>>>, Option<Vec<u64>>) {
    let fits = key
        .2
        .checked_mul(words)
        .is_some_and(|w| w.saturating_mul(8) <= SHARED_FLIPS_MAX_BYTES);
    match SHARED.lock() {
        Ok(shared) if shared.0 > 0 => {
            let kept = shared
                .1
                .as_ref()
                .filter(|k| k.key == key)
                .map(|k| std::sync::Arc::clone(&k.bits));
            let record = (kept.is_none() && fits).then(|| Vec::with_capacity(key.2 * words));
            (kept, record)
        }
        _ => (None, None),
    }
}

/// Keeps the flips `bits` drawn for `key` while a sharing scope is open.
fn keep_flips(key: (u64, usize, usize), bits: Vec<u64>) {
    if let Ok(mut shared) = SHARED.lock()
        && shared.0 > 0
    {
        shared.1 = Some(SharedFlips {
            key,
            bits: std::sync::Arc::new(bits),
        });
    }
}

/// Every run of one alignment, sorted, each with its run's number: block `b`'s baseline
/// runs, then its candidate runs, numbered from the block's offset. For blocks of any run
/// counts ([`random_references_by_run`]).
pub(super) struct SortedRunIds {
    values: Vec<f64>,
    ids: Vec<u32>,
}

impl SortedRunIds {
    /// `blocks[b]`: block `b`'s (baseline, candidate) runs.
    pub(super) fn new(blocks: &super::Pairs) -> SortedRunIds {
        let mut runs: Vec<(f64, u32)> = Vec::new();
        for (a, b) in blocks {
            for &x in a.iter().chain(b) {
                runs.push((x, runs.len() as u32));
            }
        }
        runs.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        let (values, ids) = runs.into_iter().unzip();
        SortedRunIds { values, ids }
    }
}

/// Where a quantile's statistic is read in a [`SortedRunIds`] for any arrangement: the
/// positions `lo..hi`, and the runs below `lo` (bits by run number), whose members of
/// the baseline's pool an arrangement's bits count.
struct RunReader {
    lo: usize,
    hi: usize,
    below: Vec<u64>,
}

impl RunReader {
    /// The window that holds both pools' weighted ranks (`wa`, `wb`) for every arrangement
    /// but those 7 standard deviations of the pool counts away: the count of the
    /// baseline's pool below a position has mean `sum c_b na_b / m_b` and the variance of
    /// its blocks (a swap: `d_b^2 / 4`; a reassignment: hypergeometric), with `c_b` of the
    /// block's `m_b` runs below it. An arrangement beyond is read from the whole array.
    fn new(
        runs: &SortedRunIds,
        layout: &[(u32, u32, u32)],
        block_of: &[u32],
        wa: &HdWindow,
        wb: &HdWindow,
    ) -> RunReader {
        let total = runs.values.len();
        let mut below_runs = vec![0u32; layout.len()];
        let mut below_b = vec![0i64; layout.len()];
        let var_of = |b: usize, c: u32, d: i64| -> f64 {
            let (_, na, nb) = layout[b];
            if na == nb {
                (d * d) as f64 / 4.0
            } else {
                let (m, c, na) = (f64::from(na + nb), f64::from(c), f64::from(na));
                let p = c / m;
                na * p * (1.0 - p) * (m - na) / (m - 1.0)
            }
        };
        let (mut mean_a, mut var) = (0.0f64, 0.0f64);
        let (mut lo, mut hi) = (0usize, total);
        let (k0a, k0b, k1a, k1b) = (
            wa.start as f64,
            wb.start as f64,
            wa.end() as f64,
            wb.end() as f64,
        );
        for g in 0..=total {
            let spread = 16.0 + 7.0 * var.max(0.0).sqrt();
            let mean_b = g as f64 - mean_a;
            if mean_a + spread <= k0a && mean_b + spread <= k0b {
                lo = g;
            }
            if mean_a - spread >= k1a && mean_b - spread >= k1b {
                hi = g;
                break;
            }
            if g == total {
                break;
            }
            let id = runs.ids[g] as usize;
            let b = block_of[id] as usize;
            let (offset, na, nb) = layout[b];
            let candidate = id as u32 - offset >= na;
            let before = var_of(b, below_runs[b], below_b[b]);
            below_runs[b] += 1;
            below_b[b] += if candidate { 1 } else { -1 };
            var += var_of(b, below_runs[b], below_b[b]) - before;
            mean_a += f64::from(na) / f64::from(na + nb);
        }
        let mut below = vec![0u64; total.div_ceil(64)];
        for &id in &runs.ids[..lo] {
            below[id as usize >> 6] |= 1 << (id & 63);
        }
        RunReader { lo, hi, below }
    }

    /// The statistic of the arrangement `members` (bits by run number: in the baseline's
    /// pool); `None` when its pools do not fill the window.
    fn stat(&self, runs: &SortedRunIds, windows: [&HdWindow; 2], members: &[u64]) -> Option<f64> {
        let below_a: u32 = self
            .below
            .iter()
            .zip(members)
            .map(|(b, m)| (b & m).count_ones())
            .sum();
        let below_a = below_a as usize;
        let below_b = self.lo - below_a;
        if below_a > windows[0].start || below_b > windows[1].start {
            return None;
        }
        scan_by_run(
            runs,
            windows,
            members,
            (self.lo, self.hi),
            [below_b, below_a],
        )
    }
}

/// [`scan`] for blocks of any run counts: `members` says which runs are in the baseline's
/// pool, `windows` are the baseline's and the candidate's weights.
fn scan_by_run(
    runs: &SortedRunIds,
    [wa, wb]: [&HdWindow; 2],
    members: &[u64],
    (lo, hi): (usize, usize),
    below: [usize; 2],
) -> Option<f64> {
    let mut counts = below;
    let mut sums = [0.0f64; 2];
    let windows = [wb, wa];
    for g in lo..hi {
        let id = runs.ids[g] as usize;
        let in_a = (members[id >> 6] >> (id & 63) & 1) as usize;
        let rank = counts[in_a];
        counts[in_a] = rank + 1;
        let w = windows[in_a];
        let i = rank.wrapping_sub(w.start);
        if i < w.weights.len() {
            sums[in_a] += w.weights[i] * runs.values[g];
        }
    }
    if counts[1] < wa.end() || counts[0] < wb.end() {
        return None;
    }
    Some(sums[0] - sums[1])
}

/// Every random arrangement's `(T, c)` for each part `(runs, [wa, wb])` (an index into
/// `sorted`, and the quantile's weights for the baseline's and the candidate's pool
/// sizes), on blocks of any run counts: the numbers [`super::arranged_stat`] gives, from
/// the same seeded stream (a block with as many runs of each variant swaps them or not; a
/// block with unequal counts reassigns its runs by the same partial shuffle). Each
/// arrangement is drawn as the baseline pool's run bits (`O(N)`: every reassignment draws
/// its runs), then each part read from a window of its sorted runs. `blocks[b]`: the
/// runs each variant has in block `b`. `progress(done)` after each chunk.
/// Time: `O(N log N)` for the sorts, then `O(N)` per arrangement and
/// `O(N / 64 + sqrt(N))` per arrangement and part, instead of `O(N log N)` per both.
pub(super) fn random_references_by_run(
    sorted: &[SortedRunIds],
    counts: &[(usize, usize)],
    parts: &[(usize, [&HdWindow; 2])],
    count: usize,
    seed: u64,
    progress: &mut dyn FnMut(usize),
) -> Vec<super::Reference> {
    let mut layout = Vec::with_capacity(counts.len());
    let mut block_of = Vec::new();
    let mut offset = 0u32;
    for (b, &(na, nb)) in counts.iter().enumerate() {
        layout.push((offset, na as u32, nb as u32));
        block_of.extend(std::iter::repeat_n(b as u32, na + nb));
        offset += (na + nb) as u32;
    }
    let total = offset as usize;
    let readers: Vec<RunReader> = parts
        .iter()
        .map(|&(r, [wa, wb])| RunReader::new(&sorted[r], &layout, &block_of, wa, wb))
        .collect();
    let (pool_a, pool_b): (usize, usize) =
        counts.iter().fold((0, 0), |(x, y), &(a, b)| (x + a, y + b));
    let n = counts.len();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut flips = vec![false; n];
    let mut idx: Vec<usize> = Vec::new();
    let mut draw_chunk = |size: usize| -> Vec<(Vec<u64>, usize)> {
        (0..size)
            .map(|_| {
                // As Arrangements::each draws them, and arranged_stat reassigns.
                fill_flips(&mut rng, &mut flips);
                let mut sub = Xoshiro256PlusPlus::seed_from_u64(rng.random());
                let mut bits = vec![0u64; total.div_ceil(64)];
                let mut set = |id: usize| bits[id >> 6] |= 1 << (id & 63);
                let mut moved = 0;
                for (i, &(offset, na, nb)) in layout.iter().enumerate() {
                    let (offset, na, nb) = (offset as usize, na as usize, nb as usize);
                    if na == nb {
                        let from = if flips[i] { offset + na } else { offset };
                        (from..from + na).for_each(&mut set);
                        moved += if flips[i] { nb } else { 0 };
                    } else {
                        idx.clear();
                        idx.extend(0..na + nb);
                        let m = idx.len();
                        for k in 0..na {
                            let j = sub.random_range(k..m);
                            idx.swap(k, j);
                        }
                        for &k in &idx[..na] {
                            set(offset + k);
                            moved += usize::from(k >= na);
                        }
                    }
                }
                (bits, moved)
            })
            .collect()
    };
    let evaluate = |draw: &(Vec<u64>, usize)| -> Vec<f64> {
        parts
            .iter()
            .zip(&readers)
            .map(|(&(r, windows), reader)| {
                let runs = &sorted[r];
                reader
                    .stat(runs, windows, &draw.0)
                    .or_else(|| scan_by_run(runs, windows, &draw.0, (0, runs.values.len()), [0, 0]))
                    .unwrap_or(f64::NAN)
            })
            .collect()
    };
    let mut references: Vec<super::Reference> = vec![Vec::with_capacity(count); parts.len()];
    let mut done = 0;
    let mut current = draw_chunk(CHUNK.min(count));
    while !current.is_empty() {
        let next_size = CHUNK.min(count - done - current.len());
        let (next, values) = both(
            || draw_chunk(next_size),
            || map_in_order(&current, &evaluate),
        );
        for ((_, moved), stats) in current.iter().zip(values) {
            let stayed = pool_b - moved;
            let c = stayed as f64 / pool_b as f64 - *moved as f64 / pool_a as f64;
            for (r, t) in references.iter_mut().zip(stats) {
                r.push((t, c));
            }
        }
        done += current.len();
        progress(done);
        current = next;
    }
    references
}

/// One random arrangement's flips of `flips.len()` blocks, one `bool` a block, the same
/// flips [`draw_flips`] packs into words: below [`WORD_FLIPS_FROM`] blocks one draw a
/// flip (`random::<bool>()`), from it 64 flips a draw.
pub(super) fn fill_flips(rng: &mut Xoshiro256PlusPlus, flips: &mut [bool]) {
    if flips.len() >= WORD_FLIPS_FROM {
        for chunk in flips.chunks_mut(64) {
            let x = rng.next_u64();
            for (j, flip) in chunk.iter_mut().enumerate() {
                *flip = x >> j & 1 == 1;
            }
        }
    } else {
        for flip in flips {
            *flip = rng.random::<bool>();
        }
    }
}

/// `n` coin flips into `bits` (bit `i % 64` of word `i / 64`): below
/// [`WORD_FLIPS_FROM`] blocks each the top bit of the next 64 of `rng`, as
/// `rng.random::<bool>()` draws them one at a time; from it, a word a draw. A word at a
/// time, without a branch, on a copy of the generator's state held in registers (written
/// back after), so the stream is the same. Time: `O(n)` (`O(n / 64)` from
/// [`WORD_FLIPS_FROM`]), one generator step a flip (a word).
fn draw_flips(rng: &mut Xoshiro256PlusPlus, bits: &mut [u64], n: usize) {
    let mut local = rng.clone();
    let by_word = n >= WORD_FLIPS_FROM;
    for (w, word) in bits.iter_mut().enumerate() {
        let flips = n.saturating_sub(w * 64).min(64);
        *word = if by_word {
            let x = local.next_u64();
            if flips == 64 {
                x
            } else {
                x & ((1u64 << flips) - 1)
            }
        } else {
            let mut x = 0u64;
            for j in 0..flips {
                x |= (local.next_u64() >> 63) << j;
            }
            x
        };
    }
    *rng = local;
}

/// The sum of `ranks[i]` over the bits `i` set in `bits`, in eight lanes without a branch
/// (a block not swapped adds 0). Signed ranks are multiples of 1/2, so every sum of them
/// (below 2^52) is exact in any order: the same number as adding them one by one.
/// Time: `O(n)`, vectorized.
fn flipped_sum(bits: &[u64], ranks: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let chunks = ranks.chunks_exact(64);
    let rest = chunks.remainder();
    for (&word, chunk) in bits.iter().zip(chunks) {
        for (k, eight) in chunk.chunks_exact(8).enumerate() {
            let byte = word >> (8 * k);
            for (j, (lane, &r)) in lanes.iter_mut().zip(eight).enumerate() {
                *lane += if byte >> j & 1 == 1 { r } else { 0.0 };
            }
        }
    }
    if let Some(&word) = bits.get(ranks.len() / 64) {
        for (j, &r) in rest.iter().enumerate() {
            lanes[j & 7] += if word >> j & 1 == 1 { r } else { 0.0 };
        }
    }
    lanes.iter().sum()
}

/// The signed ranks (each a multiple of 1/2) four blocks at a time: entry `16 g + m` is
/// the sum of twice the ranks of blocks `4 g .. 4 g + 4` whose bit is set in the nibble
/// `m`, an integer. [`FlipTable::flipped_sum`] reads one entry a nibble of flips where
/// [`flipped_sum`] adds one term a block; every sum is exact (integers), so the same
/// number. Memory: 16 bytes a block.
struct FlipTable {
    sums: Vec<i32>,
}

impl FlipTable {
    /// `None` when a rank is not a multiple of 1/2 or four of them do not fit an `i32`.
    fn new(ranks: &[f64]) -> Option<FlipTable> {
        let twice: Vec<i32> = ranks
            .iter()
            .map(|&r| {
                let t = 2.0 * r;
                (t.fract() == 0.0 && t.abs() <= f64::from(i32::MAX / 4)).then_some(t as i32)
            })
            .collect::<Option<_>>()?;
        let groups = ranks.len().div_ceil(64) * 16;
        let mut sums = vec![0i32; groups * 16];
        for (g, entries) in sums.chunks_exact_mut(16).enumerate() {
            let four: [i32; 4] =
                std::array::from_fn(|k| twice.get(4 * g + k).copied().unwrap_or(0));
            for (m, e) in entries.iter_mut().enumerate() {
                *e = (0..4).filter(|k| m >> k & 1 == 1).map(|k| four[k]).sum();
            }
        }
        Some(FlipTable { sums })
    }

    /// [`flipped_sum`] of the ranks the table was made of. Time: `O(n / 4)` lookups.
    fn flipped_sum(&self, bits: &[u64]) -> f64 {
        let mut total = 0i64;
        for (word, sums) in bits.iter().zip(self.sums.chunks_exact(256)) {
            for (k, entries) in sums.chunks_exact(16).enumerate() {
                total += i64::from(entries[(word >> (4 * k) & 15) as usize]);
            }
        }
        // Exact: |total| is below 2^53 (ranks below 2^28).
        total as f64 / 2.0
    }
}

/// The indices of the bits set in `words`, ascending.
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let i = w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                i
            })
        })
    })
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

    /// [`random_references_by_run`] against the sorted pools of every arrangement
    /// ([`reference`]) on blocks of mixed run counts: the same numbers, bit for bit.
    fn check_by_run_against_sorted_pools(blocks: usize, count: usize) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(blocks as u64);
        let shapes = [(1, 3), (2, 2), (3, 1), (2, 3)];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..blocks {
            let (na, nb) = shapes[i % shapes.len()];
            let s = 1.0 + 0.1 * ((i * 7 % 11) as f64);
            let mut run = |k: f64| {
                let slow = if rng.random::<f64>() < 0.1 { 1.5 } else { 1.0 };
                s * k * slow * (1.0 + 0.02 * rng.random::<f64>())
            };
            a.push((0..na).map(|_| run(1.0)).collect::<Vec<f64>>());
            b.push((0..nb).map(|_| run(1.01)).collect::<Vec<f64>>());
        }
        let logs = LogBlocks::new(&a, &b).unwrap();
        let observed = logs.normalized(0.0);
        let aligned = logs.normalized(0.0123);
        let (na, nb) = logs.totals();
        let counts: Vec<(usize, usize)> =
            a.iter().zip(&b).map(|(x, y)| (x.len(), y.len())).collect();
        let qs = [0.1, 0.5, 0.9];
        let windows: Vec<[HdWindow; 2]> = qs
            .iter()
            .map(|&q| [HdWindow::new(na, q), HdWindow::new(nb, q)])
            .collect();
        let sorted = vec![SortedRunIds::new(&observed), SortedRunIds::new(&aligned)];
        let parts: Vec<(usize, [&HdWindow; 2])> = windows
            .iter()
            .map(|w| (0, [&w[0], &w[1]]))
            .chain(windows.iter().map(|w| (1, [&w[0], &w[1]])))
            .collect();
        let mut reported = Vec::new();
        let got = random_references_by_run(&sorted, &counts, &parts, count, 5, &mut |k| {
            reported.push(k)
        });
        assert_eq!(reported.last(), Some(&count));
        let arrangements = Arrangements::Random(count);
        for (j, &q) in qs.iter().enumerate() {
            let wa = super::super::harrell_davis_weights(na, q);
            let wb = super::super::harrell_davis_weights(nb, q);
            for (k, blocks) in [&observed, &aligned].into_iter().enumerate() {
                let want = reference(blocks, &wa, &wb, arrangements, 5);
                assert_eq!(got[k * qs.len() + j], want, "q {q} alignment {k}");
            }
        }
    }

    #[test]
    fn unequal_counts_give_the_sorted_pools_numbers() {
        check_by_run_against_sorted_pools(30, 300);
    }

    #[test]
    fn unequal_counts_give_the_sorted_pools_numbers_through_the_window() {
        // Over 4096 runs a variant: the weights are windowed, and so is the reading.
        check_by_run_against_sorted_pools(2400, 16);
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
    fn flips_as_bools_and_as_words_are_the_same_draws() {
        // One draw a flip below WORD_FLIPS_FROM blocks, 64 flips a draw from it: the bools
        // of Arrangements::each and of the run-by-run arrangements are the packed words'
        // bits, and both leave the generator where an arrangement's steps say.
        for n in [
            1usize,
            65,
            1000,
            WORD_FLIPS_FROM - 1,
            WORD_FLIPS_FROM,
            WORD_FLIPS_FROM + 70,
        ] {
            let mut by_bool = Xoshiro256PlusPlus::seed_from_u64(n as u64);
            let mut by_word = by_bool.clone();
            let mut flips = vec![false; n];
            fill_flips(&mut by_bool, &mut flips);
            let mut bits = vec![0u64; n.div_ceil(64)];
            draw_flips(&mut by_word, &mut bits, n);
            let unpacked: Vec<bool> = (0..n).map(|i| bits[i >> 6] >> (i & 63) & 1 == 1).collect();
            assert_eq!(flips, unpacked, "{n}");
            assert_eq!(by_bool, by_word, "{n}");
            let mut stepped = Xoshiro256PlusPlus::seed_from_u64(n as u64);
            for _ in 1..steps_per_arrangement(n) {
                stepped.next_u64();
            }
            assert_eq!(stepped, by_word, "{n}");
            // Fair flips either way: about half set.
            let set = flips.iter().filter(|&&f| f).count();
            if n >= 1000 {
                assert!(set.abs_diff(n / 2) < n / 10, "{n}: {set}");
            }
        }
    }

    #[test]
    fn many_blocks_give_the_sorted_pools_numbers_drawn_apart() {
        // DRAW_APART_FROM blocks and more: each arrangement drawn from where the stream
        // reaches it, over two chunks; the same numbers as the stream drawn in order.
        check_against_sorted_pools(DRAW_APART_FROM + 4, 2, CHUNK + 6);
    }

    #[test]
    fn an_alignment_merged_from_the_sorted_sides_is_its_runs_sorted_and_gives_their_numbers() {
        let (a, b) = data(600, 2, 1.01, 7);
        let logs = LogBlocks::new(&a, &b).unwrap();
        let observed = logs.normalized(0.0);
        let sides = SortedSides::new(&observed);
        let window = HdWindow::new(1200, 0.1);
        let references = |runs: SortedRuns| {
            random_references(&[runs], &[(0, &window)], 200, 3, None, &mut |_| {}).0
        };
        for t in [0.0, 0.0123, -0.4] {
            let aligned = logs.normalized(t);
            let (merged, sorted) = (sides.shifted(&aligned, t), SortedRuns::new(&aligned));
            let bits = |r: &SortedRuns| r.values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&merged), bits(&sorted), "shift {t}");
            assert_eq!(merged.tags, sorted.tags, "shift {t}");
            assert_eq!(references(merged), references(sorted), "shift {t}");
        }
        // Runs that are not the observed ones shifted by `shift`: sorted anew.
        let other = logs.normalized(0.3);
        let fallback = sides.shifted(&other, 0.2);
        assert_eq!(fallback.values, SortedRuns::new(&other).values);
    }

    #[test]
    fn the_flipped_ranks_sum_in_lanes_to_the_sum_one_by_one() {
        let d: Vec<f64> = (0..1000)
            .map(|i| f64::from(i * 37 % 101 - 50) / 7.0)
            .collect();
        let ranks = signed_ranks(&d);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        for n in [1usize, 63, 64, 65, 130, 1000] {
            let mut bits = vec![0u64; n.div_ceil(64)];
            draw_flips(&mut rng, &mut bits, n);
            let one_by_one: f64 = set_bits(&bits).map(|i| ranks[i]).sum();
            assert_eq!(flipped_sum(&bits, &ranks[..n]), one_by_one, "{n}");
            let table = FlipTable::new(&ranks[..n]).unwrap();
            let lanes = flipped_sum(&bits, &ranks[..n]);
            assert_eq!(table.flipped_sum(&bits).to_bits(), lanes.to_bits(), "{n}");
        }
    }

    #[test]
    fn four_arrangements_read_together_give_each_one_read_alone() {
        let (a, b) = data(2200, 2, 1.01, 5);
        let logs = LogBlocks::new(&a, &b).unwrap();
        let runs = SortedRuns::new(&logs.normalized(0.0));
        let window = HdWindow::new(4400, 0.9);
        let weights = Weights::new(&window);
        let reader = Reader::new(&runs, &window);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        let draws: Vec<Draw> = (0..GROUP)
            .map(|_| {
                let mut bits = vec![0u64; 2200usize.div_ceil(64)];
                draw_flips(&mut rng, &mut bits, 2200);
                Draw {
                    bits,
                    moved: 0,
                    mean: 0.0,
                }
            })
            .collect();
        let swapped = |d: &Draw| d.bits.iter().map(|w| i64::from(w.count_ones())).sum();
        let below: Vec<[usize; 2]> = draws
            .iter()
            .map(|d| reader.below(&window, d, swapped(d)).unwrap())
            .collect();
        let together = scan4(
            &runs,
            &weights,
            std::array::from_fn(|d| &draws[d].bits[..]),
            (reader.lo, reader.hi),
            std::array::from_fn(|d| below[d]),
        );
        for (d, draw) in draws.iter().enumerate() {
            let alone = scan(&runs, &window, &draw.bits, (reader.lo, reader.hi), below[d]);
            assert!(alone.is_some());
            assert_eq!(
                together[d].map(f64::to_bits),
                alone.map(f64::to_bits),
                "{d}"
            );
        }
    }

    #[test]
    fn an_alignment_held_in_its_window_gives_the_numbers_of_every_run() {
        let (a, b) = data(12_000, 2, 1.01, 11);
        let logs = LogBlocks::new(&a, &b).unwrap();
        let observed = logs.normalized(0.0);
        let t = 0.0123;
        let aligned = logs.normalized(t);
        let sides = SortedSides::new(&observed);
        let window = HdWindow::new(24_000, 0.9);
        let again = {
            let aligned = aligned.clone();
            move || SortedRuns::new(&aligned)
        };
        let held = sides
            .shifted(&aligned, t)
            .windowed(&window, Box::new(again));
        assert!(held.values.len() < held.total / 2, "{}", held.values.len());
        let every = vec![sides.shifted(&observed, 0.0), sides.shifted(&aligned, t)];
        let held = vec![sides.into_runs(), held];
        let parts = [(1, &window), (0, &window)];
        let references =
            |sorted: &[SortedRuns]| random_references(sorted, &parts, 150, 4, None, &mut |_| {}).0;
        assert_eq!(references(&held), references(&every));
        // An arrangement far outside the window: read from every run, merged again.
        let mut bits = vec![0u64; 12_000usize.div_ceil(64)];
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            if y[0] < x[0] {
                bits[i >> 6] |= 1 << (i & 63);
            }
        }
        let draws = [Draw {
            bits,
            moved: 0,
            mean: 0.0,
        }];
        let read = |sorted: &[SortedRuns]| {
            let readers: Vec<(Reader, Weights)> = parts
                .iter()
                .map(|&(r, w)| {
                    let reader = match &sorted[r].windowed {
                        Some((reader, _)) => reader.clone(),
                        None => Reader::new(&sorted[r], w),
                    };
                    (reader, Weights::new(w))
                })
                .collect();
            evaluate_draws(sorted, &parts, &readers, &draws)
        };
        let swapped = draws[0]
            .bits
            .iter()
            .map(|w| i64::from(w.count_ones()))
            .sum();
        if let Some((reader, _)) = &held[1].windowed {
            assert!(reader.below(&window, &draws[0], swapped).is_none());
        }
        let (x, y) = (read(&held), read(&every));
        assert!(x[0][0].is_finite());
        assert_eq!(x[0][0].to_bits(), y[0][0].to_bits());
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
        let all = scan(&runs, &window, &draw.bits, (0, runs.values.len()), [0, 0]);
        assert!(all.is_some());
        if let Some(t) = reader.stat(&runs, &window, &draw, swapped) {
            assert_eq!(Some(t), all);
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn a_check_in_a_sharing_scope_reads_the_flips_of_the_one_before_and_gets_its_own_numbers() {
        // Two data sets of the same 200 blocks (as the wall and the CPU times of one
        // experiment): in a scope the second reads the first's flips; each gives the
        // numbers it gives drawn anew, and so does one of another seed in the scope.
        let references = |shift: f64, seed: u64| {
            let (a, b) = data(200, 2, shift, 3);
            let logs = LogBlocks::new(&a, &b).unwrap();
            let sorted = vec![SortedRuns::new(&logs.normalized(0.0))];
            let window = HdWindow::new(400, 0.1);
            let d: Vec<f64> = logs
                .a
                .iter()
                .zip(&logs.b)
                .map(|(a, b)| b[0] - a[0])
                .collect();
            let ranks = signed_ranks(&d);
            random_references(
                &sorted,
                &[(0, &window)],
                300,
                seed,
                Some(&ranks),
                &mut |_| {},
            )
        };
        let anew = [
            references(1.02, 4),
            references(1.05, 4),
            references(1.05, 5),
        ];
        // (Which flips the store holds is not asserted: tests running beside this one
        // may draw into it while the scope is open; the numbers are the same whichever.)
        let shared = share_arrangements(|| {
            [
                references(1.02, 4),
                references(1.05, 4),
                references(1.05, 5),
            ]
        });
        assert_eq!(shared, anew);
        assert_ne!(anew[0], anew[1]);
    }

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
