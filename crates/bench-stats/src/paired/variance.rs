//! Between- and within-block variance components, and what pairing gains.
//!
//! One-way random-effects model `y_ij = mu + b_i + e_ij` with block effects `b_i ~ (0,
//! sigma_b²)` and run noise `e_ij ~ (0, sigma_w²)`, estimated by the method of moments
//! (the ANOVA estimator; Searle, Casella & McCulloch 1992, *Variance Components*, §3.5):
//!
//! - `MSB = sum n_i (ybar_i - ybar)² / (a - 1)`, `MSW = sum (y_ij - ybar_i)² / (N - a)`;
//! - `n0 = (N - sum n_i² / N) / (a - 1)` (equals the common block size when balanced);
//! - `sigma_w² = MSW`, `sigma_b² = max(0, (MSB - MSW) / n0)`.
//!
//! Pairing removes `sigma_b²` from a within-block difference, so a paired design needs
//! about `(sigma_b² + sigma_w²) / sigma_w²` times fewer runs than an unpaired one for the
//! same standard error: the pairing gain.

use crate::StatsError;
use crate::descriptive::summary::mean;
use crate::model::report::VarianceComponentsReport;

/// The method-of-moments variance components of blocked replicates.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct VarianceComponents {
    /// Number of blocks `a`.
    pub blocks: usize,
    /// Number of observations `N`.
    pub observations: usize,
    /// Mean square between blocks (`a - 1` degrees of freedom).
    pub ms_between: f64,
    /// Mean square within blocks (`N - a` degrees of freedom).
    pub ms_within: f64,
    /// The effective block size `n0`.
    pub n0: f64,
    /// `sigma_b²`, truncated at 0.
    pub between_block: f64,
    /// `sigma_w²`.
    pub within_block: f64,
    /// `(sigma_b² + sigma_w²) / sigma_w²`; `None` when `sigma_w² = 0`.
    pub pairing_gain: Option<f64>,
}

impl VarianceComponents {
    /// The analysis model's [`VarianceComponentsReport`].
    pub fn to_report(&self) -> VarianceComponentsReport {
        VarianceComponentsReport {
            between_block: self.between_block,
            within_block: self.within_block,
            pairing_gain: self.pairing_gain,
        }
    }
}

/// Variance components of `blocks`, each the replicate values measured in one block
/// (e.g. the two baseline runs of each ABBA block). Blocks may differ in size.
///
/// Time: O(N).
///
/// # Errors
/// [`StatsError::TooFewSamples`] for fewer than 2 blocks, an empty block, or no block with
/// 2 replicates (no within-block degrees of freedom); [`StatsError::NonFinite`] for a NaN
/// or infinite value or sums that overflow.
///
/// # Examples
/// ```
/// use bench_stats::paired::variance_components;
/// let blocks = [vec![10.0, 10.2], vec![12.0, 12.2], vec![11.0, 11.4]];
/// let vc = variance_components(&blocks)?;
/// assert!(vc.between_block > vc.within_block);
/// assert!(vc.pairing_gain.unwrap() > 10.0);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn variance_components<B: AsRef<[f64]>>(
    blocks: &[B],
) -> Result<VarianceComponents, StatsError> {
    let a = blocks.len();
    if a < 2 {
        return Err(StatsError::TooFewSamples {
            what: "variance components blocks",
            needed: 2,
            got: a,
        });
    }
    let mut all = Vec::new();
    for b in blocks {
        let b = b.as_ref();
        if b.is_empty() {
            return Err(StatsError::TooFewSamples {
                what: "variance components block",
                needed: 1,
                got: 0,
            });
        }
        if let Some(&v) = b.iter().find(|v| !v.is_finite()) {
            return Err(StatsError::NonFinite {
                what: "variance components value",
                value: v,
            });
        }
        all.extend_from_slice(b);
    }
    let n_total = all.len();
    if n_total <= a {
        return Err(StatsError::TooFewSamples {
            what: "variance components (some block needs 2 replicates)",
            needed: a + 1,
            got: n_total,
        });
    }
    let grand = mean(&all);
    let (mut ssb, mut ssw, mut sum_sq_sizes) = (0.0, 0.0, 0.0);
    for b in blocks {
        let b = b.as_ref();
        let m = mean(b);
        let ni = b.len() as f64;
        ssb += ni * (m - grand).powi(2);
        ssw += b.iter().map(|v| (v - m).powi(2)).sum::<f64>();
        sum_sq_sizes += ni * ni;
    }
    let (af, nf) = (a as f64, n_total as f64);
    let ms_between = ssb / (af - 1.0);
    let ms_within = ssw / (nf - af);
    let n0 = (nf - sum_sq_sizes / nf) / (af - 1.0);
    let between_block = ((ms_between - ms_within) / n0).max(0.0);
    let within_block = ms_within;
    if !(ms_between.is_finite() && ms_within.is_finite() && between_block.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "variance components (sums of squares overflow f64; rescale the data)",
            value: f64::INFINITY,
        });
    }
    let pairing_gain = (within_block > 0.0)
        .then(|| (between_block + within_block) / within_block)
        .filter(|g| g.is_finite());
    Ok(VarianceComponents {
        blocks: a,
        observations: n_total,
        ms_between,
        ms_within,
        n0,
        between_block,
        within_block,
        pairing_gain,
    })
}

/// Variance components of a two-variant blocked experiment with replicates: each
/// variant's values are centred on that variant's grand mean (removing the version
/// effect), and block `i` pools both variants' centred replicates.
///
/// `baseline[i]` and `candidate[i]` are the runs of each variant in block `i` (two each
/// in an ABBA block). `sigma_b²` is then the block-level state the two variants share,
/// which pairing cancels; `sigma_w²` is everything left, including block-by-version
/// interaction. Time: O(N).
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the two sides have different block counts, and
/// the errors of [`variance_components`].
pub fn paired_variance_components<B: AsRef<[f64]>>(
    baseline: &[B],
    candidate: &[B],
) -> Result<VarianceComponents, StatsError> {
    if baseline.len() != candidate.len() {
        return Err(StatsError::LengthMismatch {
            left: baseline.len(),
            right: candidate.len(),
        });
    }
    let centre = |side: &[B]| -> Result<f64, StatsError> {
        let all: Vec<f64> = side
            .iter()
            .flat_map(|b| b.as_ref().iter().copied())
            .collect();
        if all.is_empty() {
            return Err(StatsError::TooFewSamples {
                what: "variance components values",
                needed: 1,
                got: 0,
            });
        }
        Ok(mean(&all))
    };
    let (mb, mc) = (centre(baseline)?, centre(candidate)?);
    let pooled: Vec<Vec<f64>> = baseline
        .iter()
        .zip(candidate)
        .map(|(b, c)| {
            b.as_ref()
                .iter()
                .map(|v| v - mb)
                .chain(c.as_ref().iter().map(|v| v - mc))
                .collect()
        })
        .collect();
    variance_components(&pooled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_textbook_case() {
        // Three blocks of two: block means 1, 3, 5; grand mean 3.
        // SSB = 2 * (4 + 0 + 4) = 16, MSB = 8; SSW = 3 * 0.5 = 1.5 (each pair differs
        // by 1), MSW = 1.5 / 3 = 0.5; n0 = 2; sigma_b² = (8 - 0.5) / 2 = 3.75.
        let vc = variance_components(&[[0.5, 1.5], [2.5, 3.5], [4.5, 5.5]]).unwrap();
        assert!((vc.ms_between - 8.0).abs() < 1e-12);
        assert!((vc.ms_within - 0.5).abs() < 1e-12);
        assert!((vc.n0 - 2.0).abs() < 1e-12);
        assert!((vc.between_block - 3.75).abs() < 1e-12);
        assert!((vc.pairing_gain.unwrap() - 8.5).abs() < 1e-12);
    }

    #[test]
    fn unbalanced_n0_and_truncation() {
        // sizes 1, 2, 3: N = 6, n0 = (6 - 14/6) / 2 = 11/6.
        let vc = variance_components(&[vec![1.0], vec![0.0, 2.0], vec![-1.0, 1.0, 3.0]]).unwrap();
        assert!((vc.n0 - 11.0 / 6.0).abs() < 1e-12);
        assert_eq!(vc.between_block, 0.0); // MSB < MSW: truncated
    }

    #[test]
    fn degenerate_inputs_are_errors() {
        assert!(variance_components(&[[1.0, 2.0]]).is_err());
        assert!(variance_components(&[[1.0], [2.0]]).is_err());
        let empty: [&[f64]; 2] = [&[1.0, 2.0], &[]];
        assert!(variance_components(&empty).is_err());
    }
}
