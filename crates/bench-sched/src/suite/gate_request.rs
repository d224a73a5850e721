//! One gate of a suite as people write it: `[NAME=]PCT`.

use bench_stats::analysis::{WrittenError, parse_percent};

use super::GateRequest;

impl GateRequest {
    /// Parses `PCT` (the default gate of every benchmark) or `NAME=PCT` (one benchmark's),
    /// the percentage as [`parse_percent`] reads it; `given` keeps the text as written.
    ///
    /// # Errors
    /// [`parse_percent`]'s.
    ///
    /// # Examples
    /// ```
    /// use bench_sched::GateRequest;
    /// let g = GateRequest::parse("parse = 5%")?;
    /// assert_eq!((g.benchmark.as_deref(), g.threshold), (Some("parse"), 0.05));
    /// assert_eq!(GateRequest::parse("2%")?.benchmark, None);
    /// # Ok::<(), bench_stats::analysis::WrittenError>(())
    /// ```
    pub fn parse(text: &str) -> Result<GateRequest, WrittenError> {
        let (benchmark, pct) = match text.split_once('=') {
            Some((n, p)) => (Some(n.trim().to_owned()), p),
            None => (None, text),
        };
        Ok(GateRequest {
            given: text.to_owned(),
            benchmark,
            threshold: parse_percent(pct)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_names_its_benchmark_or_none() {
        let g = GateRequest::parse("big=3%").unwrap();
        assert_eq!(g.given, "big=3%");
        assert_eq!(g.benchmark.as_deref(), Some("big"));
        assert_eq!(g.threshold, 0.03);
        assert_eq!(GateRequest::parse("0.1").unwrap().threshold, 0.1);
        assert_eq!(
            GateRequest::parse("big=3").unwrap_err().to_string(),
            "`3` is not a fraction between 0 and 1: did you mean `3%`? (a bare number is a fraction: 0.02 is 2%)"
        );
    }
}
