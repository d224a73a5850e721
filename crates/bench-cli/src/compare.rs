//! `abba compare`: arguments into an experiment config (`experiment_args.rs`), run,
//! analyze, report; `--confirm` reruns the standout ([`Confirmation`]).

use std::path::{Path, PathBuf};

use bench_sched::Metric;
use bench_sched::{
    ConfirmError, Confirmation, Experiment, ExperimentConfig, Input, InterruptFlag, RawWriter,
    RealRunner, ResumePoint, analyze_input, run_experiment,
};
use bench_stats::{AnalysisConfig, Grouping, Warning, WarningCode};

use crate::cli::{AnalysisArgs, CompareArgs};
use crate::exit::{Exit, usage};
use crate::experiment_args::{Plan, experiment_config};
use crate::output::{emit, stderr_line, write_stdout};
use crate::progress::Progress;
use crate::raw_output::{
    RawOutput, check_output, naming_raw_file, open_raw, quoted, raw_kept, sched_error,
};

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

/// The smallest `--alpha` accepted.
pub const MIN_ALPHA: f64 = 1e-6;

/// [`analysis_config`] for data of `metric`, whose default margin depends on it.
pub fn analysis_config_for(
    args: &AnalysisArgs,
    seed: u64,
    metric: Option<&Metric>,
) -> anyhow::Result<AnalysisConfig> {
    // 1 - alpha is the default confidence: below about 1e-15 it rounds to 1 in floating
    // point, and far before that no resampling or exact test resolves the level.
    if args.alpha > 0.0 && args.alpha < MIN_ALPHA {
        return Err(usage(format!(
            "--alpha {:e}: must be at least 1e-6 (one in a million); a smaller level cannot be resolved by the tests or their resamples",
            args.alpha
        )));
    }
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
        progress: crate::progress::AnalysisBar::hook(args.quiet),
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

/// `abba compare`: build the experiment from the arguments, check everything that can be
/// checked, create the raw file, run, analyze, report.
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let resume = args
        .resume
        .as_deref()
        .map(ResumePoint::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    if let Some(point) = &resume {
        refuse_suite_file(point)?;
    }
    if let (Some(point), Some(output)) = (&resume, &args.output) {
        if !same_file(point.path(), output) {
            return Err(usage(format!(
                "--output {} with --resume {}: a resumed experiment appends to its own file; leave out --output",
                output.display(),
                point.path().display()
            )));
        }
    }
    if let Some(point) = &resume {
        crate::experiment_args::check_resumed(&args, point)?;
    }
    // --record's commit and history are settled now, not after the experiment.
    let recording = crate::history::prepare(&args.record, "compare")?;
    check_kept_files(&args, resume.as_ref(), recording.as_ref())?;
    let Plan {
        mut config,
        names,
        analysis,
    } = experiment_config(&args, resume)?;
    crate::hooks::warn_shell_expansions(&config);
    crate::checks::warn_rate_unit(args.unit.as_deref(), args.higher_is_better);
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    crate::hooks::size(&args, &mut config, &stop)?;
    check_run_count(&config, "--blocks (or --runs)")?;
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
    let code = report(&args, &config, outcome, &analysis, &raw_path)
        .map_err(|e| naming_raw_file(e, &raw_path))?;
    crate::history::record_after(
        recording.as_ref(),
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

/// `--resume` of a suite's raw file: `abba suite` continues it, with its suite file (the raw
/// file does not record that file's name).
fn refuse_suite_file(point: &ResumePoint) -> anyhow::Result<()> {
    let suite = &point.header().suite;
    if suite.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = suite.iter().map(|b| b.name.as_str()).collect();
    let file = shell_words::quote(&point.path().display().to_string()).into_owned();
    Err(usage(format!(
        "--resume {}: the file is a suite's raw file (benchmarks {}), which abba compare does not continue; continue it with `abba suite <its suite file> --resume {file}`",
        point.path().display(),
        names.join(", ")
    )))
}

/// Refuses an experiment whose schedule would exceed [`crate::cli::MAX_SCHEDULED_RUNS`]
/// (each count flag is bounded, their product too), before the schedule is built; `fewer`
/// names what to lower (`--blocks (or --runs)`).
pub(crate) fn check_run_count(config: &ExperimentConfig, fewer: &str) -> anyhow::Result<()> {
    let one = ExperimentConfig {
        blocks: 1,
        resume: None,
        ..config.clone()
    };
    let per_block = one.schedule().runs.len() as u64;
    let total = per_block.saturating_mul(u64::from(config.blocks));
    if total > crate::cli::MAX_SCHEDULED_RUNS {
        return Err(usage(format!(
            "{} blocks of {per_block} runs are {total} runs, more than the {} one experiment may schedule; give fewer {fewer}, or split the experiment and merge the files with abba analyze",
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

/// Before anything runs: no export may replace the raw file, the resumed file, the
/// `--confirm` file or the history `--record` writes, nor another export, and the raw
/// file may not replace the history; an existing `--confirm` file is refused now, not
/// after the experiment.
fn check_kept_files(
    args: &CompareArgs,
    resume: Option<&ResumePoint>,
    recording: Option<&crate::history::Recording>,
) -> anyhow::Result<()> {
    let confirm = args.confirm.then(|| confirm_path(args, resume)).flatten();
    let mut kept = Vec::new();
    if let Some(recording) = recording {
        recording.refuse_as_raw(&[
            ("--output", args.output.as_deref()),
            ("--resume", resume.map(ResumePoint::path)),
        ])?;
        kept.push(recording.kept());
    }
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
    config: &ExperimentConfig,
    outcome: Experiment,
    analysis: &AnalysisConfig,
    raw_path: &Path,
) -> anyhow::Result<u8> {
    outcome
        .check_some_run_succeeded()
        .map_err(|e| all_failed(&e, raw_path))?;
    let input = Input::from_experiment(outcome);
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
        result.confirmation = confirm_standout(args, config, &result, analysis, raw_path)?;
    }
    let csv = crate::hooks::csv_exports(&args.analysis.csv, &input, &result);
    emit(result, &args.analysis, csv, &input)
}

/// Every run of a variant failed (with `--ignore-failure`): nothing to analyze.
fn all_failed(e: &bench_sched::AllRunsFailed, raw_path: &Path) -> anyhow::Error {
    anyhow::Error::new(Exit::CommandFailed(format!(
        "{e}; raw data kept in {}",
        raw_path.display()
    )))
}

/// `--confirm`: reruns the standout candidate against the baseline as a new experiment
/// (same commands, blocks and settings, a fresh seed, its own raw file) and analyzes it.
/// `None` when there are fewer than three variants or nothing stands out (said on stderr).
fn confirm_standout(
    args: &CompareArgs,
    config: &ExperimentConfig,
    result: &bench_stats::Analysis,
    analysis: &AnalysisConfig,
    raw_path: &Path,
) -> anyhow::Result<Option<Box<bench_stats::Analysis>>> {
    let quiet = args.analysis.quiet;
    let Some(rerun) = Confirmation::plan(config, result, fresh_seed()) else {
        if !quiet {
            stderr_line(format_args!(
                "abba: --confirm: no candidate stands out (it needs 3+ variants and a significant difference); nothing to confirm"
            ));
        }
        return Ok(None);
    };
    let path = raw_path.with_extension("confirm.jsonl");
    let mut writer = RawWriter::create_new(&path).map_err(|e| {
        usage(format!(
            "--confirm: {e} (remove it or choose another --output)"
        ))
    })?;
    if !quiet {
        stderr_line(format_args!(
            "abba: confirming {} against {} with a fresh seed ({}); raw runs in {}",
            rerun.candidate,
            rerun.baseline,
            rerun.config.seed,
            path.display()
        ));
    }
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    let (mut runner, mut progress) = runner_and_progress(&rerun.config, quiet)?;
    crate::exit::hold_signals(true);
    let confirmed = rerun.run(&stop, &mut runner, &mut writer, &mut progress, analysis);
    progress.finish();
    crate::exit::hold_signals(false);
    drop(writer);
    match confirmed {
        Ok(a) => Ok(Some(Box::new(a))),
        Err(ConfirmError::Run(e)) => Err(sched_error(e, &path, true)),
        Err(ConfirmError::AllRunsFailed(e)) => Err(all_failed(&e, &path)),
        Err(e @ (ConfirmError::Analysis(_) | _)) => Err(usage(e.to_string())),
    }
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

/// `--dry-run`: the schedule, the seed and the number of measured runs on stdout.
fn dry_run(config: &ExperimentConfig, names: &[String]) -> anyhow::Result<u8> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let schedule = config.schedule();
    let width = crate::output::terminal_width();
    let lines: String = schedule
        .render(&refs)
        .lines()
        .map(|line| wrap_schedule_line(line, width) + "\n")
        .collect();
    write_stdout(&format!(
        "{lines}seed {}; {} measured runs\n",
        config.seed,
        schedule.runs.len()
    ))?;
    Ok(0)
}

/// A schedule line (`block 3: a | b | b | a`) wrapped to `width` at run boundaries:
/// continuation lines are indented under the first run, and a line continued after a
/// ` | ` separator ends with `|`. A single run wider than the line is left whole.
fn wrap_schedule_line(line: &str, width: Option<usize>) -> String {
    let Some(width) = width.filter(|&w| line.chars().count() > w) else {
        return line.to_owned();
    };
    let Some(colon) = line.find(": ") else {
        return bench_report::wrap(line, Some(width), "", "    ");
    };
    let (head, rest) = line.split_at(colon + 2);
    let (cells, sep, tail): (Vec<&str>, &str, &str) = if rest.contains(" | ") {
        (rest.split(" | ").collect(), " | ", " |")
    } else {
        (rest.split(' ').collect(), " ", "")
    };
    let indent = " ".repeat(head.chars().count().min(width / 2));
    let mut out = String::new();
    let mut current = head.to_owned();
    let mut empty = true;
    for cell in cells {
        let len = |s: &str| s.chars().count();
        if !empty && len(&current) + len(sep) + len(cell) + len(tail) > width {
            out.push_str(current.trim_end());
            out.push_str(tail);
            out.push('\n');
            current = indent.clone();
            empty = true;
        }
        if !empty {
            current.push_str(sep);
        }
        current.push_str(cell);
        empty = false;
    }
    out.push_str(&current);
    out
}

/// The real runner (counting when the experiment counts) and the progress display of
/// `config`'s schedule.
fn runner_and_progress(
    config: &ExperimentConfig,
    quiet: bool,
) -> anyhow::Result<(RealRunner, Progress)> {
    let names: Vec<String> = config.variants.iter().map(|v| v.name.clone()).collect();
    let runs = config.schedule().runs.len() as u64;
    let progress = Progress::new(runs, config.blocks, quiet, &names);
    let mut runner = RealRunner::new();
    if let Some(source) = config.counter {
        runner = runner.with_counter(crate::counting::counting(source, &config.metric)?);
    }
    Ok((runner, progress))
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
    let (mut runner, mut progress) = runner_and_progress(config, quiet)?;
    let outcome = run_experiment(config, stop, &mut runner, &mut writer, &mut progress);
    progress.finish();
    outcome.map_err(|e| sched_error(e, raw_path, config.resume.is_none()))
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
