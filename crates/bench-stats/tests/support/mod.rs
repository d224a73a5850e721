//! The one tolerance module every known-answer test uses.
#![allow(dead_code)]

/// Relative tolerance for exact algorithms compared with SciPy (same arithmetic, different
/// summation order).
pub const EXACT_REL: f64 = 1e-9;
/// Relative tolerance for asymptotic p-values deep in the tails, where SciPy's own special
/// functions differ from ours in the last digits.
pub const TAIL_REL: f64 = 1e-6;

/// `true` when `a` and `b` agree to relative tolerance `rel` (absolute `rel` near zero).
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    if a == b {
        return true;
    }
    let scale = a.abs().max(b.abs());
    (a - b).abs() <= rel * scale.max(f64::MIN_POSITIVE) || (a - b).abs() <= rel * 1e-300
}

/// Panics with a readable message when `actual` is not within `rel` of `expected`.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, rel: f64, what: &str) {
    assert!(
        close(actual, expected, rel),
        "{what}: got {actual:e}, expected {expected:e} (rel tol {rel:e}, rel err {:e})",
        ((actual - expected) / expected).abs()
    );
}
