//! `abba plan`: a pilot (raw file or noise profile) into blocks needed, the smallest
//! detectable change, expected blocks under `--until decided`, and runs per block.

use std::collections::BTreeMap;
use std::path::Path;

use bench_report::{PlanDocument, render_plan, render_plan_json};
use bench_sched::{CsvOptions, Input};
use bench_stats::plan::{PlanRequest, plan, profile_pilot, runs_per_block};
use bench_stats::sequential::dataset_log_ratios;
use bench_stats::sim::NoiseProfile;
use bench_stats::{Dataset, Design};

use crate::args::PlanArgs;
use crate::core::exit::usage;
use crate::core::output::write_stdout;

/// What a pilot gives the plan.
struct Pilot {
    /// Where it came from (`pilot.jsonl`, `profile shared-vm`).
    source: String,
    /// Block log-ratios, in block order.
    log_ratios: Vec<f64>,
    /// Per block, the replicate values of `[baseline, candidate]`.
    replicates: Vec<[Vec<f64>; 2]>,
    /// Seconds per run and per block beyond its runs, when known.
    costs: Option<(f64, f64)>,
    /// Seconds per whole block, when known.
    block_s: Option<f64>,
}

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

/// A raw (or blocked CSV) file of two variants.
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
    let data = &input.loaded.dataset;
    let shown = path.display();
    if data.series.len() != 2 {
        return Err(usage(format!(
            "{shown}: a pilot has two variants; this file has {}",
            data.series.len()
        )));
    }
    if data.design == Some(Design::Sequential) {
        return Err(usage(format!(
            "{shown}: a pilot needs blocks (an abba or random design), not the sequential design"
        )));
    }
    let log_ratios = dataset_log_ratios(data, baseline).filter(|l| l.len() >= 2).ok_or_else(|| {
        usage(format!(
            "{shown}: no block log-ratios: the pilot needs 2+ complete blocks of positive values (and --baseline must name a variant)"
        ))
    })?;
    let replicates = replicates(data, baseline);
    let (costs, block_s) = match &input.experiment {
        Some(e) => costs(&e.header, &e.runs, log_ratios.len()),
        None => (None, None),
    };
    Ok(Pilot {
        source: shown.to_string(),
        log_ratios,
        replicates,
        costs,
        block_s,
    })
}

/// Per block, the values of the baseline and the candidate.
fn replicates(data: &Dataset, baseline: Option<&str>) -> Vec<[Vec<f64>; 2]> {
    let b = baseline
        .and_then(|name| data.series.iter().position(|s| s.name == name))
        .unwrap_or(0);
    let mut blocks: BTreeMap<u32, [Vec<f64>; 2]> = BTreeMap::new();
    for (k, s) in [&data.series[b], &data.series[1 - b]].iter().enumerate() {
        for o in &s.observations {
            if let Some(block) = o.block {
                blocks.entry(block).or_default()[k].push(o.value);
            }
        }
    }
    blocks
        .into_values()
        .filter(|v| !v[0].is_empty() && !v[1].is_empty())
        .collect()
}

/// Seconds per run (wall time plus the pause before it and its hooks), per block beyond
/// its runs (warm-ups per block), and per whole block, from the recorded runs.
fn costs(
    h: &bench_sched::RawHeader,
    runs: &[bench_sched::RunRecord],
    blocks: usize,
) -> (Option<(f64, f64)>, Option<f64>) {
    let ok: Vec<&bench_sched::RunRecord> = runs.iter().filter(|r| r.succeeded()).collect();
    if ok.is_empty() || blocks == 0 {
        return (None, None);
    }
    let hooks = |r: &bench_sched::RunRecord| r.prepare_ns.unwrap_or(0) + r.conclude_ns.unwrap_or(0);
    let per_run = ok
        .iter()
        .map(|r| (r.wall_ns + hooks(r) + h.settle_ns) as f64 / 1e9)
        .sum::<f64>()
        / ok.len() as f64;
    let variants = h.variants.len() as f64 + f64::from(u8::from(h.reference.is_some()));
    let per_block_extra = f64::from(h.warmup_per_block) * variants * per_run;
    let runs_per_block = runs.len() as f64 / blocks as f64;
    (
        Some((per_run, per_block_extra)),
        Some(runs_per_block * per_run + per_block_extra),
    )
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
    Ok(Pilot {
        source: format!("profile {name}"),
        log_ratios,
        replicates,
        costs: Some((run_s, 0.0)),
        block_s: Some(4.0 * run_s),
    })
}
