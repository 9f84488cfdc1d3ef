//! DNN inference layers (the Tango suite's networks: CifarNet, AlexNet, MobileNet, LSTM, GRU),
//! written for warpsim: one kernel per layer type, deterministic weights and inputs, each layer
//! validated against a CPU reference in Rust. CUDA sources under `samples/dnn/<name>/`.

use crate::sample::Sample;

/// The DNN samples, in listing order.
pub fn samples() -> Vec<&'static dyn Sample> {
    vec![]
}
