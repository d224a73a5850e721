//! Rendering options: plain values the caller decides once (the CLI from `NO_COLOR` and
//! whether stdout is a terminal).

/// Whether the console report may use ANSI colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ColorMode {
    /// Plain text (the default; also what snapshots and pipes want).
    #[default]
    Never,
    /// Green for a better candidate, red for a worse one.
    Always,
}

impl From<bool> for ColorMode {
    /// `true` is [`ColorMode::Always`], `false` is [`ColorMode::Never`].
    fn from(enabled: bool) -> Self {
        if enabled {
            ColorMode::Always
        } else {
            ColorMode::Never
        }
    }
}

/// Which characters the console report may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Charset {
    /// Box-drawing borders, `✓ ✗ ± → —` (the default).
    #[default]
    Unicode,
    /// Pure ASCII: `+-|` borders, `yes`/`no`, `+/-`, `->`, `n/a`.
    Ascii,
    /// Pure ASCII without table borders: columns separated by spaces only.
    Plain,
}

/// The unit every time value is printed in (hyperfine's `--time-unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeUnit {
    /// Seconds.
    Second,
    /// Milliseconds.
    Millisecond,
    /// Microseconds (`us`).
    Microsecond,
    /// Nanoseconds.
    Nanosecond,
}

impl TimeUnit {
    /// The unit's symbol: `s`, `ms`, `us`, `ns`.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::Second => "s",
            TimeUnit::Millisecond => "ms",
            TimeUnit::Microsecond => "us",
            TimeUnit::Nanosecond => "ns",
        }
    }

    /// Nanoseconds in one unit.
    pub(crate) fn nanos(self) -> f64 {
        match self {
            TimeUnit::Second => 1e9,
            TimeUnit::Millisecond => 1e6,
            TimeUnit::Microsecond => 1e3,
            TimeUnit::Nanosecond => 1.0,
        }
    }
}

/// How [`render_console`](crate::render_console) draws the report.
///
/// Build it with `RenderOptions::default()` and set the fields you need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Colours; default [`ColorMode::Never`].
    pub color: ColorMode,
    /// Character set; default [`Charset::Unicode`].
    pub charset: Charset,
    /// `false` (the default): the compact report (controls in one line, informational
    /// notes as table footnotes, no per-block tables or alternative estimates); `true`:
    /// every section in full.
    pub verbose: bool,
    /// The unit of every time value in tables and lines; `None` (the default) scales each
    /// to fit (ns to s). Values that are not times are unaffected.
    pub time_unit: Option<TimeUnit>,
    /// The width, in columns, every line must fit: tables by shortening long names in the
    /// middle (with a legend), then stacking columns into further tables or leaving them
    /// out; prose (header, verdict sentences, controls, warnings) wrapped at word
    /// boundaries with a hanging indent ([`wrap`](crate::wrap)). `None` (the default):
    /// unlimited, nothing wrapped.
    pub width: Option<usize>,
    /// What the compact report tells the reader to do for the full one (the CLI passes
    /// `--verbose`), printed as "`<hint>` for details"; `None` (the default) says nothing.
    pub full_report_hint: Option<&'static str>,
}

/// The symbols one output format prints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Symbols {
    pub(crate) yes: &'static str,
    pub(crate) no: &'static str,
    pub(crate) arrow: &'static str,
    pub(crate) plus_minus: &'static str,
    pub(crate) none: &'static str,
    pub(crate) dash: &'static str,
    pub(crate) delta: &'static str,
    pub(crate) sep: &'static str,
    pub(crate) at_least: &'static str,
    pub(crate) sigma: &'static str,
    pub(crate) ellipsis: &'static str,
    /// The fixed unit of time values, if any (`--time-unit`).
    pub(crate) time_unit: Option<TimeUnit>,
}

impl Symbols {
    pub(crate) const UNICODE: Symbols = Symbols {
        yes: "✓",
        no: "✗",
        arrow: "→",
        plus_minus: "±",
        none: "—",
        dash: "—",
        delta: "δ",
        sep: " · ",
        at_least: "≥",
        sigma: "σ",
        ellipsis: "…",
        time_unit: None,
    };
    pub(crate) const ASCII: Symbols = Symbols {
        yes: "yes",
        no: "no",
        arrow: "->",
        plus_minus: "+/-",
        none: "n/a",
        dash: "-",
        delta: "delta",
        sep: ", ",
        at_least: ">=",
        sigma: "sd",
        ellipsis: "...",
        time_unit: None,
    };
    /// GitHub Markdown: Unicode marks, ASCII arrow.
    pub(crate) const MARKDOWN: Symbols = Symbols {
        arrow: "->",
        ..Symbols::UNICODE
    };
}
