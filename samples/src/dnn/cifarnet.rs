//! CifarNet (Tango's CIFAR-10 network, after Caffe's `cifar10_quick`) on 32 × 32 × 3 images:
//! conv 5 × 5 (32 filters, padding 2) + ReLU → max-pool 3 × 3 stride 2 → conv 5 × 5 (32) + ReLU
//! → max-pool 3 × 3 stride 2 → fully connected (64) + ReLU → fully connected (10) → softmax.
//! Caffe's third convolution and its average pooling are left out (the layer sequence the
//! issue names); ReLU is fused into the layers it follows.
//!
//! Launch sequence: conv2d, maxpool, conv2d, maxpool, fc, fc, softmax (samples/dnn/layers). The
//! weights are seeded (He-uniform, so activations keep their scale), the image uniform in
//! [0, 1). Every layer is validated on its own against the CPU reference applied to the
//! device's input of that layer: convolutions, pooling and fully connected layers bit-exactly
//! (the references mirror the kernels' fma order), softmax within a tolerance derived from
//! `expf`'s 2-ulp bound (see `layers::softmax_tolerance`: 28 units of 2^-24 for 10 classes).

use super::cnn::{Layer, Network, conv};
use super::layers::Shape;
use crate::sample::{Outcome, Sample, Size};
use runtime::Device;

/// The network at `size`: small is a 1 × 3 × 8 × 8 image through 4 and 8 filters (every
/// kernel, padding on both sides, clipped pooling windows, a partial softmax block); default is
/// CifarNet on one 32 × 32 image; large is a batch of 16.
pub fn network(size: Size) -> Network {
    let (n, hw, c1, c2, fc1) = match size {
        Size::Small => (1, 8, 4, 8, 16),
        Size::Default => (1, 32, 32, 32, 64),
        Size::Large => (16, 32, 32, 32, 64),
    };
    Network {
        input: Shape::new(n, 3, hw, hw),
        layers: vec![
            ("conv1", conv(c1, 5, 1, 2, 1)),
            ("pool1", Layer::MaxPool { r: 3, stride: 2 }),
            ("conv2", conv(c2, 5, 1, 2, 1)),
            ("pool2", Layer::MaxPool { r: 3, stride: 2 }),
            (
                "fc1",
                Layer::Fc {
                    out: fc1,
                    relu: true,
                },
            ),
            (
                "fc2",
                Layer::Fc {
                    out: 10,
                    relu: false,
                },
            ),
            ("softmax", Layer::Softmax),
        ],
    }
}

/// CifarNet as a registered sample.
pub struct CifarNet;

impl Sample for CifarNet {
    fn name(&self) -> &'static str {
        "dnn/cifarnet"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["conv2d", "maxpool", "fc", "softmax"]
    }

    fn size_description(&self, size: Size) -> String {
        network(size).describe()
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        network(size).run(dev, 0xD77_C1FA)
    }
}
