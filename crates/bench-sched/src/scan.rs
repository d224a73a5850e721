//! Parameter scans as hyperfine spells them: `-P NAME MIN MAX [-D STEP]` and
//! `-L NAME a,b,c` (several `-L` give the cross product), `{NAME}` substituted in the
//! commands (or kernel specs) and in the variants' names ([`ScanSpec::expand`]).
//!
//! Rules (hyperfine's where it has one):
//! - one range, or any number of lists with distinct names, never both;
//! - range bounds are integers with an integer step (default 1); a decimal bound or step
//!   makes a decimal scan, which needs a step (hyperfine: "a step size is required when
//!   the range bounds are floating point numbers"); values are `MIN + i * STEP` computed
//!   exactly in decimal and printed with the most decimals of MIN, MAX and STEP;
//! - each command is expanded for every combination, command by command (hyperfine's
//!   order); the first list varies slowest;
//! - a variant is named by its substituted command (as hyperfine names its benchmarks),
//!   or by its substituted name;
//! - a [`ScanError`] for: MIN > MAX, STEP <= 0, an empty list or value, a repeated name,
//!   a `{NAME}` that no scan defines, a scan used in no command, more than
//!   [`MAX_VARIANTS`] variants. It names the input it is about as a [`ScanInput`], which
//!   the caller words as its own flag ([`ScanError::words`]).
//!
//! Only a single numeric parameter (one range, or one list whose values are all numbers)
//! reaches the analysis, as [`ScanParameter`] values per variant: the trend test needs an
//! order, and several parameters have none.

use std::fmt;

use crate::ScanParameter;

/// The most variants a scan may make (each runs once per block at least).
pub const MAX_VARIANTS: usize = 64;

/// The scans as given: hyperfine's `-P`, `-D` and `-L` values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanSpec {
    /// `NAME MIN MAX` of each range (`-P`), three words each; at most one range.
    pub range: Vec<String>,
    /// The range's step (`-D`); `None`: 1 (integer bounds only).
    pub step: Option<String>,
    /// `NAME LIST` of each list (`-L`), two words each, the list comma-separated.
    pub lists: Vec<String>,
}

/// The scan inputs an error is about, worded by the caller ([`ScanError::words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanInput {
    /// The range (`-P/--parameter-scan`).
    Range,
    /// The range's step (`-D/--parameter-step-size`).
    Step,
    /// A list (`-L/--parameter-list`).
    List,
    /// The variants' names (`--name`).
    Name,
    /// The kernel specs given instead of commands (`--kernel`).
    Kernel,
}

impl ScanInput {
    /// The input in plain words, as [`fmt::Display`] of a [`ScanError`] names it (the
    /// library names no flag; a binary passes its own to [`ScanError::words`]).
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Self::Range => "the range",
            Self::Step => "the range's step",
            Self::List => "the list",
            Self::Name => "the names",
            Self::Kernel => "a kernel spec",
        }
    }
}

/// A scan that cannot be expanded; [`fmt::Display`] words it in plain words
/// ([`ScanInput::noun`]), [`ScanError::words`] with a binary's flags.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanError {
    /// A range and a list together.
    RangeAndList,
    /// A step without a range.
    StepWithoutRange,
    /// More than one range.
    RangeTwice,
    /// A range without its three words.
    RangeShape,
    /// A list without its two words.
    ListShape,
    /// A parameter name that is not an identifier.
    BadName {
        /// The input that named it.
        input: ScanInput,
        /// The name.
        name: String,
    },
    /// A list with no value.
    EmptyList {
        /// The parameter.
        name: String,
    },
    /// A list with an empty value.
    EmptyValue {
        /// The parameter.
        name: String,
    },
    /// A value listed twice.
    ValueTwice {
        /// The parameter.
        name: String,
        /// The value.
        value: String,
    },
    /// A parameter name given twice.
    NameTwice {
        /// The input that named it the second time.
        input: ScanInput,
        /// The name.
        name: String,
    },
    /// A bound (`MIN`, `MAX`) or the step (`STEP`) that is not a decimal number.
    NotANumber {
        /// [`ScanInput::Range`] or [`ScanInput::Step`].
        input: ScanInput,
        /// `MIN`, `MAX` or `STEP`.
        what: &'static str,
        /// The text given.
        text: String,
    },
    /// Decimal bounds without a step.
    StepRequired {
        /// `NAME MIN MAX` as given.
        range: String,
    },
    /// A step of zero or less.
    StepNotPositive {
        /// The step, as a number.
        step: String,
    },
    /// MIN above MAX.
    MinAboveMax {
        /// `NAME MIN MAX` as given.
        range: String,
    },
    /// A range of more than [`MAX_VARIANTS`] values.
    TooManyValues {
        /// `NAME MIN MAX` as given.
        range: String,
        /// How many values.
        count: i128,
    },
    /// No command to substitute in.
    NoCommand {
        /// The input of the first scan.
        input: ScanInput,
        /// The first scan's parameter.
        name: String,
    },
    /// A `{NAME}` that no scan defines.
    Undefined {
        /// The input of the first scan.
        input: ScanInput,
        /// The placeholder.
        placeholder: String,
        /// The command or name it is in.
        text: String,
        /// The parameters defined.
        defined: Vec<String>,
    },
    /// A scan whose `{NAME}` appears in no command.
    Unused {
        /// The scan's input.
        input: ScanInput,
        /// The parameter.
        name: String,
    },
    /// More names than commands.
    TooManyNames {
        /// Names given.
        names: usize,
        /// Commands given.
        commands: usize,
    },
    /// More than [`MAX_VARIANTS`] variants.
    TooManyVariants {
        /// The input of the first scan.
        input: ScanInput,
        /// The variants it would make.
        total: usize,
        /// Commands given.
        commands: usize,
        /// Combinations of the values.
        combinations: usize,
    },
    /// A name without a placeholder for a scan of several combinations.
    SameName {
        /// The name.
        name: String,
        /// The first scan's parameter.
        parameter: String,
    },
}

impl ScanError {
    /// The input the error names first (the one a caller reports it against).
    #[must_use]
    pub fn input(&self) -> ScanInput {
        match self {
            Self::RangeAndList | Self::RangeTwice | Self::RangeShape => ScanInput::Range,
            Self::StepWithoutRange | Self::StepNotPositive { .. } => ScanInput::Step,
            Self::ListShape | Self::EmptyList { .. } | Self::EmptyValue { .. } => ScanInput::List,
            Self::ValueTwice { .. } => ScanInput::List,
            Self::StepRequired { .. } | Self::MinAboveMax { .. } => ScanInput::Range,
            Self::TooManyValues { .. } => ScanInput::Range,
            Self::TooManyNames { .. } | Self::SameName { .. } => ScanInput::Name,
            Self::BadName { input, .. }
            | Self::NameTwice { input, .. }
            | Self::NotANumber { input, .. }
            | Self::NoCommand { input, .. }
            | Self::Undefined { input, .. }
            | Self::Unused { input, .. }
            | Self::TooManyVariants { input, .. } => *input,
        }
    }

    /// The error in words, each input spelled by `flag` (a binary's own flag names).
    #[must_use]
    pub fn words(&self, flag: impl Fn(ScanInput) -> &'static str) -> String {
        let (p, d, l) = (
            flag(ScanInput::Range),
            flag(ScanInput::Step),
            flag(ScanInput::List),
        );
        match self {
            Self::RangeAndList => format!(
                "{p} and {l} cannot be combined (as in hyperfine): use several {} for a cross product",
                l.split('/').next().unwrap_or(l)
            ),
            Self::StepWithoutRange => format!("{d} needs {p} NAME MIN MAX"),
            Self::RangeTwice => format!(
                "{p} may be given once (as in hyperfine); use several {l} for a cross product"
            ),
            Self::RangeShape => format!("{p} takes NAME MIN MAX"),
            Self::ListShape => format!("{l} takes NAME and a comma-separated list"),
            Self::BadName { input, name } => format!(
                "{}: parameter name {name:?} must be letters, digits and _ (not starting with a digit), as it appears in {{NAME}}",
                flag(*input)
            ),
            Self::EmptyList { name } => format!("{l} {name}: the list is empty"),
            Self::EmptyValue { name } => {
                format!("{l} {name}: an empty value in the list (two commas, or one at an end)")
            }
            Self::ValueTwice { name, value } => {
                format!("{l} {name}: the value {value:?} is listed twice")
            }
            Self::NameTwice { input, name } => {
                format!(
                    "{}: the parameter name {name:?} is given twice",
                    flag(*input)
                )
            }
            Self::NotANumber { input, what, text } => {
                format!("{}: {what} {text:?} is not a number", flag(*input))
            }
            Self::StepRequired { range } => format!(
                "{p} {range}: a step size is required when the range bounds are decimal numbers; give it with {d} STEP"
            ),
            Self::StepNotPositive { step } => {
                format!("{d} {step}: the step must be greater than 0")
            }
            Self::MinAboveMax { range } => format!("{p} {range}: MIN is greater than MAX"),
            Self::TooManyValues { range, count } => format!(
                "{p} {range}: {count} values, more than {MAX_VARIANTS} variants; use a larger {d}"
            ),
            Self::NoCommand { input, name } => format!(
                "{}: give a command with {{{name}}} in it (or {} with it)",
                flag(*input),
                flag(ScanInput::Kernel)
            ),
            Self::Undefined {
                input,
                placeholder,
                text,
                defined,
            } => format!(
                "{}: {{{placeholder}}} in {text:?} is not a scanned parameter (defined: {})",
                flag(*input),
                defined.join(", ")
            ),
            Self::Unused { input, name } => format!(
                "{}: {{{name}}} appears in no command, so every value would run the same command",
                flag(*input)
            ),
            Self::TooManyNames { names, commands } => format!(
                "{} given {names} times but there are only {commands} commands to scan",
                flag(ScanInput::Name)
            ),
            Self::TooManyVariants {
                input,
                total,
                commands,
                combinations,
            } => format!(
                "{}: the scan makes {total} variants ({commands} command(s) x {combinations} combination(s)), more than {MAX_VARIANTS}",
                flag(*input)
            ),
            Self::SameName { name, parameter } => format!(
                "{} {name:?} has no {{{parameter}}}: every variant of the scan would get the same name",
                flag(ScanInput::Name)
            ),
        }
    }
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(ScanInput::noun))
    }
}

impl std::error::Error for ScanError {}

/// One scanned parameter: its name and its values as text (what is substituted).
#[derive(Debug, Clone, PartialEq)]
struct Axis {
    name: String,
    values: Vec<String>,
    /// The input that defined it, for messages.
    input: ScanInput,
}

/// What a scan expands the commands and names to.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanExpansion {
    /// The substituted commands (or kernel specs), template by template, every
    /// combination of each.
    pub texts: Vec<String>,
    /// The substituted names (for the named templates, a prefix of `texts`).
    pub names: Vec<String>,
    /// The parameter value of each variant, when one numeric parameter was scanned.
    pub parameter: Option<ScanParameter>,
    /// The input of the first scan (`-P` or `-L`), for the caller's messages.
    pub input: ScanInput,
}

impl ScanSpec {
    /// Whether no range and no list is given (a step alone is still an error).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.range.is_empty() && self.lists.is_empty() && self.step.is_none()
    }

    /// The input of the first scan given: [`ScanInput::Range`] or [`ScanInput::List`].
    #[must_use]
    pub fn first_input(&self) -> ScanInput {
        if self.range.is_empty() {
            ScanInput::List
        } else {
            ScanInput::Range
        }
    }

    /// Checks the scans against each other, before any command is looked at.
    ///
    /// # Errors
    /// A [`ScanError`] for a range or list that cannot be scanned.
    pub fn check(&self) -> Result<(), ScanError> {
        axes(self).map(drop)
    }

    /// Expands the scans over `templates` (commands or kernel specs) and `names`; `None`
    /// when no scan is given.
    ///
    /// # Errors
    /// A [`ScanError`] for the cases in the module docs.
    pub fn expand(
        &self,
        templates: &[String],
        names: &[String],
    ) -> Result<Option<ScanExpansion>, ScanError> {
        let axes = axes(self)?;
        let Some(first) = axes.first() else {
            return Ok(None);
        };
        let input = first.input;
        let Texts {
            texts,
            names,
            combos,
        } = expand_texts(&axes, templates, names)?;
        let parameter = match axes.as_slice() {
            [axis] => numeric(axis).map(|_| ScanParameter {
                name: axis.name.clone(),
                values: combos
                    .iter()
                    .map(|c| c[0].parse::<f64>().unwrap_or(f64::NAN))
                    .collect(),
            }),
            _ => None,
        };
        Ok(Some(ScanExpansion {
            texts,
            names,
            parameter,
            input,
        }))
    }
}

/// The values of `axis` as numbers, when every one is a finite number.
fn numeric(axis: &Axis) -> Option<Vec<f64>> {
    axis.values
        .iter()
        .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect()
}

/// The scans given, checked against each other.
fn axes(scan: &ScanSpec) -> Result<Vec<Axis>, ScanError> {
    if !scan.range.is_empty() && !scan.lists.is_empty() {
        return Err(ScanError::RangeAndList);
    }
    if scan.step.is_some() && scan.range.is_empty() {
        return Err(ScanError::StepWithoutRange);
    }
    let mut axes = Vec::new();
    let ranges: Vec<&[String]> = scan.range.chunks(3).collect();
    match ranges.as_slice() {
        [] => {}
        [one] => axes.push(range(one, scan.step.as_deref())?),
        _ => return Err(ScanError::RangeTwice),
    }
    for list in scan.lists.chunks(2) {
        let [name, values] = list else {
            return Err(ScanError::ListShape);
        };
        check_name(name, ScanInput::List)?;
        let values: Vec<String> = values.split(',').map(str::to_owned).collect();
        let name = name.clone();
        if values.iter().all(String::is_empty) {
            return Err(ScanError::EmptyList { name });
        }
        if values.iter().any(String::is_empty) {
            return Err(ScanError::EmptyValue { name });
        }
        if let Some(dup) = values
            .iter()
            .enumerate()
            .find(|(i, v)| values[..*i].contains(v))
        {
            let value = dup.1.clone();
            return Err(ScanError::ValueTwice { name, value });
        }
        axes.push(Axis {
            name,
            values,
            input: ScanInput::List,
        });
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            let (input, name) = (a.input, a.name.clone());
            return Err(ScanError::NameTwice { input, name });
        }
    }
    Ok(axes)
}

/// A parameter name: letters, digits and `_`, not starting with a digit.
fn check_name(name: &str, input: ScanInput) -> Result<(), ScanError> {
    if is_ident(name) {
        Ok(())
    } else {
        let name = name.to_owned();
        Err(ScanError::BadName { input, name })
    }
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A decimal number as an integer count of `10^-scale` units.
#[derive(Debug, Clone, Copy)]
struct Fixed {
    units: i128,
    scale: u32,
}

fn parse_fixed(text: &str, what: &'static str, input: ScanInput) -> Result<Fixed, ScanError> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let ok = !(int.is_empty() && frac.is_empty())
        && int.chars().all(|c| c.is_ascii_digit())
        && frac.chars().all(|c| c.is_ascii_digit())
        && int.len() + frac.len() <= 30;
    if !ok {
        let text = text.to_owned();
        return Err(ScanError::NotANumber { input, what, text });
    }
    let units: i128 = format!("{int}{frac}").parse().unwrap_or(0);
    Ok(Fixed {
        units: if neg { -units } else { units },
        scale: frac.len() as u32,
    })
}

fn rescale(x: Fixed, scale: u32) -> i128 {
    x.units * 10i128.pow(scale - x.scale)
}

fn format_fixed(units: i128, scale: u32) -> String {
    if scale == 0 {
        return units.to_string();
    }
    let p = 10i128.pow(scale);
    let sign = if units < 0 { "-" } else { "" };
    let a = units.abs();
    format!("{sign}{}.{:0width$}", a / p, a % p, width = scale as usize)
}

/// `-P NAME MIN MAX` with `-D STEP`: the values `MIN, MIN + STEP, ... <= MAX`.
fn range(args: &[String], step: Option<&str>) -> Result<Axis, ScanError> {
    let [name, min, max] = args else {
        return Err(ScanError::RangeShape);
    };
    check_name(name, ScanInput::Range)?;
    let lo = parse_fixed(min, "MIN", ScanInput::Range)?;
    let hi = parse_fixed(max, "MAX", ScanInput::Range)?;
    let decimal_bounds = lo.scale > 0 || hi.scale > 0;
    let range = format!("{name} {min} {max}");
    let step = match step {
        Some(s) => parse_fixed(s, "STEP", ScanInput::Step)?,
        None if decimal_bounds => return Err(ScanError::StepRequired { range }),
        None => Fixed { units: 1, scale: 0 },
    };
    if step.units <= 0 {
        let step = format_fixed(step.units, step.scale);
        return Err(ScanError::StepNotPositive { step });
    }
    let scale = lo.scale.max(hi.scale).max(step.scale);
    let (a, b, s) = (rescale(lo, scale), rescale(hi, scale), rescale(step, scale));
    if a > b {
        return Err(ScanError::MinAboveMax { range });
    }
    let count = (b - a) / s + 1;
    if count > MAX_VARIANTS as i128 {
        return Err(ScanError::TooManyValues { range, count });
    }
    Ok(Axis {
        name: name.clone(),
        values: (0..count).map(|i| format_fixed(a + i * s, scale)).collect(),
        input: ScanInput::Range,
    })
}

/// Every combination of the axes' values, the first axis varying slowest.
fn combinations(axes: &[Axis]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                axis.values.iter().map(move |v| {
                    let mut c = prefix.clone();
                    c.push(v.clone());
                    c
                })
            })
            .collect();
    }
    out
}

fn substitute(text: &str, axes: &[Axis], combo: &[String]) -> String {
    axes.iter().zip(combo).fold(text.to_owned(), |t, (a, v)| {
        t.replace(&format!("{{{}}}", a.name), v)
    })
}

/// `{IDENT}` placeholders in `text`.
fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_ident(&after[..close]) => {
                out.push(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// What a scan expands to: one text, combination and (when named) name per variant.
#[derive(Debug)]
struct Texts {
    /// The substituted commands (or kernel specs), template by template.
    texts: Vec<String>,
    /// The substituted `--name` values (for the named templates, a prefix of `texts`).
    names: Vec<String>,
    /// The values of each variant, one per axis.
    combos: Vec<Vec<String>>,
}

/// The texts (commands or kernel specs), names and combinations of the expansion: every
/// template for every combination, template by template.
fn expand_texts(axes: &[Axis], templates: &[String], names: &[String]) -> Result<Texts, ScanError> {
    let input = axes[0].input;
    if templates.is_empty() {
        let name = axes[0].name.clone();
        return Err(ScanError::NoCommand { input, name });
    }
    for t in templates.iter().chain(names) {
        if let Some(p) = placeholders(t)
            .into_iter()
            .find(|p| !axes.iter().any(|a| a.name == *p))
        {
            return Err(ScanError::Undefined {
                input,
                placeholder: p.to_owned(),
                text: t.clone(),
                defined: axes.iter().map(|a| a.name.clone()).collect(),
            });
        }
    }
    for a in axes {
        let tag = format!("{{{}}}", a.name);
        if !templates.iter().any(|t| t.contains(&tag)) {
            let (input, name) = (a.input, a.name.clone());
            return Err(ScanError::Unused { input, name });
        }
    }
    if names.len() > templates.len() {
        return Err(ScanError::TooManyNames {
            names: names.len(),
            commands: templates.len(),
        });
    }
    let combos = combinations(axes);
    let total = combos.len() * templates.len();
    if total > MAX_VARIANTS {
        return Err(ScanError::TooManyVariants {
            input,
            total,
            commands: templates.len(),
            combinations: combos.len(),
        });
    }
    let mut texts = Vec::with_capacity(total);
    let mut out_names = Vec::new();
    let mut out_combos = Vec::with_capacity(total);
    for (i, t) in templates.iter().enumerate() {
        for c in &combos {
            texts.push(substitute(t, axes, c));
            if let Some(n) = names.get(i) {
                if combos.len() > 1 && placeholders(n).is_empty() {
                    return Err(ScanError::SameName {
                        name: n.clone(),
                        parameter: axes[0].name.clone(),
                    });
                }
                out_names.push(substitute(n, axes, c));
            }
            out_combos.push(c.clone());
        }
    }
    Ok(Texts {
        texts,
        names: out_names,
        combos: out_combos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(p: &[&str], d: Option<&str>, l: &[[&str; 2]]) -> ScanSpec {
        ScanSpec {
            range: p.iter().map(|s| (*s).to_owned()).collect(),
            step: d.map(str::to_owned),
            lists: l.iter().flatten().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn integer_and_decimal_ranges() {
        let a = axes(&scan(&["n", "1", "4"], None, &[])).unwrap();
        assert_eq!(a[0].values, ["1", "2", "3", "4"]);
        let a = axes(&scan(&["n", "0", "10"], Some("3"), &[])).unwrap();
        assert_eq!(a[0].values, ["0", "3", "6", "9"]);
        let a = axes(&scan(&["x", "0", "0.3"], Some("0.1"), &[])).unwrap();
        assert_eq!(a[0].values, ["0.0", "0.1", "0.2", "0.3"]);
        let a = axes(&scan(&["x", "-1", "1"], Some("0.5"), &[])).unwrap();
        assert_eq!(a[0].values, ["-1.0", "-0.5", "0.0", "0.5", "1.0"]);
    }

    #[test]
    fn bad_scans_name_the_flag() {
        let err = |s: ScanSpec| axes(&s).unwrap_err().to_string();
        assert!(err(scan(&["n", "4", "1"], None, &[])).contains("MIN is greater than MAX"));
        assert!(err(scan(&["n", "1", "4"], Some("0"), &[])).starts_with("the range's step"));
        assert!(err(scan(&["n", "1", "4"], Some("-1"), &[])).starts_with("the range's step"));
        assert!(err(scan(&["n", "0", "1.5"], None, &[])).contains("step size is required"));
        assert!(err(scan(&["n", "1", "1000"], None, &[])).contains("more than 64"));
        assert!(err(scan(&[], None, &[["n", ""]])).contains("empty"));
        assert!(err(scan(&[], None, &[["n", "1,,2"]])).contains("empty value"));
        assert!(err(scan(&[], None, &[["n", "1"], ["n", "2"]])).contains("twice"));
        assert!(err(scan(&["n", "1", "2"], None, &[["m", "1"]])).contains("cannot be combined"));
        assert!(err(scan(&[], Some("1"), &[["m", "1"]])).starts_with("the range's step"));
    }

    #[test]
    fn cross_product_command_by_command() {
        let a = axes(&scan(&[], None, &[["a", "1,2"], ["b", "x,y"]])).unwrap();
        let Texts { texts, names, .. } = expand_texts(
            &a,
            &["run {a} {b}".into(), "other {a}{b}".into()],
            &["r-{a}{b}".into()],
        )
        .unwrap();
        assert_eq!(
            texts,
            [
                "run 1 x", "run 1 y", "run 2 x", "run 2 y", "other 1x", "other 1y", "other 2x",
                "other 2y"
            ]
        );
        // Unnamed commands keep their default names (the substituted command).
        assert_eq!(names, ["r-1x", "r-1y", "r-2x", "r-2y"]);
    }

    #[test]
    fn undefined_and_unused_placeholders() {
        let a = axes(&scan(&[], None, &[["n", "1,2"]])).unwrap();
        let e = expand_texts(&a, &["run {n} {m}".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("{m}") && e.starts_with("the list"), "{e}");
        let e = expand_texts(&a, &["run".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("appears in no command"), "{e}");
        let e = expand_texts(&a, &["run {n}".into()], &["same".into()])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("the names"), "{e}");
        // Braces that are not a placeholder pass through.
        let t = expand_texts(&a, &["awk '{ print }' {n}".into()], &[]).unwrap();
        assert_eq!(t.texts, ["awk '{ print }' 1", "awk '{ print }' 2"]);
    }
}
