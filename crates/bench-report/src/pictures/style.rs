//! Colours and markers that survive greyscale and colour-blind viewing: the Okabe-Ito
//! palette, each series also told apart by its marker shape and its dash pattern.

use std::fmt::Write as _;

use super::svg::num;

/// Okabe & Ito's colour-blind-safe palette, ordered so neighbours differ in lightness
/// (blue, vermillion, bluish green, reddish purple, orange, sky blue, yellow, black).
const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
];

/// Dash patterns by series (solid first).
const DASHES: [&str; 4] = ["", "6 3", "2 2", "8 3 2 3"];

/// Neutral ink for axes and text.
pub const INK: &str = "#222222";
/// Light grid lines.
pub const GRID: &str = "#e4e4e4";
/// Fill of the equivalence margin band (grey: reads the same in colour and greyscale).
pub const MARGIN_FILL: &str = "#d9d9d9";
/// Failed runs (black crosses; the shape carries the meaning).
pub const FAILED: &str = "#000000";

/// The colour of series `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// The dash pattern attribute of series `i` (empty for solid).
pub fn dash(i: usize) -> String {
    match DASHES[i % DASHES.len()] {
        "" => String::new(),
        d => format!(r#"stroke-dasharray="{d}""#),
    }
}

/// Marker shapes, one per series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// An upward triangle.
    Triangle,
    /// A diamond.
    Diamond,
    /// A downward triangle.
    TriangleDown,
    /// A cross (used for failed runs too).
    Cross,
}

const SHAPES: [Shape; 5] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::TriangleDown,
];

/// The marker shape of series `i`.
pub fn shape(i: usize) -> Shape {
    SHAPES[i % SHAPES.len()]
}

/// Appends the path commands of one marker of radius `r` centred at (x, y) to `d`; all
/// markers of a series share one `<path>`, which keeps large plots small.
pub fn marker_path(d: &mut String, shape: Shape, x: f64, y: f64, r: f64) {
    let (x, y, r2) = (num(x), num(y), num(2.0 * r));
    let r1 = num(r);
    let _ = match shape {
        Shape::Circle => write!(
            d,
            "M{x} {y}m-{r1} 0a{r1} {r1} 0 1 0 {r2} 0a{r1} {r1} 0 1 0 -{r2} 0"
        ),
        Shape::Square => write!(d, "M{x} {y}m-{r1} -{r1}h{r2}v{r2}h-{r2}z"),
        Shape::Triangle => write!(d, "M{x} {y}m0 -{r1}l{r1} {r2}h-{r2}z"),
        Shape::TriangleDown => write!(d, "M{x} {y}m0 {r1}l{r1} -{r2}h-{r2}z"),
        Shape::Diamond => write!(d, "M{x} {y}m0 -{r1}l{r1} {r1}l-{r1} {r1}l-{r1} -{r1}z"),
        Shape::Cross => write!(d, "M{x} {y}m-{r1} -{r1}l{r2} {r2}m0 -{r2}l-{r2} {r2}"),
    };
}
