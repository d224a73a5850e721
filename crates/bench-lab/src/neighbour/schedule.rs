//! The seeded load schedule of the noisy neighbour: an endless sequence of phases, each
//! 1-4 s long with 0-3 busy threads, and inside each phase 0-2 short bursts that raise the
//! load to 1-3 busy threads for 50-300 ms. Every draw is uniform and comes from one
//! xoshiro256++ stream seeded with the neighbour's seed, so a seed names one schedule.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Shortest and longest phase, in milliseconds.
pub const PHASE_MS: (u64, u64) = (1_000, 4_000);
/// Most busy threads at any time.
pub const MAX_THREADS: u8 = 3;
/// Most bursts in one phase.
pub const MAX_BURSTS: u8 = 2;
/// Shortest and longest burst, in milliseconds.
pub const BURST_MS: (u64, u64) = (50, 300);

/// A short rise of the load inside a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Burst {
    /// Milliseconds from the start of the phase.
    pub offset_ms: u64,
    /// Length in milliseconds.
    pub length_ms: u64,
    /// Busy threads during the burst (at least the phase's own).
    pub threads: u8,
}

/// One phase of the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// Milliseconds from the start of the schedule.
    pub start_ms: u64,
    /// Length in milliseconds.
    pub length_ms: u64,
    /// Busy threads outside the bursts.
    pub threads: u8,
    /// The bursts, in time order, not overlapping.
    pub bursts: Vec<Burst>,
}

/// A stretch of constant load: `[from_ms, to_ms)` from the start of its phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Start, from the start of the phase.
    pub from_ms: u64,
    /// End (exclusive).
    pub to_ms: u64,
    /// Busy threads.
    pub threads: u8,
}

impl Phase {
    /// The phase as contiguous stretches of constant load covering `[0, length_ms)`.
    pub fn segments(&self) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut at = 0;
        for b in &self.bursts {
            if b.offset_ms > at {
                out.push(Segment {
                    from_ms: at,
                    to_ms: b.offset_ms,
                    threads: self.threads,
                });
            }
            out.push(Segment {
                from_ms: b.offset_ms,
                to_ms: b.offset_ms + b.length_ms,
                threads: b.threads.max(self.threads),
            });
            at = b.offset_ms + b.length_ms;
        }
        if at < self.length_ms {
            out.push(Segment {
                from_ms: at,
                to_ms: self.length_ms,
                threads: self.threads,
            });
        }
        out
    }
}

/// The endless phase sequence of one seed.
#[derive(Debug, Clone)]
pub struct Schedule {
    rng: Xoshiro256PlusPlus,
    next_start_ms: u64,
}

impl Schedule {
    /// The schedule of `seed`.
    pub fn new(seed: u64) -> Self {
        Schedule {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            next_start_ms: 0,
        }
    }
}

impl Iterator for Schedule {
    type Item = Phase;

    fn next(&mut self) -> Option<Phase> {
        let rng = &mut self.rng;
        let length_ms = rng.random_range(PHASE_MS.0..=PHASE_MS.1);
        let threads = rng.random_range(0..=MAX_THREADS);
        let count = rng.random_range(0..=MAX_BURSTS);
        // Each burst sits somewhere in its own equal slot of the phase, so bursts never
        // overlap (a slot is at least 500 ms, a burst at most 300 ms).
        let slot = length_ms / u64::from(count.max(1));
        let bursts = (0..u64::from(count))
            .map(|i| {
                let length = rng.random_range(BURST_MS.0..=BURST_MS.1);
                Burst {
                    offset_ms: i * slot + rng.random_range(0..=slot - length),
                    length_ms: length,
                    threads: rng.random_range(1..=MAX_THREADS),
                }
            })
            .collect();
        let phase = Phase {
            start_ms: self.next_start_ms,
            length_ms,
            threads,
            bursts,
        };
        self.next_start_ms += length_ms;
        Some(phase)
    }
}

/// What a schedule does over its first `duration_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Phases that start before the end.
    pub phases: usize,
    /// Bursts that start before the end.
    pub bursts: usize,
    /// Share of the time with 0, 1, 2 and 3 busy threads (bursts included).
    pub share: [f64; MAX_THREADS as usize + 1],
    /// Mean busy threads over the time.
    pub mean_threads: f64,
}

/// Summarizes the first `duration_ms` of `seed`'s schedule. Time: O(phases).
pub fn summarize(seed: u64, duration_ms: u64) -> Summary {
    let mut ms = [0u64; MAX_THREADS as usize + 1];
    let (mut phases, mut bursts) = (0, 0);
    for phase in Schedule::new(seed).take_while(|p| p.start_ms < duration_ms) {
        phases += 1;
        for seg in phase.segments() {
            let from = phase.start_ms + seg.from_ms;
            if from >= duration_ms {
                break;
            }
            let to = (phase.start_ms + seg.to_ms).min(duration_ms);
            ms[usize::from(seg.threads)] += to - from;
        }
        bursts += phase
            .bursts
            .iter()
            .filter(|b| phase.start_ms + b.offset_ms < duration_ms)
            .count();
    }
    let total = ms.iter().sum::<u64>().max(1) as f64;
    let share = ms.map(|m| m as f64 / total);
    let mean_threads = share.iter().enumerate().map(|(k, s)| k as f64 * s).sum();
    Summary {
        phases,
        bursts,
        share,
        mean_threads,
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [s0, s1, s2, s3] = self.share.map(|s| 100.0 * s);
        write!(
            f,
            "{} phases of {}-{} s, {} bursts of {}-{} ms; time with 0/1/2/3 busy threads \
             {s0:.0}/{s1:.0}/{s2:.0}/{s3:.0}%, mean {:.2} busy threads",
            self.phases,
            PHASE_MS.0 / 1000,
            PHASE_MS.1 / 1000,
            self.bursts,
            BURST_MS.0,
            BURST_MS.1,
            self.mean_threads
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_schedule() {
        let a: Vec<Phase> = Schedule::new(7).take(50).collect();
        let b: Vec<Phase> = Schedule::new(7).take(50).collect();
        let c: Vec<Phase> = Schedule::new(8).take(50).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn phases_and_bursts_stay_within_bounds() {
        let mut expected_start = 0;
        let mut seen_threads = [false; 4];
        for phase in Schedule::new(42).take(2_000) {
            assert_eq!(phase.start_ms, expected_start);
            expected_start += phase.length_ms;
            assert!(
                (PHASE_MS.0..=PHASE_MS.1).contains(&phase.length_ms),
                "{phase:?}"
            );
            assert!(phase.threads <= MAX_THREADS);
            seen_threads[usize::from(phase.threads)] = true;
            assert!(phase.bursts.len() <= usize::from(MAX_BURSTS));
            let mut end = 0;
            for b in &phase.bursts {
                assert!((BURST_MS.0..=BURST_MS.1).contains(&b.length_ms), "{b:?}");
                assert!((1..=MAX_THREADS).contains(&b.threads), "{b:?}");
                assert!(b.offset_ms >= end, "bursts overlap: {phase:?}");
                end = b.offset_ms + b.length_ms;
            }
            assert!(end <= phase.length_ms, "{phase:?}");
        }
        // 2000 uniform draws of 0..=3 reach every value.
        assert_eq!(seen_threads, [true; 4]);
    }

    #[test]
    fn segments_cover_the_phase_contiguously() {
        for phase in Schedule::new(3).take(500) {
            let segs = phase.segments();
            assert_eq!(segs.first().map(|s| s.from_ms), Some(0));
            assert_eq!(segs.last().map(|s| s.to_ms), Some(phase.length_ms));
            for pair in segs.windows(2) {
                assert_eq!(pair[0].to_ms, pair[1].from_ms, "{phase:?}");
            }
            assert!(
                segs.iter()
                    .all(|s| s.from_ms < s.to_ms && s.threads <= MAX_THREADS)
            );
            assert!(segs.iter().all(|s| s.threads >= phase.threads));
        }
    }

    #[test]
    fn a_burst_raises_but_never_lowers_the_load() {
        let phase = Phase {
            start_ms: 0,
            length_ms: 2_000,
            threads: 2,
            bursts: vec![
                Burst {
                    offset_ms: 0,
                    length_ms: 100,
                    threads: 1,
                },
                Burst {
                    offset_ms: 1_500,
                    length_ms: 200,
                    threads: 3,
                },
            ],
        };
        let levels: Vec<(u64, u64, u8)> = phase
            .segments()
            .iter()
            .map(|s| (s.from_ms, s.to_ms, s.threads))
            .collect();
        assert_eq!(
            levels,
            [
                (0, 100, 2),
                (100, 1_500, 2),
                (1_500, 1_700, 3),
                (1_700, 2_000, 2)
            ]
        );
    }

    #[test]
    fn summary_counts_time_up_to_the_duration() {
        let s = summarize(11, 60_000);
        assert!((s.share.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((12..=60).contains(&s.phases), "{s:?}");
        // Uniform 0-3 threads, raised by bursts: the mean lies near 1.5.
        assert!(s.mean_threads > 0.8 && s.mean_threads < 2.4, "{s:?}");
        assert_eq!(summarize(11, 60_000), s);
        // A duration inside the first phase counts one phase and only its time.
        let first = Schedule::new(11).next().unwrap();
        let short = summarize(11, 500);
        assert_eq!(short.phases, 1);
        let level = first.segments()[0].threads;
        if first.segments()[0].to_ms >= 500 {
            assert_eq!(short.share[usize::from(level)], 1.0);
        }
        let text = s.to_string();
        assert!(text.contains("phases of 1-4 s"), "{text}");
    }
}
