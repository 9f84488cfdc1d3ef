//! Rodinia hybridsort: sorts a list of floats with a bucket sort into 1024 buckets of about
//! equal size, then a merge sort of float4 runs inside every bucket.
//!
//! As Rodinia's `cudaSort`, run [`TEST_RUNS`] times on the same list (Rodinia's `TEST` loop;
//! each run allocates, uploads and sorts afresh):
//! - `histogram1024Kernel` (64 blocks of 96 threads) counts the list into a 1024-bin histogram,
//!   copied back; the host derives 1024 pivots from it (`calcPivotPoints`, in f32 as Rodinia)
//!   and uploads them;
//! - `bucketcount` (⌈n / 4096⌉ blocks of 32 threads, 128 elements per thread) finds each
//!   element's bucket and its rank among its block's elements of that bucket,
//!   `bucketprefixoffset` (8 blocks of 128 threads) scans the per-block counts; the host copies
//!   the bucket sizes back, pads every bucket to a multiple of 4 and uploads the bucket starts;
//!   `bucketsort` scatters the elements into the zeroed output;
//! - `mergeSortFirst` (256 threads) sorts every float4; the bucket starts and padding go to
//!   constant memory (`constStartAddr`, `finalStartAddr`, `nullElems`); `mergeSortPass`
//!   (208 threads per block, at least 8 blocks) runs once per doubling run length until one
//!   thread merges a whole bucket, ping-ponging between the two lists; `mergepack` (256 threads
//!   × a grid row per bucket) removes the padding; the sorted list is copied back.
//!
//! Differences from Rodinia:
//! - Textures (removed in CUDA 12): the pivots (`texPivot`) and the merge input (`tex`) are
//!   read with `__ldg` from a pointer passed as an extra, last kernel argument.
//!   `rodinia/hybridsort-textures` runs `hybridsort_tex.ptx` instead, Rodinia's texture reads
//!   compiled with NVRTC 11.8: the host binds linear textures as Rodinia does (`texPivot` over
//!   the pivots, `tex` over each pass's input list as float4s) and passes Rodinia's arguments.
//! - Rodinia's `rand() / RAND_MAX` list is replaced by seeded 31-bit integers divided by
//!   `RAND_MAX` in f32 (same value set in [0, 1], duplicates included).
//! - Rodinia's `calcPivotPoints` writes one pivot past its array if all 1024 pivots were placed
//!   before the last bin; that never happens with these inputs (the driver asserts it).
//!
//! Which element of a bucket takes which slot depends on the order in which the warp's
//! tagged-write retries succeed; the merge sort makes the result independent of it.
//!
//! Validation is exact: in every run, the device's histogram against the CPU's (bins computed
//! with the kernel's f32 operations: `sub`, `div.rn`, `mul`, truncation, `& 0x3FF`), the bucket
//! sizes against the CPU's binary search over the same pivots, and the sorted list bit for bit
//! against Rust's sort of the input.

use super::linear_texture;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::buffer::to_bytes;
use runtime::{Arg, Device};

/// Buckets (Rodinia's `DIVISIONS`) and histogram bins (`histosize`, `BIN_COUNT`).
pub const DIVISIONS: usize = 1024;
const BIN_COUNT: usize = 1024;
/// Sorts per run (Rodinia's `TEST`).
pub const TEST_RUNS: usize = 4;
/// histogram1024Kernel's grid and block (`BLOCK_N`, `THREAD_N` = 3 warps).
const HISTO_BLOCKS: u32 = 64;
const HISTO_THREADS: u32 = 96;
/// bucketcount and bucketsort: one warp per block, 128 elements per thread.
const BUCKET_THREADS: usize = 32;
const BUCKET_BAND: usize = 128;
/// bucketprefixoffset's block.
const PREFIX_THREADS: usize = 128;
/// mergeSortFirst and mergepack's block, and mergeSortPass's.
const MERGE_THREADS: usize = 256;
const PASS_THREADS: usize = 208;

/// List lengths: small 2^14; default 2^22 (Rodinia's `r` option, the run script's); large
/// 2^23.
pub fn elements(size: Size) -> usize {
    match size {
        Size::Small => 1 << 14,
        Size::Default => 1 << 22,
        Size::Large => 1 << 23,
    }
}

/// The list: `rand() / RAND_MAX` in f32, with a seeded 31-bit `rand()`.
pub fn inputs(n: usize) -> Vec<f32> {
    let mut rng = Rng::new(0x4859_B50A);
    (0..n)
        .map(|_| (rng.next_u64() >> 33) as f32 / 2_147_483_647.0f32)
        .collect()
}

/// A value's histogram bin, as `histogram1024Kernel` computes it (the maximum lands in bin 0).
fn bin(x: f32, min: f32, max: f32) -> usize {
    ((((x - min) / (max - min)) * BIN_COUNT as f32) as u32 & 0x3FF) as usize
}

/// Rodinia's `calcPivotPoints`, in f32.
fn pivot_points(histogram: &[u32], listsize: usize, min: f32, max: f32) -> Vec<f32> {
    let mut hist: Vec<f32> = histogram.iter().map(|&c| c as f32).collect();
    let width = (max - min) / BIN_COUNT as f32;
    let per_slice = listsize as f32 / DIVISIONS as f32;
    let mut pivots = vec![0.0f32; DIVISIONS];
    let (mut starts_at, mut ends_at, mut we_need) = (min, min + width, per_slice);
    let mut p = 0;
    for (i, h) in hist.iter_mut().enumerate() {
        if i == BIN_COUNT - 1 {
            // Rodinia would write pivots[DIVISIONS] here (see the module doc)
            assert!(p < DIVISIONS, "all pivots placed before the last bin");
            break;
        }
        while *h > we_need {
            assert!(p < DIVISIONS, "calcPivotPoints: too many pivots");
            pivots[p] = starts_at + (we_need / *h) * width;
            p += 1;
            starts_at += (we_need / *h) * width;
            *h -= we_need;
            we_need = per_slice;
        }
        we_need -= *h;
        starts_at = ends_at;
        ends_at += width;
    }
    while p < DIVISIONS {
        pivots[p] = pivots[p - 1];
        p += 1;
    }
    pivots
}

/// `bucketcount`'s binary search: the bucket of `x`.
fn bucket(x: f32, pivots: &[f32]) -> usize {
    let mut idx = DIVISIONS / 2 - 1;
    let mut jump = DIVISIONS / 4;
    let mut piv = pivots[idx];
    while jump >= 1 {
        idx = if x < piv { idx - jump } else { idx + jump };
        piv = pivots[idx];
        jump /= 2;
    }
    if x < piv { idx } else { idx + 1 }
}

/// Rodinia hybridsort as a registered sample; with `texture_references`, the kernels of
/// `hybridsort_tex.ptx`, which read through Rodinia's texture references.
pub struct Hybridsort {
    pub texture_references: bool,
}

/// One `cudaSort`: the device's histogram and bucket sizes, and the sorted list.
struct SortResult {
    histogram: Vec<u32>,
    bucket_sizes: Vec<u32>,
    pivots: Vec<f32>,
    sorted: Vec<f32>,
}

fn ceil_div(a: usize, b: usize) -> usize {
    a.div_ceil(b)
}

/// Rodinia's `cudaSort` (bucketSort, then runMergeSort) on `list`.
fn cuda_sort(
    s: &mut Session,
    module: &runtime::Module,
    list: &[f32],
    min: f32,
    max: f32,
    textures: bool,
) -> runtime::Result<SortResult> {
    let dev = s.dev;
    let n = list.len();
    let k = |name: &str| module.kernel(name);
    let (histo_k, count_k, prefix_k, sort_k) = (
        k("histogram1024Kernel")?,
        k("bucketcount")?,
        k("bucketprefixoffset")?,
        k("bucketsort")?,
    );
    let (first_k, pass_k, pack_k) = (k("mergeSortFirst")?, k("mergeSortPass")?, k("mergepack")?);

    // Upload and init_bucketsort: the lists hold 4 × DIVISIONS floats beyond the list.
    let d_input = dev.alloc::<f32>(n + DIVISIONS * 4)?;
    let d_output = dev.alloc::<f32>(n + DIVISIONS * 4)?;
    let mut padded = list.to_vec();
    padded.resize(n + DIVISIONS * 4, 0.0);
    d_input.copy_from_host(&padded)?;
    let d_offsets = dev.alloc::<u32>(DIVISIONS)?;
    let d_indice = dev.alloc::<i32>(n)?;
    let l_pivotpoints = dev.alloc::<f32>(DIVISIONS)?;
    let l_offsets = dev.alloc::<u32>(DIVISIONS)?;
    let blocks = (n - 1) / (BUCKET_THREADS * BUCKET_BAND) + 1;
    let d_prefixoffsets = dev.alloc::<u32>(blocks * DIVISIONS)?;
    let d_result1024 = dev.alloc::<u32>(BIN_COUNT)?;

    // Histogram, pivots.
    d_offsets.memset(0)?;
    d_result1024.memset(0)?;
    s.launch(
        &histo_k,
        HISTO_BLOCKS,
        HISTO_THREADS,
        0,
        &[
            (&d_result1024).into(),
            (&d_input).into(),
            Arg::F32(min),
            Arg::F32(max),
            Arg::I32(n as i32),
        ],
    )?;
    let histogram = d_result1024.to_host()?;
    let pivots = pivot_points(&histogram, n, min, max);

    // Bucket counts and offsets. With texture references, the pivots are read through
    // `texPivot`; otherwise from a last pointer argument.
    l_pivotpoints.copy_from_host(&pivots)?;
    d_offsets.memset(0)?;
    let mut count_args = vec![
        (&d_input).into(),
        (&d_indice).into(),
        (&d_prefixoffsets).into(),
        Arg::I32(n as i32),
    ];
    if textures {
        let pivot_texture = linear_texture(dev, l_pivotpoints.device_ptr(), 1, DIVISIONS)?;
        module.bind("texPivot", pivot_texture)?;
    } else {
        count_args.push((&l_pivotpoints).into());
    }
    s.launch(
        &count_k,
        blocks as u32,
        BUCKET_THREADS as u32,
        0,
        &count_args,
    )?;
    s.launch(
        &prefix_k,
        (DIVISIONS / PREFIX_THREADS) as u32,
        PREFIX_THREADS as u32,
        0,
        &[
            (&d_prefixoffsets).into(),
            (&d_offsets).into(),
            Arg::I32(blocks as i32),
        ],
    )?;
    let bucket_sizes = d_offsets.to_host()?;
    let mut orig_offsets = vec![0u32; DIVISIONS + 1];
    let mut null_elements = vec![0i32; DIVISIONS];
    let mut sizes = vec![0i32; DIVISIONS];
    for i in 0..DIVISIONS {
        let c = bucket_sizes[i];
        orig_offsets[i + 1] = c + orig_offsets[i];
        null_elements[i] = if c % 4 != 0 {
            ((c & !3) + 4 - c) as i32
        } else {
            0
        };
        sizes[i] = (c as i32 + null_elements[i]) / 4;
    }
    // bucket starts in the padded list (exclusive scan of the padded sizes)
    let mut h_offsets = vec![0u32; DIVISIONS];
    for i in 1..DIVISIONS {
        h_offsets[i] = h_offsets[i - 1] + 4 * sizes[i - 1] as u32;
    }
    l_offsets.copy_from_host(&h_offsets)?;
    d_output.memset(0)?;
    s.launch(
        &sort_k,
        blocks as u32,
        BUCKET_THREADS as u32,
        0,
        &[
            (&d_input).into(),
            (&d_indice).into(),
            (&d_output).into(),
            Arg::I32(n as i32),
            (&d_prefixoffsets).into(),
            (&l_offsets).into(),
        ],
    )?;

    // runMergeSort on the padded list.
    let listsize: usize = sizes.iter().map(|&s| 4 * s as usize).sum();
    let mut startaddr = vec![0i32; DIVISIONS + 1];
    for i in 1..=DIVISIONS {
        startaddr[i] = startaddr[i - 1] + sizes[i - 1];
    }
    let largest = 4 * *sizes.iter().max().unwrap() as usize;
    let (mut orig, mut result) = (d_output.device_ptr(), d_input.device_ptr());
    // The merge input: bound to `tex` (listsize / 4 float4s, as Rodinia binds it) or passed
    // last.
    let list_textures = if textures {
        Some([
            (orig, linear_texture(dev, orig, 4, listsize / 4)?),
            (result, linear_texture(dev, result, 4, listsize / 4)?),
        ])
    } else {
        None
    };
    let merge_input = |args: &mut Vec<Arg>, orig: u64| -> runtime::Result<()> {
        match &list_textures {
            Some(t) => module.bind("tex", t.iter().find(|(p, _)| *p == orig).expect("a list").1),
            None => {
                args.push(Arg::Ptr(orig));
                Ok(())
            }
        }
    };
    let mut first_args = vec![Arg::Ptr(result), Arg::I32(listsize as i32)];
    merge_input(&mut first_args, orig)?;
    s.launch(
        &first_k,
        ceil_div(listsize / 4, MERGE_THREADS) as u32,
        MERGE_THREADS as u32,
        0,
        &first_args,
    )?;
    let final_start: Vec<i32> = orig_offsets.iter().map(|&o| o as i32).collect();
    module.write_symbol("constStartAddr", 0, &to_bytes(&startaddr))?;
    module.write_symbol("finalStartAddr", 0, &to_bytes(&final_start))?;
    module.write_symbol("nullElems", 0, &to_bytes(&null_elements))?;
    let mut nr_elems = 2usize;
    loop {
        let floats_per_thread = nr_elems * 4;
        let threads_per_div = (largest as f32 / floats_per_thread as f32).ceil() as usize;
        let threads_needed = threads_per_div * DIVISIONS;
        let mut threads = PASS_THREADS;
        let mut grid = ceil_div(threads_needed, threads);
        if grid < 8 {
            grid = 8;
            threads = ceil_div(threads_needed, grid);
        }
        std::mem::swap(&mut orig, &mut result);
        let mut pass_args = vec![
            Arg::Ptr(result),
            Arg::I32(nr_elems as i32),
            Arg::I32(threads_per_div as i32),
        ];
        merge_input(&mut pass_args, orig)?;
        s.launch(&pass_k, grid as u32, threads as u32, 0, &pass_args)?;
        nr_elems *= 2;
        if threads_per_div == 1 {
            break;
        }
    }
    let grid = (ceil_div(largest, MERGE_THREADS) as u32, DIVISIONS as u32);
    s.launch(
        &pack_k,
        grid,
        MERGE_THREADS as u32,
        0,
        &[Arg::Ptr(result), Arg::Ptr(orig)],
    )?;
    // the result is in the list mergepack wrote: `orig`
    let out = if orig == d_input.device_ptr() {
        d_input.to_host()?
    } else {
        d_output.to_host()?
    };
    Ok(SortResult {
        histogram,
        bucket_sizes,
        pivots,
        sorted: out[..n].to_vec(),
    })
}

impl Sample for Hybridsort {
    fn name(&self) -> &'static str {
        if self.texture_references {
            "rodinia/hybridsort-textures"
        } else {
            "rodinia/hybridsort"
        }
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "histogram1024Kernel",
            "bucketcount",
            "bucketprefixoffset",
            "bucketsort",
            "mergeSortFirst",
            "mergeSortPass",
            "mergepack",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        format!(
            "{} floats, {DIVISIONS} buckets, {TEST_RUNS} sorts",
            elements(size)
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = elements(size);
        let list = inputs(n);
        let min = list.iter().copied().fold(f32::MAX, f32::min);
        let max = list.iter().copied().fold(-f32::MAX, f32::max);

        let mut session = Session::new(dev);
        let module = session.load(if self.texture_references {
            "rodinia/hybridsort/hybridsort_tex.ptx"
        } else {
            "rodinia/hybridsort/hybridsort.ptx"
        })?;

        let mut sorted = list.clone();
        sorted.sort_by(f32::total_cmp);
        let mut histogram = vec![0u32; BIN_COUNT];
        for &x in &list {
            histogram[bin(x, min, max)] += 1;
        }

        let (mut got, mut expected) = (Vec::new(), Vec::new());
        for _ in 0..TEST_RUNS {
            let r = cuda_sort(
                &mut session,
                &module,
                &list,
                min,
                max,
                self.texture_references,
            )?;
            let mut sizes = vec![0u32; DIVISIONS];
            for &x in &list {
                sizes[bucket(x, &r.pivots)] += 1;
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            got.extend(r.histogram);
            got.extend(r.bucket_sizes);
            got.extend(bits(&r.sorted));
            expected.extend(&histogram);
            expected.extend(sizes);
            expected.extend(bits(&sorted));
        }
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
