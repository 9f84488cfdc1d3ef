//! AlexNet (Krizhevsky et al. 2012, Caffe's `bvlc_alexnet`, one of Tango's networks): conv
//! 11 × 11 stride 4 (96) → max-pool 3/2 → conv 5 × 5 (256, two groups) → max-pool 3/2 →
//! conv 3 × 3 (384) → conv 3 × 3 (384, two groups) → conv 3 × 3 (256, two groups) → max-pool
//! 3/2 → fully connected 4096 → 4096 → 1000 → softmax, ReLU after every convolution and the
//! first two fully connected layers. The channel groups are the original two-GPU split; the
//! local response normalisation layers and dropout (identity at inference) are left out.
//!
//! The full network on one 227 × 227 image is about 720 M multiply-adds (about 8 G thread
//! instructions with these direct-convolution kernels), beyond the ~3 G this suite aims at for
//! `default`, so the default input is scaled down to 131 × 131 (convolution maps 31, 15, 7
//! instead of 55, 27, 13; fc6 sees 2304 inputs instead of 9216: 230 M multiply-adds), every
//! layer's width unchanged; the full 227 × 227 network is the `large` size.
//!
//! Launch sequence: conv2d, maxpool, conv2d, maxpool, conv2d × 3, maxpool, fc × 3, softmax
//! (samples/dnn/layers). Seeded He-uniform weights, image uniform in [0, 1). Validation is
//! layer by layer, on the device's input of each layer: bit-exact for every layer but softmax,
//! which is within `layers::softmax_tolerance` (42 units of 2^-24 for 1000 classes) because
//! `expf` uses `ex2.approx`.

use super::cnn::{Layer, Network, conv};
use super::layers::Shape;
use crate::sample::{Outcome, Sample, Size};
use runtime::Device;

/// The network at `size`: small keeps every layer and kernel on a 1 × 3 × 23 × 23 image with
/// narrow layers (4, 8, 8, 8, 8 filters; 16, 16, 10 outputs); default is AlexNet on one
/// 131 × 131 image; large the full network on one 227 × 227 image.
pub fn network(size: Size) -> Network {
    let (hw, widths, fcs) = match size {
        Size::Small => (23, [4, 8, 8, 8, 8], [16, 16, 10]),
        Size::Default => (131, [96, 256, 384, 384, 256], [4096, 4096, 1000]),
        Size::Large => (227, [96, 256, 384, 384, 256], [4096, 4096, 1000]),
    };
    let [c1, c2, c3, c4, c5] = widths;
    let pool = Layer::MaxPool { r: 3, stride: 2 };
    Network {
        input: Shape::new(1, 3, hw, hw),
        layers: vec![
            ("conv1", conv(c1, 11, 4, 0, 1)),
            ("pool1", pool),
            ("conv2", conv(c2, 5, 1, 2, 2)),
            ("pool2", pool),
            ("conv3", conv(c3, 3, 1, 1, 1)),
            ("conv4", conv(c4, 3, 1, 1, 2)),
            ("conv5", conv(c5, 3, 1, 1, 2)),
            ("pool5", pool),
            (
                "fc6",
                Layer::Fc {
                    out: fcs[0],
                    relu: true,
                },
            ),
            (
                "fc7",
                Layer::Fc {
                    out: fcs[1],
                    relu: true,
                },
            ),
            (
                "fc8",
                Layer::Fc {
                    out: fcs[2],
                    relu: false,
                },
            ),
            ("softmax", Layer::Softmax),
        ],
    }
}

/// AlexNet as a registered sample.
pub struct AlexNet;

impl Sample for AlexNet {
    fn name(&self) -> &'static str {
        "dnn/alexnet"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["conv2d", "maxpool", "fc", "softmax"]
    }

    fn size_description(&self, size: Size) -> String {
        network(size).describe()
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        network(size).run(dev, 0xD77_A1E7)
    }
}
