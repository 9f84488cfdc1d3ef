//! A convolutional network as a list of layers, run on the device one kernel launch per layer
//! and validated layer by layer: each layer's output is copied back and compared with the
//! layer's CPU reference applied to the *device's* input of that layer, so a difference is
//! reported at the layer that made it rather than compounded downstream. CifarNet, AlexNet and
//! MobileNet are each such a list.

use super::layers::{self, Conv, Kernels, Shape};
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Session};
use runtime::{Device, DeviceBuffer};

/// One layer of a network.
#[derive(Clone, Copy, Debug)]
pub enum Layer {
    /// `conv2d`.
    Conv(Conv),
    /// `maxpool` with an `r` × `r` window at `stride`.
    MaxPool { r: usize, stride: usize },
    /// `depthwise_conv3x3` at `stride` (padding 1).
    Depthwise { stride: usize, relu: bool },
    /// `pointwise_conv` to `k` channels.
    Pointwise { k: usize, relu: bool },
    /// `avgpool_global`: each plane to its mean.
    AvgPool,
    /// `fc` with `out` outputs per image.
    Fc { out: usize, relu: bool },
    /// `softmax` over each image's values.
    Softmax,
}

/// A convolution layer with its ReLU.
pub fn conv(k: usize, r: usize, stride: usize, pad: usize, groups: usize) -> Layer {
    Layer::Conv(Conv {
        k,
        r,
        stride,
        pad,
        groups,
        relu: true,
    })
}

impl Layer {
    /// The output shape for input shape `s`.
    pub fn output(&self, s: Shape) -> Shape {
        match *self {
            Layer::Conv(c) => c.output(s),
            Layer::MaxPool { r, stride } => Shape::new(
                s.n,
                s.c,
                layers::pool_out(s.h, r, stride),
                layers::pool_out(s.w, r, stride),
            ),
            Layer::Depthwise { stride, .. } => Shape::new(
                s.n,
                s.c,
                layers::conv_out(s.h, 3, stride, 1),
                layers::conv_out(s.w, 3, stride, 1),
            ),
            Layer::Pointwise { k, .. } => Shape::new(s.n, k, s.h, s.w),
            Layer::AvgPool => Shape::new(s.n, s.c, 1, 1),
            Layer::Fc { out, .. } => Shape::new(s.n, out, 1, 1),
            Layer::Softmax => s,
        }
    }

    /// Multiply-adds for input shape `s` (what sizes are chosen by).
    pub fn macs(&self, s: Shape) -> usize {
        let out = self.output(s);
        match *self {
            Layer::Conv(c) => out.elements() * c.fan_in(s),
            Layer::Depthwise { .. } => out.elements() * 9,
            Layer::Pointwise { .. } => out.elements() * s.c,
            Layer::Fc { .. } => out.elements() * s.per_image(),
            _ => 0,
        }
    }

    /// Seeded (weights, biases): none for the parameter-free layers.
    fn parameters(&self, s: Shape, rng: &mut Rng) -> (Vec<f32>, Vec<f32>) {
        match *self {
            Layer::Conv(c) => {
                let fan_in = c.fan_in(s);
                layers::he_weights(rng, c.k * fan_in, fan_in, c.k)
            }
            Layer::Depthwise { .. } => layers::he_weights(rng, s.c * 9, 9, s.c),
            Layer::Pointwise { k, .. } => layers::he_weights(rng, k * s.c, s.c, k),
            Layer::Fc { out, .. } => {
                let fan_in = s.per_image();
                layers::he_weights(rng, fan_in * out, fan_in, out)
            }
            _ => (Vec::new(), Vec::new()),
        }
    }

    /// The CPU reference of this layer on input `x` of shape `s`.
    fn reference(&self, x: &[f32], s: Shape, w: &[f32], b: &[f32]) -> Vec<f32> {
        match *self {
            Layer::Conv(c) => layers::conv2d_ref(x, s, &c, w, b),
            Layer::MaxPool { r, stride } => layers::maxpool_ref(x, s, r, stride),
            Layer::Depthwise { stride, relu } => layers::depthwise_ref(x, s, stride, relu, w, b),
            Layer::Pointwise { k, relu } => layers::pointwise_ref(x, s, k, relu, w, b),
            Layer::AvgPool => layers::avgpool_ref(x, s),
            Layer::Fc { out, relu } => layers::fc_ref(x, s.per_image(), out, relu, w, b),
            Layer::Softmax => layers::softmax_ref(x, s.per_image()),
        }
    }

    /// Compares the device's output with the reference: exactly, except softmax (see
    /// [`layers::softmax_tolerance`]).
    fn compare(&self, s: Shape, got: &[f32], expected: &[f32]) -> Validation {
        match self {
            Layer::Softmax => {
                let rel = layers::softmax_tolerance(s.per_image());
                Validation::close_f32(got, expected, rel, 0.0)
            }
            _ => Validation::exact_f32(got, expected),
        }
    }

    /// Launches this layer's kernel.
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        k: &Kernels,
        session: &mut Session,
        x: &DeviceBuffer<f32>,
        s: Shape,
        w: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        y: &DeviceBuffer<f32>,
    ) -> runtime::Result<()> {
        match *self {
            Layer::Conv(c) => k.conv2d(session, x, s, &c, w, b, y),
            Layer::MaxPool { r, stride } => k.maxpool(session, x, s, r, stride, y),
            Layer::Depthwise { stride, relu } => k.depthwise(session, x, s, stride, relu, w, b, y),
            Layer::Pointwise { k: out, relu } => k.pointwise(session, x, s, out, relu, w, b, y),
            Layer::AvgPool => k.avgpool(session, x, s, y),
            Layer::Fc { out, relu } => {
                k.fc(session, x.into(), s.n, s.per_image(), out, relu, w, b, y)
            }
            Layer::Softmax => k.softmax(session, x, s.n, s.per_image(), y),
        }
    }
}

/// `n` with a k/M/G suffix, three significant digits.
fn human(n: usize) -> String {
    let n = n as f64;
    match n {
        _ if n >= 1e9 => format!("{:.3} G", n / 1e9),
        _ if n >= 1e6 => format!("{:.3} M", n / 1e6),
        _ if n >= 1e3 => format!("{:.3} k", n / 1e3),
        _ => format!("{n}"),
    }
}

/// A network: its input shape and named layers.
pub struct Network {
    pub input: Shape,
    pub layers: Vec<(&'static str, Layer)>,
}

impl Network {
    /// The shape after every layer.
    pub fn output(&self) -> Shape {
        self.layers.iter().fold(self.input, |s, (_, l)| l.output(s))
    }

    /// Total multiply-adds.
    pub fn macs(&self) -> usize {
        let mut s = self.input;
        let mut total = 0;
        for (_, l) in &self.layers {
            total += l.macs(s);
            s = l.output(s);
        }
        total
    }

    /// A one-line description for `size_description`.
    pub fn describe(&self) -> String {
        let out = self.output();
        format!(
            "input {} (N×C×H×W), {} layers to {} outputs per image, {} multiply-adds",
            self.input,
            self.layers.len(),
            out.per_image(),
            human(self.macs())
        )
    }

    /// Runs the network on seeded weights and a seeded input in [0, 1), comparing every
    /// layer's output with its reference.
    pub fn run(&self, dev: &Device, seed: u64) -> runtime::Result<Outcome> {
        let mut session = Session::new(dev);
        let kernels = Kernels::load(&mut session)?;
        let mut rng = Rng::new(seed);
        let mut s = self.input;
        let mut host: Vec<f32> = (0..s.elements()).map(|_| rng.f32_in(0.0, 1.0)).collect();
        let mut x = dev.alloc_from(&host)?;
        let mut checks = Vec::with_capacity(self.layers.len());
        for (name, layer) in &self.layers {
            let (w, b) = layer.parameters(s, &mut rng);
            // Zero-length buffers are never read; allocate one element so every layer has
            // something to pass.
            let d_w = dev.alloc_from(if w.is_empty() { &[0.0] } else { &w })?;
            let d_b = dev.alloc_from(if b.is_empty() { &[0.0] } else { &b })?;
            let out = layer.output(s);
            let y = dev.alloc::<f32>(out.elements())?;
            layer.launch(&kernels, &mut session, &x, s, &d_w, &d_b, &y)?;
            let got = y.to_host()?;
            let expected = layer.reference(&host, s, &w, &b);
            checks.push(layers::labelled(name, layer.compare(s, &got, &expected)));
            (x, host, s) = (y, got, out);
        }
        Ok(session.finish(layers::combine(checks)))
    }
}
