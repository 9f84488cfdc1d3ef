//! Polybench-GPU syrk: C = α·A·Aᵀ + β·C in one launch of `syrk_kernel` (32 × 8 threads per
//! block, one thread per element of the whole n × n matrix C, accumulating in global memory).
//!
//! Inputs are Polybench-GPU's formulas: A[i][k] = i·k/n, C[i][j] = (i·j + 2)/n. Validation is
//! bit-exact: each element is `c·β` then `fma(α·A[i][k], A[j][k], c)` for k ascending (see
//! `syrk.ptx`), which [`common::matmul_acc`] reproduces with Aᵀ as the right-hand matrix.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// Polybench-GPU's constants.
const ALPHA: f32 = 12435.0;
const BETA: f32 = 4546.0;

/// (n, m) per size: small Polybench's MINI dataset (n 30, m 20); default Polybench's MEDIUM
/// (240, 200), since Polybench-GPU's own 1024 (≈ 7.5 G thread instructions) and Polybench's
/// LARGE (1200, 1000, ≈ 10 G) exceed the default budget; large 768 × 768 (≈ 3.2 G).
fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (30, 20),
        Size::Default => (240, 200),
        Size::Large => (768, 768),
    }
}

/// Polybench-GPU syrk as a registered sample.
pub struct Syrk;

impl Sample for Syrk {
    fn name(&self) -> &'static str {
        "polybench/syrk"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["syrk_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (n, m) = dims(size);
        format!("C {n} × {n} += A {n} × {m} · Aᵀ")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (n, m) = dims(size);
        let nf = n as f32;
        let a = common::matrix(n, m, |i, k| i * k / nf);
        let c = common::matrix(n, n, |i, j| (i * j + 2.0) / nf);

        let mut session = Session::new(dev);
        let module = session.load("polybench/syrk/syrk.ptx")?;
        let kernel = module.kernel("syrk_kernel")?;
        let (d_a, d_c) = (common::upload(dev, &a)?, common::upload(dev, &c)?);
        session.launch(
            &kernel,
            grid_2d(n, n),
            BLOCK_2D,
            0,
            &[(&d_a).into(), (&d_c).into(), int(n), int(m)],
        )?;
        let got = d_c.to_host()?;

        let mut expected: Vec<f32> = c.iter().map(|x| x * BETA).collect();
        let a_t = common::transpose(&a, n, m);
        common::matmul_acc(&mut expected, &a, &a_t, n, m, n, ALPHA);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
