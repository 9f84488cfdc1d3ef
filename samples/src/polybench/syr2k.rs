//! Polybench-GPU syr2k: C = α·A·Bᵀ + α·B·Aᵀ + β·C in one launch of `syr2k_kernel` (32 × 8
//! threads per block, one thread per element of the whole n × n matrix C, accumulating in
//! global memory).
//!
//! Inputs are Polybench-GPU's formulas: A[i][k] = i·k/n, B[i][k] = (i·k + 1)/n,
//! C[i][j] = (i·j + 2)/n. Validation is bit-exact: per k NVRTC computes
//! `t = fma(α·A[i][k], B[j][k], (α·B[i][k])·A[j][k])` and then `c + t` (see `syr2k.ptx`); the
//! reference does the same.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// Polybench-GPU's constants.
const ALPHA: f32 = 12435.0;
const BETA: f32 = 4546.0;

/// (n, m) per size: small Polybench's MINI dataset (n 30, m 20); default Polybench's MEDIUM
/// (240, 200), since Polybench-GPU's own 2048 (≈ 110 G thread instructions) and Polybench's
/// LARGE (1200, 1000) exceed the default budget; large 640 × 640 (≈ 3.3 G).
fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (30, 20),
        Size::Default => (240, 200),
        Size::Large => (640, 640),
    }
}

/// The CPU reference, with the kernel's operations in its order.
fn reference(a: &[f32], b: &[f32], c: &[f32], n: usize, m: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; n * n];
    for i in 0..n {
        let (ai, bi) = (&a[i * m..(i + 1) * m], &b[i * m..(i + 1) * m]);
        for j in 0..n {
            let (aj, bj) = (&a[j * m..(j + 1) * m], &b[j * m..(j + 1) * m]);
            let mut acc = c[i * n + j] * BETA;
            for k in 0..m {
                let t = (ALPHA * ai[k]).mul_add(bj[k], (ALPHA * bi[k]) * aj[k]);
                acc += t;
            }
            out[i * n + j] = acc;
        }
    }
    out
}

/// Polybench-GPU syr2k as a registered sample.
pub struct Syr2k;

impl Sample for Syr2k {
    fn name(&self) -> &'static str {
        "polybench/syr2k"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["syr2k_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (n, m) = dims(size);
        format!("C {n} × {n} += A·Bᵀ + B·Aᵀ, A and B {n} × {m}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (n, m) = dims(size);
        let nf = n as f32;
        let a = common::matrix(n, m, |i, k| i * k / nf);
        let b = common::matrix(n, m, |i, k| (i * k + 1.0) / nf);
        let c = common::matrix(n, n, |i, j| (i * j + 2.0) / nf);

        let mut session = Session::new(dev);
        let module = session.load("polybench/syr2k/syr2k.ptx")?;
        let kernel = module.kernel("syr2k_kernel")?;
        let (d_a, d_b, d_c) = (
            common::upload(dev, &a)?,
            common::upload(dev, &b)?,
            common::upload(dev, &c)?,
        );
        session.launch(
            &kernel,
            grid_2d(n, n),
            BLOCK_2D,
            0,
            &[(&d_a).into(), (&d_b).into(), (&d_c).into(), int(n), int(m)],
        )?;
        let got = d_c.to_host()?;
        let expected = reference(&a, &b, &c, n, m);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
