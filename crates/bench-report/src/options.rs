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
    };
    /// GitHub Markdown: Unicode marks, ASCII arrow.
    pub(crate) const MARKDOWN: Symbols = Symbols {
        arrow: "->",
        ..Symbols::UNICODE
    };
}
