//! CUDA SDK-style kernels (matrixMul, BlackScholes, reduction, transpose, ...), written for
//! warpsim after the classic CUDA samples, with their own CUDA sources under
//! `samples/sdk/<name>/`, seeded inputs and a CPU reference in Rust.

use crate::sample::Sample;

/// The SDK samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![]
}
