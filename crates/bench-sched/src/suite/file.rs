//! The suite file (`abba.toml`): the variants (builds) and the benchmarks, read with the
//! `toml` crate so every error names the file, line, column and key.
//!
//! ```toml
//! [variants]                  # name = value for {variant}; the first is the baseline
//! base = "./build-base/bin"
//! head = "./build-head/bin"
//!
//! [settings]                  # optional; the command line overrides them
//! blocks = 20
//!
//! [[benchmark]]
//! name = "parse-small"
//! command = "{variant}/parser data/small.json"
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use toml::Spanned;

use super::SuiteError;
use crate::duration::parse_duration_with_unit;
use crate::experiment::{MAX_BLOCKS, MAX_RUNS_PER_BLOCK, MAX_WARMUP};

/// The whole file, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SuiteFile {
    /// Variant name -> the text `{variant}` stands for, in file order.
    pub variants: Spanned<Variants>,
    /// Defaults for every benchmark.
    #[serde(default)]
    pub settings: Settings,
    /// The benchmarks, in file order.
    #[serde(default)]
    pub benchmark: Vec<Spanned<BenchmarkEntry>>,
}

/// `[variants]`: name -> value, in the file's order (the first is the baseline).
#[derive(Debug, Default)]
pub struct Variants(pub Vec<(String, Spanned<String>)>);

impl Variants {
    /// The variants in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Spanned<String>)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The variants' names in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a variant is called `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.0.iter().any(|(k, _)| k == name)
    }
}

impl<'de> Deserialize<'de> for Variants {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Variants;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a table of variant names and their values (strings)")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Variants, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Spanned<String>>()? {
                    out.push((k, v));
                }
                Ok(Variants(out))
            }
        }
        d.deserialize_map(Ordered)
    }
}

/// `[settings]`: what the command-line flags of the same names override.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[non_exhaustive]
pub struct Settings {
    /// `blocks`.
    pub blocks: Option<Spanned<u32>>,
    /// `warmup`.
    pub warmup: Option<Spanned<u32>>,
    /// `timeout` (`"30s"`).
    pub timeout: Option<Spanned<String>>,
    /// `metric` (`wall`, `cpu`, `json:KEY`, ...).
    pub metric: Option<String>,
    /// `unit`.
    pub unit: Option<String>,
    /// `higher-is-better`.
    pub higher_is_better: Option<bool>,
    /// `runs-per-block` (a multiple of 2).
    #[serde(alias = "runs_per_block")]
    pub runs_per_block: Option<Spanned<u32>>,
    /// `shell` (`none` or `sh`).
    pub shell: Option<Spanned<String>>,
    /// `design` (`abba` or `random`).
    pub design: Option<Spanned<String>>,
    /// `settle` (`"100ms"`).
    pub settle: Option<Spanned<String>>,
}

/// One `[[benchmark]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[non_exhaustive]
pub struct BenchmarkEntry {
    /// Its name, unique in the file.
    pub name: Spanned<String>,
    /// Its command, with `{variant}` / `{name}` placeholders or none.
    pub command: Spanned<String>,
    /// Its metric, when not the suite's.
    pub metric: Option<Spanned<String>>,
    /// Its unit, when not the suite's.
    pub unit: Option<String>,
    /// Its direction, when not the suite's.
    pub higher_is_better: Option<bool>,
    /// Its runs of each variant per block.
    #[serde(alias = "runs_per_block")]
    pub runs_per_block: Option<Spanned<u32>>,
    /// Its per-run timeout.
    pub timeout: Option<Spanned<String>>,
    /// Its `setup` hook.
    pub setup: Option<String>,
    /// Its `prepare` hook.
    pub prepare: Option<String>,
    /// Its `conclude` hook.
    pub conclude: Option<String>,
    /// Its `cleanup` hook.
    pub cleanup: Option<String>,
}

/// A suite file read and checked: the parsed [`SuiteFile`] with its path and text, so every
/// later error can name the line and column it comes from.
#[derive(Debug)]
pub struct SuiteSpec {
    path: PathBuf,
    text: String,
    file: SuiteFile,
}

/// Where a byte offset of `text` lies: 1-based line and column (in characters).
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The largest suite file read (a suite of thousands of benchmarks is well under 1 MiB): a
/// longer input (`yes 'x = 1' | abba suite /dev/stdin`) is refused, not read without limit.
pub const MAX_SUITE_FILE_BYTES: usize = 16 << 20;

/// Reads the suite file at `path` as the other readers read their inputs: chunk by chunk,
/// refusing binary data (a NUL byte, found in the first chunk of `/dev/zero`) and a file
/// longer than [`MAX_SUITE_FILE_BYTES`] as soon as it is seen. Time: O(bytes read).
fn read_bounded(path: &Path) -> Result<String, SuiteError> {
    use std::io::Read;
    let io_error = |source| SuiteError::Read {
        path: path.to_owned(),
        source,
    };
    let refused = |message: String| SuiteError::File {
        path: path.to_owned(),
        message,
    };
    let mut file = std::fs::File::open(path).map_err(io_error)?;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error(e)),
        };
        let got = &chunk[..n];
        if let Some(at) = got.iter().position(|&b| b == 0) {
            return Err(refused(format!(
                "binary data (a NUL byte at byte {}), not a suite file (TOML text)",
                bytes.len() + at + 1
            )));
        }
        if bytes.len() + n > MAX_SUITE_FILE_BYTES {
            return Err(refused(format!(
                "longer than {} MiB: not a suite file (a suite's TOML is a few KiB)",
                MAX_SUITE_FILE_BYTES >> 20
            )));
        }
        bytes.extend_from_slice(got);
    }
    String::from_utf8(bytes).map_err(|e| {
        refused(format!(
            "not UTF-8 text (an invalid byte at byte {}), not a suite file (TOML text)",
            e.utf8_error().valid_up_to() + 1
        ))
    })
}

impl SuiteSpec {
    /// Reads and checks the suite file at `path`. Time: O(file size).
    ///
    /// # Errors
    /// A missing file ([`SuiteError::Read`]); binary data (a NUL byte) or more than
    /// [`MAX_SUITE_FILE_BYTES`] (`/dev/zero`, an endless pipe: [`SuiteError::File`], read no
    /// further); TOML syntax, an unknown key, a missing
    /// `command`, a benchmark named twice, fewer than two variants, a value of the wrong
    /// type or out of bounds ([`SuiteError::At`], [`SuiteError::File`]).
    pub fn read(path: &Path) -> Result<SuiteSpec, SuiteError> {
        let text = read_bounded(path)?;
        SuiteSpec::parse(path, text)
    }

    /// Parses and checks `text`, the suite file read from `path` (named in errors).
    ///
    /// # Errors
    /// As [`SuiteSpec::read`], but for reading.
    pub fn parse(path: &Path, text: String) -> Result<SuiteSpec, SuiteError> {
        let file: SuiteFile = match toml::from_str(&text) {
            Ok(file) => file,
            Err(e) => {
                let message = e.message().trim().to_owned();
                return Err(match e.span() {
                    Some(span) => {
                        // A value of the wrong type: the key it is the value of.
                        let message = match key_before(&text, span.start) {
                            Some(key) => format!("{key}: {message}"),
                            None => message,
                        };
                        at(path, &text, span, message)
                    }
                    None => SuiteError::File {
                        path: path.to_owned(),
                        message,
                    },
                });
            }
        };
        let spec = SuiteSpec {
            path: path.to_owned(),
            text,
            file,
        };
        spec.check()?;
        Ok(spec)
    }

    /// The file's contents.
    pub fn file(&self) -> &SuiteFile {
        &self.file
    }

    /// The path it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the value of variant `name` (`--variant NAME=VALUE`), keeping its place
    /// in the file's order; errors later naming the value point at the file's entry.
    /// Time: O(variants).
    ///
    /// # Errors
    /// [`SuiteError::Invalid`] naming the variants the file has, when it has none called
    /// `name`.
    pub fn set_variant(&mut self, name: &str, value: &str) -> Result<(), SuiteError> {
        let known = self.variant_names().join(", ");
        let variants = &mut self.file.variants.get_mut().0;
        match variants.iter_mut().find(|(k, _)| k == name) {
            Some((_, v)) => {
                *v = Spanned::new(v.span(), value.to_owned());
                Ok(())
            }
            None => Err(SuiteError::Invalid(format!(
                "no variant {name:?} in the suite's [variants] (it has: {known})"
            ))),
        }
    }

    /// The variants' names, the baseline first.
    pub fn variant_names(&self) -> Vec<&str> {
        self.file
            .variants
            .get_ref()
            .keys()
            .map(String::as_str)
            .collect()
    }

    /// The benchmarks' names, in file order.
    pub fn benchmark_names(&self) -> Vec<&str> {
        self.file
            .benchmark
            .iter()
            .map(|b| b.get_ref().name.get_ref().as_str())
            .collect()
    }

    /// The benchmarks whose names match one of `globs` (all when `globs` is empty), in file
    /// order; empty when none matches.
    pub fn pick(&self, globs: &[String]) -> Vec<&BenchmarkEntry> {
        self.file
            .benchmark
            .iter()
            .map(|b| b.get_ref())
            .filter(|b| globs.is_empty() || globs.iter().any(|g| glob(g, b.name.get_ref())))
            .collect()
    }

    /// The file, line and column of byte `offset` of the file.
    pub(crate) fn place(&self, offset: usize) -> (PathBuf, usize, usize) {
        let (line, column) = line_col(&self.text, offset);
        (self.path.clone(), line, column)
    }

    /// An error at `span` of the file.
    pub(crate) fn at(&self, span: std::ops::Range<usize>, message: String) -> SuiteError {
        at(&self.path, &self.text, span, message)
    }

    /// A duration value of the file (`"30s"`), read as the command line reads it.
    pub(crate) fn duration(
        &self,
        value: &Spanned<String>,
        key: &str,
    ) -> Result<Duration, SuiteError> {
        parse_duration_with_unit(value.get_ref())
            .map_err(|e| self.at(value.span(), format!("{key}: {e}")))
    }

    /// A timeout of the file (`"30s"`): a duration longer than 0.
    pub(crate) fn timeout(
        &self,
        value: &Spanned<String>,
        key: &str,
    ) -> Result<Duration, SuiteError> {
        let d = self.duration(value, key)?;
        if d.is_zero() {
            return Err(self.at(
                value.span(),
                format!("{key} = {:?}: must be longer than 0", value.get_ref()),
            ));
        }
        Ok(d)
    }

    fn check(&self) -> Result<(), SuiteError> {
        let file = &self.file;
        let variants = file.variants.get_ref();
        if variants.len() < 2 {
            return Err(self.at(
                file.variants.span(),
                format!(
                    "[variants] needs a baseline and at least one candidate (found {}), e.g. base = \"./build-base/bin\" and head = \"./build-head/bin\"",
                    variants.len()
                ),
            ));
        }
        for (name, value) in variants.iter() {
            if name.is_empty() || name.contains('/') || name.chars().any(char::is_control) {
                return Err(self.at(
                    value.span(),
                    format!("variant name {name:?}: use letters, digits, '-', '_' or '.' (no '/')"),
                ));
            }
        }
        if file.benchmark.is_empty() {
            return Err(SuiteError::File {
                path: self.path.clone(),
                message: "no [[benchmark]] entries; add one with a name and a command, e.g.\n[[benchmark]]\nname = \"parse-small\"\ncommand = \"{variant}/parser data/small.json\"".to_owned(),
            });
        }
        let mut seen: Vec<&str> = Vec::new();
        for b in &file.benchmark {
            let b = b.get_ref();
            let name = b.name.get_ref();
            if name.trim().is_empty() || name.contains('/') || name.chars().any(char::is_control) {
                return Err(self.at(
                    b.name.span(),
                    format!(
                        "benchmark name {name:?}: must be non-empty, without '/' or control characters"
                    ),
                ));
            }
            if seen.contains(&name.as_str()) {
                return Err(self.at(
                    b.name.span(),
                    format!("benchmark {name:?} is named twice: benchmark names must be unique"),
                ));
            }
            seen.push(name);
            if b.command.get_ref().trim().is_empty() {
                return Err(self.at(b.command.span(), "command is empty".to_owned()));
            }
            if let Some(n) = &b.runs_per_block {
                self.bounded(n, "runs-per-block", 1, MAX_RUNS_PER_BLOCK)?;
            }
            if let Some(t) = &b.timeout {
                self.timeout(t, "timeout")?;
            }
        }
        self.check_settings()
    }

    /// `[settings]`'s counts within the bounds of the flags of the same names (checked
    /// before anything is planned, so no count can ask for more than the machine holds),
    /// and its timeout longer than 0.
    fn check_settings(&self) -> Result<(), SuiteError> {
        let settings = &self.file.settings;
        if let Some(n) = &settings.blocks {
            self.bounded(n, "settings.blocks", 1, MAX_BLOCKS)?;
        }
        if let Some(n) = &settings.warmup {
            self.bounded(n, "settings.warmup", 0, MAX_WARMUP)?;
        }
        if let Some(n) = &settings.runs_per_block {
            self.bounded(n, "settings.runs-per-block", 1, MAX_RUNS_PER_BLOCK)?;
        }
        if let Some(t) = &settings.timeout {
            self.timeout(t, "settings.timeout")?;
        }
        Ok(())
    }

    /// A count of the file from `min` to `max` (the bound of the flag of the same name).
    fn bounded(
        &self,
        value: &Spanned<u32>,
        key: &str,
        min: u32,
        max: u32,
    ) -> Result<(), SuiteError> {
        let n = *value.get_ref();
        if n < min || n > max {
            return Err(self.at(
                value.span(),
                format!("{key} = {n}: must be from {min} to {max}"),
            ));
        }
        Ok(())
    }
}

/// An error at `span` of `text` (the file at `path`).
/// The key whose value starts at byte `offset`: the text before `=` on its line
/// (`blocks = "ten"` gives `blocks`); `None` when the offset is not after a `key =`.
fn key_before(text: &str, offset: usize) -> Option<&str> {
    let before = text.get(..offset)?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && !key.contains(['[', '{', ',', '"'])).then_some(key)
}

fn at(path: &Path, text: &str, span: std::ops::Range<usize>, message: String) -> SuiteError {
    let (line, column) = line_col(text, span.start);
    SuiteError::At {
        path: path.to_owned(),
        line,
        column,
        message,
    }
}

/// The command of `benchmark` for the variant `name` whose value is `value`: `{variant}`
/// becomes the value and `{name}` the variant's name; a command with neither gets the
/// value as a prefix (`VALUE COMMAND`), so a variant can be a command prefix such as
/// `env LD_LIBRARY_PATH=build-base`.
pub fn expand_command(command: &str, name: &str, value: &str) -> String {
    if command.contains("{variant}") || command.contains("{name}") {
        command.replace("{variant}", value).replace("{name}", name)
    } else {
        format!("{value} {command}")
    }
}

/// `pattern` (`*` any run of characters, `?` one character, everything else itself)
/// matches all of `name`. Time: O(pattern × name) at worst.
pub fn glob(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_a_shell_would() {
        assert!(glob("parse-*", "parse-small"));
        assert!(glob("*", "x"));
        assert!(glob("p?rse", "parse"));
        assert!(glob("*-small", "parse-small"));
        assert!(!glob("parse-*", "render-small"));
        assert!(!glob("parse", "parse-small"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
    }

    #[test]
    fn placeholders_or_a_prefix() {
        assert_eq!(expand_command("{variant}/p x", "base", "./b"), "./b/p x");
        assert_eq!(
            expand_command("run --build {name}", "head", "./h"),
            "run --build head"
        );
        assert_eq!(
            expand_command("parser x", "base", "env A=1"),
            "env A=1 parser x"
        );
    }

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn an_error_names_the_file_line_and_column() {
        let text =
            "[variants]\nbase = \"a\"\nhead = \"b\"\n[[benchmark]]\nname = \"x\"\ncommand = \"\"\n";
        let e = SuiteSpec::parse(Path::new("s.toml"), text.into()).unwrap_err();
        assert_eq!(e.to_string(), "s.toml:6:11: command is empty");
    }
}
