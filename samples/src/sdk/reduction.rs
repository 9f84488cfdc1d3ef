//! CUDA SDK reduction: the seven classic parallel-sum kernels (`reduce0` interleaved
//! addressing with divergent branches, `reduce1` strided index, `reduce2` sequential
//! addressing, `reduce3` first add during the load, `reduce4` last warp by shuffles, `reduce5`
//! completely unrolled, `reduce6` many elements per thread), each run in turn on the same int
//! data, as the SDK's `-kernel=N` runs do.
//!
//! Each kernel reduces the data the SDK's way: a first pass writes one partial sum per block,
//! then the host relaunches the same kernel on the partial sums until one value is left (the
//! SDK's GPU final reduction). 256 threads per block (the SDK's maxThreads) on every pass;
//! reduce0–2 take 256 elements per block, reduce3–6 512, and reduce6's grid is capped at the
//! SDK's maxBlocks = 64. Changed from the SDK: it shrinks the block to the next power of two
//! on the last passes (one template instance per block size) and reduces the partial sums in
//! place; here every pass runs 256-thread blocks and alternates between two buffers, since in
//! place a block can overwrite a partial sum that block 0 of the same pass has yet to read.
//!
//! Inputs are the SDK's: ints `rand() & 0xFF`, seeded. Integer addition is associative (the
//! sums wrap in i32 the same in any order), so every variant's first-pass partial sums and its
//! final sum are compared exactly with the host's.

use super::common::all_of;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// The kernels, in the order they run.
const KERNELS: [&str; 7] = [
    "reduce0", "reduce1", "reduce2", "reduce3", "reduce4", "reduce5", "reduce6",
];
/// Threads per block (the SDK's maxThreads).
const THREADS: usize = 256;
/// The SDK's maxBlocks, reduce6's grid cap.
const MAX_BLOCKS: usize = 64;

/// Elements per size: small 3,000 (not a power of two: partial last blocks); default 2^22;
/// large 2^24. The SDK's default is 2^24 elements for one kernel (its `-kernel=6`); all seven
/// kernels on 2^24 ints take 6.3 G thread instructions, so the default size is the largest
/// power of two (the SDK's sizes) that keeps them below 3 G (1.6 G), and the SDK's size is the
/// large one.
pub fn elements(size: Size) -> usize {
    match size {
        Size::Small => 3_000,
        Size::Default => 1 << 22,
        Size::Large => 1 << 24,
    }
}

/// Elements each block of `kernel` takes per grid step: from reduce3 on, two per thread.
fn per_block(kernel: usize) -> usize {
    if kernel < 3 { THREADS } else { 2 * THREADS }
}

/// Blocks for a pass of `kernel` over `n` elements (the SDK's getNumBlocksAndThreads).
fn blocks(kernel: usize, n: usize) -> usize {
    let blocks = n.div_ceil(per_block(kernel));
    if kernel == 6 {
        blocks.min(MAX_BLOCKS)
    } else {
        blocks
    }
}

/// The CPU reference of a first pass: block b's sum. reduce6's blocks stride the grid, so
/// block b owns the elements whose position within each grid-sized stretch falls in its slice.
pub fn partial_sums(kernel: usize, data: &[i32]) -> Vec<i32> {
    let (chunk, nblocks) = (per_block(kernel), blocks(kernel, data.len()));
    let mut sums = vec![0i32; nblocks];
    for (i, v) in data.iter().enumerate() {
        let b = (i % (chunk * nblocks)) / chunk;
        sums[b] = sums[b].wrapping_add(*v);
    }
    sums
}

/// Seeded ints in [0, 255].
pub fn data(n: usize) -> Vec<i32> {
    let mut rng = Rng::new(0x5D4B_0401);
    (0..n).map(|_| (rng.next_u64() & 0xFF) as i32).collect()
}

/// CUDA SDK reduction as a registered sample.
pub struct Reduction;

impl Sample for Reduction {
    fn name(&self) -> &'static str {
        "sdk/reduction"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &KERNELS
    }

    fn size_description(&self, size: Size) -> String {
        format!(
            "{} ints, each of the 7 kernels to a single sum",
            elements(size)
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = elements(size);
        let input = data(n);
        let total = input.iter().fold(0i32, |a, v| a.wrapping_add(*v));

        let mut session = Session::new(dev);
        let module = session.load("sdk/reduction/reduction.ptx")?;
        let d_in = dev.alloc_from(&input)?;
        // Partial sums, alternating between passes.
        let work = [
            dev.alloc::<i32>(n.div_ceil(THREADS))?,
            dev.alloc::<i32>(n.div_ceil(THREADS))?,
        ];

        let mut checks = Vec::new();
        for (k, name) in KERNELS.iter().enumerate() {
            let kernel = module.kernel(name)?;
            let mut remaining = n;
            let mut out = 0;
            let mut first = true;
            while first || remaining > 1 {
                let src = if first { &d_in } else { &work[1 - out] };
                let nblocks = blocks(k, remaining);
                session.launch(
                    &kernel,
                    nblocks as u32,
                    THREADS as u32,
                    (THREADS * std::mem::size_of::<i32>()) as u64,
                    &[src.into(), (&work[out]).into(), Arg::U32(remaining as u32)],
                )?;
                if first {
                    let got = work[out].to_host()?;
                    checks.push(Validation::exact(&got[..nblocks], &partial_sums(k, &input)));
                    first = false;
                }
                remaining = nblocks;
                out = 1 - out;
            }
            let sum = work[1 - out].to_host()?[0];
            checks.push(Validation::exact(&[sum], &[total]));
        }
        Ok(session.finish(all_of(checks)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel's first-pass partial sums add up to the whole sum, reduce6's capped grid
    /// included.
    #[test]
    fn partial_sums_cover_the_data() {
        for n in [1, 255, 3_000, 70_000] {
            let input = data(n);
            let total = input.iter().fold(0i32, |a, v| a.wrapping_add(*v));
            for k in 0..KERNELS.len() {
                let sums = partial_sums(k, &input);
                assert_eq!(sums.len(), blocks(k, n));
                assert_eq!(sums.iter().fold(0i32, |a, v| a.wrapping_add(*v)), total);
            }
        }
    }
}
