//! MobileNet (Howard et al. 2017, v1, one of Tango's networks), its first six
//! depthwise-separable blocks: conv 3 × 3 stride 2 (32) + ReLU, then six blocks of depthwise
//! 3 × 3 + ReLU and pointwise 1 × 1 + ReLU (to 64, 128, 128, 256, 256, 512 channels, the
//! depthwise convolutions of blocks 2, 4 and 6 at stride 2), global average pooling, a fully
//! connected classifier (1000) and softmax. The remaining seven blocks of the full network
//! (five at 512 channels, two at 1024) are left out to keep the default size under ~3 G thread
//! instructions; batch normalisation is folded into the biases (inference), as is usual.
//!
//! Launch sequence: conv2d, then depthwise_conv3x3 and pointwise_conv per block,
//! avgpool_global, fc, softmax (samples/dnn/layers). Seeded He-uniform weights, image uniform
//! in [0, 1). Validation is layer by layer on the device's input of each layer: bit-exact
//! except softmax, within `layers::softmax_tolerance` (42 units of 2^-24 for 1000 classes)
//! because `expf` uses `ex2.approx`.

use super::cnn::{Layer, Network, conv};
use super::layers::Shape;
use crate::sample::{Outcome, Sample, Size};
use runtime::Device;

/// The network at `size`: small is a 1 × 3 × 12 × 12 image through narrow layers (4 to 8
/// channels, two blocks, one at each stride) to the full 1000 classes (so that `fc` spans
/// several blocks and every softmax thread loops over several classes, unrolled part
/// included); default is one 224 × 224 image (MobileNet's input); large is a batch of 4.
pub fn network(size: Size) -> Network {
    let (n, hw, first, blocks, classes): (usize, usize, usize, &[(usize, usize)], usize) =
        match size {
            Size::Small => (1, 12, 4, &[(1, 8), (2, 8)], 1000),
            Size::Default | Size::Large => (
                if size == Size::Large { 4 } else { 1 },
                224,
                32,
                &[(1, 64), (2, 128), (1, 128), (2, 256), (1, 256), (2, 512)],
                1000,
            ),
        };
    let mut layers = vec![("conv1", conv(first, 3, 2, 1, 1))];
    for (i, &(stride, k)) in blocks.iter().enumerate() {
        // Names are static: the blocks are at most six.
        const DW: [&str; 6] = ["dw1", "dw2", "dw3", "dw4", "dw5", "dw6"];
        const PW: [&str; 6] = ["pw1", "pw2", "pw3", "pw4", "pw5", "pw6"];
        layers.push((DW[i], Layer::Depthwise { stride, relu: true }));
        layers.push((PW[i], Layer::Pointwise { k, relu: true }));
    }
    layers.push(("avgpool", Layer::AvgPool));
    layers.push((
        "fc",
        Layer::Fc {
            out: classes,
            relu: false,
        },
    ));
    layers.push(("softmax", Layer::Softmax));
    Network {
        input: Shape::new(n, 3, hw, hw),
        layers,
    }
}

/// MobileNet as a registered sample.
pub struct MobileNet;

impl Sample for MobileNet {
    fn name(&self) -> &'static str {
        "dnn/mobilenet"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "conv2d",
            "depthwise_conv3x3",
            "pointwise_conv",
            "avgpool_global",
            "fc",
            "softmax",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        network(size).describe()
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        network(size).run(dev, 0xD77_30B1)
    }
}
