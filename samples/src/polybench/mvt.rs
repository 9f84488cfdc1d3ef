//! Polybench-GPU mvt: x1 += A·y1 and x2 += Aᵀ·y2 in two launches of 256 × 1 threads per
//! block, `mvt_kernel1` and `mvt_kernel2`, one thread per element accumulating in global
//! memory (kernel 2's thread walks a column of A, so its loads coalesce across the warp).
//!
//! Inputs are Polybench's formulas: x1[i] = i/n, x2[i] = (i+1)/n, y1[i] = (i+3)/n,
//! y2[i] = (i+4)/n, A[i][j] = i·j/n. Validation is bit-exact on x1 and x2: chains of `fma` in
//! ascending order (see `mvt.ptx`), which [`common::matvec_acc`] and [`common::matvec_t_acc`]
//! reproduce.

use super::common::{self, BLOCK_1D, grid_1d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// n per size: small Polybench's MINI dataset (40); default Polybench-GPU's own 4096
/// (≈ 0.2 G thread instructions); large 8192.
fn order(size: Size) -> usize {
    match size {
        Size::Small => 40,
        Size::Default => 4096,
        Size::Large => 8192,
    }
}

/// Polybench-GPU mvt as a registered sample.
pub struct Mvt;

impl Sample for Mvt {
    fn name(&self) -> &'static str {
        "polybench/mvt"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mvt_kernel1", "mvt_kernel2"]
    }

    fn size_description(&self, size: Size) -> String {
        let n = order(size);
        format!("x1 += A·y1, x2 += Aᵀ·y2, A {n} × {n}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = order(size);
        let nf = n as f32;
        let x1 = common::vector(n, |i| i / nf);
        let x2 = common::vector(n, |i| (i + 1.0) / nf);
        let y1 = common::vector(n, |i| (i + 3.0) / nf);
        let y2 = common::vector(n, |i| (i + 4.0) / nf);
        let a = common::matrix(n, n, |i, j| i * j / nf);

        let mut session = Session::new(dev);
        let module = session.load("polybench/mvt/mvt.ptx")?;
        let (k1, k2) = (module.kernel("mvt_kernel1")?, module.kernel("mvt_kernel2")?);
        let d_a = common::upload(dev, &a)?;
        let (d_x1, d_x2) = (common::upload(dev, &x1)?, common::upload(dev, &x2)?);
        let (d_y1, d_y2) = (common::upload(dev, &y1)?, common::upload(dev, &y2)?);
        for (kernel, x, y) in [(&k1, &d_x1, &d_y1), (&k2, &d_x2, &d_y2)] {
            session.launch(
                kernel,
                grid_1d(n),
                BLOCK_1D,
                0,
                &[(&d_a).into(), x.into(), y.into(), int(n)],
            )?;
        }
        let got = common::concat(&[&d_x1.to_host()?, &d_x2.to_host()?]);

        let (mut e1, mut e2) = (x1, x2);
        common::matvec_acc(&mut e1, &a, &y1, n, n);
        common::matvec_t_acc(&mut e2, &a, &y2, n, n);
        let expected = common::concat(&[&e1, &e2]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
