//! The git facts of a record: its commits (hash, parent, time, subject) from `git` in the
//! current directory, the branch being built (from git, else GitHub Actions' variables)
//! and a pull request's merge base.

use std::path::PathBuf;
use std::process::Command;

use crate::HistoryError;

/// A commit as the history keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommitInfo {
    /// The full hash (or the label given, for a revision git does not know).
    pub sha: String,
    /// Its first parent, when known.
    pub parent: Option<String>,
    /// The branch it was recorded on, when known.
    pub branch: Option<String>,
    /// The committer time, Unix seconds, when known.
    pub time: Option<i64>,
    /// The first line of its message, when known.
    pub subject: Option<String>,
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.trim_end_matches(['\n', '\r']).to_owned())
}

/// The top of the git work tree holding the current directory.
pub fn toplevel() -> Option<PathBuf> {
    git(&["rev-parse", "--show-toplevel"])
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
}

/// What git knows of `rev` (a hash, branch or `HEAD`); `None` outside git or for an
/// unknown revision.
pub fn describe(rev: &str) -> Option<CommitInfo> {
    let text = git(&[
        "log",
        "-1",
        "--format=%H%n%P%n%ct%n%s",
        &format!("{rev}^{{commit}}"),
        "--",
    ])?;
    let mut lines = text.lines();
    let sha = lines.next()?.trim().to_owned();
    if sha.is_empty() {
        return None;
    }
    let parent = lines
        .next()
        .and_then(|p| p.split_whitespace().next())
        .map(str::to_owned);
    let time = lines.next().and_then(|t| t.trim().parse().ok());
    let subject = lines.next().map(str::to_owned).filter(|s| !s.is_empty());
    Some(CommitInfo {
        sha,
        parent,
        branch: None,
        time,
        subject,
    })
}

/// The revision this process runs on (a suite shard's): git's `HEAD` here, else
/// `$GITHUB_SHA` (a CI checkout without git). `None` when neither tells.
pub fn revision() -> Option<String> {
    describe("HEAD")
        .map(|c| c.sha)
        .or_else(|| std::env::var("GITHUB_SHA").ok().filter(|s| !s.is_empty()))
}

/// The branch being built: `git rev-parse --abbrev-ref HEAD`, else (a detached head, as
/// in CI) `$GITHUB_HEAD_REF` (a pull request) or `$GITHUB_REF_NAME`.
pub fn current_branch() -> Option<String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    git(&["rev-parse", "--abbrev-ref", "HEAD"])
        .filter(|b| b != "HEAD" && !b.is_empty())
        .or_else(|| env("GITHUB_HEAD_REF"))
        .or_else(|| env("GITHUB_REF_NAME"))
}

/// The merge base of `HEAD` with the pull request's base branch (`$GITHUB_BASE_REF`,
/// tried as `origin/BRANCH` and `BRANCH`), when set and found.
pub fn pull_request_base() -> Option<String> {
    let base = std::env::var("GITHUB_BASE_REF")
        .ok()
        .filter(|v| !v.is_empty())?;
    [format!("origin/{base}"), base]
        .iter()
        .find_map(|b| git(&["merge-base", "HEAD", b]).filter(|s| !s.is_empty()))
}

/// `$GITHUB_BASE_REF` when it is set but git finds no merge base of `HEAD` with it (a
/// shallow clone: `actions/checkout` fetches one commit unless `fetch-depth: 0`), so a
/// record of a pull request would silently have no base commit.
pub fn missing_pull_request_base() -> Option<String> {
    let base = std::env::var("GITHUB_BASE_REF")
        .ok()
        .filter(|v| !v.is_empty())?;
    pull_request_base().is_none().then_some(base)
}

/// The commits of a record: `commit` (else `HEAD`) on `branch` (else
/// [`current_branch`]), and the base: `base`, else the merge base of a pull request
/// ([`pull_request_base`]), else none. A revision git does not know is kept as given (a
/// label), without parent, time or subject.
///
/// # Errors
/// [`HistoryError::NoCommit`] when no `commit` is given and git has none here.
pub fn resolve(
    commit: Option<&str>,
    base: Option<&str>,
    branch: Option<&str>,
) -> Result<(CommitInfo, Option<CommitInfo>), HistoryError> {
    let branch = branch.map(str::to_owned).or_else(current_branch);
    let head = match commit {
        Some(c) => describe(c).unwrap_or_else(|| CommitInfo {
            sha: c.to_owned(),
            ..CommitInfo::default()
        }),
        None => describe("HEAD").ok_or(HistoryError::NoCommit)?,
    };
    let head = CommitInfo { branch, ..head };
    let base = match base {
        Some(b) => Some(describe(b).unwrap_or_else(|| CommitInfo {
            sha: b.to_owned(),
            ..CommitInfo::default()
        })),
        None => pull_request_base().and_then(|b| describe(&b)),
    };
    Ok((head, base))
}
