//! A suite: many benchmarks, each with its own variants (a base build and candidates),
//! measured in one interleaved experiment.
//!
//! Every block runs every benchmark's variants in that benchmark's counterbalanced order
//! (ABBA on even blocks and BAAB on odd ones for two variants, a Williams row for more, or a
//! fresh permutation with the random design), and the benchmarks themselves in a fresh
//! seeded order per block. So a drift of the machine (a tenant arriving, the frequency
//! falling) cannot line up with one benchmark: it reaches every benchmark at a different
//! place in every block, and the pairing inside each benchmark's runs cancels what the two
//! builds shared. Block `b`'s order depends only on (suite, design, seed, b), so a resumed
//! or extended suite continues the same plan. A benchmark's own order and its runs' layout
//! padding depend on its name, never on its place in the suite, so the same benchmark
//! runs the same runs alone (`--only`), in a shard (`--shard K/N`) or in the whole suite.

mod error;
mod file;
mod gate_request;
mod plan;
mod session;
mod shard;
pub(crate) mod until;

use std::time::Duration;

use rand::seq::SliceRandom;

pub use error::SuiteError;
pub use file::{
    BenchmarkEntry, MAX_SUITE_FILE_BYTES, Settings, SuiteFile, SuiteSpec, Variants, expand_command,
    glob,
};
pub use plan::{SUITE_BLOCKS, SuiteOptions, suite_metric};
pub use session::{
    GateRequest, SuitePlan, SuiteRequest, SuiteSession, analyze_suite_run, cross_class_analysis,
    suite_gates,
};
pub use shard::{Shard, ShardError, merge_shards, suite_digest};
pub use until::{StopRequest, suite_stop, suite_stop_rule};

use crate::design::{Design, Pairing, PlannedRun, Schedule, Target, block_order};
use crate::experiment::{ExperimentConfig, Variant};
use crate::layout::Layout;
use std::collections::BTreeMap;

use bench_stats::{Dataset, Observation, Series};

use crate::error::{ReadWarning, ReadWarningKind};
use crate::import::Loaded;
use crate::raw::read::block_name;
use crate::raw::{Experiment, RawHeader, RawSuiteBenchmark, Run};
use crate::rng::block_rng;
use crate::runner::Metric;

/// The salt of the benchmarks' order in a block.
const SALT_SUITE: u64 = 0x0073_7569_7465;

/// How an experiment's variants group into benchmarks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// The benchmarks, in the suite file's order.
    pub benchmarks: Vec<SuiteBenchmark>,
}

/// One benchmark of a [`Suite`]: its name, its variants and the settings it overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SuiteBenchmark {
    /// The benchmark's name (unique in the suite).
    pub name: String,
    /// Indices into the experiment's variants; the first is this benchmark's baseline.
    pub variants: Vec<usize>,
    /// Cycles of its order in every block, on top of the experiment's (`runs_per_block`
    /// in the suite file). Default: 1.
    pub cycles: u32,
    /// Its metric, when not the experiment's.
    pub metric: Option<Metric>,
    /// Its unit, when not the experiment's.
    pub unit: Option<String>,
    /// Its direction, when not the experiment's.
    pub higher_is_better: Option<bool>,
    /// Its per-run timeout, when not the experiment's.
    pub timeout: Option<Duration>,
}

impl SuiteBenchmark {
    /// Whether its values count higher as better in the experiment `config`, as its
    /// dataset will ([`Experiment::suite_datasets`]): its own direction, else its metric's,
    /// else the experiment's (lower by default).
    pub fn higher_is_better_in(&self, config: &ExperimentConfig) -> bool {
        self.higher_is_better.unwrap_or(match &self.metric {
            Some(m) => m.higher_is_better(),
            None => config.higher_is_better.unwrap_or(false),
        })
    }

    /// A benchmark of `variants` with the experiment's settings.
    pub fn new(name: impl Into<String>, variants: Vec<usize>) -> SuiteBenchmark {
        SuiteBenchmark {
            name: name.into(),
            variants,
            cycles: 1,
            metric: None,
            unit: None,
            higher_is_better: None,
            timeout: None,
        }
    }
}

impl SuiteBenchmark {
    /// This benchmark's own seed under the experiment's `seed`: its random orders and
    /// its runs' layout padding come from it. It mixes in the FNV-1a hash of the name, so
    /// it does not depend on the benchmark's place in the suite (a shard or `--only` runs
    /// it with the same orders and pads as the whole suite).
    pub fn seed(&self, seed: u64) -> u64 {
        seed ^ crate::rng::mix(crate::raw::fnv1a(&self.name))
    }
}

impl Suite {
    /// The layout padding of every run of `schedule` (a schedule of this suite), parallel
    /// to its runs: a benchmark's run gets the pad of its place among that benchmark's
    /// runs of the block, drawn from the benchmark's own seed ([`SuiteBenchmark::seed`]),
    /// so its pads do not depend on the other benchmarks. Time: O(runs).
    pub fn pads(&self, layout: Layout, seed: u64, schedule: &Schedule) -> Vec<usize> {
        let mut own: BTreeMap<(u32, usize), u32> = BTreeMap::new();
        schedule
            .runs
            .iter()
            .map(|r| {
                let found = match r.target {
                    Target::Variant(i) => {
                        self.benchmarks.iter().position(|b| b.variants.contains(&i))
                    }
                    Target::Reference => None,
                };
                match found {
                    Some(k) => {
                        let place = own.entry((r.block, k)).or_default();
                        let planned = PlannedRun {
                            position: *place,
                            ..*r
                        };
                        *place += 1;
                        layout.pad_for(self.benchmarks[k].seed(seed), &planned)
                    }
                    None => layout.pad_for(seed, r),
                }
            })
            .collect()
    }

    /// The benchmark variant `i` belongs to, if any.
    pub fn benchmark_of(&self, i: usize) -> Option<&SuiteBenchmark> {
        self.benchmarks.iter().find(|b| b.variants.contains(&i))
    }

    /// The header's record of this suite (variants named by `variants`).
    pub fn to_raw(&self, variants: &[Variant]) -> Vec<RawSuiteBenchmark> {
        self.benchmarks
            .iter()
            .map(|b| RawSuiteBenchmark {
                name: b.name.clone(),
                variants: b
                    .variants
                    .iter()
                    .filter_map(|&i| variants.get(i).map(|v| v.name.clone()))
                    .collect(),
                cycles: b.cycles.max(1),
                metric: b.metric.clone(),
                unit: b.unit.clone(),
                higher_is_better: b.higher_is_better,
                timeout_ns: b
                    .timeout
                    .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
            })
            .collect()
    }

    /// The suite a header records (`None` for a header without one).
    ///
    /// # Errors
    /// A message naming the benchmark whose variant is not in the header.
    pub fn from_raw(header: &RawHeader) -> Result<Option<Suite>, String> {
        if header.suite.is_empty() {
            return Ok(None);
        }
        let mut benchmarks = Vec::with_capacity(header.suite.len());
        for b in &header.suite {
            let variants = b
                .variants
                .iter()
                .map(|name| {
                    header
                        .variants
                        .iter()
                        .position(|v| &v.name == name)
                        .ok_or_else(|| {
                            format!(
                                "suite benchmark {:?} names an unknown variant {name:?}",
                                b.name
                            )
                        })
                })
                .collect::<Result<Vec<usize>, String>>()?;
            benchmarks.push(SuiteBenchmark {
                name: b.name.clone(),
                variants,
                cycles: b.cycles.max(1),
                metric: b.metric.clone(),
                unit: b.unit.clone(),
                higher_is_better: b.higher_is_better,
                timeout: b.timeout_ns.map(Duration::from_nanos),
            });
        }
        Ok(Some(Suite { benchmarks }))
    }

    /// The schedule of this suite: `blocks` blocks of `cycles` cycles, each block running
    /// the benchmarks in a seeded order and each benchmark's variants in `design`'s order
    /// for its variant count. The sequential design has no blocks to interleave in and is
    /// planned as blocked ABBA. Time and memory: O(blocks × cycles × variants).
    pub fn schedule(
        &self,
        design: Design,
        variants: usize,
        blocks: u32,
        cycles: u32,
        seed: u64,
    ) -> Schedule {
        let design = match design {
            Design::Sequential => Design::Abba,
            other @ (Design::Abba | Design::Random) => other,
        };
        let cycles = cycles.max(1);
        let mut runs = Vec::new();
        for b in 0..blocks {
            let mut position = 0u32;
            for c in 0..cycles {
                let mut order: Vec<usize> = (0..self.benchmarks.len()).collect();
                let unit = b.saturating_mul(cycles).saturating_add(c);
                order.shuffle(&mut block_rng(seed, unit, SALT_SUITE));
                for k in order {
                    let bench = &self.benchmarks[k];
                    let unit = match design {
                        Design::Random => unit,
                        Design::Abba | Design::Sequential => b,
                    };
                    // Each benchmark draws its own random orders, from its name.
                    let own_seed = bench.seed(seed);
                    for own in 0..bench.cycles.max(1) {
                        let unit = match design {
                            Design::Random => {
                                unit.saturating_mul(bench.cycles.max(1)).saturating_add(own)
                            }
                            Design::Abba | Design::Sequential => unit,
                        };
                        for v in block_order(design, bench.variants.len(), own_seed, unit) {
                            runs.push(PlannedRun {
                                run_index: 0,
                                block: b,
                                position,
                                target: Target::Variant(bench.variants[v]),
                                beside: None,
                            });
                            position += 1;
                        }
                    }
                }
            }
        }
        for (i, r) in runs.iter_mut().enumerate() {
            r.run_index = i as u32;
        }
        Schedule {
            design,
            variants,
            blocks,
            seed,
            cycles,
            pairing: Pairing::Paired,
            runs,
        }
    }
}

impl ExperimentConfig {
    /// The fewest blocks at which every benchmark of the suite can reach `analysis`'s alpha
    /// with its paired test ([`bench_stats::AnalysisConfig::min_paired_blocks_for`] of its variants and
    /// runs per block); 0 outside a suite. Time: O(runs of a block).
    pub fn suite_min_blocks(&self, analysis: &bench_stats::AnalysisConfig) -> usize {
        let Some(suite) = &self.suite else { return 0 };
        let schedule = self.schedule();
        suite
            .benchmarks
            .iter()
            .map(|b| {
                let first = b.variants.first().copied();
                let per = schedule
                    .runs
                    .iter()
                    .filter(|r| r.block == 0)
                    .filter(|r| matches!(r.target, Target::Variant(i) if Some(i) == first))
                    .count();
                analysis.min_paired_blocks_for(b.variants.len(), per)
            })
            .max()
            .unwrap_or(0)
    }

    /// The variants' names of each of the first `n` blocks, in run order (what `abba suite
    /// --dry-run` shows). Time: O(runs).
    pub fn block_orders(&self, n: u32) -> Vec<Vec<&str>> {
        let schedule = self.schedule();
        (0..n.min(self.blocks))
            .map(|b| {
                schedule
                    .runs
                    .iter()
                    .filter(|r| r.block == b)
                    .filter_map(|r| match r.target {
                        Target::Variant(i) => Some(self.variants[i].name.as_str()),
                        Target::Reference => None,
                    })
                    .collect()
            })
            .collect()
    }
}

impl RawHeader {
    /// The suite's variants without their benchmarks' names (`base`, `head` of
    /// `parse/base`, `parse/head`), each once, in the file's order.
    pub fn suite_variant_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for b in &self.suite {
            for v in &b.variants {
                let short = v
                    .strip_prefix(b.name.as_str())
                    .and_then(|v| v.strip_prefix('/'))
                    .unwrap_or(v);
                if !out.contains(&short) {
                    out.push(short);
                }
            }
        }
        out
    }
}

/// One benchmark's data from a suite's raw file: its runs in its own metric, unit and
/// direction, ready for [`bench_stats::suite::analyze_suite`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BenchmarkData {
    /// The benchmark's name.
    pub name: String,
    /// Its variants' runs (one series each, classed by the benchmark) and what was dropped.
    pub loaded: Loaded,
    /// Each of its variants with a failed run (or a run without a value), the most
    /// failing first: whom to blame when no block is complete.
    pub failed_runs: Vec<bench_stats::suite::FailedVariant>,
}

impl Experiment {
    /// Every benchmark of a suite file as its own dataset (empty for a file without a
    /// suite). A block is kept for a benchmark when all of that benchmark's runs in it
    /// succeeded with a value, whatever the other benchmarks' runs did, so one failing
    /// benchmark (with `--ignore-failure`) costs the others nothing; each dropped block is
    /// named in a warning with its benchmark. Time: O(runs).
    pub fn suite_datasets(&self) -> Vec<BenchmarkData> {
        self.suite_datasets_as(|b| Some(b.clone()))
    }

    /// The suite's benchmarks measured on wall time read on `metric` instead (each in
    /// `metric`'s own unit and direction), as [`Self::suite_datasets`] reads them: the
    /// same runs, another value of each (CPU time beside wall time, issue 36). Empty for a
    /// file without a suite or without a wall-time benchmark. Time: O(runs).
    pub fn suite_datasets_on(&self, metric: &Metric) -> Vec<BenchmarkData> {
        self.suite_datasets_as(|b| {
            let wall = b.metric.as_ref().unwrap_or(&self.header.metric) == &Metric::Wall;
            wall.then(|| SuiteBenchmark {
                metric: Some(metric.clone()),
                unit: None,
                higher_is_better: None,
                ..b.clone()
            })
        })
    }

    /// The data of each benchmark of the suite as `read` gives it (`None`: left out).
    fn suite_datasets_as(
        &self,
        read: impl Fn(&SuiteBenchmark) -> Option<SuiteBenchmark>,
    ) -> Vec<BenchmarkData> {
        let Some(suite) = self.suite() else {
            return Vec::new();
        };
        let schedule = self.schedule();
        suite
            .benchmarks
            .iter()
            .filter_map(|b| read(b).map(|b| self.benchmark_data(&b, &schedule)))
            .collect()
    }

    /// Each of `names` (one benchmark's variants) with a run that failed or has no value of
    /// `metric`, the most failing first. Time: O(runs).
    fn failed_runs(
        &self,
        names: &[&str],
        metric: &Metric,
    ) -> Vec<bench_stats::suite::FailedVariant> {
        let mut out: Vec<bench_stats::suite::FailedVariant> = names
            .iter()
            .map(|n| bench_stats::suite::FailedVariant {
                name: (*n).to_owned(),
                failed: 0,
                runs: 0,
            })
            .collect();
        for r in self.runs.iter().filter(|r| !r.is_reference) {
            if let Some(k) = names.iter().position(|n| *n == r.variant) {
                out[k].runs += 1;
                if !r.succeeded() || self.value_of(metric, r).is_none() {
                    out[k].failed += 1;
                }
            }
        }
        out.retain(|v| v.failed > 0);
        out.sort_by_key(|v| std::cmp::Reverse(v.failed));
        out
    }

    /// One benchmark's runs as [`Self::suite_datasets`] reads them, `schedule` the file's.
    fn benchmark_data(&self, bench: &SuiteBenchmark, schedule: &Schedule) -> BenchmarkData {
        let header_metric = &self.header.metric;
        let names: Vec<&str> = bench
            .variants
            .iter()
            .map(|&i| self.header.variants[i].name.as_str())
            .collect();
        let metric = bench
            .metric
            .clone()
            .unwrap_or_else(|| header_metric.clone());
        let per_block = schedule
            .runs
            .iter()
            .filter(|r| r.block == 0)
            .filter(|r| matches!(r.target, Target::Variant(i) if bench.variants.contains(&i)))
            .count();
        // Each block's runs by index: a view of each run would take more room than the runs.
        let mut blocks: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, r) in self
            .runs
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.is_reference)
        {
            if names.contains(&r.variant) {
                blocks.entry(r.block).or_default().push(i);
            }
        }
        let failed_runs = self.failed_runs(&names, &metric);
        let mut series: Vec<Series> = names
            .iter()
            .map(|n| {
                let mut s = Series::new(*n, []);
                s.class = Some(bench.name.clone());
                s
            })
            .collect();
        let mut warnings = Vec::new();
        let mut warn = |kind, message: String| {
            warnings.push(ReadWarning {
                kind,
                file: self.file.clone(),
                line: None,
                message: format!("benchmark {}: {message}", bench.name),
            });
        };
        for (block, runs) in &blocks {
            let shown = block_name(*block);
            if runs.len() != per_block {
                warn(
                    ReadWarningKind::IncompleteBlocks,
                    format!(
                        "{shown} has {} of {per_block} runs (incomplete); dropped",
                        runs.len()
                    ),
                );
                continue;
            }
            let runs: Vec<Run<'_>> = runs.iter().map(|&i| self.runs.at(i)).collect();
            let values: Option<Vec<f64>> = runs
                .iter()
                .map(|r| r.succeeded().then(|| self.value_of(&metric, *r)).flatten())
                .collect();
            let Some(values) = values else {
                warn(
                    ReadWarningKind::Input,
                    format!("{shown} has a failed run or a missing value; dropped"),
                );
                continue;
            };
            for (r, v) in runs.iter().zip(values) {
                if let Some(k) = names.iter().position(|n| *n == r.variant) {
                    series[k]
                        .observations
                        .push(Observation::in_block(v, r.block).at_position(r.position));
                }
            }
        }
        let unit = bench.unit.clone().unwrap_or_else(|| {
            if bench.metric.is_some() {
                metric.unit().to_owned()
            } else {
                self.header.unit.clone()
            }
        });
        let higher = bench.higher_is_better.unwrap_or(if bench.metric.is_some() {
            metric.higher_is_better()
        } else {
            self.header.higher_is_better
        });
        let dataset = Dataset::new(unit, series)
            .with_higher_is_better(higher)
            .with_quantity(self.quantity(&metric))
            .with_design(self.design().to_model());
        BenchmarkData {
            name: bench.name.clone(),
            loaded: Loaded { dataset, warnings },
            failed_runs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(sizes: &[usize]) -> Suite {
        let mut next = 0;
        Suite {
            benchmarks: sizes
                .iter()
                .enumerate()
                .map(|(k, &n)| {
                    let variants = (next..next + n).collect();
                    next += n;
                    SuiteBenchmark::new(format!("b{k}"), variants)
                })
                .collect(),
        }
    }

    #[test]
    fn every_block_holds_every_benchmark_counterbalanced_in_a_fresh_order() {
        let s = suite(&[2, 2, 2, 2]);
        let plan = s.schedule(Design::Abba, 8, 20, 1, 7);
        assert_eq!(plan.runs.len(), 20 * 16);
        let mut first_benchmark = std::collections::BTreeSet::new();
        for b in 0..20u32 {
            let block: Vec<usize> = plan
                .runs
                .iter()
                .filter(|r| r.block == b)
                .map(|r| match r.target {
                    Target::Variant(i) => i,
                    Target::Reference => unreachable!(),
                })
                .collect();
            assert_eq!(block.len(), 16);
            for (k, bench) in s.benchmarks.iter().enumerate() {
                let own: Vec<usize> = block
                    .iter()
                    .filter(|i| bench.variants.contains(i))
                    .map(|&i| i - 2 * k)
                    .collect();
                let expected = if b % 2 == 0 {
                    [0, 1, 1, 0]
                } else {
                    [1, 0, 0, 1]
                };
                assert_eq!(own, expected, "benchmark {k} in block {b}");
                // The benchmark's four runs are contiguous.
                let at: Vec<usize> = block
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| bench.variants.contains(i))
                    .map(|(p, _)| p)
                    .collect();
                assert_eq!(at[3] - at[0], 3);
            }
            first_benchmark.insert(block[0] / 2);
        }
        // The order of benchmarks changes between blocks.
        assert!(first_benchmark.len() > 1);
    }

    #[test]
    fn a_block_does_not_depend_on_the_block_count() {
        let s = suite(&[2, 3, 2]);
        let short = s.schedule(Design::Abba, 7, 5, 2, 3);
        let long = s.schedule(Design::Abba, 7, 9, 2, 3);
        let n = short.runs.len();
        assert_eq!(short.runs[..], long.runs[..n]);
        assert_eq!(short.runs_per_block(), 2 * (4 + 3 + 4));
    }

    #[test]
    fn a_benchmark_with_more_runs_per_block_repeats_its_order_in_its_slot() {
        let mut s = suite(&[2, 2]);
        s.benchmarks[1].cycles = 2;
        let plan = s.schedule(Design::Abba, 4, 2, 1, 5);
        assert_eq!(plan.runs_per_block(), 4 + 8);
        let block0: Vec<usize> = plan
            .runs
            .iter()
            .filter(|r| r.block == 0)
            .filter_map(|r| match r.target {
                Target::Variant(i) if i >= 2 => Some(i - 2),
                Target::Variant(_) | Target::Reference => None,
            })
            .collect();
        assert_eq!(block0, [0, 1, 1, 0, 0, 1, 1, 0]);
    }
}
