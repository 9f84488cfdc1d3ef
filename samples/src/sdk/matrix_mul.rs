//! CUDA SDK matrixMul, in two variants over the same CPU reference: `sdk/matrixMul`, the
//! SDK's shared-memory tiled kernel (16 × 16 tiles, one launch over C's tiles), and
//! `sdk/matrixMul_naive`, one thread per element of C reading A and B from global memory.
//!
//! Both kernels accumulate C[i][j] = Σ_k A[i][k]·B[k][j] in k order from 0, and NVRTC contracts
//! every step into `fma.rn.f32` (the tiled kernel's unrolled inner loop as the naive loop), so
//! the reference is the same `f32::mul_add` chain and C is compared bit-exactly. Inputs are
//! seeded floats in [-1, 1) (the SDK fills A with 1.0 and B with 0.01, which would hide an
//! element read from the wrong place).

use super::common::uniform;
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// The SDK's tile (BLOCK_SIZE in matrixMul.cu); both kernels use 16 × 16 threads per block.
pub const BLOCK_SIZE: u32 = 16;

/// C = A · B with A `h_a` × `w_a` and B `w_a` × `w_b`, all row-major.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub h_a: usize,
    pub w_a: usize,
    pub w_b: usize,
}

/// The SDK's default dimensions: A 320 × 320 and B 320 × 640 (`dimsA(5·2·32, 5·2·32)`,
/// `dimsB(5·4·32, 5·2·32)` with its default block size 32), so C is 320 × 640.
const SDK_DEFAULT: Dims = Dims {
    h_a: 320,
    w_a: 320,
    w_b: 640,
};
/// Large: every dimension doubled.
const LARGE: Dims = Dims {
    h_a: 640,
    w_a: 640,
    w_b: 1280,
};

/// The tiled kernel's sizes, multiples of BLOCK_SIZE as it requires: small 32 × 48 · 48 × 64
/// (2 × 4 blocks, 3 tiles each).
pub fn tiled_dims(size: Size) -> Dims {
    match size {
        Size::Small => Dims {
            h_a: 32,
            w_a: 48,
            w_b: 64,
        },
        Size::Default => SDK_DEFAULT,
        Size::Large => LARGE,
    }
}

/// The naive kernel's sizes: small 40 × 24 · 24 × 56, not multiples of 16, so the boundary
/// blocks' guard is exercised.
pub fn naive_dims(size: Size) -> Dims {
    match size {
        Size::Small => Dims {
            h_a: 40,
            w_a: 24,
            w_b: 56,
        },
        Size::Default => SDK_DEFAULT,
        Size::Large => LARGE,
    }
}

/// Seeded A and B.
pub fn inputs(d: Dims) -> (Vec<f32>, Vec<f32>) {
    (
        uniform(0x5D4B_0101, d.h_a * d.w_a, -1.0, 1.0),
        uniform(0x5D4B_0102, d.w_a * d.w_b, -1.0, 1.0),
    )
}

/// The CPU reference: each element an fma chain over k from 0, as both kernels compute it
/// (walked row by row, k outer, so that B is read along its rows; each element's chain still
/// runs in k order).
pub fn reference(a: &[f32], b: &[f32], d: Dims) -> Vec<f32> {
    let mut c = vec![0.0f32; d.h_a * d.w_b];
    for (a_row, c_row) in a.chunks_exact(d.w_a).zip(c.chunks_exact_mut(d.w_b)) {
        for (a_ik, b_row) in a_row.iter().zip(b.chunks_exact(d.w_b)) {
            for (c_ij, b_kj) in c_row.iter_mut().zip(b_row) {
                *c_ij = a_ik.mul_add(*b_kj, *c_ij);
            }
        }
    }
    c
}

fn describe(d: Dims) -> String {
    format!(
        "A {} × {} · B {} × {} (C {} × {})",
        d.h_a, d.w_a, d.w_a, d.w_b, d.h_a, d.w_b
    )
}

/// Runs one of the two kernels: `naive` selects the kernel, its extra `hA` argument and
/// its rounded-up grid.
fn run(dev: &Device, d: Dims, naive: bool) -> runtime::Result<Outcome> {
    let (a, b) = inputs(d);
    let mut session = Session::new(dev);
    let (file, name) = if naive {
        ("sdk/matrixMul_naive/matrixMul_naive.ptx", "matrixMul_naive")
    } else {
        ("sdk/matrixMul/matrixMul.ptx", "matrixMul")
    };
    let module = session.load(file)?;
    let kernel = module.kernel(name)?;
    let d_a = dev.alloc_from(&a)?;
    let d_b = dev.alloc_from(&b)?;
    let d_c = dev.alloc::<f32>(d.h_a * d.w_b)?;
    let grid = (
        (d.w_b as u32).div_ceil(BLOCK_SIZE),
        (d.h_a as u32).div_ceil(BLOCK_SIZE),
    );
    let mut args: Vec<Arg> = vec![(&d_c).into(), (&d_a).into(), (&d_b).into()];
    if naive {
        args.push(Arg::I32(d.h_a as i32));
    }
    args.extend([Arg::I32(d.w_a as i32), Arg::I32(d.w_b as i32)]);
    session.launch(&kernel, grid, (BLOCK_SIZE, BLOCK_SIZE), 0, &args)?;
    let got = d_c.to_host()?;
    let expected = reference(&a, &b, d);
    Ok(session.finish(Validation::exact_f32(&got, &expected)))
}

/// The SDK's tiled matrixMul as a registered sample.
pub struct MatrixMul;

impl Sample for MatrixMul {
    fn name(&self) -> &'static str {
        "sdk/matrixMul"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["matrixMul"]
    }

    fn size_description(&self, size: Size) -> String {
        describe(tiled_dims(size))
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        run(dev, tiled_dims(size), false)
    }
}

/// The naive matrix multiply as a registered sample.
pub struct MatrixMulNaive;

impl Sample for MatrixMulNaive {
    fn name(&self) -> &'static str {
        "sdk/matrixMul_naive"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["matrixMul_naive"]
    }

    fn size_description(&self, size: Size) -> String {
        describe(naive_dims(size))
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        run(dev, naive_dims(size), true)
    }
}
