//! Polybench-GPU 3mm: G = (A·B)·(C·D) in three launches, `mm3_kernel1` (E = A·B),
//! `mm3_kernel2` (F = C·D) and `mm3_kernel3` (G = E·F), 32 × 8 threads per block, one thread per
//! output element which zeroes it and accumulates in global memory.
//!
//! Inputs are Polybench-GPU's formulas: A[i][k] = i·k/ni, B[k][j] = k·(j+1)/nj,
//! C[j][m] = j·(m+3)/nl, D[m][l] = m·(l+2)/nk. Validation is bit-exact on E, F and G: each
//! element is a chain of `fma(x, y, acc)` from 0 in ascending order (see `3mm.ptx`), which
//! [`common::matmul_acc`] reproduces.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// (ni, nj, nk, nl, nm) per size: small Polybench's MINI dataset; default Polybench-GPU's own
/// 512 for every dimension (≈ 2.7 G thread instructions); large 640 (≈ 5 G).
fn dims(size: Size) -> (usize, usize, usize, usize, usize) {
    match size {
        Size::Small => (16, 18, 20, 22, 24),
        Size::Default => (512, 512, 512, 512, 512),
        Size::Large => (640, 640, 640, 640, 640),
    }
}

/// Polybench-GPU 3mm as a registered sample.
pub struct Mm3;

impl Sample for Mm3 {
    fn name(&self) -> &'static str {
        "polybench/3mm"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mm3_kernel1", "mm3_kernel2", "mm3_kernel3"]
    }

    fn size_description(&self, size: Size) -> String {
        let (ni, nj, nk, nl, nm) = dims(size);
        format!("(A {ni} × {nk} · B {nk} × {nj}) · (C {nj} × {nm} · D {nm} × {nl})")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (ni, nj, nk, nl, nm) = dims(size);
        let a = common::matrix(ni, nk, |i, k| i * k / ni as f32);
        let b = common::matrix(nk, nj, |k, j| k * (j + 1.0) / nj as f32);
        let c = common::matrix(nj, nm, |j, m| j * (m + 3.0) / nl as f32);
        let d = common::matrix(nm, nl, |m, l| m * (l + 2.0) / nk as f32);

        let mut session = Session::new(dev);
        let module = session.load("polybench/3mm/3mm.ptx")?;
        let kernels = [
            module.kernel("mm3_kernel1")?,
            module.kernel("mm3_kernel2")?,
            module.kernel("mm3_kernel3")?,
        ];
        let (d_a, d_b) = (common::upload(dev, &a)?, common::upload(dev, &b)?);
        let (d_c, d_d) = (common::upload(dev, &c)?, common::upload(dev, &d)?);
        let d_e = common::zeros(dev, ni * nj)?;
        let d_f = common::zeros(dev, nj * nl)?;
        let d_g = common::zeros(dev, ni * nl)?;
        // (x, y, z, rows, cols, inner) per launch: z = x · y.
        let launches = [
            (&d_a, &d_b, &d_e, ni, nj, nk),
            (&d_c, &d_d, &d_f, nj, nl, nm),
            (&d_e, &d_f, &d_g, ni, nl, nj),
        ];
        for (kernel, (x, y, z, rows, cols, inner)) in kernels.iter().zip(launches) {
            session.launch(
                kernel,
                grid_2d(cols, rows),
                BLOCK_2D,
                0,
                &[
                    x.into(),
                    y.into(),
                    z.into(),
                    int(rows),
                    int(cols),
                    int(inner),
                ],
            )?;
        }
        let got = common::concat(&[&d_e.to_host()?, &d_f.to_host()?, &d_g.to_host()?]);

        let mut e = vec![0.0f32; ni * nj];
        common::matmul_acc(&mut e, &a, &b, ni, nk, nj, 1.0);
        let mut f = vec![0.0f32; nj * nl];
        common::matmul_acc(&mut f, &c, &d, nj, nm, nl, 1.0);
        let mut g = vec![0.0f32; ni * nl];
        common::matmul_acc(&mut g, &e, &f, ni, nj, nl, 1.0);
        let expected = common::concat(&[&e, &f, &g]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
