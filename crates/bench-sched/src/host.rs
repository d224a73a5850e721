//! Facts about the machine that belong in the raw file's header.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// What the host looked like when the experiment started (and the load when it ended).
///
/// Every field that cannot be read is `None` rather than a guess.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct HostFacts {
    /// `model name` from `/proc/cpuinfo`.
    pub cpu_model: Option<String>,
    /// Logical CPUs (`std::thread::available_parallelism`).
    pub cores: Option<usize>,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    pub kernel: Option<String>,
    /// cpufreq governor of CPU 0.
    pub governor: Option<String>,
    /// `on`/`off`, from `intel_pstate/no_turbo` or `cpufreq/boost`.
    pub turbo: Option<String>,
    /// `/proc/sys/kernel/randomize_va_space` (0 off, 2 full).
    pub aslr: Option<u8>,
    /// 1, 5 and 15 minute load averages at the start.
    pub load_start: Option<[f64; 3]>,
    /// Load averages at the end: `None` when the header is written; the end's are recorded
    /// in the trailer line ([`crate::Experiment::load_end`]).
    pub load_end: Option<[f64; 3]>,
    /// Size of abba's own environment in bytes (`KEY=VALUE\0` each).
    pub env_bytes: usize,
    /// Size of abba's own argument vector in bytes (`arg\0` each).
    pub argv_bytes: usize,
    /// Start time, RFC 3339 UTC (`2026-01-31T12:00:00Z`).
    pub start_time: String,
    /// The machine's name (`abba compare --host`, else `/proc/sys/kernel/hostname`, else
    /// `$HOSTNAME`): the host level of a multi-host analysis. Absent when unknown, and in
    /// files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The three load averages from `/proc/loadavg`.
pub fn load_average() -> Option<[f64; 3]> {
    let text = read_trim("/proc/loadavg")?;
    let mut it = text
        .split_whitespace()
        .map(|w| w.parse::<f64>().ok().filter(|x| x.is_finite()));
    Some([it.next()??, it.next()??, it.next()??])
}

impl HostFacts {
    /// Reads the facts of this machine now. Cost: a handful of small file reads.
    pub fn collect() -> HostFacts {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        });
        let turbo = match read_trim("/sys/devices/system/cpu/intel_pstate/no_turbo") {
            Some(v) => Some(if v == "1" { "off" } else { "on" }.to_owned()),
            None => read_trim("/sys/devices/system/cpu/cpufreq/boost")
                .map(|v| if v == "1" { "on" } else { "off" }.to_owned()),
        };
        let env_bytes = std::env::vars_os()
            .map(|(k, v)| k.len() + v.len() + 2)
            .sum();
        let argv_bytes = std::env::args_os().map(|a| a.len() + 1).sum();
        HostFacts {
            cpu_model,
            cores: std::thread::available_parallelism().ok().map(|n| n.get()),
            kernel: read_trim("/proc/sys/kernel/osrelease"),
            governor: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            turbo,
            aslr: read_trim("/proc/sys/kernel/randomize_va_space").and_then(|v| v.parse().ok()),
            load_start: load_average(),
            load_end: None,
            env_bytes,
            argv_bytes,
            start_time: rfc3339_utc(SystemTime::now()),
            hostname: crate::raw::this_host_name(),
        }
    }
}

/// Formats a time as RFC 3339 UTC with second precision, e.g. `1970-01-01T00:00:00Z`.
///
/// Uses Howard Hinnant's `civil_from_days` algorithm; times before 1970 print as 1970.
pub fn rfc3339_utc(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_known_instants() {
        let at = |s: u64| rfc3339_utc(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(at(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    /// The facts come from `/proc`: off Linux this test does not exist.
    #[cfg(target_os = "linux")]
    #[test]
    fn collect_reads_this_linux_host() {
        let h = HostFacts::collect();
        assert!(h.cores.is_some_and(|c| c >= 1));
        assert!(h.kernel.is_some());
        assert!(h.env_bytes > 0);
        assert_eq!(h.start_time.len(), 20);
    }
}
