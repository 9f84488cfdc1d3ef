//! Parboil sgemm: single-precision C = α·A·Bᵀ + β·C with Parboil's register-tiled kernel
//! `mysgemmNT` (one launch): CTAs of 16 × 8 threads each compute a 128 × 16 tile of C, every
//! thread holding 16 partial sums of one row in registers while an 8 × 16 slice of Bᵀ is staged
//! in shared memory.
//!
//! Layouts are Parboil's: A column-major m × k, Bᵀ as n × k column-major (k rows of n), C
//! column-major m × n; α = 1, β = 0 as Parboil's host passes them (C is still read and
//! scaled, as in the kernel). Parboil reads its matrices from files; here they are seeded
//! uniform values in [−1, 1) with Parboil's dataset shapes.
//!
//! Validation is bit-exact: NVRTC contracts every `acc += a * b` into `fma.rn.f32` (summed in
//! k order) and the epilogue into `fma.rn.f32(C, β, α·acc)`, and the CPU reference performs
//! exactly those operations in that order.

use super::common::uniform_f32;
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Parboil's tile sizes: TILE_N columns, TILE_TB_HEIGHT rows of threads, TILE_M = their product.
const TILE_N: usize = 16;
const TILE_TB_HEIGHT: usize = 8;
const TILE_M: usize = TILE_N * TILE_TB_HEIGHT;

/// α and β as Parboil's host code passes them.
const ALPHA: f32 = 1.0;
const BETA: f32 = 0.0;

/// Matrix shapes (m, n, k) per size: m a multiple of 128, n of 16, k of 8, as the kernel needs.
fn shape(size: Size) -> (usize, usize, usize) {
    match size {
        // 2 × 2 CTAs, 4 steps along k.
        Size::Small => (256, 32, 32),
        // Parboil's `medium` dataset: A 1024 × 992, Bᵀ 1056 × 992.
        Size::Default => (1024, 1056, 992),
        Size::Large => (2048, 2048, 512),
    }
}

/// The CPU reference: C = fma(C, β, α·Σ_k A(m,k)·Bᵀ(n,k)) with the sum accumulated by fma in
/// k order, as each thread of `mysgemmNT` does.
pub fn reference(a: &[f32], bt: &[f32], c: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; m * n];
    let mut acc = vec![0.0f32; m];
    for col in 0..n {
        // A column of C at a time, k outermost: each sum still accumulates in k order, and A
        // is read contiguously.
        acc.fill(0.0);
        for kk in 0..k {
            let b = bt[col + kk * n];
            for (s, &x) in acc.iter_mut().zip(&a[kk * m..(kk + 1) * m]) {
                *s = x.mul_add(b, *s);
            }
        }
        for (row, &s) in acc.iter().enumerate() {
            let idx = row + col * m;
            out[idx] = c[idx].mul_add(BETA, ALPHA * s);
        }
    }
    out
}

/// Parboil sgemm as a registered sample.
pub struct Sgemm;

impl Sample for Sgemm {
    fn name(&self) -> &'static str {
        "parboil/sgemm"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mysgemmNT"]
    }

    fn size_description(&self, size: Size) -> String {
        let (m, n, k) = shape(size);
        let origin = if size == Size::Default {
            " (Parboil's medium dataset)"
        } else {
            ""
        };
        format!("C {m} × {n} = A {m} × {k} · Bᵀ ({n} × {k})ᵀ{origin}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (m, n, k) = shape(size);
        assert!(m % TILE_M == 0 && n % TILE_N == 0 && k % TILE_TB_HEIGHT == 0);
        let a = uniform_f32(0x5347_454D_0001, m * k, -1.0, 1.0);
        let bt = uniform_f32(0x5347_454D_0002, n * k, -1.0, 1.0);
        let c = uniform_f32(0x5347_454D_0003, m * n, -1.0, 1.0);

        let mut session = Session::new(dev);
        let module = session.load("parboil/sgemm/sgemm.ptx")?;
        let kernel = module.kernel("mysgemmNT")?;
        let d_a = dev.alloc_from(&a)?;
        let d_b = dev.alloc_from(&bt)?;
        let d_c = dev.alloc_from(&c)?;
        session.launch(
            &kernel,
            ((m / TILE_M) as u32, (n / TILE_N) as u32),
            (TILE_N as u32, TILE_TB_HEIGHT as u32),
            0,
            &[
                (&d_a).into(),
                Arg::I32(m as i32),
                (&d_b).into(),
                Arg::I32(n as i32),
                (&d_c).into(),
                Arg::I32(m as i32),
                Arg::I32(k as i32),
                Arg::F32(ALPHA),
                Arg::F32(BETA),
            ],
        )?;
        let got = d_c.to_host()?;
        let expected = reference(&a, &bt, &c, m, n, k);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
