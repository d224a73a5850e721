//! Running an experiment with progress on stderr (compare and suite), the bound on the
//! runs one experiment may schedule, and the native runs beside a counted experiment.

use std::path::Path;

use bench_sched::{
    Beside, ConfirmError, Experiment, ExperimentConfig, InterruptFlag, NativeTiming, RawWriter,
    RealRunner, run_experiment,
};
use bench_stats::{Analysis, AnalysisConfig};

use crate::core::exit::usage;
use crate::core::progress::Progress;
use crate::core::raw_output::sched_error;
use crate::core::stdio::stderr_line;

/// Refuses an experiment whose schedule would exceed [`bench_sched::MAX_SCHEDULED_RUNS`]
/// (each count flag is bounded, their product too), before the schedule is built; `fewer`
/// names what to lower (`--blocks (or --runs)`).
pub(crate) fn check_run_count(config: &ExperimentConfig, fewer: &str) -> anyhow::Result<()> {
    let (per_block, total) = config.scheduled_runs();
    if total > bench_sched::MAX_SCHEDULED_RUNS {
        return Err(usage(format!(
            "{} blocks of {per_block} runs are {total} runs, more than the {} one experiment may schedule; give fewer {fewer}, or split the experiment and merge the files with abba analyze",
            config.blocks,
            bench_sched::MAX_SCHEDULED_RUNS
        )));
    }
    Ok(())
}

/// The real runner (counting when the experiment counts) and the progress display of
/// `config`'s schedule.
pub(crate) fn runner_and_progress(
    config: &ExperimentConfig,
    quiet: bool,
) -> anyhow::Result<(RealRunner, Progress)> {
    let names: Vec<String> = config.variants.iter().map(|v| v.name.clone()).collect();
    let runs = config.schedule().runs.len() as u64;
    let progress = Progress::new(runs, config.blocks, quiet, &names);
    let mut runner = RealRunner::new();
    if let Some(source) = config.counter {
        runner = runner.with_counter(crate::core::counting::counting(source, &config.metric)?);
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

/// Runs a second experiment beside the main one (its native runs, a confirmation) through
/// `run`, streaming to `out`, with its own progress and the signals held until it ends.
pub(crate) fn run_beside<T>(
    config: &ExperimentConfig,
    quiet: bool,
    out: &mut RawWriter,
    run: impl FnOnce(Beside<'_>) -> T,
) -> anyhow::Result<T> {
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    let (mut runner, mut progress) = runner_and_progress(config, quiet)?;
    crate::core::exit::hold_signals(true);
    let done = run(Beside {
        stop: &stop,
        runner: &mut runner,
        out,
        observer: &mut progress,
    });
    progress.finish();
    crate::core::exit::hold_signals(false);
    Ok(done)
}

/// Under valgrind: runs `blocks` blocks of the same commands natively into
/// [`bench_sched::native_path`] (replaced if there) and attaches their CPU time's check to
/// `counted` ([`bench_sched::NativeTiming`]); nothing for any other counter, or 0 blocks.
///
/// # Errors
/// As a run: a failed or interrupted native run (exit 3), the native file not writable.
pub fn time_natively(
    config: &ExperimentConfig,
    analysis: &AnalysisConfig,
    counted: &mut Analysis,
    raw: &Path,
    blocks: u32,
    quiet: bool,
) -> anyhow::Result<()> {
    let Some(native) = NativeTiming::plan(config, blocks) else {
        return Ok(());
    };
    let path = bench_sched::native_path(raw);
    let mut writer = RawWriter::create(&path).map_err(|e| usage(e.to_string()))?;
    if !quiet {
        stderr_line(format_args!(
            "abba: timing {} blocks natively (valgrind's times are not the program's; counts are not time); raw runs in {}",
            native.config.blocks,
            path.display()
        ));
    }
    let done = run_beside(&native.config, quiet, &mut writer, |b| {
        b.run(&native.config, analysis)
            .map(|timed| native.attach(counted, &timed))
    })?;
    drop(writer);
    match done {
        Ok(()) => Ok(()),
        Err(ConfirmError::Run(e)) => Err(sched_error(e, &path, true)),
        Err(e) => Err(usage(format!("the native runs ({}): {e}", path.display()))),
    }
}
