//! bench-sched's integration tests, one binary (the ripgrep layout: `autotests = false`
//! and `[[test]] integration` in Cargo.toml). `signals` and `sigchld_ignored` stay
//! binaries of their own: they change the process's signal dispositions, which every
//! test of one binary shares.

mod counting;
mod hosts;
mod readers;
mod real_children;
