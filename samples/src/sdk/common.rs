//! Helpers shared by the SDK samples: seeded inputs and combining validations.

use crate::Validation;
use crate::inputs::Rng;

/// `n` floats uniform in [lo, hi) from a generator seeded with `seed` (the SDK's
/// `rand() / RAND_MAX` scaled into a range, made reproducible).
pub fn uniform(seed: u64, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.f32_in(lo, hi)).collect()
}

/// Several comparisons together: passes only if each does; the first mismatch reported is the
/// first comparison's that has one.
pub fn all_of(parts: impl IntoIterator<Item = Validation>) -> Validation {
    parts.into_iter().fold(
        Validation {
            checked: 0,
            mismatches: 0,
            first_mismatch: None,
            max_abs_diff: 0.0,
        },
        |acc, v| Validation {
            checked: acc.checked + v.checked,
            mismatches: acc.mismatches + v.mismatches,
            first_mismatch: acc.first_mismatch.or(v.first_mismatch),
            max_abs_diff: acc.max_abs_diff.max(v.max_abs_diff),
        },
    )
}
