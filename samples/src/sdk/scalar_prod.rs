//! CUDA SDK scalarProd: one `scalarProdGPU` launch computes the dot products of `vectorN`
//! pairs of vectors of `elementN` floats. Blocks take vectors in a grid-stride loop; for each,
//! the block's threads fold the vector into ACCUM_N = 1024 accumulators in shared memory
//! (accumulator i sums the products at i, i + 1024, ...) and reduce them with a shared-memory
//! tree (stride 512, 256, ..., 1); thread 0 writes the result.
//!
//! Inputs are the SDK's: floats uniform in [0, 1) (its `RandFloat(0.0f, 1.0f)`), seeded.
//! Each accumulator is an `fma.rn.f32` chain in position order (NVRTC unrolls it by four but
//! keeps the order) and each tree step one `add.f32`, so the reference repeats both in the
//! kernel's order and the dot products are compared bit-exactly.

use super::common::uniform;
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// The kernel's ACCUM_N.
pub const ACCUM_N: usize = 1024;
/// Threads per block (the SDK's 256).
const THREADS: u32 = 256;

/// One problem: `vectors` dot products of `elements` floats on `blocks` blocks.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub vectors: usize,
    pub elements: usize,
    pub blocks: u32,
}

impl Problem {
    /// small: 8 vectors of 2,048 on 4 blocks (each block loops over two vectors); default: the
    /// SDK's VECTOR_N = 256 vectors of ELEMENT_N = 4,096 on its 128 blocks; large: 1,024
    /// vectors of 16,384 on 128 blocks.
    pub fn of(size: Size) -> Problem {
        let (vectors, elements, blocks) = match size {
            Size::Small => (8, 2048, 4),
            Size::Default => (256, 4096, 128),
            Size::Large => (1024, 16_384, 128),
        };
        Problem {
            vectors,
            elements,
            blocks,
        }
    }
}

/// The CPU reference: per vector, the kernel's accumulators and tree.
pub fn reference(a: &[f32], b: &[f32], p: Problem) -> Vec<f32> {
    (0..p.vectors)
        .map(|vec| {
            let base = vec * p.elements;
            let (va, vb) = (&a[base..base + p.elements], &b[base..base + p.elements]);
            let mut acc: Vec<f32> = (0..ACCUM_N)
                .map(|i| {
                    (i..p.elements)
                        .step_by(ACCUM_N)
                        .fold(0.0f32, |sum, pos| va[pos].mul_add(vb[pos], sum))
                })
                .collect();
            let mut stride = ACCUM_N / 2;
            while stride > 0 {
                for i in 0..stride {
                    acc[i] += acc[stride + i];
                }
                stride /= 2;
            }
            acc[0]
        })
        .collect()
}

/// CUDA SDK scalarProd as a registered sample.
pub struct ScalarProd;

impl Sample for ScalarProd {
    fn name(&self) -> &'static str {
        "sdk/scalarProd"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["scalarProdGPU"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} vectors of {} floats, {} blocks of {THREADS} threads",
            p.vectors, p.elements, p.blocks
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let n = p.vectors * p.elements;
        let a = uniform(0x5D4B_0301, n, 0.0, 1.0);
        let b = uniform(0x5D4B_0302, n, 0.0, 1.0);

        let mut session = Session::new(dev);
        let module = session.load("sdk/scalarProd/scalarProd.ptx")?;
        let kernel = module.kernel("scalarProdGPU")?;
        let d_a = dev.alloc_from(&a)?;
        let d_b = dev.alloc_from(&b)?;
        let d_c = dev.alloc::<f32>(p.vectors)?;
        session.launch(
            &kernel,
            p.blocks,
            THREADS,
            0,
            &[
                (&d_c).into(),
                (&d_a).into(),
                (&d_b).into(),
                Arg::I32(p.vectors as i32),
                Arg::I32(p.elements as i32),
            ],
        )?;
        let got = d_c.to_host()?;
        Ok(session.finish(Validation::exact_f32(&got, &reference(&a, &b, p))))
    }
}
