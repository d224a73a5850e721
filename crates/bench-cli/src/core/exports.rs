//! The CSV exports of an analysis (`--export-csv`, `--export-csv-summary`), written with
//! the report's other exports; made by [`bench_sched::csv_exports`].

use bench_sched::Input;
use bench_stats::Analysis;

use crate::args::CsvExportArgs;

/// One export: its flag, its file and its content (or why there is none).
pub use bench_sched::CsvExport as Export;

/// `--export-csv` and `--export-csv-summary` of `analysis` of `input`.
pub fn csv_exports(args: &CsvExportArgs, input: &Input, analysis: &Analysis) -> Vec<Export> {
    let (runs, summary) = (&args.export_csv, &args.export_csv_summary);
    bench_sched::csv_exports(input, analysis, runs.as_deref(), summary.as_deref())
}
