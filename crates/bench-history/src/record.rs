//! Recording one experiment and the analyses of its benchmarks: the experiment, its
//! machine and commits, every run, each variant's level and each comparison's summary,
//! in one transaction ([`Store::record`]).
//!
//! Which benchmark a variant belongs to: when the experiment compares two commits (a base
//! commit other than the commit, exactly two variants), both variants are builds of one
//! benchmark (the context's name, else the suite benchmark's name, else the baseline
//! variant's name), the baseline's level goes to the base commit, the candidate's to the
//! commit, and the comparison is a *step* of that benchmark. Otherwise every variant is
//! measured at the commit: each is its own benchmark (a single variant: the context's
//! name or its own; several: the variant's name, prefixed by the context's name or the
//! suite benchmark's name and `/`), and the comparisons between them are kept as
//! summaries but are not steps. A suite benchmark is always named by its own name, with
//! the context's name, when given, as a prefix (`NAME/small`, `NAME/small/base`): one
//! `--bench` never merges a suite's benchmarks into one series.

use bench_sched::Experiment;
use bench_stats::history::Level;
use bench_stats::{Analysis, Dataset};
use rusqlite::{OptionalExtension, params};

use crate::git::CommitInfo;
use crate::store::sql_error;
use crate::{HistoryError, Store};

/// Who records and what they tell of it: the commits the experiment measured and, when
/// given, the benchmark's name.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// What recorded it (`compare`, `suite`, `analyze`, `import`, or a program's name).
    pub source: String,
    /// The benchmark's name in the history (else from the suite or the variants).
    pub bench: Option<String>,
    /// The commit measured (the candidate's).
    pub commit: CommitInfo,
    /// The baseline's commit, when the experiment compares two commits.
    pub base_commit: Option<CommitInfo>,
}

impl Context {
    /// A context of `source` at `commit` (a hash or label, taken as given: use
    /// [`crate::git::resolve`] for git's facts), no base commit, no name.
    pub fn at(source: &str, commit: &str) -> Context {
        Context {
            source: source.to_owned(),
            bench: None,
            commit: CommitInfo {
                sha: commit.to_owned(),
                ..CommitInfo::default()
            },
            base_commit: None,
        }
    }
}

/// One analysed benchmark of an experiment, borrowed from the command that analysed it:
/// the whole experiment ([`Analysed::experiment`]) or one benchmark of a suite
/// ([`Analysed::suite_benchmark`]).
#[derive(Debug, Clone, Copy)]
pub struct Analysed<'a> {
    /// The suite benchmark's name (`None` for a plain experiment).
    pub suite_name: Option<&'a str>,
    /// Its data.
    pub dataset: &'a Dataset,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// The metric its series is kept under when it is not the raw file's own (`cpu` for
    /// the CPU-time series kept beside a wall-time experiment's: [`crate::cpu_twin`]).
    pub metric: Option<&'a str>,
}

impl<'a> Analysed<'a> {
    /// The analysis of a whole (non-suite) experiment's data.
    pub fn experiment(dataset: &'a Dataset, analysis: &'a Analysis) -> Analysed<'a> {
        Analysed {
            suite_name: None,
            dataset,
            analysis,
            metric: None,
        }
    }

    /// The same, kept as the series of `metric` (not the raw file's own metric).
    #[must_use]
    pub fn on_metric(mut self, metric: &'a str) -> Analysed<'a> {
        self.metric = Some(metric);
        self
    }

    /// The analysis of the suite benchmark `name`'s data.
    pub fn suite_benchmark(
        name: &'a str,
        dataset: &'a Dataset,
        analysis: &'a Analysis,
    ) -> Analysed<'a> {
        Analysed {
            suite_name: Some(name),
            dataset,
            analysis,
            metric: None,
        }
    }
}

/// What [`Store::record`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// A new experiment, with its id in the store.
    New(i64),
    /// The same experiment (the same content hash) was already kept: nothing written.
    AlreadyKept,
}

/// A machine: what identifies it (the fingerprint hashes the CPU model, core count,
/// kernel and name) and its name.
#[derive(Debug, Clone, PartialEq)]
struct MachineInfo {
    fingerprint: String,
    name: String,
    cpu_model: Option<String>,
    cores: Option<usize>,
    kernel: Option<String>,
    /// The raw header does not record it, so `None` for now.
    memory_kib: Option<u64>,
}

/// A benchmark series' identity.
#[derive(Debug, Clone, PartialEq)]
struct BenchmarkKey {
    name: String,
    metric: String,
    unit: String,
    higher_is_better: bool,
    /// The command of the (candidate) variant, as first recorded.
    command: Option<String>,
}

/// One run as stored.
#[derive(Debug, Clone, PartialEq)]
struct RunRow {
    run: u32,
    block: u32,
    position: u32,
    variant: String,
    benchmark: Option<String>,
    value: Option<f64>,
    wall_ns: u64,
    ok: bool,
}

/// One variant's level at one commit.
#[derive(Debug, Clone, PartialEq)]
struct LevelRow {
    benchmark: BenchmarkKey,
    variant: String,
    /// At the base commit (else at the commit).
    at_base: bool,
    level: Level,
}

/// One comparison's summary.
#[derive(Debug, Clone, PartialEq)]
struct SummaryRow {
    benchmark: BenchmarkKey,
    baseline: String,
    candidate: String,
    /// Base commit to commit (a step), else both at the commit.
    stepping: bool,
    ratio: Option<f64>,
    interval: Option<[f64; 2]>,
    confidence: f64,
    verdict: String,
    outcome: String,
    p_value: Option<f64>,
    estimator: String,
}

/// Everything one record writes.
#[derive(Debug, Clone)]
struct Record {
    content_hash: String,
    source: String,
    file: Option<String>,
    experiment: String,
    seed: u64,
    design: String,
    started_at: String,
    recorded_at: String,
    machine: MachineInfo,
    commit: CommitInfo,
    base_commit: Option<CommitInfo>,
    header_json: String,
    runs: Vec<RunRow>,
    levels: Vec<LevelRow>,
    summaries: Vec<SummaryRow>,
}

/// The 128-bit FNV-1a hash (Fowler, Noll & Vo), as 32 hex digits.
fn fnv1a_128(bytes: &[u8]) -> String {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    for &b in bytes {
        h ^= u128::from(b);
        h = h.wrapping_mul(PRIME);
    }
    format!("{h:032x}")
}

/// The experiment's header and runs as canonical JSONL (one line each, in order, without
/// the end lines): what the content hash covers. The same experiment gives the same text
/// whether it was just run or read back from its raw file.
fn canonical_jsonl(raw: &Experiment) -> String {
    let mut text = serde_json::to_string(&raw.header).unwrap_or_default();
    text.push('\n');
    for run in &raw.runs {
        text.push_str(&serde_json::to_string(&run.to_record()).unwrap_or_default());
        text.push('\n');
    }
    text
}

/// The key an experiment is kept under: the 128-bit FNV-1a hash of its header and runs
/// as canonical JSON lines (whatever its file's name or end lines), 32 hex digits.
/// Recording an experiment whose key is already in the store writes nothing.
pub fn content_hash(experiment: &Experiment) -> String {
    fnv1a_128(canonical_jsonl(experiment).as_bytes())
}

fn machine(raw: &Experiment) -> MachineInfo {
    let h = &raw.header.host;
    let name = h.hostname.clone().unwrap_or_else(|| "unknown".into());
    let key = format!(
        "{}\0{}\0{}\0{}",
        h.cpu_model.as_deref().unwrap_or(""),
        h.cores.map(|c| c.to_string()).unwrap_or_default(),
        h.kernel.as_deref().unwrap_or(""),
        name
    );
    MachineInfo {
        fingerprint: fnv1a_128(key.as_bytes())[..16].to_owned(),
        name,
        cpu_model: h.cpu_model.clone(),
        cores: h.cores,
        kernel: h.kernel.clone(),
        memory_kib: None,
    }
}

fn command_of(raw: &Experiment, variant: &str) -> Option<String> {
    raw.header
        .variants
        .iter()
        .find(|v| v.name == variant)
        .map(|v| v.command.clone())
}

/// The metric a benchmark of `raw` was measured in: its suite benchmark's own, else the
/// experiment's.
fn metric_of(raw: &Experiment, suite_name: Option<&str>) -> String {
    suite_name
        .and_then(|name| raw.header.suite.iter().find(|s| s.name == name))
        .and_then(|s| s.metric.as_ref())
        .unwrap_or(&raw.header.metric)
        .to_string()
}

fn verdict_name(v: bench_stats::Verdict) -> &'static str {
    match v {
        bench_stats::Verdict::Significant => "significant",
        bench_stats::Verdict::NotSignificant => "not-significant",
        bench_stats::Verdict::NotTested => "not-tested",
        _ => "not-tested",
    }
}

/// The level rows (one per series) and the summary rows (one per comparison) of one
/// analysed benchmark of the experiment.
fn unit_rows(
    raw: &Experiment,
    unit: &Analysed<'_>,
    ctx: &Context,
    stepping_commits: bool,
    levels: &mut Vec<LevelRow>,
    summaries: &mut Vec<SummaryRow>,
) {
    let series: Vec<_> = unit
        .dataset
        .series
        .iter()
        .filter(|s| !s.observations.is_empty())
        .collect();
    let Some(group) = unit.analysis.groups.first() else {
        return;
    };
    let metric = unit
        .metric
        .map_or_else(|| metric_of(raw, unit.suite_name), str::to_owned);
    let suite_name = unit.suite_name.map(str::to_owned);
    let baseline = group.baseline.clone();
    let stepping = stepping_commits && series.len() == 2;
    let key = |variant: &str| -> BenchmarkKey {
        let name = if let Some(suite) = &suite_name {
            // A suite benchmark's series: its name (under the context's name as a prefix,
            // so `--bench` never merges the suite's benchmarks), and the variant's own name
            // (without the benchmark's prefix a suite's data carries) when not a step.
            let base = match &ctx.bench {
                Some(prefix) => format!("{prefix}/{suite}"),
                None => suite.clone(),
            };
            if stepping {
                base
            } else {
                let own = variant
                    .strip_prefix(suite.as_str())
                    .and_then(|v| v.strip_prefix('/'))
                    .unwrap_or(variant);
                format!("{base}/{own}")
            }
        } else if stepping {
            ctx.bench
                .clone()
                .or_else(|| suite_name.clone())
                .unwrap_or_else(|| baseline.clone())
        } else if series.len() == 1 && suite_name.is_none() {
            ctx.bench.clone().unwrap_or_else(|| variant.to_owned())
        } else {
            match ctx.bench.clone().or_else(|| suite_name.clone()) {
                Some(prefix) => format!("{prefix}/{variant}"),
                None => variant.to_owned(),
            }
        };
        let command = if stepping {
            group
                .comparisons
                .first()
                .and_then(|c| command_of(raw, &c.candidate))
        } else {
            command_of(raw, variant)
        };
        BenchmarkKey {
            name,
            metric: metric.clone(),
            unit: unit.analysis.unit.clone(),
            higher_is_better: unit.analysis.higher_is_better,
            command,
        }
    };
    for s in &series {
        let values: Vec<f64> = s.observations.iter().map(|o| o.value).collect();
        let Some(level) = Level::of_runs(&values) else {
            continue;
        };
        levels.push(LevelRow {
            benchmark: key(&s.name),
            variant: s.name.clone(),
            at_base: stepping && s.name == baseline,
            level,
        });
    }
    for c in &group.comparisons {
        let estimate = step_estimate(c, unit.analysis.confidence);
        summaries.push(SummaryRow {
            benchmark: key(&c.candidate),
            baseline: baseline.clone(),
            candidate: c.candidate.clone(),
            stepping,
            ratio: estimate.ratio.filter(|r| r.is_finite() && *r > 0.0),
            interval: estimate
                .interval
                .filter(|i| i[0].is_finite() && i[1].is_finite() && i[0] > 0.0),
            confidence: estimate.confidence,
            verdict: verdict_name(c.verdict).into(),
            outcome: c.outcome.as_str().into(),
            p_value: c
                .decision
                .as_ref()
                .and_then(|d| d.p_value_adjusted.or(d.p_value)),
            estimator: match estimate.part {
                Some(part) => format!("{}:{part}", c.verdict_basis),
                None => c.verdict_basis.to_string(),
            },
        });
    }
}

/// The ratio, interval and level a comparison is kept with as a step.
#[derive(Debug, Clone, PartialEq)]
struct StepEstimate {
    ratio: Option<f64>,
    interval: Option<[f64; 2]>,
    confidence: f64,
    /// The part of the distribution read instead of the headline (`mean-run`), when the
    /// headline ratio has no interval.
    part: Option<String>,
}

/// What a comparison is kept with: its headline ratio and interval (the typical run's at
/// its share of the family level, for the typical-run estimator); when the headline has
/// no interval (the typical run at 6 or 7 blocks) but another checked part of the
/// distribution has one, that part instead: the one that decided (moved beyond the
/// margin), else the mean run, else the part nearest the typical run. So a step that the
/// mean run decided is kept with the mean run's ratio and interval, not dropped.
fn step_estimate(c: &bench_stats::Comparison, analysis_confidence: f64) -> StepEstimate {
    let headline = StepEstimate {
        ratio: c.ratio,
        interval: c.ratio_ci,
        confidence: c
            .distribution
            .as_ref()
            .map_or(analysis_confidence, |d| d.confidence),
        part: None,
    };
    let shape = match (&c.distribution, c.ratio_ci, &c.sequential) {
        (Some(shape), None, None) => shape,
        _ => return headline,
    };
    use bench_stats::paired::shape::{PartMove, PartStatistic};
    let rank = |q: &&bench_stats::paired::shape::QuantileShift| {
        let decided = matches!(q.part, PartMove::Slower | PartMove::Faster);
        let mean = q.statistic == PartStatistic::Mean;
        let distance = if mean { 0.0 } else { (q.quantile - 0.5).abs() };
        (!decided, !mean, (distance * 1e6) as i64)
    };
    let Some(part) = shape
        .parts()
        .filter(|q| q.interval.is_some() && q.ratio.is_finite())
        .min_by_key(rank)
    else {
        return headline;
    };
    StepEstimate {
        ratio: Some(part.ratio),
        interval: part.interval,
        confidence: part.confidence,
        part: Some(if part.statistic == PartStatistic::Mean {
            "mean-run".to_owned()
        } else {
            format!("p{:.0}", part.quantile * 100.0)
        }),
    }
}

/// Builds the record of one experiment and the analyses of its benchmarks.
fn build(raw: &Experiment, units: &[Analysed<'_>], ctx: &Context) -> Record {
    let values = raw.measured_values();
    let runs = raw
        .runs
        .iter()
        .enumerate()
        .map(|(k, r)| RunRow {
            run: r.run,
            block: r.block,
            position: r.position,
            variant: r.variant.to_owned(),
            benchmark: r.benchmark.map(str::to_owned),
            value: values.get(k).copied().flatten(),
            wall_ns: r.wall_ns,
            ok: r.succeeded(),
        })
        .collect();
    let stepping_commits = ctx
        .base_commit
        .as_ref()
        .is_some_and(|b| b.sha != ctx.commit.sha);
    let mut levels = Vec::new();
    let mut summaries = Vec::new();
    for unit in units {
        unit_rows(
            raw,
            unit,
            ctx,
            stepping_commits,
            &mut levels,
            &mut summaries,
        );
    }
    Record {
        content_hash: content_hash(raw),
        source: ctx.source.clone(),
        file: (!raw.file.is_empty()).then(|| raw.file.clone()),
        experiment: raw.header.experiment_id(),
        seed: raw.header.seed,
        design: raw.header.design.to_string(),
        started_at: raw.header.host.start_time.clone(),
        recorded_at: bench_sched::rfc3339_utc(std::time::SystemTime::now()),
        machine: machine(raw),
        commit: ctx.commit.clone(),
        base_commit: ctx.base_commit.clone(),
        header_json: serde_json::to_string(&raw.header).unwrap_or_default(),
        runs,
        levels,
        summaries,
    }
}

impl Store {
    /// Records `experiment` with the analyses the caller already has of its benchmarks
    /// (`benchmarks`: the whole experiment, or each benchmark of a suite), at the commits
    /// of `context`, in one transaction: its header and runs, each series' level
    /// ([`Level::of_runs`]) and each comparison's summary. Nothing is analysed or read
    /// here: the caller's analyses are kept as they are. Recording the same experiment
    /// again (the same [`content_hash`]) writes nothing.
    ///
    /// # Errors
    /// [`HistoryError::Sql`] naming the store when SQLite fails; nothing of the record is
    /// then kept.
    pub fn record(
        &mut self,
        experiment: &Experiment,
        benchmarks: &[Analysed<'_>],
        context: &Context,
    ) -> Result<Recorded, HistoryError> {
        let rec = build(experiment, benchmarks, context);
        self.insert(&rec)
    }

    fn insert(&mut self, rec: &Record) -> Result<Recorded, HistoryError> {
        let path = self.path.clone();
        let hook = self.run_hook;
        let err = |e| sql_error(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let known: Option<i64> = tx
            .query_row(
                "SELECT id FROM experiments WHERE content_hash = ?1",
                [&rec.content_hash],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        if known.is_some() {
            return Ok(Recorded::AlreadyKept);
        }
        let machine = upsert_machine(&tx, &rec.machine).map_err(err)?;
        // The base first: commits without a time keep the order they were first seen in.
        let base = match &rec.base_commit {
            Some(c) => Some(upsert_commit(&tx, c).map_err(err)?),
            None => None,
        };
        let commit = upsert_commit(&tx, &rec.commit).map_err(err)?;
        tx.execute(
            "INSERT INTO experiments (content_hash, source, file, experiment, seed, design,
                started_at, recorded_at, machine_id, commit_id, base_commit_id, branch, header)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                rec.content_hash,
                rec.source,
                rec.file,
                rec.experiment,
                rec.seed as i64,
                rec.design,
                rec.started_at,
                rec.recorded_at,
                machine,
                commit,
                base,
                rec.commit.branch,
                rec.header_json,
            ],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        insert_runs(&tx, id, rec, hook).map_err(err)?;
        insert_levels_and_summaries(&tx, id, rec, base, commit).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(Recorded::New(id))
    }
}

/// The run rows of experiment `id`.
fn insert_runs(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    rec: &Record,
    hook: Option<fn(usize)>,
) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare(
        "INSERT INTO runs (experiment_id, run, block, position, variant, benchmark,
                value, wall_ns, ok) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (k, run) in rec.runs.iter().enumerate() {
        if let Some(hook) = hook {
            hook(k);
        }
        stmt.execute(params![
            id,
            run.run,
            run.block,
            run.position,
            run.variant,
            run.benchmark,
            run.value,
            run.wall_ns as i64,
            run.ok,
        ])?;
    }
    Ok(())
}

/// The level and summary rows of experiment `id`: a level at the base commit (or a
/// stepping summary) goes to `base`, the rest to `commit`.
fn insert_levels_and_summaries(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    rec: &Record,
    base: Option<i64>,
    commit: i64,
) -> rusqlite::Result<()> {
    for row in &rec.levels {
        let bench = upsert_benchmark(tx, &row.benchmark)?;
        let at = if row.at_base {
            base.unwrap_or(commit)
        } else {
            commit
        };
        let l = &row.level;
        tx.execute(
            "INSERT INTO levels (experiment_id, benchmark_id, commit_id, variant, n, median, low, high)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![id, bench, at, row.variant, l.n as i64, l.median, l.low, l.high],
        )?;
    }
    for s in &rec.summaries {
        let bench = upsert_benchmark(tx, &s.benchmark)?;
        tx.execute(
            "INSERT INTO summaries (experiment_id, benchmark_id, baseline, candidate,
                base_commit_id, commit_id, ratio, low, high, confidence, verdict, outcome,
                p_value, estimator)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                id,
                bench,
                s.baseline,
                s.candidate,
                if s.stepping {
                    base.unwrap_or(commit)
                } else {
                    commit
                },
                commit,
                s.ratio,
                s.interval.map(|i| i[0]),
                s.interval.map(|i| i[1]),
                s.confidence,
                s.verdict,
                s.outcome,
                s.p_value,
                s.estimator,
            ],
        )?;
    }
    Ok(())
}

fn upsert_machine(tx: &rusqlite::Transaction<'_>, m: &MachineInfo) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO machines (fingerprint, name, cpu_model, cores, kernel, memory_kib)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (fingerprint) DO NOTHING",
        params![
            m.fingerprint,
            m.name,
            m.cpu_model,
            m.cores.map(|c| c as i64),
            m.kernel,
            m.memory_kib.map(|k| k as i64)
        ],
    )?;
    tx.query_row(
        "SELECT id FROM machines WHERE fingerprint = ?1",
        [&m.fingerprint],
        |r| r.get(0),
    )
}

fn upsert_commit(tx: &rusqlite::Transaction<'_>, c: &CommitInfo) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO commits (sha, parent, branch, time, subject) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (sha) DO UPDATE SET
            parent = coalesce(commits.parent, excluded.parent),
            branch = coalesce(commits.branch, excluded.branch),
            time = coalesce(commits.time, excluded.time),
            subject = coalesce(commits.subject, excluded.subject)",
        params![c.sha, c.parent, c.branch, c.time, c.subject],
    )?;
    tx.query_row("SELECT id FROM commits WHERE sha = ?1", [&c.sha], |r| {
        r.get(0)
    })
}

fn upsert_benchmark(tx: &rusqlite::Transaction<'_>, b: &BenchmarkKey) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO benchmarks (name, metric, unit, higher_is_better, command)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name, metric) DO NOTHING",
        params![b.name, b.metric, b.unit, b.higher_is_better, b.command],
    )?;
    tx.query_row(
        "SELECT id FROM benchmarks WHERE name = ?1 AND metric = ?2",
        params![b.name, b.metric],
        |r| r.get(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_128_known_answers() {
        // The FNV-1a 128-bit offset basis for the empty input, and the published value of "a".
        assert_eq!(fnv1a_128(b""), "6c62272e07bb014262b821756295c58d");
        assert_eq!(fnv1a_128(b"a"), "d228cb696f1a8caf78912b704e4a8964");
    }
}
