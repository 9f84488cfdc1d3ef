//! Rodinia srad_v1: Speckle Reducing Anisotropic Diffusion on an `Nr × Nc` image stored
//! column-major, one thread per pixel, 512 threads per block.
//!
//! The launch sequence is Rodinia's: `extract` once; then per iteration `prepare`, `reduce`
//! launched by the host on a shrinking grid (⌈n/512⌉ blocks, stride ×512 per stage) until one
//! block remains, a copy of the two totals to the host (which computes `q0sqr` in f32), `srad`
//! and `srad2`; finally `compress` and the copy of the image back.
//!
//! Rodinia reads a 502 × 458 ultrasound image from a file; here the 0..255 image is seeded noise.
//!
//! Validation:
//! - `extract` computes `exp(I / 255)` with NVRTC's inlined `expf`, whose core is
//!   `ex2.approx.ftz.f32`; its result is checked against the correctly rounded exponential
//!   within 1e-6 relative (the CUDA guide bounds `expf` by 2 ulp, at most 2.4e-7 relative in
//!   [1, e]; the margin leaves room for the approximate `ex2`). The driver reads the image back
//!   after `extract` (a copy Rodinia does not make) and the reference continues from it.
//! - Everything after that is bit-exact: the reduction tree (including Rodinia's remainder loop
//!   in the last partial block, which reads `d_sums[i]` without the stride) is replayed block by
//!   block, `srad`/`srad2` mirror the PTX's `fma.rn.f32` chains, `div.rn.f32` and f64 steps, and
//!   `compress`'s `logf` is NVRTC's inlined libdevice polynomial (pure `fma.rn.f32`, no
//!   approximate instructions), transcribed here.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

const NUMBER_THREADS: usize = 512;

/// One problem: image size, iterations, λ.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub nr: usize,
    pub nc: usize,
    pub niter: usize,
    pub lambda: f32,
}

/// The 0..255 input image (integer gray levels), column-major.
fn inputs(p: &Params) -> Vec<f32> {
    let mut rng = Rng::new(0x52AD_0001);
    (0..p.nr * p.nc)
        .map(|_| rng.f32_in(0.0, 256.0).floor())
        .collect()
}

/// Rodinia's clamped neighbour tables: (iN, iS, jW, jE).
fn neighbours(p: &Params) -> (Vec<i32>, Vec<i32>, Vec<i32>, Vec<i32>) {
    let (nr, nc) = (p.nr as i32, p.nc as i32);
    let i_n = (0..nr).map(|i| (i - 1).max(0)).collect();
    let i_s = (0..nr).map(|i| (i + 1).min(nr - 1)).collect();
    let j_w = (0..nc).map(|j| (j - 1).max(0)).collect();
    let j_e = (0..nc).map(|j| (j + 1).min(nc - 1)).collect();
    (i_n, i_s, j_w, j_e)
}

/// The host's statistics from the two totals (f32, as Rodinia's `fp`).
fn q0sqr(total: f32, total2: f32, ne: usize) -> f32 {
    let ne_roi = ne as f32;
    let mean = total / ne_roi;
    let mean2 = mean * mean;
    let var = (total2 / ne_roi) - mean2;
    var / mean2
}

/// The grids of the host's reduce loop: (blocks, no, mul) per launch.
fn reduce_stages(ne: usize) -> Vec<(usize, usize, usize)> {
    let mut stages = Vec::new();
    let (mut blocks, mut no, mut mul) = (ne.div_ceil(NUMBER_THREADS), ne, 1);
    while blocks != 0 {
        stages.push((blocks, no, mul));
        no = blocks;
        if blocks == 1 {
            blocks = 0;
        } else {
            mul *= NUMBER_THREADS;
            blocks = blocks.div_ceil(NUMBER_THREADS);
        }
    }
    stages
}

/// One `reduce` launch replayed block by block (no block reads what another one writes, so
/// the order does not matter).
fn reference_reduce(sums: &mut [f32], sums2: &mut [f32], grid: usize, no: usize, mul: usize) {
    let n = NUMBER_THREADS;
    let nf = n + no - grid * n;
    for bx in 0..grid {
        let mut ps = vec![0.0f32; n];
        let mut ps2 = vec![0.0f32; n];
        for tx in 0..n {
            let ei = bx * n + tx;
            if ei < no {
                ps[tx] = sums[ei * mul];
                ps2[tx] = sums2[ei * mul];
            }
        }
        let tree = |ps: &mut [f32], ps2: &mut [f32], width: usize| {
            let mut i = 2;
            while i <= width {
                for tx in (i - 1..width).step_by(i) {
                    ps[tx] += ps[tx - i / 2];
                    ps2[tx] += ps2[tx - i / 2];
                }
                i *= 2;
            }
        };
        let out = bx * mul * n;
        if nf == n || bx != grid - 1 {
            tree(&mut ps, &mut ps2, n);
            sums[out] = ps[n - 1];
            sums2[out] = ps2[n - 1];
        } else {
            let mut df = 0;
            let mut i = 2;
            while i <= n {
                if nf >= i {
                    df = i;
                }
                i *= 2;
            }
            tree(&mut ps, &mut ps2, df);
            if df > 0 {
                let tx = df - 1;
                // Rodinia's remainder loop: no `mul` stride
                for i in bx * n + df..bx * n + nf {
                    ps[tx] += sums[i];
                    ps2[tx] += sums2[i];
                }
                sums[out] = ps[tx];
                sums2[out] = ps2[tx];
            }
        }
    }
}

/// `srad` then `srad2` on the CPU, in place (column-major `img`).
fn reference_srad(p: &Params, img: &mut [f32], q0sqr: f32) {
    let (nr, nc) = (p.nr, p.nc);
    let ne = nr * nc;
    let (i_n, i_s, j_w, j_e) = neighbours(p);
    let (mut d_n, mut d_s, mut d_w, mut d_e, mut c) = (
        vec![0.0f32; ne],
        vec![0.0f32; ne],
        vec![0.0f32; ne],
        vec![0.0f32; ne],
        vec![0.0f32; ne],
    );
    for col in 0..nc {
        for row in 0..nr {
            let ei = row + nr * col;
            let jc = img[ei];
            let n = img[i_n[row] as usize + nr * col] - jc;
            let s = img[i_s[row] as usize + nr * col] - jc;
            let w = img[row + nr * j_w[col] as usize] - jc;
            let e = img[row + nr * j_e[col] as usize] - jc;
            // NVRTC's contraction: s*s, then fma with n, w, e
            let g2 = e.mul_add(e, w.mul_add(w, n.mul_add(n, s * s))) / (jc * jc);
            let l = (n + s + w + e) / jc;
            let num = f64::from(g2).mul_add(0.5, f64::from(l * l) * -(1.0 / 16.0)) as f32;
            let den = f64::from(l).mul_add(0.25, 1.0) as f32;
            let qsqr = num / (den * den);
            let den = (qsqr - q0sqr) / ((q0sqr + 1.0) * q0sqr);
            let cv = (1.0 / (f64::from(den) + 1.0)) as f32;
            // saturated to [0, 1] (a NaN stays NaN, as in the kernel)
            c[ei] = cv.clamp(0.0, 1.0);
            (d_n[ei], d_s[ei], d_w[ei], d_e[ei]) = (n, s, w, e);
        }
    }
    let lambda4 = f64::from(p.lambda) * 0.25;
    for col in 0..nc {
        for row in 0..nr {
            let ei = row + nr * col;
            let cc = c[ei];
            let cs = c[i_s[row] as usize + nr * col];
            let ce = c[row + nr * j_e[col] as usize];
            let d = ce.mul_add(
                d_e[ei],
                cc.mul_add(d_w[ei], cc.mul_add(d_n[ei], cs * d_s[ei])),
            );
            img[ei] = lambda4.mul_add(f64::from(d), f64::from(img[ei])) as f32;
        }
    }
}

/// `compress`: `logf(x) * 255` as NVRTC inlines libdevice's `__nv_logf` (PTX in
/// `srad_v1.ptx`), instruction by instruction.
fn compress_value(a: f32) -> f32 {
    let h = f32::from_bits;
    let small = a < h(0x0080_0000);
    let x = if small { a * h(0x4B00_0000) } else { a };
    let bias = if small { h(0xC1B8_0000) } else { 0.0 };
    let bits = x.to_bits() as i32;
    let e = bits.wrapping_add(-1_059_760_811) & -8_388_608;
    let m = h(bits.wrapping_sub(e) as u32);
    let ef = (e as f32).mul_add(h(0x3400_0000), bias);
    let t = m + h(0xBF80_0000);
    let mut q = h(0xBE05_5027).mul_add(t, h(0x3E10_39F6));
    for k in [
        0xBDF8_CDCC,
        0x3E0F_2955,
        0xBE2A_D8B9,
        0x3E4C_ED0B,
        0xBE7F_FF22,
        0x3EAA_AA78,
        0xBF00_0000,
    ] {
        q = q.mul_add(t, h(k));
    }
    let r = (t * q).mul_add(t, t);
    let mut log = ef.mul_add(h(0x3F31_7218), r);
    if (bits as u32) >= 0x7F80_0000 {
        log = x.mul_add(f32::INFINITY, f32::INFINITY);
    }
    if x == 0.0 {
        f32::NEG_INFINITY
    } else {
        log * 255.0
    }
}

/// Combines two validations of one run into one report.
fn merge(a: Validation, b: Validation) -> Validation {
    let offset = a.checked;
    Validation {
        checked: a.checked + b.checked,
        mismatches: a.mismatches + b.mismatches,
        first_mismatch: a
            .first_mismatch
            .or(b.first_mismatch.map(|(i, g, e)| (i + offset, g, e))),
        max_abs_diff: a.max_abs_diff.max(b.max_abs_diff),
    }
}

/// Rodinia srad_v1 as a registered sample.
pub struct SradV1;

impl SradV1 {
    pub fn params(size: Size) -> Params {
        match size {
            // 6 blocks, the last one partial: both reduce paths and two reduce stages.
            Size::Small => Params {
                nr: 61,
                nc: 47,
                niter: 2,
                lambda: 0.5,
            },
            // Rodinia's run script: ./srad 100 0.5 502 458
            Size::Default => Params {
                nr: 502,
                nc: 458,
                niter: 100,
                lambda: 0.5,
            },
            Size::Large => Params {
                nr: 1024,
                nc: 1024,
                niter: 100,
                lambda: 0.5,
            },
        }
    }
}

impl Sample for SradV1 {
    fn name(&self) -> &'static str {
        "rodinia/srad_v1"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["extract", "prepare", "reduce", "srad", "srad2", "compress"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = SradV1::params(size);
        format!(
            "{} × {} image, {} iterations, λ {} ({} reduce launches per iteration)",
            p.nr,
            p.nc,
            p.niter,
            p.lambda,
            reduce_stages(p.nr * p.nc).len()
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = SradV1::params(size);
        let ne = p.nr * p.nc;
        let image = inputs(&p);
        let (i_n, i_s, j_w, j_e) = neighbours(&p);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/srad_v1/srad_v1.ptx")?;
        let extract = module.kernel("extract")?;
        let prepare = module.kernel("prepare")?;
        let reduce = module.kernel("reduce")?;
        let srad = module.kernel("srad")?;
        let srad2 = module.kernel("srad2")?;
        let compress = module.kernel("compress")?;

        let d_i = dev.alloc_from(&image)?;
        let d_in = dev.alloc_from(&i_n)?;
        let d_is = dev.alloc_from(&i_s)?;
        let d_je = dev.alloc_from(&j_e)?;
        let d_jw = dev.alloc_from(&j_w)?;
        let d_sums = dev.alloc::<f32>(ne)?;
        let d_sums2 = dev.alloc::<f32>(ne)?;
        let d_dn = dev.alloc::<f32>(ne)?;
        let d_ds = dev.alloc::<f32>(ne)?;
        let d_dw = dev.alloc::<f32>(ne)?;
        let d_de = dev.alloc::<f32>(ne)?;
        let d_c = dev.alloc::<f32>(ne)?;

        let blocks = ne.div_ceil(NUMBER_THREADS) as u32;
        let threads = NUMBER_THREADS as u32;
        let ne_arg = Arg::I64(ne as i64);
        let read_first = |buf: &runtime::DeviceBuffer<f32>| -> runtime::Result<f32> {
            let mut b = [0u8; 4];
            dev.memory()
                .read(buf.device_ptr(), &mut b)
                .map_err(|e| runtime::Error::HostAccess(e.to_string()))?;
            Ok(f32::from_le_bytes(b))
        };

        session.launch(
            &extract,
            blocks,
            threads,
            0,
            &[ne_arg.clone(), (&d_i).into()],
        )?;
        // Not in Rodinia: the extracted image, for validation (see the module doc).
        let extracted = d_i.to_host()?;

        let common = |lambda: f32| {
            vec![
                Arg::F32(lambda),
                Arg::I32(p.nr as i32),
                Arg::I32(p.nc as i32),
                ne_arg.clone(),
                (&d_in).into(),
                (&d_is).into(),
                (&d_je).into(),
                (&d_jw).into(),
                (&d_dn).into(),
                (&d_ds).into(),
                (&d_de).into(),
                (&d_dw).into(),
            ]
        };
        for _ in 0..p.niter {
            session.launch(
                &prepare,
                blocks,
                threads,
                0,
                &[
                    ne_arg.clone(),
                    (&d_i).into(),
                    (&d_sums).into(),
                    (&d_sums2).into(),
                ],
            )?;
            for (grid, no, mul) in reduce_stages(ne) {
                session.launch(
                    &reduce,
                    grid as u32,
                    threads,
                    0,
                    &[
                        ne_arg.clone(),
                        Arg::I32(no as i32),
                        Arg::I32(mul as i32),
                        (&d_sums).into(),
                        (&d_sums2).into(),
                    ],
                )?;
            }
            let q0 = q0sqr(read_first(&d_sums)?, read_first(&d_sums2)?, ne);
            let mut args = common(p.lambda);
            args.extend([Arg::F32(q0), (&d_c).into(), (&d_i).into()]);
            session.launch(&srad, blocks, threads, 0, &args)?;
            let mut args = common(p.lambda);
            args.extend([(&d_c).into(), (&d_i).into()]);
            session.launch(&srad2, blocks, threads, 0, &args)?;
        }
        session.launch(&compress, blocks, threads, 0, &[ne_arg, (&d_i).into()])?;
        let result = d_i.to_host()?;

        // Reference: extract within tolerance, then bit-exact from the GPU's extracted image.
        let expected_extract: Vec<f32> = image
            .iter()
            .map(|v| f64::from(v / 255.0).exp() as f32)
            .collect();
        let v_extract = Validation::close_f32(&extracted, &expected_extract, 1e-6, 0.0);
        let mut img = extracted;
        let (mut sums, mut sums2) = (vec![0.0f32; ne], vec![0.0f32; ne]);
        for _ in 0..p.niter {
            for (k, v) in img.iter().enumerate() {
                sums[k] = *v;
                sums2[k] = v * v;
            }
            for (grid, no, mul) in reduce_stages(ne) {
                reference_reduce(&mut sums, &mut sums2, grid, no, mul);
            }
            reference_srad(&p, &mut img, q0sqr(sums[0], sums2[0], ne));
        }
        let expected: Vec<f32> = img.iter().map(|v| compress_value(*v)).collect();
        let v_final = Validation::exact_f32(&result, &expected);
        Ok(session.finish(merge(v_extract, v_final)))
    }
}
