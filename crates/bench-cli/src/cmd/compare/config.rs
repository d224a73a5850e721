//! `abba compare`'s arguments into the experiment it runs ([`ExperimentConfig`]): on
//! `--resume FILE`, over the configuration the file's header records
//! ([`ExperimentConfig::resumed`]), so what the arguments leave out is the file's; what
//! they give must match it ([`ExperimentConfig::differences`], worded here as flags).

use anyhow::Context;
use bench_sched::{
    CommandSpec, ConfigError, CpuSet, ExperimentConfig, FailurePolicy, Identity, Layout, Metric,
    Mismatch, OutputMode, REFERENCE_NAME, RealRunner, ResumePoint, Runner, ScanError,
    ScanParameter, ScanSpec, SchedError, Shell, Until, Variant,
};
use bench_stats::AnalysisConfig;
use bench_stats::sequential::SequentialRule;

use super::kernel_spec::parse_kernel_spec;
use crate::args::{CompareArgs, LayoutArg, ShellArg};
use crate::core::analysis::{analysis_config_for, fresh_seed};
use crate::core::exit::usage;
use crate::core::output::check_export_paths;
use crate::core::words::{scan_flag, sched_error_text};

/// What the arguments of `abba compare` describe: the runs, their names, the analysis.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Variants, design, seed and everything else the scheduler needs.
    pub config: ExperimentConfig,
    /// The variants' names, in order.
    pub names: Vec<String>,
    /// The analysis of the runs (its seed is the experiment's).
    pub analysis: AnalysisConfig,
}

/// The variants before they are named: what each runs and what is measured.
#[derive(Debug)]
struct Variants {
    /// The text each name defaults to: the command, or the `--kernel` spec.
    texts: Vec<String>,
    /// The commands, in order.
    commands: Vec<CommandSpec>,
    /// What is measured of every run.
    metric: Metric,
    /// Whether larger values are better.
    higher_is_better: bool,
    /// The unit the report gives the metric (`None`: the metric's own).
    unit: Option<String>,
}

/// The arguments with every parameter scan (`-P`/`-L`, [`ScanSpec`]) expanded in the
/// commands (or `--kernel` specs) and names, and the numeric parameter per variant; `None`
/// without a scan. A scan's error is a usage error naming the flag.
fn expand_scan(args: &CompareArgs) -> anyhow::Result<Option<(CompareArgs, Option<ScanParameter>)>> {
    let spec = ScanSpec {
        range: args.scan.parameter_scan.clone(),
        step: args.scan.parameter_step_size.clone(),
        lists: args.scan.parameter_list.clone(),
    };
    if spec.is_empty() {
        return Ok(None);
    }
    let said = |e: ScanError| usage(e.words(scan_flag));
    if args.resume.is_some() {
        spec.check().map_err(said)?;
        let flags = scan_flag(spec.first_input());
        return Err(usage(format!(
            "{flags} with --resume: the file's header holds the expanded variants; leave out {flags}"
        )));
    }
    let kernel = !args.kernel.is_empty();
    let templates = if kernel { &args.kernel } else { &args.commands };
    let Some(e) = spec.expand(templates, &args.name).map_err(said)? else {
        return Ok(None);
    };
    let mut out = args.clone();
    if kernel {
        out.kernel = e.texts;
    } else {
        out.commands = e.texts;
    }
    out.name = e.names;
    Ok(Some((out, e.parameter)))
}

/// Checks the arguments in the order their errors are reported and turns them into the
/// experiment: variants and names, design, pin, reference, then the rest; the
/// configuration's own invariants ([`ExperimentConfig::validate`]) are refused with the
/// flag named.
pub(crate) fn experiment_config(
    args: &CompareArgs,
    resume: Option<ResumePoint>,
) -> anyhow::Result<Plan> {
    let base = resume.as_ref().map(resumed).transpose()?;
    let base = base.as_ref();
    // What a flag left out takes: the resumed file's setting, else the builder's default.
    let defaults = ExperimentConfig::default();
    let start = base.unwrap_or(&defaults);
    // A parameter scan (-P/-L) expands the commands and names first.
    let scan = expand_scan(args)?;
    let args = scan.as_ref().map_or(args, |s| &s.0);
    let shell = match args.shell {
        Some(arg) => shell_of(arg),
        None => base
            .and_then(|b| b.variants.first())
            .map_or(Shell::None, |v| v.command.shell()),
    };
    let Variants {
        texts,
        commands,
        metric,
        higher_is_better,
        unit,
    } = variants(args, base, shell)?;
    check_alone(args, commands.len())?;
    let until = until_rule(args, &metric, base)?;
    if let Some(u) = &until {
        u.validate().map_err(|e| config_error(e, args, true))?;
    }
    let blocks = until
        .as_ref()
        .map_or(args.blocks.unwrap_or(start.blocks), |u| u.rule.max_blocks);
    let names = names(args, base, &texts)?;
    check_export_paths(&args.analysis)?;
    let design = match args.design.as_deref() {
        Some(d) => d.parse().map_err(|e| usage(format!("--design: {e}")))?,
        None => start.design,
    };
    let resumed_pin = base.and_then(|b| b.pin.as_ref()).map(ToString::to_string);
    let pin = pin(args.pin.as_deref().or(resumed_pin.as_deref()))?;
    let reference = reference(args, base, shell)?;
    // A resumed experiment keeps its seed.
    let seed = args
        .seed
        .or(base.map(|b| b.seed))
        .unwrap_or_else(fresh_seed);
    let analysis = analysis_config_for(&args.analysis, seed, Some(&metric))?;
    let counter = crate::core::counting::choose(
        &metric,
        args.counter.as_deref(),
        resume.as_ref().and_then(|r| r.header().counter),
        args.analysis.quiet,
    )?;
    let hooks = match base.filter(|_| !super::hooks::any_given(&args.hooks)) {
        Some(b) => b.hooks.clone(),
        None => super::hooks::hooks(&args.hooks, names.len(), shell)?,
    };
    let mut config = ExperimentConfig {
        variants: names
            .iter()
            .zip(commands)
            .map(|(name, command)| Variant {
                name: name.clone(),
                command,
            })
            .collect(),
        reference,
        design,
        blocks,
        seed,
        pin,
        metric,
        unit,
        higher_is_better: Some(higher_is_better),
        resume,
        hooks,
        parameter: scan
            .as_ref()
            .and_then(|s| s.1.clone())
            .or_else(|| base.and_then(|b| b.parameter.clone())),
        until,
        counter,
        ..run_settings(args, base)
    };
    config.cycles = match args.hooks.runs_per_block {
        Some(n) => config
            .cycles_for_runs_per_block(n)
            .map_err(|e| config_error(e, args, config.until.is_some()))?,
        None => start.cycles.max(1),
    };
    check(args, &config)?;
    Ok(Plan {
        config,
        names,
        analysis,
    })
}

/// The configuration a `--resume` file's header records.
fn resumed(point: &ResumePoint) -> anyhow::Result<ExperimentConfig> {
    ExperimentConfig::resumed(point.header()).map_err(|e| {
        usage(format!(
            "--resume {}: {}",
            point.path().display(),
            sched_error_text(&e)
        ))
    })
}

/// The settings that are one flag each (the resumed file's where the flag is not given,
/// else compare's defaults): warm-ups, settle, layout, timeout, output, failures, the
/// experiment's identity; a compare runs no suite.
fn run_settings(args: &CompareArgs, base: Option<&ExperimentConfig>) -> ExperimentConfig {
    let defaults = ExperimentConfig::default();
    let base = base.unwrap_or(&defaults);
    ExperimentConfig {
        warmup: args.warmup.unwrap_or(base.warmup),
        settle: args.settle.unwrap_or(base.settle),
        layout: match args.layout {
            Some(LayoutArg::Random) => Layout::Random,
            Some(LayoutArg::Fixed) => Layout::Fixed(0),
            None => base.layout,
        },
        timeout: args.timeout.or(base.timeout),
        output: match (args.show_output, args.analysis.json) {
            (true, true) => OutputMode::ShowOnStderr,
            (true, false) => OutputMode::Show,
            (false, _) => OutputMode::Discard,
        },
        on_failure: if args.ignore_failure {
            FailurePolicy::Ignore
        } else {
            FailurePolicy::Stop
        },
        warmup_per_block: args.hooks.warmup_per_block.unwrap_or(base.warmup_per_block),
        cycles: 1,
        identity: Identity {
            experiment: args.experiment.clone().or(base.identity.experiment.clone()),
            host: args.host.clone().or(base.identity.host.clone()),
        },
        suite: None,
        ..defaults.clone()
    }
}

/// The variants' names (`--name`, else the resumed file's, else the commands'), and
/// `--baseline` among them.
fn names(
    args: &CompareArgs,
    base: Option<&ExperimentConfig>,
    texts: &[String],
) -> anyhow::Result<Vec<String>> {
    let names = match base.filter(|_| args.name.is_empty()) {
        Some(b) => {
            let recorded: Vec<String> = b.variants.iter().map(|v| v.name.clone()).collect();
            variant_names(texts, &recorded)?
        }
        None => variant_names(texts, &args.name)?,
    };
    if let Some(baseline) = &args.analysis.baseline {
        if !names.contains(baseline) {
            return Err(usage(format!(
                "--baseline {baseline:?} is not one of the variants ({})",
                names.join(", ")
            )));
        }
    }
    Ok(names)
}

/// `--reference CMD` (else the resumed file's), parsed with the commands' shell.
fn reference(
    args: &CompareArgs,
    base: Option<&ExperimentConfig>,
    shell: Shell,
) -> anyhow::Result<Option<CommandSpec>> {
    let resumed = base
        .and_then(|b| b.reference.as_ref())
        .map(CommandSpec::text);
    args.reference
        .as_deref()
        .or(resumed)
        .map(|r| {
            CommandSpec::parse(r, shell)
                .map_err(|e| usage(format!("--reference: {}", sched_error_text(&e))))
        })
        .transpose()
}

/// One command is measured alone: nothing to decide, pair or confirm.
fn check_alone(args: &CompareArgs, commands: usize) -> anyhow::Result<()> {
    if commands == 0 {
        return Err(usage(
            "compare needs a command (one is measured alone, two or more are compared), e.g. `abba compare './old --x' './new --x'` or `--kernel chains=1 --kernel chains=2`",
        ));
    }
    if commands > 1 {
        return Ok(());
    }
    for (given, flag) in [
        (args.until.is_some(), "--until"),
        (args.confirm, "--confirm"),
        (args.reference.is_some(), "--reference"),
        (args.analysis.fail_if_slower.is_some(), "--fail-if-slower"),
    ] {
        if given {
            return Err(usage(format!(
                "{flag} needs two or more variants to compare; one command is measured alone (give a second command to compare them)"
            )));
        }
    }
    Ok(())
}

/// Refuses a configuration that cannot run, naming the flag that made it so.
pub(crate) fn check(args: &CompareArgs, config: &ExperimentConfig) -> anyhow::Result<()> {
    config
        .validate()
        .map_err(|e| config_error(e, args, config.until.is_some()))
}

/// A [`ConfigError`] in the words of the flags that caused it; an invariant no flag sets
/// directly reads as the library states it.
fn config_error(e: ConfigError, args: &CompareArgs, until: bool) -> anyhow::Error {
    let runs_per_block = args.hooks.runs_per_block.is_some();
    let text = if let ConfigError::UntilMinAboveMax { min, max } = &e {
        if args.min_blocks.is_some() {
            format!("--min-blocks {min} is above --max-blocks {max}")
        } else {
            format!(
                "--max-blocks {max} is below the {min} blocks --until decided needs at least (the default --min-blocks at alpha {}): give --max-blocks {min} or more",
                args.analysis.alpha()
            )
        }
    } else if let ConfigError::UntilCannotDecide { max, needed, alpha } = &e {
        format!(
            "--max-blocks {max}: the sequence of --until decided cannot decide before {needed} blocks at alpha {alpha}, so it could only stop INCONCLUSIVE (and a gate pass whatever the data): give --max-blocks {needed} or more"
        )
    } else if let ConfigError::UntilVariants { variants } = &e {
        format!(
            "--until decided compares two variants; {variants} were given (compare them two at a time, or leave out --until)"
        )
    } else if matches!(e, ConfigError::UntilUnblocked) {
        "--until decided needs a blocked design: --design sequential runs each variant in one session (use --design abba or random)".to_owned()
    } else if matches!(e, ConfigError::ReservedName) {
        format!(
            "-n/--name {REFERENCE_NAME}: with --reference, the name '{REFERENCE_NAME}' is kept for the reference workload; choose another name"
        )
    } else if let ConfigError::DuplicateName { name } = &e {
        format!(
            "two variants are named '{name}': give each a different -n/--name (or different commands)"
        )
    } else if let ConfigError::RunsPerBlock {
        runs,
        per_cycle,
        design,
        variants,
    } = &e
    {
        format!(
            "--runs-per-block {runs}: must be a positive multiple of {per_cycle}, the runs of each variant in one cycle of the {design} design with {variants} variants"
        )
    } else if matches!(e, ConfigError::CyclesUnblocked) && runs_per_block {
        "--runs-per-block needs a blocked design (the sequential design runs each variant in one session); use --runs for more runs".to_owned()
    } else if matches!(e, ConfigError::NoBlocks) && until {
        "--max-blocks must be at least 1".to_owned()
    } else if matches!(e, ConfigError::NoBlocks) {
        "--blocks must be at least 1".to_owned()
    } else if matches!(e, ConfigError::ZeroTimeout) {
        "--timeout must be longer than 0".to_owned()
    } else {
        SchedError::Config(e).to_string()
    };
    usage(text)
}

/// `--resume`: the recorded settings the experiment loop does not check itself (the
/// direction, unit, experiment id and host), given on the command line, must match the
/// header; each differing one is refused by its flag with both values. Checked first,
/// before any other argument.
pub(crate) fn check_resumed(args: &CompareArgs, point: &ResumePoint) -> anyhow::Result<()> {
    let header = point.header();
    let base = resumed(point)?;
    let given = ExperimentConfig {
        higher_is_better: Some(args.higher_is_better || header.higher_is_better),
        unit: args.unit.clone().or(base.unit.clone()),
        identity: Identity {
            experiment: args.experiment.clone().or(base.identity.experiment.clone()),
            host: args.host.clone().or(base.identity.host.clone()),
        },
        ..base
    };
    for m in given.differences(header) {
        let flag = if matches!(m, Mismatch::Direction { .. }) {
            "--higher-is-better"
        } else if matches!(m, Mismatch::Unit { .. }) {
            "--unit"
        } else if matches!(m, Mismatch::Experiment { .. }) {
            "--experiment"
        } else if matches!(m, Mismatch::Host { .. }) {
            "--host"
        } else {
            continue;
        };
        let (file, now) = m.values();
        let now = if flag == "--higher-is-better" {
            flag.to_owned()
        } else {
            now
        };
        return Err(usage(format!(
            "--resume: {flag} differs: the file has {file}, this run has {now} (resume with the file's setting, or start a new file)"
        )));
    }
    Ok(())
}

/// `--until decided` (or a resumed sequential experiment that `--blocks` does not turn
/// into a fixed one): the sequential rule at the analysis's alpha and margin, with
/// `--min-blocks` / `--max-blocks`, else the resumed rule's; `None` otherwise.
fn until_rule(
    args: &CompareArgs,
    metric: &Metric,
    base: Option<&ExperimentConfig>,
) -> anyhow::Result<Option<Until>> {
    let resumed = base.and_then(|b| b.until.as_ref());
    if args.until.is_none() && (resumed.is_none() || args.blocks.is_some()) {
        return Ok(None);
    }
    let analysis = analysis_config_for(&args.analysis, 1, Some(metric))?;
    let mut rule = SequentialRule::new(analysis.alpha, analysis.equivalence_margin);
    if let Some(max) = args.max_blocks.or(resumed.map(|u| u.rule.max_blocks)) {
        rule.max_blocks = max;
    }
    if let Some(min) = args.min_blocks.or(resumed.map(|u| u.rule.min_blocks)) {
        rule.min_blocks = min;
    }
    Ok(Some(Until {
        rule,
        baseline: args.analysis.baseline.clone(),
    }))
}

fn shell_of(arg: ShellArg) -> Shell {
    match arg {
        ShellArg::None => Shell::None,
        ShellArg::Sh => Shell::Sh,
    }
}

/// The variants: the commands (on `--resume` without commands, the file's) with
/// `--metric`, or the `--kernel` specs as `abba compute` children measured by their
/// `ops_per_sec` (never both).
fn variants(
    args: &CompareArgs,
    base: Option<&ExperimentConfig>,
    shell: Shell,
) -> anyhow::Result<Variants> {
    let exe = std::env::current_exe().context("cannot find abba's own executable for --kernel")?;
    if !args.kernel.is_empty() && !args.commands.is_empty() {
        return Err(usage(
            "give either commands or --kernel variants, not both (their metrics differ)",
        ));
    }
    if args.kernel.is_empty() {
        let metric: Metric = match args.metric.as_deref() {
            Some(m) => m.parse().map_err(|e| usage(format!("--metric: {e}")))?,
            None => base.map_or_else(|| ExperimentConfig::default().metric, |b| b.metric.clone()),
        };
        let texts: Vec<String> = match base.filter(|_| args.commands.is_empty()) {
            Some(b) => b
                .variants
                .iter()
                .map(|v| v.command.text().to_owned())
                .collect(),
            None => args.commands.clone(),
        };
        let commands = texts
            .iter()
            .map(|c| CommandSpec::parse(c, shell).map_err(|e| usage(sched_error_text(&e))))
            .collect::<anyhow::Result<Vec<_>>>()?;
        return Ok(Variants {
            texts,
            commands,
            higher_is_better: args.higher_is_better
                || metric.higher_is_better()
                || base.is_some_and(|b| b.higher_is_better == Some(true)),
            metric,
            unit: args
                .unit
                .clone()
                .or_else(|| base.and_then(|b| b.unit.clone())),
        });
    }
    let mut texts = Vec::new();
    let mut commands = Vec::new();
    for spec in &args.kernel {
        let k = parse_kernel_spec(spec, &exe).map_err(usage)?;
        let line = shell_words::join(&k.argv);
        commands.push(CommandSpec::parse(&line, Shell::None).map_err(|e| usage(e.to_string()))?);
        texts.push(k.name);
    }
    Ok(Variants {
        texts,
        commands,
        metric: Metric::Json("ops_per_sec".into()),
        higher_is_better: true,
        unit: Some("ops/s".into()),
    })
}

/// `--pin CPUS` (or the resumed file's), refused if a CPU is outside the ones abba may run
/// on.
fn pin(arg: Option<&str>) -> anyhow::Result<Option<CpuSet>> {
    let Some(text) = arg else { return Ok(None) };
    let pin: CpuSet = text
        .parse()
        .map_err(|e| usage(format!("--pin {text}: {e}")))?;
    if let Some(allowed) = RealRunner::new().allowed_cpus(None) {
        if let Some(bad) = pin.cpus().iter().find(|c| !allowed.cpus().contains(c)) {
            return Err(usage(format!(
                "--pin {text}: CPU {bad} is not available to abba (allowed: {allowed})"
            )));
        }
    }
    Ok(Some(pin))
}

/// Names for the variants ([`bench_sched::variant_names`]), refused naming `--name`.
fn variant_names(commands: &[String], names: &[String]) -> anyhow::Result<Vec<String>> {
    bench_sched::variant_names(commands, names).map_err(|e| usage(format!("--name {e}")))
}
