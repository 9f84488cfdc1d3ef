//! Rodinia pathfinder: the minimum-cost path down a grid of random weights, where each step
//! moves to one of the three cells below. `dynproc_kernel` advances `pyramid_height` rows per
//! launch in shared memory (256-thread blocks overlapping by the pyramid's halo); the host
//! launches `ceil((rows − 1) / pyramid_height)` times, swapping the two result rows, exactly as
//! Rodinia's `calc_path` (the last launch may advance fewer rows).
//!
//! Integer arithmetic: the final row of costs is compared exactly with a row-by-row CPU
//! dynamic program.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's BLOCK_SIZE and HALO.
pub const BLOCK_SIZE: u32 = 256;
pub const HALO: u32 = 1;

/// (cols, rows, pyramid height) per size: small 1000 × 30 (two launches, the second
/// shorter); default 100 000 × 100 × 20 (Rodinia's run script); large 500 000 × 100.
pub fn dims(size: Size) -> (usize, usize, usize) {
    match size {
        Size::Small => (1000, 30, 20),
        Size::Default => (100_000, 100, 20),
        Size::Large => (500_000, 100, 20),
    }
}

/// Seeded weights in 0..10 (Rodinia: `rand() % 10`), `rows` rows of `cols`.
pub fn weights(cols: usize, rows: usize) -> Vec<i32> {
    let mut rng = Rng::new(0x9A7F_0009);
    (0..rows * cols)
        .map(|_| (rng.next_u64() % 10) as i32)
        .collect()
}

/// The CPU reference: row 0 is the starting cost, then each row adds its weight to the
/// cheapest of the (up to) three cells above.
pub fn reference(data: &[i32], cols: usize, rows: usize) -> Vec<i32> {
    let mut src = data[..cols].to_vec();
    let mut dst = vec![0; cols];
    for t in 1..rows {
        for x in 0..cols {
            let mut best = src[x];
            if x > 0 {
                best = best.min(src[x - 1]);
            }
            if x + 1 < cols {
                best = best.min(src[x + 1]);
            }
            dst[x] = data[t * cols + x] + best;
        }
        std::mem::swap(&mut src, &mut dst);
    }
    src
}

/// Rodinia pathfinder as a registered sample.
pub struct Pathfinder;

impl Sample for Pathfinder {
    fn name(&self) -> &'static str {
        "rodinia/pathfinder"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["dynproc_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (cols, rows, height) = dims(size);
        format!("{cols} columns × {rows} rows, pyramid height {height}")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (cols, rows, pyramid_height) = dims(size);
        let mut session = Session::new(dev);
        let module = session.load("rodinia/pathfinder/pathfinder.ptx")?;
        let kernel = module.kernel("dynproc_kernel")?;
        let data = weights(cols, rows);

        // Rodinia's pyramid parameters.
        let border_cols = pyramid_height as u32 * HALO;
        let small_block_col = BLOCK_SIZE - pyramid_height as u32 * HALO * 2;
        let block_cols = (cols as u32).div_ceil(small_block_col);

        let results = [dev.alloc_from(&data[..cols])?, dev.alloc::<i32>(cols)?];
        let d_wall = dev.alloc_from(&data[cols..])?;
        // calc_path
        let (mut src, mut dst) = (1, 0);
        for t in (0..rows - 1).step_by(pyramid_height) {
            std::mem::swap(&mut src, &mut dst);
            session.launch(
                &kernel,
                block_cols,
                BLOCK_SIZE,
                0,
                &[
                    Arg::I32(pyramid_height.min(rows - t - 1) as i32),
                    (&d_wall).into(),
                    (&results[src]).into(),
                    (&results[dst]).into(),
                    Arg::I32(cols as i32),
                    Arg::I32(rows as i32),
                    Arg::I32(t as i32),
                    Arg::I32(border_cols as i32),
                ],
            )?;
        }
        let result = results[dst].to_host()?;
        let validation = Validation::exact(&result, &reference(&data, cols, rows));
        Ok(session.finish(validation))
    }
}
