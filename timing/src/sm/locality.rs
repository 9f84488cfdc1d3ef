//! LAS's locality checker (seed 000, §5.5.3): when a result of a warp is written back, if the
//! warp's next instruction is a global load, its addresses (now computable: the paper adds
//! the written value to the load's offset) are looked up in the register-file technique's
//! table, and a hit marks the warp to be scheduled first.

use super::Sm;
use crate::rf::RegisterFilePolicy;
use emulator::exec::Target;
use emulator::warp::WARP_SIZE;

impl<'a> Sm<'a> {
    /// Marks the warp in `slot` first in its scheduler if its next instruction is a load the
    /// register-file technique would serve now, and unmarks it otherwise.
    pub(super) fn check_locality(&mut self, slot: usize) {
        let w = &self.warps[slot];
        if !w.live || w.exited {
            return;
        }
        let Some((func, pc)) = w.next else {
            return;
        };
        let d = self.code.get(func, pc);
        let crate::decode::MemOp::Access { bytes, .. } = d.mem else {
            return;
        };
        if !d.mem.is_load() {
            return;
        }
        let cta = self.ctas[w.cta].as_ref().expect("a live warp's CTA");
        let mut targets = [Target::None; WARP_SIZE];
        let hit = cta
            .stepper
            .peek_targets(w.index, &mut targets)
            .is_some_and(|exec| self.rf.holds_load(&targets, exec, bytes));
        let n = self.schedulers.len();
        self.schedulers[slot % n].prioritise(slot, hit);
    }
}
