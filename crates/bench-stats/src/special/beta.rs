//! The regularized incomplete beta function and Student's t distribution: the p-value of
//! Welch's t-test ([`crate::parametric::welch_t_test`]), the t intervals of the hierarchy
//! ([`crate::hierarchy`]) and the Beta weights of the Harrell-Davis quantiles. The crate's
//! only implementation of each.
//!
//! `I_x(a, b)` is evaluated by its continued fraction (modified Lentz; Numerical Recipes,
//! 3rd ed., §6.4; DLMF 8.17.22), directly where it converges fast
//! (`x < (a + 1) / (a + b + 2)`) and as `1 - I_{1-x}(b, a)` elsewhere, so a small tail is
//! never formed by cancellation. Checked against `scipy.special.betainc` and
//! `scipy.stats.t.sf` through `fixtures/scipy/welch.json`, and the t quantiles and CDF
//! against `scipy.stats.t` through `fixtures/hierarchy/`.

use super::{ln_gamma, normal_ppf};

const BETA_EPS: f64 = 1e-16;
const BETA_MAX_ITER: usize = 10_000;
const TINY: f64 = 1e-300;

/// The continued fraction of `I_x(a, b)` without its prefactor (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..BETA_MAX_ITER {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even step.
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        h *= d * c;
        // Odd step.
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < BETA_EPS {
            break;
        }
    }
    h
}

/// Regularized incomplete beta function `I_x(a, b)` for `a, b > 0` and `0 <= x <= 1`
/// (`scipy.special.betainc(a, b, x)`): about 1e-14 relative on the fixture's cases.
/// Returns `None` outside that domain or for NaN.
///
/// Time: O(sqrt(max(a, b))) iterations, bounded by 10 000.
///
/// # Examples
/// ```
/// // I_x(1, 1) is the uniform distribution function.
/// let v = bench_stats::special::regularized_beta(1.0, 1.0, 0.3).unwrap();
/// assert!((v - 0.3).abs() < 1e-15);
/// ```
pub fn regularized_beta(a: f64, b: f64, x: f64) -> Option<f64> {
    if !(a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite() && (0.0..=1.0).contains(&x)) {
        return None;
    }
    if x == 0.0 || x == 1.0 {
        return Some(x);
    }
    let ln_front = ln_gamma(a + b)? - ln_gamma(a)? - ln_gamma(b)? + a * x.ln() + b * (-x).ln_1p();
    let v = if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(b, a, 1.0 - x) / b
    };
    Some(v.clamp(0.0, 1.0))
}

/// Survival function `P(T >= t)` of Student's t with `df > 0` degrees of freedom (real,
/// as the Welch-Satterthwaite approximation gives): `I_{df/(df+t²)}(df/2, 1/2) / 2` for
/// `t >= 0`, one minus that for `t < 0`. Returns `None` for `df <= 0` or NaN.
///
/// Time: as [`regularized_beta`].
///
/// # Examples
/// ```
/// // With one degree of freedom t is Cauchy: P(T >= 1) = 1/4.
/// let p = bench_stats::special::student_t_sf(1.0, 1.0).unwrap();
/// assert!((p - 0.25).abs() < 1e-14);
/// ```
pub fn student_t_sf(t: f64, df: f64) -> Option<f64> {
    if df.is_nan() || df <= 0.0 || t.is_nan() {
        return None;
    }
    if t.is_infinite() {
        return Some(if t > 0.0 { 0.0 } else { 1.0 });
    }
    // For huge df the beta argument rounds to 1; the normal tail is exact to f64 there.
    if df > 1e10 {
        return Some(super::normal_sf(t));
    }
    let x = df / (df + t * t);
    let half_tail = 0.5 * regularized_beta(df / 2.0, 0.5, x)?;
    Some(if t >= 0.0 { half_tail } else { 1.0 - half_tail })
}

/// Distribution function `P(T <= t)` of Student's t with `df > 0` degrees of freedom:
/// [`student_t_sf`] of `-t`. Returns `None` for `df <= 0` or NaN.
///
/// # Examples
/// ```
/// let p = bench_stats::special::student_t_cdf(0.0, 5.0).unwrap();
/// assert_eq!(p, 0.5);
/// ```
pub fn student_t_cdf(t: f64, df: f64) -> Option<f64> {
    student_t_sf(-t, df)
}

/// The `p` quantile of Student's t with `df > 0` degrees of freedom, `p` in `(0, 1)`
/// (`scipy.stats.t.ppf`): closed forms for 1 and 2 degrees of freedom, bisection on
/// [`student_t_cdf`] otherwise (to about 1e-12 relative). `None` outside that domain.
/// Time: O(60 CDF evaluations).
///
/// # Examples
/// ```
/// let q = bench_stats::special::student_t_ppf(0.975, 1.0).unwrap();
/// assert!((q - 12.706_204_736_174_7).abs() < 1e-9);
/// ```
pub fn student_t_ppf(p: f64, df: f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0 && df > 0.0) {
        return None;
    }
    if df == 1.0 {
        return Some((std::f64::consts::PI * (p - 0.5)).tan());
    }
    if df == 2.0 {
        return Some((2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt());
    }
    if p < 0.5 {
        return student_t_ppf(1.0 - p, df).map(|q| -q);
    }
    // The t quantile lies above the normal one; double an upper bound until it holds.
    let mut lo = normal_ppf(p)?.max(0.0);
    let mut hi = (lo * 2.0).max(1.0);
    while student_t_cdf(hi, df)? < p {
        lo = hi;
        hi *= 2.0;
        if hi > 1e12 {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_cdf(mid, df)? < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi {
            break;
        }
    }
    Some(0.5 * (lo + hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantile_closed_forms_and_symmetry() {
        assert!((student_t_ppf(0.975, 2.0).unwrap() - 4.302_652_729_749_464).abs() < 1e-9);
        let q = student_t_ppf(0.9, 7.0).unwrap();
        assert!((student_t_ppf(0.1, 7.0).unwrap() + q).abs() < 1e-12);
        assert!((student_t_cdf(q, 7.0).unwrap() - 0.9).abs() < 1e-12);
        assert_eq!(student_t_ppf(1.0, 3.0), None);
        assert_eq!(student_t_ppf(0.5, 0.0), None);
    }

    #[test]
    fn domain_is_checked() {
        assert_eq!(regularized_beta(0.0, 1.0, 0.5), None);
        assert_eq!(regularized_beta(1.0, 1.0, 1.5), None);
        assert_eq!(regularized_beta(1.0, 1.0, f64::NAN), None);
        assert_eq!(regularized_beta(2.0, 3.0, 0.0), Some(0.0));
        assert_eq!(regularized_beta(2.0, 3.0, 1.0), Some(1.0));
        assert_eq!(student_t_sf(1.0, 0.0), None);
        assert_eq!(student_t_sf(f64::NAN, 3.0), None);
        assert_eq!(student_t_sf(f64::INFINITY, 3.0), Some(0.0));
    }

    #[test]
    fn closed_forms() {
        // I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b.
        let v = regularized_beta(3.5, 1.0, 0.6).unwrap();
        assert!((v - 0.6f64.powf(3.5)).abs() < 1e-14, "{v}");
        let v = regularized_beta(1.0, 2.5, 0.2).unwrap();
        assert!((v - (1.0 - 0.8f64.powf(2.5))).abs() < 1e-14, "{v}");
        // df = 2: P(T >= t) = (1 - t / sqrt(2 + t²)) / 2.
        for t in [-3.0, -0.5, 0.0, 0.7, 4.0] {
            let want = 0.5 * (1.0 - t / (2.0f64 + t * t).sqrt());
            let got = student_t_sf(t, 2.0).unwrap();
            assert!((got - want).abs() < 1e-14, "t = {t}: {got} vs {want}");
        }
    }
}
