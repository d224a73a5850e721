//! The demo (`abba` with no subcommand): the kernel's chains=1 against chains=2, run as
//! `abba compare` runs any experiment.

use std::time::Duration;

use bench_stats::PracticalRule;

use crate::cli::{
    AnalysisArgs, CompareArgs, CsvExportArgs, DemoArgs, HookArgs, HyperfineOnlyArgs, ScanArgs,
    StyleArg,
};
use crate::output::{stderr_line, write_stdout};

/// The demo: the kernel's chains=1 against chains=2 over 12 ABBA blocks.
pub fn run_demo(demo: &DemoArgs) -> anyhow::Result<u8> {
    let width = crate::output::terminal_width();
    let intro = format!(
        "abba demo: one dependency chain of integer multiply-adds (chains=1) against two independent chains (chains=2),\n{} ABBA blocks of {} s runs, each run a child process with a random environment size. Higher is better.",
        demo.demo_blocks, demo.demo_duration
    );
    stderr_line(format_args!("{intro}\n"));
    let duration = format!("duration={}", demo.demo_duration);
    let args = CompareArgs {
        commands: Vec::new(),
        kernel: vec![
            format!("chains=1,{duration}"),
            format!("chains=2,{duration}"),
        ],
        name: vec!["chains=1".into(), "chains=2".into()],
        blocks: Some(demo.demo_blocks),
        design: None,
        warmup: None,
        settle: None,
        layout: None,
        seed: Some(1),
        output: None,
        force: false,
        experiment: None,
        host: None,
        confirm: false,
        timeout: Some(Duration::from_secs(60)),
        shell: None,
        no_shell: false,
        metric: None,
        counter: None,
        higher_is_better: true,
        unit: None,
        reference: None,
        pin: None,
        show_output: false,
        ignore_failure: false,
        resume: None,
        until: None,
        max_blocks: None,
        min_blocks: None,
        dry_run: false,
        hooks: HookArgs::default(),
        scan: ScanArgs::default(),
        record: Default::default(),
        analysis: AnalysisArgs {
            baseline: None,
            alpha: 0.05,
            confidence: None,
            resamples: 2000,
            min_practical_effect: 0.147,
            equivalence_margin: None,
            practical: PracticalRule::Auto,
            estimator: None,
            cross_class: false,
            json: false,
            export_json: None,
            export_markdown: None,
            export_html: demo.export_html.clone(),
            export_svg: demo.export_svg.clone(),
            fail_if_slower: None,
            no_step_summary: false,
            quiet: false,
            csv: CsvExportArgs::default(),
            // Compact, as compare's; --verbose for the per-block tables and the rest.
            verbose: demo.verbose,
            time_unit: None,
            style: StyleArg::Auto,
            width: None,
        },
        hyperfine_only: HyperfineOnlyArgs::default(),
    };
    let code = crate::compare::run(args)?;
    let next = bench_report::wrap(
        "Compare your own commands: abba compare 'old/bin --flag' 'new/bin --flag'   (abba compare -h)",
        width,
        "",
        "  ",
    );
    write_stdout(&format!("\n{next}\n"))?;
    Ok(code)
}
