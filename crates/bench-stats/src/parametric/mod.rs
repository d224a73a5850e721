//! Parametric tests, kept as the reference point of the sequential tools abba is compared
//! with (hyperfine's `scripts/welch_ttest.py` applies Welch's t to two runs of `--runs N`).
//! abba's own verdicts never use them: benchmark times are skewed and heavy-tailed, where
//! a test on means loses power to outliers.
//!
//! - [`welch_t_test`]: Welch's unequal-variance t-test with the Welch-Satterthwaite degrees
//!   of freedom, checked against `scipy.stats.ttest_ind(equal_var=False)`.

mod welch;

pub use welch::{WelchTest, welch_t_test};
