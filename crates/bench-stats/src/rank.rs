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
    fn signed_zeros_are_one_tie() {
        let r = mid_ranks(&[0.0, -0.0, 1.0]);
        assert_eq!(r.ranks, vec![1.5, 1.5, 3.0]);
        assert!(r.has_ties());
    }
}
