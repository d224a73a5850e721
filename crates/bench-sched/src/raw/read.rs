//! Reading raw JSONL back into an [`Experiment`].

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::{Experiment, RAW_SCHEMA, RawHeader, RunRecord, TrailerLine};
use crate::error::{InputError, ReadWarning, ReadWarningKind};

/// Reads a raw file.
///
/// # Errors
/// [`InputError`] naming the file, line and column of the first problem; see
/// [`read_raw_bytes`].
pub fn read_raw(path: &Path) -> Result<Experiment, InputError> {
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
pub fn read_raw_bytes(file: &str, bytes: &[u8]) -> Result<Experiment, InputError> {
    let mut lines = Lines::new(bytes);
    let last_nonempty = last_nonblank_start(bytes);
    let Some(first) = lines.next().filter(|_| last_nonempty.is_some()) else {
        return Err(InputError::at(
            file,
            None,
            None,
            format!("empty file: a raw JSONL file starts with an {RAW_SCHEMA} header line"),
        ));
    };
    let header = parse_header(file, first.text)?;
    let names: HashSet<&str> = header.variants.iter().map(|v| v.name.as_str()).collect();
    let mut data = Experiment::new(header.clone(), Vec::new(), file);
    data.offsets.header_end = first.end;
    let mut seen = Seen::default();
    for line in lines {
        if line.is_blank() {
            continue;
        }
        let err = |col: Option<usize>, msg: String| InputError::at(file, Some(line.no), col, msg);
        // Most lines are runs: read straight into a record. Anything else (a trailer, a
        // header, an unnumbered run, a line that does not read) goes the general way below,
        // which gives the same record and names every problem.
        if let Some(run) = plain_run(line.text) {
            data.session_ends.extend(data.end.take());
            check_run(&run, &header, &names).map_err(|m| err(None, m))?;
            seen.check(&run, true, line.no).map_err(|m| err(None, m))?;
            data.runs.push(run);
            data.offsets.run_ends.push(line.end);
            continue;
        }
        let value = match parse_json(line.text) {
            Ok(v) => v,
            Err(bad) => {
                if Some(line.start) == last_nonempty && (bad.eof || !line.had_newline) {
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
            data.end = Some(t.end);
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
        data.session_ends.extend(data.end.take());
        let numbered = value.get("run").is_some();
        let run: RunRecord =
            serde_json::from_value(value).map_err(|e| err(None, format!("bad run line: {e}")))?;
        check_run(&run, &header, &names).map_err(|m| err(None, m))?;
        seen.check(&run, numbered, line.no)
            .map_err(|m| err(None, m))?;
        data.runs.push(run);
        data.offsets.run_ends.push(line.end);
    }
    Ok(data)
}

/// A numbered run line (`"run"` given, not 0) with no `"end"` or `"schema"` in it, read
/// straight into its record; `None` for any other line.
fn plain_run(text: &[u8]) -> Option<RunRecord> {
    let has = |needle: &[u8]| text.windows(needle.len()).any(|w| w == needle);
    if has(b"\"end\"") || has(b"\"schema\"") {
        return None;
    }
    serde_json::from_slice::<RunRecord>(text)
        .ok()
        .filter(|r| r.run != 0)
}

/// The run lines read so far, to name a duplicated one (as left by concatenating a file
/// with itself or appending a run twice).
#[derive(Default)]
struct Seen {
    /// Line of each run number.
    runs: HashMap<u32, usize, Quick>,
    /// Line of each (block, position, variant's number in `variants`, is_reference).
    places: HashMap<(u32, u32, u32, bool), usize, Quick>,
    /// The variant names met, numbered.
    variants: HashMap<String, u32>,
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
        let next = self.variants.len() as u32;
        let variant = match self.variants.get(run.variant.as_str()) {
            Some(&v) => v,
            None => {
                self.variants.insert(run.variant.clone(), next);
                next
            }
        };
        let place = (run.block, run.position, variant, run.is_reference);
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

/// A multiply-rotate hash of small integer keys (a file's own run numbers and places: no
/// adversary to resist, and a million of them to hash while reading).
#[derive(Default, Clone, Copy)]
struct Quick;

impl std::hash::BuildHasher for Quick {
    type Hasher = QuickHasher;

    fn build_hasher(&self) -> QuickHasher {
        QuickHasher(0)
    }
}

/// [`Quick`]'s hasher.
struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// One line of the file.
struct Line<'a> {
    /// 1-based line number.
    no: usize,
    /// Byte offset of its first byte.
    start: usize,
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

/// The lines of a file in order, each with where it ends. Time: O(bytes) in all.
struct Lines<'a> {
    bytes: &'a [u8],
    start: usize,
    no: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            bytes,
            start: 0,
            no: 1,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let (bytes, start) = (self.bytes, self.start);
        if start >= bytes.len() {
            return None;
        }
        let (end, next, had_newline) = match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => (start + i, start + i + 1, true),
            None => (bytes.len(), bytes.len(), false),
        };
        let line = Line {
            no: self.no,
            start,
            text: &bytes[start..end],
            end: next as u64,
            had_newline,
        };
        self.start = next;
        self.no += 1;
        Some(line)
    }
}

/// Where the last line holding more than white space starts; `None` when none does.
fn last_nonblank_start(bytes: &[u8]) -> Option<usize> {
    let last = bytes.iter().rposition(|b| !b.is_ascii_whitespace())?;
    Some(
        bytes[..last]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1),
    )
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

/// What the header's types cannot say: at least one variant (none for an empty shard), unique names, at least one
/// cycle, and suite benchmarks that name the header's variants. (Every named value, the
/// design, metric, layout, shell, ..., was read into its type by then: an unknown one is
/// refused by name.)
fn validate_header(h: &RawHeader) -> Result<(), String> {
    crate::suite::Suite::from_raw(h)?;
    // A shard that holds none of its suite's benchmarks records that it ran, and nothing.
    if h.variants.is_empty() && h.shard.is_none() {
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
