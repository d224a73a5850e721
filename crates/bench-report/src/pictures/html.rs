//! The self-contained HTML report: the verdicts, every chart as inline SVG with a line on
//! how to read it, and the full console report as text. No script, no external file, no
//! network: it opens offline in any browser.

use std::fmt::Write as _;

use super::svg::escape;
use super::{Chart, Pictures, charts};
use crate::{Charset, ColorMode, RenderOptions, render_console};

const STYLE: &str = "body{font-family:sans-serif;max-width:820px;margin:2em auto;padding:0 1em;color:#222;background:#fff}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}\
figure{margin:1.5em 0}figure svg{max-width:100%;height:auto;display:block}\
figcaption{font-size:.9em;color:#444;margin-top:.4em}\
pre{font-size:12px;line-height:1.3;white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:1em;border:1px solid #ddd}\
.verdict{font-size:1.3em;line-height:1.35;margin:.4em 0 1em;padding:.5em .8em;border-left:6px solid #888;background:#f3f3f3}\
.verdict .word{font-weight:bold;letter-spacing:.03em;margin-right:.5em}\
.verdict.faster{border-color:#009E73;background:#eef8f4}.verdict.slower{border-color:#D55E00;background:#fbf0ea}\
.missing{color:#555;font-style:italic}";

/// The width the full report is laid out at: 100 monospace columns of 12 px fit the
/// page's 820 px; narrower screens wrap the lines (`pre-wrap`) instead of scrolling.
const REPORT_COLUMNS: usize = 100;

/// The whole report as one HTML document.
///
/// ```
/// # use bench_report::pictures::{Pictures, render_html};
/// # fn demo(analysis: &bench_stats::Analysis) {
/// let html = render_html(&Pictures::new(analysis));
/// assert!(html.starts_with("<!DOCTYPE html>"));
/// # }
/// ```
pub fn render_html(p: &Pictures<'_>) -> String {
    let charts = charts(p);
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>abba report</title><style>{STYLE}</style></head><body>\n<h1>abba report</h1>\n"
    );
    verdicts(&mut out, p);
    out.push_str("<h2>Charts</h2>\n");
    for chart in &charts {
        figure(&mut out, chart);
    }
    for missing in missing(p, &charts) {
        let _ = writeln!(out, "<p class=\"missing\">{}</p>", escape(&missing));
    }
    let options = RenderOptions {
        color: ColorMode::Never,
        charset: Charset::Unicode,
        verbose: true,
        width: Some(REPORT_COLUMNS),
        full_report_hint: None,
        ..RenderOptions::default()
    };
    let _ = write!(
        out,
        "<h2>Full report</h2>\n<pre>{}</pre>\n</body></html>\n",
        escape(&render_console(p.analysis, &options))
    );
    out
}

/// Each comparison's verdict as the report's headline: the word, then its sentence.
fn verdicts(out: &mut String, p: &Pictures<'_>) {
    for g in &p.analysis.groups {
        for c in &g.comparisons {
            // The report's own tag (MORE/FEWER for a value that is not a time, a
            // tail-only claim named), as the console and the suite say it.
            let word = if c.outcome == bench_stats::Outcome::Inconclusive {
                crate::suite::verdict_word(c.outcome)
            } else {
                crate::view::outcome_tag(p.analysis, c)
            };
            let _ = writeln!(
                out,
                "<p class=\"verdict {}\"><span class=\"word\">{}</span>{}</p>",
                c.outcome.as_str(),
                escape(&word),
                escape(&c.summary)
            );
        }
    }
}

fn figure(out: &mut String, chart: &Chart) {
    let _ = writeln!(
        out,
        "<figure id=\"{}\">{}<figcaption>{}</figcaption></figure>",
        chart.file_name.trim_end_matches(".svg"),
        chart.svg,
        escape(caption(&chart.file_name))
    );
}

/// How to read each chart.
fn caption(file_name: &str) -> &'static str {
    match file_name {
        "paired-effect.svg" => {
            "Each point is one block's candidate/baseline ratio, in the order the blocks ran. The coloured band is the estimate's interval, the dark line the estimate, the dashed line no change, the grey band the equivalence margin. Points scattered evenly around the estimate mean a steady effect; a trend or a burst of points away from it shows drift or interference."
        }
        "run-order.svg" => {
            "Every run's value in the order it ran, by variant. Look for drift (a slope), bursts (clusters away from the rest), and warm-up (early runs apart). Hollow markers are runs of dropped blocks; crosses at the bottom are failed runs."
        }
        "distributions.svg" => {
            "The spread of each variant's analysed runs: the outline is their density, the points the runs, the solid line the median, the dashed line p90 (dotted p99 when n >= 100)."
        }
        "uncertainty.svg" => {
            "How sure the estimate is: the distribution the interval is read from, with the estimate, the interval's ends, no change and the equivalence margin marked. An interval clear of the margin band is a practical change; one inside it is equivalence."
        }
        "shape.svg" => {
            "The shape of the change: the candidate/baseline ratio at each checked quantile of the two run distributions (p50 the typical run; p10 and p90 the low and high ends: the fast and slow runs of a time, the slow and fast runs of a throughput), and at the mean run, paired through the blocks, each with its interval (at its share of the family level) as a whisker and a band joining the quantiles', the dashed line no change and the grey band the equivalence margin. Filled markers are the parts that moved beyond the margin, which the verdict names; hollow ones did not show a move. Markers on one level mean a shift; a rising or falling line means the low and high ends moved differently."
        }
        "confidence-sequence.svg" => {
            "The estimate after each block with its anytime-valid interval: it may be read at every block without inflating the false-positive rate."
        }
        _ => "",
    }
}

/// Why a chart is absent, for each chart the data could not support.
fn missing(p: &Pictures<'_>, charts: &[Chart]) -> Vec<String> {
    let has = |name: &str| charts.iter().any(|c| c.file_name == name);
    let mut out = Vec::new();
    if !has("paired-effect.svg") {
        out.push("No per-block effect or uncertainty chart: no comparison is blocked (paired) with at least two blocks.".to_owned());
    }
    if has("paired-effect.svg") && !has("shape.svg") {
        out.push("No shape chart: no comparison carries a shape check (the typical-run estimator, the default, on blocked data with positive values).".to_owned());
    }
    if !has("run-order.svg") {
        out.push(if p.runs.is_none() {
            "No run-order trace: the runs were not given with the analysis.".to_owned()
        } else {
            "No run-order trace: no run has a value.".to_owned()
        });
    }
    out
}
