//! Values read once, twice, more: the register-file-cache literature's observation (Gebhart
//! et al., via the book's §3.5: "up to 70% of the values produced are read only once, only
//! 10% more than twice").
//!
//! Definition: a *value* is what one write puts in one 32-bit register of one warp; its reads
//! are the instructions of that warp that read the register before it is written again or the
//! warp ends (an instruction reads a register at most once). Values never read are counted
//! separately; reads of registers the warp never wrote (none in compiled code, which writes
//! before reading) are counted apart and belong to no value.

use serde::Serialize;

/// One live value: how often it has been read so far and how far apart its accesses were.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Value {
    pub reads: u32,
    /// Instructions from the write to the first read (meaningful once `reads > 0`).
    pub first_gap: u64,
    /// The largest distance between consecutive accesses (write → first read, read → next
    /// read), in instructions of the warp: the value stays in a BOW window of `w`
    /// instructions from its write to its last read exactly when this is below `w`.
    pub max_gap: u64,
}

impl Value {
    /// A read `gap` instructions after the value's previous access.
    pub fn read(&mut self, gap: u64) {
        if self.reads == 0 {
            self.first_gap = gap;
        }
        self.max_gap = self.max_gap.max(gap);
        self.reads += 1;
    }
}

/// Values by how often they were read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ValueCounts {
    /// Values read 0, 1, 2 and 3 or more times.
    pub by_reads: [u64; 4],
    /// Reads of registers the warp had not written.
    pub unwritten_reads: u64,
}

impl ValueCounts {
    /// A value ended (overwritten, or its warp ended).
    pub fn end(&mut self, v: &Value) {
        self.by_reads[(v.reads as usize).min(3)] += 1;
    }

    /// Values written (every one of them has ended by the time counts are reported).
    pub fn written(&self) -> u64 {
        self.by_reads.iter().sum()
    }

    pub fn merge(&mut self, o: &ValueCounts) {
        for (a, b) in self.by_reads.iter_mut().zip(&o.by_reads) {
            *a += b;
        }
        self.unwritten_reads += o.unwritten_reads;
    }
}
