//! A pilot for a plan (`abba plan pilot.jsonl`): the block log-ratios of a saved
//! experiment of two variants, each block's runs, and what a run and a block cost, as
//! [`bench_stats::plan`] takes them.

use std::collections::BTreeMap;

use bench_stats::sequential::dataset_log_ratios;
use bench_stats::{Dataset, Design};

use crate::raw::{RawHeader, Run, Runs};

use super::Input;

/// What a pilot gives a plan.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Pilot {
    /// Where it came from (`pilot.jsonl`, `profile shared-vm`).
    pub source: String,
    /// Block log-ratios, in block order.
    pub log_ratios: Vec<f64>,
    /// Per block, the replicate values of `[baseline, candidate]`.
    pub replicates: Vec<[Vec<f64>; 2]>,
    /// Seconds per run and per block beyond its runs, when known.
    pub costs: Option<(f64, f64)>,
    /// Seconds per whole block, when known.
    pub block_s: Option<f64>,
}

/// Why saved data cannot serve as a pilot ([`Pilot::from_input`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PilotError {
    /// Not two variants.
    #[error("{file}: a pilot has two variants; this file has {variants}")]
    Variants {
        /// The pilot's source (its file).
        file: String,
        /// How many it has.
        variants: usize,
    },
    /// The sequential design has no blocks.
    #[error("{file}: a pilot needs blocks (an abba or random design), not the sequential design")]
    Sequential {
        /// The pilot's source (its file).
        file: String,
    },
    /// Fewer than two complete blocks of positive values, or an unknown baseline.
    #[error(
        "{file}: no block log-ratios: the pilot needs 2+ complete blocks of positive values (and --baseline must name a variant)"
    )]
    NoBlocks {
        /// The pilot's source (its file).
        file: String,
    },
}

impl Pilot {
    /// A pilot a plan can be made from: a simulated one's `log_ratios` and `replicates`,
    /// whose runs last `run_s` seconds and whose blocks run back to back (a block costs
    /// nothing beyond its four runs).
    pub fn simulated(
        source: String,
        log_ratios: Vec<f64>,
        replicates: Vec<[Vec<f64>; 2]>,
        run_s: f64,
    ) -> Pilot {
        Pilot {
            source,
            log_ratios,
            replicates,
            costs: Some((run_s, 0.0)),
            block_s: Some(4.0 * run_s),
        }
    }

    /// The pilot of `input` (a raw file, or a blocked CSV), named `source`, with
    /// `baseline` (default: the first variant). Time: O(runs).
    ///
    /// # Errors
    /// [`PilotError`]: not two variants, the sequential design, or fewer than two complete
    /// blocks.
    pub fn from_input(
        input: &Input,
        source: String,
        baseline: Option<&str>,
    ) -> Result<Pilot, PilotError> {
        let data = &input.loaded.dataset;
        if data.series.len() != 2 {
            return Err(PilotError::Variants {
                file: source,
                variants: data.series.len(),
            });
        }
        if data.design == Some(Design::Sequential) {
            return Err(PilotError::Sequential { file: source });
        }
        let Some(log_ratios) = dataset_log_ratios(data, baseline).filter(|l| l.len() >= 2) else {
            return Err(PilotError::NoBlocks { file: source });
        };
        let (costs, block_s) = match &input.experiment {
            Some(e) => costs(&e.header, &e.runs, log_ratios.len()),
            None => (None, None),
        };
        Ok(Pilot {
            source,
            replicates: replicates(data, baseline),
            log_ratios,
            costs,
            block_s,
        })
    }
}

/// Per block, the values of the baseline and the candidate.
fn replicates(data: &Dataset, baseline: Option<&str>) -> Vec<[Vec<f64>; 2]> {
    let b = baseline
        .and_then(|name| data.series.iter().position(|s| s.name == name))
        .unwrap_or(0);
    let mut blocks: BTreeMap<u32, [Vec<f64>; 2]> = BTreeMap::new();
    for (k, s) in [&data.series[b], &data.series[1 - b]].iter().enumerate() {
        for o in &s.observations {
            if let Some(block) = o.block {
                blocks.entry(block).or_default()[k].push(o.value);
            }
        }
    }
    blocks
        .into_values()
        .filter(|v| !v[0].is_empty() && !v[1].is_empty())
        .collect()
}

/// Seconds per run (wall time plus the pause before it and its hooks), per block beyond
/// its runs (warm-ups per block), and per whole block, from the recorded runs.
#[allow(clippy::cast_precision_loss)]
fn costs(h: &RawHeader, runs: &Runs, blocks: usize) -> (Option<(f64, f64)>, Option<f64>) {
    let ok = || runs.iter().filter(Run::succeeded);
    let n = ok().count();
    if n == 0 || blocks == 0 {
        return (None, None);
    }
    let hooks = |r: &Run<'_>| r.prepare_ns.unwrap_or(0) + r.conclude_ns.unwrap_or(0);
    let per_run = ok()
        .map(|r| (r.wall_ns + hooks(&r) + h.settle_ns) as f64 / 1e9)
        .sum::<f64>()
        / n as f64;
    let variants = h.variants.len() as f64 + f64::from(u8::from(h.reference.is_some()));
    let per_block_extra = f64::from(h.warmup_per_block) * variants * per_run;
    let runs_per_block = runs.len() as f64 / blocks as f64;
    (
        Some((per_run, per_block_extra)),
        Some(runs_per_block * per_run + per_block_extra),
    )
}
