//! Write-back: results due this cycle go to the register file through the bank arbiter (as
//! many as there are write ports) and release their scoreboard entries; then the writes the
//! register-file technique deferred, on the ports left.

use super::Sm;
use crate::decode::{PRED_BASE, Unit};
use crate::rf::{RegisterFilePolicy, ResidencyPolicy};
use crate::trace::SpanKind;

impl<'a> Sm<'a> {
    pub(super) fn writeback(&mut self, now: u64) {
        let mut ports = self.cfg.sm.writeback_ports;
        while let Some((overflow, idx)) = self.events.due(now) {
            let f = &self.inflight[idx];
            // Predicates live in their own file: only registers reach the banks.
            self.regs.clear();
            self.regs
                .extend(f.writes.iter().filter(|&&r| r < PRED_BASE));
            let has_regs = !self.regs.is_empty();
            if has_regs && ports == 0 {
                break;
            }
            self.events.pop(overflow);
            self.active = true;
            let slot = f.slot;
            if let Some(t) = &mut self.trace {
                let kind = if f.unit == Unit::LdSt {
                    SpanKind::Memory
                } else {
                    SpanKind::Execute
                };
                t.inst(
                    SpanKind::Collect,
                    slot,
                    f.issued_at,
                    f.dispatched_at,
                    f.func,
                    f.pc,
                );
                t.inst(kind, slot, f.dispatched_at, now, f.func, f.pc);
            }
            if has_regs {
                self.reqs.clear();
                self.rf
                    .plan_writes(slot as u32, f.uid, &self.regs, &mut self.reqs);
                for &req in &self.reqs {
                    self.collector.write(req);
                }
                self.power.on_write(slot as u32, &self.regs, now);
            }
            let w = &mut self.warps[slot];
            w.sb.release(&f.writes);
            if let Some(group) = f.async_group {
                w.copies.complete(group);
            }
            if w.sb_wait == Some(true) {
                self.residency.on_wait_over(slot as u32, now);
            }
            w.sb_wait = None;
            self.data_wait_mask &= !(1 << slot);
            w.outstanding -= 1;
            self.retire_check |= w.exited && w.outstanding == 0;
            if has_regs {
                ports -= 1;
            }
            self.free_inflight.push(idx);
            if self.looks_ahead {
                self.check_locality(slot);
            }
        }
        // Writes the technique deferred (or evictions) take the ports left.
        self.reqs.clear();
        self.rf.drain_writes(now, ports, &mut self.reqs);
        for &req in &self.reqs {
            self.collector.write(req);
            self.active = true;
        }
    }

    /// Schedules the write-back of in-flight instruction `inst`, due at `cycle` (decided at
    /// `now`); the power policy may delay it until its registers are on.
    pub(super) fn schedule_writeback(&mut self, now: u64, cycle: u64, inst: usize) {
        let f = &self.inflight[inst];
        let cycle = self
            .power
            .schedule_write(f.slot as u32, &f.writes, now, cycle);
        self.events.push(cycle, inst);
    }
}
