//! `--kernel chains=2,op=int,threads=1,duration=0.3`: built-in kernel variants.

use std::path::Path;

/// One `--kernel` variant: its display name and the `abba compute` command that runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelVariant {
    /// The spec as the user wrote it, used as the variant name.
    pub name: String,
    /// The argv of the child (`abba compute ... --json`).
    pub argv: Vec<String>,
}

/// A kernel spec like `chains=2` or `op=fp,chains=4,duration=0.1`
/// ([`bench_kernel::KernelConfig::from_spec`]) as the command that runs it through `exe
/// compute` ([`bench_kernel::KernelConfig::compute_args`]); a refusal names `--kernel` and
/// the spec.
pub fn parse_kernel_spec(spec: &str, exe: &Path) -> Result<KernelVariant, String> {
    let config = bench_kernel::KernelConfig::from_spec(spec)
        .map_err(|e| format!("--kernel `{spec}`: {e}"))?;
    let mut argv = vec![exe.display().to_string()];
    argv.extend(config.compute_args());
    Ok(KernelVariant {
        name: spec.trim().to_string(),
        argv,
    })
}
