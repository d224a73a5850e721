//! `cargo xtask sequential`: the calibration grid of `--until decided` on the simulator's
//! noise profiles, for both confidence sequences (the sign sequence abba uses and the
//! asymptotic mean sequence it was compared with): false positives under continuous
//! monitoring (A/A) up to each limit, the sequence ever missing the truth, and blocks to a
//! decision for effects of 0 to 10%. Prints Markdown tables (`docs/sequential.md` quotes them).

use anyhow::Result;
use bench_lab::sim::{NoiseProfile, SimDesign, simulate};
use bench_stats::sequential::{
    ConfidenceSequence, LookDecision, SequenceMethod, SequentialRule, dataset_log_ratios,
};

use crate::table::TextTable as Table;

/// Flags of `sequential`.
#[derive(clap::Args, Debug)]
pub struct SequentialArgs {
    /// Simulated experiments per cell.
    #[arg(long, default_value_t = 400)]
    reps: u64,
    /// Significance level.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
}

/// One monitored run: first decision (blocks, decision) within `max` blocks, and whether
/// the interval ever excluded the true log-ratio.
struct Run {
    first: Option<(u32, LookDecision)>,
    ever_missed: bool,
}

fn monitor(logs: &[f64], method: SequenceMethod, alpha: f64, max: u32, truth: f64) -> Run {
    let rule = SequentialRule {
        max_blocks: max,
        method,
        ..SequentialRule::new(alpha, 0.01)
    };
    let mut cs = ConfidenceSequence::new(method, alpha);
    let mut first = None;
    let mut ever_missed = false;
    for (i, &d) in logs.iter().take(max as usize).enumerate() {
        cs.push(d);
        let [lo, hi] = cs.interval();
        ever_missed |= truth < lo || truth > hi;
        let decision = rule.decide(i as u32 + 1, [lo, hi]);
        if first.is_none() && decision.decided() {
            first = Some((i as u32 + 1, decision));
        }
    }
    Run { first, ever_missed }
}

fn logs(profile: NoiseProfile, effect: f64, blocks: u32, seed: u64) -> Vec<f64> {
    let e = simulate(
        &profile.config().with_effect(effect),
        SimDesign::Abba,
        blocks,
        seed,
    );
    dataset_log_ratios(&e.dataset, None).unwrap_or_default()
}

const METHODS: [SequenceMethod; 2] = [SequenceMethod::SignMedian, SequenceMethod::AsymptoticMean];

/// A/A: stopped FASTER/SLOWER within each limit, and the sequence ever missing ratio 1.
fn false_positives(args: &SequentialArgs) -> Table {
    let limits = [50u32, 200, 500];
    let mut headers = vec!["profile".to_owned(), "sequence".to_owned()];
    headers.extend(limits.iter().map(|m| format!("FASTER/SLOWER by {m}")));
    headers.push("ever excludes 1 (500)".into());
    let mut t = Table::new(headers);
    for profile in NoiseProfile::ALL {
        let data: Vec<Vec<f64>> = (0..args.reps)
            .map(|s| logs(profile, 1.0, 500, 50_000 + s))
            .collect();
        for method in METHODS {
            let mut row = vec![profile.as_str().to_owned(), method.as_str().to_owned()];
            for &m in &limits {
                let wrong = data
                    .iter()
                    .filter(|l| {
                        matches!(
                            monitor(l, method, args.alpha, m, 0.0).first,
                            Some((_, LookDecision::Larger | LookDecision::Smaller))
                        )
                    })
                    .count();
                row.push(format!("{:.3}", wrong as f64 / args.reps as f64));
            }
            let missed = data
                .iter()
                .filter(|l| monitor(l, method, args.alpha, 500, 0.0).ever_missed)
                .count();
            row.push(format!("{:.3}", missed as f64 / args.reps as f64));
            t.row(row);
        }
    }
    t
}

/// Blocks to a decision (limit 200): median blocks and the share decided right.
fn blocks_to_decision(args: &SequentialArgs) -> Table {
    let effects = [1.0, 1.01, 1.02, 1.05, 1.10];
    let mut headers = vec!["profile".to_owned(), "sequence".to_owned()];
    headers.extend(effects.iter().map(|e| format!("{:.0}%", (e - 1.0) * 100.0)));
    let mut t = Table::new(headers);
    for profile in NoiseProfile::ALL {
        for method in METHODS {
            let mut row = vec![profile.as_str().to_owned(), method.as_str().to_owned()];
            for &effect in &effects {
                let mut blocks = Vec::new();
                let mut right = 0;
                for s in 0..args.reps {
                    let l = logs(profile, effect, 200, 60_000 + s);
                    let run = monitor(&l, method, args.alpha, 200, effect.ln());
                    let (b, d) = run.first.unwrap_or((200, LookDecision::Undecided));
                    blocks.push(b);
                    let ok = match d {
                        LookDecision::Equivalent => effect < 1.011,
                        LookDecision::Larger => effect > 1.0,
                        LookDecision::Smaller | LookDecision::Undecided => false,
                        _ => false,
                    };
                    right += u32::from(ok);
                }
                blocks.sort_unstable();
                row.push(format!(
                    "{} ({:.0}%)",
                    blocks[blocks.len() / 2],
                    100.0 * f64::from(right) / args.reps as f64
                ));
            }
            t.row(row);
        }
    }
    t
}

/// Both tables, with their titles, as Markdown (`docs/sequential.md` quotes them whole).
fn report(args: &SequentialArgs) -> String {
    format!(
        "**A/A under continuous monitoring ({} experiments per cell, alpha {}; MC SD at 0.05: {:.3})**\n\n{}\n\n\
         **Median blocks to a decision (limit 200) and the share decided right (EQUIVALENT for 0 and 1%, SLOWER above)**\n\n{}",
        args.reps,
        args.alpha,
        (0.05 * 0.95 / args.reps as f64).sqrt(),
        false_positives(args).markdown().trim_end(),
        blocks_to_decision(args).markdown().trim_end(),
    )
}

/// Runs the grid and prints both tables.
pub fn run(args: &SequentialArgs) -> Result<()> {
    println!("{}", report(args));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables of `docs/sequential.md` are what the command beside them prints (5 s).
    #[test]
    fn the_docs_tables_are_what_the_grid_prints() {
        let mut fig =
            bench_docs::Figure::new("docs/sequential.md", "cargo xtask sequential --reps 200");
        fig.line(report(&SequentialArgs {
            reps: 200,
            alpha: 0.05,
        }));
        fig.check();
    }
}
