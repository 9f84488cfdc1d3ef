//! The LD/ST units: an issued memory instruction's lanes split by where they go, shared and
//! constant accesses at dispatch, global and local transactions through the L1 one per cycle.

use super::{Sm, Waiter};
use crate::config::GpuConfig;
use crate::decode::{L1Route, MemOp};
use crate::memory::{
    AccessKind, Outcome, SmMemory, Transaction, coalesce, coalesce_atomics, shared_passes,
};
use emulator::exec::Target;
use emulator::stepper::Executed;

/// Synthetic device addresses the timing model gives local memory (interleaved by lane, 4
/// bytes at a time, as hardware lays it out so a warp's accesses to one variable coalesce) and
/// kernel parameters (for the constant cache). They only need to be distinct from global
/// addresses and from each other.
pub(super) const LOCAL_TIMING_BASE: u64 = 0x7f00_0000_0000;
pub(super) const PARAM_TIMING_BASE: u64 = 0x7e00_0000_0000;

/// Memory work of an issued instruction.
#[derive(Default)]
pub(super) struct MemWork {
    pub(super) kind: Option<AccessKind>,
    /// Whether the global transactions go straight to the L2 ([`crate::decode::L1Route`]).
    pub(super) bypass_l1: bool,
    /// Bytes each lane accesses.
    pub(super) bytes: u32,
    pub(super) shared: Vec<u64>,
    pub(super) constant: Vec<u64>,
    pub(super) global: Vec<Transaction>,
}

/// A memory instruction in an LD/ST unit (the cycle its data is back is its in-flight
/// entry's).
pub(super) struct LdStBusy {
    pub(super) inst: usize,
    pub(super) next: usize,
    pub(super) busy_until: u64,
}

impl<'a> Sm<'a> {
    /// Puts memory instruction `inst` into free LD/ST unit `u` at `now`: it starts what needs
    /// no L1 transaction, and its transactions go from the next cycle.
    pub(super) fn enter_ldst(&mut self, u: usize, now: u64, inst: usize, mem: &mut SmMemory) {
        let busy_until = self.start_memory(now, inst, mem);
        self.ldst[u] = Some(LdStBusy {
            inst,
            next: 0,
            busy_until,
        });
    }

    /// Whether the LD/ST latch (`sm.ldst_latch`) has room for `inst`: its sub-core's equal
    /// share of the latch (GPGPU-Sim's register sets give each sub-core its own slots).
    pub(super) fn ldst_latch_has_room(&self, inst: usize) -> bool {
        let share = (self.cfg.sm.ldst_latch as usize / self.sub_cores).max(1);
        let sub = self.inflight[inst].slot % self.sub_cores;
        let held = self
            .ldst_latch
            .iter()
            .filter(|&&i| self.inflight[i].slot % self.sub_cores == sub)
            .count();
        held < share
    }

    /// The free LD/ST units take the oldest instructions of the latch (GPGPU-Sim's `execute`
    /// moves the oldest ready `OC_EX_MEM` entry into the unit after the unit's cycle): an
    /// instruction that left its collector unit last cycle is in the unit this cycle and
    /// makes its accesses the next.
    pub(super) fn leave_ldst_latch(&mut self, now: u64, mem: &mut SmMemory) {
        while !self.ldst_latch.is_empty() {
            let Some(u) = self.ldst.iter().position(|b| b.is_none()) else {
                break;
            };
            let k = (0..self.ldst_latch.len())
                .min_by_key(|&k| self.inflight[self.ldst_latch[k]].uid)
                .expect("a latched instruction");
            let inst = self.ldst_latch.remove(k);
            self.enter_ldst(u, now, inst, mem);
            self.active = true;
        }
    }

    pub(super) fn ldst_cycle(&mut self, now: u64, mem: &mut SmMemory) {
        let per_cycle = self.cfg.mem.l1_requests_per_cycle as usize;
        for u in 0..self.ldst.len() {
            let Some(busy) = &mut self.ldst[u] else {
                continue;
            };
            if now < busy.busy_until {
                continue;
            }
            // Working or retrying after a stall: either way the next cycle may differ.
            self.active = true;
            let inst = busy.inst;
            let f = &mut self.inflight[inst];
            let kind = f.mem.kind.unwrap_or(AccessKind::Load);
            // Loads and `cp.async` copies complete when their data is back; stores when the
            // L2 acknowledges them, since a warp exits only once its stores are acknowledged
            // (GPGPU-Sim's `shd_warp_t::hardware_done` needs `stores_done`, which each
            // WRITE_ACK counts down in `shader_core_ctx::store_ack`): nothing waits for a
            // store but the warp's exit, and so its CTA's retirement. Reductions without a
            // result complete once accepted.
            let waits =
                kind == AccessKind::Store || !f.writes.is_empty() || f.async_group.is_some();
            // Transactions that skip the L1 go to the interconnect one a cycle (GPGPU-Sim's
            // `ldst_unit::memory_cycle` pushes one access a call on its bypass path; only the
            // L1's path takes `l1_banks` a cycle).
            let per_cycle = if f.mem.bypass_l1 { 1 } else { per_cycle };
            let mut accepted = 0;
            while busy.next < f.mem.global.len() && accepted < per_cycle {
                match mem.global(now, f.mem.global[busy.next], kind, f.mem.bypass_l1) {
                    Outcome::Ready(c) => f.ready = f.ready.max(c),
                    Outcome::Pending(ticket) => {
                        if waits {
                            f.unresolved += 1;
                            self.waiting.push((ticket, Waiter::Inst(inst)));
                        }
                    }
                    Outcome::Stall => break,
                }
                busy.next += 1;
                accepted += 1;
            }
            if busy.next == f.mem.global.len() {
                self.ldst[u] = None;
                if !waits {
                    self.schedule_writeback(now, now + 1, inst);
                } else if f.unresolved > 0 {
                    self.writeback_at_commit.push(inst);
                } else {
                    let done = f.ready.max(now + 1);
                    self.schedule_writeback(now, done, inst);
                }
            }
        }
    }

    /// Starts the parts of a memory instruction served without L1 transactions (shared memory,
    /// the constant cache); sets when their data is ready (the commit may tell) and returns
    /// until when the unit is busy.
    pub(super) fn start_memory(&mut self, now: u64, inst: usize, mem: &mut SmMemory) -> u64 {
        let cfg = self.cfg;
        let f = &mut self.inflight[inst];
        let work = &f.mem;
        let mut ready = now + 1;
        let mut busy_until = now;
        if !work.shared.is_empty() {
            let passes = shared_passes(
                &work.shared,
                work.bytes,
                cfg.mem.shared.banks,
                cfg.mem.shared.bank_bytes,
            )
            .max(1);
            self.stats.ldst.shared_requests += 1;
            self.stats.ldst.shared_replays += u64::from(passes - 1);
            busy_until = now + u64::from(passes);
            ready = ready.max(now + u64::from(passes) - 1 + u64::from(cfg.mem.shared.latency));
        }
        if !work.constant.is_empty() {
            self.stats.ldst.constant_requests += 1;
            match mem.constant(now, &work.constant) {
                Outcome::Ready(c) => ready = ready.max(c),
                Outcome::Pending(ticket) => {
                    f.unresolved += 1;
                    self.waiting.push((ticket, Waiter::Inst(inst)));
                }
                Outcome::Stall => unreachable!("the constant cache takes every access"),
            }
        }
        f.ready = ready;
        busy_until
    }
}

/// The memory work of an executed instruction: its lanes' addresses, split by where they go.
pub(super) fn memory_work(
    cfg: &GpuConfig,
    exec: &Executed,
    op: MemOp,
    sm: u32,
    slot: usize,
    stats: &mut crate::stats::LdStStats,
    work: &mut MemWork,
) {
    work.kind = None;
    work.shared.clear();
    work.constant.clear();
    work.global.clear();
    let MemOp::Access {
        kind,
        bytes,
        constant,
        l1,
    } = op
    else {
        return;
    };
    work.kind = Some(kind);
    work.bypass_l1 = false;
    work.bytes = bytes;
    if !exec.memory || exec.exec == 0 {
        return;
    }
    let mut global = [0u64; emulator::warp::WARP_SIZE];
    let mut lanes = 0;
    let local_base =
        LOCAL_TIMING_BASE + (u64::from(sm) * u64::from(cfg.sm.max_warps) + slot as u64) * (1 << 24);
    for (lane, t) in exec.targets.iter().enumerate() {
        match *t {
            Target::None => {}
            Target::Shared(o) => work.shared.push(o),
            Target::Param(o) => work.constant.push(PARAM_TIMING_BASE + o),
            Target::Global(a) if constant => work.constant.push(a),
            Target::Global(a) => {
                global[lanes] = a;
                lanes += 1;
                work.bypass_l1 |= l1 == L1Route::BypassGlobal;
            }
            // Local memory interleaves the lanes' elements, so a warp's accesses to one
            // variable coalesce.
            Target::Local(o) => {
                let b = u64::from(bytes);
                global[lanes] = local_base + (o / b) * 32 * b + lane as u64 * b + o % b;
                lanes += 1;
            }
        }
    }
    work.bypass_l1 |= l1 == L1Route::Bypass;
    if lanes > 0 {
        let coalesced = if kind == AccessKind::Atomic {
            coalesce_atomics
        } else {
            coalesce
        };
        coalesced(
            &global[..lanes],
            bytes,
            cfg.mem.l1d.line,
            cfg.mem.sector,
            &mut work.global,
        );
        stats.global_requests += 1;
        stats.global_transactions += work.global.len() as u64;
        stats.global_sectors += work
            .global
            .iter()
            .map(|t| u64::from(t.sectors.count_ones()))
            .sum::<u64>();
    }
}
