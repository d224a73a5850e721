//! [`Runs`]: an experiment's runs stored compactly (64 bytes a run, strings interned),
//! and [`Run`], the view of one run with every field of its [`RunRecord`].

use std::collections::HashMap;

use super::RunRecord;
use crate::counter::CountEvent;

/// Every run of an experiment, in file order, stored compactly: a run as most raw files
/// hold it (no counts, no hooks, no reference beside a run, values that fit) takes 64
/// bytes (8 more for each of the metric and the run delay that some run records), its variant, CPU list and suite benchmark interned; any other run is kept whole
/// beside it. Read a run with [`Runs::get`] or [`Runs::iter`] (a [`Run`] with the
/// record's fields), or the whole record with [`Run::to_record`].
///
/// Memory: 64 bytes a run (72 or 80 when some run records a metric or a run delay), plus
/// each distinct string once and each run kept whole.
/// The record read back is the record pushed, field for field.
#[derive(Clone, Default)]
pub struct Runs {
    core: Vec<Core>,
    /// Each run's metric ([`Core`]'s flag [`HAS_METRIC`]; 0 without): empty until a run
    /// has one, then one a run.
    metric: Vec<f64>,
    /// Each run's run delay, as [`Runs::metric`] ([`HAS_DELAY`]).
    run_delay_ns: Vec<u64>,
    /// The runs that do not fit [`Core`], whole; [`Core::aux`] indexes them.
    whole: Vec<RunRecord>,
    /// Interned strings: variant names, CPU lists, benchmarks (index 0 unused: "none").
    names: Vec<Box<str>>,
    index: HashMap<Box<str>, u16>,
}

/// One run in [`Runs`] (64 bytes; its metric and run delay in [`Runs`]' columns). The
/// fields valid under a flag are 0 without it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Core {
    wall_ns: u64,
    user_ns: u64,
    sys_ns: u64,
    run: u32,
    block: u32,
    position: u32,
    session: u32,
    max_rss_kib: u32,
    env_pad: u32,
    exit_code: i32,
    /// Index in [`Runs::whole`] when [`WHOLE`].
    aux: u32,
    variant: u16,
    allowed_cpus: u16,
    benchmark: u16,
    flags: u8,
}

const IS_REFERENCE: u8 = 1;
const TIMED_OUT: u8 = 2;
const HAS_EXIT: u8 = 4;
const HAS_METRIC: u8 = 8;
const HAS_DELAY: u8 = 16;
const WHOLE: u8 = 32;

/// One run as [`Runs`] gives it: every field of its [`RunRecord`], strings borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Run<'a> {
    /// 0-based index in execution order.
    pub run: u32,
    /// Block (repetition index for the sequential design).
    pub block: u32,
    /// 0-based place in the block.
    pub position: u32,
    /// Variant name (the reference run uses the name `reference`).
    pub variant: &'a str,
    /// `true` for the reference workload's run.
    pub is_reference: bool,
    /// For a reference run placed beside a variant run, that variant's name.
    pub beside: Option<&'a str>,
    /// Wall time, ns.
    pub wall_ns: u64,
    /// User CPU time, ns.
    pub user_ns: u64,
    /// System CPU time, ns.
    pub sys_ns: u64,
    /// Peak RSS, KiB.
    pub max_rss_kib: u64,
    /// Exit code; `None` when killed by a signal or timed out.
    pub exit_code: Option<i32>,
    /// The signal that killed it, if any.
    pub signal: Option<i32>,
    /// Killed by abba after the timeout.
    pub timed_out: bool,
    /// Layout padding in bytes.
    pub env_pad: usize,
    /// The metric value when it is not one of the times.
    pub metric: Option<f64>,
    /// CPUs the child was allowed to run on.
    pub allowed_cpus: Option<&'a str>,
    /// Which session wrote the run.
    pub session: u32,
    /// Wall time of the `prepare` hook, ns.
    pub prepare_ns: Option<u64>,
    /// Wall time of the `conclude` hook, ns.
    pub conclude_ns: Option<u64>,
    /// Which hook of this run failed and how.
    pub hook_failure: Option<&'a str>,
    /// The suite benchmark of the run's variant.
    pub benchmark: Option<&'a str>,
    /// Instructions retired.
    pub instructions: Option<u64>,
    /// CPU cycles.
    pub cycles: Option<u64>,
    /// Retired branches.
    pub branches: Option<u64>,
    /// Mispredicted branches.
    pub branch_misses: Option<u64>,
    /// Last-level cache misses.
    pub cache_misses: Option<u64>,
    /// How many processes the counts cover.
    pub counted_processes: Option<u32>,
    /// Why a counted run has no counts.
    pub count_error: Option<&'a str>,
    /// Time the command's main thread waited for a CPU, ns.
    pub run_delay_ns: Option<u64>,
}

impl Run<'_> {
    /// The recorded count of `event` ([`RunRecord::count`]).
    pub fn count(&self, event: CountEvent) -> Option<u64> {
        match event {
            CountEvent::Instructions => self.instructions,
            CountEvent::Cycles => self.cycles,
            CountEvent::Branches => self.branches,
            CountEvent::BranchMisses => self.branch_misses,
            CountEvent::CacheMisses => self.cache_misses,
        }
    }

    /// Whether the run exited with code 0 within the timeout and its hooks succeeded
    /// ([`RunRecord::succeeded`]).
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && self.hook_failure.is_none()
    }

    /// The whole record (its strings copied).
    pub fn to_record(&self) -> RunRecord {
        let s = |x: Option<&str>| x.map(str::to_owned);
        RunRecord {
            run: self.run,
            block: self.block,
            position: self.position,
            variant: self.variant.to_owned(),
            is_reference: self.is_reference,
            beside: s(self.beside),
            wall_ns: self.wall_ns,
            user_ns: self.user_ns,
            sys_ns: self.sys_ns,
            max_rss_kib: self.max_rss_kib,
            exit_code: self.exit_code,
            signal: self.signal,
            timed_out: self.timed_out,
            env_pad: self.env_pad,
            metric: self.metric,
            allowed_cpus: s(self.allowed_cpus),
            session: self.session,
            prepare_ns: self.prepare_ns,
            conclude_ns: self.conclude_ns,
            hook_failure: s(self.hook_failure),
            benchmark: s(self.benchmark),
            instructions: self.instructions,
            cycles: self.cycles,
            branches: self.branches,
            branch_misses: self.branch_misses,
            cache_misses: self.cache_misses,
            counted_processes: self.counted_processes,
            count_error: s(self.count_error),
            run_delay_ns: self.run_delay_ns,
        }
    }
}

impl RunRecord {
    /// This record as a [`Run`] (its strings borrowed).
    pub fn as_run(&self) -> Run<'_> {
        Run {
            run: self.run,
            block: self.block,
            position: self.position,
            variant: &self.variant,
            is_reference: self.is_reference,
            beside: self.beside.as_deref(),
            wall_ns: self.wall_ns,
            user_ns: self.user_ns,
            sys_ns: self.sys_ns,
            max_rss_kib: self.max_rss_kib,
            exit_code: self.exit_code,
            signal: self.signal,
            timed_out: self.timed_out,
            env_pad: self.env_pad,
            metric: self.metric,
            allowed_cpus: self.allowed_cpus.as_deref(),
            session: self.session,
            prepare_ns: self.prepare_ns,
            conclude_ns: self.conclude_ns,
            hook_failure: self.hook_failure.as_deref(),
            benchmark: self.benchmark.as_deref(),
            instructions: self.instructions,
            cycles: self.cycles,
            branches: self.branches,
            branch_misses: self.branch_misses,
            cache_misses: self.cache_misses,
            counted_processes: self.counted_processes,
            count_error: self.count_error.as_deref(),
            run_delay_ns: self.run_delay_ns,
        }
    }
}

impl<'a> From<&'a RunRecord> for Run<'a> {
    fn from(r: &'a RunRecord) -> Run<'a> {
        r.as_run()
    }
}

impl Runs {
    /// No runs.
    pub fn new() -> Runs {
        Runs::default()
    }

    /// How many runs.
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// Adds `record` after the others. Time: O(1) amortized (a hash of each string).
    pub fn push(&mut self, record: RunRecord) {
        let (metric, delay) = (record.metric, record.run_delay_ns);
        let core = self.compact(&record).unwrap_or_else(|| {
            let aux = self.whole.len() as u32;
            self.whole.push(record);
            Core {
                wall_ns: 0,
                user_ns: 0,
                sys_ns: 0,
                run: 0,
                block: 0,
                position: 0,
                session: 0,
                max_rss_kib: 0,
                env_pad: 0,
                exit_code: 0,
                aux,
                variant: 0,
                allowed_cpus: 0,
                benchmark: 0,
                flags: WHOLE,
            }
        });
        self.push_core(core, metric, delay);
    }

    /// Adds a copy of `record` after the others (the record itself is kept, so a reader
    /// can fill it again): no allocation for a run kept in 64 bytes. Time: O(1) amortized.
    pub fn push_copy(&mut self, record: &RunRecord) {
        if let Some(core) = self.compact(record) {
            self.push_core(core, record.metric, record.run_delay_ns);
        } else {
            self.push(record.clone());
        }
    }

    /// Adds `core`, with its metric and run delay in their columns (a column made, 0 for
    /// every run before, when the first run has one).
    fn push_core(&mut self, core: Core, metric: Option<f64>, delay: Option<u64>) {
        // A column is made (one entry a run) once a run has a value: then it holds
        // `before` entries, and `resize` adds none.
        fn column<T: Copy + Default>(c: &mut Vec<T>, value: Option<T>, before: usize) {
            if value.is_some() || !c.is_empty() {
                c.resize(before, T::default());
                c.push(value.unwrap_or_default());
            }
        }
        let before = self.core.len();
        let (metric, delay) = if core.flags & WHOLE != 0 {
            (None, None)
        } else {
            (metric, delay)
        };
        column(&mut self.metric, metric, before);
        column(&mut self.run_delay_ns, delay, before);
        self.core.push(core);
    }

    /// `r` in 64 bytes, when it fits: no field beyond the core's, values in range, at
    /// most 65,535 distinct strings.
    fn compact(&mut self, r: &RunRecord) -> Option<Core> {
        let rare = r.beside.is_some()
            || r.signal.is_some()
            || r.prepare_ns.is_some()
            || r.conclude_ns.is_some()
            || r.hook_failure.is_some()
            || r.instructions.is_some()
            || r.cycles.is_some()
            || r.branches.is_some()
            || r.branch_misses.is_some()
            || r.cache_misses.is_some()
            || r.counted_processes.is_some()
            || r.count_error.is_some();
        if rare {
            return None;
        }
        let max_rss_kib = u32::try_from(r.max_rss_kib).ok()?;
        let env_pad = u32::try_from(r.env_pad).ok()?;
        let variant = self.intern(&r.variant)?;
        let allowed_cpus = match &r.allowed_cpus {
            Some(s) => self.intern(s)?,
            None => 0,
        };
        let benchmark = match &r.benchmark {
            Some(s) => self.intern(s)?,
            None => 0,
        };
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        Some(Core {
            wall_ns: r.wall_ns,
            user_ns: r.user_ns,
            sys_ns: r.sys_ns,
            run: r.run,
            block: r.block,
            position: r.position,
            session: r.session,
            max_rss_kib,
            env_pad,
            exit_code: r.exit_code.unwrap_or(0),
            aux: 0,
            variant,
            allowed_cpus,
            benchmark,
            flags: flag(r.is_reference, IS_REFERENCE)
                | flag(r.timed_out, TIMED_OUT)
                | flag(r.exit_code.is_some(), HAS_EXIT)
                | flag(r.metric.is_some(), HAS_METRIC)
                | flag(r.run_delay_ns.is_some(), HAS_DELAY),
        })
    }

    /// The number of `s` among the interned strings (from 1); `None` when 65,535 are
    /// taken by others.
    fn intern(&mut self, s: &str) -> Option<u16> {
        if let Some(&k) = self.index.get(s) {
            return Some(k);
        }
        if self.names.is_empty() {
            self.names.push(Box::from(""));
        }
        let k = u16::try_from(self.names.len()).ok()?;
        self.names.push(Box::from(s));
        self.index.insert(Box::from(s), k);
        Some(k)
    }

    /// Run `i` (file order); `None` past the last.
    pub fn get(&self, i: usize) -> Option<Run<'_>> {
        let c = self.core.get(i)?;
        if c.flags & WHOLE != 0 {
            return Some(self.whole[c.aux as usize].as_run());
        }
        let name = |k: u16| (k != 0).then(|| &*self.names[k as usize]);
        let on = |f: u8| c.flags & f != 0;
        Some(Run {
            run: c.run,
            block: c.block,
            position: c.position,
            variant: &self.names[c.variant as usize],
            is_reference: on(IS_REFERENCE),
            beside: None,
            wall_ns: c.wall_ns,
            user_ns: c.user_ns,
            sys_ns: c.sys_ns,
            max_rss_kib: u64::from(c.max_rss_kib),
            exit_code: on(HAS_EXIT).then_some(c.exit_code),
            signal: None,
            timed_out: on(TIMED_OUT),
            env_pad: c.env_pad as usize,
            metric: on(HAS_METRIC).then(|| self.metric[i]),
            allowed_cpus: name(c.allowed_cpus),
            session: c.session,
            prepare_ns: None,
            conclude_ns: None,
            hook_failure: None,
            benchmark: name(c.benchmark),
            instructions: None,
            cycles: None,
            branches: None,
            branch_misses: None,
            cache_misses: None,
            counted_processes: None,
            count_error: None,
            run_delay_ns: on(HAS_DELAY).then(|| self.run_delay_ns[i]),
        })
    }

    /// Run `i`.
    ///
    /// # Panics
    /// When `i` is not below [`Runs::len`] (as indexing a slice).
    pub fn at(&self, i: usize) -> Run<'_> {
        match self.get(i) {
            Some(r) => r,
            None => panic!("run {i} of {}", self.len()),
        }
    }

    /// The block of run `i`, without the rest of the run. Time: O(1).
    ///
    /// # Panics
    /// When `i` is not below [`Runs::len`].
    pub fn block(&self, i: usize) -> u32 {
        let c = &self.core[i];
        if c.flags & WHOLE != 0 {
            self.whole[c.aux as usize].block
        } else {
            c.block
        }
    }

    /// The runs in file order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            runs: self,
            range: 0..self.len(),
        }
    }

    /// Every run's whole record, in file order.
    pub fn records(&self) -> Vec<RunRecord> {
        self.iter().map(|r| r.to_record()).collect()
    }

    /// The last run.
    pub fn last(&self) -> Option<Run<'_>> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Keeps the first `n` runs.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        self.core.truncate(n);
        self.metric.truncate(n);
        self.run_delay_ns.truncate(n);
        let whole = self
            .core
            .iter()
            .rev()
            .find(|c| c.flags & WHOLE != 0)
            .map_or(0, |c| c.aux as usize + 1);
        self.whole.truncate(whole);
    }

    /// Only the runs in `range` (file order kept).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Runs {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        Iter {
            runs: self,
            range: start..end,
        }
        .map(|r| r.to_record())
        .collect()
    }

    /// Frees the room reserved beyond the runs held.
    pub fn shrink_to_fit(&mut self) {
        self.core.shrink_to_fit();
        self.metric.shrink_to_fit();
        self.run_delay_ns.shrink_to_fit();
        self.whole.shrink_to_fit();
    }

    /// Changes every run's record through `f` (each run rebuilt: O(runs) with its strings
    /// copied).
    pub fn update(&mut self, mut f: impl FnMut(&mut RunRecord)) {
        let old = std::mem::take(self);
        for r in &old {
            let mut record = r.to_record();
            f(&mut record);
            self.push(record);
        }
    }
}

/// The runs of [`Runs::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    runs: &'a Runs,
    range: std::ops::Range<usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Run<'a>;

    fn next(&mut self) -> Option<Run<'a>> {
        let i = self.range.next()?;
        self.runs.get(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<Run<'a>> {
        let i = self.range.nth(n)?;
        self.runs.get(i)
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let i = self.range.next_back()?;
        self.runs.get(i)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Runs {
    type Item = Run<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<RunRecord> for Runs {
    fn from_iter<I: IntoIterator<Item = RunRecord>>(iter: I) -> Runs {
        let mut runs = Runs::new();
        runs.extend(iter);
        runs
    }
}

impl Extend<RunRecord> for Runs {
    fn extend<I: IntoIterator<Item = RunRecord>>(&mut self, iter: I) {
        for r in iter {
            self.push(r);
        }
    }
}

impl From<Vec<RunRecord>> for Runs {
    fn from(records: Vec<RunRecord>) -> Runs {
        let mut runs = Runs::new();
        runs.core.reserve_exact(records.len());
        runs.extend(records);
        runs
    }
}

impl From<&[RunRecord]> for Runs {
    fn from(records: &[RunRecord]) -> Runs {
        records.iter().cloned().collect()
    }
}

impl PartialEq for Runs {
    fn eq(&self, other: &Runs) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(run: u32) -> RunRecord {
        RunRecord {
            run,
            block: run / 4,
            position: run % 4,
            variant: if run % 2 == 0 { "A" } else { "B" }.into(),
            is_reference: false,
            beside: None,
            wall_ns: 1_000 + u64::from(run),
            user_ns: 900,
            sys_ns: 7,
            max_rss_kib: 3000,
            exit_code: Some(0),
            signal: None,
            timed_out: false,
            env_pad: 17,
            metric: None,
            allowed_cpus: Some("0-1".into()),
            session: 0,
            prepare_ns: None,
            conclude_ns: None,
            hook_failure: None,
            benchmark: None,
            instructions: None,
            cycles: None,
            branches: None,
            branch_misses: None,
            cache_misses: None,
            counted_processes: None,
            count_error: None,
            run_delay_ns: None,
        }
    }

    #[test]
    fn a_run_is_kept_in_64_bytes() {
        assert_eq!(std::mem::size_of::<Core>(), 64);
        // No run with a metric or a run delay: neither column is made.
        let runs = Runs::from(vec![plain(0), plain(1)]);
        assert!(runs.metric.is_empty() && runs.run_delay_ns.is_empty());
    }

    #[test]
    fn every_record_reads_back_as_pushed_compact_or_whole() {
        let mut records = Vec::new();
        for run in 0..12 {
            let mut r = plain(run);
            match run {
                1 => r.metric = Some(-0.0),
                2 => r.exit_code = None,
                3 => r.timed_out = true,
                4 => r.instructions = Some(5),
                5 => r.hook_failure = Some("prepare: exit code 1".into()),
                6 => r.max_rss_kib = u64::MAX,
                7 => r.env_pad = usize::MAX,
                8 => r.run_delay_ns = Some(0),
                9 => r.benchmark = Some("parse".into()),
                10 => {
                    r.is_reference = true;
                    r.beside = Some("A".into());
                }
                11 => r.allowed_cpus = None,
                _ => {}
            }
            records.push(r);
        }
        let runs = Runs::from(records.clone());
        assert_eq!(runs.len(), records.len());
        assert_eq!(runs.records(), records);
        for (i, r) in records.iter().enumerate() {
            assert_eq!(runs.at(i), r.as_run());
            assert_eq!(runs.block(i), r.block);
        }
        // Whole runs: the counted, the failed hook, the too large, the reference beside.
        assert_eq!(runs.whole.len(), 5);
    }

    #[test]
    fn truncating_keeps_the_first_runs_and_only_their_whole_records() {
        let mut records: Vec<RunRecord> = (0..8).map(plain).collect();
        records[2].signal = Some(9);
        records[6].signal = Some(9);
        records[0].metric = Some(2.5);
        records[3].metric = Some(1.5);
        records[7].run_delay_ns = Some(3);
        let mut runs = Runs::from(records.clone());
        runs.truncate(5);
        assert_eq!(runs.records(), records[..5].to_vec());
        assert_eq!(runs.whole.len(), 1);
        // The columns are made (run 3's metric, run 7's delay) and cut with the runs.
        assert_eq!((runs.metric.len(), runs.run_delay_ns.len()), (5, 5));
        runs.push(records[6].clone());
        assert_eq!(runs.at(5).to_record(), records[6]);
        runs.push(records[7].clone());
        assert_eq!(runs.at(6).to_record(), records[7]);
        assert_eq!(runs.at(3).to_record(), records[3]);
        assert_eq!(runs.slice(1..3).records(), records[1..3].to_vec());
    }

    #[test]
    fn strings_are_interned_once() {
        let runs: Runs = (0..1000).map(plain).collect();
        // "", "A", "0-1", "B".
        assert_eq!(runs.names.len(), 4);
    }
}
