//! Polybench-GPU gesummv: y = α·A·x + β·B·x in one launch of `gesummv_kernel` (256 × 1 threads
//! per block, one thread per row accumulating both dot products in global memory, in the
//! host's zero-filled tmp and y, then combining them).
//!
//! Inputs are Polybench-GPU's formulas: x[j] = j/n, A[i][j] = i·j/n; B, which Polybench-GPU
//! leaves uninitialised (as it does tmp and y, zero-filled here), takes Polybench's formula for
//! it, the same as A's. Validation is bit-exact on tmp and y: both sums are `fma` chains in
//! ascending order and the final step is `fma(tmp, α, β·y)` (see `gesummv.ptx`); the reference
//! does the same.

use super::common::{self, BLOCK_1D, grid_1d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// Polybench-GPU's constants.
const ALPHA: f32 = 43532.0;
const BETA: f32 = 12313.0;

/// n per size: small Polybench's MINI dataset (30); default Polybench-GPU's own 4096
/// (≈ 0.2 G thread instructions); large 8192.
fn order(size: Size) -> usize {
    match size {
        Size::Small => 30,
        Size::Default => 4096,
        Size::Large => 8192,
    }
}

/// Polybench-GPU gesummv as a registered sample.
pub struct Gesummv;

impl Sample for Gesummv {
    fn name(&self) -> &'static str {
        "polybench/gesummv"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["gesummv_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let n = order(size);
        format!("y = α·A·x + β·B·x, A and B {n} × {n}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = order(size);
        let nf = n as f32;
        let x = common::vector(n, |j| j / nf);
        let a = common::matrix(n, n, |i, j| i * j / nf);
        let b = a.clone();

        let mut session = Session::new(dev);
        let module = session.load("polybench/gesummv/gesummv.ptx")?;
        let kernel = module.kernel("gesummv_kernel")?;
        let (d_a, d_b, d_x) = (
            common::upload(dev, &a)?,
            common::upload(dev, &b)?,
            common::upload(dev, &x)?,
        );
        let (d_y, d_tmp) = (common::zeros(dev, n)?, common::zeros(dev, n)?);
        session.launch(
            &kernel,
            grid_1d(n),
            BLOCK_1D,
            0,
            &[
                (&d_a).into(),
                (&d_b).into(),
                (&d_x).into(),
                (&d_y).into(),
                (&d_tmp).into(),
                int(n),
            ],
        )?;
        let got = common::concat(&[&d_tmp.to_host()?, &d_y.to_host()?]);

        let mut tmp = vec![0.0f32; n];
        common::matvec_acc(&mut tmp, &a, &x, n, n);
        let mut y = vec![0.0f32; n];
        common::matvec_acc(&mut y, &b, &x, n, n);
        for (yi, ti) in y.iter_mut().zip(&tmp) {
            *yi = ti.mul_add(ALPHA, BETA * *yi);
        }
        let expected = common::concat(&[&tmp, &y]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
