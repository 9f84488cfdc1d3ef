//! Ports of the Parboil benchmarks, written for warpsim: each keeps Parboil's kernel structure
//! and launch sequence, with its own CUDA sources under `samples/parboil/<name>/`, inputs
//! generated deterministically (where Parboil reads data files, equivalent ones) and a CPU
//! reference in Rust.

use crate::sample::Sample;

pub mod bfs;
pub mod common;
pub mod histo;
pub mod mri_q;
pub mod sgemm;
pub mod spmv;
pub mod stencil;

/// The Parboil samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![
        &sgemm::Sgemm,
        &spmv::Spmv,
        &stencil::Stencil,
        &histo::Histo,
        &bfs::Bfs,
        &mri_q::MriQ,
    ]
}
