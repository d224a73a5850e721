//! A plain scalar reference of every op, written as directly as possible (a loop over
//! steps, a loop over chains, a `Vec` of states), to check the monomorphized kernels.

use crate::chains::{
    ADD_STRIDE, ADD_TABLE_LEN, ADD_WINDOW, FP_SENTINEL, INT_MULTIPLIER, INT_SENTINEL, add_start,
    add_table_entry, fold_checksum, fp_constants, fp_start, int_start, thread_checksum,
};
use crate::op::Op;

/// Final chain states of one thread after `steps` steps, as 64-bit words, and the
/// number of times a chain hit its sentinel value.
fn thread_states(op: Op, chains: usize, thread: usize, steps: u64) -> (Vec<u64>, u64) {
    let mut hits = 0;
    match op {
        Op::Int => {
            let mut x: Vec<u64> = (0..chains).map(|j| int_start(thread, j).0).collect();
            let c: Vec<u64> = (0..chains).map(|j| int_start(thread, j).1).collect();
            for _ in 0..steps {
                for j in 0..chains {
                    x[j] = x[j].wrapping_mul(INT_MULTIPLIER).wrapping_add(c[j]);
                    if x[j] == INT_SENTINEL {
                        hits += 1;
                    }
                }
            }
            (x, hits)
        }
        Op::Add => {
            let table: Vec<u64> = (0..ADD_TABLE_LEN)
                .map(|i| add_table_entry(thread, i))
                .collect();
            let mut x: Vec<u64> = (0..chains).map(|j| add_start(thread, j)).collect();
            for step in 0..steps {
                let k = (step % ADD_WINDOW as u64) as usize;
                for j in 0..chains {
                    x[j] = x[j].wrapping_add(table[k + ADD_STRIDE * j]);
                    if x[j] == INT_SENTINEL {
                        hits += 1;
                    }
                }
            }
            (x, hits)
        }
        Op::Fp => {
            let mut x: Vec<f64> = (0..chains).map(|j| fp_start(thread, j)).collect();
            let (a, b) = fp_constants(thread);
            for _ in 0..steps {
                for xj in x.iter_mut() {
                    *xj = *xj * a + b;
                    if *xj == FP_SENTINEL {
                        hits += 1;
                    }
                }
            }
            (x.into_iter().map(f64::to_bits).collect(), hits)
        }
    }
}

/// The checksum a kernel run of `steps` steps per chain must report.
pub(crate) fn checksum(op: Op, chains: usize, threads: usize, steps: u64) -> u64 {
    fold_checksum((0..threads).map(|t| {
        let (states, hits) = thread_states(op, chains, t, steps);
        thread_checksum(&states, hits)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kernel, KernelConfig};
    use proptest::prelude::*;

    fn kernel(op: Op, chains: usize, threads: usize) -> Kernel {
        Kernel::new(KernelConfig {
            op,
            chains,
            threads,
            duration: std::time::Duration::from_millis(10),
        })
        .unwrap()
    }

    #[test]
    fn checksum_matches_reference_for_every_op() {
        // 1000 steps cross the add table's 64-step window many times.
        for op in Op::ALL {
            for chains in [1, 2, 3, 8, 16] {
                for threads in [1, 3] {
                    let got = kernel(op, chains, threads).run_steps(1000).unwrap();
                    let want = checksum(op, chains, threads, 1000);
                    assert_eq!(got.checksum, want, "{op} chains={chains} threads={threads}");
                }
            }
        }
    }

    #[test]
    fn every_chain_count_matches_reference() {
        for op in Op::ALL {
            for chains in 1..=16 {
                let got = kernel(op, chains, 1).run_steps(77).unwrap();
                assert_eq!(got.checksum, checksum(op, chains, 1, 77), "{op} {chains}");
            }
        }
    }

    #[test]
    fn chunking_does_not_change_the_result() {
        // Crosses the 2^20-step chunk boundary of fixed runs.
        let steps = (1 << 20) + 5;
        for op in Op::ALL {
            let got = kernel(op, 2, 1).run_steps(steps).unwrap();
            assert_eq!(got.checksum, checksum(op, 2, 1, steps), "{op}");
        }
    }

    #[test]
    fn zero_steps_is_the_starting_state() {
        for op in Op::ALL {
            let got = kernel(op, 4, 2).run_steps(0).unwrap();
            assert_eq!(got.ops, 0);
            assert_eq!(got.checksum, checksum(op, 4, 2, 0));
            assert_ne!(
                got.checksum,
                checksum(op, 4, 2, 1),
                "{op}: one step changes it"
            );
        }
    }

    #[test]
    fn ops_and_checksums_differ_between_ops_and_threads() {
        let a = kernel(Op::Int, 2, 1).run_steps(100).unwrap().checksum;
        let b = kernel(Op::Add, 2, 1).run_steps(100).unwrap().checksum;
        let c = kernel(Op::Fp, 2, 1).run_steps(100).unwrap().checksum;
        assert!(a != b && b != c && a != c);
        let per = kernel(Op::Int, 2, 3).run_steps(100).unwrap().per_thread;
        assert!(per[0].checksum != per[1].checksum && per[1].checksum != per[2].checksum);
    }

    #[test]
    fn fp_stays_normal_and_bounded() {
        let steps = 3_000_000;
        let (x, hits) = thread_states(Op::Fp, 16, 5, steps);
        assert_eq!(hits, 0);
        for bits in x {
            let v = f64::from_bits(bits);
            assert!(v.is_normal() && (0.5..2.5).contains(&v), "{v}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn random_configs_match_reference(
            op in prop::sample::select(Op::ALL.to_vec()),
            chains in 1usize..=16,
            threads in 1usize..=4,
            steps in 0u64..300,
        ) {
            let got = kernel(op, chains, threads).run_steps(steps).unwrap();
            prop_assert_eq!(got.checksum, checksum(op, chains, threads, steps));
            prop_assert_eq!(got.ops, steps * (chains * threads) as u64);
            prop_assert_eq!(got.per_thread.len(), threads);
            prop_assert_eq!(got.duration_s, None);
        }
    }
}
