//! Rodinia hotspot3D: transient thermal simulation on a 3-D grid (seven-point stencil),
//! `hotspotOpt1` with 64 × 4 threads per CTA, each thread walking one (x, y) column through
//! the layers; one launch per time step, the host swapping input and output between launches.
//!
//! Validation is bit-exact, following the contraction of the PTX that ran. NVRTC evaluates each
//! cell's sum as one `mul.f32` and a chain of `fma.rn.f32` in Rodinia's term order; the compilers
//! differ only in the `ct * above` term ([`AboveTerm`]). NVRTC 12.9 (the committed
//! `hotspot3D.ptx`) and NVRTC 13 for compute_90 make it a separate `mul.f32` + `add.f32` in the
//! bottom layer, in the top layer and in the `(nz - 2) % 4` middle layers that run in the
//! remainder of the 4× unrolled layer loop (it keeps that product for the top layer), and an
//! `fma` in the layers of the unrolled body; NVRTC 13 for compute_120 fuses it in every layer
//! (samples/ptx-sets/cuda13-sm_120). The driver reads which from the loaded kernel
//! ([`AboveTerm::of`]) and the CPU reference computes that, bit for bit.
//!
//! One deliberate difference from Rodinia's host code: after the last swap Rodinia copies
//! `tOut_d` back, which holds the *previous* time step; this driver reads back the buffer the
//! last launch wrote, the actual result.

use crate::Validation;
use crate::contraction::{FloatCode, FloatOp};
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use isa::Operand;
use runtime::{Arg, Device};

/// Threads per CTA (Rodinia's `block_dim(64, 4, 1)`).
const BLOCK_X: usize = 64;
const BLOCK_Y: usize = 4;

/// Chip parameters, as Rodinia's host code has them.
const T_CHIP: f32 = 0.0005;
const CHIP_HEIGHT: f32 = 0.016;
const CHIP_WIDTH: f32 = 0.016;
const MAX_PD: f64 = 3.0e6;
const PRECISION: f64 = 0.001;
const SPEC_HEAT_SI: f64 = 1.75e6;
const K_SI: i32 = 100;
const FACTOR_CHIP: f64 = 0.5;
/// The ambient temperature inside the kernel.
const AMB_TEMP: f32 = 80.0;

/// One problem: `nx` × `ny` cells per layer, `layers` layers, `iterations` time steps.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub nx: usize,
    pub ny: usize,
    pub layers: usize,
    pub iterations: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (nx, ny, layers, iterations) = match size {
            // 1 × 4 CTAs; 8 layers run the unrolled loop body and its remainder.
            Size::Small => (64, 16, 8, 2),
            // Rodinia's run script: `3D 512 8 100 power_512x8 temp_512x8` (square layers).
            Size::Default => (512, 512, 8, 100),
            Size::Large => (1024, 1024, 8, 100),
        };
        Problem {
            nx,
            ny,
            layers,
            iterations,
        }
    }
}

/// The stencil coefficients, computed as Rodinia's host code computes them.
#[derive(Clone, Copy, Debug)]
pub struct Coefficients {
    pub sdc: f32,
    pub ce: f32,
    pub cw: f32,
    pub cn: f32,
    pub cs: f32,
    pub ct: f32,
    pub cb: f32,
    pub cc: f32,
}

impl Coefficients {
    pub fn new(rows: usize, cols: usize, layers: usize) -> Coefficients {
        let dx = CHIP_HEIGHT / rows as f32;
        let dy = CHIP_WIDTH / cols as f32;
        let dz = T_CHIP / layers as f32;
        let (dxd, dyd, tc) = (f64::from(dx), f64::from(dy), f64::from(T_CHIP));
        let cap = (FACTOR_CHIP * SPEC_HEAT_SI * tc * dxd * dyd) as f32;
        let rx = (dyd / (2.0 * f64::from(K_SI) * tc * dxd)) as f32;
        let ry = (dxd / (2.0 * f64::from(K_SI) * tc * dyd)) as f32;
        let rz = dz / (K_SI as f32 * dx * dy);
        let max_slope = (MAX_PD / (FACTOR_CHIP * tc * SPEC_HEAT_SI)) as f32;
        let dt = (PRECISION / f64::from(max_slope)) as f32;
        // hotspot_opt1
        let sdc = dt / cap;
        let (ce, cn, ct) = (sdc / rx, sdc / ry, sdc / rz);
        let cc = (1.0 - (2.0 * f64::from(ce) + 2.0 * f64::from(cn) + 3.0 * f64::from(ct))) as f32;
        Coefficients {
            sdc,
            ce,
            cw: ce,
            cn,
            cs: cn,
            ct,
            cb: ct,
            cc,
        }
    }
}

/// The index of `ct` in `hotspotOpt1`'s parameter list.
const CT_PARAM: u32 = 11;

/// Where the kernel fuses the `ct * above` term of a cell's sum into its `fma` chain: the one
/// term whose contraction differs between the PTX the sample runs from (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AboveTerm {
    /// An `fma` in the middle layers of the 4× unrolled layer loop's body, a separate
    /// `mul.f32` + `add.f32` in the bottom, the top and the remainder layers: NVRTC 12.9 for
    /// compute_70 (the committed PTX) and NVRTC 13 for compute_90.
    FusedInUnrolledBody,
    /// An `fma` in every layer: NVRTC 13 for compute_120.
    Fused,
}

impl AboveTerm {
    /// Reads it from `hotspotOpt1`'s code: the `fma.rn.f32` instructions that multiply by `ct`
    /// (a register loaded from its parameter) and the `mul.f32` instructions that multiply `ct`
    /// by a register (`ct * above`, not `ct * amb_temp`, whose factor is an immediate). Fused
    /// products only: [`AboveTerm::Fused`]; both: [`AboveTerm::FusedInUnrolledBody`], the only
    /// mix a compiler has made (which layers are which is not read from the code: a mix with
    /// other layers separate fails the exact validation rather than passing it); no fused
    /// product: an error naming what was found, since the reference knows no such form.
    pub fn of(kernel: &isa::Function) -> Result<AboveTerm, String> {
        let code = FloatCode::of(kernel);
        let ct = code.param_regs(CT_PARAM);
        let is_ct = |o: &Operand| o.reg().is_some_and(|r| ct.contains(&r));
        let is_reg = |o: &Operand| matches!(o, Operand::Reg(_));
        // `ct * x` with `x` a register, in either operand order.
        let times_register =
            |a: &Operand, b: &Operand| (is_ct(a) && is_reg(b)) || (is_ct(b) && is_reg(a));
        let fused = code
            .ops(FloatOp::Fma)
            .filter(|i| times_register(&i.srcs[0], &i.srcs[1]))
            .count();
        let separate = code
            .ops(FloatOp::Mul)
            .filter(|i| times_register(&i.srcs[0], &i.srcs[1]))
            .count();
        match (fused, separate) {
            (1.., 0) => Ok(AboveTerm::Fused),
            (1.., 1..) => Ok(AboveTerm::FusedInUnrolledBody),
            _ => Err(format!(
                "rodinia/hotspot3D: the CPU reference cannot follow this PTX's contraction: \
                 `{}` has no `fma.rn.f32` by `ct` (parameter {CT_PARAM}) and {separate} \
                 `mul.f32` of `ct` by a register; the reference knows `ct * above` fused in \
                 every layer or in the unrolled loop's body only",
                kernel.name
            )),
        }
    }
}

/// Deterministic inputs: (power, temperature), `x + y·nx + z·nx·ny`. Temperatures around Rodinia's
/// input files' (≈ 320–345 K), small non-negative power densities.
pub fn inputs(p: &Problem) -> (Vec<f32>, Vec<f32>) {
    let cells = p.nx * p.ny * p.layers;
    let mut rng = Rng::new(0x4833_4400_0001);
    let power = (0..cells).map(|_| rng.f32_in(0.0, 1.0e-3)).collect();
    let mut rng = Rng::new(0x4833_4400_0002);
    let temp = (0..cells).map(|_| rng.f32_in(320.0, 345.0)).collect();
    (power, temp)
}

/// The CPU reference: `iterations` steps of the stencil with `hotspotOpt1`'s exact arithmetic,
/// `ct * above` contracted as `above` says.
pub fn reference(
    power: &[f32],
    temp: &[f32],
    p: &Problem,
    k: &Coefficients,
    above: AboveTerm,
) -> Vec<f32> {
    let (nx, ny, nz) = (p.nx, p.ny, p.layers);
    let xy = nx * ny;
    // Middle layers 1..=body_last run in the 4× unrolled loop body, where NVRTC 12.9 fuses
    // `ct * above` into the chain; it multiplies and adds it separately in every other layer.
    let middle = nz.saturating_sub(2);
    let body_last = middle - middle % 4;
    let ct_amb = k.ct * AMB_TEMP;
    let mut cur = temp.to_vec();
    let mut next = vec![0.0f32; cur.len()];
    for _ in 0..p.iterations {
        for z in 0..nz {
            let fused = match above {
                AboveTerm::Fused => true,
                AboveTerm::FusedInUnrolledBody => (1..=body_last).contains(&z),
            };
            for y in 0..ny {
                for x in 0..nx {
                    let c = x + y * nx + z * xy;
                    let w = if x == 0 { c } else { c - 1 };
                    let e = if x == nx - 1 { c } else { c + 1 };
                    let n = if y == 0 { c } else { c - nx };
                    let s = if y == ny - 1 { c } else { c + nx };
                    let below = if z == 0 { c } else { c - xy };
                    let above = if z == nz - 1 { c } else { c + xy };
                    let t = &cur;
                    let mut acc = t[w] * k.cw;
                    acc = t[c].mul_add(k.cc, acc);
                    acc = t[e].mul_add(k.ce, acc);
                    acc = t[s].mul_add(k.cs, acc);
                    acc = t[n].mul_add(k.cn, acc);
                    acc = t[below].mul_add(k.cb, acc);
                    acc = if fused {
                        t[above].mul_add(k.ct, acc)
                    } else {
                        t[above] * k.ct + acc
                    };
                    acc = power[c].mul_add(k.sdc, acc);
                    next[c] = ct_amb + acc;
                }
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

/// Rodinia hotspot3D as a registered sample.
pub struct Hotspot3d;

impl Sample for Hotspot3d {
    fn name(&self) -> &'static str {
        "rodinia/hotspot3D"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["hotspotOpt1"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} × {} × {} grid, {3} time steps ({3} launches)",
            p.nx, p.ny, p.layers, p.iterations
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let (nx, ny, nz) = (p.nx, p.ny, p.layers);
        let (power, temp) = inputs(&p);
        let k = Coefficients::new(ny, nx, nz);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/hotspot3D/hotspot3D.ptx")?;
        let kernel = module.kernel("hotspotOpt1")?;
        // The reference follows the contraction of the PTX being run (module docs).
        let above = AboveTerm::of(kernel.function()).map_err(runtime::Error::InvalidValue)?;

        let d_power = dev.alloc_from(&power)?;
        let mut t_in = dev.alloc_from(&temp)?;
        let mut t_out = dev.alloc::<f32>(temp.len())?;
        let grid = ((nx / BLOCK_X) as u32, (ny / BLOCK_Y) as u32);
        for _ in 0..p.iterations {
            session.launch(
                &kernel,
                grid,
                (BLOCK_X as u32, BLOCK_Y as u32),
                0,
                &[
                    (&d_power).into(),
                    (&t_in).into(),
                    (&t_out).into(),
                    Arg::F32(k.sdc),
                    Arg::I32(nx as i32),
                    Arg::I32(ny as i32),
                    Arg::I32(nz as i32),
                    Arg::F32(k.ce),
                    Arg::F32(k.cw),
                    Arg::F32(k.cn),
                    Arg::F32(k.cs),
                    Arg::F32(k.ct),
                    Arg::F32(k.cb),
                    Arg::F32(k.cc),
                ],
            )?;
            std::mem::swap(&mut t_in, &mut t_out);
        }

        // After the last swap the newest temperatures are in `t_in`.
        let got = t_in.to_host()?;
        let expected = reference(&power, &temp, &p, &k, above);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
