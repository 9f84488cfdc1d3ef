//! Parboil tpacf: the two-point angular correlation function of a catalogue of points on the
//! sky, as histograms of pairwise angular distances: data–data (DD), random–random (RR) for
//! each random catalogue and data–random (DR) for each. One launch of `gen_hists`, 2·sets + 1
//! CTAs of 256 threads (CTA 0 DD, then RR per random set, then DR per random set); each CTA
//! stages data points in shared memory, each thread holds one random point, finds each pair's
//! bin by binary search over the 21 bin boundaries in constant memory and counts it with a
//! shared-memory `atomicAdd` into one of 128 sub-histograms, which a tree then sums.
//!
//! Inputs: Parboil reads a data catalogue and `-n` random catalogues of `-p` points each
//! (right ascension and declination in degrees). Here they are generated from a seeded
//! [`Rng`] over a 30° × 20° patch of sky: the random catalogues uniform on the sphere within
//! the patch, the data catalogue clustered (points scattered around cluster centres), and
//! converted to unit vectors in double precision and stored as floats as Parboil's reader does.
//! The bin boundaries are Parboil's (20 bins, 5 per decade from 1 to 10 000 arcminutes),
//! computed in double precision as its `initBinB` does.
//!
//! Validation is exact: the histograms are counts (shared-memory atomics commute), and the
//! reference bins every pair with the kernel's arithmetic: NVRTC computes the dot product as
//! `fma(z, z', fma(x, x', y·y'))`, reproduced with `f32::mul_add`, and the binary search and
//! range test are the kernel's.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Threads per CTA and histogram bins (Parboil's BLOCK_SIZE and NUM_BINS).
const BLOCK_SIZE: u32 = 256;
const NUM_BINS: usize = 20;
/// Bins per decade and the smallest angle, in arcminutes (Parboil's model.h).
const BINS_PER_DEC: f64 = 5.0;
const MIN_ARCMIN: f64 = 1.0;

/// One problem: `sets` random catalogues and the data catalogue, `points` points each.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub sets: usize,
    pub points: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (sets, points) = match size {
            // Three CTAs (DD, RR, DR), one partial tile: the smallest run that takes every
            // kind of CTA through the pair loop and the reduction.
            Size::Small => (1, 20),
            // Parboil's small dataset shape (`-n 100 -p 487`): two tiles, the second partial.
            // ~3.9 G thread instructions, a little over the default-size guide, but the
            // smallest of Parboil's datasets.
            Size::Default => (100, 487),
            // Parboil's medium dataset has 100 × 4096 points (~270 G thread instructions);
            // 150 random sets (301 CTAs) of 512 points.
            Size::Large => (150, 512),
        };
        Problem { sets, points }
    }
}

/// Bin boundaries as Parboil's `initBinB` computes them: cos of 10^(log10(1) + k/5)
/// arcminutes, in double precision, stored as floats (decreasing).
pub fn bin_boundaries() -> Vec<f32> {
    (0..=NUM_BINS)
        .map(|k| {
            let arcmin = 10f64.powf(MIN_ARCMIN.log10() + k as f64 * 1.0 / BINS_PER_DEC);
            // Parboil's `x / 60.0 * D2R` with `#define D2R M_PI / 180.0`.
            (arcmin / 60.0 * std::f64::consts::PI / 180.0).cos() as f32
        })
        .collect()
}

/// A unit vector from right ascension and declination in degrees, as Parboil's reader
/// converts it (double precision, stored as floats).
fn cartesian(ra: f64, dec: f64) -> [f32; 3] {
    let d2r = std::f64::consts::PI / 180.0;
    let (rarad, decrad) = (ra * d2r, dec * d2r);
    let cd = decrad.cos();
    [
        (rarad.cos() * cd) as f32,
        (rarad.sin() * cd) as f32,
        decrad.sin() as f32,
    ]
}

/// The sky patch: right ascension 10°–40°, declination −10°–10°.
const RA: (f64, f64) = (10.0, 40.0);
const DEC: (f64, f64) = (-10.0, 10.0);

/// A uniform draw in [lo, hi).
fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
}

/// Points uniform on the sphere within the patch.
fn random_catalogue(rng: &mut Rng, n: usize) -> Vec<[f32; 3]> {
    let (s0, s1) = (DEC.0.to_radians().sin(), DEC.1.to_radians().sin());
    (0..n)
        .map(|_| {
            let ra = uniform(rng, RA.0, RA.1);
            let dec = uniform(rng, s0, s1).asin().to_degrees();
            cartesian(ra, dec)
        })
        .collect()
}

/// A clustered catalogue: points scattered (up to ~1°) around a few centres in the patch.
fn data_catalogue(rng: &mut Rng, n: usize) -> Vec<[f32; 3]> {
    let centres: Vec<(f64, f64)> = (0..8)
        .map(|_| {
            (
                uniform(rng, RA.0 + 2.0, RA.1 - 2.0),
                uniform(rng, DEC.0 + 2.0, DEC.1 - 2.0),
            )
        })
        .collect();
    (0..n)
        .map(|i| {
            let (ra, dec) = centres[i % centres.len()];
            // A sum of uniforms: roughly Gaussian offsets.
            let mut offset = || (0..3).map(|_| uniform(rng, -0.4, 0.4)).sum::<f64>();
            cartesian(ra + offset(), dec + offset())
        })
        .collect()
}

/// All catalogues, data first, as the kernel's three coordinate arrays (x, y, z), each
/// `(sets + 1) · points` long.
pub fn catalogues(p: &Problem) -> [Vec<f32>; 3] {
    let mut rng = Rng::new(0x7ACF_0001);
    let mut all = data_catalogue(&mut rng, p.points);
    for _ in 0..p.sets {
        all.extend(random_catalogue(&mut rng, p.points));
    }
    [0, 1, 2].map(|d| all.iter().map(|v| v[d]).collect())
}

/// The bin of one pair as the kernel finds it, or `None` when it lies outside the bins.
fn bin_of(a: [f32; 3], b: [f32; 3], binb: &[f32]) -> Option<usize> {
    let distance = a[2].mul_add(b[2], a[0].mul_add(b[0], a[1] * b[1]));
    let (mut min, mut max) = (0usize, NUM_BINS);
    while max > min + 1 {
        let k2 = (min + max) / 2;
        if distance >= binb[k2] {
            max = k2;
        } else {
            min = k2;
        }
    }
    (distance < binb[min] && distance >= binb[max]).then_some(max - 1)
}

/// The CPU reference: `NUM_BINS` counts per CTA (DD, RR per set, DR per set).
pub fn reference(p: &Problem, xyz: &[Vec<f32>; 3], binb: &[f32]) -> Vec<u64> {
    let n = p.points;
    let point = |set: usize, i: usize| [0, 1, 2].map(|d| xyz[d][set * n + i]);
    let mut hists = vec![0u64; NUM_BINS * (2 * p.sets + 1)];
    for cta in 0..=2 * p.sets {
        let hist = &mut hists[cta * NUM_BINS..(cta + 1) * NUM_BINS];
        let (data_set, random_set, self_pairs) = if cta <= p.sets {
            (cta, cta, true)
        } else {
            (0, cta - p.sets, false)
        };
        for a in 0..n {
            // The kernel pairs data point a with random point b (b > a for self pairs).
            let first = if self_pairs { a + 1 } else { 0 };
            for b in first..n {
                if let Some(bin) = bin_of(point(data_set, a), point(random_set, b), binb) {
                    hist[bin] += 1;
                }
            }
        }
    }
    hists
}

/// Parboil tpacf as a registered sample.
pub struct Tpacf;

impl Sample for Tpacf {
    fn name(&self) -> &'static str {
        "parboil/tpacf"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["gen_hists"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} random sets and the data set, {} points each ({} CTAs)",
            p.sets,
            p.points,
            2 * p.sets + 1
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let xyz = catalogues(&p);
        let binb = bin_boundaries();

        let mut session = Session::new(dev);
        let module = session.load("parboil/tpacf/tpacf.ptx")?;
        let kernel = module.kernel("gen_hists")?;
        module.write_symbol("dev_binb", 0, &runtime::buffer::to_bytes(&binb))?;

        // One allocation for x, y and z, as Parboil's host does.
        let all: Vec<f32> = xyz.iter().flatten().copied().collect();
        let d_data = dev.alloc_from(&all)?;
        let stride = (4 * xyz[0].len()) as u64;
        let base = d_data.device_ptr();
        let ctas = 2 * p.sets + 1;
        let d_hists = dev.alloc::<u64>(NUM_BINS * ctas)?;

        session.launch(
            &kernel,
            ctas as u32,
            BLOCK_SIZE,
            0,
            &[
                (&d_hists).into(),
                Arg::Ptr(base),
                Arg::Ptr(base + stride),
                Arg::Ptr(base + 2 * stride),
                Arg::I32(p.sets as i32),
                Arg::I32(p.points as i32),
            ],
        )?;

        let got = d_hists.to_host()?;
        let expected = reference(&p, &xyz, &binb);
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
