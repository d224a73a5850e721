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
/// compute`; a refusal names `--kernel` and the spec.
pub fn parse_kernel_spec(spec: &str, exe: &Path) -> Result<KernelVariant, String> {
    let config = bench_kernel::KernelConfig::from_spec(spec)
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
