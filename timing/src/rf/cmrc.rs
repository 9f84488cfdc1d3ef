//! CMRC, the Comprehensive Multi-port Register Coalescing file (seed 003): a hardware-only
//! technique that lets two narrow register accesses share one bank access.
//!
//! - **Byte-planar banks.** Sub-bank `k` of a bank holds byte `k` of every lane of each of its
//!   entries. A value takes as many sub-banks as its width needs (the width over all 32 lanes,
//!   as the width detection unit measures at write-back): entries at even numbers are
//!   right-aligned (an 8-bit value in sub-bank 0: mask `0001`, 16-bit `0011`, 24-bit `0111`),
//!   odd ones left-aligned (`1000`, `1100`, `1110`); a full value takes `1111`. The width of
//!   every entry is kept (3 bits per warp register in hardware), and reads unpack with sign
//!   extension.
//! - **Dual-addressed banks.** Each sub-bank has its own address and read/write controls, so a
//!   bank serves in one cycle one request, or two to an even and an odd entry whose masks are
//!   disjoint: reads or writes, of one instruction or of two, of one warp or of two.
//! - **A sliced crossbar.** Four 32-byte crossbars, one per sub-bank position, so a collector
//!   unit's port takes in one cycle requests from several banks as long as their masks are
//!   disjoint (each slice of the port carries one sub-bank).
//!
//! Entries: a warp's registers occupy consecutive entries of a bank, from an even one. Under
//! the `wid` mapping (every register of a warp in one bank) register `r` is the warp's entry
//! `r`; under `wshift` (register `r` of warp `w` in bank `(r + w) mod banks`) it is entry
//! `r / banks` of the warp's part of that bank. Only the parity of the entry matters.
//!
//! **Divergence.** The paper leaves partial writes aside ("treated conservatively"). Here the
//! entry's width after a write is the width of the whole warp register as it then stands,
//! inactive lanes' old values included, so the entry always holds its value exactly: a
//! partial write of a narrow value into a wide register keeps it wide.
//!
//! **Limit study** (`cmrc-ideal`): the paper's "infinite ports" bound, where no bank or
//! collector port ever refuses a request (up to the arbiter's four grants per bank per cycle).
//!
//! What is not modelled: writes never wait for a bank in this timing model (they are bounded
//! by `sm.writeback_ports` per cycle), so coalescing two writes saves bank accesses and energy
//! but no cycles; reads coalesce with writes and with each other.

use super::{BankMap, BankReq, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::collector::RfStats;
use crate::config::{BankMapping, GpuConfig};
use crate::energy::RfComponentCounts;

/// The width class a register has before anything is known of it: a full 32-bit value.
const FULL: u8 = 4;

/// The CMRC technique (and its limit study).
pub struct Cmrc {
    map: BankMap,
    /// Banks one warp's registers spread over ([`BankMap::banks_per_warp`]).
    banks: u32,
    mapping: BankMapping,
    /// The infinite-ports limit study.
    ideal: bool,
    /// The width class (bytes, 1 to 4) of every warp register's stored value, by warp slot and
    /// register; [`FULL`] for registers never written.
    widths: Vec<Vec<u8>>,
    /// The registers each issued, not yet written-back instruction will write, with their new
    /// widths: (issue order, register, width class).
    pending: Vec<(u64, u32, u8)>,
    /// Byte slices activated by planned reads and by writes.
    read_slices: u64,
    write_slices: u64,
}

impl Cmrc {
    /// CMRC on `cfg`'s register file; `ideal` for the infinite-ports limit study.
    pub fn new(cfg: &GpuConfig, ideal: bool) -> Cmrc {
        let map = BankMap::new(cfg);
        Cmrc {
            map,
            banks: map.banks_per_warp(),
            mapping: cfg.sm.rf.mapping,
            ideal,
            widths: Vec::new(),
            pending: Vec::new(),
            read_slices: 0,
            write_slices: 0,
        }
    }

    /// Whether this is the infinite-ports limit study.
    pub fn is_ideal(&self) -> bool {
        self.ideal
    }

    /// The entry of register `reg` within the warp's part of its bank (see the module docs).
    fn entry(&self, reg: u32) -> u32 {
        match self.mapping {
            BankMapping::Wid => reg,
            BankMapping::Wshift => reg / self.banks,
        }
    }

    /// The width class of register `reg` of warp slot `warp`.
    fn width(&self, warp: u32, reg: u32) -> u8 {
        self.widths
            .get(warp as usize)
            .and_then(|w| w.get(reg as usize))
            .copied()
            .unwrap_or(FULL)
    }

    fn set_width(&mut self, warp: u32, reg: u32, width: u8) {
        let (warp, reg) = (warp as usize, reg as usize);
        if self.widths.len() <= warp {
            self.widths.resize_with(warp + 1, Vec::new);
        }
        let w = &mut self.widths[warp];
        if w.len() <= reg {
            w.resize(reg + 1, FULL);
        }
        w[reg] = width;
    }

    /// One bank access to register `reg` of warp slot `warp` holding a value of `width` bytes.
    fn access(&self, warp: u32, reg: u32, width: u8, write: bool) -> BankReq {
        let row = self.entry(reg);
        BankReq {
            bank: self.map.bank(warp, reg),
            row,
            slices: slice_mask(width, row),
            write,
            operands: u8::from(!write),
            forwarded: false,
            ready_at: 0,
        }
    }
}

/// The sub-banks a value of `width` bytes takes in entry `row`: the low ones for an even
/// entry (right-aligned), the high ones for an odd entry (left-aligned).
pub fn slice_mask(width: u8, row: u32) -> u8 {
    let width = width.clamp(1, 4);
    let low = (1u8 << width) - 1;
    if row.is_multiple_of(2) {
        low
    } else {
        low << (4 - width)
    }
}

impl RegisterFilePolicy for Cmrc {
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        for &r in &i.decoded.reads {
            let req = self.access(i.warp, r, self.width(i.warp, r), false);
            self.read_slices += u64::from(req.slices.count_ones());
            out.push(req);
        }
        // The values this instruction writes are known now (it executed at issue): later
        // reads see their widths, and its write-back writes them.
        for w in i.writes {
            self.set_width(i.warp, w.reg, w.class_all);
            self.pending.push((i.uid, w.reg, w.class_all));
        }
    }

    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        for &r in regs {
            let width = self
                .pending
                .iter()
                .position(|&(u, reg, _)| u == uid && reg == r)
                .map_or(FULL, |k| self.pending.swap_remove(k).2);
            let req = self.access(warp, r, width, true);
            self.write_slices += u64::from(req.slices.count_ones());
            out.push(req);
        }
    }

    fn bank_accepts(&self, granted: &[BankReq], req: &BankReq) -> bool {
        match granted {
            _ if self.ideal => true,
            [] => true,
            [other] => other.row % 2 != req.row % 2 && other.slices & req.slices == 0,
            _ => false,
        }
    }

    fn port_accepts(&self, taken: &[BankReq], req: &BankReq) -> bool {
        self.ideal || taken.iter().all(|t| t.slices & req.slices == 0)
    }

    fn component_counts(
        &self,
        rf: &RfStats,
        sub_banks: u32,
        allocated_register_cycles: u64,
    ) -> RfComponentCounts {
        let mut c = RfComponentCounts::baseline(rf, sub_banks, allocated_register_cycles);
        if !self.ideal {
            // A read granted into a bank access already made this cycle shares it.
            c.bank_reads = rf.reads - rf.shared_bank_accesses;
        }
        // Each byte slice is `sub_banks / 4` sub-banks.
        c.slice_activations = (self.read_slices + self.write_slices) * u64::from(sub_banks) / 4;
        c
    }

    fn report(&self, out: &mut TechniqueReport) {
        out.add("read_slices", self.read_slices);
        out.add("write_slices", self.write_slices);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rf::RfPolicy;

    fn req(bank: u32, row: u32, slices: u8, write: bool) -> BankReq {
        BankReq {
            bank,
            row,
            slices,
            write,
            operands: u8::from(!write),
            forwarded: false,
            ready_at: 0,
        }
    }

    #[test]
    fn even_entries_are_right_aligned_and_odd_ones_left_aligned() {
        let even: Vec<u8> = (1..=4).map(|w| slice_mask(w, 6)).collect();
        let odd: Vec<u8> = (1..=4).map(|w| slice_mask(w, 7)).collect();
        assert_eq!(even, [0b0001, 0b0011, 0b0111, 0b1111]);
        assert_eq!(odd, [0b1000, 0b1100, 0b1110, 0b1111]);
    }

    #[test]
    fn a_bank_takes_an_even_and_an_odd_request_with_disjoint_masks() {
        let cmrc = Cmrc::new(&GpuConfig::preset("gtx480"), false);
        let even16 = req(0, 2, 0b0011, false);
        // A read and a write, an even and an odd entry, masks 0011 and 1100: one access.
        assert!(cmrc.bank_accepts(&[even16], &req(0, 5, 0b1100, true)));
        assert!(cmrc.bank_accepts(&[req(0, 5, 0b1100, true)], &even16));
        // Overlapping masks (a 24-bit odd value), two even entries, or a third request: no.
        assert!(!cmrc.bank_accepts(&[even16], &req(0, 5, 0b1110, false)));
        assert!(!cmrc.bank_accepts(&[even16], &req(0, 4, 0b0001, false)));
        let pair = [even16, req(0, 5, 0b1000, false)];
        assert!(!cmrc.bank_accepts(&pair, &req(0, 9, 0b0100, false)));
        // The limit study takes anything.
        let ideal = Cmrc::new(&GpuConfig::preset("gtx480"), true);
        assert!(ideal.bank_accepts(&[even16], &req(0, 4, 0b1111, false)));
    }

    #[test]
    fn an_even_and_an_odd_read_and_write_share_a_bank_cycle() {
        use crate::collector::OperandCollector;
        use crate::decode::Unit;
        let cfg = crate::collector::single_step_preset("gtx480");
        // One cycle: a write-back to entry 5 (odd, 16 bits: 1100) and a read of entry 2
        // (even, 16 bits: 0011) of bank 0.
        let cycle = |policy: &RfPolicy| {
            let mut oc = OperandCollector::new(&cfg);
            let cu = oc.free_unit(0, Unit::Sp).expect("a free unit");
            oc.allocate(cu, 0, 0, Unit::Sp, |r| r.push(req(0, 2, 0b0011, false)));
            oc.write(req(0, 5, 0b1100, true));
            oc.arbitrate(policy, 1);
            let s = &oc.stats;
            (s.writes, s.reads, s.shared_bank_accesses, s.bank_conflicts)
        };
        // CMRC grants both in one bank access; the baseline's write holds the bank.
        assert_eq!(cycle(&RfPolicy::Cmrc(Cmrc::new(&cfg, false))), (1, 1, 1, 0));
        assert_eq!(cycle(&RfPolicy::new(&cfg)), (1, 0, 0, 1));
    }

    #[test]
    fn a_port_takes_requests_from_several_banks_on_disjoint_slices() {
        let cmrc = Cmrc::new(&GpuConfig::preset("gtx480"), false);
        let taken = [req(0, 0, 0b0001, false), req(1, 3, 0b1100, false)];
        assert!(cmrc.port_accepts(&taken, &req(2, 2, 0b0010, false)));
        assert!(!cmrc.port_accepts(&taken, &req(2, 2, 0b0011, false)));
        assert!(!cmrc.port_accepts(&[req(0, 0, 0b1111, false)], &req(1, 1, 0b1000, false)));
    }

    #[test]
    fn entries_follow_the_bank_mapping() {
        let mut cfg = GpuConfig::preset("gtx480");
        cfg.sm.rf.mapping = BankMapping::Wshift;
        cfg.sm.rf.banks = 4;
        let cmrc = Cmrc::new(&cfg, false);
        // Registers 1, 5 and 9 of a warp share a bank under wshift (4 banks): entries 0, 1, 2.
        let at = |c: &Cmrc, r| (c.access(0, r, 1, false).bank, c.access(0, r, 1, false).row);
        assert_eq!([1, 5, 9].map(|r| at(&cmrc, r)), [(1, 0), (1, 1), (1, 2)]);
        cfg.sm.rf.mapping = BankMapping::Wid;
        let cmrc = Cmrc::new(&cfg, false);
        assert_eq!([1, 5, 9].map(|r| at(&cmrc, r)), [(0, 1), (0, 5), (0, 9)]);
    }

    #[test]
    fn a_write_takes_the_width_its_instruction_produced() {
        let mut cmrc = Cmrc::new(&GpuConfig::preset("gtx480"), false);
        cmrc.set_width(3, 8, 1);
        cmrc.pending.push((42, 8, 2));
        let mut out = Vec::new();
        cmrc.plan_writes(3, 42, &[8, 9], &mut out);
        // Register 8 (an even entry) written 16 bits wide; register 9, unknown, full width.
        let slices: Vec<u8> = out.iter().map(|r| r.slices).collect();
        assert_eq!(slices, [0b0011, 0b1111]);
        assert!(cmrc.pending.is_empty());
        assert_eq!(cmrc.write_slices, 6);
    }
}
