//! `abba history list`: the store's counts, its machines and its benchmarks.

use std::fmt::Write as _;

use bench_stats::history::{Series, SeriesBenchmark, SeriesMachine};

/// What `abba history list` shows of a store.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryOverview {
    /// The store, as named in messages.
    pub store: String,
    /// Experiments recorded.
    pub experiments: u64,
    /// Runs recorded.
    pub runs: u64,
    /// The machines matching the filters.
    pub machines: Vec<SeriesMachine>,
    /// The benchmarks with data under the filters.
    pub benchmarks: Vec<ListedBenchmark>,
}

/// A benchmark of [`HistoryOverview`]: its commits summed over its series, and on how
/// many machines.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedBenchmark {
    /// The benchmark.
    pub benchmark: SeriesBenchmark,
    /// Commits, summed over its machines' series.
    pub commits: usize,
    /// Machines with a series of it.
    pub machines: usize,
}

impl ListedBenchmark {
    /// The benchmarks of `series` (ordered by benchmark, as a store reads them), each with
    /// its commits summed over its machines' series. Time: O(series).
    pub fn of_series(series: Vec<Series>) -> Vec<ListedBenchmark> {
        let mut out: Vec<ListedBenchmark> = Vec::new();
        for s in series {
            match out.last_mut() {
                Some(l) if l.benchmark == s.benchmark => {
                    l.commits += s.points.len();
                    l.machines += 1;
                }
                _ => out.push(ListedBenchmark {
                    benchmark: s.benchmark,
                    commits: s.points.len(),
                    machines: 1,
                }),
            }
        }
        out
    }
}

/// The overview as text: a count line, then the machines and the benchmarks.
pub fn render_history_list(o: &HistoryOverview) -> String {
    let e = |t: &str| super::escape_terminal(t).into_owned();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} experiments, {} runs",
        e(&o.store),
        o.experiments,
        o.runs
    );
    let _ = writeln!(out, "\nmachines:");
    for m in &o.machines {
        let _ = writeln!(
            out,
            "  {:<20} {}  {}, {} cores, kernel {}",
            e(&m.name),
            e(&m.fingerprint),
            e(m.cpu_model.as_deref().unwrap_or("unknown CPU")),
            m.cores.map_or("?".to_owned(), |c| c.to_string()),
            e(m.kernel.as_deref().unwrap_or("?"))
        );
    }
    let _ = writeln!(out, "\nbenchmarks:");
    for l in &o.benchmarks {
        let b = &l.benchmark;
        let _ = writeln!(
            out,
            "  {:<24} {} ({}, {}), {} commits on {} machine{}",
            e(&b.name),
            e(&b.metric),
            e(&b.unit),
            if b.higher_is_better {
                "higher is better"
            } else {
                "lower is better"
            },
            l.commits,
            l.machines,
            if l.machines == 1 { "" } else { "s" }
        );
    }
    out
}
