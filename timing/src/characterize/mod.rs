//! Characterization: the opportunity each register-file technique exploits, measured by an
//! observer of one warp instruction stream at a time, without changing timing.
//!
//! ```text
//! per executed warp instruction ──InstRecord──► Characterizer::observe
//!     (warp, opcode class, registers read and written with their width classes, lanes)
//! warp ends ──► Characterizer::warp_done      (its live values end: read-count and
//!                                              write-bypass verdicts are taken then)
//! Characterizer::report ──► Characterization  (integer counts; merged by addition, so
//!                                              the order warps or CTAs are merged in
//!                                              never changes a figure)
//! ```
//!
//! Every measure depends only on each warp's own instruction stream in program order, so
//! the same counts come from the functional driver ([`launch`]: every CTA stepped one warp
//! instruction at a time on host threads) and from the timing model's baseline run. The
//! measures, each defined where it is counted:
//!
//! - [`widths`]: narrow values (width class ≤ 1, 2, 3 bytes) over register reads and writes,
//!   per opcode class; the complement is CMRC's "accesses needing all 4 bytes".
//! - [`values`]: for each value written, how many times it is read before it is overwritten
//!   or the warp ends (the register-file-cache literature's "~70% read once").
//! - [`bypass`]: BOW's bypassable reads and writes within sliding windows of 2, 3 and 7
//!   instructions of the same warp.
//! - [`sources`]: instructions with two or more register sources, their share of register
//!   reads, pairs whose widths fit one register, and coalescing under first-fit packing
//!   ([`packing`]).
//!
//! Registers are the 32-bit physical registers of warpsim's allocation (a 64-bit value is two
//! registers, each with its own width class), as the register file sees them; predicates are
//! not in the register file and are not counted.

pub mod bypass;
pub mod launch;
pub mod packing;
pub mod sources;
pub mod values;
pub mod widths;

use crate::decode::OpClass;
use serde::Serialize;

pub use launch::{CharacterizeLaunch, CtaSample, characterize};

/// How much of a run characterization observes (see [`launch`]): whole CTAs, a sample of each
/// launch's, and launches of a kernel until enough of its instructions were observed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampling {
    /// CTAs observed per launch, evenly spaced (0: every CTA).
    pub ctas_per_launch: u64,
    /// Once this many warp instructions of a kernel were observed, its later launches run
    /// unobserved (0: no limit).
    pub insts_per_kernel: u64,
}

impl Sampling {
    /// Every warp instruction of every launch.
    pub const FULL: Sampling = Sampling {
        ctas_per_launch: 0,
        insts_per_kernel: 0,
    };
}

/// The instruction windows BOW's characterization reports (its Figure 3.3: 2, 3 and 7).
pub const WINDOWS: [u32; 3] = [2, 3, 7];

/// One 32-bit physical register read or written, with the width class of the value (1..=4
/// bytes) over all 32 lanes (what CORF and CMRC hardware sees) and over the lanes that
/// executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegAccess {
    pub reg: u32,
    pub class_all: u8,
    pub class_active: u8,
}

/// One executed warp instruction, as the characterizer sees it.
#[derive(Clone, Copy, Debug)]
pub struct InstRecord<'a> {
    /// Any identity unique among the warps alive at once (a warp slot, or a warp's index in
    /// its CTA); reused after [`Characterizer::warp_done`].
    pub warp: u32,
    pub class: OpClass,
    /// Lanes active on the SIMT stack.
    pub active: u32,
    /// Active lanes whose guard held.
    pub exec: u32,
    /// Registers read, without repeats (an instruction naming a register twice reads it once).
    pub reads: &'a [RegAccess],
    /// Register source operands as the instruction names them, the way SASS counts operands:
    /// a 64-bit register (a pair in `reads`) or a vector (`{a, b, c, d}`) is one operand;
    /// predicates are not counted ([`launch::Decoding`] has them per instruction).
    pub source_operands: u8,
    /// Registers written.
    pub writes: &'a [RegAccess],
}

/// What the characterizer keeps of one register of one warp.
#[derive(Clone, Copy, Debug, Default)]
struct RegState {
    /// The warp's instruction number of the register's last access (read or write), if any.
    last_access: Option<u64>,
    /// The value the register holds, if this warp wrote one.
    value: Option<values::Value>,
}

/// Per-warp state: its instruction count and its registers.
#[derive(Clone, Debug, Default)]
struct WarpState {
    /// Instructions observed so far: the position of the next one in the warp's stream.
    seq: u64,
    regs: Vec<RegState>,
    packing: packing::FirstFit,
}

impl WarpState {
    fn reg(&mut self, r: u32) -> &mut RegState {
        let r = r as usize;
        if r >= self.regs.len() {
            self.regs.resize(r + 1, RegState::default());
        }
        &mut self.regs[r]
    }

    /// Register `a.reg` gets a new value at the warp's instruction `now` (the old one ends).
    fn write(&mut self, a: &RegAccess, now: u64, c: &mut Characterization) {
        let reg = self.reg(a.reg);
        if let Some(old) = reg.value.take() {
            c.end_value(&old);
        }
        reg.value = Some(values::Value::default());
        reg.last_access = Some(now);
        if self.packing.write(a.reg, a.class_all) == packing::Placement::Moved {
            c.sources.reallocations += 1;
        }
    }

    /// Ends every live value (the warp ended, or a report needs them), counting each.
    fn end_values(&self, out: &mut Characterization) {
        for r in &self.regs {
            if let Some(v) = &r.value {
                out.end_value(v);
            }
        }
    }
}

/// The observer: feed it every executed warp instruction of each warp in program order
/// (warps may interleave arbitrarily), tell it when a warp ends, and ask for its counts.
#[derive(Clone, Debug, Default)]
pub struct Characterizer {
    warps: Vec<Option<WarpState>>,
    counts: Characterization,
}

impl Characterizer {
    pub fn new() -> Characterizer {
        Characterizer::default()
    }

    /// Accounts one executed warp instruction. Reads happen before writes: an instruction
    /// that reads and writes one register reads the old value and starts a new one.
    pub fn observe(&mut self, rec: &InstRecord) {
        let w = rec.warp as usize;
        if w >= self.warps.len() {
            self.warps.resize_with(w + 1, || None);
        }
        let warp = self.warps[w].get_or_insert_with(WarpState::default);
        let now = warp.seq;
        warp.seq += 1;
        let c = &mut self.counts;
        c.warp_insts += 1;
        c.widths.observe(rec);
        c.sources.observe(rec, &warp.packing);
        for a in rec.reads {
            let reg = warp.reg(a.reg);
            // Distance to the register's previous access: BOW bypasses the read when that
            // access lies in the window (and the read itself extends the operand's life).
            let gap = reg.last_access.map(|t| now - t);
            c.bypass.read(gap);
            reg.last_access = Some(now);
            match &mut reg.value {
                Some(v) => v.read(gap.expect("a written register has an access")),
                None => c.values.unwritten_reads += 1,
            }
        }
        for a in rec.writes {
            warp.write(a, now, c);
        }
    }

    /// Accounts a write that lands after its instruction was observed, in `warp`'s register:
    /// a `bar.red` destination, written when its barrier releases. It is a write of the warp's
    /// last observed instruction (its `bar.red`); its widths count under `class`, that of the
    /// instruction whose arrival released the barrier (as the timing model counts them).
    pub fn late_write(&mut self, warp: u32, class: OpClass, a: &RegAccess) {
        let w = warp as usize;
        if w >= self.warps.len() {
            self.warps.resize_with(w + 1, || None);
        }
        let warp = self.warps[w].get_or_insert_with(WarpState::default);
        let now = warp.seq.saturating_sub(1);
        let c = &mut self.counts;
        c.widths.write(class, a);
        c.sources.writes += 1;
        warp.write(a, now, c);
    }

    /// The warp ended: its live values end (never read again), and its identity may be
    /// reused by a new warp.
    pub fn warp_done(&mut self, warp: u32) {
        if let Some(slot) = self.warps.get_mut(warp as usize)
            && let Some(state) = slot.take()
        {
            state.end_values(&mut self.counts);
        }
    }

    /// The counts so far. Values still live in warps that have not ended are counted as if
    /// their warps ended now (so a report taken mid-run accounts every write).
    pub fn report(&self) -> Characterization {
        let mut out = self.counts.clone();
        for w in self.warps.iter().flatten() {
            w.end_values(&mut out);
        }
        out
    }
}

/// The characterization counts of a run (integers; [`Characterization::summary`] gives the
/// percentages).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Characterization {
    /// Warp instructions observed.
    pub warp_insts: u64,
    pub widths: widths::WidthCounts,
    pub values: values::ValueCounts,
    pub bypass: bypass::BypassCounts,
    pub sources: sources::SourceCounts,
}

impl Characterization {
    /// Adds another run's counts (every field is a sum, so merging is order-independent).
    pub fn merge(&mut self, o: &Characterization) {
        self.warp_insts += o.warp_insts;
        self.widths.merge(&o.widths);
        self.values.merge(&o.values);
        self.bypass.merge(&o.bypass);
        self.sources.merge(&o.sources);
    }

    /// Every count multiplied by `w` (rounded): the weight of a sample in an estimate of
    /// the whole run ([`launch::CtaSample`]). A weight of 1 changes nothing.
    pub fn scaled(&self, w: f64) -> Characterization {
        let mut out = self.clone();
        let mut f = |x: &mut u64| *x = (*x as f64 * w).round() as u64;
        f(&mut out.warp_insts);
        for c in std::iter::once(&mut out.widths.total).chain(out.widths.by_class.iter_mut()) {
            for h in [
                &mut c.reads_all,
                &mut c.reads_active,
                &mut c.writes_all,
                &mut c.writes_active,
            ] {
                h.0.iter_mut().for_each(&mut f);
            }
        }
        out.values.by_reads.iter_mut().for_each(&mut f);
        f(&mut out.values.unwritten_reads);
        let b = &mut out.bypass;
        f(&mut b.reads);
        f(&mut b.writes);
        for w in &mut b.windows {
            f(&mut w.bypassed_reads);
            f(&mut w.transient_writes);
            f(&mut w.reused_writes);
        }
        let s = &mut out.sources;
        for x in [
            &mut s.reads,
            &mut s.writes,
            &mut s.multi_source_insts,
            &mut s.multi_source_reads,
            &mut s.multi_operand_insts,
            &mut s.multi_operand_reads,
            &mut s.packable_insts,
            &mut s.first_fit_coalesced,
            &mut s.reallocations,
        ] {
            f(x);
        }
        out
    }

    fn end_value(&mut self, v: &values::Value) {
        self.values.end(v);
        self.bypass.end_value(v);
    }

    /// The percentages the characterization table reports.
    pub fn summary(&self) -> Summary {
        let w = &self.widths.total;
        let all = w.reads_all.add(&w.writes_all);
        let active = w.reads_active.add(&w.writes_active);
        let v = &self.values;
        let s = &self.sources;
        Summary {
            warp_insts: self.warp_insts,
            narrow_all: all.narrow_shares(),
            narrow_active: active.narrow_shares(),
            full_width: pct(all.0[3], all.total()),
            narrow_reads: w.reads_all.narrow_shares(),
            narrow_writes: w.writes_all.narrow_shares(),
            values_never_read: pct(v.by_reads[0], v.written()),
            values_read_once: pct(v.by_reads[1], v.written()),
            values_read_twice: pct(v.by_reads[2], v.written()),
            values_read_more: pct(v.by_reads[3], v.written()),
            bypass: self
                .bypass
                .windows
                .iter()
                .map(|b| WindowSummary {
                    window: b.window,
                    reads: pct(b.bypassed_reads, self.bypass.reads),
                    writes: pct(b.transient_writes, self.bypass.writes),
                    writes_reused: pct(b.reused_writes, self.bypass.writes),
                })
                .collect(),
            multi_source_insts: pct(s.multi_source_insts, self.warp_insts),
            multi_source_reads: pct(s.multi_source_reads, s.reads),
            multi_operand_insts: pct(s.multi_operand_insts, self.warp_insts),
            multi_operand_reads: pct(s.multi_operand_reads, s.reads),
            packable: pct(s.packable_insts, s.multi_source_insts),
            first_fit_coalesced: pct(s.first_fit_coalesced, s.multi_source_insts),
            first_fit_reallocations: pct(s.reallocations, s.writes),
        }
    }
}

/// `part` as a percentage of `whole` (0 when there is nothing to divide).
pub fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The characterization's percentages.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub warp_insts: u64,
    /// Register reads and writes (all 32 lanes) whose values need ≤ 1, ≤ 2, ≤ 3 bytes (%);
    /// the last is CORF's "narrow".
    pub narrow_all: [f64; 3],
    /// The same over the lanes that executed.
    pub narrow_active: [f64; 3],
    /// Reads and writes (all lanes) needing all 4 bytes (%; CMRC's 29%).
    pub full_width: f64,
    /// Reads alone and writes alone, all lanes, ≤ 1, 2, 3 bytes (%).
    pub narrow_reads: [f64; 3],
    pub narrow_writes: [f64; 3],
    /// Values written that are read 0, 1, 2, more times before they die (%).
    pub values_never_read: f64,
    pub values_read_once: f64,
    pub values_read_twice: f64,
    pub values_read_more: f64,
    /// BOW, per window.
    pub bypass: Vec<WindowSummary>,
    /// Warp instructions reading two or more registers (% of all; CORF's ~40%).
    pub multi_source_insts: f64,
    /// Their share of register reads (%; CORF's >70%).
    pub multi_source_reads: f64,
    /// Warp instructions naming two or more register source operands (SASS's view: a 64-bit
    /// register or a vector is one operand; % of all).
    pub multi_operand_insts: f64,
    /// Their share of register reads (%).
    pub multi_operand_reads: f64,
    /// Multi-source instructions with two sources whose widths fit one register (%; CORF's 69%).
    pub packable: f64,
    /// Multi-source instructions with two sources in one physical register under first-fit
    /// packing (%; CORF's 4%).
    pub first_fit_coalesced: f64,
    /// Writes that moved their register to a new physical register under first-fit packing
    /// because the value grew (%; CORF: < 0.3%).
    pub first_fit_reallocations: f64,
}

/// BOW's figures for one window size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowSummary {
    pub window: u32,
    /// Reads bypassable (% of register reads).
    pub reads: f64,
    /// Writes bypassable: transient values, every read in the window (% of writes).
    pub writes: f64,
    /// Writes whose first read is in the window (BOW-WR's "BOC-only" plus "both", % of writes).
    pub writes_reused: f64,
}

#[cfg(test)]
mod tests;
