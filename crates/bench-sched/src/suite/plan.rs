//! The experiment of a suite file: variant `b/v` runs benchmark `b`'s command with variant
//! `v`'s value, every benchmark's settings and hooks attached, the command line's options
//! over the file's `[settings]` over the library's defaults.

use std::time::Duration;

use super::file::{BenchmarkEntry, SuiteSpec, expand_command};
use super::{Suite, SuiteBenchmark, SuiteError};
use crate::design::Design;
use crate::experiment::{ExperimentConfig, FailurePolicy, Hooks, ResumePoint, Until, Variant};
use crate::runner::{CommandSpec, Metric, OutputMode, Shell};

/// What the command line sets over a suite file's `[settings]`; `None` keeps the file's
/// value, or the default when the file has none.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SuiteOptions {
    /// Blocks (the file's `blocks`, else 20).
    pub blocks: Option<u32>,
    /// Untimed runs of every variant before the first block (the file's, else 1).
    pub warmup: Option<u32>,
    /// Per-run timeout (the file's, else none).
    pub timeout: Option<Duration>,
    /// How commands are split (the file's `shell`, else none).
    pub shell: Option<Shell>,
    /// Seed of the run order and layouts.
    pub seed: u64,
    /// Where the commands' output goes.
    pub output: OutputMode,
    /// What a failed run does.
    pub on_failure: FailurePolicy,
    /// The raw file this experiment continues.
    pub resume: Option<ResumePoint>,
    /// The metric of every benchmark (`--metric`): over the file's `settings.metric` and
    /// each benchmark's own, whose unit and direction give way to it.
    pub metric: Option<Metric>,
    /// Runs of each variant per block for every benchmark (`--runs-per-block`, a positive
    /// multiple of 2): over the file's `settings.runs-per-block` and each benchmark's own.
    pub runs_per_block: Option<u32>,
    /// The sequential stop rule of every benchmark (`--until decided`), its `alpha` each
    /// benchmark's level ([`bench_stats::suite::sequential_level`]): a benchmark runs in
    /// every block until its sequence decides, the suite until all are decided or at the
    /// rule's `max_blocks`, which replaces the blocks (see the suite's `until` module).
    /// Default: none (every planned block).
    pub until: Option<bench_stats::sequential::SequentialRule>,
    /// A cap on the session's wall time ([`ExperimentConfig::time_budget`]). Default: none.
    pub time_budget: Option<Duration>,
}

/// The blocks of a suite when neither the command line nor the file gives them: the one
/// default of every experiment ([`crate::DEFAULT_BLOCKS`]).
pub const SUITE_BLOCKS: u32 = crate::DEFAULT_BLOCKS;

/// The metrics a suite measures, as its errors list them.
const SUITE_METRICS: &str = "wall, user, sys, cpu, max-rss or json:FIELD";

/// A metric of a suite (`--metric`, `metric` in the file): wall, user, sys, cpu, max-rss or
/// json:FIELD. A count (`instructions`, `cycles`, ...) needs a counter, which a suite does
/// not set up (no `--counter`, no `counter` key), so it is refused here rather than failing
/// every run.
///
/// # Errors
/// The text is no metric, or a count; the message lists what a suite accepts.
pub fn suite_metric(text: &str) -> Result<Metric, String> {
    let metric: Metric = text
        .parse()
        .map_err(|_| format!("unknown metric {text:?}; a suite measures {SUITE_METRICS}"))?;
    if metric.count_event().is_some() {
        return Err(format!(
            "{text:?} is a count, which needs a counter (the PMU or valgrind) that a suite does not set up; a suite measures {SUITE_METRICS} (count with `abba compare --metric {text}`)"
        ));
    }
    Ok(metric)
}

impl SuiteSpec {
    /// The experiment of the `picked` benchmarks (from [`SuiteSpec::pick`]) under
    /// `options`: one [`ExperimentConfig`] whose [`Suite`] groups the variants by
    /// benchmark. Time: O(benchmarks × variants).
    ///
    /// # Errors
    /// A value of the file that does not parse (design, metric, runs per block, a command
    /// or hook), named by file, line and column where it has one; a sequential design; an
    /// invalid config ([`SuiteError::Config`]).
    pub fn experiment(
        &self,
        picked: &[&BenchmarkEntry],
        options: SuiteOptions,
    ) -> Result<ExperimentConfig, SuiteError> {
        let settings = &self.file().settings;
        let shell = match (options.shell, &settings.shell) {
            (Some(shell), _) => shell,
            (None, Some(text)) => text.get_ref().parse::<Shell>().map_err(|_| {
                self.at(
                    text.span(),
                    format!("shell {:?}: expected none or sh", text.get_ref()),
                )
            })?,
            (None, None) => Shell::None,
        };
        let design = self.design()?;
        let overridden = options.metric.is_some();
        let metric: Metric = match options.metric {
            Some(m) => suite_metric(&m.to_string())
                .map_err(|e| SuiteError::Invalid(format!("--metric {m}: {e}")))?,
            None => suite_metric(settings.metric.as_deref().unwrap_or("wall")).map_err(|e| {
                SuiteError::File {
                    path: self.path().to_owned(),
                    message: format!("settings.metric: {e}"),
                }
            })?,
        };
        let cycles = match options.runs_per_block {
            Some(n) if n >= 2 && n % 2 == 0 => n / 2,
            Some(n) => {
                return Err(SuiteError::Invalid(format!(
                    "--runs-per-block {n}: must be a positive multiple of 2 (each ABBA cycle runs each variant twice)"
                )));
            }
            None => self.cycles()?,
        };
        let timeout = match (options.timeout, &settings.timeout) {
            (Some(t), _) => Some(t),
            (None, Some(t)) => Some(self.timeout(t, "settings.timeout")?),
            (None, None) => None,
        };
        let settle = match &settings.settle {
            Some(s) => self.duration(s, "settings.settle")?,
            None => Duration::ZERO,
        };
        let Expanded {
            variants,
            hooks,
            mut benchmarks,
        } = self.expand(picked, shell, design)?;
        // A flag decides every benchmark: a benchmark's own metric (with its unit and
        // direction) and its cycles give way to it.
        for b in &mut benchmarks {
            if overridden {
                b.metric = None;
                b.unit = None;
                b.higher_is_better = None;
            }
            if options.runs_per_block.is_some() {
                b.cycles = 1;
            }
        }
        let higher_is_better = Some(
            settings
                .higher_is_better
                .filter(|_| !overridden)
                .unwrap_or_else(|| metric.higher_is_better()),
        );
        let blocks = match &options.until {
            Some(rule) => rule.max_blocks,
            None => options
                .blocks
                .or(settings.blocks.as_ref().map(|n| *n.get_ref()))
                .unwrap_or(SUITE_BLOCKS),
        };
        let config = ExperimentConfig {
            variants,
            design,
            blocks,
            seed: options.seed,
            warmup: options
                .warmup
                .or(settings.warmup.as_ref().map(|n| *n.get_ref()))
                .unwrap_or(ExperimentConfig::default().warmup),
            settle,
            timeout,
            metric,
            // `--metric` brings its own unit and direction.
            unit: settings.unit.clone().filter(|_| !overridden),
            higher_is_better,
            output: options.output,
            on_failure: options.on_failure,
            resume: options.resume,
            hooks,
            cycles,
            suite: Some(Suite { benchmarks }),
            until: options.until.map(|rule| Until {
                rule,
                baseline: None,
            }),
            time_budget: options.time_budget,
            ..ExperimentConfig::default()
        };
        config
            .validate()
            .map_err(|e| SuiteError::Config(Box::new(e)))?;
        Ok(config)
    }

    /// The suite's design (`settings.design`, else ABBA): a blocked one.
    fn design(&self) -> Result<Design, SuiteError> {
        let Some(d) = self.file().settings.design.as_ref() else {
            return Ok(Design::Abba);
        };
        match d.get_ref().parse::<Design>() {
            Ok(Design::Sequential) => Err(self.at(
                d.span(),
                "design \"sequential\": a suite runs its benchmarks interleaved in blocks, and the sequential design has no blocks (use abba or random)".to_owned(),
            )),
            Ok(design) => Ok(design),
            Err(_) => Err(self.at(
                d.span(),
                format!("design {:?}: expected abba or random", d.get_ref()),
            )),
        }
    }

    /// The cycles of every benchmark's order per block (`settings.runs-per-block`, 2 runs
    /// of each variant per ABBA cycle).
    fn cycles(&self) -> Result<u32, SuiteError> {
        let Some(value) = &self.file().settings.runs_per_block else {
            return Ok(1);
        };
        match *value.get_ref() {
            n if n >= 2 && n % 2 == 0 => Ok(n / 2),
            n => Err(self.at(
                value.span(),
                format!(
                    "settings.runs-per-block = {n}: must be a positive multiple of 2 (each ABBA cycle runs each variant twice); set it per benchmark for other counts"
                ),
            )),
        }
    }

    /// The picked benchmarks' variants (benchmark `b`'s command with variant `v`'s value,
    /// named `b/v`), each with its benchmark's hooks, and the benchmarks with the settings
    /// they override.
    fn expand(
        &self,
        picked: &[&BenchmarkEntry],
        shell: Shell,
        design: Design,
    ) -> Result<Expanded, SuiteError> {
        let (mut variants, mut hooks, mut benchmarks) = (Vec::new(), Vec::new(), Vec::new());
        for entry in picked {
            let name = entry.name.get_ref();
            let mut indices = Vec::new();
            let own_hooks = hooks_of(entry, shell)?;
            for (vname, value) in self.file().variants.get_ref().iter() {
                let text = expand_command(entry.command.get_ref(), vname, value.get_ref());
                let command =
                    CommandSpec::parse(&text, shell).map_err(|source| SuiteError::Command {
                        at: Some(self.place(entry.command.span().start)),
                        context: format!("benchmark {name:?}, variant {vname}"),
                        source: Box::new(source),
                    })?;
                indices.push(variants.len());
                variants.push(Variant {
                    name: format!("{name}/{vname}"),
                    command,
                });
                hooks.push(own_hooks.clone());
            }
            benchmarks.push(self.benchmark(entry, indices, design)?);
        }
        Ok(Expanded {
            variants,
            hooks,
            benchmarks,
        })
    }

    /// One benchmark of the suite with the settings its entry overrides.
    fn benchmark(
        &self,
        entry: &BenchmarkEntry,
        indices: Vec<usize>,
        design: Design,
    ) -> Result<SuiteBenchmark, SuiteError> {
        let mut bench = SuiteBenchmark::new(entry.name.get_ref().clone(), indices);
        if let Some(n) = &entry.runs_per_block {
            // runs-per-block counts runs of each variant; ABBA holds 2 of each per cycle
            // for two variants, 1 otherwise.
            let per_cycle = if bench.variants.len() == 2 && design == Design::Abba {
                2
            } else {
                1
            };
            let n = *n.get_ref();
            if n % per_cycle != 0 {
                return Err(self.at(
                    entry.runs_per_block.as_ref().map_or(0..0, |s| s.span()),
                    format!(
                        "runs-per-block {n}: must be a multiple of {per_cycle}, the runs of each variant in one ABBA cycle"
                    ),
                ));
            }
            bench.cycles = n / per_cycle;
        }
        if let Some(m) = &entry.metric {
            bench.metric = Some(
                suite_metric(m.get_ref()).map_err(|e| self.at(m.span(), format!("metric: {e}")))?,
            );
        }
        bench.unit.clone_from(&entry.unit);
        bench.higher_is_better = entry.higher_is_better;
        if let Some(t) = &entry.timeout {
            bench.timeout = Some(self.timeout(t, "timeout")?);
        }
        Ok(bench)
    }
}

/// The suite's variants, their hooks and the benchmarks grouping them.
struct Expanded {
    variants: Vec<Variant>,
    hooks: Vec<Hooks>,
    benchmarks: Vec<SuiteBenchmark>,
}

/// A benchmark's hooks, each parsed as its commands are.
fn hooks_of(entry: &BenchmarkEntry, shell: Shell) -> Result<Hooks, SuiteError> {
    let parse = |text: &Option<String>, kind: &str| {
        text.as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(|t| {
                CommandSpec::parse(t, shell).map_err(|source| SuiteError::Command {
                    at: None,
                    context: format!("benchmark {:?}: {kind}", entry.name.get_ref()),
                    source: Box::new(source),
                })
            })
            .transpose()
    };
    Ok(Hooks {
        setup: parse(&entry.setup, "setup")?,
        prepare: parse(&entry.prepare, "prepare")?,
        conclude: parse(&entry.conclude, "conclude")?,
        cleanup: parse(&entry.cleanup, "cleanup")?,
    })
}
