//! SAXPY, `y = a*x + y`: the first end-to-end sample.
//!
//! NVRTC contracts `a*x[i] + y[i]` into `fma.rn.f32`, so the CPU reference uses `f32::mul_add`
//! and validation is bit-exact.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device, LaunchStats};

/// Threads per block, as the CUDA samples use.
pub const BLOCK: u32 = 256;

/// The outcome of one run.
pub struct SaxpyRun {
    pub n: usize,
    pub validation: Validation,
    pub stats: LaunchStats,
    pub seconds: f64,
}

/// Deterministic inputs for size `n`: (a, x, y).
pub fn inputs(n: usize) -> (f32, Vec<f32>, Vec<f32>) {
    let mut rng = Rng::new(0x5A5A_0001);
    let x = (0..n).map(|_| rng.f32_in(-8.0, 8.0)).collect();
    let y = (0..n).map(|_| rng.f32_in(-8.0, 8.0)).collect();
    (2.5, x, y)
}

/// The CPU reference.
pub fn reference(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(x, y)| a.mul_add(*x, *y)).collect()
}

/// Runs SAXPY of size `n` on `dev` and validates it, from the committed PTX or the PTX set in
/// force (`crate::ptx_set::with`).
pub fn run(dev: &Device, n: usize) -> runtime::Result<SaxpyRun> {
    let module = dev.load_ptx_file(&crate::ptx_set::module_path("saxpy/saxpy.ptx")?)?;
    let kernel = module.kernel("saxpy")?;
    // Device buffers first: a size the device cannot hold is an out-of-memory error before
    // the host builds inputs of that size.
    let dx = dev.alloc::<f32>(n)?;
    let dy = dev.alloc::<f32>(n)?;
    let (a, x, y) = inputs(n);
    dx.copy_from_host(&x)?;
    dy.copy_from_host(&y)?;
    let grid = (n as u32).div_ceil(BLOCK).max(1);
    let start = std::time::Instant::now();
    let stats = dev.launch(
        &kernel,
        grid,
        BLOCK,
        0,
        &[Arg::I32(n as i32), Arg::F32(a), (&dx).into(), (&dy).into()],
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let validation = Validation::exact_f32(&dy.to_host()?, &reference(a, &x, &y));
    Ok(SaxpyRun {
        n,
        validation,
        stats,
        seconds,
    })
}

/// SAXPY as a registered sample: small 2^16, default 2^20, large 2^24 elements.
pub struct Saxpy;

impl Saxpy {
    pub fn elements(size: Size) -> usize {
        match size {
            Size::Small => 1 << 16,
            Size::Default => 1 << 20,
            Size::Large => 1 << 24,
        }
    }
}

impl Sample for Saxpy {
    fn name(&self) -> &'static str {
        "saxpy"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["saxpy"]
    }

    fn size_description(&self, size: Size) -> String {
        format!("{} elements", Saxpy::elements(size))
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let r = run(dev, Saxpy::elements(size))?;
        let mut session = Session::new(dev);
        session.stats = r.stats;
        session.launches = 1;
        session.kernel_seconds = r.seconds;
        Ok(session.finish(r.validation))
    }
}
