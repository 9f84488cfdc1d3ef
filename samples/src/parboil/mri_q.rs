//! Parboil mri-q: the Q matrix of non-Cartesian MRI reconstruction,
//! Q(x) = Σ_k |φ(k)|² · e^{i 2π k·x}, with Parboil's two kernels: `ComputePhiMag_GPU` once
//! (|φ|² per trajectory sample), then `ComputeQ_GPU` once per tile of 1024 samples, the host
//! copying each tile (k and |φ|²) into constant memory before its launch, every launch adding
//! to Qr and Qi (zeroed first), one thread per voxel.
//!
//! Parboil reads the trajectory and voxel coordinates from files; here they are seeded: k
//! uniform in [−16, 16)³ (a 32³ acquisition), voxels uniform in [−0.5, 0.5)³, φ uniform in
//! [−1, 1)², so that |2π k·x| ≤ 48π.
//!
//! Validation: |φ|² bit-exactly (`fma.rn(re, re, im·im)`, as NVRTC emits it). Q within a
//! tolerance, because the kernel uses Parboil's `__cosf`/`__sinf`, i.e. `cos.approx.f32` and
//! `sin.approx.f32`, whose only specification is an absolute error of at most 2^−20.5 for
//! |argument| ≤ 100π. The reference mirrors everything else operation by operation (the
//! argument `fma(z, kz, fma(x, kx, y·ky))·2π` bit-exactly, and the accumulation
//! `q = fma(|φ|², cos, q)` in the kernel's order) with cos and sin evaluated in f64 and rounded
//! to f32, so the two sums differ only through the cos/sin values: each term by at most
//! |φ|²·(2^−20.5 + 2^−24), and each of the n fma roundings by at most one ulp of the largest
//! partial sum M of that voxel. The tolerance of each value is that worst case,
//! Σ|φ|²·(2^−20.5 + 2^−24) + n·2^−23·M, computed from the data (about 6·10^−5 at the small size;
//! up to 0.5 at the default size, where M reaches 1339 for voxels near the origin).

use super::common::uniform_f32;
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Parboil's launch constants.
const PHI_MAG_THREADS: usize = 512;
const Q_THREADS: usize = 256;
const K_PER_LAUNCH: usize = 1024;
/// The kernel's 2π (`PIx2`, rounded to f32).
const PI_X2: f32 = std::f32::consts::TAU;

/// Voxels and trajectory samples per size.
fn shape(size: Size) -> (usize, usize) {
    match size {
        // 2 CTAs; an odd sample count (the kernel's single-sample prologue), one launch.
        Size::Small => (512, 33),
        // Parboil's `small` dataset (32³ voxels, 3072 samples: 3 launches); its `large`
        // (64³ voxels, 2048 samples) is ≈ 11 G thread instructions.
        Size::Default => (32_768, 3072),
        Size::Large => (65_536, 2048),
    }
}

/// Seeded inputs: (kx, ky, kz, phiR, phiI) per sample and (x, y, z) per voxel.
struct Inputs {
    k: [Vec<f32>; 3],
    phi: [Vec<f32>; 2],
    x: [Vec<f32>; 3],
}

impl Inputs {
    fn new(num_x: usize, num_k: usize) -> Inputs {
        let k = |s: u64| uniform_f32(0x4D52_4951_0000 + s, num_k, -16.0, 16.0);
        let phi = |s: u64| uniform_f32(0x4D52_4951_0010 + s, num_k, -1.0, 1.0);
        let x = |s: u64| uniform_f32(0x4D52_4951_0020 + s, num_x, -0.5, 0.5);
        Inputs {
            k: [k(0), k(1), k(2)],
            phi: [phi(0), phi(1)],
            x: [x(0), x(1), x(2)],
        }
    }
}

/// |φ|² as `ComputePhiMag_GPU` computes it.
pub fn phi_mag(re: &[f32], im: &[f32]) -> Vec<f32> {
    re.iter()
        .zip(im)
        .map(|(&r, &i)| r.mul_add(r, i * i))
        .collect()
}

/// The reference Q (real parts then imaginary parts) and each value's tolerance, derived above.
fn reference(inp: &Inputs, mag: &[f32]) -> (Vec<f32>, Vec<f64>) {
    let num_x = inp.x[0].len();
    let mut qr = vec![0.0f32; num_x];
    let mut qi = vec![0.0f32; num_x];
    // The largest partial sum of each voxel.
    let mut largest = vec![0.0f32; num_x];
    for v in 0..num_x {
        let (x, y, z) = (inp.x[0][v], inp.x[1][v], inp.x[2][v]);
        let (mut r, mut i) = (0.0f32, 0.0f32);
        // Tiles and the odd prologue only split the same sequence of samples.
        for (s, &m) in mag.iter().enumerate() {
            let arg = z.mul_add(inp.k[2][s], x.mul_add(inp.k[0][s], y * inp.k[1][s])) * PI_X2;
            let a = f64::from(arg);
            r = m.mul_add(a.cos() as f32, r);
            i = m.mul_add(a.sin() as f32, i);
            largest[v] = largest[v].max(r.abs()).max(i.abs());
        }
        qr[v] = r;
        qi[v] = i;
    }
    let mag_sum: f64 = mag.iter().map(|&m| f64::from(m)).sum();
    let n = mag.len() as f64;
    let tol: Vec<f64> = largest
        .iter()
        .map(|&m| mag_sum * (2f64.powf(-20.5) + 2f64.powi(-24)) + n * 2f64.powi(-23) * f64::from(m))
        .collect();
    qr.extend(qi);
    (qr, [tol.clone(), tol].concat())
}

/// Compares `got` with `expected` within a tolerance per value.
fn within(got: &[f32], expected: &[f32], tol: &[f64]) -> Validation {
    let mut v = Validation {
        checked: expected.len(),
        mismatches: expected.len().abs_diff(got.len()),
        first_mismatch: None,
        max_abs_diff: 0.0,
    };
    for (i, ((&g, &e), &t)) in got.iter().zip(expected).zip(tol).enumerate() {
        let diff = (f64::from(g) - f64::from(e)).abs();
        v.max_abs_diff = v.max_abs_diff.max(diff);
        if diff.is_nan() || diff > t {
            v.mismatches += 1;
            v.first_mismatch
                .get_or_insert((i, format!("{g:e}"), format!("{e:e} ± {t:e}")));
        }
    }
    v
}

/// Parboil mri-q as a registered sample.
pub struct MriQ;

impl Sample for MriQ {
    fn name(&self) -> &'static str {
        "parboil/mri-q"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["ComputePhiMag_GPU", "ComputeQ_GPU"]
    }

    fn size_description(&self, size: Size) -> String {
        let (num_x, num_k) = shape(size);
        let origin = if size == Size::Default {
            " (Parboil's small dataset)"
        } else {
            ""
        };
        format!(
            "{num_x} voxels, {num_k} trajectory samples ({} ComputeQ launches){origin}",
            num_k.div_ceil(K_PER_LAUNCH)
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (num_x, num_k) = shape(size);
        // No bounds check on voxels in ComputeQ_GPU; Parboil's odd prologue is per launch.
        assert!(num_x % Q_THREADS == 0 && (num_k % 2 == 0 || num_k <= K_PER_LAUNCH));
        let inp = Inputs::new(num_x, num_k);

        let mut session = Session::new(dev);
        let module = session.load("parboil/mri-q/mri-q.ptx")?;
        let phi_k = module.kernel("ComputePhiMag_GPU")?;
        let q_k = module.kernel("ComputeQ_GPU")?;

        let d_phi_r = dev.alloc_from(&inp.phi[0])?;
        let d_phi_i = dev.alloc_from(&inp.phi[1])?;
        let d_mag = dev.alloc::<f32>(num_k)?;
        session.launch(
            &phi_k,
            num_k.div_ceil(PHI_MAG_THREADS) as u32,
            PHI_MAG_THREADS as u32,
            0,
            &[
                (&d_phi_r).into(),
                (&d_phi_i).into(),
                (&d_mag).into(),
                Arg::I32(num_k as i32),
            ],
        )?;
        let mag = d_mag.to_host()?;

        // The host packs (kx, ky, kz, |φ|²) per sample, as Parboil's kValues.
        let k_values: Vec<f32> = (0..num_k)
            .flat_map(|s| [inp.k[0][s], inp.k[1][s], inp.k[2][s], mag[s]])
            .collect();
        let d_x = dev.alloc_from(&inp.x[0])?;
        let d_y = dev.alloc_from(&inp.x[1])?;
        let d_z = dev.alloc_from(&inp.x[2])?;
        let d_qr = dev.alloc_from(&vec![0.0f32; num_x])?;
        let d_qi = dev.alloc_from(&vec![0.0f32; num_x])?;
        for base in (0..num_k).step_by(K_PER_LAUNCH) {
            let tile = &k_values[4 * base..4 * (base + K_PER_LAUNCH).min(num_k)];
            module.write_symbol("ck", 0, &runtime::buffer::to_bytes(tile))?;
            session.launch(
                &q_k,
                (num_x / Q_THREADS) as u32,
                Q_THREADS as u32,
                0,
                &[
                    Arg::I32(num_k as i32),
                    Arg::I32(base as i32),
                    (&d_x).into(),
                    (&d_y).into(),
                    (&d_z).into(),
                    (&d_qr).into(),
                    (&d_qi).into(),
                ],
            )?;
        }

        let expected_mag = phi_mag(&inp.phi[0], &inp.phi[1]);
        let mag_check = Validation::exact_f32(&mag, &expected_mag);
        if !mag_check.passed() {
            return Ok(session.finish(mag_check));
        }
        let mut got = d_qr.to_host()?;
        got.extend(d_qi.to_host()?);
        let (expected, tol) = reference(&inp, &expected_mag);
        Ok(session.finish(within(&got, &expected, &tol)))
    }
}
