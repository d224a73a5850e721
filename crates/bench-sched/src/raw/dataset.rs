//! [`Experiment::to_dataset`]: the runs as a [`bench_stats::Dataset`], exactly as the
//! analysis reads them.

use std::collections::BTreeMap;

use bench_stats::model::ReferenceRun;
use bench_stats::{Dataset, Observation, Series};

use super::read::block_name;
use super::{Experiment, RawTrailer, Run};
use crate::design::Pairing;
use crate::error::{ReadWarning, ReadWarningKind};
use crate::import::Loaded;
use crate::runner::Metric;

impl Experiment {
    /// Converts to a dataset for analysis.
    ///
    /// Values follow the header's metric (ns for times, KiB for max-rss, the JSON value);
    /// runs that failed or timed out are left out. Paired designs keep only complete
    /// blocks whose runs all succeeded, and record block and position; the sequential design
    /// yields unpaired observations. Reference values become `Dataset::reference`.
    /// Each dropped block or run is reported as a warning. Time: O(runs).
    pub fn to_dataset(&self) -> Loaded {
        let out = Gathered::new(self, &self.file, &self.warnings);
        self.gather(&self.header.metric, &self.session_ends, out)
    }

    /// The runs decided on `metric` instead of the header's: [`Experiment::to_dataset`] as
    /// if the header recorded `metric` (its unit and direction; a run's `metric` field, the
    /// file's own non-time value, read only for the header's metric), its remarks naming no
    /// file and without the reader's or the sessions' (as a record of the runs alone would
    /// have). The runs are read in place, never copied.
    /// Time: O(runs).
    pub(crate) fn to_dataset_on(&self, metric: &Metric) -> Loaded {
        self.gather(metric, &[], Gathered::new(self, "", &[]))
    }

    /// The dataset of `metric` gathered into `out`, with the notes of `session_ends`.
    fn gather(
        &self,
        metric: &Metric,
        session_ends: &[RawTrailer],
        mut out: Gathered<'_>,
    ) -> Loaded {
        let own = *metric == self.header.metric;
        let (unit, higher_is_better) = if own {
            (self.header.unit.clone(), self.header.higher_is_better)
        } else {
            (metric.unit().to_owned(), metric.higher_is_better())
        };
        for end in session_ends {
            if let Some(message) = superseded_note(end) {
                out.warn(ReadWarningKind::Input, message);
            }
        }
        let failed = self.runs.iter().filter(|r| !r.succeeded()).count();
        if failed > 0 {
            out.warn(
                ReadWarningKind::Input,
                format!("{failed} failed or timed-out run(s) left out"),
            );
        }
        match self.design().pairing() {
            Pairing::Paired => self.gather_paired(metric, own, &mut out),
            Pairing::Unpaired => self.gather_unpaired(metric, own, &mut out),
        }
        let mut dataset = Dataset::new(unit, out.series)
            .with_higher_is_better(higher_is_better)
            .with_quantity(self.quantity_on(metric, own))
            .with_design(self.design().to_model());
        if !out.beside.is_empty() {
            dataset = dataset.with_reference_beside(out.beside);
        } else if !out.reference.is_empty() {
            dataset = dataset.with_reference(out.reference);
        }
        Loaded {
            dataset,
            warnings: out.warnings,
        }
    }

    /// Paired designs: keeps complete blocks whose runs all succeeded with a value.
    fn gather_paired(&self, metric: &Metric, own: bool, out: &mut Gathered<'_>) {
        let per = self.schedule().runs_per_block();
        let blocks = super::record::BlockOrder::of(&self.runs);
        for (block, members) in blocks.groups(&self.runs) {
            let runs = || members.iter().map(|&i| self.runs.at(i as usize));
            if members.len() != per {
                out.warn(
                    ReadWarningKind::IncompleteBlocks,
                    format!(
                        "{} has {} of {per} runs (incomplete); dropped",
                        block_name(block),
                        members.len()
                    ),
                );
                continue;
            }
            let value = |r: Run<'_>| {
                if r.succeeded() {
                    self.value_on(metric, r, own)
                } else {
                    None
                }
            };
            if runs().any(|r| value(r).is_none()) {
                out.warn(
                    ReadWarningKind::Input,
                    format!(
                        "{} has a failed run or a missing value; dropped",
                        block_name(block)
                    ),
                );
                continue;
            }
            for r in runs() {
                if let Some(v) = value(r) {
                    out.push(r, v, Pairing::Paired);
                }
            }
        }
    }

    /// The sequential design: every successful run with a value, unpaired.
    fn gather_unpaired(&self, metric: &Metric, own: bool, out: &mut Gathered<'_>) {
        let mut missing = 0usize;
        for r in self.runs.iter().filter(|r| r.succeeded()) {
            match self.value_on(metric, r, own) {
                Some(v) => out.push(r, v, Pairing::Unpaired),
                None => missing += 1,
            }
        }
        if missing > 0 {
            let m = metric;
            out.warn(
                ReadWarningKind::Input,
                format!("{missing} run(s) without a {m} value left out"),
            );
        }
        let counts: Vec<usize> = out.series.iter().map(|s| s.observations.len()).collect();
        if counts.iter().any(|&c| c != counts[0]) {
            out.warn(
                ReadWarningKind::Truncated,
                format!(
                    "unequal run counts per variant ({counts:?}); the sequential run was cut short?"
                ),
            );
        }
    }
}

/// What [`Experiment::to_dataset`] collects: one series per header variant, the reference
/// values, and the warnings (the reader's first).
struct Gathered<'a> {
    file: &'a str,
    index: BTreeMap<&'a str, usize>,
    series: Vec<Series>,
    reference: Vec<(u32, f64)>,
    beside: Vec<ReferenceRun>,
    warnings: Vec<ReadWarning>,
}

impl<'a> Gathered<'a> {
    fn new(data: &'a Experiment, file: &'a str, remarks: &[ReadWarning]) -> Self {
        let variants = &data.header.variants;
        Gathered {
            file,
            index: variants
                .iter()
                .enumerate()
                .map(|(i, v)| (v.name.as_str(), i))
                .collect(),
            series: variants
                .iter()
                .map(|v| {
                    let mut s = Series::new(v.name.clone(), []);
                    s.class = data
                        .header
                        .suite
                        .iter()
                        .find(|b| b.variants.contains(&v.name))
                        .map(|b| b.name.clone());
                    match &v.parameter {
                        Some(p) => s.with_parameter(p.name.clone(), p.value),
                        None => s,
                    }
                })
                .collect(),
            reference: Vec::new(),
            beside: Vec::new(),
            warnings: remarks.to_vec(),
        }
    }

    fn warn(&mut self, kind: ReadWarningKind, message: String) {
        self.warnings.push(ReadWarning {
            kind,
            file: self.file.to_owned(),
            line: None,
            message,
        });
    }

    /// Adds run `r` with value `v` to the reference or to its variant's series (with block
    /// and position when paired).
    fn push(&mut self, r: Run<'_>, v: f64, pairing: Pairing) {
        if r.is_reference {
            match r.beside {
                Some(variant) if pairing == Pairing::Paired => {
                    self.beside
                        .push(ReferenceRun::new(variant.to_owned(), r.block, v));
                }
                _ => self.reference.push((r.block, v)),
            }
        } else if let Some(&i) = self.index.get(r.variant) {
            self.series[i].observations.push(match pairing {
                Pairing::Paired => Observation::in_block(v, r.block).at_position(r.position),
                Pairing::Unpaired => Observation::new(v),
            });
        }
    }
}

/// What a `--resume` measured again: the runs a session's end line keeps
/// ([`RawTrailer::superseded`]), with their blocks (1-based). `None` when it keeps none.
fn superseded_note(end: &RawTrailer) -> Option<String> {
    let runs = &end.superseded;
    if runs.is_empty() {
        return None;
    }
    let mut blocks: Vec<u32> = runs.iter().map(|r| r.block + 1).collect();
    blocks.dedup();
    let blocks: Vec<String> = blocks.iter().map(u32::to_string).collect();
    Some(format!(
        "{} run(s) of unfinished block {} were measured again from the block's start by --resume; they are kept in the end line of session {} ({}, `superseded`), not analysed",
        runs.len(),
        blocks.join(", "),
        runs[0].session,
        end.status
    ))
}
