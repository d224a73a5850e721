//! Untimed commands around the measured runs, as hyperfine names them: `setup` once per
//! variant before its first run, `prepare` before and `conclude` after every run of it
//! (warm-ups included, as in hyperfine), `cleanup` once after its last run.

use std::fmt;

use crate::SchedError;
use crate::raw::RawHooks;
use crate::runner::{CommandSpec, Shell};

/// A hook given for a wrong number of variants, or one that is not a command.
#[derive(Debug)]
#[non_exhaustive]
pub enum HookSpecError {
    /// Given neither once nor once per variant.
    Count {
        /// The hook.
        kind: HookKind,
        /// How many times it is given.
        given: usize,
        /// How many variants there are.
        variants: usize,
    },
    /// Its text is not a command.
    Command {
        /// The hook.
        kind: HookKind,
        /// Why.
        error: SchedError,
    },
}

impl fmt::Display for HookSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Count {
                kind,
                given,
                variants,
            } => write!(
                f,
                "{kind} is given {given} times but there are {variants} variants: give it once (for every variant) or once per variant"
            ),
            Self::Command { kind, error } => write!(f, "{kind}: {error}"),
        }
    }
}

impl std::error::Error for HookSpecError {}

/// The hook commands of one variant; every one defaults to none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    /// Once, before the variant's first run (warm-up or measured) of this session.
    pub setup: Option<CommandSpec>,
    /// Before every run of the variant (untimed; its wall time is in the run line).
    pub prepare: Option<CommandSpec>,
    /// After every run of the variant (untimed; its wall time is in the run line).
    pub conclude: Option<CommandSpec>,
    /// Once, after the variant's last measured run of this session.
    pub cleanup: Option<CommandSpec>,
}

/// Which hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookKind {
    /// [`Hooks::setup`].
    Setup,
    /// [`Hooks::prepare`].
    Prepare,
    /// [`Hooks::conclude`].
    Conclude,
    /// [`Hooks::cleanup`].
    Cleanup,
}

impl HookKind {
    /// Every kind, in the order a variant meets them.
    pub const ALL: [HookKind; 4] = [
        HookKind::Setup,
        HookKind::Prepare,
        HookKind::Conclude,
        HookKind::Cleanup,
    ];
}

impl fmt::Display for HookKind {
    /// `setup`, `prepare`, `conclude` or `cleanup`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HookKind::Setup => "setup",
            HookKind::Prepare => "prepare",
            HookKind::Conclude => "conclude",
            HookKind::Cleanup => "cleanup",
        })
    }
}

impl Hooks {
    /// The hook of `kind`, if set.
    pub fn get(&self, kind: HookKind) -> Option<&CommandSpec> {
        match kind {
            HookKind::Setup => self.setup.as_ref(),
            HookKind::Prepare => self.prepare.as_ref(),
            HookKind::Conclude => self.conclude.as_ref(),
            HookKind::Cleanup => self.cleanup.as_ref(),
        }
    }

    /// The hook of `kind`, to set.
    fn slot(&mut self, kind: HookKind) -> &mut Option<CommandSpec> {
        match kind {
            HookKind::Setup => &mut self.setup,
            HookKind::Prepare => &mut self.prepare,
            HookKind::Conclude => &mut self.conclude,
            HookKind::Cleanup => &mut self.cleanup,
        }
    }

    /// The hooks of each of `variants` variants from the texts given per kind (empty when
    /// none is given). Each kind is given once (for every variant) or once per variant, as
    /// hyperfine accepts; an empty text among per-variant ones means that variant has none.
    ///
    /// # Errors
    /// [`HookSpecError`] for a kind given another number of times, or a text that is not
    /// a command in `shell`.
    pub fn per_variant(
        given: &[(HookKind, &[String])],
        variants: usize,
        shell: Shell,
    ) -> Result<Vec<Hooks>, HookSpecError> {
        if given.iter().all(|(_, v)| v.is_empty()) {
            return Ok(Vec::new());
        }
        let mut out = vec![Hooks::default(); variants];
        for &(kind, values) in given.iter().filter(|(_, v)| !v.is_empty()) {
            if values.len() != 1 && values.len() != variants {
                let given = values.len();
                return Err(HookSpecError::Count {
                    kind,
                    given,
                    variants,
                });
            }
            for (i, hooks) in out.iter_mut().enumerate() {
                let text = &values[if values.len() == 1 { 0 } else { i }];
                if !text.trim().is_empty() {
                    let spec = CommandSpec::parse(text, shell)
                        .map_err(|error| HookSpecError::Command { kind, error })?;
                    *hooks.slot(kind) = Some(spec);
                }
            }
        }
        Ok(out)
    }

    /// Whether no hook is set.
    pub fn is_empty(&self) -> bool {
        HookKind::ALL.iter().all(|k| self.get(*k).is_none())
    }

    /// As the raw header records them (the command texts).
    pub(crate) fn to_raw(&self) -> RawHooks {
        let text = |kind| self.get(kind).map(|c: &CommandSpec| c.text().to_owned());
        RawHooks {
            setup: text(HookKind::Setup),
            prepare: text(HookKind::Prepare),
            conclude: text(HookKind::Conclude),
            cleanup: text(HookKind::Cleanup),
        }
    }
}

/// The hooks of every variant as the header records them: empty when no variant has one.
pub(crate) fn raw_hooks(hooks: &[Hooks]) -> Vec<RawHooks> {
    if hooks.iter().all(Hooks::is_empty) {
        Vec::new()
    } else {
        hooks.iter().map(Hooks::to_raw).collect()
    }
}
