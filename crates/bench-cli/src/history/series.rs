//! Reading series back: per benchmark and machine, the commits in order with their level
//! (median run and interval) and the paired step that arrives at each, the change points
//! of the levels (e-divisive means) and the chain of steps.

use std::collections::{BTreeMap, HashMap};

use rusqlite::params_from_iter;

use super::stats::{self, Chain, ChangePoint, ChangePointConfig, Step};
use super::store::Store;

/// The filters every reading subcommand takes.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// A machine's name or a prefix of its fingerprint.
    pub machine: Option<String>,
    /// The branch recorded with the experiments.
    pub branch: Option<String>,
    /// A date (`YYYY-MM-DD`, commits at or after it) or a commit (hash prefix: the
    /// series from it on).
    pub since: Option<String>,
    /// The metric (`wall`, `json:FIELD`, ...).
    pub metric: Option<String>,
}

/// A benchmark as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Benchmark {
    pub id: i64,
    pub name: String,
    pub metric: String,
    pub unit: String,
    pub higher_is_better: bool,
    pub command: Option<String>,
}

/// A machine as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub id: i64,
    pub fingerprint: String,
    pub name: String,
    pub cpu_model: Option<String>,
    pub cores: Option<i64>,
    pub kernel: Option<String>,
}

/// A commit as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Commit {
    pub id: i64,
    pub sha: String,
    pub parent: Option<String>,
    pub time: Option<i64>,
    pub subject: Option<String>,
}

impl Commit {
    /// The first 10 characters of the hash (all of a shorter label).
    pub fn short(&self) -> &str {
        let end = self
            .sha
            .char_indices()
            .nth(10)
            .map_or(self.sha.len(), |(i, _)| i);
        &self.sha[..end]
    }
}

/// A commit's level: the median of its experiments' median runs, with an interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub median: f64,
    pub low: f64,
    pub high: f64,
    /// Runs behind it.
    pub n: i64,
    /// Experiments behind it (several: the interval spans all of theirs).
    pub experiments: usize,
}

/// A paired comparison arriving at a commit.
#[derive(Debug, Clone, PartialEq)]
pub struct StepRow {
    /// The base commit's index in the series.
    pub from: usize,
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
    pub outcome: String,
    pub verdict: String,
    pub p_value: Option<f64>,
    pub estimator: String,
    pub experiment_id: i64,
}

impl StepRow {
    /// The step for the chain: its log ratio and the standard error its interval implies.
    pub fn step(&self) -> Option<Step> {
        Step::from_interval(self.ratio, [self.low, self.high], self.confidence)
    }
}

/// One point of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub commit: Commit,
    pub level: Option<Level>,
    /// The latest recorded step from an earlier commit of the series to this one.
    pub step: Option<StepRow>,
}

/// The chain of steps from an earlier commit to the newest one.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainReport {
    /// Index of the first commit.
    pub from: usize,
    /// Index of the last.
    pub to: usize,
    /// The points whose steps make the chain, in order.
    pub steps: Vec<usize>,
    pub chain: Chain,
}

/// One benchmark on one machine.
#[derive(Debug, Clone)]
pub struct Series {
    pub benchmark: Benchmark,
    pub machine: Machine,
    pub points: Vec<Point>,
    /// Change points of the levels; `index` is a point index.
    pub change_points: Vec<ChangePoint>,
    pub chain: Option<ChainReport>,
}

/// Change-point and chain options.
#[derive(Debug, Clone)]
pub struct Detect {
    pub change_points: ChangePointConfig,
    pub confidence: f64,
}

fn date_to_unix(date: &str) -> Option<i64> {
    let mut it = date.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if it.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468) * 86_400)
}

impl Store {
    /// Every benchmark matching the metric filter (and the name, when given), by name.
    pub fn benchmarks(
        &self,
        name: Option<&str>,
        filter: &Filter,
    ) -> anyhow::Result<Vec<Benchmark>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, name, metric, unit, higher_is_better, command FROM benchmarks
                 WHERE (?1 IS NULL OR name = ?1) AND (?2 IS NULL OR metric = ?2)
                 ORDER BY name, metric",
            )
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(rusqlite::params![name, filter.metric], |r| {
                Ok(Benchmark {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    metric: r.get(2)?,
                    unit: r.get(3)?,
                    higher_is_better: r.get(4)?,
                    command: r.get(5)?,
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }

    /// Every machine matching the filter.
    pub fn machines(&self, filter: &Filter) -> anyhow::Result<Vec<Machine>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, fingerprint, name, cpu_model, cores, kernel FROM machines
                 WHERE ?1 IS NULL OR name = ?1 OR fingerprint LIKE ?1 || '%'
                 ORDER BY name, fingerprint",
            )
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map([&filter.machine], |r| {
                Ok(Machine {
                    id: r.get(0)?,
                    fingerprint: r.get(1)?,
                    name: r.get(2)?,
                    cpu_model: r.get(3)?,
                    cores: r.get(4)?,
                    kernel: r.get(5)?,
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }

    /// Counts for `list`: experiments, runs.
    pub fn counts(&self) -> anyhow::Result<(i64, i64)> {
        let e = self
            .conn
            .query_row("SELECT count(*) FROM experiments", [], |r| r.get(0))
            .map_err(|e| self.error(e))?;
        let r = self
            .conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
            .map_err(|e| self.error(e))?;
        Ok((e, r))
    }

    /// The series of `bench` on each machine matching the filter (machines without data
    /// left out), with change points and the chain.
    pub fn series(
        &self,
        bench: &Benchmark,
        filter: &Filter,
        detect: &Detect,
    ) -> anyhow::Result<Vec<Series>> {
        let machines = self.machines(filter)?;
        let mut out = Vec::new();
        for m in machines {
            if let Some(s) = self.one_series(bench, &m, filter, detect)? {
                out.push(s);
            }
        }
        Ok(out)
    }

    fn one_series(
        &self,
        bench: &Benchmark,
        machine: &Machine,
        filter: &Filter,
        detect: &Detect,
    ) -> anyhow::Result<Option<Series>> {
        let levels = self.levels_of(bench, machine, filter)?;
        let steps = self.steps_of(bench, machine, filter)?;
        let mut ids: Vec<i64> = levels.keys().copied().collect();
        for (b, c, _) in &steps {
            ids.push(*b);
            ids.push(*c);
        }
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(None);
        }
        let mut commits = self.commits(&ids)?;
        // A commit git knows no parent of (a label) follows the base of a step into it.
        let sha_of: HashMap<i64, String> = commits.iter().map(|c| (c.id, c.sha.clone())).collect();
        for c in &mut commits {
            if c.parent.is_none() {
                c.parent = steps
                    .iter()
                    .find(|(_, to, _)| *to == c.id)
                    .and_then(|(from, _, _)| sha_of.get(from).cloned());
            }
        }
        let mut ordered = order_commits(commits);
        since(&mut ordered, filter, bench)?;
        let index: HashMap<i64, usize> =
            ordered.iter().enumerate().map(|(k, c)| (c.id, k)).collect();
        let mut points: Vec<Point> = ordered
            .into_iter()
            .map(|c| {
                let level = levels.get(&c.id).map(|v| combine(v));
                Point {
                    commit: c,
                    level,
                    step: None,
                }
            })
            .collect();
        for (b, c, mut row) in steps {
            if let (Some(&from), Some(&to)) = (index.get(&b), index.get(&c)) {
                if from < to {
                    row.from = from;
                    points[to].step = Some(row);
                }
            }
        }
        if points.iter().all(|p| p.level.is_none() && p.step.is_none()) {
            return Ok(None);
        }
        let (change_points, chain) = analyse(&points, detect)?;
        Ok(Some(Series {
            benchmark: bench.clone(),
            machine: machine.clone(),
            points,
            change_points,
            chain,
        }))
    }

    /// Each commit's levels of `bench` on `machine`: (median, low, high, n) by commit id.
    fn levels_of(
        &self,
        bench: &Benchmark,
        machine: &Machine,
        filter: &Filter,
    ) -> anyhow::Result<HashMap<i64, Vec<StoredLevel>>> {
        let err = |e| self.error(e);
        // Levels: (commit id, median, low, high, n).
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT l.commit_id, l.median, l.low, l.high, l.n
                 FROM levels l JOIN experiments e ON e.id = l.experiment_id
                 WHERE l.benchmark_id = ?1 AND e.machine_id = ?2
                   AND (?3 IS NULL OR e.branch = ?3)
                 ORDER BY e.id",
            )
            .map_err(err)?;
        let mut levels: HashMap<i64, Vec<(f64, f64, f64, i64)>> = HashMap::new();
        let rows = stmt
            .query_map(
                rusqlite::params![bench.id, machine.id, filter.branch],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                    ))
                },
            )
            .map_err(err)?;
        for row in rows {
            let (c, v) = row.map_err(err)?;
            levels.entry(c).or_default().push(v);
        }
        Ok(levels)
    }

    /// Every recorded step of `bench` on `machine`: (base commit, commit, step), the latest
    /// recorded last.
    fn steps_of(
        &self,
        bench: &Benchmark,
        machine: &Machine,
        filter: &Filter,
    ) -> anyhow::Result<Vec<RawStep>> {
        let err = |e| self.error(e);
        // Steps: (base commit, commit, ...), the latest recorded last.
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT s.base_commit_id, s.commit_id, s.ratio, s.low, s.high, s.confidence,
                        s.outcome, s.verdict, s.p_value, s.estimator, s.experiment_id
                 FROM summaries s JOIN experiments e ON e.id = s.experiment_id
                 WHERE s.benchmark_id = ?1 AND e.machine_id = ?2
                   AND s.base_commit_id != s.commit_id
                   AND s.ratio IS NOT NULL AND s.low IS NOT NULL AND s.high IS NOT NULL
                   AND (?3 IS NULL OR e.branch = ?3)
                 ORDER BY e.id",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map(
                rusqlite::params![bench.id, machine.id, filter.branch],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        StepRow {
                            from: 0,
                            ratio: r.get(2)?,
                            low: r.get(3)?,
                            high: r.get(4)?,
                            confidence: r.get(5)?,
                            outcome: r.get(6)?,
                            verdict: r.get(7)?,
                            p_value: r.get(8)?,
                            estimator: r.get(9)?,
                            experiment_id: r.get(10)?,
                        },
                    ))
                },
            )
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    fn commits(&self, ids: &[i64]) -> anyhow::Result<Vec<Commit>> {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT id, sha, parent, time, subject FROM commits WHERE id IN ({marks})"
                ))
                .map_err(|e| self.error(e))?;
            let rows = stmt
                .query_map(params_from_iter(chunk.iter()), |r| {
                    Ok(Commit {
                        id: r.get(0)?,
                        sha: r.get(1)?,
                        parent: r.get(2)?,
                        time: r.get(3)?,
                        subject: r.get(4)?,
                    })
                })
                .map_err(|e| self.error(e))?;
            for row in rows {
                out.push(row.map_err(|e| self.error(e))?);
            }
        }
        Ok(out)
    }
}

/// Several experiments' levels of one commit: the median of their medians, the interval
/// spanning all of theirs.
fn combine(v: &[(f64, f64, f64, i64)]) -> Level {
    let mut medians: Vec<f64> = v.iter().map(|x| x.0).collect();
    medians.sort_by(f64::total_cmp);
    let k = medians.len();
    let median = if k % 2 == 1 {
        medians[k / 2]
    } else {
        medians[k / 2 - 1] / 2.0 + medians[k / 2] / 2.0
    };
    Level {
        median,
        low: v.iter().map(|x| x.1).fold(f64::INFINITY, f64::min),
        high: v.iter().map(|x| x.2).fold(f64::NEG_INFINITY, f64::max),
        n: v.iter().map(|x| x.3).sum(),
        experiments: k,
    }
}

/// A commit's level as stored: (median, low, high, n).
type StoredLevel = (f64, f64, f64, i64);

/// A stored step: (base commit id, commit id, the step).
type RawStep = (i64, i64, StepRow);

/// `--since`: a date, or a commit to start from.
fn since(ordered: &mut Vec<Commit>, filter: &Filter, bench: &Benchmark) -> anyhow::Result<()> {
    if let Some(since) = &filter.since {
        if let Some(t) = date_to_unix(since) {
            ordered.retain(|c| c.time.is_some_and(|ct| ct >= t));
        } else if let Some(k) = ordered
            .iter()
            .position(|c| c.sha.starts_with(since.as_str()))
        {
            ordered.drain(..k);
        } else {
            return Err(crate::exit::usage(format!(
                "--since {since}: neither a date (YYYY-MM-DD) nor a recorded commit of {}",
                bench.name
            )));
        }
    }
    Ok(())
}

/// Commits in history order: by commit time (then first recorded), every parent that is
/// in the set before its child.
pub fn order_commits(mut commits: Vec<Commit>) -> Vec<Commit> {
    commits.sort_by_key(|c| (c.time.unwrap_or(i64::MAX), c.id));
    let by_sha: BTreeMap<String, usize> = commits
        .iter()
        .enumerate()
        .map(|(k, c)| (c.sha.clone(), k))
        .collect();
    let mut done = vec![false; commits.len()];
    let mut order = Vec::with_capacity(commits.len());
    for start in 0..commits.len() {
        // Walk up the parents still to emit, then emit them oldest first.
        let mut stack = Vec::new();
        let mut at = Some(start);
        while let Some(k) = at {
            if done[k] || stack.contains(&k) {
                break;
            }
            stack.push(k);
            at = commits[k]
                .parent
                .as_ref()
                .and_then(|p| by_sha.get(p))
                .copied();
        }
        for &k in stack.iter().rev() {
            done[k] = true;
            order.push(k);
        }
    }
    let mut slots: Vec<Option<Commit>> = commits.into_iter().map(Some).collect();
    order.into_iter().filter_map(|k| slots[k].take()).collect()
}

/// The change points of the levels and the chain of steps ending at the newest commit.
fn analyse(
    points: &[Point],
    detect: &Detect,
) -> anyhow::Result<(Vec<ChangePoint>, Option<ChainReport>)> {
    let with_level: Vec<usize> = (0..points.len())
        .filter(|&k| points[k].level.is_some())
        .collect();
    let values: Vec<f64> = with_level
        .iter()
        .filter_map(|&k| points[k].level.as_ref().map(|l| l.median))
        .collect();
    let change_points = stats::try_e_divisive(&values, &detect.change_points)
        .map_err(|e| crate::exit::usage(format!("change points: {e}")))?
        .into_iter()
        .filter_map(|mut c| {
            c.index = *with_level.get(c.index)?;
            Some(c)
        })
        .collect();
    // The chain: from the newest commit back along recorded steps.
    let mut chain_points = Vec::new();
    let mut at = points.len().checked_sub(1);
    while let Some(k) = at {
        match &points[k].step {
            Some(s) if s.step().is_some() => {
                chain_points.push(k);
                at = Some(s.from);
            }
            _ => break,
        }
    }
    chain_points.reverse();
    let chain = chain_points.first().and_then(|&first| {
        let steps: Vec<Step> = chain_points
            .iter()
            .filter_map(|&k| points[k].step.as_ref().and_then(StepRow::step))
            .collect();
        let from = points[first].step.as_ref()?.from;
        let chain = stats::chain(&steps, detect.confidence)?;
        Some(ChainReport {
            from,
            to: points.len() - 1,
            steps: chain_points.clone(),
            chain,
        })
    });
    Ok((change_points, chain))
}
