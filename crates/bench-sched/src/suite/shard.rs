//! A suite split across jobs: shard `K/N` runs the benchmarks whose name hashes to `K`
//! ([`Shard::of`]: FNV-1a 64 of the name, modulo `N`), and [`merge_shards`] puts the shards'
//! raw files back together into the whole suite's experiment, refusing files that are not
//! shards of one suite.
//!
//! The rule depends on nothing but the benchmark's name and `N`: adding, removing or
//! reordering benchmarks moves no other benchmark to another shard, and every job computes
//! the same split without talking to the others. Its price is balance: the shards hold
//! about `M/N` benchmarks each, not exactly, and a shard may hold none (its file then
//! records that it ran and holds nothing).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::experiment::{ExperimentConfig, Hooks};
use crate::raw::{
    DERIVED_ID_PREFIX, EndStatus, Experiment, RawHooks, RawShard, RawSuiteBenchmark, RawVariant,
    derived_experiment_id, fnv1a,
};

/// One share of a suite's benchmarks: shard `index` of `count`, written `K/N` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// Shard `index` of `count`.
    ///
    /// # Errors
    /// [`ShardError::Invalid`] unless `1 <= index <= count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 || index == 0 || index > count {
            return Err(ShardError::Invalid(format!(
                "{index}/{count}: expected K/N with 1 <= K <= N (shard K of N)"
            )));
        }
        Ok(Shard { index, count })
    }

    /// `K`, 1-based.
    pub fn index(self) -> u32 {
        self.index
    }

    /// `N`.
    pub fn count(self) -> u32 {
        self.count
    }

    /// The shard of `count` that holds the benchmark `name`: 1 + the 64-bit FNV-1a hash
    /// of the name's UTF-8 bytes modulo `count` (`count` 0 is taken as 1). The same name
    /// and count give the same shard on every machine and version. Time: O(name).
    pub fn of(name: &str, count: u32) -> Shard {
        let count = count.max(1);
        let index = (fnv1a(name) % u64::from(count)) as u32 + 1;
        Shard { index, count }
    }

    /// Whether this shard holds the benchmark `name` ([`Shard::of`]).
    pub fn holds(self, name: &str) -> bool {
        Shard::of(name, self.count) == self
    }
}

impl fmt::Display for Shard {
    /// `K/N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `K/N`, 1 <= K <= N.
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad =
            || ShardError::Invalid(format!("{s:?}: expected K/N, shard K of N (1/3, 2/3, 3/3)"));
        let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(k, n)
    }
}

/// Why shards cannot be planned or put back together. Every message names the files.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// A shard that is not `K/N` with `1 <= K <= N`.
    Invalid(String),
    /// A file that is not a shard of a suite (no `shard` in its header).
    NotAShard {
        /// The file.
        file: String,
    },
    /// Two files of different suites (their identities differ).
    DifferentSuites {
        /// The first file and its suite's identity.
        first: (String, String),
        /// The other file and its suite's identity.
        other: (String, String),
    },
    /// Two files split into different numbers of shards.
    DifferentCounts {
        /// The first file and its shard.
        first: (String, Shard),
        /// The other file and its shard.
        other: (String, Shard),
    },
    /// Two files run with different seeds.
    DifferentSeeds {
        /// The first file and its seed.
        first: (String, u64),
        /// The other file and its seed.
        other: (String, u64),
    },
    /// Two files run on different revisions.
    DifferentRevisions {
        /// The first file and its revision.
        first: (String, Option<String>),
        /// The other file and its revision.
        other: (String, Option<String>),
    },
    /// Two copies of one shard.
    Duplicate {
        /// The shard.
        shard: Shard,
        /// The two files.
        files: (String, String),
    },
    /// A file whose benchmarks are not the ones its shard holds.
    WrongBenchmarks {
        /// The file.
        file: String,
        /// Its shard.
        shard: Shard,
        /// The benchmarks the rule gives that shard.
        expected: Vec<String>,
        /// The benchmarks the file holds.
        found: Vec<String>,
    },
    /// Shards that hold benchmarks are missing.
    Missing {
        /// How many shards the suite was split into.
        count: u32,
        /// Each missing shard's index and the benchmarks it holds.
        missing: Vec<(u32, Vec<String>)>,
        /// The files given.
        given: Vec<String>,
    },
    /// No file was given.
    NoFiles,
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Invalid(m) => write!(f, "{m}"),
            ShardError::NotAShard { file } => write!(
                f,
                "{file}: not a shard of a suite (its header has no shard; only the files of abba suite --shard K/N merge)"
            ),
            ShardError::DifferentSuites { first, other } => write!(
                f,
                "{} and {} are shards of different suites ({} and {}: the benchmarks, their commands or the settings differ); refusing to merge them",
                first.0, other.0, first.1, other.1
            ),
            ShardError::DifferentCounts { first, other } => write!(
                f,
                "{} is shard {} and {} is shard {}: the suite was split in different ways; refusing to merge them",
                first.0, first.1, other.0, other.1
            ),
            ShardError::DifferentSeeds { first, other } => write!(
                f,
                "{} and {} were run with different seeds ({} and {}); refusing to merge them (run every shard with the same seed)",
                first.0, other.0, first.1, other.1
            ),
            ShardError::DifferentRevisions { first, other } => {
                let shown = |r: &Option<String>| r.clone().unwrap_or_else(|| "unknown".into());
                write!(
                    f,
                    "{} and {} were run on different revisions ({} and {}); refusing to merge them",
                    first.0,
                    other.0,
                    shown(&first.1),
                    shown(&other.1)
                )
            }
            ShardError::Duplicate { shard, files } => write!(
                f,
                "{} and {} are both shard {shard}; refusing to merge two copies of one shard",
                files.0, files.1
            ),
            ShardError::WrongBenchmarks {
                file,
                shard,
                expected,
                found,
            } => write!(
                f,
                "{file}: shard {shard} should hold {} but holds {}; refusing to merge it",
                listed(expected),
                listed(found)
            ),
            ShardError::Missing {
                count,
                missing,
                given,
            } => {
                let shards: Vec<String> = missing
                    .iter()
                    .map(|(k, names)| format!("{k}/{count} ({})", names.join(", ")))
                    .collect();
                write!(
                    f,
                    "missing {} {}; given {}: the suite's correction and gate cover every benchmark, so abba reports no suite with a shard missing",
                    if missing.len() == 1 {
                        "shard"
                    } else {
                        "shards"
                    },
                    shards.join("; "),
                    given.join(", ")
                )
            }
            ShardError::NoFiles => write!(f, "no shard file given"),
        }
    }
}

impl std::error::Error for ShardError {}

fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "no benchmark".to_owned()
    } else {
        names.join(", ")
    }
}

/// What defines a suite's runs, hashed into its identity.
#[derive(Serialize)]
struct Identity<'a> {
    design: &'a str,
    metric: String,
    unit: String,
    higher_is_better: bool,
    blocks: u32,
    cycles: u32,
    warmup: u32,
    warmup_per_block: u32,
    settle_ns: u128,
    timeout_ns: Option<u128>,
    layout: String,
    variants: Vec<(&'a str, &'a str)>,
    hooks: Vec<RawHooks>,
    benchmarks: Vec<RawSuiteBenchmark>,
}

/// The identity of the suite `config` runs (the whole suite, before it is split): `suite-`
/// and the 16 hex digits of the FNV-1a 64 hash of its design, metric, unit, direction,
/// blocks, cycles, warm-ups, settle, timeout, layout, every variant's name and command,
/// the hooks and every benchmark with its settings. The seed and the revision are
/// recorded, and compared, apart. Time: O(config text).
pub fn suite_digest(config: &ExperimentConfig) -> String {
    let id = Identity {
        design: config.design.name(),
        metric: config.metric.to_string(),
        unit: config.unit(),
        higher_is_better: config.higher(),
        blocks: config.blocks,
        cycles: config.cycles.max(1),
        warmup: config.warmup,
        warmup_per_block: config.warmup_per_block,
        settle_ns: config.settle.as_nanos(),
        timeout_ns: config.timeout.map(|t| t.as_nanos()),
        layout: config.layout.to_string(),
        variants: config
            .variants
            .iter()
            .map(|v| (v.name.as_str(), v.command.text()))
            .collect(),
        hooks: crate::experiment::raw_hooks(&config.hooks),
        benchmarks: config
            .suite
            .as_ref()
            .map(|s| s.to_raw(&config.variants))
            .unwrap_or_default(),
    };
    let text = serde_json::to_string(&id).unwrap_or_default();
    format!("suite-{:016x}", fnv1a(&text))
}

impl ExperimentConfig {
    /// The experiment of shard `shard` of this suite (a suite's configuration, from
    /// [`crate::SuiteSpec::experiment`]): the variants, hooks and benchmarks of the
    /// benchmarks [`Shard::holds`], everything else as it is, and the header's shard record
    /// (the whole suite's identity from [`suite_digest`], `revision`, every benchmark's
    /// name). A shard that holds no benchmark has no variants: it runs nothing, and its
    /// raw file holds its header and end line.
    /// Unchanged for a configuration without a suite. Time: O(variants × benchmarks).
    pub fn into_shard(self, shard: Shard, revision: Option<String>) -> ExperimentConfig {
        let Some(suite) = self.suite.clone() else {
            return self;
        };
        let digest = suite_digest(&self);
        let names: Vec<String> = suite.benchmarks.iter().map(|b| b.name.clone()).collect();
        let mut variants = Vec::new();
        let mut hooks: Vec<Hooks> = Vec::new();
        let mut benchmarks = Vec::new();
        for mut bench in suite.benchmarks {
            if !shard.holds(&bench.name) {
                continue;
            }
            let mut kept = Vec::with_capacity(bench.variants.len());
            for &i in &bench.variants {
                kept.push(variants.len());
                variants.push(self.variants[i].clone());
                if let Some(h) = self.hooks.get(i) {
                    hooks.push(h.clone());
                }
            }
            bench.variants = kept;
            benchmarks.push(bench);
        }
        if hooks.len() != variants.len() {
            hooks.clear();
        }
        ExperimentConfig {
            variants,
            hooks,
            suite: Some(crate::suite::Suite { benchmarks }),
            shard: Some(RawShard::new(shard, digest, revision, names)),
            ..self
        }
    }
}

/// The whole suite's experiment from the raw files of its shards (read with
/// [`crate::read_raw`], in any order): one header listing every benchmark in the suite
/// file's order with its variants, settings and hooks, and every shard's runs. Its
/// experiment id is the one the whole suite run at once would derive (unless the shards
/// recorded a given one), and its analysis is the whole suite's: each benchmark's runs
/// are its shard's, so the same blocks give the same numbers. The readers' remarks are
/// kept; the end line is the first shard's, with the first status that is not
/// `complete`. Shards that hold no benchmark may be absent. Time: O(runs + benchmarks ×
/// shards).
///
/// # Errors
/// [`ShardError`] naming the files: one that is not a shard; shards of different suites,
/// counts, seeds or revisions; two copies of one shard; a shard whose benchmarks are not
/// its own; missing shards that hold benchmarks (each named with its benchmarks).
pub fn merge_shards(parts: Vec<Experiment>) -> Result<Experiment, ShardError> {
    let mut shards: Vec<(Shard, RawShard, Experiment)> = Vec::with_capacity(parts.len());
    for part in parts {
        let Some(raw) = part.header.shard.clone() else {
            return Err(ShardError::NotAShard { file: part.file });
        };
        let shard = Shard::new(raw.index, raw.count)
            .map_err(|e| ShardError::Invalid(format!("{}: shard {e}", part.file)))?;
        shards.push((shard, raw, part));
    }
    let Some((first_shard, first, first_part)) = shards.first() else {
        return Err(ShardError::NoFiles);
    };
    let name = |e: &Experiment| e.file.clone();
    for (shard, raw, part) in &shards[1..] {
        if raw.suite != first.suite {
            return Err(ShardError::DifferentSuites {
                first: (name(first_part), first.suite.clone()),
                other: (name(part), raw.suite.clone()),
            });
        }
        if shard.count() != first_shard.count() {
            return Err(ShardError::DifferentCounts {
                first: (name(first_part), *first_shard),
                other: (name(part), *shard),
            });
        }
        if part.header.seed != first_part.header.seed {
            return Err(ShardError::DifferentSeeds {
                first: (name(first_part), first_part.header.seed),
                other: (name(part), part.header.seed),
            });
        }
        if raw.revision != first.revision {
            return Err(ShardError::DifferentRevisions {
                first: (name(first_part), first.revision.clone()),
                other: (name(part), raw.revision.clone()),
            });
        }
    }
    let count = first_shard.count();
    let everyone = first.benchmarks.clone();
    let of_shard = |k: u32| -> Vec<String> {
        everyone
            .iter()
            .filter(|n| Shard::of(n, count).index() == k)
            .cloned()
            .collect()
    };
    let mut by_index: BTreeMap<u32, (RawShard, Experiment)> = BTreeMap::new();
    for (shard, raw, part) in shards {
        if let Some((_, earlier)) = by_index.get(&shard.index()) {
            return Err(ShardError::Duplicate {
                shard,
                files: (earlier.file.clone(), part.file.clone()),
            });
        }
        let mut expected = of_shard(shard.index());
        let mut found: Vec<String> = part.header.suite.iter().map(|b| b.name.clone()).collect();
        expected.sort();
        found.sort();
        if expected != found {
            return Err(ShardError::WrongBenchmarks {
                file: part.file.clone(),
                shard,
                expected,
                found,
            });
        }
        by_index.insert(shard.index(), (raw, part));
    }
    let missing: Vec<(u32, Vec<String>)> = (1..=count)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| (k, of_shard(k)))
        .filter(|(_, names)| !names.is_empty())
        .collect();
    if !missing.is_empty() {
        return Err(ShardError::Missing {
            count,
            missing,
            given: by_index.values().map(|(_, p)| p.file.clone()).collect(),
        });
    }
    Ok(join(
        &everyone,
        by_index.into_values().map(|(_, p)| p).collect(),
    ))
}

/// The shards' experiments (each checked, in shard order) as one: see [`merge_shards`].
fn join(everyone: &[String], parts: Vec<Experiment>) -> Experiment {
    let with_hooks = parts.iter().any(|p| !p.header.hooks.is_empty());
    let mut variants: Vec<RawVariant> = Vec::new();
    let mut hooks: Vec<RawHooks> = Vec::new();
    let mut suite: Vec<RawSuiteBenchmark> = Vec::new();
    for name in everyone {
        let Some((part, bench)) = parts.iter().find_map(|p| {
            p.header
                .suite
                .iter()
                .find(|b| &b.name == name)
                .map(|b| (p, b))
        }) else {
            continue;
        };
        for v in &bench.variants {
            let Some(i) = part.header.variants.iter().position(|x| &x.name == v) else {
                continue;
            };
            variants.push(part.header.variants[i].clone());
            if with_hooks {
                hooks.push(part.header.hooks.get(i).cloned().unwrap_or_default());
            }
        }
        suite.push(bench.clone());
    }
    let files: Vec<String> = parts.iter().map(|p| p.file.clone()).collect();
    let status = parts
        .iter()
        .filter_map(|p| p.end.as_ref().map(|e| e.status))
        .find(|s| *s != EndStatus::Complete);
    let ended = parts.iter().all(Experiment::ended);
    let mut header = parts[0].header.clone();
    let derived = header
        .experiment
        .as_deref()
        .is_none_or(|id| id.starts_with(DERIVED_ID_PREFIX));
    header.variants = variants;
    header.hooks = hooks;
    header.suite = suite;
    header.shard = None;
    if derived {
        header.experiment = Some(derived_experiment_id(&header));
    }
    let mut end = parts[0].end.clone();
    if let (Some(end), Some(status)) = (end.as_mut(), status) {
        end.status = status;
    }
    let mut runs = crate::raw::Runs::new();
    let mut warnings = Vec::new();
    for p in parts {
        runs.extend(p.runs.iter().map(|r| r.to_record()));
        warnings.extend(p.warnings);
    }
    let mut merged = Experiment::new(header, runs, files.join(", "));
    if ended {
        merged.end = end;
    }
    merged.warnings = warnings;
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_parses_from_k_slash_n_and_refuses_the_rest() {
        assert_eq!("2/3".parse::<Shard>(), Shard::new(2, 3));
        assert_eq!("2/3".parse::<Shard>().unwrap().to_string(), "2/3");
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/3/4", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_benchmark_has_exactly_one_shard_and_adding_one_moves_no_other() {
        let names: Vec<String> = (0..40).map(|i| format!("bench-{i}")).collect();
        for n in 1..=5 {
            for name in &names {
                let holders: Vec<u32> = (1..=n)
                    .filter(|&k| Shard::new(k, n).unwrap().holds(name))
                    .collect();
                assert_eq!(holders.len(), 1, "{name} in {n} shards");
            }
        }
        // The rule reads the name alone: the published FNV-1a 64 of "foobar" is
        // 0x85944171f73967e8, which is 0 modulo 2 and modulo 3.
        assert_eq!(Shard::of("foobar", 2), Shard::new(1, 2).unwrap());
        assert_eq!(Shard::of("foobar", 3), Shard::new(1, 3).unwrap());
    }

    /// A suite of `n` two-variant benchmarks (`b0` ... ) under the random design.
    fn whole(n: usize) -> ExperimentConfig {
        use crate::experiment::Variant;
        use crate::runner::{CommandSpec, Shell};
        let mut variants = Vec::new();
        let mut benchmarks = Vec::new();
        for k in 0..n {
            let mut own = Vec::new();
            for v in ["base", "head"] {
                own.push(variants.len());
                variants.push(Variant {
                    name: format!("b{k}/{v}"),
                    command: CommandSpec::parse(&format!("run {k} {v}"), Shell::None).unwrap(),
                });
            }
            benchmarks.push(crate::suite::SuiteBenchmark::new(format!("b{k}"), own));
        }
        ExperimentConfig {
            variants,
            design: crate::design::Design::Random,
            blocks: 6,
            seed: 42,
            suite: Some(crate::suite::Suite { benchmarks }),
            ..ExperimentConfig::default()
        }
    }

    /// Each benchmark's runs as (block, variant name, pad), in run order.
    fn runs_by_benchmark(config: &ExperimentConfig) -> BTreeMap<String, Vec<(u32, String, usize)>> {
        let schedule = config.schedule();
        let pads = config.pads(&schedule);
        let mut out: BTreeMap<String, Vec<(u32, String, usize)>> = BTreeMap::new();
        for (r, pad) in schedule.runs.iter().zip(pads) {
            if let crate::design::Target::Variant(i) = r.target {
                let name = &config.variants[i].name;
                let bench = name.split('/').next().unwrap().to_owned();
                out.entry(bench)
                    .or_default()
                    .push((r.block, name.clone(), pad));
            }
        }
        out
    }

    #[test]
    fn a_benchmark_runs_the_same_orders_and_pads_in_its_shard_as_in_the_whole_suite() {
        let config = whole(10);
        let all = runs_by_benchmark(&config);
        let digest = suite_digest(&config);
        let mut seen = 0;
        for k in 1..=3 {
            let shard = config.clone().into_shard(Shard::new(k, 3).unwrap(), None);
            let raw = shard.shard.clone().unwrap();
            assert_eq!(raw.suite, digest);
            assert_eq!(raw.benchmarks.len(), 10);
            for (bench, runs) in runs_by_benchmark(&shard) {
                assert!(Shard::new(k, 3).unwrap().holds(&bench));
                assert_eq!(runs, all[&bench], "{bench} in shard {k}/3");
                seen += 1;
            }
        }
        assert_eq!(seen, 10);
    }

    #[test]
    fn the_suite_digest_changes_with_a_command_and_not_with_the_seed() {
        let config = whole(3);
        let mut reseeded = config.clone();
        reseeded.seed = 7;
        assert_eq!(suite_digest(&config), suite_digest(&reseeded));
        let mut edited = config.clone();
        edited.variants[1].command =
            crate::runner::CommandSpec::parse("run 0 other", crate::runner::Shell::None).unwrap();
        assert_ne!(suite_digest(&config), suite_digest(&edited));
    }
}
