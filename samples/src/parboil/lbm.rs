//! Parboil lbm: a D3Q19 lattice-Boltzmann simulation of a lid-driven cavity with obstacles
//! (Parboil's `cuda` version of SPEC's 470.lbm). One `performStreamCollide_kernel` launch per
//! time step, a CTA per (y, z) row and a thread per x cell; the host swaps the two grids
//! between steps.
//!
//! The grids have the layout of Parboil's CUDA `layout_config.h`: an array of 20-float cells
//! (19 distributions and a flag word, entry `e` at `e + 20 · ((z · PADDED_Y + y) · PADDED_X +
//! x)`), rows padded by 8 cells, 4 padding planes in z, and a 2-plane margin before and after
//! the cells; the kernel scatters (pushes) each distribution to its downstream neighbour. The
//! host
//! initialises both grids as Parboil does (`LBM_initializeGrid`: the equilibrium weights
//! 1/3, 1/18, 1/36 in every cell, flags clear; the obstacle file; then
//! `LBM_initializeSpecialCellsForLDC`: obstacles on the box's faces, for z from −2 to
//! SIZE_Z + 1, and the lid's ACCEL cells on the planes z = 1 and z = SIZE_Z − 2).
//!
//! Inputs: Parboil reads the obstacle geometry from a file (`120_120_150_ldc.of`); here it is
//! generated from a seeded [`Rng`]: a few solid spheres and boxes plus scattered single
//! obstacle cells. Parboil's default run is 100 time steps of the 120 × 120 × 150 grid (its
//! "short" dataset, ~64 G thread instructions); `default` runs 4 steps of that grid.
//!
//! Validation is bit-exact on both grids' whole allocations, margins and padding included
//! (the boundary cells push distributions out into the padding, and those entries of a grid
//! that no cell writes keep their value from two steps before, exactly as on the GPU). The
//! reference repeats the kernel's flat-array indexing and its arithmetic as
//! NVRTC emitted it: the sums in source order, `div.rn` for the velocities, `u2` as
//! `fma(fma(uz, uz, fma(ux, ux, uy·uy)), 1.5, −1)`, each factor `v·fma(v, 4.5, ±3) − u2`, and
//! NVRTC's rewriting of `(1 − ω)·f + w·X` as `w·X − 0.95000005·f` (for `C`:
//! `fma(f, −0.95000005, −w·u2)`). The compilers differ in one contraction, that of the 18
//! directional relaxations ([`Relaxation`]): NVRTC 12.9 (the committed `lbm.ptx`) and NVRTC 13
//! for compute_90 round `w·X` and subtract (`sub.f32` of two `mul.f32`), NVRTC 13 for
//! compute_120 fuses it (`fma(w, X, −0.95000005·f)`, samples/ptx-sets/cuda13-sm_120). The
//! driver reads which from the loaded kernel ([`Relaxation::of`]) and the reference computes
//! that, bit for bit.

use crate::Validation;
use crate::contraction::{FloatCode, FloatOp, is_f32_imm};
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Distributions and the flag word per cell (Parboil's `N_CELL_ENTRIES`).
const N_CELL_ENTRIES: usize = 20;
const FLAGS: usize = 19;
const OBSTACLE: u32 = 1;
const ACCEL: u32 = 2;
/// Padding in x and z (Parboil's `PADDING_X`, `PADDING_Z`; `PADDING_Y` is 0).
const PADDING_X: usize = 8;
const PADDING_Z: usize = 4;

/// Relaxation parameter and equilibrium weights.
const OMEGA: f32 = 1.95;
const DFL1: f32 = 1.0 / 3.0;
const DFL2: f32 = 1.0 / 18.0;
const DFL3: f32 = 1.0 / 36.0;

/// The 19 directions in Parboil's order (C, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB,
/// ET, EB, WT, WB) as (dx, dy, dz).
const DIRS: [(i32, i32, i32); 19] = [
    (0, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (1, 0, 0),
    (-1, 0, 0),
    (0, 0, 1),
    (0, 0, -1),
    (1, 1, 0),
    (-1, 1, 0),
    (1, -1, 0),
    (-1, -1, 0),
    (0, 1, 1),
    (0, 1, -1),
    (0, -1, 1),
    (0, -1, -1),
    (1, 0, 1),
    (1, 0, -1),
    (-1, 0, 1),
    (-1, 0, -1),
];
/// The opposite of each direction (bounce-back).
const OPPOSITE: [usize; 19] = [
    0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15,
];

/// `1 − ω` in f32 (−0.95000005), the relaxation's factor of the old distribution.
const ONE_MINUS_OMEGA: f32 = 1.0 - OMEGA;

/// How the kernel evaluates the 18 directional relaxations `w·X − 0.95000005·f` (`C`'s,
/// `fma(f, −0.95000005, −w·u2)`, is the same in every PTX).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relaxation {
    /// `w·X` and `0.95000005·f` each rounded, then subtracted: NVRTC 12.9 for compute_70 (the
    /// committed PTX) and NVRTC 13 for compute_90.
    Separate,
    /// `fma(w, X, −0.95000005·f)`: NVRTC 13 for compute_120.
    Fused,
}

impl Relaxation {
    /// Reads it from `performStreamCollide_kernel`'s code. The products by `±(1 − ω)` (a
    /// `mul.f32` by that immediate: `C`'s is an `fma` by it, not counted) are the 18
    /// directional relaxations' `(1 − ω)·f`; each is the addend of an `fma.rn.f32` (fused) or a
    /// source of an `add.f32`/`sub.f32` (separate). All 18 one way is that [`Relaxation`];
    /// anything else (a mix, or not 18) is an error naming the counts, since the reference
    /// models neither.
    pub fn of(kernel: &isa::Function) -> Result<Relaxation, String> {
        let code = FloatCode::of(kernel);
        let by_one_minus_omega = |o: &isa::Operand| {
            code.is_product(o, |factors| {
                factors
                    .iter()
                    .any(|f| is_f32_imm(f, ONE_MINUS_OMEGA) || is_f32_imm(f, -ONE_MINUS_OMEGA))
            })
        };
        let fused = code
            .ops(FloatOp::Fma)
            .filter(|i| by_one_minus_omega(&i.srcs[2]))
            .count();
        let separate = code
            .ops(FloatOp::Add)
            .chain(code.ops(FloatOp::Sub))
            .filter(|i| i.srcs.iter().any(by_one_minus_omega))
            .count();
        match (fused, separate) {
            (18, 0) => Ok(Relaxation::Fused),
            (0, 18) => Ok(Relaxation::Separate),
            _ => Err(format!(
                "parboil/lbm: the CPU reference cannot follow this PTX's contraction: of the \
                 products by ±(1 − ω) in `{}`, {fused} are the addend of an `fma.rn.f32` and \
                 {separate} are added separately; the reference knows all 18 directional \
                 relaxations fused or all separate",
                kernel.name
            )),
        }
    }
}

/// One problem: the grid and the number of time steps.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub size: [usize; 3],
    pub steps: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (size, steps) = match size {
            // Two warps per row (the second partial), lid and interior obstacle cells, three
            // steps so that values bounce back and stream twice.
            Size::Small => ([40, 5, 5], 3),
            // Parboil's 120 × 120 × 150 grid, 4 of its 100 steps (~0.64 G thread
            // instructions per step).
            Size::Default => ([120, 120, 150], 4),
            // Full warps (128 cells per row) and 1.5 times the cells.
            Size::Large => ([128, 128, 200], 4),
        };
        Problem { size, steps }
    }
}

/// Parboil's padded array-of-cells layout for a grid of `size` cells.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub size: [usize; 3],
    pub padded_x: usize,
    pub padded_xy: usize,
    pub total_padded_cells: usize,
}

impl Layout {
    pub fn new(size: [usize; 3]) -> Layout {
        let padded_x = size[0] + PADDING_X;
        let padded_xy = padded_x * size[1];
        Layout {
            size,
            padded_x,
            padded_xy,
            total_padded_cells: padded_xy * (size[2] + PADDING_Z),
        }
    }

    /// The margin before (and after) the cells, in floats: two z planes.
    pub fn margin(&self) -> usize {
        2 * self.padded_xy * N_CELL_ENTRIES
    }

    /// Floats in one grid's allocation.
    pub fn alloc_len(&self) -> usize {
        self.total_padded_cells * N_CELL_ENTRIES + 2 * self.margin()
    }

    /// Index in the allocation of entry `e` of cell (x, y, z) (`CALC_INDEX` + margin); the
    /// coordinates may lie outside the grid by a cell (two planes in z).
    pub fn index(&self, x: i64, y: i64, z: i64, e: usize) -> usize {
        let cell = z * self.padded_xy as i64 + y * self.padded_x as i64 + x;
        (self.margin() as i64 + e as i64 + N_CELL_ENTRIES as i64 * cell) as usize
    }
}

/// Obstacle cells inside the cavity: solid spheres and boxes and scattered single cells, at
/// seeded positions (Parboil's obstacle file). `true` marks an obstacle, indexed x-fastest.
pub fn obstacles(size: [usize; 3]) -> Vec<bool> {
    let [sx, sy, sz] = size;
    let mut rng = Rng::new(0x1B30_0001);
    let mut cell = vec![false; sx * sy * sz];
    let mut pick = |n: usize| (rng.next_u64() % n as u64) as i64;
    for shape in 0..6 {
        let centre = [pick(sx), pick(sy), pick(sz)];
        let r = 1 + pick((sx.min(sy).min(sz) / 6).max(1));
        for z in 0..sz as i64 {
            for y in 0..sy as i64 {
                for x in 0..sx as i64 {
                    let d = [x - centre[0], y - centre[1], z - centre[2]];
                    let inside = if shape % 2 == 0 {
                        d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r
                    } else {
                        d.iter().all(|v| v.abs() <= r / 2 + 1)
                    };
                    if inside {
                        cell[(z as usize * sy + y as usize) * sx + x as usize] = true;
                    }
                }
            }
        }
    }
    for _ in 0..(sx * sy * sz) / 100 {
        let (x, y, z) = (pick(sx) as usize, pick(sy) as usize, pick(sz) as usize);
        cell[(z * sy + y) * sx + x] = true;
    }
    cell
}

/// One grid initialised as Parboil's host does it (see the module documentation).
pub fn initial_grid(l: &Layout, obstacle: &[bool]) -> Vec<f32> {
    let [sx, sy, sz] = l.size.map(|v| v as i64);
    let mut g = vec![0.0f32; l.alloc_len()];
    for z in 0..sz {
        for y in 0..sy {
            for x in 0..sx {
                for (e, w) in [DFL1]
                    .into_iter()
                    .chain([DFL2; 6])
                    .chain([DFL3; 12])
                    .enumerate()
                {
                    g[l.index(x, y, z, e)] = w;
                }
                let o = obstacle[((z * sy + y) * sx + x) as usize];
                g[l.index(x, y, z, FLAGS)] = f32::from_bits(if o { OBSTACLE } else { 0 });
            }
        }
    }
    let set_flag = |g: &mut [f32], x, y, z, f: u32| {
        let i = l.index(x, y, z, FLAGS);
        g[i] = f32::from_bits(g[i].to_bits() | f);
    };
    for z in -2..sz + 2 {
        for y in 0..sy {
            for x in 0..sx {
                if x == 0 || x == sx - 1 || y == 0 || y == sy - 1 || z == 0 || z == sz - 1 {
                    set_flag(&mut g, x, y, z, OBSTACLE);
                } else if (z == 1 || z == sz - 2) && x > 1 && x < sx - 2 && y > 1 && y < sy - 2 {
                    set_flag(&mut g, x, y, z, ACCEL);
                }
            }
        }
    }
    g
}

/// One time step of the whole grid, as the kernel computes it: collide each cell (its relaxations
/// contracted as `relax` says), push each distribution to the neighbour it moves to.
pub fn step(l: &Layout, src: &[f32], dst: &mut [f32], relax: Relaxation) {
    let [sx, sy, sz] = l.size.map(|v| v as i64);
    for z in 0..sz {
        for y in 0..sy {
            for x in 0..sx {
                let mut f = [0.0f32; 19];
                for (e, v) in f.iter_mut().enumerate() {
                    *v = src[l.index(x, y, z, e)];
                }
                let flags = src[l.index(x, y, z, FLAGS)].to_bits();
                let out = if flags & OBSTACLE != 0 {
                    OPPOSITE.map(|o| f[o])
                } else {
                    collide(&f, flags & ACCEL != 0, relax)
                };
                for (e, (v, &(dx, dy, dz))) in out.iter().zip(&DIRS).enumerate() {
                    dst[l.index(x + dx as i64, y + dy as i64, z + dz as i64, e)] = *v;
                }
            }
        }
    }
}

/// The sum `±f[e]` over the directions with a nonzero `axis` component, in direction order
/// (which is the kernel's source order of each momentum sum; the first term is always +).
fn momentum(f: &[f32; 19], axis: usize) -> f32 {
    let component = |d: (i32, i32, i32)| [d.0, d.1, d.2][axis];
    let mut terms = (1..19).filter(|&e| component(DIRS[e]) != 0);
    let first = f[terms.next().unwrap()];
    terms.fold(first, |acc, e| {
        if component(DIRS[e]) > 0 {
            acc + f[e]
        } else {
            acc - f[e]
        }
    })
}

/// The BGK collision of one fluid cell in the kernel's arithmetic.
fn collide(f: &[f32; 19], accel: bool, relax: Relaxation) -> [f32; 19] {
    // 1 − ω in float: −0.95000005.
    let temp2 = ONE_MINUS_OMEGA;
    let rho = f[1..].iter().fold(f[0], |acc, v| acc + v);
    let (mut ux, mut uy, mut uz) = (momentum(f, 0), momentum(f, 1), momentum(f, 2));
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if accel {
        (ux, uy, uz) = (0.005, 0.002, 0.0);
    }
    let u2 = uz.mul_add(uz, ux.mul_add(ux, uy * uy)).mul_add(1.5, -1.0);
    let base = OMEGA * rho;
    let mut out = [0.0f32; 19];
    out[0] = f[0].mul_add(temp2, (base * -DFL1) * u2);
    for e in 1..19 {
        // The velocity's projection on the direction, as the kernel's source forms it
        // (`uy`, `-ux - uy`, `uz - uy`, ...). The kernel writes the negative axis directions
        // as `uy * (4.5 * uy - 3)`, which is exactly `(-uy) * (4.5 * (-uy) + 3)`.
        let (dx, dy, dz) = DIRS[e];
        let mut proj: Option<f32> = None;
        for (c, u) in [(dx, ux), (dy, uy), (dz, uz)] {
            proj = match (c, proj) {
                (0, p) => p,
                (c, None) => Some(if c > 0 { u } else { -u }),
                (c, Some(p)) => Some(if c > 0 { p + u } else { p - u }),
            };
        }
        let v = proj.unwrap();
        let weight = if dx.abs() + dy.abs() + dz.abs() == 1 {
            DFL2
        } else {
            DFL3
        };
        // NVRTC folds (1 − ω)·f + w·X into w·X − 0.95000005·f, contracted or not.
        let x = v * v.mul_add(4.5, 3.0) - u2;
        out[e] = match relax {
            Relaxation::Separate => (base * weight) * x - f[e] * -temp2,
            Relaxation::Fused => (base * weight).mul_add(x, f[e] * temp2),
        };
    }
    out
}

/// Parboil lbm as a registered sample.
pub struct Lbm;

impl Sample for Lbm {
    fn name(&self) -> &'static str {
        "parboil/lbm"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["performStreamCollide_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} × {} × {} cells, {} time steps",
            p.size[0], p.size[1], p.size[2], p.steps
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let l = Layout::new(p.size);
        let grid = initial_grid(&l, &obstacles(p.size));

        let mut session = Session::new(dev);
        let module = session.load("parboil/lbm/lbm.ptx")?;
        let kernel = module.kernel("performStreamCollide_kernel")?;
        // The reference follows the contraction of the PTX being run (module docs).
        let relax = Relaxation::of(kernel.function()).map_err(runtime::Error::InvalidValue)?;

        let d_grids = [dev.alloc_from(&grid)?, dev.alloc_from(&grid)?];
        let margin_bytes = (4 * l.margin()) as u64;
        let (mut src, mut dst) = (0usize, 1usize);
        for _ in 0..p.steps {
            session.launch(
                &kernel,
                (p.size[1] as u32, p.size[2] as u32),
                p.size[0] as u32,
                0,
                &[
                    Arg::Ptr(d_grids[src].device_ptr() + margin_bytes),
                    Arg::Ptr(d_grids[dst].device_ptr() + margin_bytes),
                    Arg::I32(l.padded_x as i32),
                    Arg::I32(l.padded_xy as i32),
                ],
            )?;
            std::mem::swap(&mut src, &mut dst);
        }

        // The reference, swapping its grids as the host does; `cur` ends as the newest.
        // (Buffers are reused: the large grids are ~300 MB each.)
        let mut next = grid.clone();
        let mut cur = grid;
        for _ in 0..p.steps {
            step(&l, &cur, &mut next, relax);
            std::mem::swap(&mut cur, &mut next);
        }
        let mut got = d_grids[src].to_host()?;
        got.extend(d_grids[dst].to_host()?);
        drop(d_grids);
        let mut want = cur;
        want.extend(next);
        Ok(session.finish(Validation::exact_f32(&got, &want)))
    }
}
