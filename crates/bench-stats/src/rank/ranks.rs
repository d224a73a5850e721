//! Mid-ranks with tie bookkeeping, shared by every rank test in the crate.

use std::cmp::Ordering;

/// Ranks of a set of values, in the values' original order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranks {
    /// 1-based mid-ranks: tied values share the mean of the positions they occupy.
    pub ranks: Vec<f64>,
    /// `sum(t^3 - t)` over the tie groups (0 when there are no ties).
    pub tie_term: f64,
    /// Size of the largest tie group (1 when all values are distinct).
    pub largest_tie: usize,
}

impl Ranks {
    /// `true` when at least two values are equal.
    pub fn has_ties(&self) -> bool {
        self.largest_tie > 1
    }
}

/// Total order on finite values that treats `-0.0 == 0.0` (unlike `total_cmp`).
pub(crate) fn cmp_f64(a: &f64, b: &f64) -> Ordering {
    a.partial_cmp(b).unwrap_or_else(|| a.total_cmp(b))
}

/// Mid-ranks within each block (row) of a blocks x treatments table, for the blocked
/// rank tests (Friedman, Page): every row must hold `k` finite values; `each` gets every
/// row's ranks in turn (one buffer, no allocation per row). Rows of up to
/// [`COUNTED_ROW_MAX`] values are ranked by counting, without sorting.
/// Time: O(n k^2) for short rows, O(n k log k) otherwise.
///
/// Generic only at the surface: the work is in the non-generic [`rank_rows_dyn`], so a
/// caller built without optimisation still runs this crate's optimised code.
///
/// # Errors
/// [`crate::StatsError::LengthMismatch`] for a row of another length;
/// [`crate::StatsError::NonFinite`] (named `what`) for a NaN or infinite value.
pub(crate) fn rank_rows<B: AsRef<[f64]>>(
    blocks: &[B],
    k: usize,
    what: &'static str,
    mut each: impl FnMut(&Ranks),
) -> Result<(), crate::StatsError> {
    rank_rows_dyn(blocks.len(), &|i| blocks[i].as_ref(), k, what, &mut each)
}

/// Rows of at most this many values are ranked by counting, in O(k^2) comparisons without
/// branches, rather than sorted.
const COUNTED_ROW_MAX: usize = 8;

/// [`rank_rows`] over `n` rows given by `row`.
pub(crate) fn rank_rows_dyn<'a>(
    n: usize,
    row: &dyn Fn(usize) -> &'a [f64],
    k: usize,
    what: &'static str,
    each: &mut dyn FnMut(&Ranks),
) -> Result<(), crate::StatsError> {
    let mut order = Vec::with_capacity(k);
    let mut ranks = Ranks {
        ranks: Vec::with_capacity(k),
        tie_term: 0.0,
        largest_tie: 0,
    };
    for i in 0..n {
        let row = row(i);
        if row.len() != k {
            return Err(crate::StatsError::LengthMismatch {
                left: k,
                right: row.len(),
            });
        }
        if let Some(&value) = row.iter().find(|v| !v.is_finite()) {
            return Err(crate::StatsError::NonFinite { what, value });
        }
        if k <= COUNTED_ROW_MAX {
            counted_mid_ranks_into(row, &mut ranks);
        } else {
            mid_ranks_into(row, &mut order, &mut ranks);
        }
        each(&ranks);
    }
    Ok(())
}

/// [`mid_ranks`] of a short row by counting: a value with `less` values below it and `eq`
/// equal to it (itself included) has the mid-rank `less + (eq + 1) / 2`, and
/// `sum(eq^2 - 1)` over the values is `sum(t^3 - t)` over the tie groups. The same
/// numbers as sorting. Time: O(k^2).
fn counted_mid_ranks_into(row: &[f64], out: &mut Ranks) {
    out.ranks.clear();
    let (mut tie_term, mut largest_tie) = (0_usize, usize::from(!row.is_empty()));
    for &x in row {
        let (mut less, mut eq) = (0_usize, 0_usize);
        for &y in row {
            less += usize::from(y < x);
            eq += usize::from(y == x);
        }
        out.ranks.push(less as f64 + (eq + 1) as f64 / 2.0);
        tie_term += eq * eq - 1;
        largest_tie = largest_tie.max(eq);
    }
    out.tie_term = tie_term as f64;
    out.largest_tie = largest_tie;
}

/// Mid-ranks of `values`. Time: O(n log n); memory: O(n).
pub(crate) fn mid_ranks(values: &[f64]) -> Ranks {
    let mut ranks = Ranks {
        ranks: Vec::new(),
        tie_term: 0.0,
        largest_tie: 0,
    };
    mid_ranks_into(values, &mut Vec::new(), &mut ranks);
    ranks
}

/// [`mid_ranks`] into `out`, with `order` as scratch.
fn mid_ranks_into(values: &[f64], order: &mut Vec<(f64, usize)>, out: &mut Ranks) {
    let n = values.len();
    order.clear();
    order.extend(values.iter().copied().zip(0..n));
    order.sort_unstable_by(|x, y| cmp_f64(&x.0, &y.0));
    let ranks = &mut out.ranks;
    ranks.clear();
    ranks.resize(n, 0.0);
    let mut tie_term = 0.0;
    let mut largest_tie = usize::from(n > 0);
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && order[end].0 == order[start].0 {
            end += 1;
        }
        // Positions start+1 ..= end share the rank (start + 1 + end) / 2.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &(_, idx) in &order[start..end] {
            ranks[idx] = rank;
        }
        let t = (end - start) as f64;
        if end - start > 1 {
            tie_term += t * t * t - t;
            largest_tie = largest_tie.max(end - start);
        }
        start = end;
    }
    out.tie_term = tie_term;
    out.largest_tie = largest_tie;
}

/// The signed-rank sum of a sample of differences: the ranks of `|d|` over the non-zero
/// differences (mid-ranks for ties), summed over the positive ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SignedRankSum {
    /// Sum of the ranks of the positive differences.
    pub t_plus: f64,
    /// `sum(t^3 - t)` over the tie groups of `|d|`.
    pub tie_term: f64,
    /// Size of the largest tie group (1 when all `|d|` differ, 0 for none).
    pub largest_tie: usize,
    /// Non-zero differences.
    pub n: usize,
}

/// [`SignedRankSum`] of finite `differences`, without materialising the ranks: each
/// non-zero difference becomes the integer key `|d|`'s bits then its sign (ordered as `|d|`
/// is, the sign breaking no tie of `|d|`), all are sorted, and one pass finds the runs of
/// equal `|d|` and adds the doubled mid-ranks of the positive ones, in integers. The same
/// numbers as summing [`mid_ranks`] of `|d|` (the ranks are multiples of 1/2: every sum
/// is exact). Time: O(n log n); memory: O(n).
pub(crate) fn signed_rank_sum(differences: &[f64]) -> SignedRankSum {
    let src = Signed(differences);
    let n = differences.iter().filter(|&&d| d != 0.0).count();
    let keys = sorted_keys(&src, n);
    let mut sums = [0_u64; 2];
    let ties = doubled_rank_sums(&keys, 1, &mut sums);
    SignedRankSum {
        t_plus: sums[1] as f64 / 2.0,
        tie_term: ties.term,
        largest_tie: ties.largest,
        n: keys.len(),
    }
}

/// Rank sums of several groups ranked together, with the tie bookkeeping of [`mid_ranks`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GroupRanks {
    /// Sum of the pooled mid-ranks of each group's values, in group order.
    pub rank_sums: Vec<f64>,
    /// `sum(t^3 - t)` over the tie groups of the pooled values.
    pub tie_term: f64,
    /// Size of the largest tie group (1 when all values are distinct).
    pub largest_tie: usize,
}

/// Order-preserving map of a finite `f64` to `u64` that makes `-0.0` and `0.0` equal.
fn sort_key(x: f64) -> u64 {
    // `-0.0 + 0.0` is `0.0`, every other finite value is unchanged; then the sign bit
    // flips a positive value's key above every negative one, and all the bits of a
    // negative one reverse its order. No branch, so the key loops vectorize.
    let bits = (x + 0.0).to_bits();
    bits ^ (((bits as i64) >> 63) as u64 | 1 << 63)
}

/// Integer keys to sort, ordered as the values they stand for.
trait KeySource {
    /// Calls `f` with every key, in the same order on every call.
    fn each(&self, f: impl FnMut(u64));
    /// Appends every key to `keys`, in the order of [`KeySource::each`].
    fn extend_into(&self, keys: &mut Vec<u64>);
    /// About `count` keys, taken at even steps (all of them when there are fewer).
    fn sample(&self, count: usize) -> Vec<u64>;
}

/// Groups of finite values keyed `(sort_key(x) - offset) << bits | group`.
struct Tagged<'a> {
    groups: &'a [&'a [f64]],
    bits: u32,
    offset: u64,
}

impl Tagged<'_> {
    fn key(&self, x: f64, tag: u64) -> u64 {
        (sort_key(x) - self.offset) << self.bits | tag
    }
}

impl KeySource for Tagged<'_> {
    fn each(&self, mut f: impl FnMut(u64)) {
        for (tag, g) in (0_u64..).zip(self.groups) {
            for &x in *g {
                f(self.key(x, tag));
            }
        }
    }

    fn extend_into(&self, keys: &mut Vec<u64>) {
        for (tag, g) in (0_u64..).zip(self.groups) {
            keys.extend(g.iter().map(|&x| self.key(x, tag)));
        }
    }

    fn sample(&self, count: usize) -> Vec<u64> {
        let n: usize = self.groups.iter().map(|g| g.len()).sum();
        let step = (n / count.max(1)).max(1);
        let mut out = Vec::with_capacity(n / step + 1);
        // Positions in the groups laid end to end: the next sampled one, the group's first.
        let (mut next, mut first) = (0, 0);
        for (tag, g) in (0_u64..).zip(self.groups) {
            while next < first + g.len() {
                out.push(self.key(g[next - first], tag));
                next += step;
            }
            first += g.len();
        }
        out
    }
}

/// Non-zero differences keyed by `|d|`'s bits then the sign (non-negative floats order as
/// their bits; the sign is the tag).
struct Signed<'a>(&'a [f64]);

impl Signed<'_> {
    fn key(d: f64) -> u64 {
        d.abs().to_bits() << 1 | u64::from(d > 0.0)
    }
}

impl KeySource for Signed<'_> {
    fn each(&self, mut f: impl FnMut(u64)) {
        for &d in self.0 {
            if d != 0.0 {
                f(Signed::key(d));
            }
        }
    }

    fn extend_into(&self, keys: &mut Vec<u64>) {
        keys.extend(
            self.0
                .iter()
                .filter(|&&d| d != 0.0)
                .map(|&d| Signed::key(d)),
        );
    }

    fn sample(&self, count: usize) -> Vec<u64> {
        let step = (self.0.len() / count.max(1)).max(1);
        self.0
            .iter()
            .step_by(step)
            .filter(|&&d| d != 0.0)
            .map(|&d| Signed::key(d))
            .collect()
    }
}

/// The `n` keys of `src` sorted ascending: the same array as the standard library's
/// unstable sort (ipnsort), which sorts fewer than [`BUCKETED_MIN`] keys, and more whose
/// sample [`bucket_sorted`] judges too uneven to split.
///
/// An LSD radix sort with 11-bit digits was here before: on the shared 2-vCPU machine,
/// whose memory bandwidth the other jobs share, its six passes over 10^6 keys cost more
/// than the comparison sort (the measurements are in docs/performance.md).
/// Time: O(n log n); memory: `n` keys.
fn sorted_keys(src: &impl KeySource, n: usize) -> Vec<u64> {
    if n >= BUCKETED_MIN {
        if let Some(keys) = bucket_sorted(src, n, true) {
            return keys;
        }
    }
    let mut keys = Vec::with_capacity(n);
    src.extend_into(&mut keys);
    keys.sort_unstable();
    keys
}

/// From this many keys up, [`sorted_keys`] tries [`bucket_sorted`].
const BUCKETED_MIN: usize = 1 << 17;

/// About this many keys are sampled to place the buckets.
const SAMPLE: usize = 4096;

/// Key ranges of equal width from a sampled key `lo` up: bucket 0 holds the keys below
/// `lo`, bucket `1 + i` those `i` widths of `2^shift` above it, and the last bucket
/// everything above. A key's bucket never decreases as the key grows, so the buckets
/// sorted one by one and laid side by side are the sorted keys.
#[derive(Debug, Clone, Copy)]
struct Window {
    lo: u64,
    shift: u32,
    last: u64,
}

impl Window {
    /// The bucket of `key`, without a branch.
    fn of(self, key: u64) -> usize {
        let above = u64::from(key >= self.lo);
        ((key.saturating_sub(self.lo) >> self.shift) + above).min(self.last) as usize
    }
}

/// The `n` keys of `src` sorted by buckets (about 2^(log2 n - 7) of them, at most 2^13):
/// one pass counts each bucket, one writes every key into its bucket, then each bucket,
/// about a hundred keys that fit in the cache, is sorted on its own: a sort's work grows
/// as `n log n`, and most of its levels are saved for the two passes. The keys go from
/// `src` straight into their buckets, so the buffer is the one a single sort would fill.
/// The buckets split the range between the 1/64 and 63/64 quantiles of [`SAMPLE`] keys
/// taken at even steps, so outliers (the slow runs of a benchmark) do not widen them;
/// the keys outside go to the first and the last bucket. With `judge`, `None` (sort in
/// one piece) when a bucket between those would hold more than 1/32 of the sample:
/// values crowded into a few narrow places, or few distinct values, where the passes
/// would cost more than they save. Time: O(n log n); memory: `n` keys and the counts.
fn bucket_sorted(src: &impl KeySource, n: usize, judge: bool) -> Option<Vec<u64>> {
    let mut sample = src.sample(SAMPLE);
    if sample.is_empty() {
        return None;
    }
    sample.sort_unstable();
    let m = sample.len();
    let (lo, hi) = (sample[m / 64], sample[m - 1 - m / 64]);
    let bits = n.max(2).ilog2().saturating_sub(6).clamp(2, 13);
    let buckets = 1_usize << bits;
    // The narrowest width that fits the span in the buckets between the first and last.
    let inner = (buckets - 2) as u64;
    let shift = (0..64).find(|&s| (hi - lo) >> s < inner).unwrap_or(63);
    let window = Window {
        lo,
        shift,
        last: (buckets - 1) as u64,
    };
    // bounds[b + 1] counts bucket b, then the running sums make it where bucket b + 1 starts.
    let mut bounds = vec![0_usize; buckets + 1];
    for &k in &sample {
        bounds[window.of(k) + 1] += 1;
    }
    // The first and the last bucket hold the sample's 1/64 tails by construction.
    if judge && bounds[2..buckets].iter().any(|&c| c * 32 > m) {
        return None;
    }
    bounds.fill(0);
    src.each(|k| bounds[window.of(k) + 1] += 1);
    for b in 1..bounds.len() {
        bounds[b] += bounds[b - 1];
    }
    let mut next = bounds[..buckets].to_vec();
    let mut keys = vec![0_u64; n];
    src.each(|k| {
        let b = window.of(k);
        keys[next[b]] = k;
        next[b] += 1;
    });
    for range in bounds.windows(2) {
        keys[range[0]..range[1]].sort_unstable();
    }
    Some(keys)
}

/// Above the key of every finite value ([`sort_key`] of the largest is below it).
const END: u64 = u64::MAX;

/// Where the run of `key` that ends at `end` starts in `keys` (sorted).
fn group_start(keys: &[u64], end: usize, key: u64) -> usize {
    let mut start = end;
    while start > 0 && keys[start - 1] == key {
        start -= 1;
    }
    start
}

/// Tie bookkeeping of one ranking: `sum(t^3 - t)` over the runs of equal values, and the
/// longest run (1 when all values differ, 0 for none).
struct Ties {
    term: f64,
    largest: usize,
}

/// The doubled mid-rank sums of sorted tagged `keys` (each a value in the high bits and a
/// tag in the low `tag_bits`), per tag, into `sums` (indexed by tag, zeroed by the
/// caller): a run of equal values over the 0-based positions `s..e` has the mid-rank
/// `(s + 1 + e) / 2`, so every element of it adds `s + 1 + e`. In integers, so the sums
/// are exact; the runs are found in the same pass. Time: O(n).
fn doubled_rank_sums(keys: &[u64], tag_bits: u32, sums: &mut [u64]) -> Ties {
    let n = keys.len();
    let tag_mask = (1_u64 << tag_bits) - 1;
    let mut ties = Ties {
        term: 0.0,
        largest: usize::from(n > 0),
    };
    let mut i = 0;
    while i < n {
        let value = keys[i] >> tag_bits;
        if i + 1 < n && keys[i + 1] >> tag_bits == value {
            let mut end = i + 2;
            while end < n && keys[end] >> tag_bits == value {
                end += 1;
            }
            let doubled = (i + 1 + end) as u64;
            for &k in &keys[i..end] {
                sums[(k & tag_mask) as usize] += doubled;
            }
            let t = (end - i) as f64;
            ties.term += t * t * t - t;
            ties.largest = ties.largest.max(end - i);
            i = end;
        } else {
            // Not tied: the mid-rank is the 1-based position.
            sums[(keys[i] & tag_mask) as usize] += 2 * (i as u64 + 1);
            i += 1;
        }
    }
    ties
}

/// Mid-rank sums of `groups` pooled, without materialising the ranks. When the pooled
/// values' keys ([`sort_key`]) leave room for the group's index in the low bits (their
/// top bits all the same, or their range short enough: any data whose largest and
/// smallest differ by less than a factor of about 2^(2^10) when they share a sign, and
/// most that do not), every value becomes one integer, `key << bits | group` or
/// `(key - min) << bits | group`: one sort of them all, then one pass that finds
/// the runs of equal values and adds each element's doubled mid-rank to its group, in
/// integers. Otherwise each group is sorted on its own and the sorted groups are merged.
/// Either way the same numbers as [`mid_ranks`] on the concatenation (the sums of
/// mid-ranks are multiples of 1/2, exact in `f64` below 2^52).
/// Time: O(n log n) (+ O(n k) for the merge of k groups); memory: O(n).
pub(crate) fn group_rank_sums(groups: &[&[f64]]) -> GroupRanks {
    let k = groups.len();
    let tag_bits = usize::BITS - k.saturating_sub(1).leading_zeros();
    let n: usize = groups.iter().map(|g| g.len()).sum();
    if n == 0 || tag_bits >= 64 {
        return merged_rank_sums(groups);
    }
    // `key << bits | group` when the top `bits` of every key are the same (values of one
    // sign, and for up to 4 groups of one side of 2.0 or so: every run time in seconds or
    // in nanoseconds): the shift loses nothing.
    let (mut all_and, mut all_or) = (u64::MAX, 0_u64);
    for g in groups {
        // One group at a time, so the loop vectorizes.
        for &x in *g {
            let key = sort_key(x);
            all_and &= key;
            all_or |= key;
        }
    }
    let mut offset = 0;
    if tag_bits > 0 && (all_and ^ all_or) >> (64 - tag_bits) != 0 {
        // Else `(key - min) << bits | group`, when the range leaves the room.
        let (mut lo, mut hi) = (u64::MAX, 0);
        for &x in groups.iter().copied().flatten() {
            let key = sort_key(x);
            lo = lo.min(key);
            hi = hi.max(key);
        }
        if (hi - lo) >> (64 - tag_bits) != 0 {
            return merged_rank_sums(groups);
        }
        offset = lo;
    }
    let src = Tagged {
        groups,
        bits: tag_bits,
        offset,
    };
    let keys = sorted_keys(&src, n);
    let mut sums = vec![0_u64; 1 << tag_bits];
    let ties = doubled_rank_sums(&keys, tag_bits, &mut sums);
    GroupRanks {
        rank_sums: sums[..k].iter().map(|&s| s as f64 / 2.0).collect(),
        tie_term: ties.term,
        largest_tie: ties.largest,
    }
}

/// [`group_rank_sums`] by sorting each group on its own and merging the sorted groups:
/// for values too far apart to leave room for a group index beside their keys.
/// Time: O(n log n + n k) for k groups; memory: O(n).
fn merged_rank_sums(groups: &[&[f64]]) -> GroupRanks {
    // Each group's keys sorted, then `u64::MAX` (above every finite value's key) as a
    // sentinel that ends the merge without a bounds check.
    let sorted: Vec<Vec<u64>> = groups
        .iter()
        .map(|g| {
            let mut keys: Vec<u64> = Vec::with_capacity(g.len() + 1);
            keys.extend(g.iter().map(|&x| sort_key(x)));
            keys.sort_unstable();
            keys.push(END);
            keys
        })
        .collect();
    let k = sorted.len();
    let mut pos = vec![0_usize; k];
    let mut rank_sums = vec![0.0; k];
    let mut tie_term = 0.0;
    let mut largest_tie = usize::from(sorted.iter().any(|g| g.len() > 1));
    let mut next = 1_usize;
    loop {
        let min = (0..k).map(|g| sorted[g][pos[g]]).min().unwrap_or(END);
        if min == END {
            break;
        }
        let mut tied = 0;
        let mut only = 0;
        for g in 0..k {
            let keys = &sorted[g];
            let start = pos[g];
            let mut p = start;
            while keys[p] == min {
                p += 1;
            }
            if p > start {
                pos[g] = p;
                tied += p - start;
                only = g;
            }
        }
        if tied == 1 {
            rank_sums[only] += next as f64;
            next += 1;
            continue;
        }
        // Positions next ..= next + tied - 1 share their mean.
        let rank = next as f64 + (tied - 1) as f64 / 2.0;
        for g in 0..k {
            let count = pos[g] - group_start(&sorted[g], pos[g], min);
            if count > 0 {
                rank_sums[g] += count as f64 * rank;
            }
        }
        let t = tied as f64;
        tie_term += t * t * t - t;
        largest_tie = largest_tie.max(tied);
        next += tied;
    }
    GroupRanks {
        rank_sums,
        tie_term,
        largest_tie,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_the_mean_position() {
        let r = mid_ranks(&[3.0, 1.0, 3.0, 2.0, 3.0]);
        assert_eq!(r.ranks, vec![4.0, 1.0, 4.0, 2.0, 4.0]);
        assert_eq!(r.tie_term, 24.0);
        assert_eq!(r.largest_tie, 3);
    }

    #[test]
    fn group_rank_sums_match_mid_ranks_of_the_concatenation() {
        let groups: [&[f64]; 3] = [
            &[3.0, -0.0, 7.5, 3.0],
            &[0.0, 3.0, -2.0],
            &[7.5, 1.0, 1e300, -1e-300],
        ];
        let pooled: Vec<f64> = groups.iter().flat_map(|g| g.iter().copied()).collect();
        let r = mid_ranks(&pooled);
        let g = group_rank_sums(&groups);
        let mut start = 0;
        for (i, grp) in groups.iter().enumerate() {
            let want: f64 = r.ranks[start..start + grp.len()].iter().sum();
            assert_eq!(g.rank_sums[i], want, "group {i}");
            start += grp.len();
        }
        assert_eq!(g.tie_term, r.tie_term);
        assert_eq!(g.largest_tie, r.largest_tie);
    }

    #[test]
    fn signed_rank_sum_is_the_sum_of_mid_ranks_of_the_magnitudes() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let d: Vec<f64> = (0..10_000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                match i % 5 {
                    0 => (v * 8.0).round(), // ties, zeros, both signs
                    1 => -0.0,
                    _ => v * 1e3,
                }
            })
            .collect();
        let nonzero: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
        let abs: Vec<f64> = nonzero.iter().map(|v| v.abs()).collect();
        let r = mid_ranks(&abs);
        let t_plus: f64 = nonzero
            .iter()
            .zip(&r.ranks)
            .filter(|(v, _)| **v > 0.0)
            .map(|(_, rank)| rank)
            .sum();
        let s = signed_rank_sum(&d);
        assert_eq!(s.n, nonzero.len());
        assert_eq!(s.t_plus, t_plus);
        assert_eq!(s.tie_term, r.tie_term);
        assert_eq!(s.largest_tie, r.largest_tie);
    }

    #[test]
    fn signed_zeros_are_one_tie() {
        let r = mid_ranks(&[0.0, -0.0, 1.0]);
        assert_eq!(r.ranks, vec![1.5, 1.5, 3.0]);
        assert!(r.has_ties());
    }

    /// Finite values with many ties (a palette of six, signed zeros among them), ordinary
    /// numbers, and extremes far enough apart that no group index fits beside their keys
    /// (the merge path).
    fn value() -> impl proptest::strategy::Strategy<Value = f64> {
        use proptest::prelude::*;
        prop_oneof![
            4 => (0..6_i32).prop_map(|v| f64::from(v) - 2.0),
            1 => Just(-0.0),
            3 => -1e3..1e3_f64,
            1 => prop::sample::select(vec![1e300, -1e300, 5e-324, -5e-324, 1e-300]),
        ]
    }

    /// The reference every fast path is held to: mid-ranks of the concatenation, by
    /// comparing every value with every other (no sorting at all).
    fn naive_mid_ranks(values: &[f64]) -> (Vec<f64>, f64, usize) {
        let mut ranks = Vec::new();
        let (mut term, mut largest) = (0.0, usize::from(!values.is_empty()));
        for &x in values {
            let less = values.iter().filter(|&&y| y < x).count();
            let eq = values.iter().filter(|&&y| y == x).count();
            ranks.push(less as f64 + (eq as f64 + 1.0) / 2.0);
            largest = largest.max(eq);
        }
        // Each tie group once: at its first member.
        for (i, &x) in values.iter().enumerate() {
            if values[..i].iter().all(|&y| y != x) {
                let t = values.iter().filter(|&&y| y == x).count() as f64;
                term += t * t * t - t;
            }
        }
        (ranks, term, largest)
    }

    fn check_groups(groups: &[Vec<f64>]) -> Result<(), proptest::test_runner::TestCaseError> {
        use proptest::prelude::*;
        let slices: Vec<&[f64]> = groups.iter().map(Vec::as_slice).collect();
        let pooled: Vec<f64> = groups.iter().flatten().copied().collect();
        let (ranks, term, largest) = naive_mid_ranks(&pooled);
        let got = group_rank_sums(&slices);
        let mut start = 0;
        for (i, g) in groups.iter().enumerate() {
            let want: f64 = ranks[start..start + g.len()].iter().sum();
            prop_assert_eq!(got.rank_sums[i], want, "group {}", i);
            start += g.len();
        }
        prop_assert_eq!(got.tie_term, term);
        prop_assert_eq!(got.largest_tie, largest);
        // And the merge path on the same groups, whichever path the above took.
        let merged = merged_rank_sums(&slices);
        prop_assert_eq!(merged, got);
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        #[test]
        fn group_rank_sums_match_naive_mid_ranks_with_heavy_ties(
            groups in proptest::collection::vec(proptest::collection::vec(value(), 0..40), 1..6)
        ) {
            check_groups(&groups)?;
        }

        #[test]
        fn group_rank_sums_of_many_groups_match_naive_mid_ranks(
            groups in proptest::collection::vec(proptest::collection::vec(-3..3_i32, 1..4), 1..40)
        ) {
            let groups: Vec<Vec<f64>> = groups
                .into_iter()
                .map(|g| g.into_iter().map(f64::from).collect())
                .collect();
            check_groups(&groups)?;
        }

        #[test]
        fn signed_rank_sum_matches_naive_mid_ranks_of_magnitudes(
            d in proptest::collection::vec(value(), 0..80)
        ) {
            let nonzero: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
            let abs: Vec<f64> = nonzero.iter().map(|v| v.abs()).collect();
            let (ranks, term, largest) = naive_mid_ranks(&abs);
            let t_plus: f64 = nonzero
                .iter()
                .zip(&ranks)
                .filter(|(v, _)| **v > 0.0)
                .map(|(_, r)| r)
                .sum();
            let s = signed_rank_sum(&d);
            proptest::prop_assert_eq!(s.n, nonzero.len());
            proptest::prop_assert_eq!(s.t_plus, t_plus);
            proptest::prop_assert_eq!(s.tie_term, term);
            proptest::prop_assert_eq!(s.largest_tie, if nonzero.is_empty() { 0 } else { largest });
        }

        #[test]
        fn counted_row_ranks_match_sorted_mid_ranks(
            row in proptest::collection::vec(value(), 1..=COUNTED_ROW_MAX)
        ) {
            let mut counted = mid_ranks(&[]);
            counted_mid_ranks_into(&row, &mut counted);
            let sorted = mid_ranks(&row);
            proptest::prop_assert_eq!(&counted, &sorted);
            let (ranks, term, largest) = naive_mid_ranks(&row);
            proptest::prop_assert_eq!(counted.ranks, ranks);
            proptest::prop_assert_eq!(counted.tie_term, term);
            proptest::prop_assert_eq!(counted.largest_tie, largest);
        }
    }

    /// Keys given as they are, for holding the bucketed sort to the plain one.
    struct Plain<'a>(&'a [u64]);

    impl KeySource for Plain<'_> {
        fn each(&self, f: impl FnMut(u64)) {
            self.0.iter().copied().for_each(f);
        }

        fn extend_into(&self, keys: &mut Vec<u64>) {
            keys.extend_from_slice(self.0);
        }

        fn sample(&self, count: usize) -> Vec<u64> {
            let step = (self.0.len() / count.max(1)).max(1);
            self.0.iter().step_by(step).copied().collect()
        }
    }

    /// The bucketed sort without its judgement is the plain sort on any keys: a window
    /// narrower than a bucket's worth of sample, all keys equal, the extremes of `u64`.
    fn check_bucketed(keys: &[u64]) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut want = keys.to_vec();
        want.sort_unstable();
        let got = bucket_sorted(&Plain(keys), keys.len(), false);
        proptest::prop_assert_eq!(got, if keys.is_empty() { None } else { Some(want) });
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        #[test]
        fn bucketed_sort_is_the_plain_sort(
            keys in proptest::collection::vec(
                proptest::prop_oneof![
                    3 => proptest::prelude::any::<u64>(),
                    3 => 0..64_u64,
                    2 => (1_u64 << 40)..(1_u64 << 40) + 5_000,
                    1 => proptest::sample::select(vec![0, 1, u64::MAX, u64::MAX - 1, 1 << 63]),
                ],
                0..3_000,
            )
        ) {
            check_bucketed(&keys)?;
        }
    }

    /// From [`BUCKETED_MIN`] keys up: the keys of uniform values and of run times with
    /// outliers are bucketed, few distinct values are sorted in one piece; every way gives
    /// the plain sort's array, and so the same rank sums.
    #[test]
    fn sorted_keys_at_scale_are_the_plain_sort() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let n = BUCKETED_MIN + 12_345;
        let uniform: Vec<f64> = (0..n).map(|_| next()).collect();
        let runs: Vec<f64> = (0..n)
            .map(|_| {
                let slow = if next() < 0.01 {
                    2.0 + 8.0 * next()
                } else {
                    1.0
                };
                (1.234e6 * (1.0 + 0.02 * (next() - 0.5)) * slow).round() / 1e9
            })
            .collect();
        let levels: Vec<f64> = (0..n).map(|_| (next() * 20.0).floor()).collect();
        for (name, values, bucketed) in [
            ("uniform", &uniform, true),
            ("run times", &runs, true),
            ("20 levels", &levels, false),
        ] {
            let (a, b) = values.split_at(n / 3);
            let groups: [&[f64]; 2] = [a, b];
            let src = Tagged {
                groups: &groups,
                bits: 1,
                offset: 0,
            };
            let mut want = Vec::new();
            src.extend_into(&mut want);
            want.sort_unstable();
            assert_eq!(
                bucket_sorted(&src, n, true).is_some(),
                bucketed,
                "{name}: bucketed"
            );
            assert_eq!(sorted_keys(&src, n), want, "{name}");
            // Neighbours' differences: as many as the values, less one.
            let d: Vec<f64> = values.windows(2).map(|w| w[1] - w[0]).collect();
            let mut want: Vec<u64> = d
                .iter()
                .filter(|&&v| v != 0.0)
                .map(|&v| Signed::key(v))
                .collect();
            want.sort_unstable();
            assert_eq!(sorted_keys(&Signed(&d), want.len()), want, "{name}: signed");
        }
    }

    /// 10^5 values in 3 groups with ties: the tagged single-sort path at a size the
    /// strategies above do not reach, against the merge path.
    #[test]
    fn tagged_and_merged_rank_sums_agree_at_scale() {
        let mut x: u64 = 88172645463325252;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let groups: Vec<Vec<f64>> = (0..3)
            .map(|g| {
                (0..33_334)
                    .map(|i| {
                        let v = next() + 0.01 * f64::from(g);
                        if i % 5 == 0 {
                            (v * 50.0).round()
                        } else {
                            v * 1e3
                        }
                    })
                    .collect()
            })
            .collect();
        let slices: Vec<&[f64]> = groups.iter().map(Vec::as_slice).collect();
        let pooled: Vec<f64> = groups.iter().flatten().copied().collect();
        let r = mid_ranks(&pooled);
        let got = group_rank_sums(&slices);
        assert!(got.largest_tie > 1);
        assert_eq!(got, merged_rank_sums(&slices));
        let mut start = 0;
        for (i, g) in groups.iter().enumerate() {
            let want: f64 = r.ranks[start..start + g.len()].iter().sum();
            assert_eq!(got.rank_sums[i], want, "group {i}");
            start += g.len();
        }
        assert_eq!((got.tie_term, got.largest_tie), (r.tie_term, r.largest_tie));
    }

    /// The tagged single sort, the merge of the groups sorted apart, and the mid-ranks of
    /// the concatenation agree on edge cases: every value tied, one value a group, groups
    /// of very different sizes, signed zeros, values of both signs far apart (the merge
    /// path), and many ties across the groups.
    #[test]
    fn tagged_merged_and_mid_ranks_agree_on_edge_cases() {
        let levels: Vec<f64> = (0..5_000).map(|i| f64::from(i % 7)).collect();
        let spread: Vec<f64> = (0..3_000).map(|i| f64::from(i) * 1e-3).collect();
        let cases: Vec<Vec<Vec<f64>>> = vec![
            vec![vec![1.0; 100], vec![1.0; 37]],
            vec![vec![2.5], vec![2.5]],
            vec![vec![1.0], vec![2.0], vec![-3.0]],
            vec![vec![0.0, -0.0, 0.0], vec![-0.0]],
            vec![levels.clone(), vec![3.0]],
            vec![spread.clone(), vec![1e300], levels.clone()],
            vec![vec![-1e300, 1e300, 0.0], spread.clone()],
            vec![spread.iter().map(|v| -v).collect(), spread.clone()],
        ];
        for (i, groups) in cases.iter().enumerate() {
            let slices: Vec<&[f64]> = groups.iter().map(Vec::as_slice).collect();
            let got = group_rank_sums(&slices);
            assert_eq!(merged_rank_sums(&slices), got, "case {i}");
            let pooled: Vec<f64> = groups.iter().flatten().copied().collect();
            let r = mid_ranks(&pooled);
            let mut start = 0;
            for (g, grp) in groups.iter().enumerate() {
                let want: f64 = r.ranks[start..start + grp.len()].iter().sum();
                assert_eq!(got.rank_sums[g], want, "case {i} group {g}");
                start += grp.len();
            }
            assert_eq!(
                (got.tie_term, got.largest_tie),
                (r.tie_term, r.largest_tie),
                "case {i}"
            );
        }
    }
}
