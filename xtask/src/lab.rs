//! The research drivers live in `crates/bench-lab`; `cargo xtask <command>` forwards any
//! command that is not a chore to `cargo run -p bench-lab -- <command>`, in the profile
//! xtask itself was built in, and exits with its status.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

/// Runs `$CARGO run -p bench-lab -- ARGS` from `root` (`cargo` when `$CARGO` is unset) and
/// exits with its status when it fails.
///
/// # Errors
/// When cargo cannot be started.
pub fn forward(root: &Path, args: &[OsString]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(&cargo);
    command
        .current_dir(root)
        .args(["run", "--quiet", "-p", "bench-lab"]);
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let status = command
        .arg("--")
        .args(args)
        .status()
        .with_context(|| format!("starting {} run -p bench-lab", cargo.to_string_lossy()))?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}
