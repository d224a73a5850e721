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

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use toml::Spanned;

use crate::cli::{MAX_BLOCKS, MAX_RUNS_PER_BLOCK, MAX_WARMUP};
use crate::exit::usage;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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

    /// Whether a variant is called `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.0.iter().any(|(k, _)| k == name)
    }
}

impl<'a> IntoIterator for &'a Variants {
    type Item = (&'a String, &'a Spanned<String>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Spanned<String>)>,
        fn(&'a (String, Spanned<String>)) -> (&'a String, &'a Spanned<String>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
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
pub struct Settings {
    pub blocks: Option<Spanned<u32>>,
    pub warmup: Option<Spanned<u32>>,
    pub timeout: Option<Spanned<String>>,
    pub metric: Option<String>,
    pub unit: Option<String>,
    pub higher_is_better: Option<bool>,
    #[serde(alias = "runs_per_block")]
    pub runs_per_block: Option<Spanned<u32>>,
    pub shell: Option<Spanned<String>>,
    pub design: Option<Spanned<String>>,
    pub settle: Option<Spanned<String>>,
}

/// One `[[benchmark]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BenchmarkEntry {
    pub name: Spanned<String>,
    pub command: Spanned<String>,
    pub metric: Option<Spanned<String>>,
    pub unit: Option<String>,
    pub higher_is_better: Option<bool>,
    #[serde(alias = "runs_per_block")]
    pub runs_per_block: Option<Spanned<u32>>,
    pub timeout: Option<Spanned<String>>,
    pub setup: Option<String>,
    pub prepare: Option<String>,
    pub conclude: Option<String>,
    pub cleanup: Option<String>,
}

/// Where a byte offset of `text` lies: 1-based line and column (in characters).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// An error at `span` of `file`: `FILE:LINE:COL: message`.
pub fn at(file: &Path, text: &str, span: std::ops::Range<usize>, message: &str) -> anyhow::Error {
    let (line, col) = line_col(text, span.start);
    usage(format!("{}:{line}:{col}: {message}", file.display()))
}

/// Reads and checks the suite file.
///
/// # Errors
/// Exit 2 naming the file (and line, column and key where the file is at fault): a
/// missing file, TOML syntax, an unknown key, a missing `command`, a benchmark named twice,
/// fewer than two variants, a value of the wrong type.
pub fn read(path: &Path) -> anyhow::Result<(SuiteFile, String)> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::NotFound {
            " (write one: see `abba suite --help`, or pass the suite file's path)"
        } else {
            ""
        };
        usage(format!(
            "cannot read the suite file {}: {e}{hint}",
            path.display()
        ))
    })?;
    let file: SuiteFile = toml::from_str(&text).map_err(|e| {
        let message = e.message().trim().to_owned();
        match e.span() {
            Some(span) => at(path, &text, span, &message),
            None => usage(format!("{}: {message}", path.display())),
        }
    })?;
    check(path, &text, &file)?;
    Ok((file, text))
}

fn check(path: &Path, text: &str, file: &SuiteFile) -> anyhow::Result<()> {
    let variants = file.variants.get_ref();
    if variants.len() < 2 {
        return Err(at(
            path,
            text,
            file.variants.span(),
            &format!(
                "[variants] needs a baseline and at least one candidate (found {}), e.g. base = \"./build-base/bin\" and head = \"./build-head/bin\"",
                variants.len()
            ),
        ));
    }
    for (name, value) in variants {
        if name.is_empty() || name.contains('/') || name.chars().any(char::is_control) {
            return Err(at(
                path,
                text,
                value.span(),
                &format!("variant name {name:?}: use letters, digits, '-', '_' or '.' (no '/')"),
            ));
        }
    }
    if file.benchmark.is_empty() {
        return Err(usage(format!(
            "{}: no [[benchmark]] entries; add one with a name and a command, e.g.\n[[benchmark]]\nname = \"parse-small\"\ncommand = \"{{variant}}/parser data/small.json\"",
            path.display()
        )));
    }
    let mut seen: Vec<&str> = Vec::new();
    for b in &file.benchmark {
        let b = b.get_ref();
        let name = b.name.get_ref();
        if name.trim().is_empty() || name.contains('/') || name.chars().any(char::is_control) {
            return Err(at(
                path,
                text,
                b.name.span(),
                &format!(
                    "benchmark name {name:?}: must be non-empty, without '/' or control characters"
                ),
            ));
        }
        if seen.contains(&name.as_str()) {
            return Err(at(
                path,
                text,
                b.name.span(),
                &format!("benchmark {name:?} is named twice: benchmark names must be unique"),
            ));
        }
        seen.push(name);
        if b.command.get_ref().trim().is_empty() {
            return Err(at(path, text, b.command.span(), "command is empty"));
        }
        if let Some(n) = &b.runs_per_block {
            bounded(path, text, n, "runs-per-block", 1, MAX_RUNS_PER_BLOCK)?;
        }
        if let Some(t) = &b.timeout {
            timeout(path, text, t, "timeout")?;
        }
    }
    check_settings(path, text, &file.settings)
}

/// `[settings]`'s counts within the bounds of the flags of the same names (checked before
/// anything is planned, so no count can ask for more than the machine holds), and its
/// timeout longer than 0.
fn check_settings(path: &Path, text: &str, settings: &Settings) -> anyhow::Result<()> {
    if let Some(n) = &settings.blocks {
        bounded(path, text, n, "settings.blocks", 1, MAX_BLOCKS)?;
    }
    if let Some(n) = &settings.warmup {
        bounded(path, text, n, "settings.warmup", 0, MAX_WARMUP)?;
    }
    if let Some(n) = &settings.runs_per_block {
        bounded(
            path,
            text,
            n,
            "settings.runs-per-block",
            1,
            MAX_RUNS_PER_BLOCK,
        )?;
    }
    if let Some(t) = &settings.timeout {
        timeout(path, text, t, "settings.timeout")?;
    }
    Ok(())
}

/// A count of the file from `min` to `max` (the bound of the flag of the same name).
fn bounded(
    path: &Path,
    text: &str,
    value: &Spanned<u32>,
    key: &str,
    min: u32,
    max: i64,
) -> anyhow::Result<()> {
    let n = *value.get_ref();
    if n < min || i64::from(n) > max {
        return Err(at(
            path,
            text,
            value.span(),
            &format!("{key} = {n}: must be from {min} to {max}"),
        ));
    }
    Ok(())
}

/// A timeout of the file (`"30s"`): a duration longer than 0.
pub fn timeout(
    path: &Path,
    text: &str,
    value: &Spanned<String>,
    key: &str,
) -> anyhow::Result<Duration> {
    let d = duration(path, text, value, key)?;
    if d.is_zero() {
        return Err(at(
            path,
            text,
            value.span(),
            &format!("{key} = {:?}: must be longer than 0", value.get_ref()),
        ));
    }
    Ok(d)
}

/// A duration value of the file (`"30s"`), read as the command line reads it.
pub fn duration(
    path: &Path,
    text: &str,
    value: &Spanned<String>,
    key: &str,
) -> anyhow::Result<Duration> {
    crate::parse::parse_duration_with_unit(value.get_ref())
        .map_err(|e| at(path, text, value.span(), &format!("{key}: {e}")))
}

/// The command of `benchmark` for the variant `name` whose value is `value`: `{variant}`
/// becomes the value and `{name}` the variant's name; a command with neither gets the
/// value as a prefix (`VALUE COMMAND`), so a variant can be a command prefix such as
/// `env LD_LIBRARY_PATH=build-base`.
pub fn expand(command: &str, name: &str, value: &str) -> String {
    if command.contains("{variant}") || command.contains("{name}") {
        command.replace("{variant}", value).replace("{name}", name)
    } else {
        format!("{value} {command}")
    }
}

/// `pattern` (`*` any run of characters, `?` one character, everything else itself)
/// matches all of `name`.
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
        assert_eq!(expand("{variant}/p x", "base", "./b"), "./b/p x");
        assert_eq!(
            expand("run --build {name}", "head", "./h"),
            "run --build head"
        );
        assert_eq!(expand("parser x", "base", "env A=1"), "env A=1 parser x");
    }

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }
}
