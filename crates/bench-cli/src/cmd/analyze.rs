//! `abba analyze`: saved data (raw JSONL, CSV, hyperfine JSON) into the same report.

use std::path::Path;

use bench_history::Printed;
use bench_report::{SuiteDocuments, SuiteFormat};
use bench_sched::{
    CounterSource, CsvOptions, Experiment, Input, InputError, MergePolicy, Metric, NativeTiming,
    SuiteAnalysis, analyze_input,
};
use bench_stats::analysis::{Gate, SuiteGates};
use bench_stats::suite::{Correction, SuiteConfig};

use crate::args::AnalyzeArgs;
use crate::core::analysis::{analysis_config, analysis_config_for};
use crate::core::exit::usage;
use crate::core::output::emit;
use crate::core::record::Recording;

/// `abba analyze FILE...`.
pub fn run(args: AnalyzeArgs) -> anyhow::Result<u8> {
    // Flags are checked before any file is read.
    analysis_config(&args.analysis, 1)?;
    let metric = args
        .metric
        .as_deref()
        .map(|m| {
            m.parse::<Metric>()
                .map_err(|e| usage(format!("--metric: {e}")))
        })
        .transpose()?;
    crate::core::record::check_record_inputs(&args.record, &args.files)?;
    // --record's commit and history are settled before any report or export.
    let recording = crate::core::record::prepare(&args.record, "analyze")?;
    let paths: Vec<&Path> = args.files.iter().map(|p| p.as_path()).collect();
    if let Some(twice) = bench_sched::repeated_input(&paths) {
        return Err(usage(twice.to_string()));
    }
    let kept: Vec<crate::core::paths::Kept<'_>> = paths
        .iter()
        .filter(|p| **p != Path::new("-"))
        .map(|path| crate::core::paths::Kept {
            role: "the input",
            path,
        })
        .chain(recording.as_ref().map(crate::core::record::Recording::kept))
        .collect();
    crate::core::paths::check_export_targets(&args.analysis, &kept)?;
    crate::core::checks::warn_rate_unit(Some(&args.unit), args.higher_is_better);
    let csv = CsvOptions {
        unit: args.unit.clone(),
        higher_is_better: args.higher_is_better,
    };
    let policy = if args.force_unpaired {
        MergePolicy::Unpaired
    } else {
        MergePolicy::ByExperiment
    };
    let input = Input::load_with(&paths, &csv, policy).map_err(|e| match e {
        InputError::DifferentExperiments { .. } => usage(format!(
            "{e}; pass --force-unpaired to compare them unpaired (blocks dropped)"
        )),
        InputError::Io { .. } | InputError::Invalid { .. } | InputError::Incompatible { .. } => {
            usage(e.to_string())
        }
        _ => usage(e.to_string()),
    })?;
    ignored_csv_options(&args, &input.loaded.dataset);
    if args.analysis.csv.export_csv.is_some() && input.experiment.is_none() {
        return Err(usage(
            "--export-csv needs runs: it is available for one raw file (abba compare --output), not for CSV or hyperfine input",
        ));
    }
    let mut input = match &metric {
        Some(m) => input
            .on_metric(m)
            .map_err(|e| usage(format!("--metric {m}: {e}")))?,
        None => input,
    };
    // A single raw file tells its seed; the analysis reuses it unless --seed says otherwise.
    let seed = args.seed.or(input.recorded_seed()).unwrap_or(1);
    let decided_on: Option<Metric> = input.experiment.as_ref().map(|e| e.header.metric.clone());
    let config = analysis_config_for(&args.analysis, seed, decided_on.as_ref())?;
    // A suite's raw file gets the suite's analysis, as `abba suite` reported it.
    if let Some((code, analysed, suite_config)) =
        suite_report(&args, &input, metric.as_ref(), seed)?
    {
        let printed = Printed::Suite {
            analysed: &analysed,
            metric: metric.as_ref(),
        };
        let settings = (&suite_config.analysis, suite_config.correction);
        let experiment = input.experiment;
        record(&args, recording.as_ref(), experiment, printed, settings)?;
        return Ok(code);
    }
    if input.is_empty() {
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(usage(format!(
            "{}: {}",
            files.join(", "),
            input.nothing_to_analyze()
        )));
    }
    let mut analysis = analyze_input(&input, &config).map_err(|e| usage(e.to_string()))?;
    native_runs(&args, &paths, &input, &config, &mut analysis);
    let csv = crate::core::exports::csv_exports(&args.analysis.csv, &input, &analysis);
    // --record keeps the analysis printed: the file is not read again.
    let printed = recording.as_ref().map(|_| analysis.clone());
    let code = emit(analysis, &args.analysis, csv, &input)?;
    if let Some(analysis) = &printed {
        let experiment = input.experiment.take();
        let printed = match &experiment {
            Some(e) if !e.header.suite.is_empty() => Printed::NotPerBenchmark,
            _ => Printed::Experiment {
                dataset: &input.loaded.dataset,
                analysis,
                metric: metric.as_ref(),
            },
        };
        let settings = (&config, Correction::default());
        record(&args, recording.as_ref(), experiment, printed, settings)?;
    }
    Ok(code)
}

/// `--record` after the report: the `experiment` read from the one file kept with what
/// was printed of it ([`bench_history::Recording::record_printed`]), from memory.
fn record(
    args: &AnalyzeArgs,
    recording: Option<&Recording>,
    experiment: Option<Experiment>,
    printed: Printed<'_>,
    settings: (&bench_stats::AnalysisConfig, Correction),
) -> anyhow::Result<()> {
    let (Some(mut experiment), Some(path)) = (experiment, args.files.first()) else {
        return Ok(());
    };
    let file = path.display().to_string();
    let hook = crate::core::record::crash_hook();
    crate::core::record::after(recording, &file, args.analysis.quiet, |r| {
        r.record_printed(&mut experiment, path, printed, settings, hook)
    })
}

/// A raw file counted under valgrind is set beside the native runs `abba compare` left
/// beside it ([`NativeTiming::reattach`]), so its counts-vs-time check survives a
/// re-analysis; a native file that cannot serve is said in one line, and the counted
/// analysis stands alone.
fn native_runs(
    args: &AnalyzeArgs,
    paths: &[&Path],
    input: &Input,
    config: &bench_stats::AnalysisConfig,
    analysis: &mut bench_stats::Analysis,
) {
    let Some(e) = input.experiment.as_ref().filter(|e| {
        e.header.counter == Some(CounterSource::Valgrind)
            && e.header.metric.count_event().is_some()
            && paths.len() == 1
            && paths[0] != Path::new("-")
    }) else {
        return;
    };
    if let Err(err) = NativeTiming::reattach(paths[0], &e.header, analysis, config) {
        if !args.analysis.quiet {
            crate::core::stdio::stderr_line(format_args!(
                "abba: warning: the native runs beside {} are not used: {err}",
                paths[0].display()
            ));
        }
    }
}

/// `--unit` and `--higher-is-better` describe CSV values; when the data read do not carry
/// what was given, the flag had no effect: said ([`bench_report::render_ignored_csv_options`]).
fn ignored_csv_options(args: &AnalyzeArgs, data: &bench_stats::Dataset) {
    for w in bench_report::render_ignored_csv_options(&args.unit, args.higher_is_better, data) {
        crate::core::stdio::stderr_line(format_args!("abba: warning: {w}"));
    }
}

/// `abba analyze` of a suite's raw file (`None` for any other input): the suite's analysis
/// ([`bench_sched::analyze_suite_experiment`], Benjamini-Hochberg across the benchmarks as
/// `abba suite` defaults to), its table and summary, `--json` / `--export-json` as
/// `abba.suite/1`, `--export-markdown` as the suite's Markdown, and `--fail-if-slower` per
/// benchmark. The formats of one comparison's analysis are refused, naming the flag.
fn suite_report(
    args: &AnalyzeArgs,
    input: &Input,
    metric: Option<&Metric>,
    seed: u64,
) -> anyhow::Result<Option<(u8, SuiteAnalysis, SuiteConfig)>> {
    let a = &args.analysis;
    let Some(e) = input
        .experiment
        .as_ref()
        .filter(|e| !e.header.suite.is_empty() && !a.cross_class)
    else {
        return Ok(None);
    };
    let refused = [
        ("--export-html", a.export_html.is_some()),
        ("--export-svg", a.export_svg.is_some()),
        ("--export-csv", a.csv.export_csv.is_some()),
        ("--export-csv-summary", a.csv.export_csv_summary.is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, given)| *given) {
        return Err(usage(format!(
            "{flag}: {} is a suite's raw file, reported as the suite (abba.suite/1); its formats are the table, --json, --export-json and --export-markdown (or --cross-class for one table of every variant)",
            e.file
        )));
    }
    let mut e = e.clone();
    if let Some(m) = metric {
        // --metric over every benchmark, as `abba suite --metric` overrides the file.
        e.on_suite_metric(m);
    }
    let config = analysis_config_for(&args.analysis, seed, Some(&e.header.metric))?;
    let suite_config = SuiteConfig::new(config, Correction::BenjaminiHochberg);
    let analysed = bench_sched::analyze_suite_experiment(&e, &suite_config)
        .map_err(|err| usage(format!("{}: {err}", e.file)))?;
    for w in analysed.warnings.iter().filter(|_| !a.quiet) {
        crate::core::stdio::stderr_line(format_args!("abba: note: {}", w.message));
    }
    let report = &analysed.report;
    let docs = SuiteDocuments::with_noise(report, "", crate::core::words::remedy_text);
    for (flag, path, format) in [
        ("--export-json", &a.export_json, SuiteFormat::Json),
        (
            "--export-markdown",
            &a.export_markdown,
            SuiteFormat::Markdown,
        ),
    ] {
        if let Some(path) = path {
            docs.render(format)
                .and_then(|t| crate::core::ci::write_export(path, t.as_bytes()))
                .map_err(|err| usage(format!("{flag}: {err}")))?;
        }
    }
    if a.json {
        crate::core::output::write_stdout(&docs.json()?)?;
    } else {
        let width = a.width.or_else(crate::core::stdio::terminal_width);
        crate::core::output::write_stdout(&docs.console(width))?;
    }
    let gates = SuiteGates {
        default: a.fail_if_slower.map(Gate::new),
        ..SuiteGates::default()
    };
    let checked = gates.check(report).into_iter();
    let tripped = crate::core::ci::say_gates(checked.map(|g| g.regressions_only()));
    Ok(Some((u8::from(tripped), analysed, suite_config)))
}
