//! Running one command once: the [`Runner`] trait, command specs and metrics.

mod fake;
mod margin;
mod real;

pub use fake::{FakeCall, FakeRunner};
pub(crate) use real::resolve_program;
pub use real::{MAX_JSON_LINE_BYTES, RealRunner, STDERR_TAIL_BYTES};

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::counter::{CountEvent, Counts};
use crate::cpus::CpuSet;
use crate::error::SchedError;
use crate::experiment::ConfigError;
use crate::interrupt::InterruptFlag;

/// Whether a command string goes through a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Shell {
    /// Split into words like a shell would (quotes honoured) but run directly: no
    /// expansion, no pipes, no redirections. Cheaper and more precise to time.
    #[default]
    None,
    /// `sh -c STRING`.
    Sh,
}

impl FromStr for Shell {
    type Err = SchedError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Shell::None),
            "sh" => Ok(Shell::Sh),
            _ => Err(SchedError::Config(ConfigError::UnknownShell {
                given: s.to_owned(),
            })),
        }
    }
}

impl fmt::Display for Shell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Shell::None => "none",
            Shell::Sh => "sh",
        })
    }
}

const SHELL_TOKENS: [&str; 8] = ["|", ">", "<", "&&", "||", ";", "$(", "`"];

/// A command ready to run: the original text and the program with its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandSpec {
    text: String,
    shell: Shell,
    argv: Vec<String>,
}

impl CommandSpec {
    /// Parses `text` for running with `shell`.
    ///
    /// Without a shell the text is split with shell quoting rules and nothing else; text
    /// containing `|`, `>`, `<`, `&&`, `||`, `;`, `$(` or a backtick outside quotes is
    /// refused, since it would otherwise be passed literally as arguments.
    ///
    /// # Errors
    /// [`SchedError::CommandSyntax`] for unbalanced quotes or an empty command,
    /// [`SchedError::ShellSyntaxWithoutShell`] for shell syntax with [`Shell::None`].
    pub fn parse(text: &str, shell: Shell) -> Result<CommandSpec, SchedError> {
        let syntax = |message: &str| SchedError::CommandSyntax {
            command: text.to_owned(),
            message: message.to_owned(),
        };
        let argv = match shell {
            Shell::Sh => {
                if text.trim().is_empty() {
                    return Err(syntax("the command is empty"));
                }
                vec!["sh".to_owned(), "-c".to_owned(), text.to_owned()]
            }
            Shell::None => {
                let words = shell_words::split(text).map_err(|e| {
                    let e = e.to_string();
                    if e.contains("missing closing quote") {
                        syntax("a quote is opened but never closed")
                    } else {
                        syntax(&e)
                    }
                })?;
                if words.is_empty() {
                    return Err(syntax("the command is empty"));
                }
                // Look for shell syntax in words that were not quoted in the original text.
                for w in &words {
                    if let Some(tok) = SHELL_TOKENS.iter().find(|t| w.contains(**t)) {
                        if quoted_free_contains(text, tok) {
                            return Err(SchedError::ShellSyntaxWithoutShell {
                                command: text.to_owned(),
                                token: (*tok).to_owned(),
                            });
                        }
                    }
                }
                words
            }
        };
        Ok(CommandSpec {
            text: text.to_owned(),
            shell,
            argv,
        })
    }

    /// The command as the user wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The shell mode.
    pub fn shell(&self) -> Shell {
        self.shell
    }

    /// Program and arguments (never empty).
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The program to execute.
    pub fn program(&self) -> &str {
        &self.argv[0]
    }

    /// The characters a POSIX shell would expand in this command but that pass through
    /// literally without one ([`Shell::None`]), each once, in order of first appearance:
    /// `$` (a parameter, `$HOME`, `${X}`) unquoted or in double quotes, a backquote in
    /// double quotes, and unquoted `*`, `?` (globs) and `~` (at the start of a word or
    /// after `=`). Quoting that splitting honours (`'...'`, `"..."`, `\`) is not reported:
    /// it means the same with and without a shell. Empty for [`Shell::Sh`]. Time: O(text).
    pub fn shell_expansions(&self) -> Vec<char> {
        if self.shell == Shell::Sh {
            return Vec::new();
        }
        let mut found = Vec::new();
        let (mut single, mut double, mut escaped) = (false, false, false);
        let mut prev: Option<char> = None;
        let mut chars = self.text.chars().peekable();
        while let Some(c) = chars.next() {
            let word_start = prev.is_none_or(|p| p.is_whitespace() || p == '=');
            prev = Some(c);
            if escaped {
                escaped = false;
                continue;
            }
            let expands = match c {
                '\\' if !single => {
                    escaped = true;
                    false
                }
                '\'' if !double => {
                    single = !single;
                    false
                }
                '"' if !single => {
                    double = !double;
                    false
                }
                _ if single => false,
                '$' => chars
                    .peek()
                    .is_some_and(|n| n.is_ascii_alphanumeric() || "_{(@*#?$!-".contains(*n)),
                '`' => double,
                '*' | '?' => !double,
                '~' => !double && word_start,
                _ => false,
            };
            if expands && !found.contains(&c) {
                found.push(c);
            }
        }
        found
    }
}

/// Whether `tok` appears in `text` outside single or double quotes.
fn quoted_free_contains(text: &str, tok: &str) -> bool {
    let mut plain = String::with_capacity(text.len());
    let (mut single, mut double, mut escaped) = (false, false, false);
    for c in text.chars() {
        if escaped {
            escaped = false;
            plain.push(' ');
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ if single || double => plain.push(' '),
            _ => plain.push(c),
        }
    }
    plain.contains(tok)
}

/// What number one run yields.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Metric {
    /// Wall-clock time from spawn to reap, ns.
    #[default]
    Wall,
    /// User CPU time from `wait4`, ns.
    User,
    /// System CPU time from `wait4`, ns.
    Sys,
    /// User + system CPU time, ns.
    Cpu,
    /// Peak resident set size, KiB.
    MaxRss,
    /// The numeric field `FIELD` (top level) of the last JSON object line the command
    /// printed on stdout.
    Json(String),
    /// A count of the run's process tree from `exec` to exit (instructions, cycles, ...),
    /// read by the runner's counter ([`crate::Counting`]).
    Count(CountEvent),
}

impl Metric {
    /// Default unit: `ns` for times, `KiB` for max-rss, `value` for JSON fields.
    pub fn unit(&self) -> &'static str {
        match self {
            Metric::Wall | Metric::User | Metric::Sys | Metric::Cpu => "ns",
            Metric::MaxRss => "KiB",
            Metric::Json(_) => "value",
            Metric::Count(e) => e.name(),
        }
    }

    /// Default direction: lower is better for every built-in metric (a JSON field such as a
    /// throughput needs `--higher-is-better`).
    pub fn higher_is_better(&self) -> bool {
        false
    }

    /// The event a count metric counts (`None` for times, RSS and JSON fields).
    pub fn count_event(&self) -> Option<CountEvent> {
        match self {
            Metric::Count(e) => Some(*e),
            Metric::Wall
            | Metric::User
            | Metric::Sys
            | Metric::Cpu
            | Metric::MaxRss
            | Metric::Json(_) => None,
        }
    }

    /// Whether the command's stdout must be captured to compute the metric.
    pub fn needs_stdout(&self) -> bool {
        matches!(self, Metric::Json(_))
    }
}

impl fmt::Display for Metric {
    /// `wall`, `user`, `sys`, `cpu`, `max-rss` or `json:FIELD`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Wall => f.write_str("wall"),
            Metric::User => f.write_str("user"),
            Metric::Sys => f.write_str("sys"),
            Metric::Cpu => f.write_str("cpu"),
            Metric::MaxRss => f.write_str("max-rss"),
            Metric::Json(field) => write!(f, "json:{field}"),
            Metric::Count(e) => f.write_str(e.name()),
        }
    }
}

/// A metric text that is not one of the known forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown metric {given:?}; expected one of: wall, user, sys, cpu, max-rss, json:FIELD, instructions, cycles, branches, branch-misses, cache-misses"
)]
pub struct MetricParseError {
    /// The rejected text.
    pub given: String,
}

impl FromStr for Metric {
    type Err = MetricParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "wall" => Metric::Wall,
            "user" => Metric::User,
            "sys" => Metric::Sys,
            "cpu" => Metric::Cpu,
            "max-rss" => Metric::MaxRss,
            _ if CountEvent::from_name(s).is_some() => {
                Metric::Count(CountEvent::from_name(s).unwrap_or(CountEvent::Instructions))
            }
            _ => match s.strip_prefix("json:") {
                Some(field) if !field.is_empty() => Metric::Json(field.to_owned()),
                _ => {
                    return Err(MetricParseError {
                        given: s.to_owned(),
                    });
                }
            },
        })
    }
}

/// Whether the child's stdout and stderr reach the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OutputMode {
    /// Discard stdout (unless the metric reads it); keep only a bounded stderr tail.
    #[default]
    Discard,
    /// Let the child write to abba's stdout and stderr.
    Show,
    /// Let the child write, but send its stdout to abba's stderr (so abba's own stdout,
    /// e.g. `--json`, stays machine-readable).
    ShowOnStderr,
}

impl OutputMode {
    /// `true` for both modes that show the child's output.
    pub fn shows(self) -> bool {
        matches!(self, OutputMode::Show | OutputMode::ShowOnStderr)
    }
}

/// Everything a runner needs for one run.
#[derive(Debug, Clone, Copy)]
pub struct RunRequest<'a> {
    /// The command.
    pub command: &'a CommandSpec,
    /// Bytes of padding in [`crate::LAYOUT_ENV_VAR`].
    pub env_pad: usize,
    /// CPUs to pin the child to.
    pub pin: Option<&'a CpuSet>,
    /// Kill the child's process group after this long.
    pub timeout: Option<Duration>,
    /// Show or discard the child's output.
    pub output: OutputMode,
    /// Capture stdout to find the last JSON object line.
    pub capture_json: bool,
    /// Stop flag: the runner registers the child so a stop kills it.
    pub stop: &'a InterruptFlag,
    /// Count this run with the runner's counter, if it has one (measured runs and
    /// warm-ups; not hooks).
    pub count: bool,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Termination {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by abba).
    Signaled(i32),
    /// Killed by abba after the timeout.
    TimedOut,
    /// Killed by abba because a stop was requested.
    Interrupted,
    /// Stopped by this signal (`kill -STOP $$`, a terminal's SIGTTOU) and still stopped a
    /// second later: abba killed it rather than wait forever.
    Stopped(i32),
}

/// What one run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct RunMeasurement {
    /// Spawn to reap, ns.
    pub wall_ns: u64,
    /// User CPU time, ns.
    pub user_ns: u64,
    /// System CPU time, ns.
    pub sys_ns: u64,
    /// Peak resident set size, KiB.
    pub max_rss_kib: u64,
    /// Time the command's main thread was runnable but waiting for a CPU, ns (`None` when
    /// the system does not say): the part of the time off the CPU that other tenants cause.
    pub run_delay_ns: Option<u64>,
    /// How it ended.
    pub termination: Termination,
    /// The last stdout line that parsed as a JSON object (when `capture_json`).
    pub last_json: Option<String>,
    /// The last ~2 KiB of stderr (empty with [`OutputMode::Show`]).
    pub stderr_tail: String,
    /// What the runner's counter counted: `None` when the run was not counted, an error
    /// message when the counts could not be read.
    pub counts: Option<Result<Counts, String>>,
}

/// Runs commands: [`RealRunner`] spawns processes, [`FakeRunner`] replays a script.
pub trait Runner {
    /// Checks before the first run that `command`'s program exists and is executable.
    ///
    /// # Errors
    /// [`SchedError::ProgramNotFound`] (with `variant` as given).
    fn preflight(&mut self, variant: &str, command: &CommandSpec) -> Result<(), SchedError>;

    /// Runs the command once and measures it.
    ///
    /// # Errors
    /// [`SchedError::Spawn`] when it cannot be started or waited for; a non-zero exit is
    /// not an error here but a [`Termination`].
    fn run(
        &mut self,
        variant: &str,
        request: &RunRequest<'_>,
    ) -> Result<RunMeasurement, SchedError>;

    /// The CPUs a child started with `pin` would be allowed to use.
    fn allowed_cpus(&mut self, pin: Option<&CpuSet>) -> Option<CpuSet>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_without_shell_and_refuses_shell_syntax() {
        let c = CommandSpec::parse("echo 'a b' c", Shell::None).unwrap();
        assert_eq!(c.argv(), &["echo", "a b", "c"]);
        for bad in [
            "ls | wc",
            "a > b",
            "a && b",
            "a; b",
            "echo $(x)",
            "echo `x`",
            "a < b",
            "a || b",
        ] {
            let e = CommandSpec::parse(bad, Shell::None).unwrap_err();
            assert!(
                matches!(e, SchedError::ShellSyntaxWithoutShell { .. }),
                "{bad}"
            );
            assert!(e.to_string().contains("sh -c"));
            assert!(CommandSpec::parse(bad, Shell::Sh).is_ok());
        }
        // Quoted shell characters are plain arguments.
        let c = CommandSpec::parse("grep 'a|b' file", Shell::None).unwrap();
        assert_eq!(c.argv(), &["grep", "a|b", "file"]);
        assert!(CommandSpec::parse("", Shell::None).is_err());
        assert!(CommandSpec::parse("echo 'open", Shell::None).is_err());
        assert_eq!(
            CommandSpec::parse("x y", Shell::Sh).unwrap().argv(),
            &["sh", "-c", "x y"]
        );
    }

    #[test]
    fn shell_expansions_name_what_passes_through_literally() {
        let found = |t: &str| {
            CommandSpec::parse(t, Shell::None)
                .unwrap()
                .shell_expansions()
        };
        assert_eq!(found("ls $HOME ~/x *.txt a?b"), ['$', '~', '*', '?']);
        assert_eq!(found("echo \"$HOME `date`\""), ['$', '`']);
        // Single quotes, escapes and mid-word tildes mean the same with or without a shell.
        assert!(found("echo '$HOME *' \\$x \\* HEAD~1 'a\"b' \"*?\" $").is_empty());
        assert_eq!(found("env X=~/bin prog"), ['~']);
        assert!(
            CommandSpec::parse("ls *", Shell::Sh)
                .unwrap()
                .shell_expansions()
                .is_empty()
        );
    }

    #[test]
    fn metric_parse_round_trips() {
        for m in [
            "wall",
            "user",
            "sys",
            "cpu",
            "max-rss",
            "json:ops_per_sec",
            "instructions",
            "cycles",
            "branches",
            "branch-misses",
            "cache-misses",
        ] {
            assert_eq!(m.parse::<Metric>().unwrap().to_string(), m);
        }
        assert!("json:".parse::<Metric>().is_err());
        assert!("rss".parse::<Metric>().is_err());
        assert_eq!(Metric::MaxRss.unit(), "KiB");
    }
}
