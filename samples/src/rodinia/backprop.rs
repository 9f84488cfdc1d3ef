//! Rodinia backprop: one training step of an `in` → 16 → 1 fully connected network.
//!
//! As in Rodinia, the GPU computes the input layer's partial weighted sums
//! (`bpnn_layerforward_CUDA`, one 16 × 16 tile of weights per block, grid (1, in/16)), the host
//! finishes the forward pass, computes the output and hidden errors and adjusts the
//! hidden → output weights, uploads the hidden deltas and the original weights again, and the GPU
//! adjusts the input → hidden weights with momentum (`bpnn_adjust_weights_cuda`).
//!
//! Validation is bit-exact: the partial sums are a fixed tree of f32 additions over f32
//! products, and the weight update is the f64 arithmetic of the PTX (`mul.f64` by 0.3, then
//! `fma.rn.f64`, then `add.f64` and `cvt.rn.f32.f64`), mirrored here with `f64::mul_add`.

// The host code keeps Rodinia's 1-based indexed loops (unit 0 is the bias unit).
#![allow(clippy::needless_range_loop)]

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Hidden units (Rodinia fixes 16, the tile width).
const HID: usize = 16;
/// Output units.
const OUT: usize = 1;
/// Input units per block (tile height).
const HEIGHT: usize = 16;
const ETA: f64 = 0.3;
const MOMENTUM: f64 = 0.3;

/// The network's state before the training step (Rodinia's `BPNN`, weights flattened row-major).
#[derive(Clone)]
struct Net {
    n_in: usize,
    /// `in + 1` input activations; unit 0 is the bias unit.
    input_units: Vec<f32>,
    /// `(in + 1) × (HID + 1)` input → hidden weights.
    input_weights: Vec<f32>,
    /// `(in + 1) × (HID + 1)` previous weight changes (zero before the first step).
    input_prev_weights: Vec<f32>,
    /// `(HID + 1) × (OUT + 1)` hidden → output weights.
    hidden_weights: Vec<f32>,
    hidden_prev_weights: Vec<f32>,
    target: Vec<f32>,
}

/// Deterministic inputs: weights and activations uniform in [0, 1) as Rodinia's
/// `rand() / RAND_MAX`, target 0.1, previous weight changes zero.
fn inputs(n_in: usize) -> Net {
    let mut rng = Rng::new(0xBAC4_0001);
    let input_weights: Vec<f32> = (0..(n_in + 1) * (HID + 1))
        .map(|_| rng.f32_in(0.0, 1.0))
        .collect();
    let hidden_weights: Vec<f32> = (0..(HID + 1) * (OUT + 1))
        .map(|_| rng.f32_in(0.0, 1.0))
        .collect();
    let mut input_units = vec![1.0f32; n_in + 1];
    for u in &mut input_units[1..] {
        *u = rng.f32_in(0.0, 1.0);
    }
    Net {
        n_in,
        input_units,
        input_weights,
        input_prev_weights: vec![0.0; (n_in + 1) * (HID + 1)],
        hidden_weights,
        hidden_prev_weights: vec![0.0; (HID + 1) * (OUT + 1)],
        target: vec![0.1; OUT + 1],
    }
}

/// Rodinia's `squash`: `1.0 / (1.0 + exp(-x))` in double, rounded to float.
fn squash(x: f32) -> f32 {
    (1.0 / (1.0 + (-f64::from(x)).exp())) as f32
}

/// The host's work between the two launches (`bpnn_train_cuda` after the partial sums come
/// back): hidden activations, output layer, errors, hidden → output weight update. Returns the
/// hidden deltas (`HID + 1` values, index 0 unused) that the second kernel uploads.
fn host_between(net: &mut Net, partial_sum: &[f32]) -> Vec<f32> {
    let nb = net.n_in / HEIGHT;
    let mut hidden_units = [1.0f32; HID + 1];
    for j in 1..=HID {
        let mut sum = 0.0f32;
        for k in 0..nb {
            sum += partial_sum[k * HID + j - 1];
        }
        sum += net.input_weights[j];
        hidden_units[j] = squash(sum);
    }
    // bpnn_layerforward(hidden → output)
    hidden_units[0] = 1.0;
    let mut output_units = [0.0f32; OUT + 1];
    for j in 1..=OUT {
        let mut sum = 0.0f32;
        for (k, h) in hidden_units.iter().enumerate() {
            sum += net.hidden_weights[k * (OUT + 1) + j] * h;
        }
        output_units[j] = squash(sum);
    }
    // bpnn_output_error
    let mut output_delta = [0.0f32; OUT + 1];
    for j in 1..=OUT {
        let (o, t) = (output_units[j], net.target[j]);
        output_delta[j] = (f64::from(o) * (1.0 - f64::from(o)) * f64::from(t - o)) as f32;
    }
    // bpnn_hidden_error
    let mut hidden_delta = vec![0.0f32; HID + 1];
    for j in 1..=HID {
        let h = hidden_units[j];
        let mut sum = 0.0f32;
        for k in 1..=OUT {
            sum += output_delta[k] * net.hidden_weights[j * (OUT + 1) + k];
        }
        hidden_delta[j] = (f64::from(h) * (1.0 - f64::from(h)) * f64::from(sum)) as f32;
    }
    // bpnn_adjust_weights(hidden → output), on the host as in Rodinia
    for j in 1..=OUT {
        for (k, h) in hidden_units.iter().enumerate() {
            let i = k * (OUT + 1) + j;
            let new_dw = (ETA * f64::from(output_delta[j]) * f64::from(*h)
                + MOMENTUM * f64::from(net.hidden_prev_weights[i])) as f32;
            net.hidden_weights[i] += new_dw;
            net.hidden_prev_weights[i] = new_dw;
        }
    }
    hidden_delta
}

/// CPU reference of `bpnn_layerforward_CUDA`'s partial sums: per block and hidden unit, the 16
/// products reduced by the kernel's tree (strides 1, 2, 4, 8 between rows).
fn reference_partial_sums(net: &Net) -> Vec<f32> {
    let nb = net.n_in / HEIGHT;
    let mut out = vec![0.0f32; nb * HID];
    for by in 0..nb {
        for tx in 0..HID {
            let mut col: Vec<f32> = (0..HEIGHT)
                .map(|ty| {
                    let row = HEIGHT * by + ty + 1;
                    net.input_weights[row * (HID + 1) + tx + 1] * net.input_units[row]
                })
                .collect();
            let mut stride = 2;
            while stride <= HEIGHT {
                for ty in (0..HEIGHT).step_by(stride) {
                    col[ty] += col[ty + stride / 2];
                }
                stride *= 2;
            }
            out[by * HID + tx] = col[0];
        }
    }
    out
}

/// CPU reference of `bpnn_adjust_weights_cuda`: returns (weights, previous changes).
fn reference_adjust(net: &Net, delta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let mut w = net.input_weights.clone();
    let mut oldw = net.input_prev_weights.clone();
    // new_dw = fma(0.3 * delta, ly, 0.3 * oldw); w = (float)(new_dw + w)
    for row in 1..=net.n_in {
        let ly = f64::from(net.input_units[row]);
        for x in 1..=HID {
            let i = row * (HID + 1) + x;
            let dw = (ETA * f64::from(delta[x])).mul_add(ly, MOMENTUM * f64::from(oldw[i]));
            w[i] = (dw + f64::from(w[i])) as f32;
            oldw[i] = dw as f32;
        }
    }
    // The bias row: new_dw = fma(delta, 0.3, 0.3 * oldw)
    for x in 1..=HID {
        let dw = f64::from(delta[x]).mul_add(ETA, MOMENTUM * f64::from(oldw[x]));
        w[x] = (dw + f64::from(w[x])) as f32;
        oldw[x] = dw as f32;
    }
    (w, oldw)
}

/// Rodinia backprop as a registered sample.
pub struct Backprop;

impl Backprop {
    /// Input units (a multiple of 16): Rodinia's run script uses 65536. The grid is
    /// (1, in / 16), so `in` stays below 16 × 65536 (grid.y is limited to 65535).
    pub fn input_units(size: Size) -> usize {
        match size {
            Size::Small => 512,
            Size::Default => 65536,
            Size::Large => 1 << 19,
        }
    }
}

impl Sample for Backprop {
    fn name(&self) -> &'static str {
        "rodinia/backprop"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["bpnn_layerforward_CUDA", "bpnn_adjust_weights_cuda"]
    }

    fn size_description(&self, size: Size) -> String {
        let n = Backprop::input_units(size);
        format!(
            "{n} input units, {HID} hidden, {OUT} output ({} blocks)",
            n / HEIGHT
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n_in = Backprop::input_units(size);
        let net0 = inputs(n_in);
        let mut net = net0.clone();
        let nb = n_in / HEIGHT;
        let grid = (1, nb as u32);
        let block = (16, 16);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/backprop/backprop.ptx")?;
        let forward = module.kernel("bpnn_layerforward_CUDA")?;
        let adjust = module.kernel("bpnn_adjust_weights_cuda")?;

        let input_cuda = dev.alloc_from(&net.input_units)?;
        let output_hidden_cuda = dev.alloc::<f32>(HID + 1)?;
        let input_hidden_cuda = dev.alloc_from(&net.input_weights)?;
        let hidden_partial_sum = dev.alloc::<f32>(nb * HID)?;
        session.launch(
            &forward,
            grid,
            block,
            0,
            &[
                (&input_cuda).into(),
                (&output_hidden_cuda).into(),
                (&input_hidden_cuda).into(),
                (&hidden_partial_sum).into(),
                Arg::I32(n_in as i32),
                Arg::I32(HID as i32),
            ],
        )?;
        let partial_sum = hidden_partial_sum.to_host()?;
        let hidden_delta = host_between(&mut net, &partial_sum);

        let hidden_delta_cuda = dev.alloc_from(&hidden_delta)?;
        let input_prev_weights_cuda = dev.alloc_from(&net.input_prev_weights)?;
        input_hidden_cuda.copy_from_host(&net.input_weights)?;
        session.launch(
            &adjust,
            grid,
            block,
            0,
            &[
                (&hidden_delta_cuda).into(),
                Arg::I32(HID as i32),
                (&input_cuda).into(),
                Arg::I32(n_in as i32),
                (&input_hidden_cuda).into(),
                (&input_prev_weights_cuda).into(),
            ],
        )?;
        let weights = input_hidden_cuda.to_host()?;
        let prev_weights = input_prev_weights_cuda.to_host()?;

        // The reference runs the same host code on its own partial sums.
        let expected_partial = reference_partial_sums(&net0);
        let mut ref_net = net0.clone();
        let ref_delta = host_between(&mut ref_net, &expected_partial);
        let (expected_w, expected_oldw) = reference_adjust(&net0, &ref_delta);

        let got: Vec<f32> = [partial_sum, weights, prev_weights].concat();
        let expected: Vec<f32> = [expected_partial, expected_w, expected_oldw].concat();
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
