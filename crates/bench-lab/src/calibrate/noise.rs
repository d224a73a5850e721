//! `calibrate --noise`: the calibration under a seeded noisy neighbour, with abba's
//! default beside what sequential tools conclude from the same number of runs.
//!
//! Per repetition and scenario (A/A, A/B) it runs, in an order rotated by repetition:
//!
//! 1. `abba compare` with its defaults (ABBA, `--blocks`): the verdict is read from the
//!    analysis JSON, so it follows whatever estimator abba's default is;
//! 2. `abba compare --design sequential --blocks 2*BLOCKS` (all of A, then all of B, the
//!    order hyperfine uses): Welch's t (bench-stats) on the raw runs, and the Mann-Whitney
//!    p that abba's analysis JSON reports;
//! 3. `hyperfine -N --runs 2*BLOCKS A B` when hyperfine is on PATH: Welch's t and
//!    Mann-Whitney (bench-stats) on its exported times.
//!
//! The CPU-time columns (issue 36) decide the same runs on their CPU time (user + sys):
//! the ABBA runs through `abba analyze --metric cpu`, the sequential runs with Welch's t.
//! hyperfine exports only the means of its user and system times, so it has no CPU column.
//!
//! The neighbour (`cargo xtask neighbour --seed SEED`, this same binary) runs from before
//! the first experiment to after the last, and is killed and waited for on every way out.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use bench_stats::Sample;
use bench_stats::parametric::welch_t_test;
use bench_stats::rank::mann_whitney_u;

use super::rates::{quantile, sorted_finite};
use super::side::{self, Decision, Method, test_call};
use super::{CalibrateArgs, Design, Runtime, Scenario, Setup, experiment, load_average};
use crate::neighbour::schedule::summarize;
use crate::run::stdout_of;

/// Level of the Welch and Mann-Whitney tests of the sequential tools (abba's default
/// alpha; abba's own verdicts use the alpha of their analysis).
const ALPHA: f64 = 0.05;

/// The noisy neighbour as a child process: killed and waited for when dropped.
#[derive(Debug)]
pub(crate) struct Neighbour {
    child: Child,
    started: Instant,
}

impl Neighbour {
    /// Starts `THIS_EXE neighbour --seed SEED --duration 24h`; it also stops by itself
    /// when this process dies.
    pub(crate) fn start(seed: u64) -> Result<Self> {
        let exe = std::env::current_exe().context("finding the xtask binary")?;
        let child = Command::new(&exe)
            .args([
                "neighbour",
                "--seed",
                &seed.to_string(),
                "--duration",
                "24h",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {} neighbour", exe.display()))?;
        Ok(Neighbour {
            child,
            started: Instant::now(),
        })
    }

    /// Stops the neighbour; `false` when it had already exited (the load was missing for
    /// part of the run).
    pub(crate) fn stop(mut self) -> bool {
        let alive = matches!(self.child.try_wait(), Ok(None));
        let _ = self.child.kill();
        let _ = self.child.wait();
        alive
    }
}

impl Drop for Neighbour {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The baseline runs of one experiment, for the noise facts.
#[derive(Debug, Clone, PartialEq)]
struct Noise {
    /// Per-run SD of A over its mean.
    cv: f64,
    /// A's runs above 1.25 times A's median, and A's runs.
    slow: (usize, usize),
}

impl Noise {
    fn of(a: &[f64]) -> Option<Noise> {
        let sorted = sorted_finite(a.iter().copied());
        let n = sorted.len() as f64;
        let median = quantile(&sorted, 0.5)?;
        let mean = sorted.iter().sum::<f64>() / n;
        let var = sorted.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let slow = sorted.iter().filter(|&&v| v > 1.25 * median).count();
        (sorted.len() >= 2 && mean > 0.0).then(|| Noise {
            cv: var.sqrt() / mean,
            slow: (slow, sorted.len()),
        })
    }
}

/// Everything the experiments of a `--noise` run found.
#[derive(Debug, Default)]
struct Results {
    decisions: Vec<Decision>,
    noise: Vec<Noise>,
    /// `verdict_basis` of abba's default analyses (one entry per distinct value).
    bases: Vec<String>,
}

/// Runs the `--noise` calibration and prints (and saves) the side-by-side table.
///
/// # Errors
/// When the neighbour cannot be started, or an experiment fails.
pub(super) fn run(setup: &Setup, args: &CalibrateArgs) -> Result<()> {
    let hyperfine = hyperfine_version();
    if hyperfine.is_none() {
        eprintln!("note: hyperfine is not on PATH: its columns are skipped");
    }
    let methods: Vec<Method> = Method::ALL
        .into_iter()
        .filter(|m| hyperfine.is_some() || !m.needs_hyperfine())
        .collect();
    let load_start = load_average();
    let neighbour = Neighbour::start(args.seed)?;
    let results = measure(setup, args, hyperfine.is_some())?;
    let elapsed = neighbour.started.elapsed();
    let stayed = neighbour.stop();
    let load_end = load_average();

    let table = side::render(&results.decisions, &methods, args.blocks, args.effect_pct);
    let facts = facts(
        &results,
        args,
        hyperfine.as_deref(),
        elapsed.as_secs_f64(),
        stayed,
    );
    println!("{table}\n{facts}");
    let runtime = Runtime {
        elapsed: elapsed.as_secs_f64(),
        load_start,
        load_end,
    };
    let body = format!("{table}\n{facts}");
    let report = super::report(args, &args.command_line(), setup.runs, &runtime, &body)?;
    super::write_report(&setup.out_dir, &format!("{report}{LEGEND}\n"))
}

const LEGEND: &str = "\
Each cell: the share of experiments called significant with its Wilson 95% interval (A/A: \
in either direction, the false-positive rate; +effect: significant and slower, the share of \
the known effect found). abba default: the verdict of `abba compare`'s JSON (ABBA blocks, \
paired, the practical-effect gate on); gate off: the same raw runs re-analyzed with \
`--min-practical-effect 0`; abba --metric cpu: the same raw runs re-decided on their CPU time (user + sys, `abba analyze --metric cpu`). Sequential: `abba compare --design sequential` (all A runs, then \
all B runs) analysed with Welch's t (bench-stats) and the Mann-Whitney p of abba's analysis; \
Welch on CPU time: the same sequential runs' user + sys times; hyperfine: `hyperfine -N --runs N` with Welch's t and Mann-Whitney (bench-stats) on its \
times; these tests decide at p < 0.05, without a practical gate. Median B/A: abba's ratio, \
the ratio of means (Welch) or of medians (Mann-Whitney), median over the A/B experiments.";

/// `hyperfine --version`'s line, when hyperfine runs.
fn hyperfine_version() -> Option<String> {
    let out = Command::new("hyperfine").arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Which program measured one experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Abba,
    Sequential,
    Hyperfine,
}

/// Runs every experiment `--reps` times under the neighbour.
fn measure(setup: &Setup, args: &CalibrateArgs, hyperfine: bool) -> Result<Results> {
    let mut plan = Vec::new();
    for scenario in [Scenario::Null, Scenario::Shift] {
        plan.push((scenario, Tool::Abba));
        plan.push((scenario, Tool::Sequential));
        if hyperfine {
            plan.push((scenario, Tool::Hyperfine));
        }
    }
    let mut results = Results::default();
    for rep in 0..args.reps {
        let seed = args.seed.wrapping_add(u64::from(rep));
        for i in 0..plan.len() {
            // Rotated, so slow drift of the machine does not always fall on one cell.
            let (scenario, tool) = plan[(i + rep as usize) % plan.len()];
            let t0 = Instant::now();
            let before = results.decisions.len();
            one(setup, args, (scenario, tool), seed, &mut results)?;
            let calls: Vec<String> = results.decisions[before..]
                .iter()
                .map(|d| format!("{:?} {}", d.method, d.call.text()))
                .collect();
            eprintln!(
                "rep {}/{} {} {tool:?}: {} ({:.1} s)",
                rep + 1,
                args.reps,
                scenario.label(),
                calls.join(", "),
                t0.elapsed().as_secs_f64()
            );
        }
    }
    Ok(results)
}

/// One experiment; its decisions and noise go into `results`.
fn one(
    setup: &Setup,
    args: &CalibrateArgs,
    (scenario, tool): (Scenario, Tool),
    seed: u64,
    results: &mut Results,
) -> Result<()> {
    let [cmd_a, cmd_b] = &setup.cmds;
    let cand = match scenario {
        Scenario::Null => cmd_a,
        Scenario::Shift => cmd_b,
    };
    let cmds = [cmd_a.as_str(), cand.as_str()];
    let dir = &setup.out_dir;
    let design = match tool {
        Tool::Abba => Design::Abba,
        Tool::Sequential | Tool::Hyperfine => Design::Sequential,
    };
    let stem = format!("noise-{}-{tool:?}-seed{seed}", scenario.slug()).to_lowercase();
    let push = |results: &mut Results, method, call, ratio| {
        results.decisions.push(Decision {
            method,
            scenario,
            call,
            ratio,
        });
    };
    if tool == Tool::Hyperfine {
        let [a, b] = hyperfine_times(dir, &stem, cmds, 2 * args.blocks)?;
        results.noise.extend(Noise::of(&a));
        let (welch, mwu) = unpaired_tests(&a, &b)?;
        push(results, Method::HyperfineWelch, welch.0, welch.1);
        push(results, Method::HyperfineMannWhitney, mwu.0, mwu.1);
        return Ok(());
    }
    let blocks = design.blocks(args.blocks);
    let obs = experiment(&setup.abba, dir, &stem, cmds, design, blocks, seed)?;
    let [a, b] = raw_values(&dir.join(format!("{stem}.jsonl")))?;
    results.noise.extend(Noise::of(&a));
    let r = &obs.default;
    if tool == Tool::Abba {
        if !results.bases.contains(&r.basis) {
            results.bases.push(r.basis.clone());
        }
        push(results, Method::AbbaDefault, r.call, r.ratio);
        push(results, Method::AbbaGateOff, obs.gate_off, r.ratio);
        let cpu = on_cpu_time(&setup.abba, &dir.join(format!("{stem}.jsonl")))?;
        push(results, Method::AbbaCpu, cpu.call, cpu.ratio);
        return Ok(());
    }
    let (welch, _) = unpaired_tests(&a, &b)?;
    push(results, Method::SequentialWelch, welch.0, welch.1);
    let [ca, cb] = raw_cpu_values(&dir.join(format!("{stem}.jsonl")))?;
    let (welch_cpu, _) = unpaired_tests(&ca, &cb)?;
    push(
        results,
        Method::SequentialWelchCpu,
        welch_cpu.0,
        welch_cpu.1,
    );
    let medians = r.medians;
    let mwu = test_call(
        r.mann_whitney_p,
        r.alpha,
        medians.map_or(0.0, |[a, b]| b - a),
    );
    push(
        results,
        Method::SequentialMannWhitney,
        mwu,
        medians.map(|[a, b]| b / a),
    );
    Ok(())
}

/// A test's call and its B/A estimate.
type Estimate = (super::Call, Option<f64>);

/// Welch's t (call, ratio of means) and Mann-Whitney U (call, ratio of medians) of B
/// against A, both at [`ALPHA`], both from bench-stats.
fn unpaired_tests(a: &[f64], b: &[f64]) -> Result<(Estimate, Estimate)> {
    let (sa, sb) = (Sample::new(a)?, Sample::new(b)?);
    let welch = welch_t_test(&sa, &sb).ok();
    let welch_call = test_call(
        welch.map(|w| w.p_value),
        ALPHA,
        welch.map_or(0.0, |w| -w.mean_difference),
    );
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let median = |v: &[f64]| quantile(&sorted_finite(v.iter().copied()), 0.5);
    let mwu = mann_whitney_u(&sa, &sb).ok().map(|m| m.p_value);
    let (ma, mb) = (median(a), median(b));
    let mwu_call = test_call(mwu, ALPHA, mb.zip(ma).map_or(0.0, |(b, a)| b - a));
    Ok((
        (welch_call, Some(mean(b) / mean(a))),
        (mwu_call, mb.zip(ma).map(|(b, a)| b / a)),
    ))
}

/// The A and B values (ns) of a two-variant raw file, in file order of the variants.
fn raw_values(path: &Path) -> Result<[Vec<f64>; 2]> {
    let raw = bench_sched::read_raw(path)?;
    two_series(&raw.to_dataset().dataset, path)
}

/// The A and B CPU times (user + sys, ns) of a two-variant raw file.
fn raw_cpu_values(path: &Path) -> Result<[Vec<f64>; 2]> {
    let input = bench_sched::Input::from_experiment(bench_sched::read_raw(path)?);
    let cpu = input
        .on_metric(&bench_sched::Metric::Cpu)
        .with_context(|| format!("{}: CPU time", path.display()))?;
    two_series(&cpu.loaded.dataset, path)
}

/// `abba analyze --json --quiet --metric cpu RAW`: the same runs decided on CPU time.
fn on_cpu_time(abba: &Path, raw: &Path) -> Result<super::Reading> {
    let out = stdout_of(
        Command::new(abba)
            .args(["analyze", "--json", "--quiet", "--metric", "cpu"])
            .arg(raw),
        &format!("abba analyze --metric cpu {}", raw.display()),
    )?;
    super::parse_analysis(&String::from_utf8_lossy(&out))
        .with_context(|| format!("reading the CPU-time analysis of {}", raw.display()))
}

/// The values of the first two series of `data`.
fn two_series(data: &bench_stats::Dataset, path: &Path) -> Result<[Vec<f64>; 2]> {
    ensure!(
        data.series.len() == 2,
        "{} holds {} variants, not 2",
        path.display(),
        data.series.len()
    );
    let values = |i: usize| -> Vec<f64> {
        data.series[i]
            .observations
            .iter()
            .map(|o| o.value)
            .collect()
    };
    Ok([values(0), values(1)])
}

/// Runs `hyperfine -N --runs RUNS --export-json DIR/STEM.json -n A -n B A B` and returns
/// its times of A and of B (ns).
fn hyperfine_times(dir: &Path, stem: &str, cmds: [&str; 2], runs: u32) -> Result<[Vec<f64>; 2]> {
    let json = dir.join(format!("{stem}.json"));
    stdout_of(
        Command::new("hyperfine")
            .args(["-N", "--style", "none", "--runs", &runs.to_string()])
            .arg("--export-json")
            .arg(&json)
            .args(["-n", "A", "-n", "B"])
            .args(cmds),
        &format!("hyperfine ({stem})"),
    )?;
    let loaded = bench_sched::read_hyperfine(&json)?;
    two_series(&loaded.dataset, &json)
}

/// The lines under the table: the neighbour, the noise it made, the realized effect, what
/// decided abba's verdicts, and hyperfine's version.
fn facts(
    results: &Results,
    args: &CalibrateArgs,
    hyperfine: Option<&str>,
    elapsed: f64,
    stayed: bool,
) -> String {
    let mut out = String::new();
    let schedule = summarize(args.seed, (elapsed * 1000.0) as u64);
    let _ = writeln!(
        out,
        "Neighbour: `cargo xtask neighbour --seed {}` for {elapsed:.0} s: {schedule}.{}",
        args.seed,
        if stayed {
            ""
        } else {
            " It EXITED before the end: part of the run was not under load."
        }
    );
    let cvs = sorted_finite(results.noise.iter().map(|n| n.cv));
    let (slow, all) = results
        .noise
        .iter()
        .fold((0, 0), |(s, a), n| (s + n.slow.0, a + n.slow.1));
    let p = |q| quantile(&cvs, q).map_or("-".to_owned(), |c| format!("{:.1}%", 100.0 * c));
    let _ = writeln!(
        out,
        "Noise: per-run SD of A over its mean, median over the experiments {} (range {}-{}); \
         {slow} of {all} A runs ({:.1}%) took over 1.25x their experiment's median.",
        p(0.5),
        p(0.0),
        p(1.0),
        100.0 * slow as f64 / all.max(1) as f64
    );
    let _ = writeln!(
        out,
        "Known difference: B does {}% more steps than A's {}. abba's default verdicts were \
         decided by {} (read from its JSON).",
        args.effect_pct,
        args.steps,
        if results.bases.is_empty() {
            "-".to_owned()
        } else {
            results.bases.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "{}",
        match hyperfine {
            Some(v) => format!("{v}, `-N --runs {}`.", 2 * args.blocks),
            None => "hyperfine: not installed, its columns skipped.".to_owned(),
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::Call;

    #[test]
    fn noise_counts_slow_runs_and_spread() {
        let n = Noise::of(&[10.0, 10.0, 10.0, 13.0, 20.0]).unwrap();
        assert_eq!(n.slow, (2, 5));
        // mean 12.6, sample SD sqrt(((2.6^2) * 3 + 0.4^2 + 7.4^2) / 4) = 4.3359
        assert!((n.cv - 4.335_896 / 12.6).abs() < 1e-6, "{}", n.cv);
        assert_eq!(Noise::of(&[1.0]), None);
    }

    #[test]
    fn unpaired_tests_see_a_clear_shift_in_its_direction() {
        let a: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 7)).collect();
        let b: Vec<f64> = a.iter().map(|v| v * 1.1).collect();
        let ((welch, wr), (mwu, mr)) = unpaired_tests(&a, &b).unwrap();
        assert_eq!((welch, mwu), (Call::Slower, Call::Slower));
        assert!((wr.unwrap() - 1.1).abs() < 1e-12 && (mr.unwrap() - 1.1).abs() < 1e-12);
        let ((welch, _), (mwu, _)) = unpaired_tests(&b, &a).unwrap();
        assert_eq!((welch, mwu), (Call::Faster, Call::Faster));
        let ((welch, _), (mwu, _)) = unpaired_tests(&a, &a).unwrap();
        assert_eq!((welch, mwu), (Call::NotSignificant, Call::NotSignificant));
        // Constant samples: neither test can run.
        let ((welch, _), (mwu, _)) = unpaired_tests(&[5.0, 5.0], &[5.0, 5.0]).unwrap();
        assert_eq!((welch, mwu), (Call::NotTested, Call::NotTested));
    }

    #[test]
    fn facts_name_the_neighbour_and_the_basis() {
        let args = CalibrateArgs {
            reps: 2,
            blocks: 15,
            seed: 9,
            steps: 40_000_000,
            effect_pct: 1.0,
            noise: true,
            abba: None,
        };
        let results = Results {
            decisions: vec![],
            noise: vec![Noise::of(&[10.0, 10.0, 30.0]).unwrap()],
            bases: vec!["paired-signed-rank:hl-log-ratio".into()],
        };
        let text = facts(&results, &args, None, 120.0, false);
        assert!(
            text.starts_with("Neighbour: `cargo xtask neighbour --seed 9` for 120 s: "),
            "{text}"
        );
        assert!(text.contains("EXITED before the end"), "{text}");
        assert!(text.contains("1 of 3 A runs (33.3%)"), "{text}");
        assert!(
            text.contains("decided by paired-signed-rank:hl-log-ratio (read"),
            "{text}"
        );
        assert!(
            text.contains("hyperfine: not installed, its columns skipped."),
            "{text}"
        );
        assert!(
            args.command_line()
                .starts_with("cargo xtask calibrate --noise --reps 2 --blocks 15")
        );
        assert_eq!(args.steps_b(), 40_400_000);
    }
}
