//! BOW's bypassing opportunity (seed 000, chapter 3, Figure 3.3 and Figure 3.7).
//!
//! An instruction window of `w` is a sliding window over the warp's own consecutive
//! instructions: the current instruction and the `w − 1` before it ("an IW of 2 ... examines
//! whether the operands of the first instruction are also needed by the second one").
//! Every access to an operand keeps it in the bypassing operand collector for another window
//! ("every time an operand is used by an instruction it remains active for window size
//! instructions after that": the extended window), so:
//!
//! - a *bypassable read* is a register read whose register was read or written by one of the
//!   previous `w − 1` instructions of the warp (distance to its last access < `w`);
//! - a *bypassable write* is a write whose value is *transient*: it is read at least once and
//!   every read comes within the window of the value's previous access (write or read), so the
//!   value never needs the register file (BOW-WR's "BOC-only" results, 52% at IW = 3, which is
//!   also Figure 3.3's 52% of writes). Values never read are not counted here (the values
//!   measure reports them);
//! - a write is *reused* when its first read is in the window: the value goes to the collector
//!   (BOW-WR's "BOC-only" plus "both", 52% + 27% at IW = 3).
//!
//! Instructions with no register operand (branches, barriers) still move the window, since
//! the collector sees the warp's instruction stream.

use super::WINDOWS;
use super::values::Value;
use serde::Serialize;

/// Counts for one window size.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WindowCounts {
    pub window: u32,
    pub bypassed_reads: u64,
    pub transient_writes: u64,
    pub reused_writes: u64,
}

/// BOW's opportunity over every window of [`WINDOWS`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BypassCounts {
    /// Register reads.
    pub reads: u64,
    /// Values written (each counted when it ends).
    pub writes: u64,
    pub windows: [WindowCounts; WINDOWS.len()],
}

impl Default for BypassCounts {
    fn default() -> BypassCounts {
        BypassCounts {
            reads: 0,
            writes: 0,
            windows: WINDOWS.map(|window| WindowCounts {
                window,
                ..WindowCounts::default()
            }),
        }
    }
}

impl BypassCounts {
    /// A read `gap` instructions after the register's last access (`None`: never accessed).
    pub fn read(&mut self, gap: Option<u64>) {
        self.reads += 1;
        if let Some(gap) = gap {
            for w in &mut self.windows {
                w.bypassed_reads += u64::from(gap < u64::from(w.window));
            }
        }
    }

    /// A value ended: was its write bypassable?
    pub fn end_value(&mut self, v: &Value) {
        self.writes += 1;
        if v.reads == 0 {
            return;
        }
        for w in &mut self.windows {
            let window = u64::from(w.window);
            w.transient_writes += u64::from(v.max_gap < window);
            w.reused_writes += u64::from(v.first_gap < window);
        }
    }

    pub fn merge(&mut self, o: &BypassCounts) {
        self.reads += o.reads;
        self.writes += o.writes;
        for (a, b) in self.windows.iter_mut().zip(&o.windows) {
            a.bypassed_reads += b.bypassed_reads;
            a.transient_writes += b.transient_writes;
            a.reused_writes += b.reused_writes;
        }
    }
}
