//! Parboil spmv: sparse matrix–vector product y = A·x with Parboil's JDS kernel `spmv_jds`
//! (one launch, one thread per row). The matrix is in Parboil's padded JDS layout: rows sorted
//! by decreasing length, grouped in warps of 32, the k-th nonzeros of all rows stored together
//! as the k-th jagged diagonal; the diagonal offsets (`jds_ptr_int`) and each warp's diagonal
//! count (`sh_zcnt_int`) are in constant memory. The launch shape is Parboil's
//! `compute_active_thread` for a Fermi GPU with 15 SMs (the gtx480): 32-thread CTAs, one per
//! warp of rows, when all rows fit on the GPU at once, else 192-thread CTAs.
//!
//! Parboil reads Matrix Market files; here the matrices are generated with seeded row lengths
//! and banded column positions resembling its datasets (see [`Problem`]), and x is seeded
//! uniform in [−1, 1).
//!
//! Validation is bit-exact: NVRTC contracts `sum += d * t` into `fma.rn.f32`, summed along the
//! diagonals (a row's nonzeros in order, then the warp's zero padding, which multiplies x[0]
//! by 0), and the CPU reference performs the same fmas in the same order.

use super::common::{below, i32_bytes, uniform_f32};
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rows per warp, and the JDS padding unit.
const WARP: usize = 32;
/// Sizes of the kernel's constant arrays (diagonals, warps).
const MAX_DIAGONALS: usize = 4096;
const MAX_WARPS: usize = 8192;

/// A generated sparse matrix shape.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    /// Rows (= columns).
    pub dim: usize,
    /// Row lengths are `min_len + below(spread)`, except one row in `long_every` which gets
    /// `long_min + below(spread)` (none when 0).
    pub min_len: usize,
    pub spread: usize,
    pub long_every: usize,
    pub long_min: usize,
    /// Columns lie within ±band of the diagonal (the diagonal itself always included).
    pub band: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        match size {
            // Like Parboil's `small` (1138_bus: 1138 rows, ≈ 3.6 nonzeros per row with a few
            // long rows); 36 warps, the last one partial.
            Size::Small => Problem {
                dim: 1138,
                min_len: 1,
                spread: 6,
                long_every: 40,
                long_min: 10,
                band: 100,
            },
            // Like Parboil's `large` dataset (Dubcova3, a 2-D finite-element matrix: 146,689
            // rows, ≈ 24.8 nonzeros per row), well within a functional run's budget.
            Size::Default => Problem {
                dim: 146_689,
                min_len: 9,
                spread: 32,
                long_every: 0,
                long_min: 0,
                band: 1024,
            },
            Size::Large => Problem {
                dim: 250_000,
                min_len: 20,
                spread: 40,
                long_every: 100,
                long_min: 60,
                band: 4096,
            },
        }
    }
}

/// A sparse matrix by rows: each row's (column, value) pairs in column order.
pub fn generate(p: &Problem) -> Vec<Vec<(usize, f32)>> {
    let mut rng = Rng::new(0x5350_4D56_0001);
    (0..p.dim)
        .map(|r| {
            let long = p.long_every > 0 && below(&mut rng, p.long_every) == 0;
            let base = if long { p.long_min } else { p.min_len };
            let len = (base + below(&mut rng, p.spread)).min(p.dim);
            let lo = r.saturating_sub(p.band);
            let hi = (r + p.band).min(p.dim - 1);
            let mut cols = vec![r];
            while cols.len() < len.min(hi - lo + 1) {
                let c = lo + below(&mut rng, hi - lo + 1);
                if !cols.contains(&c) {
                    cols.push(c);
                }
            }
            cols.sort_unstable();
            cols.into_iter()
                .map(|c| (c, rng.f32_in(-1.0, 1.0)))
                .collect()
        })
        .collect()
}

/// Parboil's padded JDS form of a matrix.
pub struct Jds {
    /// Nonzeros (zero padding included), diagonal after diagonal.
    pub data: Vec<f32>,
    /// Column of each entry of `data` (0 for padding).
    pub index: Vec<i32>,
    /// Original row of each sorted position.
    pub perm: Vec<i32>,
    /// Start of each diagonal in `data`.
    pub jds_ptr: Vec<i32>,
    /// Diagonals each warp of 32 sorted positions walks.
    pub sh_zcnt: Vec<i32>,
}

impl Jds {
    pub fn new(rows: &[Vec<(usize, f32)>]) -> Jds {
        let dim = rows.len();
        let mut perm: Vec<usize> = (0..dim).collect();
        perm.sort_by_key(|&r| std::cmp::Reverse(rows[r].len())); // stable: ties keep row order
        let warps = dim.div_ceil(WARP);
        // Sorted by length, so a warp's first row is its longest.
        let sh_zcnt: Vec<usize> = (0..warps).map(|w| rows[perm[w * WARP]].len()).collect();
        let depth = sh_zcnt.first().copied().unwrap_or(0);
        let mut jds_ptr = Vec::with_capacity(depth);
        let mut data = Vec::new();
        let mut index = Vec::new();
        for k in 0..depth {
            jds_ptr.push(data.len() as i32);
            // The warps that reach diagonal k are a prefix.
            let positions = WARP * sh_zcnt.iter().take_while(|&&z| z > k).count();
            for pos in 0..positions {
                let entry = perm.get(pos).and_then(|&r| rows[r].get(k));
                let (col, value) = entry.copied().unwrap_or((0, 0.0));
                data.push(value);
                index.push(col as i32);
            }
        }
        Jds {
            data,
            index,
            perm: perm.iter().map(|&r| r as i32).collect(),
            jds_ptr,
            sh_zcnt: sh_zcnt.iter().map(|&z| z as i32).collect(),
        }
    }
}

/// The CPU reference: each row's fma chain over its nonzeros in order, then over the zero
/// padding up to its warp's diagonal count (0 · x[0] each), as `spmv_jds` walks it.
pub fn reference(rows: &[Vec<(usize, f32)>], jds: &Jds, x: &[f32]) -> Vec<f32> {
    let mut y = vec![0.0f32; rows.len()];
    for (pos, &r) in jds.perm.iter().enumerate() {
        let row = &rows[r as usize];
        let mut sum = 0.0f32;
        for &(c, v) in row {
            sum = v.mul_add(x[c], sum);
        }
        for _ in row.len()..jds.sh_zcnt[pos / WARP] as usize {
            sum = 0.0f32.mul_add(x[0], sum);
        }
        y[r as usize] = sum;
    }
    y
}

/// Parboil's `compute_active_thread` for a compute-capability-2.x GPU with `sm` SMs: (threads
/// per CTA, CTAs) for `warps` warps of rows.
fn launch_shape(warps: usize, sm: usize) -> (usize, usize) {
    let max_thread = 1536;
    let max_block = 8;
    let threads = warps * WARP;
    if threads > sm * max_thread {
        let per_cta = max_thread / max_block;
        (per_cta, threads.div_ceil(per_cta))
    } else {
        (WARP, warps)
    }
}

/// Parboil spmv as a registered sample.
pub struct Spmv;

impl Sample for Spmv {
    fn name(&self) -> &'static str {
        "parboil/spmv"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["spmv_jds"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        let origin = match size {
            Size::Small => ", shaped like Parboil's small (1138_bus)",
            Size::Default => ", shaped like Parboil's large (Dubcova3)",
            Size::Large => "",
        };
        let mean = p.min_len as f64 + (p.spread as f64 - 1.0) / 2.0;
        format!(
            "{0} × {0} sparse matrix, ≈ {mean:.1} nonzeros per row, JDS{origin}",
            p.dim
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let rows = generate(&p);
        let jds = Jds::new(&rows);
        assert!(jds.jds_ptr.len() <= MAX_DIAGONALS && jds.sh_zcnt.len() <= MAX_WARPS);
        let x = uniform_f32(0x5350_4D56_0002, p.dim, -1.0, 1.0);

        let mut session = Session::new(dev);
        let module = session.load("parboil/spmv/spmv.ptx")?;
        let kernel = module.kernel("spmv_jds")?;
        module.write_symbol("jds_ptr_int", 0, &i32_bytes(&jds.jds_ptr))?;
        module.write_symbol("sh_zcnt_int", 0, &i32_bytes(&jds.sh_zcnt))?;
        let d_y = dev.alloc::<f32>(p.dim)?;
        let d_data = dev.alloc_from(&jds.data)?;
        let d_index = dev.alloc_from(&jds.index)?;
        let d_perm = dev.alloc_from(&jds.perm)?;
        let d_x = dev.alloc_from(&x)?;
        let (block, grid) = launch_shape(jds.sh_zcnt.len(), 15);
        session.launch(
            &kernel,
            grid as u32,
            block as u32,
            0,
            &[
                (&d_y).into(),
                (&d_data).into(),
                (&d_index).into(),
                (&d_perm).into(),
                (&d_x).into(),
                Arg::I32(p.dim as i32),
            ],
        )?;
        let got = d_y.to_host()?;
        let expected = reference(&rows, &jds, &x);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
