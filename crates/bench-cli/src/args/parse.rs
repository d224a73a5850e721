//! Parsers for durations (`200ms`, `1.5s`) and fractions/percentages (`2%`, `0.02`).

use std::time::Duration;

use clap::ValueEnum;

/// The most blocks any count flag may plan (`--blocks`, `--max-blocks`, `plan --blocks`):
/// the schedule is built before the first run, one small record per run.
pub const MAX_BLOCKS: i64 = bench_sched::MAX_BLOCKS as i64;
/// The most runs per variant `--runs`, `--min-runs` and `--max-runs` may ask for.
pub const MAX_RUNS: i64 = 1_000_000;
/// The most runs of each variant in one block (`--runs-per-block`).
pub const MAX_RUNS_PER_BLOCK: i64 = bench_sched::MAX_RUNS_PER_BLOCK as i64;
/// The most untimed warm-up runs (`--warmup`, `--warmup-per-block`).
pub const MAX_WARMUP: i64 = bench_sched::MAX_WARMUP as i64;
/// The most bootstrap resamples per interval (`--resamples`): past it the Monte Carlo
/// error of a 95% bound is far below the interval's own width, and the cost only grows.
pub const MAX_RESAMPLES: i64 = 100_000;
/// `--style`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum StyleArg {
    /// Colour and Unicode when stdout is a terminal (and NO_COLOR is unset).
    Auto,
    /// ASCII, no colour.
    Basic,
    /// Unicode and colour.
    Full,
    /// Unicode without colour.
    Nocolor,
    /// Colour forced, Unicode.
    Color,
    /// Plain ASCII without colour or table borders.
    None,
}

/// `--shell`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ShellArg {
    /// Split the command like a POSIX shell would, without expansion, and run it directly.
    None,
    /// Run the command with `sh -c`.
    Sh,
}

impl From<ShellArg> for bench_sched::Shell {
    fn from(arg: ShellArg) -> Self {
        match arg {
            ShellArg::None => bench_sched::Shell::None,
            ShellArg::Sh => bench_sched::Shell::Sh,
        }
    }
}

/// `--layout`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LayoutArg {
    /// A uniformly random environment padding of 0..4095 bytes per run.
    Random,
    /// The same padding for every run.
    Fixed,
}

impl From<LayoutArg> for bench_sched::Layout {
    fn from(arg: LayoutArg) -> Self {
        match arg {
            LayoutArg::Random => bench_sched::Layout::Random,
            LayoutArg::Fixed => bench_sched::Layout::Fixed(0),
        }
    }
}

/// A help text ending with its default as clap writes one: `TEXT [default: D]`.
pub(crate) fn help_default(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text} [default: {default}]")
}

/// A long help text with its default on a paragraph of its own: `TEXT\n\n[default: D]`.
pub(crate) fn long_help_default(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text}\n\n[default: {default}]")
}

/// An experiment id or host name: 1 to 200 characters, none of them a control character
/// or whitespace other than a space, not blank.
pub fn parse_label(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("must not be empty".into());
    }
    if text.chars().count() > 200 {
        return Err("must be at most 200 characters".into());
    }
    if text.chars().any(|c| c.is_control()) {
        return Err("must not contain control characters (newlines, tabs)".into());
    }
    Ok(text.to_owned())
}

/// `--shell` / `-S`: `none` or `sh`. hyperfine's other shells (`bash`, `zsh`, ...) are
/// refused with the way abba runs them: as the command, `bash -c '...'`.
pub fn parse_shell(text: &str) -> Result<ShellArg, String> {
    match text {
        "none" => Ok(ShellArg::None),
        "sh" => Ok(ShellArg::Sh),
        other => Err(format!(
            "abba runs commands directly (none, the default) or with `sh -c` (sh); for {other}, write the command as `{other} -c '...'` (with --shell none)"
        )),
    }
}

/// Parses `200ms`, `1.5s`, `2m`, `2min`, `1h`, `500us`, `100ns`, or a bare number of
/// seconds ([`bench_sched::parse_duration`]).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    bench_sched::parse_duration(text).map_err(|e| e.to_string())
}

/// Like [`parse_duration`], but a bare number other than 0 is refused: `--settle 5` could
/// mean seconds or milliseconds, so the unit must be written.
pub fn parse_duration_with_unit(text: &str) -> Result<Duration, String> {
    bench_sched::parse_duration_with_unit(text).map_err(|e| e.to_string())
}

/// Parses `2%` as 0.02 and `0.02` as 0.02; must lie in [0, 1]. A bare number above 1
/// (`2`) is refused with the percentage it probably meant (`did you mean 2%?`), never
/// guessed: `1` is 100% and `0.5` is 50%.
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    if !t.ends_with('%') && t.parse::<f64>().is_ok_and(|v| v > 1.0 && v <= 100.0) {
        return Err(format!(
            "`{text}` is not a fraction between 0 and 1: did you mean `{t}%`? (a bare number is a fraction: 0.02 is 2%)"
        ));
    }
    let value = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|v| v / 100.0)
    } else {
        t.parse::<f64>()
    }
    .map_err(|_| format!("`{text}` is not a percentage (try `2%` or `0.02`)"))?;
    if !(0.0..=1.0).contains(&value) || !value.is_finite() {
        return Err(format!(
            "`{text}` is out of range: give a fraction between 0 and 1 or a percentage between 0% and 100%"
        ));
    }
    Ok(value)
}

/// Parses an equivalence margin: a percentage or fraction strictly between 0 and 1.
pub fn parse_margin(text: &str) -> Result<f64, String> {
    let m = parse_percent(text)?;
    if m > 0.0 && m < 1.0 {
        Ok(m)
    } else {
        Err(format!(
            "`{text}`: the margin must lie strictly between 0% and 100%"
        ))
    }
}

/// Parses `--practical`: `auto`, `ratio`, `cliff` or `cliff:X`.
pub fn parse_practical(text: &str) -> Result<bench_stats::PracticalRule, String> {
    text.parse()
        .map_err(|_| format!("`{text}`: expected auto, ratio, cliff or cliff:X with X in [0, 1]"))
}

/// Parses `--estimator`: one of [`bench_stats::PairedEstimator::ALL`] by name.
pub fn parse_estimator(text: &str) -> Result<bench_stats::PairedEstimator, String> {
    bench_stats::PairedEstimator::from_name(text.trim()).ok_or_else(|| {
        let names: Vec<&str> = bench_stats::PairedEstimator::ALL
            .iter()
            .map(|e| e.as_str())
            .collect();
        format!(
            "`{text}` is not an estimator; expected one of: {}",
            names.join(", ")
        )
    })
}

/// Parses a probability strictly between 0 and 1 (`0.05`, or `5%`).
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    let value = parse_percent(text)?;
    if value <= 0.0 || value >= 1.0 {
        return Err(format!("`{text}` must lie strictly between 0 and 1"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_estimator_parses_and_a_typo_lists_them() {
        for e in bench_stats::PairedEstimator::ALL {
            assert_eq!(parse_estimator(e.as_str()), Ok(e));
        }
        let err = parse_estimator("hl-mni-log-ratio").unwrap_err();
        assert!(
            err.contains("hl-min-log-ratio") && err.contains("pooled-median-ratio"),
            "{err}"
        );
    }

    #[test]
    fn durations_in_every_unit() {
        assert_eq!(parse_duration("200ms").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("500us").unwrap(), Duration::from_micros(500));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("2min").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        // Every spelling of bench_stats::model::nanos_per_time_unit.
        assert_eq!(parse_duration("3μs").unwrap(), Duration::from_micros(3));
        assert_eq!(parse_duration("2 seconds").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("1hr").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration_with_unit("0").unwrap(), Duration::ZERO);
        assert!(parse_duration_with_unit("5").unwrap_err().contains("`5s`"));
        assert_eq!(
            parse_duration_with_unit("5s").unwrap(),
            Duration::from_secs(5)
        );
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("3 parsecs").unwrap_err().contains("unit"));
    }

    #[test]
    fn percentages_and_fractions() {
        assert_eq!(parse_percent("2%").unwrap(), 0.02);
        assert_eq!(parse_percent("0.02").unwrap(), 0.02);
        assert!(parse_percent("150%").is_err());
        assert!(
            parse_percent("2")
                .unwrap_err()
                .contains("did you mean `2%`?")
        );
        assert_eq!(parse_percent("1").unwrap(), 1.0);
        assert!(parse_percent("abc").is_err());
        assert_eq!(parse_fraction("0.05").unwrap(), 0.05);
        assert!(parse_fraction("1").is_err());
        assert!(parse_fraction("0").is_err());
    }
}
