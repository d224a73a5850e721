//! CSV exports (`--export-csv`, `--export-csv-summary`): one row per analysed run of an
//! experiment, or one row per benchmark of an analysis. The per-run file is CSV input
//! ([`crate::read_csv`]): its `variant`, `value` and `block` columns give back the same
//! paired data.

use std::fmt::Write as _;

use bench_stats::Analysis;

use crate::pipeline::Experiment;
use crate::raw::RawData;

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

/// The raw data behind `experiment`, to reuse the reader's rules.
fn raw_of(experiment: &Experiment) -> RawData {
    RawData {
        file: String::new(),
        header: experiment.header.clone(),
        runs: experiment.runs.clone(),
        trailer: None,
        warnings: Vec::new(),
        run_ends: Vec::new(),
        header_end: 0,
    }
}

/// One row per run that the analysis uses, in run order, with a header row
/// ([`RUNS_CSV_COLUMNS`]); `value` is the analysed value (in the header's unit), `metric`
/// the run line's `metric` field. Runs the analysis leaves out (failed, timed out, in an
/// incomplete or failed block) and reference runs are not rows: the raw file keeps them.
/// Time: O(runs).
pub fn runs_csv(experiment: &Experiment) -> String {
    let raw = raw_of(experiment);
    let mut out = format!("{RUNS_CSV_COLUMNS}\n");
    for (r, value) in raw.runs.iter().zip(raw.analysed_values()) {
        let Some(value) = value else { continue };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            r.block,
            r.position,
            field(&r.variant),
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
    let raw = experiment.map(raw_of);
    let used = raw.as_ref().map(RawData::analysed_values);
    let cpu_means = |name: &str| -> (String, String) {
        let (Some(raw), Some(used)) = (&raw, &used) else {
            return (String::new(), String::new());
        };
        let runs: Vec<_> = raw
            .runs
            .iter()
            .zip(used)
            .filter(|(r, v)| v.is_some() && r.variant == name)
            .map(|(r, _)| r)
            .collect();
        if runs.is_empty() {
            return (String::new(), String::new());
        }
        let mean = |f: fn(&crate::raw::RunRecord) -> u64| {
            (runs.iter().map(|r| f(r) as f64).sum::<f64>() / runs.len() as f64).to_string()
        };
        (mean(|r| r.user_ns), mean(|r| r.sys_ns))
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
