//! What every command shares: exit codes, standard output and exports, the raw file, the
//! analysis flags into a config, running with progress, and the CLI's words. Nothing here
//! names a command.

pub mod analysis;
pub mod checks;
pub mod ci;
pub mod counting;
pub mod exit;
pub mod exports;
pub mod output;
pub mod paths;
pub mod pictures;
pub mod progress;
pub mod raw_output;
pub mod record;
pub mod run;
pub mod stdio;
pub mod words;
