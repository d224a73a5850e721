//! The raw JSONL format `abba.raw/1`: one header line, one line per measured run, and an
//! optional trailer line `{"end": {...}}` written when the experiment stops.

mod dataset;
mod fast_line;
mod identity;
mod names;
mod output;
pub(crate) mod read;
mod record;
mod runs;
mod write;

pub(crate) use identity::fnv1a;
pub use identity::{
    DERIVED_ID_PREFIX, LabelError, MAX_LABEL_CHARS, derived_experiment_id, parse_label,
    this_host_name,
};
pub use names::{EndStatus, ReferencePlacement, SequenceStop, StopRuleKind};
pub use output::{OpenedRaw, OutputRefusal, RawKept, RawOutput, resume_notes};
pub use read::{read_raw, read_raw_bytes};
pub use record::{AllRunsFailed, Experiment};
pub use runs::{Iter as RunsIter, Run, Runs};
pub use write::RawWriter;

use bench_stats::sequential::{LookDecision, SequenceMethod};
use serde::{Deserialize, Serialize};

use crate::counter::{CountEvent, CounterSource};
use crate::design::{Design, ReferenceRuns};
use crate::host::HostFacts;
use crate::layout::Layout;
use crate::runner::{Metric, Shell};

/// The `schema` value of a raw file's header.
pub const RAW_SCHEMA: &str = "abba.raw/1";

/// A variant as recorded in the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawVariant {
    /// Display name (unique).
    pub name: String,
    /// The command text as given.
    pub command: String,
    /// The numeric parameter a scan gave this variant (`{"name": "n", "value": 2}`);
    /// absent when the experiment was not a scan of one numeric parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<bench_stats::Parameter>,
}

/// The first line of a raw file. Unknown header fields are accepted (newer writers may add
/// host facts), missing required ones are errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawHeader {
    /// Always [`RAW_SCHEMA`].
    pub schema: String,
    /// Version of the tool that wrote the file.
    pub abba_version: String,
    /// `abba`, `random` or `sequential`.
    pub design: Design,
    /// The seed of the schedule and the layout padding.
    pub seed: u64,
    /// Planned number of blocks.
    pub blocks: u32,
    /// The variants, in order.
    pub variants: Vec<RawVariant>,
    /// The reference workload's command, when one runs every block.
    pub reference: Option<String>,
    /// `wall`, `user`, `sys`, `cpu`, `max-rss`, `json:FIELD` or a count (`instructions`,
    /// ...).
    pub metric: Metric,
    /// Unit of the metric.
    pub unit: String,
    /// Direction of the metric.
    pub higher_is_better: bool,
    /// `random` or `fixed:N`.
    pub layout: Layout,
    /// The `--pin` CPU list, if any.
    pub pin: Option<String>,
    /// Untimed runs of every variant before block 0.
    pub warmup: u32,
    /// Pause between runs, ns.
    pub settle_ns: u64,
    /// `none` or `sh`.
    #[serde(default)]
    pub shell: Option<Shell>,
    /// Per-run timeout, ns.
    #[serde(default)]
    pub timeout_ns: Option<u64>,
    /// Facts about the machine.
    pub host: HostFacts,
    /// The hook commands of each variant, in variant order; absent (empty) when no variant
    /// has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<RawHooks>,
    /// Untimed runs of every variant at the start of every block; absent (0) when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warmup_per_block: u32,
    /// Cycles of the design's order in every block (`--runs-per-block`); absent (1) when
    /// each block holds one cycle, as in every file written before it.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cycles: u32,
    /// Where the reference runs: `beside-each-run` (one reference run beside every variant
    /// run); absent in files written before it, whose reference ran once per block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_placement: Option<ReferencePlacement>,
    /// The sequential stop rule the experiment runs under (`--until decided`); absent for a
    /// fixed block count. `blocks` is then the most it may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_rule: Option<RawStopRule>,
    /// Each time the experiment was extended with `--resume` after it had ended (absent
    /// when never): its analysis then counts every block as a further look.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extended: Vec<RawExtension>,
    /// The experiment this file belongs to (`abba compare --experiment`, else an id
    /// derived from the variants, the metric and the design); absent in files written
    /// before it was recorded, which then read as the derived id
    /// ([`RawHeader::experiment_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    /// The benchmarks of a suite (`abba suite`), each naming its variants (the first its
    /// baseline) and the settings it overrides; absent outside a suite.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suite: Vec<RawSuiteBenchmark>,
    /// What counted the runs' instructions (`pmu` or `valgrind`); absent when nothing
    /// counted. Under `valgrind` the runs' times and RSS are valgrind's, not the program's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<CounterSource>,
    /// The share of a suite this file holds (`abba suite --shard K/N`): the shard, the
    /// suite's identity and every benchmark of the whole suite; absent outside a shard.
    /// The header's `suite` lists the benchmarks this shard ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<RawShard>,
}

/// A shard of a suite as its header records it (`abba suite --shard K/N`): what lets
/// `abba suite --merge` put the shards of one suite back together and refuse the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawShard {
    /// Which shard, 1-based (`K` of `K/N`).
    pub index: u32,
    /// How many shards the suite was split into (`N`).
    pub count: u32,
    /// The suite's identity: `suite-` and 16 hex digits, a hash of everything that defines
    /// the whole suite's runs (see [`crate::suite_digest`]); equal in every shard of one
    /// suite.
    pub suite: String,
    /// The revision the shard was run on (the git commit of the working directory, else
    /// `$GITHUB_SHA`); absent when none is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Every benchmark of the whole suite, in the suite file's order (the merged report's
    /// order); [`crate::Shard::of`] says which shard holds each.
    pub benchmarks: Vec<String>,
}

impl RawShard {
    /// The record of shard `shard` of the suite `suite` (a digest) run on `revision`, the
    /// whole suite's benchmarks `benchmarks`.
    pub fn new(
        shard: crate::suite::Shard,
        suite: String,
        revision: Option<String>,
        benchmarks: Vec<String>,
    ) -> RawShard {
        RawShard {
            index: shard.index(),
            count: shard.count(),
            suite,
            revision,
            benchmarks,
        }
    }
}

impl RawHeader {
    /// Where the reference workload runs (none without one; once per block in files
    /// written before [`RawHeader::reference_placement`]).
    pub fn reference_runs(&self) -> ReferenceRuns {
        ReferencePlacement::runs(self.reference.is_some(), self.reference_placement)
    }
}

/// One benchmark of a suite as the header records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawSuiteBenchmark {
    /// The benchmark's name.
    pub name: String,
    /// Its variants' names (in the header's `variants`), the first its baseline.
    pub variants: Vec<String>,
    /// Cycles of its order in every block, on top of the header's `cycles`; absent (1)
    /// when it runs one cycle.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cycles: u32,
    /// Its metric when it is not the header's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metric>,
    /// Its unit when it is not the header's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Its direction when it is not the header's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub higher_is_better: Option<bool>,
    /// Its per-run timeout, ns, when it is not the header's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ns: Option<u64>,
}

/// A sequential stop rule as the header records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawStopRule {
    /// Always `until-decided`: look after every complete block, stop at the first look
    /// that decides.
    pub rule: StopRuleKind,
    /// The confidence sequence (`sign-median`).
    #[serde(with = "names::method_name")]
    pub method: SequenceMethod,
    /// Its error rate over every look.
    pub alpha: f64,
    /// The equivalence margin (0.01 = ±1%).
    pub margin: f64,
    /// No look decides before this many blocks.
    pub min_blocks: u32,
    /// The limit (also the header's `blocks`).
    pub max_blocks: u32,
}

impl RawStopRule {
    /// The header record of `rule`.
    pub fn from_rule(rule: &bench_stats::sequential::SequentialRule) -> RawStopRule {
        RawStopRule {
            rule: StopRuleKind::UntilDecided,
            method: rule.method,
            alpha: rule.alpha,
            margin: rule.margin,
            min_blocks: rule.min_blocks,
            max_blocks: rule.max_blocks,
        }
    }

    /// The rule it records.
    pub fn to_rule(&self) -> bench_stats::sequential::SequentialRule {
        bench_stats::sequential::SequentialRule {
            alpha: self.alpha,
            margin: self.margin,
            min_blocks: self.min_blocks,
            max_blocks: self.max_blocks,
            method: self.method,
        }
    }
}

/// One extension of an ended experiment (`--resume` with more blocks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawExtension {
    /// Blocks the experiment had planned before.
    pub from_blocks: u32,
    /// Blocks it plans now.
    pub to_blocks: u32,
}

impl RawExtension {
    /// An extension from `from_blocks` to `to_blocks`.
    pub fn new(from_blocks: u32, to_blocks: u32) -> RawExtension {
        RawExtension {
            from_blocks,
            to_blocks,
        }
    }
}

/// One variant's hook commands as the header records them (each absent when not set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawHooks {
    /// Run once before the variant's first run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<String>,
    /// Run before every run of the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare: Option<String>,
    /// Run after every run of the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conclude: Option<String>,
    /// Run once after the variant's last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup: Option<String>,
}

/// One measured run (one line of the raw file).
///
/// Unknown fields are accepted and ignored when reading: the format may gain fields
/// within its major version (`abba.raw/1`), so a file from a newer writer still reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunRecord {
    /// 0-based index in execution order.
    #[serde(default)]
    pub run: u32,
    /// Block (repetition index for the sequential design).
    pub block: u32,
    /// 0-based place in the block.
    pub position: u32,
    /// Variant name (the reference run uses the name `reference`).
    pub variant: String,
    /// `true` for the reference workload's run.
    #[serde(default)]
    pub is_reference: bool,
    /// For a reference run placed beside a variant run, that variant's name; absent for
    /// variant runs and in files whose reference ran once per block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside: Option<String>,
    /// Wall time, ns.
    pub wall_ns: u64,
    /// User CPU time, ns.
    pub user_ns: u64,
    /// System CPU time, ns.
    pub sys_ns: u64,
    /// Peak RSS, KiB.
    pub max_rss_kib: u64,
    /// Exit code; `null` when killed by a signal or timed out.
    pub exit_code: Option<i32>,
    /// The signal that killed it, if any.
    #[serde(default)]
    pub signal: Option<i32>,
    /// Killed by abba after the timeout.
    pub timed_out: bool,
    /// Layout padding in bytes.
    pub env_pad: usize,
    /// The metric value when it is not one of the times (max-rss, json), else `null`.
    #[serde(default)]
    pub metric: Option<f64>,
    /// CPUs the child was allowed to run on (`0-3`).
    #[serde(default)]
    pub allowed_cpus: Option<String>,
    /// Which `abba compare` session wrote the run: 0 for the first, 1 after the first
    /// `--resume`, ... (absent, so 0, in a file never resumed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub session: u32,
    /// Wall time of the `prepare` hook run just before this run, ns (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare_ns: Option<u64>,
    /// Wall time of the `conclude` hook run just after this run, ns (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conclude_ns: Option<u64>,
    /// Which hook of this run failed and how (`prepare: exit code 1`); such a run counts
    /// as failed. Absent when its hooks succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_failure: Option<String>,
    /// The suite benchmark of the run's variant (`abba suite`); absent outside a suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
    /// Instructions the run's process tree retired in user space from `exec` to exit
    /// (the header's `counter` counted them); absent when not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    /// CPU cycles (PMU only); absent when not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    /// Retired branches (PMU only); absent when not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches: Option<u64>,
    /// Mispredicted branches (PMU only); absent when not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_misses: Option<u64>,
    /// Last-level cache misses (PMU only); absent when not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<u64>,
    /// How many processes the counts cover (valgrind: one output file each); absent when
    /// the counter cannot tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_processes: Option<u32>,
    /// Why a counted run has no counts (valgrind wrote no file, ...); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_error: Option<String>,
    /// Time the command's main thread was runnable but waiting for a CPU, ns (Linux's
    /// `/proc/PID/schedstat`); absent where the system does not keep it, and in files
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_delay_ns: Option<u64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl RunRecord {
    /// The recorded count of `event`.
    pub fn count(&self, event: CountEvent) -> Option<u64> {
        match event {
            CountEvent::Instructions => self.instructions,
            CountEvent::Cycles => self.cycles,
            CountEvent::Branches => self.branches,
            CountEvent::BranchMisses => self.branch_misses,
            CountEvent::CacheMisses => self.cache_misses,
        }
    }

    /// Whether the run exited with code 0 within the timeout and its hooks succeeded.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && self.hook_failure.is_none()
    }
}

/// The optional last line, written when the experiment ends (completed, failed or
/// interrupted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawTrailer {
    /// `complete`, `failed`, `interrupted` or `killed`.
    pub status: EndStatus,
    /// Load averages at the end.
    pub load_end: Option<[f64; 3]>,
    /// End time, RFC 3339 UTC.
    pub end_time: String,
    /// Every look of a sequential experiment (absent for a fixed block count). Readers
    /// that predate it ignore it (the trailer accepts unknown fields); the looks can also
    /// be replayed from the runs, which is what `abba analyze` does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<RawSequence>,
    /// The runs of the block this session left unfinished, moved here by the `--resume`
    /// that measured that block again from its start: kept, not analysed. Absent when the
    /// session ended on a block boundary. Only an end line followed by a later session's
    /// runs has them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<RunRecord>,
    /// The session's `--time-budget`, ns, when it ended the session (status
    /// `time-budget`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_budget_ns: Option<u64>,
}

/// The looks of a sequential experiment, as its trailer records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawSequence {
    /// `decided`, `max-blocks`, `not-finished` (interrupted or failed before a decision) or
    /// `time-budget` (the session's `--time-budget` ran out first).
    pub stop: SequenceStop,
    /// Blocks at the look that decided, if one did.
    pub decided_at: Option<u32>,
    /// One per complete block, in order.
    pub looks: Vec<RawLook>,
}

/// One look: blocks seen, the ratio interval (`null` bounds while unbounded) and what it
/// decided (`larger`, `smaller`, `equivalent`, `undecided`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawLook {
    /// Blocks seen.
    pub blocks: u32,
    /// Lower bound of the ratio candidate / baseline.
    pub low: Option<f64>,
    /// Upper bound.
    pub high: Option<f64>,
    /// What the look decided.
    #[serde(with = "names::decision_name")]
    pub decision: LookDecision,
}

impl RawLook {
    /// The record of `look`.
    pub fn from_look(look: &bench_stats::sequential::Look) -> RawLook {
        let finite = |x: f64| (x.is_finite() && x > 0.0).then_some(x);
        RawLook {
            blocks: look.blocks,
            low: finite(look.ratio_interval[0]),
            high: finite(look.ratio_interval[1]),
            decision: look.decision,
        }
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct TrailerLine {
    pub end: RawTrailer,
}
