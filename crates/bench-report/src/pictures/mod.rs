//! Pictures of an analysis: inline-SVG charts and a self-contained HTML report
//! (feature `html`).
//!
//! # Why a hand-written SVG writer, not plotters
//!
//! The charts are a handful of shapes (markers, lines, bands, text) on linear and
//! logarithmic axes. A ~150-line writer ([`svg`](self)) draws them with no dependency,
//! keeps `cargo deny` and the build unchanged, emits compact markup (one `<path>` per
//! series of markers, coordinates rounded to 0.1 px, which is what keeps a 10,000-run
//! report under 2 MB), and gives stable, readable SVG whose structure the tests can
//! count. plotters' SVG backend would draw the same, but brings its own text layout,
//! writes one element per marker with full-precision attributes, and its output is not
//! ours to keep stable across its releases.
//!
//! # What is drawn
//!
//! - [`charts`]: the paired effect per block, the run-order trace, the distributions,
//!   the estimator's uncertainty, the shape of the change (the ratio at each checked
//!   quantile) and, when given, confidence sequences over blocks.
//! - [`render_html`]: the console report's full text and every chart, one file, no
//!   script, no network.
//! - [`scan_chart`]: a throughput (or any estimate) against a swept parameter, with
//!   intervals (`cargo xtask chain-sweep --svg`).
//!
//! Colours are the Okabe-Ito palette; every series also has its own marker shape and
//! dash pattern, so the charts read in greyscale.

mod distributions;
mod effect;
mod frame;
mod history;
mod html;
mod scale;
mod scan;
mod sequence;
mod shape;
mod style;
mod svg;
mod trace;
mod uncertainty;

use bench_stats::Analysis;

pub use history::{
    Estimate, HistoryChart, HistoryPoint, history_levels_chart, history_steps_chart,
    render_history_html,
};
pub use html::render_html;
pub use scan::{ScanChart, ScanPoint, scan_chart};

/// What happened to one run, for the run-order trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Its value is in the analysis.
    Analysed,
    /// It succeeded, but its block was left out (incomplete, or another run in it failed).
    Dropped,
    /// It failed or timed out: no value.
    Failed,
    /// A reference-workload run (not part of the comparison).
    Reference,
}

/// One run as the trace draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedRun {
    /// The variant's name (as in the analysis).
    pub variant: String,
    /// Its block, when the data are blocked.
    pub block: Option<u32>,
    /// Its measured value in the analysis's unit (`None` for a failed run).
    pub value: Option<f64>,
    /// Analysed, dropped, failed or reference.
    pub status: RunStatus,
}

/// Every run in the order it was measured (or, for imported data without an order, in
/// the order of the file), beside the analysis.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunTrace {
    /// The runs.
    pub runs: Vec<TracedRun>,
    /// `true` when `runs` are in execution order; `false` for file order.
    pub in_run_order: bool,
}

/// One look of a sequential analysis: after `blocks` blocks, the ratio estimate and its
/// anytime-valid interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SequencePoint {
    /// Blocks seen.
    pub blocks: usize,
    /// Ratio estimate, candidate over baseline.
    pub estimate: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// A confidence sequence of one candidate over blocks, drawn when given (nothing here
/// computes one): [`confidence_sequences`] reads them from a sequential analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfidenceSequence {
    /// The candidate's name.
    pub candidate: String,
    /// The baseline's name.
    pub baseline: String,
    /// The looks, in block order.
    pub points: Vec<SequencePoint>,
}

/// The confidence sequence of every comparison a sequential rule decided, look by look as
/// the analysis replayed it ([`bench_stats::model::SequentialReport::sequence`]); empty
/// for fixed-count experiments and for an analysis read back from JSON (which does not
/// hold the looks).
pub fn confidence_sequences(analysis: &Analysis) -> Vec<ConfidenceSequence> {
    let mut out = Vec::new();
    for g in &analysis.groups {
        for c in &g.comparisons {
            let Some(s) = &c.sequential else { continue };
            if s.sequence.is_empty() {
                continue;
            }
            let points = s
                .sequence
                .iter()
                .map(|l| SequencePoint {
                    blocks: l.blocks as usize,
                    estimate: l.median_ratio,
                    low: l.ratio_interval[0],
                    high: l.ratio_interval[1],
                })
                .collect();
            out.push(ConfidenceSequence {
                candidate: c.candidate.clone(),
                baseline: g.baseline.clone(),
                points,
            });
        }
    }
    out
}

/// Everything the pictures are drawn from: the analysis, and optionally its runs and
/// confidence sequences.
#[derive(Debug, Clone, Copy)]
pub struct Pictures<'a> {
    /// The analysis.
    pub analysis: &'a Analysis,
    /// The runs behind it, for the trace and the distributions.
    pub runs: Option<&'a RunTrace>,
    /// Confidence sequences over blocks (a sequential run), possibly none.
    pub sequences: &'a [ConfidenceSequence],
}

impl<'a> Pictures<'a> {
    /// Pictures of `analysis` alone.
    pub fn new(analysis: &'a Analysis) -> Self {
        Pictures {
            analysis,
            runs: None,
            sequences: &[],
        }
    }

    /// With the runs behind the analysis.
    pub fn with_runs(mut self, runs: &'a RunTrace) -> Self {
        self.runs = Some(runs);
        self
    }

    /// With confidence sequences over blocks.
    pub fn with_sequences(mut self, sequences: &'a [ConfidenceSequence]) -> Self {
        self.sequences = sequences;
        self
    }

    /// The index of `variant` in the order variants first appear in the analysis: its
    /// colour and marker in every chart.
    pub(crate) fn variant_index(&self, variant: &str) -> usize {
        let mut seen: Vec<&str> = Vec::new();
        for b in self.analysis.groups.iter().flat_map(|g| &g.benchmarks) {
            if b.name == variant {
                return seen.len();
            }
            if !seen.contains(&b.name.as_str()) {
                seen.push(&b.name);
            }
        }
        seen.len()
    }
}

/// One chart: a file name for `--export-svg`, its title and the SVG document.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// File name without directory, e.g. `paired-effect.svg`.
    pub file_name: String,
    /// The chart's title.
    pub title: String,
    /// The standalone SVG document.
    pub svg: String,
}

/// Every chart the data allow, in reading order: the paired effect per block (blocked
/// comparisons), the run-order trace and the distributions (with runs), the estimator's
/// uncertainty (blocked comparisons), the shape of the change (comparisons with a shape
/// check: the typical run), the confidence sequences (when given). Charts the
/// data cannot support are left out; [`render_html`] says why.
pub fn charts(p: &Pictures<'_>) -> Vec<Chart> {
    let mut out = Vec::new();
    out.extend(effect::chart(p));
    out.extend(trace::chart(p));
    out.extend(distributions::chart(p));
    out.extend(uncertainty::chart(p));
    out.extend(shape::chart(p));
    out.extend(sequence::chart(p));
    out
}

/// A comparison's row label in the charts: `candidate / baseline`, with ` [class]` in
/// cross-class mode.
pub(crate) fn comparison_label(
    g: &bench_stats::GroupAnalysis,
    c: &bench_stats::Comparison,
) -> String {
    let class = g
        .class
        .as_deref()
        .map(|c| format!(" [{c}]"))
        .unwrap_or_default();
    format!("{} / {}{class}", c.candidate, g.baseline)
}

/// The comparisons with per-block values, as (label, candidate index, comparison).
pub(crate) fn blocked_rows<'a>(
    p: &Pictures<'a>,
) -> Vec<(String, usize, &'a bench_stats::Comparison)> {
    let mut rows = Vec::new();
    for g in &p.analysis.groups {
        for c in &g.comparisons {
            let Some(paired) = &c.paired else { continue };
            if paired.block_values.len() < 2 {
                continue;
            }
            rows.push((comparison_label(g, c), p.variant_index(&c.candidate), c));
        }
    }
    rows
}

/// Per-block ratios candidate / baseline of a comparison (blocks with a value that is
/// not positive are left out: their ratio is undefined).
pub(crate) fn block_ratios(c: &bench_stats::Comparison) -> Vec<f64> {
    c.paired
        .iter()
        .flat_map(|p| &p.block_values)
        .filter(|v| v[0] > 0.0 && v[1] > 0.0)
        .map(|v| v[1] / v[0])
        .collect()
}
