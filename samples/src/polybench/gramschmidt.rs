//! Polybench-GPU gramschmidt: QR decomposition of A (m × n) by classical Gram-Schmidt. For each
//! column k the host launches `gramschmidt_kernel1` (one block; thread 0 alone computes
//! R[k][k] = √(Σ A[i][k]²)), `gramschmidt_kernel2` (Q[i][k] = A[i][k] / R[k][k], one thread per
//! row) and `gramschmidt_kernel3` (one thread per column j > k: R[k][j] = Σ Q[i][k]·A[i][j] in
//! global memory, then A[i][j] −= Q[i][k]·R[k][j]), all 256 × 1 threads per block: 3n launches.
//!
//! Input: Polybench's formula A[i][j] = ((i·j mod m)/m)·100 + 10. Polybench-GPU's
//! (i+1)(j+1)/(m+1) is a rank-one matrix, whose later columns orthogonalise to rounding noise
//! or exact zeros (0/0 = NaN), so this port takes the formula of Polybench 4.2 instead.
//! Validation is bit-exact on A, R and Q: the norm and the dot products are `fma.rn.f32` chains
//! in ascending i, the root is `sqrt.rn.f32`, the quotient `div.rn.f32`, and the update is a
//! `mul.f32` then a `sub.f32` (NVRTC does not contract the compound `-=`; see
//! `gramschmidt.ptx`), which the reference repeats.

use super::common::{self, BLOCK_1D, grid_1d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// (m, n) per size: small 16 × 8 (24 launches: kernel 1 is serial, so the timing model's small
/// run stays short); default Polybench's MEDIUM dataset (200 × 240, 720 launches), since
/// Polybench-GPU's own 2048 × 2048 (≈ 70 G thread instructions) and Polybench's LARGE
/// (1000 × 1200, ≈ 12 G) exceed the default budget; large 512 × 512 (1536 launches, ≈ 1 G).
fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (16, 8),
        Size::Default => (200, 240),
        Size::Large => (512, 512),
    }
}

/// The CPU reference: (A, R, Q) after the whole factorisation, with the kernels' arithmetic.
fn reference(mut a: Vec<f32>, m: usize, n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut r = vec![0.0f32; n * n];
    let mut q = vec![0.0f32; m * n];
    for k in 0..n {
        let nrm = (0..m).fold(0.0f32, |acc, i| a[i * n + k].mul_add(a[i * n + k], acc));
        r[k * n + k] = nrm.sqrt();
        for i in 0..m {
            q[i * n + k] = a[i * n + k] / r[k * n + k];
        }
        for j in k + 1..n {
            let dot = (0..m).fold(0.0f32, |acc, i| q[i * n + k].mul_add(a[i * n + j], acc));
            r[k * n + j] = dot;
            for i in 0..m {
                a[i * n + j] -= q[i * n + k] * dot;
            }
        }
    }
    (a, r, q)
}

/// Polybench-GPU gramschmidt as a registered sample.
pub struct Gramschmidt;

impl Sample for Gramschmidt {
    fn name(&self) -> &'static str {
        "polybench/gramschmidt"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "gramschmidt_kernel1",
            "gramschmidt_kernel2",
            "gramschmidt_kernel3",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        let (m, n) = dims(size);
        format!("A {m} × {n} ({} launches)", 3 * n)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (m, n) = dims(size);
        let a: Vec<f32> = (0..m)
            .flat_map(|i| (0..n).map(move |j| ((i * j) % m) as f32 / m as f32 * 100.0 + 10.0))
            .collect();

        let mut session = Session::new(dev);
        let module = session.load("polybench/gramschmidt/gramschmidt.ptx")?;
        let k1 = module.kernel("gramschmidt_kernel1")?;
        let k2 = module.kernel("gramschmidt_kernel2")?;
        let k3 = module.kernel("gramschmidt_kernel3")?;
        let d_a = common::upload(dev, &a)?;
        let (d_r, d_q) = (common::zeros(dev, n * n)?, common::zeros(dev, m * n)?);
        for k in 0..n {
            let args = [
                (&d_a).into(),
                (&d_r).into(),
                (&d_q).into(),
                int(k),
                int(m),
                int(n),
            ];
            session.launch(&k1, 1u32, BLOCK_1D, 0, &args)?;
            session.launch(&k2, grid_1d(m), BLOCK_1D, 0, &args)?;
            session.launch(&k3, grid_1d(n), BLOCK_1D, 0, &args)?;
        }
        let got = common::concat(&[&d_a.to_host()?, &d_r.to_host()?, &d_q.to_host()?]);
        let (ea, er, eq) = reference(a, m, n);
        let expected = common::concat(&[&ea, &er, &eq]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
