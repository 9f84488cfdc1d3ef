//! Rodinia myocyte: the cardiac myocyte model of Saucerman and Bers (91 ODEs: the
//! excitation-contraction coupling model ECC and three CaM/CaMKII/calcineurin compartments CAM),
//! integrated over `xmax` milliseconds by an adaptive embedded Runge-Kutta-Fehlberg 7(8) solver,
//! `workload` times in sequence, as Rodinia's CUDA version in mode 0 (`work.cu`: parallelism
//! inside one simulation instance).
//!
//! The host runs Rodinia's solver in f32 (`fp` is float): per millisecond it tries steps from
//! h = 1 (at most 12 attempts, scaled by the error estimate, h ≤ 0.9 after the first); each step
//! evaluates the model 13 times. Each evaluation (`master`) uploads the state and the
//! parameters, launches `kernel` on 2 blocks of 32 threads (block 0, thread 0: ECC; block 1,
//! thread 0: the three CAM compartments), copies the derivatives and the CAM's Ca fluxes back,
//! finishes on the host (`kernel_fin`: Ca buffering by CaM, CaM diffusion between compartments)
//! and replaces NaN and infinite rates by 0.0001. The kernel's time argument is an int, as in
//! Rodinia (the float time is truncated at the call).
//!
//! Rodinia reads its initial state (`y.txt`, 91 values) and parameters (`params.txt`, 16
//! values) from files; the same values are constants here ([`Y0`], [`PARAMS`]).
//!
//! Differences from Rodinia:
//! - Rodinia's `kernel_cam` stores the CAM's Ca flux into `d_finavalu[com_offset]` (0..2, racing
//!   with block 0's ECC derivatives 0..2, so the result depends on block scheduling) instead of
//!   `d_com[com_offset]`, which the host copies back and uses; here it stores into `d_com`.
//! - Rodinia's `kernel_cam` reads `K` and `Mg` from `d_params[16]` and `d_params[17]`, past the
//!   16-float parameter allocation (zero in a fresh `cudaMalloc` allocation's padding); here the
//!   buffer has 18 floats and those two are 0.
//!
//! With these inputs (`K` = `Mg` = 0) the dyad's CAM Ca flux is orders of magnitude larger than
//! the junctional Ca it feeds: the state leaves the physiological range within the first
//! millisecond and some rates overflow, which the host's NaN/inf compensation absorbs, as in
//! Rodinia's code. What the port reproduces is the workload: the solver's launches and the
//! kernel's instruction stream.
//!
//! Validation: every launch's outputs (91 derivatives, 3 fluxes) are compared with a CPU
//! reference of the kernel on the same uploaded state, computed in the kernel's types (f32, and
//! f64 where Rodinia's double literals promote), with CUDA's `pow(float, int)` (binary
//! exponentiation, as `f32::powi`) and NVRTC's fma contractions of the buffer rates and the CAM
//! fluxes (read from the PTX; they decide where a rate overflows). The remaining differences are
//! libdevice's `expf`, `logf`, `log10f`, `powf` and double `exp` (within 1–2 ulp of Rust's) and
//! the kernel's other contractions: an ulp or two, amplified where nearly equal terms cancel.
//! Each finite value must be within 1e-5 of the expected one, relative to the larger of
//! |expected| and the largest finite |expected| of the same output over the run (the measured
//! maximum is 2.1e-7 at every size; a wrong operation is off by far more). A value that
//! overflows (±inf or NaN) must overflow in the reference too; inf and NaN are interchangeable
//! there (which one appears depends on how the overflowed terms are contracted) because the host
//! replaces both by 0.0001. The host's solver (step sizes, time points) runs on the device's
//! results, as Rodinia's does.

use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's EQUATIONS and PARAMETERS.
pub const EQUATIONS: usize = 91;
pub const PARAMETERS: usize = 16;
/// Rodinia's NUMBER_THREADS (threads per block; one per block works).
const NUMBER_THREADS: u32 = 32;
/// Rodinia's solver constants.
const ATTEMPTS: usize = 12;
const MIN_SCALE_FACTOR: f64 = 0.125;
const MAX_SCALE_FACTOR: f64 = 4.0;

/// Rodinia's `y.txt`: the initial state (its text, parsed to f32 as `fscanf("%f")` does).
#[rustfmt::skip]
#[allow(clippy::excessive_precision)]
pub const Y0: [f32; EQUATIONS] = [
    1.3705539e-003, 9.8714218e-001, 9.9182408e-001, 6.9968275e-006, 1.0006761e+000,
    2.5800244e-002, 1.5606144e-002, 4.0110808e-003, 3.1904893e-001, 4.0110456e-003,
    9.9463216e-001, 8.4705483e-003, 6.0394891e-003, 8.8875021e-001, 8.2057663e-007,
    1.0271527e-007, 3.5547650e+000, 7.7561711e-001, 9.0782945e-003, 1.1836625e-001,
    1.0156121e-002, 2.5328101e-004, 2.0087204e-003, 1.3747360e-001, 2.2097020e-003,
    7.7737983e-003, 1.0124416e-002, 7.5692786e-002, 1.1608535e-001, 1.2509040e+000,
    5.6109998e-001, 8.8597621e+000, 8.8611627e+000, 8.8615763e+000, 1.3500000e+002,
    1.8394727e-004, 1.0924132e-004, 8.8935135e-005, -8.5719165e+001, 4.1071583e-001,
    0.0000000e+000, 0.0000000e+000, 1.7483040e+004, -1.4677756e+004, -1.6869784e+005,
    1.6590486e+005, 3.8674011e+002, 6.0137654e+000, 2.1665981e-003, 0.0000000e+000,
    0.0000000e+000, 0.0000000e+000, 5.2910875e-001, 3.1783490e-002, 7.1017447e-006,
    2.8316127e-009, 2.3444660e-009, 1.3282361e-004, 4.3772286e-003, 1.2450156e-002,
    3.6005070e+000, 4.3833441e-002, 5.4727484e-005, 8.6054033e-009, 2.3715335e+000,
    1.3105350e+001, 2.7224584e-004, 1.1056849e-005, 9.5203944e-006, 1.3418139e-007,
    1.4654302e-012, 8.8079626e-009, 5.6863655e-004, 2.1354933e-006, 5.6653572e-006,
    1.3743596e-003, 4.3580316e-002, 3.8789477e-005, 5.5612103e-010, 4.1446000e+000,
    1.1342721e+000, 1.5613769e-005, 7.7666417e-006, 4.5935002e-008, 3.0629005e-013,
    3.2828882e-018, 2.0356103e-014, 1.2025051e-004, 4.4862898e-007, 1.7078402e-007,
    8.1327361e-007,
];

/// Rodinia's `params.txt`: per CAM compartment (dyad, SL, cytosol) CaMtot, Btot, CaMKIItot,
/// CaNtot, PP1tot, then the ECC's cycle length (also the cytosol's PP1tot).
#[rustfmt::skip]
#[allow(clippy::excessive_precision)]
pub const PARAMS: [f32; PARAMETERS] = [
    1.000000e3, 4.180000e2, 0.000000e0, 1.200000e2, 3.617508e0, 9.650000e1, 5.650000e0,
    2.420000e1, 9.951600e-2, 3.000000e-3, 5.700000e-1, 5.650000e0, 2.420000e1, 9.951600e-2,
    3.000000e-3, 5.700000e-1,
];

/// One problem: Rodinia's command line `xmax workload mode` (mode 0).
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Simulated milliseconds.
    pub xmax: usize,
    /// Simulation instances, solved one after the other.
    pub workload: usize,
}

fn params(size: Size) -> Params {
    match size {
        Size::Small => Params {
            xmax: 2,
            workload: 1,
        },
        // Rodinia's run script: ./myocyte.out 100 1 0
        Size::Default => Params {
            xmax: 100,
            workload: 1,
        },
        Size::Large => Params {
            xmax: 300,
            workload: 2,
        },
    }
}

/// The device side of one run and what the check needs.
struct Gpu<'s, 'd> {
    session: &'s mut Session<'d>,
    kernel: runtime::Kernel,
    d_initvalu: runtime::DeviceBuffer<f32>,
    d_finavalu: runtime::DeviceBuffer<f32>,
    d_params: runtime::DeviceBuffer<f32>,
    d_com: runtime::DeviceBuffer<f32>,
    /// Per launch: the device's 91 derivatives and 3 fluxes, and the reference's.
    got: Vec<f32>,
    expected: Vec<f32>,
}

impl Gpu<'_, '_> {
    /// Rodinia's `master`: one model evaluation at `timeinst`.
    fn master(
        &mut self,
        timeinst: f32,
        initvalu: &[f32],
        parameter: &[f32],
        finavalu: &mut [f32],
    ) -> runtime::Result<()> {
        self.d_initvalu.copy_from_host(initvalu)?;
        // the PARAMETERS floats; the two after them, which kernel_cam reads, stay 0 (module doc)
        self.d_params.copy_from_host(parameter)?;
        let mut params = parameter.to_vec();
        params.extend([0.0, 0.0]);
        let time = timeinst as i32;
        self.session.launch(
            &self.kernel,
            2u32,
            NUMBER_THREADS,
            0,
            &[
                Arg::I32(time),
                (&self.d_initvalu).into(),
                (&self.d_finavalu).into(),
                (&self.d_params).into(),
                (&self.d_com).into(),
            ],
        )?;
        finavalu.copy_from_slice(&self.d_finavalu.to_host()?);
        let com = self.d_com.to_host()?;

        let (dv, dcom) = reference_kernel(time, initvalu, &params);
        self.got.extend_from_slice(finavalu);
        self.got.extend_from_slice(&com);
        self.expected.extend_from_slice(&dv);
        self.expected.extend_from_slice(&dcom);

        kernel_fin(initvalu, parameter, finavalu, &com);
        for f in finavalu.iter_mut() {
            if f.is_nan() || f.is_infinite() {
                *f = 0.0001;
            }
        }
        Ok(())
    }

    /// Rodinia's `embedded_fehlberg_7_8`: one step of size `h` from `initvalu` at `timeinst`;
    /// the solution into `finavalu`, the error estimate into `error`.
    fn embedded_fehlberg_7_8(
        &mut self,
        timeinst: f32,
        h: f32,
        initvalu: &[f32],
        finavalu: &mut [f32],
        error: &mut [f32],
        parameter: &[f32],
    ) -> runtime::Result<()> {
        let c = |n: f64, d: f64| (n / d) as f32;
        let c_1_11 = c(41.0, 840.0);
        let c6 = c(34.0, 105.0);
        let c_7_8 = c(9.0, 35.0);
        let c_9_10 = c(9.0, 280.0);
        let a = [
            0.0,
            0.0,
            c(2.0, 27.0),
            c(1.0, 9.0),
            c(1.0, 6.0),
            c(5.0, 12.0),
            c(1.0, 2.0),
            c(5.0, 6.0),
            c(1.0, 6.0),
            c(2.0, 3.0),
            c(1.0, 3.0),
        ];
        // b[s]: the coefficients of stage s (1-based) on stages 1.., as Rodinia's b<s><k>
        let b: [&[(usize, f32)]; 14] = [
            &[],
            &[],
            &[],
            &[(0, c(1.0, 36.0)), (1, c(3.0, 36.0))],
            &[(0, c(1.0, 24.0)), (2, c(3.0, 24.0))],
            &[(0, c(20.0, 48.0)), (2, c(-75.0, 48.0)), (3, c(75.0, 48.0))],
            &[(0, c(1.0, 20.0)), (3, c(5.0, 20.0)), (4, c(4.0, 20.0))],
            &[
                (0, c(-25.0, 108.0)),
                (3, c(125.0, 108.0)),
                (4, c(-260.0, 108.0)),
                (5, c(250.0, 108.0)),
            ],
            &[
                (0, c(31.0, 300.0)),
                (4, c(61.0, 225.0)),
                (5, c(-2.0, 9.0)),
                (6, c(13.0, 900.0)),
            ],
            &[
                (0, 2.0),
                (3, c(-53.0, 6.0)),
                (4, c(704.0, 45.0)),
                (5, c(-107.0, 9.0)),
                (6, c(67.0, 90.0)),
                (7, 3.0),
            ],
            &[
                (0, c(-91.0, 108.0)),
                (3, c(23.0, 108.0)),
                (4, c(-976.0, 135.0)),
                (5, c(311.0, 54.0)),
                (6, c(-19.0, 60.0)),
                (7, c(17.0, 6.0)),
                (8, c(-1.0, 12.0)),
            ],
            &[
                (0, c(2383.0, 4100.0)),
                (3, c(-341.0, 164.0)),
                (4, c(4496.0, 1025.0)),
                (5, c(-301.0, 82.0)),
                (6, c(2133.0, 4100.0)),
                (7, c(45.0, 82.0)),
                (8, c(45.0, 164.0)),
                (9, c(18.0, 41.0)),
            ],
            &[
                (0, c(3.0, 205.0)),
                (5, c(-6.0, 41.0)),
                (6, c(-3.0, 205.0)),
                (7, c(-3.0, 41.0)),
                (8, c(3.0, 41.0)),
                (9, c(6.0, 41.0)),
            ],
            &[
                (0, c(-1777.0, 4100.0)),
                (3, c(-341.0, 164.0)),
                (4, c(4496.0, 1025.0)),
                (5, c(-289.0, 82.0)),
                (6, c(2193.0, 4100.0)),
                (7, c(51.0, 82.0)),
                (8, c(33.0, 164.0)),
                (9, c(12.0, 41.0)),
                (11, 1.0),
            ],
        ];
        let err_factor = c(-41.0, 840.0);
        let h2_7 = a[2] * h;

        let mut temp = vec![[0.0f32; EQUATIONS]; 13];
        let mut initvalu_temp = [0.0f32; EQUATIONS];
        // stage 1
        initvalu_temp.copy_from_slice(initvalu);
        self.master(timeinst, &initvalu_temp, parameter, &mut temp[0])?;
        // stage 2
        for i in 0..EQUATIONS {
            initvalu_temp[i] = initvalu[i] + h2_7 * temp[0][i];
        }
        self.master(timeinst + h2_7, &initvalu_temp, parameter, &mut temp[1])?;
        // stages 3..13: y + h * (sum of b·k, left to right; stage 13's last term has weight 1)
        for s in 3..=13 {
            let time = match s {
                11 | 13 => timeinst + h,
                12 => timeinst,
                _ => timeinst + a[s] * h,
            };
            for i in 0..EQUATIONS {
                let mut sum = 0.0f32;
                for (n, &(k, coef)) in b[s].iter().enumerate() {
                    let term = if s == 13 && k == 11 {
                        temp[k][i]
                    } else {
                        coef * temp[k][i]
                    };
                    sum = if n == 0 { term } else { sum + term };
                }
                initvalu_temp[i] = initvalu[i] + h * sum;
            }
            let mut out = [0.0f32; EQUATIONS];
            self.master(time, &initvalu_temp, parameter, &mut out)?;
            temp[s - 1] = out;
        }
        for i in 0..EQUATIONS {
            finavalu[i] = initvalu[i]
                + h * (c_1_11 * (temp[0][i] + temp[10][i])
                    + c6 * temp[5][i]
                    + c_7_8 * (temp[6][i] + temp[7][i])
                    + c_9_10 * (temp[8][i] + temp[9][i]));
        }
        for i in 0..EQUATIONS {
            error[i] = (err_factor * (temp[0][i] + temp[10][i] - temp[11][i] - temp[12][i])).abs();
        }
        Ok(())
    }

    /// Rodinia's `solver`: integrates from y[0] over 0..xmax; returns its status (0: success).
    fn solver(
        &mut self,
        y: &mut [[f32; EQUATIONS]],
        x: &mut [f32],
        xmax: usize,
        params: &[f32],
    ) -> runtime::Result<i32> {
        let err_exponent = (1.0f64 / 7.0) as f32;
        let h_init = 1.0f32;
        let xmin = 0usize;
        let tolerance = 10.0 / (xmax - xmin) as f32;
        let xmax_f = xmax as f32;
        x[0] = 0.0;
        if xmax == xmin {
            return Ok(0);
        }
        let mut err = [0.0f32; EQUATIONS];
        let mut yy = [0.0f32; EQUATIONS];
        for k in 1..=xmax {
            x[k] = (k - 1) as f32;
            let mut h = h_init;
            let mut j = 0;
            while j < ATTEMPTS {
                let mut scale_min = MAX_SCALE_FACTOR as f32;
                let (before, after) = y.split_at_mut(k);
                self.embedded_fehlberg_7_8(
                    x[k],
                    h,
                    &before[k - 1],
                    &mut after[0],
                    &mut err,
                    params,
                )?;
                if !err.iter().any(|e| *e > 0.0) {
                    break;
                }
                let prev = &y[k - 1];
                for i in 0..EQUATIONS {
                    yy[i] = if prev[i] == 0.0 {
                        tolerance
                    } else {
                        prev[i].abs()
                    };
                    let scale =
                        (0.8 * f64::from((tolerance * yy[i] / err[i]).powf(err_exponent))) as f32;
                    if scale < scale_min {
                        scale_min = scale;
                    }
                }
                // Rodinia's min(max(scale_min, MIN), MAX) macros, compared in double
                let lo = if f64::from(scale_min) < MIN_SCALE_FACTOR {
                    MIN_SCALE_FACTOR
                } else {
                    f64::from(scale_min)
                };
                let scale_fina = if lo < MAX_SCALE_FACTOR {
                    lo
                } else {
                    MAX_SCALE_FACTOR
                } as f32;
                if !(0..EQUATIONS).any(|i| err[i] > tolerance * yy[i]) {
                    break;
                }
                h *= scale_fina;
                if f64::from(h) >= 0.9 {
                    h = 0.9;
                }
                if x[k] + h > xmax_f {
                    h = xmax_f - x[k];
                } else if f64::from(x[k] + h) + 0.5 * f64::from(h) > xmax as f64 {
                    h *= 0.5;
                }
                j += 1;
            }
            x[k] += h;
            if j >= ATTEMPTS {
                return Ok(-1);
            }
        }
        Ok(0)
    }
}

/// Rodinia's `kernel_fin` (host): adds the CAM's Ca buffering to the ECC's Ca rates and the CaM
/// diffusion between the dyad, SL and cytosol compartments; f32 with Rodinia's double literals.
fn kernel_fin(initvalu: &[f32], parameter: &[f32], finavalu: &mut [f32], com: &[f32]) {
    let (ecc, dyad, sl, cyt) = (0, 46, 61, 76);
    let btot_dyad = parameter[2];
    let camkii_tot_dyad = parameter[3];
    let vmyo = 2.1454e-11f32;
    let vdyad = 1.7790e-14f32;
    let vsl = 6.6013e-13f32;
    let k_sl_myo = 8.587e-15f32;
    let k0_boff = 0.0014f32;
    let k0_bon = (f64::from(k0_boff) / 0.2) as f32;
    let k2_boff = k0_boff / 100.0;
    let k2_bon = k0_bon;
    let k4_bon = k0_bon;
    for (rate, flux) in finavalu[ecc + 35..ecc + 38].iter_mut().zip(com) {
        *rate = (f64::from(*rate) + 1e-3 * f64::from(*flux)) as f32;
    }
    let y = initvalu;
    let cam_tot_dyad = y[dyad]
        + y[dyad + 1]
        + y[dyad + 2]
        + y[dyad + 3]
        + y[dyad + 4]
        + y[dyad + 5]
        + camkii_tot_dyad * (y[dyad + 6] + y[dyad + 7] + y[dyad + 8] + y[dyad + 9])
        + y[dyad + 12]
        + y[dyad + 13]
        + y[dyad + 14];
    let b_dyad = btot_dyad - cam_tot_dyad;
    let milli = |v: f32| (1e-3 * f64::from(v)) as f32;
    let j_dyad_sl = [
        milli(k0_boff * y[dyad] - k0_bon * b_dyad * y[sl]),
        milli(k2_boff * y[dyad + 1] - k2_bon * b_dyad * y[sl + 1]),
        milli(k2_boff * y[dyad + 2] - k4_bon * b_dyad * y[sl + 2]),
    ];
    let j_sl_myo: [f32; 3] = std::array::from_fn(|c| k_sl_myo * (y[sl + c] - y[cyt + c]));
    for c in 0..3 {
        finavalu[dyad + c] -= j_dyad_sl[c];
        finavalu[sl + c] = finavalu[sl + c] + j_dyad_sl[c] * vdyad / vsl - j_sl_myo[c] / vsl;
        finavalu[cyt + c] += j_sl_myo[c] / vmyo;
    }
}

/// Widens to double (C's promotion of a float operand next to a double literal).
fn d(x: f32) -> f64 {
    f64::from(x)
}

/// Rounds a double result to float (C's assignment to an `fp` variable).
fn f(x: f64) -> f32 {
    x as f32
}

/// CUDA's `pow(float, int)`: binary exponentiation with `mul.rn.f32`, as `f32::powi`.
fn powi(x: f32, n: i32) -> f32 {
    x.powi(n)
}

/// The kernel's model (ECC and the three CAM compartments) on the uploaded state, in the
/// kernel's types: f32 where the source computes in float, f64 where a double literal promotes
/// (see the module doc). Returns the 91 derivatives and the 3 Ca fluxes.
fn reference_kernel(timeinst: i32, y: &[f32], p: &[f32]) -> ([f32; EQUATIONS], [f32; 3]) {
    let mut dv = [0.0f32; EQUATIONS];
    reference_ecc(timeinst as f32, y, p, &mut dv);
    let mut com = [0.0f32; 3];
    for (c, (valu, par, ca)) in [(46, 0, 35), (61, 5, 36), (76, 10, 37)]
        .into_iter()
        .enumerate()
    {
        let (dd, flux) = reference_cam(&y[valu..valu + 15], p, par, f(d(y[ca]) * 1e3));
        dv[valu..valu + 15].copy_from_slice(&dd);
        com[c] = flux;
    }
    (dv, com)
}

/// The ECC model (state 0..45); `dv_out` gets its 46 derivatives.
// the model's pi is 3.1416
#[allow(clippy::approx_constant)]
fn reference_ecc(timeinst: f32, y: &[f32], p: &[f32], dv_out: &mut [f32]) {
    let cycle_length = p[15];
    // 1-based as in the model
    let v = |i: usize| y[i - 1];
    let mut dv = [0.0f32; 47];

    let pi = 3.1416f32;
    let (r, frdy, temp) = (8314.0f32, 96485.0f32, 310.0f32);
    let fort = frdy / r / temp;
    let cmem = 1.3810e-10f32;
    let qpow = (temp - 310.0) / 10.0;
    let (cell_length, cell_radius) = (100.0f32, 10.25f32);
    let vcell = f(d(pi * powi(cell_radius, 2) * cell_length) * 1e-15);
    let vmyo = f(0.65 * d(vcell));
    let vsr = f(0.035 * d(vcell));
    let vsl = f(0.02 * d(vcell));
    let vjunc = f(0.0539 * 0.01 * d(vcell));
    let j_ca_juncsl = f(1.0 / 1.2134e12);
    let j_ca_slmyo = f(1.0 / 2.68510e11);
    let j_na_juncsl = f(1.0 / (1.6382e12 / 3.0 * 100.0));
    let j_na_slmyo = f(1.0 / (1.8308e10 / 3.0 * 100.0));
    let fjunc = 0.11f32;
    let fsl = 1.0 - fjunc;
    let fjunc_cal = 0.9f32;
    let fsl_cal = 1.0 - fjunc_cal;
    let (cli, clo, ko, nao, cao, mgi) = (15.0f32, 150.0f32, 5.4f32, 140.0f32, 1.8f32, 1.0f32);
    let ena_junc = (1.0 / fort) * (nao / v(32)).ln();
    let ena_sl = (1.0 / fort) * (nao / v(33)).ln();
    let ek = (1.0 / fort) * (ko / v(35)).ln();
    let eca_junc = (1.0 / fort / 2.0) * (cao / v(36)).ln();
    let eca_sl = (1.0 / fort / 2.0) * (cao / v(37)).ln();
    let ecl = (1.0 / fort) * (cli / clo).ln();
    let (gna, gnab, ibar_nak, km_naip, km_ko) = (16.0f32, 0.297e-3f32, 1.90719f32, 11.0f32, 1.5f32);
    let (pnak, gto_slow, gto_fast, gkp) = (0.01833f32, 0.06f32, 0.02f32, 0.001f32);
    let (gclca, gclb, kdclca) = (0.109625f32, 9e-3f32, 100e-3f32);
    let (pna, pca, pk, q10cal) = (1.5e-8f32, 5.4e-4f32, 2.7e-7f32, 1.8f32);
    let (ibar_ncx, km_cai, km_cao, km_nai, km_nao) =
        (9.0f32, 3.59e-3f32, 1.3f32, 12.29f32, 87.5f32);
    let (ksat, nu, kdact, q10ncx, ibar_slcap) = (0.27f32, 0.35f32, 0.256e-3f32, 1.57f32, 0.0673f32);
    let (km_pca, gcab, q10slcap) = (0.5e-3f32, 2.513e-4f32, 2.35f32);
    let (q10srcap, vmax_srcap, kmf, kmr, hill) =
        (2.6f32, 2.86e-4f32, 0.246e-3f32, 1.7f32, 1.787f32);
    let (ks, ko_ca, kom, ki_ca, kim, ec50sr) =
        (25.0f32, 10.0f32, 0.06f32, 0.5f32, 0.005f32, 0.45f32);
    let (bmax_naj, bmax_nasl, koff_na, kon_na) = (7.561f32, 1.65f32, 1e-3f32, 0.1e-3f32);
    let (bmax_tncl, koff_tncl, kon_tncl) = (70e-3f32, 19.6e-3f32, 32.7f32);
    let (bmax_tnch, koff_tnchca, kon_tnchca) = (140e-3f32, 0.032e-3f32, 2.37f32);
    let (koff_tnchmg, kon_tnchmg) = (3.33e-3f32, 3e-3f32);
    let (bmax_myosin, koff_myoca, kon_myoca) = (140e-3f32, 0.46e-3f32, 13.8f32);
    let (koff_myomg, kon_myomg) = (0.057e-3f32, 0.0157f32);
    let (bmax_sr, koff_sr, kon_sr) = (f(19.0 * 0.9e-3), 60e-3f32, 100.0f32);
    let bmax_sllowsl = f(37.38e-3 * d(vmyo) / d(vsl));
    let bmax_sllowj = f(4.62e-3 * d(vmyo) / d(vjunc) * 0.1);
    let (koff_sll, kon_sll) = (1300e-3f32, 100.0f32);
    let bmax_slhighsl = f(13.35e-3 * d(vmyo) / d(vsl));
    let bmax_slhighj = f(1.65e-3 * d(vmyo) / d(vjunc) * 0.1);
    let (koff_slh, kon_slh) = (30e-3f32, 100.0f32);
    let (bmax_csqn, koff_csqn, kon_csqn) = (2.7f32, 65.0f32, 100.0f32);

    let vm = v(39);
    let vmd = d(vm);
    // I_Na
    let am = f(0.32 * (vmd + 47.13) / (1.0 - (-0.1 * (vmd + 47.13)).exp()));
    let bm = f(0.08 * d((-vm / 11.0).exp()));
    let (ah, bh, aj, bj) = if vm >= -40.0 {
        (
            0.0,
            f(1.0 / (0.13 * (1.0 + (-(vmd + 10.66) / 11.1).exp()))),
            0.0,
            f(0.3 * (-2.535e-7 * vmd).exp() / (1.0 + (-0.1 * d(vm + 32.0)).exp())),
        )
    } else {
        (
            f(0.135 * (d(80.0 + vm) / -6.8).exp()),
            f(3.56 * (0.079 * vmd).exp() + 3.1e5 * (0.35 * vmd).exp()),
            f(
                (-127140.0 * (0.2444 * vmd).exp() - 3.474e-5 * (-0.04391 * vmd).exp())
                    * (vmd + 37.78)
                    / (1.0 + (0.311 * (vmd + 79.23)).exp()),
            ),
            f(0.1212 * (-0.01052 * vmd).exp() / (1.0 + (-0.1378 * (vmd + 40.14)).exp())),
        )
    };
    dv[1] = am * (1.0 - v(1)) - bm * v(1);
    dv[2] = ah * (1.0 - v(2)) - bh * v(2);
    dv[3] = aj * (1.0 - v(3)) - bj * v(3);
    let i_na_junc = fjunc * gna * powi(v(1), 3) * v(2) * v(3) * (vm - ena_junc);
    let i_na_sl = fsl * gna * powi(v(1), 3) * v(2) * v(3) * (vm - ena_sl);
    let i_nabk_junc = fjunc * gnab * (vm - ena_junc);
    let i_nabk_sl = fsl * gnab * (vm - ena_sl);
    // I_nak
    let sigma = f(((d(nao) / 67.3).exp() - 1.0) / 7.0);
    let fnak = f(1.0
        / (1.0
            + 0.1245 * (-0.1 * vmd * d(fort)).exp()
            + 0.0365 * d(sigma) * d((-vm * fort).exp())));
    let i_nak_junc = fjunc * ibar_nak * fnak * ko / (1.0 + powi(km_naip / v(32), 4)) / (ko + km_ko);
    let i_nak_sl = fsl * ibar_nak * fnak * ko / (1.0 + powi(km_naip / v(33), 4)) / (ko + km_ko);
    let i_nak = i_nak_junc + i_nak_sl;
    // I_kr
    let gkr = f(0.03 * (d(ko) / 5.4).sqrt());
    let xrss = f(1.0 / (1.0 + (d(-(vm + 50.0)) / 7.5).exp()));
    let tauxr = f(1.0
        / (0.00138 * d(vm + 7.0) / (1.0 - (-0.123 * d(vm + 7.0)).exp())
            + 6.1e-4 * d(vm + 10.0) / ((0.145 * d(vm + 10.0)).exp() - 1.0)));
    dv[12] = (xrss - v(12)) / tauxr;
    let rkr = f(1.0 / (1.0 + (d(vm + 33.0) / 22.4).exp()));
    let i_kr = gkr * v(12) * rkr * (vm - ek);
    // I_ks
    let pcaks_junc = f(d(-v(36).log10()) + 3.0);
    let pcaks_sl = f(d(-v(37).log10()) + 3.0);
    let gks_junc = f(0.07 * (0.057 + 0.19 / (1.0 + ((-7.2 + d(pcaks_junc)) / 0.6).exp())));
    let gks_sl = f(0.07 * (0.057 + 0.19 / (1.0 + ((-7.2 + d(pcaks_sl)) / 0.6).exp())));
    let eks = (1.0 / fort) * ((ko + pnak * nao) / (v(35) + pnak * v(34))).ln();
    let xsss = f(1.0 / (1.0 + (-(vmd - 1.5) / 16.7).exp()));
    let tauxs = f(1.0
        / (7.19e-5 * d(vm + 30.0) / (1.0 - (-0.148 * d(vm + 30.0)).exp())
            + 1.31e-4 * d(vm + 30.0) / ((0.0687 * d(vm + 30.0)).exp() - 1.0)));
    dv[13] = (xsss - v(13)) / tauxs;
    let i_ks_junc = fjunc * gks_junc * powi(v(12), 2) * (vm - eks);
    let i_ks_sl = fsl * gks_sl * powi(v(13), 2) * (vm - eks);
    let i_ks = i_ks_junc + i_ks_sl;
    // I_kp
    let kp_kp = f(1.0 / (1.0 + (7.488 - vmd / 5.98).exp()));
    let i_kp = fjunc * gkp * kp_kp * (vm - ek) + fsl * gkp * kp_kp * (vm - ek);
    // I_to
    let xtoss = f(1.0 / (1.0 + (-(vmd + 3.0) / 15.0).exp()));
    let ytoss = f(1.0 / (1.0 + ((vmd + 33.5) / 10.0).exp()));
    let rtoss = f(1.0 / (1.0 + ((vmd + 33.5) / 10.0).exp()));
    let tauxtos = f(9.0 / (1.0 + ((vmd + 3.0) / 15.0).exp()) + 0.5);
    let tauytos = f(3e3 / (1.0 + ((vmd + 60.0) / 10.0).exp()) + 30.0);
    let taurtos = f(2800.0 / (1.0 + ((vmd + 60.0) / 10.0).exp()) + 220.0);
    dv[8] = (xtoss - v(8)) / tauxtos;
    dv[9] = (ytoss - v(9)) / tauytos;
    dv[40] = (rtoss - v(40)) / taurtos;
    let i_tos = f(d(gto_slow * v(8)) * (d(v(9)) + 0.5 * d(v(40))) * d(vm - ek));
    let tauxtof = f(3.5 * d((-vm * vm / 30.0 / 30.0).exp()) + 1.5);
    let tauytof = f(20.0 / (1.0 + ((vmd + 33.5) / 10.0).exp()) + 20.0);
    dv[10] = (xtoss - v(10)) / tauxtof;
    dv[11] = (ytoss - v(11)) / tauytof;
    let i_tof = gto_fast * v(10) * v(11) * (vm - ek);
    let i_to = i_tos + i_tof;
    // I_ki
    let aki = f(1.02 / (1.0 + (0.2385 * (d(vm - ek) - 59.215)).exp()));
    let bki = f(((0.49124 * (0.08032 * (vmd + 5.476 - d(ek))).exp())
        + (0.06175 * (d(vm - ek) - 594.31)).exp())
        / (1.0 + (-0.5143 * (d(vm - ek) + 4.753)).exp()));
    let kiss = aki / (aki + bki);
    let i_ki = f(0.9 * (d(ko) / 5.4).sqrt() * d(kiss) * d(vm - ek));
    // I_ClCa, I_Clbk
    let i_clca_junc = fjunc * gclca / (1.0 + kdclca / v(36)) * (vm - ecl);
    let i_clca_sl = fsl * gclca / (1.0 + kdclca / v(37)) * (vm - ecl);
    let i_clca = i_clca_junc + i_clca_sl;
    let i_clbk = gclb * (vm - ecl);
    // I_Ca
    let dss = f(1.0 / (1.0 + (-(vmd + 14.5) / 6.0).exp()));
    let taud = f(d(dss) * (1.0 - (-(vmd + 14.5) / 6.0).exp()) / (0.035 * (vmd + 14.5)));
    let fss =
        f(1.0 / (1.0 + ((vmd + 35.06) / 3.6).exp()) + 0.6 / (1.0 + d(((50.0 - vm) / 20.0).exp())));
    let tauf = f(1.0 / (0.0197 * (-(0.0337 * (vmd + 14.5)).powi(2)).exp() + 0.02));
    dv[4] = (dss - v(4)) / taud;
    dv[5] = (fss - v(5)) / tauf;
    dv[6] = f(1.7 * d(v(36)) * d(1.0 - v(6)) - 11.9e-3 * d(v(6)));
    dv[7] = f(1.7 * d(v(37)) * d(1.0 - v(7)) - 11.9e-3 * d(v(7)));
    let e2 = (2.0 * vm * fort).exp();
    let e1 = (vm * fort).exp();
    let vff = vm * frdy * fort;
    let ibarca =
        |ca: f32| f(d(pca * 4.0 * vff) * (0.341 * d(ca) * d(e2) - 0.341 * d(cao)) / d(e2 - 1.0));
    let ibarca_j = ibarca(v(36));
    let ibarca_sl = ibarca(v(37));
    let ibark = f(d(pk * vff) * (0.75 * d(v(35)) * d(e1) - 0.75 * d(ko)) / d(e1 - 1.0));
    let ibarna_j = f(d(pna * vff) * (0.75 * d(v(32)) * d(e1) - 0.75 * d(nao)) / d(e1 - 1.0));
    let ibarna_sl = f(d(pna * vff) * (0.75 * d(v(33)) * d(e1) - 0.75 * d(nao)) / d(e1 - 1.0));
    let q10 = q10cal.powf(qpow);
    let i_ca_junc = f(d(fjunc_cal * ibarca_j * v(4) * v(5) * (1.0 - v(6)) * q10) * 0.45);
    let i_ca_sl = f(d(fsl_cal * ibarca_sl * v(4) * v(5) * (1.0 - v(7)) * q10) * 0.45);
    let i_ca = i_ca_junc + i_ca_sl;
    dv[43] = f(d(-i_ca * cmem / (vmyo * 2.0 * frdy)) * 1e3);
    let i_cak =
        f(
            d(ibark * v(4) * v(5) * (fjunc_cal * (1.0 - v(6)) + fsl_cal * (1.0 - v(7))) * q10)
                * 0.45,
        );
    let i_cana_junc = f(d(fjunc_cal * ibarna_j * v(4) * v(5) * (1.0 - v(6)) * q10) * 0.45);
    let i_cana_sl = f(d(fsl_cal * ibarna_sl * v(4) * v(5) * (1.0 - v(7)) * q10) * 0.45);
    // I_ncx
    let ka_junc = 1.0 / (1.0 + powi(kdact / v(36), 3));
    let ka_sl = 1.0 / (1.0 + powi(kdact / v(37), 3));
    let s1_junc = (nu * vm * fort).exp() * powi(v(32), 3) * cao;
    let s1_sl = (nu * vm * fort).exp() * powi(v(33), 3) * cao;
    let s2_junc = ((nu - 1.0) * vm * fort).exp() * powi(nao, 3) * v(36);
    let s2_sl = ((nu - 1.0) * vm * fort).exp() * powi(nao, 3) * v(37);
    let s3 = |na: f32, ca: f32| {
        (km_cai * powi(nao, 3) * (1.0 + powi(na / km_nai, 3))
            + powi(km_nao, 3) * ca
            + powi(km_nai, 3) * cao * (1.0 + ca / km_cai)
            + km_cao * powi(na, 3)
            + powi(na, 3) * cao
            + powi(nao, 3) * ca)
            * (1.0 + ksat * ((nu - 1.0) * vm * fort).exp())
    };
    let s3_junc = s3(v(32), v(36));
    let s3_sl = s3(v(33), v(37));
    let q10n = q10ncx.powf(qpow);
    let i_ncx_junc = fjunc * ibar_ncx * q10n * ka_junc * (s1_junc - s2_junc) / s3_junc;
    let i_ncx_sl = fsl * ibar_ncx * q10n * ka_sl * (s1_sl - s2_sl) / s3_sl;
    let i_ncx = i_ncx_junc + i_ncx_sl;
    dv[45] = f(d(2.0 * i_ncx * cmem / (vmyo * 2.0 * frdy)) * 1e3);
    // I_pca
    let q10s = q10slcap.powf(qpow);
    let i_pca_junc =
        fjunc * q10s * ibar_slcap * v(36).powf(1.6) / (km_pca.powf(1.6) + v(36).powf(1.6));
    let i_pca_sl = fsl * q10s * ibar_slcap * v(37).powf(1.6) / (km_pca.powf(1.6) + v(37).powf(1.6));
    let i_pca = i_pca_junc + i_pca_sl;
    dv[44] = f(d(-i_pca * cmem / (vmyo * 2.0 * frdy)) * 1e3);
    // I_cabk
    let i_cabk_junc = fjunc * gcab * (vm - eca_junc);
    let i_cabk_sl = fsl * gcab * (vm - eca_sl);
    let i_cabk = i_cabk_junc + i_cabk_sl;
    dv[46] = f(d(-i_cabk * cmem / (vmyo * 2.0 * frdy)) * 1e3);
    // SR fluxes
    let (max_sr, min_sr) = (15.0f32, 1.0f32);
    let kcasr = max_sr - (max_sr - min_sr) / (1.0 + (ec50sr / v(31)).powf(2.5));
    let kosrca = ko_ca / kcasr;
    let kisrca = ki_ca * kcasr;
    let ri = 1.0 - v(14) - v(15) - v(16);
    dv[14] = (kim * ri - kisrca * v(36) * v(14)) - (kosrca * powi(v(36), 2) * v(14) - kom * v(15));
    dv[15] =
        (kosrca * powi(v(36), 2) * v(14) - kom * v(15)) - (kisrca * v(36) * v(15) - kim * v(16));
    dv[16] = (kisrca * v(36) * v(15) - kim * v(16)) - (kom * v(16) - kosrca * powi(v(36), 2) * ri);
    let j_srcarel = ks * v(15) * (v(31) - v(36));
    let (uf, ur) = ((v(38) / kmf).powf(hill), (v(31) / kmr).powf(hill));
    let j_serca = q10srcap.powf(qpow) * vmax_srcap * (uf - ur) / (1.0 + uf + ur);
    let j_srleak = f(5.348e-6 * d(v(31) - v(36)));
    // buffers
    dv[17] = kon_na * v(32) * (bmax_naj - v(17)) - koff_na * v(17);
    dv[18] = kon_na * v(33) * (bmax_nasl - v(18)) - koff_na * v(18);
    // dv[19..=25] but 22 and dv[30]: fma(kon·Ca, Bmax − B, B·(−koff)) as NVRTC contracts them
    dv[19] = (kon_tncl * v(38)).mul_add(bmax_tncl - v(19), v(19) * -koff_tncl);
    dv[20] = (kon_tnchca * v(38)).mul_add(bmax_tnch - v(20) - v(21), v(20) * -koff_tnchca);
    dv[21] = (bmax_tnch - v(20) - v(21)).mul_add(kon_tnchmg * mgi, v(21) * -koff_tnchmg);
    dv[22] = 0.0;
    dv[23] = (kon_myoca * v(38)).mul_add(bmax_myosin - v(23) - v(24), v(23) * -koff_myoca);
    dv[24] = (bmax_myosin - v(23) - v(24)).mul_add(kon_myomg * mgi, v(24) * -koff_myomg);
    dv[25] = (kon_sr * v(38)).mul_add(bmax_sr - v(25), v(25) * -koff_sr);
    let j_cab_cytosol = dv[19] + dv[20] + dv[21] + dv[22] + dv[23] + dv[24] + dv[25];
    dv[26] = kon_sll * v(36) * (bmax_sllowj - v(26)) - koff_sll * v(26);
    dv[27] = kon_sll * v(37) * (bmax_sllowsl - v(27)) - koff_sll * v(27);
    dv[28] = kon_slh * v(36) * (bmax_slhighj - v(28)) - koff_slh * v(28);
    dv[29] = kon_slh * v(37) * (bmax_slhighsl - v(29)) - koff_slh * v(29);
    let j_cab_junction = dv[26] + dv[28];
    let j_cab_sl = dv[27] + dv[29];
    dv[30] = (kon_csqn * v(31)).mul_add(bmax_csqn - v(30), v(30) * -koff_csqn);
    let oneovervsr = 1.0 / vsr;
    dv[31] = j_serca * vmyo * oneovervsr - (j_srleak * vmyo * oneovervsr + j_srcarel) - dv[30];
    // Na
    let i_na_tot_junc = i_na_junc + i_nabk_junc + 3.0 * i_ncx_junc + 3.0 * i_nak_junc + i_cana_junc;
    let i_na_tot_sl = i_na_sl + i_nabk_sl + 3.0 * i_ncx_sl + 3.0 * i_nak_sl + i_cana_sl;
    dv[32] =
        -i_na_tot_junc * cmem / (vjunc * frdy) + j_na_juncsl / vjunc * (v(33) - v(32)) - dv[17];
    let oneovervsl = 1.0 / vsl;
    dv[33] = -i_na_tot_sl * cmem * oneovervsl / frdy
        + j_na_juncsl * oneovervsl * (v(32) - v(33))
        + j_na_slmyo * oneovervsl * (v(34) - v(33))
        - dv[18];
    dv[34] = j_na_slmyo / vmyo * (v(33) - v(34));
    // K
    let i_k_tot = i_to + i_kr + i_ks + i_ki - 2.0 * i_nak + i_cak + i_kp;
    dv[35] = 0.0;
    // Ca
    let i_ca_tot_junc = i_ca_junc + i_cabk_junc + i_pca_junc - 2.0 * i_ncx_junc;
    let i_ca_tot_sl = i_ca_sl + i_cabk_sl + i_pca_sl - 2.0 * i_ncx_sl;
    dv[36] = -i_ca_tot_junc * cmem / (vjunc * 2.0 * frdy) + j_ca_juncsl / vjunc * (v(37) - v(36))
        - j_cab_junction
        + j_srcarel * vsr / vjunc
        + j_srleak * vmyo / vjunc;
    dv[37] = -i_ca_tot_sl * cmem / (vsl * 2.0 * frdy)
        + j_ca_juncsl / vsl * (v(36) - v(37))
        + j_ca_slmyo / vsl * (v(38) - v(37))
        - j_cab_sl;
    dv[38] = -j_serca - j_cab_cytosol + j_ca_slmyo / vmyo * (v(37) - v(38));
    // pacing (C's fmodf; Rust's % on f32 is the same exact remainder)
    let i_app = if timeinst % cycle_length <= 5.0 {
        9.5
    } else {
        0.0
    };
    let i_na_tot = i_na_tot_junc + i_na_tot_sl;
    let i_cl_tot = i_clca + i_clbk;
    let i_ca_tot = i_ca_tot_junc + i_ca_tot_sl;
    let i_tot = i_na_tot + i_cl_tot + i_ca_tot + i_k_tot;
    dv[39] = -(i_tot - i_app);
    dv[41] = 0.0;
    dv[42] = 0.0;
    dv_out[..46].copy_from_slice(&dv[1..47]);
}

/// One CAM compartment: the 15 derivatives and the Ca flux for the ECC model.
fn reference_cam(s: &[f32], p: &[f32], po: usize, ca: f32) -> ([f32; 15], f32) {
    let (btot, camkii_tot, can_tot, pp1_tot) = (p[po + 1], p[po + 2], p[po + 3], p[po + 4]);
    // d_params[16], d_params[17] (see the module doc)
    let (k, mg) = (p[16], p[17]);
    let [
        cam,
        ca2cam,
        ca4cam,
        camb,
        ca2camb,
        ca4camb,
        pb2,
        pb,
        pt,
        pt2,
        pa,
        ca4can,
        camca4can,
        ca2camca4can,
        ca4camca4can,
    ] = <[f32; 15]>::try_from(s).unwrap();
    let (k, mg) = (d(k), d(mg));
    let (kd02, kd24) = if mg <= 1.0 {
        (
            f(0.0025 * (1.0 + k / 0.94 - mg / 0.012) * (1.0 + k / 8.1 + mg / 0.022)),
            f(0.128 * (1.0 + k / 0.64 + mg / 0.0014) * (1.0 + k / 13.0 - mg / 0.153)),
        )
    } else {
        (
            f(0.0025
                * (1.0 + k / 0.94 - 1.0 / 0.012 + (mg - 1.0) / 0.060)
                * (1.0 + k / 8.1 + 1.0 / 0.022 + (mg - 1.0) / 0.068)),
            f(0.128
                * (1.0 + k / 0.64 + 1.0 / 0.0014 + (mg - 1.0) / 0.005)
                * (1.0 + k / 13.0 - 1.0 / 0.153 + (mg - 1.0) / 0.150)),
        )
    };
    let k20 = 10.0f32;
    let k02 = k20 / kd02;
    let k42 = 500.0f32;
    let k24 = k42 / kd24;
    let k0boff = 0.0014f32;
    let k0bon = f(d(k0boff) / 0.2);
    let k2boff = k0boff / 100.0;
    let (k2bon, k4boff, k4bon) = (k0bon, k2boff, k0bon);
    let (k20b, k02b, k42b, k24b) = (k20 / 100.0, k02, k42, k24);
    let kbi = 2.2f32;
    let kib = f(d(kbi) / 33.5e-3);
    let (kpp1, kmpp1) = (1.72f32, 11.5f32);
    let kib2 = kib;
    let kb2i = kib2 * 5.0;
    let kb24 = k24;
    let kb42 = f(d(k42) * 33.5e-3 / 5.0);
    let kta = kbi / 1000.0;
    let kat = kib;
    let kt42 = f(d(k42) * 33.5e-6 / 5.0);
    let (kt24, kat2, kt2a) = (k24, kib, kib * 5.0);
    let kcan_caoff = 1.0f32;
    let kcan_caon = f(d(kcan_caoff) / 0.5);
    let (kcan_cam4on, kcan_cam4off) = (46.0f32, 0.0013f32);
    let kcan_cam2on = kcan_cam4on;
    let kcan_cam2off = 2508.0 * kcan_cam4off;
    let kcan_cam0on = kcan_cam4on;
    let kcan_cam0off = 165.0 * kcan_cam2off;
    let (k02can, k20can, k24can, k42can) = (k02, k20 / 165.0, k24, k20 / 2508.0);

    // `a·b − c·d` is fma(a, b, d·(−c)) where NVRTC contracts it (read from the PTX)
    let fms = |a: f32, b: f32, c: f32, dd: f32| a.mul_add(b, dd * -c);
    let ca2 = powi(ca, 2);
    let rcn02 = fms(cam, k02 * ca2, k20, ca2cam);
    let rcn24 = ca2cam * (k24 * ca2) - ca4cam * k42;
    let b = btot - camb - ca2camb - ca4camb;
    let rcn02b = fms(camb, k02b * ca2, k20b, ca2camb);
    let rcn24b = ca2camb * (k24b * ca2) - ca4camb * k42b;
    let rcn0b = fms(cam * k0bon, b, k0boff, camb);
    let rcn2b = ca2cam * k2bon * b - ca2camb * k2boff;
    let rcn4b = ca4cam * k4bon * b - ca4camb * k4boff;
    let ca2can = can_tot - ca4can - camca4can - ca2camca4can - ca4camca4can;
    let rcn_ca4can = kcan_caon * ca2 * ca2can - kcan_caoff * ca4can;
    let rcn02can = fms(camca4can, k02can * ca2, k20can, ca2camca4can);
    let rcn24can = fms(ca2camca4can, k24can * ca2, k42can, ca4camca4can);
    let rcn0can = fms(cam * kcan_cam0on, ca4can, kcan_cam0off, camca4can);
    let rcn2can = fms(ca2cam * kcan_cam2on, ca4can, kcan_cam2off, ca2camca4can);
    let rcn4can = fms(ca4cam * kcan_cam4on, ca4can, kcan_cam4off, ca4camca4can);
    let pix = 1.0 - pb2 - pb - pt - pt2 - pa;
    let rck_ib2 = fms(ca2cam * kib2, pix, kb2i, pb2);
    let rck_b2b = fms(pb2, kb24 * ca2, kb42, pb);
    let rck_ib = fms(ca4cam * kib, pix, kbi, pb);
    let t = pb + pt + pt2 + pa;
    let kbt = f(d(powi(t, 3)).mul_add(0.015, d(powi(t, 2)).mul_add(0.0074, 0.055 * d(t))));
    let rck_bt = kbt * pb - kpp1 * pp1_tot * pt / camkii_tot.mul_add(pt, kmpp1);
    let rck_tt2 = kt42 * pt - kt24 * ca2 * pt2;
    let rck_ta = kta * pt - kat * ca4cam * pa;
    let rck_t2a = kt2a * pt2 - kat2 * ca2cam * pa;
    let rck_t2b2 = kpp1 * pp1_tot * pt2 / camkii_tot.mul_add(pt2, kmpp1);
    let rck_ai = kpp1 * pp1_tot * pa / camkii_tot.mul_add(pa, kmpp1);
    let dd = [
        -rcn02 - rcn0b - rcn0can,
        rcn02 - rcn24 - rcn2b - rcn2can + camkii_tot * (-rck_ib2 + rck_t2a),
        rcn24 - rcn4b - rcn4can + camkii_tot * (-rck_ib + rck_ta),
        rcn0b - rcn02b,
        rcn02b + rcn2b - rcn24b,
        rcn24b + rcn4b,
        rck_ib2 - rck_b2b + rck_t2b2,
        rck_ib + rck_b2b - rck_bt,
        rck_bt - rck_ta - rck_tt2,
        rck_tt2 - rck_t2a - rck_t2b2,
        rck_ta + rck_t2a - rck_ai,
        rcn_ca4can - rcn0can - rcn2can - rcn4can,
        rcn0can - rcn02can,
        rcn2can + rcn02can - rcn24can,
        rcn4can + rcn24can,
    ]
    .map(|x| f(1e-3 * d(x)));
    let flux = f(1e-3
        * d(2.0 * camkii_tot * (rck_tt2 - rck_b2b)
            - 2.0 * (rcn02 + rcn24 + rcn02b + rcn24b + rcn_ca4can + rcn02can + rcn24can)));
    (dd, flux)
}

/// The per-launch check (see the module doc): `got` and `expected` hold 94 values per launch.
fn check(got: &[f32], expected: &[f32]) -> Validation {
    const PER: usize = EQUATIONS + 3;
    const REL: f64 = 1e-5;
    let mut scale = [0.0f64; PER];
    for launch in expected.chunks_exact(PER) {
        for (s, e) in scale.iter_mut().zip(launch) {
            if e.is_finite() {
                *s = s.max(f64::from(e.abs()));
            }
        }
    }
    let mut v = Validation {
        checked: expected.len(),
        mismatches: expected.len().abs_diff(got.len()),
        first_mismatch: None,
        max_abs_diff: 0.0,
    };
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        let ok = if e.is_finite() && g.is_finite() {
            let (g, e) = (f64::from(*g), f64::from(*e));
            let diff = (g - e).abs();
            let bound = e.abs().max(scale[i % PER]);
            v.max_abs_diff = v.max_abs_diff.max(diff);
            diff <= REL * bound
        } else {
            // overflowed in both (see the module doc): the host turns NaN and ±inf into 0.0001
            !e.is_finite() && !g.is_finite()
        };
        if !ok {
            v.mismatches += 1;
            v.first_mismatch
                .get_or_insert((i, format!("{g:e}"), format!("{e:e}")));
        }
    }
    v
}

/// Rodinia myocyte as a registered sample.
pub struct Myocyte;

impl Sample for Myocyte {
    fn name(&self) -> &'static str {
        "rodinia/myocyte"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = params(size);
        format!(
            "{} ms simulated, {} instance{} (13 launches of 2 × 32 threads per solver attempt)",
            p.xmax,
            p.workload,
            if p.workload == 1 { "" } else { "s" }
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = params(size);
        let mut session = Session::new(dev);
        let module = session.load("rodinia/myocyte/myocyte.ptx")?;
        let kernel = module.kernel("kernel")?;
        let d_initvalu = dev.alloc::<f32>(EQUATIONS)?;
        let d_finavalu = dev.alloc::<f32>(EQUATIONS)?;
        // PARAMETERS + the two floats kernel_cam reads past them (see the module doc)
        let d_params = dev.alloc::<f32>(PARAMETERS + 2)?;
        d_params.memset(0)?;
        let d_com = dev.alloc::<f32>(3)?;
        let mut gpu = Gpu {
            session: &mut session,
            kernel,
            d_initvalu,
            d_finavalu,
            d_params,
            d_com,
            got: Vec::new(),
            expected: Vec::new(),
        };
        let mut statuses = Vec::new();
        for _ in 0..p.workload {
            let mut y = vec![[0.0f32; EQUATIONS]; p.xmax + 1];
            y[0] = Y0;
            let mut x = vec![0.0f32; p.xmax + 1];
            statuses.push(gpu.solver(&mut y, &mut x, p.xmax, &PARAMS)?);
        }
        let (got, expected) = (
            std::mem::take(&mut gpu.got),
            std::mem::take(&mut gpu.expected),
        );
        drop(gpu);
        let mut v = check(&got, &expected);
        // every solve succeeds (Rodinia prints the status otherwise)
        if statuses.iter().any(|s| *s != 0) {
            v.mismatches += 1;
            v.first_mismatch
                .get_or_insert((0, format!("solver status {statuses:?}"), "0".into()));
        }
        Ok(session.finish(v))
    }
}
