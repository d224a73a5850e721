//! One comparison's values arranged by level: the block log-ratios under their sessions
//! and hosts, and every run's log value with its place, for the variance components.

use std::collections::BTreeMap;

use super::levels::Levels;
use crate::model::dataset::Series;
use crate::paired::BlockSummary;

/// One candidate against its baseline, level by level.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Nested {
    /// Host index → session index → block log-ratios (candidate over baseline, each
    /// variant's block value the chosen summary of its runs' logs), for hosts and sessions
    /// holding complete blocks.
    pub hosts: BTreeMap<usize, BTreeMap<usize, Vec<f64>>>,
    /// `[host, session, block]` of every run of the two variants in a used block.
    pub run_ids: Vec<[u32; 3]>,
    /// Each such run's log value minus its variant's mean log value.
    pub run_residuals: Vec<f64>,
}

/// The baseline's and the candidate's log values in one block.
#[derive(Default)]
struct BlockLogs {
    base: Vec<f64>,
    cand: Vec<f64>,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Arranges `base` and `cand` by `levels`, each variant's block value the `summary` of its
/// runs' log values (the paired estimator's: the fastest run for the default, the mean log,
/// a geometric mean, for the mean-based estimators), so the pooled and per-host ratios
/// speak of the same block values as the paired verdict. Blocks missing either variant or
/// a session are left out. `None` when a value is not positive (no log-ratio) or no block
/// is left. Time: O(n log n).
pub(crate) fn nest(
    base: &Series,
    cand: &Series,
    levels: &Levels,
    summary: BlockSummary,
) -> Option<Nested> {
    let mut blocks: BTreeMap<u32, BlockLogs> = BTreeMap::new();
    for (series, is_cand) in [(base, false), (cand, true)] {
        for o in &series.observations {
            let block = o.block?;
            if o.value.is_nan() || o.value <= 0.0 {
                return None;
            }
            let e = blocks.entry(block).or_default();
            if is_cand {
                e.cand.push(o.value.ln());
            } else {
                e.base.push(o.value.ln());
            }
        }
    }
    blocks
        .retain(|&b, e| !e.base.is_empty() && !e.cand.is_empty() && levels.session_of(b).is_some());
    if blocks.is_empty() {
        return None;
    }
    let all = |f: fn(&BlockLogs) -> &Vec<f64>| {
        let v: Vec<f64> = blocks.values().flat_map(|e| f(e).iter().copied()).collect();
        mean(&v)
    };
    let (mean_base, mean_cand) = (all(|e| &e.base), all(|e| &e.cand));
    let mut out = Nested {
        hosts: BTreeMap::new(),
        run_ids: Vec::new(),
        run_residuals: Vec::new(),
    };
    for (&b, e) in &blocks {
        let session = levels.session_of(b)?;
        let host = levels.host_of_session(session)?;
        out.hosts
            .entry(host)
            .or_default()
            .entry(session)
            .or_default()
            .push(summary.of(&e.cand)? - summary.of(&e.base)?);
        let id = [host as u32, session as u32, b];
        for (logs, m) in [(&e.base, mean_base), (&e.cand, mean_cand)] {
            for v in logs {
                out.run_ids.push(id);
                out.run_residuals.push(v - m);
            }
        }
    }
    Some(out)
}

/// A top-level unit: its host (or session) index and its sessions' block log-ratios.
pub(crate) type Unit = (usize, Vec<Vec<f64>>);

impl Nested {
    /// The units the pooled effect resamples at the top: the hosts when there are 2+,
    /// else the sessions (each alone under its unit). Each unit: its sessions' blocks.
    pub(crate) fn units(&self) -> (bool, Vec<Unit>) {
        if self.hosts.len() > 1 {
            let units = self
                .hosts
                .iter()
                .map(|(&h, sessions)| (h, sessions.values().cloned().collect()))
                .collect();
            (true, units)
        } else {
            let units = self
                .hosts
                .values()
                .flat_map(|sessions| sessions.iter().map(|(&s, b)| (s, vec![b.clone()])))
                .collect();
            (false, units)
        }
    }
}
