//! Reading raw JSONL back into an [`Experiment`].

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use super::{Experiment, RAW_SCHEMA, RawHeader, RunRecord, TrailerLine};
use crate::error::{InputError, ReadWarning, ReadWarningKind};

/// Reads a raw file, streaming: the file is read a line at a time, never whole (memory:
/// the runs read, not the file's bytes).
///
/// # Errors
/// [`InputError`] naming the file, line and column of the first problem; see
/// [`read_raw_bytes`]. A line longer than `MAX_INPUT_LINE_BYTES` or a NUL byte
/// (binary data) is refused when reached.
pub fn read_raw(path: &Path) -> Result<Experiment, InputError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| InputError::Io {
        file: name.clone(),
        source,
    })?;
    read_raw_from(&name, std::io::BufReader::with_capacity(1 << 16, file))
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
    read_raw_from(file, bytes)
}

/// [`read_raw_bytes`] of whatever `source` reads, a line at a time (the rules and errors
/// are the same; a line longer than `MAX_INPUT_LINE_BYTES` and a NUL byte are
/// refused as [`crate::import`]'s reader refuses them). Time: O(bytes); memory: the
/// longest line, beside the record.
pub(crate) fn read_raw_from(file: &str, source: impl BufRead) -> Result<Experiment, InputError> {
    let mut lines = Lines::new(file, source);
    let empty = || {
        InputError::at(
            file,
            None,
            None,
            format!("empty file: a raw JSONL file starts with an {RAW_SCHEMA} header line"),
        )
    };
    let first = lines.next()?.ok_or_else(empty)?;
    if first.is_blank(lines.text()) {
        // A blank first line: an empty file, or a header missing before other lines.
        let text = lines.text().to_vec();
        while let Some(line) = lines.next()? {
            if !line.is_blank(lines.text()) {
                parse_header(file, &text)?;
                break;
            }
        }
        return Err(empty());
    }
    let header = parse_header(file, lines.text())?;
    let names: HashSet<&str> = header.variants.iter().map(|v| v.name.as_str()).collect();
    let mut data = Experiment::new(header.clone(), Vec::new(), file);
    data.offsets.header_end = first.end;
    let mut seen = Seen::new(header.variants.len());
    let mut scratch = super::fast_line::blank();
    // A line that does not read, kept until the next non-blank line: the last such line of
    // a file, cut short, is dropped with a warning; any other is an error.
    let mut pending: Option<(Line, BadLine)> = None;
    while let Some(line) = lines.next()? {
        let text = lines.text();
        if line.is_blank(text) {
            continue;
        }
        let err = |col: Option<usize>, msg: String| InputError::at(file, Some(line.no), col, msg);
        if let Some((bad_line, bad)) = pending.take() {
            return Err(InputError::at(
                file,
                Some(bad_line.no),
                bad.column,
                bad.message,
            ));
        }
        // Most lines are runs: read straight into a record. Anything else (a trailer, a
        // header, an unnumbered run, a line that does not read) goes the general way below,
        // which gives the same record and names every problem.
        if let Some(run) = plain_run(text, &mut scratch) {
            data.session_ends.extend(data.end.take());
            check_run(run, &header, &names).map_err(|m| err(None, m))?;
            seen.check(run, true, line.no).map_err(|m| err(None, m))?;
            data.runs.push_copy(run);
            data.offsets.run_ends.push(line.end);
            continue;
        }
        let value = match parse_json(text) {
            Ok(v) => v,
            Err(bad) => {
                pending = Some((line, bad));
                continue;
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
    if let Some((line, bad)) = pending {
        if bad.eof || !line.had_newline {
            data.warnings.push(ReadWarning {
                kind: ReadWarningKind::Truncated,
                file: file.to_owned(),
                line: Some(line.no),
                message: "last line is incomplete (file cut short?); dropped".into(),
            });
        } else {
            return Err(InputError::at(file, Some(line.no), bad.column, bad.message));
        }
    }
    data.runs.shrink_to_fit();
    data.offsets.run_ends.shrink_to_fit();
    Ok(data)
}

/// A numbered run line (`"run"` given, not 0) with no `"end"` or `"schema"` in it, read
/// straight into `scratch` (abba's own layout without serde and without an allocation,
/// [`super::fast_line`]; any other by serde); `None` for any other line.
fn plain_run<'r>(text: &[u8], scratch: &'r mut RunRecord) -> Option<&'r RunRecord> {
    if super::fast_line::read_plain(text, scratch) {
        return (scratch.run != 0).then_some(&*scratch);
    }
    let has = |needle: &[u8]| text.windows(needle.len()).any(|w| w == needle);
    if has(b"\"end\"") || has(b"\"schema\"") {
        return None;
    }
    *scratch = serde_json::from_slice::<RunRecord>(text)
        .ok()
        .filter(|r| r.run != 0)?;
    Some(&*scratch)
}

/// The run lines read so far, to name a duplicated one (as left by concatenating a file
/// with itself or appending a run twice): the line of each run number and of each place,
/// in tables indexed by the number (dense, as a file's run numbers and blocks are), with a
/// map for the numbers far beyond the lines read. Memory: about 4 bytes a run number and
/// a place.
struct Seen {
    /// Line of each run number (0: none yet).
    runs: Dense,
    /// Line of each place: (block, position, variant's number, is_reference) as one index.
    places: Dense,
    /// The variant names met, numbered.
    variants: HashMap<String, u32>,
    /// Places a block holds in [`Seen::places`]: 2 (run or reference) x variants x
    /// positions, positions growing as met (the table is rebuilt when they do).
    positions: u32,
    /// Variants the places are laid out for (beyond them, the map).
    width: u32,
}

/// Line numbers by a `u32` key: a table for keys below a bound that grows with the lines
/// read, a map beyond it.
#[derive(Default)]
struct Dense {
    table: Vec<u32>,
    far: HashMap<u64, usize, Quick>,
}

impl Dense {
    /// Records `line` for `key`, returning the line it had; `room`: how far the table may
    /// grow for this key.
    fn insert(&mut self, key: u64, line: usize, room: usize) -> Option<usize> {
        match usize::try_from(key) {
            Ok(i) if i < room && line < u32::MAX as usize => {
                if i >= self.table.len() {
                    let len = (i + 1).next_power_of_two().min(room.max(i + 1));
                    self.table.resize(len, 0);
                }
                let prev = std::mem::replace(&mut self.table[i], line as u32);
                (prev != 0).then_some(prev as usize)
            }
            _ => self.far.insert(key, line),
        }
    }
}

impl Seen {
    fn new(variants: usize) -> Seen {
        Seen {
            runs: Dense::default(),
            places: Dense::default(),
            variants: HashMap::new(),
            positions: 4,
            width: (variants as u32).clamp(1, 64),
        }
    }

    /// How far a table may grow with `line` lines read: a table never holds more than a
    /// few slots for each line.
    fn room(line: usize) -> usize {
        line.saturating_mul(8).max(1 << 16)
    }

    /// The place's index in [`Seen::places`] (beyond the table's layout: a distinct key
    /// past `u32::MAX` blocks' worth, for the map).
    fn place_key(&self, run: &RunRecord, variant: u32) -> u64 {
        let slot = |positions: u32| -> u64 {
            (u64::from(run.block) * u64::from(positions) + u64::from(run.position))
                * u64::from(self.width)
                * 2
                + u64::from(variant) * 2
                + u64::from(run.is_reference)
        };
        if run.position < self.positions && variant < self.width {
            slot(self.positions)
        } else {
            // Outside the layout: keyed apart, above every table index.
            (1 << 63)
                | u64::from(run.block) << 31
                | u64::from(run.position.min(1 << 20)) << 11
                | u64::from(variant.min(1 << 10)) << 1
                | u64::from(run.is_reference)
        }
    }

    /// Records `run` read at `line`; an error when its run number (if the line gives one,
    /// `numbered`) or its place (block, position, variant) was already read. Block numbers in
    /// the message are 1-based ("block 2" is the 2nd block), as the block tables count them;
    /// the file's `block` field is 0-based.
    fn check(&mut self, run: &RunRecord, numbered: bool, line: usize) -> Result<(), String> {
        let what = || format!("block {}, variant {:?}", run.block + 1, run.variant);
        let room = Self::room(line);
        if numbered {
            if let Some(prev) = self.runs.insert(u64::from(run.run), line, room) {
                return Err(format!(
                    "duplicate run line: run {} ({}) was already read at line {prev}",
                    run.run,
                    what()
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
        if run.position >= self.positions && run.position < 64 && self.places.far.is_empty() {
            self.relayout(run.position + 1);
        }
        let key = self.place_key(run, variant);
        if let Some(prev) = self.places.insert(key, line, room) {
            return Err(format!(
                "duplicate run line: the same place in the block ({}, position {}) was \
                 already measured at line {prev}",
                what(),
                run.position
            ));
        }
        Ok(())
    }

    /// Lays the places out again for `positions` positions a block (the lines kept).
    fn relayout(&mut self, positions: u32) {
        let old = std::mem::take(&mut self.places.table);
        let (old_positions, width) = (u64::from(self.positions), u64::from(self.width));
        self.positions = positions.next_power_of_two();
        for (i, &line) in old.iter().enumerate() {
            if line == 0 {
                continue;
            }
            let i = i as u64;
            let (rest, is_ref) = (i / 2, i % 2);
            let (rest, variant) = (rest / width, rest % width);
            let (block, position) = (rest / old_positions, rest % old_positions);
            let key =
                ((block * u64::from(self.positions) + position) * width + variant) * 2 + is_ref;
            self.places.insert(key, line as usize, usize::MAX);
        }
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

/// One line of the file (its text is [`Lines::text`] until the next line is read).
struct Line {
    /// 1-based line number.
    no: usize,
    /// Byte offset just after the line (and its newline).
    end: u64,
    /// Whether a newline ends it (the last line of a cut-off file has none).
    had_newline: bool,
}

impl Line {
    fn is_blank(&self, text: &[u8]) -> bool {
        text.iter().all(u8::is_ascii_whitespace)
    }
}

/// The lines of a source in order, each with where it ends, one at a time into one buffer.
/// Time: O(bytes) in all; memory: the longest line.
struct Lines<'f, R> {
    file: &'f str,
    source: R,
    text: Vec<u8>,
    /// Bytes read so far.
    consumed: u64,
    no: usize,
}

impl<'f, R: BufRead> Lines<'f, R> {
    fn new(file: &'f str, source: R) -> Lines<'f, R> {
        Lines {
            file,
            source,
            text: Vec::new(),
            consumed: 0,
            no: 0,
        }
    }

    /// The text of the line last read, without its newline.
    fn text(&self) -> &[u8] {
        &self.text
    }

    /// The next line into [`Lines::text`]; `None` at the end.
    ///
    /// # Errors
    /// An I/O error, a line longer than `MAX_INPUT_LINE_BYTES`, or a NUL byte.
    fn next(&mut self) -> Result<Option<Line>, InputError> {
        self.text.clear();
        let mut had_newline = false;
        loop {
            let chunk = match self.source.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(InputError::Io {
                        file: self.file.to_owned(),
                        source,
                    });
                }
            };
            if chunk.is_empty() {
                break;
            }
            let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if let Some(at) = chunk[..take].iter().position(|&b| b == 0) {
                let byte = self.consumed + at as u64 + 1;
                return Err(InputError::at(
                    self.file,
                    None,
                    None,
                    format!(
                        "binary data (a NUL byte at byte {byte}), not one of abba's formats: \
                         raw JSONL, CSV or a hyperfine --export-json file"
                    ),
                ));
            }
            self.text.extend_from_slice(&chunk[..take]);
            let used = take + usize::from(done);
            self.source.consume(used);
            self.consumed += used as u64;
            if self.text.len() + usize::from(done) > crate::import::MAX_INPUT_LINE_BYTES {
                return Err(InputError::at(
                    self.file,
                    Some(self.no + 1),
                    None,
                    format!(
                        "the line is longer than {} MiB: not one of abba's formats",
                        crate::import::MAX_INPUT_LINE_BYTES >> 20
                    ),
                ));
            }
            if done {
                had_newline = true;
                break;
            }
        }
        if self.text.is_empty() && !had_newline {
            return Ok(None);
        }
        self.no += 1;
        Ok(Some(Line {
            no: self.no,
            end: self.consumed,
            had_newline,
        }))
    }
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
