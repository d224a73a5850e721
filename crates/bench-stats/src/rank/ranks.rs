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
/// rank tests (Friedman, Page): every row must hold `k` finite values. Time: O(n k log k).
///
/// # Errors
/// [`crate::StatsError::LengthMismatch`] for a row of another length;
/// [`crate::StatsError::NonFinite`] (named `what`) for a NaN or infinite value.
pub(crate) fn rank_rows<B: AsRef<[f64]>>(
    blocks: &[B],
    k: usize,
    what: &'static str,
) -> Result<Vec<Ranks>, crate::StatsError> {
    blocks
        .iter()
        .map(|block| {
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
            Ok(mid_ranks(row))
        })
        .collect()
}

/// Mid-ranks of `values`. Time: O(n log n); memory: O(n).
pub(crate) fn mid_ranks(values: &[f64]) -> Ranks {
    let n = values.len();
    let mut order: Vec<(f64, usize)> = values.iter().copied().zip(0..n).collect();
    order.sort_unstable_by(|x, y| cmp_f64(&x.0, &y.0));
    let mut ranks = vec![0.0; n];
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
    Ranks {
        ranks,
        tie_term,
        largest_tie,
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

/// Sorts `keys` ascending: LSD radix sort with 16-bit digits (4 passes, skipping passes
/// whose digit is the same for every key) for large inputs, `sort_unstable` otherwise.
/// Time: O(n) for large n; memory: one scratch copy.
fn sort_keys(keys: &mut Vec<u64>) {
    if keys.len() < RADIX_MIN {
        keys.sort_unstable();
        return;
    }
    let mut scratch = vec![0_u64; keys.len()];
    let mut counts = vec![0_usize; 1 << 16];
    for pass in 0..4 {
        let shift = 16 * pass;
        counts.iter_mut().for_each(|c| *c = 0);
        for &k in keys.iter() {
            counts[((k >> shift) & 0xffff) as usize] += 1;
        }
        if counts.contains(&keys.len()) {
            continue; // every key has the same digit here: the pass would not move anything
        }
        let mut total = 0;
        for c in counts.iter_mut() {
            let here = *c;
            *c = total;
            total += here;
        }
        for &k in keys.iter() {
            let d = ((k >> shift) & 0xffff) as usize;
            scratch[counts[d]] = k;
            counts[d] += 1;
        }
        std::mem::swap(keys, &mut scratch);
    }
}

/// Mid-rank sums of `groups` pooled, without materialising the ranks: each group's values
/// are mapped to integer keys and sorted on their own (a plain `u64` sort, several times
/// faster than sorting `(f64, index)` pairs), then the sorted groups are merged and each run
/// of equal keys gets its mid-rank. Same result as [`mid_ranks`] on the concatenation.
/// Time: O(n log n + n k) for k groups; memory: O(n).
pub(crate) fn group_rank_sums(groups: &[&[f64]]) -> GroupRanks {
    let sort_group = |g: &&[f64]| {
        let mut keys: Vec<u64> = g.iter().map(|&x| sort_key(x)).collect();
        sort_keys(&mut keys);
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
    let mut counts = vec![0_usize; k];
    let mut rank_sums = vec![0.0; k];
    let mut tie_term = 0.0;
    let mut largest_tie = usize::from(sorted.iter().any(|g| !g.is_empty()));
    let mut next = 1_usize;
    while let Some(min) = (0..k).filter_map(|g| sorted[g].get(pos[g]).copied()).min() {
        let mut tied = 0;
        for g in 0..k {
            let start = pos[g];
            while sorted[g].get(pos[g]) == Some(&min) {
                pos[g] += 1;
            }
            counts[g] = pos[g] - start;
            tied += counts[g];
        }
        // Positions next ..= next + tied - 1 share their mean.
        let rank = next as f64 + (tied - 1) as f64 / 2.0;
        for g in 0..k {
            if counts[g] > 0 {
                rank_sums[g] += counts[g] as f64 * rank;
            }
        }
        if tied > 1 {
            let t = tied as f64;
            tie_term += t * t * t - t;
            largest_tie = largest_tie.max(tied);
        }
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
    fn signed_zeros_are_one_tie() {
        let r = mid_ranks(&[0.0, -0.0, 1.0]);
        assert_eq!(r.ranks, vec![1.5, 1.5, 3.0]);
        assert!(r.has_ties());
    }
}
