//! `--export-html` and `--export-svg`: the runs behind an analysis as the pictures need
//! them, and the chart files. The drawing is `bench_report::pictures`.

use std::path::Path;

use bench_report::pictures::{
    ConfidenceSequence, Pictures, RunStatus, RunTrace, TracedRun, charts, render_html,
};
use bench_report::write_atomic;
use bench_sched::Input;
use bench_stats::Analysis;

use crate::core::paths::resolve_link;

/// Every run of `input` for the trace: from the experiment in execution order when there
/// is one (failed, dropped and reference runs marked), else the dataset's values in block
/// order (or file order when unblocked). Time: O(runs log runs).
pub fn run_trace(input: &Input) -> RunTrace {
    if let Some(e) = &input.experiment {
        let measured = e.measured_values();
        let analysed = e.analysed_values();
        let runs = e
            .runs
            .iter()
            .zip(measured.into_iter().zip(analysed))
            .map(|(r, (value, used))| TracedRun {
                variant: r.variant.to_owned(),
                block: Some(r.block),
                value,
                status: match (r.is_reference, value, used) {
                    (true, _, _) => RunStatus::Reference,
                    (false, None, _) => RunStatus::Failed,
                    (false, Some(_), None) => RunStatus::Dropped,
                    (false, Some(_), Some(_)) => RunStatus::Analysed,
                },
            })
            .collect();
        return RunTrace {
            runs,
            in_run_order: true,
        };
    }
    let mut runs: Vec<(Option<u32>, Option<u32>, usize, TracedRun)> = Vec::new();
    for (i, s) in input.loaded.dataset.series.iter().enumerate() {
        for o in &s.observations {
            let run = TracedRun {
                variant: s.name.clone(),
                block: o.block,
                value: Some(o.value),
                status: RunStatus::Analysed,
            };
            runs.push((o.block, o.position, i, run));
        }
    }
    // Stable: unblocked data keep their file order.
    runs.sort_by_key(|r| (r.0, r.1, r.2));
    RunTrace {
        runs: runs.into_iter().map(|r| r.3).collect(),
        in_run_order: false,
    }
}

/// The HTML report of `analysis` with its runs and confidence sequences.
pub fn html(
    analysis: &Analysis,
    runs: Option<&RunTrace>,
    sequences: &[ConfidenceSequence],
) -> String {
    let mut p = Pictures::new(analysis).with_sequences(sequences);
    p.runs = runs;
    render_html(&p)
}

/// Writes every chart as `DIR/<chart>.svg` (atomically; the directory is created when
/// missing) and returns the files written.
///
/// # Errors
/// The directory or a file that cannot be written, named.
pub fn write_svgs(
    dir: &Path,
    analysis: &Analysis,
    runs: Option<&RunTrace>,
    sequences: &[ConfidenceSequence],
) -> Result<Vec<String>, String> {
    let dir = resolve_link(dir);
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{}: not a directory", dir.display()));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut p = Pictures::new(analysis).with_sequences(sequences);
    p.runs = runs;
    let mut written = Vec::new();
    for chart in charts(&p) {
        let path = dir.join(&chart.file_name);
        write_atomic(&path, chart.svg.as_bytes()).map_err(|e| e.to_string())?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_sched::{CsvOptions, read_csv_bytes};

    #[test]
    fn imported_blocked_data_are_traced_in_block_order() {
        let csv = b"variant,value,block\nA,10,1\nB,12,1\nA,11,0\nB,13,0\n";
        let loaded = read_csv_bytes("t.csv", csv, &CsvOptions::default()).unwrap();
        let trace = run_trace(&Input {
            loaded,
            experiment: None,
        });
        assert!(!trace.in_run_order);
        let order: Vec<(Option<u32>, &str)> = trace
            .runs
            .iter()
            .map(|r| (r.block, r.variant.as_str()))
            .collect();
        assert_eq!(
            order,
            [
                (Some(0), "A"),
                (Some(0), "B"),
                (Some(1), "A"),
                (Some(1), "B")
            ]
        );
    }
}
