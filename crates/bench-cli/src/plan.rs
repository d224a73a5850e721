//! `abba plan`: a pilot (raw file or noise profile) into blocks needed, the smallest
//! detectable change, expected blocks under `--until decided`, and runs per block.

use std::collections::BTreeMap;
use std::path::Path;

use bench_sched::{CsvOptions, Input};
use bench_stats::plan::{PlanReport, PlanRequest, RunsAdvice, plan, profile_pilot, runs_per_block};
use bench_stats::sequential::dataset_log_ratios;
use bench_stats::sim::NoiseProfile;
use bench_stats::{Dataset, Design};

use crate::cli::PlanArgs;
use crate::exit::usage;
use crate::output::write_stdout;

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
    if !(args.alpha >= crate::compare::MIN_ALPHA && args.alpha < 0.5) {
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
            Some((fit.min(crate::cli::MAX_BLOCKS as f64) as usize).max(2))
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
    if args.json {
        let doc = serde_json::json!({
            "schema": "abba.plan/1",
            "source": pilot.source,
            "block_seconds": pilot.block_s,
            "plan": report,
        });
        write_stdout(&format!("{}\n", serde_json::to_string_pretty(&doc)?))?;
    } else {
        let width = crate::output::terminal_width();
        let text: Vec<String> = words(&pilot, &report, args)
            .split('\n')
            .map(|line| {
                // Table rows (indented) keep their hanging indent under themselves.
                let lead = line.len() - line.trim_start().len();
                let indent = &line[..lead];
                let hang = format!("{indent}  ");
                bench_report::wrap(line.trim_start(), width, indent, &hang)
            })
            .collect();
        write_stdout(&text.join("\n"))?;
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

/// `90s`, `10m`, `2.5h`: a duration in the largest unit that keeps it readable.
fn seconds_text(secs: f64) -> String {
    let trim = |x: f64| {
        let t = format!("{x:.1}");
        t.strip_suffix(".0").map_or(t.clone(), str::to_owned)
    };
    if secs >= 3600.0 {
        format!("{}h", trim(secs / 3600.0))
    } else if secs >= 60.0 {
        format!("{}m", trim(secs / 60.0))
    } else {
        format!("{}s", trim(secs))
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The plan in plain words.
fn words(pilot: &Pilot, r: &PlanReport, args: &PlanArgs) -> String {
    let mut out = format!(
        "Plan from {}: {} blocks; the block log-ratios spread {} (SD), {} (robust SD).\n\n",
        pilot.source,
        r.pilot_blocks,
        pct(r.sd),
        pct(r.robust_sd)
    );
    let power = format!("{:.0}%", r.power * 100.0);
    out += &match r.blocks_needed {
        Some(n) => format!(
            "Fixed count: {n} blocks give {power} power to detect a {} change at alpha {} (the signed-rank test of the block median log-ratios, which the default sequence reads; the fixed-sample typical-run verdict tests all runs and is not what this predicts).\n",
            pct(r.effect),
            r.alpha
        ),
        None => format!(
            "Fixed count: even {} blocks fall short of {power} power against a {} change.\n",
            r.max_blocks,
            pct(r.effect)
        ),
    };
    out += &range_words(r);
    if let Some(n) = r.budget_blocks {
        let budget = match (args.time, pilot.block_s) {
            (Some(t), Some(b)) if t.as_secs_f64() / b > crate::cli::MAX_BLOCKS as f64 => format!(
                "{n} blocks (the limit: {} at {b:.3}s per block would fit about {:.0} blocks)",
                seconds_text(t.as_secs_f64()),
                (t.as_secs_f64() / b).floor()
            ),
            (Some(t), Some(b)) => format!("{n} blocks ({}s at {b:.2}s per block)", t.as_secs()),
            _ => format!("{n} blocks"),
        };
        out += &match r.minimum_detectable_effect {
            Some(m) => format!(
                "Budget of {budget}: the smallest change detected with {power} power is {}.\n",
                pct(m)
            ),
            None => format!(
                "Budget of {budget}: not even a 100% change is detected with {power} power.\n"
            ),
        };
    }
    out += &format!(
        "\nabba compare --until decided (margin ±{}, at most {} blocks), expected:\n",
        pct(args.equivalence_margin),
        r.max_blocks
    );
    for (s, label) in r
        .until_decided
        .iter()
        .zip(["no change", "the margin", "2x margin", "5x margin"].iter())
    {
        out += &format!(
            "  {:<11} ({:>5}): median {:>4} blocks (mean {:>5.1}); changed {:>3.0}%, equivalent {:>3.0}%, inconclusive {:>3.0}%\n",
            label,
            pct(s.ratio - 1.0),
            s.median_blocks,
            s.mean_blocks,
            s.changed * 100.0,
            s.equivalent * 100.0,
            s.inconclusive * 100.0
        );
    }
    let labels = ["no change", "the margin", "2x margin", "5x margin"];
    for (i, pair) in r.until_decided.windows(2).enumerate() {
        if pair[0].same_stops(&pair[1]) {
            out += &format!(
                "  ({} and {} stop alike: no pilot block lies between -{} and -{} of its centre, and the sequence reads only the signs of the blocks; a longer pilot tells them apart.)\n",
                labels[i],
                labels[i + 1],
                pct(pair[0].ratio.ln()),
                pct(pair[1].ratio.ln())
            );
        }
    }
    out += &runs_words(r.runs_per_block.as_ref());
    out += &approximation_words(r);
    out
}

/// Where the plan is approximate because the counts are large.
fn approximation_words(r: &PlanReport) -> String {
    let limit = bench_stats::plan::SIMULATED_MAX_BLOCKS;
    let mut out = String::new();
    let largest = r.max_blocks as usize;
    if largest > limit || r.budget_blocks.is_some_and(|n| n > limit) {
        out += &format!(
            "\nNote: powers beyond {limit} blocks use the normal approximation of the signed-rank test rather than resampled experiments.\n"
        );
    }
    let reps = bench_stats::plan::stop_reps(PLAN_STOP_REPS, r.max_blocks);
    if reps < PLAN_STOP_REPS {
        out += &format!(
            "Note: the --until decided figures come from {reps} resampled experiments each (fewer at --max-blocks {}, to bound the work).\n",
            r.max_blocks
        );
    }
    out
}

/// The experiments per ratio `bench_stats::plan::plan` asks [`bench_stats::plan::expected_stop`]
/// for at the default resamples (a quarter of 2000).
const PLAN_STOP_REPS: u32 = 500;

/// The range of the blocks needed and the short-pilot warning.
fn range_words(r: &PlanReport) -> String {
    let (Some(n), Some(range)) = (r.blocks_needed, r.blocks_needed_range.as_ref()) else {
        return String::new();
    };
    let high = range
        .high
        .map_or_else(|| format!("over {}", r.max_blocks), |h| h.to_string());
    let mut out = format!(
        "Blocks needed: {n} (range {}-{high} from resampling the pilot: the {:.0}th-{:.0}th percentiles over {} resamples of its {} blocks).\n",
        range.low,
        range.quantiles[0] * 100.0,
        range.quantiles[1] * 100.0,
        range.resamples,
        r.pilot_blocks
    );
    if let Some(w) = &r.pilot_warning {
        let spread = w.spread.map_or_else(
            || "beyond the limit".to_owned(),
            |s| format!("{s:.1}x the point"),
        );
        out += &format!(
            "Warning: a {}-block pilot is too short to trust this count (the range's upper end is {spread}); a pilot of about {} blocks would bring it within {}x.\n",
            r.pilot_blocks,
            w.pilot_blocks_advised,
            bench_stats::plan::WIDE_RANGE_FACTOR
        );
    }
    out
}

fn runs_words(advice: Option<&RunsAdvice>) -> String {
    let Some(a) = advice else {
        return "\nRuns per block: unknown (the pilot needs 2+ runs of each variant per block and recorded run times).\n".into();
    };
    let head = format!(
        "\nRuns per variant per block (Kalibera & Jones): run variance {:.2e}, block variance {}, a run costs {:.3}s, a block {:.3}s beyond its runs: ",
        a.run_variance,
        a.block_variance
            .map_or_else(|| "not detectable".to_owned(), |v| format!("{v:.2e}")),
        a.run_cost_s,
        a.block_cost_s
    );
    let advice = match a.optimal_runs {
        Some(r) if r > f64::from(a.design_runs) => format!(
            "the optimum is {r:.1} runs; the design's {} are fewer: starting a block costs much here, so cut its overhead (warm-ups per block, hooks) or give more runs per block (`--runs-per-block`, a multiple of {}).",
            a.design_runs, a.design_runs
        ),
        Some(r) if r < 1.0 => format!(
            "the optimum is under one run ({r:.2}): a block costs little beyond its runs, so the design's {} per block are already plenty; spend time on more blocks.",
            a.design_runs
        ),
        Some(r) => format!(
            "the optimum is {r:.1} runs; the design's {} already pay off, so spend time on more blocks.",
            a.design_runs
        ),
        None => "the blocks vary no more than their runs explain: only the total number of runs matters.".into(),
    };
    format!(
        "{head}{advice}\n  (The rule weighs block means; the default verdict compares every run, each divided by its block's center.)\n"
    )
}
