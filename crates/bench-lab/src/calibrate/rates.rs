//! Rates with their Wilson intervals, quantiles, and how the tables print them.

/// The standard normal quantile of 0.975 (two-sided 95 % intervals).
pub(super) const Z95: f64 = 1.959_963_984_540_054;

/// A proportion with its Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rate {
    pub(super) hits: u32,
    pub(super) n: u32,
    pub(super) low: f64,
    pub(super) high: f64,
}

/// Wilson's score interval for `hits` successes in `n` trials at normal quantile `z`
/// (Wilson 1927; the interval R's `prop.test(correct = FALSE)` reports). `None` when
/// `n == 0` or `hits > n`. Time: O(1).
pub(super) fn wilson(hits: u32, n: u32, z: f64) -> Option<Rate> {
    if n == 0 || hits > n {
        return None;
    }
    let nf = f64::from(n);
    let p = f64::from(hits) / nf;
    let z2 = z * z;
    let denom = 1.0 + z2 / nf;
    let centre = (p + z2 / (2.0 * nf)) / denom;
    let half = z / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    Some(Rate {
        hits,
        n,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    })
}

/// Linear-interpolation quantile (Hyndman–Fan type 7, R's default) of sorted finite
/// values; `None` when empty. Time: O(1).
pub(super) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = q.clamp(0.0, 1.0) * last as f64;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(last);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

pub(super) fn sorted_finite(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

pub(super) fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

pub(super) fn rate_text(rate: Option<Rate>) -> String {
    match rate {
        Some(r) => format!(
            "{}/{} = {} [{}, {}]",
            r.hits,
            r.n,
            pct(f64::from(r.hits) / f64::from(r.n)),
            pct(r.low),
            pct(r.high)
        ),
        None => "-".to_owned(),
    }
}
