//! The side-by-side table of `calibrate --noise`: one column per way of deciding (abba's
//! default and the sequential tools' tests), one row per question (A/A false positives,
//! the known effect found, the wrong direction, the estimated ratio).

use super::rates::{Z95, quantile, rate_text, sorted_finite, wilson};
use super::{Call, Scenario, Tally};
use crate::table::{Align, TextTable};

/// One way of deciding "significant" on one experiment's runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// `abba compare` with its defaults (ABBA blocks, paired), the verdict of its JSON.
    AbbaDefault,
    /// The same raw runs re-analyzed with `--min-practical-effect 0`.
    AbbaGateOff,
    /// The same raw runs re-decided on their CPU time (`abba analyze --metric cpu`).
    AbbaCpu,
    /// `abba compare --design sequential` runs, Welch's t (bench-stats) on all runs.
    SequentialWelch,
    /// The same runs, the Mann-Whitney p of abba's analysis JSON.
    SequentialMannWhitney,
    /// The same runs' CPU times (user + sys), Welch's t (bench-stats).
    SequentialWelchCpu,
    /// `hyperfine -N --runs N A B`, Welch's t (bench-stats) on its times.
    HyperfineWelch,
    /// The same times, Mann-Whitney U (bench-stats).
    HyperfineMannWhitney,
}

impl Method {
    /// Every method, in column order.
    pub(super) const ALL: [Method; 8] = [
        Method::AbbaDefault,
        Method::AbbaGateOff,
        Method::AbbaCpu,
        Method::SequentialWelch,
        Method::SequentialMannWhitney,
        Method::SequentialWelchCpu,
        Method::HyperfineWelch,
        Method::HyperfineMannWhitney,
    ];

    /// The column header, for `blocks` ABBA blocks (`2 * blocks` runs of each variant in
    /// the sequential designs).
    pub(super) fn header(self, blocks: u32) -> String {
        let each = 2 * u64::from(blocks);
        match self {
            Method::AbbaDefault => format!("abba default: ABBA {blocks} blocks"),
            Method::AbbaGateOff => "abba default, gate off".to_owned(),
            Method::AbbaCpu => format!("abba --metric cpu: ABBA {blocks} blocks"),
            Method::SequentialWelch => format!("sequential {each}+{each}: Welch"),
            Method::SequentialMannWhitney => format!("sequential {each}+{each}: Mann-Whitney"),
            Method::SequentialWelchCpu => format!("sequential {each}+{each}: Welch on CPU time"),
            Method::HyperfineWelch => format!("hyperfine {each}+{each}: Welch"),
            Method::HyperfineMannWhitney => format!("hyperfine {each}+{each}: Mann-Whitney"),
        }
    }

    /// Whether the method needs hyperfine.
    pub(super) fn needs_hyperfine(self) -> bool {
        matches!(self, Method::HyperfineWelch | Method::HyperfineMannWhitney)
    }
}

/// What one method concluded on one experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Decision {
    pub(super) method: Method,
    pub(super) scenario: Scenario,
    pub(super) call: Call,
    /// B/A as the method estimates it (abba's ratio, the ratio of means for Welch, of
    /// medians for Mann-Whitney).
    pub(super) ratio: Option<f64>,
}

/// The call of a two-sided test with p-value `p` at level `alpha`, in the direction of
/// `b_minus_a` (positive: B slower). Not tested when `p` is missing or NaN.
pub(super) fn test_call(p: Option<f64>, alpha: f64, b_minus_a: f64) -> Call {
    match p {
        Some(p) if p.is_nan() => Call::NotTested,
        Some(p) if p < alpha => {
            if b_minus_a > 0.0 {
                Call::Slower
            } else if b_minus_a < 0.0 {
                Call::Faster
            } else {
                Call::Undirected
            }
        }
        Some(_) => Call::NotSignificant,
        None => Call::NotTested,
    }
}

fn tally(decisions: &[Decision], method: Method, scenario: Scenario) -> Tally {
    let mut t = Tally::default();
    decisions
        .iter()
        .filter(|d| d.method == method && d.scenario == scenario)
        .for_each(|d| t.add(d.call));
    t
}

/// The table, as GitHub Markdown: one column per method in `methods`, rows for the A/A
/// false-positive rate, the share of the `effect_pct` effect found (significant and
/// slower), the wrong-direction calls, and the median B/A ratio over the A/B experiments.
pub(super) fn render(
    decisions: &[Decision],
    methods: &[Method],
    blocks: u32,
    effect_pct: f64,
) -> String {
    let mut header = vec!["".to_owned()];
    header.extend(methods.iter().map(|m| m.header(blocks)));
    let mut table = TextTable::new(header.iter().map(String::as_str));
    table.align = vec![Align::Left; header.len()];
    let rate = |m: Method, s: Scenario| {
        let t = tally(decisions, m, s);
        rate_text(wilson(t.hits(s), t.total(), Z95))
    };
    let effect = format!("+{effect_pct}%");
    let mut row = |label: String, cell: &dyn Fn(Method) -> String| {
        let mut cells = vec![label];
        cells.extend(methods.iter().map(|&m| cell(m)));
        table.row(cells);
    };
    row("A/A: false positives".to_owned(), &|m| {
        rate(m, Scenario::Null)
    });
    row(format!("{effect}: found (slower)"), &|m| {
        rate(m, Scenario::Shift)
    });
    row(format!("{effect}: called faster"), &|m| {
        let t = tally(decisions, m, Scenario::Shift);
        format!("{}/{}", t.faster, t.total())
    });
    row(format!("{effect}: median B/A"), &|m| {
        let ratios = sorted_finite(
            decisions
                .iter()
                .filter(|d| d.method == m && d.scenario == Scenario::Shift)
                .filter_map(|d| d.ratio),
        );
        quantile(&ratios, 0.5).map_or("-".to_owned(), |r| format!("{r:.4}"))
    });
    table.markdown_padded()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(method: Method, scenario: Scenario, call: Call, ratio: f64) -> Decision {
        Decision {
            method,
            scenario,
            call,
            ratio: Some(ratio),
        }
    }

    #[test]
    fn tests_call_by_p_and_direction() {
        assert_eq!(test_call(Some(0.01), 0.05, 2.0), Call::Slower);
        assert_eq!(test_call(Some(0.01), 0.05, -2.0), Call::Faster);
        assert_eq!(test_call(Some(0.01), 0.05, 0.0), Call::Undirected);
        assert_eq!(test_call(Some(0.05), 0.05, 2.0), Call::NotSignificant);
        assert_eq!(test_call(Some(f64::NAN), 0.05, 2.0), Call::NotTested);
        assert_eq!(test_call(None, 0.05, 2.0), Call::NotTested);
    }

    #[test]
    fn headers_name_the_runs_of_each_design() {
        assert_eq!(
            Method::AbbaDefault.header(15),
            "abba default: ABBA 15 blocks"
        );
        assert_eq!(
            Method::SequentialWelch.header(30),
            "sequential 60+60: Welch"
        );
        assert_eq!(
            Method::AbbaCpu.header(15),
            "abba --metric cpu: ABBA 15 blocks"
        );
        assert_eq!(
            Method::HyperfineMannWhitney.header(30),
            "hyperfine 60+60: Mann-Whitney"
        );
        let hf: Vec<Method> = Method::ALL
            .into_iter()
            .filter(|m| m.needs_hyperfine())
            .collect();
        assert_eq!(hf, [Method::HyperfineWelch, Method::HyperfineMannWhitney]);
    }

    #[test]
    fn table_puts_the_methods_side_by_side() {
        use Method::{AbbaDefault, SequentialWelch};
        use Scenario::{Null, Shift};
        let decisions = [
            d(AbbaDefault, Null, Call::NotSignificant, 1.001),
            d(AbbaDefault, Null, Call::NotSignificant, 0.999),
            d(AbbaDefault, Shift, Call::Slower, 1.021),
            d(AbbaDefault, Shift, Call::Slower, 1.019),
            d(SequentialWelch, Null, Call::Faster, 0.97),
            d(SequentialWelch, Null, Call::NotSignificant, 1.0),
            d(SequentialWelch, Shift, Call::Faster, 0.98),
            d(SequentialWelch, Shift, Call::NotTested, 1.06),
        ];
        let table = render(&decisions, &[AbbaDefault, SequentialWelch], 30, 2.0);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 6, "{table}");
        assert!(lines[0].contains("abba default: ABBA 30 blocks"), "{table}");
        assert!(lines[0].contains("sequential 60+60: Welch"), "{table}");
        let cells = |line: &str| -> Vec<String> {
            line.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        };
        assert_eq!(
            cells(lines[2]),
            [
                "A/A: false positives",
                "0/2 = 0% [0%, 66%]",
                "1/2 = 50% [9%, 91%]"
            ]
        );
        assert_eq!(
            cells(lines[3]),
            [
                "+2%: found (slower)",
                "2/2 = 100% [34%, 100%]",
                "0/2 = 0% [0%, 66%]"
            ]
        );
        assert_eq!(cells(lines[4]), ["+2%: called faster", "0/2", "1/2"]);
        assert_eq!(cells(lines[5]), ["+2%: median B/A", "1.0200", "1.0200"]);
    }

    #[test]
    fn a_method_without_experiments_shows_dashes() {
        let table = render(&[], &[Method::HyperfineWelch], 15, 1.0);
        assert!(table.contains("| A/A: false positives | -"), "{table}");
        assert!(table.contains("| +1%: median B/A      | -"), "{table}");
    }
}
