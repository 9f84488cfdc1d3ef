//! Fetch: `sm.fetch_warps` warps per cycle whose instruction buffer is empty, round robin,
//! through the instruction cache (whose misses go to the L2).

use super::{Sm, Waiter};
use crate::decode::INST_BYTES;
use crate::memory::{Outcome, SmMemory};

impl<'a> Sm<'a> {
    /// Fetches for up to `sm.fetch_warps` warps whose instruction buffer is empty, round
    /// robin, as GPGPU-Sim's cycle repeats fetch `gpgpu_inst_fetch_throughput` times.
    pub(super) fn fetch(&mut self, now: u64, mem: &mut SmMemory) {
        for _ in 0..self.cfg.sm.fetch_warps {
            if !self.fetch_one(now, mem) {
                return;
            }
        }
    }

    /// Fetches for one warp whose instruction buffer is empty (round robin); whether it did.
    /// A fetch the instruction cache cannot start (its MSHRs busy) is retried next cycle,
    /// from the warp after it, as GPGPU-Sim's fetch does after a reservation failure.
    fn fetch_one(&mut self, now: u64, mem: &mut SmMemory) -> bool {
        let n = self.warps.len();
        if self.fetch_mask == 0 {
            return false;
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
            let count = self.cfg.sm.fetch_width.min(self.cfg.sm.ibuffer_entries);
            let pcs = pc..(pc + count).min(len);
            match mem.fetch(now, addr) {
                Outcome::Ready(at) => {
                    let w = &mut self.warps[s];
                    let ready = (at + 1).max(w.sleep_until); // + decode; a sleeping warp waits
                    for p in pcs.clone() {
                        w.ibuf.push_back((func, p, ready));
                    }
                    let frame = w.frame;
                    self.power
                        .on_decode(s as u32, self.code, func, pcs, frame, ready);
                    self.sync_head(s);
                }
                Outcome::Pending(ticket) => {
                    // Not available before the commit says when the line is back.
                    for p in pcs.clone() {
                        self.warps[s].ibuf.push_back((func, p, u64::MAX));
                    }
                    self.waiting
                        .push((ticket, Waiter::Fetch { slot: s, func, pcs }));
                    self.sync_head(s);
                }
                Outcome::Stall => return false,
            }
            self.fetch_mask &= !(1 << s);
            return true;
        }
        false
    }

    /// The instructions `pcs` of `func` that warp slot `slot` fetched, placed in its buffer
    /// not yet available, are delivered by the instruction cache at `at`: available a cycle
    /// later (decode), or when a sleeping warp wakes.
    pub(super) fn fetched(
        &mut self,
        slot: usize,
        func: isa::FuncId,
        pcs: std::ops::Range<u32>,
        at: u64,
    ) {
        let w = &mut self.warps[slot];
        let ready = (at + 1).max(w.sleep_until);
        for entry in w.ibuf.iter_mut().filter(|e| e.2 == u64::MAX) {
            entry.2 = ready;
        }
        let frame = w.frame;
        self.power
            .on_decode(slot as u32, self.code, func, pcs, frame, ready);
        self.sync_head(slot);
    }
}
