//! abba started with SIGCHLD ignored (a disposition inherited through `exec`, as a daemon
//! or `signal.signal(SIGCHLD, SIG_IGN)` then `exec` leaves it): the kernel would reap every
//! child itself and `wait4` find none (ECHILD), losing every run. Its own test binary,
//! since the disposition is process-wide.

use bench_sched::*;

#[test]
fn runs_are_measured_even_when_sigchld_was_ignored_by_whoever_started_abba() {
    // SAFETY: setting a signal's disposition to SIG_IGN has no memory-safety
    // preconditions; no other test runs in this binary.
    #[allow(unsafe_code)]
    let previous = unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    assert_ne!(previous, libc::SIG_ERR);
    let v = |name: &str, script: &str| Variant {
        name: name.into(),
        command: CommandSpec::parse(script, Shell::Sh).unwrap(),
    };
    let config = ExperimentConfig {
        variants: vec![v("A", "true"), v("B", "exit 3")],
        blocks: 2,
        warmup: 0,
        on_failure: FailurePolicy::Ignore,
        ..ExperimentConfig::default()
    };
    let outcome = run_experiment(
        &config,
        &InterruptFlag::new(),
        &mut RealRunner::new(),
        &mut RawWriter::discard(),
        &mut NoopObserver,
    )
    .unwrap();
    assert_eq!(outcome.runs.len(), 8);
    // The exit statuses came through wait4, not a guess.
    for r in &outcome.runs {
        let want = if r.variant == "A" { 0 } else { 3 };
        assert_eq!(r.exit_code, Some(want), "{r:?}");
    }
}
