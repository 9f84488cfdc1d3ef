//! A recurrent layer (LSTM or GRU cell) over a sequence, as cuDNN and Tango's RNNs organise it:
//! one `fc` launch projects the inputs of every time step at once (`gx = W x_t + b_x`, rows
//! `steps × batch`), then each step launches `fc` for the recurrent projection
//! (`gh = U h_{t−1} + b_h`) and the cell kernel (`lstm_cell` / `gru_cell`), which applies the
//! gate nonlinearities and updates the state in place.
//!
//! Validation, step by step on the device's own inputs of each launch: the projections
//! bit-exactly (the references mirror `fc`'s fma order); the new state within
//! `layers::cell_tolerance`, because the sigmoids and tanhs use `expf`/`tanhf`, which NVRTC
//! builds on `ex2.approx.ftz.f32` (and `rcp.approx.ftz.f32` for tanh). The references mirror
//! the cells' f32 arithmetic (the adds, NVRTC's two contractions) and evaluate `exp`/`tanh`
//! in f64 rounded once, so what the tolerance covers is only the approximate functions.

use super::layers::{self, Kernels};
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Session, Size};
use runtime::{Arg, Device};

/// Which cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Gates i, f, g, o; state (h, c).
    Lstm,
    /// Gates r, z, n; state h.
    Gru,
}

impl Cell {
    /// Gate blocks per hidden unit in the projections.
    pub fn gates(self) -> usize {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
        }
    }
}

/// The dimensions of a run.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub batch: usize,
    pub input: usize,
    pub hidden: usize,
    pub steps: usize,
}

impl Dims {
    /// Both cells' sizes. Small: batch 1, 16 inputs, 24 hidden units (a partial block of the
    /// cell), 3 steps; default: batch 1, 256, 256, 16 steps; large: batch 16, 512, 512, 32
    /// steps.
    pub fn of(size: Size) -> Dims {
        let (batch, input, hidden, steps) = match size {
            Size::Small => (1, 16, 24, 3),
            Size::Default => (1, 256, 256, 16),
            Size::Large => (16, 512, 512, 32),
        };
        Dims {
            batch,
            input,
            hidden,
            steps,
        }
    }

    pub fn describe(&self, cell: Cell) -> String {
        let Dims {
            batch,
            input,
            hidden,
            steps,
        } = *self;
        let kind = if cell == Cell::Lstm { "LSTM" } else { "GRU" };
        format!("{kind} cell, batch {batch}, input {input}, hidden {hidden}, {steps} time steps")
    }
}

/// Reference of `lstm_cell` for one step: `gx`, `gh` are `[batch][4H]`; returns (c, h).
pub fn lstm_ref(gx: &[f32], gh: &[f32], c: &[f32], hidden: usize) -> (Vec<f32>, Vec<f32>) {
    let (mut c_out, mut h_out) = (Vec::with_capacity(c.len()), Vec::with_capacity(c.len()));
    for (idx, c_old) in c.iter().enumerate() {
        let (b, j) = (idx / hidden, idx % hidden);
        let pre = |gate: usize| {
            gx[b * 4 * hidden + gate * hidden + j] + gh[b * 4 * hidden + gate * hidden + j]
        };
        let (i, f) = (layers::sigmoid(pre(0)), layers::sigmoid(pre(1)));
        let (g, o) = (layers::tanhf(pre(2)), layers::sigmoid(pre(3)));
        // NVRTC: mul.f32 f*c, then fma.rn(i, g, f*c).
        let cn = i.mul_add(g, f * c_old);
        c_out.push(cn);
        h_out.push(o * layers::tanhf(cn));
    }
    (c_out, h_out)
}

/// Reference of `gru_cell` for one step: `gx`, `gh` are `[batch][3H]`; returns the new h.
pub fn gru_ref(gx: &[f32], gh: &[f32], h: &[f32], hidden: usize) -> Vec<f32> {
    h.iter()
        .enumerate()
        .map(|(idx, h_old)| {
            let (b, j) = (idx / hidden, idx % hidden);
            let at = |v: &[f32], gate: usize| v[b * 3 * hidden + gate * hidden + j];
            let r = layers::sigmoid(at(gx, 0) + at(gh, 0));
            let z = layers::sigmoid(at(gx, 1) + at(gh, 1));
            // NVRTC: fma.rn(r, gh_n, gx_n); then fma.rn(1 − z, n, z·h).
            let n = layers::tanhf(r.mul_add(at(gh, 2), at(gx, 2)));
            (1.0 - z).mul_add(n, z * h_old)
        })
        .collect()
}

/// The largest magnitude in `v` (0 for an empty slice).
fn max_abs(v: &[f32]) -> f32 {
    v.iter().fold(0.0f32, |m, x| m.max(x.abs()))
}

/// Every `gate`-th block of `hidden` values of `[rows][gates·hidden]` data (the n gate of the
/// GRU's recurrent projection).
fn gate_block(v: &[f32], gates: usize, gate: usize, hidden: usize) -> Vec<f32> {
    v.chunks_exact(gates * hidden)
        .flat_map(|row| &row[gate * hidden..(gate + 1) * hidden])
        .copied()
        .collect()
}

/// Runs `cell` over `dims.steps` steps with seeded weights (uniform in ±1/√hidden, PyTorch's
/// initialisation), inputs in ±1 and initial state in ±0.5, validating every launch.
pub fn run(dev: &Device, cell: Cell, dims: Dims, seed: u64) -> runtime::Result<Outcome> {
    let Dims {
        batch,
        input,
        hidden,
        steps,
    } = dims;
    let gh_len = cell.gates() * hidden;
    let mut rng = Rng::new(seed);
    let scale = 1.0 / (hidden as f32).sqrt();
    let xs = layers::uniform(&mut rng, steps * batch * input, 1.0);
    let wx = layers::uniform(&mut rng, input * gh_len, scale);
    let bx = layers::uniform(&mut rng, gh_len, scale);
    let wh = layers::uniform(&mut rng, hidden * gh_len, scale);
    let bh = layers::uniform(&mut rng, gh_len, scale);
    let mut h = layers::uniform(&mut rng, batch * hidden, 0.5);
    let mut c = layers::uniform(&mut rng, batch * hidden, 0.5);

    let mut session = Session::new(dev);
    let k = Kernels::load(&mut session)?;
    let (d_x, d_wx, d_bx) = (
        dev.alloc_from(&xs)?,
        dev.alloc_from(&wx)?,
        dev.alloc_from(&bx)?,
    );
    let (d_wh, d_bh) = (dev.alloc_from(&wh)?, dev.alloc_from(&bh)?);
    let d_gx = dev.alloc::<f32>(steps * batch * gh_len)?;
    let d_gh = dev.alloc::<f32>(batch * gh_len)?;
    let (d_h, d_c) = (dev.alloc_from(&h)?, dev.alloc_from(&c)?);

    let mut checks = Vec::new();
    let rows = steps * batch;
    k.fc(
        &mut session,
        (&d_x).into(),
        rows,
        input,
        gh_len,
        false,
        &d_wx,
        &d_bx,
        &d_gx,
    )?;
    let gx = d_gx.to_host()?;
    let expected = layers::fc_ref(&xs, input, gh_len, false, &wx, &bx);
    checks.push(layers::labelled(
        "input projection",
        Validation::exact_f32(&gx, &expected),
    ));

    for t in 0..steps {
        k.fc(
            &mut session,
            (&d_h).into(),
            batch,
            hidden,
            gh_len,
            false,
            &d_wh,
            &d_bh,
            &d_gh,
        )?;
        let gh = d_gh.to_host()?;
        let expected = layers::fc_ref(&h, hidden, gh_len, false, &wh, &bh);
        checks.push(layers::labelled(
            "recurrent projection",
            Validation::exact_f32(&gh, &expected),
        ));

        let step = batch * gh_len;
        let gx_t = &gx[t * step..][..step];
        let gx_ptr = Arg::Ptr(d_gx.device_ptr() + (t * step * 4) as u64);
        let state = (cell == Cell::Lstm).then_some(&d_c);
        k.cell(&mut session, gx_ptr, &d_gh, state, &d_h, hidden, batch)?;
        let h_got = d_h.to_host()?;
        let (expected_h, tol) = match cell {
            Cell::Lstm => {
                let c_got = d_c.to_host()?;
                let (expected_c, expected_h) = lstm_ref(gx_t, &gh, &c, hidden);
                let tol = layers::cell_tolerance(max_abs(&c));
                checks.push(layers::labelled(
                    "lstm_cell c",
                    Validation::close_f32(&c_got, &expected_c, 0.0, tol),
                ));
                c = c_got;
                (expected_h, tol)
            }
            Cell::Gru => {
                let tol = layers::cell_tolerance(max_abs(&gate_block(&gh, 3, 2, hidden)));
                (gru_ref(gx_t, &gh, &h, hidden), tol)
            }
        };
        let label = if cell == Cell::Lstm {
            "lstm_cell h"
        } else {
            "gru_cell h"
        };
        checks.push(layers::labelled(
            label,
            Validation::close_f32(&h_got, &expected_h, 0.0, tol),
        ));
        h = h_got;
    }
    Ok(session.finish(layers::combine(checks)))
}
