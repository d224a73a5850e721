//! The CSV exports of an analysis (`--export-csv`, `--export-csv-summary`), written with
//! the report's other exports.

use std::path::PathBuf;

use bench_sched::{Input, runs_csv, summary_csv};
use bench_stats::Analysis;

use crate::args::CsvExportArgs;

/// One export: its flag, its file and its content (or why there is none).
pub struct Export {
    /// The flag that asked for it.
    pub flag: &'static str,
    /// Where it goes.
    pub path: PathBuf,
    /// The bytes, or why they cannot be made.
    pub content: Result<String, String>,
}

/// `--export-csv` and `--export-csv-summary` of `analysis` of `input`.
pub fn csv_exports(args: &CsvExportArgs, input: &Input, analysis: &Analysis) -> Vec<Export> {
    let mut out = Vec::new();
    if let Some(path) = &args.export_csv {
        out.push(Export {
            flag: "--export-csv",
            path: path.clone(),
            content: input.experiment.as_ref().map(runs_csv).ok_or_else(|| {
                "the input holds no runs (CSV or hyperfine data); export runs from a raw file"
                    .to_owned()
            }),
        });
    }
    if let Some(path) = &args.export_csv_summary {
        out.push(Export {
            flag: "--export-csv-summary",
            path: path.clone(),
            content: Ok(summary_csv(analysis, input.experiment.as_ref())),
        });
    }
    out
}
