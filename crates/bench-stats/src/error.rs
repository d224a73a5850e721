//! The typed error every fallible estimator returns for degenerate input.

use thiserror::Error;

/// Why a statistic could not be computed. Degenerate input is an answer, not a panic.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum StatsError {
    /// Fewer observations than the method needs.
    #[error("{what} needs at least {needed} values, got {got}")]
    TooFewSamples {
        /// What needed them (`mann-whitney baseline`, `paired blocks`, ...).
        what: &'static str,
        /// Minimum required.
        needed: usize,
        /// How many there were.
        got: usize,
    },
    /// Every value is the same, so ranks or variances carry no information.
    #[error("{what}: all values are equal, nothing to test")]
    AllTied {
        /// The method.
        what: &'static str,
    },
    /// A spread needed as a denominator is zero.
    #[error("{what}: zero variance")]
    ZeroVariance {
        /// The method.
        what: &'static str,
    },
    /// A parameter outside its allowed range.
    #[error("{name} = {} is invalid: {reason}", shown(*.value))]
    InvalidParameter {
        /// Parameter name (`alpha`, `confidence`, `resamples`, ...).
        name: &'static str,
        /// The value given.
        value: f64,
        /// What is allowed.
        reason: &'static str,
    },
    /// Paired data whose two sides have different lengths.
    #[error("paired data: {left} values against {right}")]
    LengthMismatch {
        /// Length of the first side.
        left: usize,
        /// Length of the second side.
        right: usize,
    },
    /// A baseline name that no variant has.
    #[error("baseline {name:?} is not one of the variants ({known})")]
    UnknownBaseline {
        /// The name asked for.
        name: String,
        /// The variant names there are, comma-separated.
        known: String,
    },
    /// A name that is not one of the known ones (a design, an estimator).
    #[error("unknown {what} {name:?}")]
    UnknownName {
        /// What was named.
        what: &'static str,
        /// The name given.
        name: String,
    },
    /// A NaN or infinity where a finite number is needed: in the input, or in an
    /// intermediate result that overflowed the `f64` range. Every estimator reports a
    /// non-finite value this way.
    #[error("{what}: {value} is not a finite number")]
    NonFinite {
        /// Which value (`wilcoxon difference`, `friedman value`, ...), with the cause when
        /// it was computed (`... overflows f64; rescale the data`).
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A ratio whose denominator is zero or has the wrong sign.
    #[error("{what}: denominator is zero")]
    ZeroDenominator {
        /// The method.
        what: &'static str,
    },
}

impl From<crate::descriptive::SampleError> for StatsError {
    /// An empty sample is [`StatsError::TooFewSamples`]; a NaN or infinite value is
    /// [`StatsError::NonFinite`].
    fn from(e: crate::descriptive::SampleError) -> Self {
        match e {
            crate::descriptive::SampleError::Empty => StatsError::TooFewSamples {
                what: "sample",
                needed: 1,
                got: 0,
            },
            crate::descriptive::SampleError::NonFinite { value, .. } => StatsError::NonFinite {
                what: "sample value",
                value,
            },
        }
    }
}

/// A parameter's value as given, in scientific notation beyond 10^6 or below 10^-4 (never
/// hundreds of digits in a message).
fn shown(value: f64) -> String {
    if value != 0.0 && value.is_finite() && !(1e-4..1e6).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}
