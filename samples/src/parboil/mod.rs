//! Ports of the Parboil benchmarks, written for warpsim: each keeps Parboil's kernel structure
//! and launch sequence, with its own CUDA sources under `samples/parboil/<name>/`, inputs
//! generated deterministically (where Parboil reads data files, equivalent ones) and a CPU
//! reference in Rust.

use crate::sample::Sample;

pub mod bfs;
pub mod common;
pub mod cutcp;
pub mod histo;
pub mod lbm;
pub mod mri_gridding;
pub mod mri_q;
pub mod sad;
pub mod sgemm;
pub mod spmv;
pub mod stencil;
pub mod tpacf;

/// The Parboil samples, in the suite's usual order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![
        &sgemm::Sgemm,
        &spmv::Spmv,
        &stencil::Stencil,
        &lbm::Lbm,
        &sad::Sad,
        &mri_q::MriQ,
        &cutcp::Cutcp,
        &histo::Histo,
        &tpacf::Tpacf,
        &bfs::Bfs,
        &mri_gridding::MriGridding,
    ]
}
