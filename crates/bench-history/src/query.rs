//! Reading series back: per benchmark and machine, the commits in history order with
//! their level and the paired step that arrives at each; the statistics of the series
//! (change points, chain) are `bench_stats::history::Series::analyse`'s.

use std::collections::{BTreeMap, HashMap};

use bench_stats::history::{
    Commit, Level, PairedStep, Point, Series, SeriesBenchmark, SeriesConfig, SeriesMachine,
};
use rusqlite::params_from_iter;

use crate::{HistoryError, Store};

/// Which experiments a reading takes: every field `None` takes all.
#[derive(Debug, Clone, Default, PartialEq)]
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

/// Series read back ([`Store::read_series`]), with those that do not hold the filter's
/// `since` commit.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SeriesRead {
    /// The series, by benchmark then machine.
    pub series: Vec<Series>,
    /// (benchmark, machine) of each series without the `since` commit: taken from that
    /// commit's time on, or whole when its time is not known.
    pub without_since: Vec<(String, String)>,
}

/// A commit as stored: its row id (the order it was first seen in) and its facts.
#[derive(Debug, Clone, PartialEq)]
struct StoredCommit {
    id: i64,
    commit: Commit,
}

/// A stored step: (base commit id, commit id, the step).
type RawStep = (i64, i64, PairedStep);

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
    /// Every benchmark matching the filter's metric (and `name`, when given), by name.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn benchmarks(
        &self,
        name: Option<&str>,
        filter: &Filter,
    ) -> Result<Vec<SeriesBenchmark>, HistoryError> {
        Ok(self
            .stored_benchmarks(name, filter)?
            .into_iter()
            .map(|(_, b)| b)
            .collect())
    }

    fn stored_benchmarks(
        &self,
        name: Option<&str>,
        filter: &Filter,
    ) -> Result<Vec<(i64, SeriesBenchmark)>, HistoryError> {
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
                Ok((
                    r.get(0)?,
                    SeriesBenchmark {
                        name: r.get(1)?,
                        metric: r.get(2)?,
                        unit: r.get(3)?,
                        higher_is_better: r.get(4)?,
                        command: r.get(5)?,
                    },
                ))
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }

    /// Every machine matching the filter, by name.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn machines(&self, filter: &Filter) -> Result<Vec<SeriesMachine>, HistoryError> {
        Ok(self
            .stored_machines(filter)?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    fn stored_machines(&self, filter: &Filter) -> Result<Vec<(i64, SeriesMachine)>, HistoryError> {
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
                Ok((
                    r.get(0)?,
                    SeriesMachine {
                        fingerprint: r.get(1)?,
                        name: r.get(2)?,
                        cpu_model: r.get(3)?,
                        cores: r.get(4)?,
                        kernel: r.get(5)?,
                    },
                ))
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }

    /// How many experiments and runs the store holds.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn counts(&self) -> Result<(u64, u64), HistoryError> {
        let count = |sql: &str| -> Result<u64, HistoryError> {
            let n: i64 = self
                .conn
                .query_row(sql, [], |r| r.get(0))
                .map_err(|e| self.error(e))?;
            Ok(n.max(0) as u64)
        };
        Ok((
            count("SELECT count(*) FROM experiments")?,
            count("SELECT count(*) FROM runs")?,
        ))
    }

    /// Every series of the benchmarks named `bench` (all when `None`) on every machine
    /// matching the filter, with their change points and chains.
    ///
    /// # Errors
    /// [`HistoryError::UnknownBenchmark`] when `bench` names none (under the filter's
    /// metric), [`HistoryError::UnknownSince`], [`HistoryError::ChangePoints`],
    /// [`HistoryError::Sql`].
    pub fn all_series(
        &self,
        bench: Option<&str>,
        filter: &Filter,
        config: &SeriesConfig,
    ) -> Result<Vec<Series>, HistoryError> {
        Ok(self.read_series(bench, filter, config)?.series)
    }

    /// Every series under `filter` for a listing (`abba history list`): as
    /// [`Store::read_series`] of every benchmark, and without a metric in the filter the
    /// CPU-time series kept beside wall time too, by benchmark name then metric.
    ///
    /// # Errors
    /// As [`Store::read_series`].
    pub fn list_series(
        &self,
        filter: &Filter,
        config: &SeriesConfig,
    ) -> Result<SeriesRead, HistoryError> {
        let mut read = self.read_series(None, filter, config)?;
        if filter.metric.is_some() {
            return Ok(read);
        }
        let cpu = Filter {
            metric: Some("cpu".to_owned()),
            ..filter.clone()
        };
        let twins = self.read_series(None, &cpu, config)?;
        read.without_since.extend(twins.without_since);
        for c in twins.series {
            if !read
                .series
                .iter()
                .any(|s| s.benchmark == c.benchmark && s.machine == c.machine)
            {
                read.series.push(c);
            }
        }
        read.series.sort_by(|a, b| {
            (&a.benchmark.name, &a.benchmark.metric).cmp(&(&b.benchmark.name, &b.benchmark.metric))
        });
        Ok(read)
    }

    /// Without a metric in the filter, a benchmark's `cpu` series kept beside its `wall`
    /// series ([`crate::cpu_twin`]) is left out: it is read with the metric `cpu`.
    ///
    /// As [`Store::all_series`], with the series that do not hold the filter's `since`
    /// commit named ([`SeriesRead::without_since`]): such a series (a benchmark added after
    /// that commit, or not measured at it) is taken from the commit's time on (whole when
    /// the commit's time is not known). Only when no series holds the commit is it an
    /// error.
    ///
    /// # Errors
    /// As [`Store::all_series`]; [`HistoryError::UnknownSince`] when `since` is neither a
    /// date nor a commit of any series read.
    pub fn read_series(
        &self,
        bench: Option<&str>,
        filter: &Filter,
        config: &SeriesConfig,
    ) -> Result<SeriesRead, HistoryError> {
        let mut benchmarks = self.stored_benchmarks(bench, filter)?;
        if filter.metric.is_none() {
            // The CPU-time series kept beside a wall-time one is read when asked for
            // (`--metric cpu`), so a benchmark's default series stays its wall time.
            let walls: Vec<String> = benchmarks
                .iter()
                .filter(|(_, b)| b.metric == "wall")
                .map(|(_, b)| b.name.clone())
                .collect();
            benchmarks.retain(|(_, b)| b.metric != "cpu" || !walls.contains(&b.name));
        }
        if let (Some(name), true) = (bench, benchmarks.is_empty()) {
            let known = self
                .benchmarks(None, &Filter::default())?
                .into_iter()
                .map(|b| b.name)
                .collect();
            return Err(HistoryError::UnknownBenchmark {
                path: self.path.clone(),
                name: name.to_owned(),
                metric: filter.metric.clone(),
                known,
            });
        }
        let since_time = self.since_time(filter)?;
        let mut read = SeriesRead::default();
        for b in &benchmarks {
            for (s, found) in self.series_of(b, filter, config, since_time)? {
                if !found {
                    read.without_since
                        .push((s.benchmark.name.clone(), s.machine.name.clone()));
                }
                read.series.push(s);
            }
        }
        if let Some(since) = &filter.since {
            let none_holds =
                !read.series.is_empty() && read.without_since.len() == read.series.len();
            if none_holds {
                return Err(HistoryError::UnknownSince {
                    since: since.clone(),
                    benchmark: bench.unwrap_or("any benchmark").to_owned(),
                });
            }
        }
        Ok(read)
    }

    /// The commit time of the filter's `since` when it is a recorded commit (a hash
    /// prefix) rather than a date.
    fn since_time(&self, filter: &Filter) -> Result<Option<i64>, HistoryError> {
        let Some(since) = filter
            .since
            .as_deref()
            .filter(|s| date_to_unix(s).is_none())
        else {
            return Ok(None);
        };
        let mut stmt = self
            .conn
            .prepare("SELECT time FROM commits WHERE substr(sha, 1, length(?1)) = ?1 AND time IS NOT NULL ORDER BY time LIMIT 1")
            .map_err(|e| self.error(e))?;
        let mut rows = stmt
            .query_map([since], |r| r.get::<_, i64>(0))
            .map_err(|e| self.error(e))?;
        rows.next().transpose().map_err(|e| self.error(e))
    }

    /// The series of `bench` on each machine matching the filter (machines without data
    /// left out), with change points and the chain.
    ///
    /// # Errors
    /// As [`Store::all_series`].
    pub fn series(
        &self,
        bench: &SeriesBenchmark,
        filter: &Filter,
        config: &SeriesConfig,
    ) -> Result<Vec<Series>, HistoryError> {
        let by_name = Filter {
            metric: Some(bench.metric.clone()),
            ..Filter::default()
        };
        let since_time = self.since_time(filter)?;
        match self.stored_benchmarks(Some(&bench.name), &by_name)?.first() {
            Some(b) => Ok(self
                .series_of(b, filter, config, since_time)?
                .into_iter()
                .map(|(s, _)| s)
                .collect()),
            None => Ok(Vec::new()),
        }
    }

    /// Each machine's series of `bench`, with whether it holds the filter's `since`.
    fn series_of(
        &self,
        bench: &(i64, SeriesBenchmark),
        filter: &Filter,
        config: &SeriesConfig,
        since_time: Option<i64>,
    ) -> Result<Vec<(Series, bool)>, HistoryError> {
        let mut out = Vec::new();
        for m in self.stored_machines(filter)? {
            if let Some(s) = self.one_series(bench, &m, filter, config, since_time)? {
                out.push(s);
            }
        }
        Ok(out)
    }

    fn one_series(
        &self,
        (bench_id, bench): &(i64, SeriesBenchmark),
        (machine_id, machine): &(i64, SeriesMachine),
        filter: &Filter,
        config: &SeriesConfig,
        since_time: Option<i64>,
    ) -> Result<Option<(Series, bool)>, HistoryError> {
        let levels = self.levels_of(*bench_id, *machine_id, filter)?;
        let steps = self.steps_of(*bench_id, *machine_id, filter)?;
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
        let sha_of: HashMap<i64, String> = commits
            .iter()
            .map(|c| (c.id, c.commit.sha.clone()))
            .collect();
        for c in &mut commits {
            if c.commit.parent.is_none() {
                c.commit.parent = steps
                    .iter()
                    .find(|(_, to, _)| *to == c.id)
                    .and_then(|(from, _, _)| sha_of.get(from).cloned());
            }
        }
        let mut ordered = order_commits(commits);
        let found = since(&mut ordered, filter, since_time);
        let index: HashMap<i64, usize> =
            ordered.iter().enumerate().map(|(k, c)| (c.id, k)).collect();
        let mut points: Vec<Point> = ordered
            .into_iter()
            .map(|c| {
                let level = levels.get(&c.id).and_then(|v| Level::pooled(v));
                Point {
                    commit: c.commit,
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
        Series::analyse(bench.clone(), machine.clone(), points, config)
            .map(|s| Some((s, found)))
            .map_err(HistoryError::ChangePoints)
    }

    /// Each commit's levels of a benchmark on a machine, by commit id, in record order.
    fn levels_of(
        &self,
        bench: i64,
        machine: i64,
        filter: &Filter,
    ) -> Result<HashMap<i64, Vec<Level>>, HistoryError> {
        let err = |e| self.error(e);
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
        let mut levels: HashMap<i64, Vec<Level>> = HashMap::new();
        let rows = stmt
            .query_map(rusqlite::params![bench, machine, filter.branch], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    Level {
                        median: r.get(1)?,
                        low: r.get(2)?,
                        high: r.get(3)?,
                        n: r.get::<_, i64>(4)?.max(0) as u64,
                        experiments: 1,
                    },
                ))
            })
            .map_err(err)?;
        for row in rows {
            let (c, v) = row.map_err(err)?;
            levels.entry(c).or_default().push(v);
        }
        Ok(levels)
    }

    /// Every recorded step of a benchmark on a machine: (base commit, commit, step), the
    /// latest recorded last.
    fn steps_of(
        &self,
        bench: i64,
        machine: i64,
        filter: &Filter,
    ) -> Result<Vec<RawStep>, HistoryError> {
        let err = |e| self.error(e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT s.base_commit_id, s.commit_id, s.ratio, s.low, s.high, s.confidence,
                        s.outcome, s.verdict, s.p_value, s.estimator
                 FROM summaries s JOIN experiments e ON e.id = s.experiment_id
                 WHERE s.benchmark_id = ?1 AND e.machine_id = ?2
                   AND s.base_commit_id != s.commit_id
                   AND s.ratio IS NOT NULL AND s.low IS NOT NULL AND s.high IS NOT NULL
                   AND (?3 IS NULL OR e.branch = ?3)
                 ORDER BY e.id",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map(rusqlite::params![bench, machine, filter.branch], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    PairedStep {
                        from: 0,
                        ratio: r.get(2)?,
                        low: r.get(3)?,
                        high: r.get(4)?,
                        confidence: r.get(5)?,
                        outcome: r.get(6)?,
                        verdict: r.get(7)?,
                        p_value: r.get(8)?,
                        estimator: r.get(9)?,
                    },
                ))
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    fn commits(&self, ids: &[i64]) -> Result<Vec<StoredCommit>, HistoryError> {
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
                    Ok(StoredCommit {
                        id: r.get(0)?,
                        commit: Commit {
                            sha: r.get(1)?,
                            parent: r.get(2)?,
                            time: r.get(3)?,
                            subject: r.get(4)?,
                        },
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

/// The filter's `since`: a date, or a commit to start from. A series without that commit
/// starts at its time (`since_time`, when the commit is recorded with one), else is
/// taken whole; returns whether the series holds it (always true for a date).
fn since(ordered: &mut Vec<StoredCommit>, filter: &Filter, since_time: Option<i64>) -> bool {
    let Some(since) = &filter.since else {
        return true;
    };
    if let Some(t) = date_to_unix(since) {
        ordered.retain(|c| c.commit.time.is_some_and(|ct| ct >= t));
        return true;
    }
    if let Some(k) = ordered
        .iter()
        .position(|c| c.commit.sha.starts_with(since.as_str()))
    {
        ordered.drain(..k);
        return true;
    }
    if let Some(t) = since_time {
        ordered.retain(|c| c.commit.time.is_none_or(|ct| ct >= t));
    }
    false
}

/// Commits in history order: by commit time (then first recorded), every parent that is
/// in the set before its child.
fn order_commits(mut commits: Vec<StoredCommit>) -> Vec<StoredCommit> {
    commits.sort_by_key(|c| (c.commit.time.unwrap_or(i64::MAX), c.id));
    let by_sha: BTreeMap<String, usize> = commits
        .iter()
        .enumerate()
        .map(|(k, c)| (c.commit.sha.clone(), k))
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
                .commit
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
    let mut slots: Vec<Option<StoredCommit>> = commits.into_iter().map(Some).collect();
    order.into_iter().filter_map(|k| slots[k].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(id: i64, sha: &str, parent: Option<&str>, time: Option<i64>) -> StoredCommit {
        StoredCommit {
            id,
            commit: Commit {
                sha: sha.into(),
                parent: parent.map(str::to_owned),
                time,
                subject: None,
            },
        }
    }

    #[test]
    fn a_parent_comes_before_its_child_whatever_the_times() {
        let ordered = order_commits(vec![
            commit(1, "child", Some("parent"), Some(10)),
            commit(2, "parent", None, Some(20)),
            commit(3, "later", Some("child"), Some(30)),
        ]);
        let shas: Vec<&str> = ordered.iter().map(|c| c.commit.sha.as_str()).collect();
        assert_eq!(shas, ["parent", "child", "later"]);
    }

    #[test]
    fn dates_are_unix_days_at_midnight() {
        assert_eq!(date_to_unix("1970-01-01"), Some(0));
        assert_eq!(date_to_unix("2000-03-01"), Some(951_868_800));
        assert_eq!(date_to_unix("2026-13-01"), None);
        assert_eq!(date_to_unix("c0123"), None);
    }
}
