//! Dispatch: instructions whose operands are all read leave their collector units, in the
//! collector's dispatch order (oldest first, or round robin over per-warp units), for a free
//! pipeline of their execution unit (one of their warp's sub-core's, with `sm.sub_cores`) or
//! an LD/ST unit (shared by the sub-cores), through the LD/ST latch when there is one
//! (`sm.ldst_latch`). The collector's steps each dispatch (`sm.rf.collector_steps`), from one
//! budget a cycle (`sm.rf.dispatch_width`).

use super::Sm;
use crate::decode::Unit;
use crate::memory::SmMemory;
use crate::rf::RegisterFilePolicy;

impl<'a> Sm<'a> {
    /// Dispatch at collector step `step` of cycle `now`, taking from the cycle's `budget`.
    pub(super) fn dispatch(&mut self, now: u64, step: u64, budget: &mut u32, mem: &mut SmMemory) {
        if !self.collector.any_collected() {
            return;
        }
        // The ready instructions in the collector's dispatch order.
        let mut ready = std::mem::take(&mut self.ready);
        // One still in the issue latch leaves at a later step: the cycle is not idle.
        self.active |= self.collector.ready(now, step, &mut ready);
        for &cu in &ready {
            if *budget == 0 {
                break;
            }
            let (inst, unit) = self.collector.holds(cu);
            if unit == Unit::LdSt {
                if self.cfg.sm.ldst_latch > 0 {
                    if !self.ldst_latch_has_room(inst) {
                        continue;
                    }
                    self.ldst_latch.push(inst);
                } else {
                    let Some(u) = self.ldst.iter().position(|b| b.is_none()) else {
                        continue;
                    };
                    self.enter_ldst(u, now, inst, mem);
                }
            } else {
                // The unit's class is the collector unit's copy: the in-flight entry is read
                // only when the instruction goes.
                let f = &self.inflight[inst];
                let pipes = &mut self.pipes[unit.index()];
                // With sub-cores, only the pipelines of the warp's own sub-core.
                let per = pipes.len() / self.sub_cores;
                let own = (f.slot % self.sub_cores) * per;
                let Some(p) = pipes[own..own + per].iter().position(|&free| free <= now) else {
                    continue;
                };
                pipes[own + p] = now + u64::from(f.initiation);
                // The result passes the pipeline latches around the unit too.
                let done =
                    now + u64::from(f.latency.max(1)) + u64::from(self.cfg.sm.execute_latches);
                self.schedule_writeback(now, done, inst);
            }
            self.collector.release(cu, now);
            self.inflight[inst].dispatched_at = now;
            let f = &self.inflight[inst];
            self.rf.on_dispatch(f.slot as u32, f.uid);
            self.power.on_dispatch(f.slot as u32, f.uid, now);
            self.active = true;
            *budget -= 1;
        }
        self.ready = ready;
    }
}
