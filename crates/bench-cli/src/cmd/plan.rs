//! `abba plan`: a pilot (raw file or noise profile) into blocks needed, the smallest
//! detectable change, expected blocks under `--until decided`, and runs per block.

use std::path::Path;

use bench_report::{PlanDocument, render_plan, render_plan_json};
use bench_sched::{CsvOptions, Input, Pilot};
use bench_stats::plan::{PlanRequest, plan, profile_pilot, runs_per_block};
use bench_stats::sim::NoiseProfile;

use crate::args::PlanArgs;
use crate::core::exit::usage;
use crate::core::output::write_stdout;

/// `abba plan`.
pub fn run(args: &PlanArgs) -> anyhow::Result<u8> {
    if !(args.alpha >= crate::core::analysis::MIN_ALPHA && args.alpha < 0.5) {
        return Err(usage(format!(
            "--alpha {}: must lie between 1e-6 and 0.5 (0.5 excluded)",
            if args.alpha.abs() < 1e-4 && args.alpha != 0.0 {
                format!("{:e}", args.alpha)
            } else {
                args.alpha.to_string()
            }
        )));
    }
    if args.max_blocks < 2 {
        return Err(usage("--max-blocks must be at least 2"));
    }
    let pilot = match (&args.pilot, &args.profile) {
        (Some(path), _) => from_file(path, args.baseline.as_deref(), args.metric.as_deref())?,
        (None, Some(name)) => from_profile(name, args.seed)?,
        (None, None) => return Err(usage("give a pilot raw file or --profile NAME")),
    };
    let budget_blocks = match (args.blocks, args.time) {
        (Some(n), _) => Some(n as usize),
        (None, Some(t)) => {
            let per = pilot.block_s.ok_or_else(|| {
                usage("--time needs run times: give a raw file of abba compare, or --blocks")
            })?;
            // A budget beyond the limit is planned at the limit, and said so.
            let fit = (t.as_secs_f64() / per).floor();
            Some((fit.min(crate::args::MAX_BLOCKS as f64) as usize).max(2))
        }
        (None, None) => None,
    };
    let advice = pilot
        .costs
        .and_then(|(run, block)| runs_per_block(&pilot.replicates, run, block));
    let req = PlanRequest {
        effect: args.effect,
        power: args.power,
        alpha: args.alpha,
        margin: args.equivalence_margin,
        budget_blocks,
        max_blocks: args.max_blocks,
        seed: args.seed,
        ..PlanRequest::default()
    };
    let report = plan(&pilot.log_ratios, advice, &req);
    let mut doc = PlanDocument::new(&report, &pilot.source);
    doc.block_seconds = pilot.block_s;
    doc.time_budget = args.time;
    doc.equivalence_margin = args.equivalence_margin;
    doc.blocks_limit = bench_sched::MAX_BLOCKS;
    if args.json {
        write_stdout(&render_plan_json(&doc)?)?;
    } else {
        write_stdout(&render_plan(&doc, crate::core::stdio::terminal_width()))?;
    }
    Ok(0)
}

/// A raw (or blocked CSV) file of two variants ([`Pilot::from_input`]).
fn from_file(path: &Path, baseline: Option<&str>, metric: Option<&str>) -> anyhow::Result<Pilot> {
    let input = Input::load(&[path], &CsvOptions::default()).map_err(|e| usage(e.to_string()))?;
    let input = match metric {
        Some(m) => {
            let parsed: bench_sched::Metric =
                m.parse().map_err(|e| usage(format!("--metric: {e}")))?;
            input
                .on_metric(&parsed)
                .map_err(|e| usage(format!("--metric {m}: {e}")))?
        }
        None => input,
    };
    Pilot::from_input(&input, path.display().to_string(), baseline)
        .map_err(|e| usage(e.to_string()))
}

/// A noise profile's simulated pilot (many short sessions of 50 ms runs, blocks back to
/// back: a block costs nothing beyond its runs).
fn from_profile(name: &str, seed: u64) -> anyhow::Result<Pilot> {
    let profile = NoiseProfile::from_name(name).ok_or_else(|| {
        usage(format!(
            "--profile {name}: not one of quiet, shared-vm, bursty, drift"
        ))
    })?;
    let (log_ratios, replicates) = profile_pilot(profile, seed);
    let run_s = profile.config().mean / 1000.0;
    Ok(Pilot::simulated(
        format!("profile {name}"),
        log_ratios,
        replicates,
        run_s,
    ))
}
