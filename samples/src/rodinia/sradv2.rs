//! Rodinia srad_v2: Speckle Reducing Anisotropic Diffusion on a `rows × cols` image.
//!
//! Each iteration, as in Rodinia, the host computes the mean and variance of the region of
//! interest (rows r1..=r2, columns c1..=c2) of the image `J` in f32, uploads `J`, launches
//! `srad_cuda_1` (derivatives and the saturated diffusion coefficient, 16 × 16 blocks over a
//! `cols/16 × rows/16` grid) and `srad_cuda_2` (divergence and update), and copies `J` back.
//!
//! Rodinia's kernels read one image row before and after the image (and one pixel beyond either
//! end) from the tiles on the border before overwriting those values with the border pixels.
//! `J` and `C` are therefore allocated with one row of padding on each side and the kernels get
//! a pointer to the first image pixel; the padding's values are never used.
//!
//! Validation is bit-exact against a CPU reference with clamped neighbours (what the kernels'
//! border cases amount to) that reproduces the PTX's arithmetic: `fma.rn.f32` chains for the
//! gradient and the divergence, `div.rn.f32`, and the double-precision steps (`fma.rn.f64` with
//! the constants 0.5, -1/16, 0.25, `rcp.rn.f64`) rounded to f32 where the source stores a float.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

const BLOCK_SIZE: usize = 16;

/// One problem: image size, region of interest, λ, iterations.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub rows: usize,
    pub cols: usize,
    pub r1: usize,
    pub r2: usize,
    pub c1: usize,
    pub c2: usize,
    pub lambda: f32,
    pub niter: usize,
}

/// The initial image: `exp(I)` with `I` uniform in [0, 1), as Rodinia's `random_matrix`.
fn inputs(p: &Params) -> Vec<f32> {
    let mut rng = Rng::new(0x52AD_0002);
    (0..p.rows * p.cols)
        .map(|_| f64::from(rng.f32_in(0.0, 1.0)).exp() as f32)
        .collect()
}

/// The host's statistics of the region of interest: `q0sqr`, in f32 as in Rodinia.
fn q0sqr(p: &Params, j: &[f32]) -> f32 {
    let (mut sum, mut sum2) = (0.0f32, 0.0f32);
    for i in p.r1..=p.r2 {
        for k in p.c1..=p.c2 {
            let tmp = j[i * p.cols + k];
            sum += tmp;
            sum2 += tmp * tmp;
        }
    }
    let size_r = ((p.r2 - p.r1 + 1) * (p.c2 - p.c1 + 1)) as f32;
    let mean = sum / size_r;
    let var = (sum2 / size_r) - mean * mean;
    var / (mean * mean)
}

/// One iteration of the CPU reference (both kernels) on `j`, in place.
fn reference_step(p: &Params, j: &mut [f32], q0sqr: f32) {
    let (rows, cols) = (p.rows, p.cols);
    let n_px = rows * cols;
    let (mut dn, mut ds, mut dw, mut de) = (
        vec![0.0f32; n_px],
        vec![0.0f32; n_px],
        vec![0.0f32; n_px],
        vec![0.0f32; n_px],
    );
    let mut c = vec![0.0f32; n_px];
    for r in 0..rows {
        for q in 0..cols {
            let k = r * cols + q;
            let jc = j[k];
            let n = j[r.saturating_sub(1) * cols + q] - jc;
            let s = j[(r + 1).min(rows - 1) * cols + q] - jc;
            let w = j[r * cols + q.saturating_sub(1)] - jc;
            let e = j[r * cols + (q + 1).min(cols - 1)] - jc;
            // n*n + s*s + w*w + e*e as NVRTC contracts it: s*s, then fma with n, w, e
            let g2 = e.mul_add(e, w.mul_add(w, n.mul_add(n, s * s))) / (jc * jc);
            let l = (s + n + w + e) / jc;
            let num = f64::from(g2).mul_add(0.5, f64::from(l * l) * -(1.0 / 16.0)) as f32;
            let den = f64::from(l).mul_add(0.25, 1.0) as f32;
            let qsqr = num / (den * den);
            let den = (qsqr - q0sqr) / ((q0sqr + 1.0) * q0sqr);
            let cv = (1.0 / (f64::from(den) + 1.0)) as f32;
            // saturated to [0, 1] (a NaN stays NaN, as in the kernel's if/else chain)
            c[k] = cv.clamp(0.0, 1.0);
            (dn[k], ds[k], dw[k], de[k]) = (n, s, w, e);
        }
    }
    let lambda4 = 0.25 * f64::from(p.lambda);
    for r in 0..rows {
        for q in 0..cols {
            let k = r * cols + q;
            let cc = c[k];
            let cs = c[(r + 1).min(rows - 1) * cols + q];
            let ce = c[r * cols + (q + 1).min(cols - 1)];
            let d = ce.mul_add(de[k], cc.mul_add(dw[k], cc.mul_add(dn[k], cs * ds[k])));
            j[k] = lambda4.mul_add(f64::from(d), f64::from(j[k])) as f32;
        }
    }
}

/// Rodinia srad_v2 as a registered sample.
pub struct SradV2;

impl SradV2 {
    pub fn params(size: Size) -> Params {
        match size {
            // 4 × 3 blocks: corner, edge and interior tiles.
            Size::Small => Params {
                rows: 48,
                cols: 64,
                r1: 0,
                r2: 31,
                c1: 0,
                c2: 31,
                lambda: 0.5,
                niter: 2,
            },
            // Rodinia's run script: ./srad 2048 2048 0 127 0 127 0.5 2
            Size::Default => Params {
                rows: 2048,
                cols: 2048,
                r1: 0,
                r2: 127,
                c1: 0,
                c2: 127,
                lambda: 0.5,
                niter: 2,
            },
            Size::Large => Params {
                rows: 4096,
                cols: 4096,
                r1: 0,
                r2: 127,
                c1: 0,
                c2: 127,
                lambda: 0.5,
                niter: 2,
            },
        }
    }
}

impl Sample for SradV2 {
    fn name(&self) -> &'static str {
        "rodinia/srad_v2"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["srad_cuda_1", "srad_cuda_2"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = SradV2::params(size);
        format!(
            "{} × {} image, ROI rows {}..={} cols {}..={}, λ {}, {} iterations",
            p.rows, p.cols, p.r1, p.r2, p.c1, p.c2, p.lambda, p.niter
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = SradV2::params(size);
        let (rows, cols) = (p.rows, p.cols);
        let size_i = rows * cols;
        let j0 = inputs(&p);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/srad_v2/srad_v2.ptx")?;
        let k1 = module.kernel("srad_cuda_1")?;
        let k2 = module.kernel("srad_cuda_2")?;

        // J and C with one row of padding before and after the image (see the module doc).
        let padded = size_i + 2 * cols;
        let j_cuda = dev.alloc::<f32>(padded)?;
        let c_cuda = dev.alloc::<f32>(padded)?;
        c_cuda.memset(0)?;
        let e_c = dev.alloc::<f32>(size_i)?;
        let w_c = dev.alloc::<f32>(size_i)?;
        let s_c = dev.alloc::<f32>(size_i)?;
        let n_c = dev.alloc::<f32>(size_i)?;
        let j_ptr = Arg::Ptr(j_cuda.device_ptr() + (cols * 4) as u64);
        let c_ptr = Arg::Ptr(c_cuda.device_ptr() + (cols * 4) as u64);

        let grid = ((cols / BLOCK_SIZE) as u32, (rows / BLOCK_SIZE) as u32);
        let block = (BLOCK_SIZE as u32, BLOCK_SIZE as u32);
        let mut j = j0.clone();
        let mut host = vec![0.0f32; padded];
        for _ in 0..p.niter {
            let q0 = q0sqr(&p, &j);
            host[cols..cols + size_i].copy_from_slice(&j);
            j_cuda.copy_from_host(&host)?;
            let common = [
                (&e_c).into(),
                (&w_c).into(),
                (&n_c).into(),
                (&s_c).into(),
                j_ptr.clone(),
                c_ptr.clone(),
                Arg::I32(cols as i32),
                Arg::I32(rows as i32),
            ];
            let mut args1 = common.to_vec();
            args1.push(Arg::F32(q0));
            session.launch(&k1, grid, block, 0, &args1)?;
            let mut args2 = common.to_vec();
            args2.extend([Arg::F32(p.lambda), Arg::F32(q0)]);
            session.launch(&k2, grid, block, 0, &args2)?;
            j.copy_from_slice(&j_cuda.to_host()?[cols..cols + size_i]);
        }

        let mut expected = j0;
        for _ in 0..p.niter {
            let q0 = q0sqr(&p, &expected);
            reference_step(&p, &mut expected, q0);
        }
        Ok(session.finish(Validation::exact_f32(&j, &expected)))
    }
}
