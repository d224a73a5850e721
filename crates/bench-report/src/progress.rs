//! The words of the progress line while an experiment runs: the running estimate of two
//! variants ([`provisional_text`]) and a sequential experiment's last look ([`look_text`]).
//! The bar itself is the binary's (it owns the terminal).

use bench_stats::paired::Provisional;
use bench_stats::sequential::{Look, LookDecision, SequentialRule};

/// `provisional after 5 blocks: B/A 1.043x [0.981, 1.102], not a verdict` (`ratio` for
/// `B/A` when the names are long: they would push the line past the terminal).
#[must_use]
pub fn provisional_text(estimate: &Provisional, baseline: &str, candidate: &str) -> String {
    let Provisional {
        blocks,
        ratio,
        low,
        high,
    } = *estimate;
    let what = if candidate.chars().count() + baseline.chars().count() <= 24 {
        format!("{candidate}/{baseline}")
    } else {
        "ratio".to_owned()
    };
    format!(
        "provisional after {blocks} blocks: {what} {ratio:.3}x [{low:.3}, {high:.3}], not a verdict"
    )
}

/// One look in words: the interval so far, where it is heading and what it still needs,
/// e.g. `look 9: ratio in [0.981, 1.032], median 1.012 heading up; needs it off 1 or
/// inside ±1%`.
#[must_use]
pub fn look_text(look: &Look, rule: &SequentialRule) -> String {
    let undecided =
        |rule: &SequentialRule| format!("needs it off 1 or inside ±{:.1}%", rule.margin * 100.0);
    let [lo, hi] = look.ratio_interval;
    let interval = if lo.is_finite() && hi.is_finite() && lo > 0.0 {
        format!("ratio in [{lo:.3}, {hi:.3}]")
    } else {
        "ratio not bounded yet".to_owned()
    };
    let heading = if look.median_ratio > 1.0 {
        "up"
    } else if look.median_ratio < 1.0 {
        "down"
    } else {
        "nowhere"
    };
    let state = match look.decision {
        LookDecision::Larger => "decided: above 1".to_owned(),
        LookDecision::Smaller => "decided: below 1".to_owned(),
        LookDecision::Equivalent => format!("decided: inside ±{:.1}%", rule.margin * 100.0),
        LookDecision::Undecided if look.blocks < rule.min_blocks => {
            format!("no decision before block {}", rule.min_blocks)
        }
        LookDecision::Undecided => undecided(rule),
        _ => undecided(rule),
    };
    format!(
        "look {}: {interval}, median {:.3} heading {heading}; {state}",
        look.blocks, look.median_ratio
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_stats::sequential::replay;

    #[test]
    fn the_provisional_line_names_the_ratio_by_short_names_only() {
        let p = Provisional {
            blocks: 5,
            ratio: 1.0431,
            low: 0.9812,
            high: 1.1024,
        };
        assert_eq!(
            provisional_text(&p, "A", "B"),
            "provisional after 5 blocks: B/A 1.043x [0.981, 1.102], not a verdict"
        );
        let long = "x".repeat(20);
        assert!(provisional_text(&p, &long, &long).contains(": ratio 1.043x"));
    }

    #[test]
    fn a_look_says_where_the_sequence_is_heading() {
        let rule = SequentialRule::default();
        let r = replay(
            &[0.01, 0.02, -0.01, 0.015, 0.005, 0.03, -0.002, 0.01],
            &rule,
        );
        let text = look_text(r.last().unwrap(), &rule);
        assert!(text.starts_with("look 8: ratio in ["), "{text}");
        assert!(text.contains("heading up"), "{text}");
        assert!(text.contains("needs it off 1 or inside ±1.0%"), "{text}");
        let early = look_text(&r.looks[2], &rule);
        assert!(
            early.contains("ratio not bounded yet") && early.contains("no decision before block 7"),
            "{early}"
        );
    }
}
