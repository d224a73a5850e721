//! `compare`'s options for hyperfine users: `--runs`, `--min-runs`/`--max-runs` and
//! `--time-budget` into a block count, the warning about shell characters passed
//! literally.

use std::time::Duration;

use bench_report::counted;
use bench_sched::{ExperimentConfig, FailureKind, InterruptFlag, RealRunner, SchedError};

use crate::args::CompareArgs;
use crate::core::exit::{Exit, usage};
use crate::core::stdio::stderr_line;

/// Prints one warning when any command (hooks and the reference included) holds
/// characters a shell would expand but that run literally without one.
pub fn warn_shell_expansions(config: &ExperimentConfig) {
    let found = config.shell_expansions();
    if found.is_empty() {
        return;
    }
    let shown: Vec<String> = found.iter().map(|c| format!("`{c}`")).collect();
    stderr_line(format_args!(
        "abba: warning: {} in the commands would be expanded by a shell, but without one (--shell none, the default) they are passed to the program literally; pass --shell sh to expand them",
        shown.join(", ")
    ));
}

/// `--runs N` or `--time-budget DUR`: sets the block count of `config` and says on stderr
/// what was chosen. The budget's pilot block runs now, through the real runner, and is
/// not recorded ([`ExperimentConfig::fit_budget`]).
pub fn size(
    args: &CompareArgs,
    config: &mut ExperimentConfig,
    stop: &InterruptFlag,
) -> anyhow::Result<()> {
    let quiet = args.analysis.quiet;
    let per = config.runs_per_variant_per_block();
    if let Some(runs) = args.hooks.runs {
        config.blocks = config.blocks_for_runs(runs);
        if !quiet {
            stderr_line(format_args!(
                "abba: --runs {runs}: {} of {per} runs per variant = {} runs per variant",
                counted(config.blocks as usize, "block"),
                config.blocks * per
            ));
        }
    } else if let Some(budget) = args.hooks.time_budget {
        if budget.is_zero() {
            return Err(usage(
                "--time-budget must be longer than 0 (e.g. `30s`, `5min`)",
            ));
        }
        if config.until.is_some() {
            // With --until decided the budget is a cap: no pilot, the looks run until a
            // decision, the limit, or the next block would end past the budget.
            config.time_budget = Some(budget);
            if !quiet {
                stderr_line(format_args!(
                    "abba: --time-budget {}: stops at the block boundary before the budget would be exceeded",
                    seconds(budget)
                ));
            }
            bound_runs(args, config, per)?;
            return Ok(());
        }
        if !quiet {
            stderr_line(format_args!(
                "abba: --time-budget: running one pilot block (not recorded)"
            ));
        }
        let fit = config
            .fit_budget(budget, stop, &mut RealRunner::new())
            .map_err(pilot_error)?;
        let (took, remaining) = (fit.pilot, fit.remaining);
        config.blocks = fit.blocks.min(crate::args::MAX_BLOCKS as u32);
        if !quiet && remaining < took {
            stderr_line(format_args!(
                "abba: --time-budget {}: the pilot block took {}, more than the {} left; running the fewest, 1 block",
                seconds(budget),
                seconds(took),
                seconds(remaining),
            ));
        } else if !quiet {
            stderr_line(format_args!(
                "abba: --time-budget {}: the pilot block took {}; {} fit in the remaining {} ({} runs per variant)",
                seconds(budget),
                seconds(took),
                counted(config.blocks as usize, "block"),
                seconds(remaining),
                config.blocks * per
            ));
        }
    }
    bound_runs(args, config, per)?;
    warn_too_few_blocks(args, config, per);
    Ok(())
}

/// `-m/--min-runs` and `-M/--max-runs`, hyperfine's bounds on the run count, as bounds on
/// the blocks: on the block count (the default's or the `--time-budget`'s), or with
/// `--until decided` on its min and max blocks. What was chosen is stated on stderr.
fn bound_runs(args: &CompareArgs, config: &mut ExperimentConfig, per: u32) -> anyhow::Result<()> {
    let (min, max) = (args.hooks.min_runs, args.hooks.max_runs);
    if min.is_none() && max.is_none() {
        return Ok(());
    }
    let fewest = config.bound_runs(min, max).map_err(|_| {
        usage(format!(
            "--min-runs {} is above --max-runs {}: give a minimum at most the maximum",
            min.unwrap_or_default(),
            max.unwrap_or_default()
        ))
    })?;
    let blocks = config.blocks;
    if !args.analysis.quiet {
        let given: Vec<String> = [("--min-runs", min), ("--max-runs", max)]
            .iter()
            .filter_map(|(flag, n)| n.map(|n| format!("{flag} {n}")))
            .collect();
        let what = match &config.until {
            Some(_) => format!("--until decided between {fewest} and {blocks} blocks"),
            None => counted(blocks as usize, "block"),
        };
        stderr_line(format_args!(
            "abba: {}: {what} of {per} runs per variant ({} to {} runs per variant)",
            given.join(", "),
            fewest * per,
            blocks * per
        ));
    }
    Ok(())
}

/// A fixed block count below the fewest a paired comparison can be tested with is run
/// anyway (a pilot, a smoke test), with a warning now, before the runs, naming the count
/// the verdict needs ([`bench_report::TooFewBlocks`]).
fn warn_too_few_blocks(args: &CompareArgs, config: &ExperimentConfig, per: u32) {
    let analysis = args.analysis.apply(bench_stats::AnalysisConfig::default());
    let blocked = config.design != bench_sched::Design::Sequential && config.variants.len() >= 2;
    if !blocked || config.until.is_some() || args.analysis.quiet {
        return;
    }
    let warning = bench_report::TooFewBlocks {
        blocks: config.blocks as usize,
        needed: analysis.min_paired_blocks_for(config.variants.len(), per as usize),
        min_paired: analysis.min_paired_blocks(),
        alpha: args.analysis.alpha(),
        holm_comparisons: config.variants.len() - 1,
        runs_per_block: Some(per as usize),
        exact_counts: config.metric.count_event().is_some(),
        gated: false,
    };
    if let Some(w) = warning.render() {
        stderr_line(format_args!("abba: warning: {w}"));
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// A failed pilot block: the same exit codes as a failed experiment, nothing recorded.
fn pilot_error(error: SchedError) -> anyhow::Error {
    match error.kind() {
        FailureKind::Interrupted { signal } => anyhow::Error::new(Exit::Interrupted {
            signal,
            message: format!(
                "interrupted by signal {signal} in the --time-budget pilot block; nothing was recorded"
            ),
        }),
        FailureKind::Input => usage(error.to_string()),
        FailureKind::Command | _ => anyhow::Error::new(Exit::CommandFailed(format!(
            "{error}\n(in the --time-budget pilot block; nothing was recorded)"
        ))),
    }
}
