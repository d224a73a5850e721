//! Untimed commands around the measured runs, as hyperfine names them: `setup` once per
//! variant before its first run, `prepare` before and `conclude` after every run of it
//! (warm-ups included, as in hyperfine), `cleanup` once after its last run.

use std::fmt;

use crate::raw::RawHooks;
use crate::runner::CommandSpec;

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
