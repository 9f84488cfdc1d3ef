//! The register-file cache, RFC (Gebhart et al., ISCA 2011; seed 004 §3.5; the comparison
//! point of BOW, seed 000 §3.5): a small cache per warp of the results it produced last, in
//! front of the register file.
//!
//! - Every result a warp writes is allocated in its cache (`sm.rf.rfc.entries` warp registers,
//!   6 per thread as in the paper), replacing the oldest entry first in, first out; it reaches
//!   the register file only when evicted, and not at all if a read with the compiler's
//!   last-use bit ended it first (the value is dead) or a younger result of the same register
//!   replaced it.
//! - A source found in the cache is read from it: no bank access. A source that misses is read
//!   from its bank and **not** allocated (results only).
//! - Two-level scheduling: when the scheduler moves a warp out of its active pool
//!   (`sm.rf.rfc.on_demote`), `flush` writes its unwritten live entries to the register file and
//!   frees them all (the paper's cache holds the active warps' values only); `retain` keeps
//!   them.
//!
//! The cache sits beside the register file and before the same collector units and crossbar
//! (the BOW paper's point: it does not relieve their ports). warpsim models its hits as free of
//! bank and port: a bound in its favour. A cache entry is a whole warp register: a result
//! written by fewer lanes than the warp has alive merges into the cached copy (whose old
//! unwritten result is written back first if lanes wait on the SIMT stack: they may still read
//! it), and with no copy to merge into goes to the register file.

use super::deferred::{PendingResults, WriteQueue};
use super::{BankMap, BankReq, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::collector::RfStats;
use crate::config::{GpuConfig, RfcDemotion};
use crate::energy::RfComponentCounts;

/// One cached warp register.
#[derive(Clone, Copy, Debug)]
struct Entry {
    reg: u32,
    /// It holds a result the register file does not have.
    dirty: bool,
    /// The instruction whose result it will hold, until that result is written back.
    producer: Option<u64>,
}

#[derive(Clone, Debug, Default)]
struct WarpCache {
    /// Oldest first in.
    entries: Vec<Entry>,
    pending: PendingResults,
}

#[derive(Clone, Debug, Default)]
struct Counters {
    operand_reads: u64,
    cache_hits: u64,
    register_writes: u64,
    cache_writes: u64,
    writes_partial: u64,
    writes_consolidated: u64,
    writes_dead: u64,
    writes_retired: u64,
    evictions: u64,
    eviction_writes: u64,
    flushes: u64,
    flush_writes: u64,
    rf_writes: u64,
}

/// The register-file cache technique.
pub struct Rfc {
    map: BankMap,
    capacity: usize,
    on_demote: RfcDemotion,
    warps: Vec<WarpCache>,
    /// Register-file writes of evicted and flushed results.
    queued: WriteQueue,
    c: Counters,
}

impl Rfc {
    /// The cache of `cfg.sm.rf.rfc` in front of `cfg`'s register file.
    pub fn new(cfg: &GpuConfig) -> Rfc {
        Rfc {
            map: BankMap::new(cfg),
            capacity: cfg.sm.rf.rfc.entries as usize,
            on_demote: cfg.sm.rf.rfc.on_demote,
            warps: Vec::new(),
            queued: WriteQueue::default(),
            c: Counters::default(),
        }
    }

    fn cache(&mut self, warp: u32) -> &mut WarpCache {
        let w = warp as usize;
        if self.warps.len() <= w {
            self.warps.resize_with(w + 1, WarpCache::default);
        }
        &mut self.warps[w]
    }

    /// Entry `k` of warp `warp` leaves the cache; its unwritten result goes to the register
    /// file (now, or at its write-back if it has not arrived). Returns whether it was written.
    fn leave(&mut self, warp: u32, k: usize) -> bool {
        let e = self.warps[warp as usize].entries.remove(k);
        if !e.dirty {
            return false;
        }
        match e.producer {
            Some(uid) => self.warps[warp as usize]
                .pending
                .set_to_rf(uid, e.reg, true),
            None => {
                let req = self.map.access(warp, e.reg, true);
                self.queued.push(warp, req);
            }
        }
        true
    }

    /// Places the result `uid` writes into `reg`; returns whether it goes to the register file
    /// at write-back.
    fn place_result(&mut self, i: &IssueView, reg: u32) -> bool {
        let warp = i.warp;
        let held = self.cache(warp).entries.iter().position(|e| e.reg == reg);
        // As in BOW: an entry is a whole warp register, made by a result every live lane wrote
        // or merged into the cached copy (other lanes keep their values in it).
        if i.exec != i.live && held.is_none() {
            self.c.writes_partial += 1;
            return true;
        }
        if let Some(k) = held {
            let old = self.warps[warp as usize].entries.remove(k);
            if old.dirty && i.active != i.live {
                // Lanes waiting on the SIMT stack may still read the old result: write it.
                self.c.eviction_writes += 1;
                let req = self.map.access(warp, reg, true);
                self.queued.push(warp, req);
            } else if old.dirty {
                self.c.writes_consolidated += 1;
            }
        }
        while self.warps[warp as usize].entries.len() >= self.capacity {
            self.c.evictions += 1;
            if self.leave(warp, 0) {
                self.c.eviction_writes += 1;
            }
        }
        self.c.cache_writes += 1;
        self.warps[warp as usize].entries.push(Entry {
            reg,
            dirty: true,
            producer: Some(i.uid),
        });
        false
    }
}

impl RegisterFilePolicy for Rfc {
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        let warp = i.warp;
        self.cache(warp);
        let gpr = i.frame.gpr;
        for &reg in &i.decoded.reads {
            self.c.operand_reads += 1;
            let w = &mut self.warps[warp as usize];
            match w.entries.iter().position(|e| e.reg == reg) {
                Some(k) => {
                    self.c.cache_hits += 1;
                    if i.hints.last_use(i.pc, reg - gpr) {
                        // Dead: freed without a write.
                        let e = w.entries.remove(k);
                        self.c.writes_dead += u64::from(e.dirty);
                    }
                }
                None => out.push(self.map.access(warp, reg, false)),
            }
        }
        for wr in i.writes {
            let to_rf = self.place_result(i, wr.reg);
            self.warps[warp as usize].pending.push(i.uid, wr.reg, to_rf);
        }
    }

    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        for &reg in regs {
            self.c.register_writes += 1;
            let w = self.cache(warp);
            let to_rf = w.pending.take(uid, reg);
            if let Some(e) = w
                .entries
                .iter_mut()
                .find(|e| e.reg == reg && e.producer == Some(uid))
            {
                e.producer = None;
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

    fn on_demote(&mut self, warp: u32) {
        if self.on_demote == RfcDemotion::Retain {
            return;
        }
        self.c.flushes += 1;
        while !self.cache(warp).entries.is_empty() {
            if self.leave(warp, 0) {
                self.c.flush_writes += 1;
            }
        }
    }

    fn on_warp_retire(&mut self, warp: u32, _now: u64) {
        self.c.writes_retired += self.queued.forget(warp);
        if let Some(w) = self.warps.get_mut(warp as usize) {
            self.c.writes_retired += w.entries.iter().filter(|e| e.dirty).count() as u64;
            *w = WarpCache::default();
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
            bypass_accesses: self.c.cache_hits + self.c.cache_writes,
            ..RfComponentCounts::baseline(rf, sub_banks, allocated_register_cycles)
        }
    }

    fn report(&self, out: &mut TechniqueReport) {
        let c = &self.c;
        for (key, v) in [
            ("operand_reads", c.operand_reads),
            ("cache_hits", c.cache_hits),
            ("register_writes", c.register_writes),
            ("cache_writes", c.cache_writes),
            ("writes_partial", c.writes_partial),
            ("writes_consolidated", c.writes_consolidated),
            ("writes_dead", c.writes_dead),
            ("writes_retired", c.writes_retired),
            ("evictions", c.evictions),
            ("eviction_writes", c.eviction_writes),
            ("flushes", c.flushes),
            ("flush_writes", c.flush_writes),
            ("rf_writes", c.rf_writes),
        ] {
            out.add(key, v);
        }
    }
}
