//! `abba compare`'s arguments onto the experiment's one builder ([`ExperimentBuilder`]):
//! on `--resume FILE` over the configuration the file's header records, so what the
//! arguments leave out is the file's; the builder's refusals worded as the flags that
//! caused them.

use anyhow::Context;
use bench_sched::{
    BuildError, CommandSpec, ConfigError, ExperimentBuilder, ExperimentConfig, FailurePolicy,
    HookSpecError, HookTexts, Identity, Metric, Mismatch, OutputMode, REFERENCE_NAME, ResumePoint,
    ScanError, ScanParameter, ScanSpec, SchedError, Shell,
};
use bench_stats::AnalysisConfig;
use bench_stats::sequential::SequentialRule;

use crate::args::CompareArgs;
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

/// The builder over `resume` with what a resumed file records and the loop does not check
/// itself (direction, unit, experiment id, host): given, each must match the header
/// ([`ExperimentBuilder::check_resumed`]). Checked first, before any other argument.
pub(crate) fn builder(
    args: &CompareArgs,
    resume: Option<ResumePoint>,
) -> anyhow::Result<ExperimentBuilder> {
    let mut b = ExperimentBuilder::new(resume).map_err(|e| build_error(e, args))?;
    b.higher_is_better = args.higher_is_better;
    b.unit.clone_from(&args.unit);
    b.identity = Identity {
        experiment: args.experiment.clone(),
        host: args.host.clone(),
    };
    b.check_resumed().map_err(|e| build_error(e, args))?;
    Ok(b)
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

/// Every flag onto `b` ([`builder`]'s), then the experiment it builds; the analysis at the
/// experiment's seed.
pub(crate) fn experiment_config(
    args: &CompareArgs,
    mut b: ExperimentBuilder,
) -> anyhow::Result<Plan> {
    // A parameter scan (-P/-L) expands the commands and names first.
    let scan = expand_scan(args)?;
    let args = scan.as_ref().map_or(args, |s| &s.0);
    b.shell = args.shell.map(Shell::from);
    variants(args, &mut b)?;
    let count = [b.workloads.len(), b.commands.len()]
        .into_iter()
        .find(|&n| n > 0);
    check_alone(args, count.or(b.resumed().map(|r| r.variants.len())))?;
    // The stop rule's alpha and margin are the analysis's.
    let analysis = analysis_config_for(&args.analysis, 1, Some(b.metric()))?;
    b.stop_rule = SequentialRule::new(analysis.alpha, analysis.equivalence_margin);
    check_export_paths(&args.analysis)?;
    b.names.clone_from(&args.name);
    b.design = args
        .design
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e| usage(format!("--design: {e}")))?;
    let pin = |t: &str| t.parse().map_err(|e| usage(format!("--pin {t}: {e}")));
    b.pin = args.pin.as_deref().map(pin).transpose()?;
    let recorded = b.resume().and_then(|r| r.header().counter);
    let quiet = args.analysis.quiet;
    b.counter =
        crate::core::counting::choose(b.metric(), args.counter.as_deref(), recorded, quiet)?;
    (b.blocks, b.seed, b.fresh_seed) = (args.blocks, args.seed, fresh_seed());
    (b.warmup, b.settle, b.timeout) = (args.warmup, args.settle, args.timeout);
    b.layout = args.layout.map(Into::into);
    b.reference.clone_from(&args.reference);
    let h = &args.hooks;
    b.hooks = HookTexts {
        setup: h.setup.clone(),
        prepare: h.prepare.clone(),
        conclude: h.conclude.clone(),
        cleanup: h.cleanup.clone(),
    };
    (b.warmup_per_block, b.runs_per_block) = (h.warmup_per_block, h.runs_per_block);
    b.parameter = scan.as_ref().and_then(|s| s.1.clone());
    (b.until, b.min_blocks, b.max_blocks) =
        (args.until.is_some(), args.min_blocks, args.max_blocks);
    b.baseline.clone_from(&args.analysis.baseline);
    b.output = match (args.show_output, args.analysis.json) {
        (true, true) => OutputMode::ShowOnStderr,
        (true, false) => OutputMode::Show,
        (false, _) => OutputMode::Discard,
    };
    if args.ignore_failure {
        b.on_failure = FailurePolicy::Ignore;
    }
    let config = b.build().map_err(|e| build_error(e, args))?;
    Ok(Plan {
        names: config.variants.iter().map(|v| v.name.clone()).collect(),
        analysis: AnalysisConfig {
            seed: config.seed,
            ..analysis
        },
        config,
    })
}

/// The variants onto `b`: the commands (on `--resume` without commands, the file's) with
/// `--metric`, or the `--kernel` specs as `abba compute` children measured by their
/// `ops_per_sec` (never both).
fn variants(args: &CompareArgs, b: &mut ExperimentBuilder) -> anyhow::Result<()> {
    if !args.kernel.is_empty() && !args.commands.is_empty() {
        return Err(usage(
            "give either commands or --kernel variants, not both (their metrics differ)",
        ));
    }
    if args.kernel.is_empty() {
        b.commands.clone_from(&args.commands);
        if let Some(m) = args.metric.as_deref() {
            b.metric = Some(m.parse().map_err(|e| usage(format!("--metric: {e}")))?);
        }
        return Ok(());
    }
    let exe = std::env::current_exe().context("cannot find abba's own executable for --kernel")?;
    for spec in &args.kernel {
        // The spec ([`bench_kernel::KernelConfig::from_spec`]) run as `abba compute ... --json`.
        let kernel = bench_kernel::KernelConfig::from_spec(spec)
            .map_err(|e| usage(format!("--kernel `{spec}`: {e}")))?;
        let mut argv = vec![exe.display().to_string()];
        argv.extend(kernel.compute_args());
        let line = shell_words::join(&argv);
        let command = CommandSpec::parse(&line, Shell::None).map_err(|e| usage(e.to_string()))?;
        b.workloads.push((spec.trim().to_owned(), command));
    }
    b.metric = Some(Metric::Json("ops_per_sec".into()));
    (b.higher_is_better, b.unit) = (true, Some("ops/s".into()));
    Ok(())
}

/// One command is measured alone: nothing to decide, pair or confirm.
fn check_alone(args: &CompareArgs, commands: Option<usize>) -> anyhow::Result<()> {
    if commands != Some(1) {
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

/// A [`BuildError`] in the words of the flag that caused it; a new one reads as the
/// library states it.
#[allow(clippy::wildcard_enum_match_arm)]
fn build_error(e: BuildError, args: &CompareArgs) -> anyhow::Error {
    let resume = || {
        args.resume
            .as_deref()
            .unwrap_or(std::path::Path::new(""))
            .display()
    };
    let until = args.until.is_some() || args.max_blocks.is_some();
    let text = match e {
        BuildError::Resume(e) => format!("--resume {}: {}", resume(), sched_error_text(&e)),
        BuildError::Resumed(m) => return resumed_differs(&m),
        BuildError::NoCommands => "compare needs a command (one is measured alone, two or more are compared), e.g. `abba compare './old --x' './new --x'` or `--kernel chains=1 --kernel chains=2`".to_owned(),
        BuildError::Command(e) => sched_error_text(&e),
        BuildError::Names(e) => format!("--name {e}"),
        BuildError::Baseline { name, names } => format!(
            "--baseline {name:?} is not one of the variants ({})",
            names.join(", ")
        ),
        BuildError::PinUnavailable { pin, cpu, allowed } => {
            let pin = args.pin.clone().unwrap_or_else(|| pin.to_string());
            format!("--pin {pin}: CPU {cpu} is not available to abba (allowed: {allowed})")
        }
        BuildError::Reference(e) => format!("--reference: {}", sched_error_text(&e)),
        BuildError::Hooks(e) => match *e {
            HookSpecError::Command { kind, error } => {
                format!("--{kind}: {}", sched_error_text(&error))
            }
            e => format!("--{e}"),
        },
        BuildError::Until(e) => return config_error(e, args, true),
        BuildError::Config(e) => return config_error(e, args, until),
        e => e.to_string(),
    };
    usage(text)
}

/// A [`ConfigError`] in the words of the flags that caused it; an invariant no flag sets
/// directly reads as the library states it.
#[allow(clippy::wildcard_enum_match_arm)]
fn config_error(e: ConfigError, args: &CompareArgs, until: bool) -> anyhow::Error {
    usage(match e {
        ConfigError::UntilMinAboveMax { min, max } if args.min_blocks.is_some() => {
            format!("--min-blocks {min} is above --max-blocks {max}")
        }
        ConfigError::UntilMinAboveMax { min, max } => format!(
            "--max-blocks {max} is below the {min} blocks --until decided needs at least (the default --min-blocks at alpha {}): give --max-blocks {min} or more",
            args.analysis.alpha()
        ),
        ConfigError::UntilCannotDecide { max, needed, alpha } => format!(
            "--max-blocks {max}: the sequence of --until decided cannot decide before {needed} blocks at alpha {alpha}, so it could only stop INCONCLUSIVE (and a gate pass whatever the data): give --max-blocks {needed} or more"
        ),
        ConfigError::UntilVariants { variants } => format!(
            "--until decided compares two variants; {variants} were given (compare them two at a time, or leave out --until)"
        ),
        ConfigError::UntilUnblocked => "--until decided needs a blocked design: --design sequential runs each variant in one session (use --design abba or random)".to_owned(),
        ConfigError::ReservedName => format!(
            "-n/--name {REFERENCE_NAME}: with --reference, the name '{REFERENCE_NAME}' is kept for the reference workload; choose another name"
        ),
        ConfigError::DuplicateName { name } => format!(
            "two variants are named '{name}': give each a different -n/--name (or different commands)"
        ),
        ConfigError::RunsPerBlock { runs, per_cycle, design, variants } => format!(
            "--runs-per-block {runs}: must be a positive multiple of {per_cycle}, the runs of each variant in one cycle of the {design} design with {variants} variants"
        ),
        ConfigError::CyclesUnblocked if args.hooks.runs_per_block.is_some() => "--runs-per-block needs a blocked design (the sequential design runs each variant in one session); use --runs for more runs".to_owned(),
        ConfigError::NoBlocks if until => "--max-blocks must be at least 1".to_owned(),
        ConfigError::NoBlocks => "--blocks must be at least 1".to_owned(),
        ConfigError::ZeroTimeout => "--timeout must be longer than 0".to_owned(),
        e => SchedError::Config(e).to_string(),
    })
}

/// `--resume`: a recorded setting given with another value, refused by its flag with
/// both values ([`bench_sched::ExperimentBuilder::check_resumed`] gives no other).
#[allow(clippy::wildcard_enum_match_arm)]
fn resumed_differs(m: &Mismatch) -> anyhow::Error {
    let flag = match m {
        Mismatch::Direction { .. } => "--higher-is-better",
        Mismatch::Unit { .. } => "--unit",
        Mismatch::Experiment { .. } => "--experiment",
        _ => "--host",
    };
    let (file, now) = m.values();
    let now = if flag == "--higher-is-better" {
        flag.to_owned()
    } else {
        now
    };
    usage(format!(
        "--resume: {flag} differs: the file has {file}, this run has {now} (resume with the file's setting, or start a new file)"
    ))
}
