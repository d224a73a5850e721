//! A commit's level: the median run of one experiment with its distribution-free
//! interval, and several experiments' levels of one commit pooled into one.

use crate::descriptive::summary::quantile_sorted;

/// The normal quantile of the levels' 95% interval, `Phi^-1(0.975)`.
const Z_95: f64 = 1.959_963_984_540_054;

/// A level: a median with an interval, and how much data is behind it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Level {
    /// The median run (pooled: the median of the experiments' medians).
    pub median: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Runs behind it.
    pub n: u64,
    /// Experiments behind it (several: the interval spans all of theirs).
    pub experiments: usize,
}

impl Level {
    /// The level of one experiment's runs of a variant: their median with the
    /// distribution-free 95% interval of the median, the order statistics at (0-based)
    /// ranks `floor(n/2 - z sqrt(n)/2)` and `ceil(n/2 + z sqrt(n)/2)`, clamped to the
    /// sample (the binomial's normal approximation, `z = 1.96`). `None` for no value or a
    /// non-finite one. Time: O(n log n).
    ///
    /// # Examples
    /// ```
    /// use bench_stats::history::Level;
    /// let values: Vec<f64> = (1..=9).map(f64::from).collect();
    /// let l = Level::of_runs(&values).unwrap();
    /// assert_eq!((l.median, l.low, l.high, l.n), (5.0, 2.0, 9.0, 9));
    /// ```
    pub fn of_runs(values: &[f64]) -> Option<Level> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let half = Z_95 * (n as f64).sqrt() / 2.0;
        let lo = ((n as f64) / 2.0 - half).floor().max(0.0) as usize;
        let hi = (((n as f64) / 2.0 + half).ceil() as usize).min(n - 1);
        Some(Level {
            median: quantile_sorted(&sorted, 0.5),
            low: sorted[lo.min(n - 1)],
            high: sorted[hi],
            n: n as u64,
            experiments: 1,
        })
    }

    /// Several experiments' levels of one commit as one: the median of their medians,
    /// the interval spanning all of theirs, their runs and experiments added. `None` for
    /// no level. Time: O(k log k).
    ///
    /// # Examples
    /// ```
    /// use bench_stats::history::Level;
    /// let a = Level { median: 10.0, low: 9.0, high: 11.0, n: 20, experiments: 1 };
    /// let b = Level { median: 12.0, low: 11.5, high: 13.0, n: 20, experiments: 1 };
    /// let p = Level::pooled(&[a, b]).unwrap();
    /// assert_eq!((p.median, p.low, p.high, p.n, p.experiments), (11.0, 9.0, 13.0, 40, 2));
    /// ```
    pub fn pooled(levels: &[Level]) -> Option<Level> {
        if levels.is_empty() {
            return None;
        }
        let mut medians: Vec<f64> = levels.iter().map(|l| l.median).collect();
        medians.sort_by(f64::total_cmp);
        Some(Level {
            median: quantile_sorted(&medians, 0.5),
            low: levels.iter().map(|l| l.low).fold(f64::INFINITY, f64::min),
            high: levels
                .iter()
                .map(|l| l.high)
                .fold(f64::NEG_INFINITY, f64::max),
            n: levels.iter().map(|l| l.n).sum(),
            experiments: levels.iter().map(|l| l.experiments).sum(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_interval_of_nine_values() {
        let v: Vec<f64> = (1..=9).map(f64::from).collect();
        let l = Level::of_runs(&v).unwrap();
        assert_eq!(l.median, 5.0);
        // ranks n/2 -+ 1.96 * 3 / 2 = 4.5 -+ 2.94: floor(1.56) = 1 and ceil(7.44) = 8 (0-based)
        assert_eq!((l.low, l.high), (2.0, 9.0));
    }

    #[test]
    fn an_even_count_takes_the_mean_of_the_two_middle_values() {
        let l = Level::of_runs(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(l.median, 2.5);
        // ranks 2 -+ 1.96: floor(0.04) = 0 and ceil(3.96) = 4, clamped to 3
        assert_eq!((l.low, l.high), (1.0, 4.0));
    }

    #[test]
    fn no_value_or_a_non_finite_one_has_no_level() {
        assert!(Level::of_runs(&[]).is_none());
        assert!(Level::of_runs(&[1.0, f64::NAN]).is_none());
        assert!(Level::pooled(&[]).is_none());
    }
}
