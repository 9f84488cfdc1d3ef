//! Parboil mri-gridding: non-Cartesian MRI samples interpolated onto a regular 3-D grid with
//! a Kaiser-Bessel window (every grid point within the cutoff of a sample receives its
//! complex value times the window and the sample's density weight; a second grid counts the
//! contributions).
//!
//! Launches, following Parboil's whole GPU pipeline: `binning_kernel` (each sample's
//! unit-cube bin, counted with atomics, 512 threads per CTA); Parboil's radix sort of the
//! (bin, sample) pairs, per 4-bit digit `splitSort` (each block of 1024 keys sorted locally by
//! one split per bit, and the digit's histogram per block), a scan of the histograms and
//! `splitRearrange` (each key to its global position); `reorder_kernel` (the samples gathered
//! into bin order as a structure of arrays); Parboil's `scanLargeArray` turning the bin counts
//! into start offsets in place (`scan_L1_kernel` scans blocks of 1024 counts,
//! `scan_inter1_kernel` and `scan_inter2_kernel` scan the block totals level by level, up then
//! down, `uniformAdd` adds them back; the sort uses the same scan); and `gridding_GPU` (one
//! 8 × 4 × 2 CTA per 8 × 4 × 8 tile of the grid, each thread four points along z, gathering from
//! the rows of bins within the cutoff, 64 samples at a time through shared memory). Parboil
//! also grids the samples that overflow a bin (more than `binsize`) on the CPU; the inputs here
//! never overflow one (see [`BINSIZE`]; the driver checks that the bins hold every sample), so
//! that pass has nothing to do and is not ported.
//!
//! Inputs: Parboil reads a measured k-space trajectory; here the samples are generated from a
//! seeded [`Rng`], directly in grid coordinates (as Parboil's host code scales them): half
//! spread uniformly over the grid, half concentrated around its centre (where MRI trajectories
//! sample densely), with random complex values and density weights. Kernel width 4 (cutoff 2)
//! and oversampling 2 give Parboil's β.
//!
//! Validation is bit-exact on both output grids and exact on the sorted sample order (a
//! stable sort by bin, which is what the radix sort computes) and the scanned bin offsets. The
//! reference bins and orders the samples as the pipeline does and grids each tile with the
//! kernel's row order, sample order and arithmetic as NVRTC emitted it: `fma(dx, dx, dy·dy)` then `fma(dz, dz, ·)`, the window's
//! polynomial as a chain of `fma.rn.f32`, `sqrt.rn`, and the accumulations `fma(real, w, acc)`.
//! `__fdividef` is `div.approx.f32`, bounded by the PTX manual only (2 ulp); warpsim defines it
//! as `a · (1/b)`, each step rounded (`emulator/src/alu/approx.rs`), and [`div_approx`] does
//! the same, so the comparison can stay exact.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Threads per CTA of the binning and reorder kernels (Parboil's BLOCKSIZE).
const BLOCKSIZE: u32 = 512;
/// The gridding CTA (Parboil's `dims`).
const DIMS: (usize, usize, usize) = (8, 4, 2);
/// Samples per bin beyond which Parboil hands samples to the CPU (a run parameter). The
/// generated inputs put at most ~30 samples in a bin, so none overflows (the driver checks).
pub const BINSIZE: u32 = 64;
/// Kaiser-Bessel kernel width and grid oversampling.
const KERNEL_WIDTH: f32 = 4.0;
const OVERSAMPLE: f32 = 2.0;

/// One problem: the grid and the number of samples.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub grid: [usize; 3],
    pub samples: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (grid, samples) = match size {
            // One gridding CTA (the smallest grid), its bin rows clamped on every side.
            Size::Small => ([8, 4, 8], 128),
            Size::Default => ([64, 64, 64], 96 * 1024),
            Size::Large => ([96, 96, 96], 256 * 1024),
        };
        Problem { grid, samples }
    }

    fn points(&self) -> usize {
        self.grid.iter().product()
    }
}

/// One sample as Parboil stores it (`ReconstructionSample`).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct ReconstructionSample {
    pub real: f32,
    pub imag: f32,
    pub k: [f32; 3],
    pub sdc: f32,
}

impl ReconstructionSample {
    fn floats(&self) -> [f32; 6] {
        [
            self.real, self.imag, self.k[0], self.k[1], self.k[2], self.sdc,
        ]
    }
}

/// Seeded samples in grid coordinates (see the module documentation).
pub fn samples(p: &Problem) -> Vec<ReconstructionSample> {
    let mut rng = Rng::new(0x6A1D_0001);
    (0..p.samples)
        .map(|i| {
            let k = [0, 1, 2].map(|d| {
                let size = p.grid[d] as f32;
                let v = if i % 2 == 0 {
                    rng.f32_in(0.0, size)
                } else {
                    // A sum of uniforms around the centre: roughly Gaussian, σ ≈ size / 10,
                    // dense enough that central rows of bins hold more than the 64 samples
                    // gridding_GPU stages at a time.
                    let s: f32 = (0..4).map(|_| rng.f32_in(-0.5, 0.5)).sum();
                    size / 2.0 + s * size / 6.0
                };
                v.clamp(0.0, size - 0.001)
            });
            ReconstructionSample {
                real: rng.f32_in(-1.0, 1.0),
                imag: rng.f32_in(-1.0, 1.0),
                k,
                sdc: rng.f32_in(0.1, 1.0),
            }
        })
        .collect()
}

/// The gridding constants, as Parboil's host computes them.
struct Constants {
    cutoff: f32,
    cutoff2: f32,
    one_over_cutoff2: f32,
    beta: f32,
}

impl Constants {
    fn new() -> Constants {
        let (w, os) = (f64::from(KERNEL_WIDTH), f64::from(OVERSAMPLE));
        let beta = (std::f64::consts::PI
            * (4.0 * w * w / (os * os) * (os - 0.5) * (os - 0.5) - 0.8).sqrt())
            as f32;
        let cutoff = (f64::from(KERNEL_WIDTH) / 2.0) as f32;
        let cutoff2 = cutoff * cutoff;
        Constants {
            cutoff,
            cutoff2,
            one_over_cutoff2: 1.0 / cutoff2,
            beta,
        }
    }
}

/// A sample's bin as `binning_kernel` computes it.
fn bin_of(s: &ReconstructionSample, grid: [usize; 3]) -> usize {
    let [x, y, z] = s.k.map(|v| v as u32 as usize);
    z * grid[0] * grid[1] + y * grid[0] + x
}

/// The samples' order after a stable sort by bin (what the radix sort computes).
fn sorted_order(keys: &[u32]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by_key(|&i| keys[i as usize]);
    order
}

/// The bins' start offsets: the exclusive prefix sum of the counts (one more entry than bins).
fn exclusive_scan(counts: &[u32]) -> Vec<u32> {
    counts
        .iter()
        .scan(0u32, |sum, &c| {
            let start = *sum;
            *sum += c;
            Some(start)
        })
        .collect()
}

/// Counts scanned per `scan_L1_kernel` CTA, and the most CTAs Parboil launches at once.
const SCAN_BLOCK_SIZE: usize = 1024;
const SCAN_GRID_SIZE: usize = 65535;

/// The block-totals tree of Parboil's `scanLargeArray` for `blocks` scan blocks: the branching
/// `dim_block` (128 to 1024) whose smallest power covering `blocks` is the least, and that
/// power (the length of the totals array).
fn scan_tree(blocks: usize) -> (usize, usize) {
    let mut best = (SCAN_BLOCK_SIZE, blocks * SCAN_BLOCK_SIZE);
    let mut block = 128;
    while block <= SCAN_BLOCK_SIZE {
        let mut size = block;
        while size < blocks {
            size *= block;
        }
        if size <= best.1 {
            best = (block, size);
        }
        block *= 2;
    }
    best
}

/// The scan kernels, in launch order.
struct ScanKernels {
    l1: runtime::Kernel,
    inter1: runtime::Kernel,
    inter2: runtime::Kernel,
    uniform_add: runtime::Kernel,
}

/// The radix sort's kernels.
struct SortKernels {
    split_sort: runtime::Kernel,
    split_rearrange: runtime::Kernel,
}

/// Keys per `splitSort` CTA (256 threads, 4 keys each) and bits per pass.
const SORT_BLOCK: usize = 1024;
const SORT_THREADS: u32 = 256;
const SORT_BITS: u32 = 4;

/// Parboil's `sort`: a stable LSD radix sort of `n` (key, value) pairs, 4 bits per pass, keys
/// below `max_value` (the arrays hold `n` rounded up to 4, padded with key `u32::MAX`). Returns
/// the buffers holding the sorted keys and values.
fn sort_pairs(
    session: &mut Session,
    k: &SortKernels,
    scan: &ScanKernels,
    n: usize,
    max_value: u32,
    keys: runtime::DeviceBuffer<u32>,
    values: runtime::DeviceBuffer<u32>,
) -> runtime::Result<(runtime::DeviceBuffer<u32>, runtime::DeviceBuffer<u32>)> {
    let dev = session.dev;
    let grid = n.div_ceil(SORT_BLOCK);
    let passes = (u32::BITS - max_value.leading_zeros()).div_ceil(SORT_BITS);
    let histo = dev.alloc::<u32>(grid << SORT_BITS)?;
    let mut keys = [keys, dev.alloc::<u32>(n.next_multiple_of(4))?];
    let mut values = [values, dev.alloc::<u32>(n.next_multiple_of(4))?];
    for pass in 0..passes {
        session.launch(
            &k.split_sort,
            grid as u32,
            SORT_THREADS,
            0,
            &[
                Arg::I32(n as i32),
                Arg::I32(pass as i32),
                (&keys[0]).into(),
                (&values[0]).into(),
                (&histo).into(),
            ],
        )?;
        scan_large_array(session, scan, grid << SORT_BITS, &histo)?;
        session.launch(
            &k.split_rearrange,
            grid as u32,
            SORT_THREADS,
            0,
            &[
                Arg::I32(n as i32),
                Arg::I32(pass as i32),
                (&keys[0]).into(),
                (&keys[1]).into(),
                (&values[0]).into(),
                (&values[1]).into(),
                (&histo).into(),
            ],
        )?;
        keys.swap(0, 1);
        values.swap(0, 1);
    }
    let [keys, _] = keys;
    let [values, _] = values;
    Ok((keys, values))
}

/// Parboil's `scanLargeArray`: an exclusive scan of `data` (`n` counts) in place.
fn scan_large_array(
    session: &mut Session,
    k: &ScanKernels,
    n: usize,
    data: &runtime::DeviceBuffer<u32>,
) -> runtime::Result<()> {
    let dev = session.dev;
    let blocks = n.div_ceil(SCAN_BLOCK_SIZE);
    assert!(
        blocks <= SCAN_GRID_SIZE,
        "Parboil splits larger scans; not needed here"
    );
    let (dim_block, total_len) = scan_tree(blocks);
    let inter = dev.alloc::<u32>(total_len)?;
    inter.memset(0)?;
    let half = (SCAN_BLOCK_SIZE / 2) as u32;
    session.launch(
        &k.l1,
        blocks as u32,
        half,
        0,
        &[Arg::U32(n as u32), data.into(), (&inter).into()],
    )?;
    // Up the tree of totals, then (root cleared) down again.
    let shared = (4 * dim_block) as u64;
    let threads = (dim_block / 2) as u32;
    let mut stride = 1;
    let mut d = total_len;
    while d > 1 {
        let grid = (d / dim_block) as u32;
        let args = [(&inter).into(), Arg::U32(stride as u32)];
        session.launch(&k.inter1, grid, threads, shared, &args)?;
        stride *= dim_block;
        d /= dim_block;
    }
    dev.memory()
        .write(inter.device_ptr() + 4 * (total_len as u64 - 1), &[0; 4])
        .map_err(|e| runtime::Error::HostAccess(e.to_string()))?;
    let mut d = dim_block;
    while d <= total_len {
        stride /= dim_block;
        let grid = (d / dim_block) as u32;
        let args = [(&inter).into(), Arg::U32(stride as u32)];
        session.launch(&k.inter2, grid, threads, shared, &args)?;
        d *= dim_block;
    }
    session.launch(
        &k.uniform_add,
        blocks as u32,
        half,
        0,
        &[Arg::U32(n as u32), data.into(), (&inter).into()],
    )?;
    Ok(())
}

/// `div.approx.f32` as warpsim evaluates it: `a · (1/b)`, each step rounded (the divisors
/// here are far below 2^126, where the instruction has a special case).
fn div_approx(a: f32, b: f32) -> f32 {
    a * (1.0 / b)
}

/// `kernel_value`: the Kaiser-Bessel window's rational approximation, in NVRTC's fma chain.
/// The coefficients are the f32 values of Parboil's literals, taken bit for bit from the PTX
/// (numerator 0.210580722890567e-22 … 0.144048298227235e10, denominator −0.307646912682801e4,
/// 0.347626332405882e7, −0.144048298227235e10).
fn kernel_value(v: f32) -> f32 {
    const NUM: [u32; 15] = [
        0x19CB_A943,
        0x1F33_C9A6,
        0x245D_1A51,
        0x2943_F69C,
        0x2E04_59D5,
        0x3289_A1C8,
        0x36DB_BBE8,
        0x3B04_C525,
        0x3EED_1856,
        0x4296_DE12,
        0x4601_CFB4,
        0x490B_90D2,
        0x4BA5_1CAB,
        0x4DAA_0FB4,
        0x4EAB_B80D,
    ];
    const DEN: [u32; 3] = [0xC540_4782, 0x4A54_2C9D, 0xCEAB_B80D];
    let c = f32::from_bits;
    let z = v * v;
    let num = NUM[2..]
        .iter()
        .fold(z.mul_add(c(NUM[0]), c(NUM[1])), |acc, &k| {
            z.mul_add(acc, c(k))
        });
    let den = z.mul_add(z.mul_add(z + c(DEN[0]), c(DEN[1])), c(DEN[2]));
    div_approx(-num, den)
}

/// The CPU reference: (grid data as interleaved real/imaginary, sample density).
pub fn reference(p: &Problem, samples: &[ReconstructionSample]) -> (Vec<f32>, Vec<f32>) {
    let k = Constants::new();
    let [sx, sy, sz] = p.grid;
    let keys: Vec<u32> = samples.iter().map(|s| bin_of(s, p.grid) as u32).collect();
    let mut counts = vec![0u32; p.points() + 1];
    for &key in &keys {
        counts[key as usize] += 1;
    }
    let order = sorted_order(&keys);
    let starts = exclusive_scan(&counts);
    let sorted: Vec<ReconstructionSample> = order.iter().map(|&i| samples[i as usize]).collect();

    let mut data = vec![0.0f32; 2 * p.points()];
    let mut density = vec![0.0f32; p.points()];
    let ceil_cutoff = k.cutoff.ceil();
    let (bx, by, bz) = DIMS;
    for z0 in (0..sz).step_by(4 * bz) {
        for y0 in (0..sy).step_by(by) {
            for x0 in (0..sx).step_by(bx) {
                // The bin rows the CTA visits, clamped as the kernel clamps them.
                let low = |o: usize| (((o as i32) as f32 - ceil_cutoff) as i32).max(0) as usize;
                let high = |o: usize, ext: usize, size: usize| {
                    ((k.cutoff + ((o + ext) as u32) as f32) as i32).min(size as i32 - 1) as usize
                };
                let (xl, xh) = (low(x0), high(x0, bx, sx));
                let (yl, yh) = (low(y0), high(y0, by, sy));
                let (zl, zh) = (low(z0), high(z0, 4 * bz, sz));
                let mut near: Vec<&ReconstructionSample> = Vec::new();
                for z in zl..=zh {
                    for y in yl..=yh {
                        let row = z * sx * sy + y * sx;
                        let (start, end) = (starts[row + xl], starts[row + xh + 1]);
                        near.extend(&sorted[start as usize..end as usize]);
                    }
                }
                for tz in 0..4 * bz {
                    for ty in 0..by {
                        for tx in 0..bx {
                            let (x, y, z) = (x0 + tx, y0 + ty, z0 + tz);
                            let (xf, yf, zf) = (x as i32 as f32, y as i32 as f32, z as i32 as f32);
                            let (mut re, mut im, mut n) = (0.0f32, 0.0f32, 0.0f32);
                            for s in &near {
                                if !((s.real != 0.0 || s.imag != 0.0) && s.sdc != 0.0) {
                                    continue;
                                }
                                let (dx, dy, dz) = (s.k[0] - xf, s.k[1] - yf, s.k[2] - zf);
                                let v = dz.mul_add(dz, dx.mul_add(dx, dy * dy));
                                if v < k.cutoff2 {
                                    let arg = (1.0 - v * k.one_over_cutoff2).sqrt() * k.beta;
                                    let w = s.sdc * kernel_value(arg);
                                    re = s.real.mul_add(w, re);
                                    im = s.imag.mul_add(w, im);
                                    n += 1.0;
                                }
                            }
                            let i = z * sx * sy + y * sx + x;
                            data[2 * i] = re;
                            data[2 * i + 1] = im;
                            density[i] = n;
                        }
                    }
                }
            }
        }
    }
    (data, density)
}

/// Parboil mri-gridding as a registered sample.
pub struct MriGridding;

impl Sample for MriGridding {
    fn name(&self) -> &'static str {
        "parboil/mri-gridding"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "binning_kernel",
            "splitSort",
            "splitRearrange",
            "reorder_kernel",
            "scan_L1_kernel",
            "scan_inter1_kernel",
            "scan_inter2_kernel",
            "uniformAdd",
            "gridding_GPU",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} samples onto a {} × {} × {} grid, kernel width 4",
            p.samples, p.grid[0], p.grid[1], p.grid[2]
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let input = samples(&p);
        let k = Constants::new();
        let n = p.samples;
        let points = p.points();
        let [sx, sy, sz] = p.grid;

        let mut session = Session::new(dev);
        let module = session.load("parboil/mri-gridding/mri-gridding.ptx")?;
        let binning = module.kernel("binning_kernel")?;
        let reorder = module.kernel("reorder_kernel")?;
        let gridding = module.kernel("gridding_GPU")?;
        let sort = SortKernels {
            split_sort: module.kernel("splitSort")?,
            split_rearrange: module.kernel("splitRearrange")?,
        };
        let scan = ScanKernels {
            l1: module.kernel("scan_L1_kernel")?,
            inter1: module.kernel("scan_inter1_kernel")?,
            inter2: module.kernel("scan_inter2_kernel")?,
            uniform_add: module.kernel("uniformAdd")?,
        };
        let grid_size = [sx as i32, sy as i32, sz as i32];
        module.write_symbol("cutoff2_c", 0, &k.cutoff2.to_le_bytes())?;
        module.write_symbol("cutoff_c", 0, &k.cutoff.to_le_bytes())?;
        module.write_symbol("gridSize_c", 0, &runtime::buffer::to_bytes(&grid_size))?;
        module.write_symbol("size_xy_c", 0, &((sx * sy) as i32).to_le_bytes())?;
        module.write_symbol("_1overCutoff2_c", 0, &k.one_over_cutoff2.to_le_bytes())?;

        let flat: Vec<f32> = input.iter().flat_map(|s| s.floats()).collect();
        let d_samples = dev.alloc_from(&flat)?;
        // Padded to a multiple of 4 for the sort, the padding keys all ones (sorted last).
        let d_keys = dev.alloc::<u32>(n.next_multiple_of(4))?;
        let d_values = dev.alloc::<u32>(n.next_multiple_of(4))?;
        d_keys.memset(0xFF)?;
        d_values.memset(0)?;
        let d_counts = dev.alloc::<u32>(points + 1)?;
        d_counts.memset(0)?;
        let ctas = n.div_ceil(BLOCKSIZE as usize) as u32;

        // Step 1: binning.
        session.launch(
            &binning,
            ctas,
            BLOCKSIZE,
            0,
            &[
                Arg::U32(n as u32),
                (&d_samples).into(),
                (&d_keys).into(),
                (&d_values).into(),
                (&d_counts).into(),
                Arg::U32(BINSIZE),
                Arg::U32(points as u32),
            ],
        )?;

        // Step 2: sort the (bin, sample) pairs by bin.
        let max_value = points as u32 + 1;
        let (_d_keys, d_values) =
            sort_pairs(&mut session, &sort, &scan, n, max_value, d_keys, d_values)?;

        // Step 3: reorder into a structure of arrays (float2 data, then float4 locations),
        // padded to a multiple of 64 samples as Parboil pads it.
        let padded = n.next_multiple_of(64);
        let d_sorted = dev.alloc::<f32>(6 * padded)?;
        let data_ptr = d_sorted.device_ptr();
        let loc_ptr = data_ptr + (4 * 2 * padded) as u64;
        let soa = [data_ptr.to_le_bytes(), loc_ptr.to_le_bytes()].concat();
        session.launch(
            &reorder,
            ctas,
            BLOCKSIZE,
            0,
            &[
                Arg::I32(n as i32),
                (&d_values).into(),
                (&d_samples).into(),
                Arg::Bytes(soa.clone()),
            ],
        )?;

        // Step 4: the bin counts become start offsets, in place. The last one is the number
        // of samples in bins (Parboil's `cpuStart`): all of them, or the CPU pass would have
        // work.
        scan_large_array(&mut session, &scan, points + 1, &d_counts)?;
        let starts = d_counts.to_host()?;
        assert_eq!(
            starts[points] as usize, n,
            "a bin overflowed: the CPU pass is not ported"
        );

        // Step 5: gridding.
        let d_data = dev.alloc::<f32>(2 * points)?;
        let d_density = dev.alloc::<f32>(points)?;
        d_data.memset(0)?;
        d_density.memset(0)?;
        let (bx, by, bz) = DIMS;
        session.launch(
            &gridding,
            ((sx / bx) as u32, ((sy * sz) / (4 * by * bz)) as u32),
            (bx as u32, by as u32, bz as u32),
            0,
            &[
                Arg::Bytes(soa),
                (&d_counts).into(),
                (&d_data).into(),
                (&d_density).into(),
                Arg::F32(k.beta),
            ],
        )?;

        let mut got = d_data.to_host()?;
        got.extend(d_density.to_host()?);
        let (mut want, want_density) = reference(&p, &input);
        want.extend(want_density);
        let mut validation = Validation::exact_f32(&got, &want);
        // The sorted order and the scanned offsets, exactly.
        let keys: Vec<u32> = input.iter().map(|s| bin_of(s, p.grid) as u32).collect();
        let mut counts = vec![0u32; points + 1];
        for &key in &keys {
            counts[key as usize] += 1;
        }
        let sorted = d_values.to_host()?;
        for check in [
            Validation::exact(&sorted[..n], &sorted_order(&keys)),
            Validation::exact(&starts, &exclusive_scan(&counts)),
        ] {
            validation.checked += check.checked;
            validation.mismatches += check.mismatches;
            if validation.first_mismatch.is_none() {
                validation.first_mismatch = check.first_mismatch;
            }
        }
        Ok(session.finish(validation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size keeps below the bin capacity, and at the default and large sizes the densest
    /// row of bins a gridding CTA visits holds more samples than one shared-memory tile (64),
    /// so the tile loop repeats (the small size stays below it, to stay cheap).
    #[test]
    fn bins_fit_and_rows_exceed_a_tile() {
        for size in Size::ALL {
            let p = Problem::of(size);
            let mut counts = vec![0u32; p.points()];
            for s in samples(&p) {
                counts[bin_of(&s, p.grid)] += 1;
            }
            assert!(counts.iter().all(|&c| c <= BINSIZE), "{size:?}");
            let row = |r: &[u32]| r.iter().sum::<u32>();
            let densest = counts.chunks(p.grid[0]).map(row).max().unwrap();
            assert!(size == Size::Small || densest > 64, "{size:?}");
        }
    }
}
