//! CUDA SDK-style kernels (matrixMul, BlackScholes, reduction, transpose, ...), written for
//! warpsim after the classic CUDA samples, with their own CUDA sources under
//! `samples/sdk/<name>/`, seeded inputs and a CPU reference in Rust.

pub mod black_scholes;
pub mod common;
pub mod convolution_separable;
pub mod histogram64;
pub mod matrix_mul;
pub mod reduction;
pub mod scalar_prod;
pub mod transpose;
pub mod vector_add;

use crate::sample::Sample;

/// The SDK samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![
        &vector_add::VectorAdd,
        &matrix_mul::MatrixMul,
        &matrix_mul::MatrixMulNaive,
        &black_scholes::BlackScholes,
        &scalar_prod::ScalarProd,
        &transpose::TransposeNaive,
        &transpose::TransposeCoalesced,
        &reduction::Reduction,
        &histogram64::Histogram64,
        &convolution_separable::ConvolutionSeparable,
    ]
}
