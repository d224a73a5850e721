//! `abba plan`'s document: the plan of a pilot ([`bench_stats::plan::PlanReport`]) in plain
//! words, or as JSON (`abba.plan/1`).

use std::time::Duration;

use bench_stats::plan::{PlanReport, RunsAdvice};

use crate::wrap::wrap;

/// The plan and what the words need beside it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PlanDocument<'a> {
    /// The plan.
    pub report: &'a PlanReport,
    /// Where the pilot came from (`pilot.jsonl`, `profile shared-vm`).
    pub source: &'a str,
    /// Seconds per whole block of the pilot, when known.
    pub block_seconds: Option<f64>,
    /// The time budget asked for (`--time`), if any.
    pub time_budget: Option<Duration>,
    /// The equivalence margin the sequence would use.
    pub equivalence_margin: f64,
    /// The most blocks one experiment may have (a time budget beyond it is planned at it).
    pub blocks_limit: u32,
}

impl<'a> PlanDocument<'a> {
    /// The document of `report` from the pilot `source`.
    pub fn new(report: &'a PlanReport, source: &'a str) -> PlanDocument<'a> {
        PlanDocument {
            report,
            source,
            block_seconds: None,
            time_budget: None,
            equivalence_margin: 0.01,
            blocks_limit: u32::MAX,
        }
    }
}

/// The plan in plain words, every line within `width` characters (table rows keep their
/// hanging indent under themselves).
pub fn render_plan(doc: &PlanDocument<'_>, width: Option<usize>) -> String {
    let text: Vec<String> = words(doc)
        .split('\n')
        .map(|line| {
            let lead = line.len() - line.trim_start().len();
            let indent = &line[..lead];
            let hang = format!("{indent}  ");
            wrap(line.trim_start(), width, indent, &hang)
        })
        .collect();
    text.join("\n")
}

/// The plan as JSON (`abba.plan/1`), ending in a newline.
///
/// # Errors
/// A value JSON cannot hold (never expected).
pub fn render_plan_json(doc: &PlanDocument<'_>) -> Result<String, serde_json::Error> {
    let value = serde_json::json!({
        "schema": "abba.plan/1",
        "source": doc.source,
        "block_seconds": doc.block_seconds,
        "plan": doc.report,
    });
    Ok(format!("{}\n", serde_json::to_string_pretty(&value)?))
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

/// A relative change as a percentage: one decimal, or two significant digits below 0.1%
/// (`0.0010%`), so a change that is not zero never reads `0.0%`.
fn pct(x: f64) -> String {
    let p = x * 100.0;
    if p != 0.0 && p.is_finite() && p.abs() < 0.1 {
        let decimals = (1 - p.abs().log10().floor() as i32).clamp(2, 12) as usize;
        return format!("{p:.decimals$}%");
    }
    format!("{p:.1}%")
}

/// The plan in plain words.
fn words(doc: &PlanDocument<'_>) -> String {
    let r = doc.report;
    let mut out = format!(
        "Plan from {}: {} blocks; the block log-ratios spread {} (SD), {} (robust SD).\n\n",
        doc.source,
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
        let budget = match (doc.time_budget, doc.block_seconds) {
            // Cut to what the pilot supports (the note below says why).
            (Some(t), Some(b))
                if r.supported_blocks == Some(n) && t.as_secs_f64() / b > n as f64 =>
            {
                format!(
                    "{n} blocks (the most this pilot supports: {} at {b:.3}s per block would fit about {:.0} blocks)",
                    seconds_text(t.as_secs_f64()),
                    (t.as_secs_f64() / b)
                        .floor()
                        .min(f64::from(doc.blocks_limit))
                )
            }
            (Some(t), Some(b)) if t.as_secs_f64() / b > f64::from(doc.blocks_limit) => format!(
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
        pct(doc.equivalence_margin),
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
    out += &supported_words(r);
    out
}

/// The note of a request cut to what the pilot supports.
fn supported_words(r: &PlanReport) -> String {
    let Some(limit) = r.supported_blocks else {
        return String::new();
    };
    format!(
        "\nNote: planned at {limit} blocks, not more: a pilot of {} blocks does not support a plan beyond {limit} (past {} blocks the power is a normal approximation that needs a pilot at least as long as the plan; from a shorter one it calls changes far below the pilot's resolution detectable); a longer pilot plans further.\n",
        r.pilot_blocks,
        bench_stats::plan::SIMULATED_MAX_BLOCKS
    )
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

/// The runs-per-block advice in words.
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
