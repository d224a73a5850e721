//! The helpers the modules share: the `abba` binary with a clean environment (as an
//! `assert_cmd` command, or a plain one run in a directory outside git), files written
//! into a test's directory, the value script the suites run, and output read as text or
//! JSON.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

/// abba as an `assert_cmd` command: no colour, no step summary of the caller's.
pub(super) fn abba() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("abba").unwrap();
    cmd.env("NO_COLOR", "1").env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

/// abba in `dir`, outside any git repository (git stops looking above `dir`), with no
/// history or CI variable of the caller's.
pub(super) fn abba_in(dir: &Path) -> std::process::Command {
    let mut c = std::process::Command::cargo_bin("abba").unwrap();
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .env_remove("ABBA_HISTORY")
        .env_remove("GITHUB_BASE_REF")
        .env_remove("GITHUB_HEAD_REF")
        .env_remove("GITHUB_REF_NAME")
        .env_remove("GITHUB_STEP_SUMMARY");
    c
}

/// `abba ARGS` run in `dir` ([`abba_in`]).
pub(super) fn run(dir: &Path, args: &[&str]) -> Output {
    abba_in(dir).args(args).output().unwrap()
}

/// Bytes as text (lossy).
pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Bytes as JSON.
pub(super) fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap()
}

/// Writes `text` to `dir/name` and returns the path.
pub(super) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A script printing `{"v": X}`: X is its first argument times 100 plus a spread of a
/// few percent from the process id when a second argument `noisy` is given.
pub(super) fn script(dir: &Path) -> PathBuf {
    let path = dir.join("value.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nif [ \"$2\" = noisy ]; then n=$(( $$ % 5 )); else n=0; fi\nawk -v f=\"$1\" -v n=\"$n\" 'BEGIN { printf \"{\\\"v\\\": %f}\\n\", f * (100 + n) }'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

// Refusals: every module's one check of "exit 2 (or CODE), naming the flag, file or
// value refused".

/// `abba ARGS` (as [`abba`]) must exit with `code` and name `needle` on stderr (a flag, a
/// file, a value); returns stderr for further checks.
pub(super) fn refused_with<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    code: i32,
    needle: &str,
) -> String {
    said_refusal(abba().args(args).output().unwrap(), args, code, needle)
}

/// [`refused_with`] of `abba ARGS` run in `dir`, outside any git repository ([`abba_in`]).
pub(super) fn refused_in<S: AsRef<std::ffi::OsStr>>(
    dir: &Path,
    args: &[S],
    code: i32,
    needle: &str,
) -> String {
    said_refusal(
        abba_in(dir).args(args).output().unwrap(),
        args,
        code,
        needle,
    )
}

fn said_refusal<S: AsRef<std::ffi::OsStr>>(
    out: Output,
    args: &[S],
    code: i32,
    needle: &str,
) -> String {
    let stderr = text(&out.stderr);
    let line: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert_eq!(out.status.code(), Some(code), "abba {line:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "abba {line:?} does not name `{needle}`: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "abba {line:?}: {stderr}");
    stderr
}
