//! Polybench-GPU 3DConvolution: the suite's fifteen-term 3 × 3 × 3 stencil, launched as
//! `convolution3D_kernel` once per interior plane i (32 × 8 threads per block over (k, j); border
//! points untouched and left zero).
//!
//! Input is Polybench-GPU's formula A[i][j][k] = i mod 12 + 2·(j mod 7) + 3·(k mod 13). Every
//! value, product and partial sum is a small integer (|x| < 2²⁴), so each is exact in f32 and
//! the result does not depend on how NVRTC orders or contracts the sum: validation is bit-exact.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// The fifteen (coefficient, di, dj, dk) terms of Polybench-GPU's kernel, in its order.
const TERMS: [(f32, isize, isize, isize); 15] = [
    (2.0, -1, -1, -1),
    (4.0, 1, -1, -1),
    (5.0, -1, -1, -1),
    (7.0, 1, -1, -1),
    (-8.0, -1, -1, -1),
    (10.0, 1, -1, -1),
    (-3.0, 0, -1, 0),
    (6.0, 0, 0, 0),
    (-9.0, 0, 1, 0),
    (2.0, -1, -1, 1),
    (4.0, 1, -1, 1),
    (5.0, -1, 0, 1),
    (7.0, 1, 0, 1),
    (-8.0, -1, 1, 1),
    (10.0, 1, 1, 1),
];

/// (ni, nj, nk) per size: small 6 × 12 × 40 (4 launches, partial blocks in both dimensions);
/// default Polybench-GPU's own 256³ (254 launches, ≈ 1.8 G thread instructions); large 384³.
fn dims(size: Size) -> (usize, usize, usize) {
    match size {
        Size::Small => (6, 12, 40),
        Size::Default => (256, 256, 256),
        Size::Large => (384, 384, 384),
    }
}

/// The CPU reference over every interior point.
fn reference(a: &[f32], ni: usize, nj: usize, nk: usize) -> Vec<f32> {
    let mut b = vec![0.0f32; a.len()];
    let index = |i: usize, j: usize, k: usize| (i * nj + j) * nk + k;
    for i in 1..ni - 1 {
        for j in 1..nj - 1 {
            for k in 1..nk - 1 {
                b[index(i, j, k)] = TERMS.iter().fold(0.0f32, |acc, &(c, di, dj, dk)| {
                    let at = index(
                        i.wrapping_add_signed(di),
                        j.wrapping_add_signed(dj),
                        k.wrapping_add_signed(dk),
                    );
                    acc + c * a[at]
                });
            }
        }
    }
    b
}

/// Polybench-GPU 3DConvolution as a registered sample.
pub struct Conv3d;

impl Sample for Conv3d {
    fn name(&self) -> &'static str {
        "polybench/3dconv"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["convolution3D_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (ni, nj, nk) = dims(size);
        format!("{ni} × {nj} × {nk} volume, {} launches", ni - 2)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (ni, nj, nk) = dims(size);
        let mut a = Vec::with_capacity(ni * nj * nk);
        for i in 0..ni {
            for j in 0..nj {
                for k in 0..nk {
                    a.push((i % 12 + 2 * (j % 7) + 3 * (k % 13)) as f32);
                }
            }
        }

        let mut session = Session::new(dev);
        let module = session.load("polybench/3dconv/3dconv.ptx")?;
        let kernel = module.kernel("convolution3D_kernel")?;
        let (d_a, d_b) = (common::upload(dev, &a)?, common::zeros(dev, a.len())?);
        for i in 1..ni - 1 {
            session.launch(
                &kernel,
                grid_2d(nk, nj),
                BLOCK_2D,
                0,
                &[
                    (&d_a).into(),
                    (&d_b).into(),
                    int(i),
                    int(ni),
                    int(nj),
                    int(nk),
                ],
            )?;
        }
        let got = d_b.to_host()?;
        let expected = reference(&a, ni, nj, nk);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
