//! `cargo xtask scipy-timing`: times this crate's Mann-Whitney U, Kruskal-Wallis,
//! Wilcoxon signed-rank and Friedman tests against `scipy.stats.mannwhitneyu`,
//! `scipy.stats.kruskal`, `scipy.stats.wilcoxon` and `scipy.stats.friedmanchisquare` on
//! the same 10^6 values, side by side in one run, and prints the medians and the speed
//! ratio (and the paired Hodges-Lehmann estimate's time, which SciPy has no function for).
//!
//! The data come from a fixed SplitMix64 stream, are written once as little-endian
//! `f64` to `target/scipy-timing/data.f64`, and are read by both sides. The step is
//! skipped (successfully, with a message) when `python3` cannot import SciPy.

use anyhow::{Context, Result, bail};
use bench_stats::Sample;
use bench_stats::rank::{
    friedman, kruskal_wallis, mann_whitney_u, paired_hodges_lehmann, wilcoxon_signed_rank,
};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const TOTAL: usize = 1_000_000;
const REPETITIONS: usize = 7;
const SEED: u64 = 0x5eed_ab0a;

/// The Python side: reads the same file, times both tests, prints one JSON object.
const PYTHON: &str = r#"
import json, sys, time
import numpy as np
from scipy import stats
path, total, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = np.fromfile(path, dtype="<f8")
half, third = total // 2, total // 3
a, b = data[:half], data[half:total]
kw = data[total:]
k1, k2, k3 = kw[:third], kw[third:2 * third], kw[2 * third:]
def timed(f):
    out, times = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out
t_mwu, r_mwu = timed(lambda: stats.mannwhitneyu(a, b, method="asymptotic"))
t_kw, r_kw = timed(lambda: stats.kruskal(k1, k2, k3))
t_w, r_w = timed(lambda: stats.wilcoxon(b - a, method="approx"))
t_f, r_f = timed(lambda: stats.friedmanchisquare(k1, k2, k3[:third]))
print(json.dumps({"mwu_s": t_mwu, "mwu_p": float(r_mwu.pvalue), "mwu_u1": float(r_mwu.statistic),
                  "kw_s": t_kw, "kw_p": float(r_kw.pvalue), "kw_h": float(r_kw.statistic),
                  "w_s": t_w, "w_p": float(r_w.pvalue), "f_s": t_f, "f_p": float(r_f.pvalue),
                  "scipy": __import__("scipy").__version__}))
"#;

/// Runs the comparison from the workspace root `root`.
///
/// # Errors
/// When the data file cannot be written, the Python process fails after SciPy was
/// found importable, or its output is not the expected JSON.
pub fn run(root: &Path) -> Result<()> {
    if !scipy_found() {
        println!(
            "scipy-timing: skipped, `python3 -c 'import numpy, scipy'` failed \
             (install them with `pip install scipy`)"
        );
        return Ok(());
    }
    let (mwu_a, mwu_b, kw_groups) = data();
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
    let group_refs: Vec<&Sample> = groups.iter().collect();

    let (ours_mwu, mwu) = median_time(|| mann_whitney_u(&a, &b))?;
    let (ours_kw, kw) = median_time(|| kruskal_wallis(&group_refs))?;
    let differences: Vec<f64> = b
        .values()
        .iter()
        .zip(a.values())
        .map(|(y, x)| y - x)
        .collect();
    let (ours_w, w) = median_time(|| wilcoxon_signed_rank(&differences))?;
    let third = TOTAL / 3;
    let rows: Vec<[f64; 3]> = (0..third)
        .map(|i| {
            [
                groups[0].values()[i],
                groups[1].values()[i],
                groups[2].values()[i],
            ]
        })
        .collect();
    let (ours_f, f) = median_time(|| friedman(&rows))?;
    let (ours_hl, _) = median_time(|| paired_hodges_lehmann(&differences, 0.95))?;

    let py = scipy_side(&path)?;
    let field = |k: &str| {
        py[k]
            .as_f64()
            .with_context(|| format!("SciPy output lacks `{k}`"))
    };
    let (scipy_mwu, scipy_kw) = (field("mwu_s")?, field("kw_s")?);

    println!(
        "scipy-timing: {TOTAL} values, median of {REPETITIONS} runs each (SciPy {})",
        py["scipy"].as_str().unwrap_or("?")
    );
    println!(
        "{:<28} {:>12} {:>12} {:>9}   {:>12} {:>12}",
        "test", "abba", "scipy", "speedup", "p (abba)", "p (scipy)"
    );
    row(
        "mann-whitney (2 x 500k)",
        ours_mwu,
        scipy_mwu,
        mwu.p_value,
        field("mwu_p")?,
    );
    row(
        "kruskal-wallis (3 x 333k)",
        ours_kw,
        scipy_kw,
        kw.p_value,
        field("kw_p")?,
    );
    let (scipy_w, scipy_f) = (field("w_s")?, field("f_s")?);
    row(
        "wilcoxon (500k differences)",
        ours_w,
        scipy_w,
        w.p_value,
        field("w_p")?,
    );
    row(
        "friedman (333k blocks x 3)",
        ours_f,
        scipy_f,
        f.p_value,
        field("f_p")?,
    );
    println!(
        "{:<28} {:>9.1} ms {:>12} {:>9}",
        "paired hodges-lehmann (500k)",
        ours_hl * 1e3,
        "(none)",
        ""
    );
    Ok(())
}

/// Whether `python3` imports NumPy and SciPy.
fn scipy_found() -> bool {
    Command::new("python3")
        .args(["-c", "import numpy, scipy"])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The SciPy side's timings and p-values, as one JSON object.
fn scipy_side(path: &Path) -> Result<serde_json::Value> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(PYTHON)
        .arg(path)
        .arg(TOTAL.to_string())
        .arg(REPETITIONS.to_string())
        .output()
        .context("running python3")?;
    if !out.status.success() {
        bail!(
            "the SciPy timing script failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout)
        .with_context(|| format!("parsing {}", String::from_utf8_lossy(&out.stdout)))
}

/// One line of the table: a test's time (s) in abba and SciPy, the ratio, both p-values.
fn row(name: &str, ours: f64, scipy: f64, p_ours: f64, p_scipy: f64) {
    println!(
        "{:<28} {:>9.1} ms {:>9.1} ms {:>8.2}x   {:>12.4e} {:>12.4e}",
        name,
        ours * 1e3,
        scipy * 1e3,
        scipy / ours,
        p_ours,
        p_scipy
    );
}

/// Median wall time in seconds over [`REPETITIONS`] calls, with the last result.
fn median_time<T, E>(mut f: impl FnMut() -> Result<T, E>) -> Result<(f64, T)>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let mut times = Vec::with_capacity(REPETITIONS);
    let mut last = None;
    for _ in 0..REPETITIONS {
        let t0 = Instant::now();
        let r = f()?;
        times.push(t0.elapsed().as_secs_f64());
        last = Some(r);
    }
    times.sort_by(f64::total_cmp);
    let result = last.context("no repetitions ran")?;
    Ok((times[times.len() / 2], result))
}

/// Two halves for Mann-Whitney and three thirds for Kruskal-Wallis, uniform on [0, 1)
/// with small offsets between groups.
fn data() -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let mut state = SEED;
    let mut next = move || {
        // SplitMix64 (Steele, Lea & Flood 2014), top 53 bits as a uniform double.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1_u64 << 53) as f64
    };
    let half = TOTAL / 2;
    let a: Vec<f64> = (0..half).map(|_| next()).collect();
    let b: Vec<f64> = (half..TOTAL).map(|_| 0.001 + next()).collect();
    let third = TOTAL / 3;
    let sizes = [third, third, TOTAL - 2 * third];
    let groups = sizes
        .iter()
        .enumerate()
        .map(|(g, &n)| (0..n).map(|_| 0.001 * g as f64 + next()).collect())
        .collect();
    (a, b, groups)
}
