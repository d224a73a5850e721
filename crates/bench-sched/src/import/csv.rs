//! CSV import: `variant,value[,block][,class]` in any column order.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bench_stats::{Dataset, Observation, Quantity};

use super::{Loaded, empty_series};
use crate::error::{InputError, ReadWarning, ReadWarningKind};

/// What CSV values mean (CSV files carry no unit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// Unit of the `value` column. Default `value`.
    pub unit: String,
    /// Whether larger values are better. Default `false`.
    pub higher_is_better: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            unit: "value".to_owned(),
            higher_is_better: false,
        }
    }
}

/// Reads a CSV file; see [`read_csv_bytes`].
///
/// # Errors
/// [`InputError`] as for [`read_csv_bytes`], or [`InputError::Io`].
pub fn read_csv(path: &Path, options: &CsvOptions) -> Result<Loaded, InputError> {
    let name = path.display().to_string();
    let bytes = super::read_path(path)?;
    read_csv_bytes(&name, &bytes, options)
}

/// Splits one line into fields: commas separate, double quotes protect commas, `""` inside
/// quotes is a quote. Fields are trimmed of surrounding spaces.
fn split_fields(line: &str) -> Result<Vec<String>, usize> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes => {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    in_quotes = false;
                }
            }
            '"' if cur.trim().is_empty() && !was_quoted => {
                cur.clear();
                in_quotes = true;
                was_quoted = true;
            }
            ',' if !in_quotes => {
                fields.push(if was_quoted {
                    std::mem::take(&mut cur)
                } else {
                    cur.trim().to_owned()
                });
                cur.clear();
                was_quoted = false;
            }
            _ if !in_quotes && was_quoted && c.is_whitespace() => {}
            _ => cur.push(c),
        }
    }
    if in_quotes {
        return Err(fields.len() + 1);
    }
    fields.push(if was_quoted {
        cur
    } else {
        cur.trim().to_owned()
    });
    Ok(fields)
}

/// The file's records, each with the line it starts on: a quoted field may hold a line
/// break (RFC 4180), so a line whose quote is still open is joined with the next. Time:
/// O(n) per record line, O(n^2) in the lines of one record.
fn records(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let (start, record) = match open.take() {
            Some((start, mut record)) => {
                record.push('\n');
                record.push_str(line);
                (start, record)
            }
            None => (i + 1, line.to_owned()),
        };
        if split_fields(&record).is_err() {
            open = Some((start, record));
        } else {
            out.push((start, record));
        }
    }
    // An unterminated quote at the end: the row's own parse names it.
    out.extend(open);
    out
}

/// Parses CSV with a header row; never panics, whatever the bytes.
///
/// Columns (any order, names case-insensitive): `variant` and `value` required, `block`
/// (its presence makes the data paired) and `class` optional; other columns are ignored.
/// Quoted fields may contain commas and line breaks (a name may not: a variant or class
/// name with a control character is refused, naming its cell). Time: O(rows log rows).
///
/// With a `block` column, a block that lacks a variant of its class is dropped with a
/// [`ReadWarningKind::IncompleteBlocks`] warning naming it (as the raw reader drops an
/// incomplete block). Several values of a variant in one block are kept (their mean is the
/// block value), with a [`ReadWarningKind::Input`] warning when their counts differ.
///
/// # Errors
/// [`InputError::Invalid`] naming `file:line:column` for: an empty file, a header without
/// rows, a missing or duplicated column, a row with the wrong number of fields, an empty
/// cell, a value that is not a number or is NaN or infinite, a block that is negative or
/// not a whole number, and variants of one class that share no block. A variant is
/// identified by (class, name), so the same names may appear in several classes.
pub fn read_csv_bytes(
    file: &str,
    bytes: &[u8],
    options: &CsvOptions,
) -> Result<Loaded, InputError> {
    let text = decode(file, bytes)?;
    let records = records(text);
    let mut rows = records
        .iter()
        .map(|(i, l)| (*i, l.as_str()))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = rows.next() else {
        return Err(InputError::at(
            file,
            None,
            None,
            "empty file: a CSV file starts with a header row naming the variant and value columns",
        ));
    };
    let columns = Columns::from_header(file, header_line, header)?;

    let mut dataset = Dataset::new(options.unit.clone(), Vec::new())
        .with_higher_is_better(options.higher_is_better)
        .with_quantity(Quantity::infer(&options.unit, options.higher_is_better));
    // Per series: the line of its first row, and for each block the lines of its rows.
    let mut placed: Vec<Placement> = Vec::new();
    let mut any_row = false;
    for (line, text) in rows {
        any_row = true;
        let row = columns.parse_row(file, line, text)?;
        // A variant is identified by its class and name: `old` and `new` may appear in every
        // class of a benchmark x variant table.
        let idx = match dataset
            .series
            .iter()
            .position(|s| s.name == row.variant && s.class == row.class)
        {
            Some(i) => i,
            None => {
                dataset.series.push(empty_series(&row.variant, row.class));
                placed.push(Placement {
                    first_line: line,
                    blocks: BTreeMap::new(),
                });
                dataset.series.len() - 1
            }
        };
        if let Some(b) = row.block {
            placed[idx].blocks.entry(b).or_default().push(line);
        }
        dataset.series[idx].observations.push(match row.block {
            Some(b) => Observation::in_block(row.value, b),
            None => Observation::new(row.value),
        });
    }
    if !any_row {
        return Err(InputError::at(
            file,
            Some(header_line),
            None,
            "only a header row, no data",
        ));
    }
    let mut warnings = Vec::new();
    if columns.block.is_some() {
        for members in classes(&dataset) {
            warnings.extend(drop_incomplete_blocks(
                file,
                &mut dataset,
                &mut placed,
                &members,
            )?);
            warnings.extend(unequal_counts(file, &dataset, &placed, &members));
            warnings.extend(outlying_repeats(file, &dataset, &placed, &members));
        }
    }
    Ok(Loaded { dataset, warnings })
}

/// The bytes as UTF-8 text without a byte-order mark; the error names the first bad line.
fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, InputError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        InputError::at(file, Some(line), None, "the file is not UTF-8 text")
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// Where the known columns are (0-based field numbers), as named by the header row.
struct Columns {
    /// Fields in the header row; every data row needs as many.
    count: usize,
    variant: usize,
    value: usize,
    block: Option<usize>,
    class: Option<usize>,
}

/// One checked data row.
struct Row {
    variant: String,
    value: f64,
    block: Option<u32>,
    class: Option<String>,
}

impl Columns {
    /// Finds the columns by name (case-insensitive): `variant` and `value` are required,
    /// and none of the known names may appear twice.
    fn from_header(file: &str, line: usize, header: &str) -> Result<Columns, InputError> {
        let err = |col: Option<usize>, msg: String| InputError::at(file, Some(line), col, msg);
        let names = split_fields(header).map_err(|c| err(Some(c), "unterminated quote".into()))?;
        let mut col = BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            let key = n.to_ascii_lowercase();
            if matches!(key.as_str(), "variant" | "value" | "block" | "class")
                && col.insert(key.clone(), i).is_some()
            {
                return Err(err(Some(i + 1), format!("column {key:?} appears twice")));
            }
        }
        let need = |name: &str| {
            col.get(name).copied().ok_or_else(|| {
                err(
                    None,
                    format!("missing column {name:?} (the header row needs variant and value)"),
                )
            })
        };
        Ok(Columns {
            count: names.len(),
            variant: need("variant")?,
            value: need("value")?,
            block: col.get("block").copied(),
            class: col.get("class").copied(),
        })
    }

    /// Splits and checks the data row `text` found at `line`.
    fn parse_row(&self, file: &str, line: usize, text: &str) -> Result<Row, InputError> {
        let err = |col: Option<usize>, msg: String| InputError::at(file, Some(line), col, msg);
        let fields = split_fields(text).map_err(|c| err(Some(c), "unterminated quote".into()))?;
        if fields.len() != self.count {
            return Err(err(
                None,
                format!(
                    "expected {} fields like the header, found {}",
                    self.count,
                    fields.len()
                ),
            ));
        }
        let cell = |c: usize, what: &str| -> Result<&str, InputError> {
            let v = fields[c].as_str();
            if v.is_empty() {
                Err(err(Some(c + 1), format!("empty {what} cell")))
            } else {
                Ok(v)
            }
        };
        let name = |c: usize, what: &str| -> Result<String, InputError> {
            let v = cell(c, what)?;
            if v.chars().any(char::is_control) {
                return Err(err(
                    Some(c + 1),
                    format!(
                        "{what} name {v:?} holds a line break or control character; names are printed on one line"
                    ),
                ));
            }
            Ok(v.to_owned())
        };
        let variant = name(self.variant, "variant")?;
        let value =
            parse_value(cell(self.value, "value")?).map_err(|m| err(Some(self.value + 1), m))?;
        let block = match self.block {
            None => None,
            Some(c) => Some(parse_block(cell(c, "block")?).map_err(|m| err(Some(c + 1), m))?),
        };
        let class = match self.class {
            None => None,
            Some(c) => Some(name(c, "class")?),
        };
        Ok(Row {
            variant,
            value,
            block,
            class,
        })
    }
}

/// A `value` cell: a finite number.
fn parse_value(raw: &str) -> Result<f64, String> {
    let value: f64 = raw
        .parse()
        .map_err(|_| format!("value {raw:?} is not a number"))?;
    if value.is_nan() {
        return Err("value is NaN".into());
    }
    if value.is_infinite() {
        return Err(format!("value {raw:?} is infinite"));
    }
    Ok(value)
}

/// A `block` cell: a whole number in `0..=u32::MAX`.
fn parse_block(raw: &str) -> Result<u32, String> {
    let whole = {
        let digits = raw.strip_prefix(['-', '+']).unwrap_or(raw);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let n: i64 = match raw.parse() {
        Ok(n) => n,
        // Digits beyond i64: a whole number, too large (or too negative) for a block id.
        Err(_) if whole && raw.starts_with('-') => return Err(format!("block {raw} is negative")),
        Err(_) if whole => {
            return Err(format!("block {raw} is too large (at most {})", u32::MAX));
        }
        Err(_) => return Err(format!("block {raw:?} is not a whole number")),
    };
    if n < 0 {
        return Err(format!("block {n} is negative"));
    }
    u32::try_from(n).map_err(|_| format!("block {n} is too large (at most {})", u32::MAX))
}

/// Where one series' rows are in the file.
struct Placement {
    /// The line of its first row.
    first_line: usize,
    /// For each block, the lines of its rows in file order.
    blocks: BTreeMap<u32, Vec<usize>>,
}

/// The series of each class (the variants compared with each other), classes in order of
/// first appearance, series in file order.
fn classes(dataset: &Dataset) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, s) in dataset.series.iter().enumerate() {
        match out
            .iter_mut()
            .find(|m| dataset.series[m[0]].class == s.class)
        {
            Some(m) => m.push(i),
            None => out.push(vec![i]),
        }
    }
    out
}

/// `"class x: "` for a named class, else nothing.
fn class_prefix(dataset: &Dataset, members: &[usize]) -> String {
    match &dataset.series[members[0]].class {
        Some(c) => format!("class {c}: "),
        None => String::new(),
    }
}

/// Within one class, keeps the blocks that hold every variant and drops the others with one
/// [`ReadWarningKind::IncompleteBlocks`] warning, as the raw reader drops incomplete blocks.
///
/// Block numbers in messages are 1-based places in the class's sorted blocks ("block 8" is
/// the 8th block), as the report's block tables count them; the file's own `block` value is
/// given beside it, since the column may start at 0 or skip numbers.
///
/// # Errors
/// When no block holds every variant, naming the first row of the first variant that shares
/// no block with those before it.
fn drop_incomplete_blocks(
    file: &str,
    dataset: &mut Dataset,
    placed: &mut [Placement],
    members: &[usize],
) -> Result<Option<ReadWarning>, InputError> {
    if members.len() < 2 {
        return Ok(None);
    }
    let name = |i: usize| dataset.series[i].name.clone();
    let mut common: BTreeSet<u32> = placed[members[0]].blocks.keys().copied().collect();
    for (k, &m) in members.iter().enumerate().skip(1) {
        let own: BTreeSet<u32> = placed[m].blocks.keys().copied().collect();
        let shared: BTreeSet<u32> = common.intersection(&own).copied().collect();
        if shared.is_empty() {
            let before: Vec<String> = members[..k]
                .iter()
                .map(|&i| format!("{:?}", name(i)))
                .collect();
            return Err(InputError::at(
                file,
                Some(placed[m].first_line),
                None,
                format!(
                    "{}variant {:?} has blocks {} and shares none with {} (blocks {}); \
                     a paired comparison needs blocks that hold every variant",
                    class_prefix(dataset, members),
                    name(m),
                    show_set(&own),
                    before.join(", "),
                    show_set(&common)
                ),
            ));
        }
        common = shared;
    }
    let all: BTreeSet<u32> = members
        .iter()
        .flat_map(|&m| placed[m].blocks.keys().copied())
        .collect();
    if all.len() == common.len() {
        return Ok(None);
    }
    let mut dropped = Vec::new();
    for (place, b) in all.iter().enumerate() {
        if common.contains(b) {
            continue;
        }
        let lacking: Vec<String> = members
            .iter()
            .filter(|&&m| !placed[m].blocks.contains_key(b))
            .map(|&m| name(m))
            .collect();
        let line = members
            .iter()
            .filter_map(|&m| placed[m].blocks.get(b).and_then(|l| l.first()))
            .min()
            .copied()
            .unwrap_or_default();
        dropped.push(format!(
            "block {} (block column {b}, line {line}) lacks {}",
            place + 1,
            and_list(&lacking)
        ));
    }
    for &m in members {
        placed[m].blocks.retain(|b, _| common.contains(b));
        dataset.series[m]
            .observations
            .retain(|o| o.block.is_none_or(|b| common.contains(&b)));
    }
    Ok(Some(ReadWarning {
        kind: ReadWarningKind::IncompleteBlocks,
        file: file.to_owned(),
        line: None,
        message: format!(
            "{}{}: dropped; {} of {} blocks remain",
            class_prefix(dataset, members),
            shorten(&dropped, "; "),
            common.len(),
            all.len()
        ),
    }))
}

/// Every block id any of `members` ran in, ascending.
fn block_ids(placed: &[Placement], members: &[usize]) -> BTreeSet<u32> {
    members
        .iter()
        .flat_map(|&m| placed[m].blocks.keys().copied())
        .collect()
}

/// Several values of a variant in one block are kept, each as a run of the block (several
/// runs per block; an estimator of one value a block reads their mean); when the number of
/// values per (variant, block) differs within a
/// class, one [`ReadWarningKind::Input`] warning names the cells that differ from the most
/// common count, with their lines (as a duplicated row would show up). Block numbers are
/// 1-based places among the blocks kept, exactly as the block tables number them.
fn unequal_counts(
    file: &str,
    dataset: &Dataset,
    placed: &[Placement],
    members: &[usize],
) -> Option<ReadWarning> {
    let blocks = block_ids(placed, members);
    let mut tally: BTreeMap<usize, usize> = BTreeMap::new();
    for &m in members {
        for lines in placed[m].blocks.values() {
            *tally.entry(lines.len()).or_default() += 1;
        }
    }
    if tally.len() < 2 {
        return None;
    }
    // The most common count; on a tie, the smaller (extra rows are the likelier mistake).
    let usual = tally
        .iter()
        .max_by_key(|&(count, cells)| (*cells, std::cmp::Reverse(*count)))
        .map(|(count, _)| *count)?;
    let mut odd = Vec::new();
    for (place, b) in blocks.iter().enumerate() {
        for &m in members {
            let Some(lines) = placed[m].blocks.get(b) else {
                continue;
            };
            if lines.len() == usual {
                continue;
            }
            let shown: Vec<String> = lines.iter().take(4).map(usize::to_string).collect();
            odd.push(format!(
                "block {} holds {} of {} (line{} {}{})",
                place + 1,
                values(lines.len()),
                dataset.series[m].name,
                if lines.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if lines.len() > 4 { ", ..." } else { "" }
            ));
        }
    }
    Some(ReadWarning {
        kind: ReadWarningKind::Input,
        file: file.to_owned(),
        line: None,
        message: format!(
            "{}{}, the others {usual}: unequal counts, as a duplicated or missing row leaves; each value is kept as a run of the block (an estimator of one value a block reads their mean)",
            class_prefix(dataset, members),
            shorten(&odd, "; "),
        ),
    })
}

/// How far, in robust SDs, a repeated value must lie from both its variant's median and the
/// other values of its block to be named by [`outlying_repeats`].
const OUTLIER_ROBUST_SDS: f64 = 3.0;

/// How far, relative to the other values of its block, a repeated value must lie as well
/// (so data with no spread at all do not name every difference).
const OUTLIER_RELATIVE: f64 = 0.10;

/// Where a block holds several values of one variant, names each value that is far from
/// the others: it lies more than [`OUTLIER_ROBUST_SDS`] robust SDs (1.4826 × the MAD of all
/// that variant's values in the class) from the variant's median **and** from the median of
/// the variant's other values in that block, and more than [`OUTLIER_RELATIVE`] from the
/// latter. Both conditions must hold, so a block that is slow as a whole (drift) names
/// nothing, nor does ordinary noise (a normal value is 3 SDs from the median once in 370,
/// and must then also be 3 SDs from its neighbours in the block). Such a value moves the
/// block value (their mean) silently otherwise, as a duplicated row would. Block numbers are
/// 1-based places among the blocks kept, as the block tables number them. Time: O(values
/// log values).
fn outlying_repeats(
    file: &str,
    dataset: &Dataset,
    placed: &[Placement],
    members: &[usize],
) -> Option<ReadWarning> {
    let blocks = block_ids(placed, members);
    let mut found = Vec::new();
    for &m in members {
        let series = &dataset.series[m];
        if placed[m].blocks.values().all(|lines| lines.len() < 2) {
            continue;
        }
        let all: Vec<f64> = series.observations.iter().map(|o| o.value).collect();
        let center = median(&all);
        let deviations: Vec<f64> = all.iter().map(|v| (v - center).abs()).collect();
        let robust_sd = 1.4826 * median(&deviations);
        for (place, b) in blocks.iter().enumerate() {
            let Some(lines) = placed[m].blocks.get(b).filter(|l| l.len() >= 2) else {
                continue;
            };
            let cell: Vec<f64> = series
                .observations
                .iter()
                .filter(|o| o.block == Some(*b))
                .map(|o| o.value)
                .collect();
            for (i, (&v, line)) in cell.iter().zip(lines).enumerate() {
                let others: Vec<f64> = cell
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, &x)| x)
                    .collect();
                let near = median(&others);
                let far = OUTLIER_ROBUST_SDS * robust_sd;
                if (v - center).abs() > far
                    && (v - near).abs() > far
                    && (v - near).abs() > OUTLIER_RELATIVE * near.abs()
                {
                    let mean = cell.iter().sum::<f64>() / cell.len() as f64;
                    found.push(format!(
                        "block {} holds an outlying value of {}: {v} at line {line}, against {} \
                         for its other value{} in the block and {} for its median \
                         (more than {OUTLIER_ROBUST_SDS} robust SDs of {}); each value is \
                         kept as a run of the block (an estimator of one value a block reads \
                         their mean, {})",
                        place + 1,
                        series.name,
                        short(near),
                        if others.len() == 1 { "" } else { "s" },
                        short(center),
                        short(robust_sd),
                        short(mean)
                    ));
                }
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    Some(ReadWarning {
        kind: ReadWarningKind::Input,
        file: file.to_owned(),
        line: None,
        message: format!(
            "{}{}",
            class_prefix(dataset, members),
            shorten(&found, "; ")
        ),
    })
}

/// The median of `values` (NaN-free, as parsed; [`bench_stats::descriptive::median_of`]);
/// 0 when empty. Time: O(n).
fn median(values: &[f64]) -> f64 {
    bench_stats::descriptive::median_of(values).unwrap_or(0.0)
}

/// A number for a message: four significant digits, trailing zeros dropped.
fn short(x: f64) -> String {
    let digits = if x == 0.0 {
        0
    } else {
        (3 - x.abs().log10().floor() as i32).clamp(0, 12) as usize
    };
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// `1 value`, `2 values`.
fn values(n: usize) -> String {
    if n == 1 {
        "1 value".to_owned()
    } else {
        format!("{n} values")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The first five items joined by `sep`, then how many more there are.
fn shorten(items: &[String], sep: &str) -> String {
    const SHOWN: usize = 5;
    let mut s = items[..items.len().min(SHOWN)].join(sep);
    if items.len() > SHOWN {
        s.push_str(&format!("{sep}and {} more", items.len() - SHOWN));
    }
    s
}

fn show_set(s: &BTreeSet<u32>) -> String {
    let v: Vec<String> = s.iter().take(8).map(u32::to_string).collect();
    format!(
        "{{{}{}}}",
        v.join(","),
        if s.len() > 8 { ",..." } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<Loaded, InputError> {
        read_csv_bytes("data.csv", s.as_bytes(), &CsvOptions::default())
    }

    fn msg(s: &str) -> String {
        read(s).unwrap_err().to_string()
    }

    #[test]
    fn reads_any_column_order_with_blocks_and_quotes() {
        let l = read("value,block,variant,note\n1.5,0,A,x\n2.5,0,\"B, fast\",\"say \"\"hi\"\"\"\n1.0,1,A,\n2.0,1,\"B, fast\",\n").unwrap();
        let d = l.dataset;
        assert_eq!(d.series.len(), 2);
        assert_eq!(d.series[1].name, "B, fast");
        assert_eq!(d.series[0].observations[1], Observation::in_block(1.0, 1));
        assert_eq!(d.unit, "value");
    }

    #[test]
    fn errors_name_file_line_and_column() {
        assert_eq!(
            msg("variant,value\nA,1\nB,abc\n"),
            "data.csv:3:2: value \"abc\" is not a number"
        );
        assert_eq!(msg("variant,value\nA,NaN\n"), "data.csv:2:2: value is NaN");
        assert!(
            msg("variant,value\nA,inf\n").starts_with("data.csv:2:2: value \"inf\" is infinite")
        );
        assert_eq!(msg("variant,value\nA,\n"), "data.csv:2:2: empty value cell");
        assert_eq!(
            msg("variant,value,block\nA,1,-1\n"),
            "data.csv:2:3: block -1 is negative"
        );
        assert!(msg("variant,value,block\nA,1,0.5\n").contains("not a whole number"));
        assert!(msg("").contains("empty"));
        assert!(msg("variant,value\n").contains("only a header"));
        assert!(msg("variant,time\nA,1\n").contains("missing column \"value\""));
        assert!(msg("variant,value\nA,1,2\n").starts_with("data.csv:2: expected 2 fields"));
        assert!(msg("variant,value\n\"A,1\n").contains("unterminated quote"));
        // Variants that share no block cannot be paired: the error names the first row of
        // the variant that shares none.
        assert_eq!(
            msg("variant,value,block\nA,1,0\nA,1,1\nB,2,2\nB,2,3\n"),
            "data.csv:4: variant \"B\" has blocks {2,3} and shares none with \"A\" (blocks {0,1}); \
             a paired comparison needs blocks that hold every variant"
        );
        // The same name in two classes is two variants, one per class.
        let two = read_csv_bytes(
            "t.csv",
            b"variant,value,class\nA,1,x\nA,2,y\n",
            &CsvOptions::default(),
        )
        .unwrap();
        assert_eq!(two.dataset.series.len(), 2);
    }

    #[test]
    fn a_block_lacking_a_variant_is_dropped_with_a_warning() {
        // Blocks 0..=3; block 2 (the 3rd) lacks B, starting at line 6.
        let l =
            read("variant,value,block\nA,1,0\nB,2,0\nA,3,1\nB,4,1\nA,5,2\nA,7,3\nB,8,3\n").unwrap();
        assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
        assert_eq!(l.warnings[0].kind, ReadWarningKind::IncompleteBlocks);
        assert_eq!(
            l.warnings[0].message,
            "block 3 (block column 2, line 6) lacks B: dropped; 3 of 4 blocks remain"
        );
        let a = &l.dataset.series[0].observations;
        assert_eq!(a.len(), 3);
        assert!(a.iter().all(|o| o.block != Some(2)));
        // Per class: only the class with the gap loses a block, and says so.
        let l = read("variant,value,block,class\nA,1,0,x\nB,2,0,x\nA,1,0,y\nA,3,1,x\nB,4,1,x\nA,3,1,y\nB,4,1,y\n")
            .unwrap();
        assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
        assert_eq!(
            l.warnings[0].message,
            "class y: block 1 (block column 0, line 4) lacks B: dropped; 1 of 2 blocks remain"
        );
        assert_eq!(l.dataset.series[0].observations.len(), 2);
        assert_eq!(l.dataset.series[2].observations.len(), 1);
    }

    #[test]
    fn unequal_values_per_block_are_kept_with_a_warning() {
        // A duplicated row: block 2 (0-based 1) holds two values of A, every other cell one.
        let l = read("variant,value,block\nA,1,0\nB,2,0\nA,3,1\nB,4,1\nA,5,2\nB,6,2\nA,500,1\n")
            .unwrap();
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        // ... and the duplicate is far from A's other value there: named as well.
        assert_eq!(
            l.warnings[1].message,
            "block 2 holds an outlying value of A: 500 at line 8, against 3 for its other \
             value in the block and 4 for its median (more than 3 robust SDs of 2.965); each \
             value is kept as a run of the block (an estimator of one value a block reads \
             their mean, 251.5)"
        );
        assert_eq!(l.warnings[0].kind, ReadWarningKind::Input);
        assert_eq!(
            l.warnings[0].message,
            "block 2 holds 2 values of A (lines 4, 8), the others 1: \
             unequal counts, as a duplicated or missing row leaves; each value is kept as a \
             run of the block (an estimator of one value a block reads their mean)"
        );
        assert_eq!(
            l.dataset.series[0].observations.len(),
            4,
            "the value is kept"
        );
        // Two runs per block everywhere: no warning; one block short of a run: named.
        let even = "variant,value,block\nA,1,0\nA,1,0\nB,2,0\nB,2,0\nA,3,1\nA,3,1\nB,4,1\nB,4,1\n";
        assert!(read(even).unwrap().warnings.is_empty());
        let short = even.replacen("B,4,1\n", "", 1);
        let l = read(&short).unwrap();
        assert_eq!(
            l.warnings[0].message,
            "block 2 holds 1 value of B (line 8), the others 2: \
             unequal counts, as a duplicated or missing row leaves; each value is kept as a \
             run of the block (an estimator of one value a block reads their mean)"
        );
        // Block numbers count the blocks kept, as the tables do.
        let gap = "variant,value,block\nA,1,0\nB,1,0\nA,1,1\nA,1,2\nB,1,2\nB,1,2\n";
        let l = read(gap).unwrap();
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        assert!(
            l.warnings[1]
                .message
                .starts_with("block 2 holds 2 values of B (lines 6, 7)")
        );
    }

    #[test]
    fn unblocked_csv_is_unpaired() {
        let d = read("variant,value\r\nA,1\r\nB,2\r\nA,3\r\n")
            .unwrap()
            .dataset;
        assert_eq!(d.series[0].observations.len(), 2);
        assert!(
            d.series
                .iter()
                .flat_map(|s| &s.observations)
                .all(|o| o.block.is_none())
        );
    }
}
