//! Parboil histo: a saturating histogram (one byte per bin, min(count, 255)) with Parboil's
//! four-kernel pipeline, repeated `iterations` times as Parboil's host does:
//! `histo_prescan_kernel` (estimates the "eye", the 8K-bin blocks within mean ± 10σ of the
//! input, from a 1/8 sample), `histo_intermediates_kernel` (maps every input to its
//! shared-memory position), `histo_main_kernel` (a 14 × eye-blocks grid; packed 8-bit counters
//! in shared memory for the eye, saturating 16-bit global counters outside it) and
//! `histo_final_kernel` (saturating merge into the byte histogram, clearing the global
//! counters). The host reads the eye back between the prescan and the main kernel, as Parboil
//! does, to size the main kernel's grid.
//!
//! Parboil reads a file of bin indices from silicon-wafer verification, roughly Gaussian and
//! centred in the histogram; here they are generated: a seeded near-Gaussian (sum of four
//! uniforms) around the centre, a few uniform outliers anywhere in the histogram (counted
//! outside the eye), and a "hot" bin hit often enough that a CTA's 8-bit shared counter
//! overflows (exercising the overflow records and the carry into the neighbouring counter,
//! which Parboil's final kernel, like this port, leaves in the result).
//!
//! Validation is exact: the eye (the prescan's float arithmetic mirrored operation by
//! operation: `cvt.rn` conversions, `fma.rn` for the squared deviations, `div.rn`, `sqrt.rn`,
//! the same tree order) and every byte of the histogram, computed on the CPU with the same
//! packed-counter arithmetic per CTA (the atomics commute, so their order does not matter).
//! Nor does it change the instructions executed, which warpsim's tests require to be the same
//! in the functional engines and the timing model: every bin outside the eye is hit far fewer
//! than 255 times (so the unsynchronised saturation test always passes), and the hot bin is the
//! lowest counter of its word, overflowing exactly once per CTA whichever thread does it, with
//! neighbours far from full.

use super::common::below;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Parboil's constants (KB = 8).
const BINS_PER_BLOCK: usize = 8 * 1024;
const BLOCK_X: usize = 14;
const THREADS: usize = 512;
const PRESCAN_THREADS: usize = 512;
const PRESCAN_BLOCKS_X: usize = 64;
const UNROLL: usize = 16;

/// One problem: image and histogram shapes, the input distribution, iterations.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub img_width: usize,
    pub img_height: usize,
    pub histo_width: usize,
    pub histo_height: usize,
    /// Spread of the near-Gaussian part, in bins.
    pub sigma: f64,
    /// One input in `outlier_every` is uniform over the whole histogram.
    pub outlier_every: usize,
    /// Inputs set to the central bin: the first `hot_leading` pixels, then one in `hot_every`.
    pub hot_leading: usize,
    pub hot_every: usize,
    pub iterations: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        match size {
            // An eye of two blocks, 9 of the 14 column CTAs with inputs, one 8-bit overflow.
            Size::Small => Problem {
                img_width: 65,
                img_height: 64,
                histo_width: 32,
                histo_height: 1024,
                sigma: 4000.0,
                outlier_every: 50,
                hot_leading: 300,
                hot_every: 0,
                iterations: 1,
            },
            // After Parboil's default dataset: a 996 × 1040 image into 256 × 8192 bins.
            Size::Default => Problem {
                img_width: 996,
                img_height: 1040,
                histo_width: 256,
                histo_height: 8192,
                sigma: 3000.0,
                outlier_every: 1000,
                hot_leading: 0,
                hot_every: 200,
                iterations: 2,
            },
            Size::Large => Problem {
                img_width: 2048,
                img_height: 2048,
                histo_width: 256,
                histo_height: 8192,
                sigma: 6000.0,
                outlier_every: 1000,
                hot_leading: 0,
                hot_every: 200,
                iterations: 1,
            },
        }
    }

    fn bins(&self) -> usize {
        self.histo_width * self.histo_height
    }

    fn pixels(&self) -> usize {
        self.img_width * self.img_height
    }

    /// Prescan CTAs: Parboil's 64 where every prescan thread then samples at least one input
    /// (a CTA samples the first eighth of its share), else as many as allow that (small size).
    fn prescan_blocks(&self) -> usize {
        (self.pixels() / (8 * PRESCAN_THREADS)).clamp(1, PRESCAN_BLOCKS_X)
    }
}

/// The input image, row-major, one bin index per pixel.
pub fn generate(p: &Problem) -> Vec<u32> {
    let mut rng = Rng::new(0x4849_5354_0001);
    let bins = p.bins();
    let centre = (bins / 2) as f64;
    // Four uniforms sum to mean 2, variance 1/3: scale by √3 for a spread of σ.
    let scale = p.sigma * 3f64.sqrt();
    (0..p.pixels())
        .map(|i| {
            let hot = i < p.hot_leading || (p.hot_every > 0 && below(&mut rng, p.hot_every) == 0);
            if hot {
                return (bins / 2) as u32;
            }
            if below(&mut rng, p.outlier_every) == 0 {
                return below(&mut rng, bins) as u32;
            }
            let sum: f64 = (0..4).map(|_| f64::from(rng.f32_in(0.0, 1.0))).sum();
            (centre + (sum - 2.0) * scale).clamp(0.0, (bins - 1) as f64) as u32
        })
        .collect()
}

/// `histo_prescan_kernel` on the CPU, operation by operation: the eye as (first, last) block.
pub fn prescan(input: &[u32], blocks: usize) -> (u32, u32) {
    let share = input.len() / blocks;
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    for b in 0..blocks {
        let mut avgs = [0.0f32; PRESCAN_THREADS];
        let mut sds = [0.0f32; PRESCAN_THREADS];
        let end = b * share + share / 8;
        for t in 0..PRESCAN_THREADS {
            let samples = (b * share + t..end).step_by(PRESCAN_THREADS);
            let count = samples.clone().count() as u32 as f32;
            let avg = samples.clone().fold(0.0f32, |s, a| s + input[a] as f32) / count;
            let var = samples.fold(0.0f32, |s, a| {
                let d = input[a] as f32 - avg;
                d.mul_add(d, s)
            }) / count;
            avgs[t] = avg;
            sds[t] = var.sqrt();
        }
        let mut stride = PRESCAN_THREADS / 2;
        while stride >= 2 {
            for t in 0..stride {
                avgs[t] += avgs[t + stride];
                sds[t] += sds[t + stride];
            }
            stride /= 2;
        }
        // `/ PRESCAN_THREADS` is a multiplication by 2⁻⁹ in the PTX (exact either way).
        let mean = (avgs[0] + avgs[1]) * (1.0 / PRESCAN_THREADS as f32);
        let sigma = (sds[0] + sds[1]) * (1.0 / PRESCAN_THREADS as f32);
        let ten_sigma = sigma * 10.0;
        // `as u32` saturates like cvt.rzi.u32.f32 (negative and NaN give 0).
        lo = lo.min((mean - ten_sigma) as u32 / BINS_PER_BLOCK as u32);
        hi = hi.max((mean + ten_sigma) as u32 / BINS_PER_BLOCK as u32);
    }
    (lo, hi)
}

/// The byte histogram the pipeline produces for the eye `lo..=hi`: outside the eye
/// min(count, 255); inside it, per bin, the sum over the 14 column CTAs of that CTA's packed
/// 8-bit counter (wrapping, carrying into the next counter of the word), saturated at 255.
pub fn reference(p: &Problem, input: &[u32], lo: u32, hi: u32) -> Vec<u8> {
    let (w, half) = (p.img_width, p.img_width.div_ceil(2));
    let eye = (hi - lo + 1) as usize;
    let words = BINS_PER_BLOCK / 4;
    // Packed counters per (column CTA, eye block, word).
    let mut packed = vec![0u32; BLOCK_X * eye * words];
    let mut counts = vec![0u32; p.bins()];
    for (pixel, &bin) in input.iter().enumerate() {
        let bin = bin as usize;
        let block = (bin / BINS_PER_BLOCK) as u32;
        if block < lo || block > hi {
            counts[bin] += 1;
            continue;
        }
        // Where histo_intermediates_kernel stores this pixel's mapping, hence which column
        // CTA of histo_main_kernel reads it.
        let (y, x) = (pixel / w, pixel % w);
        let e = y * w + x / 2 + (x % 2) * half;
        let cta = (e / THREADS) % BLOCK_X;
        let word = (cta * eye + (block - lo) as usize) * words + (bin % BINS_PER_BLOCK) / 4;
        packed[word] = packed[word].wrapping_add(1 << (8 * (bin % 4)));
    }
    let mut out: Vec<u8> = counts.iter().map(|&c| c.min(255) as u8).collect();
    for e in 0..eye {
        let mut sums = vec![0u32; BINS_PER_BLOCK];
        for cta in 0..BLOCK_X {
            for wd in 0..words {
                let v = packed[(cta * eye + e) * words + wd];
                for byte in 0..4 {
                    sums[wd * 4 + byte] += (v >> (8 * byte)) & 0xFF;
                }
            }
        }
        let base = (lo as usize + e) * BINS_PER_BLOCK;
        for (i, s) in sums.iter().enumerate() {
            out[base + i] = (*s).min(255) as u8;
        }
    }
    out
}

/// Parboil histo as a registered sample.
pub struct Histo;

impl Sample for Histo {
    fn name(&self) -> &'static str {
        "parboil/histo"
    }

    fn values_depend_on_warp_order(&self) -> Option<&'static str> {
        Some(
            "the main kernel's atomicAdd on packed 8-bit counters returns the word as the \
             warps before it left it (the sums, and the overflow bins, do not depend on it)",
        )
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "histo_prescan_kernel",
            "histo_intermediates_kernel",
            "histo_main_kernel",
            "histo_final_kernel",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        let origin = if size == Size::Default {
            " (after Parboil's default dataset)"
        } else {
            ""
        };
        format!(
            "{} × {} image into {} × {} bins, {} iteration(s) of the 4 kernels{origin}",
            p.img_width, p.img_height, p.histo_width, p.histo_height, p.iterations
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        assert!(
            p.img_height.is_multiple_of(UNROLL),
            "the intermediates kernel covers 16 rows per CTA"
        );
        let img = generate(&p);
        let bins = p.bins();
        let even_width = p.img_width.div_ceil(2) * 2;

        let mut session = Session::new(dev);
        let module = session.load("parboil/histo/histo.ptx")?;
        let prescan_k = module.kernel("histo_prescan_kernel")?;
        let intermediates_k = module.kernel("histo_intermediates_kernel")?;
        let main_k = module.kernel("histo_main_kernel")?;
        let final_k = module.kernel("histo_final_kernel")?;

        // The input with rows padded to an even width (read as uint2 pairs).
        let mut padded = vec![0u32; even_width * p.img_height];
        for (y, row) in img.chunks(p.img_width).enumerate() {
            padded[y * even_width..y * even_width + p.img_width].copy_from_slice(row);
        }
        let d_input = dev.alloc_from(&padded)?;
        let d_ranges = dev.alloc::<u32>(2)?;
        let d_mappings = dev.alloc::<u32>(p.pixels())?;
        let d_subhisto = dev.alloc::<u32>(bins)?;
        let d_histo = dev.alloc::<u32>(bins / 2)?;
        let d_overflow = dev.alloc::<u32>(bins)?;
        let d_final = dev.alloc::<u32>(bins / 4)?;
        let zeros = vec![0u32; bins];

        let mut ranges = [u32::MAX, 0];
        for _ in 0..p.iterations {
            d_ranges.copy_from_host(&[u32::MAX, 0])?;
            session.launch(
                &prescan_k,
                p.prescan_blocks() as u32,
                PRESCAN_THREADS as u32,
                0,
                &[
                    (&d_input).into(),
                    Arg::I32(p.pixels() as i32),
                    (&d_ranges).into(),
                ],
            )?;
            let r = d_ranges.to_host()?;
            ranges = [r[0], r[1]];
            if ranges[0] > ranges[1] || (ranges[1] as usize + 1) * BINS_PER_BLOCK > bins {
                // The final kernel would write past the histogram (Parboil does not check).
                break;
            }
            d_subhisto.copy_from_host(&zeros)?;
            session.launch(
                &intermediates_k,
                (p.img_height / UNROLL) as u32,
                p.img_width.div_ceil(2) as u32,
                0,
                &[
                    (&d_input).into(),
                    Arg::U32(p.img_height as u32),
                    Arg::U32(p.img_width as u32),
                    Arg::U32(p.img_width.div_ceil(2) as u32),
                    (&d_mappings).into(),
                ],
            )?;
            session.launch(
                &main_k,
                (BLOCK_X as u32, ranges[1] - ranges[0] + 1),
                THREADS as u32,
                0,
                &[
                    (&d_mappings).into(),
                    Arg::U32(p.pixels() as u32),
                    Arg::U32(ranges[0]),
                    Arg::U32(ranges[1]),
                    Arg::U32(p.histo_height as u32),
                    Arg::U32(p.histo_width as u32),
                    (&d_subhisto).into(),
                    (&d_histo).into(),
                    (&d_overflow).into(),
                ],
            )?;
            session.launch(
                &final_k,
                (BLOCK_X * 3) as u32,
                512u32,
                0,
                &[
                    Arg::U32(ranges[0]),
                    Arg::U32(ranges[1]),
                    Arg::U32(p.histo_height as u32),
                    Arg::U32(p.histo_width as u32),
                    (&d_subhisto).into(),
                    (&d_histo).into(),
                    (&d_overflow).into(),
                    (&d_final).into(),
                ],
            )?;
        }

        // Compare the eye, then every bin.
        let (lo, hi) = prescan(&img, p.prescan_blocks());
        let mut got = ranges.to_vec();
        let mut expected = vec![lo, hi];
        if ranges == [lo, hi] {
            let words = d_final.to_host()?;
            got.extend(words.iter().flat_map(|w| w.to_le_bytes()).map(u32::from));
            expected.extend(reference(&p, &img, lo, hi).into_iter().map(u32::from));
        }
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
