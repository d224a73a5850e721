//! Welch's unequal-variance t-test (Welch 1947), as `scipy.stats.ttest_ind(a, b,
//! equal_var=False)` computes it:
//!
//! `t = (mean(a) - mean(b)) / sqrt(s_a²/n_a + s_b²/n_b)` with sample variances (n - 1),
//! `df = (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a - 1) + (s_b²/n_b)²/(n_b - 1))`
//! (Welch-Satterthwaite), two-sided `p = 2 P(T_df >= |t|)` from [`student_t_sf`].
//! Checked against SciPy through `fixtures/scipy/welch.json`
//! (`fixtures/scipy/generate_welch.py`).

use crate::descriptive::summary::variance_parts;
use crate::special::student_t_sf;
use crate::{Sample, StatsError};

/// The result of [`welch_t_test`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WelchTest {
    /// `mean(first) - mean(second)`.
    pub mean_difference: f64,
    /// The t statistic (positive when the first sample's mean is larger).
    pub t: f64,
    /// Welch-Satterthwaite degrees of freedom (real-valued).
    pub df: f64,
    /// Two-sided p-value.
    pub p_value: f64,
}

/// Welch's t-test of `first` against `second`, two-sided.
///
/// Time: O(n_a + n_b).
///
/// # Errors
/// [`StatsError::TooFewSamples`] when a sample has fewer than 2 values;
/// [`StatsError::ZeroVariance`] when both samples are constant (SciPy answers NaN);
/// [`StatsError::NonFinite`] when the spread overflows `f64`.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::parametric::welch_t_test;
/// let a = Sample::new(&[10.1, 10.3, 9.8, 10.2, 10.0])?;
/// let b = Sample::new(&[10.9, 11.4, 10.6, 11.8, 11.1])?;
/// let test = welch_t_test(&a, &b)?;
/// assert!(test.t < 0.0 && test.p_value < 0.01);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn welch_t_test(first: &Sample, second: &Sample) -> Result<WelchTest, StatsError> {
    let (ma, va, na) = moments(first.values(), "welch first sample")?;
    let (mb, vb, nb) = moments(second.values(), "welch second sample")?;
    let (sa, sb) = (va / na, vb / nb);
    let se2 = sa + sb;
    if se2 == 0.0 {
        return Err(StatsError::ZeroVariance { what: "welch" });
    }
    let mean_difference = ma - mb;
    let t = mean_difference / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    if !(t.is_finite() && df.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "welch t statistic (overflows f64; rescale the data)",
            value: if t.is_finite() { df } else { t },
        });
    }
    let p_value = (2.0 * student_t_sf(t.abs(), df).unwrap_or(f64::NAN)).min(1.0);
    Ok(WelchTest {
        mean_difference,
        t,
        df,
        p_value,
    })
}

/// `(mean, sample variance, n)` of at least two values.
fn moments(values: &[f64], what: &'static str) -> Result<(f64, f64, f64), StatsError> {
    if values.len() < 2 {
        return Err(StatsError::TooFewSamples {
            what,
            needed: 2,
            got: values.len(),
        });
    }
    let (m, sd) = variance_parts(values).ok_or(StatsError::NonFinite {
        what: "welch variance (overflows f64; rescale the data)",
        value: f64::INFINITY,
    })?;
    Ok((m, sd * sd, values.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[f64]) -> Sample {
        Sample::new(v).unwrap()
    }

    #[test]
    fn degenerate_input_is_an_error() {
        assert!(matches!(
            welch_t_test(&s(&[1.0]), &s(&[1.0, 2.0])),
            Err(StatsError::TooFewSamples { got: 1, .. })
        ));
        assert!(matches!(
            welch_t_test(&s(&[3.0, 3.0]), &s(&[4.0, 4.0, 4.0])),
            Err(StatsError::ZeroVariance { .. })
        ));
    }

    #[test]
    fn swapping_the_samples_flips_t_only() {
        let (a, b) = (s(&[1.0, 2.0, 4.0, 3.5]), s(&[2.5, 3.0, 6.0, 5.0, 4.4]));
        let (x, y) = (welch_t_test(&a, &b).unwrap(), welch_t_test(&b, &a).unwrap());
        assert_eq!(x.t, -y.t);
        assert_eq!((x.df, x.p_value), (y.df, y.p_value));
        assert!(x.p_value > 0.0 && x.p_value < 1.0);
    }

    #[test]
    fn one_constant_sample_still_tests() {
        // The variance of the other sample carries the test; df = n_b - 1.
        let t = welch_t_test(&s(&[5.0, 5.0, 5.0]), &s(&[1.0, 2.0, 3.0])).unwrap();
        assert!((t.df - 2.0).abs() < 1e-12, "{}", t.df);
        assert!((t.t - 3.0 / (1.0f64 / 3.0).sqrt()).abs() < 1e-12, "{}", t.t);
    }
}
