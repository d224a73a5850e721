//! bench-report's integration tests, one binary (the ripgrep layout: `autotests = false`
//! and `[[test]] integration` in Cargo.toml); `fixtures` holds the hand-written analyses
//! they share. The pictures need the `html` feature.

#[path = "../fixtures/mod.rs"]
mod fixtures;

mod export;
mod fuzz;
#[cfg(feature = "html")]
mod pictures;
mod render;
