//! The register file of recent NVIDIA cores (Volta on; `sm.rf.technique = "modern"`), as the
//! reverse engineering summarised in docs/modern-rf.md finds it:
//!
//! - **Banks per sub-core** (`sm.sub_cores`; two on the modern presets), each with one read
//!   port and one write port of a whole warp register: a write never delays a read.
//! - **No collector units**: each sub-core's operand-read stage
//!   ([`CollectorLayout::OperandStage`]). At allocation a fixed-latency instruction reserves,
//!   in each bank, one port-cycle per register it reads there within a window of
//!   [`READ_WINDOW`] cycles; if they do not fit, it waits in allocation — bubbles — and the
//!   sub-core's next instruction allocates only after it. An FMUL with both sources in one
//!   bank thus costs one bubble when the instruction before it keeps that bank busy, an FFMA
//!   with three, two. Variable-latency instructions (memory, SFU) skip allocation and take the
//!   first free port-cycles. The reads are granted at the cycle the instruction leaves
//!   allocation ([`BankReq::ready_at`]), so a stall-free instruction reads on the cycle after
//!   it issues, as in the baseline, and a stalled one that many cycles later.
//! - **The operand cache**, driven by the compiler's reuse bits ([`FunctionHints::reuse`]):
//!   per bank one entry per operand slot (three), shared by the sub-core's warps. A
//!   fixed-latency instruction reading register `r` of its warp in slot `s` from bank `b`
//!   hits when entry (`b`, `s`) holds that warp's `r`: no port-cycle. Every such read leaves
//!   the entry holding `r` if its reuse bit is set, and empty otherwise (a read of the slot
//!   and bank replaces what was there, hit or not). Memory and SFU instructions neither use
//!   nor disturb it; writes leave it alone (the compiler never marks a register its
//!   instruction overwrites). A retiring warp's entries are emptied.
//!
//! Results are written through the write ports as the baseline writes them (the result
//! queue's own timing is not modelled: docs/modern-rf.md, section 4).
//!
//! [`FunctionHints::reuse`]: isa::hints::FunctionHints::reuse

use super::{BankMap, BankReq, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::collector::CollectorLayout;
use crate::config::GpuConfig;
use crate::decode::Unit;

/// Cycles within which an instruction's port-cycles must fit at allocation: its three cycles
/// of operand reading (docs/modern-rf.md, section 2).
pub const READ_WINDOW: u64 = 3;

/// Operand slots the cache keeps per bank.
const SLOTS: usize = 3;

/// The operand cache: per bank and operand slot, the (warp slot, register) it holds.
struct OperandCache {
    entries: Vec<[Option<(u32, u32)>; SLOTS]>,
}

impl OperandCache {
    fn new(banks: usize) -> OperandCache {
        OperandCache {
            entries: vec![[None; SLOTS]; banks],
        }
    }

    /// A read of register `reg` of warp slot `warp` in operand slot `slot` from `bank`:
    /// whether it hits. The entry then holds the register if `keep` (its reuse bit), and
    /// nothing otherwise.
    fn read(&mut self, bank: usize, slot: usize, warp: u32, reg: u32, keep: bool) -> bool {
        let entry = &mut self.entries[bank][slot];
        let hit = *entry == Some((warp, reg));
        *entry = keep.then_some((warp, reg));
        hit
    }

    /// Empties the entries of warp slot `warp` (its warp retired).
    fn forget(&mut self, warp: u32) {
        for entry in self.entries.iter_mut().flatten() {
            if entry.is_some_and(|(w, _)| w == warp) {
                *entry = None;
            }
        }
    }
}

/// The modern register file.
pub struct Modern {
    map: BankMap,
    /// Sub-cores: warp slot `w` is sub-core `w mod sub_cores`'s.
    sub_cores: u32,
    /// Per sub-core: the first cycle its allocation stage takes an instruction.
    allocate_free: Vec<u64>,
    /// Per bank: the future cycles its read port is reserved, in increasing order.
    reserved: Vec<Vec<u64>>,
    cache: OperandCache,
    /// Instructions whose reads wait past the cycle after issue: (issue id, read cycle).
    waiting: Vec<(u64, u64)>,
    /// Port-cycles each bank needs for the instruction being planned (a reused buffer).
    needs: Vec<u64>,
    counters: Counters,
}

#[derive(Default)]
struct Counters {
    operand_reads: u64,
    cache_reads: u64,
    cache_hits: u64,
    cache_fills: u64,
    allocations: u64,
    allocations_stalled: u64,
    allocation_stall_cycles: u64,
}

impl Modern {
    pub fn new(cfg: &GpuConfig) -> Modern {
        let banks = cfg.sm.rf.banks as usize;
        let sub_cores = super::sub_cores(cfg);
        Modern {
            map: BankMap::new(cfg),
            sub_cores,
            allocate_free: vec![0; sub_cores as usize],
            reserved: vec![Vec::new(); banks],
            cache: OperandCache::new(banks),
            waiting: Vec::new(),
            needs: vec![0; banks],
            counters: Counters::default(),
        }
    }

    /// Free port-cycles of `bank` in `[from, from + len)`.
    fn free_in(&self, bank: usize, from: u64, len: u64) -> u64 {
        let busy = self.reserved[bank]
            .iter()
            .filter(|&&c| c >= from && c < from + len)
            .count() as u64;
        len - busy
    }

    /// Reserves the first `n` free port-cycles of `bank` from `from` on; returns the last.
    fn reserve(&mut self, bank: usize, from: u64, n: u64) -> u64 {
        let cycles = &mut self.reserved[bank];
        let mut at = from;
        let mut last = from;
        for _ in 0..n {
            while cycles.binary_search(&at).is_ok() {
                at += 1;
            }
            let i = cycles.partition_point(|&c| c < at);
            cycles.insert(i, at);
            last = at;
            at += 1;
        }
        last
    }

    /// The cycle the planned reads (`self.needs`) are granted: a fixed-latency instruction's
    /// allocation, the first cycle from `earliest` at which every bank's port-cycles fit the
    /// read window (after the sub-core's previous allocation); otherwise the cycle of its
    /// last port-cycle.
    fn schedule(&mut self, sub: usize, earliest: u64, fixed: bool) -> u64 {
        let banks = self.needs.len();
        for b in 0..banks {
            if self.needs[b] > 0 {
                self.reserved[b].retain(|&c| c >= earliest);
            }
        }
        if !fixed {
            let mut last = earliest;
            for b in 0..banks {
                let n = std::mem::take(&mut self.needs[b]);
                if n > 0 {
                    last = last.max(self.reserve(b, earliest, n));
                }
            }
            return last;
        }
        let window = self
            .needs
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(READ_WINDOW);
        let mut at = earliest.max(self.allocate_free[sub]);
        while (0..banks).any(|b| self.needs[b] > 0 && self.free_in(b, at, window) < self.needs[b]) {
            at += 1;
        }
        for b in 0..banks {
            let n = std::mem::take(&mut self.needs[b]);
            if n > 0 {
                self.reserve(b, at, n);
            }
        }
        self.allocate_free[sub] = at + 1;
        let c = &mut self.counters;
        c.allocations += 1;
        if at > earliest {
            c.allocations_stalled += 1;
            c.allocation_stall_cycles += at - earliest;
        }
        at
    }
}

impl RegisterFilePolicy for Modern {
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        let d = i.decoded;
        let fixed = !matches!(d.unit, Unit::LdSt | Unit::Sfu);
        let cached = fixed && d.operand_cache;
        let hint_reads = i.hints.reads(i.pc);
        let slots = i.hints.read_slots(i.pc);
        let reuse = i.hints.reuse(i.pc);
        let start = out.len();
        for &reg in &d.reads {
            self.counters.operand_reads += 1;
            let req = self.map.access(i.warp, reg, false);
            let bank = req.bank as usize;
            if cached {
                // The hints number the function's own registers.
                let own = reg - i.frame.gpr;
                let k = hint_reads.iter().position(|&r| r == own);
                let slot = k.map_or(usize::MAX, |k| usize::from(slots[k]));
                if slot < SLOTS {
                    self.counters.cache_reads += 1;
                    let keep = k.is_some_and(|k| reuse[k]);
                    self.counters.cache_fills += u64::from(keep);
                    if self.cache.read(bank, slot, i.warp, reg, keep) {
                        self.counters.cache_hits += 1;
                        continue;
                    }
                }
            }
            self.needs[bank] += 1;
            out.push(req);
        }
        let earliest = i.now + 1;
        let sub = (i.warp % self.sub_cores) as usize;
        let at = self.schedule(sub, earliest, fixed);
        if at > earliest {
            for req in &mut out[start..] {
                req.ready_at = at;
            }
            self.waiting.push((i.uid, at));
        }
    }

    fn plan_writes(&mut self, warp: u32, _uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        out.extend(regs.iter().map(|&r| self.map.access(warp, r, true)));
    }

    fn collector_layout(&self) -> CollectorLayout {
        CollectorLayout::OperandStage
    }

    /// Reads were given their port-cycles at allocation, and writes have their own port.
    fn bank_accepts(&self, _granted: &[BankReq], _req: &BankReq) -> bool {
        true
    }

    /// The operand stage takes what its banks deliver.
    fn port_accepts(&self, _taken: &[BankReq], _req: &BankReq) -> bool {
        true
    }

    fn on_dispatch(&mut self, _warp: u32, uid: u64) {
        self.waiting.retain(|&(u, _)| u != uid);
    }

    fn on_warp_retire(&mut self, warp: u32, _now: u64) {
        self.cache.forget(warp);
    }

    fn next_wake(&self, now: u64) -> Option<u64> {
        self.waiting
            .iter()
            .map(|&(_, c)| c)
            .filter(|&c| c > now)
            .min()
    }

    fn report(&self, out: &mut TechniqueReport) {
        let c = &self.counters;
        for (key, value) in [
            ("operand_reads", c.operand_reads),
            ("cache_reads", c.cache_reads),
            ("cache_hits", c.cache_hits),
            ("cache_fills", c.cache_fills),
            ("allocations", c.allocations),
            ("allocations_stalled", c.allocations_stalled),
            ("allocation_stall_cycles", c.allocation_stall_cycles),
        ] {
            out.add(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// v100 with the modern register file and two banks per sub-core.
    fn modern() -> Modern {
        let overrides = [
            "sm.rf.technique=modern".to_string(),
            "sm.rf.banks=8".to_string(),
        ];
        Modern::new(&GpuConfig::load("v100", &overrides).unwrap())
    }

    /// Schedules an instruction of sub-core 0 issued at `issue` that reads `bank0` registers
    /// from its first bank and `bank1` from its second; the cycle it leaves allocation.
    fn allocate(m: &mut Modern, issue: u64, bank0: u64, bank1: u64, fixed: bool) -> u64 {
        m.needs[0] = bank0;
        m.needs[1] = bank1;
        m.schedule(0, issue + 1, fixed)
    }

    #[test]
    fn same_bank_operands_cost_a_bubble_per_extra_read_in_a_stream() {
        // FMULs with both sources in one bank, issued every cycle: each needs two of its
        // bank's port-cycles, so from the third on each leaves allocation one cycle later
        // than the one before plus one: one bubble per instruction.
        let mut m = modern();
        let left: Vec<u64> = (0..6).map(|t| allocate(&mut m, t, 2, 0, true)).collect();
        assert_eq!(left, [1, 2, 4, 6, 8, 10]);
        // With the sources in both banks, one a cycle and no bubble.
        let mut m = modern();
        let left: Vec<u64> = (0..6).map(|t| allocate(&mut m, t, 1, 1, true)).collect();
        assert_eq!(left, [1, 2, 3, 4, 5, 6]);
        // FFMAs with three sources in one bank: two bubbles each.
        let mut m = modern();
        let left: Vec<u64> = (0..4).map(|t| allocate(&mut m, t, 3, 0, true)).collect();
        assert_eq!(left, [1, 4, 7, 10]);
        assert_eq!(m.counters.allocation_stall_cycles, 2 + 4 + 6);
    }

    #[test]
    fn an_ffma_after_one_reading_three_even_registers() {
        // docs/modern-rf.md, Listing 1: the first FFMA reads three even registers (bank 0
        // for three cycles); the second, issued the next cycle, reads one even register and
        // two more that are odd/odd, one even, both even: 0, 1 and 2 bubbles.
        for (more_even, bubbles) in [(0, 0), (1, 1), (2, 2)] {
            let mut m = modern();
            assert_eq!(allocate(&mut m, 0, 3, 0, true), 1);
            let left = allocate(&mut m, 1, 1 + more_even, 2 - more_even, true);
            assert_eq!(left - 2, bubbles, "{more_even} more even");
        }
    }

    #[test]
    fn variable_latency_reads_take_free_port_cycles_without_allocating() {
        let mut m = modern();
        assert_eq!(allocate(&mut m, 0, 3, 0, true), 1);
        // A store reading two registers of bank 0 gets its cycles after the FFMA's (4, 5)
        // and leaves the allocation stage to the next FFMA.
        assert_eq!(allocate(&mut m, 1, 2, 0, false), 5);
        assert_eq!(allocate(&mut m, 1, 0, 1, true), 2);
        assert_eq!(m.counters.allocations, 2);
    }

    #[test]
    fn the_operand_cache_hits_on_the_same_warp_register_and_slot() {
        let mut c = OperandCache::new(2);
        // Filled by a read with its reuse bit, hit by the next read of it in that slot.
        assert!(!c.read(0, 1, 3, 8, true));
        assert!(c.read(0, 1, 3, 8, false));
        // A read without the bit left the entry empty.
        assert!(!c.read(0, 1, 3, 8, true));
        // Another slot, another warp or another register misses; any read of the slot and
        // bank replaces the entry.
        assert!(!c.read(0, 0, 3, 8, false));
        assert!(!c.read(0, 1, 4, 8, true));
        assert!(!c.read(0, 1, 3, 8, true));
        // An entry of a retired warp is forgotten; the other bank's is kept.
        assert!(!c.read(1, 2, 3, 9, true));
        c.forget(3);
        assert!(!c.read(0, 1, 3, 8, false));
        assert!(!c.read(1, 2, 3, 9, false));
    }
}
