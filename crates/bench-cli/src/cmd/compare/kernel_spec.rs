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
        let (key, value) = part.split_once('=').ok_or_else(|| {
            format!(
                "--kernel `{spec}`: `{part}` is not KEY=VALUE (keys: op, chains, threads, duration)"
            )
        })?;
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
    let bad =
        |key: &str, value: &str| format!("--kernel `{spec}`: {key}={value} is not a valid value");
    let config = bench_kernel::KernelConfig {
        op: op.parse().map_err(|e| format!("--kernel `{spec}`: {e}"))?,
        chains: chains.parse().map_err(|_| bad("chains", &chains))?,
        threads: threads.parse().map_err(|_| bad("threads", &threads))?,
        duration: duration
            .parse::<f64>()
            .ok()
            .and_then(|secs| std::time::Duration::try_from_secs_f64(secs).ok())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| bad("duration", &duration))?,
    };
    config
        .validate()
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
    Ok(KernelVariant {
        name: spec.trim().to_string(),
        argv,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_become_compute_commands() {
        let k = parse_kernel_spec("op=fp,chains=4,duration=0.1", Path::new("/bin/abba")).unwrap();
        assert_eq!(k.name, "op=fp,chains=4,duration=0.1");
        assert_eq!(
            k.argv.join(" "),
            "/bin/abba compute --op fp --chains 4 --threads 1 --duration 0.1 --json"
        );
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let exe = Path::new("abba");
        assert!(
            parse_kernel_spec("chains=0", exe)
                .unwrap_err()
                .contains("--chains")
        );
        assert!(
            parse_kernel_spec("chains", exe)
                .unwrap_err()
                .contains("KEY=VALUE")
        );
        assert!(
            parse_kernel_spec("color=red", exe)
                .unwrap_err()
                .contains("unknown key")
        );
        assert!(parse_kernel_spec("op=mul", exe).is_err());
    }
}
