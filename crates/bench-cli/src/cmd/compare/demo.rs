//! The demo (`abba` with no subcommand): the kernel's chains=1 against chains=2, run as
//! `abba compare` runs any experiment.

use std::ffi::OsString;

use clap::Parser;

use crate::args::{Cli, Command, DemoArgs};
use crate::core::output::write_stdout;
use crate::core::stdio::stderr_line;

/// The demo: the kernel's chains=1 against chains=2 over 12 ABBA blocks.
pub fn run_demo(demo: &DemoArgs) -> anyhow::Result<u8> {
    let width = crate::core::stdio::terminal_width();
    let intro = format!(
        "abba demo: one dependency chain of integer multiply-adds (chains=1) against two independent chains (chains=2),\n{} ABBA blocks of {} s runs, each run a child process with a random environment size. Higher is better.",
        demo.demo_blocks, demo.demo_duration
    );
    stderr_line(format_args!("{intro}\n"));
    let duration = format!("duration={}", demo.demo_duration);
    let mut argv: Vec<OsString> = [
        "abba",
        "compare",
        "--kernel",
        &format!("chains=1,{duration}"),
        "--kernel",
        &format!("chains=2,{duration}"),
        "--name",
        "chains=1",
        "--name",
        "chains=2",
        "--blocks",
        &demo.demo_blocks.to_string(),
        "--seed",
        "1",
        "--timeout",
        "60s",
        "--higher-is-better",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    for (flag, path) in [
        ("--export-html", &demo.export_html),
        ("--export-svg", &demo.export_svg),
    ] {
        if let Some(path) = path {
            argv.extend([OsString::from(flag), path.clone().into_os_string()]);
        }
    }
    if demo.verbose {
        // Compact, as compare's; --verbose for the per-block tables and the rest.
        argv.push("--verbose".into());
    }
    let Some(Command::Compare(args)) = Cli::try_parse_from(argv)?.command else {
        anyhow::bail!("the demo's arguments are not an abba compare command line")
    };
    let code = super::run(*args)?;
    let next = bench_report::wrap(
        "Compare your own commands: abba compare 'old/bin --flag' 'new/bin --flag'   (abba compare -h)",
        width,
        "",
        "  ",
    );
    write_stdout(&format!("\n{next}\n"))?;
    Ok(code)
}
