//! [`Valgrind`]: instruction counts from cachegrind, one output file per process.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{CountError, CountedRun, CounterSource, Counting, Counts};

/// Why a cachegrind output could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CachegrindError {
    /// No process wrote an output file: valgrind could not start the program, or it was
    /// killed (`SIGKILL`, a timeout) before it could write one.
    #[error("valgrind wrote no count (the program did not start under valgrind, or was killed before it exited){}", tail_suffix(.log_tail))]
    NoOutput {
        /// The end of valgrind's own log.
        log_tail: String,
    },
    /// Valgrind met an instruction it does not support (AVX-512 on valgrind 3.19, say) and
    /// raised SIGILL in the program: the failure is valgrind's, not the program's.
    #[error(
        "valgrind cannot run this program: it met an instruction valgrind does not support ({detail}) and killed it with SIGILL, which the program run alone would not get; count it with --counter pmu, or run it without --metric instructions"
    )]
    Unsupported {
        /// Valgrind's own line about the instruction.
        detail: String,
    },
    /// An output file is not in cachegrind's format.
    #[error("cannot read cachegrind output {file}: {message}")]
    Format {
        /// The file's name.
        file: String,
        /// What is wrong.
        message: String,
    },
}

fn tail_suffix(tail: &str) -> String {
    let t = tail.trim();
    if t.is_empty() {
        String::new()
    } else {
        format!("; valgrind said: {t}")
    }
}

/// The instruction count (`Ir`) of one cachegrind output file: the `summary:` line's
/// entry at the position of `Ir` in the `events:` line.
///
/// Time: O(length of the text).
///
/// # Errors
/// A message for a missing `events:` line, an `events:` line without `Ir`, a missing
/// `summary:` line or a summary entry that is not an unsigned integer.
///
/// # Examples
/// ```
/// let text = "desc: I1 cache: 32768 B\ncmd: ./prog\nevents: Ir\nfl=a.c\nfn=main\n1 5\nsummary: 3582464\n";
/// assert_eq!(bench_sched::parse_cachegrind_out(text), Ok(3_582_464));
/// ```
pub fn parse_cachegrind_out(text: &str) -> Result<u64, String> {
    let mut events: Option<Vec<&str>> = None;
    let mut summary: Option<&str> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            events = Some(rest.split_whitespace().collect());
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = Some(rest);
        }
    }
    let events = events.ok_or("no `events:` line")?;
    let index = events
        .iter()
        .position(|e| *e == "Ir")
        .ok_or_else(|| format!("the events {events:?} do not include Ir"))?;
    let summary = summary.ok_or("no `summary:` line (the process did not finish writing)")?;
    let entry = summary
        .split_whitespace()
        .nth(index)
        .ok_or_else(|| format!("the summary line {:?} has no Ir entry", summary.trim()))?;
    entry
        .parse::<u64>()
        .map_err(|_| format!("the Ir entry {entry:?} is not an unsigned integer"))
}

/// Counts instructions by running each command under
/// `valgrind --tool=cachegrind --cache-sim=no --trace-children=yes`.
///
/// Every run gets its own directory (under the temporary directory) where each process
/// writes `cg.PID` and valgrind its log `log.PID` (so the program's stderr stays its own);
/// the run's count is the sum over the files, the number of files its process count. A
/// process image replaced by `exec` writes no file of its own: the image after the exec
/// does, under the same pid, so instructions before an `exec` are not counted (a shell's
/// `sh -c 'prog'` counts `prog`). The directory is removed after reading.
#[derive(Debug, Clone)]
pub struct Valgrind {
    program: PathBuf,
}

impl Valgrind {
    /// Runs `program` (the valgrind executable).
    pub fn new(program: PathBuf) -> Valgrind {
        Valgrind { program }
    }

    /// The arguments put before the command: tool, options and the per-run files in `dir`.
    fn prefix(&self, dir: &Path) -> Vec<String> {
        vec![
            self.program.display().to_string(),
            "--tool=cachegrind".into(),
            "--cache-sim=no".into(),
            "--trace-children=yes".into(),
            format!("--cachegrind-out-file={}/cg.%p", dir.display()),
            format!("--log-file={}/log.%p", dir.display()),
            "--".into(),
        ]
    }
}

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh, empty directory for one run's files.
fn run_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    loop {
        let n = RUN_COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("abba-cachegrind-{}-{n}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

impl Counting for Valgrind {
    fn source(&self) -> CounterSource {
        CounterSource::Valgrind
    }

    fn start(&mut self, argv: &[String]) -> Result<Box<dyn CountedRun>, CountError> {
        let dir = run_dir()?;
        let mut full = self.prefix(&dir);
        full.extend(argv.iter().cloned());
        Ok(Box::new(ValgrindRun { dir, argv: full }))
    }
}

struct ValgrindRun {
    dir: PathBuf,
    argv: Vec<String>,
}

impl Drop for ValgrindRun {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Sums the counts of every `cg.*` file in `dir`; the end of the logs when there is none.
pub(crate) fn read_dir_counts(dir: &Path) -> Result<Counts, CountError> {
    let mut names: Vec<String> = fs::read_dir(dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    // An instruction valgrind cannot translate: its SIGILL is no count of the program.
    for name in names.iter().filter(|n| n.starts_with("log.")) {
        let log = fs::read_to_string(dir.join(name)).unwrap_or_default();
        if let Some(line) = log.lines().find(|l| {
            l.contains("unhandled instruction bytes") || l.contains("Unrecognised instruction")
        }) {
            let detail = line
                .trim_start_matches(|c: char| c == '=' || c.is_ascii_digit())
                .trim()
                .to_owned();
            return Err(CachegrindError::Unsupported { detail }.into());
        }
    }
    let mut total = 0u64;
    let mut processes = 0u32;
    for name in names.iter().filter(|n| n.starts_with("cg.")) {
        let text = fs::read_to_string(dir.join(name))?;
        let ir = parse_cachegrind_out(&text).map_err(|message| CachegrindError::Format {
            file: name.clone(),
            message,
        })?;
        total = total.saturating_add(ir);
        processes += 1;
    }
    if processes == 0 {
        let mut log = String::new();
        for name in names.iter().filter(|n| n.starts_with("log.")) {
            log.push_str(&fs::read_to_string(dir.join(name)).unwrap_or_default());
        }
        // `--PID--` lines are valgrind's own remarks (cache geometry); `==PID==` its report.
        let lines: Vec<&str> = log
            .lines()
            .filter(|l| !l.starts_with("--"))
            .map(|l| l.trim_start_matches(|c: char| c == '=' || c.is_ascii_digit()))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
        return Err(CachegrindError::NoOutput { log_tail: tail }.into());
    }
    Ok(Counts {
        instructions: Some(total),
        processes: Some(processes),
        ..Counts::default()
    })
}

impl CountedRun for ValgrindRun {
    fn argv(&self) -> &[String] {
        &self.argv
    }

    fn finish(self: Box<Self>) -> Result<Counts, CountError> {
        read_dir_counts(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head and tail of a real cachegrind 3.19 output (`abba compute --steps 200000`).
    const ONE: &str = "desc: I1 cache:         32768 B, 64 B, 8-way associative\n\
desc: D1 cache:         49152 B, 64 B, 12-way associative\n\
desc: LL cache:         536870912 B, 64 B, 2-way associative\n\
cmd: /work/target/debug/abba compute --steps 200000 --json\n\
events: Ir\n\
fl=./csu/../csu/libc-start.c\n\
fn=__libc_start_main@@GLIBC_2.34\n\
128 2\n\
134 3\n\
fn=main\n\
0 10\n\
summary: 3582464\n";

    #[test]
    fn reads_the_summary_of_one_process() {
        assert_eq!(parse_cachegrind_out(ONE), Ok(3_582_464));
        // With the cache and branch simulations on, Ir is wherever the events line says.
        let sim = "events: Ir I1mr ILmr Dr D1mr\nsummary: 10 2 1 7 0\n";
        assert_eq!(parse_cachegrind_out(sim), Ok(10));
        let later = "events: Dr Ir\nsummary: 7 12\n";
        assert_eq!(parse_cachegrind_out(later), Ok(12));
    }

    #[test]
    fn refuses_what_is_not_a_finished_output() {
        assert!(parse_cachegrind_out("").unwrap_err().contains("events"));
        let cut = "events: Ir\nfl=a.c\n1 2\n";
        assert!(parse_cachegrind_out(cut).unwrap_err().contains("summary"));
        let no_ir = "events: Dr\nsummary: 5\n";
        assert!(parse_cachegrind_out(no_ir).unwrap_err().contains("Ir"));
        let bad = "events: Ir\nsummary: 1.5e3\n";
        assert!(parse_cachegrind_out(bad).unwrap_err().contains("unsigned"));
        let short = "events: Dr Ir\nsummary: 7\n";
        assert!(parse_cachegrind_out(short).is_err());
    }

    /// A command that forked: `sh -c '/bin/true; /bin/echo hi; exec /bin/true'` left three
    /// files (the shell's image was replaced by its last `exec`).
    #[test]
    fn sums_every_process_of_a_command_that_forks() {
        let dir = tempfile::tempdir().unwrap();
        for (pid, ir) in [(27233, 130_440), (27281, 130_440), (27311, 307_562)] {
            let text = format!("events: Ir\ncmd: /bin/true\nsummary: {ir}\n");
            fs::write(dir.path().join(format!("cg.{pid}")), text).unwrap();
            fs::write(dir.path().join(format!("log.{pid}")), "==1== I refs: ...\n").unwrap();
        }
        let counts = read_dir_counts(dir.path()).unwrap();
        assert_eq!(counts.instructions, Some(568_442));
        assert_eq!(counts.processes, Some(3));
        assert_eq!(counts.cycles, None);
    }

    /// A program valgrind could not start (`/nonexistent`): no output file, and the error
    /// quotes valgrind's log.
    #[test]
    fn a_command_that_fails_to_start_has_no_count_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("log.27380"),
            "--27380-- warning: L3 cache found, using its data for the LL simulation.\nvalgrind: /nonexistent: No such file or directory\n",
        )
        .unwrap();
        let e = read_dir_counts(dir.path()).unwrap_err().to_string();
        assert!(e.contains("wrote no count"), "{e}");
        assert!(e.contains("/nonexistent: No such file"), "{e}");
        assert!(!e.contains("L3 cache"), "{e}");
        // A file cut short (killed while writing) is named.
        fs::write(dir.path().join("cg.9"), "events: Ir\nfl=a.c\n").unwrap();
        let e = read_dir_counts(dir.path()).unwrap_err().to_string();
        assert!(e.contains("cg.9") && e.contains("summary"), "{e}");
    }

    #[test]
    fn runs_the_command_under_cachegrind_in_a_directory_of_its_own() {
        let mut v = Valgrind::new(PathBuf::from("/usr/bin/valgrind"));
        let argv = ["prog".to_owned(), "--flag".to_owned()];
        let a = v.start(&argv).unwrap();
        let b = v.start(&argv).unwrap();
        let (a_argv, b_argv) = (a.argv().to_vec(), b.argv().to_vec());
        assert_eq!(a_argv[0], "/usr/bin/valgrind");
        assert!(a_argv.contains(&"--tool=cachegrind".to_owned()));
        assert!(a_argv.contains(&"--trace-children=yes".to_owned()));
        assert_eq!(&a_argv[a_argv.len() - 3..], ["--", "prog", "--flag"]);
        assert_ne!(a_argv, b_argv, "each run writes into its own directory");
        let out = a_argv
            .iter()
            .find(|s| s.starts_with("--cachegrind-out-file="))
            .unwrap();
        let dir = PathBuf::from(
            out.trim_start_matches("--cachegrind-out-file=")
                .trim_end_matches("/cg.%p"),
        );
        assert!(dir.is_dir());
        drop(a);
        assert!(!dir.exists(), "the run's directory is removed");
        drop(b);
    }
}
