//! Instructions with two or more register sources, and the coalescing they allow (CORF, seed
//! 000 §2.3, Figure 2.4: "around 40% of the instructions have two or more register source
//! operands ... responsible for over 70% of the register file reads"; "69% ... have the
//! potential for operand coalescing"; first-fit packing coalesces "around 4%").
//!
//! Sources are the 32-bit registers an instruction reads (the register file's view: a 64-bit
//! operand is two registers, which can share one physical register when both halves are
//! narrow). Beside it, the operand view CORF's SASS counts: instructions naming two or more
//! register operands, a 64-bit register or a vector being one. A multi-source instruction is *packable* when two of its sources have widths
//! (all lanes) that fit one 4-byte register together, and *coalesced under first-fit* when two
//! of its sources sit in the same physical register of the first-fit packing model
//! ([`super::packing`]) when it reads them.

use super::InstRecord;
use super::packing::FirstFit;
use serde::Serialize;

/// Source and coalescing counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceCounts {
    /// Register reads and writes.
    pub reads: u64,
    pub writes: u64,
    /// Warp instructions reading two or more registers, and their reads.
    pub multi_source_insts: u64,
    pub multi_source_reads: u64,
    /// Warp instructions naming two or more register source operands (a 64-bit register or
    /// a vector counting once), and their register reads.
    pub multi_operand_insts: u64,
    pub multi_operand_reads: u64,
    /// Of the multi-source instructions, those with two sources whose widths add up to 4
    /// bytes or less.
    pub packable_insts: u64,
    /// Of those, instructions with two sources in one physical register under first-fit.
    pub first_fit_coalesced: u64,
    /// Writes that moved their register under first-fit packing because the value grew.
    pub reallocations: u64,
}

impl SourceCounts {
    /// Counts `rec`'s sources; `packing` is the warp's packing before `rec` writes.
    pub fn observe(&mut self, rec: &InstRecord, packing: &FirstFit) {
        let n = rec.reads.len() as u64;
        self.reads += n;
        self.writes += rec.writes.len() as u64;
        if rec.source_operands >= 2 {
            self.multi_operand_insts += 1;
            self.multi_operand_reads += n;
        }
        if n < 2 {
            return;
        }
        self.multi_source_insts += 1;
        self.multi_source_reads += n;
        let pairs = || {
            rec.reads
                .iter()
                .enumerate()
                .flat_map(|(i, a)| rec.reads[i + 1..].iter().map(move |b| (a, b)))
        };
        if pairs().any(|(a, b)| a.class_all + b.class_all <= 4) {
            self.packable_insts += 1;
        }
        if pairs().any(|(a, b)| packing.shares_register(a.reg, b.reg)) {
            self.first_fit_coalesced += 1;
        }
    }

    pub fn merge(&mut self, o: &SourceCounts) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.multi_source_insts += o.multi_source_insts;
        self.multi_source_reads += o.multi_source_reads;
        self.multi_operand_insts += o.multi_operand_insts;
        self.multi_operand_reads += o.multi_operand_reads;
        self.packable_insts += o.packable_insts;
        self.first_fit_coalesced += o.first_fit_coalesced;
        self.reallocations += o.reallocations;
    }
}
