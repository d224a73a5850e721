//! Turns an [`Analysis`] into format-neutral text pieces (tables as cells, lines as
//! strings) so the console and Markdown renderers only lay them out.

use std::fmt::Write as _;

use bench_stats::diagnostics::BlockJoin;
use bench_stats::model::{
    CarryoverMethod, CarryoverSummary, Control, DecisionReport, MannWhitneyReport, OmnibusTest,
    PairedReport, ReferencePlacement, ReferenceReport, ShiftReport, Treatment,
    VarianceComponentsReport,
};
use bench_stats::paired::shape::{PartStatistic, QuantileShift};
use bench_stats::{
    Analysis, Comparison, GroupAnalysis, Grouping, Outcome, PairedEstimator, Quantity, Verdict,
    VerdictBasis, WarningCode,
};

use crate::options::Symbols;
use crate::units::{self, Scale, format_in, p_clause, ratio_with_ci, shift_with_ci, stat};

/// Above this many blocks the per-block table is left out.
const MAX_BLOCK_COLUMNS: usize = 20;

/// Whether a piece of text says the candidate did better, worse, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Plain,
    Better,
    Worse,
}

impl Tone {
    pub(crate) fn of(outcome: Outcome) -> Tone {
        match outcome {
            Outcome::Faster => Tone::Better,
            Outcome::Slower | Outcome::Mixed => Tone::Worse,
            Outcome::Equivalent | Outcome::Inconclusive => Tone::Plain,
            // An outcome a later bench-stats adds: `clippy::wildcard_enum_match_arm` (denied
            // in this crate) fails the build until it is named above.
            _ => Tone::Plain,
        }
    }
}

/// One table cell.
#[derive(Debug, Clone)]
pub(crate) struct Cell {
    pub(crate) text: String,
    pub(crate) tone: Tone,
}

impl Cell {
    pub(crate) fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            tone: Tone::Plain,
        }
    }
    pub(crate) fn toned(text: impl Into<String>, tone: Tone) -> Cell {
        Cell {
            text: text.into(),
            tone,
        }
    }
}

/// A table: header, rows, which columns hold numbers (right-aligned), and how to fit it
/// into a narrow terminal.
#[derive(Debug, Clone)]
pub(crate) struct Grid {
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<Cell>>,
    pub(crate) right_aligned: Vec<bool>,
    /// Per column, the order in which columns are given room when the table is too wide:
    /// 0 always stays in the first table, larger numbers are stacked or left out first.
    pub(crate) priority: Vec<u8>,
    /// The columns repeated in every stacked table (the row names).
    pub(crate) key: Vec<usize>,
    /// The column of names that may be shortened in the middle.
    pub(crate) names: Option<usize>,
}

/// The verdict of one candidate in words.
#[derive(Debug, Clone)]
pub(crate) struct VerdictLine {
    /// `B vs A`.
    pub(crate) name: String,
    /// `SLOWER`, `SLOWER (slow runs)`, `EQUIVALENT`: [`outcome_tag`].
    pub(crate) tag: String,
    /// `+4.8% [+0.4%, +9.3%] in the mean run (typical run +7.0% [+0.0%, +11.2%]) · 8
    /// blocks`: [`headline`].
    pub(crate) headline: String,
    pub(crate) tone: Tone,
    pub(crate) summary: String,
    pub(crate) detail: String,
    /// INCONCLUSIVE or MIXED: reducing noise or running more would change the answer.
    pub(crate) undecided: bool,
}

/// The per-block table of a paired comparison.
#[derive(Debug, Clone)]
pub(crate) enum BlockTable {
    Shown(Grid),
    Omitted(usize),
    Absent,
}

/// A titled block of detail lines (paired analysis, reference workload).
#[derive(Debug, Clone)]
pub(crate) struct Detail {
    pub(crate) title: String,
    pub(crate) blocks: BlockTable,
    pub(crate) lines: Vec<String>,
}

/// Everything printed for one group.
#[derive(Debug, Clone)]
pub(crate) struct GroupView {
    pub(crate) title: String,
    pub(crate) table: Grid,
    /// Informational notes printed under the table in the compact report (p99 withheld).
    pub(crate) notes: Vec<String>,
    pub(crate) omnibus: Option<String>,
    pub(crate) verdicts: Vec<VerdictLine>,
    pub(crate) details: Vec<Detail>,
}

/// The whole report.
#[derive(Debug, Clone)]
pub(crate) struct ReportView {
    pub(crate) header: Vec<String>,
    pub(crate) groups: Vec<GroupView>,
    pub(crate) controls: Vec<String>,
    /// The controls in one line (`order counterbalanced, ...; cores/governor
    /// uncontrolled`), without the hint to the full report.
    pub(crate) controls_brief: Option<String>,
    /// The controls the user can fix (uncontrolled, with a remedy), in full: the compact
    /// Markdown names each on its own line.
    pub(crate) controls_fixable: Vec<String>,
    /// The same without the treatment the brief already states (`cores: the scheduler
    /// chose ...`): the compact console line appends them.
    pub(crate) controls_fixable_brief: Vec<String>,
    pub(crate) warnings: Vec<WarningLine>,
    /// The experiment pooled over hosts or sessions, when it spans several.
    pub(crate) levels: Option<crate::levels_view::LevelsView>,
}

/// One warning in words, and whether it is only informational (the compact report turns
/// those into table footnotes).
#[derive(Debug, Clone)]
pub(crate) struct WarningLine {
    pub(crate) text: String,
    /// The figures behind it, for the full report ([`bench_stats::model::Warning::detail`]).
    pub(crate) detail: Option<String>,
    pub(crate) informational: bool,
}

/// Builds the report pieces. Time: O(total benchmarks + blocks).
pub(crate) fn build(a: &Analysis, sym: &Symbols) -> ReportView {
    let cross_class = a.grouping == Grouping::CrossClass;
    ReportView {
        header: header(a, sym),
        groups: a
            .groups
            .iter()
            .map(|g| group(a, g, cross_class, sym))
            .collect(),
        controls: a.controls.iter().map(|c| control_line(c, sym)).collect(),
        controls_brief: controls_brief(&a.controls),
        controls_fixable: a
            .controls
            .iter()
            .filter(|c| fixable(c))
            .map(|c| control_line(c, sym))
            .collect(),
        controls_fixable_brief: a
            .controls
            .iter()
            .filter(|c| fixable(c))
            .map(|c| fixable_line(c, sym))
            .collect(),
        warnings: a
            .warnings
            .iter()
            .map(|w| WarningLine {
                text: match &w.benchmark {
                    Some(b) => format!("{} ({b}): {}", w.code, w.message),
                    None => format!("{}: {}", w.code, w.message),
                },
                detail: w.detail.clone(),
                informational: is_informational(w.code),
            })
            .chain(a.groups.iter().filter(|_| !cross_class).flat_map(|g| {
                g.comparisons
                    .iter()
                    .filter_map(move |c| typical_not_medians(g, c, sym))
            }))
            .collect(),
        levels: a.levels.as_ref().and_then(crate::levels_view::build),
    }
}

/// Why a typical-run ratio is not the ratio of the medians printed beside it, when it is
/// not (beyond its interval and by more than 5%; one table of every variant across
/// classes compares across classes, and is left alone): it compares each run with its own
/// block's centre, and on runs that fall in several levels (bimodal) the two medians can
/// sit in different ones. A warning of the report, compact or full (issue 38, M14).
fn typical_not_medians(g: &GroupAnalysis, c: &Comparison, sym: &Symbols) -> Option<WarningLine> {
    c.distribution.as_ref()?;
    let (r, [lo, hi]) = (c.ratio?, c.ratio_ci?);
    let median = |name: &str| {
        g.benchmarks
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.median)
    };
    let (base, cand) = (median(&g.baseline)?, median(&c.candidate)?);
    let rm = cand / base;
    // Apart by more than 5%: a few runs' medians wander a little from the typical run;
    // runs in several levels move them by their gap.
    let apart = rm.is_finite() && rm > 0.0 && r > 0.0 && (rm / r).ln().abs() > 0.05;
    if !apart || (lo..=hi).contains(&rm) {
        return None;
    }
    Some(WarningLine {
        text: format!(
            "{} vs {}: the typical-run ratio {} is the median of each run's ratio to its own block's centre, not the ratio of the medians shown ({}): they differ when the runs fall in several levels (bimodal) and the two medians sit in different ones, or the blocks drift",
            c.candidate,
            g.baseline,
            ratio_with_ci(Some(r), None, sym.none),
            ratio_with_ci(Some(rm), None, sym.none)
        ),
        detail: None,
        // Shown in the compact report too: the table puts the two side by side.
        informational: false,
    })
}

impl WarningLine {
    /// The warning with its figures (`text (detail)`), as the full report shows it.
    pub(crate) fn full(&self) -> String {
        match &self.detail {
            Some(d) => format!("{} ({d})", self.text),
            None => self.text.clone(),
        }
    }
}

/// Warnings that say how the report was made rather than what to distrust.
fn is_informational(code: WarningCode) -> bool {
    matches!(code, WarningCode::P99Withheld)
}

/// An uncontrolled dimension the user can fix (a remedy applies).
fn fixable(c: &Control) -> bool {
    c.treatment == Treatment::Uncontrolled && c.remedy.is_some()
}

fn control_line(c: &Control, sym: &Symbols) -> String {
    let treatment = match c.treatment {
        Treatment::Randomized => "randomized",
        Treatment::HeldFixed => "held fixed",
        Treatment::Uncontrolled => "uncontrolled",
        _ => "other",
    };
    if c.detail.is_empty() {
        format!("{}: {treatment}", c.dimension)
    } else {
        format!("{}: {treatment} {} {}", c.dimension, sym.dash, c.detail)
    }
}

/// A control the user can fix, for the brief that already says it is uncontrolled:
/// `cores: the scheduler chose among CPU(s) 0-1 (use --pin to hold this fixed)`.
fn fixable_line(c: &Control, sym: &Symbols) -> String {
    if c.detail.is_empty() {
        control_line(c, sym)
    } else {
        format!("{}: {}", c.dimension, c.detail)
    }
}

/// `order counterbalanced, layout randomized (48 paddings), cores/governor uncontrolled`:
/// the controlled dimensions by their brief, then the uncontrolled ones together.
fn controls_brief(controls: &[Control]) -> Option<String> {
    if controls.is_empty() {
        return None;
    }
    let name = |c: &Control| c.brief.clone().unwrap_or_else(|| c.dimension.clone());
    let mut parts: Vec<String> = controls
        .iter()
        .filter(|c| c.treatment != Treatment::Uncontrolled)
        .map(|c| match (&c.brief, c.treatment) {
            (Some(b), _) => b.clone(),
            (None, Treatment::Randomized) => format!("{} randomized", c.dimension),
            (None, _) => format!("{} fixed", c.dimension),
        })
        .collect();
    let loose: Vec<String> = controls
        .iter()
        .filter(|c| c.treatment == Treatment::Uncontrolled)
        .map(name)
        .collect();
    if !loose.is_empty() {
        parts.push(format!("{} uncontrolled", loose.join("/")));
    }
    Some(parts.join(", "))
}

fn header(a: &Analysis, sym: &Symbols) -> Vec<String> {
    let mut first = vec![format!(
        "design {}",
        a.design.map_or("unknown", |d| d.as_str())
    )];
    first.push(format!("seed {}", a.seed));
    first.push(format!("alpha {}", units::plain(a.alpha, sym.none)));
    first.push(format!(
        "confidence {}",
        units::percent(a.confidence, sym.none)
    ));
    first.push(format!("{} resamples", a.resamples));
    // The paired estimator decides only blocked two-variant comparisons.
    let paired = a
        .groups
        .iter()
        .flat_map(|g| &g.comparisons)
        .any(|c| c.paired.is_some());
    if let Some(e) = a.paired_estimator.filter(|_| paired) {
        first.push(format!("verdict estimator {}", e.as_str()));
    }
    let direction = if a.higher_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    // Times and rates are printed at the scale that fits each number (ms, us, Kops/s), so
    // the data's own unit is named as that, not as the unit of the tables.
    let unit = if a.unit.is_empty() {
        format!("no unit ({direction})")
    } else if let Some(t) = sym.time_unit.filter(|_| units::is_time(&a.unit)) {
        format!(
            "values in {}, shown in {} ({direction})",
            a.unit,
            t.as_str()
        )
    } else if units::is_scalable(&a.unit) {
        format!("values in {}, shown scaled ({direction})", a.unit)
    } else {
        format!("unit {} ({direction})", a.unit)
    };
    let mut second = vec![unit];
    if a.equivalence_margin > 0.0 {
        second.push(format!(
            "equivalence margin {}{}",
            sym.plus_minus,
            units::percent(a.equivalence_margin, sym.none)
        ));
    }
    let cliff = format!(
        "|{}| {} {}",
        sym.delta,
        sym.at_least,
        units::plain(a.min_practical_effect, sym.none)
    );
    match a.practical.as_str() {
        "auto" if a.min_practical_effect > 0.0 => second.push(format!(
            "practical size: outside the margin (blocked), {cliff} (unpaired)"
        )),
        "auto" => second.push("practical size: outside the margin (blocked)".to_owned()),
        "ratio" => second.push("practical size: outside the margin".to_owned()),
        "" if a.min_practical_effect > 0.0 => {
            second.push(format!("minimum practical effect {cliff}"));
        }
        "" => {}
        rule => second.push(format!(
            "practical size: |{}| {} {}",
            sym.delta,
            sym.at_least,
            rule.trim_start_matches("cliff:")
        )),
    }
    vec![first.join(sym.sep), second.join(sym.sep)]
}

fn group(a: &Analysis, g: &GroupAnalysis, cross_class: bool, sym: &Symbols) -> GroupView {
    let title = match (&g.class, cross_class) {
        (Some(c), _) => format!("Class {c} (baseline {})", g.baseline),
        (None, true) => match g.benchmarks.first().and_then(|b| b.class.as_deref()) {
            Some(c) if !g.baseline.starts_with(c) => {
                format!("All classes (baseline {} in {c})", g.baseline)
            }
            _ => format!("All classes (baseline {})", g.baseline),
        },
        (None, false) => format!("Baseline {}", g.baseline),
    };
    let omnibus = g.omnibus.map(|o| {
        let (name, what, letter) = match o.test {
            OmnibusTest::KruskalWallis => ("Kruskal-Wallis", "groups", "H"),
            OmnibusTest::Friedman => ("Friedman", "variants", "chi2"),
            _ => ("Omnibus test", "variants", "statistic"),
        };
        let verdict = if o.significant {
            "significant"
        } else {
            "not significant"
        };
        format!(
            "Omnibus {name} across {} {what}: {letter}({}) = {}, p {} {} {verdict}",
            g.benchmarks.len(),
            o.df,
            stat(o.statistic, sym.none),
            p_clause(Some(o.p_value), sym.none),
            sym.arrow
        )
    });
    // A scan's trend (Page's L), printed under the omnibus line as part of it.
    let omnibus = match (omnibus, g.trend.as_ref().map(|t| trend_line(t, sym))) {
        (Some(o), Some(t)) => Some(format!("{o}\n{t}")),
        (o, t) => o.or(t),
    };
    let mut details = Vec::new();
    for c in &g.comparisons {
        if let Some(p) = &c.paired {
            details.push(paired_detail(a, g, c, p, sym));
        }
        if let Some(r) = &c.reference {
            details.push(reference_detail(a, g, c, r, sym));
        }
        if let Some(k) = &c.carryover {
            details.push(carryover_detail(a, g, c, k, sym));
        }
    }
    let withheld = a
        .warnings
        .iter()
        .any(|w| w.code == WarningCode::P99Withheld);
    let notes = if withheld && g.benchmarks.iter().any(|b| b.p99.is_none()) {
        vec![format!(
            "p99 withheld: with fewer than 100 values the 99th percentile is just the maximum (smallest n here: {})",
            g.benchmarks.iter().map(|b| b.n).min().unwrap_or(0)
        )]
    } else {
        Vec::new()
    };
    GroupView {
        title,
        table: summary_table(a, g, cross_class, sym),
        notes,
        omnibus,
        verdicts: g
            .comparisons
            .iter()
            .map(|c| verdict_line(a, g, c, sym))
            .collect(),
        details,
    }
}

fn reference_detail(
    a: &Analysis,
    g: &GroupAnalysis,
    c: &Comparison,
    r: &ReferenceReport,
    sym: &Symbols,
) -> Detail {
    let smallest =
        units::magnitude_range(r.reference_block_values.iter().copied()).map_or(0.0, |(lo, _)| lo);
    let scale = Scale::pick(smallest, &a.unit, sym.time_unit);
    let mut lines = vec![
        format!(
            "ratio of ratios: {}",
            ratio_with_ci(Some(r.ratio_of_ratios), r.ci, sym.none)
        ),
        format!(
            "reference CV: {}",
            r.reference_cv
                .map_or_else(|| sym.none.to_owned(), |v| units::percent(v, sym.none))
        ),
    ];
    if let Some(cv) = r.reference_own_cv {
        lines.push(format!(
            "reference's own CV (its two runs of a block): {}; upward bias of the ratio of ratios ~ CV²/blocks = {}",
            units::percent(cv, sym.none),
            r.approximate_bias
                .map_or_else(|| sym.none.to_owned(), |v| units::percent(v, sym.none))
        ));
    }
    let per_block = [
        ("reference per block", Some(&r.reference_block_values)),
        (
            "reference beside the baseline",
            r.baseline_reference_values.as_ref(),
        ),
        (
            "reference beside the candidate",
            r.candidate_reference_values.as_ref(),
        ),
    ];
    for (what, values) in per_block {
        if let Some(values) = values.filter(|v| !v.is_empty()) {
            lines.push(format!(
                "{what} ({}): {}",
                unit_label(&scale),
                block_numbers(values, &scale)
            ));
        }
    }
    if r.placement == Some(ReferencePlacement::OncePerBlock) {
        lines.push(
            "the reference ran once per block (an older raw file): each block's ratio of ratios is the plain ratio, so the reference only reweights the blocks"
                .to_owned(),
        );
    }
    Detail {
        title: format!("Reference workload, {} vs {}", c.candidate, g.baseline),
        blocks: BlockTable::Absent,
        lines,
    }
}

fn carryover_detail(
    a: &Analysis,
    g: &GroupAnalysis,
    c: &Comparison,
    k: &CarryoverSummary,
    sym: &Symbols,
) -> Detail {
    let value = |v: f64| units::format_in(v, &a.unit, sym.time_unit);
    let signed = |v: f64| {
        let s = value(v.abs());
        if v < 0.0 {
            format!("-{s}")
        } else {
            format!("+{s}")
        }
    };
    let mut lines = Vec::new();
    let cells = [
        (&g.baseline, &k.baseline_position_means),
        (&c.candidate, &k.candidate_position_means),
    ];
    for (name, means) in cells {
        if let Some(means) = means {
            let shown: Vec<String> = means
                .iter()
                .map(|m| m.map_or_else(|| sym.none.to_owned(), value))
                .collect();
            lines.push(format!(
                "{name} by block position 1-4: {}",
                shown.join(" | ")
            ));
        }
    }
    let join = match k.join {
        BlockJoin::BackToBack => "blocks back to back",
        BlockJoin::Separated => "blocks separated by reference runs",
        _ => "blocks separated by reference runs",
    };
    if let (Some(e), Some(p)) = (k.position_effect, k.position_p) {
        lines.push(format!(
            "a run right after the other variant: {} ({join}), sign test p {}",
            signed(e),
            p_clause(Some(p), sym.none)
        ));
    }
    if let (Some(d), Some(p)) = (k.differential, k.differential_p) {
        let what = match k.method {
            CarryoverMethod::AbbaBaab => format!(
                "a run of {} right after {} minus the reverse",
                c.candidate, g.baseline
            ),
            CarryoverMethod::ResidualEffects => format!(
                "a run right after {} minus right after {}",
                c.candidate, g.baseline
            ),
            _ => format!(
                "a run right after {} minus right after {}",
                c.candidate, g.baseline
            ),
        };
        lines.push(format!(
            "carryover that differs between the versions ({what}): {}, p {}; it shifts the difference by {}",
            signed(d),
            p_clause(Some(p), sym.none),
            k.version_bias.map_or_else(|| sym.none.to_owned(), signed)
        ));
    }
    Detail {
        title: format!("Carryover, {} vs {}", c.candidate, g.baseline),
        blocks: BlockTable::Absent,
        lines,
    }
}

fn unit_label(scale: &Scale) -> &str {
    if scale.suffix().is_empty() {
        "no unit"
    } else {
        scale.suffix()
    }
}

fn block_numbers(values: &[f64], scale: &Scale) -> String {
    let largest = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let d = scale.decimals_for(largest, 1);
    values
        .iter()
        .map(|v| format!("{:.d$}", scale.apply(*v)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn summary_table(a: &Analysis, g: &GroupAnalysis, cross_class: bool, sym: &Symbols) -> Grid {
    let with_p99 = g.benchmarks.iter().any(|b| b.p99.is_some());
    let with_cpu = g
        .benchmarks
        .iter()
        .any(|b| b.user_mean.is_some() || b.sys_mean.is_some());
    // One scale for the whole table when the values are within three decades of each
    // other, so a column reads in one unit; otherwise each value picks its own. A fixed
    // time unit is one scale for every table.
    let fixed = sym.time_unit.filter(|_| units::is_time(&a.unit));
    let common = match fixed {
        Some(t) => Some(Scale::pick(0.0, &a.unit, Some(t))),
        None => units::magnitude_range(g.benchmarks.iter().map(|b| b.median))
            .filter(|(lo, hi)| units::is_scalable(&a.unit) && hi / lo < 1e3)
            .map(|(lo, _)| Scale::for_magnitude(lo, &a.unit)),
    };
    let value = |v: f64| match &common {
        Some(scale) => scale.format(v),
        None => format_in(v, &a.unit, None),
    };
    let (header, right_aligned, priority) = summary_header(cross_class, with_p99, with_cpu, sym);

    // Row 0 is the baseline, row k + 1 the candidate of comparison k.
    let rows = g
        .benchmarks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let is_baseline = i == 0;
            let comparison = i.checked_sub(1).and_then(|k| g.comparisons.get(k));
            let mut row = Vec::with_capacity(header.len());
            if cross_class {
                row.push(Cell::plain(b.class.as_deref().unwrap_or(sym.none)));
            }
            row.push(Cell::plain(b.name.clone()));
            row.push(Cell::plain(b.n.to_string()));
            row.push(Cell::plain(value(b.median)));
            row.push(Cell::plain(mean_sd(
                b.mean,
                b.stddev,
                common.as_ref(),
                &a.unit,
                sym,
            )));
            row.push(Cell::plain(min_max(
                b.min,
                b.max,
                common.as_ref(),
                &a.unit,
                sym,
            )));
            if with_cpu {
                let cpu = |v: Option<f64>| {
                    v.map_or_else(
                        || sym.none.to_owned(),
                        |v| cpu_cell(v, b.median, common.as_ref(), &a.unit),
                    )
                };
                row.push(Cell::plain(cpu(b.user_mean)));
                row.push(Cell::plain(cpu(b.sys_mean)));
            }
            row.push(Cell::plain(value(b.p90)));
            if with_p99 {
                row.push(Cell::plain(
                    b.p99.map_or_else(|| sym.none.to_owned(), value),
                ));
            }
            match comparison {
                None if is_baseline => {
                    row.push(Cell::plain("baseline"));
                    row.extend((0..3).map(|_| Cell::plain("")));
                }
                None => row.extend((0..4).map(|_| Cell::plain(""))),
                Some(c) => row.extend(comparison_cells(a, c, sym)),
            }
            row
        })
        .collect();
    let name_column = usize::from(cross_class);
    Grid {
        header,
        rows,
        right_aligned,
        priority,
        key: (0..=name_column).collect(),
        names: Some(name_column),
    }
}

/// The summary table's header, which of its columns are right-aligned (the numbers), and
/// their priorities when the table must fit a narrow terminal (Variant, Median, Ratio and
/// Sig stay; then Mean, n, p90, Min...Max, User/System, Cliff's delta, Shift, p99).
fn summary_header(
    cross_class: bool,
    with_p99: bool,
    with_cpu: bool,
    sym: &Symbols,
) -> (Vec<String>, Vec<bool>, Vec<u8>) {
    let mut columns: Vec<(String, bool, u8)> = Vec::new();
    if cross_class {
        columns.push(("Class".into(), false, 0));
    }
    columns.push(("Variant".into(), false, 0));
    columns.push(("n".into(), true, 2));
    columns.push(("Median".into(), true, 0));
    columns.push((format!("Mean {} {}", sym.plus_minus, sym.sigma), true, 1));
    columns.push((format!("Min{}Max", sym.ellipsis), true, 4));
    if with_cpu {
        columns.push(("User".into(), true, 5));
        columns.push(("System".into(), true, 5));
    }
    columns.push(("p90".into(), true, 3));
    if with_p99 {
        columns.push(("p99".into(), true, 8));
    }
    columns.push(("Ratio".into(), false, 0));
    columns.push(("Sig".into(), false, 0));
    columns.push((format!("Cliff's {}", sym.delta), false, 6));
    columns.push(("Shift".into(), false, 7));
    let header = columns.iter().map(|c| c.0.clone()).collect();
    let right = columns.iter().map(|c| c.1).collect();
    let priority = columns.iter().map(|c| c.2).collect();
    (header, right, priority)
}

/// `1.234…1.567 ms`: the range in one scale.
fn min_max(min: f64, max: f64, common: Option<&Scale>, unit: &str, sym: &Symbols) -> String {
    if !min.is_finite() || !max.is_finite() {
        return sym.none.to_owned();
    }
    let scale = common.cloned().unwrap_or_else(|| {
        Scale::pick(min.abs().min(max.abs()).max(f64::MIN_POSITIVE), unit, None)
    });
    scale.with_suffix(&format!(
        "{}{}{}",
        units::sig(scale.apply(min), 4),
        sym.ellipsis,
        units::sig(scale.apply(max), 4)
    ))
}

/// A candidate's Ratio, Sig, Magnitude and Shift cells, toned by its outcome.
fn comparison_cells(a: &Analysis, c: &Comparison, sym: &Symbols) -> [Cell; 4] {
    let tone = Tone::of(c.outcome);
    let sig = match c.verdict {
        Verdict::Significant => sym.yes,
        Verdict::NotSignificant => sym.no,
        Verdict::NotTested => "",
        _ => "",
    };
    let magnitude = c.cliffs_delta.as_ref().map_or_else(
        || sym.none.to_owned(),
        |d| format!("{} ({:+.2})", d.magnitude.as_str(), d.delta),
    );
    // The Ratio and Sig columns describe one estimate: the part the outcome rests on,
    // named when it is not the typical run (whose ratio is `c.ratio`).
    let ratio = match c
        .decision
        .as_ref()
        .and_then(|d| Some((d.part.as_deref()?, d)))
    {
        // On a line of its own under the ratio (a space in Markdown): the column stays as
        // narrow as the ratio.
        Some((part, d)) if part != "typical-run" => format!(
            "{}\n{}",
            ratio_with_ci(d.ratio, d.interval, sym.none),
            part_words(part, a).trim_start_matches("the ")
        ),
        // A ratio whose interval contradicts the verdict is shown without the ✓ beside it.
        _ if c
            .ratio
            .is_some_and(|r| r > 0.0 && contradicts(a, c, r, c.ratio_ci)) =>
        {
            format!(
                "{}
medians; not the test",
                ratio_with_ci(c.ratio, c.ratio_ci, sym.none)
            )
        }
        _ => ratio_with_ci(c.ratio, c.ratio_ci, sym.none),
    };
    [
        Cell::toned(ratio, tone),
        Cell::toned(sig, tone),
        Cell::toned(magnitude, tone),
        Cell::toned(shift_cell(a, c, sym), tone),
    ]
}

/// A user or system time beside its row's median: in the median's unit and with its
/// decimals (`0.06 ms` and `0.00 ms` beside `10.41 ms`, not `0.05702 ms` beside `0 ms`).
fn cpu_cell(value: f64, median: f64, common: Option<&Scale>, unit: &str) -> String {
    if !value.is_finite() {
        return "n/a".to_owned();
    }
    let scale = common
        .cloned()
        .unwrap_or_else(|| Scale::pick(median, unit, None));
    let d = scale.decimals_for(median, 0);
    scale.with_suffix(&format!("{:.d$}", scale.apply(value)))
}

fn mean_sd(
    mean: f64,
    sd: Option<f64>,
    common: Option<&Scale>,
    unit: &str,
    sym: &Symbols,
) -> String {
    if !mean.is_finite() {
        return sym.none.to_owned();
    }
    let scale = common
        .cloned()
        .unwrap_or_else(|| Scale::pick(mean, unit, None));
    let m = units::sig(scale.apply(mean), 4);
    match sd.filter(|s| s.is_finite()) {
        Some(s) => scale.with_suffix(&format!(
            "{m} {} {}",
            sym.plus_minus,
            units::sig(scale.apply(s), 3)
        )),
        None => scale.with_suffix(&m),
    }
}

/// The shift a row shows: the paired estimate when blocked (Hodges-Lehmann of the block
/// differences when the verdict estimator is robust, i.e. median- or HL-based, else the
/// mean difference), otherwise the two-sample Hodges-Lehmann shift.
fn shift_cell(a: &Analysis, c: &Comparison, sym: &Symbols) -> String {
    let median_based = !matches!(
        a.paired_estimator,
        None | Some(PairedEstimator::MeanDifference | PairedEstimator::RatioOfMeans)
    );
    let hl = |s: &ShiftReport| {
        let ci = s.ci_low.zip(s.ci_high).map(|(lo, hi)| [lo, hi]);
        shift_with_ci(s.shift, ci, &a.unit, sym.time_unit, sym.none)
    };
    match &c.paired {
        Some(p) => match (&p.hodges_lehmann, median_based) {
            (Some(s), true) => hl(s),
            _ => shift_with_ci(
                p.mean_difference,
                p.difference_ci,
                &a.unit,
                sym.time_unit,
                sym.none,
            ),
        },
        None => c
            .hodges_lehmann
            .as_ref()
            .map_or_else(|| sym.none.to_owned(), hl),
    }
}

/// The name of the estimate that decides `c` (and gives its `ratio`).
fn deciding_estimator(a: &Analysis, c: &Comparison) -> String {
    if let Some(t) = &c.custom_test {
        return t.name.clone();
    }
    if c.paired.is_none() {
        return "ratio of medians".to_owned();
    }
    if c.sequential.is_some() {
        return "median block log-ratio".to_owned();
    }
    match a.paired_estimator {
        Some(PairedEstimator::TypicalRun) => "typical run",
        Some(PairedEstimator::HodgesLehmannLogRatio) => "HL of block log-ratios",
        Some(PairedEstimator::HodgesLehmannMinLogRatio) => "HL of block-minimum log-ratios",
        Some(PairedEstimator::HodgesLehmannMedianLogRatio) => "HL of block-median log-ratios",
        Some(PairedEstimator::PooledMedianRatio) => "ratio of pooled medians",
        Some(PairedEstimator::MedianLogRatio) => "median block log-ratio",
        Some(PairedEstimator::RatioOfMeans | PairedEstimator::MeanDifference) => {
            "ratio of block means"
        }
        _ => "paired estimate",
    }
    .to_owned()
}

/// The outcome's tag, one of a small vocabulary: FASTER / SLOWER for times and
/// throughputs, MORE / FEWER for anything else (counts, memory, a named value: the
/// direction of the value, never time words), EQUIVALENT, MIXED, INCONCLUSIVE; a FASTER
/// or SLOWER resting on the fast or slow runs alone says so (`SLOWER (slow runs)`, `MORE
/// (p90)`). The suite's table and comment use it too.
pub(crate) fn outcome_tag(a: &Analysis, c: &Comparison) -> String {
    let speed = is_speed(a);
    // The value went up: a faster throughput, a slower time.
    let up = |faster: bool| faster == a.higher_is_better;
    let word = match c.outcome {
        Outcome::Faster if speed => "FASTER",
        Outcome::Slower if speed => "SLOWER",
        Outcome::Faster | Outcome::Slower if up(c.outcome == Outcome::Faster) => "MORE",
        Outcome::Faster | Outcome::Slower => "FEWER",
        Outcome::Equivalent => "EQUIVALENT",
        Outcome::Mixed => "MIXED",
        Outcome::Inconclusive => "INCONCLUSIVE",
        _ => "INCONCLUSIVE",
    };
    let tail = match (c.outcome, tail_part(c)) {
        (Outcome::Faster | Outcome::Slower, Some(part)) => part,
        _ => return word.to_owned(),
    };
    let fast = tail == "fast-runs";
    let what = if speed {
        if fast { "fast runs" } else { "slow runs" }
    } else if fast != a.higher_is_better {
        "p10"
    } else {
        "p90"
    };
    format!("{word} ({what})")
}

/// Whether the values are times or throughputs (faster and slower apply): the document's
/// quantity, else what its unit names (KiB is memory), else time.
pub(crate) fn is_speed(a: &Analysis) -> bool {
    let quantity = a.quantity.clone().or_else(|| Quantity::of_unit(&a.unit));
    matches!(quantity, None | Some(Quantity::Time | Quantity::Throughput))
}

/// `fast-runs` or `slow-runs` when the comparison's outcome rests on a tail alone.
fn tail_part(c: &Comparison) -> Option<&str> {
    c.decision
        .as_ref()
        .and_then(|d| d.part.as_deref())
        .filter(|p| matches!(*p, "fast-runs" | "slow-runs"))
}

/// The decimals that tell a change's interval apart: one, more when the interval is
/// narrower than 0.2 points (counts resolve 0.01%), at most three.
fn percent_decimals(r: f64, ci: Option<[f64; 2]>) -> usize {
    let width = ci.map_or((r - 1.0).abs(), |[lo, hi]| hi - lo) * 100.0;
    match width {
        w if w >= 0.2 || w == 0.0 => 1,
        w if w >= 0.02 => 2,
        _ => 3,
    }
}

/// `+4.8% [+0.4%, +9.3%]`: a ratio as the change in percent, with its interval.
pub(crate) fn change_text(r: f64, ci: Option<[f64; 2]>) -> String {
    let ci = ci.filter(|[lo, hi]| lo.is_finite() && hi.is_finite());
    // A hundredfold change or more reads as a ratio (`2.040e-90x`), not as -100.0%.
    let extreme = |x: f64| !(0.01..=100.0).contains(&x);
    if extreme(r) || ci.is_some_and(|[lo, hi]| extreme(lo) || extreme(hi)) {
        return ratio_with_ci(Some(r), ci, "n/a");
    }
    let d = percent_decimals(r, ci);
    let pct = |x: f64| format!("{:+.d$}%", (x - 1.0) * 100.0);
    match ci {
        Some([lo, hi]) => format!("{} [{}, {}]", pct(r), pct(lo), pct(hi)),
        None => pct(r),
    }
}

/// A part's key as `decision.part` names it: `typical-run`, `mean-run`, `fast-runs`,
/// `slow-runs`.
fn shape_part_key(q: &QuantileShift, higher_is_better: bool) -> &'static str {
    if q.statistic == PartStatistic::Mean {
        "mean-run"
    } else if (q.quantile - 0.5).abs() < 1e-9 {
        "typical-run"
    } else if (q.quantile < 0.5) != higher_is_better {
        "fast-runs"
    } else {
        "slow-runs"
    }
}

/// "the mean run", "the slow runs": a part's key in words for the headline.
fn part_words(key: &str, a: &Analysis) -> &'static str {
    let speed = is_speed(a);
    match key {
        "mean-run" => "the mean run",
        "typical-run" => "the typical run",
        "fast-runs" if speed => "the fast runs",
        "slow-runs" if speed => "the slow runs",
        "fast-runs" if a.higher_is_better => "the high runs (p90)",
        "fast-runs" => "the low runs (p10)",
        _ if a.higher_is_better => "the low runs (p10)",
        _ => "the high runs (p90)",
    }
}

/// "8 blocks", "16 vs 16 runs": what the comparison rests on.
fn scope_text(g: &GroupAnalysis, c: &Comparison) -> String {
    if let Some(p) = &c.paired {
        return format!("{} blocks", p.blocks);
    }
    let n = |name: &str| g.benchmarks.iter().find(|b| b.name == name).map(|b| b.n);
    match (n(&g.baseline), n(&c.candidate)) {
        (Some(b), Some(k)) => format!("{k} vs {b} runs"),
        _ => String::new(),
    }
}

/// The headline after the tag: the change in percent with its interval, the part that
/// decided when it is not the typical run (with the typical run beside it), and what it
/// rests on; for an undecided comparison, what stands in the way and how many blocks
/// would settle it. E.g. `+4.8% [+0.4%, +9.3%] in the mean run (typical run +7.0%
/// [+0.0%, +11.2%]) · 8 blocks`.
fn headline(a: &Analysis, g: &GroupAnalysis, c: &Comparison, sym: &Symbols) -> String {
    let d = c.decision.as_ref();
    let scope = scope_text(g, c);
    let typical = c.distribution.as_ref().map(|s| s.typical());
    // The deciding estimate; a rank test of the runs has no interval of its own on the
    // ratio scale, and its ratio of medians is shown with the bootstrap's.
    let (ratio, interval) = match d.and_then(|d| d.ratio) {
        Some(r) if d.is_some_and(|d| d.part.is_some() || d.interval.is_some()) => {
            (Some(r), d.and_then(|d| d.interval))
        }
        _ => (c.ratio, c.ratio_ci),
    };
    let part = d.and_then(|d| d.part.as_deref());
    if c.verdict_basis == VerdictBasis::Exact {
        // Counts with no spread: the change is exact, in every run.
        let text = match ratio {
            Some(r) if r != 1.0 => format!("{} in every run (exact)", change_text(r, None)),
            _ => "identical in every run (exact)".to_owned(),
        };
        return [text, scope]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(sym.sep);
    }
    let mut text = match ratio.filter(|r| r.is_finite() && *r > 0.0) {
        None => String::new(),
        // A verdict never stands beside an interval that contradicts it: a rank test of
        // the runs decides on their order, and bimodal runs can put the ratio of medians
        // on the other side of 1 or its interval across it.
        Some(r) if contradicts(a, c, r, interval) => format!(
            "ratio of medians {} does not show it: the rank test decided on the runs' order{}",
            ratio_with_ci(Some(r), interval, sym.none),
            c.cliffs_delta
                .as_ref()
                .map_or_else(String::new, |d| format!(" (Cliff's δ {:+.2})", d.delta))
        ),
        Some(r) => change_text(r, interval),
    };
    let beside_typical = match (part, typical) {
        (Some(p), Some(t)) if p != "typical-run" => format!(
            " in {} (typical run {})",
            part_words(p, a),
            change_text(t.ratio, t.interval)
        ),
        (Some(p), None) if p != "typical-run" => format!(" in {}", part_words(p, a)),
        _ => String::new(),
    };
    if c.outcome == Outcome::Mixed {
        if let Some(s) = &c.distribution {
            let moved: Vec<String> = s
                .parts()
                .filter(|q| q.part.as_str() == "slower" || q.part.as_str() == "faster")
                .map(|q| {
                    format!(
                        "{} {}",
                        part_words(shape_part_key(q, a.higher_is_better), a)
                            .trim_start_matches("the "),
                        change_text(q.ratio, q.interval)
                    )
                })
                .collect();
            text = moved.join(", ");
        }
    } else {
        text.push_str(&beside_typical);
    }
    if c.outcome == Outcome::Equivalent && a.equivalence_margin > 0.0 {
        let _ = write!(
            text,
            " within {}{}",
            sym.plus_minus,
            units::percent(a.equivalence_margin, sym.none)
        );
    }
    let mut pieces = vec![text];
    if !scope.is_empty() {
        pieces.push(scope);
    }
    if let Some(advice) = advice(a, c) {
        pieces.push(advice);
    }
    pieces.retain(|p| !p.is_empty());
    pieces.join(sym.sep)
}

/// Whether a changed comparison's ratio `r` or its interval points away from its outcome
/// (the ratio on the other side of 1, or the interval across 1).
fn contradicts(a: &Analysis, c: &Comparison, r: f64, interval: Option<[f64; 2]>) -> bool {
    if !c.outcome.is_change() {
        return false;
    }
    // The value went up: a slower time, a faster throughput.
    let up = (c.outcome == Outcome::Slower) != a.higher_is_better;
    let wrong_side = if up { r < 1.0 } else { r > 1.0 };
    wrong_side || interval.is_some_and(|[lo, hi]| lo <= 1.0 && hi >= 1.0)
}

/// For an undecided comparison: what it would take. "not tested: needs 7 blocks", "not
/// equivalent: the slow runs; about 45 blocks would settle it".
fn advice(a: &Analysis, c: &Comparison) -> Option<String> {
    if c.outcome != Outcome::Inconclusive {
        return None;
    }
    let d = c.decision.as_ref()?;
    let unit = if c.paired.is_some() {
        "blocks"
    } else {
        "runs per variant"
    };
    let needed = d.needed;
    if c.verdict == Verdict::NotTested {
        return Some(match needed {
            Some(n) => format!("not tested: needs {n} {unit}"),
            None => "not tested".to_owned(),
        });
    }
    let blocking: Vec<&str> = d
        .blocking
        .iter()
        .map(|k| part_words(k, a).trim_start_matches("the "))
        .collect();
    let parts = c.distribution.as_ref().map_or(0, |s| s.parts().count());
    let what = match blocking.as_slice() {
        [] => String::new(),
        all if all.len() == parts && parts > 1 => "no part resolved".to_owned(),
        [one] => format!("{one} not resolved"),
        [init @ .., last] => format!("{} and {last} not resolved", init.join(", ")),
    };
    let how = needed.map(|n| format!("about {n} {unit} would settle it"));
    match (what.is_empty(), how) {
        (true, None) => None,
        (true, Some(h)) => Some(h),
        (false, None) => Some(what),
        (false, Some(h)) => Some(format!("{what}; {h}")),
    }
}

fn verdict_line(a: &Analysis, g: &GroupAnalysis, c: &Comparison, sym: &Symbols) -> VerdictLine {
    let alpha = a.alpha;
    let tag = outcome_tag(a, c);
    let headline = headline(a, g, c, sym);
    let name = format!("{} vs {}", c.candidate, g.baseline);
    let undecided = matches!(c.outcome, Outcome::Inconclusive | Outcome::Mixed);
    let mut parts = vec![match c.verdict {
        Verdict::Significant => format!("significant by {}", c.verdict_basis),
        Verdict::NotSignificant => format!("not significant by {}", c.verdict_basis),
        Verdict::NotTested => "not tested".to_owned(),
        _ => "not tested".to_owned(),
    }];
    if let Some(d) = &c.decision {
        // The p of the test that decided, on its scale, and nothing else: a p of another
        // test beside a verdict reads as if it had decided.
        if c.verdict != Verdict::NotTested {
            parts.extend(decision_parts(c, d, alpha, sym));
        }
        return VerdictLine {
            name,
            tag,
            headline,
            tone: Tone::of(c.outcome),
            summary: c.summary.clone(),
            detail: parts.join(sym.sep),
            undecided,
        };
    }
    if let Some(mw) = &c.mann_whitney {
        parts.push(mann_whitney_text(mw, mw.p_value, sym));
    }
    if c.p_value_adjusted.is_some() {
        parts.push(format!(
            "Holm-adjusted p {}",
            p_clause(c.p_value_adjusted, sym.none)
        ));
    }
    VerdictLine {
        name,
        tag,
        headline,
        tone: Tone::of(c.outcome),
        summary: c.summary.clone(),
        detail: parts.join(sym.sep),
        undecided,
    }
}

/// "Mann-Whitney U = 5, p = 7.2e-4 (asymptotic)".
fn mann_whitney_text(mw: &MannWhitneyReport, p: f64, sym: &Symbols) -> String {
    let u = if mw.u.fract() == 0.0 {
        format!("{:.0}", mw.u)
    } else {
        format!("{:.1}", mw.u)
    };
    format!(
        "Mann-Whitney U = {u}, p {} ({})",
        p_clause(Some(p), sym.none),
        mw.method
    )
}

/// The deciding test's p (with U for Mann-Whitney), the Holm-adjusted p, and the
/// equivalence interval.
fn decision_parts(c: &Comparison, d: &DecisionReport, alpha: f64, sym: &Symbols) -> Vec<String> {
    let mut parts = Vec::new();
    let on = match d.scale.as_str() {
        "block-log-ratios" => " on block log-ratios",
        "block-differences" => " on block differences",
        _ => "",
    };
    match (&c.mann_whitney, d.test.as_str(), d.p_value) {
        (Some(mw), "mann-whitney", Some(p)) => parts.push(mann_whitney_text(mw, p, sym)),
        (_, test, Some(p)) => parts.push(format!("{test}{on} p {}", p_clause(Some(p), sym.none))),
        (_, test, None) => parts.push(format!("{test} interval at 1 - alpha{on}")),
    }
    if d.p_value_adjusted.is_some() {
        parts.push(format!(
            "Holm-adjusted p {}",
            p_clause(d.p_value_adjusted, sym.none)
        ));
    }
    if let Some(ci) = d.equivalence_ci {
        // An end beyond 10^6 or below 10^-4 in scientific notation, never hundreds of
        // digits; an end a float could not hold never reaches here (the test is untestable).
        let end = |x: f64| {
            if x.is_finite() {
                units::ratio_number(x, 4)
            } else {
                sym.none.to_owned()
            }
        };
        parts.push(format!(
            "equivalence ({}) [{}, {}]",
            units::percent(1.0 - 2.0 * alpha, sym.none),
            end(ci[0]),
            end(ci[1])
        ));
    }
    parts
}

/// The per-block values of a paired comparison, baseline row then candidate row; left out
/// above [`MAX_BLOCK_COLUMNS`] blocks.
fn block_table(
    g: &GroupAnalysis,
    c: &Comparison,
    p: &PairedReport,
    scale: &Scale,
    largest: f64,
) -> BlockTable {
    if p.block_values.is_empty() {
        return BlockTable::Absent;
    }
    if p.block_values.len() > MAX_BLOCK_COLUMNS {
        return BlockTable::Omitted(p.block_values.len());
    }
    let d = scale.decimals_for(largest, 1);
    let mut header = vec!["block".to_owned()];
    header.extend((1..=p.block_values.len()).map(|i| i.to_string()));
    let rows = [(&g.baseline, 0), (&c.candidate, 1)]
        .into_iter()
        .map(|(name, side)| {
            let mut row = vec![Cell::plain(name.clone())];
            row.extend(
                p.block_values
                    .iter()
                    .map(|v| Cell::plain(units::ratio_number(scale.apply(v[side]), d))),
            );
            row
        })
        .collect();
    let mut right_aligned = vec![true; header.len()];
    right_aligned[0] = false;
    let mut priority = vec![1; header.len()];
    priority[0] = 0;
    BlockTable::Shown(Grid {
        header,
        rows,
        right_aligned,
        priority,
        key: vec![0],
        names: Some(0),
    })
}

/// The trend line of a scan: `Trend across n (1 to 8, 8 values): Page's L = ..., z = ...,
/// p = ... -> significant, values rise with n`.
fn trend_line(t: &bench_stats::TrendReport, sym: &Symbols) -> String {
    use bench_stats::model::TrendDirection;
    let (lo, hi) = (
        t.values.first().copied().unwrap_or(f64::NAN),
        t.values.last().copied().unwrap_or(f64::NAN),
    );
    let verdict = if t.significant {
        "significant"
    } else {
        "not significant"
    };
    let way = match t.direction {
        TrendDirection::Increasing => format!(", values rise with {}", t.parameter),
        TrendDirection::Decreasing => format!(", values fall with {}", t.parameter),
        TrendDirection::None => String::new(),
        _ => String::new(),
    };
    format!(
        "Trend across {} ({lo} to {hi}, {} values): Page's L = {}, z = {}, p {} ({}, two-sided) {} {verdict}{way}",
        t.parameter,
        t.values.len(),
        stat(t.statistic, sym.none),
        stat(t.z, sym.none),
        p_clause(Some(t.p_value), sym.none),
        t.method,
        sym.arrow
    )
}
fn paired_detail(
    a: &Analysis,
    g: &GroupAnalysis,
    c: &Comparison,
    p: &PairedReport,
    sym: &Symbols,
) -> Detail {
    // The scale of the smallest value, so every block value reads at least 1.
    let (smallest, largest) =
        units::magnitude_range(p.block_values.iter().flatten().copied()).unwrap_or((0.0, 0.0));
    let scale = Scale::pick(smallest, &a.unit, sym.time_unit);
    let blocks = block_table(g, c, p, &scale, largest);
    let (b, base) = (&c.candidate, &g.baseline);
    let estimator = a.paired_estimator.unwrap_or_default();
    let deciding = deciding_estimator(a, c);
    // A typical-run verdict another part decided names that part, the typical run beside.
    let part = c
        .decision
        .as_ref()
        .and_then(|d| Some((d.part.as_deref()?, d)))
        .filter(|(k, _)| *k != "typical-run");
    let mut lines = vec![match part {
        Some((key, d)) => format!(
            "deciding: {} {} (the part that moved; the typical run {} is the headline ratio, `ratio` in the JSON; {})",
            part_words(key, a).trim_start_matches("the "),
            ratio_with_ci(d.ratio, d.interval, sym.none),
            ratio_with_ci(c.ratio, c.ratio_ci, sym.none),
            estimator_method(estimator)
        ),
        None => format!(
            "deciding: {deciding} {} (the headline; {})",
            ratio_with_ci(c.ratio, c.ratio_ci, sym.none),
            estimator_method(estimator)
        ),
    }];
    alternative_lines(&mut lines, a, g, c, p, sym);
    if let Some(v) = &p.variance_components {
        lines.push(variance_line(v, &a.unit, sym));
    }
    Detail {
        title: format!(
            "{b} vs {base}, paired by block ({} blocks, {})",
            p.blocks,
            unit_label(&scale)
        ),
        blocks,
        lines,
    }
}

/// How the paired estimator reads its ratio and interval, in the headline's parenthesis.
fn estimator_method(estimator: PairedEstimator) -> &'static str {
    match estimator {
        PairedEstimator::TypicalRun => {
            "each variant's median run over all its runs, each run divided by its block's center (the mean of its fastest log-runs), randomization-test interval; p10, p90 and the mean run checked beside it"
        }
        PairedEstimator::HodgesLehmannLogRatio => {
            "median of the pairwise averages of the per-block log-ratios, signed-rank interval: one bursty block cannot move it"
        }
        PairedEstimator::HodgesLehmannMinLogRatio => {
            "each variant's fastest run per block, then the median of the pairwise averages of the per-block log-ratios, signed-rank interval: a slowed run does not move its block"
        }
        PairedEstimator::HodgesLehmannMedianLogRatio => {
            "each variant's median run per block, then the median of the pairwise averages of the per-block log-ratios, signed-rank interval"
        }
        PairedEstimator::PooledMedianRatio => {
            "each variant's median over all its runs, interval from resampling whole blocks"
        }
        PairedEstimator::MedianLogRatio => "the middle block's log-ratio, bootstrap interval",
        PairedEstimator::MeanDifference | PairedEstimator::RatioOfMeans => {
            "block means, block-bootstrap interval"
        }
        _ => "block means, block-bootstrap interval",
    }
}

/// The paired estimates that do not decide the verdict, for reference: the mean-based
/// block bootstrap, the median block ratio, Hodges-Lehmann, Cohen's dz with the
/// signed-rank p.
fn alternative_lines(
    lines: &mut Vec<String>,
    a: &Analysis,
    g: &GroupAnalysis,
    c: &Comparison,
    p: &PairedReport,
    sym: &Symbols,
) {
    let (b, base) = (&c.candidate, &g.baseline);
    let conf = units::percent(a.confidence, sym.none);
    let t = sym.time_unit;
    let estimator = a.paired_estimator.unwrap_or_default();
    lines.push("alternatives (for reference; they do not decide the verdict):".to_owned());
    let mean_based = matches!(
        estimator,
        PairedEstimator::MeanDifference | PairedEstimator::RatioOfMeans
    );
    if !mean_based {
        // A time's outlier is a slow run; anything else's, an outlying value.
        let outlier = if is_speed(a) {
            "slow run"
        } else {
            "outlying run"
        };
        lines.push(format!(
            "  mean-based block bootstrap (the appendix's): difference ({b} - {base}) {}, ratio ({b} / {base}) {} ({conf}) {} means: one {outlier} moves them",
            shift_with_ci(p.mean_difference, p.difference_ci, &a.unit, t, sym.none),
            ratio_with_ci(p.ratio, p.ratio_ci, sym.none),
            sym.dash
        ));
    }
    if p.median_ratio.is_some() && estimator != PairedEstimator::MedianLogRatio {
        lines.push(format!(
            "  median block ratio: {} {} the middle block only: robust but less precise",
            ratio_with_ci(p.median_ratio, p.median_ratio_ci, sym.none),
            sym.dash
        ));
    }
    if let Some(h) = &p.hodges_lehmann {
        let ci = h.ci_low.zip(h.ci_high).map(|(lo, hi)| [lo, hi]);
        lines.push(format!(
            "  Hodges-Lehmann of block differences: {} {} the same robust estimate on differences, in the data's unit",
            shift_with_ci(h.shift, ci, &a.unit, t, sym.none),
            sym.dash
        ));
    }
    if mean_based {
        lines.push(format!(
            "  mean difference ({b} - {base}): {} ({conf}, block bootstrap)",
            shift_with_ci(p.mean_difference, p.difference_ci, &a.unit, t, sym.none)
        ));
    }
    lines.push(format!(
        "  Cohen's dz: {}{}Wilcoxon signed-rank p of the differences {} {} a standardized size and a test of differences, not of ratios",
        p.cohens_dz
            .map_or_else(|| sym.none.to_owned(), |d| stat(d, sym.none)),
        sym.sep,
        p_clause(p.wilcoxon_p, sym.none),
        sym.dash
    ));
}

/// "variance components: between-block sd ...; within-block sd ...; pairing gain ...".
fn variance_line(v: &VarianceComponentsReport, unit: &str, sym: &Symbols) -> String {
    let t = sym.time_unit;
    let sd = |var: f64| {
        if var.is_finite() && var >= 0.0 {
            format_in(var.sqrt(), unit, t)
        } else {
            sym.none.to_owned()
        }
    };
    let gain = v.pairing_gain.filter(|g| g.is_finite()).map_or_else(
        || sym.none.to_owned(),
        |g| format!("{}x", crate::units::ratio_number(g, 2)),
    );
    format!(
        "variance components: between-block sd {}{}within-block sd {}{}pairing gain {gain}",
        sd(v.between_block),
        sym.sep,
        sd(v.within_block),
        sym.sep
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_cells_take_the_unit_and_decimals_of_the_median_beside_them() {
        let ms = Scale::for_magnitude(10.41e6, "ns");
        assert_eq!(cpu_cell(57_020.0, 10.41e6, Some(&ms), "ns"), "0.06 ms");
        assert_eq!(cpu_cell(0.0, 10.41e6, Some(&ms), "ns"), "0.00 ms");
        assert_eq!(cpu_cell(730_000.0, 830_500.0, None, "ns"), "730.0 us");
    }
}
