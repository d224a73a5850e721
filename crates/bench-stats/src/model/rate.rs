//! Units that name a rate: a quantity where more is usually better.

/// Whether `unit` names a rate (`ops/s`, `req/sec`, `MB/s`, `Hz`, `qps`, `x per y`): a
/// quantity where more is usually better, so lower-is-better data in it deserve a second
/// look. Case-insensitive, surrounding spaces ignored. Time: O(length).
///
/// # Examples
/// ```
/// use bench_stats::model::is_rate_unit;
/// assert!(is_rate_unit("ops/s"));
/// assert!(is_rate_unit(" GHz "));
/// assert!(!is_rate_unit("ms"));
/// ```
pub fn is_rate_unit(unit: &str) -> bool {
    let u = unit.trim().to_ascii_lowercase();
    let per = [
        "/s", "/sec", "/second", "/ms", "/min", "/minute", "/h", "/hour",
    ];
    let named = [
        "hz", "khz", "mhz", "ghz", "qps", "rps", "tps", "fps", "iops", "ops", "bps", "kbps",
        "mbps", "gbps",
    ];
    per.iter().any(|p| u.ends_with(p)) || u.contains(" per ") || named.contains(&u.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_by_their_denominator_or_their_name() {
        for unit in [
            "ops/s",
            "req/sec",
            "MB/s",
            "items/second",
            "x/ms",
            "jobs/min",
            "pages/minute",
            "builds/h",
            "runs/hour",
            "rows per query",
            "Hz",
            "kHz",
            "MHz",
            "GHz",
            "qps",
            "RPS",
            "tps",
            "fps",
            "IOPS",
            "ops",
            "bps",
            "kbps",
            "Mbps",
            "Gbps",
        ] {
            assert!(is_rate_unit(unit), "{unit}");
        }
        for unit in [
            "ns",
            "ms",
            "s",
            "bytes",
            "instructions",
            "",
            "hertzian",
            "s/op",
        ] {
            assert!(!is_rate_unit(unit), "{unit}");
        }
    }
}
