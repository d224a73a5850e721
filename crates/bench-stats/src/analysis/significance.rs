//! The pluggable significance strategy: a test sees the groups, the baseline and alpha,
//! and answers per candidate (and optionally with an omnibus verdict).
//!
//! The built-ins follow the NBenchmark rules: two groups are compared with Mann-Whitney U;
//! three or more first with Kruskal-Wallis, and only when that omnibus is significant with
//! Holm-Bonferroni-corrected post-hoc Mann-Whitney tests (Holm 1979). Blocked data use the
//! blocked analogues: Friedman, then Wilcoxon signed-rank post-hoc tests.
//!
//! The engine applies the practical-significance gate to whatever a test returns: a
//! significant verdict whose [`EffectSize::practical_value`] is below the configured
//! minimum is downgraded, and a warning says so.

use std::fmt;

use crate::descriptive::sample::Sample;
use crate::error::StatsError;
use crate::model::report::{Omnibus, OmnibusTest, ShiftReport, Verdict};
use crate::rank::cliff::cliffs_delta;
use crate::rank::friedman::friedman;
use crate::rank::holm::holm_bonferroni;
use crate::rank::kruskal::kruskal_wallis;
use crate::rank::mann_whitney::mann_whitney_u;
use crate::rank::wilcoxon::wilcoxon_signed_rank;

/// One group handed to a test: a name and its pre-trim samples.
#[derive(Debug, Clone, Copy)]
pub struct Group<'a> {
    /// The benchmark's name.
    pub name: &'a str,
    /// Every measured value, outliers included.
    pub sample: &'a Sample,
}

/// What a [`SignificanceTest`] sees.
#[derive(Debug, Clone, Copy)]
pub struct SignificanceContext<'a> {
    /// Every comparable group, baseline included.
    pub groups: &'a [Group<'a>],
    /// Index of the baseline in `groups`.
    pub baseline: usize,
    /// Significance level.
    pub alpha: f64,
    /// Per-block values (`blocks[b][g]` = group `g`'s value in block `b`) when the data are
    /// blocked; `None` for unpaired data.
    pub blocks: Option<&'a [Vec<f64>]>,
}

impl SignificanceContext<'_> {
    /// The baseline group.
    pub fn baseline_group(&self) -> Group<'_> {
        self.groups[self.baseline]
    }

    /// Indices of the candidates (every group but the baseline), in order.
    pub fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.groups.len()).filter(move |&i| i != self.baseline)
    }
}

/// An effect size a test attaches to a comparison. Build it with [`EffectSize::new`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct EffectSize {
    /// What it measures (`cliffs-delta`, `paired-dominance`, `median-ratio`, ...).
    pub metric: String,
    /// Its value.
    pub value: f64,
    /// A magnitude label (`negligible`, `small`, ...).
    pub magnitude: String,
    /// A normalised score in [0, 1] the practical gate compares with its minimum; `None`
    /// leaves the comparison ungated.
    pub practical_value: Option<f64>,
}

/// One candidate's answer. Build it with [`PairwiseComparison::new`] and the `with_*`
/// methods.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PairwiseComparison {
    /// The candidate's name.
    pub candidate: String,
    /// Raw p-value, when the rule has one.
    pub p_value: Option<f64>,
    /// Adjusted p-value, when a multiple-comparison correction applied.
    pub p_value_adjusted: Option<f64>,
    /// The verdict (before the practical gate).
    pub verdict: Verdict,
    /// An effect size, when the rule has one.
    pub effect: Option<EffectSize>,
    /// A location shift with interval, when the rule has one.
    pub shift: Option<ShiftReport>,
}

/// A test's whole answer. Build it with [`SignificanceReport::new`].
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct SignificanceReport {
    /// One per candidate, in group order (every group but the baseline, in the order of
    /// [`SignificanceContext::candidates`]); the engine matches them by position.
    pub pairwise: Vec<PairwiseComparison>,
    /// The omnibus verdict, for omnibus tests.
    pub omnibus: Option<Omnibus>,
}

impl EffectSize {
    /// An effect size named `metric` (`cliffs-delta`, `median-ratio`, ...) with its value
    /// and magnitude label, left out of the practical gate (no practical value).
    pub fn new(metric: impl Into<String>, value: f64, magnitude: impl Into<String>) -> Self {
        EffectSize {
            metric: metric.into(),
            value,
            magnitude: magnitude.into(),
            practical_value: None,
        }
    }

    /// The same effect with a practical value in `[0, 1]`, which the practical gate
    /// compares with its minimum.
    #[must_use]
    pub fn with_practical_value(mut self, value: f64) -> Self {
        self.practical_value = Some(value);
        self
    }
}

impl PairwiseComparison {
    /// The answer for `candidate`: its verdict, with no p-value, effect or shift yet.
    pub fn new(candidate: impl Into<String>, verdict: Verdict) -> Self {
        PairwiseComparison {
            candidate: candidate.into(),
            p_value: None,
            p_value_adjusted: None,
            verdict,
            effect: None,
            shift: None,
        }
    }

    /// The same answer with a raw p-value.
    #[must_use]
    pub fn with_p_value(mut self, p: f64) -> Self {
        self.p_value = Some(p);
        self
    }

    /// The same answer with a p-value adjusted for multiple comparisons.
    #[must_use]
    pub fn with_p_value_adjusted(mut self, p: f64) -> Self {
        self.p_value_adjusted = Some(p);
        self
    }

    /// The same answer with an effect size.
    #[must_use]
    pub fn with_effect(mut self, effect: EffectSize) -> Self {
        self.effect = Some(effect);
        self
    }

    /// The same answer with a location shift (candidate minus baseline) and its interval.
    #[must_use]
    pub fn with_shift(mut self, shift: ShiftReport) -> Self {
        self.shift = Some(shift);
        self
    }
}

impl SignificanceReport {
    /// A report of one answer per candidate, in the order of
    /// [`SignificanceContext::candidates`], without an omnibus result.
    pub fn new(pairwise: Vec<PairwiseComparison>) -> Self {
        SignificanceReport {
            pairwise,
            omnibus: None,
        }
    }

    /// The same report with an omnibus result.
    #[must_use]
    pub fn with_omnibus(mut self, omnibus: Omnibus) -> Self {
        self.omnibus = Some(omnibus);
        self
    }
}

/// A significance strategy. Implement it to swap in any rule; the built-ins implement it too.
///
/// What a custom test returns (p-value, effect, shift) is reported in each comparison's
/// [`custom_test`](crate::Comparison::custom_test); its verdict, after the practical gate,
/// is the comparison's verdict. [`crate::analyze_with`] calls it on blocked data too, with
/// [`SignificanceContext::blocks`] set.
///
/// # Examples
/// The median-ratio rule: significant when the medians differ by more than a threshold.
/// ```
/// use bench_stats::{Sample, SignificanceTest, Verdict};
/// use bench_stats::analysis::{EffectSize, Group, PairwiseComparison, SignificanceContext, SignificanceReport};
/// use bench_stats::descriptive::summarize;
///
/// #[derive(Debug)]
/// struct MedianRatio { threshold_percent: f64 }
///
/// impl SignificanceTest for MedianRatio {
///     fn name(&self) -> &str { "median-ratio" }
///     fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
///         let base = summarize(ctx.baseline_group().sample).median;
///         let pairwise = ctx.candidates().map(|i| {
///             let g = ctx.groups[i];
///             let delta = (summarize(g.sample).median / base - 1.0).abs() * 100.0;
///             let verdict = if delta > self.threshold_percent { Verdict::Significant }
///                           else { Verdict::NotSignificant };
///             let magnitude = if delta < 5.0 { "negligible" } else { "large" };
///             PairwiseComparison::new(g.name, verdict).with_effect(
///                 EffectSize::new("median-ratio", delta, magnitude)
///                     .with_practical_value((delta / 100.0).min(1.0)),
///             )
///         }).collect();
///         SignificanceReport::new(pairwise)
///     }
/// }
///
/// let a = Sample::new(&[10.0, 10.1, 9.9])?;
/// let b = Sample::new(&[13.0, 13.2, 12.9])?;
/// let groups = [Group { name: "a", sample: &a }, Group { name: "b", sample: &b }];
/// let ctx = SignificanceContext { groups: &groups, baseline: 0, alpha: 0.05, blocks: None };
/// let report = MedianRatio { threshold_percent: 25.0 }.analyze(&ctx);
/// assert_eq!(report.pairwise[0].verdict, Verdict::Significant);
/// # Ok::<(), bench_stats::SampleError>(())
/// ```
pub trait SignificanceTest: fmt::Debug + Send + Sync {
    /// A short name, reported as the verdict basis.
    fn name(&self) -> &str;
    /// Tests every candidate against the baseline.
    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport;
}

fn not_tested(name: &str) -> PairwiseComparison {
    PairwiseComparison::new(name, Verdict::NotTested)
}

fn verdict_of(p: f64, alpha: f64) -> Verdict {
    if p < alpha {
        Verdict::Significant
    } else {
        Verdict::NotSignificant
    }
}

/// Cliff's delta as the gate's effect: practical value |delta|.
fn cliff_effect(baseline: &Sample, candidate: &Sample) -> EffectSize {
    let d = cliffs_delta(baseline, candidate);
    EffectSize {
        metric: "cliffs-delta".into(),
        value: d.delta,
        magnitude: d.magnitude.as_str().into(),
        practical_value: Some(d.delta.abs()),
    }
}

/// Paired dominance: over blocks, (#(candidate > baseline) - #(candidate < baseline)) / n.
///
/// It is Cliff's delta restricted to the within-block pairs, so it keeps delta's scale and
/// Romano thresholds while removing the block-to-block variance that pairing exists to
/// cancel. It is the practical value of every paired test.
pub fn paired_dominance(baseline: &[f64], candidate: &[f64]) -> Option<f64> {
    if baseline.is_empty() || baseline.len() != candidate.len() {
        return None;
    }
    let mut score = 0_i64;
    for (a, b) in baseline.iter().zip(candidate) {
        score += i64::from(b > a) - i64::from(b < a);
    }
    Some(score as f64 / baseline.len() as f64)
}

pub(crate) fn dominance_effect(baseline: &[f64], candidate: &[f64]) -> Option<EffectSize> {
    let value = paired_dominance(baseline, candidate)?;
    Some(EffectSize {
        metric: "paired-dominance".into(),
        value,
        magnitude: crate::rank::cliff::Magnitude::from_delta(value)
            .as_str()
            .into(),
        practical_value: Some(value.abs()),
    })
}

/// Mann-Whitney U of every candidate against the baseline, uncorrected (meant for two
/// groups; see [`KruskalWallisTest`] for more).
#[derive(Debug, Clone, Copy, Default)]
pub struct MannWhitneyTest;

impl SignificanceTest for MannWhitneyTest {
    fn name(&self) -> &str {
        "mann-whitney"
    }

    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
        let base = ctx.baseline_group();
        let pairwise = ctx
            .candidates()
            .map(|i| {
                let g = ctx.groups[i];
                match mann_whitney_u(base.sample, g.sample) {
                    Ok(mw) => PairwiseComparison {
                        candidate: g.name.to_string(),
                        p_value: Some(mw.p_value),
                        p_value_adjusted: None,
                        verdict: verdict_of(mw.p_value, ctx.alpha),
                        effect: Some(cliff_effect(base.sample, g.sample)),
                        shift: None,
                    },
                    Err(_) => not_tested(g.name),
                }
            })
            .collect();
        SignificanceReport {
            pairwise,
            omnibus: None,
        }
    }
}

/// Kruskal-Wallis omnibus, then (only when it is significant) Mann-Whitney post-hoc tests of
/// each candidate against the baseline, Holm-Bonferroni corrected.
#[derive(Debug, Clone, Copy, Default)]
pub struct KruskalWallisTest;

impl SignificanceTest for KruskalWallisTest {
    fn name(&self) -> &str {
        "kruskal-wallis+mann-whitney-holm"
    }

    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
        let samples: Vec<&Sample> = ctx.groups.iter().map(|g| g.sample).collect();
        let omnibus = kruskal_wallis(&samples).ok().map(|kw| Omnibus {
            test: OmnibusTest::KruskalWallis,
            statistic: kw.h,
            df: kw.df,
            p_value: kw.p_value,
            significant: kw.p_value < ctx.alpha,
        });
        let base = ctx.baseline_group();
        let pairwise = post_hoc(ctx, omnibus.as_ref(), |i| {
            let g = ctx.groups[i];
            mann_whitney_u(base.sample, g.sample)
                .ok()
                .map(|mw| (mw.p_value, cliff_effect(base.sample, g.sample)))
        });
        SignificanceReport { pairwise, omnibus }
    }
}

/// Friedman omnibus over blocks, then (only when significant) Wilcoxon signed-rank post-hoc
/// tests of each candidate's block values against the baseline's, Holm-Bonferroni
/// corrected. Without blocks in the context every candidate is not tested.
#[derive(Debug, Clone, Copy, Default)]
pub struct FriedmanTest;

impl SignificanceTest for FriedmanTest {
    fn name(&self) -> &str {
        "friedman+wilcoxon-holm"
    }

    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
        let Some(blocks) = ctx.blocks else {
            let pairwise = ctx
                .candidates()
                .map(|i| not_tested(ctx.groups[i].name))
                .collect();
            return SignificanceReport {
                pairwise,
                omnibus: None,
            };
        };
        let omnibus = friedman(blocks).ok().map(|f| Omnibus {
            test: OmnibusTest::Friedman,
            statistic: f.statistic,
            df: f.df,
            p_value: f.p_value,
            significant: f.p_value < ctx.alpha,
        });
        let column = |g: usize| blocks.iter().map(|row| row[g]).collect::<Vec<f64>>();
        let base = column(ctx.baseline);
        // With fewer blocks than a signed-rank test needs to reach alpha, no post-hoc
        // comparison can be significant: none is made.
        if blocks.len() < crate::analysis::paired_verdict::min_paired_blocks(ctx.alpha) {
            let pairwise = ctx
                .candidates()
                .map(|i| not_tested(ctx.groups[i].name))
                .collect();
            return SignificanceReport { pairwise, omnibus };
        }
        let pairwise = post_hoc(ctx, omnibus.as_ref(), |i| {
            let cand = column(i);
            // The scale of the ratio the report leads with (log-ratios when positive).
            let (ranked, _) = crate::analysis::paired_verdict::paired_scale(&base, &cand);
            let p = wilcoxon_signed_rank(&ranked).ok()?.p_value;
            Some((p, dominance_effect(&base, &cand)?))
        });
        SignificanceReport { pairwise, omnibus }
    }
}

/// The omnibus-gated, Holm-corrected post-hoc step shared by the two omnibus tests. `test`
/// gets the candidate's index in `ctx.groups` (names may repeat across classes).
fn post_hoc(
    ctx: &SignificanceContext<'_>,
    omnibus: Option<&Omnibus>,
    test: impl Fn(usize) -> Option<(f64, EffectSize)>,
) -> Vec<PairwiseComparison> {
    let candidates: Vec<usize> = ctx.candidates().collect();
    if !omnibus.is_some_and(|o| o.significant) {
        return candidates
            .iter()
            .map(|&i| not_tested(ctx.groups[i].name))
            .collect();
    }
    let raw: Vec<Option<(f64, EffectSize)>> = candidates.iter().map(|&i| test(i)).collect();
    let p_raw: Vec<Option<f64>> = raw.iter().map(|r| r.as_ref().map(|(p, _)| *p)).collect();
    let adjusted = holm_bonferroni(&p_raw);
    candidates
        .iter()
        .zip(raw)
        .zip(adjusted)
        .map(|((&i, r), adj)| match (r, adj) {
            (Some((p, effect)), Some(adj)) => PairwiseComparison {
                candidate: ctx.groups[i].name.to_string(),
                p_value: Some(p),
                p_value_adjusted: Some(adj),
                verdict: verdict_of(adj, ctx.alpha),
                effect: Some(effect),
                shift: None,
            },
            _ => not_tested(ctx.groups[i].name),
        })
        .collect()
}

/// The group-count-aware default for unpaired data: [`MannWhitneyTest`] for two groups,
/// [`KruskalWallisTest`] for three or more.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultTest;

impl SignificanceTest for DefaultTest {
    fn name(&self) -> &str {
        "mann-whitney"
    }

    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
        if ctx.groups.len() >= 3 {
            KruskalWallisTest.analyze(ctx)
        } else {
            MannWhitneyTest.analyze(ctx)
        }
    }
}

/// Why the engine refused a test's report (a custom test returning the wrong shape).
pub(crate) fn check_report(
    ctx: &SignificanceContext<'_>,
    report: &SignificanceReport,
) -> Result<(), StatsError> {
    let expected = ctx.groups.len().saturating_sub(1);
    if report.pairwise.len() != expected {
        return Err(StatsError::LengthMismatch {
            left: report.pairwise.len(),
            right: expected,
        });
    }
    Ok(())
}
