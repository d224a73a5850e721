//! `cargo xtask plan-check`: `abba plan` from short real pilots against what the rest of
//! the same recording shows.
//!
//! Each long recording under `fixtures/recordings/` (300 blocks; see `cargo xtask replay`)
//! is cut into a few pilots of `--pilot-blocks` consecutive blocks (evenly spaced). For
//! each pilot, the plan's blocks needed for `--power` against `--effect` (and its range
//! from resampling the pilot, and its warning) are set beside the rest of the recording,
//! every block outside the pilot: its block log-ratios, centred on their own
//! Hodges-Lehmann pseudo-median and shifted by `ln(1 + effect)` (the noise of the same
//! machine with the planned change added), give
//!
//! - the power at the predicted count, by resampling the rest (2,000 experiments; Monte
//!   Carlo SE at most 1.1 points) and by splitting the rest, in recording order, into
//!   disjoint experiments of that many blocks (a handful of experiments, so a rough figure
//!   that keeps the machine's slow drifts);
//! - the blocks the rest needs for that power (the same search as the plan's).
//!
//! Every random choice is seeded: the table is the same on every run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bench_stats::plan::{
    PlanRequest, blocks_needed, blocks_needed_range, centred_noise, pilot_warning, power,
};
use bench_stats::sequential::dataset_log_ratios;

use crate::replay::{Recording, dataset, load_dir};
use crate::table::TextTable;

/// Flags of `plan-check`.
#[derive(clap::Args, Debug)]
pub struct PlanCheckArgs {
    /// Directory of the recordings (`<condition>-<aa|eX>.jsonl`, or `.jsonl.gz`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Only the recordings of this condition (`quiet`, `noisy`).
    #[arg(long, value_name = "NAME")]
    pub condition: Option<String>,
    /// Blocks per pilot.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(6..=150))]
    pub pilot_blocks: u32,
    /// Pilots cut from each recording (evenly spaced, disjoint).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=10))]
    pub pilots: u32,
    /// The change planned for, in percent.
    #[arg(long, default_value_t = 1.0)]
    pub effect: f64,
    /// Seed of every resampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// One pilot's plan against the rest of its recording.
struct Row {
    recording: String,
    start: usize,
    predicted: Option<usize>,
    range: Option<(usize, Option<usize>)>,
    warned: Option<usize>,
    /// Power at the predicted count: the pilot's own, the rest resampled, the rest split
    /// (power, experiments).
    powers: Option<(f64, f64, (f64, usize))>,
    observed: Option<usize>,
}

/// The pilots' rows of one recording.
fn check(rec: &Recording, args: &PlanCheckArgs, req: &PlanRequest) -> Result<Vec<Row>> {
    let name = if rec.effect == 1.0 {
        format!("{} A/A", rec.condition)
    } else {
        format!("{} +{:.1}%", rec.condition, (rec.effect - 1.0) * 100.0)
    };
    let logs = dataset_log_ratios(&dataset(&rec.blocks), Some("A"))
        .with_context(|| format!("{name}: no block log-ratios"))?;
    let w = args.pilot_blocks as usize;
    let pilots = args.pilots as usize;
    if logs.len() < (pilots + 1) * w {
        bail!(
            "{name}: {} blocks are too few for {pilots} pilots of {w} and a rest",
            logs.len()
        );
    }
    let step = (logs.len() - w) / pilots.max(2).saturating_sub(1).max(1);
    let ratio = 1.0 + req.effect;
    let max = req.max_blocks as usize;
    let mut rows = Vec::new();
    for p in 0..pilots {
        let start = if pilots == 1 {
            0
        } else {
            (p * step).min(logs.len() - w)
        };
        let pilot = &logs[start..start + w];
        let rest: Vec<f64> = logs[..start]
            .iter()
            .chain(&logs[start + w..])
            .copied()
            .collect();
        let noise = centred_noise(pilot);
        let rest_noise = centred_noise(&rest);
        let predicted = blocks_needed(pilot, req);
        let range = predicted.and_then(|n| blocks_needed_range(pilot, n, req));
        let warned = predicted
            .zip(range.as_ref())
            .and_then(|(n, r)| pilot_warning(w, n, r, max))
            .map(|w| w.pilot_blocks_advised);
        let powers = predicted.map(|n| {
            (
                power(&noise, n, ratio, req.alpha, req.reps, req.seed),
                power(&rest_noise, n, ratio, req.alpha, req.reps, req.seed),
                split_power(&rest, n, ratio, req.alpha),
            )
        });
        let observed = blocks_needed(&rest, req);
        rows.push(Row {
            recording: name.clone(),
            start,
            predicted,
            range: range.map(|r| (r.low, r.high)),
            warned,
            powers,
            observed,
        });
    }
    Ok(rows)
}

/// The share of disjoint, consecutive experiments of `n` blocks of `rest` (centred on its
/// pseudo-median, shifted by `ln ratio`, in recording order) in which the signed-rank test
/// rejects no change, and how many experiments there were.
fn split_power(rest: &[f64], n: usize, ratio: f64, alpha: f64) -> (f64, usize) {
    let centre = bench_stats::plan::pilot_centre(rest);
    let shifted: Vec<f64> = rest.iter().map(|x| x - centre + ratio.ln()).collect();
    let mut hits = 0usize;
    let mut total = 0usize;
    for chunk in shifted.chunks_exact(n) {
        total += 1;
        let p = bench_stats::rank::wilcoxon_signed_rank(chunk).map_or(1.0, |w| w.p_value);
        hits += usize::from(p < alpha);
    }
    (hits as f64 / total.max(1) as f64, total)
}

fn blocks(n: Option<usize>, max: u32) -> String {
    n.map_or_else(|| format!(">{max}"), |n| n.to_string())
}

/// Every pilot's row, recording by recording.
fn all_rows(dir: &Path, args: &PlanCheckArgs, req: &PlanRequest) -> Result<Vec<Row>> {
    let recs: Vec<Recording> = load_dir(dir)?
        .into_iter()
        .filter(|r| args.condition.as_ref().is_none_or(|c| *c == r.condition))
        .collect();
    if recs.is_empty() {
        bail!(
            "no recording of condition {:?} in {}",
            args.condition,
            dir.display()
        );
    }
    let mut rows = Vec::new();
    for rec in recs {
        rows.extend(check(&rec, args, req)?);
    }
    Ok(rows)
}

/// The table and its summary, as Markdown.
fn report(root: &Path, args: &PlanCheckArgs) -> Result<String> {
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| root.join("fixtures/recordings"));
    let req = PlanRequest {
        effect: args.effect / 100.0,
        seed: args.seed,
        ..PlanRequest::default()
    };
    let max = req.max_blocks;
    let rows = all_rows(&dir, args, &req)?;
    let mut t = TextTable::new([
        "recording",
        "pilot blocks",
        "plan: blocks (range)",
        "warning: pilot of",
        "power at plan: pilot",
        "rest resampled",
        "rest split",
        "rest needs",
        "in range",
    ]);
    let (mut covered, mut compared) = (0, 0);
    let (mut warned_far, mut warned, mut unwarned_far, mut unwarned) = (0, 0, 0, 0);
    let (mut pilot_sum, mut rest_sum, mut powered) = (0.0, 0.0, 0);
    for r in &rows {
        let range = r.range.map_or_else(
            || "-".to_owned(),
            |(lo, hi)| format!("{lo}-{}", blocks(hi, max)),
        );
        let inside = match (r.range, r.observed) {
            (Some((lo, hi)), obs) => {
                let obs = obs.unwrap_or(usize::MAX);
                let ok = obs >= lo && hi.is_none_or(|h| obs <= h);
                compared += 1;
                covered += usize::from(ok);
                if ok { "yes" } else { "no" }
            }
            (None, _) => "-",
        };
        if let (Some(p), obs) = (r.predicted, r.observed) {
            let far = obs.is_none_or(|o| o as f64 > 1.5 * p as f64);
            if r.warned.is_some() {
                warned += 1;
                warned_far += usize::from(far);
            } else {
                unwarned += 1;
                unwarned_far += usize::from(far);
            }
        }
        let (pp, pr, ps) = match r.powers {
            Some((pp, pr, (ps, k))) => {
                pilot_sum += pp;
                rest_sum += pr;
                powered += 1;
                (
                    format!("{pp:.2}"),
                    format!("{pr:.2}"),
                    format!("{ps:.2} of {k}"),
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        t.row([
            r.recording.clone(),
            format!("{}-{}", r.start, r.start + args.pilot_blocks as usize - 1),
            format!("{} ({range})", blocks(r.predicted, max)),
            r.warned
                .map_or_else(|| "-".to_owned(), |n| format!("{n} blocks")),
            pp,
            pr,
            ps,
            blocks(r.observed, max),
            inside.to_owned(),
        ]);
    }
    let mut out = format!(
        "**`abba plan` from {}-block pilots of the real recordings: {:.0}% power against a {}% change (alpha {}; range: 10th-90th percentiles over {} resamples of the pilot, {} experiments per power estimate inside them)**\n\n",
        args.pilot_blocks,
        req.power * 100.0,
        args.effect,
        req.alpha,
        req.resamples,
        req.resample_reps,
    );
    out += t.markdown().trim_end();
    let _ = write!(
        out,
        "\n\nMean power at the planned count: {:.2} promised by the pilot, {:.2} on the rest of the recording ({} pilots). \
         The range holds the blocks the rest needs for {:.0}% power in {covered} of {compared} pilots. \
         The rest needs more than 1.5x the planned count in {warned_far} of {warned} warned pilots and {unwarned_far} of {unwarned} unwarned ones.",
        pilot_sum / f64::from(powered.max(1)),
        rest_sum / f64::from(powered.max(1)),
        powered,
        req.power * 100.0,
    );
    Ok(out)
}

/// Runs the check and prints its table.
///
/// # Errors
/// When the recordings cannot be read or are too short for the pilots.
pub fn run(root: &Path, args: &PlanCheckArgs) -> Result<()> {
    println!("{}", report(root, args)?);
    Ok(())
}
