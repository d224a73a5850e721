//! A kernel written as one spec, `op=fp,chains=4,threads=1,duration=0.1`: what `abba
//! compare --kernel` runs as a variant.

use std::fmt;

use crate::{KernelConfig, KernelError, ParseOpError};

/// Why a kernel spec is refused.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SpecError {
    /// A part that is not `KEY=VALUE`.
    NotKeyValue {
        /// The part as written.
        part: String,
    },
    /// A key other than `op`, `chains`, `threads`, `duration`.
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// An unknown operation.
    Op(ParseOpError),
    /// A value that does not parse as its key's type.
    BadValue {
        /// `chains`, `threads` or `duration`.
        key: &'static str,
        /// The value as written.
        value: String,
    },
    /// A configuration out of range ([`KernelConfig::validate`]).
    Invalid(KernelError),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::NotKeyValue { part } => write!(
                f,
                "`{part}` is not KEY=VALUE (keys: op, chains, threads, duration)"
            ),
            SpecError::UnknownKey { key } => write!(
                f,
                "unknown key `{key}` (keys: op, chains, threads, duration)"
            ),
            SpecError::Op(e) => write!(f, "{e}"),
            SpecError::BadValue { key, value } => write!(f, "{key}={value} is not a valid value"),
            SpecError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SpecError {}

impl KernelConfig {
    /// The configuration a spec like `chains=2` or `op=fp,chains=4,duration=0.1` names
    /// (parts separated by commas, blanks around them ignored; defaults: `op=int`,
    /// `chains=1`, `threads=1`, `duration=0.3`), checked with [`KernelConfig::validate`].
    ///
    /// # Errors
    /// [`SpecError`]: the first part, key or value refused.
    pub fn from_spec(spec: &str) -> Result<KernelConfig, SpecError> {
        let mut op = "int".to_string();
        let mut chains = "1".to_string();
        let mut threads = "1".to_string();
        let mut duration = "0.3".to_string();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| SpecError::NotKeyValue {
                part: part.to_owned(),
            })?;
            let slot = match key.trim() {
                "op" => &mut op,
                "chains" => &mut chains,
                "threads" => &mut threads,
                "duration" => &mut duration,
                other => {
                    return Err(SpecError::UnknownKey {
                        key: other.to_owned(),
                    });
                }
            };
            *slot = value.trim().to_string();
        }
        let bad = |key: &'static str, value: &str| SpecError::BadValue {
            key,
            value: value.to_owned(),
        };
        let config = KernelConfig {
            op: op.parse().map_err(SpecError::Op)?,
            chains: chains.parse().map_err(|_| bad("chains", &chains))?,
            threads: threads.parse().map_err(|_| bad("threads", &threads))?,
            duration: duration
                .parse::<f64>()
                .ok()
                .and_then(|secs| std::time::Duration::try_from_secs_f64(secs).ok())
                .filter(|d| !d.is_zero())
                .ok_or_else(|| bad("duration", &duration))?,
        };
        config.validate().map_err(SpecError::Invalid)?;
        Ok(config)
    }

    /// The flags of a `compute` command (`abba compute`) that run this configuration and
    /// print one JSON object: `compute --op int --chains 2 --threads 1 --duration 0.3
    /// --json`, to follow the executable's path.
    pub fn compute_args(&self) -> Vec<String> {
        vec![
            "compute".into(),
            "--op".into(),
            self.op.to_string(),
            "--chains".into(),
            self.chains.to_string(),
            "--threads".into(),
            self.threads.to_string(),
            "--duration".into(),
            format!("{}", self.duration.as_secs_f64()),
            "--json".into(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_sets_its_keys_and_keeps_the_defaults() {
        let c = KernelConfig::from_spec("op=fp, chains=4,duration=0.1").unwrap();
        assert_eq!(c.op.to_string(), "fp");
        assert_eq!((c.chains, c.threads), (4, 1));
        assert_eq!(c.duration.as_secs_f64(), 0.1);
        assert_eq!(
            c.compute_args().join(" "),
            "compute --op fp --chains 4 --threads 1 --duration 0.1 --json"
        );
    }

    #[test]
    fn each_refusal_is_its_own_variant() {
        assert!(matches!(
            KernelConfig::from_spec("chains"),
            Err(SpecError::NotKeyValue { .. })
        ));
        assert!(matches!(
            KernelConfig::from_spec("color=red"),
            Err(SpecError::UnknownKey { .. })
        ));
        assert!(matches!(
            KernelConfig::from_spec("op=mul"),
            Err(SpecError::Op(_))
        ));
        assert!(matches!(
            KernelConfig::from_spec("duration=0"),
            Err(SpecError::BadValue {
                key: "duration",
                ..
            })
        ));
        assert!(matches!(
            KernelConfig::from_spec("chains=0"),
            Err(SpecError::Invalid(_))
        ));
    }
}
