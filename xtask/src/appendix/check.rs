//! `reproduce-appendix --check`: the appendix's statistics recomputed from its own
//! tables and compared with NumPy's exact values, the published figures and the Monte
//! Carlo spread of the bootstrap endpoints, within the tolerances the fixture states.

use std::path::Path;

use anyhow::{Result, bail};
use bench_sched::{CsvOptions, read_csv};
use bench_stats::descriptive::P99_MIN_SAMPLES;
use bench_stats::resample::BootstrapInterval;

use super::RESAMPLES;
use super::fixture::{Exact, Fixture, PairedTable, Published, Spread, fixture_dir};
use super::stats::PairedStats;

/// One comparison of a computed statistic with a reference value.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckItem {
    /// What was compared.
    pub name: String,
    /// Computed vs expected, with the tolerance and its basis.
    pub detail: String,
    /// Whether it matched.
    pub passed: bool,
}

fn near(name: &str, value: f64, expected: f64, tolerance: f64, basis: &str) -> CheckItem {
    CheckItem {
        name: name.to_owned(),
        detail: format!(
            "{value:.6} vs {expected} (|diff| {:.2e} <= {tolerance:.2e}: {basis})",
            (value - expected).abs()
        ),
        passed: (value - expected).abs() <= tolerance,
    }
}

fn holds(name: &str, passed: bool, what: String) -> CheckItem {
    CheckItem {
        name: name.to_owned(),
        detail: what,
        passed,
    }
}

/// Relative tolerance against NumPy's exact values (the fixture README's 1e-9).
const NUMPY_RELATIVE: f64 = 1e-9;

/// Rounding error of a figure printed with `decimals` decimals: `0.5 × 10^-decimals`.
fn rounding(decimals: i32) -> f64 {
    0.5 * 10f64.powi(-decimals)
}

/// Every check of `--check`: the appendix's statistics recomputed from its own tables
/// (bootstrap seed `seed`) against NumPy's exact values, the published figures and the
/// Monte Carlo spread of the bootstrap endpoints, plus the CSV copies of the tables.
///
/// Tolerances, as `fixtures/appendix/README.md` states them: NumPy values to 1e-9
/// relative; a published figure printed with `d` decimals to `0.5 × 10^-d`; a published
/// bootstrap endpoint to `rounding + 4 √2 sd` (two independent 2000-resample draws differ
/// with sd `√2 sd`, `sd` from the fixture's 200-seed Monte Carlo: 0.25 to 0.38 M ops/s for
/// the real difference, so endpoints legitimately move by 1-2 units between seeds). Our
/// draw is also held to the Monte Carlo mean within `4 sd √(1 + 1/seeds)`.
///
/// # Errors
/// When the statistics cannot be computed at all (bad fixture data).
pub fn check(root: &Path, fixture: &Fixture, seed: u64) -> Result<Vec<CheckItem>> {
    let real = PairedStats::compute(fixture.real_effect.clone(), seed)?;
    let null = PairedStats::compute(fixture.null_effect.clone(), seed)?;
    let mut items = numpy_exact("real", &real, &fixture.numpy_exact.real);
    items.extend(numpy_exact("null", &null, &fixture.numpy_exact.null));
    items.extend(published_figures(&real, &fixture.published));
    items.extend(published_intervals(&real, &null, fixture));
    items.extend(conclusions(&real, &null));
    for (file, table) in [
        ("appendix_f_real.csv", &fixture.real_effect),
        ("appendix_f_null.csv", &fixture.null_effect),
    ] {
        items.push(csv_matches(&fixture_dir(root).join(file), table));
    }
    Ok(items)
}

/// The deterministic statistics of one table (`label`: `real` or `null`) against NumPy's
/// exact values, to [`NUMPY_RELATIVE`].
fn numpy_exact(label: &str, stats: &PairedStats, exact: &Exact) -> Vec<CheckItem> {
    let a = &stats.analysis;
    let computed = [
        ("median_baseline", Some(stats.baseline.median)),
        ("mean_difference", Some(a.mean_difference)),
        ("sd_difference", a.sd_difference),
        ("cohens_dz", a.cohens_dz),
        ("ratio_of_means", a.ratio),
        ("cohens_d_unpaired", a.cohens_d_unpaired),
    ];
    let expected = [
        exact.median_baseline,
        exact.mean_difference,
        exact.sd_difference,
        exact.cohens_dz,
        exact.ratio_of_means,
        exact.cohens_d_unpaired,
    ];
    computed
        .into_iter()
        .zip(expected)
        .map(|((what, value), want)| {
            let name = format!("{label} {what} = NumPy");
            match value {
                Some(v) => near(
                    &name,
                    v,
                    want,
                    NUMPY_RELATIVE * want.abs().max(1.0),
                    "1e-9 relative",
                ),
                None => holds(&name, false, "not computable".into()),
            }
        })
        .collect()
}

/// The real effect's published deterministic figures, each to the rounding of the
/// decimals the appendix prints it with.
fn published_figures(real: &PairedStats, p: &Published) -> Vec<CheckItem> {
    let a = &real.analysis;
    let rounded = |name: &str, value: Option<f64>, published: f64, decimals: i32| match value {
        Some(v) => near(
            &format!("{name} = published"),
            v,
            published,
            rounding(decimals) + NUMPY_RELATIVE * published.abs(),
            &format!("printed with {decimals} decimals"),
        ),
        None => holds(name, false, "not computable".into()),
    };
    // Decimals as the appendix prints them: "720.0M", "609.3M", "20.0M", "dz ≈ 30",
    // "1.85x".
    vec![
        rounded(
            "real median chains=1",
            Some(real.baseline.median),
            p.real_median_baseline,
            1,
        ),
        rounded(
            "real mean difference",
            Some(a.mean_difference),
            p.real_mean_difference,
            1,
        ),
        rounded(
            "real sd of differences",
            a.sd_difference,
            p.real_sd_difference,
            1,
        ),
        rounded("real Cohen's dz", a.cohens_dz, p.real_cohens_dz, 0),
        rounded("real ratio of means", a.ratio, p.real_ratio, 2),
    ]
}

/// The published bootstrap endpoints, each to `rounding + 4 √2 sd`, and our draw against
/// the fixture's Monte Carlo mean to `4 sd √(1 + 1/seeds)`.
fn published_intervals(
    real: &PairedStats,
    null: &PairedStats,
    fixture: &Fixture,
) -> Vec<CheckItem> {
    let p = &fixture.published;
    let mc = &fixture.monte_carlo;
    let inflate = (1.0 + 1.0 / f64::from(mc.seeds.max(1))).sqrt();
    // Bootstrap endpoints: "[599.1M, 621.4M]", "[1.83x, 1.88x]", "[-1.6M, 3.5M]",
    // "[0.998x, 1.005x]".
    let endpoints = [
        (
            "real difference CI",
            &real.difference_ci,
            p.real_difference_ci,
            1,
            [mc.real.difference_low, mc.real.difference_high],
        ),
        (
            "real ratio CI",
            &real.ratio_ci,
            p.real_ratio_ci,
            2,
            [mc.real.ratio_low, mc.real.ratio_high],
        ),
        (
            "null difference CI",
            &null.difference_ci,
            p.null_difference_ci,
            1,
            [mc.null.difference_low, mc.null.difference_high],
        ),
        (
            "null ratio CI",
            &null.ratio_ci,
            p.null_ratio_ci,
            3,
            [mc.null.ratio_low, mc.null.ratio_high],
        ),
    ];
    let mut items = Vec::new();
    for (name, ci, published, decimals, spread) in endpoints {
        items.extend(endpoint_checks(
            name, ci, published, decimals, spread, inflate,
        ));
    }
    items
}

/// The two checks of each end of one interval: against the published figure and against
/// the Monte Carlo mean.
fn endpoint_checks(
    name: &str,
    ci: &BootstrapInterval,
    published: [f64; 2],
    decimals: i32,
    spread: [Spread; 2],
    inflate: f64,
) -> Vec<CheckItem> {
    let mut items = Vec::new();
    for (end, value, published, s) in [
        ("low", ci.low, published[0], spread[0]),
        ("high", ci.high, published[1], spread[1]),
    ] {
        items.push(near(
            &format!("{name} {end} = published"),
            value,
            published,
            rounding(decimals) + 4.0 * std::f64::consts::SQRT_2 * s.sd,
            "rounding + 4 sqrt(2) sd",
        ));
        items.push(near(
            &format!("{name} {end} = Monte Carlo mean"),
            value,
            s.mean,
            4.0 * s.sd * inflate,
            "4 sd",
        ));
    }
    items
}

/// The appendix's conclusions: the real effect's intervals exclude no-difference, the null
/// pair's include it, and p99 is withheld at 12 runs.
fn conclusions(real: &PairedStats, null: &PairedStats) -> Vec<CheckItem> {
    vec![
        holds(
            "real difference CI excludes 0",
            real.difference_ci.low > 0.0,
            format!(
                "[{:.1}, {:.1}]",
                real.difference_ci.low, real.difference_ci.high
            ),
        ),
        holds(
            "real ratio CI excludes 1",
            real.ratio_ci.low > 1.0,
            format!("[{:.3}, {:.3}]", real.ratio_ci.low, real.ratio_ci.high),
        ),
        holds(
            "null difference CI includes 0",
            null.difference_ci.contains(0.0),
            format!(
                "[{:.2}, {:.2}]",
                null.difference_ci.low, null.difference_ci.high
            ),
        ),
        holds(
            "null ratio CI includes 1",
            null.ratio_ci.contains(1.0),
            format!("[{:.4}, {:.4}]", null.ratio_ci.low, null.ratio_ci.high),
        ),
        holds(
            "p99 withheld at 12 runs",
            real.baseline.p99.is_err() && real.baseline.n < P99_MIN_SAMPLES,
            format!("n = {}, p99 needs {P99_MIN_SAMPLES}", real.baseline.n),
        ),
    ]
}

/// Whether the CSV copy of a table holds the same values, block by block.
fn csv_matches(path: &Path, table: &PairedTable) -> CheckItem {
    let name = format!(
        "{} = appendix_f.json",
        path.file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
    );
    let loaded = match read_csv(path, &CsvOptions::default()) {
        Ok(l) => l,
        Err(e) => return holds(&name, false, format!("cannot read: {e}")),
    };
    let row = |variant: &str| -> Option<Vec<f64>> {
        let series = loaded.dataset.series.iter().find(|s| s.name == variant)?;
        let mut obs: Vec<(u32, f64)> = series
            .observations
            .iter()
            .map(|o| (o.block.unwrap_or(u32::MAX), o.value))
            .collect();
        obs.sort_by_key(|&(b, _)| b);
        Some(obs.into_iter().map(|(_, v)| v).collect())
    };
    let same = row(&table.baseline).as_deref() == Some(&table.baseline_values[..])
        && row(&table.candidate).as_deref() == Some(&table.candidate_values[..]);
    holds(&name, same, "same values in the same blocks".into())
}

/// One check as `--check` prints it: `ok  ` or `FAIL`, its name and detail.
fn item_line(item: &CheckItem) -> String {
    let mark = if item.passed { "ok  " } else { "FAIL" };
    format!("{mark} {}: {}", item.name, item.detail)
}

/// The last line `--check` prints when every check passed.
fn passed_line(checks: usize, seed: u64) -> String {
    format!(
        "appendix check: all {checks} checks passed (bootstrap seed {seed}, {RESAMPLES} resamples)"
    )
}

/// `cargo xtask reproduce-appendix --check`: prints every check and fails listing the
/// mismatches.
///
/// # Errors
/// When any check fails or the fixture cannot be read.
pub fn run_check(root: &Path, seed: u64) -> Result<()> {
    let fixture = Fixture::load(root)?;
    let items = check(root, &fixture, seed)?;
    for item in &items {
        println!("{}", item_line(item));
    }
    let failed: Vec<&CheckItem> = items.iter().filter(|i| !i.passed).collect();
    if failed.is_empty() {
        println!("{}", passed_line(items.len(), seed));
        Ok(())
    } else {
        let list: Vec<String> = failed
            .iter()
            .map(|i| format!("  {}: {}", i.name, i.detail))
            .collect();
        bail!(
            "{} of {} appendix checks failed:\n{}",
            failed.len(),
            items.len(),
            list.join("\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::workspace_root;

    /// The `--check` of `cargo xtask reproduce-appendix`, under `cargo test`: the one
    /// verification of the appendix's published figures. On bootstrap seeds 1..=8, so the
    /// tolerances are not tuned to one seed.
    #[test]
    fn appendix_f_figures_match_the_published_ones() {
        let root = workspace_root();
        let fixture = Fixture::load(&root).unwrap();
        for seed in 1..=8 {
            let items = check(&root, &fixture, seed).unwrap();
            let failed: Vec<_> = items.iter().filter(|i| !i.passed).collect();
            assert!(failed.is_empty(), "seed {seed}: {failed:#?}");
            assert!(items.len() > 30);
        }
        run_check(&root, 1).unwrap();
        // The figure of docs/appendix.md: the intervals' checks to the end of what
        // `--check` prints (seed 1, its default).
        let items = check(&root, &fixture, 1).unwrap();
        let first = items
            .iter()
            .position(|i| i.name == "real difference CI excludes 0")
            .unwrap();
        let mut fig =
            bench_docs::Figure::new("docs/appendix.md", "cargo xtask reproduce-appendix --check");
        for item in &items[first..] {
            fig.record(item_line(item));
        }
        fig.record(passed_line(items.len(), 1));
        fig.check();
    }

    #[test]
    fn check_fails_on_a_changed_table() {
        let root = workspace_root();
        let mut fixture = Fixture::load(&root).unwrap();
        fixture.real_effect.candidate_values[0] += 30.0;
        let items = check(&root, &fixture, 1).unwrap();
        let failed: Vec<&str> = items
            .iter()
            .filter(|i| !i.passed)
            .map(|i| i.name.as_str())
            .collect();
        assert!(
            failed.contains(&"real mean_difference = NumPy"),
            "{failed:?}"
        );
        assert!(
            failed.contains(&"appendix_f_real.csv = appendix_f.json"),
            "{failed:?}"
        );
    }
}
