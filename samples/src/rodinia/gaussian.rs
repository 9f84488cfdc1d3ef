//! Rodinia gaussian: forward elimination of `a x = b` with one `Fan1` (multipliers, 512
//! threads per block) and one `Fan2` (row updates, 4 × 4 blocks) launch per column, then
//! back-substitution on the host (Rodinia's `BackSub`).
//!
//! The matrix is Rodinia's `create_matrix` (the `-s SIZE` input: a symmetric Toeplitz matrix
//! with entries 10·e^(−0.01·|i−j|)); the right-hand side is seeded (Rodinia uses all ones).
//! NVRTC keeps `a -= m * x` as `mul.f32` then `sub.f32` (no contraction across the compound
//! assignment) and `/` is `div.rn.f32`, so the CPU reference does the same operations in the
//! same order and m, a, b and the solution are compared bit-exactly.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's MAXBLOCKSIZE (Fan1) and BLOCK_SIZE_XY (Fan2).
pub const MAXBLOCKSIZE: u32 = 512;
pub const BLOCK_SIZE_XY: u32 = 4;

/// Matrix order per size: small 64; default 208 (Rodinia's `matrix208` input, the size
/// simulator studies use; Rodinia's run script only solves 4 × 4 and 16 × 16); large 512.
pub fn order(size: Size) -> usize {
    match size {
        Size::Small => 64,
        Size::Default => 208,
        Size::Large => 512,
    }
}

/// Rodinia's `create_matrix`: a[i][j] = 10·exp(−0.01·|i − j|), in f32.
pub fn create_matrix(n: usize) -> Vec<f32> {
    let lambda = -0.01f32;
    let coe: Vec<f32> = (0..n).map(|k| 10.0 * (lambda * k as f32).exp()).collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = coe[i.abs_diff(j)];
        }
    }
    a
}

/// The seeded right-hand side.
pub fn rhs(n: usize) -> Vec<f32> {
    let mut rng = Rng::new(0x6A55_0001);
    (0..n).map(|_| rng.f32_in(-1.0, 1.0)).collect()
}

/// The CPU reference of the forward phase: (m, a, b) after every Fan1/Fan2 pair.
pub fn forward(n: usize, mut a: Vec<f32>, mut b: Vec<f32>) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut m = vec![0.0f32; n * n];
    for t in 0..n.saturating_sub(1) {
        // Fan1
        for row in t + 1..n {
            m[n * row + t] = a[n * row + t] / a[n * t + t];
        }
        // Fan2: rows below t, columns from t on (row t is only read).
        for row in t + 1..n {
            let mult = m[n * row + t];
            for col in t..n {
                let prod = mult * a[n * t + col];
                a[n * row + col] -= prod;
            }
            let prod = mult * b[t];
            b[row] -= prod;
        }
    }
    (m, a, b)
}

/// Rodinia's `BackSub` on the host.
pub fn back_sub(n: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut x = vec![0.0f32; n];
    for i in 0..n {
        let r = n - i - 1;
        x[r] = b[r];
        for j in 0..i {
            let c = n - j - 1;
            x[r] -= a[n * r + c] * x[c];
        }
        x[r] /= a[n * r + r];
    }
    x
}

/// Rodinia gaussian as a registered sample.
pub struct Gaussian;

impl Sample for Gaussian {
    fn name(&self) -> &'static str {
        "rodinia/gaussian"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["Fan1", "Fan2"]
    }

    fn size_description(&self, size: Size) -> String {
        let n = order(size);
        format!(
            "{n} × {n} system, {} Fan1 + Fan2 launch pairs",
            n.saturating_sub(1)
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = order(size);
        let mut session = Session::new(dev);
        let module = session.load("rodinia/gaussian/gaussian.ptx")?;
        let (fan1, fan2) = (module.kernel("Fan1")?, module.kernel("Fan2")?);
        let (a, b) = (create_matrix(n), rhs(n));
        let d_m = dev.alloc_from(&vec![0.0f32; n * n])?; // InitPerRun zeroes m
        let d_a = dev.alloc_from(&a)?;
        let d_b = dev.alloc_from(&b)?;

        let grid = (n as u32).div_ceil(MAXBLOCKSIZE);
        let grid_xy = (n as u32).div_ceil(BLOCK_SIZE_XY);
        for t in 0..n.saturating_sub(1) {
            session.launch(
                &fan1,
                grid,
                MAXBLOCKSIZE,
                0,
                &[
                    (&d_m).into(),
                    (&d_a).into(),
                    Arg::I32(n as i32),
                    Arg::I32(t as i32),
                ],
            )?;
            session.launch(
                &fan2,
                (grid_xy, grid_xy),
                (BLOCK_SIZE_XY, BLOCK_SIZE_XY),
                0,
                &[
                    (&d_m).into(),
                    (&d_a).into(),
                    (&d_b).into(),
                    Arg::I32(n as i32),
                    Arg::I32((n - t) as i32),
                    Arg::I32(t as i32),
                ],
            )?;
        }
        let (m, a_out, b_out) = (d_m.to_host()?, d_a.to_host()?, d_b.to_host()?);
        let x = back_sub(n, &a_out, &b_out);

        let (em, ea, eb) = forward(n, a, b);
        let ex = back_sub(n, &ea, &eb);
        let got: Vec<f32> = [m, a_out, b_out, x].concat();
        let expected: Vec<f32> = [em, ea, eb, ex].concat();
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
