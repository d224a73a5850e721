//! What defines an experiment: the variants, the design and every option of the loop.

use std::time::Duration;

use crate::counter::CounterSource;
use crate::cpus::CpuSet;
use crate::design::{Design, ReferenceRuns, Schedule};
use crate::error::SchedError;
use crate::layout::Layout;
use crate::runner::{CommandSpec, Metric, OutputMode, Runner};
use crate::suite::Suite;

use super::{HookKind, Hooks, ResumePoint};

/// Name recorded for reference-workload runs.
pub const REFERENCE_NAME: &str = "reference";

/// A named command to benchmark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Display name, unique within the experiment.
    pub name: String,
    /// What to run.
    pub command: CommandSpec,
}

/// What to do when a benchmarked command fails or times out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum FailurePolicy {
    /// Record the failed run and stop with an error (default).
    #[default]
    Stop,
    /// Record the failed run and go on (`--ignore-failure`); analysis leaves it out.
    Ignore,
}

/// Everything that defines an experiment.
#[derive(Debug, Clone)]
pub struct ExperimentConfig {
    /// The variants; the first is the default baseline. Default: none (must be filled).
    pub variants: Vec<Variant>,
    /// A reference workload run beside every variant run (see
    /// [`ReferenceRuns::BesideEachRun`]). Default: none.
    pub reference: Option<CommandSpec>,
    /// Run order. Default: [`Design::Abba`].
    pub design: Design,
    /// Number of blocks. Default: [`DEFAULT_BLOCKS`] (20), the one default of `abba
    /// compare` and `abba suite`.
    pub blocks: u32,
    /// Seed of the run order and the layout padding. Default: 1.
    pub seed: u64,
    /// Untimed runs of every variant (and the reference) before block 0. Default: 1.
    pub warmup: u32,
    /// Pause before every run after the first. Default: zero.
    pub settle: Duration,
    /// Environment padding. Default: [`Layout::Random`].
    pub layout: Layout,
    /// CPUs to pin the children to. Default: none (inherit abba's mask).
    pub pin: Option<CpuSet>,
    /// Per-run timeout. Default: none.
    pub timeout: Option<Duration>,
    /// What each run yields. Default: [`Metric::Wall`].
    pub metric: Metric,
    /// Unit override. Default: none ([`Metric::unit`]).
    pub unit: Option<String>,
    /// Direction override. Default: none ([`Metric::higher_is_better`]).
    pub higher_is_better: Option<bool>,
    /// Show or discard the children's output. Default: discard.
    pub output: OutputMode,
    /// Failure handling. Default: stop.
    pub on_failure: FailurePolicy,
    /// Version string written in the header. Default: this crate's version.
    pub abba_version: String,
    /// Continue a previous run of the same experiment. Default: none.
    pub resume: Option<ResumePoint>,
    /// Hook commands per variant, in variant order (see [`Hooks`]); empty or all empty for
    /// none. Default: none.
    pub hooks: Vec<Hooks>,
    /// Untimed runs of every variant (in variant order, the reference last) at the start of
    /// every block, besides [`Self::warmup`] before block 0. Paired designs only.
    /// Default: 0.
    pub warmup_per_block: u32,
    /// Cycles of the design's order in every block (`--runs-per-block`): 2 makes the
    /// two-variant ABBA blocks `A B B A A B B A` and `B A A B B A A B`, 4 runs of each
    /// variant (see [`Schedule::plan_cycles`]). Paired designs only. Default: 1.
    pub cycles: u32,
    /// The numeric parameter a scan varied, one value per variant (recorded in the raw
    /// header, so the analysis can test a trend across it). Default: none.
    pub parameter: Option<ScanParameter>,
    /// Stop at the first block after which the confidence sequence decides (`--until
    /// decided`); [`Self::blocks`] is then the most blocks it may run. Two variants in a
    /// paired design only. Default: none (run every planned block).
    pub until: Option<Until>,
    /// Which experiment this run belongs to and which host it runs on, as recorded in
    /// the raw header. Default: a derived id and this machine's name.
    pub identity: Identity,
    /// The benchmarks the variants belong to, when the experiment is a suite (`abba
    /// suite`): every block then runs every benchmark's variants in their counterbalanced
    /// order, the benchmarks in a fresh seeded order ([`Suite::schedule`]). Default: none.
    pub suite: Option<Suite>,
    /// What counts the runs (recorded in the raw header as `counter`): every measured run
    /// and warm-up asks the runner to count it ([`crate::RunRequest::count`]). A count
    /// metric ([`Metric::Count`]) needs one; under [`CounterSource::Valgrind`] only
    /// instructions can decide, since the times are valgrind's. Default: none.
    pub counter: Option<CounterSource>,
    /// The share of a suite this experiment runs (`abba suite --shard K/N`), recorded in
    /// the raw header ([`crate::ExperimentConfig::into_shard`] sets it). Default: none.
    pub shard: Option<crate::raw::RawShard>,
}

/// A sequential stop rule and the baseline its looks compare against.
#[derive(Debug, Clone, PartialEq)]
pub struct Until {
    /// The rule (alpha, margin, min and max blocks, sequence).
    pub rule: bench_stats::sequential::SequentialRule,
    /// The baseline's name (default: the first variant).
    pub baseline: Option<String>,
}

/// The experiment id and host name a run records (see [`crate::RawHeader::experiment_id`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The experiment id; `None`: derived from the variants, metric and design.
    pub experiment: Option<String>,
    /// The host's name; `None`: this machine's hostname.
    pub host: Option<String>,
}

/// A numeric parameter scanned over the variants: `values[i]` is variant `i`'s value.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanParameter {
    /// The parameter's name (`chains`).
    pub name: String,
    /// One value per variant, in the variants' order.
    pub values: Vec<f64>,
}

/// The blocks of an experiment when nothing else gives them (`ExperimentConfig::default`).
pub const DEFAULT_BLOCKS: u32 = 20;

impl Default for ExperimentConfig {
    fn default() -> Self {
        ExperimentConfig {
            variants: Vec::new(),
            reference: None,
            design: Design::Abba,
            blocks: DEFAULT_BLOCKS,
            seed: 1,
            warmup: 1,
            settle: Duration::ZERO,
            layout: Layout::Random,
            pin: None,
            timeout: None,
            metric: Metric::Wall,
            unit: None,
            higher_is_better: None,
            output: OutputMode::Discard,
            on_failure: FailurePolicy::Stop,
            abba_version: env!("CARGO_PKG_VERSION").to_owned(),
            resume: None,
            hooks: Vec::new(),
            warmup_per_block: 0,
            cycles: 1,
            parameter: None,
            until: None,
            identity: Identity::default(),
            suite: None,
            counter: None,
            shard: None,
        }
    }
}

impl ExperimentConfig {
    /// The layout padding of every run of `schedule` (this configuration's), parallel to
    /// its runs: [`crate::Layout::pad_for`] of each run, or in a suite each benchmark's own
    /// ([`Suite::pads`]). Time: O(runs).
    pub fn pads(&self, schedule: &crate::design::Schedule) -> Vec<usize> {
        match &self.suite {
            Some(suite) => suite.pads(self.layout, self.seed, schedule),
            None => schedule
                .runs
                .iter()
                .map(|r| self.layout.pad_for(self.seed, r))
                .collect(),
        }
    }

    /// The characters a shell would expand that any command (hooks and the reference
    /// included) holds, each once in the order met: without a shell they run literally.
    #[must_use]
    pub fn shell_expansions(&self) -> Vec<char> {
        let hooks = self
            .hooks
            .iter()
            .flat_map(|h| HookKind::ALL.into_iter().filter_map(|k| h.get(k)));
        let commands = self
            .variants
            .iter()
            .map(|v| &v.command)
            .chain(self.reference.as_ref())
            .chain(hooks);
        let mut found: Vec<char> = Vec::new();
        for c in commands.flat_map(CommandSpec::shell_expansions) {
            if !found.contains(&c) {
                found.push(c);
            }
        }
        found
    }

    /// Where this configuration runs its reference workload, if it has one.
    pub fn reference_runs(&self) -> ReferenceRuns {
        if self.reference.is_some() {
            ReferenceRuns::BesideEachRun
        } else {
            ReferenceRuns::None
        }
    }

    /// The schedule this configuration runs (what `--dry-run` prints).
    pub fn schedule(&self) -> Schedule {
        if let Some(suite) = &self.suite {
            return suite.schedule(
                self.design,
                self.variants.len(),
                self.blocks,
                self.cycles,
                self.seed,
            );
        }
        let reference = self.reference_runs();
        Schedule::plan_cycles(
            self.design,
            self.variants.len(),
            self.blocks,
            self.cycles,
            self.seed,
            reference,
        )
    }

    /// Everything [`crate::run_experiment`] checks before its first run: the
    /// configuration, a resume file against it, and that every program (the reference's
    /// too) exists. Call it before creating the raw file, so a refused experiment leaves
    /// no file behind.
    ///
    /// # Errors
    /// [`SchedError::Config`], [`SchedError::ResumeMismatch`] or
    /// [`SchedError::ProgramNotFound`].
    pub fn preflight(&self, runner: &mut dyn Runner) -> Result<(), SchedError> {
        super::run::preflight(self, runner).map(|_| ())
    }

    /// The metric of variant `i` (`None`: the reference): its suite benchmark's, else the
    /// experiment's.
    pub fn metric_of(&self, i: Option<usize>) -> &Metric {
        self.suite_benchmark(i)
            .and_then(|b| b.metric.as_ref())
            .unwrap_or(&self.metric)
    }

    /// The per-run timeout of variant `i` (`None`: the reference): its suite benchmark's,
    /// else the experiment's.
    pub fn timeout_of(&self, i: Option<usize>) -> Option<Duration> {
        self.suite_benchmark(i)
            .and_then(|b| b.timeout)
            .or(self.timeout)
    }

    fn suite_benchmark(&self, i: Option<usize>) -> Option<&crate::suite::SuiteBenchmark> {
        self.suite.as_ref()?.benchmark_of(i?)
    }

    /// The hooks of variant `i` (none when [`Self::hooks`] is empty).
    pub(super) fn hooks_of(&self, i: usize) -> Option<&Hooks> {
        self.hooks.get(i).filter(|h| !h.is_empty())
    }

    pub(crate) fn unit(&self) -> String {
        self.unit
            .clone()
            .unwrap_or_else(|| self.metric.unit().to_owned())
    }

    pub(crate) fn higher(&self) -> bool {
        self.higher_is_better
            .unwrap_or_else(|| self.metric.higher_is_better())
    }
}

/// The most blocks one experiment may have (`--blocks`, `blocks` of a suite file).
pub const MAX_BLOCKS: u32 = 100_000;
/// The most runs of each variant in one block (`--runs-per-block`, `runs-per-block`).
pub const MAX_RUNS_PER_BLOCK: u32 = 10_000;
/// The most untimed runs of each variant before the first block (`--warmup`, `warmup`).
pub const MAX_WARMUP: u32 = 10_000;
