//! TEMPORARY stand-in for `bench_stats::history` (being written in parallel); deleted
//! when it lands. Same signatures.
#![allow(dead_code)]

/// Options of [`e_divisive`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePointConfig {
    pub min_segment: usize,
    pub alpha: f64,
    pub permutations: usize,
    pub seed: u64,
}

impl Default for ChangePointConfig {
    fn default() -> Self {
        ChangePointConfig {
            min_segment: 5,
            alpha: 0.01,
            permutations: 199,
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    pub index: usize,
    pub p_value: f64,
    pub before: f64,
    pub after: f64,
    pub ratio: f64,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn best_split(x: &[f64], min: usize) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 * min {
        return None;
    }
    let mut best: Option<(usize, f64)> = None;
    for t in min..=n - min {
        let (a, b) = x.split_at(t);
        let mut between = 0.0;
        for p in a {
            for q in b {
                between += (p - q).abs();
            }
        }
        between /= (a.len() * b.len()) as f64;
        let within = |s: &[f64]| {
            let mut w = 0.0;
            for i in 0..s.len() {
                for j in 0..i {
                    w += (s[i] - s[j]).abs();
                }
            }
            w / ((s.len() * s.len()) as f64 / 2.0).max(1.0)
        };
        let e = (a.len() * b.len()) as f64 / n as f64 * (2.0 * between - within(a) - within(b));
        if best.is_none_or(|(_, v)| e > v) {
            best = Some((t, e));
        }
    }
    best
}

pub fn e_divisive(series: &[f64], config: &ChangePointConfig) -> Vec<ChangePoint> {
    let mut state = config.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut cuts = vec![0, series.len()];
    let mut found = Vec::new();
    loop {
        let mut best: Option<(usize, f64, usize, usize)> = None;
        for w in cuts.windows(2) {
            if let Some((t, e)) = best_split(&series[w[0]..w[1]], config.min_segment.max(1)) {
                if best.is_none_or(|b| e > b.1) {
                    best = Some((w[0] + t, e, w[0], w[1]));
                }
            }
        }
        let Some((at, e, lo, hi)) = best else { break };
        let mut seg = series[lo..hi].to_vec();
        let mut above = 0usize;
        for _ in 0..config.permutations {
            for i in (1..seg.len()).rev() {
                let j = (rand() % (i as u64 + 1)) as usize;
                seg.swap(i, j);
            }
            if best_split(&seg, config.min_segment.max(1)).is_some_and(|(_, v)| v >= e) {
                above += 1;
            }
        }
        let p = (above + 1) as f64 / (config.permutations + 1) as f64;
        if p > config.alpha {
            break;
        }
        let before = median(&series[lo..at]);
        let after = median(&series[at..hi]);
        found.push(ChangePoint {
            index: at,
            p_value: p,
            before,
            after,
            ratio: after / before,
        });
        cuts.push(at);
        cuts.sort_unstable();
    }
    found.sort_by_key(|c| c.index);
    found
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub log_ratio: f64,
    pub std_error: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub ratio: f64,
    pub interval: [f64; 2],
    pub largest_steps: Vec<usize>,
}

pub fn chain(steps: &[Step], confidence: f64) -> Option<Chain> {
    if steps.is_empty() {
        return None;
    }
    let sum: f64 = steps.iter().map(|s| s.log_ratio).sum();
    let var: f64 = steps.iter().map(|s| s.std_error * s.std_error).sum();
    let z = bench_stats::special::normal_ppf(0.5 + confidence / 2.0)?;
    let half = z * var.sqrt();
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by(|&a, &b| {
        steps[b]
            .log_ratio
            .abs()
            .total_cmp(&steps[a].log_ratio.abs())
    });
    order.truncate(3);
    Some(Chain {
        ratio: sum.exp(),
        interval: [(sum - half).exp(), (sum + half).exp()],
        largest_steps: order,
    })
}
