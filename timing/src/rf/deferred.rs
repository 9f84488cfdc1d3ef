//! What BOW's collectors and the register-file cache share: results held back from the
//! register file. Such a technique tracks each issued result until its write-back
//! ([`PendingResults`]: does it go to the banks then?) and writes the ones it lets go later on
//! the write ports that write-backs leave free ([`WriteQueue`]).

use super::BankReq;
use std::collections::VecDeque;

/// A result of an issued instruction, until its write-back.
#[derive(Clone, Copy, Debug)]
struct Pending {
    uid: u64,
    reg: u32,
    to_rf: bool,
}

/// The results of one warp's issued instructions, until their write-backs.
#[derive(Clone, Debug, Default)]
pub struct PendingResults(Vec<Pending>);

impl PendingResults {
    /// Instruction `uid`'s result in `reg` goes to the register file at write-back, or not.
    pub fn push(&mut self, uid: u64, reg: u32, to_rf: bool) {
        self.0.push(Pending { uid, reg, to_rf });
    }

    /// Redirects instruction `uid`'s result in `reg` (its copy left the collector or cache
    /// before it arrived).
    pub fn set_to_rf(&mut self, uid: u64, reg: u32, to_rf: bool) {
        if let Some(p) = self.0.iter_mut().find(|p| p.uid == uid && p.reg == reg) {
            p.to_rf = to_rf;
        }
    }

    /// At its write-back: whether instruction `uid`'s result in `reg` goes to the register
    /// file (a result not planned at issue does).
    pub fn take(&mut self, uid: u64, reg: u32) -> bool {
        match self.0.iter().position(|p| p.uid == uid && p.reg == reg) {
            Some(k) => self.0.swap_remove(k).to_rf,
            None => true,
        }
    }
}

/// Register-file writes a technique makes on its own (results leaving a collector or a
/// cache), oldest first, by warp slot.
#[derive(Clone, Debug, Default)]
pub struct WriteQueue(VecDeque<(u32, BankReq)>);

impl WriteQueue {
    pub fn push(&mut self, warp: u32, req: BankReq) {
        self.0.push_back((warp, req));
    }

    /// Moves up to `ports` writes to `out`; returns how many.
    pub fn drain(&mut self, ports: u32, out: &mut Vec<BankReq>) -> u64 {
        let n = self.0.len().min(ports as usize);
        out.extend(self.0.drain(..n).map(|(_, req)| req));
        n as u64
    }

    /// Drops the writes of warp slot `warp` (its warp retired: nothing reads them); returns
    /// how many.
    pub fn forget(&mut self, warp: u32) -> u64 {
        let before = self.0.len();
        self.0.retain(|&(w, _)| w != warp);
        (before - self.0.len()) as u64
    }

    /// The next cycle the queue needs, if it holds writes.
    pub fn next_wake(&self, now: u64) -> Option<u64> {
        (!self.0.is_empty()).then_some(now + 1)
    }
}
