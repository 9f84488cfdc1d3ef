//! CUDA SDK vectorAdd: one `vectorAdd` launch computes C = A + B, one thread per element, 256
//! threads per block and ceil(n / 256) blocks, as the SDK's sample launches it.
//!
//! Inputs are seeded floats in [0, 1) (the SDK's `rand() / RAND_MAX`). `add.f32` is correctly
//! rounded, so C is compared bit-exactly with the host's f32 sums.

use super::common::uniform;
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// The SDK's threadsPerBlock.
const THREADS_PER_BLOCK: u32 = 256;

/// Elements per size: small 5,000 (the last of 20 blocks partly idle); default 50,000 (the
/// SDK's numElements); large 2^24.
pub fn elements(size: Size) -> usize {
    match size {
        Size::Small => 5_000,
        Size::Default => 50_000,
        Size::Large => 1 << 24,
    }
}

/// CUDA SDK vectorAdd as a registered sample.
pub struct VectorAdd;

impl Sample for VectorAdd {
    fn name(&self) -> &'static str {
        "sdk/vectorAdd"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["vectorAdd"]
    }

    fn size_description(&self, size: Size) -> String {
        format!("{} elements", elements(size))
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = elements(size);
        let a = uniform(0x5D4B_0001, n, 0.0, 1.0);
        let b = uniform(0x5D4B_0002, n, 0.0, 1.0);

        let mut session = Session::new(dev);
        let module = session.load("sdk/vectorAdd/vectorAdd.ptx")?;
        let kernel = module.kernel("vectorAdd")?;
        let d_a = dev.alloc_from(&a)?;
        let d_b = dev.alloc_from(&b)?;
        let d_c = dev.alloc::<f32>(n)?;
        let blocks = (n as u32).div_ceil(THREADS_PER_BLOCK);
        session.launch(
            &kernel,
            blocks,
            THREADS_PER_BLOCK,
            0,
            &[
                (&d_a).into(),
                (&d_b).into(),
                (&d_c).into(),
                Arg::I32(n as i32),
            ],
        )?;
        let got = d_c.to_host()?;
        let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
