//! Parboil stencil: iterative 7-point 3-D Jacobi with Parboil's `block2D_hybrid_coarsen_x`,
//! launched once per iteration with the host swapping the two buffers. CTAs of 32 × 4 threads
//! (Parboil's tx, ty) cover a 64 × 4 tile of the xy plane, every thread coarsened over two
//! points along x, walking the z column with the current plane in shared memory.
//!
//! Parboil reads the grid from a file; here it is seeded uniform values in [0, 1), both device
//! buffers start from it (as in Parboil) so the boundary stays fixed. c0 = 1/6 and
//! c1 = 1/6/6 as in Parboil's host code.
//!
//! Validation is bit-exact: NVRTC keeps `(sum of six neighbours) * c1 - centre * c0` as
//! `mul.f32`, `mul.f32`, `sub.f32` (no contraction), summing the neighbours left to right as
//! written (z, y, then the x neighbour inside the tile before the other), and the CPU
//! reference does the same operations in the same order.

use super::common::uniform_f32;
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Parboil's thread-block shape (tx, ty); each thread covers two points along x.
const TX: usize = 32;
const TY: usize = 4;

/// One problem: an nx × ny × nz grid and the number of iterations (launches).
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    pub iterations: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (nx, ny, nz, iterations) = match size {
            // 2 × 3 CTAs (x and y tails partly outside the grid), 2 launches.
            Size::Small => (100, 10, 6, 2),
            // Parboil's `small` dataset (128 × 128 × 32, 100 iterations); its `default`
            // dataset (512 × 512 × 64, 100 iterations, ≈ 40 G thread instructions) is far
            // beyond a functional run's budget.
            Size::Default => (128, 128, 32, 100),
            // Parboil's `default` grid with 4 iterations.
            Size::Large => (512, 512, 64, 4),
        };
        Problem {
            nx,
            ny,
            nz,
            iterations,
        }
    }
}

const C0: f32 = 1.0 / 6.0;
const C1: f32 = 1.0 / 6.0 / 6.0;

/// The CPU reference: `iterations` Jacobi steps; boundary points keep their input value.
pub fn reference(input: &[f32], p: &Problem) -> Vec<f32> {
    let (nx, ny, nz) = (p.nx, p.ny, p.nz);
    let at = |i: usize, j: usize, k: usize| i + nx * (j + ny * k);
    let mut cur = input.to_vec();
    let mut next = input.to_vec();
    for _ in 0..p.iterations {
        for k in 1..nz - 1 {
            for j in 1..ny - 1 {
                for i in 1..nx - 1 {
                    // The kernel adds the x neighbour inside the tile before the one that may
                    // lie outside it: right then left for a thread's first point, left then
                    // right for its second.
                    let (x1, x2) = if i % (2 * TX) < TX {
                        (i + 1, i - 1)
                    } else {
                        (i - 1, i + 1)
                    };
                    let sum = cur[at(i, j, k + 1)]
                        + cur[at(i, j, k - 1)]
                        + cur[at(i, j + 1, k)]
                        + cur[at(i, j - 1, k)]
                        + cur[at(x1, j, k)]
                        + cur[at(x2, j, k)];
                    next[at(i, j, k)] = sum * C1 - cur[at(i, j, k)] * C0;
                }
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

/// Parboil stencil as a registered sample.
pub struct Stencil;

impl Sample for Stencil {
    fn name(&self) -> &'static str {
        "parboil/stencil"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["block2D_hybrid_coarsen_x"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        let origin = match size {
            Size::Default => " (Parboil's small dataset)",
            Size::Large => " (Parboil's default grid, 4 of its 100 iterations)",
            Size::Small => "",
        };
        format!(
            "{} × {} × {} grid, {} iterations{origin}",
            p.nx, p.ny, p.nz, p.iterations
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let input = uniform_f32(0x5354_454E_0001, p.nx * p.ny * p.nz, 0.0, 1.0);

        let mut session = Session::new(dev);
        let module = session.load("parboil/stencil/stencil.ptx")?;
        let kernel = module.kernel("block2D_hybrid_coarsen_x")?;
        let mut bufs = [dev.alloc_from(&input)?, dev.alloc_from(&input)?];
        let grid = (p.nx.div_ceil(2 * TX) as u32, p.ny.div_ceil(TY) as u32);
        let shared = (2 * TX * TY * std::mem::size_of::<f32>()) as u64;
        for _ in 0..p.iterations {
            session.launch(
                &kernel,
                grid,
                (TX as u32, TY as u32),
                shared,
                &[
                    Arg::F32(C0),
                    Arg::F32(C1),
                    (&bufs[0]).into(),
                    (&bufs[1]).into(),
                    Arg::I32(p.nx as i32),
                    Arg::I32(p.ny as i32),
                    Arg::I32(p.nz as i32),
                ],
            )?;
            bufs.swap(0, 1);
        }
        let got = bufs[0].to_host()?;
        let expected = reference(&input, &p);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
