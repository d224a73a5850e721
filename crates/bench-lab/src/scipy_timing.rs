//! `cargo xtask scipy-timing`: times this crate's Mann-Whitney U, Kruskal-Wallis,
//! Wilcoxon signed-rank and Friedman tests against `scipy.stats.mannwhitneyu`,
//! `scipy.stats.kruskal`, `scipy.stats.wilcoxon` and `scipy.stats.friedmanchisquare` on
//! the same 10^6 values, interleaved in one run, and prints the medians and the speed
//! ratios (and the Hodges-Lehmann estimates' times, which SciPy has no function for).
//!
//! The machine is shared, so the claim rests on CPU time: each call is timed by the CPU
//! time of the whole process (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, every thread's,
//! on this side; the Python worker's `time.process_time()` on SciPy's) as well as by the
//! wall clock. abba runs each test twice per round: on a rayon pool of one thread (the
//! single-thread figure) and on the global pool (every core, for any test that uses
//! rayon; the rank tests rank on the calling thread, so the two rows differ only by
//! noise); the two results must be equal. SciPy's calls run on one thread. The three alternate call by call (abba on
//! one thread, abba on the pool, SciPy, ...), [`REPETITIONS`] rounds, so a burst of load
//! falls on all; the table shows the medians and the load average before and after.
//!
//! The data come from a fixed SplitMix64 stream, are written once as little-endian
//! `f64` to `target/scipy-timing/data.f64`, and are read by both sides. The step is
//! skipped (successfully, with a message) when `python3` cannot import SciPy.

use anyhow::{Context, Result, bail};
use bench_lab::rank_data::{TOTAL, scipy_timing_data};
use bench_stats::Sample;
use bench_stats::rank::{
    friedman, hodges_lehmann, kruskal_wallis, mann_whitney_u, paired_hodges_lehmann,
    wilcoxon_signed_rank,
};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

const REPETITIONS: usize = 9;

/// The Python side: reads the same file, then times one call per line read from stdin
/// (`mwu`, `kw`, `w` or `f`) and answers with one JSON line: its process CPU time and
/// wall time in seconds, the p-value and the statistic.
const PYTHON: &str = r#"
import json, sys, time
import numpy as np
import scipy
from scipy import stats
path, total = sys.argv[1], int(sys.argv[2])
data = np.fromfile(path, dtype="<f8")
half, third = total // 2, total // 3
a, b = data[:half], data[half:total]
kw = data[total:]
k1, k2, k3 = kw[:third], kw[third:2 * third], kw[2 * third:]
d = b - a
k3f = k3[:third]
calls = {
    "mwu": lambda: stats.mannwhitneyu(a, b, method="asymptotic"),
    "kw": lambda: stats.kruskal(k1, k2, k3),
    "w": lambda: stats.wilcoxon(d, method="approx"),
    "f": lambda: stats.friedmanchisquare(k1, k2, k3f),
}
print(json.dumps({"scipy": scipy.__version__, "numpy": np.__version__}), flush=True)
for line in sys.stdin:
    f = calls[line.strip()]
    c0, w0 = time.process_time(), time.perf_counter()
    r = f()
    c1, w1 = time.process_time(), time.perf_counter()
    print(json.dumps({"cpu": c1 - c0, "wall": w1 - w0, "p": float(r.pvalue),
                      "statistic": float(r.statistic)}), flush=True)
"#;

/// One call's cost, in seconds.
#[derive(Debug, Clone, Copy)]
struct Cost {
    /// CPU time of every thread of the process (abba's) or of the process (SciPy's worker).
    cpu: f64,
    wall: f64,
    /// Page faults of abba's process during the call (0 on SciPy's side, not counted).
    faults: f64,
}

/// Runs the comparison from the workspace root `root`.
///
/// # Errors
/// When the data file cannot be written, the CPU clocks cannot be read,
/// the Python process fails after SciPy was found importable, or its output is not the
/// expected JSON.
pub fn run(root: &Path) -> Result<()> {
    if !scipy_found() {
        println!(
            "scipy-timing: skipped, `python3 -c 'import numpy, scipy'` failed \
             (install them with `pip install scipy`)"
        );
        return Ok(());
    }
    let Inputs {
        path,
        a,
        b,
        groups,
        differences,
        rows: rows_of_three,
    } = inputs(root)?;
    let group_refs: Vec<&Sample> = groups.iter().collect();
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .context("building a one-thread rayon pool")?;
    let threads = rayon::current_num_threads();

    let mut scipy = Scipy::start(&path)?;
    if cfg!(debug_assertions) {
        println!(
            "scipy-timing: a dev build: bench-stats is optimised but keeps debug assertions, \
             and the standard library's checks they turn on slow its sort by about 1.7x; \
             the figures of docs/performance.md come from \
             `cargo run --release -p bench-lab -- scipy-timing`"
        );
    }
    println!(
        "scipy-timing: {TOTAL} values, abba on 1 thread, abba on the rayon pool ({threads} \
         threads) and SciPy {} (NumPy {}) alternating call by call, median of {REPETITIONS} \
         calls each; CPU = the process's (every thread's) on both sides; load average {}",
        scipy.version["scipy"].as_str().unwrap_or("?"),
        scipy.version["numpy"].as_str().unwrap_or("?"),
        load_average(),
    );
    println!(
        "{:<34} {:>9} {:>9} {:>7}   {:>9} {:>10} {:>7}   {:>11} {:>11} {:>7}",
        "test",
        "abba cpu",
        "scipy cpu",
        "ratio",
        "abba wall",
        "scipy wall",
        "ratio",
        "p (abba)",
        "p (scipy)",
        "faults"
    );

    let t = interleaved(&mut scipy, &single, "mwu", || mann_whitney_u(&a, &b))?;
    rows("mann-whitney (2 x 500k)", &t, threads, |r| r.p_value);
    let t = interleaved(&mut scipy, &single, "kw", || kruskal_wallis(&group_refs))?;
    rows("kruskal-wallis (3 x 333k)", &t, threads, |r| r.p_value);
    let t = interleaved(&mut scipy, &single, "w", || {
        wilcoxon_signed_rank(&differences)
    })?;
    rows("wilcoxon (500k differences)", &t, threads, |r| r.p_value);
    let t = interleaved(&mut scipy, &single, "f", || friedman(&rows_of_three))?;
    rows("friedman (333k blocks x 3)", &t, threads, |r| r.p_value);
    scipy.finish()?;

    let (hl, _) = alone(|| paired_hodges_lehmann(&differences, 0.95))?;
    alone_row("paired hodges-lehmann (500k)", &hl);
    let (hl2, _) = alone(|| hodges_lehmann(&a, &b, 0.95))?;
    alone_row("hodges-lehmann (2 x 500k)", &hl2);
    println!("load average after: {}", load_average());
    Ok(())
}

/// `/proc/loadavg`'s 1-, 5- and 15-minute load averages, or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "?".to_string(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

/// The data of every test, in abba's layout, and the file SciPy reads them from.
struct Inputs {
    path: PathBuf,
    /// Mann-Whitney's groups.
    a: Sample,
    b: Sample,
    /// Kruskal-Wallis' groups, Friedman's columns.
    groups: Vec<Sample>,
    /// `b - a`, Wilcoxon's and the paired Hodges-Lehmann's.
    differences: Vec<f64>,
    /// Friedman's blocks.
    rows: Vec<[f64; 3]>,
}

/// Writes [`data`] to `target/scipy-timing/data.f64` under `root` and lays it out for abba.
fn inputs(root: &Path) -> Result<Inputs> {
    let (mwu_a, mwu_b, kw_groups) = scipy_timing_data();
    let dir = root.join("target").join("scipy-timing");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("data.f64");
    let mut bytes = Vec::with_capacity(2 * TOTAL * 8);
    for v in mwu_a.iter().chain(&mwu_b).chain(kw_groups.iter().flatten()) {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;

    let a = Sample::from_vec(mwu_a)?;
    let b = Sample::from_vec(mwu_b)?;
    let groups = kw_groups
        .into_iter()
        .map(Sample::from_vec)
        .collect::<Result<Vec<_>, _>>()?;
    let differences: Vec<f64> = b
        .values()
        .iter()
        .zip(a.values())
        .map(|(y, x)| y - x)
        .collect();
    let rows: Vec<[f64; 3]> = (0..TOTAL / 3)
        .map(|i| {
            [
                groups[0].values()[i],
                groups[1].values()[i],
                groups[2].values()[i],
            ]
        })
        .collect();
    Ok(Inputs {
        path,
        a,
        b,
        groups,
        differences,
        rows,
    })
}

/// Whether `python3` imports NumPy and SciPy.
fn scipy_found() -> bool {
    Command::new("python3")
        .args(["-c", "import numpy, scipy"])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The Python worker that times SciPy's calls one at a time.
struct Scipy {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// `{"scipy": version, "numpy": version}`.
    version: serde_json::Value,
}

impl Scipy {
    fn start(data: &Path) -> Result<Scipy> {
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(PYTHON)
            .arg(data)
            .arg(TOTAL.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("running python3")?;
        let stdin = child.stdin.take().context("python3's stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("python3's stdout")?);
        let mut scipy = Scipy {
            child,
            stdin,
            stdout,
            version: serde_json::Value::Null,
        };
        scipy.version = scipy.answer()?;
        Ok(scipy)
    }

    /// One JSON line from the worker.
    fn answer(&mut self) -> Result<serde_json::Value> {
        let mut line = String::new();
        self.stdout
            .read_line(&mut line)
            .context("reading the SciPy worker's answer")?;
        if line.is_empty() {
            bail!("the SciPy timing worker exited early (its stderr is above)");
        }
        serde_json::from_str(&line).with_context(|| format!("parsing {line:?}"))
    }

    /// Times one call of `name`: its cost and p-value.
    fn call(&mut self, name: &str) -> Result<(Cost, f64)> {
        writeln!(self.stdin, "{name}").context("writing to the SciPy worker")?;
        self.stdin.flush().context("writing to the SciPy worker")?;
        let v = self.answer()?;
        let field = |k: &str| {
            v[k].as_f64()
                .with_context(|| format!("the SciPy worker's answer lacks `{k}`: {v}"))
        };
        Ok((
            Cost {
                cpu: field("cpu")?,
                wall: field("wall")?,
                faults: 0.0,
            },
            field("p")?,
        ))
    }

    fn finish(self) -> Result<()> {
        let Scipy {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let status = child.wait().context("waiting for the SciPy worker")?;
        if !status.success() {
            bail!("the SciPy timing worker failed: {status}");
        }
        Ok(())
    }
}

/// The CPU clock of this process (every thread's).
///
/// `clock_gettime`, not `/proc/thread-self/schedstat`: the kernel brings a running
/// thread's `schedstat` up to date only at a scheduler tick (4 ms here), so it reads
/// 12 ms calls as 8 or 16, while `clock_gettime` adds the time since.
mod clock {
    // The one use of `unsafe` in bench-lab: a call of `clock_gettime`.
    #![allow(unsafe_code)]

    use anyhow::{Result, bail};

    fn read(clock: libc::clockid_t) -> Result<f64> {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        let rc = unsafe { libc::clock_gettime(clock, &raw mut ts) };
        if rc != 0 {
            bail!(
                "clock_gettime({clock}) failed: {}",
                std::io::Error::last_os_error()
            );
        }
        Ok(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
    }

    /// CPU time in seconds of every thread of this process.
    pub(super) fn process() -> Result<f64> {
        read(libc::CLOCK_PROCESS_CPUTIME_ID)
    }

    /// Page faults of this process so far (minor and major: the first touches of fresh
    /// memory), from `getrusage(RUSAGE_SELF)`.
    pub(super) fn page_faults() -> Result<u64> {
        // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a valid, writable rusage for the duration of the call.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &raw mut usage) };
        if rc != 0 {
            bail!("getrusage failed: {}", std::io::Error::last_os_error());
        }
        Ok(u64::try_from(usage.ru_minflt + usage.ru_majflt).unwrap_or(0))
    }
}

/// One timed call of `f`.
fn timed<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<(Cost, T)>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let (f0, c0, w0) = (clock::page_faults()?, clock::process()?, Instant::now());
    let r = f()?;
    let (wall, c1) = (w0.elapsed().as_secs_f64(), clock::process()?);
    let faults = clock::page_faults()?.saturating_sub(f0) as f64;
    Ok((
        Cost {
            cpu: c1 - c0,
            wall,
            faults,
        },
        r,
    ))
}

/// The median costs of one test: abba on one thread, abba on the rayon pool, SciPy; abba's
/// last result (the pool's) and SciPy's last p-value.
struct Timing<T> {
    single: Cost,
    pool: Cost,
    scipy: Cost,
    ours: T,
    p_scipy: f64,
}

/// abba's call on the one-thread pool `single`, on the global pool, and SciPy's `name`
/// alternating, [`REPETITIONS`] rounds. The two abba results must be equal.
fn interleaved<T, E>(
    scipy: &mut Scipy,
    single: &rayon::ThreadPool,
    name: &str,
    f: impl Fn() -> Result<T, E> + Sync,
) -> Result<Timing<T>>
where
    T: Send + PartialEq + std::fmt::Debug,
    E: std::error::Error + Send + Sync + 'static,
{
    let (mut one, mut pool, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
    let (mut last, mut p) = (None, f64::NAN);
    for _ in 0..REPETITIONS {
        let (cost, r1) = timed(|| single.install(&f))?;
        one.push(cost);
        let (cost, r) = timed(&f)?;
        pool.push(cost);
        if r != r1 {
            bail!("{name}: abba's result on one thread {r1:?} differs from the pool's {r:?}");
        }
        last = Some(r);
        let (cost, p_scipy) = scipy.call(name)?;
        theirs.push(cost);
        p = p_scipy;
    }
    Ok(Timing {
        single: median(&one),
        pool: median(&pool),
        scipy: median(&theirs),
        ours: last.context("no repetitions ran")?,
        p_scipy: p,
    })
}

/// abba's call alone (on the global pool), [`REPETITIONS`] times: the median cost and
/// the last result.
fn alone<T, E>(f: impl Fn() -> Result<T, E>) -> Result<(Cost, T)>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let mut costs = Vec::new();
    let mut last = None;
    for _ in 0..REPETITIONS {
        let (cost, r) = timed(&f)?;
        costs.push(cost);
        last = Some(r);
    }
    Ok((median(&costs), last.context("no repetitions ran")?))
}

/// The median of each field on its own.
fn median(costs: &[Cost]) -> Cost {
    let of = |field: fn(&Cost) -> f64| {
        let mut v: Vec<f64> = costs.iter().map(field).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Cost {
        cpu: of(|c| c.cpu),
        wall: of(|c| c.wall),
        faults: of(|c| c.faults),
    }
}

/// Two lines of the table, abba on one thread then on the pool of `threads`: median CPU
/// and wall times of abba and SciPy, the ratios (SciPy's time over abba's), both p-values.
fn rows<T>(name: &str, t: &Timing<T>, threads: usize, p: impl Fn(&T) -> f64) {
    for (label, ours) in [
        (format!("{name}, 1 thread"), &t.single),
        (format!("{name}, {threads} threads"), &t.pool),
    ] {
        println!(
            "{:<34} {:>6.1} ms {:>6.1} ms {:>6.2}x   {:>6.1} ms {:>7.1} ms {:>6.2}x   {:>11.4e} {:>11.4e} {:>7}",
            label,
            ours.cpu * 1e3,
            t.scipy.cpu * 1e3,
            t.scipy.cpu / ours.cpu,
            ours.wall * 1e3,
            t.scipy.wall * 1e3,
            t.scipy.wall / ours.wall,
            p(&t.ours),
            t.p_scipy,
            ours.faults
        );
    }
}

/// A line for a call SciPy has no function for.
fn alone_row(name: &str, ours: &Cost) {
    println!(
        "{:<34} {:>6.1} ms {:>9} {:>7}   {:>6.1} ms {:>10}",
        name,
        ours.cpu * 1e3,
        "(none)",
        "",
        ours.wall * 1e3,
        "(none)"
    );
}
