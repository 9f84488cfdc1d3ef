//! Ports of the Parboil benchmarks, written for warpsim: each keeps Parboil's kernel structure
//! and launch sequence, with its own CUDA sources under `samples/parboil/<name>/`, inputs
//! generated deterministically (where Parboil reads data files, equivalent ones) and a CPU
//! reference in Rust.

pub mod cutcp;
pub mod lbm;
pub mod mri_gridding;
pub mod sad;
pub mod tpacf;

use crate::sample::Sample;

/// The Parboil samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![
        &cutcp::Cutcp,
        &tpacf::Tpacf,
        &lbm::Lbm,
        &sad::Sad,
        &mri_gridding::MriGridding,
    ]
}
