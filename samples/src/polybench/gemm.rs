//! Polybench-GPU gemm: C = α·A·B + β·C in one launch of `gemm_kernel` (32 × 8 threads per
//! block, one thread per element of C, accumulating in global memory).
//!
//! Inputs are Polybench-GPU's formulas: A[i][k] = i·k/ni, B[k][j] = i·j/ni, C[i][j] = i·j/ni.
//! Validation is bit-exact: each element is `c·β` followed by `fma(α·a, b, c)` for k ascending
//! (NVRTC keeps `α·a` as a separate `mul.f32` and contracts the rest, see `gemm.ptx`), which
//! [`common::matmul_acc`] reproduces.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// Polybench-GPU's constants.
const ALPHA: f32 = 32412.0;
const BETA: f32 = 2123.0;

/// (ni, nj, nk) per size: small Polybench's MINI dataset (20, 25, 30: partial blocks in both
/// dimensions); default Polybench-GPU's own 512³ (≈ 1 G thread instructions); large 768³ (≈ 3.4 G).
fn dims(size: Size) -> (usize, usize, usize) {
    match size {
        Size::Small => (20, 25, 30),
        Size::Default => (512, 512, 512),
        Size::Large => (768, 768, 768),
    }
}

/// Polybench-GPU gemm as a registered sample.
pub struct Gemm;

impl Sample for Gemm {
    fn name(&self) -> &'static str {
        "polybench/gemm"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["gemm_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (ni, nj, nk) = dims(size);
        format!("C {ni} × {nj} += A {ni} × {nk} · B {nk} × {nj}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (ni, nj, nk) = dims(size);
        let n = ni as f32;
        let a = common::matrix(ni, nk, |i, k| i * k / n);
        let b = common::matrix(nk, nj, |k, j| k * j / n);
        let c = common::matrix(ni, nj, |i, j| i * j / n);

        let mut session = Session::new(dev);
        let module = session.load("polybench/gemm/gemm.ptx")?;
        let kernel = module.kernel("gemm_kernel")?;
        let (d_a, d_b, d_c) = (
            common::upload(dev, &a)?,
            common::upload(dev, &b)?,
            common::upload(dev, &c)?,
        );
        session.launch(
            &kernel,
            grid_2d(nj, ni),
            BLOCK_2D,
            0,
            &[
                (&d_a).into(),
                (&d_b).into(),
                (&d_c).into(),
                int(ni),
                int(nj),
                int(nk),
            ],
        )?;
        let got = d_c.to_host()?;

        let mut expected: Vec<f32> = c.iter().map(|x| x * BETA).collect();
        common::matmul_acc(&mut expected, &a, &b, ni, nk, nj, ALPHA);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
