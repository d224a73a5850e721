//! Reading saved data of any supported format into one [`Dataset`].

mod csv;
mod hyperfine;
pub(crate) mod levels;

pub use self::csv::{CsvOptions, read_csv, read_csv_bytes};
pub use self::hyperfine::{read_hyperfine, read_hyperfine_bytes};
pub use self::levels::MergePolicy;

use std::io::{BufRead, Read};
use std::path::Path;

use bench_stats::{Dataset, Series};

use crate::error::{InputError, ReadWarning, ReadWarningKind};
use crate::raw::{Experiment, read_raw_bytes};

/// A dataset read from files, with the remarks made while reading.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The data.
    pub dataset: Dataset,
    /// Dropped lines and blocks, merged sessions, ...
    pub warnings: Vec<ReadWarning>,
}

/// The format of a saved-data file, as detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputFormat {
    /// abba raw JSONL (`abba.raw/1` header).
    Raw,
    /// hyperfine `--export-json`.
    Hyperfine,
    /// CSV with a header row.
    Csv,
}

/// Detects the format from the content alone: a first non-blank line that is a JSON object
/// with a `"schema"`, a run line (with `"block"` and `"variant"`: the header line is missing)
/// or followed by another JSON object line is raw JSONL; other text starting with `{` or `[`
/// is JSON, read as a hyperfine export; everything else is CSV. `abba analyze` also lets the
/// file's extension decide an empty file or a lone JSON object line.
/// Time: O(first two lines).
pub fn detect_format(bytes: &[u8]) -> InputFormat {
    detect(bytes, None)
}

/// Whether the file at `path` reads as an abba raw file ([`detect_format`] of its first
/// 64 KiB); `false` when it cannot be read (its reader then names the error).
pub fn is_raw_file(path: &std::path::Path) -> bool {
    use std::io::Read as _;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(64 * 1024).read_to_end(&mut head);
    }
    matches!(detect_format(&head), InputFormat::Raw)
}

/// What a hyperfine `--export-json` file looks like, for messages.
pub(crate) const HYPERFINE_SHAPE: &str =
    r#"a JSON object {"results": [{"command": "...", "times": [seconds, ...]}, ...]}"#;

/// Detects the format from the first non-blank line, and from the file name's extension
/// (`ext`, lower case) where the content leaves it open:
///
/// - a first line that is a JSON object with a `"schema"`, or a run line (an object with
///   `"block"` and `"variant"`, as when the header line is missing), or followed by another
///   line that is a JSON object, is raw JSONL;
/// - other text starting with `{` or `[` is JSON, read as a hyperfine export (a `.jsonl` file
///   whose first line is a lone object is read as raw JSONL);
/// - everything else is CSV; an empty file is whatever its extension says (CSV when unknown).
///
/// Time: O(first two lines).
fn detect(bytes: &[u8], ext: Option<&str>) -> InputFormat {
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return match ext {
            Some("jsonl") => InputFormat::Raw,
            Some("json") => InputFormat::Hyperfine,
            _ => InputFormat::Csv,
        };
    };
    let object = |line: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(line)
            .ok()
            .filter(serde_json::Value::is_object)
    };
    if first.starts_with(b"{") {
        let raw = match object(first) {
            Some(v) => {
                v.get("schema").is_some()
                    || (v.get("block").is_some() && v.get("variant").is_some())
                    || lines.next().is_some_and(|l| object(l).is_some())
                    || ext == Some("jsonl")
            }
            // A header line cut or mangled is still a raw file's first line.
            None => String::from_utf8_lossy(first).contains("\"schema\""),
        };
        if raw {
            InputFormat::Raw
        } else {
            InputFormat::Hyperfine
        }
    } else if first.starts_with(b"[") && ext != Some("csv") {
        InputFormat::Hyperfine
    } else {
        InputFormat::Csv
    }
}

/// Reads one or more files (any mix of formats) into one dataset; the path `-` reads
/// standard input.
///
/// One file gives its own dataset. Several files are merged into one unpaired dataset
/// (blocks and reference values dropped) with a warning, whatever they hold
/// ([`MergePolicy::Unpaired`]); [`crate::Input::load`] merges raw files of one experiment
/// by levels instead. `csv` says the unit and direction of CSV values.
///
/// # Errors
/// [`InputError`] from the first unreadable file, or [`InputError::Incompatible`] when the
/// files disagree on unit or direction.
pub fn load_files(paths: &[&Path], csv: &CsvOptions) -> Result<Loaded, InputError> {
    let mut loaded = Vec::with_capacity(paths.len());
    for path in paths {
        let (name, one, _) = read_file(path, csv)?;
        loaded.push((name, one));
    }
    merge_sessions(loaded)
}

/// Reads one saved-data file, its format detected from the content (and its extension, where
/// the content leaves it open): its name, its data, and for a raw file the whole record
/// (header, runs, trailer). The path `-` reads standard input (to its end), named `<stdin>`
/// in messages; its format comes from the content alone.
pub(crate) fn read_file(
    path: &Path,
    csv: &CsvOptions,
) -> Result<(String, Loaded, Option<Experiment>), InputError> {
    if path == Path::new(STDIN_PATH) {
        let (name, bytes) = read_named(path)?;
        return read_bytes(&name, &bytes, extension(path).as_deref(), csv);
    }
    let name = path.display().to_string();
    let ext = extension(path);
    let mut file = std::io::BufReader::with_capacity(
        1 << 16,
        std::fs::File::open(path).map_err(|source| InputError::Io {
            file: name.clone(),
            source,
        })?,
    );
    // The format from the first lines; a raw file is then read a line at a time (its
    // bytes are never held whole), any other format whole.
    let head = read_head(&name, &mut file)?;
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    if !body.trim_ascii().is_empty() && detect(body, ext.as_deref()) == InputFormat::Raw {
        let raw = crate::raw::read::read_raw_from(&name, std::io::Read::chain(body, file))?;
        return Ok((name, raw.to_dataset(), Some(raw)));
    }
    let bytes = read_bounded(&name, Read::chain(&head[..], file))?;
    read_bytes(&name, &bytes, ext.as_deref(), csv)
}

/// The first bytes of `source`: up to and including its second non-blank line (all the
/// format detection reads), or all of it when shorter; a line longer than
/// [`MAX_INPUT_LINE_BYTES`] ends it (unchecked: the reader that follows checks every line).
fn read_head(name: &str, source: &mut impl std::io::BufRead) -> Result<Vec<u8>, InputError> {
    let mut head = Vec::new();
    let mut nonblank = 0;
    while nonblank < 2 {
        let start = head.len();
        let got = std::io::Read::take(&mut *source, MAX_INPUT_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut head)
            .map_err(|source| InputError::Io {
                file: name.to_owned(),
                source,
            })?;
        if got == 0 {
            break;
        }
        if !head[start..].trim_ascii().is_empty() {
            nonblank += 1;
        }
        if head.last() != Some(&b'\n') && got > MAX_INPUT_LINE_BYTES {
            break;
        }
    }
    Ok(head)
}

/// The bytes of `path` (`-`: standard input) and the name messages give it.
pub(crate) fn read_named(path: &Path) -> Result<(String, Vec<u8>), InputError> {
    Ok(if path == Path::new(STDIN_PATH) {
        let name = STDIN_NAME.to_owned();
        let bytes = read_bounded(&name, std::io::stdin().lock())?;
        (name, bytes)
    } else {
        (path.display().to_string(), read_path(path)?)
    })
}

/// The file name's extension, lower case.
pub(crate) fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// The longest line a saved-data file may hold (a hyperfine export written on one line
/// with a million times is about 20 MiB).
pub const MAX_INPUT_LINE_BYTES: usize = 64 << 20;

/// Reads the file at `path` with [`read_bounded`].
pub(crate) fn read_path(path: &Path) -> Result<Vec<u8>, InputError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| InputError::Io {
        file: name.clone(),
        source,
    })?;
    read_bounded(&name, file)
}

/// Reads saved data to its end, refusing early what cannot be ours: a NUL byte anywhere
/// (binary data, `/dev/zero`: no format abba reads has one; found in the first chunk) or a line longer
/// than [`MAX_INPUT_LINE_BYTES`]; so an endless or binary input ends in a clear error, not
/// in reading without limit. Time: O(bytes read).
pub(crate) fn read_bounded(name: &str, mut source: impl Read) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let (mut line, mut line_len) = (1usize, 0usize);
    loop {
        let n = match source.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(InputError::Io {
                    file: name.to_owned(),
                    source,
                });
            }
        };
        let got = &chunk[..n];
        // No format abba reads holds a NUL byte: refused wherever it is (a NUL in a name
        // would otherwise reach the terminal raw).
        {
            if let Some(at) = got.iter().position(|&b| b == 0) {
                return Err(InputError::at(
                    name,
                    None,
                    None,
                    format!(
                        "binary data (a NUL byte at byte {}), not one of abba's formats: \
                         raw JSONL, CSV or a hyperfine --export-json file",
                        bytes.len() + at + 1
                    ),
                ));
            }
        }
        for piece in got.split_inclusive(|&b| b == b'\n') {
            line_len += piece.len();
            if line_len > MAX_INPUT_LINE_BYTES {
                return Err(InputError::at(
                    name,
                    Some(line),
                    None,
                    format!(
                        "the line is longer than {} MiB: not one of abba's formats",
                        MAX_INPUT_LINE_BYTES >> 20
                    ),
                ));
            }
            if piece.last() == Some(&b'\n') {
                line += 1;
                line_len = 0;
            }
        }
        bytes.extend_from_slice(got);
    }
}

/// The path that stands for standard input.
const STDIN_PATH: &str = "-";

/// The name standard input goes by in messages.
const STDIN_NAME: &str = "<stdin>";

/// Reads saved data from memory; `ext` is the file name's extension (lower case), if any.
pub(crate) fn read_bytes(
    name: &str,
    bytes: &[u8],
    ext: Option<&str>,
    csv: &CsvOptions,
) -> Result<(String, Loaded, Option<Experiment>), InputError> {
    let name = name.to_owned();
    // A UTF-8 byte-order mark (editors on Windows add one) says nothing of the format.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.trim_ascii().is_empty() && !matches!(ext, Some("jsonl" | "json" | "csv")) {
        return Err(InputError::at(
            &name,
            None,
            None,
            "empty input: expected raw JSONL (an abba.raw/1 header line first), CSV (a header \
             row naming the variant and value columns) or a hyperfine --export-json file",
        ));
    }
    Ok(match detect(bytes, ext) {
        InputFormat::Raw => {
            let raw = read_raw_bytes(&name, bytes)?;
            (name, raw.to_dataset(), Some(raw))
        }
        InputFormat::Hyperfine => {
            let one = read_hyperfine_bytes(&name, bytes)?;
            (name, one, None)
        }
        InputFormat::Csv => {
            let one = read_csv_bytes(&name, bytes, csv)?;
            (name, one, None)
        }
    })
}

/// Merges datasets from separate sessions into one unpaired dataset (see [`load_files`]).
///
/// # Errors
/// [`InputError::Incompatible`] when units or directions differ;
/// [`InputError::Invalid`] when `sessions` is empty.
pub fn merge_sessions(sessions: Vec<(String, Loaded)>) -> Result<Loaded, InputError> {
    let mut it = sessions.into_iter();
    let Some((first_name, first)) = it.next() else {
        return Err(InputError::at("(no files)", None, None, "no input files"));
    };
    let rest: Vec<(String, Loaded)> = it.collect();
    if rest.is_empty() {
        return Ok(first);
    }
    let mut warnings = first.warnings;
    let mut dataset = first.dataset;
    warnings.push(ReadWarning {
        kind: ReadWarningKind::UnpairedSessions,
        file: first_name.clone(),
        line: None,
        message: format!(
            "{} files merged: unpaired across sessions (blocks and reference values ignored)",
            rest.len() + 1
        ),
    });
    unpair(&mut dataset);
    for (name, l) in rest {
        if l.dataset.unit != dataset.unit || l.dataset.higher_is_better != dataset.higher_is_better
        {
            return Err(InputError::Incompatible {
                first: first_name,
                second: name,
                message: format!(
                    "unit {:?} (higher is better: {}) vs {:?} (higher is better: {})",
                    dataset.unit,
                    dataset.higher_is_better,
                    l.dataset.unit,
                    l.dataset.higher_is_better
                ),
            });
        }
        warnings.extend(l.warnings);
        let mut other = l.dataset;
        unpair(&mut other);
        for s in other.series {
            match dataset
                .series
                .iter_mut()
                .find(|x| x.name == s.name && x.class == s.class)
            {
                Some(x) => x.observations.extend(s.observations),
                None => dataset.series.push(s),
            }
        }
    }
    dataset.design = None;
    dataset.reference = None;
    dataset.reference_beside.clear();
    Ok(Loaded { dataset, warnings })
}

fn unpair(d: &mut Dataset) {
    for s in &mut d.series {
        for o in &mut s.observations {
            o.block = None;
            o.position = None;
        }
    }
}

/// A new series with the given name and no observations.
pub(crate) fn empty_series(name: &str, class: Option<String>) -> Series {
    let series = Series::new(name, []);
    match class {
        Some(c) => series.with_class(c),
        None => series,
    }
}
