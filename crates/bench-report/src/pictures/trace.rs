//! Chart 2: the run-order trace. Every run's value against its place in the experiment,
//! coloured (and shaped) by variant, so drift, bursts and warm-up effects show; runs of
//! dropped blocks hollow, failed runs as crosses along the bottom.

use super::frame::{self, Area, LegendItem, Swatch, WIDTH};
use super::scale::Scale;
use super::style::{self, FAILED};
use super::svg::Svg;
use super::{Chart, Pictures, RunStatus};
use crate::units::{Scale as Display, magnitude_range};

/// Runs with a value drawn at most; beyond it every k-th analysed run is drawn (failed
/// and dropped runs always), with a note under the chart.
pub const MAX_POINTS: usize = 2500;
const HEIGHT: f64 = 380.0;

/// The chart, when the runs are known and at least one has a value.
pub fn chart(p: &Pictures<'_>) -> Option<Chart> {
    let trace = p.runs?;
    let unit = &p.analysis.unit;
    let values = trace
        .runs
        .iter()
        .filter(|r| r.status != RunStatus::Reference)
        .filter_map(|r| r.value);
    let (lo, hi) = values
        .clone()
        .fold(None, |acc: Option<(f64, f64)>, v| match acc {
            None => Some((v, v)),
            Some((a, b)) => Some((a.min(v), b.max(v))),
        })?;
    let display = Display::for_magnitude(magnitude_range(values).map_or(1.0, |m| m.1), unit);
    let variants = variants_in(p);
    let legend = legend(p, &variants, trace);
    let extra = frame::legend_extra(&legend);
    let height = HEIGHT + extra;
    let area = Area::of_height(height, extra);
    let mut svg = Svg::new(WIDTH, height);
    let title = "Run-order trace";
    frame::heading(&mut svg, title, &legend);
    let pad = (hi - lo).abs() * 0.05;
    let ys = Scale::linear(
        display.apply(lo - pad),
        display.apply(hi + pad),
        area.bottom - 14.0,
        area.top,
    );
    let n = trace.runs.len();
    let xs = Scale::counts(n, area.left, area.right);
    let y_label = format!("{} ({})", quantity_word(p), unit_text(&display));
    frame::y_axis(&mut svg, area, &ys, &y_label, 6);
    let order = if trace.in_run_order {
        "run (in execution order)"
    } else {
        "run (in file order: the run order is unknown)"
    };
    frame::x_axis_counts(&mut svg, area, &xs, order, 10);
    let analysed = trace
        .runs
        .iter()
        .filter(|r| r.status == RunStatus::Analysed)
        .count();
    let stride = analysed.div_ceil(MAX_POINTS).max(1);
    let marks = marks(
        p,
        &variants,
        stride,
        |i| xs.px((i + 1) as f64),
        |v| ys.px(display.apply(v)),
    );
    draw(&mut svg, p, &variants, &marks, area.bottom - 7.0);
    frame::border(&mut svg, area);
    if stride > 1 {
        let shown = analysed.div_ceil(stride);
        frame::note(
            &mut svg,
            height,
            &format!(
                "Downsampled: one analysed run in {stride} is drawn ({shown} of {analysed}); every dropped and failed run is drawn."
            ),
        );
    }
    let description = format!(
        "{} runs in order, by variant; failed runs as crosses at the bottom",
        n
    );
    Some(Chart {
        file_name: "run-order.svg".into(),
        title: title.into(),
        svg: svg.finish(title, &description),
    })
}

/// The markers of every variant: analysed runs (every `stride`-th), runs of dropped
/// blocks, and failed runs (their x only).
struct Marks {
    filled: Vec<String>,
    hollow: Vec<String>,
    failed: Vec<f64>,
}

fn marks(
    p: &Pictures<'_>,
    variants: &[String],
    stride: usize,
    x_of: impl Fn(usize) -> f64,
    y_of: impl Fn(f64) -> f64,
) -> Marks {
    let mut m = Marks {
        filled: vec![String::new(); variants.len()],
        hollow: vec![String::new(); variants.len()],
        failed: Vec::new(),
    };
    let mut k = 0usize;
    for (i, r) in p.runs.iter().flat_map(|t| t.runs.iter()).enumerate() {
        let v = variants.iter().position(|n| *n == r.variant).unwrap_or(0);
        let shape = style::shape(p.variant_index(&r.variant));
        match (r.status, r.value) {
            (RunStatus::Analysed, Some(value)) => {
                if k % stride == 0 {
                    style::marker_path(&mut m.filled[v], shape, x_of(i), y_of(value), 2.5);
                }
                k += 1;
            }
            (RunStatus::Dropped, Some(value)) => {
                style::marker_path(&mut m.hollow[v], shape, x_of(i), y_of(value), 3.0)
            }
            (RunStatus::Failed, _) | (RunStatus::Dropped, None) => m.failed.push(x_of(i)),
            _ => {}
        }
    }
    m
}

/// Draws the markers, one `<path>` per variant and kind; failed runs as crosses at
/// `failed_y`.
fn draw(svg: &mut Svg, p: &Pictures<'_>, variants: &[String], m: &Marks, failed_y: f64) {
    let (filled, hollow) = (&m.filled, &m.hollow);
    let mut failed = String::new();
    for x in &m.failed {
        style::marker_path(&mut failed, style::Shape::Cross, *x, failed_y, 3.5);
    }
    for (v, name) in variants.iter().enumerate() {
        let col = style::color(p.variant_index(name));
        if !filled[v].is_empty() {
            svg.path(
                &filled[v],
                &format!(r#"fill="{col}" stroke="{col}" stroke-width="0.3" class="runs""#),
            );
        }
        if !hollow[v].is_empty() {
            svg.path(
                &hollow[v],
                &format!(r#"fill="none" stroke="{col}" class="dropped""#),
            );
        }
    }
    if !failed.is_empty() {
        svg.path(
            &failed,
            &format!(r#"fill="none" stroke="{FAILED}" stroke-width="1.5" class="failed""#),
        );
    }
}

/// Variant names in the order of the analysis, then any only the runs name.
pub(crate) fn variants_in(p: &Pictures<'_>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for b in p.analysis.groups.iter().flat_map(|g| &g.benchmarks) {
        if !names.contains(&b.name) {
            names.push(b.name.clone());
        }
    }
    for r in p.runs.iter().flat_map(|t| &t.runs) {
        if r.status != RunStatus::Reference && !names.contains(&r.variant) {
            names.push(r.variant.clone());
        }
    }
    names
}

fn legend(p: &Pictures<'_>, variants: &[String], trace: &super::RunTrace) -> Vec<LegendItem> {
    let mut items: Vec<LegendItem> = variants
        .iter()
        .map(|name| {
            let i = p.variant_index(name);
            LegendItem {
                label: name.clone(),
                swatch: Swatch::Marker(i, style::shape(i), false),
            }
        })
        .collect();
    // A dropped run is its variant's marker, hollow: the swatch is the first one's.
    if let Some(r) = trace
        .runs
        .iter()
        .find(|r| r.status == RunStatus::Dropped && r.value.is_some())
    {
        let i = p.variant_index(&r.variant);
        items.push(LegendItem {
            label: "dropped block (hollow)".into(),
            swatch: Swatch::Marker(i, style::shape(i), true),
        });
    }
    if trace.runs.iter().any(|r| {
        r.status == RunStatus::Failed || (r.status == RunStatus::Dropped && r.value.is_none())
    }) {
        items.push(LegendItem {
            label: "failed run".into(),
            swatch: Swatch::Marker(7, style::Shape::Cross, true),
        });
    }
    items
}

/// "time", "throughput", ... for the value axis.
pub(crate) fn quantity_word(p: &Pictures<'_>) -> String {
    match &p.analysis.quantity {
        Some(q) => q.as_str().to_owned(),
        None if crate::units::is_time(&p.analysis.unit) => "time".into(),
        None => "value".into(),
    }
}

/// The unit of a display scale, or "no unit".
pub(crate) fn unit_text(d: &Display) -> String {
    if d.suffix().is_empty() {
        "no unit".into()
    } else {
        d.suffix().to_owned()
    }
}
