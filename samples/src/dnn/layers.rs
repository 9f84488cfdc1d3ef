//! The layer kernels every dnn sample shares (`samples/dnn/layers/layers.cu`): their launch
//! helpers, their CPU references, seeded parameters, and the per-layer comparison.
//!
//! The references of the convolution, pooling and fully connected kernels mirror the kernels'
//! arithmetic exactly: each accumulates from the bias in the kernel's order with one
//! `f32::mul_add` per multiply-add (NVRTC contracts `sum += x * w` to `fma.rn.f32`), the
//! average divides with IEEE division (`div.rn.f32`), max pooling is `max.f32`, and ReLU is the
//! kernel's compare-and-select; so their outputs are compared bit-exactly. Softmax and the
//! recurrent cells call `expf`/`tanhf`, which NVRTC builds on `ex2.approx.ftz.f32` (and
//! `rcp.approx.ftz.f32` in `tanhf`); their references evaluate those functions in f64, round
//! once, and compare within a tolerance derived from the CUDA Programming Guide's error bounds
//! (`expf` and `tanhf`: 2 ulp; `rcp.rn` and the f32 arithmetic round correctly) — see
//! [`softmax_tolerance`] and [`cell_tolerance`].

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::Session;
use runtime::{Arg, DeviceBuffer, Kernel};

/// The module every dnn sample loads.
pub const MODULE: &str = "dnn/layers/layers.ptx";
/// Convolution and pooling blocks are TILE × TILE outputs of one plane (`TILE` in layers.cu).
pub const TILE: u32 = 16;
/// Threads per block of the one-dimensional kernels (pointwise, avgpool, fc, the cells).
pub const THREADS: u32 = 256;
/// Threads of one softmax block (`SOFTMAX_THREADS` in layers.cu).
pub const SOFTMAX_THREADS: usize = 128;
/// The unit roundoff of f32, 2^-24 (half an ulp of 1): the unit of the tolerances.
pub const UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;

/// An NCHW activation shape: batch, channels, rows, columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
}

impl Shape {
    pub fn new(n: usize, c: usize, h: usize, w: usize) -> Shape {
        Shape { n, c, h, w }
    }

    /// Elements in the tensor.
    pub fn elements(&self) -> usize {
        self.n * self.c * self.h * self.w
    }

    /// Elements per image (what a fully connected layer sees as its input vector).
    pub fn per_image(&self) -> usize {
        self.c * self.h * self.w
    }

    /// Elements per plane.
    pub fn plane(&self) -> usize {
        self.h * self.w
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}×{}×{}×{}", self.n, self.c, self.h, self.w)
    }
}

/// Output size of a convolution (floor mode): `(size + 2·pad − r) / stride + 1`.
pub fn conv_out(size: usize, r: usize, stride: usize, pad: usize) -> usize {
    (size + 2 * pad - r) / stride + 1
}

/// Output size of a pooling layer in Caffe's ceil mode, windows clipped to the input:
/// `ceil((size − r) / stride) + 1`, and 1 when the window covers the whole input.
pub fn pool_out(size: usize, r: usize, stride: usize) -> usize {
    if size <= r {
        1
    } else {
        (size - r).div_ceil(stride) + 1
    }
}

/// `n` values uniform in [−a, a).
pub fn uniform(rng: &mut Rng, n: usize, a: f32) -> Vec<f32> {
    (0..n).map(|_| rng.f32_in(-a, a)).collect()
}

/// Seeded weights for a layer with `fan_in` inputs per output: uniform in ±√(6 / fan_in) (He
/// initialisation, which keeps the scale of ReLU activations from layer to layer, so logits
/// stay of order one), and biases uniform in ±0.05.
pub fn he_weights(
    rng: &mut Rng,
    count: usize,
    fan_in: usize,
    biases: usize,
) -> (Vec<f32>, Vec<f32>) {
    let a = (6.0 / fan_in as f64).sqrt() as f32;
    (uniform(rng, count, a), uniform(rng, biases, 0.05))
}

/// The kernels' fused ReLU: `relu && !(v > 0) ? 0 : v`.
fn activate(v: f32, relu: bool) -> f32 {
    if relu && v <= 0.0 { 0.0 } else { v }
}

/// The kernels of layers.cu, loaded once per run.
pub struct Kernels {
    conv2d: Kernel,
    maxpool: Kernel,
    depthwise: Kernel,
    pointwise: Kernel,
    avgpool: Kernel,
    fc: Kernel,
    softmax: Kernel,
    lstm_cell: Kernel,
    gru_cell: Kernel,
}

/// A convolution's hyper-parameters: `k` filters of `r` × `r` at `stride` with zero padding
/// `pad`, input channels split into `groups`, ReLU fused when `relu`.
#[derive(Clone, Copy, Debug)]
pub struct Conv {
    pub k: usize,
    pub r: usize,
    pub stride: usize,
    pub pad: usize,
    pub groups: usize,
    pub relu: bool,
}

impl Conv {
    /// Output shape for input `s`.
    pub fn output(&self, s: Shape) -> Shape {
        Shape::new(
            s.n,
            self.k,
            conv_out(s.h, self.r, self.stride, self.pad),
            conv_out(s.w, self.r, self.stride, self.pad),
        )
    }

    /// Weights per filter (its fan-in).
    pub fn fan_in(&self, s: Shape) -> usize {
        s.c / self.groups * self.r * self.r
    }
}

/// The grid of a TILE × TILE-block kernel over `planes` output planes of `out`.
fn tiled_grid(out: Shape, planes: usize) -> (u32, u32, u32) {
    (
        (out.w as u32).div_ceil(TILE),
        (out.h as u32).div_ceil(TILE),
        planes as u32,
    )
}

fn flag(relu: bool) -> Arg {
    Arg::I32(i32::from(relu))
}

fn dim(v: usize) -> Arg {
    Arg::I32(v as i32)
}

impl Kernels {
    pub fn load(session: &mut Session) -> runtime::Result<Kernels> {
        let m = session.load(MODULE)?;
        Ok(Kernels {
            conv2d: m.kernel("conv2d")?,
            maxpool: m.kernel("maxpool")?,
            depthwise: m.kernel("depthwise_conv3x3")?,
            pointwise: m.kernel("pointwise_conv")?,
            avgpool: m.kernel("avgpool_global")?,
            fc: m.kernel("fc")?,
            softmax: m.kernel("softmax")?,
            lstm_cell: m.kernel("lstm_cell")?,
            gru_cell: m.kernel("gru_cell")?,
        })
    }

    /// `conv2d` of input `x` (shape `s`) into `y`.
    #[allow(clippy::too_many_arguments)]
    pub fn conv2d(
        &self,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        s: Shape,
        conv: &Conv,
        weight: &DeviceBuffer<f32>,
        bias: &DeviceBuffer<f32>,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let out = conv.output(s);
        let args = [
            x.into(),
            weight.into(),
            bias.into(),
            y.into(),
            dim(s.c),
            dim(s.h),
            dim(s.w),
            dim(conv.k),
            dim(conv.r),
            dim(conv.stride),
            dim(conv.pad),
            dim(conv.groups),
            dim(out.h),
            dim(out.w),
            flag(conv.relu),
        ];
        let grid = tiled_grid(out, out.n * out.c);
        session.launch(&self.conv2d, grid, (TILE, TILE), 0, &args)?;
        Ok(())
    }

    /// `maxpool` (window `r`, `stride`) of `x` (shape `s`) into `y`.
    pub fn maxpool(
        &self,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        s: Shape,
        r: usize,
        stride: usize,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let (oh, ow) = (pool_out(s.h, r, stride), pool_out(s.w, r, stride));
        let out = Shape::new(s.n, s.c, oh, ow);
        let args = [
            x.into(),
            y.into(),
            dim(s.h),
            dim(s.w),
            dim(r),
            dim(stride),
            dim(oh),
            dim(ow),
        ];
        let grid = tiled_grid(out, s.n * s.c);
        session.launch(&self.maxpool, grid, (TILE, TILE), 0, &args)?;
        Ok(())
    }

    /// `depthwise_conv3x3` (padding 1) of `x` (shape `s`) into `y`.
    #[allow(clippy::too_many_arguments)]
    pub fn depthwise(
        &self,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        s: Shape,
        stride: usize,
        relu: bool,
        weight: &DeviceBuffer<f32>,
        bias: &DeviceBuffer<f32>,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let (oh, ow) = (conv_out(s.h, 3, stride, 1), conv_out(s.w, 3, stride, 1));
        let out = Shape::new(s.n, s.c, oh, ow);
        let args = [
            x.into(),
            weight.into(),
            bias.into(),
            y.into(),
            dim(s.c),
            dim(s.h),
            dim(s.w),
            dim(stride),
            dim(oh),
            dim(ow),
            flag(relu),
        ];
        let grid = tiled_grid(out, s.n * s.c);
        session.launch(&self.depthwise, grid, (TILE, TILE), 0, &args)?;
        Ok(())
    }

    /// `pointwise_conv` to `k` channels of `x` (shape `s`) into `y`.
    #[allow(clippy::too_many_arguments)]
    pub fn pointwise(
        &self,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        s: Shape,
        k: usize,
        relu: bool,
        weight: &DeviceBuffer<f32>,
        bias: &DeviceBuffer<f32>,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let args = [
            x.into(),
            weight.into(),
            bias.into(),
            y.into(),
            dim(s.c),
            dim(s.plane()),
            dim(k),
            flag(relu),
        ];
        let grid = ((s.plane() as u32).div_ceil(THREADS), k as u32, s.n as u32);
        session.launch(&self.pointwise, grid, THREADS, 0, &args)?;
        Ok(())
    }

    /// `avgpool_global` of `x` (shape `s`) into `y` (one value per plane).
    pub fn avgpool(
        &self,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        s: Shape,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let planes = s.n * s.c;
        let args = [x.into(), y.into(), dim(planes), dim(s.plane())];
        let grid = (planes as u32).div_ceil(THREADS);
        session.launch(&self.avgpool, grid, THREADS, 0, &args)?;
        Ok(())
    }

    /// `fc`: `rows` input vectors of `inputs` at `x` (a device address, so callers can pass a
    /// slice of a buffer) to `outputs` each at `y`, weights transposed (`[inputs][outputs]`).
    #[allow(clippy::too_many_arguments)]
    pub fn fc(
        &self,
        session: &mut Session,
        x: Arg,
        rows: usize,
        inputs: usize,
        outputs: usize,
        relu: bool,
        weight_t: &DeviceBuffer<f32>,
        bias: &DeviceBuffer<f32>,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let args = [
            x,
            weight_t.into(),
            bias.into(),
            y.into(),
            dim(inputs),
            dim(outputs),
            flag(relu),
        ];
        let grid = ((outputs as u32).div_ceil(THREADS), rows as u32);
        session.launch(&self.fc, grid, THREADS, 0, &args)?;
        Ok(())
    }

    /// `softmax` over `rows` rows of `classes` from `x` into `y`.
    pub fn softmax(
        &self,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        rows: usize,
        classes: usize,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        let args = [x.into(), y.into(), dim(classes)];
        session.launch(&self.softmax, rows as u32, SOFTMAX_THREADS as u32, 0, &args)?;
        Ok(())
    }

    /// One recurrent step: `lstm_cell` (with `c`) or `gru_cell` (without), `gx` a device
    /// address into the precomputed input projections.
    #[allow(clippy::too_many_arguments)]
    pub fn cell(
        &self,
        session: &mut Session,
        gx: Arg,
        gh: &DeviceBuffer<f32>,
        c: Option<&DeviceBuffer<f32>>,
        h: &DeviceBuffer<f32>,
        hidden: usize,
        batch: usize,
    ) -> runtime::Result<()> {
        let grid = ((batch * hidden) as u32).div_ceil(THREADS);
        let (kernel, mut args) = match c {
            Some(c) => (&self.lstm_cell, vec![gx, gh.into(), c.into()]),
            None => (&self.gru_cell, vec![gx, gh.into()]),
        };
        args.extend([h.into(), dim(hidden), dim(batch)]);
        session.launch(kernel, grid, THREADS, 0, &args)?;
        Ok(())
    }
}

/// Reference of `conv2d`: input `x` of shape `s`, weights `[k][c/groups][r][r]`.
pub fn conv2d_ref(x: &[f32], s: Shape, conv: &Conv, weight: &[f32], bias: &[f32]) -> Vec<f32> {
    let out = conv.output(s);
    let (cpg, kpg, r) = (s.c / conv.groups, conv.k / conv.groups, conv.r);
    let mut y = Vec::with_capacity(out.elements());
    for n in 0..s.n {
        for k in 0..conv.k {
            let c0 = k / kpg * cpg;
            let w = &weight[k * cpg * r * r..][..cpg * r * r];
            for oy in 0..out.h {
                for ox in 0..out.w {
                    let mut sum = bias[k];
                    for c in 0..cpg {
                        let plane = &x[(n * s.c + c0 + c) * s.plane()..][..s.plane()];
                        for ky in 0..r {
                            let iy = (oy * conv.stride + ky).wrapping_sub(conv.pad);
                            if iy >= s.h {
                                continue; // above (wrapped) or below the image
                            }
                            for kx in 0..r {
                                let ix = (ox * conv.stride + kx).wrapping_sub(conv.pad);
                                if ix >= s.w {
                                    continue;
                                }
                                sum = plane[iy * s.w + ix].mul_add(w[(c * r + ky) * r + kx], sum);
                            }
                        }
                    }
                    y.push(activate(sum, conv.relu));
                }
            }
        }
    }
    y
}

/// Reference of `maxpool`: windows of `r` at `stride`, clipped to the input.
pub fn maxpool_ref(x: &[f32], s: Shape, r: usize, stride: usize) -> Vec<f32> {
    let (oh, ow) = (pool_out(s.h, r, stride), pool_out(s.w, r, stride));
    let mut y = Vec::with_capacity(s.n * s.c * oh * ow);
    for plane in x.chunks_exact(s.plane()) {
        for oy in 0..oh {
            for ox in 0..ow {
                let (y0, x0) = (oy * stride, ox * stride);
                let mut m = plane[y0 * s.w + x0];
                for yy in y0..(y0 + r).min(s.h) {
                    for xx in x0..(x0 + r).min(s.w) {
                        m = m.max(plane[yy * s.w + xx]);
                    }
                }
                y.push(m);
            }
        }
    }
    y
}

/// Reference of `depthwise_conv3x3` (padding 1): weights `[c][3][3]`.
pub fn depthwise_ref(
    x: &[f32],
    s: Shape,
    stride: usize,
    relu: bool,
    weight: &[f32],
    bias: &[f32],
) -> Vec<f32> {
    let conv = Conv {
        k: s.c,
        r: 3,
        stride,
        pad: 1,
        groups: s.c,
        relu,
    };
    // A depthwise convolution is a grouped one with a group per channel; the tap order (row,
    // then column, out-of-image taps skipped) is the kernel's.
    conv2d_ref(x, s, &conv, weight, bias)
}

/// Reference of `pointwise_conv`: weights `[k][c]`.
pub fn pointwise_ref(
    x: &[f32],
    s: Shape,
    k: usize,
    relu: bool,
    weight: &[f32],
    bias: &[f32],
) -> Vec<f32> {
    let hw = s.plane();
    let mut y = Vec::with_capacity(s.n * k * hw);
    for n in 0..s.n {
        let image = &x[n * s.per_image()..][..s.per_image()];
        for kk in 0..k {
            let w = &weight[kk * s.c..][..s.c];
            for p in 0..hw {
                let mut sum = bias[kk];
                for (c, wc) in w.iter().enumerate() {
                    sum = image[c * hw + p].mul_add(*wc, sum);
                }
                y.push(activate(sum, relu));
            }
        }
    }
    y
}

/// Reference of `avgpool_global`: each plane summed in order, divided by its size.
pub fn avgpool_ref(x: &[f32], s: Shape) -> Vec<f32> {
    x.chunks_exact(s.plane())
        .map(|plane| plane.iter().fold(0.0f32, |acc, v| acc + v) / s.plane() as f32)
        .collect()
}

/// Reference of `fc`: `x` holds rows of `inputs`, weights are `[inputs][outputs]`.
pub fn fc_ref(
    x: &[f32],
    inputs: usize,
    outputs: usize,
    relu: bool,
    weight_t: &[f32],
    bias: &[f32],
) -> Vec<f32> {
    let mut y = Vec::with_capacity(x.len() / inputs * outputs);
    for row in x.chunks_exact(inputs) {
        let mut sums = bias[..outputs].to_vec();
        for (xi, w) in row.iter().zip(weight_t.chunks_exact(outputs)) {
            for (sum, wo) in sums.iter_mut().zip(w) {
                *sum = xi.mul_add(*wo, *sum);
            }
        }
        y.extend(sums.into_iter().map(|v| activate(v, relu)));
    }
    y
}

/// `expf` and `tanhf` as the references evaluate them: in f64, rounded once to f32.
pub fn expf(x: f32) -> f32 {
    f64::from(x).exp() as f32
}

pub fn tanhf(x: f32) -> f32 {
    f64::from(x).tanh() as f32
}

/// `sigmoid` as layers.cu writes it, `1 / (1 + expf(-v))` (NVRTC: `rcp.rn.f32`).
pub fn sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + expf(-v))
}

/// Reference of `softmax` over rows of `classes`, with the kernel's summation order: each of
/// the SOFTMAX_THREADS threads sums its strided share of the exponentials, then a tree adds
/// the shares (stride 64, 32, ..., 1).
pub fn softmax_ref(x: &[f32], classes: usize) -> Vec<f32> {
    let mut y = Vec::with_capacity(x.len());
    for row in x.chunks_exact(classes) {
        let m = row.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
        let e: Vec<f32> = row.iter().map(|v| expf(v - m)).collect();
        let mut part = vec![0.0f32; SOFTMAX_THREADS];
        for (i, ei) in e.iter().enumerate() {
            part[i % SOFTMAX_THREADS] += ei;
        }
        let mut s = SOFTMAX_THREADS / 2;
        while s > 0 {
            for t in 0..s {
                part[t] += part[t + s];
            }
            s /= 2;
        }
        y.extend(e.iter().map(|ei| ei / part[0]));
    }
    y
}

/// The relative tolerance of softmax, in units u = 2^-24 (first order; an ulp of x is at most
/// 2u·|x|). Against the exact softmax of the same logits, the device's exponentials are within
/// 2 ulp (`expf`'s bound: 4u relative), the reference's within 0.5 ulp (u); with A additions on
/// one thread's path of the sum (its strided share, then the log2(SOFTMAX_THREADS) tree steps),
/// each rounding by at most u relative (the terms are positive), the device's sum is within
/// (4 + A)u and the reference's within (1 + A)u; the quotient adds a rounding to each. So the
/// two differ by at most (4 + 4 + A + 1) + (1 + 1 + A + 1) = 12 + 2A units: 28 for 10 classes,
/// 42 for 1000.
pub fn softmax_tolerance(classes: usize) -> f64 {
    let additions = classes.div_ceil(SOFTMAX_THREADS) + SOFTMAX_THREADS.trailing_zeros() as usize;
    (12 + 2 * additions) as f64 * UNIT_ROUNDOFF
}

/// The absolute tolerance of a recurrent cell's new state, in units u = 2^-24 (first order,
/// both results against the exact-function computation). A sigmoid `1 / (1 + expf(−v))` is
/// within 6u relative on the device (`expf` 4u, the add and `rcp.rn` a rounding each) and 3u
/// in the reference; a `tanhf` within 4u (2 ulp) and u: so they differ by 9u and 5u. LSTM:
/// `c = fma(i, g, f·c)` differs by at most 14u·|i g| + 11u·|f c| + 2u·|c_new| ≤ 16u(1 + |c|)
/// and `h = o·tanh(c)` by 16u·|h| plus the difference of c, ≤ 32u(1 + |c|), with `scale` the
/// largest |c| of the previous step. GRU: r and z differ by 9u, `n = tanh(fma(r, gh_n, gx_n))`
/// by 6u + 9u·|gh_n|, `h = fma(1 − z, n, z·h)` (|h| < 1) by at most 30u + 9u·|gh_n|, with
/// `scale` the largest |gh_n|. Both within 32 · (1 + scale) units.
pub fn cell_tolerance(scale: f32) -> f64 {
    32.0 * (1.0 + f64::from(scale.abs())) * UNIT_ROUNDOFF
}

/// A per-layer comparison, labelled so that a mismatch names its layer.
pub fn labelled(layer: &str, mut v: Validation) -> Validation {
    if let Some((_, got, _)) = v.first_mismatch.as_mut() {
        *got = format!("{got} (layer {layer})");
    }
    v
}

/// Several comparisons as one: passes only if each does.
pub fn combine(parts: impl IntoIterator<Item = Validation>) -> Validation {
    let mut all = Validation {
        checked: 0,
        mismatches: 0,
        first_mismatch: None,
        max_abs_diff: 0.0,
    };
    for v in parts {
        all.checked += v.checked;
        all.mismatches += v.mismatches;
        all.max_abs_diff = all.max_abs_diff.max(v.max_abs_diff);
        if all.first_mismatch.is_none() {
            all.first_mismatch = v.first_mismatch;
        }
    }
    all
}
