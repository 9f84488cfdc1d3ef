//! DNN inference layers (the Tango suite's networks: CifarNet, AlexNet, MobileNet, LSTM, GRU),
//! written for warpsim: one kernel per layer type, all in one shared module
//! (`samples/dnn/layers/layers.cu`), deterministic weights and inputs, each layer validated
//! against a CPU reference in Rust on the device's input of that layer.

pub mod alexnet;
pub mod cifarnet;
pub mod cnn;
pub mod gru;
pub mod layers;
pub mod lstm;
pub mod mobilenet;
pub mod rnn;

use crate::sample::Sample;

/// The DNN samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![
        &cifarnet::CifarNet,
        &alexnet::AlexNet,
        &mobilenet::MobileNet,
        &lstm::Lstm,
        &gru::Gru,
    ]
}
