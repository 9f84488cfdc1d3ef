//! Polybench-GPU bicg: the BiCG sub-kernel, s = Aᵀ·r and q = A·p, in two launches of 256 × 1
//! threads per block: `bicg_kernel1` (s, one thread per column) then `bicg_kernel2` (q, one
//! thread per row), each thread zeroing its element and accumulating in global memory.
//!
//! Inputs are Polybench-GPU's formulas: r[i] = i·π and p[j] = j·π (in double, stored as
//! float), A[i][j] = i·j/nx. Validation is bit-exact on s and q: each element is a chain of
//! `fma` in ascending order (see `bicg.ptx`), which [`common::matvec_t_acc`] and
//! [`common::matvec_acc`] reproduce.

use super::atax::PI;
use super::common::{self, BLOCK_1D, grid_1d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// (nx, ny) per size: small Polybench's MINI dataset (A 42 × 38); default Polybench-GPU's own
/// 4096 × 4096 (≈ 0.2 G thread instructions); large 8192 × 8192.
fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (42, 38),
        Size::Default => (4096, 4096),
        Size::Large => (8192, 8192),
    }
}

/// Polybench-GPU bicg as a registered sample.
pub struct Bicg;

impl Sample for Bicg {
    fn name(&self) -> &'static str {
        "polybench/bicg"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["bicg_kernel1", "bicg_kernel2"]
    }

    fn size_description(&self, size: Size) -> String {
        let (nx, ny) = dims(size);
        format!("s = Aᵀ·r, q = A·p, A {nx} × {ny}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (nx, ny) = dims(size);
        let r: Vec<f32> = (0..nx).map(|i| (i as f64 * PI) as f32).collect();
        let p: Vec<f32> = (0..ny).map(|j| (j as f64 * PI) as f32).collect();
        let a = common::matrix(nx, ny, |i, j| i * j / nx as f32);

        let mut session = Session::new(dev);
        let module = session.load("polybench/bicg/bicg.ptx")?;
        let (k1, k2) = (
            module.kernel("bicg_kernel1")?,
            module.kernel("bicg_kernel2")?,
        );
        let (d_a, d_r, d_p) = (
            common::upload(dev, &a)?,
            common::upload(dev, &r)?,
            common::upload(dev, &p)?,
        );
        let (d_s, d_q) = (common::zeros(dev, ny)?, common::zeros(dev, nx)?);
        session.launch(
            &k1,
            grid_1d(ny),
            BLOCK_1D,
            0,
            &[
                (&d_a).into(),
                (&d_r).into(),
                (&d_s).into(),
                int(nx),
                int(ny),
            ],
        )?;
        session.launch(
            &k2,
            grid_1d(nx),
            BLOCK_1D,
            0,
            &[
                (&d_a).into(),
                (&d_p).into(),
                (&d_q).into(),
                int(nx),
                int(ny),
            ],
        )?;
        let got = common::concat(&[&d_s.to_host()?, &d_q.to_host()?]);

        let mut s = vec![0.0f32; ny];
        common::matvec_t_acc(&mut s, &a, &r, nx, ny);
        let mut q = vec![0.0f32; nx];
        common::matvec_acc(&mut q, &a, &p, nx, ny);
        let expected = common::concat(&[&s, &q]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
