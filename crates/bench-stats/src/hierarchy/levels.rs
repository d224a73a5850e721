//! Where each block was measured: its session, and the session's host.

/// The levels above the blocks of a [`Dataset`](crate::Dataset): every block belongs to
/// one session, every session to one host. Build it with [`Levels::new`],
/// [`Levels::add_session`] and [`Levels::assign`].
///
/// ```
/// use bench_stats::hierarchy::Levels;
/// let mut levels = Levels::new(vec!["ci-1".into(), "ci-2".into()]);
/// let s0 = levels.add_session(0).unwrap();
/// let s1 = levels.add_session(1).unwrap();
/// levels.assign(0, s0).unwrap();
/// levels.assign(1, s1).unwrap();
/// assert_eq!(levels.host_of(1), Some(1));
/// assert_eq!(levels.session_count(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Levels {
    hosts: Vec<String>,
    session_host: Vec<usize>,
    block_session: Vec<Option<usize>>,
}

/// A session or block that names a host or session that does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownLevel {
    /// The index that is out of range.
    pub index: usize,
}

impl std::fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "level index {} is out of range", self.index)
    }
}

impl std::error::Error for UnknownLevel {}

impl Levels {
    /// Levels with the given hosts and no sessions yet.
    pub fn new(hosts: Vec<String>) -> Levels {
        Levels {
            hosts,
            session_host: Vec::new(),
            block_session: Vec::new(),
        }
    }

    /// Adds a session on host `host` (an index into the hosts) and returns its index.
    ///
    /// # Errors
    /// [`UnknownLevel`] when there is no such host.
    pub fn add_session(&mut self, host: usize) -> Result<usize, UnknownLevel> {
        if host >= self.hosts.len() {
            return Err(UnknownLevel { index: host });
        }
        self.session_host.push(host);
        Ok(self.session_host.len() - 1)
    }

    /// Says that block `block` (the dataset's block id) was measured in session
    /// `session`. Time: amortized O(1) (the table grows to the largest block id).
    ///
    /// # Errors
    /// [`UnknownLevel`] when there is no such session.
    pub fn assign(&mut self, block: u32, session: usize) -> Result<(), UnknownLevel> {
        if session >= self.session_host.len() {
            return Err(UnknownLevel { index: session });
        }
        let i = block as usize;
        if self.block_session.len() <= i {
            self.block_session.resize(i + 1, None);
        }
        self.block_session[i] = Some(session);
        Ok(())
    }

    /// The host names.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The number of sessions.
    pub fn session_count(&self) -> usize {
        self.session_host.len()
    }

    /// The host of session `session`.
    pub fn host_of_session(&self, session: usize) -> Option<usize> {
        self.session_host.get(session).copied()
    }

    /// The session of block `block`, when it was assigned one.
    pub fn session_of(&self, block: u32) -> Option<usize> {
        self.block_session.get(block as usize).copied().flatten()
    }

    /// The host of block `block`, when it was assigned a session.
    pub fn host_of(&self, block: u32) -> Option<usize> {
        self.session_of(block).and_then(|s| self.host_of_session(s))
    }

    /// `true` when there is more than one host or more than one session: only then is
    /// there a level above the blocks to analyse.
    pub fn is_multilevel(&self) -> bool {
        self.hosts.len() > 1 || self.session_host.len() > 1
    }
}
