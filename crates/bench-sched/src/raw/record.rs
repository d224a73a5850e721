//! [`Experiment`]: one experiment's record (its header, every run, how it ended), whether
//! read from a raw file or just measured, and what every later stage reads off it.

use std::collections::BTreeMap;

use bench_stats::Quantity;

use super::{RawHeader, RawTrailer, Run, Runs};
use crate::design::{Design, Pairing, Schedule};
use crate::error::ReadWarning;
use crate::runner::Metric;

/// One experiment as its raw file records it: the header, every run line, and the end
/// line. [`crate::read_raw`] reads one back; [`crate::run_experiment`] returns the one it
/// measured (exactly what reading its file would give, without the reader's remarks).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Experiment {
    /// The header line: design, seed, variants, settings, host facts.
    pub header: RawHeader,
    /// Every run line, in file order: failed and reference runs included (stored
    /// compactly: [`Runs`]).
    pub runs: Runs,
    /// The end line, when the writer got to write one (`None` for a file cut off because
    /// abba was killed or crashed, or one still being written).
    pub end: Option<RawTrailer>,
    /// The end lines of earlier sessions, each followed by a later (`--resume`) session's
    /// runs, in file order; a resume keeps there the runs it measured again
    /// ([`RawTrailer::superseded`]).
    pub session_ends: Vec<RawTrailer>,
    /// The file's name as given, used in messages (`(this run)` for one just measured).
    pub file: String,
    /// What reading dropped (a truncated last line).
    pub warnings: Vec<ReadWarning>,
    /// Where the lines end in the file, when it was read from one.
    pub(crate) offsets: Offsets,
}

/// Byte offsets of a read file's lines, for a resume that cuts it after a block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Offsets {
    /// Just after the header line.
    pub(crate) header_end: u64,
    /// Just after each run line (parallel to [`Experiment::runs`]).
    pub(crate) run_ends: Vec<u64>,
}

impl Experiment {
    /// The record of `header` and `runs`, without an end line, named `file` in messages.
    pub fn new(header: RawHeader, runs: impl Into<Runs>, file: impl Into<String>) -> Experiment {
        Experiment {
            header,
            runs: runs.into(),
            end: None,
            session_ends: Vec::new(),
            file: file.into(),
            warnings: Vec::new(),
            offsets: Offsets::default(),
        }
    }

    /// The same record with the end line `end`.
    pub fn with_end(mut self, end: RawTrailer) -> Experiment {
        self.end = Some(end);
        self
    }

    /// The design recorded in the header.
    pub fn design(&self) -> Design {
        self.header.design
    }

    /// The metric recorded in the header.
    pub fn metric(&self) -> &Metric {
        &self.header.metric
    }

    /// Whether the experiment ended with an end line (complete, failed or interrupted);
    /// `false` for a file cut off because abba was killed or crashed.
    pub fn ended(&self) -> bool {
        self.end.is_some()
    }

    /// The load averages at the end, when the end line records them.
    pub fn load_end(&self) -> Option<[f64; 3]> {
        self.end.as_ref().and_then(|t| t.load_end)
    }

    /// The seed the header records.
    pub fn seed(&self) -> u64 {
        self.header.seed
    }

    /// The schedule the header describes.
    pub fn schedule(&self) -> Schedule {
        let h = &self.header;
        if let Some(suite) = self.suite() {
            return suite.schedule(h.design, h.variants.len(), h.blocks, h.cycles, h.seed);
        }
        Schedule::plan_cycles(
            h.design,
            h.variants.len(),
            h.blocks,
            h.cycles,
            h.seed,
            h.reference_runs(),
        )
    }

    /// The suite the header records (`abba suite`), if any (one whose benchmarks name a
    /// variant the header lacks was refused when the file was read).
    pub fn suite(&self) -> Option<crate::suite::Suite> {
        crate::suite::Suite::from_raw(&self.header).ok().flatten()
    }

    /// How many leading runs belong to complete blocks (paired designs) or are simply
    /// present (sequential), i.e. the prefix a resume keeps.
    pub(crate) fn complete_prefix(&self) -> usize {
        match self.design().pairing() {
            Pairing::Unpaired => self.runs.len(),
            // A suite under a stop rule drops each benchmark once it is decided.
            Pairing::Paired if self.header.stop_rule.is_some() && !self.header.suite.is_empty() => {
                crate::suite::until::complete_prefix(self)
            }
            Pairing::Paired => {
                let per = self.schedule().runs_per_block().max(1);
                self.runs.len() / per * per
            }
        }
    }

    /// Byte length of the file up to the end of the first `n` runs.
    pub(crate) fn bytes_through(&self, n: usize) -> u64 {
        let o = &self.offsets;
        if n == 0 {
            o.header_end
        } else {
            o.run_ends.get(n - 1).copied().unwrap_or(o.header_end)
        }
    }

    /// Blocks of the plan whose every run is recorded (failed runs count: they ran).
    /// Time: O(planned runs).
    pub fn complete_blocks(&self) -> u32 {
        let mut left = vec![0usize; self.header.blocks as usize];
        for r in &self.schedule().runs {
            left[r.block as usize] += 1;
        }
        for r in &self.runs {
            if let Some(n) = left.get_mut(r.block as usize) {
                *n = n.saturating_sub(1);
            }
        }
        left.iter().filter(|&&n| n == 0).count() as u32
    }

    /// The value run `r` measured in `metric` (`None` when it has none, or it is not
    /// finite).
    pub(crate) fn value_of(&self, metric: &Metric, r: Run<'_>) -> Option<f64> {
        self.value_on(metric, r, true)
    }

    /// [`Self::value_of`], reading the run's `metric` field (the file's own non-time
    /// value) only when `own`: `metric` is the one the header records.
    pub(crate) fn value_on(&self, metric: &Metric, r: Run<'_>, own: bool) -> Option<f64> {
        let field = r.metric.filter(|_| own);
        let v = match metric {
            Metric::Wall => r.wall_ns as f64,
            Metric::User => r.user_ns as f64,
            Metric::Sys => r.sys_ns as f64,
            Metric::Cpu => r.user_ns.saturating_add(r.sys_ns) as f64,
            Metric::MaxRss => field.unwrap_or(r.max_rss_kib as f64),
            Metric::Json(_) => field?,
            Metric::Count(e) => r.count(*e)? as f64,
        };
        v.is_finite().then_some(v)
    }

    /// What the metric measures: time for the times, memory for max-rss; for a JSON field,
    /// what its unit names (`ops/s`, `MiB`, `ms`, ...), else the field's name.
    pub(crate) fn quantity(&self, metric: &Metric) -> Quantity {
        self.quantity_on(metric, *metric == self.header.metric)
    }

    /// [`Self::quantity`] of `metric`, read with the header's unit when `own` (the
    /// header records `metric`), else with the metric's own unit.
    pub(crate) fn quantity_on(&self, metric: &Metric, own: bool) -> Quantity {
        let unit = if own {
            self.header.unit.as_str()
        } else {
            metric.unit()
        };
        match metric {
            Metric::Wall | Metric::User | Metric::Sys | Metric::Cpu => Quantity::Time,
            Metric::MaxRss => Quantity::Memory,
            Metric::Count(e) => Quantity::Named(e.name().to_owned()),
            Metric::Json(field) => {
                Quantity::of_unit(unit).unwrap_or_else(|| Quantity::Named(field.clone()))
            }
        }
    }

    /// Each run's value in the experiment's metric, parallel to [`Self::runs`]: `None` for
    /// a failed run or one without a value, whatever became of its block (for pictures of
    /// every run). Time: O(runs).
    pub fn measured_values(&self) -> Vec<Option<f64>> {
        let metric = &self.header.metric;
        self.runs
            .iter()
            .map(|r| r.succeeded().then(|| self.value_of(metric, r)).flatten())
            .collect()
    }

    /// The value each run gives the analysis, parallel to [`Self::runs`]: `None` for a run
    /// [`Self::to_dataset`] leaves out (failed, timed out, without a value, in a dropped
    /// block) and for reference runs. Time: O(runs).
    pub fn analysed_values(&self) -> Vec<Option<f64>> {
        let mut out = self.measured_values();
        if self.design().pairing() == Pairing::Paired {
            let per = self.schedule().runs_per_block();
            let blocks = BlockOrder::of(&self.runs);
            for (_, members) in blocks.groups(&self.runs) {
                if members.len() != per || members.iter().any(|&i| out[i as usize].is_none()) {
                    for &i in members {
                        out[i as usize] = None;
                    }
                }
            }
        }
        for (v, r) in out.iter_mut().zip(&self.runs) {
            if r.is_reference {
                *v = None;
            }
        }
        out
    }

    /// The mean user and system CPU time (ns) of each variant's analysed runs (the runs
    /// whose values the analysis uses: failed runs, runs of dropped blocks and reference
    /// runs left out), by variant name. Time: O(runs).
    pub(crate) fn cpu_time_means(&self) -> BTreeMap<String, (f64, f64)> {
        let mut sums: BTreeMap<String, (f64, f64, u32)> = BTreeMap::new();
        for (r, v) in self.runs.iter().zip(self.analysed_values()) {
            if v.is_some() {
                // The name is copied once a variant, not once a run.
                let e = match sums.get_mut(r.variant) {
                    Some(e) => e,
                    None => sums.entry(r.variant.to_owned()).or_default(),
                };
                e.0 += r.user_ns as f64;
                e.1 += r.sys_ns as f64;
                e.2 += 1;
            }
        }
        sums.into_iter()
            .map(|(name, (u, s, n))| (name, (u / f64::from(n), s / f64::from(n))))
            .collect()
    }

    /// Refuses an experiment in which every run of some variant failed (as
    /// [`crate::FailurePolicy::Ignore`] records them): there is nothing to compare that
    /// variant on. The first such variant in header order is named. Time: O(runs).
    ///
    /// # Errors
    /// [`AllRunsFailed`] naming the variant and its run count.
    pub fn check_some_run_succeeded(&self) -> Result<(), AllRunsFailed> {
        for v in &self.header.variants {
            let runs: Vec<Run<'_>> = self
                .runs
                .iter()
                .filter(|r| r.variant == v.name && !r.is_reference)
                .collect();
            if !runs.is_empty() && runs.iter().all(|r| !r.succeeded()) {
                return Err(AllRunsFailed {
                    variant: v.name.clone(),
                    runs: runs.len(),
                });
            }
        }
        Ok(())
    }
}

/// Every run of a variant failed: nothing to compare it on
/// ([`Experiment::check_some_run_succeeded`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("variant {variant}: all {runs} runs failed, nothing to compare")]
#[non_exhaustive]
pub struct AllRunsFailed {
    /// The variant's name.
    pub variant: String,
    /// How many runs it had.
    pub runs: usize,
}

/// The runs' indices by block: blocks ascending, each block's runs in file order (as a
/// map from each block to its runs gives them), without a list for each block.
/// Time: O(runs) for runs written block by block (as abba writes them), O(runs log runs)
/// otherwise; memory: 4 bytes a run.
pub(crate) struct BlockOrder {
    order: Vec<u32>,
}

impl BlockOrder {
    pub(crate) fn of(runs: &Runs) -> BlockOrder {
        let mut order: Vec<u32> = (0..runs.len() as u32).collect();
        if !(1..runs.len()).all(|i| runs.block(i - 1) <= runs.block(i)) {
            // Stable: a block's runs stay in file order.
            order.sort_by_key(|&i| runs.block(i as usize));
        }
        BlockOrder { order }
    }

    /// Each block with the indices of its runs, blocks ascending.
    pub(crate) fn groups<'a>(
        &'a self,
        runs: &'a Runs,
    ) -> impl Iterator<Item = (u32, &'a [u32])> + 'a {
        self.order
            .chunk_by(move |&i, &j| runs.block(i as usize) == runs.block(j as usize))
            .map(move |g| (runs.block(g[0] as usize), g))
    }
}
