//! The appendix's fixture, `fixtures/appendix/appendix_f.json`: its two paired tables,
//! its published figures, NumPy's exact values and the Monte Carlo spread of the
//! bootstrap endpoints (see `fixtures/appendix/README.md`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::run::BlockTable;

/// One paired table: block `i` holds `baseline_values[i]` and `candidate_values[i]`
/// (M ops/s). The same shape as the fixture's `real_effect` / `null_effect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTable {
    /// Name of the baseline row (`chains=1`, `run A`).
    pub baseline: String,
    /// Name of the candidate row (`chains=2`, `run B`).
    pub candidate: String,
    /// Baseline value per block.
    pub baseline_values: Vec<f64>,
    /// Candidate value per block.
    pub candidate_values: Vec<f64>,
}

impl PairedTable {
    /// The first two variants of a measured block table.
    pub(super) fn from_blocks(t: &BlockTable) -> Result<Self> {
        let [b, c] = [0, 1].map(|i| t.names.get(i).zip(t.values.get(i)));
        let ((bn, bv), (cn, cv)) = b.zip(c).context("a paired table needs two variants")?;
        Ok(PairedTable {
            baseline: bn.clone(),
            candidate: cn.clone(),
            baseline_values: bv.clone(),
            candidate_values: cv.clone(),
        })
    }
}

/// The appendix's published figures (`fixtures/appendix/appendix_f.json`, `published`).
#[derive(Debug, Clone, Deserialize)]
pub struct Published {
    pub(super) real_median_baseline: f64,
    pub(super) real_mean_difference: f64,
    pub(super) real_sd_difference: f64,
    pub(super) real_cohens_dz: f64,
    pub(super) real_ratio: f64,
    pub(super) real_difference_ci: [f64; 2],
    pub(super) real_ratio_ci: [f64; 2],
    pub(super) null_difference_ci: [f64; 2],
    pub(super) null_ratio_ci: [f64; 2],
}

/// NumPy's exact values of the deterministic statistics of one table.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Exact {
    pub(super) median_baseline: f64,
    pub(super) mean_difference: f64,
    pub(super) sd_difference: f64,
    pub(super) cohens_dz: f64,
    pub(super) ratio_of_means: f64,
    pub(super) cohens_d_unpaired: f64,
}

/// Monte Carlo mean and sd of one bootstrap endpoint under the appendix's procedure.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(super) struct Spread {
    pub(super) mean: f64,
    pub(super) sd: f64,
}

/// The four endpoints' spreads of one table.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Endpoints {
    pub(super) difference_low: Spread,
    pub(super) difference_high: Spread,
    pub(super) ratio_low: Spread,
    pub(super) ratio_high: Spread,
}

/// One value per fixture table.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct PerTable<T> {
    pub(super) real: T,
    pub(super) null: T,
}

/// The fixture's Monte Carlo spread of the bootstrap endpoints over `seeds` seeds.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct MonteCarlo {
    pub(super) seeds: u32,
    pub(super) real: Endpoints,
    pub(super) null: Endpoints,
}

/// `fixtures/appendix/appendix_f.json`: the appendix's tables and figures.
#[derive(Debug, Clone, Deserialize)]
pub struct Fixture {
    pub(super) real_effect: PairedTable,
    pub(super) null_effect: PairedTable,
    pub(super) published: Published,
    pub(super) numpy_exact: PerTable<Exact>,
    pub(super) monte_carlo: MonteCarlo,
}

/// The fixture directory under the workspace root.
pub fn fixture_dir(root: &Path) -> PathBuf {
    root.join("fixtures").join("appendix")
}

impl Fixture {
    /// Reads `fixtures/appendix/appendix_f.json` under `root`.
    ///
    /// # Errors
    /// When the file is missing or not the expected JSON.
    pub fn load(root: &Path) -> Result<Fixture> {
        let path = fixture_dir(root).join("appendix_f.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}
