//! The front door: two paired samples to an answer in one call ([`compare_paired`]), or
//! the answers of a whole [`Dataset`] ([`answers`]).
//!
//! An [`Answer`] holds what a caller acts on (the outcome, the ratio and its interval,
//! the deciding p, the sentence the reports print) and none of the estimator's parts: the
//! full [`Comparison`] of [`crate::analyze`] stays the place for those.

use crate::StatsError;
use crate::analysis::{AnalysisConfig, analyze};
use crate::model::{Analysis, Comparison, Dataset, Observation, Outcome, Series};

/// The answer to "is the candidate faster than the baseline?" for one comparison.
///
/// Built from a full [`Comparison`] by [`Answer::from_comparison`]; its fields are plain
/// numbers and words, so it does not change when an estimator's internals do.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Answer {
    /// The candidate's name (`B` for [`compare_paired`]).
    pub candidate: String,
    /// The baseline's name (`A` for [`compare_paired`]).
    pub baseline: String,
    /// Faster, slower, equivalent, inconclusive or mixed.
    pub outcome: Outcome,
    /// Candidate / baseline as the deciding estimator gives it (below 1 is faster for
    /// times), when it could be computed.
    pub ratio: Option<f64>,
    /// The interval of `ratio` at the analysis confidence, when it could be formed.
    pub ratio_ci: Option<[f64; 2]>,
    /// The deciding test's two-sided p (adjusted when an adjustment applied), when the
    /// rule has one.
    pub p_value: Option<f64>,
    /// The confidence of `ratio_ci` (`1 - alpha`).
    pub confidence: f64,
    /// The sentence the reports print for this comparison.
    pub sentence: String,
}

impl Answer {
    /// The answer of one comparison of `analysis` (whose group's baseline is `baseline`).
    pub fn from_comparison(analysis: &Analysis, baseline: &str, c: &Comparison) -> Answer {
        let p_value = c
            .decision
            .as_ref()
            .and_then(|d| d.p_value_adjusted.or(d.p_value))
            .or(c.p_value_adjusted);
        Answer {
            candidate: c.candidate.clone(),
            baseline: baseline.to_owned(),
            outcome: c.outcome,
            ratio: c.ratio,
            ratio_ci: c.ratio_ci,
            p_value,
            confidence: analysis.confidence,
            sentence: c.summary.clone(),
        }
    }
}

impl std::fmt::Display for Answer {
    /// The sentence the reports print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence)
    }
}

/// Compares two paired samples with the default analysis: `baseline[i]` and
/// `candidate[i]` were measured in the same block `i` (one run of each, back to back or
/// interleaved), lower is better (times). Equivalent to [`compare_paired_with`] and
/// [`AnalysisConfig::default`].
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the samples differ in length,
/// [`StatsError::NonFinite`] on a NaN or infinite value, and what [`analyze`] returns.
///
/// # Examples
///
/// ```
/// use bench_stats::{Outcome, compare_paired};
/// let old = [10.2, 10.4, 10.1, 10.3, 10.5, 10.2, 10.6, 10.3];
/// let new = [9.2, 9.4, 9.1, 9.3, 9.5, 9.2, 9.6, 9.3];
/// let answer = compare_paired(&old, &new)?;
/// assert_eq!(answer.outcome, Outcome::Faster);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn compare_paired(baseline: &[f64], candidate: &[f64]) -> Result<Answer, StatsError> {
    compare_paired_with(baseline, candidate, &AnalysisConfig::default())
}

/// [`compare_paired`] with `config` (alpha, confidence, estimator, seed, practical margin,
/// `higher_is_better` for throughputs). Time: that of [`analyze`] on `n` blocks.
///
/// # Errors
/// As [`compare_paired`].
pub fn compare_paired_with(
    baseline: &[f64],
    candidate: &[f64],
    config: &AnalysisConfig,
) -> Result<Answer, StatsError> {
    if baseline.len() != candidate.len() {
        return Err(StatsError::LengthMismatch {
            left: baseline.len(),
            right: candidate.len(),
        });
    }
    if let Some(&value) = baseline.iter().chain(candidate).find(|v| !v.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "paired sample value",
            value,
        });
    }
    let series = |name: &str, values: &[f64]| {
        Series::new(
            name,
            values
                .iter()
                .zip(0u32..)
                .map(|(&v, b)| Observation::in_block(v, b)),
        )
    };
    let data = Dataset::new("", vec![series("A", baseline), series("B", candidate)]);
    let mut found = answers(&data, config)?;
    found.pop().ok_or(StatsError::TooFewSamples {
        what: "paired blocks",
        needed: 2,
        got: baseline.len(),
    })
}

/// The answer of every comparison of `data` (each candidate against its group's
/// baseline), in the order of [`crate::analyze`]'s groups and comparisons.
///
/// # Errors
/// What [`analyze`] returns.
///
/// # Examples
///
/// ```
/// use bench_stats::{AnalysisConfig, Dataset, Observation, Series, answers};
/// let runs = |name: &str, v: &[f64]| Series::new(name, v.iter().map(|&x| Observation::new(x)));
/// let data = Dataset::new("ms", vec![
///     runs("old", &[10.2, 10.4, 10.1, 10.3, 10.5, 10.2]),
///     runs("new", &[9.1, 9.3, 9.0, 9.2, 9.4, 9.1]),
/// ]);
/// for answer in answers(&data, &AnalysisConfig::default())? {
///     println!("{answer}");
/// }
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn answers(data: &Dataset, config: &AnalysisConfig) -> Result<Vec<Answer>, StatsError> {
    let analysis = analyze(data, config)?;
    Ok(analysis
        .groups
        .iter()
        .flat_map(|g| {
            g.comparisons
                .iter()
                .map(|c| Answer::from_comparison(&analysis, &g.baseline, c))
        })
        .collect())
}
