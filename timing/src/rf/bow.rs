//! BOW, Breathing Operand Windows (seed 000, chapter 3): operands bypass the register file
//! between nearby instructions of a warp.
//!
//! - **One bypassing operand collector (BOC) per warp** ([`CollectorLayout::PerWarp`]): it
//!   holds the warp's instructions in program order, at most IW (`sm.rf.bow.window`) at once,
//!   and a new instruction enters only when the one IW places before it has left for an
//!   execution unit (the window slides in order; instructions in it dispatch as soon as their
//!   operands are there, round robin over the warps' collectors). The collector keeps one
//!   register-file port.
//! - **Operand storage.** Every operand an instruction accesses — a source read from a bank, a
//!   source forwarded, a result — stays in the collector for the next IW − 1 instructions of
//!   the warp, and each access extends its stay (the paper's "extended instruction window").
//!   A source found there is forwarded: no bank access (if an older instruction of the
//!   collector is still reading it, the new one waits for that read). The storage has
//!   `sm.rf.bow.entries` warp registers (0: 4 per instruction of the window, the paper's
//!   conservative 12 at IW = 3; `bow-half` has half): when it is full the oldest operand is
//!   evicted first in, first out.
//! - **BOW** writes every result through: to the collector and to the register file.
//! - **BOW-WR** writes back, guided by the compiler ([`isa::writeback`], 2 bits per
//!   destination): a result the window does not reuse goes to the register file only; one
//!   the window alone needs (transient) or nobody reads never reaches it; one reused in the
//!   window and live after reaches it when it leaves the window — unless a younger
//!   instruction overwrote it there (the writes consolidate). An operand evicted for want of
//!   space while holding such a result is written to the register file unless a read with
//!   the last-use bit already ended it.
//!
//! **Divergence.** A collector entry is a whole warp register, and the compiler's hints are
//! per thread. A result written by every live lane makes an entry; one written by fewer
//! (lanes a guard skipped or waiting on the SIMT stack) merges into the collector's copy of
//! the register, whose other lanes keep their values, and follows the hint; with no copy to
//! merge into it goes to the register file (a partial entry could not be forwarded to the
//! lanes that did not write it). Lanes waiting on the SIMT stack run other paths than the
//! hint saw, so a copy's unwritten result they may still read reaches the register file
//! when a diverged write merges into it, instead of being consolidated.
//!
//! **Branches.** The paper's collector waits at a branch until the warp's next instruction is
//! known. Here control flow resolves when the branch issues (execution-driven), and the
//! window follows the warp's dynamic stream, so there is nothing more to wait for.

use super::deferred::{PendingResults, WriteQueue};
use super::{BankMap, BankReq, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::collector::{CollectorLayout, RfStats};
use crate::config::GpuConfig;
use crate::energy::RfComponentCounts;
use isa::FuncId;
use isa::writeback::{WriteTarget, WritebackHints};
use std::sync::Arc;

/// How results reach the register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritePolicy {
    /// BOW: every result, at write-back.
    Through,
    /// BOW-WR: by the compiler's targets, when the result leaves the window.
    Back,
}

/// An operand held in a warp's collector.
#[derive(Clone, Copy, Debug)]
struct Operand {
    reg: u32,
    /// Window position (the warp's instruction count) of its last access.
    last: u64,
    /// It holds a result the register file does not have yet (write-back).
    dirty: bool,
    /// The register file needs that result once it leaves the window (the hint said `Both`).
    keep: bool,
    /// A read with the last-use bit ended the value: nothing reads it again.
    dead: bool,
    /// The instruction whose result it will hold, until that result is written back.
    producer: Option<u64>,
}

/// One warp's collector state.
#[derive(Clone, Debug, Default)]
struct Window {
    /// Instructions the warp issued: the window position of the next one.
    next: u64,
    /// Operands held, oldest first in.
    operands: Vec<Operand>,
    pending: PendingResults,
}

/// Why an operand leaves the collector.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leave {
    /// Its last access is a window behind.
    Slid,
    /// The storage was full.
    Evicted,
}

/// Counters (see docs/techniques.md).
#[derive(Clone, Debug, Default)]
struct Counters {
    operand_reads: u64,
    forwarded_reads: u64,
    register_writes: u64,
    window_writes: u64,
    writes_rf_only: u64,
    writes_window_only: u64,
    writes_both: u64,
    writes_unread: u64,
    writes_partial: u64,
    writes_merged: u64,
    writes_consolidated: u64,
    writes_dropped: u64,
    writes_retired: u64,
    writes_on_leave: u64,
    rf_writes: u64,
    capacity_evictions: u64,
}

/// The BOW technique (BOW, BOW-WR, half-size BOW-WR).
pub struct Bow {
    map: BankMap,
    window: u32,
    capacity: usize,
    policy: WritePolicy,
    half: bool,
    warps: Vec<Window>,
    /// Register-file writes of results leaving the collectors.
    queued: WriteQueue,
    /// The compiler's write-back targets of the last function asked for (write-back only;
    /// looked up once per function change rather than per instruction).
    targets: Option<(FuncId, Arc<WritebackHints>)>,
    c: Counters,
}

impl Bow {
    /// BOW on `cfg`'s register file with `sm.rf.bow`; `half` halves the operand storage.
    pub fn new(cfg: &GpuConfig, policy: WritePolicy, half: bool) -> Bow {
        let bow = &cfg.sm.rf.bow;
        let full = bow.full_entries() as usize;
        Bow {
            map: BankMap::new(cfg),
            window: bow.window,
            capacity: if half { (full / 2).max(1) } else { full },
            policy,
            half,
            warps: Vec::new(),
            queued: WriteQueue::default(),
            targets: None,
            c: Counters::default(),
        }
    }

    /// The configuration name.
    pub fn name(&self) -> &'static str {
        match (self.policy, self.half) {
            (WritePolicy::Through, _) => "bow",
            (WritePolicy::Back, false) => "bow-wr",
            (WritePolicy::Back, true) => "bow-half",
        }
    }

    fn window_of(&mut self, warp: u32) -> &mut Window {
        let w = warp as usize;
        if self.warps.len() <= w {
            self.warps.resize_with(w + 1, Window::default);
        }
        &mut self.warps[w]
    }

    /// Operand `k` of warp `warp` leaves the collector: its unwritten result goes to the
    /// register file if something may still read it there.
    fn leave(&mut self, warp: u32, k: usize, why: Leave) {
        let op = self.warps[warp as usize].operands.remove(k);
        if !op.dirty {
            return;
        }
        let needed = !op.dead && (op.keep || why == Leave::Evicted);
        match op.producer {
            // Not written back yet: it goes to the register file when it arrives, or nowhere.
            Some(uid) => self.warps[warp as usize]
                .pending
                .set_to_rf(uid, op.reg, needed),
            None if needed => {
                self.c.writes_on_leave += 1;
                let req = self.map.access(warp, op.reg, true);
                self.queued.push(warp, req);
            }
            None => self.c.writes_dropped += 1,
        }
    }

    /// Makes room for one more operand in warp `warp`'s collector.
    fn make_room(&mut self, warp: u32) {
        while self.warps[warp as usize].operands.len() >= self.capacity {
            self.c.capacity_evictions += 1;
            self.leave(warp, 0, Leave::Evicted);
        }
    }

    /// The result `uid` writes into `reg`, as the policy and the hint direct: returns whether
    /// it goes to the register file at write-back.
    fn place_result(&mut self, i: &IssueView, reg: u32, target: Option<WriteTarget>) -> bool {
        let (warp, now) = (i.warp, self.warps[i.warp as usize].next - 1);
        let held = self.warps[warp as usize]
            .operands
            .iter()
            .position(|o| o.reg == reg);
        // A collector entry is a whole warp register: a result makes one when every live lane
        // wrote it, or merges into the copy there (lanes a guard skipped or that wait on the
        // SIMT stack keep their values in it).
        let complete = i.exec == i.live || held.is_some();
        let target = match self.policy {
            WritePolicy::Through => None,
            WritePolicy::Back if !complete => {
                self.c.writes_partial += 1;
                None
            }
            WritePolicy::Back => target,
        };
        let Some(target) = target else {
            // To the register file at write-back, and to the collector if it can hold the
            // whole register.
            if let Some(k) = held {
                let old = self.warps[warp as usize].operands[k];
                if old.dirty {
                    // Its lanes the new result leaves must reach the register file first.
                    self.c.writes_on_leave += 1;
                    let req = self.map.access(warp, reg, true);
                    self.queued.push(warp, req);
                }
                let o = &mut self.warps[warp as usize].operands[k];
                *o = Operand {
                    last: now,
                    dirty: false,
                    keep: false,
                    dead: false,
                    producer: Some(i.uid),
                    ..old
                };
                self.c.window_writes += 1;
            } else if complete {
                self.insert(warp, reg, now, false, false, Some(i.uid));
            }
            return true;
        };
        // Write-back: the result replaces the collector's copy, or merges into it. The copy's
        // unwritten result is then read by nobody (consolidated) — except by lanes waiting
        // on the SIMT stack, whose values the per-thread hint does not cover: those reach the
        // register file.
        if let Some(k) = held {
            let old = self.warps[warp as usize].operands.remove(k);
            if i.exec != i.live {
                self.c.writes_merged += 1;
            }
            if old.dirty && i.active != i.live {
                self.c.writes_on_leave += 1;
                let req = self.map.access(warp, reg, true);
                self.queued.push(warp, req);
            } else if old.dirty {
                self.c.writes_consolidated += 1;
            }
        }
        match target {
            WriteTarget::Rf => {
                self.c.writes_rf_only += 1;
                true
            }
            WriteTarget::Window | WriteTarget::Unread | WriteTarget::Both => {
                let keep = target == WriteTarget::Both;
                match target {
                    WriteTarget::Both => self.c.writes_both += 1,
                    WriteTarget::Window => self.c.writes_window_only += 1,
                    _ => self.c.writes_unread += 1,
                }
                self.insert(warp, reg, now, true, keep, Some(i.uid));
                false
            }
        }
    }

    fn insert(
        &mut self,
        warp: u32,
        reg: u32,
        now: u64,
        dirty: bool,
        keep: bool,
        producer: Option<u64>,
    ) {
        self.make_room(warp);
        self.c.window_writes += u64::from(producer.is_some());
        self.warps[warp as usize].operands.push(Operand {
            reg,
            last: now,
            dirty,
            keep,
            dead: false,
            producer,
        });
    }
}

impl RegisterFilePolicy for Bow {
    fn collector_layout(&self) -> CollectorLayout {
        CollectorLayout::PerWarp { depth: self.window }
    }

    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        let window = u64::from(self.window);
        let warp = i.warp;
        let w = self.window_of(warp);
        let now = w.next;
        w.next += 1;
        // The window slides: operands last accessed a window ago leave.
        let mut k = 0;
        while k < self.warps[warp as usize].operands.len() {
            if now - self.warps[warp as usize].operands[k].last >= window {
                self.leave(warp, k, Leave::Slid);
            } else {
                k += 1;
            }
        }
        let gpr = i.frame.gpr;
        for &reg in &i.decoded.reads {
            self.c.operand_reads += 1;
            let last_use = i.hints.last_use(i.pc, reg - gpr);
            let w = &mut self.warps[warp as usize];
            if let Some(o) = w.operands.iter_mut().find(|o| o.reg == reg) {
                o.last = now;
                o.dead |= last_use;
                self.c.forwarded_reads += 1;
                out.push(BankReq {
                    forwarded: true,
                    ..self.map.access(warp, reg, false)
                });
            } else {
                out.push(self.map.access(warp, reg, false));
                self.insert(warp, reg, now, false, false, None);
                let w = &mut self.warps[warp as usize];
                w.operands.last_mut().expect("just inserted").dead = last_use;
            }
        }
        if self.policy == WritePolicy::Back
            && !i.writes.is_empty()
            && self.targets.as_ref().is_none_or(|(f, _)| *f != i.func)
        {
            self.targets = Some((i.func, i.hints.writeback(self.window)));
        }
        let hints = match self.policy {
            WritePolicy::Back => self.targets.as_ref().map(|(_, h)| Arc::clone(h)),
            WritePolicy::Through => None,
        };
        for wr in i.writes {
            let target = hints.as_ref().and_then(|h| {
                let pos = i
                    .hints
                    .writes(i.pc)
                    .iter()
                    .position(|&r| r + gpr == wr.reg)?;
                h.targets(i.pc).get(pos).copied()
            });
            let to_rf = self.place_result(i, wr.reg, target);
            self.warps[warp as usize].pending.push(i.uid, wr.reg, to_rf);
        }
    }

    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        for &reg in regs {
            self.c.register_writes += 1;
            let w = self.window_of(warp);
            let to_rf = w.pending.take(uid, reg);
            let arrived = w
                .operands
                .iter_mut()
                .find(|o| o.reg == reg && o.producer == Some(uid));
            match arrived {
                Some(o) => o.producer = None,
                None if !to_rf => self.c.writes_dropped += 1,
                None => {}
            }
            if to_rf {
                self.c.rf_writes += 1;
                out.push(self.map.access(warp, reg, true));
            }
        }
    }

    fn drain_writes(&mut self, _now: u64, ports: u32, out: &mut Vec<BankReq>) {
        self.c.rf_writes += self.queued.drain(ports, out);
    }

    fn on_warp_retire(&mut self, warp: u32, _now: u64) {
        self.c.writes_retired += self.queued.forget(warp);
        if let Some(w) = self.warps.get_mut(warp as usize) {
            self.c.writes_retired += w.operands.iter().filter(|o| o.dirty).count() as u64;
            *w = Window::default();
        }
    }

    fn next_wake(&self, now: u64) -> Option<u64> {
        self.queued.next_wake(now)
    }

    fn component_counts(
        &self,
        rf: &RfStats,
        sub_banks: u32,
        allocated_register_cycles: u64,
    ) -> RfComponentCounts {
        RfComponentCounts {
            bypass_accesses: self.c.forwarded_reads + self.c.window_writes,
            ..RfComponentCounts::baseline(rf, sub_banks, allocated_register_cycles)
        }
    }

    fn report(&self, out: &mut TechniqueReport) {
        let c = &self.c;
        for (key, v) in [
            ("operand_reads", c.operand_reads),
            ("forwarded_reads", c.forwarded_reads),
            ("register_writes", c.register_writes),
            ("window_writes", c.window_writes),
            ("writes_rf_only", c.writes_rf_only),
            ("writes_window_only", c.writes_window_only),
            ("writes_both", c.writes_both),
            ("writes_unread", c.writes_unread),
            ("writes_partial", c.writes_partial),
            ("writes_merged", c.writes_merged),
            ("writes_consolidated", c.writes_consolidated),
            ("writes_dropped", c.writes_dropped),
            ("writes_retired", c.writes_retired),
            ("writes_on_leave", c.writes_on_leave),
            ("rf_writes", c.rf_writes),
            ("capacity_evictions", c.capacity_evictions),
        ] {
            out.add(key, v);
        }
    }
}
