//! `abba suite`: every benchmark of a suite file compared between its variants (a base and
//! one or more candidate builds) in one interleaved experiment, one table for the suite,
//! significance controlled across it, and the outputs CI shows. The suite's plan, stop
//! rule, merge and analysis are `bench-sched`'s, its gate `bench-stats`'s, its documents
//! `bench-report`'s: this command turns the flags into their settings, runs, and writes.

use std::path::{Path, PathBuf};

use bench_history::Analysed;
use bench_report::{SuiteDocuments, counted, render_gate};
use bench_sched::{
    BenchmarkEntry, Experiment, ExperimentConfig, FailurePolicy, InterruptFlag, OutputMode,
    RealRunner, ResumePoint, Shell, StopRequest, SuiteError, SuiteOptions, SuiteSpec,
};
use bench_stats::analysis::SuiteGates;
use bench_stats::suite::{Correction, SuiteConfig, SuiteReport};
use bench_stats::{AnalysisConfig, Grouping};

use crate::args::suite::SuiteArgs;
use crate::core::analysis::fresh_seed;
use crate::core::exit::{Exit, usage};
use crate::core::output::write_stdout;
use crate::core::raw_output::{RawOutput, naming_raw_file, open_raw};
use crate::core::record::Recording;
use crate::core::run::execute;
use crate::core::stdio::{stderr_line, terminal_width};
use crate::core::words::sched_error_text;

/// A suite file's error in the CLI's words (exit 2).
fn suite_error(e: &SuiteError) -> anyhow::Error {
    usage(e.to_string_with(sched_error_text))
}

/// What the report of a suite's runs needs besides the runs: the analysis, the correction
/// across benchmarks, the gates and the raw file the runs are in.
struct Report<'a> {
    analysis: &'a AnalysisConfig,
    correction: Correction,
    gates: &'a SuiteGates,
    raw_path: &'a Path,
}

/// `abba suite`.
pub fn run(mut args: SuiteArgs) -> anyhow::Result<u8> {
    if !args.merge.is_empty() {
        return merge(&args);
    }
    let mut spec = SuiteSpec::read(&args.file).map_err(|e| suite_error(&e))?;
    override_variants(&mut spec, &args.stop.variant)?;
    let (resume, picked) = resumed_and_picked(&args, &spec)?;
    if args.list {
        let shown: Vec<&BenchmarkEntry> = picked
            .iter()
            .copied()
            .filter(|e| args.shard.is_none_or(|s| s.holds(e.name.get_ref())))
            .collect();
        return list(&spec, &shown);
    }
    let seed = seed_of(&args, resume.as_ref())?;
    if args.blocks.is_none() {
        args.blocks = resume.as_ref().map(|p| p.header().blocks);
    }
    let (config, analysis, correction, gates) = plan(&args, &spec, &picked, resume, seed)?;
    let config = sharded(&args, config)?;
    // --record's commit and history are settled now, not after the experiment.
    let recording = crate::core::record::prepare(&args.record, "suite")?;
    before_running(&args, &config, &analysis, recording.as_ref())?;
    let out = raw_output(&args);
    if args.dry_run {
        // After every check the real run makes, before any file is created.
        if let Some(point) = &config.resume {
            point.check(&config).map_err(|e| usage(e.to_string()))?;
        }
        crate::core::raw_output::check_output(&out, &config)?;
        let orders = config.block_orders(3);
        let runs = config.schedule().runs.len();
        let text = bench_report::render_suite_dry_run(&orders, config.blocks, config.seed, runs);
        return write_stdout(&text).map(|()| 0);
    }
    if let Some(point) = config
        .resume
        .as_ref()
        .filter(|_| !config.variants.is_empty())
        .filter(|p| p.completed_runs() >= config.schedule().runs.len() && !p.extends(&config))
    {
        let ctx = Report {
            analysis: &analysis,
            correction,
            gates: &gates,
            raw_path: point.path(),
        };
        return report_complete(&args, &config, &ctx, recording.is_some());
    }
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    let (writer, raw_path, temporary) = open_raw(&out, &config)?;
    if !args.quiet && !args.json {
        let blocks = counted(config.blocks as usize, "block");
        stderr_line(format_args!(
            "abba suite: {} x {} variants, {}, seed {}; raw runs in {}",
            counted(
                config.suite.as_ref().map_or(0, |s| s.benchmarks.len()),
                "benchmark"
            ),
            spec.variant_names().len(),
            match &config.until {
                Some(_) => format!("each benchmark until decided, at most {blocks}"),
                None => blocks,
            },
            config.seed,
            raw_path.display()
        ));
    }
    let experiment = execute(&config, &stop, writer, &raw_path, args.quiet)
        .map_err(|e| suite_hint(e, &args.file, &raw_path))?;
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
            quote(&args.file),
            quote(&raw_path)
        ),
    );
    let ctx = Report {
        analysis: &analysis,
        correction,
        gates: &gates,
        raw_path: &raw_path,
    };
    let code = report(&args, experiment, &ctx, recording.as_ref())
        .map_err(|e| naming_raw_file(e, &raw_path))?;
    if temporary {
        let _ = std::fs::remove_file(&raw_path);
    } else if !args.quiet && !args.json {
        stderr_line(format_args!("raw runs: {}", raw_path.display()));
    }
    Ok(code)
}

/// `--variant NAME=VALUE`: each replaces a value of the file's `[variants]`.
fn override_variants(spec: &mut SuiteSpec, values: &[String]) -> anyhow::Result<()> {
    for v in values {
        let Some((name, value)) = v.split_once('=') else {
            return Err(usage(format!(
                "--variant {v:?}: expected NAME=VALUE (a name of the suite's [variants]: {})",
                spec.variant_names().join(", ")
            )));
        };
        spec.set_variant(name.trim(), value)
            .map_err(|e| usage(format!("--variant {v}: {e}")))?;
    }
    Ok(())
}

/// A path quoted for a shell command line.
fn quote(path: &Path) -> String {
    shell_words::quote(&path.display().to_string()).into_owned()
}

/// The experiment of the picked benchmarks (the flags over the file's settings), its
/// analysis, the correction across benchmarks and the gates.
fn plan(
    args: &SuiteArgs,
    spec: &SuiteSpec,
    picked: &[&BenchmarkEntry],
    resume: Option<ResumePoint>,
    seed: u64,
) -> anyhow::Result<(ExperimentConfig, AnalysisConfig, Correction, SuiteGates)> {
    let shell = match args.shell.as_deref() {
        Some(text) => Some(
            text.parse::<Shell>()
                .map_err(|_| usage(format!("--shell {text:?}: expected none or sh")))?,
        ),
        None => None,
    };
    if args.timeout.is_some_and(|t| t.is_zero()) {
        return Err(usage("--timeout must be longer than 0"));
    }
    let mut options = SuiteOptions::default();
    options.blocks = args.blocks;
    options.warmup = args.warmup;
    options.timeout = args.timeout;
    options.shell = shell;
    options.seed = seed;
    options.output = match (args.show_output, args.json) {
        (true, true) => OutputMode::ShowOnStderr,
        (true, false) => OutputMode::Show,
        (false, _) => OutputMode::Discard,
    };
    options.on_failure = if args.ignore_failure {
        FailurePolicy::Ignore
    } else {
        FailurePolicy::Stop
    };
    options.metric = match &args.metric {
        Some(m) => Some(bench_sched::suite_metric(m).map_err(|e| usage(format!("--metric: {e}")))?),
        None => None,
    };
    options.runs_per_block = args.runs_per_block;
    let stop = StopRequest {
        until: args.stop.until.is_some(),
        max_blocks: args.stop.max_blocks,
        min_blocks: args.stop.min_blocks,
    };
    options.until = bench_sched::suite_stop_rule(
        stop,
        resume.as_ref().map(ResumePoint::header),
        args.alpha,
        args.equivalence_margin,
        Correction::from_name(&args.suite_correction).unwrap_or_default(),
        picked.len(),
    )
    .map_err(|e| stop_rule_error(&e, args, picked.len()))?;
    options.resume = resume;
    options.time_budget = match args.stop.time_budget {
        Some(t) if t.is_zero() => {
            return Err(usage(
                "--time-budget must be longer than 0 (e.g. `30s`, `5min`)",
            ));
        }
        other => other,
    };
    let config = spec
        .experiment(picked, options)
        .map_err(|e| suite_error(&e))?;
    if let Some(id) = &args.comment_id {
        bench_report::check_comment_id(id).map_err(usage)?;
    }
    let names: Vec<&str> = picked.iter().map(|e| e.name.get_ref().as_str()).collect();
    let gates = gates(&args.fail_if_slower, &names)?;
    let (analysis, correction) = suite_analysis(args, &spec.variant_names(), seed)?;
    crate::core::run::check_run_count(&config, "--blocks (or runs-per-block in the suite file)")?;
    Ok((config, analysis, correction, gates))
}

/// The stop rule's refusal in the flags' words (exit 2).
fn stop_rule_error(e: &SuiteError, args: &SuiteArgs, benchmarks: usize) -> anyhow::Error {
    match e {
        SuiteError::StopRuleOnFixedResume => usage(
            "--until decided: the file to --resume ran a fixed number of blocks; resume it without --until (or give --blocks to extend it)",
        ),
        SuiteError::CannotDecide {
            max_blocks,
            level,
            needed,
        } => {
            let alpha = args.alpha;
            let over = if benchmarks > 1 && *level < alpha {
                format!("--alpha {alpha} over {benchmarks} benchmarks")
            } else {
                format!("--alpha {alpha}")
            };
            usage(format!(
                "--max-blocks {max_blocks}: each benchmark's sequence runs at level {level} ({over}) and cannot decide before {needed} blocks: give --max-blocks {needed} or more"
            ))
        }
        SuiteError::Read { .. }
        | SuiteError::At { .. }
        | SuiteError::File { .. }
        | SuiteError::Command { .. }
        | SuiteError::Config(_)
        | SuiteError::Invalid(_)
        | _ => suite_error(e),
    }
}

/// `--fail-if-slower [NAME=]PCT`: a default and per-benchmark thresholds, each name one of
/// the suite's benchmarks (`names`).
fn gates(values: &[String], names: &[&str]) -> anyhow::Result<SuiteGates> {
    let mut gates = SuiteGates::default();
    for v in values {
        let (name, pct) = match v.split_once('=') {
            Some((n, p)) => (Some(n.trim()), p),
            None => (None, v.as_str()),
        };
        let pct = crate::args::parse::parse_percent(pct)
            .map_err(|e| usage(format!("--fail-if-slower {v}: {e}")))?;
        if let Some(n) = name.filter(|n| !names.contains(n)) {
            return Err(usage(format!(
                "--fail-if-slower {v}: no benchmark {n:?} in the suite (it has: {})",
                names.join(", ")
            )));
        }
        gates.set(name, pct);
    }
    Ok(gates)
}

/// The analysis of a suite's benchmarks (`--alpha`, `--baseline`, ...) and the correction
/// across them (`--suite-correction`).
fn suite_analysis(
    args: &SuiteArgs,
    variants: &[&str],
    seed: u64,
) -> anyhow::Result<(AnalysisConfig, Correction)> {
    if let Some(b) = args
        .baseline
        .as_ref()
        .filter(|b| !variants.contains(&b.as_str()))
    {
        return Err(usage(format!(
            "--baseline {b:?} is not one of the suite's variants ({})",
            variants.join(", ")
        )));
    }
    crate::core::analysis::check_alpha(args.alpha)?;
    let correction = Correction::from_name(&args.suite_correction).ok_or_else(|| {
        usage(format!(
            "--suite-correction {:?}: expected bh, holm or none",
            args.suite_correction
        ))
    })?;
    let analysis = AnalysisConfig {
        alpha: args.alpha,
        confidence: 1.0 - args.alpha,
        resamples: args.resamples,
        seed,
        baseline: args.baseline.clone(),
        equivalence_margin: args.equivalence_margin,
        paired_estimator: args
            .estimator
            .unwrap_or(AnalysisConfig::default().paired_estimator),
        progress: crate::core::progress::AnalysisBar::hook(args.quiet),
        ..AnalysisConfig::default()
    };
    analysis.validate().map_err(|e| usage(format!("--{e}")))?;
    Ok((analysis, correction))
}

/// The seed of the run: the resumed file's (a `--seed` other than it is refused), else
/// `--seed`, else a fresh one.
fn seed_of(args: &SuiteArgs, resume: Option<&ResumePoint>) -> anyhow::Result<u64> {
    let Some(point) = resume else {
        return Ok(args.seed.unwrap_or_else(fresh_seed));
    };
    let recorded = point.header().seed;
    if let Some(given) = args.seed.filter(|s| *s != recorded) {
        return Err(usage(format!(
            "--seed {given} with --resume {}: the file's suite was planned with seed {recorded}, and a resumed suite keeps it; leave out --seed",
            point.path().display()
        )));
    }
    Ok(recorded)
}

/// The `--resume` point, if any, and the benchmarks to run: a resumed suite runs the
/// benchmarks its file recorded, a fresh one those `--only` picks.
fn resumed_and_picked<'s>(
    args: &SuiteArgs,
    spec: &'s SuiteSpec,
) -> anyhow::Result<(Option<ResumePoint>, Vec<&'s BenchmarkEntry>)> {
    let resume = args
        .resume
        .as_deref()
        .map(ResumePoint::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    let only: Vec<String> = match &resume {
        Some(point) => point
            .header()
            .suite
            .iter()
            .map(|b| b.name.clone())
            .collect(),
        None => args.only.clone(),
    };
    let picked = spec.pick(&only);
    if picked.is_empty() {
        return Err(usage(format!(
            "--only {}: no benchmark matches (the suite has: {})",
            only.join(" "),
            spec.benchmark_names().join(", ")
        )));
    }
    Ok((resume, picked))
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
    // The revision a shard runs on: the git commit here, else `$GITHUB_SHA`.
    let revision = bench_history::git::describe("HEAD")
        .map(|c| c.sha)
        .or_else(|| std::env::var("GITHUB_SHA").ok().filter(|s| !s.is_empty()));
    let config = config.into_shard(shard, revision);
    if !args.quiet && !args.json {
        let held: Vec<&str> = config
            .suite
            .iter()
            .flat_map(|s| &s.benchmarks)
            .map(|b| b.name.as_str())
            .collect();
        stderr_line(format_args!(
            "abba suite: shard {shard} holds {} of the suite's {total}{}{}; its correction covers only these: merge every shard's raw file with abba suite --merge for the suite's verdicts",
            held.len(),
            if held.is_empty() { "" } else { ": " },
            held.join(", ")
        ));
    }
    Ok(config)
}

/// Everything checked and said before anything runs (`--dry-run` included): the exports
/// and the step summary, the programs, the warnings of a rate unit and of too few blocks.
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
        crate::core::checks::warn_rate_unit_of(
            unit,
            b.higher_is_better_in(config),
            &format!("benchmark {:?}: unit", b.name),
            "higher-is-better = true",
            " to its [[benchmark]] (or [settings]) in the suite file",
        );
    }
    warn_too_few_blocks(
        config,
        analysis,
        !args.fail_if_slower.is_empty(),
        args.quiet,
    );
    config
        .preflight(&mut RealRunner::new())
        .map_err(|e| usage(e.to_string()))
}

/// Blocks below the fewest with which some benchmark's paired test can reach alpha at all
/// are run anyway (a smoke test), with a warning now, before the runs, as compare gives:
/// the report will say "not tested", and a `--fail-if-slower` gate then fails.
fn warn_too_few_blocks(
    config: &ExperimentConfig,
    analysis: &AnalysisConfig,
    gated: bool,
    quiet: bool,
) {
    let needed = config.suite_min_blocks(analysis);
    let blocks = config.blocks as usize;
    if quiet || blocks >= needed {
        return;
    }
    let says = if blocks < analysis.min_paired_blocks() {
        "the report will say \"not tested\""
    } else {
        "no comparison can be significant, whatever the data"
    };
    let gate = if gated {
        "; --fail-if-slower then fails (exit 1), as it cannot rule a slowdown out"
    } else {
        ""
    };
    stderr_line(format_args!(
        "abba: warning: {} too few for a verdict: the paired test needs at least {needed} blocks at alpha {} (--blocks {needed}); {says}{gate}",
        if blocks == 1 {
            "1 block is".to_owned()
        } else {
            format!("{blocks} blocks are")
        },
        analysis.alpha
    ));
}

/// Where the raw runs go, and the command that resumes them.
fn raw_output(args: &SuiteArgs) -> RawOutput<'_> {
    RawOutput {
        path: args.output.as_deref(),
        force: args.force,
        quiet: args.quiet,
        resume_command: format!("abba suite {} --resume", quote(&args.file)),
    }
}

/// The resume hint of an interrupted suite names `abba suite`, not `abba compare`.
fn suite_hint(error: anyhow::Error, file: &Path, raw: &Path) -> anyhow::Error {
    match error.downcast_ref::<Exit>() {
        Some(Exit::Interrupted { signal, .. }) => anyhow::Error::new(Exit::Interrupted {
            signal: *signal,
            message: format!(
                "interrupted by signal {signal}; the raw runs so far are kept in {}; continue with: abba suite {} --resume {}",
                raw.display(),
                quote(file),
                quote(raw)
            ),
        }),
        _ => error,
    }
}

/// The export paths, checked before any run: their directories must exist, and none may
/// replace the suite file, the raw runs, another export or the history `--record` writes
/// (by device and inode, as compare checks its own: [`crate::core::paths::check_targets`]); nor
/// may the raw runs replace the history.
fn check_exports(
    args: &SuiteArgs,
    config: Option<&ExperimentConfig>,
    recording: Option<&Recording>,
) -> anyhow::Result<()> {
    if let (Some(path), Some(config)) = (&args.export_github_benchmark, config) {
        let benchmarks = config.suite.iter().flat_map(|s| &s.benchmarks);
        let (higher, lower): (Vec<bool>, Vec<bool>) = benchmarks
            .map(|b| b.higher_is_better_in(config))
            .partition(|h| *h);
        if !higher.is_empty() && !lower.is_empty() {
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
    let exports = export_paths(args);
    for (flag, path) in &exports {
        if !matches!(
            crate::core::paths::target(path),
            crate::core::paths::Target::File(_)
        ) {
            // Standard output, a descriptor, a device or a pipe: written in place.
            continue;
        }
        if path.is_dir() {
            return Err(usage(format!("{flag} {}: is a directory", path.display())));
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir.filter(|d| !d.is_dir()) {
            return Err(usage(format!(
                "{flag} {}: the directory {} does not exist",
                path.display(),
                dir.display()
            )));
        }
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

/// The export paths of `args`, each with its flag.
fn export_paths(args: &SuiteArgs) -> Vec<(&'static str, &Path)> {
    [
        ("--export-json", &args.export_json),
        ("--export-markdown", &args.export_markdown),
        ("--export-pr-comment", &args.export_pr_comment),
        ("--export-bmf", &args.export_bmf),
        ("--export-github-benchmark", &args.export_github_benchmark),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect()
}

/// `--list`: the picked benchmarks with their command for each variant.
fn list(spec: &SuiteSpec, picked: &[&BenchmarkEntry]) -> anyhow::Result<u8> {
    let variants = spec.file().variants.get_ref();
    let benchmarks: Vec<(&str, Vec<(&str, String)>)> = picked
        .iter()
        .map(|e| {
            let commands = variants
                .iter()
                .map(|(name, value)| {
                    let command = e.command.get_ref();
                    let expanded = bench_sched::expand_command(command, name, value.get_ref());
                    (name.as_str(), expanded)
                })
                .collect();
            (e.name.get_ref().as_str(), commands)
        })
        .collect();
    let text = bench_report::render_suite_listing(&spec.variant_names(), &benchmarks);
    write_stdout(&text).map(|()| 0)
}

/// `--resume` of a complete file: nothing runs and no line is added; its report is made
/// again from the file (`--record` does not record it a second time).
fn report_complete(
    args: &SuiteArgs,
    config: &ExperimentConfig,
    ctx: &Report<'_>,
    recording: bool,
) -> anyhow::Result<u8> {
    if let Some(point) = &config.resume {
        point.check(config).map_err(|e| usage(e.to_string()))?;
    }
    let path = ctx.raw_path;
    if !args.quiet {
        stderr_line(format_args!(
            "abba: note: --resume {}: the suite is complete (every planned run is in the file); nothing runs, its report follows{}",
            path.display(),
            if recording {
                " (--record: not recorded again)"
            } else {
                ""
            }
        ));
    }
    let raw = bench_sched::read_raw(path).map_err(|e| usage(e.to_string()))?;
    report(args, raw, ctx, None)
}

/// After the runs, from the experiment they returned (the raw file is not read again):
/// the suite's one analysis ([`bench_sched::analyze_suite_data`], which `abba analyze` of
/// the raw file gives too), report, exports and gate; then `--record` keeps the experiment
/// with each benchmark's analysis as reported, and each wall-time benchmark's CPU-time
/// series beside it. A benchmark no block holds all the runs of (a variant failed every
/// run, with `--ignore-failure`) costs the others nothing: it is reported as failed,
/// naming the variant whose runs failed, after the others' report and exports, and abba
/// then exits 3.
fn report(
    args: &SuiteArgs,
    mut raw: Experiment,
    ctx: &Report<'_>,
    recording: Option<&Recording>,
) -> anyhow::Result<u8> {
    let raw_path = ctx.raw_path;
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
    if args.cross_class {
        let code = cross_class(args, ctx.analysis, &raw)?;
        if recording.is_some() {
            // The history keeps each benchmark's own analysis, which the one cross-class
            // table does not make: made here, once, from the runs in memory.
            let analysed = bench_history::analyse(&raw, ctx.analysis, ctx.correction)
                .map_err(|e| usage(e.to_string()))?;
            let units: Vec<Analysed<'_>> = analysed.iter().map(|a| a.as_analysed()).collect();
            crate::core::record::record_after(recording, &mut raw, raw_path, &units, args.quiet)?;
        }
        return Ok(code);
    }
    let suite_config = SuiteConfig::new(ctx.analysis.clone(), ctx.correction);
    let bench_sched::SuiteAnalysis {
        mut report,
        datasets: list,
        ..
    } = bench_sched::analyze_suite_data(&raw, data, &suite_config)
        .map_err(|e| usage(e.to_string()))?;
    report.stop = bench_sched::suite_stop(&raw, args.stop.time_budget);
    let id = args
        .comment_id
        .clone()
        .unwrap_or_else(|| raw.header.experiment_id());
    let code = emit(args, &report, ctx.gates, &id)?;
    // Each wall-time benchmark's CPU-time series is kept beside it (`history show --metric
    // cpu` needs no rerun), as compare's is: the runs in memory read on CPU time.
    let twins = match recording {
        Some(_) => bench_history::suite_cpu_twins(&raw, ctx.analysis, ctx.correction),
        None => Vec::new(),
    };
    let units: Vec<Analysed<'_>> = report
        .benchmarks
        .iter()
        .zip(&list)
        .map(|(b, (name, dataset))| Analysed::suite_benchmark(name, dataset, &b.analysis))
        .chain(
            twins
                .iter()
                .map(bench_history::AnalysedBenchmark::as_analysed),
        )
        .collect();
    crate::core::record::record_after(recording, &mut raw, raw_path, &units, args.quiet)?;
    match failure {
        Some(text) => Err(anyhow::Error::new(Exit::CommandFailed(text))),
        None => Ok(code),
    }
}

/// `--cross-class`: every variant of every benchmark in one table with a class column.
fn cross_class(
    args: &SuiteArgs,
    analysis: &AnalysisConfig,
    raw: &Experiment,
) -> anyhow::Result<u8> {
    let loaded = raw.to_dataset();
    let config = AnalysisConfig {
        grouping: Grouping::CrossClass,
        ..analysis.clone()
    };
    let result =
        bench_stats::analyze(&loaded.dataset, &config).map_err(|e| usage(e.to_string()))?;
    // The exports the one table has (the PR comment, BMF, github-action-benchmark and the
    // gate are per benchmark: refused with --cross-class before anything ran).
    let json = bench_report::render_json(&result).map_err(|e| e.to_string());
    let markdown = bench_report::render_markdown(&result);
    let failed = write_exports(
        args,
        [
            ("--export-json", &args.export_json, json.clone()),
            (
                "--export-markdown",
                &args.export_markdown,
                Ok(markdown.clone()),
            ),
        ],
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

/// Writes each export asked for (`flag`, its path when given, its text or why there is
/// none) and, unless `--no-step-summary` or an export feeds it, appends `summary` to
/// `$GITHUB_STEP_SUMMARY`. Returns what failed, each naming its flag.
fn write_exports<const N: usize>(
    args: &SuiteArgs,
    exports: [(&str, &Option<PathBuf>, Result<String, String>); N],
    summary: &str,
) -> Vec<String> {
    let mut failed = Vec::new();
    for (flag, path, text) in exports {
        let Some(path) = path else { continue };
        let written = text.and_then(|t| crate::core::ci::write_export(path, t.as_bytes()));
        failed.extend(written.err().map(|e| format!("{flag}: {e}")));
    }
    if !args.no_step_summary && !crate::core::paths::step_summary_fed_by(&export_paths(args)) {
        if let Err(e) = crate::core::ci::append_step_summary(summary) {
            failed.push(format!("$GITHUB_STEP_SUMMARY: {e}"));
        }
    }
    failed
}

/// The suite's report printed and exported ([`SuiteDocuments`]), then each benchmark's
/// gate ([`SuiteGates::check`]): 1 when one trips.
fn emit(
    args: &SuiteArgs,
    report: &SuiteReport,
    gates: &SuiteGates,
    id: &str,
) -> anyhow::Result<u8> {
    // The suite's noise line in the CLI's words (issue 36), once per suite.
    let noise = bench_report::suite_noise_line(report).map(|line| match line.remedy {
        Some(r) => format!("{}{}", line.text, crate::core::words::remedy_text(r)),
        None => line.text,
    });
    let docs = SuiteDocuments::new(report, id, noise);
    let json = docs.json()?;
    // Mixed directions are refused before the runs; should the document still fail, the
    // report is printed first and the export named after it.
    let github = match &args.export_github_benchmark {
        Some(_) => docs.github_benchmark(),
        None => Ok(String::new()),
    };
    let bmf = args
        .export_bmf
        .as_ref()
        .map(|_| docs.bmf())
        .unwrap_or_default();
    let failed = write_exports(
        args,
        [
            ("--export-json", &args.export_json, Ok(json.clone())),
            (
                "--export-markdown",
                &args.export_markdown,
                Ok(docs.markdown()),
            ),
            (
                "--export-pr-comment",
                &args.export_pr_comment,
                Ok(docs.pr_comment()),
            ),
            ("--export-bmf", &args.export_bmf, Ok(bmf)),
            (
                "--export-github-benchmark",
                &args.export_github_benchmark,
                github,
            ),
        ],
        &docs.step_summary(),
    );
    if args.json {
        write_stdout(&json)?;
    } else {
        write_stdout(&docs.console(terminal_width()))?;
    }
    let mut tripped = false;
    // As compare's gate: a regression trips it, and so does a comparison no test could
    // decide (too few blocks), which never passes silently.
    for gate in gates.check(report) {
        tripped |= gate.tripped();
        for line in render_gate(&gate) {
            stderr_line(format_args!("abba: gate: {line}"));
        }
    }
    if !failed.is_empty() {
        return Err(usage(failed.join("\n")));
    }
    Ok(u8::from(tripped))
}

/// `--merge FILE...`: the shards' raw files as the whole suite's experiment
/// ([`bench_sched::merge_shards`]: exit 2 naming the files of other suites, revisions or
/// seeds, a shard given twice, or the missing shards), reported as a suite run at once
/// with the shards' seed.
fn merge(args: &SuiteArgs) -> anyhow::Result<u8> {
    let mut parts = Vec::with_capacity(args.merge.len());
    for path in &args.merge {
        parts.push(bench_sched::read_raw(path).map_err(|e| usage(e.to_string()))?);
    }
    let shards = parts.len();
    let merged = bench_sched::merge_shards(parts).map_err(|e| usage(e.to_string()))?;
    let names: Vec<&str> = merged
        .header
        .suite
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    let gates = gates(&args.fail_if_slower, &names)?;
    let variants = merged.header.suite_variant_names();
    let (analysis, correction) = suite_analysis(args, &variants, merged.header.seed)?;
    let recording = crate::core::record::prepare(&args.record, "suite")?;
    check_exports(args, None, recording.as_ref())?;
    if !args.quiet && !args.json {
        stderr_line(format_args!(
            "abba suite: {} merged from {}, seed {}",
            counted(names.len(), "benchmark"),
            counted(shards, "shard file"),
            merged.header.seed
        ));
    }
    let label = PathBuf::from(merged.file.clone());
    let ctx = Report {
        analysis: &analysis,
        correction,
        gates: &gates,
        raw_path: &label,
    };
    report(args, merged, &ctx, recording.as_ref())
}
