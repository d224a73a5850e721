//! `cargo xtask browser-check`: the demo's HTML report in headless Chromium, as a person
//! would open it, and the cost of a large report.
//!
//! 1. Builds `abba` (release), runs the demo with `--export-html` and `--export-svg`.
//! 2. Loads the page in headless Chromium (no DevTools protocol: see
//!    `crates/bench-cli/tests/support/browser.rs`): a full-page screenshot, the console
//!    (must be silent), every chart's rendered size (must be non-zero).
//! 3. Times a 10,000-run report: `render_html` (median of 5), its size, and Chromium's
//!    wall time to screenshot it against the same for a near-empty page (the difference is
//!    the page's own load and paint; the rest is the browser starting).
//!
//! `--update-docs` copies the screenshot to `docs/demo-report.png` (shown in the README).

#[path = "../../crates/bench-cli/tests/support/browser.rs"]
mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use bench_report::pictures::{Pictures, RunStatus, RunTrace, TracedRun, render_html};
use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};

use crate::run::{build_abba, target_dir};

/// Flags of `browser-check`.
#[derive(clap::Args, Debug)]
pub struct BrowserArgs {
    /// Blocks of the demo.
    #[arg(long, default_value_t = 12)]
    blocks: u32,
    /// Seconds per kernel run in the demo.
    #[arg(long, default_value_t = 0.3)]
    duration: f64,
    /// Width of the browser window, px.
    #[arg(long, default_value_t = 900)]
    width: u32,
    /// Copy the screenshot to docs/demo-report.png.
    #[arg(long)]
    update_docs: bool,
}

/// Runs the check; fails on a console message, a chart of zero size, or no browser.
///
/// # Errors
/// No Chromium, a failed build or demo, or a failed check.
pub fn run(root: &Path, args: &BrowserArgs) -> Result<()> {
    let chromium = support::find_chromium()
        .context("no chromium on PATH (apt-get install -y chromium, or set ABBA_CHROMIUM)")?;
    let abba = build_abba(root)?;
    let dir = target_dir(root).join("browser-check");
    std::fs::create_dir_all(&dir)?;
    let html = dir.join("demo.html");
    let status = Command::new(&abba)
        .args(["--demo-blocks", &args.blocks.to_string()])
        .args(["--demo-duration", &args.duration.to_string()])
        .arg("--export-html")
        .arg(&html)
        .arg("--export-svg")
        .arg(dir.join("svg"))
        .stdout(Stdio::null())
        .status()
        .context("running the demo")?;
    ensure!(status.success(), "the demo failed: {status}");
    let png = dir.join("demo-report.png");
    let check = support::check_page(&chromium, &html, &png, (args.width, 0), &dir)
        .map_err(anyhow::Error::msg)?;
    println!(
        "demo report: {} ({} bytes)",
        html.display(),
        std::fs::metadata(&html)?.len()
    );
    println!(
        "screenshot:  {} ({}x{} px)",
        png.display(),
        check.screenshot_size.0,
        check.screenshot_size.1
    );
    println!("charts (rendered CSS px): {:?}", check.chart_sizes);
    ensure!(
        check.loaded,
        "the page did not load (no heading in the DOM)"
    );
    ensure!(
        check.console.is_empty(),
        "console messages:\n{}",
        check.console.join("\n")
    );
    ensure!(
        !check.chart_sizes.is_empty()
            && check.chart_sizes.iter().all(|(w, h)| *w > 0.0 && *h > 0.0),
        "a chart has no size: {:?}",
        check.chart_sizes
    );
    println!("console: silent; every chart has a size");
    large_report(&chromium, &dir, args.width)?;
    if args.update_docs {
        let docs = root.join("docs").join("demo-report.png");
        std::fs::copy(&png, &docs).with_context(|| format!("copying to {}", docs.display()))?;
        println!("copied the screenshot to {}", docs.display());
    }
    Ok(())
}

/// 10,000 runs: render time, size, and the browser's time on it against an empty page.
fn large_report(chromium: &Path, dir: &Path, width: u32) -> Result<()> {
    let runs = synthetic_runs(2500);
    let analysis = analyze(&dataset(&runs), &AnalysisConfig::default())?;
    let pictures = Pictures::new(&analysis).with_runs(&runs);
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let html = render_html(&pictures);
            std::hint::black_box(html.len());
            t.elapsed()
        })
        .collect();
    times.sort();
    let html = render_html(&pictures);
    let big = dir.join("large.html");
    std::fs::write(&big, &html)?;
    let empty = dir.join("empty.html");
    std::fs::write(
        &empty,
        "<!DOCTYPE html><html><body><h1>abba report</h1></body></html>",
    )?;
    let time = |page: &Path, png: &str| -> Result<Duration> {
        let c = support::check_page(chromium, page, &dir.join(png), (width, 0), dir)
            .map_err(anyhow::Error::msg)?;
        if !c.console.is_empty() {
            bail!("console messages on {}: {:?}", page.display(), c.console);
        }
        Ok(c.screenshot_time)
    };
    let (t_empty, t_big) = (time(&empty, "empty.png")?, time(&big, "large.png")?);
    println!(
        "10,000 runs: HTML {} bytes (limit 2,000,000); render_html median {:.1} ms (min {:.1}, max {:.1}, 5 runs)",
        html.len(),
        ms(times[2]),
        ms(times[0]),
        ms(times[4])
    );
    println!(
        "chromium screenshot wall time: 10,000-run page {:.0} ms, near-empty page {:.0} ms, difference {:.0} ms",
        ms(t_big),
        ms(t_empty),
        ms(t_big) - ms(t_empty)
    );
    ensure!(
        html.len() < 2_000_000,
        "the 10,000-run report is {} bytes",
        html.len()
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `blocks` ABBA blocks of two variants (4 runs each), a slow drift and a few bursts.
fn synthetic_runs(blocks: u32) -> RunTrace {
    let mut runs = Vec::new();
    for b in 0..blocks {
        let order = if b % 2 == 0 {
            [0, 1, 1, 0]
        } else {
            [1, 0, 0, 1]
        };
        for (k, v) in order.into_iter().enumerate() {
            let i = f64::from(b * 4 + k as u32);
            let wobble =
                1.0 + 0.02 * (i * 0.37).sin() + 0.00001 * i + if b % 97 == 0 { 0.1 } else { 0.0 };
            let (name, base) = if v == 0 { ("A", 1.0e6) } else { ("B", 0.97e6) };
            runs.push(TracedRun {
                variant: name.into(),
                block: Some(b),
                value: Some(base * wobble),
                status: RunStatus::Analysed,
            });
        }
    }
    RunTrace {
        runs,
        in_run_order: true,
    }
}

fn dataset(trace: &RunTrace) -> Dataset {
    let series = |name: &str| {
        Series::new(
            name,
            trace
                .runs
                .iter()
                .filter(|r| r.variant == name)
                .filter_map(|r| Some(Observation::in_block(r.value?, r.block?))),
        )
    };
    Dataset::new("ns", vec![series("A"), series("B")]).with_design(Design::Abba)
}
