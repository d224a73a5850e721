//! Shared experiment helpers of the lab's drivers and xtask's chores: finding the workspace, building
//! the `abba` binary, writing `abba compute` command lines, and running blocked kernel
//! experiments through `bench-sched`.
//!
//! Every kernel run is a child process `abba compute --op OP --chains N --threads 1
//! --duration S --json`, scheduled by [`bench_sched::run_experiment`] with a seeded run
//! order and seeded environment padding ([`Layout::Random`]), and measured through the
//! JSON field `ops_per_sec`. Values handed back are in millions of operations per second,
//! the appendix's unit.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};
use bench_kernel::Op;
use bench_sched::{
    CommandSpec, Design, Experiment, ExperimentConfig, Layout, Loaded, Metric, Observer, RawWriter,
    RealRunner, ScanParameter, Shell, Variant, run_experiment,
};

/// Operations per second in one "M ops/s".
pub const MEGA: f64 = 1e6;

/// The workspace root: two levels above this crate's manifest directory (`crates/bench-lab`).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The target directory: `$CARGO_TARGET_DIR` when set, else `ROOT/target`.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        }
        None => root.join("target"),
    }
}

/// Runs `command` (abba, hyperfine) to its end and returns its standard output; an error
/// names `what` with the exit status and the standard error when it failed, or the program
/// when it could not start.
///
/// # Errors
/// The program did not start or did not exit with 0.
pub fn stdout_of(command: &mut std::process::Command, what: &str) -> Result<Vec<u8>> {
    let out = command
        .output()
        .with_context(|| format!("starting {}", command.get_program().to_string_lossy()))?;
    anyhow::ensure!(
        out.status.success(),
        "{what} exited with {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(out.stdout)
}

/// Builds `abba` in release mode (`$CARGO build --release -p bench-cli`, `cargo` when
/// `$CARGO` is unset) and returns the path of the binary.
///
/// # Errors
/// When cargo cannot be started, the build fails, or the binary is missing afterwards.
pub fn build_abba(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("building abba: {cargo} build --release -p bench-cli");
    let status = Command::new(&cargo)
        .args(["build", "--release", "-p", "bench-cli"])
        .current_dir(root)
        .status()
        .with_context(|| format!("starting {cargo}"))?;
    ensure!(
        status.success(),
        "`{cargo} build --release -p bench-cli` failed"
    );
    let abba = target_dir(root).join("release").join("abba");
    ensure!(abba.is_file(), "{} was not built", abba.display());
    Ok(abba)
}

/// The command line `ABBA compute ARGS...`, each word quoted with [`shell_words::quote`]
/// where it needs it, so that splitting it with POSIX shell rules (as `abba compare` and
/// [`CommandSpec::parse`] do) gives back exactly `[ABBA, "compute", ARGS...]`. The one
/// place every xtask task writes an `abba compute` command. Time: O(length).
///
/// # Errors
/// When the binary's path is not UTF-8.
pub fn compute_command<S: AsRef<str>>(abba: &Path, args: &[S]) -> Result<String> {
    let path = abba.to_str().context("the abba path is not UTF-8")?;
    let words = [path, "compute"]
        .into_iter()
        .chain(args.iter().map(AsRef::as_ref));
    Ok(shell_words::join(words))
}

/// One configuration of the chain-count kernel (`abba compute`), single-threaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelSpec {
    /// The operation every chain repeats.
    pub op: Op,
    /// Independent dependency chains.
    pub chains: usize,
    /// Seconds per run.
    pub duration: f64,
}

impl KernelSpec {
    /// The flags of this configuration after `abba compute`.
    pub fn compute_args(&self) -> Vec<String> {
        vec![
            "--op".into(),
            self.op.to_string(),
            "--chains".into(),
            self.chains.to_string(),
            "--threads".into(),
            "1".into(),
            "--duration".into(),
            self.duration.to_string(),
            "--json".into(),
        ]
    }

    /// The command that runs this configuration with the binary `abba`.
    ///
    /// # Errors
    /// When the binary's path is not UTF-8.
    pub fn command(&self, abba: &Path) -> Result<CommandSpec> {
        let text = compute_command(abba, &self.compute_args())?;
        Ok(CommandSpec::parse(&text, Shell::None)?)
    }

    /// The display name `chains=N`.
    pub fn name(&self) -> String {
        format!("chains={}", self.chains)
    }
}

/// A blocked experiment to run: named kernel variants, design, blocks, seed, and where the
/// raw JSONL goes.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Label for progress messages.
    pub label: String,
    /// `(name, kernel)` per variant; names must be unique.
    pub variants: Vec<(String, KernelSpec)>,
    /// Run-order design.
    pub design: Design,
    /// Blocks (each variant runs once per block).
    pub blocks: u32,
    /// Seed of the run order and the layout padding.
    pub seed: u64,
    /// Raw file (`abba.raw/1`), written run by run.
    pub raw: PathBuf,
    /// The numeric parameter the variants scan (recorded in the raw header, so `abba
    /// analyze` of the raw file reports the trend across it), if any.
    pub parameter: Option<ScanParameter>,
}

/// Values of a blocked experiment: `values[v][b]` is variant `v`'s value in block `b`,
/// M ops/s.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockTable {
    /// Variant names, in the plan's order.
    pub names: Vec<String>,
    /// One row per variant, one column per block.
    pub values: Vec<Vec<f64>>,
}

/// Prints one line per finished block to stderr.
#[derive(Debug)]
pub struct Progress<'a> {
    /// What the progress lines call the experiment.
    pub label: &'a str,
    /// Blocks it runs.
    pub blocks: u32,
}

impl Observer for Progress<'_> {
    fn on_block_end(&mut self, block: u32) {
        let done = block + 1 == self.blocks;
        if std::io::stderr().is_terminal() {
            eprint!("\r  {}: block {}/{}", self.label, block + 1, self.blocks);
            if done {
                eprintln!();
            }
        } else if done {
            eprintln!("  {}: {} blocks done", self.label, self.blocks);
        }
    }
}

impl Plan {
    /// The experiment this plan runs with `abba` as child processes: one untimed warm-up
    /// run per variant, then the schedule, the layout randomized, `ops_per_sec` measured.
    ///
    /// # Errors
    /// When the binary's path is not UTF-8.
    pub fn experiment_config(&self, abba: &Path) -> Result<ExperimentConfig> {
        let variants = self
            .variants
            .iter()
            .map(|(name, kernel)| {
                Ok(Variant {
                    name: name.clone(),
                    command: kernel.command(abba)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ExperimentConfig {
            variants,
            design: self.design,
            blocks: self.blocks,
            seed: self.seed,
            warmup: 1,
            layout: Layout::Random,
            metric: Metric::Json("ops_per_sec".into()),
            unit: Some("ops/s".into()),
            higher_is_better: Some(true),
            parameter: self.parameter.clone(),
            ..ExperimentConfig::default()
        })
    }
}

/// Runs `config` (the plan's [`Plan::experiment_config`]) and returns the experiment,
/// its raw runs written to the plan's raw file.
///
/// # Errors
/// Scheduler errors (a failed run stops the experiment) or an unwritable raw file.
pub fn run_config(config: &ExperimentConfig, plan: &Plan) -> Result<Experiment> {
    if let Some(dir) = plan.raw.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut out = RawWriter::create(&plan.raw)?;
    let mut progress = Progress {
        label: &plan.label,
        blocks: plan.blocks,
    };
    run_experiment(
        config,
        &bench_sched::InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut out,
        &mut progress,
    )
    .with_context(|| format!("{} (raw data: {})", plan.label, plan.raw.display()))
}

/// Runs `plan` with `abba` as child processes (one untimed warm-up run per variant, then
/// the schedule) and returns the per-block values in M ops/s.
///
/// # Errors
/// Scheduler errors (a failed run stops the experiment), an unwritable raw file, or a run
/// without its `ops_per_sec` value.
pub fn run_plan(abba: &Path, plan: &Plan) -> Result<BlockTable> {
    let outcome = run_config(&plan.experiment_config(abba)?, plan)?;
    block_table(plan, &outcome.to_dataset())
}

/// The plan's values as `values[variant][block]` in M ops/s (see `block_values`).
///
/// # Errors
/// A block of a variant without a value.
pub fn block_table(plan: &Plan, loaded: &Loaded) -> Result<BlockTable> {
    let names: Vec<String> = plan.variants.iter().map(|(n, _)| n.clone()).collect();
    let values = block_values(&names, plan.blocks, loaded)?;
    Ok(BlockTable { names, values })
}

/// Arranges the analysed values as `values[variant][block]` in M ops/s: the dataset
/// of the experiment exactly as `abba analyze` reads it (bench-sched's
/// `Experiment::to_dataset`: complete blocks whose runs all succeeded with a value), with
/// every block of every variant required.
fn block_values(names: &[String], blocks: u32, loaded: &Loaded) -> Result<Vec<Vec<f64>>> {
    let dropped: Vec<&str> = loaded.warnings.iter().map(|w| w.message.as_str()).collect();
    names
        .iter()
        .map(|name| {
            let series = loaded.dataset.series.iter().find(|s| &s.name == name);
            (0..blocks)
                .map(|b| {
                    series
                        .and_then(|s| s.observations.iter().find(|o| o.block == Some(b)))
                        .map(|o| o.value / MEGA)
                        .with_context(|| {
                            format!(
                                "no value for {name} in block {} ({})",
                                b + 1,
                                dropped.join("; ")
                            )
                        })
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_of_returns_the_output_or_names_the_failure() {
        let out = stdout_of(Command::new("sh").args(["-c", "echo hi"]), "sh echo").unwrap();
        assert_eq!(out, b"hi\n");
        let err = stdout_of(
            Command::new("sh").args(["-c", "echo oops >&2; exit 3"]),
            "sh exit",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("sh exit exited with exit status: 3: oops"),
            "{err}"
        );
        let err = stdout_of(&mut Command::new("/nonexistent/abba"), "x").unwrap_err();
        assert_eq!(err.to_string(), "starting /nonexistent/abba");
    }

    #[test]
    fn kernel_command_has_the_appendix_flags() {
        let k = KernelSpec {
            op: Op::Int,
            chains: 2,
            duration: 0.3,
        };
        let c = k.command(Path::new("/x y/abba")).unwrap();
        assert_eq!(
            c.argv(),
            [
                "/x y/abba",
                "compute",
                "--op",
                "int",
                "--chains",
                "2",
                "--threads",
                "1",
                "--duration",
                "0.3",
                "--json"
            ]
        );
        assert_eq!(k.name(), "chains=2");
    }

    #[test]
    fn a_path_with_a_space_and_a_quote_round_trips() {
        let abba = Path::new("/tmp/it's a dir/abba");
        let args = ["--duration", "0.051000", "--chains", "1"];
        let line = compute_command(abba, &args).unwrap();
        let want = [
            "/tmp/it's a dir/abba",
            "compute",
            "--duration",
            "0.051000",
            "--chains",
            "1",
        ];
        assert_eq!(shell_words::split(&line).unwrap(), want);
        assert_eq!(CommandSpec::parse(&line, Shell::None).unwrap().argv(), want);
        // Plain paths and flags stay unquoted.
        assert_eq!(
            compute_command(Path::new("/t/release/abba"), &args).unwrap(),
            "/t/release/abba compute --duration 0.051000 --chains 1"
        );
    }

    #[test]
    fn block_values_are_arranged_by_variant_and_block_in_mega_units() {
        use bench_stats::{Dataset, Observation, Series};
        let loaded = |series: Vec<Series>| Loaded {
            dataset: Dataset::new("ops/s", series),
            warnings: Vec::new(),
        };
        let names = vec!["A".to_owned(), "B".to_owned()];
        let two = loaded(vec![
            Series::new(
                "A",
                [Observation::in_block(1e6, 0), Observation::in_block(3e6, 1)],
            ),
            Series::new(
                "B",
                [Observation::in_block(4e6, 1), Observation::in_block(2e6, 0)],
            ),
        ]);
        let v = block_values(&names, 2, &two).unwrap();
        assert_eq!(v, vec![vec![1.0, 3.0], vec![2.0, 4.0]]);
        assert!(block_values(&names, 3, &two).is_err());
        let one = loaded(vec![Series::new("A", [Observation::in_block(1e6, 0)])]);
        assert!(block_values(&names, 1, &one).is_err());
    }
}
