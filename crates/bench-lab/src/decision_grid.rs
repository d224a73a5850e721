//! `cargo xtask decision-grid` and `cargo xtask until-decided-grid`: the whole decision,
//! through [`analyze`], on every noise profile of `bench_stats::sim`: what users get from
//! the typical-run verdict beside the fastest-run estimator, block means and an oracle
//! (the default on only the runs the machine did not disturb), for no change, a pure 2 %
//! shift and changes that are not shifts; and the same changes under `--until decided`.
//! Prints the Markdown tables `docs/estimator-grid.md` quotes (seeded: the same flags
//! print the same bytes).
//!
//! Rates count an outcome of FASTER, SLOWER or MIXED as a claim of change; "wrong" is a
//! claim in the direction opposite to the change's mean (block means' truth) and
//! "false EQUIVALENT" an EQUIVALENT verdict on a change whose median, mean or p90 moved
//! beyond the ±1 % margin. The CI check of the default on a small grid is
//! `decision_grid::default_decision_holds_on_a_tail_change` in bench-stats' integration
//! tests.

use anyhow::Result;
use bench_lab::sim::{
    Change, Experiment, NoiseProfile, SESSION_REPLICAS, SimConfig, SimDesign, analyze_change,
    session_truth, simulate_change, truth,
};
use bench_stats::analysis::SequentialRun;
use bench_stats::sequential::{
    SequentialRule, dataset_log_ratios, dataset_shape, replay, shape_agrees,
};
use bench_stats::{AnalysisConfig, Dataset, Outcome, PairedEstimator, analyze};

const MARGIN: f64 = 0.01;

/// Flags of `decision-grid`.
#[derive(clap::Args, Debug)]
pub struct DecisionGridArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Only this noise profile (quiet, shared-vm, bursty, drift); by default every one.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<NoiseProfile>,
    /// Only these estimators, comma-separated; rows keep the order
    /// default, fastest, means, oracle.
    #[arg(long, value_name = "LIST", value_enum, value_delimiter = ',', default_values_t = Est::ALL)]
    only: Vec<Est>,
    /// Only the A/A and 2% shift table of each profile (not the changes that are not
    /// shifts): a quicker check of error rates and power.
    #[arg(long)]
    shift_only: bool,
    /// Unequal replicate counts: `A+B` runs of each variant in every block (`3+1`: three
    /// of A, then one of B, reversed in every other block, as a CSV of replicates) in
    /// place of ABBA blocks.
    #[arg(long, value_name = "A+B", value_parser = parse_counts)]
    unequal: Option<(u32, u32)>,
}

/// `3+1`: the runs of each variant in a block of `--unequal`.
fn parse_counts(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{s}` is not A+B with A, B from 1 to 16 (e.g. 3+1)");
    let (a, b) = s.split_once('+').ok_or_else(bad)?;
    let parse = |x: &str| {
        x.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(bad)
    };
    Ok((parse(a)?, parse(b)?))
}

/// Flags of `until-decided-grid`.
#[derive(clap::Args, Debug)]
pub struct UntilDecidedArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Only this noise profile (quiet, shared-vm, bursty, drift); by default every one.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<NoiseProfile>,
}

/// A noise profile by its name ([`NoiseProfile::as_str`]).
pub fn parse_profile(name: &str) -> Result<NoiseProfile, String> {
    NoiseProfile::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = NoiseProfile::ALL.iter().map(|p| p.as_str()).collect();
        format!("no noise profile `{name}` (one of {})", names.join(", "))
    })
}

/// The estimators of the grid, by their `--only` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Est {
    /// The default, `typical-run`.
    Default,
    /// `hl-min-log-ratio`, each block's fastest runs.
    Fastest,
    /// `hl-log-ratio`, block means.
    #[value(name = "means")]
    BlockMeans,
    /// `typical-run` on only the runs the simulated machine did not disturb.
    Oracle,
}

impl Est {
    const ALL: [Est; 4] = [Est::Default, Est::Fastest, Est::BlockMeans, Est::Oracle];

    fn name(self) -> &'static str {
        match self {
            Est::Default => "typical-run",
            Est::Fastest => "hl-min-log-ratio (fastest)",
            Est::BlockMeans => "hl-log-ratio (block means)",
            Est::Oracle => "oracle (typical-run, undisturbed runs)",
        }
    }
}

impl std::fmt::Display for Est {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use clap::ValueEnum;
        let name = self.to_possible_value().map(|v| v.get_name().to_owned());
        f.write_str(name.as_deref().unwrap_or("?"))
    }
}

fn decide(e: &Experiment, est: Est, seed: u64) -> (Outcome, Option<[f64; 2]>) {
    let (data, estimator): (Dataset, _) = match est {
        Est::Default => (e.dataset.clone(), PairedEstimator::TypicalRun),
        Est::Fastest => (e.dataset.clone(), PairedEstimator::HodgesLehmannMinLogRatio),
        Est::BlockMeans => (e.dataset.clone(), PairedEstimator::HodgesLehmannLogRatio),
        Est::Oracle => (e.undisturbed(), PairedEstimator::TypicalRun),
    };
    let config = AnalysisConfig {
        paired_estimator: estimator,
        seed,
        ..AnalysisConfig::default()
    };
    match analyze(&data, &config) {
        Ok(a) => {
            let c = &a.groups[0].comparisons[0];
            (c.outcome, c.ratio_ci)
        }
        Err(_) => (Outcome::Inconclusive, None),
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    n: u32,
    faster: u32,
    slower: u32,
    mixed: u32,
    equivalent: u32,
    covers: u32,
}

impl Tally {
    fn add(self, o: Tally) -> Tally {
        Tally {
            n: self.n + o.n,
            faster: self.faster + o.faster,
            slower: self.slower + o.slower,
            mixed: self.mixed + o.mixed,
            equivalent: self.equivalent + o.equivalent,
            covers: self.covers + o.covers,
        }
    }

    fn claims(self) -> u32 {
        self.faster + self.slower + self.mixed
    }
}

/// The outcomes of `reps` seeded sessions (seeds from 10,000) of `change` on `profile`,
/// `blocks` blocks of `design` each, decided by `est`; `true_ratio` is what an interval
/// covers.
fn tally(
    (profile, design): (NoiseProfile, SimDesign),
    change: &Change,
    blocks: u32,
    est: Est,
    reps: u32,
    true_ratio: f64,
) -> Tally {
    let cfg = profile.config();
    let run = |range: std::ops::Range<u32>| {
        let mut t = Tally::default();
        for r in range {
            let seed = 10_000 + u64::from(r);
            let e = simulate_change(&cfg, change, design, blocks, 1, seed);
            let (o, ci) = decide(&e, est, seed);
            t.n += 1;
            t.faster += u32::from(o == Outcome::Faster);
            t.slower += u32::from(o == Outcome::Slower);
            t.mixed += u32::from(o == Outcome::Mixed);
            t.equivalent += u32::from(o == Outcome::Equivalent);
            if ci.is_some_and(|[lo, hi]| lo <= true_ratio && true_ratio <= hi) {
                t.covers += 1;
            }
        }
        t
    };
    let half = reps / 2;
    let (a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| run(0..half));
        let b = run(half..reps);
        (h.join().expect("thread"), b)
    });
    a.add(b)
}

fn pct(k: u32, n: u32) -> f64 {
    100.0 * f64::from(k) / f64::from(n.max(1))
}

/// The non-shift changes of the audit, and a scale change.
fn changes() -> Vec<Change> {
    vec![
        Change::share(0.3, (1.2, 1.2)),
        Change::fast_and_slow(0.96, 0.55, 1.15),
        Change::fast_and_slow(0.96, 0.45, 1.15),
        Change::share(0.6, (1.06, 1.14)),
        Change::both_bimodal(0.4, 1.3, 0.96),
        Change::scale(0.1),
    ]
}

/// The profiles `--profile` selects.
fn profiles(only: Option<NoiseProfile>) -> impl Iterator<Item = NoiseProfile> {
    NoiseProfile::ALL
        .into_iter()
        .filter(move |p| only.is_none_or(|o| o == *p))
}

/// `cargo xtask decision-grid`.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run(args: &DecisionGridArgs) -> Result<()> {
    let reps = args.reps;
    let ests: Vec<Est> = Est::ALL
        .into_iter()
        .filter(|e| args.only.contains(e))
        .collect();
    let design = match args.unequal {
        Some((a, b)) => SimDesign::Unequal { a, b },
        None => SimDesign::Abba,
    };
    println!(
        "# whole decision through analyze(), {reps} sessions per cell, alpha 0.05, margin ±1%"
    );
    if let Some((a, b)) = args.unequal {
        println!("# {a} run(s) of A and {b} of B in every block");
    }
    for profile in profiles(args.profile) {
        println!("\n## {}\n", profile.as_str());
        shift_table((profile, design), &ests, reps);
        if !args.shift_only {
            changes_table((profile, design), &ests, reps);
        }
    }
    Ok(())
}

/// A/A claims and coverage, and the 2 % shift, per estimator.
fn shift_table(on: (NoiseProfile, SimDesign), ests: &[Est], reps: u32) {
    println!(
        "| estimator | A/A claims 8 bl | A/A claims 30 bl | A/A coverage 30 bl | 2% shift SLOWER 30 bl | 2% coverage |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for &est in ests {
        let aa8 = tally(on, &Change::none(), 8, est, reps, 1.0);
        let aa30 = tally(on, &Change::none(), 30, est, reps, 1.0);
        let sh = tally(on, &Change::shift(1.02), 30, est, reps, 1.02);
        println!(
            "| {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
            est.name(),
            pct(aa8.claims(), aa8.n),
            pct(aa30.claims(), aa30.n),
            pct(aa30.covers, aa30.n),
            pct(sh.slower, sh.n),
            pct(sh.covers, sh.n),
        );
    }
}

/// The changes that are not shifts, at 25 blocks, per estimator.
fn changes_table(on: (NoiseProfile, SimDesign), ests: &[Est], reps: u32) {
    let profile = on.0;
    println!(
        "\n| change (truth: median / mean / p10 / p90) at 25 blocks | estimator | SLOWER | MIXED | FASTER | EQUIVALENT | wrong direction | false EQUIVALENT | median covered |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for change in changes() {
        let t = truth(&profile.config(), &change, 400, 25, 77);
        let moved = [t.median, t.mean, t.p90]
            .iter()
            .any(|r| (r - 1.0).abs() > MARGIN);
        for &est in ests {
            let x = tally(on, &change, 25, est, reps, t.median);
            let wrong = if t.mean > 1.0 { x.faster } else { x.slower };
            println!(
                "| {} ({:.3} / {:.3} / {:.3} / {:.3}) | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
                change.name,
                t.median,
                t.mean,
                t.p10,
                t.p90,
                est.name(),
                pct(x.slower, x.n),
                pct(x.mixed, x.n),
                pct(x.faster, x.n),
                pct(x.equivalent, x.n),
                pct(wrong, x.n),
                if moved { pct(x.equivalent, x.n) } else { 0.0 },
                pct(x.covers, x.n),
            );
        }
    }
}

/// `--until decided` as the runner does it: a look after every block from the rule's
/// minimum; the experiment stops at the first look whose sequence decision the shape check
/// of the data so far does not contradict, else at `max` blocks; the verdict is then the
/// analysis of the stopped file (sequence and shape check reconciled). Returns the outcome
/// and the blocks run.
pub(crate) fn until_decided(
    cfg: &SimConfig,
    change: &Change,
    max: u32,
    seed: u64,
) -> (Outcome, u32) {
    let e = simulate_change(cfg, change, SimDesign::Abba, max, 1, seed);
    let rule = SequentialRule {
        max_blocks: max,
        ..SequentialRule::new(0.05, MARGIN)
    };
    let prefix = |n: u32| {
        let mut d = e.dataset.clone();
        for s in &mut d.series {
            s.observations.retain(|o| o.block.is_some_and(|b| b < n));
        }
        d
    };
    let logs = dataset_log_ratios(&e.dataset, None).expect("positive blocks");
    let r = replay(&logs, &rule);
    let mut stop = max;
    for (i, look) in r.looks.iter().enumerate() {
        let n = u32::try_from(i + 1).expect("blocks");
        if n < rule.min_blocks || !look.decision.decided() {
            continue;
        }
        let data = prefix(n);
        let agrees = dataset_shape(&data, None, &rule)
            .is_none_or(|s| shape_agrees(look.decision, &s, data.higher_is_better, rule.margin));
        if agrees {
            stop = n;
            break;
        }
    }
    let config = AnalysisConfig {
        seed,
        sequential: Some(SequentialRun {
            rule,
            extended: false,
            budget_ended: false,
        }),
        ..AnalysisConfig::default()
    };
    let outcome = analyze(&prefix(stop), &config)
        .map(|a| a.groups[0].comparisons[0].outcome)
        .unwrap_or(Outcome::Inconclusive);
    (outcome, stop)
}

/// `cargo xtask until-decided-grid`.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run_until_decided(args: &UntilDecidedArgs) -> Result<()> {
    let reps = args.reps;
    let max = 60;
    println!("# --until decided (max {max} blocks), the default, {reps} sessions per cell");
    println!(
        "\n| profile | change (truth: median / mean / p10 / p90) | SLOWER | MIXED | FASTER | EQUIVALENT | wrong direction | false EQUIVALENT | median blocks |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut all = vec![Change::none(), Change::shift(1.02), Change::shift(1.10)];
    all.extend(changes());
    for profile in profiles(args.profile) {
        for change in &all {
            until_decided_row(profile, change, max, reps);
        }
    }
    Ok(())
}

/// One row of the `--until decided` table: `reps` sessions (seeds from 30,000).
fn until_decided_row(profile: NoiseProfile, change: &Change, max: u32, reps: u64) {
    let t = truth(&profile.config(), change, 400, 25, 77);
    let moved = [t.median, t.mean, t.p90]
        .iter()
        .any(|r| (r - 1.0).abs() > MARGIN);
    let half = reps / 2;
    let results: Vec<(Outcome, u32)> = std::thread::scope(|s| {
        let h = s.spawn(|| {
            (0..half)
                .map(|r| until_decided(&profile.config(), change, max, 30_000 + r))
                .collect::<Vec<_>>()
        });
        let mut b: Vec<(Outcome, u32)> = (half..reps)
            .map(|r| until_decided(&profile.config(), change, max, 30_000 + r))
            .collect();
        let mut a = h.join().expect("thread");
        a.append(&mut b);
        a
    });
    let n = u32::try_from(results.len()).expect("reps");
    let count =
        |o: Outcome| u32::try_from(results.iter().filter(|r| r.0 == o).count()).expect("count");
    let (slower, faster) = (count(Outcome::Slower), count(Outcome::Faster));
    let wrong = if t.mean > 1.0 + 1e-9 {
        faster
    } else if t.mean < 1.0 - 1e-9 {
        slower
    } else {
        slower + faster + count(Outcome::Mixed)
    };
    let mut blocks: Vec<u32> = results.iter().map(|r| r.1).collect();
    blocks.sort_unstable();
    println!(
        "| {} | {} ({:.3} / {:.3} / {:.3} / {:.3}) | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {} |",
        profile.as_str(),
        change.name,
        t.median,
        t.mean,
        t.p10,
        t.p90,
        pct(slower, n),
        pct(count(Outcome::Mixed), n),
        pct(faster, n),
        pct(count(Outcome::Equivalent), n),
        pct(wrong, n),
        if moved {
            pct(count(Outcome::Equivalent), n)
        } else {
            0.0
        },
        blocks[blocks.len() / 2],
    );
}

/// Flags of `part-coverage`.
#[derive(clap::Args, Debug)]
pub struct PartCoverageArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// ABBA blocks per session.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(6..))]
    blocks: u32,
    /// Only this noise profile (quiet, shared-vm, bursty, drift); by default every one.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<NoiseProfile>,
}

/// The changes of the part-coverage table: no change, a shift, the audit's non-shift
/// changes and spread up and down.
fn part_changes() -> Vec<Change> {
    let mut all = vec![Change::none(), Change::shift(1.02)];
    all.extend(changes());
    all.push(Change::scale(0.06));
    all.push(Change::mixture(
        "B's runs more consistent (A's spread lognormal SD 0.06)",
        vec![bench_lab::sim::Mode {
            weight: 1.0,
            factor: (1.0, 1.0),
            log_sd: 0.06,
        }],
        Vec::new(),
    ));
    all
}

/// Per part (p10, p50, p90, mean): sessions, intervals covering the pooled truth and the
/// session's truth, the sum of the intervals' levels, significant (adjusted p <= alpha),
/// the sum of the estimates' logs and of the session truths' logs.
#[derive(Debug, Default, Clone, Copy)]
struct PartTally {
    n: u32,
    covers: [u32; 4],
    covers_session: [u32; 4],
    level: [f64; 4],
    significant: [u32; 4],
    log_ratio: [f64; 4],
    log_session: [f64; 4],
}

impl PartTally {
    fn add(mut self, y: PartTally) -> PartTally {
        self.n += y.n;
        for j in 0..4 {
            self.covers[j] += y.covers[j];
            self.covers_session[j] += y.covers_session[j];
            self.level[j] += y.level[j];
            self.significant[j] += y.significant[j];
            self.log_ratio[j] += y.log_ratio[j];
            self.log_session[j] += y.log_session[j];
        }
        self
    }
}

fn part_tally(
    profile: NoiseProfile,
    change: &Change,
    blocks: u32,
    reps: u32,
    truth4: [f64; 4],
) -> PartTally {
    use bench_stats::paired::shape::{ShapeConfig, shape_analysis};
    let cfg = profile.config();
    let run = |range: std::ops::Range<u32>| {
        let mut t = PartTally::default();
        for r in range {
            let seed = 10_000 + u64::from(r);
            let e = simulate_change(&cfg, change, SimDesign::Abba, blocks, 1, seed);
            let mut a = vec![Vec::new(); blocks as usize];
            let mut b = vec![Vec::new(); blocks as usize];
            for &(v, blk, _, x) in &e.runs {
                if v == 0 {
                    a[blk as usize].push(x)
                } else {
                    b[blk as usize].push(x)
                }
            }
            let config = ShapeConfig {
                seed,
                ..ShapeConfig::default()
            };
            let Ok(s) = shape_analysis(&a, &b, &config) else {
                continue;
            };
            let st = session_truth(&cfg, change, &e, SESSION_REPLICAS, seed);
            let session4 = [st.p10, st.median, st.p90, st.mean];
            t.n += 1;
            for (j, p) in s.parts().enumerate().take(4) {
                let covers = |x: f64| p.interval.is_some_and(|[lo, hi]| lo <= x && x <= hi);
                t.covers[j] += u32::from(covers(truth4[j]));
                t.covers_session[j] += u32::from(covers(session4[j]));
                t.level[j] += p.confidence;
                t.significant[j] += u32::from(p.p_value_adjusted <= 0.05);
                t.log_ratio[j] += p.ratio.ln();
                t.log_session[j] += session4[j].ln();
            }
        }
        t
    };
    let half = reps / 2;
    let (x, y) = std::thread::scope(|s| {
        let h = s.spawn(|| run(0..half));
        let y = run(half..reps);
        (h.join().expect("thread"), y)
    });
    x.add(y)
}

/// `cargo xtask part-coverage`: each part's interval against the pooled truth ([`truth`],
/// 400 sessions' runs) and against each session's own truth ([`session_truth`], the
/// session's machine state held fixed), with the geometric mean of the session truths.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run_part_coverage(args: &PartCoverageArgs) -> Result<()> {
    let (reps, blocks) = (args.reps, args.blocks);
    println!(
        "# each part of the typical-run check against its true ratio (pooled over 400 sessions, and the session's own: {SESSION_REPLICAS} replicas of its runs on its machine state), {reps} sessions of {blocks} ABBA blocks per cell"
    );
    println!(
        "\n| profile | change | part | true ratio (pooled) | session's true ratio (geometric mean) | mean estimate | covered, pooled truth (nominal) | covered, session's truth | significant |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for profile in profiles(args.profile) {
        for change in part_changes() {
            let t = truth(&profile.config(), &change, 400, blocks, 77);
            let truth4 = [t.p10, t.median, t.p90, t.mean];
            let x = part_tally(profile, &change, blocks, reps, truth4);
            for (j, name) in ["p10", "p50", "p90", "mean"].iter().enumerate() {
                let n = f64::from(x.n.max(1));
                println!(
                    "| {} | {} | {} | {:.4} | {:.4} | {:.4} | {:.1}% ({:.1}%) | {:.1}% | {:.1}% |",
                    profile.as_str(),
                    change.name,
                    name,
                    truth4[j],
                    (x.log_session[j] / n).exp(),
                    (x.log_ratio[j] / n).exp(),
                    pct(x.covers[j], x.n),
                    100.0 * x.level[j] / n,
                    pct(x.covers_session[j], x.n),
                    pct(x.significant[j], x.n),
                );
            }
        }
    }
    Ok(())
}

/// Flags of `audit-grid`.
#[derive(clap::Args, Debug)]
pub struct AuditGridArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Only this noise profile (quiet, shared-vm, bursty, drift); by default every one.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<NoiseProfile>,
}

/// Outcomes of `reps` sessions through `analyze()` (seeds from 50,000), with how often a
/// differential-carryover warning fired and the `--fail-if-slower 5%` gate tripped.
fn audit_tally(
    cfg: &bench_stats::sim::SimConfig,
    change: &Change,
    blocks: u32,
    reps: u32,
) -> (Tally, u32, u32) {
    let run = |range: std::ops::Range<u32>| {
        let (mut t, mut warned, mut gate) = (Tally::default(), 0u32, 0u32);
        for r in range {
            let seed = 50_000 + u64::from(r);
            let Some(a) = analyze_change(cfg, change, blocks, seed) else {
                continue;
            };
            let o = a.groups[0].comparisons[0].outcome;
            t.n += 1;
            t.faster += u32::from(o == Outcome::Faster);
            t.slower += u32::from(o == Outcome::Slower);
            t.mixed += u32::from(o == Outcome::Mixed);
            t.equivalent += u32::from(o == Outcome::Equivalent);
            warned +=
                u32::from(a.warnings.iter().any(|w| {
                    w.code == bench_stats::model::report::WarningCode::DifferentialCarryover
                }));
            gate += u32::from(!bench_stats::analysis::regressions(&a, 0.05).is_empty());
        }
        (t, warned, gate)
    };
    let half = reps / 2;
    let (x, y) = std::thread::scope(|s| {
        let h = s.spawn(|| run(0..half));
        let y = run(half..reps);
        (h.join().expect("thread"), y)
    });
    (x.0.add(y.0), x.1 + y.1, x.2 + y.2)
}

/// `cargo xtask audit-grid`: the audit's cases through `analyze()`: a carryover that only
/// `B` leaves behind (runs right after `B` 5% slower, `B` itself unchanged) at 6 to 60
/// blocks, and spread up and down at 30 blocks with the `--fail-if-slower 5%` gate.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run_audit_grid(args: &AuditGridArgs) -> Result<()> {
    let reps = args.reps;
    println!("# the audit's cases through analyze(), {reps} sessions per cell, alpha 0.05");
    println!(
        "\n## runs right after B 5% slower, B unchanged (steady state: B 5% slower)\n\n| profile | blocks | FASTER | SLOWER | MIXED | EQUIVALENT | differential-carryover warning |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for profile in profiles(args.profile) {
        let cfg = profile.config().with_after_b(0.05);
        for blocks in [6, 8, 12, 20, 30, 60] {
            let (t, warned, _) = audit_tally(&cfg, &Change::none(), blocks, reps);
            println!(
                "| {} | {blocks} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
                profile.as_str(),
                pct(t.faster, t.n),
                pct(t.slower, t.n),
                pct(t.mixed, t.n),
                pct(t.equivalent, t.n),
                pct(warned, t.n),
            );
        }
    }
    println!(
        "\n## spread up and down, 30 blocks\n\n| profile | change | SLOWER | FASTER | MIXED | EQUIVALENT | --fail-if-slower 5% trips |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let spread = part_changes().split_off(part_changes().len() - 2);
    for profile in profiles(args.profile) {
        for change in &spread {
            let (t, _, gate) = audit_tally(&profile.config(), change, 30, reps);
            println!(
                "| {} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
                profile.as_str(),
                change.name,
                pct(t.slower, t.n),
                pct(t.faster, t.n),
                pct(t.mixed, t.n),
                pct(t.equivalent, t.n),
                pct(gate, t.n),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_counts;

    #[test]
    fn unequal_counts_are_read_as_a_plus_b() {
        assert_eq!(parse_counts("3+1"), Ok((3, 1)));
        assert_eq!(parse_counts("1 + 16"), Ok((1, 16)));
        for bad in ["3", "0+1", "1+17", "a+1", "3+1+1", ""] {
            let e = parse_counts(bad).unwrap_err();
            assert!(e.contains("is not A+B"), "{bad}: {e}");
        }
    }
}
