//! Time on the CPU and off it (issue 36): a run's wall time is its CPU time (user +
//! system) plus the time it spent off the CPU, waiting for it (other tenants of a shared
//! machine) or for anything else (sleeps, I/O, other processes). These functions split a
//! wall-time comparison's spread into the two and say whether CPU time can stand for wall
//! time.
//!
//! - [`split_spread`]: the block log-ratios of wall time and of CPU time side by side;
//!   the share of the wall time's variance that time off the CPU adds is
//!   `1 - var(cpu) / var(wall)` (clamped to `[0, 1]`): when the off-CPU part is
//!   independent of the on-CPU part, the variances add.
//! - [`undisturbed_on_cpu`]: CPU time over wall time in a variant's least-disturbed runs
//!   (the 90th percentile of the per-run fractions): a disturbance only lowers the
//!   fraction (the run waits longer), so the top of the distribution is the command's own.
//!   Where the runs recorded the time they waited for a CPU (Linux's `run_delay`), the
//!   caller takes it out of the wall time first: on a machine busy all along no run is
//!   undisturbed.
//! - [`cpu_bound`]: CPU-bound when every variant's undisturbed fraction lies in
//!   [`CPU_BOUND_MIN`]`..=`[`CPU_BOUND_MAX`]: on the CPU for at least 90% of its wall time,
//!   one thread at a time. The bounds were measured on single-threaded compute (0.98-0.99
//!   here, `docs/metrics.md`), a sleeping command (below 0.1) and two busy threads (about
//!   1.9).

use crate::model::noise::{CpuBound, NoiseFinding};

/// The least undisturbed on-CPU fraction of a CPU-bound command.
pub const CPU_BOUND_MIN: f64 = 0.9;
/// The largest undisturbed on-CPU fraction of a CPU-bound command (above: several
/// threads at once).
pub const CPU_BOUND_MAX: f64 = 1.1;
/// The share of the wall-time spread above which time off the CPU dominates it.
pub const OFF_CPU_DOMINATES: f64 = 0.5;

/// The spread of a comparison's block log-ratios on wall time and on CPU time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpreadSplit {
    /// Standard deviation (n - 1) of the wall-time block log-ratios.
    pub wall_sd: f64,
    /// Standard deviation (n - 1) of the CPU-time block log-ratios.
    pub cpu_sd: f64,
    /// `1 - var(cpu) / var(wall)`, clamped to `[0, 1]`; 0 when wall time has no spread.
    pub off_cpu_share: f64,
}

fn variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
}

/// The spread of the block log-ratios `wall` and `cpu` (one per block, the same blocks in
/// the same order). `None` with fewer than 2 blocks, unequal lengths or a non-finite
/// value. Time: O(blocks).
pub fn split_spread(wall: &[f64], cpu: &[f64]) -> Option<SpreadSplit> {
    if wall.len() != cpu.len() || wall.len() < 2 {
        return None;
    }
    if wall.iter().chain(cpu).any(|v| !v.is_finite()) {
        return None;
    }
    let (vw, vc) = (variance(wall), variance(cpu));
    let off_cpu_share = if vw > 0.0 {
        (1.0 - vc / vw).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some(SpreadSplit {
        wall_sd: vw.sqrt(),
        cpu_sd: vc.sqrt(),
        off_cpu_share,
    })
}

/// CPU time over wall time in the least-disturbed runs: the 90th percentile (linear
/// interpolation, R's type 7) of `cpu[i] / wall[i]` over the runs with a positive wall
/// time. `None` without such runs or with unequal lengths. Time: O(n log n).
pub fn undisturbed_on_cpu(cpu: &[f64], wall: &[f64]) -> Option<f64> {
    if cpu.len() != wall.len() {
        return None;
    }
    let mut f: Vec<f64> = cpu
        .iter()
        .zip(wall)
        .filter(|&(c, w)| *w > 0.0 && c.is_finite() && w.is_finite())
        .map(|(c, w)| c / w)
        .collect();
    if f.is_empty() {
        return None;
    }
    f.sort_by(f64::total_cmp);
    let h = 0.9 * (f.len() - 1) as f64;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    Some(f[lo] + (h - lo as f64) * (f[hi] - f[lo]))
}

/// Whether CPU time stands for wall time, from each variant's undisturbed on-CPU
/// fraction: [`CpuBound::Threads`] when any is above [`CPU_BOUND_MAX`],
/// [`CpuBound::OffCpu`] when any is below [`CPU_BOUND_MIN`], else [`CpuBound::Yes`].
pub fn cpu_bound(on_cpu: &[f64]) -> CpuBound {
    if on_cpu.iter().any(|&f| f > CPU_BOUND_MAX) {
        CpuBound::Threads
    } else if on_cpu.iter().any(|&f| f.is_nan() || f < CPU_BOUND_MIN) {
        CpuBound::OffCpu
    } else {
        CpuBound::Yes
    }
}

/// What to say about a comparison: nothing when wall time decided or time off the CPU is
/// less than [`OFF_CPU_DOMINATES`] of its spread; else whether CPU time decides
/// (`cpu_decided`, read only for a CPU-bound command) or is not offered.
pub fn finding(
    off_cpu_share: f64,
    wall_decided: bool,
    bound: CpuBound,
    cpu_decided: bool,
) -> NoiseFinding {
    if wall_decided || off_cpu_share < OFF_CPU_DOMINATES {
        NoiseFinding::WallDecides
    } else if bound != CpuBound::Yes {
        NoiseFinding::NotCpuBound
    } else if cpu_decided {
        NoiseFinding::CpuDecides
    } else {
        NoiseFinding::CpuCannotDecide
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_off_cpu_share_is_the_variance_cpu_time_does_not_have() {
        // wall: var of [0.1, -0.1, 0.3, -0.3] = (0.01+0.01+0.09+0.09)/3 = 0.2/3;
        // cpu: var of [0.05, -0.05, 0.05, -0.05] = 0.01/3; share 1 - 0.01/0.2 = 0.95.
        let s = split_spread(&[0.1, -0.1, 0.3, -0.3], &[0.05, -0.05, 0.05, -0.05]).unwrap();
        assert!((s.off_cpu_share - 0.95).abs() < 1e-12, "{s:?}");
        assert!((s.wall_sd - (0.2f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((s.cpu_sd - (0.01f64 / 3.0).sqrt()).abs() < 1e-12);
        // CPU time noisier than wall time (a multi-threaded command): clamped to 0.
        let s = split_spread(&[0.01, -0.01], &[0.1, -0.1]).unwrap();
        assert_eq!(s.off_cpu_share, 0.0);
        // No spread at all: nothing off the CPU to blame.
        assert_eq!(
            split_spread(&[0.0, 0.0], &[0.0, 0.0])
                .unwrap()
                .off_cpu_share,
            0.0
        );
        assert_eq!(split_spread(&[0.1], &[0.1]), None);
        assert_eq!(split_spread(&[0.1, 0.2], &[0.1]), None);
        assert_eq!(split_spread(&[0.1, f64::NAN], &[0.1, 0.2]), None);
    }

    #[test]
    fn the_undisturbed_fraction_is_the_90th_percentile_of_cpu_over_wall() {
        // Fractions 0.5, 0.6, ..., 1.0 (wall 10, cpu 5..10), h = 0.9 * 5 = 4.5: 0.95.
        let cpu = [5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        let wall = [10.0; 6];
        assert!((undisturbed_on_cpu(&cpu, &wall).unwrap() - 0.95).abs() < 1e-12);
        // A run of zero wall time is left out; none left: None.
        assert_eq!(undisturbed_on_cpu(&[1.0], &[0.0]), None);
        assert_eq!(undisturbed_on_cpu(&[1.0, 2.0], &[1.0]), None);
    }

    #[test]
    fn cpu_bound_means_most_of_the_wall_time_on_one_cpu() {
        assert_eq!(cpu_bound(&[0.99, 0.98]), CpuBound::Yes);
        assert_eq!(cpu_bound(&[0.99, 0.40]), CpuBound::OffCpu);
        assert_eq!(cpu_bound(&[1.9, 0.40]), CpuBound::Threads);
        assert_eq!(cpu_bound(&[f64::NAN]), CpuBound::OffCpu);
    }

    #[test]
    fn the_finding_speaks_only_when_wall_time_fails_for_time_off_the_cpu() {
        use NoiseFinding::*;
        assert_eq!(finding(0.9, true, CpuBound::Yes, true), WallDecides);
        assert_eq!(finding(0.4, false, CpuBound::Yes, true), WallDecides);
        assert_eq!(finding(0.9, false, CpuBound::Yes, true), CpuDecides);
        assert_eq!(finding(0.9, false, CpuBound::Yes, false), CpuCannotDecide);
        assert_eq!(finding(0.9, false, CpuBound::OffCpu, true), NotCpuBound);
        assert_eq!(finding(0.9, false, CpuBound::Threads, true), NotCpuBound);
    }
}
