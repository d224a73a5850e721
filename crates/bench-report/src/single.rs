//! One command measured alone: hyperfine's summary, with an interval for the median and
//! no verdict (there is nothing to compare it with).

use std::fmt::Write as _;

use bench_stats::{Analysis, Dataset};

use crate::options::{Charset, RenderOptions, Symbols};
use crate::units::{self, Scale};
use crate::wrap::wrap;

/// The console report of `analysis` of `data` ([`crate::render_console`]); for one
/// command measured alone (one benchmark, nothing compared), [`render_single`] with its
/// median's distribution-free interval
/// ([`median_interval`](bench_stats::descriptive::median_interval) of its values at
/// `analysis.confidence`) and a line saying there is no verdict. Time: O(n log n) in the
/// runs of the one benchmark, else [`crate::render_console`]'s.
///
/// # Examples
///
/// ```
/// use bench_report::{RenderOptions, render_measured};
/// use bench_stats::{AnalysisConfig, Dataset, Observation, Series, analyze};
///
/// let runs = (0..20).map(|i| Observation::new(10.0e6 + f64::from(i) * 1e4));
/// let data = Dataset::new("ns", vec![Series::new("sleep 0.01", runs)]);
/// let analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
/// let text = render_measured(&analysis, &data, &RenderOptions::default());
/// assert!(text.starts_with("Benchmark 1: sleep 0.01\n"));
/// assert!(text.contains("One command, measured alone: no verdict."));
/// ```
pub fn render_measured(analysis: &Analysis, data: &Dataset, options: &RenderOptions) -> String {
    let benchmarks: Vec<_> = analysis.groups.iter().flat_map(|g| &g.benchmarks).collect();
    let compared = analysis.groups.iter().any(|g| !g.comparisons.is_empty());
    if benchmarks.len() != 1 || compared {
        return crate::render_console(analysis, options);
    }
    let medians: Vec<Option<[f64; 2]>> = benchmarks
        .iter()
        .map(|b| {
            let series = data.series.iter().find(|s| s.name == b.name)?;
            let values: Vec<f64> = series.observations.iter().map(|o| o.value).collect();
            bench_stats::descriptive::median_interval(&values, analysis.confidence)
        })
        .collect();
    let mut text = render_single(analysis, &medians, options);
    let note =
        "One command, measured alone: no verdict. Give two or more commands to compare them.";
    let _ = write!(text, "\n{}\n", wrap(note, options.width, "", "  "));
    text
}

/// Each benchmark of `analysis` as hyperfine prints one command:
///
/// ```text
/// Benchmark 1: sleep 0.01
///   Time (mean ± σ):     10.41 ms ±  0.12 ms    [User: 0.41 ms, System: 0.70 ms]
///   Range (min … max):   10.20 ms … 10.80 ms    20 runs
///   Median (95% CI):     10.40 ms [10.31 ms, 10.52 ms]
/// ```
///
/// `medians[i]` is the interval of benchmark `i`'s median (`None`: too few runs for one,
/// said so) at `analysis.confidence`; see
/// [`median_interval`](bench_stats::descriptive::median_interval). Every value of a
/// benchmark is printed in one unit (hyperfine's `µs` in Unicode, `us` in ASCII) with the
/// same decimals; then the warnings that are not informational, wrapped to
/// `options.width`. Time: O(benchmarks + warnings).
///
/// # Examples
///
/// ```
/// use bench_report::{RenderOptions, render_single};
/// use bench_stats::{AnalysisConfig, Dataset, Observation, Series, analyze};
///
/// let runs = (0..20).map(|i| Observation::new(10.0e6 + f64::from(i) * 1e4));
/// let data = Dataset::new("ns", vec![Series::new("sleep 0.01", runs)]);
/// let analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
/// let text = render_single(&analysis, &[Some([10.05e6, 10.14e6])], &RenderOptions::default());
/// assert!(text.starts_with("Benchmark 1: sleep 0.01\n  Time (mean ± σ):"));
/// assert!(text.contains("Median (95% CI):"));
/// assert!(text.contains("[10.05 ms, 10.14 ms]"));
/// ```
pub fn render_single(
    analysis: &Analysis,
    medians: &[Option<[f64; 2]>],
    options: &RenderOptions,
) -> String {
    let sym = match options.charset {
        Charset::Unicode => Symbols::UNICODE,
        Charset::Ascii | Charset::Plain => Symbols::ASCII,
    };
    let ascii = options.charset != Charset::Unicode;
    let (range, pm) = if ascii {
        ("min ... max", "+/-")
    } else {
        ("min … max", "±")
    };
    let sigma = sym.sigma;
    let conf = units::percent(analysis.confidence, sym.none);
    let what = if units::is_time(&analysis.unit) || analysis.unit.is_empty() {
        "Time"
    } else {
        "Value"
    };
    let labels = [
        format!("{what} (mean {pm} {sigma}):"),
        format!("Range ({range}):"),
        format!("Median ({conf} CI):"),
    ];
    let pad = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 2;
    let mut out = String::new();
    let benchmarks = analysis.groups.iter().flat_map(|g| &g.benchmarks);
    for (i, b) in benchmarks.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let scale = Scale::pick(b.mean, &analysis.unit, options.time_unit);
        let d = scale.decimals_for(b.mean.abs().max(b.max.abs()), 1).min(6);
        let unit = match scale.suffix() {
            "us" if !ascii => "µs",
            s => s,
        };
        let num = |v: f64| {
            if v.is_finite() {
                format!("{:.d$}", scale.apply(v))
            } else {
                sym.none.to_owned()
            }
        };
        let with = |v: f64| {
            if unit.is_empty() {
                num(v)
            } else {
                format!("{} {unit}", num(v))
            }
        };
        let title = format!("Benchmark {}: {}", i + 1, b.name);
        out.push_str(&wrap(&title, options.width, "", "  "));
        out.push('\n');
        let mean = with(b.mean);
        let sd = b.stddev.map_or_else(|| sym.none.to_owned(), with);
        let mut line = format!("  {:<pad$}{mean} {pm} {sd}", labels[0]);
        if let (Some(u), Some(s)) = (b.user_mean, b.sys_mean) {
            let _ = write!(line, "    [User: {}, System: {}]", with(u), with(s));
        }
        push(&mut out, &line, options.width, pad + 2);
        let line = format!(
            "  {:<pad$}{} {} {}    {} runs",
            labels[1],
            with(b.min),
            if ascii { "..." } else { "…" },
            with(b.max),
            b.n
        );
        push(&mut out, &line, options.width, pad + 2);
        let interval = match medians.get(i).copied().flatten() {
            Some([lo, hi]) => format!("[{}, {}]", with(lo), with(hi)),
            None => format!("(too few runs for a {conf} interval)"),
        };
        let line = format!("  {:<pad$}{} {interval}", labels[2], with(b.median));
        push(&mut out, &line, options.width, pad + 2);
    }
    let warnings: Vec<String> = analysis
        .warnings
        .iter()
        .filter(|w| w.code != bench_stats::WarningCode::P99Withheld)
        .map(|w| match &w.benchmark {
            Some(b) => format!("{} ({b}): {}", w.code, w.message),
            None => format!("{}: {}", w.code, w.message),
        })
        .collect();
    if !warnings.is_empty() {
        out.push_str("\nWarnings:\n");
        for w in warnings {
            out.push_str(&wrap(&w, options.width, "  ", "    "));
            out.push('\n');
        }
    }
    out
}

/// A summary line: as it is when it fits, else wrapped under its values' column.
fn push(out: &mut String, line: &str, width: Option<usize>, column: usize) {
    let fits = width.is_none_or(|w| line.chars().count() <= w);
    if fits {
        out.push_str(line);
    } else {
        out.push_str(&wrap(line, width, "", &" ".repeat(column.min(8))));
    }
    out.push('\n');
}
