//! CSV import: `variant,value[,block][,class]` in any column order.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bench_stats::{Dataset, Observation};

use super::{Loaded, empty_series};
use crate::error::InputError;

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
    let bytes = std::fs::read(path).map_err(|source| InputError::Io {
        file: name.clone(),
        source,
    })?;
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

/// Parses CSV with a header row; never panics, whatever the bytes.
///
/// Columns (any order, names case-insensitive): `variant` and `value` required, `block`
/// (its presence makes the data paired) and `class` optional; other columns are ignored.
/// Quoted fields may contain commas; fields may not span lines. Time: O(bytes).
///
/// # Errors
/// [`InputError::Invalid`] naming `file:line:column` for: an empty file, a header without
/// rows, a missing or duplicated column, a row with the wrong number of fields, an empty
/// cell, a value that is not a number or is NaN or infinite, a block that is negative or
/// not a whole number, and variants of one class with different block sets. A variant is
/// identified by (class, name), so the same names may appear in several classes.
pub fn read_csv_bytes(
    file: &str,
    bytes: &[u8],
    options: &CsvOptions,
) -> Result<Loaded, InputError> {
    let text = decode(file, bytes)?;
    let mut rows = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = rows.next() else {
        return Err(InputError::at(
            file,
            None,
            None,
            "the file is empty (expected a header row with variant,value)",
        ));
    };
    let columns = Columns::from_header(file, header_line, header)?;

    let mut dataset = Dataset::new(options.unit.clone(), Vec::new())
        .with_higher_is_better(options.higher_is_better);
    let mut blocks_of: Vec<(usize, BTreeSet<u32>)> = Vec::new(); // (first line, blocks) per series
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
                blocks_of.push((line, BTreeSet::new()));
                dataset.series.len() - 1
            }
        };
        if let Some(b) = row.block {
            blocks_of[idx].1.insert(b);
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
    if columns.block.is_some() {
        check_same_blocks(file, &dataset, &blocks_of)?;
    }
    Ok(Loaded {
        dataset,
        warnings: Vec::new(),
    })
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
        let variant = cell(self.variant, "variant")?.to_owned();
        let value =
            parse_value(cell(self.value, "value")?).map_err(|m| err(Some(self.value + 1), m))?;
        let block = match self.block {
            None => None,
            Some(c) => Some(parse_block(cell(c, "block")?).map_err(|m| err(Some(c + 1), m))?),
        };
        let class = match self.class {
            None => None,
            Some(c) => Some(cell(c, "class")?.to_owned()),
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
    let n: i64 = raw
        .parse()
        .map_err(|_| format!("block {raw:?} is not a whole number"))?;
    if n < 0 {
        return Err(format!("block {n} is negative"));
    }
    u32::try_from(n).map_err(|_| format!("block {n} is too large"))
}

/// Within a class (the variants compared with each other), every variant needs the same
/// blocks; `blocks_of` holds each series' first line and block set.
fn check_same_blocks(
    file: &str,
    dataset: &Dataset,
    blocks_of: &[(usize, BTreeSet<u32>)],
) -> Result<(), InputError> {
    for (i, (line, set)) in blocks_of.iter().enumerate() {
        let class = &dataset.series[i].class;
        let Some(first) = dataset.series.iter().position(|s| &s.class == class) else {
            continue;
        };
        if set != &blocks_of[first].1 {
            return Err(InputError::at(
                file,
                Some(*line),
                None,
                format!(
                    "variant {:?} has blocks {} but {:?} has {}; every variant needs the same blocks",
                    dataset.series[i].name,
                    show_set(set),
                    dataset.series[first].name,
                    show_set(&blocks_of[first].1)
                ),
            ));
        }
    }
    Ok(())
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
        let mixed = msg("variant,value,block\nA,1,0\nA,1,1\nB,2,0\n");
        assert!(mixed.contains("variant \"B\" has blocks {0}"), "{mixed}");
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
