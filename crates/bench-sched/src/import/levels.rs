//! Several raw files of one experiment (one per host, or per session) merged into one
//! dataset with its levels: host, then session, then block, then run.

use std::collections::BTreeMap;

use bench_stats::hierarchy::Levels;

use super::Loaded;
use crate::design::Pairing;
use crate::error::InputError;
use crate::raw::{Experiment, RawHeader};

/// How several raw files are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MergePolicy {
    /// Raw files of one experiment merge as one multi-level experiment (their blocks kept,
    /// each under its session and host); raw files of different experiments are an error
    /// ([`InputError::DifferentExperiments`]). Any other mix merges unpaired. Default.
    #[default]
    ByExperiment,
    /// Every file merges unpaired (blocks dropped), whatever experiment it belongs to.
    Unpaired,
}

/// What a raw file brings to a multi-level merge: its header, and the session each of its
/// blocks was measured in (the runs themselves are not kept).
#[derive(Debug, Clone)]
pub(crate) struct RawPart {
    pub header: RawHeader,
    /// Block id in the file → the `session` of its first run.
    pub block_sessions: BTreeMap<u32, u32>,
}

impl RawPart {
    /// The part of `raw`. Time: O(runs).
    pub(crate) fn of(raw: &Experiment) -> RawPart {
        let mut block_sessions = BTreeMap::new();
        for r in &raw.runs {
            block_sessions.entry(r.block).or_insert(r.session);
        }
        RawPart {
            header: raw.header.clone(),
            block_sessions,
        }
    }

    fn is_paired(&self) -> bool {
        self.header.design.pairing() == Pairing::Paired
    }
}

/// Reads one field of a header as text.
type HeaderField = fn(&RawHeader) -> String;

/// The first field in which `b`'s header differs from `a`'s, as (field, a's value, b's
/// value): the experiment id first, then what defines the comparison.
fn first_difference(a: &RawHeader, b: &RawHeader) -> Option<(&'static str, String, String)> {
    let names = |h: &RawHeader| {
        let v: Vec<&str> = h.variants.iter().map(|v| v.name.as_str()).collect();
        format!("{v:?}")
    };
    let commands = |h: &RawHeader| {
        let v: Vec<&str> = h.variants.iter().map(|v| v.command.as_str()).collect();
        format!("{v:?}")
    };
    let checks: [(&'static str, HeaderField); 5] = [
        ("experiment", |h| h.experiment_id()),
        ("design", |h| h.design.to_string()),
        ("metric", |h| h.metric.to_string()),
        ("unit", |h| h.unit.clone()),
        ("higher_is_better", |h| h.higher_is_better.to_string()),
    ];
    for (field, get) in checks {
        let (x, y) = (get(a), get(b));
        if x != y {
            return Some((field, x, y));
        }
    }
    if names(a) != names(b) {
        return Some(("variants", names(a), names(b)));
    }
    if commands(a) != commands(b) {
        return Some(("commands", commands(a), commands(b)));
    }
    None
}

/// Checks that every file belongs to the first one's experiment.
///
/// # Errors
/// [`InputError::DifferentExperiments`] naming the first file that differs and the field.
pub(crate) fn check_same_experiment(parts: &[(&str, &RawHeader)]) -> Result<(), InputError> {
    let Some(&(first, head)) = parts.first() else {
        return Ok(());
    };
    for &(name, h) in &parts[1..] {
        if let Some((field, a, b)) = first_difference(head, h) {
            return Err(InputError::DifferentExperiments {
                first: first.to_owned(),
                second: name.to_owned(),
                field,
                first_value: a,
                second_value: b,
            });
        }
    }
    Ok(())
}

/// `true` when every file is a raw file of a paired design: then they merge by levels.
pub(crate) fn mergeable(parts: &[Option<RawPart>]) -> bool {
    parts.len() > 1
        && parts
            .iter()
            .all(|p| p.as_ref().is_some_and(RawPart::is_paired))
}

/// Merges files of one experiment: block ids are renumbered so each file's blocks follow
/// the previous file's, every block is assigned its session, every session its host (the
/// header's host name, else the file name). Time: O(values).
///
/// # Errors
/// [`InputError::Incompatible`] when the block ids overflow.
pub(crate) fn merge_levels(files: Vec<(String, Loaded, RawPart)>) -> Result<Loaded, InputError> {
    let mut hosts: Vec<String> = Vec::new();
    for (name, _, part) in &files {
        let host = part.header.host_name().unwrap_or(name).to_owned();
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    let mut levels = Levels::new(hosts.clone());
    let mut it = files.into_iter();
    let (first_name, mut out, first_part) = it
        .next()
        .ok_or_else(|| InputError::at("(no files)", None, None, "no input files"))?;
    let mut offset = 0u32;
    let mut add = |name: &str, part: &RawPart, levels: &mut Levels| -> Result<u32, InputError> {
        let host_name = part.header.host_name().unwrap_or(name);
        let host = hosts.iter().position(|h| h == host_name).unwrap_or(0);
        let mut sessions: BTreeMap<u32, usize> = BTreeMap::new();
        for (&block, &s) in &part.block_sessions {
            let session = match sessions.get(&s) {
                Some(&i) => i,
                None => {
                    let i = levels
                        .add_session(host)
                        .map_err(|e| overflow(name, e.to_string()))?;
                    sessions.insert(s, i);
                    i
                }
            };
            let id = offset
                .checked_add(block)
                .ok_or_else(|| overflow(name, "block ids".into()))?;
            levels
                .assign(id, session)
                .map_err(|e| overflow(name, e.to_string()))?;
        }
        let start = offset;
        offset = offset
            .checked_add(part.header.blocks)
            .ok_or_else(|| overflow(name, "block ids".into()))?;
        Ok(start)
    };
    add(&first_name, &first_part, &mut levels)?;
    for (name, loaded, part) in it {
        let start = add(&name, &part, &mut levels)?;
        append(&mut out, loaded, start);
    }
    out.dataset.levels = Some(levels);
    Ok(out)
}

/// Appends `other`'s series and reference values, its block ids shifted by `start`.
fn append(out: &mut Loaded, other: Loaded, start: u32) {
    out.warnings.extend(other.warnings);
    for mut s in other.dataset.series {
        for o in &mut s.observations {
            o.block = o.block.map(|b| b + start);
        }
        match out
            .dataset
            .series
            .iter_mut()
            .find(|x| x.name == s.name && x.class == s.class)
        {
            Some(x) => x.observations.extend(s.observations),
            None => out.dataset.series.push(s),
        }
    }
    if let Some(r) = other.dataset.reference {
        let shifted = r.into_iter().map(|(b, v)| (b + start, v));
        match &mut out.dataset.reference {
            Some(mine) => mine.extend(shifted),
            None => out.dataset.reference = Some(shifted.collect()),
        }
    }
}

fn overflow(file: &str, what: String) -> InputError {
    InputError::at(
        file,
        None,
        None,
        format!("too many blocks to merge ({what})"),
    )
}
