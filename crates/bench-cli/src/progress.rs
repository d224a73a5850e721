//! Progress on stderr while an experiment runs: block i of N, the variant running,
//! elapsed and ETA. Off when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use bench_sched::{Observer, PlannedRun, RunRecord, Variant};
use bench_stats::sequential::{Look, LookDecision, SequentialRule};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An [`Observer`] drawing an indicatif bar over the measured runs.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    blocks: u32,
    /// The last look of a sequential experiment, in words (empty otherwise).
    look: String,
}

impl Progress {
    /// A bar over `total_runs` runs in `blocks` blocks; hidden when `quiet` or when stderr
    /// is not a terminal.
    pub fn new(total_runs: u64, blocks: u32, quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress {
                bar: None,
                blocks,
                look: String::new(),
            };
        }
        let bar = ProgressBar::with_draw_target(Some(total_runs), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs  {msg}  (ETA {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar: Some(bar),
            blocks,
            look: String::new(),
        }
    }

    /// Removes the bar before the report prints.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn on_warmup(&mut self, variant: &Variant) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("warm-up: {}", variant.name));
        }
    }

    fn on_run_start(&mut self, run: &PlannedRun, variant: &Variant) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "block {} of {}: {}{}",
                run.block + 1,
                self.blocks,
                variant.name,
                self.look
            ));
        }
    }

    fn on_look(&mut self, look: &Look, rule: &SequentialRule) {
        self.look = format!("  | {}", look_text(look, rule));
    }

    fn on_run_end(&mut self, _record: &RunRecord) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}

/// One look in words: the interval so far, where it is heading and what it still needs,
/// e.g. `look 9: ratio in [0.981, 1.032], median 1.012 heading up; needs it off 1 or
/// inside ±1%`.
pub fn look_text(look: &Look, rule: &SequentialRule) -> String {
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
        _ if look.blocks < rule.min_blocks => {
            format!("no decision before block {}", rule.min_blocks)
        }
        _ => format!("needs it off 1 or inside ±{:.1}%", rule.margin * 100.0),
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
