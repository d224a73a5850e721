//! One module per subcommand. A command imports `args/` and `core/`, never another
//! command (`layers.rs` checks it).

pub mod analyze;
pub mod compare;
pub mod compute;
pub mod history;
pub mod plan;
pub mod suite;
