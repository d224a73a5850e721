//! A suite session, front to back without the binary: the file's benchmarks picked (or a
//! resumed file's, [`SuiteSession::open`]), listed ([`SuiteSession::listing`]), and planned
//! into one experiment with its analysis, correction and gates ([`SuiteSession::plan`]);
//! the shards' raw files joined ([`SuitePlan::merged`]); after the runs, the experiment
//! into the suite's analysis ([`analyze_suite_run`]) or its one cross-class table
//! ([`cross_class_analysis`]). The binary turns its flags into a [`SuiteRequest`], runs the
//! [`SuitePlan`]'s config and renders; every refusal is a [`SuiteError`] (exit 2).

use std::path::Path;

use bench_stats::analysis::SuiteGates;
use bench_stats::suite::{Correction, SuiteConfig};
use bench_stats::{Analysis, AnalysisConfig, Grouping, StatsError};

use super::{BenchmarkEntry, StopRequest, SuiteError, SuiteOptions, SuiteSpec, suite_stop_rule};
use crate::experiment::{ExperimentConfig, ResumePoint};
use crate::pipeline::{SuiteAnalysis, SuiteAnalysisError, SuiteData, analyze_suite_data};
use crate::raw::Experiment;

/// One `--fail-if-slower [NAME=]PCT`: the text given, the benchmark it names (every one
/// when `None`) and its threshold (a fraction).
#[derive(Debug, Clone, PartialEq)]
pub struct GateRequest {
    /// The value as given (errors quote it).
    pub given: String,
    /// The benchmark, or `None` for the default of every benchmark.
    pub benchmark: Option<String>,
    /// The slowdown that fails, as a fraction.
    pub threshold: f64,
}

/// What a front end asks of a suite besides its file and the benchmarks to run.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SuiteRequest {
    /// The seed of the run order and the analysis: the resumed file's (another is
    /// refused), else this, else the fresh seed [`SuiteSession::plan`] is given.
    pub seed: Option<u64>,
    /// The settings over the file's; its `seed`, `resume` and `until` are the session's,
    /// and its `blocks` default to a resumed file's.
    pub options: SuiteOptions,
    /// The stop rule asked for (`--until decided`, `--max-blocks`, `--min-blocks`).
    pub stop: StopRequest,
    /// Each benchmark's analysis (its `seed` is the session's). Default: the library's.
    pub analysis: AnalysisConfig,
    /// The correction across benchmarks. Default: Benjamini-Hochberg.
    pub correction: Correction,
    /// The gates, in the order given (the last for a benchmark wins).
    pub gates: Vec<GateRequest>,
}

/// A suite file with the benchmarks a session runs: those `only` picks, or a resumed
/// file's.
#[derive(Debug)]
pub struct SuiteSession<'s> {
    spec: &'s SuiteSpec,
    picked: Vec<&'s BenchmarkEntry>,
    resume: Option<ResumePoint>,
}

/// A planned suite: its experiment, each benchmark's analysis, the correction across them
/// and the gates.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SuitePlan {
    /// The one interleaved experiment of every picked benchmark.
    pub config: ExperimentConfig,
    /// Each benchmark's analysis, seeded with the session's seed.
    pub analysis: AnalysisConfig,
    /// The correction across benchmarks.
    pub correction: Correction,
    /// Each benchmark's gate.
    pub gates: SuiteGates,
}

impl SuiteSpec {
    /// `NAME=VALUE` each replacing a value of the file's `[variants]` (`--variant`).
    ///
    /// # Errors
    /// [`SuiteError::Invalid`] naming the value: no `=`, or a name the file lacks.
    pub fn override_variants(&mut self, values: &[String]) -> Result<(), SuiteError> {
        for v in values {
            let Some((name, value)) = v.split_once('=') else {
                return Err(SuiteError::Invalid(format!(
                    "--variant {v:?}: expected NAME=VALUE (a name of the suite's [variants]: {})",
                    self.variant_names().join(", ")
                )));
            };
            self.set_variant(name.trim(), value)
                .map_err(|e| SuiteError::Invalid(format!("--variant {v}: {e}")))?;
        }
        Ok(())
    }
}

impl<'s> SuiteSession<'s> {
    /// The benchmarks of `spec` to run: a resumed suite's (the file `resume`'s), else those
    /// `only` picks ([`SuiteSpec::pick`]; all when empty).
    ///
    /// # Errors
    /// [`SuiteError::Invalid`]: the file to resume cannot be read, or nothing matches.
    pub fn open(
        spec: &'s SuiteSpec,
        only: &[String],
        resume: Option<&Path>,
    ) -> Result<SuiteSession<'s>, SuiteError> {
        let resume = resume
            .map(ResumePoint::load)
            .transpose()
            .map_err(|e| SuiteError::Invalid(format!("--resume: {e}")))?;
        let only: Vec<String> = match &resume {
            Some(point) => point
                .header()
                .suite
                .iter()
                .map(|b| b.name.clone())
                .collect(),
            None => only.to_vec(),
        };
        let picked = spec.pick(&only);
        if let (true, Some(point)) = (picked.is_empty(), &resume) {
            return Err(SuiteError::Invalid(format!(
                "--resume {}: its benchmarks ({}) are none of this suite file's ({}); resume it with the suite file that wrote it",
                point.path().display(),
                only.join(", "),
                spec.benchmark_names().join(", ")
            )));
        }
        if picked.is_empty() {
            return Err(SuiteError::Invalid(format!(
                "--only {}: no benchmark matches (the suite has: {})",
                only.join(" "),
                spec.benchmark_names().join(", ")
            )));
        }
        Ok(SuiteSession {
            spec,
            picked,
            resume,
        })
    }

    /// The picked benchmarks `held` keeps (a shard's share), each with its command for
    /// each variant (`--list`). Time: O(benchmarks × variants).
    pub fn listing(&self, held: impl Fn(&str) -> bool) -> Vec<(String, Vec<(String, String)>)> {
        let variants = self.spec.file().variants.get_ref();
        self.picked
            .iter()
            .filter(|e| held(e.name.get_ref()))
            .map(|e| {
                let commands = variants
                    .iter()
                    .map(|(name, value)| {
                        let command = e.command.get_ref();
                        let expanded = super::expand_command(command, name, value.get_ref());
                        (name.clone(), expanded)
                    })
                    .collect();
                (e.name.get_ref().clone(), commands)
            })
            .collect()
    }

    /// The experiment of the picked benchmarks under `request`, its analysis, correction
    /// and gates; `fresh_seed` gives the seed when neither the resumed file nor the request
    /// does. Time: O(benchmarks × variants).
    ///
    /// # Errors
    /// [`SuiteError`]: another seed than the resumed file's, a stop rule that cannot decide,
    /// a zero time budget, the file's or the experiment's errors
    /// ([`SuiteSpec::experiment`]), a gate naming no benchmark, a baseline that is no
    /// variant, an invalid analysis.
    pub fn plan(
        self,
        mut request: SuiteRequest,
        fresh_seed: impl FnOnce() -> u64,
    ) -> Result<SuitePlan, SuiteError> {
        let seed = self.seed(request.seed, fresh_seed)?;
        let header = self.resume.as_ref().map(ResumePoint::header);
        let mut options = request.options;
        options.seed = seed;
        options.blocks = options.blocks.or(header.map(|h| h.blocks));
        let analysis = &mut request.analysis;
        let (alpha, benchmarks) = (analysis.alpha, self.picked.len());
        options.until = suite_stop_rule(
            request.stop,
            header,
            alpha,
            analysis.equivalence_margin,
            request.correction,
            benchmarks,
        )?;
        if options.time_budget.is_some_and(|t| t.is_zero()) {
            return Err(SuiteError::Invalid(
                "--time-budget must be longer than 0 (e.g. `30s`, `5min`)".to_owned(),
            ));
        }
        options.resume = self.resume;
        let config = self.spec.experiment(&self.picked, options)?;
        let names: Vec<&str> = self
            .picked
            .iter()
            .map(|e| e.name.get_ref().as_str())
            .collect();
        let gates = suite_gates(&request.gates, &names)?;
        analysis.seed = seed;
        check_analysis(analysis, &self.spec.variant_names())?;
        Ok(SuitePlan {
            config,
            analysis: request.analysis,
            correction: request.correction,
            gates,
        })
    }

    /// The seed: the resumed file's (`given` other than it is refused), else `given`, else
    /// `fresh`.
    fn seed(&self, given: Option<u64>, fresh: impl FnOnce() -> u64) -> Result<u64, SuiteError> {
        let Some(point) = &self.resume else {
            return Ok(given.unwrap_or_else(fresh));
        };
        let recorded = point.header().seed;
        match given.filter(|s| *s != recorded) {
            Some(given) => Err(SuiteError::Invalid(format!(
                "--seed {given} with --resume {}: the file's suite was planned with seed {recorded}, and a resumed suite keeps it; leave out --seed",
                point.path().display()
            ))),
            None => Ok(recorded),
        }
    }
}

impl SuitePlan {
    /// The whole suite's experiment joined from its shards' raw files `parts`
    /// ([`super::merge_shards`]) with its analysis (the shards' seed), correction and gates
    /// under `request` (its seed, options and stop rule are the shards').
    ///
    /// # Errors
    /// [`SuiteError::Invalid`]: shards of other suites, revisions or seeds, a shard given
    /// twice or missing; a gate naming no benchmark, a baseline that is no variant, an
    /// invalid analysis.
    pub fn merged(
        parts: Vec<Experiment>,
        mut request: SuiteRequest,
    ) -> Result<(Experiment, AnalysisConfig, Correction, SuiteGates), SuiteError> {
        let merged =
            super::merge_shards(parts).map_err(|e| SuiteError::Invalid(format!("--merge: {e}")))?;
        let names: Vec<&str> = merged
            .header
            .suite
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        let gates = suite_gates(&request.gates, &names)?;
        request.analysis.seed = merged.header.seed;
        check_analysis(&request.analysis, &merged.header.suite_variant_names())?;
        Ok((merged, request.analysis, request.correction, gates))
    }
}

/// The gates of `requests`, each naming one of `names` or none (every benchmark).
///
/// # Errors
/// [`SuiteError::Invalid`] quoting the gate that names no benchmark of the suite.
pub fn suite_gates(requests: &[GateRequest], names: &[&str]) -> Result<SuiteGates, SuiteError> {
    let mut gates = SuiteGates::default();
    for r in requests {
        if let Some(n) = r.benchmark.as_deref().filter(|n| !names.contains(n)) {
            return Err(SuiteError::Invalid(format!(
                "--fail-if-slower {}: no benchmark {n:?} in the suite (it has: {})",
                r.given,
                names.join(", ")
            )));
        }
        gates.set(r.benchmark.as_deref(), r.threshold);
    }
    Ok(gates)
}

/// Refuses a baseline that is none of `variants`, and an analysis its own check refuses.
fn check_analysis(analysis: &AnalysisConfig, variants: &[&str]) -> Result<(), SuiteError> {
    if let Some(b) = analysis
        .baseline
        .as_ref()
        .filter(|b| !variants.contains(&b.as_str()))
    {
        return Err(SuiteError::Invalid(format!(
            "--baseline {b:?} is not one of the suite's variants ({})",
            variants.join(", ")
        )));
    }
    analysis
        .validate()
        .map_err(|e| SuiteError::Invalid(format!("--{e}")))
}

impl ExperimentConfig {
    /// The resumed file when it already holds every planned run of this suite and is not
    /// extended: nothing runs, its report is made again from it.
    pub fn complete_resume(&self) -> Option<&ResumePoint> {
        self.resume
            .as_ref()
            .filter(|_| !self.variants.is_empty())
            .filter(|p| p.completed_runs() >= self.schedule().runs.len() && !p.extends(self))
    }

    /// Whether a suite's benchmarks mix lower-is-better and higher-is-better values (one
    /// github-action-benchmark file holds one direction).
    pub fn suite_mixes_directions(&self) -> bool {
        let directions: Vec<bool> = (self.suite.iter().flat_map(|s| &s.benchmarks))
            .map(|b| b.higher_is_better_in(self))
            .collect();
        directions.windows(2).any(|w| w[0] != w[1])
    }
}

impl Experiment {
    /// The metric `m` over every benchmark of a suite's experiment (`abba analyze
    /// --metric`, as `abba suite --metric` overrides the file): each benchmark's own
    /// metric, unit and direction give way to it.
    pub fn on_suite_metric(&mut self, m: &crate::Metric) {
        self.header.metric = m.clone();
        for b in &mut self.header.suite {
            b.metric = None;
            b.unit = None;
            b.higher_is_better = None;
        }
    }
}

/// The suite's analysis of the runs `e` just ran (or a complete file, or merged shards),
/// its benchmarks split already (`data`, [`crate::suite_data`]): each benchmark analysed
/// once ([`analyze_suite_data`]) and how the session ended ([`super::suite_stop`], under
/// `time_budget`). Time: as [`analyze_suite_data`].
///
/// # Errors
/// [`SuiteAnalysisError`]: no benchmark with a complete block, an analysis that fails.
pub fn analyze_suite_run(
    e: &Experiment,
    data: SuiteData,
    config: &SuiteConfig,
    time_budget: Option<std::time::Duration>,
) -> Result<SuiteAnalysis, SuiteAnalysisError> {
    let mut analysed = analyze_suite_data(e, data, config)?;
    analysed.report.stop = super::suite_stop(e, time_budget);
    Ok(analysed)
}

/// Every variant of every benchmark of `e` in one analysis with a class column
/// (`--cross-class`, [`Grouping::CrossClass`]).
///
/// # Errors
/// The analysis's.
pub fn cross_class_analysis(
    e: &Experiment,
    analysis: &AnalysisConfig,
) -> Result<Analysis, StatsError> {
    let loaded = e.to_dataset();
    let config = AnalysisConfig {
        grouping: Grouping::CrossClass,
        ..analysis.clone()
    };
    bench_stats::analyze(&loaded.dataset, &config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SuiteSpec {
        let text = "[variants]\nbase = \"a\"\nhead = \"b\"\n[[benchmark]]\nname = \"x\"\ncommand = \"true\"\n[[benchmark]]\nname = \"y\"\ncommand = \"true\"\n";
        SuiteSpec::parse(Path::new("s.toml"), text.into()).unwrap()
    }

    fn gate(given: &str, benchmark: Option<&str>, threshold: f64) -> GateRequest {
        GateRequest {
            given: given.into(),
            benchmark: benchmark.map(str::to_owned),
            threshold,
        }
    }

    #[test]
    fn a_plan_runs_the_picked_benchmarks_with_the_fresh_seed_and_their_gates() {
        let spec = spec();
        let session = SuiteSession::open(&spec, &["y".into()], None).unwrap();
        let mut request = SuiteRequest::default();
        request.options.blocks = Some(4);
        request.gates = vec![gate("5%", None, 0.05), gate("y=2%", Some("y"), 0.02)];
        let plan = session.plan(request, || 42).unwrap();
        assert_eq!(
            (plan.config.seed, plan.analysis.seed, plan.config.blocks),
            (42, 42, 4)
        );
        let names: Vec<&str> = plan
            .config
            .suite
            .iter()
            .flat_map(|s| &s.benchmarks)
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(names, ["y"]);
        assert_eq!(plan.gates.of("y").map(|g| g.threshold), Some(0.02));
    }

    #[test]
    fn refusals_name_the_setting_that_is_wrong() {
        let spec = spec();
        let e = SuiteSession::open(&spec, &["z*".into()], None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--only z*: no benchmark matches (the suite has: x, y)"),
            "{e}"
        );
        let e = suite_gates(&[gate("z=5%", Some("z"), 0.05)], &["x", "y"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--fail-if-slower z=5%: no benchmark \"z\" in the suite (it has: x, y)"
        );
        let mut request = SuiteRequest::default();
        request.analysis.baseline = Some("tip".into());
        let e = SuiteSession::open(&spec, &[], None)
            .unwrap()
            .plan(request, || 1)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--baseline \"tip\" is not one of the suite's variants (base, head)"
        );
        let request = SuiteRequest {
            stop: StopRequest {
                until: true,
                max_blocks: Some(3),
                min_blocks: None,
            },
            ..SuiteRequest::default()
        };
        let e = SuiteSession::open(&spec, &[], None)
            .unwrap()
            .plan(request, || 1)
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--max-blocks 3: each benchmark's sequence runs at level"),
            "{e}"
        );
        let mut spec = spec;
        let e = spec.override_variants(&["head".into()]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--variant \"head\": expected NAME=VALUE"),
            "{e}"
        );
    }
}
