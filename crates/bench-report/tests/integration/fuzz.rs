//! Renderers on analyses of arbitrary finite data: no panic, no NaN, JSON always renders.

use bench_report::{RenderOptions, render_console, render_json, render_markdown};
use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};
use proptest::prelude::*;

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 1e-3..1e9f64,
        1 => Just(42.0),
        1 => prop_oneof![Just(1e-300), Just(1e300), Just(0.0), Just(-7.5)],
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_renderer_handles_any_analysis(
        k in 2usize..5,
        n in 1usize..30,
        blocked in any::<bool>(),
        higher in any::<bool>(),
        pool in proptest::collection::vec(value(), 40),
    ) {
        let series = (0..k)
            .map(|v| {
                Series::new(
                    format!("variant {v}"),
                    (0..n).map(|i| {
                        let value = pool[(v * 7 + i * 3) % pool.len()];
                        if blocked {
                            Observation::in_block(value, i as u32).at_position(v as u32)
                        } else {
                            Observation::new(value)
                        }
                    }),
                )
            })
            .collect();
        let data = Dataset::new(if higher { "ops/s" } else { "ns" }, series)
            .with_higher_is_better(higher);
        let data = if blocked { data.with_design(Design::Abba) } else { data };
        let config = AnalysisConfig { resamples: 200, ..AnalysisConfig::default() };
        let analysis = analyze(&data, &config).expect("finite data analyzes");
        let console = render_console(&analysis, &RenderOptions::default());
        let markdown = render_markdown(&analysis);
        let json = render_json(&analysis).expect("no non-finite number in an analysis");
        for text in [&console, &markdown, &json] {
            prop_assert!(!text.contains("NaN") && !text.contains("inf"), "{}", text);
        }
    }
}
