//! `abba analyze`: saved data (raw JSONL, CSV, hyperfine JSON) into the same report.

use std::path::Path;

use bench_sched::{CsvOptions, InputFormat, detect_format, load_files, read_raw};
use bench_stats::Warning;

use crate::cli::AnalyzeArgs;
use crate::compare::analysis_config;
use crate::exit::usage;
use crate::output::emit;

/// `abba analyze FILE...`.
pub fn run(args: AnalyzeArgs) -> anyhow::Result<u8> {
    // Flags are checked before any file is read.
    analysis_config(&args.analysis, 1)?;
    let paths: Vec<&Path> = args.files.iter().map(|p| p.as_path()).collect();
    for (i, a) in paths.iter().enumerate() {
        let same = |b: &&Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        };
        if paths[..i].iter().any(same) {
            return Err(usage(format!(
                "{} is given twice: its runs would count double",
                a.display()
            )));
        }
    }
    let csv = CsvOptions {
        unit: args.unit.clone(),
        higher_is_better: args.higher_is_better,
    };
    let mut loaded = load_files(&paths, &csv).map_err(|e| usage(e.to_string()))?;
    // Imported data say nothing of their run order: name what the analysis will assume.
    if loaded.dataset.design.is_none() {
        let blocked = loaded
            .dataset
            .series
            .iter()
            .all(|s| s.observations.iter().all(|o| o.block.is_some()));
        loaded.dataset.design = Some(
            if blocked {
                "blocks from file"
            } else {
                "unpaired (no blocks)"
            }
            .to_string(),
        );
    }

    // A single raw file also tells its seed, its controls and its run-level warnings.
    let raw = match paths.as_slice() {
        [one] => {
            let bytes = std::fs::read(one).map_err(|e| usage(format!("{}: {e}", one.display())))?;
            if detect_format(&bytes) == InputFormat::Raw {
                Some(read_raw(one).map_err(|e| usage(e.to_string()))?)
            } else {
                None
            }
        }
        _ => None,
    };
    let seed = args
        .seed
        .or(raw.as_ref().map(|r| r.header.seed))
        .unwrap_or(1);
    let config = analysis_config(&args.analysis, seed)?;
    if loaded
        .dataset
        .series
        .iter()
        .all(|s| s.observations.is_empty())
    {
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(usage(format!(
            "{}: no successful runs or values to analyze",
            files.join(", ")
        )));
    }
    let mut analysis =
        bench_stats::analyze(&loaded.dataset, &config).map_err(|e| usage(e.to_string()))?;
    let mut warnings: Vec<Warning> = loaded
        .warnings
        .iter()
        .map(crate::controls::read_warning)
        .collect();
    if let Some(raw) = &raw {
        analysis.controls = crate::controls::controls(
            &raw.header,
            &raw.runs,
            raw.trailer.as_ref().and_then(|t| t.load_end),
        );
        warnings.extend(crate::controls::run_warnings(&raw.header, &raw.runs));
    }
    analysis.warnings.extend(warnings);
    emit(&analysis, &args.analysis)
}
