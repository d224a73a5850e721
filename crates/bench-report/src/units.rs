//! Unit scaling and number formatting shared by every text renderer.
//!
//! Times given in `ns`, `us`/`µs`, `ms` or `s` (any spelling
//! [`bench_stats::model::nanos_per_time_unit`] reads, up to the second) are rescaled to the unit that keeps the
//! number between 1 and 1000; rates ending in `/s` (`ops/s`, `B/s`) get a K/M/G/T
//! prefix; any other unit is printed as given.

use crate::options::TimeUnit;

/// How a unit string is understood.
#[derive(Debug, Clone, Copy, PartialEq)]
enum UnitKind {
    /// A duration; the value is how many nanoseconds one unit holds.
    Time(f64),
    /// A rate (`.../s`), scaled with decimal prefixes.
    Rate,
    /// A count of events (`instructions`, `cycles`, ...): decimal prefixes before the
    /// unit, `60.33 M instructions`.
    Count,
    /// Anything else: printed as given.
    Other,
}

/// The units of counted events (the CPU's counters and valgrind's).
const COUNTS: [&str; 7] = [
    "instructions",
    "cycles",
    "branches",
    "branch-misses",
    "cache-misses",
    "cache-references",
    "events",
];

fn kind_of(unit: &str) -> UnitKind {
    // Times up to the second, the ladder's largest step; a value in minutes or hours is
    // printed as given.
    match bench_stats::model::nanos_per_time_unit(unit) {
        Some(ns) if ns <= 1e9 => UnitKind::Time(ns),
        _ if unit.ends_with("/s") && unit.len() > 2 => UnitKind::Rate,
        _ if COUNTS.contains(&unit) => UnitKind::Count,
        _ => UnitKind::Other,
    }
}

/// Whether `unit` is a time of at most a second (`ns`, `us`, `ms`, `s`, `sec`, ...).
pub(crate) fn is_time(unit: &str) -> bool {
    matches!(kind_of(unit), UnitKind::Time(_))
}

/// Whether `unit` is one [`Scale`] can rescale (a time or a rate).
pub(crate) fn is_scalable(unit: &str) -> bool {
    kind_of(unit) != UnitKind::Other
}

/// The smallest and largest non-zero finite magnitudes of `values`, if any.
pub(crate) fn magnitude_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .map(f64::abs)
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// A display scale: divide a raw value by `divisor`, then print it with `suffix`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scale {
    /// Raw value per displayed unit.
    divisor: f64,
    /// The displayed unit (may be empty).
    suffix: String,
}

impl Scale {
    /// [`Scale::for_magnitude`], or the fixed unit `fixed` when `unit` is a time.
    pub(crate) fn pick(magnitude: f64, unit: &str, fixed: Option<TimeUnit>) -> Scale {
        match (kind_of(unit), fixed) {
            (UnitKind::Time(ns_per_unit), Some(t)) => Scale {
                divisor: t.nanos() / ns_per_unit,
                suffix: t.as_str().to_owned(),
            },
            _ => Scale::for_magnitude(magnitude, unit),
        }
    }

    /// The scale that puts `magnitude` (a raw value in `unit`) between 1 and 1000 when the
    /// unit can be rescaled. Time: O(1).
    pub(crate) fn for_magnitude(magnitude: f64, unit: &str) -> Scale {
        let m = if magnitude.is_finite() {
            magnitude.abs()
        } else {
            0.0
        };
        match kind_of(unit) {
            UnitKind::Time(ns_per_unit) => {
                let ns = m * ns_per_unit;
                let (per, name) = if ns < 1e3 {
                    (1.0, "ns")
                } else if ns < 1e6 {
                    (1e3, "us")
                } else if ns < 1e9 {
                    (1e6, "ms")
                } else {
                    (1e9, "s")
                };
                Scale {
                    divisor: per / ns_per_unit,
                    suffix: name.to_owned(),
                }
            }
            UnitKind::Rate | UnitKind::Count => {
                let (per, prefix) = if m < 1e3 {
                    (1.0, "")
                } else if m < 1e6 {
                    (1e3, "K")
                } else if m < 1e9 {
                    (1e6, "M")
                } else if m < 1e12 {
                    (1e9, "G")
                } else {
                    (1e12, "T")
                };
                let suffix = match kind_of(unit) {
                    UnitKind::Count if prefix.is_empty() => unit.to_owned(),
                    UnitKind::Count => format!("{prefix} {unit}"),
                    UnitKind::Time(_) | UnitKind::Rate | UnitKind::Other => {
                        format!("{prefix}{unit}")
                    }
                };
                Scale {
                    divisor: per,
                    suffix,
                }
            }
            UnitKind::Other => Scale {
                divisor: 1.0,
                suffix: unit.to_owned(),
            },
        }
    }

    /// `value` expressed in this scale.
    pub(crate) fn apply(&self, value: f64) -> f64 {
        value / self.divisor
    }

    /// The unit label of this scale (empty when the data have no unit).
    pub(crate) fn suffix(&self) -> &str {
        &self.suffix
    }

    /// Decimals that give `magnitude` (raw) four significant digits in this scale, at
    /// least `min`.
    pub(crate) fn decimals_for(&self, magnitude: f64, min: usize) -> usize {
        decimals_for_sig(self.apply(magnitude), 4).max(min)
    }

    /// `value` in this scale with four significant digits and the unit.
    pub(crate) fn format(&self, value: f64) -> String {
        if value.is_finite() {
            self.with_suffix(&sig(self.apply(value), 4))
        } else {
            "n/a".to_owned()
        }
    }

    /// `number unit`, or just `number` when the unit is empty.
    pub(crate) fn with_suffix(&self, number: &str) -> String {
        if self.suffix.is_empty() {
            number.to_owned()
        } else {
            format!("{number} {}", self.suffix)
        }
    }
}

/// Decimals needed to show `x` with `digits` significant digits (0 for whole numbers
/// at or above `10^(digits-1)`).
fn decimals_for_sig(x: f64, digits: i32) -> usize {
    if x == 0.0 || !x.is_finite() {
        return (digits - 1).max(0) as usize;
    }
    let magnitude = x.abs().log10().floor() as i32;
    (digits - 1 - magnitude).clamp(0, 12) as usize
}

/// `x` with `digits` significant digits, in plain decimal notation.
pub(crate) fn sig(x: f64, digits: i32) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    if !(1e-3..1e6).contains(&x.abs()) {
        // Extreme magnitudes (after unit scaling) read better in scientific notation than
        // as hundreds of digits.
        return format!("{x:.*e}", (digits - 1).max(0) as usize);
    }
    format!("{x:.*}", decimals_for_sig(x, digits))
}

/// Formats one measured value in its unit, rescaled for reading.
///
/// Times (`ns`, `us`, `ms`, `s`) become ns/us/ms/s, rates ending in `/s` get a K/M/G/T
/// prefix, and any other unit is printed as given, all with four significant digits
/// (scientific notation for other units beyond 10^6 or below 10^-3). A non-finite value
/// prints `n/a`, never `NaN`. Time: O(1).
///
/// # Examples
///
/// ```
/// use bench_report::format_value;
/// assert_eq!(format_value(1_234_567.0, "ns"), "1.235 ms");
/// assert_eq!(format_value(725_400_000.0, "ops/s"), "725.4 Mops/s");
/// assert_eq!(format_value(12.0, "KiB"), "12.00 KiB");
/// assert_eq!(format_value(60_330_000.0, "instructions"), "60.33 M instructions");
/// ```
pub fn format_value(value: f64, unit: &str) -> String {
    format_in(value, unit, None)
}

/// [`format_value`] with the time unit fixed to `fixed` (when `unit` is a time).
pub(crate) fn format_in(value: f64, unit: &str, fixed: Option<TimeUnit>) -> String {
    if !value.is_finite() {
        return "n/a".to_owned();
    }
    if kind_of(unit) == UnitKind::Other && value != 0.0 {
        let a = value.abs();
        if !(1e-3..1e6).contains(&a) {
            let number = format!("{value:.3e}");
            return Scale::for_magnitude(value, unit).with_suffix(&number);
        }
    }
    let scale = Scale::pick(value, unit, fixed);
    scale.with_suffix(&sig(scale.apply(value), 4))
}

/// A p-value for text: `0.027`, `0.0049`, `3.1e-12`, `< 1e-300`; `none` when absent or
/// not finite. Returns the text to follow `p ` (so it carries its own `=` or `<`).
pub(crate) fn p_clause(p: Option<f64>, none: &str) -> String {
    match p {
        Some(p) if p.is_finite() => {
            if p < 1e-300 {
                "< 1e-300".to_owned()
            } else if p >= 0.01 {
                format!("= {p:.3}")
            } else if p >= 0.001 {
                format!("= {p:.4}")
            } else {
                format!("= {p:.1e}")
            }
        }
        _ => format!("= {none}"),
    }
}

/// A dimensionless statistic with two decimals (scientific beyond 10^6); `none` when
/// not finite.
pub(crate) fn stat(x: f64, none: &str) -> String {
    if !x.is_finite() {
        none.to_owned()
    } else if x.abs() >= 1e6 {
        format!("{x:.3e}")
    } else {
        format!("{x:.2}")
    }
}

/// A ratio and its interval: `1.85x [1.83, 1.88]`. Three or four decimals when the
/// interval is too narrow for two to tell its ends apart, or an end near 1 would print as
/// `1.00` without being 1 (`1.048x [1.004, 1.093]`).
pub(crate) fn ratio_with_ci(ratio: Option<f64>, ci: Option<[f64; 2]>, none: &str) -> String {
    let Some(r) = ratio.filter(|r| r.is_finite()) else {
        return none.to_owned();
    };
    let ci = ci.filter(|[lo, hi]| lo.is_finite() && hi.is_finite());
    // A bound that is not 1 never prints as `1.00`: beside a ✓ it would read as no change.
    let near_one = |x: f64| x != 1.0 && (x - 1.0).abs() < 0.005;
    let decimals = match ci {
        Some([lo, hi]) if (hi - lo).abs() < 0.004 => 4,
        Some([lo, hi]) if (hi - lo).abs() < 0.04 || near_one(lo) || near_one(hi) => 3,
        None if (r - 1.0).abs() < 0.05 => 3,
        _ => 2,
    };
    let n = |x: f64| ratio_number(x, decimals);
    match ci {
        Some([lo, hi]) => format!("{}x [{}, {}]", n(r), n(lo), n(hi)),
        None => format!("{}x", n(r)),
    }
}

/// A ratio with `decimals` decimals, or in scientific notation (`2.459e75`, `2.894e-69`)
/// when it is at least 10^6 or, not zero, too small for those decimals to show: never a
/// 70-digit number, never a nonzero ratio printed as `0.00`.
pub(crate) fn ratio_number(x: f64, decimals: usize) -> String {
    let smallest = 10f64.powi(-(decimals as i32));
    if x.abs() >= 1e6 || (x != 0.0 && x.abs() < smallest) {
        format!("{x:.3e}")
    } else {
        format!("{x:.decimals$}")
    }
}

/// A signed shift with its interval in one scale: `+609.3 Mops/s [+599.1, +621.4]`.
pub(crate) fn shift_with_ci(
    shift: f64,
    ci: Option<[f64; 2]>,
    unit: &str,
    fixed: Option<TimeUnit>,
    none: &str,
) -> String {
    if !shift.is_finite() {
        return none.to_owned();
    }
    let ci = ci.filter(|[lo, hi]| lo.is_finite() && hi.is_finite());
    let largest = ci.map_or(shift.abs(), |[lo, hi]| {
        shift.abs().max(lo.abs()).max(hi.abs())
    });
    let scale = Scale::pick(largest, unit, fixed);
    let d = scale.decimals_for(largest, 0);
    // Beyond 10^6 in its scale a number reads in scientific notation, never as hundreds
    // of digits (wide tables are no longer cut when piped).
    let huge = scale.apply(largest) >= 1e6;
    let number = |x: f64| {
        if huge {
            format!("{x:+.3e}")
        } else {
            format!("{x:+.d$}")
        }
    };
    let point = scale.with_suffix(&number(scale.apply(shift)));
    match ci {
        Some([lo, hi]) => format!(
            "{point} [{}, {}]",
            number(scale.apply(lo)),
            number(scale.apply(hi))
        ),
        None => point,
    }
}

/// A setting as the user gave it (shortest exact form), `none` when not finite.
pub(crate) fn plain(x: f64, none: &str) -> String {
    if x.is_finite() {
        x.to_string()
    } else {
        none.to_owned()
    }
}

/// A percentage with up to two decimals and no trailing zeros: `95%`, `99.9%`; `none`
/// when not finite.
pub(crate) fn percent(fraction: f64, none: &str) -> String {
    if !fraction.is_finite() {
        return none.to_owned();
    }
    let text = format!("{:.2}", fraction * 100.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// A ratio or a plain number of the suite's tables: four decimals, scientific notation
/// beyond 10^6 or below 10^-3, `n/a` when not finite.
pub(crate) fn fixed(x: f64) -> String {
    if !x.is_finite() {
        "n/a".to_owned()
    } else if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-3) {
        format!("{x:.3e}")
    } else {
        format!("{x:.4}")
    }
}

/// A p-value of the suite's tables: four decimals, scientific below 10^-4, `-` when absent.
pub(crate) fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".to_owned(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

/// "95%", "97.5%", "99.75%", "98.3%": a confidence level with as few decimals as it needs
/// (at most two; a level like 1 - 0.05/3 shows one).
pub(crate) fn level_text(level: f64) -> String {
    let pct = level * 100.0;
    for decimals in 0..=2 {
        let scale = 10f64.powi(decimals);
        if ((pct * scale).round() - pct * scale).abs() < 1e-6 {
            return format!("{pct:.*}%", decimals as usize);
        }
    }
    format!("{pct:.1}%")
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_up_to_the_second_are_rescaled_longer_ones_printed_as_given() {
        assert_eq!(super::Scale::for_magnitude(0.002, "sec").suffix(), "ms");
        assert_eq!(super::Scale::for_magnitude(2500.0, "μs").suffix(), "ms");
        assert_eq!(super::Scale::for_magnitude(2.0, "min").suffix(), "min");
        assert!(super::is_time("ns") && !super::is_time("h") && !super::is_time("ops/s"));
    }

    #[test]
    fn extreme_values_use_scientific_notation() {
        assert!(
            format_value(1e300, "ns").contains("e"),
            "{}",
            format_value(1e300, "ns")
        );
        assert!(
            format_value(1e-300, "ns").contains("e-"),
            "{}",
            format_value(1e-300, "ns")
        );
        assert!(format_value(1e300, "ns").len() < 20);
    }

    use super::*;

    #[test]
    fn times_scale_through_every_step() {
        assert_eq!(format_value(512.0, "ns"), "512.0 ns");
        assert_eq!(format_value(1_500.0, "ns"), "1.500 us");
        assert_eq!(format_value(2_345_678.0, "ns"), "2.346 ms");
        assert_eq!(format_value(12.5e9, "ns"), "12.50 s");
        assert_eq!(format_value(0.25, "s"), "250.0 ms");
        assert_eq!(format_value(1500.0, "us"), "1.500 ms");
    }

    #[test]
    fn rates_get_decimal_prefixes() {
        assert_eq!(format_value(950.0, "ops/s"), "950.0 ops/s");
        assert_eq!(format_value(12_340.0, "ops/s"), "12.34 Kops/s");
        assert_eq!(format_value(1_356_300_000.0, "ops/s"), "1.356 Gops/s");
    }

    #[test]
    fn other_units_keep_their_name() {
        assert_eq!(format_value(0.5, "ratio"), "0.5000 ratio");
        assert_eq!(format_value(2.5e7, "KiB"), "2.500e7 KiB");
        assert_eq!(format_value(42.0, ""), "42.00");
        assert_eq!(format_value(f64::NAN, "ns"), "n/a");
        assert_eq!(format_value(f64::INFINITY, "KiB"), "n/a");
    }

    #[test]
    fn p_values_read_well() {
        assert_eq!(p_clause(Some(0.027_3), "n/a"), "= 0.027");
        assert_eq!(p_clause(Some(0.004_93), "n/a"), "= 0.0049");
        assert_eq!(p_clause(Some(3.14e-12), "n/a"), "= 3.1e-12");
        assert_eq!(p_clause(Some(0.0), "n/a"), "< 1e-300");
        assert_eq!(p_clause(Some(f64::NAN), "n/a"), "= n/a");
        assert_eq!(p_clause(None, "—"), "= —");
    }

    #[test]
    fn ratio_decimals_follow_the_interval_width() {
        assert_eq!(
            ratio_with_ci(Some(1.853), Some([1.83, 1.88]), "n/a"),
            "1.85x [1.83, 1.88]"
        );
        assert_eq!(
            ratio_with_ci(Some(1.0012), Some([0.998, 1.005]), "n/a"),
            "1.001x [0.998, 1.005]"
        );
        assert_eq!(ratio_with_ci(None, None, "—"), "—");
    }

    #[test]
    fn shifts_share_one_scale() {
        assert_eq!(
            shift_with_ci(609.3e6, Some([599.1e6, 621.4e6]), "ops/s", None, "n/a"),
            "+609.3 Mops/s [+599.1, +621.4]"
        );
        assert_eq!(
            shift_with_ci(-1_200.0, Some([-1_500.0, 30.0]), "ns", None, "n/a"),
            "-1.200 us [-1.500, +0.030]"
        );
    }

    #[test]
    fn percentages_trim_zeros() {
        assert_eq!(percent(0.95, "n/a"), "95%");
        assert_eq!(percent(0.999, "n/a"), "99.9%");
        assert_eq!(percent(f64::NAN, "n/a"), "n/a");
    }
}
