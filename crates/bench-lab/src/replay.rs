//! `cargo xtask replay`: every paired estimator scored on real recordings.
//!
//! The corpus under `fixtures/recordings/` holds long `abba compare` raw files (300 ABBA
//! blocks each) of a fixed-work command (`abba compute --steps N`) against itself (A/A) and
//! against more steps (known effects of 0.5, 1, 2 and 5 % more work), recorded on the
//! project's 2-vCPU machine without and with the seeded noisy neighbour
//! (`cargo xtask neighbour --seed 1`). `fixtures/recordings/README.md` has the commands.
//!
//! Each file is cut into disjoint windows of consecutive blocks (8, 15, 30 and 60), and
//! each window is analysed by `bench_stats::analyze` once per estimator, exactly as
//! `abba analyze --estimator NAME` would: the share of A/A windows called significant
//! (false positives), the share of effect windows called significant in the right
//! direction (power), and the mean ratio estimate against the nominal work ratio (bias;
//! the process start-up, about 1 ms of the 48 ms, dilutes every effect a little).
//! Windows of one file are disjoint but come from one session, so they are not fully
//! independent: read the rates as evidence beside the simulation, not as exact sizes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bench_stats::{
    AnalysisConfig, Dataset, Observation, Outcome, PairedEstimator, Series, Verdict, analyze,
};

/// Flags of `replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// Directory of the recordings (`<condition>-<aa|eX>.jsonl`, or `.jsonl.gz`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Bootstrap resamples per interval.
    #[arg(long, default_value_t = 1000)]
    pub resamples: u32,
}

/// Window sizes, in blocks.
const WINDOWS: [usize; 4] = [8, 15, 30, 60];

/// One recording: its condition, nominal effect (work ratio) and runs per block.
pub(crate) struct Recording {
    pub(crate) condition: String,
    pub(crate) effect: f64,
    /// `blocks[b] = [runs of A, runs of B]`, wall times in ms, in block order.
    pub(crate) blocks: Vec<[Vec<f64>; 2]>,
}

/// Runs the replay and prints the tables.
///
/// # Errors
/// When the directory holds no recording or a file cannot be read.
pub fn run(root: &Path, args: &ReplayArgs) -> Result<()> {
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| root.join("fixtures/recordings"));
    let recordings = load_dir(&dir)?;
    let config = AnalysisConfig {
        resamples: args.resamples,
        ..AnalysisConfig::default()
    };
    let mut conditions: Vec<&str> = recordings.iter().map(|r| r.condition.as_str()).collect();
    conditions.dedup();
    for condition in conditions {
        let recs: Vec<&Recording> = recordings
            .iter()
            .filter(|r| r.condition == condition)
            .collect();
        print!("{}", condition_table(condition, &recs, &config));
    }
    Ok(())
}

pub(crate) fn load_dir(dir: &Path) -> Result<Vec<Recording>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
        })
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let file = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
        let stem = file
            .strip_suffix(".jsonl.gz")
            .or_else(|| file.strip_suffix(".jsonl"))
            .unwrap_or(file);
        let Some((condition, kind)) = stem.rsplit_once('-') else {
            continue;
        };
        let effect = match kind {
            "aa" => 1.0,
            e => match e.strip_prefix('e').and_then(|p| p.parse::<f64>().ok()) {
                Some(pct) => 1.0 + pct / 100.0,
                None => continue,
            },
        };
        out.push(Recording {
            condition: condition.to_owned(),
            effect,
            blocks: blocks_of(&path)?,
        });
    }
    if out.is_empty() {
        bail!(
            "no recordings (<condition>-<aa|eX>.jsonl) in {}",
            dir.display()
        );
    }
    Ok(out)
}

fn blocks_of(path: &Path) -> Result<Vec<[Vec<f64>; 2]>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bytes = if path.extension().is_some_and(|x| x == "gz") {
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
            .with_context(|| format!("{} is not valid gzip", path.display()))?;
        text
    } else {
        bytes
    };
    let name = path.display().to_string();
    let raw = bench_sched::read_raw_bytes(&name, &bytes).with_context(|| name.clone())?;
    // The blocks exactly as `abba analyze` reads them: complete blocks whose runs all
    // succeeded (bench-sched's `Experiment::to_dataset`).
    let data = raw.to_dataset().dataset;
    // Units of the data in one millisecond (1e6 for ns).
    let per_ms = 1e6
        / bench_stats::model::nanos_per_time_unit(&data.unit)
            .with_context(|| format!("{name}: unit {} is not a time", data.unit))?;
    let mut blocks: BTreeMap<u32, [Vec<f64>; 2]> = BTreeMap::new();
    for (v, variant) in ["A", "B"].into_iter().enumerate() {
        let series = data
            .series
            .iter()
            .find(|s| s.name == variant)
            .with_context(|| format!("{name} has no variant {variant}"))?;
        for o in &series.observations {
            let block = o
                .block
                .with_context(|| format!("{name}: runs are not blocked"))?;
            blocks.entry(block).or_default()[v].push(o.value / per_ms);
        }
    }
    Ok(blocks.into_values().collect())
}

pub(crate) fn dataset(window: &[[Vec<f64>; 2]]) -> Dataset {
    let series = |v: usize, name: &str| {
        Series::new(
            name,
            window.iter().enumerate().flat_map(move |(b, runs)| {
                runs[v]
                    .iter()
                    .map(move |&x| Observation::in_block(x, b as u32))
            }),
        )
    };
    Dataset::new("ms", vec![series(0, "A"), series(1, "B")]).with_design(bench_stats::Design::Abba)
}

/// Per estimator and window size: calls, hits and the sum of the ratio estimates.
#[derive(Default, Clone, Copy)]
struct Tally {
    windows: u32,
    hits: u32,
    ratio_sum: f64,
    ratios: u32,
}

fn score(rec: &Recording, w: usize, estimator: PairedEstimator, config: &AnalysisConfig) -> Tally {
    let config = AnalysisConfig {
        paired_estimator: estimator,
        ..config.clone()
    };
    let mut t = Tally::default();
    for window in rec.blocks.chunks_exact(w) {
        let Ok(a) = analyze(&dataset(window), &config) else {
            continue;
        };
        let c = &a.groups[0].comparisons[0];
        t.windows += 1;
        let hit = c.verdict == Verdict::Significant
            && (rec.effect == 1.0
                || c.outcome == Outcome::Slower
                || c.outcome == Outcome::Equivalent);
        t.hits += u32::from(hit);
        if let Some(r) = c.ratio {
            t.ratio_sum += r;
            t.ratios += 1;
        }
    }
    t
}

fn condition_table(condition: &str, recs: &[&Recording], config: &AnalysisConfig) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "\n## {condition}: share of windows called significant (A/A: false positives; effects: found, slower) and the mean ratio of 30-block windows\n\n"
    );
    let mut header = "| estimator |".to_owned();
    let mut rule = "| --- |".to_owned();
    for rec in recs {
        let name = if rec.effect == 1.0 {
            "A/A".to_owned()
        } else {
            format!("+{:.1}%", (rec.effect - 1.0) * 100.0)
        };
        let _ = write!(
            header,
            " {name} at {} blocks | mean ratio |",
            join_windows()
        );
        rule.push_str(" --- | --- |");
    }
    let _ = writeln!(out, "Conditions (A's runs, ms): {}\n", conditions(recs));
    let _ = writeln!(out, "{header}\n{rule}");
    for estimator in PairedEstimator::ALL {
        let mut line = format!("| {} |", estimator.as_str());
        for rec in recs {
            let cells: Vec<Tally> = WINDOWS
                .iter()
                .map(|&w| score(rec, w, estimator, config))
                .collect();
            let rates: Vec<String> = cells
                .iter()
                .map(|t| format!("{}/{}", t.hits, t.windows))
                .collect();
            let t30 = cells[2];
            let mean = if t30.ratios > 0 {
                format!(
                    "{:.4} (nominal {:.3})",
                    t30.ratio_sum / f64::from(t30.ratios),
                    rec.effect
                )
            } else {
                "n/a".to_owned()
            };
            let _ = write!(line, " {} | {mean} |", rates.join(" "));
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Each recording's median and 10th-90th percentiles of A's run times: how loaded the
/// machine was while it was recorded (the unloaded command takes about 48 ms).
fn conditions(recs: &[&Recording]) -> String {
    recs.iter()
        .map(|r| {
            let mut a: Vec<f64> = r.blocks.iter().flat_map(|b| b[0].iter().copied()).collect();
            a.sort_by(f64::total_cmp);
            let q = |p: f64| a[((a.len() - 1) as f64 * p).round() as usize];
            let name = if r.effect == 1.0 {
                "A/A".to_owned()
            } else {
                format!("+{:.1}%", (r.effect - 1.0) * 100.0)
            };
            format!(
                "{name} median {:.1} (p10 {:.1}, p90 {:.1})",
                q(0.5),
                q(0.1),
                q(0.9)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn join_windows() -> String {
    WINDOWS.map(|w| w.to_string()).join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_whole_and_names_its_effects() {
        let dir = crate::run::workspace_root().join("fixtures/recordings");
        let recs = load_dir(&dir).unwrap();
        assert_eq!(recs.len(), 10);
        for r in &recs {
            assert_eq!(r.blocks.len(), 300, "{} {}", r.condition, r.effect);
            assert!(r.blocks.iter().all(|b| b[0].len() == 2 && b[1].len() == 2));
        }
        let effects: Vec<f64> = recs
            .iter()
            .filter(|r| r.condition == "quiet")
            .map(|r| r.effect)
            .collect();
        assert_eq!(effects, [1.0, 1.005, 1.01, 1.02, 1.05]);
    }

    #[test]
    fn a_clear_window_is_scored_as_found() {
        // 8 blocks, B 10 % slower in every block, one slowed run per block.
        let blocks: Vec<[Vec<f64>; 2]> = (0..8)
            .map(|i| [vec![48.0, 60.0 + f64::from(i)], vec![52.8, 52.9]])
            .collect();
        let rec = Recording {
            condition: "t".into(),
            effect: 1.1,
            blocks,
        };
        let config = AnalysisConfig {
            resamples: 200,
            ..AnalysisConfig::default()
        };
        let t = score(&rec, 8, PairedEstimator::HodgesLehmannMinLogRatio, &config);
        assert_eq!((t.hits, t.windows), (1, 1));
        assert!((t.ratio_sum - 1.1).abs() < 0.01, "{}", t.ratio_sum);
    }
}
