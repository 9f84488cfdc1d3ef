//! Polybench-GPU 2mm: E = (A·B)·D in two launches, `mm2_kernel1` (tmp = A·B) then
//! `mm2_kernel2` (E = tmp·D), 32 × 8 threads per block, one thread per output element
//! accumulating in global memory into the host's zero-filled tmp and E.
//!
//! Inputs are Polybench-GPU's formulas: A[i][k] = i·k/ni, B[k][j] = k·(j+1)/nj,
//! D[j][l] = j·(l+2)/nk. Validation is bit-exact on tmp and E: every element is a chain of
//! `fma(x, y, acc)` in ascending k (see `2mm.ptx`), which [`common::matmul_acc`] reproduces.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// (ni, nj, nk, nl) per size. Polybench-GPU's own size (2048 each, ≈ 120 G thread
/// instructions) and Polybench's LARGE (≈ 11 G) are beyond the default budget, so default is
/// Polybench's MEDIUM dataset; small is MINI (partial blocks everywhere); large is
/// Polybench-GPU's square shape at 512 (≈ 1.8 G).
fn dims(size: Size) -> (usize, usize, usize, usize) {
    match size {
        Size::Small => (16, 18, 22, 24),
        Size::Default => (180, 190, 210, 220),
        Size::Large => (512, 512, 512, 512),
    }
}

/// Polybench-GPU 2mm as a registered sample.
pub struct Mm2;

impl Sample for Mm2 {
    fn name(&self) -> &'static str {
        "polybench/2mm"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mm2_kernel1", "mm2_kernel2"]
    }

    fn size_description(&self, size: Size) -> String {
        let (ni, nj, nk, nl) = dims(size);
        format!("(A {ni} × {nk} · B {nk} × {nj}) · D {nj} × {nl}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (ni, nj, nk, nl) = dims(size);
        let a = common::matrix(ni, nk, |i, k| i * k / ni as f32);
        let b = common::matrix(nk, nj, |k, j| k * (j + 1.0) / nj as f32);
        let d = common::matrix(nj, nl, |j, l| j * (l + 2.0) / nk as f32);

        let mut session = Session::new(dev);
        let module = session.load("polybench/2mm/2mm.ptx")?;
        let (k1, k2) = (module.kernel("mm2_kernel1")?, module.kernel("mm2_kernel2")?);
        let (d_a, d_b, d_d) = (
            common::upload(dev, &a)?,
            common::upload(dev, &b)?,
            common::upload(dev, &d)?,
        );
        let (d_tmp, d_e) = (common::zeros(dev, ni * nj)?, common::zeros(dev, ni * nl)?);
        session.launch(
            &k1,
            grid_2d(nj, ni),
            BLOCK_2D,
            0,
            &[
                (&d_a).into(),
                (&d_b).into(),
                (&d_tmp).into(),
                int(ni),
                int(nj),
                int(nk),
            ],
        )?;
        session.launch(
            &k2,
            grid_2d(nl, ni),
            BLOCK_2D,
            0,
            &[
                (&d_tmp).into(),
                (&d_d).into(),
                (&d_e).into(),
                int(ni),
                int(nl),
                int(nj),
            ],
        )?;
        let got = common::concat(&[&d_tmp.to_host()?, &d_e.to_host()?]);

        let mut tmp = vec![0.0f32; ni * nj];
        common::matmul_acc(&mut tmp, &a, &b, ni, nk, nj, 1.0);
        let mut e = vec![0.0f32; ni * nl];
        common::matmul_acc(&mut e, &tmp, &d, ni, nj, nl, 1.0);
        let expected = common::concat(&[&tmp, &e]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
