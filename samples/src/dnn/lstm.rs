//! An LSTM layer (Tango's LSTM network is one such recurrent layer over a sequence): per time
//! step, gates i, f, g, o = σ, σ, tanh, σ of `W x_t + b_x + U h_{t−1} + b_h`, then
//! `c = f c + i g` and `h = o tanh(c)`.
//!
//! Launch sequence: `fc` once for the input projections of all steps, then `fc` (recurrent
//! projection) and `lstm_cell` per step (samples/dnn/layers; see `rnn` for the organisation).
//! The projections are compared bit-exactly; c and h, which go through `expf`/`tanhf`
//! (`ex2.approx`, `rcp.approx`), within `layers::cell_tolerance`: 32 units of 2^-24 times
//! (1 + the largest |c| of the previous step), absolute — a first-order bound on how the 2-ulp
//! errors of the gate functions reach c and h.
//!
//! Tango's layer dimensions are not reproduced: default is one sequence of 16 steps with 256
//! inputs and 256 hidden units, a common benchmark LSTM shape (DeepBench's smallest).

use super::rnn::{self, Cell, Dims};
use crate::sample::{Outcome, Sample, Size};
use runtime::Device;

/// The LSTM layer as a registered sample.
pub struct Lstm;

impl Sample for Lstm {
    fn name(&self) -> &'static str {
        "dnn/lstm"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["fc", "lstm_cell"]
    }

    fn size_description(&self, size: Size) -> String {
        Dims::of(size).describe(Cell::Lstm)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        rnn::run(dev, Cell::Lstm, Dims::of(size), 0xD77_157A)
    }
}
