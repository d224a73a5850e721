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
/// row's ranks in turn (one buffer, no allocation per row). Time: O(n k log k).
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
    let mut order = Vec::with_capacity(k);
    let mut ranks = Ranks {
        ranks: Vec::with_capacity(k),
        tie_term: 0.0,
        largest_tie: 0,
    };
    for block in blocks {
        let row = block.as_ref();
        if row.len() != k {
            return Err(crate::StatsError::LengthMismatch {
                left: k,
                right: row.len(),
            });
        }
        if let Some(&value) = row.iter().find(|v| !v.is_finite()) {
            return Err(crate::StatsError::NonFinite { what, value });
        }
        mid_ranks_into(row, &mut order, &mut ranks);
        each(&ranks);
    }
    Ok(())
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
/// is, the sign breaking no tie of `|d|`), radix-sorted, and each run of equal `|d|` adds
/// its mid-rank times its count of positive differences. The same numbers as summing
/// [`mid_ranks`] of `|d|` (the ranks are multiples of 1/2: every sum is exact).
/// Time: O(n); memory: O(n).
pub(crate) fn signed_rank_sum(differences: &[f64]) -> SignedRankSum {
    let mut keys: Vec<u64> = differences
        .iter()
        .filter(|&&d| d != 0.0)
        .map(|&d| d.abs().to_bits() << 1 | u64::from(d > 0.0))
        .collect();
    sort_keys(&mut keys);
    let n = keys.len();
    let (mut t_plus, mut tie_term) = (0.0, 0.0);
    let mut largest_tie = usize::from(n > 0);
    let mut start = 0;
    while start < n {
        let magnitude = keys[start] >> 1;
        let mut end = start;
        let mut positive = 0u64;
        while end < n && keys[end] >> 1 == magnitude {
            positive += keys[end] & 1;
            end += 1;
        }
        let rank = (start + 1 + end) as f64 / 2.0;
        t_plus += positive as f64 * rank;
        if end - start > 1 {
            let t = (end - start) as f64;
            tie_term += t * t * t - t;
            largest_tie = largest_tie.max(end - start);
        }
        start = end;
    }
    SignedRankSum {
        t_plus,
        tie_term,
        largest_tie,
        n,
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
    let bits = if x == 0.0 {
        0.0f64.to_bits()
    } else {
        x.to_bits()
    };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Below this many keys a comparison sort beats the radix sort's fixed passes.
const RADIX_MIN: usize = 4096;

/// Bits of a radix digit: 2048 buckets, whose counts and write positions stay in the
/// first-level cache (16-bit digits scatter into 65,536 places, each a cache miss).
const DIGIT_BITS: u32 = 11;

/// Digits of a 64-bit key (the last one 9 bits).
const DIGITS: usize = 64usize.div_ceil(DIGIT_BITS as usize);

/// Sorts `keys` ascending: LSD radix sort with 11-bit digits for large inputs (every
/// digit's counts in one pass over the keys, then one scatter per digit, skipping the
/// digits that are the same for every key), `sort_unstable` otherwise.
/// Time: O(n) for large n; memory: one scratch copy.
fn sort_keys(keys: &mut Vec<u64>) {
    if keys.len() < RADIX_MIN || u32::try_from(keys.len()).is_err() {
        keys.sort_unstable();
        return;
    }
    let buckets = 1usize << DIGIT_BITS;
    let mask = (buckets - 1) as u64;
    let mut counts = vec![0u32; DIGITS * buckets];
    for &k in keys.iter() {
        for d in 0..DIGITS {
            counts[d * buckets + ((k >> (DIGIT_BITS as usize * d)) & mask) as usize] += 1;
        }
    }
    let n = keys.len();
    let mut scratch = vec![0_u64; n];
    for d in 0..DIGITS {
        let counts = &mut counts[d * buckets..(d + 1) * buckets];
        if counts.iter().any(|&c| c as usize == n) {
            continue; // every key has the same digit here: the pass would not move anything
        }
        let mut total = 0u32;
        for c in counts.iter_mut() {
            let here = *c;
            *c = total;
            total += here;
        }
        let shift = DIGIT_BITS as usize * d;
        for &k in keys.iter() {
            let slot = &mut counts[((k >> shift) & mask) as usize];
            scratch[*slot as usize] = k;
            *slot += 1;
        }
        std::mem::swap(keys, &mut scratch);
    }
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

/// Mid-rank sums of `groups` pooled, without materialising the ranks: each group's values
/// are mapped to integer keys and sorted on their own (a plain `u64` sort, several times
/// faster than sorting `(f64, index)` pairs), then the sorted groups are merged and each run
/// of equal keys gets its mid-rank. Same result as [`mid_ranks`] on the concatenation.
/// Time: O(n log n + n k) for k groups; memory: O(n).
pub(crate) fn group_rank_sums(groups: &[&[f64]]) -> GroupRanks {
    // Each group's keys sorted, then `u64::MAX` (above every finite value's key) as a
    // sentinel that ends the merge without a bounds check.
    let sort_group = |g: &&[f64]| {
        let mut keys: Vec<u64> = Vec::with_capacity(g.len() + 1);
        keys.extend(g.iter().map(|&x| sort_key(x)));
        sort_keys(&mut keys);
        keys.push(END);
        keys
    };
    // Each group sorts on its own, so the sorts run in parallel when they are worth it.
    #[cfg(feature = "parallel")]
    let sorted: Vec<Vec<u64>> = if groups.iter().map(|g| g.len()).sum::<usize>() >= 4 * RADIX_MIN {
        use rayon::prelude::*;
        groups.par_iter().map(sort_group).collect()
    } else {
        groups.iter().map(sort_group).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let sorted: Vec<Vec<u64>> = groups.iter().map(sort_group).collect();
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
    fn radix_sort_orders_like_the_comparison_sort() {
        let mut x: u64 = 88172645463325252;
        let mut values: Vec<f64> = (0..20_000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                if i % 7 == 0 {
                    (v * 10.0).round()
                } else {
                    v * 1e6
                }
            })
            .collect();
        values.extend([0.0, -0.0, 1e300, -1e300, 5e-324, -5e-324]);
        let mut keys: Vec<u64> = values.iter().map(|&v| sort_key(v)).collect();
        sort_keys(&mut keys);
        values.sort_by(cmp_f64);
        let back: Vec<u64> = values.iter().map(|&v| sort_key(v)).collect();
        assert_eq!(keys, back);
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
}
