//! The controls section and the run-level warnings of a raw experiment: for every state
//! dimension the variance-reduction seed names, whether it was randomized, held fixed, or
//! left uncontrolled, in words (facts only; a front end words the remedies).

use std::collections::BTreeSet;

use bench_stats::model::{Control, Remedy, Treatment};
use bench_stats::{Warning, WarningCode};

use crate::design::Design;
use crate::layout::Layout;
use crate::raw::{RawHeader, Run, Runs};
use crate::runner::Metric;

fn control(dimension: &str, treatment: Treatment, detail: String) -> Control {
    Control::new(dimension, treatment, detail)
}

/// Describes what the experiment in `header` did about each state dimension, from the
/// header, the measured runs and the load average at the end (when known).
pub(crate) fn controls(
    header: &RawHeader,
    runs: &Runs,
    load_end: Option<[f64; 3]>,
) -> Vec<Control> {
    // Read twice rather than listed: a view of every run would take more room than the runs.
    let measured = || runs.iter().filter(|r| !r.is_reference);
    vec![
        run_order(header),
        layout(header, measured()),
        cores(header, measured()),
        frequency(header),
        aslr(header),
        harness(header),
        background_load(header, load_end),
    ]
}

fn run_order(header: &RawHeader) -> Control {
    match header.design {
        Design::Abba => control(
            "run order",
            Treatment::HeldFixed,
            "counterbalanced: ABBA in blocks 1, 3, 5, ... and BAAB in blocks 2, 4, 6, ... (a Williams square for 3+ variants), so drift and first-order carryover cancel within each pair of blocks".into(),
        )
        .with_brief("order counterbalanced"),
        Design::Random => control(
            "run order",
            Treatment::Randomized,
            format!("a fresh random order in each of {} blocks (seed {})", header.blocks, header.seed),
        )
        .with_brief("order randomized"),
        Design::Sequential => control(
            "run order",
            Treatment::Uncontrolled,
            format!("{}: all runs of one variant, then the next; session drift is confounded with the variants", header.design),
        )
        .with_brief("order"),
    }
}

fn layout<'a>(header: &RawHeader, measured: impl Iterator<Item = Run<'a>>) -> Control {
    let mut count = 0usize;
    let pads: BTreeSet<usize> = measured
        .inspect(|_| count += 1)
        .map(|r| r.env_pad)
        .collect();
    if randomized_layout(header) {
        control(
            "environment size / stack layout",
            Treatment::Randomized,
            format!(
                "{} distinct environment paddings (0-4095 bytes) over {} runs move the initial stack, so layout luck averages out instead of biasing one variant",
                pads.len(),
                count
            ),
        )
        .with_brief(format!("layout randomized ({} paddings)", pads.len()))
    } else {
        control(
            "environment size / stack layout",
            Treatment::HeldFixed,
            format!(
                "held at {} bytes of padding for every run: the result holds for this one layout only",
                pads.iter().next().copied().unwrap_or(0)
            ),
        )
        .with_brief("layout fixed")
    }
}

fn cores<'a>(header: &RawHeader, measured: impl Iterator<Item = Run<'a>>) -> Control {
    if let Some(pin) = &header.pin {
        return control(
            "cores",
            Treatment::HeldFixed,
            format!("every run pinned to CPU(s) {pin}"),
        )
        .with_brief(format!("pinned to CPU(s) {pin}"));
    }
    let cpus: BTreeSet<&str> = measured.filter_map(|r| r.allowed_cpus).collect();
    let among = if cpus.is_empty() {
        "all".to_string()
    } else {
        cpus.into_iter().collect::<Vec<_>>().join(" / ")
    };
    control(
        "cores",
        Treatment::Uncontrolled,
        format!("the scheduler chose among CPU(s) {among}"),
    )
    .with_remedy(Remedy::PinCpus)
    .with_brief("cores")
}

fn frequency(header: &RawHeader) -> Control {
    let h = &header.host;
    control(
        "frequency governor and turbo",
        Treatment::Uncontrolled,
        format!(
            "governor {}, turbo {}; abba records but does not set them",
            h.governor.as_deref().unwrap_or("not readable"),
            h.turbo.as_deref().unwrap_or("not readable")
        ),
    )
    .with_brief("governor")
}

fn aslr(header: &RawHeader) -> Control {
    match header.host.aslr {
        Some(0) => control(
            "ASLR",
            Treatment::HeldFixed,
            "disabled (randomize_va_space = 0): the same addresses every run".into(),
        )
        .with_brief("ASLR off"),
        Some(level) => control(
            "ASLR",
            Treatment::Randomized,
            format!(
                "kernel address-space randomization on (randomize_va_space = {level}): fresh addresses every run"
            ),
        )
        .with_brief("ASLR on"),
        None => control(
            "ASLR",
            Treatment::Uncontrolled,
            "setting not readable".into(),
        )
        .with_brief("ASLR"),
    }
}

fn harness(header: &RawHeader) -> Control {
    let h = &header.host;
    control(
        "the harness",
        Treatment::HeldFixed,
        format!(
            "every run through the same runner and clock (abba {}: spawn, wait4, monotonic clock); abba's own environment {} bytes and arguments {} bytes, the same for every run; {} untimed warm-up run(s) per variant, {} ms settle between runs",
            header.abba_version,
            h.env_bytes,
            h.argv_bytes,
            header.warmup,
            header.settle_ns / 1_000_000
        ),
    )
    .with_brief("harness fixed")
}

fn background_load(header: &RawHeader, load_end: Option<[f64; 3]>) -> Control {
    let h = &header.host;
    let load = |l: Option<[f64; 3]>| l.map_or("n/a".to_string(), |l| format!("{:.2}", l[0]));
    control(
        "background load",
        Treatment::Uncontrolled,
        format!(
            "1-minute load average {} at the start, {} at the end",
            load(h.load_start),
            load(load_end.or(h.load_end))
        ),
    )
    .with_brief("load")
}

/// Run-level warnings: a layout held fixed, and wall time far above CPU time. The time a
/// run waited for a CPU (`run_delay_ns`, when recorded) is not the command's waiting: it
/// is taken out of the wall time first, so a busy machine does not read as a sleeping
/// command (the noise diagnosis speaks of that wait).
pub(crate) fn run_warnings(header: &RawHeader, runs: &Runs) -> Vec<Warning> {
    let mut out = Vec::new();
    if !randomized_layout(header) {
        out.push(
            Warning::new(
                WarningCode::Layout,
                None,
                "memory layout held fixed: a difference may belong to where the code landed, not to the code",
            )
            .with_remedy(Remedy::RandomizeLayout),
        );
    }
    if header.metric == Metric::Wall {
        for v in &header.variants {
            let mut ratios: Vec<f64> = runs
                .iter()
                .filter(|r| r.variant == v.name && !r.is_reference)
                .map(|r| {
                    (
                        r.user_ns + r.sys_ns,
                        r.wall_ns - r.run_delay_ns.unwrap_or(0).min(r.wall_ns),
                    )
                })
                .filter(|&(_, own)| own > 0)
                .map(|(cpu, own)| cpu as f64 / own as f64)
                .collect();
            if ratios.is_empty() {
                continue;
            }
            ratios.sort_by(f64::total_cmp);
            let median = ratios[ratios.len() / 2];
            if median < 0.5 {
                out.push(Warning::new(
                    WarningCode::WallAboveCpu,
                    Some(&v.name),
                    format!(
                        "wall time is {:.1}x the CPU time (user+sys): the command mostly waits (sleep, I/O, other processes), so wall time measures the wait",
                        1.0 / median.max(1e-9)
                    ),
                ));
            }
        }
    }
    out
}

/// Whether the header's layout is randomized per run.
fn randomized_layout(header: &RawHeader) -> bool {
    header.layout == Layout::Random
}
