//! `abba compare` and the demo: arguments into an experiment config, run, analyze, report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use bench_sched::{
    CommandSpec, CpuSet, Design, Experiment, ExperimentConfig, FailurePolicy, Identity, Input,
    InterruptFlag, Layout, Metric, OutputMode, RawHeader, RawWriter, RealRunner, ResumePoint,
    Runner, SchedError, Shell, Until, Variant, analyze_input, run_experiment,
};
use bench_stats::sequential::SequentialRule;
use bench_stats::{AnalysisConfig, Grouping, PracticalRule, Warning, WarningCode};

use crate::cli::{
    AnalysisArgs, CompareArgs, CsvExportArgs, DemoArgs, HookArgs, HyperfineOnlyArgs, LayoutArg,
    ScanArgs, ShellArg, StyleArg,
};
use crate::exit::{Exit, usage};
use crate::kernel_spec::parse_kernel_spec;
use crate::output::{check_export_paths, emit, stderr_line, write_stdout};
use crate::progress::Progress;
use crate::words::sched_error_text;

/// The equivalence margin when `--equivalence-margin` is not given: 1%, or 0.1% when the
/// verdict decides on a count (instructions, cycles, ...). Counts resolve a hundredth of
/// a percent, so a change of half a percent is both measurable and what a gate on
/// instruction counts exists to catch; under a 1% margin it would read EQUIVALENT.
pub const COUNT_MARGIN: f64 = 0.001;

/// The default margin for `metric` (see [`COUNT_MARGIN`]).
pub(crate) fn default_margin(metric: Option<&Metric>) -> f64 {
    match metric {
        Some(Metric::Count(_)) => COUNT_MARGIN,
        _ => 0.01,
    }
}

/// Turns the shared analysis flags into the library's config.
pub fn analysis_config(args: &AnalysisArgs, seed: u64) -> anyhow::Result<AnalysisConfig> {
    analysis_config_for(args, seed, None)
}

/// [`analysis_config`] for data of `metric`, whose default margin depends on it.
pub fn analysis_config_for(
    args: &AnalysisArgs,
    seed: u64,
    metric: Option<&Metric>,
) -> anyhow::Result<AnalysisConfig> {
    let config = AnalysisConfig {
        alpha: args.alpha,
        // The interval beside the verdict is at the verdict's level unless asked otherwise.
        confidence: args.confidence.unwrap_or(1.0 - args.alpha),
        resamples: args.resamples,
        seed,
        baseline: args.baseline.clone(),
        min_practical_effect: args.min_practical_effect,
        equivalence_margin: args
            .equivalence_margin
            .unwrap_or_else(|| default_margin(metric)),
        practical: args.practical,
        grouping: if args.cross_class {
            Grouping::CrossClass
        } else {
            Grouping::PerClass
        },
        paired_estimator: args
            .estimator
            .unwrap_or(AnalysisConfig::default().paired_estimator),
        ..AnalysisConfig::default()
    };
    config.validate().map_err(|e| usage(format!("--{e}")))?;
    Ok(config)
}

/// A seed from the operating system's randomness (not the clock), printed and stored.
pub(crate) fn fresh_seed() -> u64 {
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
    for name in names {
        if name.trim().is_empty() {
            return Err(usage(format!(
                "--name {name:?}: a variant name cannot be empty or blank"
            )));
        }
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(usage(format!(
                "--name {}: a variant name cannot hold a control character ({}): it would break the report's lines and tables",
                name.escape_debug(),
                c.escape_debug()
            )));
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        // A command of several lines names its variant with its control characters
        // escaped (`a\nb`), the same in every table, message and file.
        let base = names.get(i).cloned().unwrap_or_else(|| {
            command
                .chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_default().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        });
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

pub(crate) fn sched_error(error: SchedError, raw: &Path, fresh: bool) -> anyhow::Error {
    let kept = raw_kept(raw, fresh);
    let held = kept.is_ok();
    let kept = kept.unwrap_or_else(|why| why);
    match error {
        SchedError::RunFailed { .. }
        | SchedError::WarmupFailed { .. }
        | SchedError::HookFailed { .. }
        | SchedError::TimedOut { .. }
        | SchedError::Metric { .. }
        | SchedError::Spawn { .. } => anyhow::Error::new(Exit::CommandFailed(format!(
            "{error}\n{kept} (use --ignore-failure to record failures and go on)"
        ))),
        SchedError::Interrupted { signal } if held => anyhow::Error::new(Exit::Interrupted {
            signal,
            message: format!(
                "interrupted by signal {signal}; {kept}; continue with: abba compare --resume {}",
                quoted(raw)
            ),
        }),
        SchedError::Interrupted { signal } => anyhow::Error::new(Exit::Interrupted {
            signal,
            message: format!("interrupted by signal {signal}; {kept}"),
        }),
        SchedError::Config(_)
        | SchedError::CommandSyntax { .. }
        | SchedError::ShellSyntaxWithoutShell { .. }
        | SchedError::ProgramNotFound { .. }
        | SchedError::Output { .. }
        | SchedError::ResumeMismatch { .. }
        | SchedError::ResumeInput(_)
        | SchedError::Signals(_) => usage(format!("{error}\n{kept}")),
        _ => usage(format!("{error}\n{kept}")),
    }
}

/// What a failed or interrupted experiment leaves: `Ok` naming the raw file that holds its
/// runs; `Err` saying why there is none: the file vanished while abba ran (deleted, or its
/// directory removed), or no run was measured (a new file holding only its header and
/// end line is removed rather than described as kept data; a `--resume`d one, `fresh`
/// false, is left as it was).
fn raw_kept(raw: &Path, fresh: bool) -> Result<String, String> {
    if std::fs::metadata(raw).is_err() {
        return Err(format!(
            "the raw file {} no longer exists (deleted, or its directory removed, while abba ran): the runs are lost",
            raw.display()
        ));
    }
    if fresh && bench_sched::read_raw(raw).is_ok_and(|d| d.runs.is_empty()) {
        let _ = std::fs::remove_file(raw);
        return Err(format!(
            "no run was measured, so no raw file is kept ({} removed)",
            raw.display()
        ));
    }
    Ok(format!("raw data so far kept in {}", raw.display()))
}

/// A path as a shell reads it back (quoted when it holds spaces, `;`, quotes, ...), for
/// the commands abba suggests.
fn quoted(path: &Path) -> String {
    shell_words::quote(&path.to_string_lossy()).into_owned()
}

/// An error after the runs (analysis, report, export) with the raw file named, its exit
/// code unchanged.
pub(crate) fn naming_raw_file(error: anyhow::Error, raw: &Path) -> anyhow::Error {
    let note = match raw_kept(raw, false) {
        Ok(_) => format!(
            "{error:#}\nthe raw runs are kept in {} (abba analyze {} reports them again)",
            raw.display(),
            quoted(raw)
        ),
        Err(why) => format!("{error:#}\n{why}"),
    };
    match error.downcast_ref::<Exit>() {
        Some(Exit::CommandFailed(_)) => anyhow::Error::new(Exit::CommandFailed(note)),
        Some(Exit::Interrupted { signal, .. }) => anyhow::Error::new(Exit::Interrupted {
            signal: *signal,
            message: note,
        }),
        _ => usage(note),
    }
}

/// Where the raw runs go when `--output` is not given: a new file in `$TMPDIR`, else in
/// `/tmp`, so a failed or interrupted experiment still leaves its data somewhere (named on
/// failure, removed once the report is out). Created only after every pre-flight check.
fn temporary_raw(seed: u64, quiet: bool) -> anyhow::Result<(RawWriter, PathBuf)> {
    let tmpdir = std::env::var_os("TMPDIR").filter(|v| !v.is_empty());
    let mut dirs: Vec<PathBuf> = tmpdir.iter().map(PathBuf::from).collect();
    dirs.push(PathBuf::from("/tmp"));
    let mut tried = Vec::new();
    for dir in &dirs {
        let path = dir.join(format!("abba-{}-{seed}.jsonl", std::process::id()));
        match RawWriter::create_new(&path) {
            Ok(writer) => {
                if !quiet && tmpdir.is_some() && Some(dir.as_os_str()) != tmpdir.as_deref() {
                    stderr_line(format_args!(
                        "abba: note: TMPDIR ({}) cannot take a file; the raw runs go to {}",
                        dirs[0].display(),
                        path.display()
                    ));
                }
                return Ok((writer, path));
            }
            Err(e) => tried.push(e.to_string()),
        }
    }
    Err(usage(format!(
        "no temporary directory can take the raw runs ({}); pass --output FILE.jsonl to choose where they go",
        tried.join("; ")
    )))
}

/// Where a command's raw runs go when it does not resume: the `--output` file (an
/// existing one only with `force`), else a temporary file; and how its messages name the
/// command that resumes it (`abba compare --resume`, `abba suite FILE --resume`).
#[derive(Debug)]
pub(crate) struct RawOutput<'a> {
    /// `--output`, if given.
    pub path: Option<&'a Path>,
    /// `--force`.
    pub force: bool,
    /// `--quiet`.
    pub quiet: bool,
    /// The command a hint tells the user to continue a file with, before its path.
    pub resume_command: String,
}

/// The raw file the runs stream to, created and locked now that every check has passed:
/// the `--resume` file (cut after its last complete block), a new `--output` file (an
/// existing one only with `--force`), or a temporary file. Returns the writer, its path,
/// and whether it is temporary.
pub(crate) fn open_raw(
    out: &RawOutput<'_>,
    config: &ExperimentConfig,
) -> anyhow::Result<(RawWriter, PathBuf, bool)> {
    if let Some(point) = &config.resume {
        let writer = point
            .open_writer(config)
            .map_err(|e| usage(e.to_string()))?;
        if !out.quiet {
            resume_note(point);
        }
        return Ok((writer, point.path().to_owned(), false));
    }
    let Some(path) = out.path else {
        let (writer, path) = temporary_raw(config.seed, out.quiet)?;
        return Ok((writer, path, true));
    };
    check_output(out, config)?;
    let created = if out.force {
        RawWriter::create(path)
    } else {
        RawWriter::create_new(path)
    };
    match created {
        Ok(writer) => Ok((writer, path.to_owned(), false)),
        Err(SchedError::Output { source, .. })
            if source.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            Err(usage(existing_output(path, config, &out.resume_command)))
        }
        Err(e) => Err(usage(format!("--output: {e}"))),
    }
}

/// What a resume keeps aside: the unfinished block's runs (kept in the stopped session's
/// end line, measured again) and a cut-off last line (dropped).
fn resume_note(point: &ResumePoint) {
    let superseded = point.superseded_runs();
    if let Some(first) = superseded.first() {
        stderr_line(format_args!(
            "abba: note: --resume: block {} was unfinished; its {} run(s) are kept in the file (the stopped session's end line, `superseded`, not analysed) and the block runs again from its start",
            first.block + 1,
            superseded.len()
        ));
    }
    for w in point.read_warnings() {
        stderr_line(format_args!("abba: note: --resume: {w}"));
    }
}

/// Refuses an `--output` that cannot hold the raw runs, without opening it: a directory,
/// a device or a pipe (the runs must be appended, locked and resumed, and opening a pipe
/// would wait for a reader), or an existing file without `--force`.
fn check_output(out: &RawOutput<'_>, config: &ExperimentConfig) -> anyhow::Result<()> {
    let Some(path) = out.path else {
        return Ok(());
    };
    if config.resume.is_some() {
        return Ok(());
    }
    let shown = path.display();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(usage(format!(
            "--output {shown}: is a directory; give the raw file's path, e.g. {}",
            path.join("runs.jsonl").display()
        ))),
        Ok(m) if !m.is_file() => Err(usage(format!(
            "--output {shown}: not a regular file (a device or a pipe); the raw runs need a file they can be appended to, locked and resumed"
        ))),
        Ok(_) if !out.force => Err(usage(existing_output(path, config, &out.resume_command))),
        _ => Ok(()),
    }
}

/// Why an existing `--output` file is refused, and what to do instead.
fn existing_output(path: &Path, config: &ExperimentConfig, resume_command: &str) -> String {
    let shown = path.display();
    if RawWriter::in_use(path) {
        return format!(
            "--output {shown}: another abba is writing this file now (it holds the file's lock); wait for it to end, or choose another file"
        );
    }
    let same_experiment = bench_sched::read_raw(path).ok().map(|raw| {
        let commands: Vec<&str> = config.variants.iter().map(|v| v.command.text()).collect();
        let recorded: Vec<&str> = raw
            .header
            .variants
            .iter()
            .map(|v| v.command.as_str())
            .collect();
        (commands == recorded, raw.runs.len())
    });
    match same_experiment {
        Some((true, runs)) => format!(
            "--output {shown}: the file exists and holds {runs} runs of these commands; continue them with `{resume_command} {}`, or pass --force to overwrite it",
            quoted(path)
        ),
        Some((false, runs)) => format!(
            "--output {shown}: the file exists and holds {runs} runs of another experiment; choose another file, or pass --force to overwrite it"
        ),
        None => format!(
            "--output {shown}: the file exists; choose another file, or pass --force to overwrite it"
        ),
    }
}

/// `abba compare`: build the experiment from the arguments, check everything that can be
/// checked, create the raw file, run, analyze, report.
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let resume = args
        .resume
        .as_deref()
        .map(ResumePoint::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    if let (Some(point), Some(output)) = (&resume, &args.output) {
        if !same_file(point.path(), output) {
            return Err(usage(format!(
                "--output {} with --resume {}: a resumed experiment appends to its own file; leave out --output",
                output.display(),
                point.path().display()
            )));
        }
    }
    let args = match &resume {
        Some(point) => from_header(args, point.header())?,
        None => args,
    };
    check_kept_files(&args, resume.as_ref())?;
    let Plan {
        mut config,
        names,
        analysis,
    } = experiment_config(&args, resume)?;
    crate::hooks::warn_shell_expansions(&config);
    crate::checks::warn_rate_unit(args.unit.as_deref(), args.higher_is_better);
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    let mut args = args;
    crate::hooks::size(&mut args, &mut config, &stop)?;
    check_run_count(&config)?;
    config
        .preflight(&mut RealRunner::new())
        .map_err(|e| usage(e.to_string()))?;
    if let Some(point) = &config.resume {
        if let (Some(at), false) = (point.decided_at(), point.extends(&config)) {
            return Err(usage(format!(
                "--resume {}: nothing to resume, the sequential rule decided after {at} blocks; report it with `abba analyze {}`, or raise --max-blocks to extend it (a further look)",
                point.path().display(),
                quoted(point.path())
            )));
        }
        if point.completed_runs() >= config.schedule().runs.len() {
            return Err(usage(format!(
                "--resume {}: nothing to resume, every planned run is in the file; report it with `abba analyze {}`, or give more --blocks to extend it (its verdict then comes from the confidence sequence)",
                point.path().display(),
                quoted(point.path())
            )));
        }
    }
    let out = RawOutput {
        path: args.output.as_deref(),
        force: args.force,
        quiet: args.analysis.quiet,
        resume_command: "abba compare --resume".to_owned(),
    };
    if args.dry_run {
        // After every check the real run makes, before any file is created.
        check_output(&out, &config)?;
        return dry_run(&config, &names);
    }
    let (writer, raw_path, temporary) = open_raw(&out, &config)?;
    let outcome = execute(&config, &stop, writer, &raw_path, args.analysis.quiet)?;
    crate::exit::exit_on_signal_from_now(
        &stop,
        format!(
            "the raw runs are complete in {} (abba analyze {} reports them)",
            raw_path.display(),
            quoted(&raw_path)
        ),
    );
    let code = report(&args, &outcome, &names, &analysis, &raw_path)
        .map_err(|e| naming_raw_file(e, &raw_path))?;
    crate::history::record_after(
        &args.record,
        "compare",
        &raw_path,
        &analysis,
        Default::default(),
        args.analysis.quiet,
    )
    .map_err(|e| naming_raw_file(e, &raw_path))?;
    if temporary {
        // The temporary raw file only guards against a failed or interrupted run; once the
        // report exists it goes (keep runs with --output).
        let _ = std::fs::remove_file(&raw_path);
    } else if !args.analysis.quiet && !args.analysis.json {
        match raw_kept(&raw_path, false) {
            Ok(_) => stderr_line(format_args!("raw runs: {}", raw_path.display())),
            Err(why) => stderr_line(format_args!("abba: warning: {why}")),
        }
    }
    Ok(code)
}

/// Refuses an experiment whose schedule would exceed [`crate::cli::MAX_SCHEDULED_RUNS`]
/// (each count flag is bounded, their product too), before the schedule is built.
fn check_run_count(config: &ExperimentConfig) -> anyhow::Result<()> {
    let one = ExperimentConfig {
        blocks: 1,
        resume: None,
        ..config.clone()
    };
    let per_block = one.schedule().runs.len() as u64;
    let total = per_block.saturating_mul(u64::from(config.blocks));
    if total > crate::cli::MAX_SCHEDULED_RUNS {
        return Err(usage(format!(
            "{} blocks of {per_block} runs are {total} runs, more than the {} one experiment may schedule; give fewer --blocks (or --runs), or split the experiment and merge the files with abba analyze",
            config.blocks,
            crate::cli::MAX_SCHEDULED_RUNS
        )));
    }
    Ok(())
}

/// Whether two paths name the same file (device and inode, or the place it will have).
fn same_file(a: &Path, b: &Path) -> bool {
    crate::paths::same_file(a, b)
}

/// The raw file `--confirm` writes beside the experiment's (`None` for a temporary one).
fn confirm_path(args: &CompareArgs, resume: Option<&ResumePoint>) -> Option<PathBuf> {
    let raw = resume.map(ResumePoint::path).or(args.output.as_deref())?;
    Some(raw.with_extension("confirm.jsonl"))
}

/// Before anything runs: no export may replace the raw file, the resumed file or the
/// `--confirm` file, nor another export; an existing `--confirm` file is refused now,
/// not after the experiment.
fn check_kept_files(args: &CompareArgs, resume: Option<&ResumePoint>) -> anyhow::Result<()> {
    let confirm = args.confirm.then(|| confirm_path(args, resume)).flatten();
    let mut kept = Vec::new();
    if let Some(path) = &args.output {
        kept.push(crate::paths::Kept {
            role: "--output",
            path,
        });
    }
    if let Some(point) = resume {
        kept.push(crate::paths::Kept {
            role: "--resume",
            path: point.path(),
        });
    }
    if let Some(path) = &confirm {
        kept.push(crate::paths::Kept {
            role: "the --confirm raw file",
            path,
        });
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(usage(format!(
                "--confirm: its raw file {} exists (remove it or choose another --output)",
                path.display()
            )));
        }
    }
    crate::paths::check_export_targets(&args.analysis, &kept)
}

/// After the runs: analyze, print the report, write the exports, apply the gate.
fn report(
    args: &CompareArgs,
    outcome: &Experiment,
    names: &[String],
    analysis: &AnalysisConfig,
    raw_path: &Path,
) -> anyhow::Result<u8> {
    check_some_run_succeeded(outcome, names, raw_path)?;
    let input = Input::from_experiment(outcome.clone());
    if input.is_empty() {
        return Err(anyhow::Error::new(Exit::CommandFailed(
            crate::checks::nothing_to_analyze(&input),
        )));
    }
    let mut result = analyze_input(&input, analysis).map_err(|e| usage(e.to_string()))?;
    if cfg!(debug_assertions) && !args.kernel.is_empty() {
        result.warnings.push(debug_build_warning());
    }
    if args.confirm {
        result.confirmation = confirm_standout(args, outcome, &result, analysis, raw_path)?;
    }
    let csv = crate::hooks::csv_exports(&args.analysis.csv, &input, &result);
    emit(result, &args.analysis, csv, &input)
}

/// `--confirm`: reruns the standout candidate against the baseline as a new experiment
/// (same commands, blocks and settings, a fresh seed, its own raw file) and analyzes it.
/// `None` when there are fewer than three variants or nothing stands out (said on stderr).
fn confirm_standout(
    args: &CompareArgs,
    outcome: &Experiment,
    result: &bench_stats::Analysis,
    analysis: &AnalysisConfig,
    raw_path: &Path,
) -> anyhow::Result<Option<Box<bench_stats::Analysis>>> {
    let group = &result.groups[0];
    let Some(standout) = group.standout() else {
        if !args.analysis.quiet {
            stderr_line(format_args!(
                "abba: --confirm: no candidate stands out (it needs 3+ variants and a significant difference); nothing to confirm"
            ));
        }
        return Ok(None);
    };
    let pick = |name: &str| outcome.header.variants.iter().position(|v| v.name == name);
    let (Some(b), Some(c)) = (pick(&group.baseline), pick(&standout.candidate)) else {
        return Ok(None);
    };
    let mut config = experiment_config(args, None)?.config;
    config.variants = vec![config.variants[b].clone(), config.variants[c].clone()];
    config.seed = fresh_seed();
    config.resume = None;
    let path = raw_path.with_extension("confirm.jsonl");
    let writer = RawWriter::create_new(&path).map_err(|e| {
        usage(format!(
            "--confirm: {e} (remove it or choose another --output)"
        ))
    })?;
    if !args.analysis.quiet {
        stderr_line(format_args!(
            "abba: confirming {} against {} with a fresh seed ({}); raw runs in {}",
            standout.candidate,
            group.baseline,
            config.seed,
            path.display()
        ));
    }
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    crate::exit::hold_signals(true);
    let again = execute(&config, &stop, writer, &path, args.analysis.quiet);
    crate::exit::hold_signals(false);
    let again = again?;
    let names = [group.baseline.clone(), standout.candidate.clone()];
    check_some_run_succeeded(&again, &names, &path)?;
    let confirm_config = AnalysisConfig {
        seed: config.seed,
        baseline: Some(group.baseline.clone()),
        ..analysis.clone()
    };
    let confirmation = analyze_input(&Input::from_experiment(again), &confirm_config)
        .map_err(|e| usage(e.to_string()))?;
    Ok(Some(Box::new(confirmation)))
}

/// `--resume FILE`: every setting the header records and the arguments leave out comes
/// from the header, so `abba compare --resume FILE` alone continues the experiment. What
/// the arguments do give must match the header ([`ResumePoint::check`] says which differs).
fn from_header(mut args: CompareArgs, h: &RawHeader) -> anyhow::Result<CompareArgs> {
    check_recorded(&args, h)?;
    if args.commands.is_empty() && args.kernel.is_empty() {
        args.commands = h.variants.iter().map(|v| v.command.clone()).collect();
    }
    if args.name.is_empty() {
        args.name = h.variants.iter().map(|v| v.name.clone()).collect();
    }
    if let Some(rule) = &h.stop_rule {
        if args.until.is_none() && args.blocks.is_none() {
            args.until = Some("decided".into());
        }
        if args.until.is_some() {
            args.max_blocks = args.max_blocks.or(Some(rule.max_blocks));
            args.min_blocks = args.min_blocks.or(Some(rule.min_blocks));
        }
    }
    args.blocks = args.blocks.or(Some(h.blocks));
    args.design = args.design.or_else(|| Some(h.design.to_string()));
    args.warmup = args.warmup.or(Some(h.warmup));
    args.settle = args.settle.or(Some(Duration::from_nanos(h.settle_ns)));
    if args.layout.is_none() {
        args.layout = match h.layout {
            Layout::Random => Some(LayoutArg::Random),
            Layout::Fixed(0) => Some(LayoutArg::Fixed),
            other @ (Layout::Fixed(_) | _) => {
                return Err(usage(format!(
                    "--resume: the file's layout {:?} cannot be given on the command line; resume it through the library",
                    other.to_string()
                )));
            }
        };
    }
    args.seed = args.seed.or(Some(h.seed));
    if args.timeout.is_none() {
        args.timeout = h.timeout_ns.map(Duration::from_nanos);
    }
    if args.shell.is_none() {
        args.shell = match h.shell {
            Some(Shell::Sh) => Some(ShellArg::Sh),
            Some(Shell::None | _) => Some(ShellArg::None),
            None => None,
        };
    }
    args.metric = args.metric.or_else(|| Some(h.metric.to_string()));
    args.higher_is_better |= h.higher_is_better;
    args.unit = args.unit.or_else(|| Some(h.unit.clone()));
    args.reference = args.reference.or_else(|| h.reference.clone());
    args.pin = args.pin.or_else(|| h.pin.clone());
    crate::hooks::from_header(&mut args.hooks, h);
    Ok(args)
}

/// `--resume`: the recorded settings the experiment loop does not check itself (the
/// direction, unit, experiment id and host), given on the command line, must match the
/// header; each differing one is refused by name with both values.
fn check_recorded(args: &CompareArgs, h: &RawHeader) -> anyhow::Result<()> {
    let differs = |flag: &str, file: &str, now: &str| {
        usage(format!(
            "--resume: {flag} differs: the file has {file}, this run has {now} (resume with the file's setting, or start a new file)"
        ))
    };
    if args.higher_is_better && !h.higher_is_better {
        return Err(differs(
            "--higher-is-better",
            "lower is better",
            "--higher-is-better",
        ));
    }
    if let Some(unit) = args.unit.as_deref().filter(|u| *u != h.unit) {
        return Err(differs("--unit", &h.unit, unit));
    }
    let id = h.experiment_id();
    if let Some(given) = args.experiment.as_deref().filter(|e| *e != id) {
        return Err(differs("--experiment", &id, given));
    }
    if let (Some(given), Some(file)) = (args.host.as_deref(), h.host_name()) {
        if given != file {
            return Err(differs("--host", file, given));
        }
    }
    Ok(())
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
fn experiment_config(args: &CompareArgs, resume: Option<ResumePoint>) -> anyhow::Result<Plan> {
    // A parameter scan (-P/-L) expands the commands and names first (`scan.rs`).
    let scan = crate::scan::expand(args)?;
    let args = scan.as_ref().map_or(args, |s| &s.args);
    let Variants {
        texts,
        commands,
        metric,
        higher_is_better,
        unit,
    } = variants(args)?;
    if commands.is_empty() {
        return Err(usage(
            "compare needs a command (one is measured alone, two or more are compared), e.g. `abba compare './old --x' './new --x'` or `--kernel chains=1 --kernel chains=2`",
        ));
    }
    if commands.len() == 1 {
        // Measured alone: nothing to decide, pair or confirm.
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
    }
    let until = until_rule(args, &metric)?;
    let blocks = until
        .as_ref()
        .map_or(args.blocks.unwrap_or(20), |u| u.rule.max_blocks);
    if blocks == 0 {
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
        .as_deref()
        .unwrap_or("abba")
        .parse()
        .map_err(|e| usage(format!("--design: {e}")))?;
    let pin = pin(args.pin.as_deref())?;
    let reference = args
        .reference
        .as_deref()
        .map(|r| {
            CommandSpec::parse(r, shell(args.shell))
                .map_err(|e| usage(format!("--reference: {}", sched_error_text(&e))))
        })
        .transpose()?;
    // A resumed experiment keeps its seed (`from_header` filled it in).
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let analysis = analysis_config_for(&args.analysis, seed, Some(&metric))?;
    let hook_args = args.hooks.clone();
    let counter = crate::counting::choose(
        &metric,
        args.counter.as_deref(),
        resume.as_ref().and_then(|r| r.header().counter),
        args.analysis.quiet,
    )?;
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
        warmup: args.warmup.unwrap_or(1),
        settle: args.settle.unwrap_or_default(),
        layout: match args.layout.unwrap_or(LayoutArg::Random) {
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
        hooks: crate::hooks::hooks(&args.hooks, names.len(), shell(args.shell))?,
        warmup_per_block: args.hooks.warmup_per_block.unwrap_or(0),
        cycles: 1,
        identity: Identity {
            experiment: args.experiment.clone(),
            host: args.host.clone(),
        },
        parameter: scan.and_then(|s| s.parameter),
        until,
        suite: None,
        counter,
    };
    config.cycles = cycles(&hook_args, &config)?;
    Ok(Plan {
        config,
        names,
        analysis,
    })
}

/// The cycles of the design's order per block: `--runs-per-block N` over the design's
/// own runs per variant per block, else the resumed file's, else 1.
fn cycles(args: &crate::cli::HookArgs, config: &ExperimentConfig) -> anyhow::Result<u32> {
    let Some(n) = args.runs_per_block else {
        return Ok(args.resumed_cycles.unwrap_or(1).max(1));
    };
    let one = ExperimentConfig {
        cycles: 1,
        ..config.clone()
    };
    let base = one.runs_per_variant_per_block();
    if config.design == Design::Sequential {
        return Err(usage(
            "--runs-per-block needs a blocked design (the sequential design runs each variant in one session); use --runs for more runs",
        ));
    }
    if n == 0 || n % base != 0 {
        return Err(usage(format!(
            "--runs-per-block {n}: must be a positive multiple of {base}, the runs of each variant in one cycle of the {} design with {} variants",
            config.design.name(),
            config.variants.len()
        )));
    }
    Ok(n / base)
}

/// `--until decided`: the sequential rule at the analysis's alpha and margin, with
/// `--min-blocks` / `--max-blocks`; `None` without `--until`.
fn until_rule(args: &CompareArgs, metric: &Metric) -> anyhow::Result<Option<Until>> {
    if args.until.is_none() {
        return Ok(None);
    }
    let analysis = analysis_config_for(&args.analysis, 1, Some(metric))?;
    let mut rule = SequentialRule::new(analysis.alpha, analysis.equivalence_margin);
    rule.max_blocks = args.max_blocks.unwrap_or(200);
    if let Some(min) = args.min_blocks {
        rule.min_blocks = min;
    }
    if rule.max_blocks == 0 {
        return Err(usage("--max-blocks must be at least 1"));
    }
    if rule.min_blocks > rule.max_blocks {
        return Err(usage(format!(
            "--min-blocks {} is above --max-blocks {}",
            rule.min_blocks, rule.max_blocks
        )));
    }
    let needed = SequentialRule::needed_blocks(analysis.alpha);
    if rule.max_blocks < needed && !args.analysis.quiet {
        stderr_line(format_args!(
            "abba: note: --max-blocks {}: the sequence cannot decide before {needed} blocks at alpha {}; it will stop INCONCLUSIVE",
            rule.max_blocks, analysis.alpha
        ));
    }
    Ok(Some(Until {
        rule,
        baseline: args.analysis.baseline.clone(),
    }))
}

fn shell(arg: Option<ShellArg>) -> Shell {
    match arg.unwrap_or(ShellArg::None) {
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
            .as_deref()
            .unwrap_or("wall")
            .parse()
            .map_err(|e| usage(format!("--metric: {e}")))?;
        let commands = args
            .commands
            .iter()
            .map(|c| {
                CommandSpec::parse(c, shell(args.shell)).map_err(|e| usage(sched_error_text(&e)))
            })
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

/// Runs the experiment with progress on stderr, streaming the raw runs to `writer` (the
/// file at `raw_path`, locked until the experiment ends).
pub(crate) fn execute(
    config: &ExperimentConfig,
    stop: &InterruptFlag,
    mut writer: RawWriter,
    raw_path: &Path,
    quiet: bool,
) -> anyhow::Result<Experiment> {
    let schedule = config.schedule();
    let names: Vec<String> = config.variants.iter().map(|v| v.name.clone()).collect();
    let mut progress = Progress::new(schedule.runs.len() as u64, config.blocks, quiet, &names);
    let mut runner = RealRunner::new();
    if let Some(source) = config.counter {
        runner = runner.with_counter(crate::counting::counting(source, &config.metric)?);
    }
    let outcome = run_experiment(config, stop, &mut runner, &mut writer, &mut progress);
    progress.finish();
    outcome.map_err(|e| sched_error(e, raw_path, config.resume.is_none()))
}

/// Refuses to analyze when every run of some variant failed (with `--ignore-failure`).
fn check_some_run_succeeded(
    outcome: &Experiment,
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
    let width = crate::output::terminal_width();
    let intro = format!(
        "abba demo: one dependency chain of integer multiply-adds (chains=1) against two independent chains (chains=2),\n{} ABBA blocks of {} s runs, each run a child process with a random environment size. Higher is better.",
        demo.demo_blocks, demo.demo_duration
    );
    stderr_line(format_args!("{intro}\n"));
    let duration = format!("duration={}", demo.demo_duration);
    let args = CompareArgs {
        commands: Vec::new(),
        kernel: vec![
            format!("chains=1,{duration}"),
            format!("chains=2,{duration}"),
        ],
        name: vec!["chains=1".into(), "chains=2".into()],
        blocks: Some(demo.demo_blocks),
        design: None,
        warmup: None,
        settle: None,
        layout: None,
        seed: Some(1),
        output: None,
        force: false,
        experiment: None,
        host: None,
        confirm: false,
        timeout: Some(Duration::from_secs(60)),
        shell: None,
        no_shell: false,
        metric: None,
        counter: None,
        higher_is_better: true,
        unit: None,
        reference: None,
        pin: None,
        show_output: false,
        ignore_failure: false,
        resume: None,
        until: None,
        max_blocks: None,
        min_blocks: None,
        dry_run: false,
        hooks: HookArgs::default(),
        scan: ScanArgs::default(),
        record: Default::default(),
        analysis: AnalysisArgs {
            baseline: None,
            alpha: 0.05,
            confidence: None,
            resamples: 2000,
            min_practical_effect: 0.147,
            equivalence_margin: None,
            practical: PracticalRule::Auto,
            estimator: None,
            cross_class: false,
            json: false,
            export_json: None,
            export_markdown: None,
            export_html: demo.export_html.clone(),
            export_svg: demo.export_svg.clone(),
            fail_if_slower: None,
            no_step_summary: false,
            quiet: false,
            csv: CsvExportArgs::default(),
            // Compact, as compare's; --verbose for the per-block tables and the rest.
            verbose: demo.verbose,
            time_unit: None,
            style: StyleArg::Auto,
        },
        hyperfine_only: HyperfineOnlyArgs::default(),
    };
    let code = run(args)?;
    let next = bench_report::wrap(
        "Compare your own commands: abba compare 'old/bin --flag' 'new/bin --flag'   (abba compare -h)",
        width,
        "",
        "  ",
    );
    write_stdout(&format!("\n{next}\n"))?;
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
