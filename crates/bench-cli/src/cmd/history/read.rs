//! `abba history list`, `show` and `export`: the series read from the store
//! (`bench-history`) and rendered (`bench-report`).

use std::path::Path;

use bench_history::{Filter, SeriesRead, Store};
use bench_report::{HistoryOverview, ListedBenchmark};
use bench_stats::history::{ChangePointConfig, Series, SeriesConfig};

use crate::args::history::{ExportArgs, ReadArgs, ShowArgs};
use crate::core::exit::usage;
use crate::core::output::write_stdout;
use crate::core::record::{history_role, resolve_path, word};

impl ReadArgs {
    fn filter(&self) -> Filter {
        Filter {
            machine: self.machine.clone(),
            branch: self.branch.clone(),
            since: self.since.clone(),
            metric: self.metric.clone(),
        }
    }

    fn series_config(&self) -> SeriesConfig {
        let mut change_points = ChangePointConfig::default();
        if let Some(m) = self.min_segment {
            change_points.min_segment = m as usize;
        }
        if let Some(t) = self.threshold {
            change_points.alpha = t;
        }
        SeriesConfig {
            change_points,
            confidence: self.confidence,
        }
    }

    pub(super) fn open(&self) -> anyhow::Result<Store> {
        Store::open_existing(&resolve_path(self.history.as_deref())).map_err(word)
    }
}

/// Every series of the benchmarks named (all when `None`), filtered.
pub(super) fn all_series(
    store: &Store,
    bench: Option<&str>,
    read: &ReadArgs,
) -> anyhow::Result<Vec<Series>> {
    let got = store
        .read_series(bench, &read.filter(), &read.series_config())
        .map_err(word)?;
    Ok(said_since(got, read))
}

/// The series read, each one without the `--since` commit warned of.
fn said_since(got: SeriesRead, read: &ReadArgs) -> Vec<Series> {
    let e = |t: &str| bench_report::escape_terminal(t).into_owned();
    if let Some(since) = &read.since {
        for (bench, machine) in &got.without_since {
            crate::core::output::stderr_line(format_args!(
                "abba: --since {}: not a recorded commit of {} on {}; its series is taken from that commit's time on (it starts after {})",
                e(since),
                e(bench),
                e(machine),
                e(since),
            ));
        }
    }
    got.series
}

/// `abba history list`.
pub(super) fn list(read: &ReadArgs) -> anyhow::Result<u8> {
    let store = read.open()?;
    let (experiments, runs) = store.counts().map_err(word)?;
    let machines = store.machines(&read.filter()).map_err(word)?;
    // The CPU-time series kept beside wall-time ones are listed too.
    let got = store
        .list_series(&read.filter(), &read.series_config())
        .map_err(word)?;
    let overview = HistoryOverview {
        store: store.path().display().to_string(),
        experiments,
        runs,
        machines,
        benchmarks: ListedBenchmark::of_series(said_since(got, read)),
    };
    write_stdout(&bench_report::render_history_list(&overview))?;
    Ok(0)
}

/// `abba history show BENCH`.
pub(super) fn show(args: &ShowArgs) -> anyhow::Result<u8> {
    check_output_not_history("--export-html", args.export_html.as_deref(), &args.read)?;
    let store = args.read.open()?;
    let series = all_series(&store, Some(&args.bench), &args.read)?;
    if let Some(path) = &args.export_html {
        let html = bench_report::render_history_page(&series);
        crate::core::output::export(path, html.as_bytes())
            .map_err(|e| usage(format!("--export-html {}: {e}", path.display())))?;
    }
    if args.json {
        write_stdout(&bench_report::render_history_json(&series))?;
        return Ok(0);
    }
    write_stdout(&bench_report::render_history_show(&series, &args.bench))?;
    Ok(0)
}

/// `abba history export`.
pub(super) fn export(args: &ExportArgs) -> anyhow::Result<u8> {
    check_output_not_history("--output", args.output.as_deref(), &args.read)?;
    let store = args.read.open()?;
    let series = all_series(&store, args.bench.as_deref(), &args.read)?;
    let text = match args.format.as_str() {
        "json" => bench_report::render_history_json(&series),
        "bmf" => bench_report::render_history_bmf(&series),
        _ => bench_report::render_history_csv(&series),
    };
    match &args.output {
        Some(path) => crate::core::output::export(path, text.as_bytes())
            .map_err(|e| usage(format!("--output {}: {e}", path.display())))?,
        None => write_stdout(&text)?,
    }
    Ok(0)
}

/// Refuses, before the store is read, an output of a history subcommand (`flag path`)
/// that is the history file itself under any spelling.
///
/// # Errors
/// Exit 2 naming both.
fn check_output_not_history(
    flag: &str,
    output: Option<&Path>,
    read: &ReadArgs,
) -> anyhow::Result<()> {
    let Some(output) = output else {
        return Ok(());
    };
    let history = resolve_path(read.history.as_deref());
    let kept = crate::core::paths::Kept {
        role: history_role(read.history.is_some(), "the history"),
        path: &history,
    };
    crate::core::paths::check_not_kept(flag, output, "the export", &[kept])
}
