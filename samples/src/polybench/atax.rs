//! Polybench-GPU atax: y = Aᵀ·(A·x) in two launches of 256 × 1 threads per block,
//! `atax_kernel1` (tmp = A·x, one thread per row) then `atax_kernel2` (y = Aᵀ·tmp, one thread
//! per column), both accumulating in global memory into the host's zero-filled tmp and y.
//!
//! Inputs are Polybench-GPU's formulas: x[j] = j·π (computed in double, stored as float),
//! A[i][j] = i·j/nx. Validation is bit-exact on tmp and y: each element is a chain of
//! `fma(a, v, acc)` in ascending order (see `atax.ptx`), which [`common::matvec_acc`] and
//! [`common::matvec_t_acc`] reproduce.

use super::common::{self, BLOCK_1D, grid_1d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// Polybench-GPU's `M_PI`: `math.h`'s double π (the suite's fallback definition, 3.14159, only
/// applies where `math.h` lacks one).
pub const PI: f64 = std::f64::consts::PI;

/// (nx, ny) per size: small Polybench's MINI dataset (38 × 42, one partial block per launch);
/// default Polybench-GPU's own 4096 × 4096 (≈ 0.2 G thread instructions); large 8192 × 8192.
fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (38, 42),
        Size::Default => (4096, 4096),
        Size::Large => (8192, 8192),
    }
}

/// Polybench-GPU atax as a registered sample.
pub struct Atax;

impl Sample for Atax {
    fn name(&self) -> &'static str {
        "polybench/atax"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["atax_kernel1", "atax_kernel2"]
    }

    fn size_description(&self, size: Size) -> String {
        let (nx, ny) = dims(size);
        format!("y = Aᵀ·(A·x), A {nx} × {ny}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (nx, ny) = dims(size);
        let x: Vec<f32> = (0..ny).map(|j| (j as f64 * PI) as f32).collect();
        let a = common::matrix(nx, ny, |i, j| i * j / nx as f32);

        let mut session = Session::new(dev);
        let module = session.load("polybench/atax/atax.ptx")?;
        let (k1, k2) = (
            module.kernel("atax_kernel1")?,
            module.kernel("atax_kernel2")?,
        );
        let (d_a, d_x) = (common::upload(dev, &a)?, common::upload(dev, &x)?);
        let (d_tmp, d_y) = (common::zeros(dev, nx)?, common::zeros(dev, ny)?);
        session.launch(
            &k1,
            grid_1d(nx),
            BLOCK_1D,
            0,
            &[
                (&d_a).into(),
                (&d_x).into(),
                (&d_tmp).into(),
                int(nx),
                int(ny),
            ],
        )?;
        session.launch(
            &k2,
            grid_1d(ny),
            BLOCK_1D,
            0,
            &[
                (&d_a).into(),
                (&d_y).into(),
                (&d_tmp).into(),
                int(nx),
                int(ny),
            ],
        )?;
        let got = common::concat(&[&d_tmp.to_host()?, &d_y.to_host()?]);

        let mut tmp = vec![0.0f32; nx];
        common::matvec_acc(&mut tmp, &a, &x, nx, ny);
        let mut y = vec![0.0f32; ny];
        common::matvec_t_acc(&mut y, &a, &tmp, nx, ny);
        let expected = common::concat(&[&tmp, &y]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
