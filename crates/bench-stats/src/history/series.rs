//! A benchmark's series on one machine, commit after commit: each point's level and the
//! paired step arriving at it, with the change points of the levels and the chain of
//! steps to the newest commit ([`Series::analyse`]). The store that fills it is
//! `bench-history`; `bench-report` renders it.

use crate::StatsError;

use super::{Chain, ChangePoint, ChangePointConfig, Level, Step, chain, try_e_divisive};

/// The benchmark a series measures.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SeriesBenchmark {
    /// Its name.
    pub name: String,
    /// The metric (`wall`, `json:FIELD`, ...).
    pub metric: String,
    /// The unit of its values.
    pub unit: String,
    /// Whether higher values are better.
    pub higher_is_better: bool,
    /// The command of the (candidate) variant, as first recorded.
    pub command: Option<String>,
}

/// The machine a series was measured on.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SeriesMachine {
    /// 16 hex digits identifying it.
    pub fingerprint: String,
    /// Its name.
    pub name: String,
    /// CPU model.
    pub cpu_model: Option<String>,
    /// Logical CPUs.
    pub cores: Option<i64>,
    /// Kernel release.
    pub kernel: Option<String>,
}

/// A commit of a series.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Commit {
    /// The full hash (or a label).
    pub sha: String,
    /// Its first parent, when known.
    pub parent: Option<String>,
    /// The committer time, Unix seconds, when known.
    pub time: Option<i64>,
    /// The first line of its message, when known.
    pub subject: Option<String>,
}

impl Commit {
    /// The first 10 characters of the hash (all of a shorter label).
    pub fn short(&self) -> &str {
        let end = self
            .sha
            .char_indices()
            .nth(10)
            .map_or(self.sha.len(), |(i, _)| i);
        &self.sha[..end]
    }
}

/// A recorded paired comparison arriving at a point from an earlier one.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PairedStep {
    /// The base commit's index in the series.
    pub from: usize,
    /// Candidate over baseline.
    pub ratio: f64,
    /// Lower end of the ratio's interval.
    pub low: f64,
    /// Upper end of the ratio's interval.
    pub high: f64,
    /// Confidence of the interval.
    pub confidence: f64,
    /// The comparison's outcome, by name (`slower`, `inconclusive`, ...).
    pub outcome: String,
    /// The comparison's verdict, by name (`significant`, ...).
    pub verdict: String,
    /// Its (adjusted) p, when tested.
    pub p_value: Option<f64>,
    /// What decided it (the verdict basis).
    pub estimator: String,
}

impl PairedStep {
    /// The step for the chain: its log ratio and the standard error its interval implies
    /// ([`Step::from_interval`]).
    pub fn step(&self) -> Option<Step> {
        Step::from_interval(self.ratio, [self.low, self.high], self.confidence)
    }
}

/// One point of a series: a commit with its level and the step arriving at it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Point {
    /// The commit.
    pub commit: Commit,
    /// Its level, when measured alone.
    pub level: Option<Level>,
    /// The latest recorded step from an earlier point to this one.
    pub step: Option<PairedStep>,
}

/// The chain of steps from an earlier point to the newest one.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChainSpan {
    /// Index of the first point.
    pub from: usize,
    /// Index of the last.
    pub to: usize,
    /// The points whose steps make the chain, in order.
    pub steps: Vec<usize>,
    /// The cumulative change.
    pub chain: Chain,
}

/// One benchmark on one machine: its points in history order, the change points of the
/// levels and the chain of steps.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Series {
    /// The benchmark.
    pub benchmark: SeriesBenchmark,
    /// The machine.
    pub machine: SeriesMachine,
    /// The points, oldest first.
    pub points: Vec<Point>,
    /// Change points of the levels; `index` is a point index.
    pub change_points: Vec<ChangePoint>,
    /// The chain of steps ending at the newest point, when one does.
    pub chain: Option<ChainSpan>,
}

/// How a series' change points and chain are found.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SeriesConfig {
    /// E-divisive means' options.
    pub change_points: ChangePointConfig,
    /// Confidence of the chain's interval. Default 0.95.
    pub confidence: f64,
}

impl Default for SeriesConfig {
    fn default() -> Self {
        SeriesConfig {
            change_points: ChangePointConfig::default(),
            confidence: 0.95,
        }
    }
}

impl Series {
    /// The series of `points` (oldest first), with the change points of their levels
    /// (e-divisive means over the points that have one, [`super::e_divisive`]) and the
    /// chain of steps walked back from the newest point while each has a usable step
    /// ([`chain`]). Time: that of e-divisive means on the levels.
    ///
    /// # Errors
    /// [`StatsError`] for options out of range or a non-finite level.
    ///
    /// # Examples
    /// ```
    /// use bench_stats::history::{Commit, Level, PairedStep, Point, Series, SeriesBenchmark,
    ///     SeriesConfig, SeriesMachine};
    /// let commit = |k: usize| Commit { sha: format!("c{k}"), parent: None, time: None, subject: None };
    /// let step = PairedStep { from: 0, ratio: 1.02, low: 1.01, high: 1.03, confidence: 0.95,
    ///     outcome: "slower".into(), verdict: "significant".into(), p_value: Some(0.01),
    ///     estimator: "p50".into() };
    /// let points = vec![
    ///     Point { commit: commit(0), level: None, step: None },
    ///     Point { commit: commit(1), level: None, step: Some(step) },
    /// ];
    /// let bench = SeriesBenchmark { name: "parse".into(), metric: "wall".into(), unit: "ns".into(),
    ///     higher_is_better: false, command: None };
    /// let machine = SeriesMachine { fingerprint: "0".repeat(16), name: "ci".into(),
    ///     cpu_model: None, cores: None, kernel: None };
    /// let s = Series::analyse(bench, machine, points, &SeriesConfig::default())?;
    /// let chain = s.chain.unwrap();
    /// assert_eq!((chain.from, chain.to, chain.steps), (0, 1, vec![1]));
    /// assert!((chain.chain.ratio - 1.02).abs() < 1e-12);
    /// # Ok::<(), bench_stats::StatsError>(())
    /// ```
    pub fn analyse(
        benchmark: SeriesBenchmark,
        machine: SeriesMachine,
        points: Vec<Point>,
        config: &SeriesConfig,
    ) -> Result<Series, StatsError> {
        let change_points = change_points(&points, &config.change_points)?;
        let chain = chain_to_newest(&points, config.confidence);
        Ok(Series {
            benchmark,
            machine,
            points,
            change_points,
            chain,
        })
    }

    /// The step recorded across a change point at `index`: the one arriving there from
    /// the point just before it.
    pub fn confirmation(&self, index: usize) -> Option<&PairedStep> {
        let p = self.points.get(index)?;
        p.step.as_ref().filter(|st| st.from + 1 == index)
    }
}

/// The change points of the points' levels, as point indices.
fn change_points(
    points: &[Point],
    config: &ChangePointConfig,
) -> Result<Vec<ChangePoint>, StatsError> {
    let with_level: Vec<usize> = (0..points.len())
        .filter(|&k| points[k].level.is_some())
        .collect();
    let values: Vec<f64> = with_level
        .iter()
        .filter_map(|&k| points[k].level.as_ref().map(|l| l.median))
        .collect();
    Ok(try_e_divisive(&values, config)?
        .into_iter()
        .filter_map(|mut c| {
            c.index = *with_level.get(c.index)?;
            Some(c)
        })
        .collect())
}

/// The chain: from the newest point back along recorded steps.
fn chain_to_newest(points: &[Point], confidence: f64) -> Option<ChainSpan> {
    let mut chain_points = Vec::new();
    let mut at = points.len().checked_sub(1);
    while let Some(k) = at {
        match &points[k].step {
            Some(s) if s.from < k && s.step().is_some() => {
                chain_points.push(k);
                at = Some(s.from);
            }
            _ => break,
        }
    }
    chain_points.reverse();
    let first = *chain_points.first()?;
    let steps: Vec<Step> = chain_points
        .iter()
        .filter_map(|&k| points[k].step.as_ref().and_then(PairedStep::step))
        .collect();
    let from = points[first].step.as_ref()?.from;
    let chain = chain(&steps, confidence)?;
    Some(ChainSpan {
        from,
        to: points.len() - 1,
        steps: chain_points,
        chain,
    })
}
