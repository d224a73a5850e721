//! `abba compare`: arguments into an experiment config (`config.rs`), run,
//! analyze, report; `--confirm` reruns the standout ([`Confirmation`]).

mod config;
pub mod demo;
mod hooks;
pub mod hyperfine;

use std::path::{Path, PathBuf};

use bench_sched::{
    ConfirmError, Confirmation, Experiment, ExperimentConfig, Input, InterruptFlag, RawWriter,
    RealRunner, ResumePoint, analyze_input,
};
use bench_stats::{AnalysisConfig, Warning, WarningCode};

use config::{Plan, experiment_config};

use crate::args::CompareArgs;
use crate::core::analysis::fresh_seed;
use crate::core::exit::{Exit, usage};
use crate::core::output::{emit, write_stdout};
use crate::core::raw_output::{
    RawOutput, check_output, naming_raw_file, open_raw, quoted, raw_kept, sched_error,
};
use crate::core::run::{check_run_count, execute, run_beside};
use crate::core::stdio::stderr_line;

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
        if let Some(no) = point.suite_refusal() {
            return Err(usage(format!("--resume {}: {no}", point.path().display())));
        }
    }
    if let (Some(point), Some(output)) = (&resume, &args.output) {
        if !crate::core::paths::same_file(point.path(), output) {
            return Err(usage(format!(
                "--output {} with --resume {}: a resumed experiment appends to its own file; leave out --output",
                output.display(),
                point.path().display()
            )));
        }
    }
    let builder = config::builder(&args, resume)?;
    // --record's commit and history are settled now, not after the experiment.
    let recording = crate::core::record::prepare(&args.record, "compare")?;
    check_kept_files(&args, builder.resume(), recording.as_ref())?;
    let Plan {
        mut config,
        names,
        analysis,
    } = experiment_config(&args, builder)?;
    hooks::warn_shell_expansions(&config);
    crate::core::checks::warn_rate_unit(args.unit.as_deref(), args.higher_is_better);
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    hooks::size(&args, &mut config, &stop)?;
    check_run_count(&config, "--blocks (or --runs)")?;
    config
        .preflight(&mut RealRunner::new())
        .map_err(|e| usage(e.to_string()))?;
    if let Some(point) = &config.resume {
        if let Some(no) = point.nothing_to_resume(&config) {
            return Err(usage(format!("--resume {}: {no}", point.path().display())));
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
    crate::core::exit::exit_on_signal_from_now(
        &stop,
        format!(
            "the raw runs are complete in {} (abba analyze {} reports them)",
            raw_path.display(),
            quoted(&raw_path)
        ),
    );
    let code = report(
        &args,
        &config,
        outcome,
        &analysis,
        &raw_path,
        recording.as_ref(),
    )
    .map_err(|e| naming_raw_file(e, &raw_path))?;
    if temporary {
        // The temporary raw file only guards against a failed or interrupted run; once the
        // report exists it goes (keep runs with --output).
        let _ = std::fs::remove_file(&raw_path);
        let _ = std::fs::remove_file(bench_sched::native_path(&raw_path));
    } else if !args.analysis.quiet && !args.analysis.json {
        match raw_kept(&raw_path, false) {
            Ok(_) => stderr_line(format_args!("raw runs: {}", raw_path.display())),
            Err(why) => stderr_line(format_args!("abba: warning: {why}")),
        }
    }
    Ok(code)
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
    recording: Option<&crate::core::record::Recording>,
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
        kept.push(crate::core::paths::Kept {
            role: "--output",
            path,
        });
    }
    if let Some(point) = resume {
        kept.push(crate::core::paths::Kept {
            role: "--resume",
            path: point.path(),
        });
    }
    if let Some(path) = &confirm {
        kept.push(crate::core::paths::Kept {
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
    crate::core::paths::check_export_targets(&args.analysis, &kept)
}

/// After the runs: analyze, print the report, write the exports, apply the gate; then
/// `--record` keeps the experiment with this same analysis (nothing is read again).
fn report(
    args: &CompareArgs,
    config: &ExperimentConfig,
    outcome: Experiment,
    analysis: &AnalysisConfig,
    raw_path: &Path,
    recording: Option<&crate::core::record::Recording>,
) -> anyhow::Result<u8> {
    outcome
        .check_some_run_succeeded()
        .map_err(|e| all_failed(&e, raw_path))?;
    let mut input = Input::from_experiment(outcome);
    if input.is_empty() {
        return Err(anyhow::Error::new(Exit::CommandFailed(
            input.nothing_to_analyze().to_string(),
        )));
    }
    let mut result = analyze_input(&input, analysis).map_err(|e| usage(e.to_string()))?;
    if cfg!(debug_assertions) && !args.kernel.is_empty() {
        result.warnings.push(debug_build_warning());
    }
    crate::core::run::time_natively(
        config,
        analysis,
        &mut result,
        raw_path,
        args.native_blocks.unwrap_or(bench_sched::NATIVE_BLOCKS),
        args.analysis.quiet || args.analysis.json,
    )?;
    if args.confirm {
        result.confirmation = confirm_standout(args, config, &result, analysis, raw_path)?;
    }
    let csv = crate::core::exports::csv_exports(&args.analysis.csv, &input, &result);
    let recorded = recording.map(|_| result.clone());
    // The CPU-time series is kept beside wall time's (`history show --metric cpu`).
    let cpu = recording
        .and(input.experiment.as_ref())
        .and_then(|e| bench_history::cpu_twin(e, analysis));
    let code = emit(result, &args.analysis, csv, &input)?;
    if let (Some(result), Some(experiment)) = (&recorded, input.experiment.as_mut()) {
        let mut analysed = vec![bench_history::Analysed::experiment(
            &input.loaded.dataset,
            result,
        )];
        analysed.extend(
            cpu.as_ref()
                .map(bench_history::AnalysedBenchmark::as_analysed),
        );
        crate::core::record::record_after(
            recording,
            experiment,
            raw_path,
            &analysed,
            args.analysis.quiet,
        )?;
    }
    Ok(code)
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
    let settings = rerun.analysis_config(analysis);
    let confirmed = run_beside(&rerun.config, quiet, &mut writer, |b| {
        b.run(&rerun.config, &settings)
    })?;
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
    let width = crate::core::stdio::terminal_width();
    let lines: String = schedule
        .render(&refs)
        .lines()
        .map(|line| bench_report::wrap_schedule_line(line, width) + "\n")
        .collect();
    write_stdout(&format!(
        "{lines}seed {}; {} measured runs\n",
        config.seed,
        schedule.runs.len()
    ))?;
    Ok(0)
}
