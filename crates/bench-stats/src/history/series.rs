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

#[cfg(test)]
mod tests {
    use super::*;

    fn point(k: usize, level: Option<f64>, step: Option<(usize, f64)>) -> Point {
        Point {
            commit: Commit {
                sha: format!("c{k}"),
                parent: None,
                time: None,
                subject: None,
            },
            level: level.map(|median| Level {
                median,
                low: median - 1.0,
                high: median + 1.0,
                n: 10,
                experiments: 1,
            }),
            step: step.map(|(from, ratio)| PairedStep {
                from,
                ratio,
                low: ratio * 0.99,
                high: ratio * 1.01,
                confidence: 0.95,
                outcome: "slower".into(),
                verdict: "significant".into(),
                p_value: None,
                estimator: "p50".into(),
            }),
        }
    }

    fn analyse(points: Vec<Point>) -> Series {
        let bench = SeriesBenchmark {
            name: "b".into(),
            metric: "wall".into(),
            unit: "ns".into(),
            higher_is_better: false,
            command: None,
        };
        let machine = SeriesMachine {
            fingerprint: "0".repeat(16),
            name: "m".into(),
            cpu_model: None,
            cores: None,
            kernel: None,
        };
        let config = SeriesConfig {
            change_points: ChangePointConfig {
                min_segment: 3,
                ..ChangePointConfig::default()
            },
            confidence: 0.95,
        };
        Series::analyse(bench, machine, points, &config).unwrap()
    }

    #[test]
    fn a_change_point_is_the_index_of_its_point_not_of_its_level() {
        // Point 3 has no level (a step only): the 12 levels' change at the 8th level is
        // the 9th point.
        let wobble = [0.2, -0.1, 0.3, -0.2, 0.1, -0.3];
        let points = (0..13)
            .map(|k| match k {
                3 => point(k, None, Some((2, 1.0))),
                _ => {
                    let base = if k >= 9 { 110.0 } else { 100.0 };
                    point(k, Some(base + wobble[k % 6]), None)
                }
            })
            .collect();
        let s = analyse(points);
        let found: Vec<usize> = s.change_points.iter().map(|c| c.index).collect();
        assert_eq!(found, vec![9]);
    }

    #[test]
    fn the_chain_walks_back_from_the_newest_point_along_its_steps() {
        // 3 <- 1 <- 0 are linked; point 2's step is not on the way back.
        let points = vec![
            point(0, Some(100.0), None),
            point(1, None, Some((0, 1.01))),
            point(2, None, Some((1, 1.5))),
            point(3, None, Some((1, 1.02))),
        ];
        let s = analyse(points);
        let chain = s.chain.clone().unwrap();
        assert_eq!((chain.from, chain.to), (0, 3));
        assert_eq!(chain.steps, vec![1, 3]);
        assert!((chain.chain.ratio - 1.01 * 1.02).abs() < 1e-12);
        assert_eq!(s.confirmation(3), None);
        assert_eq!(s.confirmation(1).map(|st| st.from), Some(0));
    }

    #[test]
    fn no_step_at_the_newest_point_is_no_chain() {
        let points = vec![
            point(0, Some(100.0), None),
            point(1, None, Some((0, 1.01))),
            point(2, Some(101.0), None),
        ];
        assert!(analyse(points).chain.is_none());
    }
}
