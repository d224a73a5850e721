//! `abba compare` and the demo: arguments into an experiment config, run, analyze, report.

use std::path::{Path, PathBuf};

use anyhow::Context;
use bench_sched::{
    CommandSpec, CpuSet, Design, ExperimentConfig, FailurePolicy, Input, InterruptFlag, Layout,
    Metric, Outcome, OutputMode, RawWriter, RealRunner, ResumePoint, Runner, SchedError, Shell,
    Variant, analyze_input, run_experiment,
};
use bench_stats::{AnalysisConfig, Grouping, Warning, WarningCode};

use crate::cli::{AnalysisArgs, CompareArgs, DemoArgs, LayoutArg, ShellArg};
use crate::exit::{Exit, usage};
use crate::kernel_spec::parse_kernel_spec;
use crate::output::{check_export_paths, emit, write_stdout};
use crate::progress::Progress;

/// Turns the shared analysis flags into the library's config.
pub fn analysis_config(args: &AnalysisArgs, seed: u64) -> anyhow::Result<AnalysisConfig> {
    let config = AnalysisConfig {
        alpha: args.alpha,
        confidence: args.confidence,
        resamples: args.resamples,
        seed,
        baseline: args.baseline.clone(),
        min_practical_effect: args.min_practical_effect,
        grouping: if args.cross_class {
            Grouping::CrossClass
        } else {
            Grouping::PerClass
        },
        ..AnalysisConfig::default()
    };
    config.validate().map_err(|e| usage(format!("--{e}")))?;
    Ok(config)
}

/// A seed from the operating system's randomness (not the clock), printed and stored.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::process::id()) % 1_000_000_000
}

/// Names for the variants: `--name` where given, else the command text (made unique).
fn variant_names(commands: &[String], names: &[String]) -> anyhow::Result<Vec<String>> {
    if names.len() > commands.len() {
        return Err(usage(format!(
            "--name given {} times but there are only {} variants",
            names.len(),
            commands.len()
        )));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        let base = names.get(i).cloned().unwrap_or_else(|| command.clone());
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            if names.get(i).is_some() {
                return Err(usage(format!(
                    "--name `{base}` is used twice: variant names must be unique"
                )));
            }
            name = format!("{base} #{k}");
            k += 1;
        }
        out.push(name);
    }
    Ok(out)
}

fn sched_error(error: SchedError, raw: &Path) -> anyhow::Error {
    let kept = format!("raw data so far kept in {}", raw.display());
    match error {
        SchedError::RunFailed { .. }
        | SchedError::TimedOut { .. }
        | SchedError::Metric { .. }
        | SchedError::Spawn { .. } => anyhow::Error::new(Exit::CommandFailed(format!(
            "{error}\n{kept} (use --ignore-failure to record failures and go on)"
        ))),
        SchedError::Interrupted { signal } => anyhow::Error::new(Exit::Interrupted {
            signal,
            message: format!(
                "interrupted by signal {signal}; {kept}; continue with --resume {}",
                raw.display()
            ),
        }),
        other => usage(other.to_string()),
    }
}

/// Where the raw runs go when `--output` is not given: a file in the temp directory, so a
/// failed or interrupted experiment still leaves its data somewhere (removed once the
/// report is out).
fn default_output(seed: u64) -> PathBuf {
    std::env::temp_dir().join(format!("abba-{}-{seed}.jsonl", std::process::id()))
}

/// `abba compare`: build the experiment from the arguments, run it, analyze, report.
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let Plan {
        config,
        names,
        analysis,
    } = experiment_config(&args)?;
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    if args.dry_run {
        return dry_run(&config, &names);
    }
    let raw_path = args
        .resume
        .clone()
        .or(args.output.clone())
        .unwrap_or_else(|| default_output(config.seed));
    let outcome = execute(&config, &stop, &raw_path, args.analysis.quiet)?;
    check_some_run_succeeded(&outcome, &names, &raw_path)?;
    let mut result = analyze_input(&Input::from_outcome(&outcome), &analysis)
        .map_err(|e| usage(e.to_string()))?;
    if cfg!(debug_assertions) && !args.kernel.is_empty() {
        result.warnings.push(debug_build_warning());
    }
    let code = emit(result, &args.analysis)?;
    if args.output.is_none() && args.resume.is_none() {
        // The temporary raw file only guards against a failed or interrupted run; once the
        // report exists it goes (keep runs with --output).
        let _ = std::fs::remove_file(&raw_path);
    } else if !args.analysis.quiet && !args.analysis.json {
        eprintln!("raw runs: {}", raw_path.display());
    }
    Ok(code)
}

/// The note a debug-built abba adds when the variants run its own code (`--kernel`): the
/// dev profile compiles the kernel as release does (measured: chains=2/chains=1 1.94x
/// debug against 1.99x release, 849 against 850 Mops/s for chains=1), so the figures
/// should agree, but they come from a build users do not run.
fn debug_build_warning() -> Warning {
    Warning::new(
        WarningCode::DebugBuild,
        None,
        "this abba is a debug build and the kernel variants run its own code; the kernel is compiled optimized in the dev profile too, but quote figures from a release build (cargo run --release -p bench-cli)",
    )
}

/// What the arguments of `abba compare` describe: the runs, their names, the analysis.
#[derive(Debug)]
struct Plan {
    /// Variants, design, seed and everything else the scheduler needs.
    config: ExperimentConfig,
    /// The variants' names, in order.
    names: Vec<String>,
    /// The analysis of the runs (its seed is the experiment's).
    analysis: AnalysisConfig,
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

/// Checks the arguments in the order their errors are reported and turns them into the
/// experiment: variants and names, design, pin, reference, then resume point and seed.
fn experiment_config(args: &CompareArgs) -> anyhow::Result<Plan> {
    let Variants {
        texts,
        commands,
        metric,
        higher_is_better,
        unit,
    } = variants(args)?;
    if commands.len() < 2 {
        return Err(usage(
            "compare needs at least two variants, e.g. `abba compare './old --x' './new --x'` or `--kernel chains=1 --kernel chains=2`",
        ));
    }
    if args.blocks == 0 {
        return Err(usage("--blocks must be at least 1"));
    }
    let names = variant_names(&texts, &args.name)?;
    if let Some(baseline) = &args.analysis.baseline {
        if !names.contains(baseline) {
            return Err(usage(format!(
                "--baseline {baseline:?} is not one of the variants ({})",
                names.join(", ")
            )));
        }
    }
    if args.timeout.is_some_and(|t| t.is_zero()) {
        return Err(usage("--timeout must be longer than 0"));
    }
    check_export_paths(&args.analysis)?;
    let design: Design = args
        .design
        .parse()
        .map_err(|e| usage(format!("--design: {e}")))?;
    let pin = pin(args.pin.as_deref())?;
    let reference = args
        .reference
        .as_deref()
        .map(|r| {
            CommandSpec::parse(r, shell(args.shell)).map_err(|e| usage(format!("--reference: {e}")))
        })
        .transpose()?;
    let (resume, seed) = resume_and_seed(args)?;
    let analysis = analysis_config(&args.analysis, seed)?;
    let config = ExperimentConfig {
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
        blocks: args.blocks,
        seed,
        warmup: args.warmup,
        settle: args.settle.unwrap_or_default(),
        layout: match args.layout {
            LayoutArg::Random => Layout::Random,
            LayoutArg::Fixed => Layout::Fixed(0),
        },
        pin,
        timeout: args.timeout,
        metric,
        unit,
        higher_is_better: Some(higher_is_better),
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
        abba_version: env!("CARGO_PKG_VERSION").to_string(),
        resume,
    };
    Ok(Plan {
        config,
        names,
        analysis,
    })
}

fn shell(arg: ShellArg) -> Shell {
    match arg {
        ShellArg::None => Shell::None,
        ShellArg::Sh => Shell::Sh,
    }
}

/// The variants: the commands with `--metric`, or the `--kernel` specs as `abba compute`
/// children measured by their `ops_per_sec` (never both).
fn variants(args: &CompareArgs) -> anyhow::Result<Variants> {
    let exe = std::env::current_exe().context("cannot find abba's own executable for --kernel")?;
    if !args.kernel.is_empty() && !args.commands.is_empty() {
        return Err(usage(
            "give either commands or --kernel variants, not both (their metrics differ)",
        ));
    }
    if args.kernel.is_empty() {
        let metric: Metric = args
            .metric
            .parse()
            .map_err(|e| usage(format!("--metric: {e}")))?;
        let commands = args
            .commands
            .iter()
            .map(|c| CommandSpec::parse(c, shell(args.shell)).map_err(|e| usage(e.to_string())))
            .collect::<anyhow::Result<Vec<_>>>()?;
        return Ok(Variants {
            texts: args.commands.clone(),
            commands,
            higher_is_better: args.higher_is_better || metric.higher_is_better(),
            metric,
            unit: args.unit.clone(),
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

/// `--pin CPUS`, refused if a CPU is outside the ones abba may run on.
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

/// The resume point of `--resume`, and the seed: `--seed`, else the resumed experiment's
/// (a resumed experiment keeps its seed), else a fresh one.
fn resume_and_seed(args: &CompareArgs) -> anyhow::Result<(Option<ResumePoint>, u64)> {
    let resume = args
        .resume
        .as_deref()
        .map(ResumePoint::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    let resumed_seed = match &args.resume {
        Some(path) => Some(
            bench_sched::read_raw(path)
                .map_err(|e| usage(e.to_string()))?
                .header
                .seed,
        ),
        None => None,
    };
    Ok((
        resume,
        args.seed.or(resumed_seed).unwrap_or_else(fresh_seed),
    ))
}

/// `--dry-run`: the schedule, the seed and the number of measured runs on stdout.
fn dry_run(config: &ExperimentConfig, names: &[String]) -> anyhow::Result<u8> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let schedule = config.schedule();
    write_stdout(&format!(
        "{}seed {}; {} measured runs\n",
        schedule.render(&refs),
        config.seed,
        schedule.runs.len()
    ))?;
    Ok(0)
}

/// Runs the experiment with progress on stderr, streaming the raw runs to `raw_path`
/// (appending to it when resuming).
fn execute(
    config: &ExperimentConfig,
    stop: &InterruptFlag,
    raw_path: &Path,
    quiet: bool,
) -> anyhow::Result<Outcome> {
    let mut writer = match &config.resume {
        Some(point) => point.open_writer(config),
        None => RawWriter::create(raw_path),
    }
    .map_err(|e| usage(e.to_string()))?;
    let schedule = config.schedule();
    let mut progress = Progress::new(schedule.runs.len() as u64, config.blocks, quiet);
    let outcome = run_experiment(
        config,
        stop,
        &mut RealRunner::new(),
        &mut writer,
        &mut progress,
    );
    progress.finish();
    outcome.map_err(|e| sched_error(e, raw_path))
}

/// Refuses to analyze when every run of some variant failed (with `--ignore-failure`).
fn check_some_run_succeeded(
    outcome: &Outcome,
    names: &[String],
    raw_path: &Path,
) -> anyhow::Result<()> {
    for name in names {
        let runs: Vec<_> = outcome
            .runs
            .iter()
            .filter(|r| &r.variant == name && !r.is_reference)
            .collect();
        if !runs.is_empty() && runs.iter().all(|r| !r.succeeded()) {
            return Err(anyhow::Error::new(Exit::CommandFailed(format!(
                "variant {name}: all {} runs failed, nothing to compare; raw data kept in {}",
                runs.len(),
                raw_path.display()
            ))));
        }
    }
    Ok(())
}

/// The demo: the kernel's chains=1 against chains=2 over 12 ABBA blocks.
pub fn run_demo(demo: &DemoArgs) -> anyhow::Result<u8> {
    eprintln!(
        "abba demo: one dependency chain of integer multiply-adds (chains=1) against two independent chains (chains=2),\n{} ABBA blocks of {} s runs, each run a child process with a random environment size. Higher is better.\n",
        demo.demo_blocks, demo.demo_duration
    );
    let duration = format!("duration={}", demo.demo_duration);
    let args = CompareArgs {
        commands: Vec::new(),
        kernel: vec![
            format!("chains=1,{duration}"),
            format!("chains=2,{duration}"),
        ],
        name: vec!["chains=1".into(), "chains=2".into()],
        blocks: demo.demo_blocks,
        design: "abba".into(),
        warmup: 1,
        settle: None,
        layout: LayoutArg::Random,
        seed: Some(1),
        output: None,
        timeout: Some(std::time::Duration::from_secs(60)),
        shell: ShellArg::None,
        metric: "wall".into(),
        higher_is_better: true,
        unit: None,
        reference: None,
        pin: None,
        show_output: false,
        ignore_failure: false,
        resume: None,
        dry_run: false,
        analysis: AnalysisArgs {
            baseline: None,
            alpha: 0.05,
            confidence: 0.95,
            resamples: 2000,
            min_practical_effect: 0.147,
            cross_class: false,
            json: false,
            export_json: None,
            export_markdown: None,
            fail_if_slower: None,
            quiet: false,
        },
    };
    let code = run(args)?;
    println!(
        "\nCompare your own commands: abba compare 'old/bin --flag' 'new/bin --flag'   (abba compare --help for more)"
    );
    Ok(code)
}

#[cfg(test)]
mod tests {
    /// `cargo run -p bench-cli` (the demo) reports kernel speeds without a debug-build
    /// warning only because the dev profile builds `bench-kernel` as release does.
    #[test]
    fn dev_profile_builds_the_kernel_as_release_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
        let manifest = std::fs::read_to_string(root).unwrap();
        let section = manifest
            .split("[profile.dev.package.bench-kernel]")
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .unwrap_or_default();
        for setting in ["opt-level = 3", "codegen-units = 1"] {
            assert!(
                section.lines().any(|l| l.trim() == setting),
                "[profile.dev.package.bench-kernel] lacks `{setting}`"
            );
        }
    }
}
