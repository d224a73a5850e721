//! The charts' structure from hand-written analyses: which charts exist, their axis
//! labels, legends and bands, and how many markers they draw (not pixels). Also the HTML
//! page's self-containment and its size for 10,000 runs.

use crate::fixtures;

use bench_report::pictures::{
    Chart, ConfidenceSequence, Pictures, RunStatus, RunTrace, ScanChart, ScanPoint, SequencePoint,
    TracedRun, charts, render_html, scan_chart,
};
use bench_stats::paired::shape::PartMove;
use bench_stats::{Analysis, PairedEstimator};

fn chart<'a>(all: &'a [Chart], name: &str) -> &'a Chart {
    all.iter()
        .find(|c| c.file_name == name)
        .unwrap_or_else(|| panic!("no {name} among {:?}", names(all)))
}

fn names(all: &[Chart]) -> Vec<&str> {
    all.iter().map(|c| c.file_name.as_str()).collect()
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

/// The `d` of the first path with `class`, split into markers (each starts with `M`).
fn markers(svg: &str, class: &str) -> usize {
    let at = svg.find(&format!("class=\"{class}\"")).expect(class);
    let start = svg[..at].rfind("<path d=\"").expect("a path") + 9;
    let end = start + svg[start..].find('"').unwrap();
    count(&svg[start..end], "M")
}

/// A trace of `blocks` ABBA blocks of two variants with values near `base` and `cand`.
fn trace(blocks: u32, base: f64, cand: f64) -> RunTrace {
    let mut runs = Vec::new();
    for b in 0..blocks {
        let order = if b % 2 == 0 {
            [0, 1, 1, 0]
        } else {
            [1, 0, 0, 1]
        };
        for (k, v) in order.into_iter().enumerate() {
            let (name, value) = if v == 0 {
                ("chains=1", base)
            } else {
                ("chains=2", cand)
            };
            runs.push(TracedRun {
                variant: name.into(),
                block: Some(b),
                value: Some(value * (1.0 + 0.001 * f64::from((b * 4 + k as u32) % 7))),
                status: RunStatus::Analysed,
            });
        }
    }
    RunTrace {
        runs,
        in_run_order: true,
    }
}

#[test]
fn paired_effect_has_one_marker_per_block_the_bands_and_labelled_axes() {
    let a = fixtures::paired_two();
    let all = charts(&Pictures::new(&a));
    assert_eq!(
        names(&all),
        ["paired-effect.svg", "distributions.svg", "uncertainty.svg"]
    );
    let svg = &chart(&all, "paired-effect.svg").svg;
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("<title>Paired effect per block</title>"));
    assert_eq!(markers(svg, "points"), 12);
    assert_eq!(count(svg, "class=\"margin-band\""), 1);
    assert_eq!(count(svg, "class=\"interval-band\""), 1);
    assert_eq!(count(svg, "class=\"estimate\""), 1);
    assert_eq!(count(svg, "class=\"no-change\""), 1);
    assert!(svg.contains(">ratio candidate / baseline per block (log scale)</text>"));
    assert!(svg.contains(">block (in run order)</text>"));
    assert!(svg.contains(">equivalence margin ±1%</text>"));
    assert!(svg.contains(">chains=2 / chains=1</text>"));
}

#[test]
fn three_variants_give_one_row_per_candidate() {
    let mut a = fixtures::paired_two();
    let mut second = a.groups[0].comparisons[0].clone();
    second.candidate = "chains=3".into();
    a.groups[0].comparisons.push(second);
    let mut s3 = a.groups[0].benchmarks[1].clone();
    s3.name = "chains=3".into();
    a.groups[0].benchmarks.push(s3);
    let all = charts(&Pictures::new(&a));
    let effect = &chart(&all, "paired-effect.svg").svg;
    assert_eq!(count(effect, "class=\"margin-band\""), 2);
    assert_eq!(count(effect, "class=\"row-label\""), 2);
    assert!(effect.contains(">chains=3 / chains=1</text>"));
    let uncertainty = &chart(&all, "uncertainty.svg").svg;
    assert_eq!(count(uncertainty, "class=\"row-label\""), 2);
    // Distinct colours per candidate: the second row's band is vermillion's neighbour.
    let distributions = &chart(&all, "distributions.svg").svg;
    assert_eq!(count(distributions, "class=\"median\""), 3);
}

/// The `data-ratio` of every line with `class` in `svg`.
fn marked(svg: &str, class: &str) -> Vec<f64> {
    svg.split("<line ")
        .skip(1)
        .filter(|l| l.contains(&format!("class=\"{class}\"")))
        .map(|l| {
            let at = l.find("data-ratio=\"").expect("data-ratio") + 12;
            l[at..at + l[at..].find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

/// 14 ABBA blocks of 2 + 2 runs, the candidate 5-40 % slower by block (skewed: a mean of
/// ratios, a ratio of means, a median and a Hodges-Lehmann estimate all differ), with a
/// disturbed run in every third block.
fn skewed_blocks() -> bench_stats::Dataset {
    use bench_stats::{Dataset, Design, Observation, Series};
    let slow = [
        1.05, 1.06, 1.4, 1.07, 1.05, 1.3, 1.08, 1.06, 1.25, 1.05, 1.09, 1.35, 1.07, 1.06,
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (k, &r) in slow.iter().enumerate() {
        let block = k as u32;
        let level = 100.0 * (1.0 + 0.03 * ((k * 7 % 5) as f64));
        let bump = if k % 3 == 0 { 1.3 } else { 1.0 };
        a.push(Observation::in_block(level, block));
        a.push(Observation::in_block(level * 1.01 * bump, block));
        b.push(Observation::in_block(level * r, block));
        b.push(Observation::in_block(level * r * 0.99, block));
    }
    Dataset::new("ms", vec![Series::new("A", a), Series::new("B", b)]).with_design(Design::Abba)
}

#[test]
fn uncertainty_draws_the_distribution_the_interval_was_read_from_for_every_estimator() {
    use bench_stats::model::DistributionKind;
    let data = skewed_blocks();
    for estimator in PairedEstimator::ALL {
        let config = bench_stats::AnalysisConfig {
            paired_estimator: estimator,
            ..bench_stats::AnalysisConfig::default()
        };
        let a = bench_stats::analyze(&data, &config).unwrap();
        let c = &a.groups[0].comparisons[0];
        let name = estimator.as_str();
        let ci = c.ratio_ci.unwrap_or_else(|| panic!("{name}: no interval"));
        let all = charts(&Pictures::new(&a));
        let svg = &chart(&all, "uncertainty.svg").svg;
        // The chart marks the reported estimate and interval, exactly.
        assert_eq!(marked(svg, "interval"), ci, "{name}");
        assert_eq!(marked(svg, "estimate"), [c.ratio.unwrap()], "{name}");
        let d = c
            .interval_distribution
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no distribution"));
        // The distribution is the one the interval was read from: its quantiles at the
        // interval's levels are the interval.
        let Some([lo, hi]) = d.interval() else {
            // The typical run's interval is held at no change when the exact test does not
            // reject though its inversion would, or reaches beyond the inversion as the
            // part's own interval (the hull of the two): that end lies beyond every value,
            // and the chart says which.
            assert_eq!(estimator, PairedEstimator::TypicalRun, "{name}: no levels");
            if ci.contains(&1.0) {
                assert!(svg.contains("held at no change"), "{name}");
            } else {
                assert!(
                    svg.contains("the part&#39;s own interval"),
                    "{name}: {ci:?}"
                );
                assert!(!svg.contains("held at no change"), "{name}");
            }
            assert!(svg.contains(&format!("data-values=\"{}\"", d.values.len())));
            continue;
        };
        assert!(
            (lo / ci[0] - 1.0).abs() < 1e-12,
            "{name}: {lo} vs {}",
            ci[0]
        );
        assert!(
            (hi / ci[1] - 1.0).abs() < 1e-12,
            "{name}: {hi} vs {}",
            ci[1]
        );
        let (kind, words) = if estimator == PairedEstimator::TypicalRun {
            (
                DistributionKind::Randomization,
                "randomization test of the typical run, inverted (",
            )
        } else if estimator.is_signed_rank() {
            (
                DistributionKind::WalshAverages,
                "Walsh averages of block log-ratios",
            )
        } else {
            (DistributionKind::BlockBootstrap, "block bootstrap of ")
        };
        assert_eq!(d.kind, kind, "{name}");
        assert!(svg.contains(words), "{name}");
        // ... and the histogram bins every one of its values.
        assert!(
            svg.contains(&format!("data-values=\"{}\"", d.values.len())),
            "{name}"
        );
        if kind == DistributionKind::BlockBootstrap {
            assert!(svg.contains(&format!("block bootstrap of {name} (2000 resamples)")));
        }
    }
}

#[test]
fn uncertainty_without_a_distribution_marks_the_interval_alone() {
    // A hand-written analysis carries no distribution: nothing is computed in its place.
    let a = fixtures::paired_two();
    let all = charts(&Pictures::new(&a));
    let svg = &chart(&all, "uncertainty.svg").svg;
    assert_eq!(count(svg, "class=\"interval\""), 2);
    assert_eq!(count(svg, "class=\"estimate\""), 1);
    assert_eq!(count(svg, "class=\"margin-band\""), 1);
    assert_eq!(count(svg, "class=\"histogram\""), 0);
    assert!(svg.contains("the interval alone (no resampled distribution behind it)"));
    assert!(svg.contains(">ratio candidate / baseline (log scale)</text>"));
    assert!(svg.contains(">share (%)</text>"));
}

#[test]
fn trace_colours_by_variant_and_marks_dropped_and_failed_runs() {
    let a = fixtures::paired_two();
    let mut runs = trace(12, 720e6, 1323e6);
    runs.runs[5].status = RunStatus::Dropped;
    runs.runs[6].status = RunStatus::Failed;
    runs.runs[6].value = None;
    let all = charts(&Pictures::new(&a).with_runs(&runs));
    let svg = &chart(&all, "run-order.svg").svg;
    assert_eq!(count(svg, "class=\"runs\""), 2);
    assert_eq!(markers(svg, "dropped"), 1);
    assert_eq!(markers(svg, "failed"), 1);
    assert!(svg.contains(">failed run</text>"));
    assert!(svg.contains(">dropped block (hollow)</text>"));
    assert!(svg.contains(">run (in execution order)</text>"));
    assert!(svg.contains(">value (Gops/s)</text>"), "{svg}");
    assert!(!svg.contains("Downsampled"));
}

#[test]
fn distributions_show_p99_only_from_100_runs() {
    let a = fixtures::paired_two();
    let runs = trace(12, 720e6, 1323e6);
    let all = charts(&Pictures::new(&a).with_runs(&runs));
    let svg = &chart(&all, "distributions.svg").svg;
    assert_eq!(count(svg, "class=\"violin\""), 2);
    assert_eq!(count(svg, "class=\"median\""), 2);
    assert_eq!(count(svg, "class=\"p90\""), 2);
    assert_eq!(count(svg, "class=\"p99\""), 0);
    assert!(!svg.contains("p99 (n &gt;= 100)"));
    assert_eq!(markers(svg, "strip"), 24);
    assert!(svg.contains(">variant</text>"));

    let mut big = a.clone();
    for b in &mut big.groups[0].benchmarks {
        b.n = 100;
        b.p99 = Some(b.p90 * 1.01);
    }
    let all = charts(&Pictures::new(&big).with_runs(&runs));
    let svg = &chart(&all, "distributions.svg").svg;
    assert_eq!(count(svg, "class=\"p99\""), 2);
    assert!(svg.contains("p99 (n &gt;= 100)"));
}

#[test]
fn unpaired_data_have_no_block_charts_and_the_page_says_why() {
    let a = fixtures::unpaired_three();
    let all = charts(&Pictures::new(&a));
    assert_eq!(names(&all), ["distributions.svg"]);
    let html = render_html(&Pictures::new(&a));
    assert!(html.contains("no comparison is blocked"));
    assert!(html.contains("No run-order trace: the runs were not given"));
}

#[test]
fn a_confidence_sequence_is_drawn_when_given() {
    let a = fixtures::paired_two();
    let seq = ConfidenceSequence {
        candidate: "chains=2".into(),
        baseline: "chains=1".into(),
        points: (2..=12)
            .map(|n| {
                let w = 0.5 / n as f64;
                SequencePoint {
                    blocks: n,
                    estimate: 1.85,
                    low: 1.85 - w,
                    high: 1.85 + w,
                }
            })
            .collect(),
    };
    let seqs = [seq];
    let all = charts(&Pictures::new(&a).with_sequences(&seqs));
    let svg = &chart(&all, "confidence-sequence.svg").svg;
    assert_eq!(count(svg, "class=\"sequence-band\""), 1);
    assert_eq!(count(svg, "class=\"sequence-estimate\""), 1);
    // The last look's interval: a bar and two caps.
    assert_eq!(count(svg, "class=\"sequence-last\""), 3);
    assert!(svg.contains(">blocks seen</text>"));
}

#[test]
fn scan_chart_draws_every_point_with_its_interval() {
    let points: Vec<ScanPoint> = (1..=8)
        .map(|c| {
            let y = 700.0 * f64::from(c.min(4));
            ScanPoint {
                x: f64::from(c),
                estimate: y,
                low: y * 0.98,
                high: y * 1.02,
            }
        })
        .collect();
    let chart = scan_chart(&ScanChart {
        title: "Throughput against chain count".into(),
        x_label: "chains (count)".into(),
        y_label: "median throughput (M ops/s)".into(),
        interval_label: "95% bootstrap interval of the median".into(),
        points,
    });
    assert_eq!(markers(&chart.svg, "points"), 8);
    assert_eq!(count(&chart.svg, "class=\"interval-band\""), 1);
    let bars = chart.svg.split("class=\"error-bars\"").next().unwrap();
    assert_eq!(count(&bars[bars.rfind("<path").unwrap()..], "V"), 8);
    assert!(chart.svg.contains(">chains (count)</text>"));
    assert!(chart.svg.contains(">median throughput (M ops/s)</text>"));
}

fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "no script");
    let outside = html.replace("http://www.w3.org/2000/svg", "");
    for link in ["http://", "https://", "src=", "href=", "@import", "url("] {
        assert!(!outside.contains(link), "no external reference: {link}");
    }
}

#[test]
fn html_holds_the_report_and_every_chart_and_nothing_external() {
    let a = fixtures::paired_two();
    let runs = trace(12, 720e6, 1323e6);
    let html = render_html(&Pictures::new(&a).with_runs(&runs));
    assert_self_contained(&html);
    assert_eq!(count(&html, "<figure "), 4);
    assert_eq!(count(&html, "<svg "), 4);
    assert!(html.contains("chains=2 is 1.85x faster than chains=1"));
    assert!(html.contains("<h2>Full report</h2>"));
    assert!(html.contains("Controls") || html.contains("controls"));
}

/// 10,000 runs (2,500 ABBA blocks): the page stays under 2 MB, the trace says it was
/// downsampled; its size is the figure of `docs/pictures.md`.
#[test]
fn ten_thousand_runs_stay_under_two_megabytes() {
    use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};
    let runs = trace(2500, 720.0, 1323.0);
    let series = |name: &str| {
        Series::new(
            name,
            runs.runs
                .iter()
                .filter(|r| r.variant == name)
                .map(|r| Observation::in_block(r.value.unwrap(), r.block.unwrap())),
        )
    };
    let data =
        Dataset::new("ns", vec![series("chains=1"), series("chains=2")]).with_design(Design::Abba);
    let a: Analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
    let html = render_html(&Pictures::new(&a).with_runs(&runs));
    assert_self_contained(&html);
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    assert!(html.contains("Downsampled: one analysed run in 4 is drawn (2500 of 10000)"));
    assert!(html.contains("chains=2 / chains=1: one block in 2 drawn"));
    // The size quoted in docs/pictures.md, in kB (10^3 bytes): a figure of the docs.
    let mut fig = bench_docs::Figure::new(
        "docs/pictures.md",
        "cargo test -p bench-report --features html --test integration pictures::ten_thousand_runs -- --nocapture",
    );
    fig.line(format!(
        "HTML report of 10,000 runs (2,500 ABBA blocks): {:.0} kB",
        html.len() as f64 / 1000.0
    ));
    fig.check();
}

/// The drawing elements (`path`, `line`, `rect`) of an SVG, each as its tag's text.
fn elements(svg: &str) -> Vec<&str> {
    svg.split('<')
        .filter(|e| e.starts_with("path ") || e.starts_with("line ") || e.starts_with("rect "))
        .collect()
}

fn attr<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    Some(&element[start..start + element[start..].find('"')?])
}

/// A path's commands without their numbers: one marker's shape (`Mmhvhz` a square).
fn commands(element: &str) -> String {
    attr(element, "d")
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_alphabetic)
        .collect()
}

/// Every legend swatch of `chart` is drawn in the chart itself: a marker's shape with its
/// fill (or, hollow, its stroke), a band's fill and opacity, a rule's stroke, dash and
/// width. Returns the swatches checked.
fn assert_legend_matches_marks(chart: &Chart) -> usize {
    let all = elements(&chart.svg);
    let (swatches, marks): (Vec<&str>, Vec<&str>) =
        all.iter().partition(|e| e.contains("class=\"swatch\""));
    for s in &swatches {
        let found = marks.iter().any(|m| {
            if s.starts_with("path ") {
                let shape = commands(s);
                let same_shape = m.starts_with("path ") && commands(m).contains(&shape);
                match attr(s, "fill") {
                    Some("none") => {
                        same_shape
                            && attr(m, "fill") == Some("none")
                            && attr(m, "stroke") == attr(s, "stroke")
                    }
                    fill => same_shape && attr(m, "fill") == fill,
                }
            } else if s.starts_with("rect ") {
                attr(m, "fill") == attr(s, "fill")
                    && attr(m, "fill-opacity").unwrap_or("1")
                        == attr(s, "fill-opacity").unwrap_or("1")
            } else {
                (m.starts_with("line ") || m.starts_with("path "))
                    && attr(m, "stroke") == attr(s, "stroke")
                    && attr(m, "stroke-dasharray") == attr(s, "stroke-dasharray")
                    && attr(m, "stroke-width").unwrap_or("1")
                        == attr(s, "stroke-width").unwrap_or("1")
            }
        });
        assert!(
            found,
            "{}: the legend's {s:?} is not drawn in the chart",
            chart.file_name
        );
    }
    swatches.len()
}

#[test]
fn every_legend_entry_is_drawn_with_the_marks_and_colours_of_its_chart() {
    // The candidate is the second variant (orange squares): a legend in the first
    // variant's or a fixed colour would not match.
    let a = fixtures::paired_two();
    let mut runs = trace(12, 720e6, 1323e6);
    runs.runs[5].status = RunStatus::Dropped;
    runs.runs[6].status = RunStatus::Failed;
    runs.runs[6].value = None;
    let seq = ConfidenceSequence {
        candidate: "chains=2".into(),
        baseline: "chains=1".into(),
        points: (1..=7)
            .map(|n| SequencePoint {
                blocks: n,
                estimate: 1.8,
                low: if n < 3 { 0.0 } else { 1.8 - 1.0 / n as f64 },
                high: if n < 3 {
                    f64::INFINITY
                } else {
                    1.8 + 1.0 / n as f64
                },
            })
            .collect(),
    };
    let seqs = [seq];
    let all = charts(&Pictures::new(&a).with_runs(&runs).with_sequences(&seqs));
    let mut checked = Vec::new();
    for c in &all {
        checked.push((c.file_name.clone(), assert_legend_matches_marks(c)));
    }
    let three = fixtures::unpaired_three();
    for c in &charts(&Pictures::new(&three)) {
        checked.push((c.file_name.clone(), assert_legend_matches_marks(c)));
    }
    // The typical run (the default) on real blocks: the shape chart and the randomization
    // histogram, with moved (filled) and unmoved (hollow) parts.
    let typical =
        bench_stats::analyze(&skewed_blocks(), &bench_stats::AnalysisConfig::default()).unwrap();
    for c in &charts(&Pictures::new(&typical)) {
        checked.push((c.file_name.clone(), assert_legend_matches_marks(c)));
    }
    for name in [
        "paired-effect.svg",
        "run-order.svg",
        "distributions.svg",
        "uncertainty.svg",
        "shape.svg",
        "confidence-sequence.svg",
    ] {
        assert!(
            checked.iter().any(|(n, k)| n == name && *k >= 2),
            "{name} not checked: {checked:?}"
        );
    }
}

#[test]
fn a_sequence_stopped_early_shows_every_look_and_fits_the_deciding_interval() {
    let a = fixtures::paired_two();
    // Decided at the 7th look: the first looks are unbounded or very wide.
    let points = (1..=7)
        .map(|n| SequencePoint {
            blocks: n,
            estimate: 1.8 + 0.01 * n as f64,
            low: if n < 3 {
                0.0
            } else {
                1.85 / (1.0 + 30.0 / (n * n * n) as f64)
            },
            high: if n < 3 {
                f64::INFINITY
            } else {
                1.85 * (1.0 + 30.0 / (n * n * n) as f64)
            },
        })
        .collect();
    let seqs = [ConfidenceSequence {
        candidate: "chains=2".into(),
        baseline: "chains=1".into(),
        points,
    }];
    let all = charts(&Pictures::new(&a).with_sequences(&seqs));
    let svg = &chart(&all, "confidence-sequence.svg").svg;
    assert_eq!(markers(svg, "sequence-looks"), 7, "every look is a marker");
    assert_eq!(count(svg, "class=\"sequence-unbounded\""), 2);
    // The y axis spans the estimates and the last interval (about 1.7 to 2.0), not the
    // third look's 0.9 to 3.9: its top tick is below 3.
    // The y tick labels: right-aligned texts left of the plot.
    let ticks: Vec<f64> = svg
        .split("text-anchor=\"end\">")
        .skip(1)
        .filter_map(|t| t.split('<').next()?.parse().ok())
        .collect();
    assert!(!ticks.is_empty(), "{svg}");
    assert!(ticks.iter().all(|&t| t < 3.0), "{ticks:?}");
}

#[test]
fn the_verdict_is_the_headline_and_the_text_report_wraps() {
    let a = fixtures::paired_two();
    let html = render_html(&Pictures::new(&a));
    let c = &a.groups[0].comparisons[0];
    // The verdict comes first, before any chart, as a styled headline with its word.
    let verdict = html
        .find("<p class=\"verdict ")
        .expect("a verdict headline");
    assert!(verdict < html.find("<h2>Charts</h2>").unwrap());
    let word = c.outcome.as_str().to_uppercase();
    assert!(
        html[verdict..].contains(&format!("<span class=\"word\">{word}</span>")),
        "{html}"
    );
    assert!(html.contains(".verdict{font-size:1.3em"));
    // The full report: no sideways scroll, lines laid out at 100 columns.
    assert!(html.contains("white-space:pre-wrap") && !html.contains("overflow-x:auto"));
    let pre = html
        .split("<pre>")
        .nth(1)
        .unwrap()
        .split("</pre>")
        .next()
        .unwrap();
    assert!(pre.lines().count() > 10);
    for line in pre.lines() {
        let text = line
            .replace("&#39;", "'")
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        assert!(text.chars().count() <= 100, "{line}");
    }
}

#[test]
fn a_sequential_analysis_carries_the_looks_the_sequence_chart_draws() {
    use bench_report::pictures::confidence_sequences;
    use bench_stats::analysis::SequentialRun;
    use bench_stats::sequential::{SequentialRule, dataset_log_ratios, replay};
    let data = skewed_blocks();
    let rule = SequentialRule::new(0.05, 0.01);
    let config = bench_stats::AnalysisConfig {
        sequential: Some(SequentialRun {
            rule,
            extended: false,
            budget_ended: false,
        }),
        ..bench_stats::AnalysisConfig::default()
    };
    let a = bench_stats::analyze(&data, &config).unwrap();
    let seqs = confidence_sequences(&a);
    assert_eq!(seqs.len(), 1);
    // The looks are the analysis's own: a replay of the block log-ratios gives them.
    let again = replay(&dataset_log_ratios(&data, Some("A")).unwrap(), &rule);
    assert_eq!(again.looks.len(), 14);
    let points: Vec<[f64; 3]> = seqs[0]
        .points
        .iter()
        .map(|q| [q.estimate, q.low, q.high])
        .collect();
    let want: Vec<[f64; 3]> = again
        .looks
        .iter()
        .map(|l| [l.median_ratio, l.ratio_interval[0], l.ratio_interval[1]])
        .collect();
    assert_eq!(points, want);
    let all = charts(&Pictures::new(&a).with_sequences(&seqs));
    assert!(names(&all).contains(&"confidence-sequence.svg"));
    // Read back from JSON the analysis has no looks, and draws no sequence.
    let json = serde_json::to_string(&a).unwrap();
    let back: Analysis = serde_json::from_str(&json).unwrap();
    assert!(confidence_sequences(&back).is_empty());
}

/// The plot areas of `svg`: every unfilled rectangle (the frame of each plot) as
/// (left, top, right, bottom).
fn frames(svg: &str) -> Vec<[f64; 4]> {
    elements(svg)
        .into_iter()
        .filter(|e| e.starts_with("rect ") && attr(e, "fill") == Some("none"))
        .map(|e| {
            let n = |k| attr(e, k).unwrap().parse::<f64>().unwrap();
            [n("x"), n("y"), n("x") + n("width"), n("y") + n("height")]
        })
        .collect()
}

/// The centre of every marker of the paths with `class` (each marker starts `Mx y`).
fn marker_centres(svg: &str, class: &str) -> Vec<(f64, f64)> {
    elements(svg)
        .into_iter()
        .filter(|e| e.starts_with("path ") && attr(e, "class") == Some(class))
        .flat_map(|e| attr(e, "d").unwrap().split('M'))
        .filter(|m| !m.is_empty())
        .map(|m| {
            let mut xy = m
                .split(|c: char| c.is_ascii_alphabetic())
                .next()
                .unwrap()
                .split(' ')
                .map(|v| v.parse::<f64>().unwrap());
            (xy.next().unwrap(), xy.next().unwrap())
        })
        .collect()
}

/// Every marker of `class` lies strictly inside a frame, at least `room` px from it.
fn assert_off_the_frame(svg: &str, class: &str, room: f64) -> usize {
    let frames = frames(svg);
    let centres = marker_centres(svg, class);
    for (x, y) in &centres {
        assert!(
            frames.iter().any(|[l, t, r, b]| {
                *x >= l + room && *x <= r - room && *y >= t + room && *y <= b - room
            }),
            "{class} marker at ({x}, {y}) within {room} px of a frame {frames:?}"
        );
    }
    centres.len()
}

/// Blocks in which every run of both variants took exactly `value`.
fn all_equal_blocks(blocks: u32, value: f64) -> bench_stats::Dataset {
    use bench_stats::{Dataset, Design, Observation, Series};
    let runs = || -> Vec<Observation> {
        (0..blocks)
            .flat_map(|b| {
                [
                    Observation::in_block(value, b),
                    Observation::in_block(value, b),
                ]
            })
            .collect()
    };
    Dataset::new(
        "ms",
        vec![Series::new("A", runs()), Series::new("B", runs())],
    )
    .with_design(Design::Abba)
}

#[test]
fn all_equal_data_draw_the_one_histogram_bar_centred_on_the_estimate() {
    let config = bench_stats::AnalysisConfig {
        paired_estimator: PairedEstimator::HodgesLehmannLogRatio,
        ..bench_stats::AnalysisConfig::default()
    };
    let a = bench_stats::analyze(&all_equal_blocks(6, 10.0), &config).unwrap();
    let c = &a.groups[0].comparisons[0];
    assert_eq!(c.ratio, Some(1.0));
    assert!(c.interval_distribution.is_some(), "Walsh averages drawn");
    let all = charts(&Pictures::new(&a));
    let svg = &chart(&all, "uncertainty.svg").svg;
    let estimate = elements(svg)
        .into_iter()
        .find(|e| attr(e, "class") == Some("estimate"))
        .unwrap();
    let x: f64 = attr(estimate, "x1").unwrap().parse().unwrap();
    // The histogram: one bar `M{left} {bottom}h{width}v{-height}h-{width}z`.
    let bar = elements(svg)
        .into_iter()
        .find(|e| attr(e, "class") == Some("histogram"))
        .unwrap();
    let d = attr(bar, "d").unwrap();
    assert_eq!(count(d, "M"), 1, "{d}");
    let left: f64 = d[1..d.find(' ').unwrap()].parse().unwrap();
    let width: f64 = d[d.find('h').unwrap() + 1..d.find('v').unwrap()]
        .parse()
        .unwrap();
    assert!(
        (left + width / 2.0 - x).abs() <= 0.1,
        "bar [{left}, {}] around the estimate at {x}",
        left + width
    );
    // The block ratios are all 1, drawn inside the row's frame, not on it.
    let effect = &chart(&all, "paired-effect.svg").svg;
    assert_eq!(assert_off_the_frame(effect, "points", 6.0), 6);
}

#[test]
fn one_block_one_look_and_one_run_are_drawn_inside_the_frame_and_centred() {
    let a = fixtures::paired_two();
    // A sequence decided at its first look, and one of 7 looks: the first and the last
    // look sit inside the frame (they were drawn on its left and right edges).
    for looks in [1, 7] {
        let seqs = [ConfidenceSequence {
            candidate: "chains=2".into(),
            baseline: "chains=1".into(),
            points: (1..=looks)
                .map(|n| SequencePoint {
                    blocks: n,
                    estimate: 1.85,
                    low: 1.7,
                    high: 2.0,
                })
                .collect(),
        }];
        let all = charts(&Pictures::new(&a).with_sequences(&seqs));
        let svg = &chart(&all, "confidence-sequence.svg").svg;
        assert_eq!(assert_off_the_frame(svg, "sequence-looks", 6.0), looks);
        if looks == 1 {
            let [l, _, r, _] = frames(svg)[0];
            let (x, _) = marker_centres(svg, "sequence-looks")[0];
            assert!((x - (l + r) / 2.0).abs() <= 0.1, "one look at {x}, centred");
        }
    }
    // One run in the trace: centred, and its value (zero span) in the middle of the y axis.
    let one = RunTrace {
        runs: vec![TracedRun {
            variant: "chains=1".into(),
            block: Some(0),
            value: Some(720e6),
            status: RunStatus::Analysed,
        }],
        in_run_order: true,
    };
    let all = charts(&Pictures::new(&a).with_runs(&one));
    let svg = &chart(&all, "run-order.svg").svg;
    assert_eq!(assert_off_the_frame(svg, "runs", 6.0), 1);
    let [l, _, r, _] = frames(svg)[0];
    let (x, _) = marker_centres(svg, "runs")[0];
    assert!((x - (l + r) / 2.0).abs() <= 0.1, "one run at {x}, centred");
    // A trace of many runs keeps its first and last inside too.
    let many = charts(&Pictures::new(&a).with_runs(&trace(12, 720e6, 1323e6)));
    assert_eq!(
        assert_off_the_frame(&chart(&many, "run-order.svg").svg, "runs", 6.0),
        48
    );
}

/// The `data-ratios` (`quantile:ratio` pairs, `mean:ratio` for the mean run, read as
/// quantile 2) of the path with `class`, if any.
fn plotted(svg: &str, class: &str) -> Vec<(f64, f64)> {
    let Some(at) = svg.find(&format!("class=\"{class}\"")) else {
        return Vec::new();
    };
    let key = "data-ratios=\"";
    let start = at + svg[at..].find(key).unwrap() + key.len();
    let text = &svg[start..start + svg[start..].find('"').unwrap()];
    text.split(' ')
        .map(|p| {
            let (q, r) = p.split_once(':').unwrap();
            let q = if q == "mean" { 2.0 } else { q.parse().unwrap() };
            (q, r.parse().unwrap())
        })
        .collect()
}

/// The centres `(x, y)` of every marker in the paths with class `points`, and each row's
/// plot area (the `<rect fill="none">` frames), to check no point sits on a frame.
fn points_inside_frames(svg: &str) {
    let frames: Vec<[f64; 4]> = elements(svg)
        .into_iter()
        .filter(|e| e.starts_with("rect ") && attr(e, "fill") == Some("none"))
        .map(|e| {
            let v = |k| attr(e, k).unwrap().parse::<f64>().unwrap();
            [v("x"), v("y"), v("x") + v("width"), v("y") + v("height")]
        })
        .collect();
    assert!(!frames.is_empty());
    let mut n = 0;
    for e in elements(svg)
        .into_iter()
        .filter(|e| attr(e, "class").is_some_and(|c| c.starts_with("points")))
    {
        for m in attr(e, "d").unwrap().split('M').skip(1) {
            let xy: Vec<f64> = m
                .split(|c: char| c.is_ascii_alphabetic())
                .next()
                .unwrap()
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect();
            let (x, y) = (xy[0], xy[1]);
            assert!(
                frames
                    .iter()
                    .any(|f| x > f[0] + 4.0 && x < f[2] - 4.0 && y > f[1] + 4.0 && y < f[3] - 4.0),
                "a point on or outside its frame: ({x}, {y}) {frames:?}"
            );
            n += 1;
        }
    }
    assert!(n > 0);
}

#[test]
fn shape_chart_draws_each_quantiles_ratio_with_its_interval_and_the_parts_that_moved() {
    let a =
        bench_stats::analyze(&skewed_blocks(), &bench_stats::AnalysisConfig::default()).unwrap();
    let c = &a.groups[0].comparisons[0];
    let s = c.distribution.as_ref().expect("a shape check");
    let all = charts(&Pictures::new(&a));
    assert!(names(&all).contains(&"shape.svg"));
    let svg = &chart(&all, "shape.svg").svg;
    assert!(svg.contains("<title>Shape of the change</title>"));
    // One marker per checked part (the quantiles, then the mean run), split by whether the
    // part moved beyond the margin.
    let mut drawn = plotted(svg, "points moved");
    drawn.extend(plotted(svg, "points unmoved"));
    drawn.sort_by(|x, y| x.0.total_cmp(&y.0));
    let x = |q: &bench_stats::paired::shape::QuantileShift| {
        if q.quantile.is_finite() {
            q.quantile
        } else {
            2.0
        }
    };
    let want: Vec<(f64, f64)> = s.parts().map(|q| (x(q), q.ratio)).collect();
    assert_eq!(want.len(), 4);
    assert_eq!(drawn, want);
    let moved: Vec<f64> = s
        .parts()
        .filter(|q| matches!(q.part, PartMove::Slower | PartMove::Faster))
        .map(x)
        .collect();
    assert!(
        !moved.is_empty() && moved.len() < s.parts().count(),
        "{moved:?}"
    );
    let got: Vec<f64> = plotted(svg, "points moved").iter().map(|p| p.0).collect();
    assert_eq!(got, moved);
    assert_eq!(markers(svg, "points moved"), moved.len());
    // A whisker (and two caps) per interval, one band joining the quantiles', the margin
    // and no change.
    let bars = svg.split("class=\"interval-bars\"").next().unwrap();
    let with = s.parts().filter(|q| q.interval.is_some()).count();
    assert_eq!(count(&bars[bars.rfind("<path").unwrap()..], "V"), with);
    assert_eq!(count(svg, "class=\"interval-band\""), 1);
    assert_eq!(count(svg, "class=\"margin-band\""), 1);
    assert_eq!(count(svg, "class=\"margin-edge\""), 2);
    assert_eq!(count(svg, "class=\"no-change\""), 1);
    for label in [
        "p10 fast runs",
        "p50 typical run",
        "p90 slow runs",
        "mean run",
    ] {
        assert!(svg.contains(&format!(">{label}</text>")), "{label}");
    }
    assert!(
        svg.contains("4 parts, each interval at its share of the family level (typical run ")
            && svg.contains(", 14 blocks"),
        "{svg}"
    );
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
    points_inside_frames(svg);
    // The HTML page places it with its caption.
    let html = render_html(&Pictures::new(&a));
    assert!(html.contains("<figure id=\"shape\">"));
    assert!(html.contains("ratio at each checked quantile"));
    assert!(!html.contains("No shape chart"));
}

#[test]
fn shape_chart_handles_one_run_per_block_equal_values_and_too_few_blocks() {
    use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};
    let data = |blocks: u32, runs: u32, f: &dyn Fn(u32, u32) -> (f64, f64)| {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for k in 0..blocks {
            for r in 0..runs {
                let (x, y) = f(k, r);
                a.push(Observation::in_block(x, k));
                b.push(Observation::in_block(y, k));
            }
        }
        Dataset::new("ms", vec![Series::new("A", a), Series::new("B", b)]).with_design(Design::Abba)
    };
    let shape_svg = |d: &Dataset| {
        let a = analyze(d, &AnalysisConfig::default()).unwrap();
        let all = charts(&Pictures::new(&a));
        let svg = all
            .iter()
            .find(|c| c.file_name == "shape.svg")
            .map(|c| c.svg.clone());
        (a, svg)
    };
    // One run of each variant per block: the typical run alone, centred.
    let one = data(12, 1, &|k, _| {
        let v = 100.0 + f64::from(k % 4);
        (v, v * 1.05)
    });
    let (_, svg) = shape_svg(&one);
    let svg = svg.expect("a shape chart");
    assert!(svg.contains(">p50 typical run</text>"));
    assert!(!svg.contains(">p10 "));
    assert!(svg.contains("the typical run alone"));
    assert_eq!(count(&svg, "class=\"interval-band\""), 1);
    assert!(!svg.contains("NaN"));
    points_inside_frames(&svg);
    assert_legend_matches_marks(&Chart {
        file_name: "shape.svg".into(),
        title: String::new(),
        svg: svg.clone(),
    });
    // Every value equal: ratios of 1 with zero-width intervals, inside the frame.
    let flat = data(8, 2, &|_, _| (1000.0, 1000.0));
    let (a, svg) = shape_svg(&flat);
    let svg = svg.expect("a shape chart");
    let s = a.groups[0].comparisons[0].distribution.as_ref().unwrap();
    assert!(s.quantiles.iter().all(|q| q.ratio == 1.0));
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
    points_inside_frames(&svg);
    assert!(plotted(&svg, "points moved").is_empty());
    assert_eq!(plotted(&svg, "points unmoved").len(), 4);
    // Three blocks: no interval reaches its level; the points alone, and a note.
    let few = data(3, 2, &|k, r| {
        let v = 100.0 + f64::from(k + r);
        (v, v * 1.1)
    });
    let (a, svg) = shape_svg(&few);
    if let Some(svg) = svg {
        let s = a.groups[0].comparisons[0].distribution.as_ref().unwrap();
        assert!(s.quantiles.iter().all(|q| q.interval.is_none()));
        assert_eq!(count(&svg, "class=\"interval-bars\""), 0);
        assert!(svg.contains("without an interval at"), "{svg}");
        assert!(!svg.contains("NaN"));
        points_inside_frames(&svg);
    }
    // One block: no paired analysis, no shape chart, nothing drawn from nothing.
    let single = data(1, 3, &|_, r| (100.0 + f64::from(r), 110.0 + f64::from(r)));
    let a = analyze(&single, &AnalysisConfig::default()).unwrap();
    assert!(a.groups[0].comparisons[0].distribution.is_none());
    assert!(!names(&charts(&Pictures::new(&a))).contains(&"shape.svg"));
}

/// The shape chart of the typical run on [`skewed_blocks`], element by element, one per
/// line (`tests/snapshots/pictures__shape_svg.snap`): a change to the drawing shows in review.
#[test]
fn shape_chart_snapshot() {
    let a =
        bench_stats::analyze(&skewed_blocks(), &bench_stats::AnalysisConfig::default()).unwrap();
    let all = charts(&Pictures::new(&a));
    let svg = chart(&all, "shape.svg").svg.replace("><", ">\n<");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("pictures__shape_svg", svg));
}
