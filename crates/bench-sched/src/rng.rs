//! Seed derivation: every random choice gets its own stream from (seed, block, salt).

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// SplitMix64 finaliser (Steele, Lea and Flood 2014), used to mix seed parts.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A generator for one (seed, block, purpose) triple.
pub(crate) fn block_rng(seed: u64, block: u32, salt: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(mix(mix(seed ^ salt) ^ u64::from(block)))
}
