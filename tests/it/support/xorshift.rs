//! xorshift64 (Marsaglia 2003): tiny, deterministic, good enough to pick moves
//! and moments. Shared by the crash and fuzz tests and the benchmarks (which
//! include it with `#[path]`).

/// The generator's state.
#[derive(Clone)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator from `seed` (0 is replaced: it would stay 0 forever).
    pub fn new(seed: u64) -> XorShift64 {
        XorShift64(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// An index below `n` (n > 0); the modulo bias is irrelevant here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number from `lo` to `hi`, both included.
    pub fn between(&mut self, (lo, hi): (u64, u64)) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}
