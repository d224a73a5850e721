//! `abba plan`'s library: the pilot's centring, the range of the blocks needed from
//! resampling the pilot, the short-pilot warning, and the expected stops.

use bench_stats::plan::{
    BlocksRange, PlanRequest, RANGE_QUANTILES, WIDE_RANGE_FACTOR, blocks_needed,
    blocks_needed_range, centred_noise, expected_stop, pilot_centre, pilot_warning, plan, power,
};
use bench_stats::sequential::SequentialRule;

/// A right-skewed pilot of `n` block log-ratios: exponential quantiles of scale 1% (most
/// blocks near 0, a tail of slow candidate blocks; mean 1%, median 0.69%, pseudo-median
/// 0.84%), on a grid of probabilities, so the pilot itself holds no randomness.
fn skewed_pilot(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| -0.01 * (1.0 - (i as f64 + 0.5) / n as f64).ln())
        .collect()
}

/// A symmetric pilot of `n` blocks: Laplace quantiles of scale `scale`.
fn symmetric_pilot(n: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let u = (i as f64 + 0.5) / n as f64;
            if u < 0.5 {
                scale * (2.0 * u).ln()
            } else {
                -scale * (2.0 * (1.0 - u)).ln()
            }
        })
        .collect()
}

/// The plan's former centring: the values less their median.
fn median_centred(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let m = if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    };
    s.iter().map(|x| x - m).collect()
}

/// The resampled "no change" of a skewed pilot rejects at the test's own size when the
/// pilot is centred on its pseudo-median, and well above it when centred on its median
/// (the plan's former centring, which promised power against the pilot's skew). The
/// size is the rejection rate of a symmetric pilot of 2000 blocks, drawn the same way;
/// 20,000 experiments per rate (Monte Carlo SE 0.0015; of a difference of two, 0.0022).
#[test]
fn hl_centring_holds_the_resampled_no_change_at_alpha() {
    let reps = 20_000;
    let se_diff = 2.0f64.sqrt() * (0.05f64 * 0.95 / f64::from(reps)).sqrt();
    let symmetric = symmetric_pilot(2000, 0.01);
    let pilot = skewed_pilot(30);
    assert!(
        (pilot_centre(&pilot) - 0.00837).abs() < 5e-5,
        "{}",
        pilot_centre(&pilot)
    );
    for n in [10, 20] {
        let size = power(&symmetric, n, 1.0, 0.05, reps, 3);
        let hl = power(&centred_noise(&pilot), n, 1.0, 0.05, reps, 3);
        let median = power(&median_centred(&pilot), n, 1.0, 0.05, reps, 3);
        println!("{n} blocks: size {size:.4}, HL-centred {hl:.4}, median-centred {median:.4}");
        assert!(
            (hl - size).abs() < 3.0 * se_diff,
            "{n}: {hl} against {size}"
        );
        assert!(
            median - size > 5.0 * se_diff,
            "{n}: {median} against {size}"
        );
    }
}

/// The range brackets the point plan, is the same on every call (seeded), and narrows as
/// the pilot grows: 200 blocks of the same noise give a relatively narrower range than 20.
#[test]
fn the_range_brackets_the_point_and_narrows_with_the_pilot() {
    let req = PlanRequest {
        effect: 0.01,
        ..PlanRequest::default()
    };
    let mut spreads = Vec::new();
    for n in [20, 200] {
        let pilot = symmetric_pilot(n, 0.01);
        let point = blocks_needed(&pilot, &req).unwrap();
        let range = blocks_needed_range(&pilot, point, &req).unwrap();
        assert_eq!(Some(range), blocks_needed_range(&pilot, point, &req));
        assert_eq!(range.quantiles, RANGE_QUANTILES);
        assert_eq!((range.resamples, range.reps), (200, 200));
        let high = range.high.unwrap();
        println!(
            "{n}-block pilot: {point} blocks, range {}-{high}",
            range.low
        );
        assert!(
            range.low <= point && point <= high,
            "{n}: {range:?} {point}"
        );
        spreads.push(high as f64 / range.low as f64);
    }
    assert!(spreads[1] < spreads[0], "{spreads:?}");
    // No resamples, no range.
    let none = PlanRequest {
        resamples: 0,
        ..req
    };
    assert_eq!(
        blocks_needed_range(&symmetric_pilot(20, 0.01), 30, &none),
        None
    );
}

/// The warning's rule: an upper end above 1.5x the point warns, and advises a pilot that
/// shrinks the range's relative width (as `1 / sqrt(blocks)`) to 1.5x.
#[test]
fn a_wide_range_warns_with_the_pilot_it_would_take() {
    let range = |high| BlocksRange {
        low: 8,
        high,
        quantiles: RANGE_QUANTILES,
        beyond_max: 0.0,
        resamples: 200,
        reps: 200,
    };
    assert_eq!(pilot_warning(30, 10, &range(Some(15)), 200), None);
    let w = pilot_warning(30, 10, &range(Some(20)), 200).unwrap();
    // 30 * ((2.0 - 1) / (1.5 - 1))^2 = 120.
    assert_eq!((w.spread, w.pilot_blocks_advised), (Some(2.0), 120));
    let w = pilot_warning(30, 100, &range(None), 200).unwrap();
    // Beyond the limit: at least 30 * ((200/100 - 1) / 0.5)^2 = 120.
    assert_eq!((w.spread, w.pilot_blocks_advised), (None, 120));

    // Through the whole plan: the warning is set exactly when its range says so.
    for n in [12, 200] {
        let r = plan(
            &symmetric_pilot(n, 0.01),
            None,
            &PlanRequest {
                effect: 0.01,
                ..PlanRequest::default()
            },
        );
        let point = r.blocks_needed.unwrap();
        let range = r.blocks_needed_range.unwrap();
        let wide = range
            .high
            .is_none_or(|h| h as f64 > WIDE_RANGE_FACTOR * point as f64);
        assert_eq!(r.pilot_warning.is_some(), wide, "{n}: {range:?} {point}");
        assert_eq!(r.centre, pilot_centre(&symmetric_pilot(n, 0.01)));
    }
}

/// The identical "the margin" and "2x margin" lines of a 10-block pilot are what the sign
/// sequence does with it, not a slip: the sequence reads only signs, so when no pilot
/// value lies between `-ln(1.02)` and `-ln(1.01)` every resampled block has the same sign
/// at both ratios, and the stops are the same. A pilot value between them tells the two
/// ratios apart.
#[test]
fn stops_coincide_when_no_pilot_block_lies_between_the_ratios() {
    let rule = SequentialRule::new(0.05, 0.01);
    let gap = [
        -0.035, -0.021, -0.006, -0.004, -0.002, 0.002, 0.004, 0.007, 0.012, 0.016,
    ];
    let at = |noise: &[f64], ratio: f64| expected_stop(noise, ratio, &rule, 400, 1);
    let (one, two) = (at(&gap, 1.01), at(&gap, 1.02));
    assert_eq!(
        (one.median_blocks, one.mean_blocks),
        (two.median_blocks, two.mean_blocks)
    );
    // Only an EQUIVALENT stop, which reads values, not signs, can tell them apart.
    assert!((one.changed - two.changed).abs() <= 0.01, "{one:?} {two:?}");
    assert!(one.same_stops(&two));
    let mut between = gap;
    between[1] = -0.015;
    let (one, two) = (at(&between, 1.01), at(&between, 1.02));
    assert!(two.mean_blocks < one.mean_blocks, "{one:?} {two:?}");
    assert!(!one.same_stops(&two));
}
