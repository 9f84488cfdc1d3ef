//! What the Polybench-GPU ports share: the suite's two block shapes, grids rounded up over them,
//! Polybench's formula-initialised matrices, and CPU references for the matrix products and
//! matrix-vector products that most of the kernels are.
//!
//! The references reproduce the kernels' arithmetic bit for bit: every thread of a
//! Polybench-GPU kernel sums in a fixed order, and NVRTC contracts each `acc += x * y` into one
//! `fma.rn.f32 acc' = x·y + acc`, which [`f32::mul_add`] computes with the same single rounding.

use runtime::{Arg, Device, DeviceBuffer};

/// The 2-D thread block of most Polybench-GPU kernels (`DIM_THREAD_BLOCK_X × _Y`).
pub const BLOCK_2D: (u32, u32) = (32, 8);
/// The 1-D thread block of the matrix-vector kernels.
pub const BLOCK_1D: u32 = 256;

/// Blocks of [`BLOCK_2D`] covering `cols` (x) × `rows` (y) threads, rounded up.
pub fn grid_2d(cols: usize, rows: usize) -> (u32, u32) {
    (
        cols.div_ceil(BLOCK_2D.0 as usize) as u32,
        rows.div_ceil(BLOCK_2D.1 as usize) as u32,
    )
}

/// Blocks of [`BLOCK_1D`] covering `n` threads, rounded up.
pub fn grid_1d(n: usize) -> u32 {
    n.div_ceil(BLOCK_1D as usize) as u32
}

/// An `i32` kernel argument from a size or index.
pub fn int(n: usize) -> Arg {
    Arg::I32(i32::try_from(n).expect("size fits an int"))
}

/// A row-major `rows × cols` matrix whose element (i, j) is `f(i, j)`, with i and j passed as
/// floats: Polybench initialises with C expressions such as `((DATA_TYPE) i*j) / n`, where the
/// cast makes the whole expression single precision.
pub fn matrix(rows: usize, cols: usize, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
    let mut m = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            m.push(f(i as f32, j as f32));
        }
    }
    m
}

/// A vector whose element i is `f(i)` (i as a float, see [`matrix`]).
pub fn vector(n: usize, f: impl Fn(f32) -> f32) -> Vec<f32> {
    (0..n).map(|i| f(i as f32)).collect()
}

/// Copies `data` to a new device buffer.
pub fn upload(dev: &Device, data: &[f32]) -> runtime::Result<DeviceBuffer<f32>> {
    dev.alloc_from(data)
}

/// A zero-filled device buffer of `n` floats.
pub fn zeros(dev: &Device, n: usize) -> runtime::Result<DeviceBuffer<f32>> {
    dev.alloc_from(&vec![0.0f32; n])
}

/// `c += (alpha·a) · b` as the 2-D product kernels compute it: a is `ni × nk`, b `nk × nj`,
/// c `ni × nj`; each element accumulates `fma(alpha·a[i][k], b[k][j], c[i][j])` for k in
/// ascending order. With `alpha` = 1 the scaling is exact, so plain products use it too. The
/// loop runs k outside j (cache-friendly) without changing any element's order of operations.
pub fn matmul_acc(
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    ni: usize,
    nk: usize,
    nj: usize,
    alpha: f32,
) {
    for i in 0..ni {
        let row = &mut c[i * nj..(i + 1) * nj];
        for k in 0..nk {
            let x = alpha * a[i * nk + k];
            for (cij, bkj) in row.iter_mut().zip(&b[k * nj..(k + 1) * nj]) {
                *cij = x.mul_add(*bkj, *cij);
            }
        }
    }
}

/// The transpose of a row-major `rows × cols` matrix.
pub fn transpose(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0f32; a.len()];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = a[i * cols + j];
        }
    }
    t
}

/// `y += a · x` with one thread per row (a is `rows × cols`): `y[i] = fma(a[i][j], x[j], y[i])`
/// for j ascending.
pub fn matvec_acc(y: &mut [f32], a: &[f32], x: &[f32], rows: usize, cols: usize) {
    for (i, yi) in y.iter_mut().enumerate().take(rows) {
        for (aij, xj) in a[i * cols..(i + 1) * cols].iter().zip(x) {
            *yi = aij.mul_add(*xj, *yi);
        }
    }
}

/// `y += aᵀ · x` with one thread per column (a is `rows × cols`): `y[j] = fma(a[i][j], x[i],
/// y[j])` for i ascending.
pub fn matvec_t_acc(y: &mut [f32], a: &[f32], x: &[f32], rows: usize, cols: usize) {
    for (i, xi) in x.iter().enumerate().take(rows) {
        for (yj, aij) in y.iter_mut().zip(&a[i * cols..(i + 1) * cols]) {
            *yj = aij.mul_add(*xi, *yj);
        }
    }
}

/// Several result arrays joined into one, so that one [`crate::Validation`] covers them all.
pub fn concat(parts: &[&[f32]]) -> Vec<f32> {
    parts.concat()
}
