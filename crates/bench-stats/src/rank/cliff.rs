//! Cliff's delta (N. Cliff, "Dominance statistics", *Psychological Bulletin* 114 (1993))
//! with the magnitude thresholds of J. Romano et al. (2006), "Appropriate statistics for
//! ordinal level data".
//!
//! `delta = (#(b > a) - #(b < a)) / (n_a n_b)` with `a` the baseline and `b` the
//! candidate, so a positive delta means the candidate's values tend to be larger.
//! The counts come from one merge pass over the two sorted samples instead of the
//! `n_a n_b` comparisons. Checked against a brute-force NumPy count.

use crate::Sample;
use crate::rank::ranks::cmp_f64;

/// Romano et al. (2006) magnitude of `|delta|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Magnitude {
    /// `|delta| < 0.147`.
    Negligible,
    /// `0.147 <= |delta| < 0.33`.
    Small,
    /// `0.33 <= |delta| < 0.474`.
    Medium,
    /// `|delta| >= 0.474`.
    Large,
}

impl Magnitude {
    /// Lower bound of [`Magnitude::Small`], the default practical-significance gate.
    pub const SMALL_THRESHOLD: f64 = 0.147;
    /// Lower bound of [`Magnitude::Medium`].
    pub const MEDIUM_THRESHOLD: f64 = 0.33;
    /// Lower bound of [`Magnitude::Large`].
    pub const LARGE_THRESHOLD: f64 = 0.474;

    /// Classifies a delta (its sign is ignored; NaN counts as negligible).
    pub fn from_delta(delta: f64) -> Magnitude {
        let d = delta.abs();
        if d >= Self::LARGE_THRESHOLD {
            Magnitude::Large
        } else if d >= Self::MEDIUM_THRESHOLD {
            Magnitude::Medium
        } else if d >= Self::SMALL_THRESHOLD {
            Magnitude::Small
        } else {
            Magnitude::Negligible
        }
    }

    /// `"negligible"`, `"small"`, `"medium"` or `"large"`, as in the analysis JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Magnitude::Negligible => "negligible",
            Magnitude::Small => "small",
            Magnitude::Medium => "medium",
            Magnitude::Large => "large",
        }
    }
}

impl std::fmt::Display for Magnitude {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl CliffsDelta {
    /// A delta with its magnitude label, as read from a report (the pair counts are 0).
    pub fn new(delta: f64, magnitude: Magnitude) -> CliffsDelta {
        CliffsDelta {
            delta,
            magnitude,
            greater: 0,
            less: 0,
        }
    }
}

impl PartialEq<&str> for Magnitude {
    /// Compares with the lowercase label ([`Magnitude::as_str`]).
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Cliff's delta of a candidate against a baseline. In the analysis JSON it is
/// `{"value": delta, "magnitude": "small"}`; the pair counts are not serialized (a document
/// read back has them 0).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct CliffsDelta {
    /// `(#(b > a) - #(b < a)) / (n_a n_b)`, in `[-1, 1]`.
    #[cfg_attr(feature = "serde", serde(rename = "value"))]
    pub delta: f64,
    /// Romano magnitude of `|delta|`.
    pub magnitude: Magnitude,
    /// Number of pairs with candidate > baseline.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub greater: u64,
    /// Number of pairs with candidate < baseline.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub less: u64,
}

/// Cliff's delta of `candidate` (b) against `baseline` (a).
///
/// Time: O((n_a + n_b) log(n_a + n_b)) (two sorts and one merge pass).
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::rank::{cliffs_delta, Magnitude};
/// let a = Sample::new(&[1.0, 2.0, 3.0])?;
/// let b = Sample::new(&[2.0, 3.0, 4.0])?;
/// let d = cliffs_delta(&a, &b);
/// // b > a in 6 pairs, b < a in 1 pair, of 9.
/// assert!((d.delta - 5.0 / 9.0).abs() < 1e-15);
/// assert_eq!(d.magnitude, Magnitude::Large);
/// # Ok::<(), bench_stats::SampleError>(())
/// ```
pub fn cliffs_delta(baseline: &Sample, candidate: &Sample) -> CliffsDelta {
    let mut a = baseline.values().to_vec();
    let mut b = candidate.values().to_vec();
    a.sort_unstable_by(cmp_f64);
    b.sort_unstable_by(cmp_f64);
    // For each b (ascending), `lo` = #(a < b) and `hi` = #(a <= b) only move forward.
    let (mut lo, mut hi) = (0_usize, 0_usize);
    let (mut greater, mut less) = (0_u64, 0_u64);
    for &x in &b {
        while lo < a.len() && a[lo] < x {
            lo += 1;
        }
        if hi < lo {
            hi = lo;
        }
        while hi < a.len() && a[hi] <= x {
            hi += 1;
        }
        greater += lo as u64;
        less += (a.len() - hi) as u64;
    }
    let pairs = a.len() as f64 * b.len() as f64;
    let delta = (greater as f64 - less as f64) / pairs;
    CliffsDelta {
        delta,
        magnitude: Magnitude::from_delta(delta),
        greater,
        less,
    }
}
