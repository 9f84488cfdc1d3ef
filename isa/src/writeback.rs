//! BOW-WR's write-back hints (seed 000, §3.4.2): for every register an instruction writes,
//! where its value should go — the register file, the warp's bypassing operand collector
//! (the *window*), or both — for an instruction window of `window` instructions.
//!
//! BOW keeps a value in the collector while the warp's instructions use it: an access (the
//! write, or a read) keeps it for the next `window − 1` instructions of the warp, and a read
//! within that reach finds it there and extends it again (the "extended window"). So:
//!
//! - [`WriteTarget::Rf`]: the value's first read comes after it left the window (the paper's
//!   "reuse outside of the instruction window", 21% at IW = 3): straight to the register file;
//! - [`WriteTarget::Window`]: every read of the value finds it in the window and nothing reads
//!   it afterwards ("transient", 52%): the collector only, never the register file;
//! - [`WriteTarget::Both`]: read in the window, and still live when it leaves ("persistent",
//!   27%): the collector, and the register file when it leaves the window;
//! - [`WriteTarget::Unread`]: nothing ever reads the value: it needs to go nowhere (the paper
//!   does not count such writes; warpsim reports them apart).
//!
//! The analysis is per thread and within *runs*, the straight-line stretches the warp executes
//! in order ([`FunctionHints::ends_run`]: a block's last instruction or a call ends one), so the
//! distance between two instructions of a run is the distance in the warp's dynamic stream.
//! When the value is still in the window where its run ends, or where it leaves the window,
//! it counts as read later, outside the window, exactly when it is live there
//! ([`FunctionHints::live_out`]): the register file needs it. An unguarded write of the
//! register ends the value; so does a guarded one (it merges into the collector's copy, and
//! the merged value's own target takes over — the run-time model writes any value a partial
//! write could split to the register file, docs/techniques.md).
//!
//! Per-thread liveness is a warp-level fact only when the warp has not diverged: the run-time
//! model applies these targets to writes of every live lane of the warp and sends other writes
//! (a guard that skipped lanes, lanes waiting on the SIMT stack) to the register file.

use crate::hints::FunctionHints;

/// Where a written value goes (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteTarget {
    /// The register file only.
    Rf,
    /// The bypassing operand collector only (a transient value).
    Window,
    /// The collector, then the register file when the value leaves the window.
    Both,
    /// Never read: neither needs it.
    Unread,
}

/// The write-back targets of one function for one window size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritebackHints {
    window: u32,
    /// `targets[start[pc]..start[pc + 1]]` align with `FunctionHints::writes(pc)`.
    start: Vec<u32>,
    targets: Vec<WriteTarget>,
}

impl WritebackHints {
    /// The targets of every register written in the function of `h`, for a window of
    /// `window` instructions (at least 1; a window of 1 forwards nothing).
    pub fn compute(h: &FunctionHints, window: u32) -> WritebackHints {
        let window = window.max(1);
        let n = h.len() as u32;
        let mut start = Vec::with_capacity(n as usize + 1);
        let mut targets = Vec::new();
        for pc in 0..n {
            start.push(targets.len() as u32);
            for &reg in h.writes(pc) {
                targets.push(target(h, window, pc, reg));
            }
        }
        start.push(targets.len() as u32);
        WritebackHints {
            window,
            start,
            targets,
        }
    }

    /// The window size these targets are for.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// The target of each register written at `pc`, aligned with `FunctionHints::writes(pc)`.
    pub fn targets(&self, pc: u32) -> &[WriteTarget] {
        let pc = pc as usize;
        &self.targets[self.start[pc] as usize..self.start[pc + 1] as usize]
    }
}

/// The target of the value `pc` writes into `reg`.
fn target(h: &FunctionHints, window: u32, pc: u32, reg: u32) -> WriteTarget {
    let reach = window - 1;
    // Distance from `pc` of the value's last access, and whether a read found it in reach.
    let mut last = 0;
    let mut read_in_window = false;
    let mut q = pc;
    let live_after = loop {
        // The value leaves the window after `q`, or its run ends there: a later read, if
        // any, comes from outside the window.
        if h.ends_run(q) || q - pc - last == reach {
            break h.live_out(q).contains(reg);
        }
        q += 1;
        if h.reads(q).contains(&reg) {
            read_in_window = true;
            last = q - pc;
        }
        if h.writes(q).contains(&reg) {
            break false;
        }
    };
    match (read_in_window, live_after) {
        (false, false) => WriteTarget::Unread,
        (false, true) => WriteTarget::Rf,
        (true, false) => WriteTarget::Window,
        (true, true) => WriteTarget::Both,
    }
}
