//! The run's randomness: SplitMix64, seeded by the run's seed and the
//! tool's name, so that the same seed draws the same arguments on every
//! machine and in every release.
//!
//! A crate's generator (`rand`'s `StdRng`) promises no stable stream
//! across its versions; a printed seed must replay the same calls after an
//! upgrade, so the sequence is this file's, and a test pins it.

/// A deterministic stream of numbers (SplitMix64, Steele, Lea and Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014).
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    /// The stream of `seed`.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The stream of `seed` for the thing named `name` (a tool): a tool's
    /// cases do not change when other tools come and go.
    pub(crate) fn for_name(seed: u64, name: &str) -> Rng {
        // FNV-1a of the name, then mixed with the seed.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in name.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut rng = Rng(seed ^ hash);
        rng.next_u64();
        rng
    }

    /// The next 64 bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0), without the bias of a bare
    /// modulo.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// An index into a slice of `len` items.
    pub(crate) fn index(&mut self, len: usize) -> usize {
        usize::try_from(self.below(len as u64)).unwrap_or(0)
    }

    /// `true` with probability `numerator / denominator`.
    pub(crate) fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// A number in `low..=high`.
    pub(crate) fn between(&mut self, low: i64, high: i64) -> i64 {
        if high <= low {
            return low;
        }
        let span = high.abs_diff(low);
        if span == u64::MAX {
            return self.next_u64() as i64;
        }
        low.wrapping_add(self.below(span + 1) as i64)
    }

    /// A float in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A seed for a run that was given none: from the OS's hash keys, the
/// clock and the process id, so that two runs started at once differ.
pub(crate) fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(nanos);
    hasher.write_u32(std::process::id());
    // Printed seeds stay short enough to type.
    hasher.finish() % 1_000_000_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream is the crate's own and must never change: a seed printed
    /// by one release replays the same calls in the next.
    #[test]
    fn the_stream_is_pinned() {
        let mut rng = Rng::new(1234);
        let drawn: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            drawn,
            [
                13_478_418_381_427_711_195,
                10_936_887_474_700_444_964,
                3_728_693_401_281_897_946
            ]
        );
        let mut a = Rng::for_name(7, "search");
        let mut b = Rng::for_name(7, "search");
        let mut c = Rng::for_name(7, "lookup");
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(a.next_u64(), c.next_u64());
    }

    #[test]
    fn ranges_are_kept() {
        let mut rng = Rng::new(9);
        for _ in 0..1000 {
            assert!(rng.below(7) < 7);
            let x = rng.between(-3, 3);
            assert!((-3..=3).contains(&x));
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.between(5, 5), 5);
        let x = rng.between(i64::MIN, i64::MAX);
        let _ = x;
    }
}
