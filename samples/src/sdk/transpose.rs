//! CUDA SDK transpose, in two variants: `sdk/transpose_naive` (`transposeNaive`: coalesced
//! reads, writes strided by the height) and `sdk/transpose_coalesced` (`transposeCoalesced`:
//! the tile staged in a padded 32 × 33 shared array so reads and writes are both coalesced).
//! One launch each, 32 × 8 threads per 32 × 32 tile, every thread moving four elements.
//!
//! The input is the SDK's: element i holds the float i (exact below 2^24), so every element's
//! value names its source. The transpose moves values without arithmetic and is compared
//! exactly.

use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// The kernels' TILE_DIM and BLOCK_ROWS.
pub const TILE_DIM: u32 = 32;
pub const BLOCK_ROWS: u32 = 8;

/// (width, height) of the input per size, multiples of TILE_DIM as the SDK requires: small
/// 96 × 64 (3 × 2 tiles, not square so that width and height cannot be swapped unnoticed);
/// default 1024 × 1024 (the SDK's size); large 4096 × 4096.
pub fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (96, 64),
        Size::Default => (1024, 1024),
        Size::Large => (4096, 4096),
    }
}

/// The CPU reference: the output is `width` rows of `height`, out[x][y] = in[y][x].
pub fn reference(input: &[f32], width: usize, height: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            out[x * height + y] = input[y * width + x];
        }
    }
    out
}

fn run(dev: &Device, size: Size, file: &str, name: &str) -> runtime::Result<Outcome> {
    let (width, height) = dims(size);
    let input: Vec<f32> = (0..width * height).map(|i| i as f32).collect();

    let mut session = Session::new(dev);
    let module = session.load(file)?;
    let kernel = module.kernel(name)?;
    let d_in = dev.alloc_from(&input)?;
    let d_out = dev.alloc::<f32>(width * height)?;
    session.launch(
        &kernel,
        (width as u32 / TILE_DIM, height as u32 / TILE_DIM),
        (TILE_DIM, BLOCK_ROWS),
        0,
        &[
            (&d_out).into(),
            (&d_in).into(),
            Arg::I32(width as i32),
            Arg::I32(height as i32),
        ],
    )?;
    let got = d_out.to_host()?;
    let expected = reference(&input, width, height);
    Ok(session.finish(Validation::exact_f32(&got, &expected)))
}

fn describe(size: Size) -> String {
    let (w, h) = dims(size);
    format!("{w} × {h} floats, {TILE_DIM} × {TILE_DIM} tiles")
}

/// The naive transpose as a registered sample.
pub struct TransposeNaive;

impl Sample for TransposeNaive {
    fn name(&self) -> &'static str {
        "sdk/transpose_naive"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["transposeNaive"]
    }

    fn size_description(&self, size: Size) -> String {
        describe(size)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        run(
            dev,
            size,
            "sdk/transpose_naive/transpose_naive.ptx",
            "transposeNaive",
        )
    }
}

/// The coalesced transpose as a registered sample.
pub struct TransposeCoalesced;

impl Sample for TransposeCoalesced {
    fn name(&self) -> &'static str {
        "sdk/transpose_coalesced"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["transposeCoalesced"]
    }

    fn size_description(&self, size: Size) -> String {
        describe(size)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        run(
            dev,
            size,
            "sdk/transpose_coalesced/transpose_coalesced.ptx",
            "transposeCoalesced",
        )
    }
}
