//! Holm-Bonferroni step-down adjustment (S. Holm, "A simple sequentially rejective
//! multiple test procedure", *Scandinavian Journal of Statistics* 6 (1979), 65–70).
//!
//! With the `m` available p-values sorted ascending, step `j` (0-based) gets
//! `adj_(j) = max(min((m - j) p_(j), 1), adj_(j-1))`, `adj_(-1) = 0`. Checked against a
//! direct NumPy transcription in `fixtures/scipy/generate.py` (SciPy has no Holm).

/// Holm-Bonferroni adjusted p-values, in the input order.
///
/// `None` entries are comparisons that could not be tested: they are excluded from `m`
/// and stay `None`. A NaN p-value is treated like `None`; values outside `[0, 1]` are
/// clamped into it first. Ties keep their input order, which does not change the result.
///
/// Time: O(m log m).
///
/// # Examples
/// ```
/// let adj = bench_stats::rank::holm_bonferroni(&[Some(0.01), None, Some(0.04), Some(0.03)]);
/// assert_eq!(adj[1], None);
/// let v: Vec<f64> = adj.iter().flatten().copied().collect();
/// // sorted: 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, max(0.04 * 1, 0.06) = 0.06
/// assert!((v[0] - 0.03).abs() < 1e-15 && (v[1] - 0.06).abs() < 1e-15);
/// assert!((v[2] - 0.06).abs() < 1e-15);
/// ```
pub fn holm_bonferroni(p_values: &[Option<f64>]) -> Vec<Option<f64>> {
    let tested = testable_sorted(p_values);
    let m = tested.len();
    let mut out = vec![None; p_values.len()];
    let mut running = 0.0_f64;
    for (j, &(idx, p)) in tested.iter().enumerate() {
        let scaled = ((m - j) as f64 * p).min(1.0);
        running = running.max(scaled);
        out[idx] = Some(running);
    }
    out
}

/// The testable p-values of a family with their input positions, ascending (ties in input
/// order): `None` and NaN left out, the rest clamped into `[0, 1]`. What every step-wise
/// correction (Holm here, Benjamini-Hochberg in [`crate::suite`]) starts from. Time:
/// O(m log m).
pub(crate) fn testable_sorted(p_values: &[Option<f64>]) -> Vec<(usize, f64)> {
    let mut tested: Vec<(usize, f64)> = p_values
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.filter(|v| !v.is_nan()).map(|v| (i, v.clamp(0.0, 1.0))))
        .collect();
    tested.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
    tested
}
