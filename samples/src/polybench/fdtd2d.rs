//! Polybench-GPU fdtd-2d: the 2-D finite-difference time-domain kernel. Per time step the host
//! launches `fdtd_step1_kernel` (ey; row 0 takes the source fict[t]), `fdtd_step2_kernel` (ex)
//! and `fdtd_step3_kernel` (hz), each 32 × 8 threads per block over the nx × ny field.
//!
//! Inputs are Polybench-GPU's formulas: fict[t] = t, ex[i][j] = (i·(j+1) + 1)/nx,
//! ey[i][j] = ((i−1)·(j+2) + 2)/nx, hz[i][j] = ((i−9)·(j+4) + 3)/nx, each over its whole
//! array (ex is nx × (ny+1) and ey (nx+1) × ny, as the suite allocates them; the suite's host
//! fills them with the field's row stride, a layout slip not kept here). Validation is bit-exact
//! on all three fields: every update is a difference then one `fma.rn.f32` with −0.5 or −0.7
//! (see `fdtd-2d.ptx`), which the reference reproduces step by step.

use super::common::{self, BLOCK_2D, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// (tmax, nx, ny) per size: small Polybench's MINI field (20 × 30) for 3 steps (9 launches);
/// default Polybench's MEDIUM dataset (100 steps, 200 × 240), since Polybench-GPU's own
/// (500 steps of 2048 × 2048, ≈ 250 G thread instructions) and Polybench's LARGE
/// (≈ 70 G) exceed the default budget (MEDIUM is ≈ 0.6 G); large 25 steps of Polybench's
/// LARGE field, 1000 × 1200 (≈ 3.6 G).
fn dims(size: Size) -> (usize, usize, usize) {
    match size {
        Size::Small => (3, 20, 30),
        Size::Default => (100, 200, 240),
        Size::Large => (25, 1000, 1200),
    }
}

/// The three fields.
struct Fields {
    ex: Vec<f32>,
    ey: Vec<f32>,
    hz: Vec<f32>,
}

impl Fields {
    /// Polybench-GPU's initial fields for an nx × ny problem.
    fn new(nx: usize, ny: usize) -> Fields {
        let n = nx as f32;
        Fields {
            ex: common::matrix(nx, ny + 1, |i, j| (i * (j + 1.0) + 1.0) / n),
            ey: common::matrix(nx + 1, ny, |i, j| ((i - 1.0) * (j + 2.0) + 2.0) / n),
            hz: common::matrix(nx, ny, |i, j| ((i - 9.0) * (j + 4.0) + 3.0) / n),
        }
    }

    /// One time step of the three kernels, with their arithmetic.
    fn step(&mut self, source: f32, nx: usize, ny: usize) {
        let Fields { ex, ey, hz } = self;
        ey[..ny].fill(source);
        for i in 1..nx {
            for j in 0..ny {
                let d = hz[i * ny + j] - hz[(i - 1) * ny + j];
                ey[i * ny + j] = d.mul_add(-0.5, ey[i * ny + j]);
            }
        }
        let w = ny + 1;
        for i in 0..nx {
            for j in 1..ny {
                let d = hz[i * ny + j] - hz[i * ny + j - 1];
                ex[i * w + j] = d.mul_add(-0.5, ex[i * w + j]);
            }
        }
        for i in 0..nx {
            for j in 0..ny {
                let d = ex[i * w + j + 1] - ex[i * w + j] + ey[(i + 1) * ny + j] - ey[i * ny + j];
                hz[i * ny + j] = d.mul_add(-0.7, hz[i * ny + j]);
            }
        }
    }
}

/// Polybench-GPU fdtd-2d as a registered sample.
pub struct Fdtd2d;

impl Sample for Fdtd2d {
    fn name(&self) -> &'static str {
        "polybench/fdtd-2d"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "fdtd_step1_kernel",
            "fdtd_step2_kernel",
            "fdtd_step3_kernel",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        let (tmax, nx, ny) = dims(size);
        format!(
            "{nx} × {ny} field, {tmax} time steps ({} launches)",
            3 * tmax
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (tmax, nx, ny) = dims(size);
        let fict = common::vector(tmax, |t| t);
        let mut fields = Fields::new(nx, ny);

        let mut session = Session::new(dev);
        let module = session.load("polybench/fdtd-2d/fdtd-2d.ptx")?;
        let steps = [
            module.kernel("fdtd_step1_kernel")?,
            module.kernel("fdtd_step2_kernel")?,
            module.kernel("fdtd_step3_kernel")?,
        ];
        let d_fict = common::upload(dev, &fict)?;
        let d_ex = common::upload(dev, &fields.ex)?;
        let d_ey = common::upload(dev, &fields.ey)?;
        let d_hz = common::upload(dev, &fields.hz)?;
        let grid = grid_2d(ny, nx);
        for t in 0..tmax {
            // Steps 2 and 3 take (ex, ey, hz, t, nx, ny); step 1 the source array first.
            let args = [
                (&d_ex).into(),
                (&d_ey).into(),
                (&d_hz).into(),
                int(t),
                int(nx),
                int(ny),
            ];
            let step1_args: Vec<Arg> = std::iter::once((&d_fict).into())
                .chain(args.iter().cloned())
                .collect();
            session.launch(&steps[0], grid, BLOCK_2D, 0, &step1_args)?;
            session.launch(&steps[1], grid, BLOCK_2D, 0, &args)?;
            session.launch(&steps[2], grid, BLOCK_2D, 0, &args)?;
        }
        let got = common::concat(&[&d_ex.to_host()?, &d_ey.to_host()?, &d_hz.to_host()?]);

        for source in &fict {
            fields.step(*source, nx, ny);
        }
        let expected = common::concat(&[&fields.ex, &fields.ey, &fields.hz]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
