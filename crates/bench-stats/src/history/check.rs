//! The CI check of a series (`abba history check`): which recent change points are
//! slowdowns, what the paired comparison across each said, and whether the chain of
//! steps trips the one regression gate ([`Gate::interval_trips`]). Facts only;
//! `bench-report` words them (`render_history_check`).

use crate::Outcome;
use crate::analysis::{Gate, GateResult, Regression, TripReason};
use crate::history::Series;

/// What is known of a recent change point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeState {
    /// The levels got better: never a failure.
    Faster,
    /// A slowdown that the paired comparison across it finds slower too.
    SlowerConfirmed,
    /// A slowdown with no paired comparison across it recorded: it fails until one is.
    SlowerToConfirm,
    /// The paired comparison across it finds it faster.
    NotConfirmedFaster,
    /// The paired comparison across it is inconclusive.
    NotConfirmedInconclusive,
    /// The paired comparison finds parts of the distribution moved in opposite directions.
    NotConfirmedMixed,
    /// The paired comparison finds it equivalent.
    Refuted,
    /// The paired comparison's outcome is a name this version does not know.
    UnknownOutcome,
}

impl ChangeState {
    /// Whether the check fails on it: a slowdown confirmed or still to confirm.
    pub fn fails(self) -> bool {
        matches!(
            self,
            ChangeState::SlowerConfirmed | ChangeState::SlowerToConfirm
        )
    }
}

/// A change point among the newest commits of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentChange {
    /// The change point's index in [`Series::change_points`].
    pub change_point: usize,
    /// The point where the new level starts.
    pub index: usize,
    /// What is known of it.
    pub state: ChangeState,
}

/// The chain of steps against the regression gate (`--fail-if-slower`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChainCheck {
    /// The threshold (0.03: 3%).
    pub threshold: f64,
    /// Whether the chain trips the gate: its interval lies wholly on the slower side of no
    /// change and reaches a slowdown of the threshold ([`Gate::interval_trips`]).
    pub tripped: bool,
    /// The gate's typed result, as compare's and suite's: when tripped, one
    /// [`TripReason::Regression`] of the newest commit of the chain (`#N SHORT`) against
    /// its first baseline, the part `chain of K paired steps`; worded by `bench-report`'s
    /// `render_gate` as every gate is.
    pub gate: GateResult,
}

impl ChainCheck {
    /// Whether the check fails on it: significantly slower and possibly by the threshold.
    pub fn fails(&self) -> bool {
        self.tripped
    }
}

/// The chain of `s` through the one [`Gate`] of `threshold`: [`Gate::interval_trips`] on
/// its interval, the trip as a [`Regression`] of its last commit against its first.
fn chain_check(s: &Series, threshold: f64) -> Option<ChainCheck> {
    let ch = s.chain.as_ref()?;
    let gate = Gate::new(threshold);
    let higher = s.benchmark.higher_is_better;
    let tripped = gate.interval_trips(ch.chain.interval, higher);
    let name = |i: usize| format!("#{} {}", i + 1, s.points[i].commit.short());
    let quantity = crate::Quantity::from(s.benchmark.metric.clone());
    let trips = if tripped {
        vec![TripReason::Regression(Regression {
            baseline: name(ch.from),
            candidate: name(ch.to),
            ratio: ch.chain.ratio,
            ratio_ci: ch.chain.interval,
            quantile: None,
            part: Some(format!("chain of {} paired steps", ch.steps.len())),
        })]
    } else {
        Vec::new()
    };
    let result = GateResult {
        threshold,
        timed: matches!(s.benchmark.metric.as_str(), "wall" | "user" | "sys" | "cpu"),
        counted: quantity.is_count().then(|| quantity.as_str().to_owned()),
        benchmark: None,
        suite_corrected: false,
        trips,
    };
    Some(ChainCheck {
        threshold,
        tripped,
        gate: result,
    })
}

/// The check of one series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesCheck {
    /// Its change points among the newest `recent` commits.
    pub recent: Vec<RecentChange>,
    /// Its chain against the threshold, when one was given and there is a chain.
    pub chain: Option<ChainCheck>,
}

impl SeriesCheck {
    /// How many of its findings fail.
    pub fn failures(&self) -> usize {
        self.recent.iter().filter(|c| c.state.fails()).count()
            + usize::from(self.chain.as_ref().is_some_and(ChainCheck::fails))
    }
}

fn is_worse(ratio: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        ratio < 1.0
    } else {
        ratio > 1.0
    }
}

/// Checks `s`: each change point among its newest `recent` points, read with the paired
/// comparison recorded across it (its outcome read back through [`Outcome::from_name`]),
/// and, with `threshold` (a fraction), the chain of steps to the newest point.
///
/// # Examples
/// ```
/// use bench_stats::history::{ChangeState, check_series};
/// use bench_stats::history::{Series, SeriesBenchmark, SeriesMachine};
/// let s = Series {
///     benchmark: SeriesBenchmark { name: "b".into(), metric: "wall".into(), unit: "ns".into(),
///         higher_is_better: false, command: None },
///     machine: SeriesMachine { fingerprint: "0".repeat(16), name: "m".into(), cpu_model: None,
///         cores: None, kernel: None },
///     points: vec![], change_points: vec![], chain: None,
/// };
/// let c = check_series(&s, 10, Some(0.03));
/// assert_eq!(c.failures(), 0);
/// assert!(c.recent.is_empty() && c.chain.is_none());
/// ```
pub fn check_series(s: &Series, recent: usize, threshold: Option<f64>) -> SeriesCheck {
    let higher = s.benchmark.higher_is_better;
    let n = s.points.len();
    let recent = s
        .change_points
        .iter()
        .enumerate()
        .filter(|(_, c)| c.index + recent >= n)
        .map(|(k, c)| {
            let worse = is_worse(c.ratio, higher);
            let confirmed = s
                .confirmation(c.index)
                .map(|st| Outcome::from_name(&st.outcome));
            let state = match (worse, confirmed) {
                (false, _) => ChangeState::Faster,
                (true, None) => ChangeState::SlowerToConfirm,
                (true, Some(Some(Outcome::Slower))) => ChangeState::SlowerConfirmed,
                (true, Some(Some(Outcome::Faster))) => ChangeState::NotConfirmedFaster,
                (true, Some(Some(Outcome::Inconclusive))) => ChangeState::NotConfirmedInconclusive,
                (true, Some(Some(Outcome::Mixed))) => ChangeState::NotConfirmedMixed,
                (true, Some(Some(Outcome::Equivalent))) => ChangeState::Refuted,
                (true, Some(_)) => ChangeState::UnknownOutcome,
            };
            RecentChange {
                change_point: k,
                index: c.index,
                state,
            }
        })
        .collect();
    let chain = threshold.and_then(|pct| chain_check(s, pct));
    SeriesCheck { recent, chain }
}
