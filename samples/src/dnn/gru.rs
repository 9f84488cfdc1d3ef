//! A GRU layer (Cho et al. 2014; Tango's GRU network is one such recurrent layer over a
//! sequence), in the cuDNN / PyTorch formulation: per time step, with `gx = W x_t + b_x` and
//! `gh = U h_{t−1} + b_h`, `r = σ(gx_r + gh_r)`, `z = σ(gx_z + gh_z)`,
//! `n = tanh(gx_n + r gh_n)` and `h = (1 − z) n + z h`.
//!
//! Launch sequence: `fc` once for the input projections of all steps, then `fc` (recurrent
//! projection) and `gru_cell` per step (samples/dnn/layers; see `rnn`). The projections are
//! compared bit-exactly; h, which goes through `expf`/`tanhf` (`ex2.approx`, `rcp.approx`),
//! within `layers::cell_tolerance`: 32 units of 2^-24 times (1 + the largest |gh_n| of the
//! step), absolute — a first-order bound on how the 2-ulp errors of the gate functions reach h.
//!
//! Tango's layer dimensions are not reproduced: default is one sequence of 16 steps with 256
//! inputs and 256 hidden units, as for `dnn/lstm`.

use super::rnn::{self, Cell, Dims};
use crate::sample::{Outcome, Sample, Size};
use runtime::Device;

/// The GRU layer as a registered sample.
pub struct Gru;

impl Sample for Gru {
    fn name(&self) -> &'static str {
        "dnn/gru"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["fc", "gru_cell"]
    }

    fn size_description(&self, size: Size) -> String {
        Dims::of(size).describe(Cell::Gru)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        rnn::run(dev, Cell::Gru, Dims::of(size), 0xD77_6E0)
    }
}
