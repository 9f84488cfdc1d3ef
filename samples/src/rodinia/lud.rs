//! Rodinia lud: in-place LU decomposition (no pivoting) of an n × n float matrix in 16 × 16
//! tiles. For each tile step the host launches `lud_diagonal` (1 CTA of 16 threads),
//! `lud_perimeter` (one CTA of 32 threads per tile right of / below the diagonal tile) and
//! `lud_internal` (16 × 16 threads per trailing tile), then a last `lud_diagonal`.
//!
//! Validation is bit-exact against a CPU reference that runs the same tiled algorithm with the
//! kernels' operation order: NVRTC keeps `x -= a * b` as `mul.f32` + `sub.f32` (no
//! contraction) in `lud_diagonal` and `lud_perimeter`, divides with `div.rn.f32`, and
//! accumulates `lud_internal`'s dot product with `fma.rn.f32` from 0 before one `sub.f32`
//! (see `lud.ptx`). A unit test checks that the reference's L·U reproduces the input.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Tile side (Rodinia's `BLOCK_SIZE`).
const B: usize = 16;

/// The matrix order for a size: small 64 (10 launches), default 256 (Rodinia's run script,
/// `lud_cuda -i 256.dat`; 46 launches), large 512 (Rodinia's 512.dat).
pub fn order(size: Size) -> usize {
    match size {
        Size::Small => 64,
        Size::Default => 256,
        Size::Large => 512,
    }
}

/// A deterministic, diagonally dominant n × n matrix (row-major), so the factorization without
/// pivoting is stable: off-diagonal entries uniform in [−1, 1), diagonal entries in [n, n + 1).
pub fn input(n: usize) -> Vec<f32> {
    let mut rng = Rng::new(0x4C55_4400_0001);
    let mut a = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = if i == j {
                rng.f32_in(n as f32, n as f32 + 1.0)
            } else {
                rng.f32_in(-1.0, 1.0)
            };
        }
    }
    a
}

type Tile = [[f32; B]; B];

fn load(m: &[f32], n: usize, row: usize, col: usize, rows: std::ops::Range<usize>) -> Tile {
    let mut t = [[0.0f32; B]; B];
    for r in rows {
        t[r].copy_from_slice(&m[(row + r) * n + col..][..B]);
    }
    t
}

fn store(m: &mut [f32], n: usize, row: usize, col: usize, t: &Tile, rows: std::ops::Range<usize>) {
    for r in rows {
        m[(row + r) * n + col..][..B].copy_from_slice(&t[r]);
    }
}

/// `lud_diagonal`: factor the tile at (offset, offset); rows 1.. are written back.
fn diagonal(m: &mut [f32], n: usize, offset: usize) {
    let mut t = load(m, n, offset, offset, 0..B);
    for i in 0..B - 1 {
        for r in i + 1..B {
            for j in 0..i {
                t[r][i] -= t[r][j] * t[j][i];
            }
            t[r][i] /= t[i][i];
        }
        for c in i + 1..B {
            for j in 0..=i {
                t[i + 1][c] -= t[i + 1][j] * t[j][c];
            }
        }
    }
    store(m, n, offset, offset, &t, 1..B);
}

/// `lud_perimeter`, CTA `k - 1`: the tile `k` tiles right of the diagonal one (U part) and the
/// tile `k` tiles below it (L part).
fn perimeter(m: &mut [f32], n: usize, offset: usize, k: usize) {
    let d = load(m, n, offset, offset, 0..B);
    let mut row = load(m, n, offset, offset + k * B, 0..B);
    let mut col = load(m, n, offset + k * B, offset, 0..B);
    // U part: each column independently, row i after rows 0..i (j ascending, as each thread).
    for i in 1..B {
        for j in 0..i {
            let above = row[j];
            for (x, y) in row[i].iter_mut().zip(above) {
                *x -= d[i][j] * y;
            }
        }
    }
    // L part: each row independently.
    for r in col.iter_mut() {
        for i in 0..B {
            for j in 0..i {
                r[i] -= r[j] * d[j][i];
            }
            r[i] /= d[i][i];
        }
    }
    store(m, n, offset, offset + k * B, &row, 1..B);
    store(m, n, offset + k * B, offset, &col, 0..B);
}

/// `lud_internal`, CTA (bx, by): the trailing tile (by + 1, bx + 1) tiles from the diagonal.
fn internal(m: &mut [f32], n: usize, offset: usize, bx: usize, by: usize) {
    let (gr, gc) = (offset + (by + 1) * B, offset + (bx + 1) * B);
    let row = load(m, n, offset, gc, 0..B);
    let col = load(m, n, gr, offset, 0..B);
    for ty in 0..B {
        for tx in 0..B {
            let mut sum = 0.0f32;
            for i in 0..B {
                sum = col[ty][i].mul_add(row[i][tx], sum);
            }
            m[(gr + ty) * n + gc + tx] -= sum;
        }
    }
}

/// The CPU reference: the same tiled factorization, step by step.
pub fn reference(a: &[f32], n: usize) -> Vec<f32> {
    let mut m = a.to_vec();
    let mut offset = 0;
    while offset < n - B {
        diagonal(&mut m, n, offset);
        let k = (n - offset) / B - 1;
        for t in 1..=k {
            perimeter(&mut m, n, offset, t);
        }
        for by in 0..k {
            for bx in 0..k {
                internal(&mut m, n, offset, bx, by);
            }
        }
        offset += B;
    }
    diagonal(&mut m, n, offset);
    m
}

/// Rodinia lud as a registered sample.
pub struct Lud;

impl Sample for Lud {
    fn name(&self) -> &'static str {
        "rodinia/lud"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["lud_diagonal", "lud_perimeter", "lud_internal"]
    }

    fn size_description(&self, size: Size) -> String {
        let n = order(size);
        format!("{n} × {n} matrix ({} launches)", 3 * (n / B - 1) + 1)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = order(size);
        let a = input(n);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/lud/lud.ptx")?;
        let k_diagonal = module.kernel("lud_diagonal")?;
        let k_perimeter = module.kernel("lud_perimeter")?;
        let k_internal = module.kernel("lud_internal")?;

        let d_m = dev.alloc_from(&a)?;
        let args = |offset: usize| [(&d_m).into(), Arg::I32(n as i32), Arg::I32(offset as i32)];
        let mut offset = 0;
        while offset < n - B {
            session.launch(&k_diagonal, 1, B as u32, 0, &args(offset))?;
            let k = ((n - offset) / B - 1) as u32;
            session.launch(&k_perimeter, k, 2 * B as u32, 0, &args(offset))?;
            session.launch(&k_internal, (k, k), (B as u32, B as u32), 0, &args(offset))?;
            offset += B;
        }
        session.launch(&k_diagonal, 1, B as u32, 0, &args(offset))?;

        let got = d_m.to_host()?;
        let expected = reference(&a, n);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference is an LU factorization: unit-lower L times upper U gives back the input.
    #[test]
    fn reference_factors_the_input() {
        let n = order(Size::Small);
        let a = input(n);
        let lu = reference(&a, n);
        for i in 0..n {
            for j in 0..n {
                let mut sum = 0.0f64;
                for k in 0..=i.min(j) {
                    let l = if k == i {
                        1.0
                    } else {
                        f64::from(lu[i * n + k])
                    };
                    sum += l * f64::from(lu[k * n + j]);
                }
                let want = f64::from(a[i * n + j]);
                assert!(
                    (sum - want).abs() <= 1e-4 * want.abs().max(1.0),
                    "({i}, {j}): L·U = {sum}, A = {want}"
                );
            }
        }
    }
}
