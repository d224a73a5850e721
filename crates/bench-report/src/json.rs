//! The `abba.analysis/1` JSON export.
//!
//! serde_json writes a NaN or infinite `f64` as `null` without complaint, which would
//! turn a bug upstream into a silent "could not be computed". The model keeps every
//! value that may be missing in an `Option`, so a non-finite number anywhere is a bug:
//! [`render_json`] walks the analysis first and refuses to export it.

use bench_stats::Analysis;
use bench_stats::model::ShiftReport;

use crate::error::ExportError;

/// Serializes the analysis as pretty-printed `abba.analysis/1` JSON (field names as
/// the public contract fixes them; absent values are `null`). Time: O(size of the
/// analysis).
///
/// # Errors
///
/// [`ExportError::NonFinite`] naming the first field that holds a NaN or infinity
/// (including inside `Some`), and [`ExportError::Serialize`] if serde_json fails.
pub fn render_json(analysis: &Analysis) -> Result<String, ExportError> {
    check_finite(analysis)?;
    let mut text = serde_json::to_string_pretty(analysis).map_err(ExportError::Serialize)?;
    text.push('\n');
    Ok(text)
}

/// Collects the path of the first non-finite number.
struct Finder {
    bad: Option<String>,
}

impl Finder {
    fn num(&mut self, path: impl FnOnce() -> String, v: f64) {
        if self.bad.is_none() && !v.is_finite() {
            self.bad = Some(path());
        }
    }
    fn opt(&mut self, path: impl FnOnce() -> String, v: Option<f64>) {
        if let Some(v) = v {
            self.num(path, v);
        }
    }
    fn pair(&mut self, path: impl Fn() -> String, v: Option<[f64; 2]>) {
        if let Some([lo, hi]) = v {
            self.num(|| format!("{}[0]", path()), lo);
            self.num(|| format!("{}[1]", path()), hi);
        }
    }
    fn shift(&mut self, path: &str, s: Option<&ShiftReport>) {
        if let Some(s) = s {
            self.num(|| format!("{path}.shift"), s.shift);
            self.opt(|| format!("{path}.ci_low"), s.ci_low);
            self.opt(|| format!("{path}.ci_high"), s.ci_high);
        }
    }
}

impl Finder {
    /// Checks every float of comparison `c`, at path `p`.
    fn comparison(&mut self, p: &str, c: &bench_stats::Comparison) {
        self.opt(|| format!("{p}.ratio"), c.ratio);
        self.pair(|| format!("{p}.ratio_ci"), c.ratio_ci);
        if let Some(m) = &c.mann_whitney {
            self.num(|| format!("{p}.mann_whitney.u"), m.u);
            self.num(|| format!("{p}.mann_whitney.p_value"), m.p_value);
        }
        self.opt(|| format!("{p}.p_value_adjusted"), c.p_value_adjusted);
        if let Some(d) = &c.cliffs_delta {
            self.num(|| format!("{p}.cliffs_delta.value"), d.delta);
        }
        self.shift(&format!("{p}.hodges_lehmann"), c.hodges_lehmann.as_ref());
        if let Some(pr) = &c.paired {
            let q = format!("{p}.paired");
            self.num(|| format!("{q}.mean_difference"), pr.mean_difference);
            self.pair(|| format!("{q}.difference_ci"), pr.difference_ci);
            self.opt(|| format!("{q}.ratio"), pr.ratio);
            self.pair(|| format!("{q}.ratio_ci"), pr.ratio_ci);
            self.opt(|| format!("{q}.cohens_dz"), pr.cohens_dz);
            self.opt(|| format!("{q}.wilcoxon_p"), pr.wilcoxon_p);
            self.opt(|| format!("{q}.median_ratio"), pr.median_ratio);
            self.pair(|| format!("{q}.median_ratio_ci"), pr.median_ratio_ci);
            self.shift(&format!("{q}.hodges_lehmann"), pr.hodges_lehmann.as_ref());
            for (k, pair) in pr.block_values.iter().enumerate() {
                self.pair(|| format!("{q}.block_values[{k}]"), Some(*pair));
            }
            if let Some(v) = &pr.variance_components {
                let r = format!("{q}.variance_components");
                self.num(|| format!("{r}.between_block"), v.between_block);
                self.num(|| format!("{r}.within_block"), v.within_block);
                self.opt(|| format!("{r}.pairing_gain"), v.pairing_gain);
            }
        }
        if let Some(k) = &c.carryover {
            let q = format!("{p}.carryover");
            let means = [
                ("baseline", &k.baseline_position_means),
                ("candidate", &k.candidate_position_means),
            ];
            for (side, values) in means {
                for (i, v) in values.iter().flatten().enumerate() {
                    self.opt(|| format!("{q}.{side}_position_means[{i}]"), *v);
                }
            }
            self.opt(|| format!("{q}.position_effect"), k.position_effect);
            self.opt(|| format!("{q}.position_p"), k.position_p);
            self.opt(|| format!("{q}.differential"), k.differential);
            self.opt(|| format!("{q}.version_bias"), k.version_bias);
            self.opt(|| format!("{q}.differential_p"), k.differential_p);
        }
        if let Some(r) = &c.reference {
            let q = format!("{p}.reference");
            self.num(|| format!("{q}.ratio_of_ratios"), r.ratio_of_ratios);
            self.pair(|| format!("{q}.ci"), r.ci);
            self.opt(|| format!("{q}.reference_cv"), r.reference_cv);
            for (k, v) in r.reference_block_values.iter().enumerate() {
                self.num(|| format!("{q}.reference_block_values[{k}]"), *v);
            }
            self.opt(|| format!("{q}.reference_own_cv"), r.reference_own_cv);
            self.opt(|| format!("{q}.approximate_bias"), r.approximate_bias);
            let sides = [
                ("baseline", &r.baseline_reference_values),
                ("candidate", &r.candidate_reference_values),
            ];
            for (side, values) in sides {
                for (k, v) in values.iter().flatten().enumerate() {
                    self.num(|| format!("{q}.{side}_reference_values[{k}]"), *v);
                }
            }
        }
    }
}

/// Checks every float of the model. Time: O(size of the analysis).
fn check_finite(a: &Analysis) -> Result<(), ExportError> {
    let mut f = Finder { bad: None };
    f.num(|| "alpha".into(), a.alpha);
    f.num(|| "confidence".into(), a.confidence);
    f.num(|| "min_practical_effect".into(), a.min_practical_effect);
    for (gi, g) in a.groups.iter().enumerate() {
        for (bi, b) in g.benchmarks.iter().enumerate() {
            let p = format!("groups[{gi}].benchmarks[{bi}]");
            for (name, v) in [
                ("mean", b.mean),
                ("median", b.median),
                ("mad", b.mad),
                ("min", b.min),
                ("max", b.max),
                ("p50", b.p50),
                ("p90", b.p90),
            ] {
                f.num(|| format!("{p}.{name}"), v);
            }
            f.opt(|| format!("{p}.stddev"), b.stddev);
            f.opt(|| format!("{p}.p99"), b.p99);
        }
        if let Some(o) = &g.omnibus {
            f.num(|| format!("groups[{gi}].omnibus.statistic"), o.statistic);
            f.num(|| format!("groups[{gi}].omnibus.p_value"), o.p_value);
        }
        for (ci, c) in g.comparisons.iter().enumerate() {
            f.comparison(&format!("groups[{gi}].comparisons[{ci}]"), c);
        }
    }
    match f.bad {
        Some(field) => Err(ExportError::NonFinite { field }),
        None => Ok(()),
    }
}
