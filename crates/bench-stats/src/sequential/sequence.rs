//! The confidence sequence itself: updated block by block, looked at after every block.

use super::asymptotic;
use super::boundary::SignBoundary;

/// Which confidence sequence a sequential experiment uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum SequenceMethod {
    /// The distribution-free sequence for the median of the block log-ratios, from sign
    /// indicators and a beta-binomial mixture (the default; see [`super`]).
    #[default]
    SignMedian,
    /// The asymptotic sequence for their mean (Waudby-Smith et al. 2021), for comparison.
    AsymptoticMean,
}

impl SequenceMethod {
    /// `sign-median` or `asymptotic-mean`.
    pub fn as_str(self) -> &'static str {
        match self {
            SequenceMethod::SignMedian => "sign-median",
            SequenceMethod::AsymptoticMean => "asymptotic-mean",
        }
    }

    /// Parses [`Self::as_str`]'s names.
    pub fn from_name(name: &str) -> Option<SequenceMethod> {
        match name {
            "sign-median" => Some(SequenceMethod::SignMedian),
            "asymptotic-mean" => Some(SequenceMethod::AsymptoticMean),
            _ => None,
        }
    }
}

/// A confidence sequence for the location of the block log-ratios, fed one block at a
/// time. Time: O(t) per block (a sorted insert), O(log t) per interval.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfidenceSequence {
    method: SequenceMethod,
    boundary: SignBoundary,
    sorted: Vec<f64>,
    sum: f64,
    sum_sq: f64,
}

impl ConfidenceSequence {
    /// An empty sequence at level `1 - alpha`.
    pub fn new(method: SequenceMethod, alpha: f64) -> ConfidenceSequence {
        ConfidenceSequence {
            method,
            boundary: SignBoundary::new(alpha),
            sorted: Vec::new(),
            sum: 0.0,
            sum_sq: 0.0,
        }
    }

    /// Adds one block's log-ratio (a non-finite value is ignored: it cannot be ranked).
    pub fn push(&mut self, d: f64) {
        if !d.is_finite() {
            return;
        }
        let at = self.sorted.partition_point(|&x| x <= d);
        self.sorted.insert(at, d);
        self.sum += d;
        self.sum_sq += d * d;
    }

    /// Blocks seen.
    pub fn blocks(&self) -> u64 {
        self.sorted.len() as u64
    }

    /// The sample median of the log-ratios so far (NaN before the first block): where the
    /// sign sequence is centred, so the way it is heading.
    pub fn median(&self) -> f64 {
        if self.sorted.is_empty() {
            f64::NAN
        } else {
            crate::descriptive::summary::quantile_sorted(&self.sorted, 0.5)
        }
    }

    /// The current interval on the log-ratio scale; infinite bounds while too few blocks
    /// can exclude anything.
    pub fn interval(&self) -> [f64; 2] {
        let t = self.blocks();
        match self.method {
            SequenceMethod::SignMedian => match self.boundary.k(t) {
                // Rejected: fewer than k + 1 values at or below m, or at or above m.
                Some(k) => [self.sorted[k as usize], self.sorted[(t - 1 - k) as usize]],
                None => [f64::NEG_INFINITY, f64::INFINITY],
            },
            SequenceMethod::AsymptoticMean => {
                if t < 2 {
                    return [f64::NEG_INFINITY, f64::INFINITY];
                }
                let n = t as f64;
                let mean = self.sum / n;
                // Two passes over the stored values, not `sum_sq - n mean^2`: that cancels
                // to a tiny positive variance on constant data (identical counts), whose
                // interval must have zero width.
                let var = self.sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
                let h = asymptotic::half_width(var.sqrt(), t, self.boundary.alpha);
                [mean - h, mean + h]
            }
        }
    }

    /// The anytime-valid p-value of "no change" at this look (sign sequence only: `1 /
    /// M_t` at the median 0, ties counted on the side that keeps it largest).
    pub fn p_value(&self) -> Option<f64> {
        if self.method != SequenceMethod::SignMedian || self.sorted.is_empty() {
            return None;
        }
        let t = self.blocks();
        let below = self.sorted.partition_point(|&x| x < 0.0) as u64;
        let at_or_below = self.sorted.partition_point(|&x| x <= 0.0) as u64;
        // The count nearest t / 2 among those the ties allow.
        let half = t / 2;
        let s = half.clamp(below, at_or_below);
        Some(self.boundary.p_value(s, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_interval_is_the_order_statistics_of_the_boundary() {
        let mut cs = ConfidenceSequence::new(SequenceMethod::SignMedian, 0.05);
        for i in 1..7 {
            cs.push(f64::from(i));
        }
        assert_eq!(cs.interval(), [f64::NEG_INFINITY, f64::INFINITY]);
        cs.push(7.0);
        // t = 7: k = 0, the interval is [min, max], and no change is rejected.
        assert_eq!(cs.interval(), [1.0, 7.0]);
        assert!(cs.p_value().unwrap() < 0.05);
        for i in 8..101 {
            cs.push(f64::from(i));
        }
        let [lo, hi] = cs.interval();
        assert!(
            lo > 20.0 && hi < 80.0 && lo < 50.5 && hi > 50.5,
            "{lo} {hi}"
        );
    }

    #[test]
    fn order_of_arrival_does_not_matter() {
        let mut a = ConfidenceSequence::new(SequenceMethod::SignMedian, 0.05);
        let mut b = a.clone();
        let values: Vec<f64> = (0..40).map(|i| f64::from((i * 17) % 40) - 20.0).collect();
        values.iter().for_each(|&v| a.push(v));
        values.iter().rev().for_each(|&v| b.push(v));
        assert_eq!(a.interval(), b.interval());
        assert_eq!(a.p_value(), b.p_value());
    }
}
