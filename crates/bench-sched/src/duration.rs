//! Durations as people write them (`200ms`, `1.5s`, `2m`): one reader for the command line
//! and the suite file.

use std::fmt;
use std::time::Duration;

/// Why a text is not a duration; its `Display` says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationParseError(String);

impl fmt::Display for DurationParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DurationParseError {}

/// Parses `200ms`, `1.5s`, `2m`, `2min`, `1h`, `500us`, `100ns`, or a bare number of
/// seconds. Time: O(length).
///
/// # Errors
/// Not a number with a known unit, negative, or beyond 10^9 seconds.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// assert_eq!(bench_sched::parse_duration("1.5s")?, Duration::from_millis(1500));
/// # Ok::<(), bench_sched::DurationParseError>(())
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, DurationParseError> {
    let t = text.trim();
    let split = t
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
        })
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| {
        DurationParseError(format!(
            "`{text}` is not a duration (try `200ms`, `1.5s` or `2m`)"
        ))
    })?;
    // A bare number is seconds, and a duration flag reads `2m` as two minutes.
    let scale = match unit.trim() {
        "" => 1.0,
        "m" => 60.0,
        other => {
            bench_stats::model::nanos_per_time_unit(other).ok_or_else(|| {
                DurationParseError(format!(
                    "unknown duration unit `{other}` in `{text}` (use ns, us, ms, s, min or h)"
                ))
            })? / 1e9
        }
    };
    let secs = value * scale;
    if !(0.0..=1e9).contains(&secs) {
        return Err(DurationParseError(format!(
            "`{text}` is not a usable duration (it must be non-negative and finite)"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Like [`parse_duration`], but a bare number other than 0 is refused: `settle = "5"` could
/// mean seconds or milliseconds, so the unit must be written.
///
/// # Errors
/// As [`parse_duration`], and a bare number other than 0.
pub fn parse_duration_with_unit(text: &str) -> Result<Duration, DurationParseError> {
    let t = text.trim();
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        let zero = t.parse::<f64>().is_ok_and(|v| v == 0.0);
        if !zero {
            return Err(DurationParseError(format!(
                "`{text}` has no unit: write `{t}s`, `{t}ms` or `{t}min`"
            )));
        }
    }
    parse_duration(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            parse_duration_with_unit("5").unwrap_err().to_string(),
            "`5` has no unit: write `5s`, `5ms` or `5min`"
        );
        assert_eq!(
            parse_duration_with_unit("5s").unwrap(),
            Duration::from_secs(5)
        );
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("-1s").is_err());
        assert_eq!(
            parse_duration("3 parsecs").unwrap_err().to_string(),
            "unknown duration unit `parsecs` in `3 parsecs` (use ns, us, ms, s, min or h)"
        );
    }
}
