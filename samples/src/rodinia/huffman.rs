//! Rodinia huffman (PAVLE, a parallel variable-length encoder): Huffman-encodes a byte stream
//! read as 32-bit words, 256 words per block.
//!
//! As in Rodinia (`main_test_cu.cu` built with `TESTING`, `CACHECWLUT` and `SMATOMICS`), the
//! host builds the Huffman codebook from the bytes' histogram; `vlc_encode_kernel_sm64huff`
//! (blocks of 256 threads, 3 KiB of dynamic shared memory: the cached codebook and the scan
//! buffer) encodes every block into a block-local bitstream and its length in bits, and runs
//! [`ENCODE_RUNS`] times as Rodinia's timing loop does; `prescanArray` (the recursive
//! work-efficient scan of the CUDA SDK: `prescan<storeSum, isNP2>`, here four `extern "C"`
//! instantiations `prescan_<storeSum>_<isNP2>`, and `uniformAdd`, with Rodinia's host-side
//! choice of block counts, thread counts and shared-memory sizes) turns the block lengths into
//! bit offsets; `pack2` (blocks of 16 threads, one thread per encoded block) concatenates the
//! bitstreams into the zeroed output.
//!
//! Differences from Rodinia:
//! - The input file (`test1024_H2.206587175259.in`: 1 MiB, 2.2 bits of entropy per byte) is
//!   replaced by seeded bytes of about the same entropy: with probability 0.015 a uniform
//!   byte, otherwise symbol `r` (geometric, P(r) = 2^-(r+1)) of a seeded permutation of the
//!   byte values. The kernel needs every codeword to fit 16 bits (four of them in 64 bits);
//!   these inputs keep them within that and the driver checks it.
//! - Rodinia's `runHisto` counts the bytes with `histo_kernel` on two streams (covering only
//!   part of the file, as it advances a byte pointer by word counts); here the histogram is
//!   counted on the host over the whole input, as the codebook is (the port issue keeps the
//!   codebook construction off the device). Huffman trees are built as Rodinia's
//!   priority queue does (the two lightest trees merged, the lighter on the 0 branch), with
//!   ties broken by creation order so the code is deterministic.
//! - The block-sum and offset arrays are allocated rounded up to 512 entries: Rodinia's
//!   `uniformAdd` for a partial last scan block reads and rewrites (adding 0) up to a full
//!   block of 512 entries past the array's end.
//!
//! Validation is exact (integers only): the packed bitstream against Rodinia's
//! `cpu_vlc_encode` reimplemented in Rust (every word up to the last one holding code bits,
//! as Rodinia's `compare_vectors`), plus each block's bit length and bit offset.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device, DeviceBuffer};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Threads per encoding block (Rodinia's `num_block_threads`); each encodes one word.
pub const BLOCK_THREADS: usize = 256;
/// Byte symbols (Rodinia's `NUM_SYMBOLS`).
pub const NUM_SYMBOLS: usize = 256;
/// Launches of the encoder (Rodinia's timing loop, `NT`).
pub const ENCODE_RUNS: usize = 10;
/// Threads per block of the scan (Rodinia's scan.cu `BLOCK_SIZE`) and its shared-memory
/// padding (`NUM_BANKS`).
const SCAN_BLOCK: u32 = 256;
const NUM_BANKS: u32 = 16;
/// Threads per block of `pack2`.
const PACK_THREADS: usize = 16;

/// Encoding blocks of 256 words (1 KiB of input each): small 48 (a single, non-power-of-two
/// scan block); default 1024 (Rodinia's 1 MiB input: two scan blocks and a second level);
/// large 4000 (eight scan blocks, the last one partial).
pub fn blocks(size: Size) -> usize {
    match size {
        Size::Small => 48,
        Size::Default => 1024,
        Size::Large => 4000,
    }
}

/// The input words (little-endian bytes of the synthetic file, see the module doc).
pub fn inputs(words: usize) -> Vec<u32> {
    let mut rng = Rng::new(0x4855_FF00);
    let mut perm: Vec<u8> = (0..=255).collect();
    for i in (1..perm.len()).rev() {
        perm.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let mut byte = || {
        let coin = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if coin < 0.015 {
            rng.next_u64() as u8
        } else {
            perm[(rng.next_u64().trailing_zeros() as usize).min(255)]
        }
    };
    (0..words)
        .map(|_| u32::from_le_bytes([byte(), byte(), byte(), byte()]))
        .collect()
}

/// Huffman codewords and their lengths in bits per byte value (0 for absent symbols), as
/// Rodinia's `BuildTree` and `GenerateCodes` make them.
pub fn codebook(data: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut freq = [0u64; NUM_SYMBOLS];
    for w in data {
        for b in w.to_le_bytes() {
            freq[b as usize] += 1;
        }
    }
    // Nodes: leaves are (symbol, no children), internal nodes have two children.
    let mut children: Vec<Option<(usize, usize)>> = Vec::new();
    let mut symbol: Vec<usize> = Vec::new();
    let mut heap = BinaryHeap::new();
    for (s, &f) in freq.iter().enumerate() {
        if f > 0 {
            heap.push(Reverse((f, children.len())));
            children.push(None);
            symbol.push(s);
        }
    }
    assert!(heap.len() >= 2, "huffman inputs need two symbols at least");
    while heap.len() > 1 {
        let Reverse((f0, zero)) = heap.pop().unwrap();
        let Reverse((f1, one)) = heap.pop().unwrap();
        heap.push(Reverse((f0 + f1, children.len())));
        children.push(Some((zero, one)));
        symbol.push(usize::MAX);
    }
    let (mut codewords, mut lens) = (vec![0u32; NUM_SYMBOLS], vec![0u32; NUM_SYMBOLS]);
    let root = heap.pop().unwrap().0.1;
    let mut stack = vec![(root, 0u32, 0u32)];
    while let Some((node, code, len)) = stack.pop() {
        match children[node] {
            Some((zero, one)) => {
                assert!(len < 16, "codewords must fit 16 bits (see the module doc)");
                stack.push((zero, code << 1, len + 1));
                stack.push((one, (code << 1) | 1, len + 1));
            }
            None => {
                codewords[symbol[node]] = code;
                lens[symbol[node]] = len;
            }
        }
    }
    (codewords, lens)
}

/// Rodinia's `cpu_vlc_encode`: the codewords of every byte (most significant byte of each
/// word first) concatenated, most significant bit first; and the total length in bits.
pub fn encode(data: &[u32], codewords: &[u32], lens: &[u32]) -> (Vec<u32>, u64) {
    let mut out = Vec::new();
    let (mut acc, mut fill, mut bits) = (0u64, 0u32, 0u64);
    for w in data {
        for b in w.to_be_bytes() {
            let len = lens[b as usize];
            acc = (acc << len) | u64::from(codewords[b as usize]);
            fill += len;
            bits += u64::from(len);
            if fill >= 32 {
                fill -= 32;
                out.push((acc >> fill) as u32);
                acc &= (1u64 << fill) - 1;
            }
        }
    }
    if fill > 0 {
        out.push((acc << (32 - fill)) as u32);
    }
    (out, bits)
}

/// Rodinia's `floorPow2`: the largest power of two not above `n`.
fn floor_pow2(n: u32) -> u32 {
    1 << (31 - n.leading_zeros())
}

/// Rodinia's scan.cu (`prescanArray`) on the device.
struct Prescan {
    k_false_false: runtime::Kernel,
    k_false_true: runtime::Kernel,
    k_true_false: runtime::Kernel,
    k_true_true: runtime::Kernel,
    uniform_add: runtime::Kernel,
    /// `g_scanBlockSums`, one array per level (`preallocBlockSums`).
    block_sums: Vec<DeviceBuffer<u32>>,
}

impl Prescan {
    /// Loads the kernels and allocates the block sums for `max_elements` (Rodinia's
    /// `preallocBlockSums`, each level rounded up to 512 entries, see the module doc).
    fn new(dev: &Device, module: &runtime::Module, max_elements: u32) -> runtime::Result<Self> {
        let mut block_sums = Vec::new();
        let mut n = max_elements;
        loop {
            let blocks = scan_blocks(n);
            if blocks > 1 {
                block_sums.push(dev.alloc::<u32>(round_up_512(blocks as usize))?);
            }
            n = blocks;
            if n <= 1 {
                break;
            }
        }
        Ok(Prescan {
            k_false_false: module.kernel("prescan_false_false")?,
            k_false_true: module.kernel("prescan_false_true")?,
            k_true_false: module.kernel("prescan_true_false")?,
            k_true_true: module.kernel("prescan_true_true")?,
            uniform_add: module.kernel("uniformAdd")?,
            block_sums,
        })
    }

    /// Rodinia's `prescanArrayRecursive`: launches exactly what it launches.
    fn run(
        &self,
        s: &mut Session,
        out: u64,
        input: u64,
        n: u32,
        level: usize,
    ) -> runtime::Result<()> {
        let num_blocks = scan_blocks(n);
        let num_threads = if num_blocks > 1 {
            SCAN_BLOCK
        } else if n.is_power_of_two() {
            n / 2
        } else {
            floor_pow2(n)
        };
        let per_block = num_threads * 2;
        let last_elements = n - (num_blocks - 1) * per_block;
        let mut last_threads = (last_elements / 2).max(1);
        let mut np2_last = 0;
        let mut last_shared = 0;
        if last_elements != per_block {
            np2_last = 1;
            if !last_elements.is_power_of_two() {
                last_threads = floor_pow2(last_elements);
            }
            last_shared = 4 * (2 * last_threads + 2 * last_threads / NUM_BANKS);
        }
        let shared = 4 * (per_block + per_block / NUM_BANKS);
        let grid = (num_blocks - np2_last).max(1);
        let args = |sums: u64, n: u32, block_index: u32, base: u32| {
            [
                Arg::Ptr(out),
                Arg::Ptr(input),
                Arg::Ptr(sums),
                Arg::I32(n as i32),
                Arg::I32(block_index as i32),
                Arg::I32(base as i32),
            ]
        };
        if num_blocks > 1 {
            let sums = self.block_sums[level].device_ptr();
            let k = &self.k_true_false;
            s.launch(
                k,
                grid,
                num_threads,
                shared.into(),
                &args(sums, per_block, 0, 0),
            )?;
            if np2_last == 1 {
                let a = args(sums, last_elements, num_blocks - 1, n - last_elements);
                s.launch(&self.k_true_true, 1, last_threads, last_shared.into(), &a)?;
            }
            self.run(s, sums, sums, num_blocks, level + 1)?;
            let add = |n: u32, offset: u32, base: u32| {
                [
                    Arg::Ptr(out),
                    Arg::Ptr(sums),
                    Arg::I32(n as i32),
                    Arg::I32(offset as i32),
                    Arg::I32(base as i32),
                ]
            };
            let a = add(n - last_elements, 0, 0);
            s.launch(&self.uniform_add, grid, num_threads, 0, &a)?;
            if np2_last == 1 {
                let a = add(last_elements, num_blocks - 1, n - last_elements);
                s.launch(&self.uniform_add, 1, last_threads, 0, &a)?;
            }
        } else if n.is_power_of_two() {
            let k = &self.k_false_false;
            s.launch(
                k,
                grid,
                num_threads,
                shared.into(),
                &args(0, per_block, 0, 0),
            )?;
        } else {
            let k = &self.k_false_true;
            s.launch(k, grid, num_threads, shared.into(), &args(0, n, 0, 0))?;
        }
        Ok(())
    }
}

/// Scan blocks of 512 elements for `n` elements (Rodinia computes it through `ceil` of a
/// float; exact for these sizes).
fn scan_blocks(n: u32) -> u32 {
    n.div_ceil(2 * SCAN_BLOCK).max(1)
}

fn round_up_512(n: usize) -> usize {
    n.div_ceil(512) * 512
}

/// Rodinia huffman as a registered sample.
pub struct Huffman;

impl Sample for Huffman {
    fn name(&self) -> &'static str {
        "rodinia/huffman"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "vlc_encode_kernel_sm64huff",
            "prescan_true_false",
            "prescan_true_true",
            "prescan_false_false",
            "prescan_false_true",
            "uniformAdd",
            "pack2",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        let b = blocks(size);
        format!(
            "{} KiB input ({} words, {b} blocks of {BLOCK_THREADS}), {ENCODE_RUNS} encoder runs",
            b * BLOCK_THREADS * 4 / 1024,
            b * BLOCK_THREADS
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let num_blocks = blocks(size);
        let n = num_blocks * BLOCK_THREADS;
        let source = inputs(n);
        let (codewords, lens) = codebook(&source);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/huffman/huffman.ptx")?;
        let encode_kernel = module.kernel("vlc_encode_kernel_sm64huff")?;
        let pack2 = module.kernel("pack2")?;

        let d_source = dev.alloc_from(&source)?;
        let d_dest = dev.alloc_from(&vec![0u32; n])?;
        let d_packed = dev.alloc::<u32>(n)?;
        let d_codewords = dev.alloc_from(&codewords)?;
        let d_lens = dev.alloc_from(&lens)?;
        let d_cw32 = dev.alloc::<u32>(n)?;
        let d_cw32len = dev.alloc::<u32>(n)?;
        let d_cw32idx = dev.alloc::<u32>(n)?;
        // block lengths and offsets, rounded up for uniformAdd (see the module doc)
        let d_cindex = dev.alloc::<u32>(round_up_512(num_blocks))?;
        let d_cindex2 = dev.alloc::<u32>(round_up_512(num_blocks))?;

        // codebook (2 × 256 words) and scan buffer (one word per thread)
        let shared = ((2 * NUM_SYMBOLS + BLOCK_THREADS) * 4) as u64;
        let args = [
            (&d_source).into(),
            (&d_codewords).into(),
            (&d_lens).into(),
            (&d_cw32).into(),
            (&d_cw32len).into(),
            (&d_cw32idx).into(),
            (&d_dest).into(),
            (&d_cindex).into(),
        ];
        for _ in 0..ENCODE_RUNS {
            let block = BLOCK_THREADS as u32;
            session.launch(&encode_kernel, num_blocks as u32, block, shared, &args)?;
        }

        let scan = Prescan::new(dev, &module, num_blocks as u32)?;
        d_packed.memset(0)?;
        let (cindex, cindex2) = (d_cindex.device_ptr(), d_cindex2.device_ptr());
        scan.run(&mut session, cindex2, cindex, num_blocks as u32, 0)?;
        session.launch(
            &pack2,
            (num_blocks / PACK_THREADS) as u32,
            PACK_THREADS as u32,
            0,
            &[
                (&d_dest).into(),
                (&d_cindex).into(),
                (&d_cindex2).into(),
                (&d_packed).into(),
                Arg::U32(BLOCK_THREADS as u32),
            ],
        )?;

        let (stream, _) = encode(&source, &codewords, &lens);
        let block_bits: Vec<u32> = source
            .chunks(BLOCK_THREADS)
            .map(|b| encode(b, &codewords, &lens).1 as u32)
            .collect();
        let offsets: Vec<u32> = block_bits
            .iter()
            .scan(0u32, |acc, &b| {
                let o = *acc;
                *acc += b;
                Some(o)
            })
            .collect();
        let mut expected = stream.clone();
        expected.extend(&block_bits);
        expected.extend(&offsets);
        let mut got = d_packed.to_host()?[..stream.len()].to_vec();
        got.extend(&d_cindex.to_host()?[..num_blocks]);
        got.extend(&d_cindex2.to_host()?[..num_blocks]);
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
