//! The warning of a unit that looks like a rate while lower values count as better.

/// Where a unit and its direction were given, in the words of the front end that took
/// them: `given` names the unit (`--unit`, `benchmark "a": unit`), `direction` the setting
/// that turns the direction (`--higher-is-better`, `higher-is-better = true`), `place`
/// where to add it (empty, or ` to its [[benchmark]] in the suite file`).
#[derive(Debug, Clone, Copy)]
pub struct UnitSetting<'a> {
    /// What gave the unit.
    pub given: &'a str,
    /// The setting that makes higher values better.
    pub direction: &'a str,
    /// Where to add it (may be empty).
    pub place: &'a str,
}

/// The warning (without `abba: warning: `) when `unit` names a rate
/// ([`bench_stats::model::is_rate_unit`]) and higher values do not count as better: the
/// verdict's direction is then probably backwards. `None` otherwise.
///
/// # Examples
/// ```
/// use bench_report::{UnitSetting, render_rate_unit_warning};
/// let flags = UnitSetting { given: "--unit", direction: "--higher-is-better", place: "" };
/// let w = render_rate_unit_warning(Some("ops/s"), false, flags).unwrap();
/// assert!(w.starts_with("--unit ops/s looks like a rate"));
/// assert!(render_rate_unit_warning(Some("ops/s"), true, flags).is_none());
/// assert!(render_rate_unit_warning(Some("ms"), false, flags).is_none());
/// ```
pub fn render_rate_unit_warning(
    unit: Option<&str>,
    higher_is_better: bool,
    setting: UnitSetting<'_>,
) -> Option<String> {
    let unit = unit.filter(|u| bench_stats::model::is_rate_unit(u) && !higher_is_better)?;
    let UnitSetting {
        given,
        direction,
        place,
    } = setting;
    Some(format!(
        "{given} {unit} looks like a rate, but without {direction} lower values count as better; add {direction}{place} if more {unit} is better"
    ))
}
