//! CSV exports (`--export-csv`, `--export-csv-summary`): one row per analysed run of an
//! experiment, or one row per benchmark of an analysis. The per-run file is CSV input
//! ([`crate::read_csv`]): its `variant`, `value` and `block` columns give back the same
//! paired data.

use std::fmt::Write as _;

use bench_stats::Analysis;

use crate::raw::Experiment;

/// The columns of [`runs_csv`].
pub const RUNS_CSV_COLUMNS: &str = "block,position,variant,wall_ns,user_ns,sys_ns,max_rss_kib,exit_code,timed_out,env_pad,metric,value";

/// The columns of [`summary_csv`].
pub const SUMMARY_CSV_COLUMNS: &str =
    "class,name,n,mean,stddev,median,min,max,p90,unit,user_mean_ns,system_mean_ns";

/// One field, quoted when it holds a comma, a quote, a line break or edge spaces.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) || text.trim() != text {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// One row per run that the analysis uses, with a header row ([`RUNS_CSV_COLUMNS`]), in
/// block order and within a block by variant in the header's order (then position, so the
/// run order stays in the `position` column): the first row is always the first variant,
/// the baseline, even when a block was dropped and the next one starts with another
/// variant (read back, the CSV's first variant is its baseline). `value` is the analysed
/// value (in the header's unit), `metric` the run line's `metric` field. Runs the analysis
/// leaves out (failed, timed out, in an incomplete or failed block) and reference runs are
/// not rows: the raw file keeps them. Time: O(runs log runs).
pub fn runs_csv(experiment: &Experiment) -> String {
    let raw = experiment;
    let mut out = format!("{RUNS_CSV_COLUMNS}\n");
    let order = |name: &str| {
        raw.header
            .variants
            .iter()
            .position(|v| v.name == name)
            .unwrap_or(usize::MAX)
    };
    // The runs by index: a view of each run would take more room than the runs.
    let mut rows: Vec<(usize, f64)> = raw
        .analysed_values()
        .into_iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .collect();
    rows.sort_by_key(|&(i, _)| {
        let r = raw.runs.at(i);
        (r.block, order(r.variant), r.position)
    });
    for (i, value) in rows {
        let r = raw.runs.at(i);
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            r.block,
            r.position,
            field(r.variant),
            r.wall_ns,
            r.user_ns,
            r.sys_ns,
            r.max_rss_kib,
            opt(r.exit_code),
            r.timed_out,
            r.env_pad,
            opt(r.metric),
            value
        );
    }
    out
}

/// One row per benchmark of `analysis` with a header row ([`SUMMARY_CSV_COLUMNS`]): its
/// statistics in the analysis's unit, and the mean user and system CPU time (ns) of its
/// analysed runs when `experiment` is known (empty cells otherwise, as for CSV input).
/// Time: O(benchmarks × runs).
pub fn summary_csv(analysis: &Analysis, experiment: Option<&Experiment>) -> String {
    let means = experiment.map(Experiment::cpu_time_means);
    let cpu_means = |name: &str| -> (String, String) {
        match means.as_ref().and_then(|m| m.get(name)) {
            Some((user, sys)) => (user.to_string(), sys.to_string()),
            None => (String::new(), String::new()),
        }
    };
    let mut out = format!("{SUMMARY_CSV_COLUMNS}\n");
    for group in &analysis.groups {
        for b in &group.benchmarks {
            let (user, system) = cpu_means(&b.name);
            let class = b.class.as_ref().or(group.class.as_ref());
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                field(class.map_or("", String::as_str)),
                field(&b.name),
                b.n,
                b.mean,
                opt(b.stddev),
                b.median,
                b.min,
                b.max,
                b.p90,
                field(&analysis.unit),
                user,
                system
            );
        }
    }
    out
}

/// One CSV export asked for: its flag, its file and its content (or why there is none).
#[derive(Debug, Clone, PartialEq)]
pub struct CsvExport {
    /// The flag that asked for it.
    pub flag: &'static str,
    /// Where it goes.
    pub path: std::path::PathBuf,
    /// The bytes, or why they cannot be made.
    pub content: Result<String, String>,
}

/// `--export-csv` (to `runs`: [`runs_csv`], refused for input without runs) and
/// `--export-csv-summary` (to `summary`: [`summary_csv`]) of `analysis` of `input`.
pub fn csv_exports(
    input: &crate::Input,
    analysis: &Analysis,
    runs: Option<&std::path::Path>,
    summary: Option<&std::path::Path>,
) -> Vec<CsvExport> {
    let mut out = Vec::new();
    if let Some(path) = runs {
        out.push(CsvExport {
            flag: "--export-csv",
            path: path.to_owned(),
            content: input.experiment.as_ref().map(runs_csv).ok_or_else(|| {
                "the input holds no runs (CSV or hyperfine data); export runs from a raw file"
                    .to_owned()
            }),
        });
    }
    if let Some(path) = summary {
        out.push(CsvExport {
            flag: "--export-csv-summary",
            path: path.to_owned(),
            content: Ok(summary_csv(analysis, input.experiment.as_ref())),
        });
    }
    out
}
