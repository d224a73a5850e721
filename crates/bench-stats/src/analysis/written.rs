//! The analysis settings as people write them: a level or a threshold as a percentage or
//! a fraction (`2%`, `0.02`), an equivalence margin, a probability, an estimator's name,
//! a practical rule. One reader for the command line and any other front end, its
//! refusals saying what to write instead.

use std::fmt;

use crate::PairedEstimator;
use crate::analysis::PracticalRule;

/// Why a written setting is refused; its `Display` quotes the text and says what to write.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WrittenError {
    /// A bare number in (1, 100]: a percentage without its `%`, never guessed.
    BareNumberAboveOne {
        /// The text as given.
        text: String,
    },
    /// Not a number, with or without `%`.
    NotAPercentage {
        /// The text as given.
        text: String,
    },
    /// A number outside [0, 1] (or [0%, 100%]).
    OutOfRange {
        /// The text as given.
        text: String,
    },
    /// A margin of 0 or 100%.
    MarginNotInside {
        /// The text as given.
        text: String,
    },
    /// A probability of 0 or 1.
    NotStrictlyInside {
        /// The text as given.
        text: String,
    },
    /// No estimator of [`PairedEstimator::ALL`] has this name.
    UnknownEstimator {
        /// The text as given.
        text: String,
    },
    /// Not a [`PracticalRule`].
    UnknownPracticalRule {
        /// The text as given.
        text: String,
    },
}

impl fmt::Display for WrittenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrittenError::BareNumberAboveOne { text } => write!(
                f,
                "`{text}` is not a fraction between 0 and 1: did you mean `{}%`? (a bare number is a fraction: 0.02 is 2%)",
                text.trim()
            ),
            WrittenError::NotAPercentage { text } => {
                write!(f, "`{text}` is not a percentage (try `2%` or `0.02`)")
            }
            WrittenError::OutOfRange { text } => write!(
                f,
                "`{text}` is out of range: give a fraction between 0 and 1 or a percentage between 0% and 100%"
            ),
            WrittenError::MarginNotInside { text } => write!(
                f,
                "`{text}`: the margin must lie strictly between 0% and 100%"
            ),
            WrittenError::NotStrictlyInside { text } => {
                write!(f, "`{text}` must lie strictly between 0 and 1")
            }
            WrittenError::UnknownEstimator { text } => {
                let names: Vec<&str> = PairedEstimator::ALL.iter().map(|e| e.as_str()).collect();
                write!(
                    f,
                    "`{text}` is not an estimator; expected one of: {}",
                    names.join(", ")
                )
            }
            WrittenError::UnknownPracticalRule { text } => write!(
                f,
                "`{text}`: expected auto, ratio, cliff or cliff:X with X in [0, 1]"
            ),
        }
    }
}

impl std::error::Error for WrittenError {}

/// Parses `2%` as 0.02 and `0.02` as 0.02; must lie in [0, 1]. A bare number above 1
/// (`2`) is refused with the percentage it probably meant (`did you mean 2%?`), never
/// guessed: `1` is 100% and `0.5` is 50%. Time: O(length).
///
/// # Errors
/// [`WrittenError::BareNumberAboveOne`], [`WrittenError::NotAPercentage`],
/// [`WrittenError::OutOfRange`].
///
/// # Examples
/// ```
/// use bench_stats::analysis::parse_percent;
/// assert_eq!(parse_percent("2%")?, 0.02);
/// assert_eq!(parse_percent("0.02")?, 0.02);
/// assert!(parse_percent("2").unwrap_err().to_string().contains("did you mean `2%`?"));
/// # Ok::<(), bench_stats::analysis::WrittenError>(())
/// ```
pub fn parse_percent(text: &str) -> Result<f64, WrittenError> {
    let t = text.trim();
    let owned = || text.to_owned();
    if !t.ends_with('%') && t.parse::<f64>().is_ok_and(|v| v > 1.0 && v <= 100.0) {
        return Err(WrittenError::BareNumberAboveOne { text: owned() });
    }
    let value = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|v| v / 100.0)
    } else {
        t.parse::<f64>()
    }
    .map_err(|_| WrittenError::NotAPercentage { text: owned() })?;
    if !(0.0..=1.0).contains(&value) || !value.is_finite() {
        return Err(WrittenError::OutOfRange { text: owned() });
    }
    Ok(value)
}

/// Parses an equivalence margin: a percentage or fraction strictly between 0 and 1
/// ([`parse_percent`]).
///
/// # Errors
/// [`parse_percent`]'s, and [`WrittenError::MarginNotInside`] for 0 or 100%.
pub fn parse_margin(text: &str) -> Result<f64, WrittenError> {
    let m = parse_percent(text)?;
    if m > 0.0 && m < 1.0 {
        Ok(m)
    } else {
        Err(WrittenError::MarginNotInside {
            text: text.to_owned(),
        })
    }
}

/// Parses a probability strictly between 0 and 1 (`0.05`, or `5%`; [`parse_percent`]).
///
/// # Errors
/// [`parse_percent`]'s, and [`WrittenError::NotStrictlyInside`] for 0 or 1.
pub fn parse_fraction(text: &str) -> Result<f64, WrittenError> {
    let value = parse_percent(text)?;
    if value <= 0.0 || value >= 1.0 {
        return Err(WrittenError::NotStrictlyInside {
            text: text.to_owned(),
        });
    }
    Ok(value)
}

/// Parses one of [`PairedEstimator::ALL`] by name ([`PairedEstimator::from_name`]).
///
/// # Errors
/// [`WrittenError::UnknownEstimator`], whose text lists the names.
pub fn parse_estimator(text: &str) -> Result<PairedEstimator, WrittenError> {
    PairedEstimator::from_name(text.trim()).ok_or_else(|| WrittenError::UnknownEstimator {
        text: text.to_owned(),
    })
}

/// Parses a [`PracticalRule`]: `auto`, `ratio`, `cliff` or `cliff:X`.
///
/// # Errors
/// [`WrittenError::UnknownPracticalRule`].
pub fn parse_practical(text: &str) -> Result<PracticalRule, WrittenError> {
    text.parse()
        .map_err(|_| WrittenError::UnknownPracticalRule {
            text: text.to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_estimator_parses_and_a_typo_lists_them() {
        for e in PairedEstimator::ALL {
            assert_eq!(parse_estimator(e.as_str()), Ok(e));
        }
        let err = parse_estimator("hl-mni-log-ratio").unwrap_err().to_string();
        assert!(
            err.contains("hl-min-log-ratio") && err.contains("pooled-median-ratio"),
            "{err}"
        );
    }

    #[test]
    fn percentages_and_fractions() {
        assert_eq!(parse_percent("2%").unwrap(), 0.02);
        assert_eq!(parse_percent(" 2 % ").unwrap(), 0.02);
        assert_eq!(parse_percent("0.02").unwrap(), 0.02);
        assert!(matches!(
            parse_percent("150%"),
            Err(WrittenError::OutOfRange { .. })
        ));
        assert_eq!(
            parse_percent(" 2").unwrap_err().to_string(),
            "` 2` is not a fraction between 0 and 1: did you mean `2%`? (a bare number is a fraction: 0.02 is 2%)"
        );
        assert_eq!(parse_percent("1").unwrap(), 1.0);
        assert_eq!(
            parse_percent("abc").unwrap_err().to_string(),
            "`abc` is not a percentage (try `2%` or `0.02`)"
        );
        assert!(matches!(
            parse_percent("NaN"),
            Err(WrittenError::OutOfRange { .. })
        ));
        assert_eq!(parse_fraction("0.05").unwrap(), 0.05);
        assert_eq!(
            parse_fraction("1").unwrap_err().to_string(),
            "`1` must lie strictly between 0 and 1"
        );
        assert!(parse_fraction("0").is_err());
    }

    #[test]
    fn margins_lie_strictly_inside() {
        assert_eq!(parse_margin("1%").unwrap(), 0.01);
        for text in ["0", "0%", "100%", "1"] {
            assert_eq!(
                parse_margin(text).unwrap_err(),
                WrittenError::MarginNotInside { text: text.into() }
            );
        }
        assert_eq!(
            parse_margin("-1%").unwrap_err().to_string(),
            "`-1%` is out of range: give a fraction between 0 and 1 or a percentage between 0% and 100%"
        );
    }

    #[test]
    fn practical_rules() {
        assert_eq!(parse_practical("ratio").unwrap(), PracticalRule::Ratio);
        assert_eq!(
            parse_practical("cliff:0.3").unwrap(),
            PracticalRule::Cliff(0.3)
        );
        assert_eq!(
            parse_practical("cliff:2").unwrap_err().to_string(),
            "`cliff:2`: expected auto, ratio, cliff or cliff:X with X in [0, 1]"
        );
    }
}
