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

/// Parses a kernel spec like `chains=2` or `op=fp,chains=4,duration=0.1` into the command
/// that runs it through `exe compute`.
pub fn parse_kernel_spec(spec: &str, exe: &Path) -> Result<KernelVariant, String> {
    let mut op = "int".to_string();
    let mut chains = "1".to_string();
    let mut threads = "1".to_string();
    let mut duration = "0.3".to_string();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| format!("--kernel `{spec}`: `{part}` is not KEY=VALUE (keys: op, chains, threads, duration)"))?;
        let slot = match key.trim() {
            "op" => &mut op,
            "chains" => &mut chains,
            "threads" => &mut threads,
            "duration" => &mut duration,
            other => {
                return Err(format!(
                    "--kernel `{spec}`: unknown key `{other}` (keys: op, chains, threads, duration)"
                ));
            }
        };
        *slot = value.trim().to_string();
    }
    let config = bench_kernel::KernelConfig::parse(&op, &chains, &threads, &duration)
        .map_err(|e| format!("--kernel `{spec}`: {e}"))?;
    let argv = vec![
        exe.display().to_string(),
        "compute".into(),
        "--op".into(),
        config.op.to_string(),
        "--chains".into(),
        config.chains.to_string(),
        "--threads".into(),
        config.threads.to_string(),
        "--duration".into(),
        format!("{}", config.duration.as_secs_f64()),
        "--json".into(),
    ];
    Ok(KernelVariant { name: spec.trim().to_string(), argv })
}
