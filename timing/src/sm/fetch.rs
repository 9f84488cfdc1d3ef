//! Fetch: one warp per cycle whose instruction buffer is empty, round robin, through the
//! instruction cache (whose misses go to the L2).

use super::Sm;
use crate::decode::INST_BYTES;
use crate::memory::{MemorySystem, SmMemory};

impl<'a> Sm<'a> {
    /// Fetches for one warp whose instruction buffer is empty (round robin). A fetch the
    /// instruction cache cannot start (its MSHRs busy) is retried next cycle, from the warp
    /// after it, as GPGPU-Sim's fetch does after a reservation failure.
    pub(super) fn fetch(&mut self, now: u64, mem: &mut SmMemory, l2: &mut MemorySystem) {
        let n = self.warps.len();
        if self.fetch_mask == 0 {
            return;
        }
        // The first candidate at or after the round-robin position.
        let rotated = self.fetch_mask.rotate_right(self.fetch_rr as u32);
        let mut remaining = rotated;
        while remaining != 0 {
            let k = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            let s = (self.fetch_rr + k) % 64;
            if s >= n {
                continue;
            }
            let w = &self.warps[s];
            if !w.live || w.exited || !w.ibuf.is_empty() {
                self.fetch_mask &= !(1 << s);
                continue;
            }
            let Some((func, pc)) = w.next else {
                continue;
            };
            let len = self.code.funcs[func.index()].len() as u32;
            let addr = self.code.code_base[func.index()] + u64::from(pc) * INST_BYTES;
            self.fetch_rr = (s + 1) % n;
            self.active = true;
            let Some(at) = mem.fetch(now, addr, l2) else {
                return;
            };
            let w = &mut self.warps[s];
            let ready = (at + 1).max(w.sleep_until); // + decode; a sleeping warp waits
            let count = self.cfg.sm.fetch_width.min(self.cfg.sm.ibuffer_entries);
            let pcs = pc..(pc + count).min(len);
            for p in pcs.clone() {
                w.ibuf.push_back((func, p, ready));
            }
            let frame = w.frame;
            self.power
                .on_decode(s as u32, self.code, func, pcs, frame, ready);
            self.sync_head(s);
            self.fetch_mask &= !(1 << s);
            return;
        }
    }
}
