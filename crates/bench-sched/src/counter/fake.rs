//! [`FakeCounting`]: scripted counts for tests of the loop, no counters, no valgrind.

use std::sync::{Arc, Mutex};

use super::{CountError, CountedRun, CounterSource, Counting, Counts};

type Script = Box<dyn FnMut(&[String], usize) -> Option<Counts> + Send>;

/// A [`Counting`] source that answers each run from a script: `script(argv, run_number)`,
/// `None` for a run whose counts could not be read. It records every argv it was asked
/// to count ([`FakeCounting::counted`]).
pub struct FakeCounting {
    source: CounterSource,
    script: Script,
    counted: Arc<Mutex<Vec<Vec<String>>>>,
}

impl std::fmt::Debug for FakeCounting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeCounting")
            .field("source", &self.source)
            .finish()
    }
}

impl FakeCounting {
    /// A fake that claims to be `source` and counts by `script`.
    pub fn new(
        source: CounterSource,
        script: impl FnMut(&[String], usize) -> Option<Counts> + Send + 'static,
    ) -> FakeCounting {
        FakeCounting {
            source,
            script: Box::new(script),
            counted: Arc::default(),
        }
    }

    /// A handle on the argv of every run counted so far (it stays valid after the fake
    /// moved into a runner).
    pub fn counted(&self) -> Arc<Mutex<Vec<Vec<String>>>> {
        Arc::clone(&self.counted)
    }
}

impl Counting for FakeCounting {
    fn source(&self) -> CounterSource {
        self.source
    }

    fn start(&mut self, argv: &[String]) -> Result<Box<dyn CountedRun>, CountError> {
        let mut list = self.counted.lock().unwrap_or_else(|p| p.into_inner());
        let n = list.len();
        list.push(argv.to_vec());
        Ok(Box::new(FakeRun {
            argv: argv.to_vec(),
            counts: (self.script)(argv, n),
        }))
    }
}

struct FakeRun {
    argv: Vec<String>,
    counts: Option<Counts>,
}

impl CountedRun for FakeRun {
    fn argv(&self) -> &[String] {
        &self.argv
    }

    fn finish(self: Box<Self>) -> Result<Counts, CountError> {
        self.counts
            .ok_or_else(|| CountError::Io(std::io::Error::other("no counts (scripted)")))
    }
}

/// A [`super::CounterProbe`] that answers as told: a machine with or without a PMU (and
/// why not) and with or without valgrind (at `/usr/bin/valgrind`), for tests of the
/// choice of counter without either.
#[derive(Debug, Clone)]
pub struct FakeProbe {
    /// What [`super::CounterProbe::pmu`] answers.
    pub pmu: Result<(), super::PmuRefusal>,
    /// Whether valgrind is "installed".
    pub valgrind: bool,
}

impl super::CounterProbe for FakeProbe {
    fn pmu(&self) -> Result<(), super::PmuRefusal> {
        self.pmu.clone()
    }
    fn valgrind(&self) -> Option<std::path::PathBuf> {
        self.valgrind
            .then(|| std::path::PathBuf::from("/usr/bin/valgrind"))
    }
}
