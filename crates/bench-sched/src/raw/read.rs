//! Reading raw JSONL back, and turning it into a [`bench_stats::Dataset`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use bench_stats::model::ReferenceRun;
use bench_stats::{Dataset, Observation, Quantity, Series};
use serde_json::Value;

use super::{RAW_SCHEMA, RawHeader, RawTrailer, RunRecord, TrailerLine};
use crate::design::{Design, Pairing, ReferenceRuns, Schedule};
use crate::error::{InputError, ReadWarning, ReadWarningKind};
use crate::import::Loaded;
use crate::runner::Metric;

/// The parsed content of a raw file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RawData {
    /// The file name as given (used in messages).
    pub file: String,
    /// The header line.
    pub header: RawHeader,
    /// The run lines, in file order.
    pub runs: Vec<RunRecord>,
    /// The trailer, when the writer got to write one (the end line after the last run).
    pub trailer: Option<RawTrailer>,
    /// The end lines of earlier sessions, each followed by a later (`--resume`) session's
    /// runs, in file order; a resume keeps there the runs it measured again
    /// ([`RawTrailer::superseded`]).
    pub session_ends: Vec<RawTrailer>,
    /// What was dropped while reading (a truncated last line).
    pub warnings: Vec<ReadWarning>,
    /// Byte offset just after each run line (parallel to `runs`).
    pub(crate) run_ends: Vec<u64>,
    /// Byte offset just after the header line.
    pub(crate) header_end: u64,
}

/// Reads a raw file.
///
/// # Errors
/// [`InputError`] naming the file, line and column of the first problem; see
/// [`read_raw_bytes`].
pub fn read_raw(path: &Path) -> Result<RawData, InputError> {
    let name = path.display().to_string();
    let bytes = crate::import::read_path(path)?;
    read_raw_bytes(&name, &bytes)
}

/// Parses raw JSONL from memory; never panics, whatever the bytes.
///
/// Rules: line 1 must be a header object with `"schema": "abba.raw/1"`; empty lines are
/// skipped; a last line that is cut short (no final newline, or JSON ending early) is
/// dropped with a warning, as left by Ctrl-C or a crash; any other bad line is an error
/// naming the line (and column for JSON syntax errors). Unknown fields of run lines are
/// ignored (see [`RunRecord`]); a header of another major schema (`abba.raw/2`) is refused
/// by name; a run line that repeats an earlier one's run number or its place (block,
/// position, variant) is an error. Time: O(bytes).
///
/// # Errors
/// [`InputError::Invalid`] for an empty file, a missing header line or a wrong schema,
/// malformed JSON, a run of an unknown variant, a block beyond the header's block count, or a
/// duplicated run line.
pub fn read_raw_bytes(file: &str, bytes: &[u8]) -> Result<RawData, InputError> {
    let lines = split_lines(bytes);
    let Some(first) = lines
        .first()
        .filter(|_| lines.iter().any(|l| !l.is_blank()))
    else {
        return Err(InputError::at(
            file,
            None,
            None,
            format!("empty file: a raw JSONL file starts with an {RAW_SCHEMA} header line"),
        ));
    };
    let header = parse_header(file, first.text)?;
    let names: HashSet<&str> = header.variants.iter().map(|v| v.name.as_str()).collect();
    let last_nonempty = lines.iter().rposition(|l| !l.is_blank());
    let mut data = RawData {
        file: file.to_owned(),
        header: header.clone(),
        runs: Vec::new(),
        trailer: None,
        session_ends: Vec::new(),
        warnings: Vec::new(),
        run_ends: Vec::new(),
        header_end: first.end,
    };
    let mut seen = Seen::default();
    for (idx, line) in lines.iter().enumerate().skip(1) {
        if line.is_blank() {
            continue;
        }
        let err = |col: Option<usize>, msg: String| InputError::at(file, Some(line.no), col, msg);
        let value = match parse_json(line.text) {
            Ok(v) => v,
            Err(bad) => {
                if Some(idx) == last_nonempty && (bad.eof || !line.had_newline) {
                    data.warnings.push(ReadWarning {
                        kind: ReadWarningKind::Truncated,
                        file: file.to_owned(),
                        line: Some(line.no),
                        message: "last line is incomplete (file cut short?); dropped".into(),
                    });
                    continue;
                }
                return Err(err(bad.column, bad.message));
            }
        };
        if value.get("end").is_some() {
            let t: TrailerLine = serde_json::from_value(value)
                .map_err(|e| err(None, format!("bad trailer line: {e}")))?;
            data.trailer = Some(t.end);
            continue;
        }
        if value.get("schema").is_some() {
            return Err(err(
                None,
                "a second header line (\"schema\"; the first is line 1): two raw files \
                 joined into one? Give each file to abba analyze on its own"
                    .to_owned(),
            ));
        }
        // An end line followed by runs ended a session that a `--resume` continued.
        data.session_ends.extend(data.trailer.take());
        let numbered = value.get("run").is_some();
        let run: RunRecord =
            serde_json::from_value(value).map_err(|e| err(None, format!("bad run line: {e}")))?;
        check_run(&run, &header, &names).map_err(|m| err(None, m))?;
        seen.check(&run, numbered, line.no)
            .map_err(|m| err(None, m))?;
        data.runs.push(run);
        data.run_ends.push(line.end);
    }
    Ok(data)
}

/// The run lines read so far, to name a duplicated one (as left by concatenating a file
/// with itself or appending a run twice).
#[derive(Default)]
struct Seen {
    /// Line of each run number.
    runs: HashMap<u32, usize>,
    /// Line of each (block, position, variant, is_reference).
    places: HashMap<(u32, u32, String, bool), usize>,
}

impl Seen {
    /// Records `run` read at `line`; an error when its run number (if the line gives one,
    /// `numbered`) or its place (block, position, variant) was already read. Block numbers in
    /// the message are 1-based ("block 2" is the 2nd block), as the block tables count them;
    /// the file's `block` field is 0-based.
    fn check(&mut self, run: &RunRecord, numbered: bool, line: usize) -> Result<(), String> {
        let what = format!("block {}, variant {:?}", run.block + 1, run.variant);
        if numbered {
            if let Some(prev) = self.runs.insert(run.run, line) {
                return Err(format!(
                    "duplicate run line: run {} ({what}) was already read at line {prev}",
                    run.run
                ));
            }
        }
        let place = (
            run.block,
            run.position,
            run.variant.clone(),
            run.is_reference,
        );
        if let Some(prev) = self.places.insert(place, line) {
            return Err(format!(
                "duplicate run line: the same place in the block ({what}, position {}) was \
                 already measured at line {prev}",
                run.position
            ));
        }
        Ok(())
    }
}

/// One line of the file.
struct Line<'a> {
    /// 1-based line number.
    no: usize,
    /// The text, without its newline.
    text: &'a [u8],
    /// Byte offset just after the line (and its newline).
    end: u64,
    /// Whether a newline ends it (the last line of a cut-off file has none).
    had_newline: bool,
}

impl Line<'_> {
    fn is_blank(&self) -> bool {
        self.text.iter().all(u8::is_ascii_whitespace)
    }
}

/// Splits into lines, remembering where each ends. Time: O(bytes).
fn split_lines(bytes: &[u8]) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut start = 0usize;
    let mut no = 1usize;
    while start < bytes.len() {
        let (end, next, had_newline) = match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => (start + i, start + i + 1, true),
            None => (bytes.len(), bytes.len(), false),
        };
        lines.push(Line {
            no,
            text: &bytes[start..end],
            end: next as u64,
            had_newline,
        });
        start = next;
        no += 1;
    }
    lines
}

/// Parses and checks line 1: JSON, `"schema": "abba.raw/1"`, a known design and metric,
/// unique variant names.
fn parse_header(file: &str, text: &[u8]) -> Result<RawHeader, InputError> {
    let err = |col: Option<usize>, msg: String| InputError::at(file, Some(1), col, msg);
    let text =
        std::str::from_utf8(text).map_err(|_| err(None, "the header line is not UTF-8".into()))?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        err(
            Some(e.column()),
            format!("the header is not valid JSON: {e}"),
        )
    })?;
    match value.get("schema").and_then(Value::as_str) {
        Some(RAW_SCHEMA) => {}
        Some(other) => return Err(err(None, schema_mismatch(other))),
        None if value.get("block").is_some() && value.get("variant").is_some() => {
            return Err(err(
                None,
                format!(
                    "the header line is missing: line 1 is a run line, but a raw JSONL file \
                     starts with a header line {{\"schema\": {RAW_SCHEMA:?}, ...}}"
                ),
            ));
        }
        None => {
            return Err(err(
                None,
                format!("missing \"schema\": {RAW_SCHEMA:?} (not an abba raw file)"),
            ));
        }
    }
    let header: RawHeader =
        serde_json::from_value(value).map_err(|e| err(None, format!("bad header: {e}")))?;
    validate_header(&header).map_err(|m| err(None, m))?;
    Ok(header)
}

/// Why a header's schema is refused: another major version of the raw format is named
/// as such (`abba.raw/2` is a newer major version this reader cannot read), anything
/// else as not an abba raw file.
fn schema_mismatch(other: &str) -> String {
    let major = |s: &str| {
        s.strip_prefix("abba.raw/")
            .map(|v| v.split('.').next().unwrap_or(v).to_owned())
    };
    match major(other) {
        Some(m) if Some(m.as_str()) != major(RAW_SCHEMA).as_deref() => format!(
            "schema is {other:?}: major version {m} of the raw format, which this abba does \
             not read (it reads {RAW_SCHEMA:?}; fields may be added within a major version, \
             a new major version changes their meaning)"
        ),
        _ => format!("schema is {other:?}, expected {RAW_SCHEMA:?}"),
    }
}

/// Why a line is not JSON.
struct BadLine {
    /// The JSON ended early (as when the line was cut off).
    eof: bool,
    column: Option<usize>,
    message: String,
}

/// Parses a run or trailer line as JSON.
fn parse_json(text: &[u8]) -> Result<Value, BadLine> {
    let text = std::str::from_utf8(text).map_err(|_| BadLine {
        eof: true,
        column: None,
        message: "the line is not UTF-8".to_owned(),
    })?;
    serde_json::from_str::<Value>(text).map_err(|e| BadLine {
        eof: e.is_eof(),
        column: Some(e.column()),
        message: format!("invalid JSON: {e}"),
    })
}

/// Checks a run line against the header: a declared variant (or the declared reference), a
/// block within the block count, a finite metric or none.
fn check_run(run: &RunRecord, header: &RawHeader, names: &HashSet<&str>) -> Result<(), String> {
    if !run.is_reference && !names.contains(run.variant.as_str()) {
        return Err(format!(
            "variant {:?} is not declared in the header",
            run.variant
        ));
    }
    if run.is_reference && header.reference.is_none() {
        return Err("a reference run, but the header declares no reference".into());
    }
    if run.block >= header.blocks {
        return Err(format!(
            "{} is beyond the header's {} blocks",
            block_name(run.block),
            header.blocks
        ));
    }
    if run.metric.is_some_and(|m| !m.is_finite()) {
        return Err("\"metric\" must be a finite number or null".into());
    }
    Ok(())
}

/// A block as messages name it: 1-based as the block tables count, with the file's
/// 0-based `block` id beside it: `block 6 (id 5 in the raw file)`.
pub(crate) fn block_name(id: u32) -> String {
    format!("block {} (id {id} in the raw file)", u64::from(id) + 1)
}

fn validate_header(h: &RawHeader) -> Result<(), String> {
    crate::suite::Suite::from_raw(h)?;
    h.design.parse::<Design>().map_err(|e| e.to_string())?;
    h.metric.parse::<Metric>().map_err(|e| e.to_string())?;
    if h.variants.is_empty() {
        return Err("the header lists no variants".into());
    }
    if h.cycles == 0 {
        return Err("cycles must be at least 1".into());
    }
    let mut seen = HashSet::new();
    for v in &h.variants {
        if !seen.insert(v.name.as_str()) {
            return Err(format!("variant name {:?} appears twice", v.name));
        }
    }
    Ok(())
}

impl RawData {
    /// The design recorded in the header.
    pub fn design(&self) -> Design {
        self.header.design.parse().unwrap_or_default()
    }

    /// The schedule the header describes.
    pub fn schedule(&self) -> Schedule {
        if let Some(suite) = self.suite() {
            return suite.schedule(
                self.design(),
                self.header.variants.len(),
                self.header.blocks,
                self.header.cycles,
                self.header.seed,
            );
        }
        let reference = ReferenceRuns::from_header(
            self.header.reference.is_some(),
            self.header.reference_placement.as_deref(),
        );
        Schedule::plan_cycles(
            self.design(),
            self.header.variants.len(),
            self.header.blocks,
            self.header.cycles,
            self.header.seed,
            reference,
        )
    }

    /// The suite the header records (`abba suite`), if any (one whose benchmarks cannot
    /// be read was refused when the file was read).
    pub fn suite(&self) -> Option<crate::suite::Suite> {
        crate::suite::Suite::from_raw(&self.header).ok().flatten()
    }

    /// How many leading runs belong to complete blocks (paired designs) or are simply
    /// present (sequential), i.e. the prefix a resume keeps.
    pub(crate) fn complete_prefix(&self) -> usize {
        match self.design().pairing() {
            Pairing::Unpaired => self.runs.len(),
            Pairing::Paired => {
                let per = self.schedule().runs_per_block().max(1);
                self.runs.len() / per * per
            }
        }
    }

    /// Byte length of the file up to the end of the first `n` runs.
    pub(crate) fn bytes_through(&self, n: usize) -> u64 {
        if n == 0 {
            self.header_end
        } else {
            self.run_ends.get(n - 1).copied().unwrap_or(self.header_end)
        }
    }

    pub(crate) fn value_of(&self, metric: &Metric, r: &RunRecord) -> Option<f64> {
        let v = match metric {
            Metric::Wall => r.wall_ns as f64,
            Metric::User => r.user_ns as f64,
            Metric::Sys => r.sys_ns as f64,
            Metric::Cpu => r.user_ns.saturating_add(r.sys_ns) as f64,
            Metric::MaxRss => r.metric.unwrap_or(r.max_rss_kib as f64),
            Metric::Json(_) => r.metric?,
            Metric::Count(e) => r.count(*e)? as f64,
        };
        v.is_finite().then_some(v)
    }

    /// What the metric measures: time for the times, memory for max-rss; for a JSON field,
    /// what its unit names (`ops/s`, `MiB`, `ms`, ...), else the field's name.
    pub(crate) fn quantity(&self, metric: &Metric) -> Quantity {
        match metric {
            Metric::Wall | Metric::User | Metric::Sys | Metric::Cpu => Quantity::Time,
            Metric::MaxRss => Quantity::Memory,
            Metric::Count(e) => Quantity::Named(e.name().to_owned()),
            Metric::Json(field) => Quantity::of_unit(&self.header.unit)
                .unwrap_or_else(|| Quantity::Named(field.clone())),
        }
    }

    /// Converts to a dataset for analysis.
    ///
    /// Values follow the header's metric (ns for times, KiB for max-rss, the JSON value);
    /// runs that failed or timed out are left out. Paired designs keep only complete
    /// blocks whose runs all succeeded, and record block and position; the sequential design
    /// yields unpaired observations. Reference values become `Dataset::reference`.
    /// Each dropped block or run is reported as a warning. Time: O(runs).
    pub fn to_dataset(&self) -> Loaded {
        let metric: Metric = self.header.metric.parse().unwrap_or_default();
        let mut out = Gathered::new(self);
        for end in &self.session_ends {
            if let Some(message) = superseded_note(end) {
                out.warn(ReadWarningKind::Input, message);
            }
        }
        let failed = self.runs.iter().filter(|r| !r.succeeded()).count();
        if failed > 0 {
            out.warn(
                ReadWarningKind::Input,
                format!("{failed} failed or timed-out run(s) left out"),
            );
        }
        match self.design().pairing() {
            Pairing::Paired => self.gather_paired(&metric, &mut out),
            Pairing::Unpaired => self.gather_unpaired(&metric, &mut out),
        }
        let mut dataset = Dataset::new(self.header.unit.clone(), out.series)
            .with_higher_is_better(self.header.higher_is_better)
            .with_quantity(self.quantity(&metric))
            .with_design(self.design().to_model());
        if !out.beside.is_empty() {
            dataset = dataset.with_reference_beside(out.beside);
        } else if !out.reference.is_empty() {
            dataset = dataset.with_reference(out.reference);
        }
        Loaded {
            dataset,
            warnings: out.warnings,
        }
    }

    /// The value each run measured in the file's metric, parallel to [`Self::runs`]:
    /// `None` for a failed run (or one without the metric's value), whatever became of
    /// its block. Time: O(runs).
    pub(crate) fn measured_values(&self) -> Vec<Option<f64>> {
        let metric: Metric = self.header.metric.parse().unwrap_or_default();
        self.runs
            .iter()
            .map(|r| r.succeeded().then(|| self.value_of(&metric, r)).flatten())
            .collect()
    }

    /// The value each run gives the analysis, parallel to [`Self::runs`]: `None` for a run
    /// [`Self::to_dataset`] leaves out (failed, timed out, without a value, in a dropped
    /// block) and for reference runs. Time: O(runs).
    pub(crate) fn analysed_values(&self) -> Vec<Option<f64>> {
        let mut out = self.measured_values();
        if self.design().pairing() == Pairing::Paired {
            let per = self.schedule().runs_per_block();
            let mut by_block: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
            for (i, r) in self.runs.iter().enumerate() {
                by_block.entry(r.block).or_default().push(i);
            }
            for members in by_block.values() {
                if members.len() != per || members.iter().any(|&i| out[i].is_none()) {
                    for &i in members {
                        out[i] = None;
                    }
                }
            }
        }
        for (v, r) in out.iter_mut().zip(&self.runs) {
            if r.is_reference {
                *v = None;
            }
        }
        out
    }

    /// Paired designs: keeps complete blocks whose runs all succeeded with a value.
    fn gather_paired(&self, metric: &Metric, out: &mut Gathered<'_>) {
        let per = self.schedule().runs_per_block();
        let mut by_block: BTreeMap<u32, Vec<&RunRecord>> = BTreeMap::new();
        for r in &self.runs {
            by_block.entry(r.block).or_default().push(r);
        }
        for (block, runs) in by_block {
            if runs.len() != per {
                out.warn(
                    ReadWarningKind::IncompleteBlocks,
                    format!(
                        "{} has {} of {per} runs (incomplete); dropped",
                        block_name(block),
                        runs.len()
                    ),
                );
                continue;
            }
            let values: Option<Vec<f64>> = runs
                .iter()
                .map(|r| {
                    if r.succeeded() {
                        self.value_of(metric, r)
                    } else {
                        None
                    }
                })
                .collect();
            let Some(values) = values else {
                out.warn(
                    ReadWarningKind::Input,
                    format!(
                        "{} has a failed run or a missing value; dropped",
                        block_name(block)
                    ),
                );
                continue;
            };
            for (r, v) in runs.iter().zip(values) {
                out.push(r, v, Pairing::Paired);
            }
        }
    }

    /// The sequential design: every successful run with a value, unpaired.
    fn gather_unpaired(&self, metric: &Metric, out: &mut Gathered<'_>) {
        let mut missing = 0usize;
        for r in self.runs.iter().filter(|r| r.succeeded()) {
            match self.value_of(metric, r) {
                Some(v) => out.push(r, v, Pairing::Unpaired),
                None => missing += 1,
            }
        }
        if missing > 0 {
            let m = &self.header.metric;
            out.warn(
                ReadWarningKind::Input,
                format!("{missing} run(s) without a {m} value left out"),
            );
        }
        let counts: Vec<usize> = out.series.iter().map(|s| s.observations.len()).collect();
        if counts.iter().any(|&c| c != counts[0]) {
            out.warn(
                ReadWarningKind::Truncated,
                format!(
                    "unequal run counts per variant ({counts:?}); the sequential run was cut short?"
                ),
            );
        }
    }
}

/// What [`RawData::to_dataset`] collects: one series per header variant, the reference
/// values, and the warnings (the reader's first).
struct Gathered<'a> {
    file: &'a str,
    index: BTreeMap<&'a str, usize>,
    series: Vec<Series>,
    reference: Vec<(u32, f64)>,
    beside: Vec<ReferenceRun>,
    warnings: Vec<ReadWarning>,
}

impl<'a> Gathered<'a> {
    fn new(data: &'a RawData) -> Self {
        let variants = &data.header.variants;
        Gathered {
            file: &data.file,
            index: variants
                .iter()
                .enumerate()
                .map(|(i, v)| (v.name.as_str(), i))
                .collect(),
            series: variants
                .iter()
                .map(|v| {
                    let mut s = Series::new(v.name.clone(), []);
                    s.class = data
                        .header
                        .suite
                        .iter()
                        .find(|b| b.variants.contains(&v.name))
                        .map(|b| b.name.clone());
                    match &v.parameter {
                        Some(p) => s.with_parameter(p.name.clone(), p.value),
                        None => s,
                    }
                })
                .collect(),
            reference: Vec::new(),
            beside: Vec::new(),
            warnings: data.warnings.clone(),
        }
    }

    fn warn(&mut self, kind: ReadWarningKind, message: String) {
        self.warnings.push(ReadWarning {
            kind,
            file: self.file.to_owned(),
            line: None,
            message,
        });
    }

    /// Adds run `r` with value `v` to the reference or to its variant's series (with block
    /// and position when paired).
    fn push(&mut self, r: &RunRecord, v: f64, pairing: Pairing) {
        if r.is_reference {
            match &r.beside {
                Some(variant) if pairing == Pairing::Paired => {
                    self.beside
                        .push(ReferenceRun::new(variant.clone(), r.block, v));
                }
                _ => self.reference.push((r.block, v)),
            }
        } else if let Some(&i) = self.index.get(r.variant.as_str()) {
            self.series[i].observations.push(match pairing {
                Pairing::Paired => Observation::in_block(v, r.block).at_position(r.position),
                Pairing::Unpaired => Observation::new(v),
            });
        }
    }
}

/// What a `--resume` measured again: the runs a session's end line keeps
/// ([`RawTrailer::superseded`]), with their blocks (1-based). `None` when it keeps none.
fn superseded_note(end: &RawTrailer) -> Option<String> {
    let runs = &end.superseded;
    if runs.is_empty() {
        return None;
    }
    let mut blocks: Vec<u32> = runs.iter().map(|r| r.block + 1).collect();
    blocks.dedup();
    let blocks: Vec<String> = blocks.iter().map(u32::to_string).collect();
    Some(format!(
        "{} run(s) of unfinished block {} were measured again from the block's start by --resume; they are kept in the end line of session {} ({}, `superseded`), not analysed",
        runs.len(),
        blocks.join(", "),
        runs[0].session,
        end.status
    ))
}
