//! Validated samples: the boundary where raw numbers are checked once.

use std::fmt;

/// Why a slice of numbers could not become a [`Sample`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SampleError {
    /// The slice was empty.
    Empty,
    /// A value was NaN or infinite.
    NonFinite {
        /// 0-based position of the offending value.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

impl fmt::Display for SampleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SampleError::Empty => write!(f, "sample is empty"),
            SampleError::NonFinite { index, value } => {
                write!(f, "sample value #{index} is {value}, not a finite number")
            }
        }
    }
}

impl std::error::Error for SampleError {}

/// A non-empty sequence of finite `f64` values, in arrival order.
///
/// Every estimator in this crate takes `&Sample` and relies on these two invariants
/// instead of checking again.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// let s = Sample::new(&[3.0, 1.0, 2.0])?;
/// assert_eq!(s.len(), 3);
/// assert!(Sample::new(&[1.0, f64::NAN]).is_err());
/// # Ok::<(), bench_stats::SampleError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    values: Vec<f64>,
}

impl Sample {
    /// Checks `values` and copies them into a sample.
    ///
    /// # Errors
    /// [`SampleError::Empty`] for an empty slice, [`SampleError::NonFinite`] for the first
    /// NaN or infinity.
    pub fn new(values: &[f64]) -> Result<Sample, SampleError> {
        Sample::from_vec(values.to_vec())
    }

    /// Like [`Sample::new`], taking ownership of the vector.
    ///
    /// # Errors
    /// As [`Sample::new`].
    pub fn from_vec(values: Vec<f64>) -> Result<Sample, SampleError> {
        if values.is_empty() {
            return Err(SampleError::Empty);
        }
        if let Some((index, &value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(SampleError::NonFinite { index, value });
        }
        Ok(Sample { values })
    }

    /// The values in arrival order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Number of values (at least 1).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always `false`: a sample is never empty. Present for API symmetry with slices.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// A sorted copy of the values (ascending). Time: O(n log n).
    pub fn sorted(&self) -> Vec<f64> {
        let mut v = self.values.clone();
        v.sort_by(f64::total_cmp);
        v
    }
}
