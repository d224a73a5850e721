//! A seeded `Xoshiro256PlusPlus` stream from any point of it, without drawing what comes
//! before: the generator's state moves by a linear map over GF(2), so `k` steps of it are
//! the product of its powers `2^j` for the bits `j` of `k`. A long run of draws split in
//! pieces that start where the one stream reaches them gives the very draws of the one
//! stream, on any number of threads.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::{SplitMix64, Xoshiro256PlusPlus};

/// `Xoshiro256PlusPlus::seed_from_u64(seed)` after `steps` draws of 64 bits (`next_u64`,
/// or `next_u32` and `random::<bool>`, which read one draw each), made without drawing
/// them. Time: at most 64 times 256 words XORed four at a time, after the powers of the
/// step are made once (64 squarings of a 256-bit map, a few milliseconds).
pub(crate) fn xoshiro_after(seed: u64, steps: u64) -> Xoshiro256PlusPlus {
    // The state `seed_from_u64` makes: four words of SplitMix64, as its seed bytes.
    let mut mix = SplitMix64::seed_from_u64(seed);
    let mut state = [0u64; 4];
    for w in &mut state {
        *w = mix.next_u64();
    }
    if steps > 0 {
        for (k, power) in powers().iter().enumerate() {
            if steps >> k & 1 == 1 {
                state = power.apply(state);
            }
        }
    }
    let mut bytes = [0u8; 32];
    for (b, w) in bytes.chunks_exact_mut(8).zip(state) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// A linear map of the generator's 256-bit state: the image of each bit.
struct StateMap(Vec<[u64; 4]>);

impl StateMap {
    /// One step of xoshiro256's state (the same whatever its output function).
    fn step() -> StateMap {
        StateMap(
            (0..256)
                .map(|i| {
                    let mut s = [0u64; 4];
                    s[i / 64] = 1 << (i % 64);
                    let t = s[1] << 17;
                    s[2] ^= s[0];
                    s[3] ^= s[1];
                    s[1] ^= s[2];
                    s[0] ^= s[3];
                    s[2] ^= t;
                    s[3] = s[3].rotate_left(45);
                    s
                })
                .collect(),
        )
    }

    /// The map applied to `state`.
    fn apply(&self, state: [u64; 4]) -> [u64; 4] {
        let mut out = [0u64; 4];
        for (w, &word) in state.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let image = &self.0[w * 64 + rest.trailing_zeros() as usize];
                for (o, x) in out.iter_mut().zip(image) {
                    *o ^= x;
                }
                rest &= rest - 1;
            }
        }
        out
    }

    /// The map applied twice.
    fn squared(&self) -> StateMap {
        StateMap(self.0.iter().map(|&image| self.apply(image)).collect())
    }
}

/// The step's powers `2^k`, `k = 0 .. 64`, made once.
fn powers() -> &'static [StateMap] {
    static POWERS: std::sync::OnceLock<Vec<StateMap>> = std::sync::OnceLock::new();
    POWERS.get_or_init(|| {
        let mut out = vec![StateMap::step()];
        for k in 1..64 {
            let next = out[k - 1].squared();
            out.push(next);
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_after_k_steps_is_the_stream_drawn() {
        for seed in [0u64, 1, 0x00ab_ba42] {
            let mut drawn = Xoshiro256PlusPlus::seed_from_u64(seed);
            assert_eq!(xoshiro_after(seed, 0), drawn);
            let mut at = 0u64;
            for steps in [1u64, 2, 3, 63, 64, 65, 1000, 4097, 250_001] {
                while at < steps {
                    drawn.next_u64();
                    at += 1;
                }
                assert_eq!(xoshiro_after(seed, steps), drawn, "{seed} {steps}");
            }
        }
    }

    #[test]
    fn a_large_jump_is_the_composition_of_two() {
        // 2^40 + 12345 steps: the powers of bits 0 .. 40 composed, against one jump of
        // 2^40 followed by 12345 draws.
        let seed = 7;
        let mut after = xoshiro_after(seed, 1 << 40);
        for _ in 0..12_345 {
            after.next_u64();
        }
        assert_eq!(xoshiro_after(seed, (1 << 40) + 12_345), after);
    }
}
