//! Polybench-GPU 2DConvolution: a 3 × 3 convolution with the suite's fixed coefficients in one
//! launch of `Convolution2D_kernel` (32 × 8 threads per block, one thread per pixel; border
//! pixels untouched and left zero).
//!
//! Polybench-GPU fills the image with `rand() / RAND_MAX`; here it is seeded uniform [0, 1).
//! Validation is bit-exact on the whole output: NVRTC computes the second term first as a
//! `mul.f32` and folds the other eight into it with `fma.rn.f32` in source order (see
//! `2dconv.ptx`); the reference does the same.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// The coefficients by offset (row di, column dj), as the kernel's c11 … c33.
const COEFF: [[f32; 3]; 3] = [[0.2, 0.5, -0.8], [-0.3, 0.6, -0.9], [0.4, 0.7, 0.10]];

/// (ni, nj) per size: small 18 × 40 (partial blocks in both dimensions); default
/// Polybench-GPU's own 4096 × 4096 (≈ 1 G thread instructions); large 8192 × 8192.
fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (18, 40),
        Size::Default => (4096, 4096),
        Size::Large => (8192, 8192),
    }
}

/// The CPU reference: every interior pixel with the kernel's operation order.
fn reference(a: &[f32], ni: usize, nj: usize) -> Vec<f32> {
    let mut b = vec![0.0f32; ni * nj];
    for i in 1..ni.saturating_sub(1) {
        for j in 1..nj - 1 {
            let at = |di: usize, dj: usize| a[(i + di - 1) * nj + (j + dj - 1)];
            let mut acc = COEFF[0][1] * at(0, 1);
            acc = COEFF[0][0].mul_add(at(0, 0), acc);
            for (di, dj) in [(0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)] {
                acc = COEFF[di][dj].mul_add(at(di, dj), acc);
            }
            b[i * nj + j] = acc;
        }
    }
    b
}

/// Polybench-GPU 2DConvolution as a registered sample.
pub struct Conv2d;

impl Sample for Conv2d {
    fn name(&self) -> &'static str {
        "polybench/2dconv"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["Convolution2D_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (ni, nj) = dims(size);
        format!("{ni} × {nj} image, 3 × 3 filter")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (ni, nj) = dims(size);
        let mut rng = Rng::new(0x5042_3244_0001);
        let a: Vec<f32> = (0..ni * nj).map(|_| rng.f32_in(0.0, 1.0)).collect();

        let mut session = Session::new(dev);
        let module = session.load("polybench/2dconv/2dconv.ptx")?;
        let kernel = module.kernel("Convolution2D_kernel")?;
        let (d_a, d_b) = (common::upload(dev, &a)?, common::zeros(dev, ni * nj)?);
        session.launch(
            &kernel,
            grid_2d(nj, ni),
            BLOCK_2D,
            0,
            &[(&d_a).into(), (&d_b).into(), int(ni), int(nj)],
        )?;
        let got = d_b.to_host()?;
        let expected = reference(&a, ni, nj);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
