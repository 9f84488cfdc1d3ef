//! CUDA SDK histogram64: a 64-bin histogram of a byte array (bin = byte >> 2) in two launches.
//! `histogram64Kernel` (64 threads per block) keeps one byte-counter sub-histogram per thread
//! in shared memory, reads the data as uint4s in a grid-stride loop, and writes one partial
//! histogram per block; `mergeHistogram64Kernel` (64 blocks of 256 threads, one per bin) sums
//! each bin over the partial histograms with a shared-memory tree. As in the SDK, the host
//! launches ceil(bytes / (64 · 240)) blocks so that no thread counts more than 240 bytes and
//! no byte counter overflows.
//!
//! Inputs are the SDK's: uniformly random bytes (its `rand() % 256`), seeded. Counting is
//! integer arithmetic, so the partial histograms and the final one are compared exactly.

use super::common::all_of;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// HISTOGRAM64_BIN_COUNT and the two kernels' block sizes.
pub const BIN_COUNT: usize = 64;
const THREADBLOCK_SIZE: usize = 64;
const MERGE_THREADBLOCK_SIZE: u32 = 256;
/// Bytes one thread may count: 255 rounded down to whole uint4s (the SDK's
/// `iSnapDown(255, sizeof(data_t))`).
const BYTES_PER_THREAD: usize = 240;
/// Bytes per uint4 read.
const WORD4: usize = 16;

/// Bytes per size (multiples of 16): small 40,000 (3 blocks, threads counting 13 or 14
/// uint4s); default 64 MiB (the SDK's byteCount); large 128 MiB.
pub fn bytes(size: Size) -> usize {
    match size {
        Size::Small => 40_000,
        Size::Default => 64 << 20,
        Size::Large => 128 << 20,
    }
}

/// Blocks of the first kernel (the SDK's histogramCount).
fn histogram_count(bytes: usize) -> usize {
    bytes.div_ceil(THREADBLOCK_SIZE * BYTES_PER_THREAD)
}

/// Seeded random bytes, packed little-endian into u32 words as the kernel reads them.
pub fn data(bytes: usize) -> Vec<u32> {
    let mut rng = Rng::new(0x5D4B_0501);
    (0..bytes / 4).map(|_| rng.next_u64() as u32).collect()
}

/// The CPU reference: block b's partial histograms (block b counts the uint4s whose
/// position within each grid-sized stretch falls in its 64) and the whole histogram.
pub fn reference(words: &[u32], blocks: usize) -> (Vec<u32>, Vec<u32>) {
    let mut partial = vec![0u32; blocks * BIN_COUNT];
    for (pos, quad) in words.chunks_exact(WORD4 / 4).enumerate() {
        let b = (pos % (blocks * THREADBLOCK_SIZE)) / THREADBLOCK_SIZE;
        for byte in quad.iter().flat_map(|w| w.to_le_bytes()) {
            partial[b * BIN_COUNT + usize::from(byte >> 2)] += 1;
        }
    }
    let total = (0..BIN_COUNT)
        .map(|bin| (0..blocks).map(|b| partial[b * BIN_COUNT + bin]).sum())
        .collect();
    (partial, total)
}

/// CUDA SDK histogram64 as a registered sample.
pub struct Histogram64;

impl Sample for Histogram64 {
    fn name(&self) -> &'static str {
        "sdk/histogram64"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["histogram64Kernel", "mergeHistogram64Kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let n = bytes(size);
        format!("{n} bytes, {} partial histograms", histogram_count(n))
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = bytes(size);
        let words = data(n);
        let blocks = histogram_count(n);

        let mut session = Session::new(dev);
        let module = session.load("sdk/histogram64/histogram64.ptx")?;
        let histogram = module.kernel("histogram64Kernel")?;
        let merge = module.kernel("mergeHistogram64Kernel")?;
        let d_data = dev.alloc_from(&words)?;
        let d_partial = dev.alloc::<u32>(blocks * BIN_COUNT)?;
        let d_histogram = dev.alloc::<u32>(BIN_COUNT)?;
        session.launch(
            &histogram,
            blocks as u32,
            THREADBLOCK_SIZE as u32,
            0,
            &[
                (&d_partial).into(),
                (&d_data).into(),
                Arg::U32((n / WORD4) as u32),
            ],
        )?;
        session.launch(
            &merge,
            BIN_COUNT as u32,
            MERGE_THREADBLOCK_SIZE,
            0,
            &[
                (&d_histogram).into(),
                (&d_partial).into(),
                Arg::U32(blocks as u32),
            ],
        )?;
        let (partial, total) = reference(&words, blocks);
        let validation = all_of([
            Validation::exact(&d_partial.to_host()?, &partial),
            Validation::exact(&d_histogram.to_host()?, &total),
        ]);
        Ok(session.finish(validation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference counts every byte once, and no block's thread counts more than 240.
    #[test]
    fn reference_counts_every_byte() {
        let n = bytes(Size::Small);
        let blocks = histogram_count(n);
        let (partial, total) = reference(&data(n), blocks);
        assert_eq!(total.iter().sum::<u32>() as usize, n);
        assert_eq!(partial.iter().sum::<u32>() as usize, n);
        let threads = blocks * THREADBLOCK_SIZE;
        assert!((n / WORD4).div_ceil(threads) * WORD4 <= BYTES_PER_THREAD);
    }
}
