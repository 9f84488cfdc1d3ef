//! Helpers shared by the Parboil drivers.

use crate::inputs::Rng;

/// `len` values uniform in [lo, hi) from a generator seeded with `seed`.
pub fn uniform_f32(seed: u64, len: usize, lo: f32, hi: f32) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.f32_in(lo, hi)).collect()
}

/// A value uniform in `0..n` (`n` > 0).
pub fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// Little-endian bytes of 32-bit integers, for `Module::write_symbol`.
pub fn i32_bytes(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
