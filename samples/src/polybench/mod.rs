//! Ports of Polybench-GPU (the CUDA version of Polybench), written for warpsim: each keeps the
//! suite's kernels and launch sequence, with its own CUDA sources under
//! `samples/polybench/<name>/`, Polybench's deterministic initialisation and a CPU reference in
//! Rust. [`common`] holds what they share (block shapes, formula-initialised matrices, the
//! matrix and matrix-vector references).

pub mod atax;
pub mod bicg;
pub mod common;
pub mod conv2d;
pub mod conv3d;
pub mod correlation;
pub mod covariance;
pub mod fdtd2d;
pub mod gemm;
pub mod gesummv;
pub mod gramschmidt;
pub mod mm2;
pub mod mm3;
pub mod mvt;
pub mod syr2k;
pub mod syrk;

use crate::sample::Sample;

/// The Polybench-GPU samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![
        &gemm::Gemm,
        &mm2::Mm2,
        &mm3::Mm3,
        &syrk::Syrk,
        &syr2k::Syr2k,
        &atax::Atax,
        &bicg::Bicg,
        &mvt::Mvt,
        &gesummv::Gesummv,
        &conv2d::Conv2d,
        &conv3d::Conv3d,
        &fdtd2d::Fdtd2d,
        &correlation::Correlation,
        &covariance::Covariance,
        &gramschmidt::Gramschmidt,
    ]
}
