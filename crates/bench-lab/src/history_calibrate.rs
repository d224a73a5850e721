//! `cargo xtask history-calibrate`: the calibration of `abba history` on simulated commit
//! histories (issue 29, item 6).
//!
//! Series of `--commits` commits (default 200) on each noise profile of `bench_stats::sim`,
//! with no change, one step of +1%, +2% or +5% at commit 100, or a creep of +0.1% per commit
//! from commit 100 on. Two ways of measuring each commit:
//!
//! - **levels**: each commit measured alone in its own session (a fresh machine state, as
//!   a CI job is), its level the median of `--runs` runs (default 12); change points by
//!   e-divisive means on the whole series (offline, as `history show` runs it), and online:
//!   on the series up to `100 + d` commits for `d = 1, 2, ...`, the first `d` at which a
//!   change point near commit 100 is found (the delay, in commits at the new level,
//!   counting the changed one);
//! - **paired steps**: each commit compared with its parent in `--blocks` ABBA blocks
//!   (default 6, so as many runs of the commit as the level has, plus as many of its
//!   parent, and 20, `abba compare`'s default); each step is abba's default estimate (the
//!   Hodges-Lehmann estimate of the block log ratios of each variant's least disturbed
//!   run, with its signed-rank 95% interval), taken into the chain by
//!   [`Step::from_interval`]. Two per-step tests (abba's verdict, the interval excluding 1;
//!   and [`Step::p_value`] at most 0.01), and the chain since the commit before the change
//!   (the first `d` whose 95% interval excludes 1).
//!
//! A change point counts as the change when it lies within `TOLERANCE` commits of commit
//! 100 (for the creep: at commit `100 - TOLERANCE` or later); every other is false.

use anyhow::{Result, bail};
use bench_lab::sim::{NoiseProfile, SimDesign, simulate, values};
use bench_stats::history::{ChangePointConfig, Step, chain, e_divisive, energy_split_statistics};

use crate::table::TextTable as Table;

/// Flags of `history-calibrate`.
#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    /// Simulated histories per profile and scenario.
    #[arg(long, default_value_t = 100)]
    reps: u64,
    /// Commits per history (the change is at commit `commits / 2`).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(40..=2000))]
    commits: u64,
    /// Runs per commit for the levels (one session per commit, their median).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(2..=200))]
    runs: u32,
    /// ABBA blocks per paired step (a comma-separated list: one table row each).
    #[arg(long, value_delimiter = ',', default_values_t = [6u32, 20], value_parser = clap::value_parser!(u32).range(2..=100))]
    blocks: Vec<u32>,
    /// Longest online delay looked at, in commits after the change.
    #[arg(long, default_value_t = 50)]
    horizon: usize,
    /// Only the default configuration of e-divisive, not the grid.
    #[arg(long)]
    defaults_only: bool,
}

/// How far from the true change a change point may lie and still be it.
pub const TOLERANCE: usize = 5;

/// What changes in a history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scenario {
    /// Every commit the same.
    None,
    /// One step of this fraction at the change commit.
    Step(f64),
    /// This fraction per commit from the change commit on.
    Creep(f64),
}

impl Scenario {
    /// The scenarios of the table.
    pub const ALL: [Scenario; 5] = [
        Scenario::None,
        Scenario::Step(0.01),
        Scenario::Step(0.02),
        Scenario::Step(0.05),
        Scenario::Creep(0.001),
    ];

    /// The true level of commit `c` (relative to commit 0) when the change is at `at`.
    pub fn level(self, c: usize, at: usize) -> f64 {
        match self {
            Scenario::None => 1.0,
            Scenario::Step(s) if c >= at => 1.0 + s,
            Scenario::Creep(s) if c >= at => (1.0 + s).powi((c - at + 1) as i32),
            Scenario::Step(_) | Scenario::Creep(_) => 1.0,
        }
    }

    /// Whether change point `index` is the change (not a false one).
    pub fn is_the_change(self, index: usize, at: usize) -> bool {
        match self {
            Scenario::None => false,
            Scenario::Step(_) => index.abs_diff(at) <= TOLERANCE,
            Scenario::Creep(_) => index + TOLERANCE >= at,
        }
    }
}

/// The paired steps of one history (`steps[c - 1]` compares commit `c` with `c - 1`).
pub struct Steps {
    /// Each step as the chain takes it.
    pub steps: Vec<Step>,
    /// Each step's 95% interval of the ratio, as abba reports it.
    pub intervals: Vec<[f64; 2]>,
}

/// The per-commit levels of one history of `commits` commits on `profile`, the change at
/// `commits / 2`: each commit in its own session, the median of `runs` runs.
pub fn levels(
    profile: NoiseProfile,
    scenario: Scenario,
    commits: usize,
    runs: u32,
    seed: u64,
) -> Vec<f64> {
    let at = commits / 2;
    let cfg = profile.config();
    // A sequential experiment gives each variant its own session of 2 runs per block.
    let session_blocks = runs.div_ceil(2);
    (0..commits)
        .map(|c| {
            let e = simulate(
                &cfg,
                SimDesign::Sequential,
                session_blocks,
                seed * 100_003 + c as u64,
            );
            let mut v = values(&e, 0);
            v.truncate(runs as usize);
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let median = if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            };
            median * scenario.level(c, at)
        })
        .collect()
}

/// The paired steps of one history: each commit against its parent in `blocks` ABBA
/// blocks, estimated as abba's default does.
pub fn steps(
    profile: NoiseProfile,
    scenario: Scenario,
    commits: usize,
    blocks: u32,
    seed: u64,
) -> Steps {
    let at = commits / 2;
    let cfg = profile.config();
    let mut intervals = Vec::new();
    let steps = (1..commits)
        .map(|c| {
            let effect = scenario.level(c, at) / scenario.level(c - 1, at);
            let e = simulate(
                &cfg.with_effect(effect),
                SimDesign::Abba,
                blocks,
                (seed * 100_003 + c as u64) ^ 0x005E_ED0F_57E9,
            );
            // What `abba compare --record` records: abba's default paired comparison (the
            // typical run), its ratio and interval at the interval's own level.
            let config = bench_stats::AnalysisConfig {
                seed: seed ^ c as u64,
                ..bench_stats::AnalysisConfig::default()
            };
            let (ratio, ci, level) = match bench_stats::analyze(&e.dataset, &config) {
                Ok(a) => {
                    let cmp = &a.groups[0].comparisons[0];
                    let level = cmp
                        .distribution
                        .as_ref()
                        .map_or(a.confidence, |d| d.confidence);
                    match (cmp.ratio, cmp.ratio_ci) {
                        (Some(r), Some(ci)) => (r, ci, level),
                        _ => (1.0, [0.0, f64::INFINITY], level),
                    }
                }
                Err(_) => (1.0, [0.0, f64::INFINITY], 0.95),
            };
            intervals.push(ci);
            Step::from_interval(ratio, ci, level).unwrap_or(Step {
                log_ratio: ratio.ln(),
                std_error: f64::INFINITY,
            })
        })
        .collect();
    Steps { steps, intervals }
}

/// Scores of e-divisive on the levels of many histories.
#[derive(Debug, Default, Clone)]
pub struct LevelScore {
    /// False change points (offline, whole series).
    pub false_points: usize,
    /// Histories whose offline change points include the change.
    pub detected: usize,
    /// Online: delays (commits at the new level) of the histories detected within the
    /// horizon.
    pub delays: Vec<usize>,
    /// Histories scored.
    pub histories: usize,
    /// Commits per history.
    pub commits: usize,
}

impl LevelScore {
    /// False change points per 100 commits.
    pub fn false_per_100(&self) -> f64 {
        100.0 * self.false_points as f64 / (self.histories * self.commits) as f64
    }

    /// Share of histories whose change was found offline.
    pub fn detection(&self) -> f64 {
        self.detected as f64 / self.histories as f64
    }

    /// Share found online within the horizon.
    pub fn online(&self) -> f64 {
        self.delays.len() as f64 / self.histories as f64
    }

    /// Median online delay, if any was found.
    pub fn median_delay(&self) -> Option<usize> {
        let mut d = self.delays.clone();
        d.sort_unstable();
        d.get(d.len().saturating_sub(1) / 2).copied()
    }
}

/// Scores one history's levels under `config` into `score`.
pub fn score_levels(
    levels: &[f64],
    scenario: Scenario,
    config: &ChangePointConfig,
    horizon: usize,
    score: &mut LevelScore,
) {
    let n = levels.len();
    let at = n / 2;
    let found = e_divisive(levels, config);
    score.histories += 1;
    score.commits = n;
    score.false_points += found
        .iter()
        .filter(|c| !scenario.is_the_change(c.index, at))
        .count();
    if scenario != Scenario::None {
        score.detected += usize::from(found.iter().any(|c| scenario.is_the_change(c.index, at)));
        for d in 1..=horizon.min(n - at) {
            let prefix = &levels[..at + d];
            // The change can only be seen once min_segment commits are at the new level.
            if d < config.min_segment {
                continue;
            }
            if e_divisive(prefix, config)
                .iter()
                .any(|c| scenario.is_the_change(c.index, at))
            {
                score.delays.push(d);
                break;
            }
        }
    }
}

/// Scores of the paired steps of many histories.
#[derive(Debug, Default, Clone)]
pub struct StepScore {
    /// Steps without a true change flagged by the per-step test.
    pub false_flags: usize,
    /// Steps without a true change.
    pub null_steps: usize,
    /// Steps with a true change flagged.
    pub flagged_changes: usize,
    /// Steps with a true change.
    pub changed_steps: usize,
    /// Delays of the chain since the commit before the change, when its interval
    /// excluded 1 within the horizon (for no change: histories where it ever did).
    pub chain_delays: Vec<usize>,
    /// Histories scored.
    pub histories: usize,
}

/// The per-step test of a paired step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepTest {
    /// abba's verdict: the step's 95% interval excludes 1.
    Interval95,
    /// The step's two-sided normal p ([`Step::p_value`]) at most this.
    P(f64),
}

impl StepTest {
    fn name(self) -> String {
        match self {
            StepTest::Interval95 => {
                "the recorded interval excludes 1 (the typical run's, at its share of the 95% family level)".into()
            }
            StepTest::P(a) => format!("p <= {a}"),
        }
    }

    fn flags(self, step: &Step, interval: [f64; 2]) -> bool {
        match self {
            StepTest::Interval95 => interval[0] > 1.0 || interval[1] < 1.0,
            StepTest::P(a) => step.p_value().is_some_and(|p| p <= a),
        }
    }
}

/// Scores one history's steps: the per-step `test`, the chain at 95%.
pub fn score_steps(
    h: &Steps,
    scenario: Scenario,
    test: StepTest,
    horizon: usize,
    s: &mut StepScore,
) {
    let commits = h.steps.len() + 1;
    let at = commits / 2;
    s.histories += 1;
    for (i, (step, &ci)) in h.steps.iter().zip(&h.intervals).enumerate() {
        let c = i + 1;
        let changed = (scenario.level(c, at) / scenario.level(c - 1, at) - 1.0).abs() > 1e-12;
        let flagged = test.flags(step, ci);
        if changed {
            s.changed_steps += 1;
            s.flagged_changes += usize::from(flagged);
        } else {
            s.null_steps += 1;
            s.false_flags += usize::from(flagged);
        }
    }
    // steps[at - 1] compares commit `at` with `at - 1`.
    for d in 1..=horizon.min(commits - at) {
        let Some(c) = chain(&h.steps[at - 1..at - 1 + d], 0.95) else {
            continue;
        };
        if c.interval[0] > 1.0 || c.interval[1] < 1.0 {
            s.chain_delays.push(d);
            break;
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

fn pct1(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// Median wall time of `f` over `n` calls, in ms.
fn time_ms(n: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[n / 2]
}

/// The energy statistic of every split straight from its definition, O(n^2): the speed
/// reference of `energy_split_statistics`.
fn direct_statistics(v: &[f64]) -> Vec<f64> {
    let w = v.len();
    let mut out = vec![0.0; w];
    let (mut within_x, mut across) = (0.0, 0.0);
    let mut within_y = 0.0;
    for i in 0..w {
        for j in i + 1..w {
            within_y += (v[i] - v[j]).abs();
        }
    }
    for tau in 0..w {
        if tau > 0 {
            let (m, n) = (tau as f64, (w - tau) as f64);
            out[tau] = m * n / (m + n)
                * (2.0 * across / (m * n) - 2.0 * within_x / (m * m) - 2.0 * within_y / (n * n));
        }
        let k = v[tau];
        let to_x: f64 = v[..tau].iter().map(|x| (x - k).abs()).sum();
        let to_y: f64 = v[tau + 1..].iter().map(|y| (y - k).abs()).sum();
        across += to_y - to_x;
        within_x += to_x;
        within_y -= to_y;
    }
    out
}

/// Prints the cost of e-divisive as `history show` calls it.
fn print_speed() {
    let cfg = ChangePointConfig::default();
    for n in [200usize, 2000] {
        let l = levels(NoiseProfile::SharedVm, Scenario::Step(0.05), n, 12, 1);
        let found = e_divisive(&l, &cfg).len();
        let ms = time_ms(11, || {
            std::hint::black_box(e_divisive(&l, &cfg));
        });
        let fast = time_ms(11, || {
            std::hint::black_box(energy_split_statistics(&l));
        });
        let direct = time_ms(11, || {
            std::hint::black_box(direct_statistics(&l));
        });
        println!(
            "Speed: e_divisive on {n} levels (shared-vm, a 5% step; {found} change point(s)), min_segment {}, alpha {}, {} permutations: {ms:.2} ms per call (median of 11). One ordering's split statistics: {:.3} ms (Fenwick, O(n log n)) against {:.3} ms (direct, O(n^2)), {:.1}x.\n",
            cfg.min_segment,
            cfg.alpha,
            cfg.permutations,
            fast,
            direct,
            direct / fast
        );
    }
}

fn delay(score: &LevelScore) -> String {
    match score.median_delay() {
        Some(d) => format!("{} ({})", d, pct(score.online())),
        None => format!("- ({})", pct(score.online())),
    }
}

/// The grid of e-divisive configurations scored.
pub fn grid(defaults_only: bool) -> Vec<ChangePointConfig> {
    if defaults_only {
        return vec![ChangePointConfig::default()];
    }
    let mut out = Vec::new();
    for min_segment in [3, 5, 8] {
        for alpha in [0.05, 0.01, 0.005] {
            out.push(ChangePointConfig {
                min_segment,
                alpha,
                permutations: 199,
                seed: 0,
            });
        }
    }
    out
}

/// Runs the calibration and prints its tables (Markdown).
pub fn run(args: &HistoryArgs) -> Result<()> {
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let configs = grid(args.defaults_only);
    let blocks: Vec<String> = args.blocks.iter().map(u32::to_string).collect();
    println!(
        "Command: cargo xtask history-calibrate --reps {} --commits {} --runs {} --blocks {} --horizon {}{}\n",
        args.reps,
        args.commits,
        args.runs,
        blocks.join(","),
        args.horizon,
        if args.defaults_only {
            " --defaults-only"
        } else {
            ""
        }
    );
    print_speed();
    let mut level_table = level_table();
    let mut paired = step_table();
    for profile in NoiseProfile::ALL {
        level_rows(&mut level_table, profile, &configs, args);
        step_rows(&mut paired, profile, args);
    }
    print_tables(&level_table, &paired, args);
    Ok(())
}

/// The levels table's columns: e-divisive's false points and detections per configuration.
fn level_table() -> Table {
    Table::new([
        "profile",
        "min_segment",
        "alpha",
        "false / 100 commits (none)",
        "false / 100 (with a change)",
        "found 1%",
        "found 2%",
        "found 5%",
        "found creep",
        "delay 1%",
        "delay 2%",
        "delay 5%",
        "delay creep",
    ])
}

/// The paired steps table's columns: the per-step test's flags and the chain's alarms.
fn step_table() -> Table {
    Table::new([
        "profile",
        "blocks",
        "per-step test",
        "false flags / 100 commits",
        "flagged 1%",
        "flagged 2%",
        "flagged 5%",
        "creep steps flagged",
        "chain alarm (none)",
        "chain delay 1%",
        "chain delay 2%",
        "chain delay 5%",
        "chain delay creep",
    ])
}

/// The levels table's rows of one noise profile: e-divisive under each configuration on
/// `--reps` histories of every scenario.
fn level_rows(
    level_table: &mut Table,
    profile: NoiseProfile,
    configs: &[ChangePointConfig],
    args: &HistoryArgs,
) {
    let commits = args.commits as usize;
    let series: Vec<Vec<Vec<f64>>> = Scenario::ALL
        .iter()
        .map(|&sc| {
            (0..args.reps)
                .map(|r| levels(profile, sc, commits, args.runs, 7_000 + r))
                .collect()
        })
        .collect();
    for cfg in configs {
        let scores: Vec<LevelScore> = Scenario::ALL
            .iter()
            .zip(&series)
            .map(|(&sc, hs)| {
                let mut s = LevelScore::default();
                for h in hs {
                    score_levels(h, sc, cfg, args.horizon, &mut s);
                }
                s
            })
            .collect();
        let with_change: (usize, usize) = scores[1..].iter().fold((0, 0), |(f, n), s| {
            (f + s.false_points, n + s.histories * s.commits)
        });
        level_table.row([
            profile.as_str().to_owned(),
            cfg.min_segment.to_string(),
            cfg.alpha.to_string(),
            format!("{:.3}", scores[0].false_per_100()),
            format!("{:.3}", 100.0 * with_change.0 as f64 / with_change.1 as f64),
            pct1(scores[1].detection()),
            pct1(scores[2].detection()),
            pct1(scores[3].detection()),
            pct1(scores[4].detection()),
            delay(&scores[1]),
            delay(&scores[2]),
            delay(&scores[3]),
            delay(&scores[4]),
        ]);
    }
}

/// The paired steps table's rows of one noise profile: each `--blocks` count under each
/// per-step test, on `--reps` histories of every scenario.
fn step_rows(paired: &mut Table, profile: NoiseProfile, args: &HistoryArgs) {
    let commits = args.commits as usize;
    for &b in &args.blocks {
        let histories: Vec<Vec<Steps>> = Scenario::ALL
            .iter()
            .map(|&sc| {
                (0..args.reps)
                    .map(|r| steps(profile, sc, commits, b, 7_000 + r))
                    .collect()
            })
            .collect();
        for test in [StepTest::Interval95, StepTest::P(0.01)] {
            let scores: Vec<StepScore> = Scenario::ALL
                .iter()
                .zip(&histories)
                .map(|(&sc, hs)| {
                    let mut s = StepScore::default();
                    for h in hs {
                        score_steps(h, sc, test, args.horizon, &mut s);
                    }
                    s
                })
                .collect();
            let chain_delay = |s: &StepScore| {
                let mut d = s.chain_delays.clone();
                d.sort_unstable();
                let share = pct(d.len() as f64 / s.histories as f64);
                match d.get(d.len().saturating_sub(1) / 2) {
                    Some(m) => format!("{m} ({share})"),
                    None => format!("- ({share})"),
                }
            };
            let null_steps: (usize, usize) = scores
                .iter()
                .fold((0, 0), |(f, n), s| (f + s.false_flags, n + s.null_steps));
            let flagged =
                |s: &StepScore| pct(s.flagged_changes as f64 / s.changed_steps.max(1) as f64);
            paired.row([
                profile.as_str().to_owned(),
                b.to_string(),
                test.name(),
                format!("{:.2}", 100.0 * null_steps.0 as f64 / null_steps.1 as f64),
                flagged(&scores[1]),
                flagged(&scores[2]),
                flagged(&scores[3]),
                flagged(&scores[4]),
                pct(scores[0].chain_delays.len() as f64 / scores[0].histories as f64),
                chain_delay(&scores[1]),
                chain_delay(&scores[2]),
                chain_delay(&scores[3]),
                chain_delay(&scores[4]),
            ]);
        }
    }
}

/// Prints both tables, each under its heading and the words that read it.
fn print_tables(level_table: &Table, paired: &Table, args: &HistoryArgs) {
    let commits = args.commits as usize;
    println!(
        "### Levels: e-divisive means on the median of {} runs per commit ({} histories of {} commits per cell; 199 permutations)\n",
        args.runs, args.reps, commits
    );
    println!(
        "found: share of histories whose change was found (offline, the whole series; within {TOLERANCE} commits). delay: median commits at the new level (the changed one included) before the series up to then shows the change, and the share found within {} commits.\n",
        args.horizon
    );
    println!("{}", level_table.markdown());
    println!(
        "### Paired steps: each commit against its parent in ABBA blocks, abba's default estimate ({} histories per cell)\n",
        args.reps
    );
    println!(
        "false flags: steps without a change flagged by the per-step test, per 100 commits (all scenarios). flagged: share of changed steps flagged. chain: the chain of steps since the commit before the change, 95%; alarm (none): share of histories where it excluded 1 within {} commits; delay: median steps until it excluded 1, and the share that did.\n",
        args.horizon
    );
    println!("{}", paired.markdown());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calibration in miniature: a handful of short histories per scenario on the
    /// quiet machine and the shared VM, with the scores a working detector must reach.
    #[test]
    fn smoke_calibration_detects_clear_changes_and_little_else() {
        let cfg = ChangePointConfig::default();
        for profile in [NoiseProfile::Quiet, NoiseProfile::SharedVm] {
            let mut none = LevelScore::default();
            let mut five = LevelScore::default();
            let mut steps_none = StepScore::default();
            let mut steps_five = StepScore::default();
            for r in 0..4 {
                let l = levels(profile, Scenario::None, 60, 12, r);
                score_levels(&l, Scenario::None, &cfg, 15, &mut none);
                let l = levels(profile, Scenario::Step(0.05), 60, 12, r);
                score_levels(&l, Scenario::Step(0.05), &cfg, 15, &mut five);
                let s = steps(profile, Scenario::None, 60, 10, r);
                score_steps(
                    &s,
                    Scenario::None,
                    StepTest::Interval95,
                    15,
                    &mut steps_none,
                );
                let s = steps(profile, Scenario::Step(0.05), 60, 10, r);
                score_steps(
                    &s,
                    Scenario::Step(0.05),
                    StepTest::Interval95,
                    15,
                    &mut steps_five,
                );
            }
            assert!(none.false_points <= 1, "{profile}: {none:?}");
            assert!(five.detected >= 3, "{profile}: {five:?}");
            assert!(five.online() >= 0.75, "{profile}: {five:?}");
            assert!(
                five.median_delay().is_some_and(|d| d <= 10),
                "{profile}: {five:?}"
            );
            assert_eq!(steps_five.changed_steps, 4);
            assert!(steps_five.flagged_changes >= 3, "{profile}: {steps_five:?}");
            // 236 steps without a change at 95%: about 12 expected false flags.
            assert!(steps_none.false_flags <= 30, "{profile}: {steps_none:?}");
        }
    }

    #[test]
    fn the_speed_reference_computes_the_same_statistic() {
        let l = levels(NoiseProfile::Bursty, Scenario::Step(0.02), 80, 12, 3);
        let fast = energy_split_statistics(&l);
        for (a, b) in fast.iter().zip(direct_statistics(&l)) {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-12), "{a} {b}");
        }
    }

    #[test]
    fn scenarios_levels_and_the_change_window() {
        assert_eq!(Scenario::Step(0.02).level(99, 100), 1.0);
        assert_eq!(Scenario::Step(0.02).level(100, 100), 1.02);
        assert!((Scenario::Creep(0.001).level(101, 100) - 1.001f64.powi(2)).abs() < 1e-15);
        assert!(Scenario::Step(0.01).is_the_change(105, 100));
        assert!(!Scenario::Step(0.01).is_the_change(106, 100));
        assert!(Scenario::Creep(0.001).is_the_change(150, 100));
        assert!(!Scenario::Creep(0.001).is_the_change(94, 100));
        assert!(!Scenario::None.is_the_change(100, 100));
    }
}
