//! Checks of flag values that warn rather than refuse.

use bench_report::{UnitSetting, render_rate_unit_warning};

use crate::core::stdio::stderr_line;

/// Warns (M11 of issue 26) when a rate unit is given without `--higher-is-better`: the
/// values are then read as lower is better, which a throughput rarely is. Shown under
/// `-q` too: it is about the verdict's direction.
pub(crate) fn warn_rate_unit(unit: Option<&str>, higher_is_better: bool) {
    let flags = UnitSetting {
        given: "--unit",
        direction: "--higher-is-better",
        place: "",
    };
    warn_rate_unit_of(unit, higher_is_better, flags);
}

/// [`warn_rate_unit`] worded for where the unit was given
/// ([`bench_report::render_rate_unit_warning`]).
pub(crate) fn warn_rate_unit_of(unit: Option<&str>, higher_is_better: bool, at: UnitSetting<'_>) {
    if let Some(w) = render_rate_unit_warning(unit, higher_is_better, at) {
        stderr_line(format_args!("abba: warning: {w}"));
    }
}
