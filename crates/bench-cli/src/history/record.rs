//! Turning one raw file and its analysis into a record of the history: the experiment, its
//! machine and commits, every run, each variant's level and each comparison's summary.
//!
//! Which benchmark a variant belongs to: when the experiment compares two commits (a base
//! commit other than the commit, exactly two variants), both variants are builds of one
//! benchmark (`--bench`, else the suite benchmark's name, else the baseline variant's
//! name), the baseline's level goes to the base commit, the candidate's to the commit, and
//! the comparison is a *step* of that benchmark. Otherwise every variant is measured at the
//! commit: each is its own benchmark (a single variant: `--bench` or its name; several:
//! the variant's name, prefixed by `--bench` or the suite benchmark's name and `/`), and
//! the comparisons between them are kept as summaries but are not steps.

use std::io::Write as _;

use bench_sched::{Experiment, RunRecord};
use bench_stats::{Analysis, Dataset};

use super::git::CommitInfo;

/// A machine: what identifies it (the fingerprint hashes the CPU model, core count,
/// kernel and name) and its name.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineInfo {
    /// 16 hex digits.
    pub fingerprint: String,
    /// The `--host` name (else the hostname).
    pub name: String,
    /// CPU model.
    pub cpu_model: Option<String>,
    /// Logical CPUs.
    pub cores: Option<usize>,
    /// Kernel release.
    pub kernel: Option<String>,
    /// Memory; the raw header does not record it, so `None` for now.
    pub memory_kib: Option<u64>,
}

/// A benchmark series' identity.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkKey {
    /// Its name.
    pub name: String,
    /// The metric (`wall`, `json:FIELD`, ...).
    pub metric: String,
    /// The unit of its values.
    pub unit: String,
    /// Direction.
    pub higher_is_better: bool,
    /// The command of the (candidate) variant, as first recorded.
    pub command: Option<String>,
}

/// One run as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub run: u32,
    pub block: u32,
    pub position: u32,
    pub variant: String,
    pub benchmark: Option<String>,
    pub value: Option<f64>,
    pub wall_ns: u64,
    pub ok: bool,
}

/// One variant's level at one commit.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelRow {
    pub benchmark: BenchmarkKey,
    pub variant: String,
    /// At the base commit (else at the commit).
    pub at_base: bool,
    pub n: usize,
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

/// One comparison's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    pub benchmark: BenchmarkKey,
    pub baseline: String,
    pub candidate: String,
    /// Base commit to commit (a step), else both at the commit.
    pub stepping: bool,
    pub ratio: Option<f64>,
    pub interval: Option<[f64; 2]>,
    pub confidence: f64,
    pub verdict: String,
    pub outcome: String,
    pub p_value: Option<f64>,
    pub estimator: String,
}

/// Everything one record writes.
#[derive(Debug, Clone)]
pub struct Record {
    pub content_hash: String,
    pub source: String,
    pub file: Option<String>,
    pub experiment: String,
    pub seed: u64,
    pub design: String,
    pub started_at: String,
    pub recorded_at: String,
    pub machine: MachineInfo,
    pub commit: CommitInfo,
    pub base_commit: Option<CommitInfo>,
    pub header_json: String,
    pub raw_deflated: Vec<u8>,
    pub runs: Vec<RunRow>,
    pub levels: Vec<LevelRow>,
    pub summaries: Vec<SummaryRow>,
}

/// The 128-bit FNV-1a hash (Fowler, Noll & Vo), as 32 hex digits.
pub fn fnv1a_128(bytes: &[u8]) -> String {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    for &b in bytes {
        h ^= u128::from(b);
        h = h.wrapping_mul(PRIME);
    }
    format!("{h:032x}")
}

/// The raw file's header and runs as canonical JSONL (one line each, in file order,
/// without the end lines): what the content hash covers and what the store keeps
/// (compressed). The same file gives the same text whichever command records it.
pub fn canonical_jsonl(raw: &Experiment) -> String {
    let mut text = serde_json::to_string(&raw.header).unwrap_or_default();
    text.push('\n');
    for run in &raw.runs {
        text.push_str(&serde_json::to_string(run).unwrap_or_default());
        text.push('\n');
    }
    text
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Inflates a stored raw file.
#[cfg(test)]
pub fn inflate(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
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

/// The distribution-free interval of the median of `sorted` (ascending, non-empty): the
/// order statistics at ranks `n/2 -+ z sqrt(n)/2` (the binomial's normal approximation),
/// as the suite's medians use.
fn median_interval(sorted: &[f64], z: f64) -> (f64, f64, f64) {
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        sorted[n / 2 - 1] / 2.0 + sorted[n / 2] / 2.0
    };
    let half = z * (n as f64).sqrt() / 2.0;
    let lo = ((n as f64) / 2.0 - half).floor().max(0.0) as usize;
    let hi = (((n as f64) / 2.0 + half).ceil() as usize).min(n - 1);
    (median, sorted[lo.min(n - 1)], sorted[hi])
}

/// One analysed benchmark of a raw file: its data and analysis.
#[derive(Debug)]
pub struct Unit<'a> {
    /// The suite benchmark's name (`None` for a plain experiment).
    pub suite_name: Option<String>,
    /// Metric of the benchmark.
    pub metric: String,
    /// Its data.
    pub dataset: &'a Dataset,
    /// Its analysis.
    pub analysis: &'a Analysis,
}

/// Who records and what they tell of it.
#[derive(Debug, Clone)]
pub struct Context {
    /// `compare`, `suite`, `analyze`, `import`.
    pub source: String,
    /// `--bench`.
    pub bench: Option<String>,
    pub commit: CommitInfo,
    pub base_commit: Option<CommitInfo>,
}

fn command_of(raw: &Experiment, variant: &str) -> Option<String> {
    raw.header
        .variants
        .iter()
        .find(|v| v.name == variant)
        .map(|v| v.command.clone())
}

/// The level rows (one per series) and the summary rows (one per comparison) of one
/// analysed unit of the file.
fn unit_rows(
    raw: &Experiment,
    unit: &Unit<'_>,
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
    let baseline = group.baseline.clone();
    let stepping = stepping_commits && series.len() == 2;
    let key = |variant: &str| -> BenchmarkKey {
        let name = if stepping {
            ctx.bench
                .clone()
                .or_else(|| unit.suite_name.clone())
                .unwrap_or_else(|| baseline.clone())
        } else if series.len() == 1 && unit.suite_name.is_none() {
            ctx.bench.clone().unwrap_or_else(|| variant.to_owned())
        } else {
            match ctx.bench.clone().or_else(|| unit.suite_name.clone()) {
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
            metric: unit.metric.clone(),
            unit: unit.analysis.unit.clone(),
            higher_is_better: unit.analysis.higher_is_better,
            command,
        }
    };
    for s in &series {
        let mut v: Vec<f64> = s.observations.iter().map(|o| o.value).collect();
        v.sort_by(f64::total_cmp);
        let (median, low, high) = median_interval(&v, 1.959_963_984_540_054);
        levels.push(LevelRow {
            benchmark: key(&s.name),
            variant: s.name.clone(),
            at_base: stepping && s.name == baseline,
            n: v.len(),
            median,
            low,
            high,
        });
    }
    for c in &group.comparisons {
        summaries.push(SummaryRow {
            benchmark: key(&c.candidate),
            baseline: baseline.clone(),
            candidate: c.candidate.clone(),
            stepping,
            ratio: c.ratio.filter(|r| r.is_finite() && *r > 0.0),
            interval: c
                .ratio_ci
                .filter(|i| i[0].is_finite() && i[1].is_finite() && i[0] > 0.0),
            // The typical run's interval is at its share of the family level.
            confidence: c
                .distribution
                .as_ref()
                .map_or(unit.analysis.confidence, |d| d.confidence),
            verdict: match c.verdict {
                bench_stats::Verdict::Significant => "significant",
                bench_stats::Verdict::NotSignificant => "not-significant",
                bench_stats::Verdict::NotTested => "not-tested",
                _ => "not-tested",
            }
            .into(),
            outcome: c.outcome.as_str().into(),
            p_value: c
                .decision
                .as_ref()
                .and_then(|d| d.p_value_adjusted.or(d.p_value)),
            estimator: c.verdict_basis.to_string(),
        });
    }
}

/// Builds the record of one raw file and the analyses of its benchmarks.
pub fn build(raw: &Experiment, units: &[Unit<'_>], ctx: &Context) -> Record {
    let text = canonical_jsonl(raw);
    let values = raw.measured_values();
    let runs = raw
        .runs
        .iter()
        .enumerate()
        .map(|(k, r): (usize, &RunRecord)| RunRow {
            run: r.run,
            block: r.block,
            position: r.position,
            variant: r.variant.clone(),
            benchmark: r.benchmark.clone(),
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
        content_hash: fnv1a_128(text.as_bytes()),
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
        raw_deflated: deflate(text.as_bytes()),
        runs,
        levels,
        summaries,
    }
}

/// A fault-injection point for the crash test: with `ABBA_HISTORY_CRASH_AFTER_RUNS=N` set,
/// the recording process aborts (no unwinding, no cleanup: as `kill -9` would stop it)
/// while inserting run `N` of a record, inside its open transaction.
pub fn crash_point(run_index: usize) {
    thread_local! {
        static AT: Option<usize> = std::env::var("ABBA_HISTORY_CRASH_AFTER_RUNS")
            .ok()
            .and_then(|v| v.parse().ok());
    }
    if AT.with(|at| *at == Some(run_index)) {
        std::process::abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_raw_file_inflates_to_its_canonical_text() {
        let text = "{\"schema\":\"abba.raw/1\"}\n{\"run\":0}\n".repeat(50);
        assert_eq!(inflate(&deflate(text.as_bytes())).unwrap(), text.as_bytes());
    }

    #[test]
    fn fnv1a_128_known_answers() {
        // The FNV-1a 128-bit offset basis for the empty input, and the published value of "a".
        assert_eq!(fnv1a_128(b""), "6c62272e07bb014262b821756295c58d");
        assert_eq!(fnv1a_128(b"a"), "d228cb696f1a8caf78912b704e4a8964");
    }

    #[test]
    fn median_interval_of_nine_values() {
        let v: Vec<f64> = (1..=9).map(f64::from).collect();
        let (m, lo, hi) = median_interval(&v, 1.959_963_984_540_054);
        assert_eq!(m, 5.0);
        // ranks n/2 -+ 1.96 * 3 / 2 = 4.5 -+ 2.94: floor(1.56) = 1 and ceil(7.44) = 8 (0-based)
        assert_eq!((lo, hi), (2.0, 9.0));
    }
}
