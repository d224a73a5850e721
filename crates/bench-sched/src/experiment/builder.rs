//! The one way a front end turns what a user gave into an [`ExperimentConfig`]
//! ([`ExperimentBuilder`]): every setting overrides a base, the configuration a resumed raw
//! file records or else [`ExperimentConfig::default`]; what is left out is the base's.
//! `abba compare`'s flags map onto its fields one to one.

use std::time::Duration;

use bench_stats::sequential::SequentialRule;

use crate::counter::CounterSource;
use crate::cpus::CpuSet;
use crate::design::Design;
use crate::error::SchedError;
use crate::layout::Layout;
use crate::runner::{CommandSpec, Metric, OutputMode, RealRunner, Runner, Shell};

use super::{
    ConfigError, ExperimentConfig, FailurePolicy, HookKind, HookSpecError, Hooks, Identity,
    Mismatch, NameError, ResumePoint, ScanParameter, Until, Variant, variant_names,
};

/// Why an [`ExperimentBuilder`] cannot build its experiment. Each variant names the setting
/// at fault, so a front end can word it as its own flag.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The resumed file's header does not describe an experiment this abba can run.
    #[error("{0}")]
    Resume(Box<SchedError>),
    /// A setting the resumed file records is given with another value (direction, unit,
    /// experiment id or host; the loop checks the rest itself).
    #[error("{0:?} differs from the resumed file")]
    Resumed(Box<Mismatch>),
    /// No command is given (and none is resumed).
    #[error("no commands to run")]
    NoCommands,
    /// A command is not one: its words cannot be split, or it needs a shell.
    #[error("{0}")]
    Command(Box<SchedError>),
    /// The variants' names cannot serve.
    #[error("{0}")]
    Names(NameError),
    /// The baseline is not one of the variants.
    #[error("the baseline {name:?} is not one of the variants ({})", names.join(", "))]
    Baseline {
        /// The baseline asked for.
        name: String,
        /// The variants' names.
        names: Vec<String>,
    },
    /// A CPU to pin the runs to is not one this process may run on.
    #[error("CPU {cpu} is not available (allowed: {allowed})")]
    PinUnavailable {
        /// The CPUs asked for.
        pin: CpuSet,
        /// The CPU.
        cpu: usize,
        /// The CPUs allowed.
        allowed: CpuSet,
    },
    /// The reference workload is not a command.
    #[error("{0}")]
    Reference(Box<SchedError>),
    /// A hook is not a command, or is given neither once nor once per variant.
    #[error("{0}")]
    Hooks(Box<HookSpecError>),
    /// The stop rule cannot run (checked before the names).
    #[error("{0}")]
    Until(ConfigError),
    /// A least number of runs above the most ([`ExperimentConfig::bound_runs`]).
    #[error("at least {min} runs per variant is above at most {max}")]
    RunBounds {
        /// The fewest runs of each variant.
        min: u32,
        /// The most runs of each variant.
        max: u32,
    },
    /// The configuration breaks an invariant ([`ExperimentConfig::validate`], or a
    /// runs-per-block count [`ExperimentConfig::cycles_for_runs_per_block`] refuses).
    #[error("{0}")]
    Config(ConfigError),
}

/// The hook commands as given, per kind: each once (for every variant) or once per
/// variant ([`Hooks::per_variant`]); all empty for none.
#[derive(Debug, Clone, Default)]
pub struct HookTexts {
    /// [`Hooks::setup`]'s texts.
    pub setup: Vec<String>,
    /// [`Hooks::prepare`]'s texts.
    pub prepare: Vec<String>,
    /// [`Hooks::conclude`]'s texts.
    pub conclude: Vec<String>,
    /// [`Hooks::cleanup`]'s texts.
    pub cleanup: Vec<String>,
}

impl HookTexts {
    /// Whether no hook is given (a resumed experiment then keeps the file's).
    pub fn is_empty(&self) -> bool {
        [&self.setup, &self.prepare, &self.conclude, &self.cleanup]
            .iter()
            .all(|v| v.is_empty())
    }

    /// The hooks of each of `variants` variants, run in `shell` ([`Hooks::per_variant`]).
    ///
    /// # Errors
    /// [`HookSpecError`]: a kind given another number of times, or not a command.
    pub fn per_variant(&self, variants: usize, shell: Shell) -> Result<Vec<Hooks>, HookSpecError> {
        let given = [
            (HookKind::Setup, self.setup.as_slice()),
            (HookKind::Prepare, self.prepare.as_slice()),
            (HookKind::Conclude, self.conclude.as_slice()),
            (HookKind::Cleanup, self.cleanup.as_slice()),
        ];
        Hooks::per_variant(&given, variants, shell)
    }
}

/// An experiment as a user describes it: every field is an override, left out (`None`,
/// empty, `false`) to take the base's value: the resumed file's configuration
/// ([`Self::new`] with a [`ResumePoint`]), else [`ExperimentConfig::default`]. A few run
/// settings are never resumed: the children's output, the failure policy, the version
/// written, a time budget and the suite (a front end sets them on the built config).
#[derive(Debug)]
pub struct ExperimentBuilder {
    /// The commands, in order, parsed in [`Self::shell`]; empty: the base's.
    pub commands: Vec<String>,
    /// Variants already parsed, each with the text its name defaults to (built-in
    /// workloads, which run without a shell); taken instead of [`Self::commands`] when
    /// not empty.
    pub workloads: Vec<(String, CommandSpec)>,
    /// The variants' names, in order; empty: the base's, else the commands' texts
    /// ([`variant_names`]).
    pub names: Vec<String>,
    /// The shell of the commands, the reference and the hooks; `None`: the base's
    /// variants', else [`Shell::None`].
    pub shell: Option<Shell>,
    /// What each run yields; `None`: the base's.
    pub metric: Option<Metric>,
    /// Larger values are better, whatever the metric says; `false`: the metric's or the
    /// base's direction.
    pub higher_is_better: bool,
    /// The unit the report gives the metric; `None`: the base's.
    pub unit: Option<String>,
    /// The run order; `None`: the base's.
    pub design: Option<Design>,
    /// The blocks; `None`: the base's (with a stop rule: its max blocks).
    pub blocks: Option<u32>,
    /// The seed; `None`: the base's (a resumed experiment keeps its seed), else
    /// [`Self::fresh_seed`].
    pub seed: Option<u64>,
    /// The seed when neither [`Self::seed`] nor the base gives one (a front end passes a
    /// fresh one). Default: 1, as [`ExperimentConfig::default`].
    pub fresh_seed: u64,
    /// Warm-up runs before block 0; `None`: the base's.
    pub warmup: Option<u32>,
    /// The pause before every run after the first; `None`: the base's.
    pub settle: Option<Duration>,
    /// The layout padding; `None`: the base's.
    pub layout: Option<Layout>,
    /// The per-run timeout; `None`: the base's.
    pub timeout: Option<Duration>,
    /// The CPUs to pin the runs to; `None`: the base's. Checked against the CPUs this
    /// process may run on.
    pub pin: Option<CpuSet>,
    /// The reference workload's command, parsed in [`Self::shell`]; `None`: the base's.
    pub reference: Option<String>,
    /// The hooks; none given: the base's.
    pub hooks: HookTexts,
    /// Untimed runs of every variant at the start of every block; `None`: the base's.
    pub warmup_per_block: Option<u32>,
    /// Runs of each variant in every block ([`ExperimentConfig::cycles_for_runs_per_block`]);
    /// `None`: the base's cycles.
    pub runs_per_block: Option<u32>,
    /// The numeric parameter a scan varied; `None`: the base's.
    pub parameter: Option<ScanParameter>,
    /// Stop when the confidence sequence decides, with [`Self::stop_rule`]. A resumed
    /// sequential experiment keeps stopping so unless [`Self::blocks`] is given.
    pub until: bool,
    /// The stop rule's alpha and margin (those of the analysis); its min and max blocks
    /// are [`Self::min_blocks`] and [`Self::max_blocks`] over the resumed rule's.
    pub stop_rule: SequentialRule,
    /// The stop rule's fewest blocks; `None`: the resumed rule's, else the rule's own.
    pub min_blocks: Option<u32>,
    /// The stop rule's most blocks; `None`: the resumed rule's, else the rule's own.
    pub max_blocks: Option<u32>,
    /// The baseline variant's name (the stop rule's looks compare against it); `None`:
    /// the first.
    pub baseline: Option<String>,
    /// What counts the runs (chosen by the front end for the metric); `None`: none.
    pub counter: Option<CounterSource>,
    /// The experiment id and host; each `None`: the base's.
    pub identity: Identity,
    /// Show or discard the children's output. Default: discard.
    pub output: OutputMode,
    /// What a failed run does. Default: stop.
    pub on_failure: FailurePolicy,
    /// The base: the resumed configuration, or the default.
    base: ExperimentConfig,
    /// The file resumed.
    resume: Option<ResumePoint>,
}

impl ExperimentBuilder {
    /// A builder over `resume`'s configuration ([`ExperimentConfig::resumed`]), or over
    /// [`ExperimentConfig::default`]; nothing overridden yet.
    ///
    /// # Errors
    /// [`BuildError::Resume`] when the file's header describes no experiment this abba
    /// can run.
    pub fn new(resume: Option<ResumePoint>) -> Result<ExperimentBuilder, BuildError> {
        let base = match &resume {
            Some(point) => ExperimentConfig::resumed(point.header())
                .map_err(|e| BuildError::Resume(Box::new(e)))?,
            None => ExperimentConfig::default(),
        };
        Ok(ExperimentBuilder {
            commands: Vec::new(),
            workloads: Vec::new(),
            names: Vec::new(),
            shell: None,
            metric: None,
            higher_is_better: false,
            unit: None,
            design: None,
            blocks: None,
            seed: None,
            fresh_seed: base.seed,
            warmup: None,
            settle: None,
            layout: None,
            timeout: None,
            pin: None,
            reference: None,
            hooks: HookTexts::default(),
            warmup_per_block: None,
            runs_per_block: None,
            parameter: None,
            until: false,
            stop_rule: SequentialRule::default(),
            min_blocks: None,
            max_blocks: None,
            baseline: None,
            counter: None,
            identity: Identity::default(),
            output: OutputMode::Discard,
            on_failure: FailurePolicy::Stop,
            base,
            resume,
        })
    }

    /// The file resumed, if any.
    pub fn resume(&self) -> Option<&ResumePoint> {
        self.resume.as_ref()
    }

    /// The resumed configuration, if a file is resumed.
    pub fn resumed(&self) -> Option<&ExperimentConfig> {
        self.resume.as_ref().map(|_| &self.base)
    }

    /// The metric the experiment will have: [`Self::metric`], else the base's.
    pub fn metric(&self) -> &Metric {
        self.metric.as_ref().unwrap_or(&self.base.metric)
    }

    /// The shell the commands run in: [`Self::shell`], else the resumed variants'.
    pub fn shell(&self) -> Shell {
        self.shell.unwrap_or_else(|| {
            self.resumed()
                .and_then(|b| b.variants.first())
                .map_or(Shell::None, |v| v.command.shell())
        })
    }

    /// The resumed file's settings a front end is given again must match its header: the
    /// direction, unit, experiment id and host (the loop checks the rest). Call it before
    /// anything else is checked.
    ///
    /// # Errors
    /// [`BuildError::Resumed`] with the first that differs.
    pub fn check_resumed(&self) -> Result<(), BuildError> {
        let (Some(point), Some(base)) = (&self.resume, self.resumed()) else {
            return Ok(());
        };
        let header = point.header();
        let given = ExperimentConfig {
            higher_is_better: Some(self.higher_is_better || header.higher_is_better),
            unit: self.unit.clone().or(base.unit.clone()),
            identity: self.identity_over(base),
            ..base.clone()
        };
        let first = given.differences(header).into_iter().find(|m| {
            matches!(
                m,
                Mismatch::Direction { .. }
                    | Mismatch::Unit { .. }
                    | Mismatch::Experiment { .. }
                    | Mismatch::Host { .. }
            )
        });
        first.map_or(Ok(()), |m| Err(BuildError::Resumed(Box::new(m))))
    }

    fn identity_over(&self, base: &ExperimentConfig) -> Identity {
        Identity {
            experiment: self
                .identity
                .experiment
                .clone()
                .or(base.identity.experiment.clone()),
            host: self.identity.host.clone().or(base.identity.host.clone()),
        }
    }

    /// The variants' commands with the texts their names default to, and the direction.
    fn variants(&self, shell: Shell) -> Result<Vec<(String, CommandSpec)>, BuildError> {
        if !self.workloads.is_empty() {
            return Ok(self.workloads.clone());
        }
        let texts: Vec<String> = match self.resumed().filter(|_| self.commands.is_empty()) {
            Some(b) => b
                .variants
                .iter()
                .map(|v| v.command.text().to_owned())
                .collect(),
            None => self.commands.clone(),
        };
        texts
            .into_iter()
            .map(|t| {
                let c =
                    CommandSpec::parse(&t, shell).map_err(|e| BuildError::Command(Box::new(e)))?;
                Ok((t, c))
            })
            .collect()
    }

    /// The stop rule, if the experiment has one: [`Self::until`], or a resumed one that
    /// [`Self::blocks`] does not turn into a fixed count.
    fn until_rule(&self) -> Option<Until> {
        let resumed = self.resumed().and_then(|b| b.until.as_ref());
        if !self.until && (resumed.is_none() || self.blocks.is_some()) {
            return None;
        }
        let mut rule = self.stop_rule;
        if let Some(max) = self.max_blocks.or(resumed.map(|u| u.rule.max_blocks)) {
            rule.max_blocks = max;
        }
        if let Some(min) = self.min_blocks.or(resumed.map(|u| u.rule.min_blocks)) {
            rule.min_blocks = min;
        }
        Some(Until {
            rule,
            baseline: self.baseline.clone(),
        })
    }

    /// The variants' names, and the baseline among them.
    fn names(&self, texts: &[String]) -> Result<Vec<String>, BuildError> {
        let given = match self.resumed().filter(|_| self.names.is_empty()) {
            Some(b) => b.variants.iter().map(|v| v.name.clone()).collect(),
            None => self.names.clone(),
        };
        let names = variant_names(texts, &given).map_err(BuildError::Names)?;
        match &self.baseline {
            Some(name) if !names.contains(name) => Err(BuildError::Baseline {
                name: name.clone(),
                names,
            }),
            Some(_) | None => Ok(names),
        }
    }

    /// The pin, checked against the CPUs this process may run on.
    fn pin(&self) -> Result<Option<CpuSet>, BuildError> {
        let Some(pin) = self.pin.clone().or(self.base.pin.clone()) else {
            return Ok(None);
        };
        if let Some(allowed) = RealRunner::new().allowed_cpus(None) {
            if let Some(&cpu) = pin.cpus().iter().find(|c| !allowed.cpus().contains(c)) {
                return Err(BuildError::PinUnavailable { pin, cpu, allowed });
            }
        }
        Ok(Some(pin))
    }

    /// The experiment, checked in the order its errors are reported: the commands, the
    /// stop rule, the names and baseline, the pin, the reference, the hooks, the
    /// runs per block, then every invariant ([`ExperimentConfig::validate`]).
    ///
    /// # Errors
    /// [`BuildError`], naming the setting at fault.
    pub fn build(self) -> Result<ExperimentConfig, BuildError> {
        let shell = self.shell();
        let variants = self.variants(shell)?;
        if variants.is_empty() {
            return Err(BuildError::NoCommands);
        }
        let until = self.until_rule();
        if let Some(u) = &until {
            u.validate().map_err(BuildError::Until)?;
        }
        let base = self.resumed();
        let metric = self.metric().clone();
        let higher_is_better = self.higher_is_better
            || metric.higher_is_better()
            || base.is_some_and(|b| b.higher_is_better == Some(true));
        let texts: Vec<String> = variants.iter().map(|v| v.0.clone()).collect();
        let names = self.names(&texts)?;
        let pin = self.pin()?;
        let reference = self
            .reference
            .as_deref()
            .or(base
                .and_then(|b| b.reference.as_ref())
                .map(CommandSpec::text))
            .map(|r| CommandSpec::parse(r, shell).map_err(|e| BuildError::Reference(Box::new(e))))
            .transpose()?;
        let hooks = match base.filter(|_| self.hooks.is_empty()) {
            Some(b) => b.hooks.clone(),
            None => (self.hooks.per_variant(names.len(), shell))
                .map_err(|e| BuildError::Hooks(Box::new(e)))?,
        };
        let start = &self.base;
        let mut config = ExperimentConfig {
            variants: names
                .into_iter()
                .zip(variants)
                .map(|(name, (_, command))| Variant { name, command })
                .collect(),
            reference,
            design: self.design.unwrap_or(start.design),
            blocks: until
                .as_ref()
                .map_or(self.blocks.unwrap_or(start.blocks), |u| u.rule.max_blocks),
            seed: self
                .seed
                .or(base.map(|b| b.seed))
                .unwrap_or(self.fresh_seed),
            warmup: self.warmup.unwrap_or(start.warmup),
            settle: self.settle.unwrap_or(start.settle),
            layout: self.layout.unwrap_or(start.layout),
            pin,
            timeout: self.timeout.or(start.timeout),
            unit: self.unit.clone().or(base.and_then(|b| b.unit.clone())),
            metric,
            higher_is_better: Some(higher_is_better),
            output: self.output,
            on_failure: self.on_failure,
            hooks,
            warmup_per_block: self.warmup_per_block.unwrap_or(start.warmup_per_block),
            parameter: self
                .parameter
                .clone()
                .or(base.and_then(|b| b.parameter.clone())),
            until,
            identity: self.identity_over(start),
            counter: self.counter,
            ..ExperimentConfig::default()
        };
        config.cycles = match self.runs_per_block {
            Some(n) => config
                .cycles_for_runs_per_block(n)
                .map_err(BuildError::Config)?,
            None => start.cycles.max(1),
        };
        config.resume = self.resume;
        config.validate().map_err(BuildError::Config)?;
        Ok(config)
    }
}

impl ExperimentConfig {
    /// hyperfine's bounds on the runs of each variant (`--min-runs`, `--max-runs`) as
    /// bounds on the blocks: the block count rises to `min` runs (rounded up to whole
    /// blocks) and falls to `max` (rounded down, at least 1); with a stop rule, its min
    /// blocks rise to `min` and its max blocks are `max`'s. Returns the fewest blocks the
    /// experiment may then run (the planned ones without a stop rule).
    ///
    /// # Errors
    /// [`BuildError::RunBounds`] when `min` is above `max`.
    pub fn bound_runs(&mut self, min: Option<u32>, max: Option<u32>) -> Result<u32, BuildError> {
        if let (Some(min), Some(max)) = (min, max) {
            if min > max {
                return Err(BuildError::RunBounds { min, max });
            }
        }
        let per = self.runs_per_variant_per_block();
        let lo = min.map(|n| self.blocks_for_runs(n));
        let hi = max.map(|n| (n / per).max(1));
        let clamp = |b: u32| {
            let b = lo.map_or(b, |lo| b.max(lo));
            hi.map_or(b, |hi| b.min(hi))
        };
        self.blocks = if let Some(until) = self.until.as_mut() {
            until.rule.max_blocks = hi.unwrap_or(until.rule.max_blocks);
            until.rule.min_blocks = clamp(until.rule.min_blocks);
            until.rule.max_blocks
        } else {
            clamp(self.blocks)
        };
        Ok(self
            .until
            .as_ref()
            .map_or(self.blocks, |u| u.rule.min_blocks))
    }
}

/// The most measured runs one experiment may schedule (every block, variant and reference
/// run together): the schedule is built before the first run.
pub const MAX_SCHEDULED_RUNS: u64 = 1_000_000;

impl ExperimentConfig {
    /// The runs one block schedules and all the blocks together (saturating), counted
    /// without building the whole schedule: compare the total with
    /// [`MAX_SCHEDULED_RUNS`] before [`Self::schedule`]. Time: O(runs of one block).
    pub fn scheduled_runs(&self) -> (u64, u64) {
        let one = ExperimentConfig {
            blocks: 1,
            resume: None,
            ..self.clone()
        };
        let per_block = one.schedule().runs.len() as u64;
        (per_block, per_block.saturating_mul(u64::from(self.blocks)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> ExperimentBuilder {
        let mut b = ExperimentBuilder::new(None).unwrap();
        b.commands = vec!["./a --x".into(), "./b --x".into()];
        b
    }

    #[test]
    fn what_is_left_out_takes_the_defaults_and_names_come_from_the_commands() {
        let config = two().build().unwrap();
        let defaults = ExperimentConfig::default();
        let names: Vec<&str> = config.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["./a --x", "./b --x"]);
        assert_eq!(config.blocks, defaults.blocks);
        assert_eq!(config.design, defaults.design);
        assert_eq!(config.warmup, defaults.warmup);
        assert_eq!(config.seed, defaults.seed);
        assert_eq!(config.higher_is_better, Some(false));
    }

    #[test]
    fn overrides_win_and_a_stop_rule_sets_the_blocks() {
        let mut b = two();
        (b.blocks, b.warmup, b.seed) = (Some(7), Some(0), Some(42));
        b.names = vec!["old".into(), "new".into()];
        let config = b.build().unwrap();
        assert_eq!((config.blocks, config.warmup, config.seed), (7, 0, 42));
        assert_eq!(config.variants[1].name, "new");
        let mut b = two();
        (b.until, b.max_blocks) = (true, Some(40));
        let config = b.build().unwrap();
        assert_eq!(config.blocks, 40);
        assert_eq!(config.until.unwrap().rule.max_blocks, 40);
    }

    #[test]
    fn each_refusal_names_its_setting() {
        let mut b = two();
        b.baseline = Some("c".into());
        assert!(matches!(b.build(), Err(BuildError::Baseline { name, .. }) if name == "c"));
        assert!(matches!(
            ExperimentBuilder::new(None).unwrap().build(),
            Err(BuildError::NoCommands)
        ));
        let mut b = two();
        b.hooks.setup = vec!["x".into(), "y".into(), "z".into()];
        assert!(matches!(b.build(), Err(BuildError::Hooks(_))));
        let mut b = two();
        b.runs_per_block = Some(3);
        assert!(matches!(
            b.build(),
            Err(BuildError::Config(ConfigError::RunsPerBlock { .. }))
        ));
        let mut b = two();
        b.commands[1] = "echo a | wc".into();
        assert!(matches!(b.build(), Err(BuildError::Command(_))));
    }

    #[test]
    fn run_bounds_clamp_the_blocks_to_whole_blocks() {
        // Two variants in ABBA: 2 runs of each per block.
        let mut config = two().build().unwrap();
        assert_eq!(config.bound_runs(Some(50), None).unwrap(), 25);
        assert_eq!(config.blocks, 25);
        assert_eq!(config.bound_runs(None, Some(9)).unwrap(), 4);
        assert!(matches!(
            config.bound_runs(Some(10), Some(2)),
            Err(BuildError::RunBounds { min: 10, max: 2 })
        ));
        assert_eq!(config.scheduled_runs(), (4, 16));
    }
}
