//! bench-report's integration tests, one binary (the ripgrep layout: `autotests = false`
//! and `[[test]] integration` in Cargo.toml); `fixtures` holds the hand-written analyses
//! they share. The pictures need the `html` feature.

// The 100-line limit (clippy.toml) is for the crates' code; a table-driven test or a
// fixture that spells out one whole analysis reads best in one piece.
#![allow(clippy::too_many_lines)]

#[path = "../fixtures/mod.rs"]
mod fixtures;

mod export;
mod fuzz;
mod history;
#[cfg(feature = "html")]
mod pictures;
mod render;
