//! `abba suite`: every benchmark of a suite file compared between its variants (a base and
//! one or more candidate builds) in one interleaved experiment, one table for the suite,
//! significance controlled across it, and the outputs CI shows.

mod args;
pub(crate) mod file;

use std::path::{Path, PathBuf};

use bench_report::{SuiteMarkdown, render_suite_console, render_suite_markdown};
use bench_sched::{
    CommandSpec, Design, ExperimentConfig, FailurePolicy, Hooks, Identity, InterruptFlag, Layout,
    Metric, OutputMode, RealRunner, ResumePoint, Shell, Suite, SuiteBenchmark, Variant, read_raw,
};
use bench_stats::suite::{Correction, SuiteConfig, SuiteReport, analyze_suite};
use bench_stats::{AnalysisConfig, Dataset, Grouping};

pub use args::{SUITE_HELP, SuiteArgs};
use file::{BenchmarkEntry, SuiteFile};

use crate::compare::{execute, fresh_seed};
use crate::exit::{Exit, usage};
use crate::output::{stderr_line, write_stdout};
use crate::raw_output::{RawOutput, naming_raw_file, open_raw};
use crate::words::sched_error_text;

/// The schema of `abba suite --json`.
pub const SUITE_SCHEMA: &str = "abba.suite/1";

/// The most characters of a pull-request comment GitHub takes.
pub const PR_COMMENT_MAX: usize = 65_536;

/// The benchmarks picked from the file, with their position in it.
struct Picked<'a> {
    entries: Vec<&'a BenchmarkEntry>,
}

fn pick<'a>(file: &'a SuiteFile, only: &[String]) -> anyhow::Result<Picked<'a>> {
    let entries: Vec<&BenchmarkEntry> = file
        .benchmark
        .iter()
        .map(|b| b.get_ref())
        .filter(|b| only.is_empty() || only.iter().any(|g| file::glob(g, b.name.get_ref())))
        .collect();
    if entries.is_empty() {
        let names: Vec<&str> = file
            .benchmark
            .iter()
            .map(|b| b.get_ref().name.get_ref().as_str())
            .collect();
        return Err(usage(format!(
            "--only {}: no benchmark matches (the suite has: {})",
            only.join(" "),
            names.join(", ")
        )));
    }
    Ok(Picked { entries })
}

/// Everything the run needs, built from the file and the flags.
struct Plan {
    config: ExperimentConfig,
    analysis: AnalysisConfig,
    correction: Correction,
    gates: Gates,
}

/// `--fail-if-slower [NAME=]PCT`: a default and per-benchmark thresholds.
#[derive(Debug, Default)]
struct Gates {
    default: Option<f64>,
    by_name: Vec<(String, f64)>,
}

impl Gates {
    fn parse(values: &[String], names: &[&str]) -> anyhow::Result<Gates> {
        let mut gates = Gates::default();
        for v in values {
            let (name, pct) = match v.split_once('=') {
                Some((n, p)) => (Some(n.trim()), p),
                None => (None, v.as_str()),
            };
            let pct = crate::parse::parse_percent(pct)
                .map_err(|e| usage(format!("--fail-if-slower {v}: {e}")))?;
            match name {
                Some(n) if !names.contains(&n) => {
                    return Err(usage(format!(
                        "--fail-if-slower {v}: no benchmark {n:?} in the suite (it has: {})",
                        names.join(", ")
                    )));
                }
                Some(n) => gates.by_name.push((n.to_owned(), pct)),
                None => gates.default = Some(pct),
            }
        }
        Ok(gates)
    }

    fn of(&self, name: &str) -> Option<f64> {
        self.by_name
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, p)| *p)
            .or(self.default)
    }
}

fn shell_of(text: Option<&str>, flag: &str) -> anyhow::Result<Shell> {
    let text = text.unwrap_or("none");
    text.parse::<Shell>()
        .map_err(|_| usage(format!("{flag} {text:?}: expected none or sh")))
}

fn hooks_of(entry: &BenchmarkEntry, shell: Shell) -> anyhow::Result<Hooks> {
    let parse = |text: &Option<String>, kind: &str| {
        text.as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(|t| {
                CommandSpec::parse(t, shell).map_err(|e| {
                    usage(format!(
                        "benchmark {:?}: {kind}: {}",
                        entry.name.get_ref(),
                        sched_error_text(&e)
                    ))
                })
            })
            .transpose()
    };
    Ok(Hooks {
        setup: parse(&entry.setup, "setup")?,
        prepare: parse(&entry.prepare, "prepare")?,
        conclude: parse(&entry.conclude, "conclude")?,
        cleanup: parse(&entry.cleanup, "cleanup")?,
    })
}

/// The picked benchmarks' variants (benchmark `b`'s command with variant `v`'s value, named
/// `b/v`), each with its benchmark's hooks, and the benchmarks with the settings they
/// override.
struct Expanded {
    variants: Vec<Variant>,
    hooks: Vec<Hooks>,
    benchmarks: Vec<SuiteBenchmark>,
}

/// [`Expanded`] of the picked benchmarks of `file` (its `text`, read from `path`).
fn expand(
    file: &SuiteFile,
    text: &str,
    path: &Path,
    picked: &Picked<'_>,
    shell: Shell,
    design: Design,
) -> anyhow::Result<Expanded> {
    let mut out = Expanded {
        variants: Vec::new(),
        hooks: Vec::new(),
        benchmarks: Vec::new(),
    };
    for entry in &picked.entries {
        let name = entry.name.get_ref();
        let mut indices = Vec::new();
        let own_hooks = hooks_of(entry, shell)?;
        for (vname, value) in file.variants.get_ref() {
            let command_text = file::expand(entry.command.get_ref(), vname, value.get_ref());
            let command = CommandSpec::parse(&command_text, shell).map_err(|e| {
                file::at(
                    path,
                    text,
                    entry.command.span(),
                    &format!(
                        "benchmark {name:?}, variant {vname}: {}",
                        sched_error_text(&e)
                    ),
                )
            })?;
            indices.push(out.variants.len());
            out.variants.push(Variant {
                name: format!("{name}/{vname}"),
                command,
            });
            out.hooks.push(own_hooks.clone());
        }
        let mut bench = SuiteBenchmark::new(name.clone(), indices);
        if let Some(n) = &entry.runs_per_block {
            // runs-per-block counts runs of each variant; ABBA holds 2 of each per cycle
            // for two variants, 1 otherwise.
            let per_cycle = if bench.variants.len() == 2 && design == Design::Abba {
                2
            } else {
                1
            };
            let n = *n.get_ref();
            if n % per_cycle != 0 {
                return Err(file::at(
                    path,
                    text,
                    entry.runs_per_block.as_ref().map_or(0..0, |s| s.span()),
                    &format!(
                        "runs-per-block {n}: must be a multiple of {per_cycle}, the runs of each variant in one ABBA cycle"
                    ),
                ));
            }
            bench.cycles = n / per_cycle;
        }
        if let Some(m) = &entry.metric {
            bench.metric = Some(
                m.get_ref()
                    .parse()
                    .map_err(|e| file::at(path, text, m.span(), &format!("metric: {e}")))?,
            );
        }
        bench.unit.clone_from(&entry.unit);
        bench.higher_is_better = entry.higher_is_better;
        if let Some(t) = &entry.timeout {
            bench.timeout = Some(file::timeout(path, text, t, "timeout")?);
        }
        out.benchmarks.push(bench);
    }
    Ok(out)
}

/// The analysis of a suite's benchmarks (`--alpha`, `--baseline`, ...) and the correction
/// across them (`--suite-correction`).
fn suite_analysis(
    args: &SuiteArgs,
    file: &SuiteFile,
    seed: u64,
) -> anyhow::Result<(AnalysisConfig, Correction)> {
    let baseline = match &args.baseline {
        Some(b) if !file.variants.get_ref().contains_key(b) => {
            let known: Vec<&String> = file.variants.get_ref().keys().collect();
            return Err(usage(format!(
                "--baseline {b:?} is not one of the suite's variants ({})",
                known
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        other => other.clone(),
    };
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
        baseline,
        equivalence_margin: args.equivalence_margin,
        paired_estimator: args
            .estimator
            .unwrap_or(AnalysisConfig::default().paired_estimator),
        ..AnalysisConfig::default()
    };
    analysis.validate().map_err(|e| usage(format!("--{e}")))?;
    Ok((analysis, correction))
}

/// The suite's design (`settings.design`, else ABBA): a blocked one.
fn suite_design(file: &SuiteFile, text: &str, path: &Path) -> anyhow::Result<Design> {
    let design: Design = match file.settings.design.as_ref() {
        Some(d) => d
            .get_ref()
            .parse()
            .map_err(|e| file::at(path, text, d.span(), &format!("design: {e}")))?,
        None => Design::Abba,
    };
    if design == Design::Sequential {
        return Err(usage(
            "a suite runs its benchmarks interleaved in blocks: design sequential has no blocks (use abba or random)",
        ));
    }
    Ok(design)
}

/// The suite's metric: `--metric`, else `settings.metric`, else wall.
fn suite_metric(args: &SuiteArgs, file: &SuiteFile, path: &Path) -> anyhow::Result<Metric> {
    match &args.metric {
        Some(m) => m.parse().map_err(|e| usage(format!("--metric: {e}"))),
        None => file
            .settings
            .metric
            .as_deref()
            .unwrap_or("wall")
            .parse()
            .map_err(|e| usage(format!("{}: settings.metric: {e}", path.display()))),
    }
}

/// `--metric` and `--runs-per-block` over each benchmark's own: the flag decides every
/// benchmark, so a benchmark's metric (with its unit and direction) and its cycles give
/// way to it.
fn override_benchmarks(args: &SuiteArgs, benchmarks: &mut [SuiteBenchmark]) {
    for b in benchmarks {
        if args.metric.is_some() {
            b.metric = None;
            b.unit = None;
            b.higher_is_better = None;
        }
        if args.runs_per_block.is_some() {
            b.cycles = 1;
        }
    }
}

/// The cycles of every benchmark's order per block for `--runs-per-block N`.
fn cycles_of_flag(n: u32) -> anyhow::Result<u32> {
    if n >= 2 && n % 2 == 0 {
        Ok(n / 2)
    } else {
        Err(usage(format!(
            "--runs-per-block {n}: must be a positive multiple of 2 (each ABBA cycle runs each variant twice)"
        )))
    }
}

/// The cycles of every benchmark's order per block (`settings.runs-per-block`, 2 runs of
/// each variant per ABBA cycle).
fn suite_cycles(file: &SuiteFile, text: &str, path: &Path) -> anyhow::Result<u32> {
    let Some(value) = &file.settings.runs_per_block else {
        return Ok(1);
    };
    let cycles = match *value.get_ref() {
        n if n >= 2 && n % 2 == 0 => n / 2,
        n => {
            return Err(file::at(
                path,
                text,
                value.span(),
                &format!(
                    "settings.runs-per-block = {n}: must be a positive multiple of 2 (each ABBA cycle runs each variant twice); set it per benchmark for other counts"
                ),
            ));
        }
    };
    Ok(cycles)
}

/// The experiment of the picked benchmarks: variant `b/v` runs benchmark `b`'s command
/// with `v`'s value.
fn plan(
    args: &SuiteArgs,
    file: &SuiteFile,
    text: &str,
    picked: &Picked<'_>,
    resume: Option<ResumePoint>,
    seed: u64,
) -> anyhow::Result<Plan> {
    let path = args.file.as_path();
    let settings = &file.settings;
    let shell = shell_of(
        args.shell
            .as_deref()
            .or(settings.shell.as_ref().map(|s| s.get_ref().as_str())),
        "--shell",
    )?;
    let design = suite_design(file, text, path)?;
    let metric = suite_metric(args, file, path)?;
    if args.timeout.is_some_and(|t| t.is_zero()) {
        return Err(usage("--timeout must be longer than 0"));
    }
    let timeout = match (&args.timeout, &settings.timeout) {
        (Some(t), _) => Some(*t),
        (None, Some(t)) => Some(file::timeout(path, text, t, "settings.timeout")?),
        (None, None) => None,
    };
    let settle = match &settings.settle {
        Some(s) => file::duration(path, text, s, "settings.settle")?,
        None => std::time::Duration::ZERO,
    };
    let Expanded {
        variants,
        hooks,
        mut benchmarks,
    } = expand(file, text, path, picked, shell, design)?;
    override_benchmarks(args, &mut benchmarks);
    let names: Vec<&str> = picked
        .entries
        .iter()
        .map(|e| e.name.get_ref().as_str())
        .collect();
    let gates = Gates::parse(&args.fail_if_slower, &names)?;
    // The flags are bounded by clap, the file's values by `file::read`.
    let blocks = args
        .blocks
        .or(settings.blocks.as_ref().map(|n| *n.get_ref()))
        .unwrap_or(20);
    let cycles = match args.runs_per_block {
        Some(n) => cycles_of_flag(n),
        None => suite_cycles(file, text, path),
    }?;
    let (analysis, correction) = suite_analysis(args, file, seed)?;
    let config = ExperimentConfig {
        variants,
        design,
        blocks,
        seed,
        warmup: args
            .warmup
            .or(settings.warmup.as_ref().map(|n| *n.get_ref()))
            .unwrap_or(1),
        settle,
        layout: Layout::Random,
        timeout,
        metric: metric.clone(),
        // `--metric` brings its own unit and direction.
        unit: settings.unit.clone().filter(|_| args.metric.is_none()),
        higher_is_better: Some(
            settings
                .higher_is_better
                .filter(|_| args.metric.is_none())
                .unwrap_or_else(|| metric.higher_is_better()),
        ),
        output: if args.show_output {
            if args.json {
                OutputMode::ShowOnStderr
            } else {
                OutputMode::Show
            }
        } else {
            OutputMode::Discard
        },
        on_failure: if args.ignore_failure {
            FailurePolicy::Ignore
        } else {
            FailurePolicy::Stop
        },
        resume,
        hooks,
        cycles,
        identity: Identity::default(),
        suite: Some(Suite { benchmarks }),
        ..ExperimentConfig::default()
    };
    config
        .validate()
        .map_err(|e| usage(bench_sched::SchedError::Config(e).to_string()))?;
    crate::compare::check_run_count(&config, "--blocks (or runs-per-block in the suite file)")?;
    Ok(Plan {
        config,
        analysis,
        correction,
        gates,
    })
}

/// `n noun`, the noun plural unless `n` is 1 (`1 block`, `3 blocks`).
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `abba suite`.
pub fn run(args: SuiteArgs) -> anyhow::Result<u8> {
    let (file, text) = file::read(&args.file)?;
    let resume = args
        .resume
        .as_deref()
        .map(ResumePoint::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    // A resumed suite runs the benchmarks its file recorded.
    let only: Vec<String> = match &resume {
        Some(point) => point
            .header()
            .suite
            .iter()
            .map(|b| b.name.clone())
            .collect(),
        None => args.only.clone(),
    };
    let picked = pick(&file, &only)?;
    if args.list {
        return list(&file, &picked);
    }
    let seed = match &resume {
        Some(point) => point.header().seed,
        None => args.seed.unwrap_or_else(fresh_seed),
    };
    let resumed_blocks = resume.as_ref().map(|p| p.header().blocks);
    let mut args = args;
    if args.blocks.is_none() {
        args.blocks = resumed_blocks;
    }
    let Plan {
        config,
        analysis,
        correction,
        gates,
    } = plan(&args, &file, &text, &picked, resume, seed)?;
    // --record's commit and history are settled now, not after the experiment.
    let recording = crate::history::prepare(&args.record, "suite")?;
    check_exports(&args, recording.as_ref())?;
    warn_rate_units(&config);
    if args.dry_run {
        return dry_run(&config);
    }
    config
        .preflight(&mut RealRunner::new())
        .map_err(|e| usage(e.to_string()))?;
    let stop = InterruptFlag::from_signals().map_err(|e| usage(e.to_string()))?;
    let out = RawOutput {
        path: args.output.as_deref(),
        force: args.force,
        quiet: args.quiet,
        resume_command: format!(
            "abba suite {} --resume",
            shell_words::quote(&args.file.display().to_string())
        ),
    };
    let (writer, raw_path, temporary) = open_raw(&out, &config)?;
    if !args.quiet && !args.json {
        stderr_line(format_args!(
            "abba suite: {} x {} variants, {}, seed {}; raw runs in {}",
            counted(picked.entries.len(), "benchmark"),
            file.variants.get_ref().len(),
            counted(config.blocks as usize, "block"),
            config.seed,
            raw_path.display()
        ));
    }
    execute(&config, &stop, writer, &raw_path, args.quiet)
        .map_err(|e| suite_hint(e, &args.file, &raw_path))?;
    let code = report(&args, &analysis, correction, &gates, &raw_path)
        .map_err(|e| naming_raw_file(e, &raw_path))?;
    crate::history::record_after(
        recording.as_ref(),
        &raw_path,
        &analysis,
        correction,
        args.quiet,
    )
    .map_err(|e| naming_raw_file(e, &raw_path))?;
    if temporary {
        let _ = std::fs::remove_file(&raw_path);
    } else if !args.quiet && !args.json {
        stderr_line(format_args!("raw runs: {}", raw_path.display()));
    }
    Ok(code)
}

/// Warns, as compare does for `--unit` (M11 of issue 26), of every benchmark whose unit
/// looks like a rate while lower values count as better, naming the benchmark.
fn warn_rate_units(config: &ExperimentConfig) {
    let Some(suite) = &config.suite else { return };
    for b in &suite.benchmarks {
        // What the benchmark's dataset will have (`bench_sched::Experiment::suite_datasets`).
        let unit = b
            .unit
            .as_deref()
            .or(config.unit.as_deref().filter(|_| b.metric.is_none()));
        let higher = b.higher_is_better.unwrap_or(match &b.metric {
            Some(m) => m.higher_is_better(),
            None => config.higher_is_better.unwrap_or(false),
        });
        crate::checks::warn_rate_unit_of(
            unit,
            higher,
            &format!("benchmark {:?}: unit", b.name),
            "higher-is-better = true",
            " to its [[benchmark]] (or [settings]) in the suite file",
        );
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
                shell_words::quote(&file.display().to_string()),
                shell_words::quote(&raw.display().to_string())
            ),
        }),
        _ => error,
    }
}

/// The export paths, checked before any run: their directories must exist, and none may
/// replace the suite file, the raw runs, another export or the history `--record` writes
/// (by device and inode, as compare checks its own: [`crate::paths::check_targets`]); nor
/// may the raw runs replace the history.
fn check_exports(
    args: &SuiteArgs,
    recording: Option<&crate::history::Recording>,
) -> anyhow::Result<()> {
    if let Some(recording) = recording {
        recording.refuse_as_raw(&[
            ("--output", args.output.as_deref()),
            ("--resume", args.resume.as_deref()),
        ])?;
    }
    let exports: Vec<(&str, &Path)> = [
        ("--export-json", &args.export_json),
        ("--export-markdown", &args.export_markdown),
        ("--export-pr-comment", &args.export_pr_comment),
        ("--export-bmf", &args.export_bmf),
        ("--export-github-benchmark", &args.export_github_benchmark),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect();
    for (flag, path) in &exports {
        if !matches!(crate::paths::target(path), crate::paths::Target::File(_)) {
            // Standard output, a descriptor, a device or a pipe: written in place.
            continue;
        }
        if path.is_dir() {
            return Err(usage(format!("{flag} {}: is a directory", path.display())));
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(usage(format!(
                    "{flag} {}: the directory {} does not exist",
                    path.display(),
                    dir.display()
                )));
            }
        }
    }
    let mut kept = vec![crate::paths::Kept {
        role: "the suite file",
        path: &args.file,
    }];
    for (role, path) in [
        ("the raw runs' file --output", &args.output),
        ("the raw runs' file --resume", &args.resume),
    ] {
        if let Some(path) = path {
            kept.push(crate::paths::Kept { role, path });
        }
    }
    kept.extend(recording.map(crate::history::Recording::kept));
    crate::paths::check_targets(&exports, args.json, &kept)
}

fn list(file: &SuiteFile, picked: &Picked<'_>) -> anyhow::Result<u8> {
    let mut out = String::new();
    let names: Vec<&String> = file.variants.get_ref().keys().collect();
    out.push_str(&format!(
        "{}, variants {} (baseline {})\n",
        counted(picked.entries.len(), "benchmark"),
        names
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        names[0]
    ));
    for e in &picked.entries {
        out.push_str(&format!("{}\n", e.name.get_ref()));
        for (vname, value) in file.variants.get_ref() {
            out.push_str(&format!(
                "  {vname}: {}\n",
                file::expand(e.command.get_ref(), vname, value.get_ref())
            ));
        }
    }
    write_stdout(&out)?;
    Ok(0)
}

/// `--dry-run`: the first blocks' orders, the seed and the number of runs.
fn dry_run(config: &ExperimentConfig) -> anyhow::Result<u8> {
    let schedule = config.schedule();
    let mut out = String::new();
    let shown = config.blocks.min(3);
    for b in 0..shown {
        let names: Vec<&str> = schedule
            .runs
            .iter()
            .filter(|r| r.block == b)
            .filter_map(|r| match r.target {
                bench_sched::Target::Variant(i) => Some(config.variants[i].name.as_str()),
                bench_sched::Target::Reference => None,
            })
            .collect();
        out.push_str(&format!("block {}: {}\n", b + 1, names.join(" ")));
    }
    if config.blocks > shown {
        out.push_str(&format!(
            "... {} more, each in a fresh benchmark order\n",
            counted((config.blocks - shown) as usize, "block")
        ));
    }
    out.push_str(&format!(
        "seed {}; {}\n",
        config.seed,
        counted(schedule.runs.len(), "measured run")
    ));
    write_stdout(&out)?;
    Ok(0)
}

/// After the runs: the suite's analysis, report, exports and gate.
fn report(
    args: &SuiteArgs,
    analysis: &AnalysisConfig,
    correction: Correction,
    gates: &Gates,
    raw_path: &Path,
) -> anyhow::Result<u8> {
    let raw = read_raw(raw_path).map_err(|e| usage(e.to_string()))?;
    let data = raw.suite_datasets();
    for b in &data {
        for w in &b.loaded.warnings {
            if !args.quiet {
                stderr_line(format_args!("abba: note: {}", w.message));
            }
        }
        for s in &b.loaded.dataset.series {
            if s.observations.is_empty() {
                return Err(anyhow::Error::new(Exit::CommandFailed(format!(
                    "benchmark {}: variant {} has no complete block to compare (its runs failed); raw data kept in {}",
                    b.name,
                    s.name,
                    raw_path.display()
                ))));
            }
        }
    }
    if args.cross_class {
        return cross_class(args, analysis, &raw);
    }
    let list: Vec<(String, Dataset)> = data
        .into_iter()
        .map(|b| (b.name, b.loaded.dataset))
        .collect();
    let suite_config = SuiteConfig::new(analysis.clone(), correction);
    let mut report = analyze_suite(&list, &suite_config).map_err(|e| usage(e.to_string()))?;
    let noise = bench_sched::suite_noise(&raw, &report, &suite_config);
    for (b, n) in report.benchmarks.iter_mut().zip(noise) {
        b.analysis.noise = n;
    }
    let id = args
        .comment_id
        .clone()
        .unwrap_or_else(|| raw.header.experiment_id());
    emit(args, &report, gates, &id)
}

/// `--cross-class`: every variant of every benchmark in one table with a class column.
fn cross_class(
    args: &SuiteArgs,
    analysis: &AnalysisConfig,
    raw: &bench_sched::Experiment,
) -> anyhow::Result<u8> {
    let loaded = raw.to_dataset();
    let config = AnalysisConfig {
        grouping: Grouping::CrossClass,
        ..analysis.clone()
    };
    let result =
        bench_stats::analyze(&loaded.dataset, &config).map_err(|e| usage(e.to_string()))?;
    if args.json {
        write_stdout(&bench_report::render_json(&result)?)?;
    } else {
        let mut options = bench_report::RenderOptions::default();
        options.width = crate::output::terminal_width();
        write_stdout(&bench_report::render_console(&result, &options))?;
    }
    Ok(0)
}

/// The suite's noise line in the CLI's words (issue 36), once per suite.
fn noise_line(report: &SuiteReport) -> Option<String> {
    let line = bench_report::suite_noise_line(report)?;
    Some(match line.remedy {
        Some(r) => format!("{}{}", line.text, crate::words::remedy_text(r)),
        None => line.text,
    })
}

fn emit(args: &SuiteArgs, report: &SuiteReport, gates: &Gates, id: &str) -> anyhow::Result<u8> {
    let mut failed = Vec::new();
    let mut write = |flag: &str, path: &Option<PathBuf>, text: Option<String>| {
        if let (Some(path), Some(text)) = (path, text) {
            if let Err(e) = crate::ci::write_export(path, text.as_bytes()) {
                failed.push(format!("{flag}: {e}"));
            }
        }
    };
    let json = crate::ci::suite_json(report)?;
    let noise = noise_line(report);
    let md_noise = |text: String| match &noise {
        Some(line) => format!("{text}\n**Noise:** {line}\n"),
        None => text,
    };
    write("--export-json", &args.export_json, Some(json.clone()));
    write(
        "--export-markdown",
        &args.export_markdown,
        Some(md_noise(render_suite_markdown(
            report,
            &SuiteMarkdown::default(),
        ))),
    );
    write(
        "--export-pr-comment",
        &args.export_pr_comment,
        Some(md_noise(crate::ci::pr_comment(report, id))),
    );
    write(
        "--export-bmf",
        &args.export_bmf,
        args.export_bmf.as_ref().map(|_| crate::ci::bmf(report)),
    );
    let github = match &args.export_github_benchmark {
        Some(_) => Some(crate::ci::github_benchmark(report).map_err(usage)?),
        None => None,
    };
    write(
        "--export-github-benchmark",
        &args.export_github_benchmark,
        github,
    );
    if !args.no_step_summary {
        if let Err(e) = crate::ci::append_step_summary(&md_noise(render_suite_markdown(
            report,
            &SuiteMarkdown::new(None, Some(crate::ci::STEP_SUMMARY_MAX)),
        ))) {
            failed.push(format!("$GITHUB_STEP_SUMMARY: {e}"));
        }
    }
    if args.json {
        write_stdout(&json)?;
    } else {
        let mut text = render_suite_console(report, crate::output::terminal_width());
        if let Some(line) = &noise {
            text.push('\n');
            text.push_str(&bench_report::wrap(
                line,
                crate::output::terminal_width(),
                "",
                "  ",
            ));
            text.push('\n');
        }
        write_stdout(&text)?;
    }
    let tripped = gate(report, gates);
    for message in &tripped {
        stderr_line(format_args!("abba: gate: {message}"));
    }
    if !failed.is_empty() {
        return Err(usage(failed.join("\n")));
    }
    Ok(if tripped.is_empty() { 0 } else { 1 })
}

/// The benchmarks whose corrected verdict is a slowdown that may reach their threshold.
fn gate(report: &SuiteReport, gates: &Gates) -> Vec<String> {
    let mut out = Vec::new();
    for b in &report.benchmarks {
        let Some(pct) = gates.of(&b.name) else {
            continue;
        };
        for r in bench_stats::analysis::regressions(&b.analysis, pct) {
            out.push(format!(
                "{}: {} is significantly slower than {} after the suite's correction and may be {:.2}% slower or more (ratio {:.4}, interval [{:.4}, {:.4}])",
                b.name,
                r.candidate.rsplit_once('/').map_or(r.candidate.as_str(), |x| x.1),
                r.baseline.rsplit_once('/').map_or(r.baseline.as_str(), |x| x.1),
                pct * 100.0,
                r.ratio,
                r.ratio_ci[0],
                r.ratio_ci[1]
            ));
        }
    }
    out
}
