//! Scales (data to pixels, linear or logarithmic) and tick positions.

/// A map from data values to pixels along one axis.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    /// Data value at `pixel_lo`.
    pub lo: f64,
    /// Data value at `pixel_hi`.
    pub hi: f64,
    /// Pixel of `lo`.
    pub pixel_lo: f64,
    /// Pixel of `hi`.
    pub pixel_hi: f64,
    /// Logarithmic: values are placed by their natural logarithm.
    pub log: bool,
}

impl Scale {
    /// A linear scale over `[lo, hi]` (widened when empty).
    pub fn linear(lo: f64, hi: f64, pixel_lo: f64, pixel_hi: f64) -> Scale {
        let (lo, hi) = widen(lo, hi, false);
        Scale {
            lo,
            hi,
            pixel_lo,
            pixel_hi,
            log: false,
        }
    }

    /// A scale for counted positions `1..=n` (runs, blocks, looks): half a step of room
    /// beyond the first and the last, and [`COUNT_INSET`] px inside the pixel range, so
    /// no marker sits on the frame and a single position is centred.
    pub fn counts(n: usize, pixel_lo: f64, pixel_hi: f64) -> Scale {
        let inset = COUNT_INSET.copysign(pixel_hi - pixel_lo);
        Scale::linear(
            0.5,
            n.max(1) as f64 + 0.5,
            pixel_lo + inset,
            pixel_hi - inset,
        )
    }

    /// A logarithmic scale over `[lo, hi]`, both positive (widened when empty).
    pub fn log(lo: f64, hi: f64, pixel_lo: f64, pixel_hi: f64) -> Scale {
        let (lo, hi) = widen(lo, hi, true);
        Scale {
            lo,
            hi,
            pixel_lo,
            pixel_hi,
            log: true,
        }
    }

    fn t(&self, v: f64) -> f64 {
        if self.log {
            v.max(f64::MIN_POSITIVE).ln()
        } else {
            v
        }
    }

    /// The pixel of `v` (values outside the range land outside the pixel range).
    pub fn px(&self, v: f64) -> f64 {
        let (a, b) = (self.t(self.lo), self.t(self.hi));
        self.pixel_lo + (self.t(v) - a) / (b - a) * (self.pixel_hi - self.pixel_lo)
    }

    /// The pixel of `v`, held inside the pixel range.
    pub fn px_clamped(&self, v: f64) -> f64 {
        let (a, b) = if self.pixel_lo <= self.pixel_hi {
            (self.pixel_lo, self.pixel_hi)
        } else {
            (self.pixel_hi, self.pixel_lo)
        };
        self.px(v).clamp(a, b)
    }

    /// Tick values inside the range: about `count` round numbers (for a log scale,
    /// round numbers too, which read better than powers of ten over a narrow range).
    pub fn ticks(&self, count: usize) -> Vec<f64> {
        linear_ticks(self.lo, self.hi, count)
    }
}

/// Pixels between the frame and the outermost counted position ([`Scale::counts`]).
pub const COUNT_INSET: f64 = 6.0;

/// Widens an empty or reversed range so a scale over it is defined.
fn widen(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        (lo.min(hi), lo.max(hi))
    } else {
        (0.0, 1.0)
    };
    if hi > lo {
        return (lo, hi);
    }
    if log {
        let base = if lo > 0.0 { lo } else { 1.0 };
        (base / 1.01, base * 1.01)
    } else {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.01 };
        (lo - pad, hi + pad)
    }
}

/// Round tick values (1, 2, 5 times a power of ten) inside `[lo, hi]`.
pub fn linear_ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let span = hi - lo;
    if span.is_nan() || span <= 0.0 || !span.is_finite() {
        return vec![lo];
    }
    let raw = span / count.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| span / s <= count.max(1) as f64 + 0.5)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A tick label: as few decimals as the step needs.
pub fn tick_label(v: f64, ticks: &[f64]) -> String {
    let step = ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(f64::INFINITY, f64::min);
    let decimals = if step.is_finite() && step > 0.0 {
        (-step.log10().floor()).clamp(0.0, 6.0) as usize
    } else {
        3
    };
    let decimals = if (step * 10f64.powi(decimals as i32)).fract().abs() > 1e-6 {
        decimals + 1
    } else {
        decimals
    };
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(
            linear_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        let t = linear_ticks(0.93, 1.07, 5);
        assert!(t.iter().all(|v| (0.93..=1.07).contains(v)));
        assert!(t.len() >= 3);
        assert_eq!(tick_label(0.95, &[0.95, 1.0, 1.05]), "0.95");
        assert_eq!(tick_label(2.5, &[0.0, 2.5, 5.0]), "2.5");
    }

    #[test]
    fn log_scale_puts_reciprocals_symmetrically() {
        let s = Scale::log(0.5, 2.0, 0.0, 100.0);
        assert!((s.px(1.0) - 50.0).abs() < 1e-9);
        let flat = Scale::linear(3.0, 3.0, 0.0, 10.0);
        assert!(flat.hi > flat.lo);
        assert!((flat.px(3.0) - 5.0).abs() < 1e-9, "a lone value is centred");
    }

    #[test]
    fn counted_positions_stay_off_the_frame_and_one_is_centred() {
        let one = Scale::counts(1, 100.0, 300.0);
        assert!((one.px(1.0) - 200.0).abs() < 1e-9);
        for n in [2, 7, 1500] {
            let s = Scale::counts(n, 100.0, 300.0);
            assert!(s.px(1.0) >= 100.0 + COUNT_INSET, "{n}");
            assert!(s.px(n as f64) <= 300.0 - COUNT_INSET, "{n}");
            assert!((s.px(1.0) - 100.0 - (300.0 - s.px(n as f64))).abs() < 1e-9);
        }
        // Downward pixel ranges (a y axis) inset the same way.
        let down = Scale::counts(3, 300.0, 100.0);
        assert!(down.px(1.0) < 300.0 - COUNT_INSET + 1e-9 && down.px(3.0) > 100.0);
    }
}
