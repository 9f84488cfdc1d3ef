//! CUDA SDK convolutionSeparable: a 17-tap (KERNEL_RADIUS 8) separable convolution, the
//! filter in constant memory (`c_Kernel`, written as `cudaMemcpyToSymbol` does). Two launches:
//! `convolutionRowsKernel` (16 × 4 threads, 8 outputs each, a 128 × 4 strip per block) filters
//! the rows into a buffer, `convolutionColumnsKernel` (16 × 8 threads, 8 outputs each, a
//! 16 × 64 strip) filters the buffer's columns; pixels outside the image count as zero.
//!
//! Inputs: the SDK fills the image and the filter with small integers (`rand() % 16`), whose
//! sums are exact in f32 whatever the order; here both are seeded floats in [0, 1), so the
//! order matters, and the reference mirrors the kernels: each output is an `fma.rn.f32` chain
//! from 0 over the taps j = −8..8 (weight c_Kernel[8 − j], zeros outside the image included),
//! as NVRTC compiles the unrolled loops. Both images are compared bit-exactly.

use super::common::{all_of, uniform};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// KERNEL_RADIUS and the filter length.
pub const KERNEL_RADIUS: usize = 8;
const KERNEL_LENGTH: usize = 2 * KERNEL_RADIUS + 1;
/// Threads per block and outputs per thread of the two kernels.
const ROWS_BLOCKDIM: (u32, u32) = (16, 4);
const ROWS_RESULT_STEPS: u32 = 8;
const COLUMNS_BLOCKDIM: (u32, u32) = (16, 8);
const COLUMNS_RESULT_STEPS: u32 = 8;

/// (width, height) per size; the width a multiple of 128 and the height of 64, as the kernels
/// require: small 128 × 128 (one row strip, whose halos both lie outside the image, and two
/// column strips, whose inner halos lie inside);
/// default 3072 × 3072 (the SDK's image); large 4096 × 4096.
pub fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (128, 128),
        Size::Default => (3072, 3072),
        Size::Large => (4096, 4096),
    }
}

/// One output: the fma chain over the taps, `at(j)` the input at offset j (0 outside).
fn convolve(filter: &[f32], at: impl Fn(isize) -> f32) -> f32 {
    let r = KERNEL_RADIUS as isize;
    (-r..=r).fold(0.0f32, |sum, j| {
        filter[(r - j) as usize].mul_add(at(j), sum)
    })
}

/// The CPU reference of the rows pass.
pub fn rows(src: &[f32], filter: &[f32], w: usize, h: usize) -> Vec<f32> {
    let mut dst = vec![0.0f32; w * h];
    for y in 0..h {
        let row = &src[y * w..(y + 1) * w];
        for x in 0..w {
            dst[y * w + x] = convolve(filter, |j| {
                row.get(x.wrapping_add_signed(j)).copied().unwrap_or(0.0)
            });
        }
    }
    dst
}

/// The CPU reference of the columns pass.
pub fn columns(src: &[f32], filter: &[f32], w: usize, h: usize) -> Vec<f32> {
    let mut dst = vec![0.0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            dst[y * w + x] = convolve(filter, |j| {
                let yy = y.wrapping_add_signed(j);
                if yy < h { src[yy * w + x] } else { 0.0 }
            });
        }
    }
    dst
}

/// CUDA SDK convolutionSeparable as a registered sample.
pub struct ConvolutionSeparable;

impl Sample for ConvolutionSeparable {
    fn name(&self) -> &'static str {
        "sdk/convolutionSeparable"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["convolutionRowsKernel", "convolutionColumnsKernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (w, h) = dims(size);
        format!("{w} × {h} image, {KERNEL_LENGTH}-tap filter")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (w, h) = dims(size);
        let filter = uniform(0x5D4B_0601, KERNEL_LENGTH, 0.0, 1.0);
        let image = uniform(0x5D4B_0602, w * h, 0.0, 1.0);

        let mut session = Session::new(dev);
        let module = session.load("sdk/convolutionSeparable/convolutionSeparable.ptx")?;
        module.write_symbol("c_Kernel", 0, &runtime::buffer::to_bytes(&filter))?;
        let rows_kernel = module.kernel("convolutionRowsKernel")?;
        let columns_kernel = module.kernel("convolutionColumnsKernel")?;
        let d_input = dev.alloc_from(&image)?;
        let d_buffer = dev.alloc::<f32>(w * h)?;
        let d_output = dev.alloc::<f32>(w * h)?;
        let (wu, hu) = (w as u32, h as u32);
        let dims_args = [Arg::I32(w as i32), Arg::I32(h as i32), Arg::I32(w as i32)];

        let mut args = vec![(&d_buffer).into(), (&d_input).into()];
        args.extend(dims_args.clone());
        session.launch(
            &rows_kernel,
            (
                wu / (ROWS_RESULT_STEPS * ROWS_BLOCKDIM.0),
                hu / ROWS_BLOCKDIM.1,
            ),
            ROWS_BLOCKDIM,
            0,
            &args,
        )?;
        let mut args = vec![(&d_output).into(), (&d_buffer).into()];
        args.extend(dims_args);
        session.launch(
            &columns_kernel,
            (
                wu / COLUMNS_BLOCKDIM.0,
                hu / (COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM.1),
            ),
            COLUMNS_BLOCKDIM,
            0,
            &args,
        )?;

        let buffer_ref = rows(&image, &filter, w, h);
        let output_ref = columns(&buffer_ref, &filter, w, h);
        let validation = all_of([
            Validation::exact_f32(&d_buffer.to_host()?, &buffer_ref),
            Validation::exact_f32(&d_output.to_host()?, &output_ref),
        ]);
        Ok(session.finish(validation))
    }
}
