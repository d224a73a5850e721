//! `abba suite`: every benchmark of a suite file compared between its variants (a base and
//! one or more candidate builds) in one interleaved experiment, one table for the suite,
//! significance controlled across it, and the outputs CI shows. The session (picking,
//! planning, the stop rule, the merge of shards, the analysis) is `bench-sched`'s
//! ([`SuiteSession`]), the gate `bench-stats`', the documents `bench-report`'s, the record
//! `bench-history`'s: this command turns the flags into a [`SuiteRequest`], runs, and
//! writes.

use std::path::{Path, PathBuf};

use bench_report::{SuiteDocuments, SuiteFormat, counted};
use bench_sched::{
    Experiment, ExperimentConfig, FailurePolicy, GateRequest, InterruptFlag, OutputMode,
    RealRunner, Shell, StopRequest, SuiteError, SuitePlan, SuiteRequest, SuiteSession, SuiteSpec,
};
use bench_stats::AnalysisConfig;
use bench_stats::suite::{Correction, SuiteConfig};

use crate::args::suite::SuiteArgs;
use crate::core::exit::{Exit, usage};
use crate::core::output::write_stdout;
use crate::core::raw_output::{RawOutput, naming_raw_file, open_raw, quoted};
use crate::core::record::Recording;
use crate::core::stdio::{stderr_line, terminal_width};

/// A suite's refusal in the CLI's words (exit 2).
fn refused(e: &SuiteError) -> anyhow::Error {
    usage(e.to_string_with(crate::core::words::sched_error_text))
}

/// `abba suite`.
pub fn run(args: SuiteArgs) -> anyhow::Result<u8> {
    if !args.merge.is_empty() {
        return merge(&args);
    }
    let mut spec = SuiteSpec::read(&args.file).map_err(|e| refused(&e))?;
    spec.override_variants(&args.stop.variant)
        .map_err(|e| refused(&e))?;
    let session =
        SuiteSession::open(&spec, &args.only, args.resume.as_deref()).map_err(|e| refused(&e))?;
    if args.list {
        let held = |name: &str| args.shard.is_none_or(|s| s.holds(name));
        let text =
            bench_report::render_suite_listing(&spec.variant_names(), &session.listing(held));
        return write_stdout(&text).map(|()| 0);
    }
    let plan = session
        .plan(request(&args)?, crate::core::analysis::fresh_seed)
        .map_err(|e| refused(&e))?;
    if let Some(id) = &args.comment_id {
        bench_report::check_comment_id(id).map_err(usage)?;
    }
    crate::core::run::check_run_count(
        &plan.config,
        "--blocks (or runs-per-block in the suite file)",
    )?;
    let (analysis, correction, gates) = (plan.analysis, plan.correction, plan.gates);
    let config = sharded(&args, plan.config)?;
    // --record's commit and history are settled now, not after the experiment.
    let recording = crate::core::record::prepare(&args.record, "suite")?;
    before_running(&args, &config, &analysis, recording.as_ref())?;
    let out = RawOutput {
        path: args.output.as_deref(),
        force: args.force,
        quiet: args.quiet,
        resume_command: format!("abba suite {} --resume", quoted(&args.file)),
    };
    if args.dry_run {
        return dry_run(&out, &config);
    }
    let ctx = Report {
        analysis: &analysis,
        correction,
        gates: &gates,
    };
    if let Some(point) = config.complete_resume() {
        // Nothing runs and no line is added; its report is made again from the file
        // (`--record` does not record it a second time).
        point.check(&config).map_err(|e| usage(e.to_string()))?;
        if !args.quiet {
            let note = bench_report::render_complete_resume(point.path(), recording.is_some());
            stderr_line(format_args!("abba: note: {note}"));
        }
        let raw = bench_sched::read_raw(point.path()).map_err(|e| usage(e.to_string()))?;
        return report(&args, raw, point.path(), &ctx, None);
    }
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    let (writer, raw_path, temporary) = open_raw(&out, &config)?;
    if !args.quiet && !args.json {
        let benchmarks = config.suite.as_ref().map_or(0, |s| s.benchmarks.len());
        let (until, seed) = (config.until.is_some(), config.seed);
        let sizes = (benchmarks, spec.variant_names().len());
        let line = bench_report::render_suite_start(sizes, config.blocks, until, seed, &raw_path);
        stderr_line(format_args!("{line}"));
    }
    let resume_hint = |signal| {
        format!(
            "interrupted by signal {signal}; the raw runs so far are kept in {}; continue with: abba suite {} --resume {}",
            raw_path.display(),
            quoted(&args.file),
            quoted(&raw_path)
        )
    };
    let experiment = crate::core::run::execute(&config, &stop, writer, &raw_path, args.quiet)
        .map_err(|e| match e.downcast_ref::<Exit>() {
            // The hint of an interrupted suite names `abba suite`, not `abba compare`.
            Some(Exit::Interrupted { signal, .. }) => anyhow::Error::new(Exit::Interrupted {
                signal: *signal,
                message: resume_hint(*signal),
            }),
            _ => e,
        })?;
    if config.variants.is_empty() {
        // An empty shard: its file records that it ran; there is nothing to report.
        return Ok(0);
    }
    // From now on (the runs done), a signal during the analysis ends abba with its code, as
    // compare does, naming the complete raw file.
    crate::core::exit::exit_on_signal_from_now(
        &stop,
        format!(
            "the raw runs are complete in {} (abba suite {} --resume {} reports them)",
            raw_path.display(),
            quoted(&args.file),
            quoted(&raw_path)
        ),
    );
    let code = report(&args, experiment, &raw_path, &ctx, recording.as_ref())
        .map_err(|e| naming_raw_file(e, &raw_path))?;
    if temporary {
        let _ = std::fs::remove_file(&raw_path);
    } else if !args.quiet && !args.json {
        stderr_line(format_args!("raw runs: {}", raw_path.display()));
    }
    Ok(code)
}

/// `--dry-run`: the first blocks' orders, after every check the real run makes, before
/// any file is created.
fn dry_run(out: &RawOutput<'_>, config: &ExperimentConfig) -> anyhow::Result<u8> {
    if let Some(point) = &config.resume {
        point.check(config).map_err(|e| usage(e.to_string()))?;
    }
    crate::core::raw_output::check_output(out, config)?;
    let orders = config.block_orders(3);
    let runs = config.schedule().runs.len();
    let text = bench_report::render_suite_dry_run(&orders, config.blocks, config.seed, runs);
    write_stdout(&text).map(|()| 0)
}

/// The flags as the session's request: the settings over the file's, the stop rule, the
/// analysis, the correction and the gates.
fn request(args: &SuiteArgs) -> anyhow::Result<SuiteRequest> {
    let mut r = SuiteRequest::default();
    let o = &mut r.options;
    if let Some(text) = &args.shell {
        o.shell = Some(
            text.parse::<Shell>()
                .map_err(|_| usage(format!("--shell {text:?}: expected none or sh")))?,
        );
    }
    if args.timeout.is_some_and(|t| t.is_zero()) {
        return Err(usage("--timeout must be longer than 0"));
    }
    (o.blocks, o.warmup, o.timeout) = (args.blocks, args.warmup, args.timeout);
    (o.runs_per_block, o.time_budget) = (args.runs_per_block, args.stop.time_budget);
    o.output = match (args.show_output, args.json) {
        (true, true) => OutputMode::ShowOnStderr,
        (true, false) => OutputMode::Show,
        (false, _) => OutputMode::Discard,
    };
    if args.ignore_failure {
        o.on_failure = FailurePolicy::Ignore;
    }
    if let Some(m) = &args.metric {
        o.metric = Some(bench_sched::suite_metric(m).map_err(|e| usage(format!("--metric: {e}")))?);
    }
    r.seed = args.seed;
    r.stop = StopRequest {
        until: args.stop.until.is_some(),
        max_blocks: args.stop.max_blocks,
        min_blocks: args.stop.min_blocks,
    };
    r.correction = Correction::from_name(&args.suite_correction).ok_or_else(|| {
        usage(format!(
            "--suite-correction {:?}: expected bh, holm or none",
            args.suite_correction
        ))
    })?;
    crate::core::analysis::check_alpha(args.alpha)?;
    r.analysis = AnalysisConfig {
        alpha: args.alpha,
        confidence: 1.0 - args.alpha,
        resamples: args.resamples,
        baseline: args.baseline.clone(),
        equivalence_margin: args.equivalence_margin,
        paired_estimator: args
            .estimator
            .unwrap_or(AnalysisConfig::default().paired_estimator),
        progress: crate::core::progress::AnalysisBar::hook(args.quiet),
        ..AnalysisConfig::default()
    };
    for v in &args.fail_if_slower {
        let gate =
            GateRequest::parse(v).map_err(|e| usage(format!("--fail-if-slower {v}: {e}")))?;
        r.gates.push(gate);
    }
    Ok(r)
}

/// `--shard K/N`: the shard's share of the suite's experiment, its raw file and seed
/// required (the merge reads the one and compares the other), or the experiment unchanged
/// without the flag. A resumed shard is already one (its file's benchmarks).
fn sharded(args: &SuiteArgs, config: ExperimentConfig) -> anyhow::Result<ExperimentConfig> {
    let Some(shard) = args.shard else {
        return Ok(config);
    };
    if args.output.is_none() && !args.dry_run {
        return Err(usage(format!(
            "--shard {shard}: give --output FILE.jsonl, the shard's raw file that abba suite --merge reads with the other shards'"
        )));
    }
    if args.seed.is_none() && !args.dry_run {
        return Err(usage(format!(
            "--shard {shard}: give --seed N, the same in every shard (the merge refuses shards of different seeds)"
        )));
    }
    let total = config.suite.as_ref().map_or(0, |s| s.benchmarks.len());
    let config = config.into_shard(shard, bench_history::git::revision());
    if !args.quiet && !args.json {
        let held: Vec<&str> = config
            .suite
            .iter()
            .flat_map(|s| &s.benchmarks)
            .map(|b| b.name.as_str())
            .collect();
        let note = bench_report::render_shard_note(&shard.to_string(), &held, total);
        stderr_line(format_args!("{note}"));
    }
    Ok(config)
}

/// Everything checked and said before anything runs (`--dry-run` included): the exports
/// and the step summary, the programs, the warnings of a rate unit and of too few blocks
/// ([`bench_report::render_too_few_blocks`]).
fn before_running(
    args: &SuiteArgs,
    config: &ExperimentConfig,
    analysis: &AnalysisConfig,
    recording: Option<&Recording>,
) -> anyhow::Result<()> {
    check_exports(args, Some(config), recording)?;
    for b in config.suite.iter().flat_map(|s| &s.benchmarks) {
        // As compare warns of `--unit` (M11 of issue 26): a unit that looks like a rate
        // while lower values count as better, named by benchmark.
        let unit = b
            .unit
            .as_deref()
            .or(config.unit.as_deref().filter(|_| b.metric.is_none()));
        let given = format!("benchmark {:?}: unit", b.name);
        let at = bench_report::UnitSetting {
            given: &given,
            direction: "higher-is-better = true",
            place: " to its [[benchmark]] (or [settings]) in the suite file",
        };
        crate::core::checks::warn_rate_unit_of(unit, b.higher_is_better_in(config), at);
    }
    let warning = bench_report::render_too_few_blocks(
        config.blocks as usize,
        config.suite_min_blocks(analysis),
        analysis.min_paired_blocks(),
        analysis.alpha,
        !args.fail_if_slower.is_empty(),
    );
    if let Some(w) = warning.filter(|_| !args.quiet) {
        stderr_line(format_args!("abba: warning: {w}"));
    }
    config
        .preflight(&mut RealRunner::new())
        .map_err(|e| usage(e.to_string()))
}

/// The export paths, checked before any run: each writable
/// ([`bench_report::paths::check_writable`]), and none may replace the suite file, the raw
/// runs, another export or the history `--record` writes (by device and inode, as compare
/// checks its own); nor may the raw runs replace the history.
fn check_exports(
    args: &SuiteArgs,
    config: Option<&ExperimentConfig>,
    recording: Option<&Recording>,
) -> anyhow::Result<()> {
    if let (Some(path), Some(config)) = (&args.export_github_benchmark, config) {
        if config.suite_mixes_directions() {
            return Err(usage(format!(
                "--export-github-benchmark {}: the suite mixes lower-is-better and higher-is-better benchmarks, and github-action-benchmark reads one direction per file; use --export-bmf, or export a subset with --only",
                path.display()
            )));
        }
    }
    if let Some(recording) = recording {
        recording.refuse_as_raw(&[
            ("--output", args.output.as_deref()),
            ("--resume", args.resume.as_deref()),
        ])?;
    }
    let exports: Vec<(&str, &Path)> = exports(args)
        .into_iter()
        .filter_map(|(flag, path, _)| path.as_deref().map(|p| (flag, p)))
        .collect();
    for (flag, path) in &exports {
        bench_report::paths::check_writable(flag, path).map_err(|e| usage(e.to_string()))?;
    }
    let mut kept = vec![crate::core::paths::Kept {
        role: "the suite file",
        path: &args.file,
    }];
    for (role, path) in [
        ("the raw runs' file --output", &args.output),
        ("the raw runs' file --resume", &args.resume),
    ] {
        if let Some(path) = path {
            kept.push(crate::core::paths::Kept { role, path });
        }
    }
    kept.extend(recording.map(Recording::kept));
    crate::core::paths::check_targets(&exports, args.json, &kept)?;
    if !args.no_step_summary {
        crate::core::paths::check_step_summary(&exports, &kept)?;
    }
    Ok(())
}

/// Each export flag of `args` with its path (when given) and its document.
fn exports(args: &SuiteArgs) -> [(&'static str, &Option<PathBuf>, SuiteFormat); 5] {
    [
        ("--export-json", &args.export_json, SuiteFormat::Json),
        (
            "--export-markdown",
            &args.export_markdown,
            SuiteFormat::Markdown,
        ),
        (
            "--export-pr-comment",
            &args.export_pr_comment,
            SuiteFormat::PrComment,
        ),
        ("--export-bmf", &args.export_bmf, SuiteFormat::Bmf),
        (
            "--export-github-benchmark",
            &args.export_github_benchmark,
            SuiteFormat::GithubBenchmark,
        ),
    ]
}

/// What the report of a suite's runs needs besides the runs: the analysis, the correction
/// across benchmarks and the gates.
struct Report<'a> {
    analysis: &'a AnalysisConfig,
    correction: Correction,
    gates: &'a bench_stats::analysis::SuiteGates,
}

/// After the runs, from the experiment they returned (the raw file is not read again):
/// the suite's one analysis ([`bench_sched::analyze_suite_run`], which `abba analyze` of
/// the raw file gives too), report, exports and gate; then `--record` keeps the experiment
/// with each benchmark's analysis as reported, and each wall-time benchmark's CPU-time
/// series beside it. A benchmark no block holds all the runs of (a variant failed every
/// run, with `--ignore-failure`) costs the others nothing: it is reported as failed,
/// naming the variant whose runs failed, after the others' report and exports, and abba
/// then exits 3.
fn report(
    args: &SuiteArgs,
    mut raw: Experiment,
    raw_path: &Path,
    ctx: &Report<'_>,
    recording: Option<&Recording>,
) -> anyhow::Result<u8> {
    // Messages name the file the runs are in, as a reader of it would.
    raw.file = raw_path.display().to_string();
    let data = bench_sched::suite_data(&raw);
    for w in data.warnings.iter().filter(|_| !args.quiet) {
        stderr_line(format_args!("abba: note: {}", w.message));
    }
    let failure = (!data.failed.is_empty())
        .then(|| bench_report::render_suite_failures(&data.failed, data.datasets.is_empty()));
    if data.datasets.is_empty() || (args.cross_class && failure.is_some()) {
        return Err(anyhow::Error::new(Exit::CommandFailed(
            failure.unwrap_or_default(),
        )));
    }
    let file = raw.file.clone();
    let settings = (ctx.analysis, ctx.correction);
    let hook = crate::core::record::crash_hook();
    if args.cross_class {
        let code = cross_class(args, ctx.analysis, &raw)?;
        // The history keeps each benchmark's own analysis, which the one cross-class
        // table does not make: made by the library, once, from the runs in memory.
        crate::core::record::after(recording, &file, args.quiet, |r| {
            r.record_analysing(&mut raw, raw_path, settings, hook)
        })?;
        return Ok(code);
    }
    let suite_config = SuiteConfig::new(ctx.analysis.clone(), ctx.correction);
    let analysed = bench_sched::analyze_suite_run(&raw, data, &suite_config, args.stop.time_budget)
        .map_err(|e| usage(e.to_string()))?;
    let id = args
        .comment_id
        .clone()
        .unwrap_or_else(|| raw.header.experiment_id());
    let docs = SuiteDocuments::with_noise(&analysed.report, id, crate::core::words::remedy_text);
    let failed = write_exports(args, |f| docs.render(f), &docs.step_summary());
    if args.json {
        write_stdout(&docs.json()?)?;
    } else {
        write_stdout(&docs.console(terminal_width()))?;
    }
    // As compare's gate: a regression trips it, and so does a comparison no test could
    // decide (too few blocks), which never passes silently.
    let tripped = crate::core::ci::say_gates(ctx.gates.check(&analysed.report));
    if !failed.is_empty() {
        return Err(usage(failed.join("\n")));
    }
    // Each benchmark's analysis as reported, and each wall-time benchmark's CPU-time
    // series beside it (`history show --metric cpu` needs no rerun), as compare's is.
    crate::core::record::after(recording, &file, args.quiet, |r| {
        r.record_suite(&mut raw, raw_path, &analysed, settings, hook)
    })?;
    match failure {
        Some(text) => Err(anyhow::Error::new(Exit::CommandFailed(text))),
        None => Ok(u8::from(tripped)),
    }
}

/// `--cross-class`: every variant of every benchmark in one table with a class column
/// ([`bench_sched::cross_class_analysis`]).
fn cross_class(
    args: &SuiteArgs,
    analysis: &AnalysisConfig,
    raw: &Experiment,
) -> anyhow::Result<u8> {
    let result =
        bench_sched::cross_class_analysis(raw, analysis).map_err(|e| usage(e.to_string()))?;
    // The exports the one table has (the PR comment, BMF, github-action-benchmark and the
    // gate are per benchmark: refused with --cross-class before anything ran).
    let json = bench_report::render_json(&result).map_err(|e| e.to_string());
    let markdown = bench_report::render_markdown(&result);
    let failed = write_exports(
        args,
        |format| match format {
            SuiteFormat::Json => json.clone(),
            SuiteFormat::Markdown => Ok(markdown.clone()),
            SuiteFormat::PrComment | SuiteFormat::Bmf | SuiteFormat::GithubBenchmark | _ => {
                Err("refused with --cross-class".to_owned())
            }
        },
        &markdown,
    );
    if args.json {
        write_stdout(&json.map_err(anyhow::Error::msg)?)?;
    } else {
        let mut options = bench_report::RenderOptions::default();
        options.width = terminal_width();
        write_stdout(&bench_report::render_console(&result, &options))?;
    }
    if !failed.is_empty() {
        return Err(usage(failed.join("\n")));
    }
    Ok(0)
}

/// Writes each export asked for (its document made by `document`) and the step summary
/// ([`step_summary`]). Returns what failed, each naming its flag.
fn write_exports(
    args: &SuiteArgs,
    document: impl Fn(SuiteFormat) -> Result<String, String>,
    summary: &str,
) -> Vec<String> {
    let mut failed = Vec::new();
    for (flag, path, format) in exports(args) {
        let Some(path) = path else { continue };
        let written =
            document(format).and_then(|t| crate::core::ci::write_export(path, t.as_bytes()));
        failed.extend(written.err().map(|e| format!("{flag}: {e}")));
    }
    failed.extend(step_summary(args, summary));
    failed
}

/// Unless `--no-step-summary` or an export feeds it, appends `summary` to
/// `$GITHUB_STEP_SUMMARY`; the failure, naming it.
fn step_summary(args: &SuiteArgs, summary: &str) -> Option<String> {
    let exports: Vec<(&str, &Path)> = exports(args)
        .into_iter()
        .filter_map(|(flag, path, _)| path.as_deref().map(|p| (flag, p)))
        .collect();
    if args.no_step_summary || crate::core::paths::step_summary_fed_by(&exports) {
        return None;
    }
    crate::core::ci::append_step_summary(summary)
        .err()
        .map(|e| format!("$GITHUB_STEP_SUMMARY: {e}"))
}

/// `--merge FILE...`: the shards' raw files as the whole suite's experiment
/// ([`SuitePlan::merged`]: exit 2 naming the files of other suites, revisions or seeds, a
/// shard given twice, or the missing shards), reported as a suite run at once with the
/// shards' seed.
fn merge(args: &SuiteArgs) -> anyhow::Result<u8> {
    let mut parts = Vec::with_capacity(args.merge.len());
    for path in &args.merge {
        parts.push(bench_sched::read_raw(path).map_err(|e| usage(format!("--merge: {e}")))?);
    }
    let shards = parts.len();
    let (merged, analysis, correction, gates) =
        SuitePlan::merged(parts, request(args)?).map_err(|e| refused(&e))?;
    let recording = crate::core::record::prepare(&args.record, "suite")?;
    check_exports(args, None, recording.as_ref())?;
    if !args.quiet && !args.json {
        stderr_line(format_args!(
            "abba suite: {} merged from {}, seed {}",
            counted(merged.header.suite.len(), "benchmark"),
            counted(shards, "shard file"),
            merged.header.seed
        ));
    }
    let label = PathBuf::from(merged.file.clone());
    let ctx = Report {
        analysis: &analysis,
        correction,
        gates: &gates,
    };
    report(args, merged, &label, &ctx, recording.as_ref())
}
