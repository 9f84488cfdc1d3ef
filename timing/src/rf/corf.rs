//! Register packing and its two coalescing refinements from seed 000, chapter 2: CORF and
//! CORF++. One policy, three placements ([`Placement`]):
//!
//! - **Renaming.** A renaming table maps each (warp, register) to a physical register and a
//!   4-bit allocation mask (the byte slices the value occupies); a free map keeps the slices
//!   in use of every physical register. A register is allocated when it is first written,
//!   with the width of the value over all 32 lanes (CORF's rule under divergence: inactive
//!   lanes included); when a later value is wider than its slices it is reallocated (counted;
//!   the paper sees < 0.3% of writes), and when narrower it keeps its slices. Packers align a
//!   value into its slices on write; unpackers shift and sign-extend on read, so functional
//!   results never depend on the placement.
//! - **Placement.** A physical register belongs to one bank: a register is allocated in the
//!   bank the configured mapping gives it (CORF++: the bank of its warp, the paper's `wid`
//!   re-mapping, whatever `sm.rf.mapping` says), except a CORF pair's second register, which
//!   joins its partner's physical register. Within the bank:
//!   - [`Placement::FirstFit`] (plain packing, the paper's reference point): the first
//!     physical register with enough adjacent free slices, lowest slices first;
//!   - [`Placement::Pairs`] (CORF): the first register of a compiler-identified exclusive pair
//!     takes an empty physical register, right-aligned, keeping the rest for its partner; the
//!     partner goes into the rest when it fits, left-aligned; otherwise, and for registers
//!     without a partner, first fit;
//!   - [`Placement::Aligned`] (CORF++): a right-aligned register takes the first physical
//!     register whose low slices are free, a left-aligned one the first whose high slices
//!     are free, a don't-care register first fit.
//! - **Coalescing.** At issue the collector unit looks its source operands up in the renaming
//!   table and pairs them greedily in operand order: two operands in one physical register
//!   (packing, CORF), or anywhere in one bank with disjoint masks (CORF++'s dual-addressed,
//!   byte-planar banks), are read with one bank access delivering both. At most two operands
//!   share an access (two unpackers per collector unit). Coalescing is within an instruction:
//!   banks stay single-ported across requests and collector units read one access per cycle.
//!
//! Physical registers are allocated lazily and held until their warp retires (no
//! virtualisation): the figure of merit is physical registers in use against the
//! architectural registers the baseline allocates, over time. A bank's physical registers are
//! not bounded here (the baseline does not bound rows either; occupancy still comes from
//! registers per thread).
//!
//! Energy: every source operand and every register written looks the renaming table up, and
//! every (re)allocation updates it; leakage is paid on physical registers in use (the paper
//! power-gates the rest). Under CORF and packing an access activates every sub-bank (each
//! sub-bank holds whole 32-bit values of a few lanes); CORF++'s byte-planar sub-banks activate
//! only the slices accessed.

use super::{ALL_SLICES, BankMap, BankReq, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::collector::RfStats;
use crate::config::{BankMapping, GpuConfig};
use crate::energy::RfComponentCounts;
use isa::affinity::{Alignment, CoalescingHints};

/// How a packing register file places a value (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Plain register packing: first fit.
    FirstFit,
    /// CORF: exclusive common pairs share a physical register.
    Pairs,
    /// CORF++: left and right alignments in byte-planar, dual-addressed banks.
    Aligned,
}

/// A renaming-table entry: where a warp register's value lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    bank: u32,
    row: u32,
    /// The byte slices allocated; 0 while the register has never been written.
    mask: u8,
    /// The instruction (pc) that last wrote the register.
    writer: u32,
}

/// Where in a physical register a value of some width may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fit {
    /// The low slices (right-aligned).
    Low,
    /// The high slices (left-aligned).
    High,
    /// Any adjacent free slices, lowest first.
    Any,
    /// An empty physical register, right-aligned.
    Empty,
}

/// Counters of the technique (see [`Corf::report`]).
#[derive(Clone, Debug, Default)]
struct Counters {
    allocations: u64,
    reallocations: u64,
    /// Reallocations of a register whose value before was written by another instruction:
    /// a register that warpsim's allocator reused for a wider value.
    reallocations_new_writer: u64,
    register_writes: u64,
    operand_reads: u64,
    coalesced_reads: u64,
    multi_source_insts: u64,
    coalesced_insts: u64,
    pairs_packed: u64,
    read_slices: u64,
    write_slices: u64,
    physical_register_cycles: u64,
    mapped_register_cycles: u64,
}

/// Register packing, CORF or CORF++ on one SM.
pub struct Corf {
    map: BankMap,
    placement: Placement,
    /// The renaming table, by warp slot and register (in the warp's register window).
    table: Vec<Vec<Slot>>,
    /// The free map of each bank.
    banks: Vec<BankFreeMap>,
    /// Bank writes planned at issue for write-back: (issue order, register, request).
    pending: Vec<(u64, u32, BankReq)>,
    /// Physical registers with a slice in use, and warp registers mapped, since `last_change`.
    live_physical: u64,
    live_mapped: u64,
    last_change: u64,
    counters: Counters,
}

impl Corf {
    /// The technique on `cfg`'s register file with `placement`.
    pub fn new(cfg: &GpuConfig, placement: Placement) -> Corf {
        // CORF++ keeps every register of a warp in one bank so that they can coalesce.
        let mapping = match placement {
            Placement::Aligned => BankMapping::Wid,
            _ => cfg.sm.rf.mapping,
        };
        Corf {
            map: BankMap::with_mapping(cfg, mapping),
            placement,
            table: Vec::new(),
            banks: (0..cfg.sm.rf.banks)
                .map(|_| BankFreeMap::default())
                .collect(),
            pending: Vec::new(),
            live_physical: 0,
            live_mapped: 0,
            last_change: 0,
            counters: Counters::default(),
        }
    }

    /// Which placement this is.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The renaming-table entry of register `reg` of warp slot `warp`.
    fn slot(&self, warp: u32, reg: u32) -> Slot {
        self.table
            .get(warp as usize)
            .and_then(|t| t.get(reg as usize))
            .copied()
            .unwrap_or_default()
    }

    /// The bank read of register `reg`: its physical register and slices; a register never
    /// written (its value undefined) is read whole from a row of its own.
    fn read(&self, warp: u32, reg: u32) -> BankReq {
        let s = self.slot(warp, reg);
        let (bank, row, slices) = if s.mask == 0 {
            (self.map.bank(warp, reg), u32::MAX - reg, ALL_SLICES)
        } else {
            (s.bank, s.row, s.mask)
        };
        BankReq {
            bank,
            row,
            slices,
            write: false,
            operands: 1,
            forwarded: false,
            ready_at: 0,
        }
    }

    /// Whether one bank access can deliver both `a` and `b`.
    fn coalesces(&self, a: &BankReq, b: &BankReq) -> bool {
        a.bank == b.bank
            && match self.placement {
                Placement::FirstFit | Placement::Pairs => a.row == b.row,
                Placement::Aligned => a.slices & b.slices == 0,
            }
    }

    /// The bank reads of source registers `regs` of warp slot `warp`, paired greedily in
    /// operand order: each joins the first earlier single-operand access it coalesces with.
    /// Returns the operands that joined one.
    fn pair_reads(&self, warp: u32, regs: &[u32], out: &mut Vec<BankReq>) -> u64 {
        let mut coalesced = 0;
        for &r in regs {
            let req = self.read(warp, r);
            match out
                .iter_mut()
                .find(|q| q.operands == 1 && self.coalesces(q, &req))
            {
                Some(q) => {
                    q.slices |= req.slices;
                    q.operands = 2;
                    coalesced += 1;
                }
                None => out.push(req),
            }
        }
        coalesced
    }

    /// Integrates the physical registers in use and the registers mapped up to `now`.
    fn advance(&mut self, now: u64) {
        let dt = now.saturating_sub(self.last_change);
        self.counters.physical_register_cycles += self.live_physical * dt;
        self.counters.mapped_register_cycles += self.live_mapped * dt;
        self.last_change = self.last_change.max(now);
    }

    /// Frees the slices of `s` in the free map.
    fn free(&mut self, s: Slot) {
        let bank = &mut self.banks[s.bank as usize];
        let used = bank.used(s.row) & !s.mask;
        bank.set(s.row, used);
        if used == 0 {
            self.live_physical -= 1;
        }
    }

    /// Takes `mask` of physical register `row` of `bank`.
    fn take(&mut self, bank: u32, row: u32, mask: u8) -> Slot {
        let b = &mut self.banks[bank as usize];
        let used = b.used(row);
        if used == 0 {
            self.live_physical += 1;
        }
        b.set(row, used | mask);
        Slot {
            bank,
            row,
            mask,
            writer: 0,
        }
    }

    /// The first physical register of `bank` where a value of `width` bytes fits as `fit`
    /// says (a new one when none does), and its slices.
    fn find(&mut self, bank: u32, width: u8, fit: Fit) -> Slot {
        let (row, mask) = self.banks[bank as usize].first_fit(width, fit);
        self.take(bank, row, mask)
    }

    /// Allocates register `reg` of warp slot `warp` (the function's register `own` with the
    /// compiler's `hints`) for a value of `width` bytes.
    fn allocate(
        &mut self,
        warp: u32,
        reg: u32,
        own: Option<u32>,
        base: u32,
        width: u8,
        hints: Option<&CoalescingHints>,
    ) -> Slot {
        let bank = self.map.bank(warp, reg);
        let Some((hints, own)) = hints.zip(own) else {
            return self.find(bank, width, Fit::Any);
        };
        match self.placement {
            Placement::FirstFit => self.find(bank, width, Fit::Any),
            Placement::Aligned => match hints.alignment(own) {
                Alignment::Right => self.find(bank, width, Fit::Low),
                Alignment::Left => self.find(bank, width, Fit::High),
                Alignment::DontCare => self.find(bank, width, Fit::Any),
            },
            Placement::Pairs => {
                let Some(partner) = hints.partner(own) else {
                    return self.find(bank, width, Fit::Any);
                };
                let p = self.slot(warp, partner + base);
                if p.mask == 0 {
                    // The pair's first register: an empty physical register, the rest of it
                    // kept for the partner.
                    return self.find(bank, width, Fit::Empty);
                }
                let used = self.banks[p.bank as usize].used(p.row);
                match fits(used, width, Fit::High).or_else(|| fits(used, width, Fit::Any)) {
                    Some(mask) => {
                        self.counters.pairs_packed += 1;
                        self.take(p.bank, p.row, mask)
                    }
                    None => self.find(bank, width, Fit::Any),
                }
            }
        }
    }

    /// The renaming-table update of a write of `width` bytes by the instruction at `pc` to
    /// register `reg` of warp slot `warp`: allocation at the first write, reallocation when
    /// the value outgrows its slices.
    fn write(
        &mut self,
        warp: u32,
        reg: u32,
        base: u32,
        width: u8,
        pc: u32,
        hints: Option<&CoalescingHints>,
    ) -> Slot {
        let old = self.slot(warp, reg);
        let width = width.clamp(1, 4);
        let slot = if old.mask != 0 && width <= old.mask.count_ones() as u8 {
            // A narrower value keeps its slices.
            old
        } else {
            if old.mask == 0 {
                self.counters.allocations += 1;
                self.live_mapped += 1;
            } else {
                self.counters.reallocations += 1;
                self.counters.reallocations_new_writer += u64::from(old.writer != pc);
                self.free(old);
            }
            let own = reg.checked_sub(base);
            self.allocate(warp, reg, own, base, width, hints)
        };
        let slot = Slot { writer: pc, ..slot };
        let table = {
            let (w, r) = (warp as usize, reg as usize);
            if self.table.len() <= w {
                self.table.resize_with(w + 1, Vec::new);
            }
            let t = &mut self.table[w];
            if t.len() <= r {
                t.resize(r + 1, Slot::default());
            }
            &mut t[r]
        };
        *table = slot;
        slot
    }
}

/// The free map of one bank: the slices in use of each physical register, and the registers
/// with each pattern of slices in use (bit sets), so that a first fit looks at the few
/// patterns that accept the value instead of scanning the bank.
#[derive(Default)]
struct BankFreeMap {
    used: Vec<u8>,
    /// Bit `r` of `with[p]`: physical register `r`'s slices in use are `p`.
    with: [Vec<u64>; 16],
    /// Registers in each of `with`.
    count: [u32; 16],
}

impl BankFreeMap {
    fn used(&self, row: u32) -> u8 {
        self.used[row as usize]
    }

    fn set(&mut self, row: u32, used: u8) {
        let old = std::mem::replace(&mut self.used[row as usize], used);
        let (word, bit) = (row as usize / 64, 1u64 << (row % 64));
        self.with[usize::from(old)][word] &= !bit;
        self.count[usize::from(old)] -= 1;
        self.with[usize::from(used)][word] |= bit;
        self.count[usize::from(used)] += 1;
    }

    /// The lowest physical register whose slices in use are `p`.
    fn first_with(&self, p: u8) -> Option<u32> {
        if self.count[usize::from(p)] == 0 {
            return None;
        }
        let words = &self.with[usize::from(p)];
        let w = words.iter().position(|&x| x != 0)?;
        Some(w as u32 * 64 + words[w].trailing_zeros())
    }

    /// The first physical register where a value of `width` bytes fits as `fit` says, and
    /// its slices; a new physical register when none does.
    fn first_fit(&mut self, width: u8, fit: Fit) -> (u32, u8) {
        let found = (0..16u8)
            .filter(|&p| fits(p, width, fit).is_some())
            .filter_map(|p| self.first_with(p))
            .min();
        let row = found.unwrap_or_else(|| {
            let row = self.used.len() as u32;
            self.used.push(0);
            if row.is_multiple_of(64) {
                self.with.iter_mut().for_each(|w| w.push(0));
            }
            self.with[0][row as usize / 64] |= 1 << (row % 64);
            self.count[0] += 1;
            row
        });
        let mask = fits(self.used(row), width, fit).expect("the register fits");
        (row, mask)
    }
}

/// The slices a value of `width` bytes takes in a physical register whose slices `used` are
/// taken, placed as `fit` says; `None` when it does not fit.
fn fits(used: u8, width: u8, fit: Fit) -> Option<u8> {
    let low = (1u8 << width) - 1;
    let free = |m: u8| (used & m == 0).then_some(m);
    match fit {
        Fit::Low => free(low),
        Fit::High => free(low << (4 - width)),
        Fit::Any => (0..=4 - width).find_map(|o| free(low << o)),
        Fit::Empty => (used == 0).then_some(low),
    }
}

impl RegisterFilePolicy for Corf {
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        self.advance(i.now);
        let coalesced = self.pair_reads(i.warp, &i.decoded.reads, out);
        let c = &mut self.counters;
        c.operand_reads += i.decoded.reads.len() as u64;
        c.coalesced_reads += coalesced;
        c.read_slices += out
            .iter()
            .map(|q| u64::from(q.slices.count_ones()))
            .sum::<u64>();
        if i.decoded.reads.len() >= 2 {
            c.multi_source_insts += 1;
            c.coalesced_insts += u64::from(coalesced > 0);
        }
        // The values this instruction writes are known now (it executed at issue): the
        // renaming table places them, and its write-back writes their slices.
        let hints = (self.placement != Placement::FirstFit).then(|| i.hints.coalescing());
        for w in i.writes {
            let slot = self.write(i.warp, w.reg, i.frame.gpr, w.class_all, i.pc, hints);
            let req = BankReq {
                bank: slot.bank,
                row: slot.row,
                slices: slot.mask,
                write: true,
                operands: 0,
                forwarded: false,
                ready_at: 0,
            };
            self.pending.push((i.uid, w.reg, req));
        }
    }

    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        for &r in regs {
            let req = match self
                .pending
                .iter()
                .position(|&(u, reg, _)| u == uid && reg == r)
            {
                Some(k) => self.pending.swap_remove(k).2,
                // Not planned at issue (nothing writes it there): the register where it is.
                None => BankReq {
                    write: true,
                    operands: 0,
                    ..self.read(warp, r)
                },
            };
            self.counters.register_writes += 1;
            self.counters.write_slices += u64::from(req.slices.count_ones());
            out.push(req);
        }
    }

    fn on_warp_retire(&mut self, warp: u32, now: u64) {
        self.advance(now);
        let Some(table) = self.table.get_mut(warp as usize) else {
            return;
        };
        let slots = std::mem::take(table);
        for s in slots.into_iter().filter(|s| s.mask != 0) {
            self.free(s);
            self.live_mapped -= 1;
        }
    }

    fn component_counts(
        &self,
        rf: &RfStats,
        sub_banks: u32,
        _allocated_register_cycles: u64,
    ) -> RfComponentCounts {
        let c = &self.counters;
        let mut counts = RfComponentCounts::baseline(rf, sub_banks, c.physical_register_cycles);
        // Every operand goes into a collector unit and out of it, however it was read.
        counts.collector_writes = c.operand_reads;
        counts.collector_reads = c.operand_reads;
        // A lookup per operand and per register written, an update per (re)allocation.
        counts.rename_accesses =
            c.operand_reads + c.register_writes + c.allocations + c.reallocations;
        if self.placement == Placement::Aligned {
            // Byte-planar sub-banks: each byte slice is `sub_banks / 4` sub-banks.
            counts.slice_activations = (c.read_slices + c.write_slices) * u64::from(sub_banks) / 4;
        }
        counts
    }

    fn report(&self, out: &mut TechniqueReport) {
        let c = &self.counters;
        out.add("allocations", c.allocations);
        out.add("reallocations", c.reallocations);
        out.add("reallocations_new_writer", c.reallocations_new_writer);
        out.add("register_writes", c.register_writes);
        out.add("operand_reads", c.operand_reads);
        out.add("coalesced_reads", c.coalesced_reads);
        out.add("multi_source_insts", c.multi_source_insts);
        out.add("coalesced_insts", c.coalesced_insts);
        out.add("pairs_packed", c.pairs_packed);
        out.add("read_slices", c.read_slices);
        out.add("write_slices", c.write_slices);
        out.add("physical_register_cycles", c.physical_register_cycles);
        out.add("mapped_register_cycles", c.mapped_register_cycles);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::AffinityEdge;

    /// Registers 1 and 2 read together often, 2 and 3 rarely: CORF pairs 1 with 2; CORF++
    /// aligns 1 right, 2 left, 3 right.
    fn hints() -> CoalescingHints {
        let edge = |a, b, weight| AffinityEdge { a, b, weight };
        CoalescingHints::compute(&[edge(1, 2, 100), edge(2, 3, 1)])
    }

    fn corf(placement: Placement) -> Corf {
        Corf::new(&GpuConfig::preset("gtx480-4bank"), placement)
    }

    /// The bank reads of an instruction of warp 0 reading `regs`.
    fn reads(c: &Corf, regs: &[u32]) -> Vec<BankReq> {
        let mut out = Vec::new();
        c.pair_reads(0, regs, &mut out);
        out
    }

    #[test]
    fn fits_follow_the_alignment() {
        assert_eq!(fits(0b0001, 2, Fit::High), Some(0b1100));
        assert_eq!(fits(0b1000, 2, Fit::Low), Some(0b0011));
        assert_eq!(fits(0b0001, 2, Fit::Any), Some(0b0110));
        assert_eq!(fits(0b0100, 2, Fit::Any), Some(0b0011));
        assert_eq!(fits(0b0010, 3, Fit::Any), None);
        assert_eq!(fits(0b0010, 1, Fit::Empty), None);
        assert_eq!(fits(0, 4, Fit::Empty), Some(0b1111));
    }

    #[test]
    fn corf_packs_a_pair_into_one_physical_register_read_in_one_access() {
        let mut c = corf(Placement::Pairs);
        let h = hints();
        // Register 1 first: an empty physical register, right-aligned; its partner 2 joins it.
        let one = c.write(0, 1, 0, 1, 0, Some(&h));
        let two = c.write(0, 2, 0, 2, 0, Some(&h));
        assert_eq!((one.row, one.mask), (0, 0b0001));
        assert_eq!((two.bank, two.row, two.mask), (one.bank, 0, 0b1100));
        assert_eq!(c.counters.pairs_packed, 1);
        let r = reads(&c, &[1, 2]);
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].operands, r[0].slices), (2, 0b1101));
        // Register 3, not in a pair, goes first fit into its own bank (warp 0, register 3 of
        // 4 wshift banks): it is read with an access of its own.
        let three = c.write(0, 3, 0, 1, 0, Some(&h));
        assert_eq!((three.bank, three.row, three.mask), (3, 0, 0b0001));
        assert_eq!(reads(&c, &[2, 3]).len(), 2);
        assert_eq!(c.live_physical, 2);
        assert_eq!(c.live_mapped, 3);
    }

    #[test]
    fn a_value_that_grows_is_reallocated_and_one_that_shrinks_stays() {
        let mut c = corf(Placement::Pairs);
        let h = hints();
        c.write(0, 1, 0, 1, 0, Some(&h));
        c.write(0, 2, 0, 1, 0, Some(&h));
        // Register 2 grows to 3 bytes: it no longer fits beside register 1 (1 byte) in the
        // high slices, so it takes slices 1-3... which are free: same physical register.
        let grown = c.write(0, 2, 0, 3, 0, Some(&h));
        assert_eq!((grown.row, grown.mask), (0, 0b1110));
        // Register 1 grows to 2 bytes, written by another instruction (pc 7): its physical
        // register has no room, so it moves.
        let moved = c.write(0, 1, 0, 2, 7, Some(&h));
        assert_eq!((moved.row, moved.mask), (1, 0b0011));
        assert_eq!(c.counters.reallocations, 2);
        assert_eq!(c.counters.reallocations_new_writer, 1);
        assert_eq!(c.counters.allocations, 2);
        assert_eq!(c.banks[grown.bank as usize].used(0), 0b1110);
        // A narrower value keeps its slices.
        assert_eq!(c.write(0, 1, 0, 1, 7, Some(&h)), moved);
        assert_eq!(c.counters.reallocations, 2);
        // Retiring the warp frees everything.
        c.on_warp_retire(0, 10);
        assert_eq!((c.live_physical, c.live_mapped), (0, 0));
        assert!(c.banks.iter().flat_map(|b| &b.used).all(|&u| u == 0));
    }

    #[test]
    fn corf_plus_plus_coalesces_disjoint_masks_across_physical_registers() {
        let mut c = corf(Placement::Aligned);
        let h = hints();
        // Every register of warp 0 in bank 0 (wid). 1 right-aligned, 2 left, 3 right.
        let one = c.write(0, 1, 0, 2, 0, Some(&h));
        let three = c.write(0, 3, 0, 1, 0, Some(&h));
        let two = c.write(0, 2, 0, 2, 0, Some(&h));
        assert_eq!((one.bank, one.row, one.mask), (0, 0, 0b0011));
        assert_eq!((three.bank, three.row, three.mask), (0, 1, 0b0001));
        assert_eq!((two.bank, two.row, two.mask), (0, 0, 0b1100));
        // 2 (1100) and 3 (0001, another physical register) coalesce: disjoint masks.
        let r = reads(&c, &[2, 3]);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].slices, 0b1101);
        // 1 (0011) and 3 (0001) overlap: two accesses.
        assert_eq!(reads(&c, &[1, 3]).len(), 2);
        // Three operands: at most two per access.
        let r = reads(&c, &[1, 2, 3]);
        assert_eq!(r.iter().map(|q| q.operands).collect::<Vec<_>>(), [2, 1]);
        // Plain packing would coalesce only within one physical register.
        let mut p = corf(Placement::FirstFit);
        p.write(0, 2, 0, 2, 0, None);
        p.write(0, 3, 0, 2, 0, None);
        assert_eq!(
            reads(&p, &[2, 3]).len(),
            2,
            "registers 2 and 3 are in banks 2 and 3"
        );
    }

    #[test]
    fn physical_registers_in_use_are_integrated_over_time() {
        let mut c = corf(Placement::FirstFit);
        c.advance(5);
        c.write(0, 0, 0, 1, 0, None);
        c.write(0, 4, 0, 1, 0, None);
        c.advance(15);
        c.on_warp_retire(0, 20);
        // Two warp registers packed in one physical register (both in bank 0), for 15 cycles.
        assert_eq!(c.counters.physical_register_cycles, 15);
        assert_eq!(c.counters.mapped_register_cycles, 30);
    }
}
