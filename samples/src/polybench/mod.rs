//! Ports of Polybench-GPU (the CUDA version of Polybench), written for warpsim: each keeps the
//! suite's kernels and launch sequence, with its own CUDA sources under
//! `samples/polybench/<name>/`, Polybench's deterministic initialisation and a CPU reference in
//! Rust.

use crate::sample::Sample;

/// The Polybench-GPU samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![]
}
