//! # bench-report: readable reports of an abba analysis
//!
//! Renders a [`bench_stats::Analysis`] (the `abba.analysis/1` model) three ways, and
//! writes any of them to disk atomically:
//!
//! - [`render_console`]: terminal text, one table per group (per class, or one table
//!   with a Class column in cross-class mode), the omnibus line, a verdict per
//!   candidate, per-block tables, reference workload, controls and warnings; colour only
//!   when [`RenderOptions`] asks for it.
//! - [`render_single`]: one command measured alone, as hyperfine summarizes it (mean ±
//!   σ, min … max, user and system) with an interval for the median; no verdict.
//! - [`render_markdown`]: the same content as GitHub-flavoured Markdown.
//! - [`render_json`]: the analysis JSON, refusing NaN and infinities.
//! - [`render_suite_console`] and [`render_suite_markdown`]: a suite of benchmarks
//!   ([`bench_stats::suite::SuiteReport`]) as one table and its summary.
//! - A benchmark's history ([`bench_stats::history::Series`]), one document each:
//!   [`render_history_series`] (the table of `abba history show`), [`render_history_list`],
//!   [`render_history_csv`], [`render_history_json`] (`abba.history/1`),
//!   [`render_history_bmf`] and, with `html`, `render_history_page`.
//! - A suite of benchmarks ([`bench_stats::suite::SuiteReport`]), one file per document
//!   under `suite/`: [`render_suite_console`] and [`render_suite_markdown`] (one table and
//!   its summary), [`render_suite_pr_comment`] (with its [`comment_marker`]),
//!   [`render_suite_json`] (`abba.suite/1`), [`render_suite_bmf`] (Bencher Metric Format)
//!   and [`render_suite_github_benchmark`] (github-action-benchmark), all of one report
//!   through [`SuiteDocuments`]; [`render_suite_listing`], [`render_suite_dry_run`] and
//!   [`render_suite_failures`] for the suite's plan and its benchmarks not compared.
//! - [`render_gate`]: the words of the one regression gate
//!   ([`bench_stats::analysis::GateResult`]) for compare, suite and history.
//! - [`render_plan`] and [`render_plan_json`]: `abba plan`'s document ([`PlanDocument`]).
//! - [`write_atomic`]: temporary file, `fsync`, rename; nothing half-written. [`paths`]: what
//!   a path names for writing ([`paths::target`]) and whether two name one file
//!   ([`paths::same_file`]).
//! - [`format_value`]: one value in its unit, scaled for reading (ns to s, K/M/G rates).
//! - [`wrap`]: prose wrapped to a width at word boundaries with a hanging indent (what
//!   the console report does to every line that is not a table).
//! - [`pictures`] (feature `html`): the charts as SVG ([`pictures::charts`]), a
//!   self-contained HTML report ([`pictures::render_html`]) and a scan chart
//!   ([`pictures::scan_chart`]), drawn by a small SVG writer of our own (why: see the
//!   module).
//!
//! ```
//! use bench_report::{RenderOptions, render_console, render_json};
//! use bench_stats::model::{BenchmarkSummary, OutlierCounts};
//! use bench_stats::{ANALYSIS_SCHEMA, Analysis, Design, GroupAnalysis, Grouping};
//!
//! let summary = |name: &str, median: f64| BenchmarkSummary {
//!     name: name.into(), class: None, n: 3, mean: median, median, stddev: Some(10.0),
//!     mad: 5.0, min: median - 10.0, max: median + 10.0, p50: median, p90: median + 8.0,
//!     p99: None, outliers: OutlierCounts::default(), user_mean: None, sys_mean: None,
//! };
//! let analysis = Analysis {
//!     schema: ANALYSIS_SCHEMA.into(), alpha: 0.05, confidence: 0.95, resamples: 2000,
//!     seed: 1, unit: "ns".into(), higher_is_better: false, quantity: None,
//!     min_practical_effect: 0.0,
//!     equivalence_margin: 0.01, practical: "auto".into(),
//!     design: Some(Design::Abba), paired_estimator: None, grouping: Grouping::PerClass,
//!     groups: vec![GroupAnalysis {
//!         class: None, baseline: "A".into(),
//!         benchmarks: vec![summary("A", 1500.0)], omnibus: None, comparisons: vec![],
//!         trend: None,
//!     }],
//!     controls: vec![], warnings: vec![], confirmation: None, levels: None, metrics: None,
//!     noise: None,
//!     native_time: None,
//! };
//! let text = render_console(&analysis, &RenderOptions::default());
//! assert!(text.contains("1.500 µs"));
//! assert!(render_json(&analysis)?.contains("\"schema\": \"abba.analysis/1\""));
//! # Ok::<(), bench_report::ExportError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod atomic;
mod console;
mod csv_options;
mod error;
mod gate;
mod history;
mod json;
mod levels_view;
mod markdown;
mod metrics_view;
mod noise_view;
mod options;
pub mod paths;
#[cfg(feature = "html")]
pub mod pictures;
mod plan;
mod progress;
#[cfg(feature = "progress")]
mod progress_bar;
mod single;
mod suite;
mod suite_noise;
mod too_few;
mod unit_warning;
mod units;
mod view;
mod wrap;

#[cfg(feature = "html")]
pub use crate::history::render_history_page;
#[cfg(feature = "progress")]
pub use crate::progress_bar::{ANALYSIS_BAR_AFTER, AnalysisBar, RunBar};
pub use crate::{
    atomic::write_atomic,
    console::render_console,
    csv_options::render_ignored_csv_options,
    error::ExportError,
    gate::render_gate,
    history::{
        HISTORY_CSV_COLUMNS, HistoryOverview, ListedBenchmark, change_word, escape_terminal,
        percent_change, render_history_bmf, render_history_check, render_history_csv,
        render_history_json, render_history_list, render_history_series, render_history_show,
        render_shallow_base, series_change_word,
    },
    json::render_json,
    markdown::render_markdown,
    options::{Charset, ColorMode, RenderOptions, TimeUnit},
    plan::{PlanDocument, render_plan, render_plan_json},
    progress::{look_text, provisional_text},
    single::{render_measured, render_single},
    suite::{
        PR_COMMENT_MAX, STEP_SUMMARY_MAX, SUITE_SCHEMA, SuiteDocuments, SuiteFormat, SuiteMarkdown,
        bmf_measure, check_comment_id, comment_marker, counted, render_complete_resume,
        render_shard_note, render_suite_bmf, render_suite_console, render_suite_dry_run,
        render_suite_failures, render_suite_github_benchmark, render_suite_json,
        render_suite_listing, render_suite_markdown, render_suite_pr_comment, render_suite_start,
    },
    suite_noise::{SuiteNoiseLine, suite_noise_line},
    too_few::{TooFewBlocks, render_too_few_blocks},
    unit_warning::{UnitSetting, render_rate_unit_warning},
    units::format_value,
    wrap::{wrap, wrap_schedule_line},
};
