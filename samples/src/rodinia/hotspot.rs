//! Rodinia hotspot: transient thermal simulation of a chip on a 2-D grid (five-point stencil),
//! `calculate_temp` advancing 16 × 16 tiles `pyramid_height` time steps per launch in shared
//! memory, the host swapping the two temperature buffers between launches.
//!
//! Validation is bit-exact. The CPU reference is the plain global stencil (every time step over
//! the whole grid, neighbours outside the grid replaced by the cell itself), which is what the
//! overlapping pyramid tiles compute, with the kernel's exact arithmetic: the neighbour terms
//! are in double precision because Rodinia's `2.0` is a double, and NVRTC contracts three of the
//! double operations into `fma.rn.f64` (see `step` below and `hotspot.ptx`).

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Threads per CTA side (Rodinia's `BLOCK_SIZE`).
const BLOCK: usize = 16;

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

/// One problem: a `grid` × `grid` chip, `sim_time` time steps, `pyramid_height` per launch.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub grid: usize,
    pub pyramid_height: usize,
    pub sim_time: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (grid, pyramid_height, sim_time) = match size {
            // 3 × 3 CTAs (the last row and column partly outside the grid), 2 launches, the last
            // one with a single step (Rodinia's MIN(pyramid_height, remaining steps)).
            Size::Small => (32, 2, 3),
            // Rodinia's run script: `hotspot 512 2 2 temp_512 power_512`.
            Size::Default => (512, 2, 2),
            Size::Large => (1024, 2, 8),
        };
        Problem {
            grid,
            pyramid_height,
            sim_time,
        }
    }
}

/// The physical coefficients, computed as Rodinia's host code computes them (double
/// expressions rounded to float where Rodinia stores them in floats).
#[derive(Clone, Copy, Debug)]
pub struct Coefficients {
    pub cap: f32,
    pub rx: f32,
    pub ry: f32,
    pub rz: f32,
    pub step: f32,
}

impl Coefficients {
    pub fn new(rows: usize, cols: usize) -> Coefficients {
        let grid_height = CHIP_HEIGHT / rows as f32;
        let grid_width = CHIP_WIDTH / cols as f32;
        let (gh, gw, tc) = (
            f64::from(grid_height),
            f64::from(grid_width),
            f64::from(T_CHIP),
        );
        let cap = (FACTOR_CHIP * SPEC_HEAT_SI * tc * gw * gh) as f32;
        let rx = (gw / (2.0 * f64::from(K_SI) * tc * gh)) as f32;
        let ry = (gh / (2.0 * f64::from(K_SI) * tc * gw)) as f32;
        // `K_SI * grid_height * grid_width` is an int times floats: float arithmetic.
        let rz = T_CHIP / (K_SI as f32 * grid_height * grid_width);
        let max_slope = (MAX_PD / (FACTOR_CHIP * tc * SPEC_HEAT_SI)) as f32;
        let step = (PRECISION / f64::from(max_slope)) as f32;
        Coefficients {
            cap,
            rx,
            ry,
            rz,
            step,
        }
    }
}

/// Deterministic inputs: (temperature, power), row-major `grid` × `grid`. Temperatures
/// around Rodinia's input files' (≈ 320–345 K), small non-negative power densities.
pub fn inputs(grid: usize) -> (Vec<f32>, Vec<f32>) {
    let mut rng = Rng::new(0x4854_5350_0001);
    let temp = (0..grid * grid).map(|_| rng.f32_in(320.0, 345.0)).collect();
    let mut rng = Rng::new(0x4854_5350_0002);
    let power = (0..grid * grid).map(|_| rng.f32_in(0.0, 1.0e-3)).collect();
    (temp, power)
}

/// One time step of one cell, exactly as `calculate_temp` computes it: `c` the cell, `n s w e`
/// its (clamped) neighbours, `p` its power.
fn step(c: f32, n: f32, s: f32, w: f32, e: f32, p: f32, k: &Coefficients) -> f32 {
    let step_div_cap = f64::from(k.step / k.cap);
    let rx_inv = f64::from(1.0 / k.rx);
    let ry_inv = f64::from(1.0 / k.ry);
    let rz_inv = 1.0 / k.rz;
    let cd = f64::from(c);
    let two_c = cd + cd;
    // fma.rn.f64 (s + n − 2c, 1/Ry, p)
    let acc = (f64::from(s + n) - two_c).mul_add(ry_inv, f64::from(p));
    // fma.rn.f64 (e + w − 2c, 1/Rx, acc)
    let acc = (f64::from(e + w) - two_c).mul_add(rx_inv, acc);
    // + (amb − c) / Rz in float
    let acc = acc + f64::from(rz_inv * (AMB_TEMP - c));
    // fma.rn.f64 (acc, step/Cap, c), rounded to float
    acc.mul_add(step_div_cap, cd) as f32
}

/// The CPU reference: `sim_time` steps of the stencil over the whole grid.
pub fn reference(
    temp: &[f32],
    power: &[f32],
    rows: usize,
    cols: usize,
    sim_time: usize,
    k: &Coefficients,
) -> Vec<f32> {
    let mut cur = temp.to_vec();
    let mut next = vec![0.0f32; cur.len()];
    for _ in 0..sim_time {
        for y in 0..rows {
            let (yn, ys) = (y.saturating_sub(1), (y + 1).min(rows - 1));
            for x in 0..cols {
                let (xw, xe) = (x.saturating_sub(1), (x + 1).min(cols - 1));
                let at = |yy: usize, xx: usize| cur[yy * cols + xx];
                next[y * cols + x] = step(
                    at(y, x),
                    at(yn, x),
                    at(ys, x),
                    at(y, xw),
                    at(y, xe),
                    power[y * cols + x],
                    k,
                );
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

/// Rodinia hotspot as a registered sample.
pub struct Hotspot;

impl Sample for Hotspot {
    fn name(&self) -> &'static str {
        "rodinia/hotspot"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["calculate_temp"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        let launches = p.sim_time.div_ceil(p.pyramid_height);
        format!(
            "{0} × {0} grid, {1} time steps, pyramid height {2} ({launches} launch{3})",
            p.grid,
            p.sim_time,
            p.pyramid_height,
            if launches == 1 { "" } else { "es" }
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let (rows, cols) = (p.grid, p.grid);
        let (temp, power) = inputs(p.grid);
        let k = Coefficients::new(rows, cols);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/hotspot/hotspot.ptx")?;
        let kernel = module.kernel("calculate_temp")?;

        // Pyramid geometry, as Rodinia's host computes it.
        let border = p.pyramid_height; // pyramid_height * EXPAND_RATE / 2
        let owned = BLOCK - 2 * p.pyramid_height;
        let block_cols = cols.div_ceil(owned) as u32;
        let block_rows = rows.div_ceil(owned) as u32;

        let d_power = dev.alloc_from(&power)?;
        let d_temp = [dev.alloc_from(&temp)?, dev.alloc::<f32>(rows * cols)?];

        // compute_tran_temp: src and dst swap before every launch; the result is in `dst`.
        let (mut src, mut dst) = (1usize, 0usize);
        let mut t = 0;
        while t < p.sim_time {
            std::mem::swap(&mut src, &mut dst);
            let iteration = p.pyramid_height.min(p.sim_time - t);
            session.launch(
                &kernel,
                (block_cols, block_rows),
                (BLOCK as u32, BLOCK as u32),
                0,
                &[
                    Arg::I32(iteration as i32),
                    (&d_power).into(),
                    (&d_temp[src]).into(),
                    (&d_temp[dst]).into(),
                    Arg::I32(cols as i32),
                    Arg::I32(rows as i32),
                    Arg::I32(border as i32),
                    Arg::I32(border as i32),
                    Arg::F32(k.cap),
                    Arg::F32(k.rx),
                    Arg::F32(k.ry),
                    Arg::F32(k.rz),
                    Arg::F32(k.step),
                    Arg::F32(0.001), // time_elapsed, unused by the kernel as in Rodinia
                ],
            )?;
            t += p.pyramid_height;
        }

        let got = d_temp[dst].to_host()?;
        let expected = reference(&temp, &power, rows, cols, p.sim_time, &k);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
