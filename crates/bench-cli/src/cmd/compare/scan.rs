//! Parameter scans as hyperfine spells them: `-P NAME MIN MAX [-D STEP]` and
//! `-L NAME a,b,c` (several `-L` give the cross product), `{NAME}` substituted in the
//! commands (or `--kernel` specs) and in the `--name` values.
//!
//! Rules (hyperfine's where it has one):
//! - one `-P`, or any number of `-L` with distinct names, never both;
//! - `-P` bounds are integers with an integer step (default 1); a decimal bound or step
//!   makes a decimal scan, which needs `-D` (hyperfine: "a step size is required when
//!   the range bounds are floating point numbers"); values are `MIN + i * STEP` computed
//!   exactly in decimal and printed with the most decimals of MIN, MAX and STEP;
//! - each command is expanded for every combination, command by command (hyperfine's
//!   order); the first `-L` varies slowest;
//! - a variant is named by its substituted command (as hyperfine names its benchmarks),
//!   or by its substituted `--name`;
//! - exit 2 naming the flag for: MIN > MAX, STEP <= 0, an empty list or value, a
//!   repeated name, a `{NAME}` that no scan defines, a scan used in no command, more
//!   than [`MAX_VARIANTS`] variants.
//!
//! Only a single numeric parameter (one `-P`, or one `-L` whose values are all numbers)
//! reaches the analysis, as [`ScanParameter`] values per variant: the trend test needs an
//! order, and several parameters have none.

use bench_sched::ScanParameter;

use crate::args::{CompareArgs, ScanArgs};
use crate::core::exit::usage;

/// The most variants a scan may make (each runs once per block at least).
pub const MAX_VARIANTS: usize = 64;

/// One scanned parameter: its name and its values as text (what is substituted).
#[derive(Debug, Clone, PartialEq)]
struct Axis {
    name: String,
    values: Vec<String>,
    /// The flag that defined it, for messages.
    flag: &'static str,
}

/// The arguments with every scan expanded, and the numeric parameter per variant.
#[derive(Debug)]
pub struct Expanded {
    /// `commands`, `kernel` and `name` replaced by their expansions.
    pub args: CompareArgs,
    /// The parameter value of each variant, when one numeric parameter was scanned.
    pub parameter: Option<ScanParameter>,
}

/// Expands the scans of `args`; `None` when no `-P`/`-L` is given.
///
/// # Errors
/// A usage error (exit 2) naming the flag, for the cases in the module docs.
pub fn expand(args: &CompareArgs) -> anyhow::Result<Option<Expanded>> {
    let axes = axes(&args.scan).map_err(usage)?;
    if axes.is_empty() {
        return Ok(None);
    }
    let flags = scan_flags(&axes);
    if args.resume.is_some() {
        return Err(usage(format!(
            "{flags} with --resume: the file's header holds the expanded variants; leave out {flags}"
        )));
    }
    let kernel = !args.kernel.is_empty();
    let templates = if kernel { &args.kernel } else { &args.commands };
    let Texts {
        texts,
        names,
        combos,
    } = expand_texts(&axes, templates, &args.name).map_err(usage)?;
    let mut out = args.clone();
    if kernel {
        out.kernel = texts;
    } else {
        out.commands = texts;
    }
    out.name = names;
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
    Ok(Some(Expanded {
        args: out,
        parameter,
    }))
}

/// `-P` or `-L` as the user gave them, for messages.
fn scan_flags(axes: &[Axis]) -> &'static str {
    axes.first().map_or("-L/--parameter-list", |a| a.flag)
}

/// The values of `axis` as numbers, when every one is a finite number.
fn numeric(axis: &Axis) -> Option<Vec<f64>> {
    axis.values
        .iter()
        .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect()
}

/// The scans given, checked against each other.
fn axes(scan: &ScanArgs) -> Result<Vec<Axis>, String> {
    if !scan.parameter_scan.is_empty() && !scan.parameter_list.is_empty() {
        return Err(
            "-P/--parameter-scan and -L/--parameter-list cannot be combined (as in hyperfine): use several -L for a cross product".into(),
        );
    }
    if scan.parameter_step_size.is_some() && scan.parameter_scan.is_empty() {
        return Err("-D/--parameter-step-size needs -P/--parameter-scan NAME MIN MAX".into());
    }
    let mut axes = Vec::new();
    let ranges: Vec<&[String]> = scan.parameter_scan.chunks(3).collect();
    match ranges.as_slice() {
        [] => {}
        [one] => axes.push(range(one, scan.parameter_step_size.as_deref())?),
        _ => {
            return Err(
                "-P/--parameter-scan may be given once (as in hyperfine); use several -L/--parameter-list for a cross product".into(),
            );
        }
    }
    for list in scan.parameter_list.chunks(2) {
        let [name, values] = list else {
            return Err("-L/--parameter-list takes NAME and a comma-separated list".into());
        };
        check_name(name, "-L/--parameter-list")?;
        let values: Vec<String> = values.split(',').map(str::to_owned).collect();
        if values.iter().all(String::is_empty) {
            return Err(format!("-L/--parameter-list {name}: the list is empty"));
        }
        if values.iter().any(String::is_empty) {
            return Err(format!(
                "-L/--parameter-list {name}: an empty value in the list (two commas, or one at an end)"
            ));
        }
        if let Some(dup) = values
            .iter()
            .enumerate()
            .find(|(i, v)| values[..*i].contains(v))
        {
            return Err(format!(
                "-L/--parameter-list {name}: the value {:?} is listed twice",
                dup.1
            ));
        }
        axes.push(Axis {
            name: name.clone(),
            values,
            flag: "-L/--parameter-list",
        });
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            return Err(format!(
                "{}: the parameter name {:?} is given twice",
                a.flag, a.name
            ));
        }
    }
    Ok(axes)
}

/// A parameter name: letters, digits and `_`, not starting with a digit.
fn check_name(name: &str, flag: &str) -> Result<(), String> {
    if is_ident(name) {
        Ok(())
    } else {
        Err(format!(
            "{flag}: parameter name {name:?} must be letters, digits and _ (not starting with a digit), as it appears in {{NAME}}"
        ))
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

fn parse_fixed(text: &str, what: &str) -> Result<Fixed, String> {
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
        return Err(format!(
            "-P/--parameter-scan: {what} {text:?} is not a number"
        ));
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
fn range(args: &[String], step: Option<&str>) -> Result<Axis, String> {
    let [name, min, max] = args else {
        return Err("-P/--parameter-scan takes NAME MIN MAX".into());
    };
    check_name(name, "-P/--parameter-scan")?;
    let lo = parse_fixed(min, "MIN")?;
    let hi = parse_fixed(max, "MAX")?;
    let decimal_bounds = lo.scale > 0 || hi.scale > 0;
    let step = match step {
        Some(s) => parse_fixed(s, "STEP")
            .map_err(|e| e.replace("-P/--parameter-scan", "-D/--parameter-step-size"))?,
        None if decimal_bounds => {
            return Err(format!(
                "-P/--parameter-scan {name} {min} {max}: a step size is required when the range bounds are decimal numbers; give it with -D/--parameter-step-size STEP"
            ));
        }
        None => Fixed { units: 1, scale: 0 },
    };
    if step.units <= 0 {
        return Err(format!(
            "-D/--parameter-step-size {}: the step must be greater than 0",
            format_fixed(step.units, step.scale)
        ));
    }
    let scale = lo.scale.max(hi.scale).max(step.scale);
    let (a, b, s) = (rescale(lo, scale), rescale(hi, scale), rescale(step, scale));
    if a > b {
        return Err(format!(
            "-P/--parameter-scan {name} {min} {max}: MIN is greater than MAX"
        ));
    }
    let count = (b - a) / s + 1;
    if count > MAX_VARIANTS as i128 {
        return Err(format!(
            "-P/--parameter-scan {name} {min} {max}: {count} values, more than {MAX_VARIANTS} variants; use a larger -D/--parameter-step-size"
        ));
    }
    Ok(Axis {
        name: name.clone(),
        values: (0..count).map(|i| format_fixed(a + i * s, scale)).collect(),
        flag: "-P/--parameter-scan",
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
fn expand_texts(axes: &[Axis], templates: &[String], names: &[String]) -> Result<Texts, String> {
    let flags = scan_flags(axes);
    if templates.is_empty() {
        return Err(format!(
            "{flags}: give a command with {{{}}} in it (or --kernel with it)",
            axes[0].name
        ));
    }
    for t in templates.iter().chain(names) {
        if let Some(p) = placeholders(t)
            .into_iter()
            .find(|p| !axes.iter().any(|a| a.name == *p))
        {
            let defined: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
            return Err(format!(
                "{flags}: {{{p}}} in {t:?} is not a scanned parameter (defined: {})",
                defined.join(", ")
            ));
        }
    }
    for a in axes {
        let tag = format!("{{{}}}", a.name);
        if !templates.iter().any(|t| t.contains(&tag)) {
            return Err(format!(
                "{}: {tag} appears in no command, so every value would run the same command",
                a.flag
            ));
        }
    }
    if names.len() > templates.len() {
        return Err(format!(
            "--name given {} times but there are only {} commands to scan",
            names.len(),
            templates.len()
        ));
    }
    let combos = combinations(axes);
    let total = combos.len() * templates.len();
    if total > MAX_VARIANTS {
        return Err(format!(
            "{flags}: the scan makes {total} variants ({} command(s) x {} combination(s)), more than {MAX_VARIANTS}",
            templates.len(),
            combos.len()
        ));
    }
    let mut texts = Vec::with_capacity(total);
    let mut out_names = Vec::new();
    let mut out_combos = Vec::with_capacity(total);
    for (i, t) in templates.iter().enumerate() {
        for c in &combos {
            texts.push(substitute(t, axes, c));
            if let Some(n) = names.get(i) {
                if combos.len() > 1 && placeholders(n).is_empty() {
                    return Err(format!(
                        "--name {n:?} has no {{{}}}: every variant of the scan would get the same name",
                        axes[0].name
                    ));
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

    fn scan(p: &[&str], d: Option<&str>, l: &[[&str; 2]]) -> ScanArgs {
        ScanArgs {
            parameter_scan: p.iter().map(|s| (*s).to_owned()).collect(),
            parameter_step_size: d.map(str::to_owned),
            parameter_list: l.iter().flatten().map(|s| (*s).to_owned()).collect(),
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
        let err = |s: ScanArgs| axes(&s).unwrap_err();
        assert!(err(scan(&["n", "4", "1"], None, &[])).contains("MIN is greater than MAX"));
        assert!(err(scan(&["n", "1", "4"], Some("0"), &[])).starts_with("-D/"));
        assert!(err(scan(&["n", "1", "4"], Some("-1"), &[])).starts_with("-D/"));
        assert!(err(scan(&["n", "0", "1.5"], None, &[])).contains("step size is required"));
        assert!(err(scan(&["n", "1", "1000"], None, &[])).contains("more than 64"));
        assert!(err(scan(&[], None, &[["n", ""]])).contains("empty"));
        assert!(err(scan(&[], None, &[["n", "1,,2"]])).contains("empty value"));
        assert!(err(scan(&[], None, &[["n", "1"], ["n", "2"]])).contains("twice"));
        assert!(err(scan(&["n", "1", "2"], None, &[["m", "1"]])).contains("cannot be combined"));
        assert!(err(scan(&[], Some("1"), &[["m", "1"]])).starts_with("-D/"));
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
        let e = expand_texts(&a, &["run {n} {m}".into()], &[]).unwrap_err();
        assert!(e.contains("{m}") && e.starts_with("-L/"), "{e}");
        let e = expand_texts(&a, &["run".into()], &[]).unwrap_err();
        assert!(e.contains("appears in no command"), "{e}");
        let e = expand_texts(&a, &["run {n}".into()], &["same".into()]).unwrap_err();
        assert!(e.contains("--name"), "{e}");
        // Braces that are not a placeholder pass through.
        let t = expand_texts(&a, &["awk '{ print }' {n}".into()], &[]).unwrap();
        assert_eq!(t.texts, ["awk '{ print }' 1", "awk '{ print }' 2"]);
    }
}
