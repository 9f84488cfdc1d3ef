//! The operand collector: single-ported register-file banks and the collector units that
//! gather an instruction's source operands before it dispatches to an execution unit.
//!
//! Each cycle, banks written back this cycle are unavailable for reads (write-back has
//! priority); every other bank grants one read, to the collector units in rotating priority.
//! A collector unit whose operands are all gathered dispatches in a later cycle, oldest first,
//! when its execution unit can accept it.

use crate::config::{BankMapping, GpuConfig};
use crate::decode::Unit;

/// Collector-unit classes (a unit serves instructions of its class; `General` serves all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CuClass {
    Sp,
    Sfu,
    Int,
    Dp,
    Mem,
    General,
}

/// Maps (warp, register) to a bank.
#[derive(Clone, Copy, Debug)]
pub struct BankMap {
    banks: u32,
    mapping: BankMapping,
}

impl BankMap {
    pub fn new(cfg: &GpuConfig) -> BankMap {
        BankMap {
            banks: cfg.sm.rf.banks,
            mapping: cfg.sm.rf.mapping,
        }
    }

    /// Bank of register `reg` of the warp in slot `warp`.
    pub fn bank(&self, warp: u32, reg: u32) -> u32 {
        match self.mapping {
            BankMapping::Wshift => (reg + warp) % self.banks,
            BankMapping::Wid => warp % self.banks,
        }
    }

    pub fn banks(&self) -> u32 {
        self.banks
    }
}

/// One collector unit.
#[derive(Clone, Debug)]
pub struct CollectorUnit {
    pub class: CuClass,
    /// Whether it holds an instruction.
    pub busy: bool,
    pub alloc_cycle: u64,
    /// Operands still to read: (bank, register).
    pub pending: Vec<(u32, u32)>,
    /// The instruction it holds (an index into the SM's in-flight table).
    pub inst: usize,
    pub unit: Unit,
}

/// Counters of the register file and collectors.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RfStats {
    /// Register-file reads (32-bit warp registers) and writes.
    pub reads: u64,
    pub writes: u64,
    pub reads_per_bank: Vec<u64>,
    pub writes_per_bank: Vec<u64>,
    /// Read requests that lost bank arbitration (one per operand per cycle it waited).
    pub bank_conflicts: u64,
    /// Reads delayed because a write-back held their bank.
    pub write_priority_conflicts: u64,
    /// Cycles instructions spent in collector units, from allocation to dispatch.
    pub collector_wait_cycles: u64,
    /// Busy collector units summed over cycles (divide by cycles for the mean occupancy).
    pub collector_busy_cycles: u64,
    /// Instructions that found no free collector unit of their class, per cycle tried.
    pub collector_full: u64,
}

impl RfStats {
    pub fn new(banks: u32) -> RfStats {
        RfStats {
            reads_per_bank: vec![0; banks as usize],
            writes_per_bank: vec![0; banks as usize],
            ..RfStats::default()
        }
    }

    pub fn merge(&mut self, o: &RfStats) {
        self.reads += o.reads;
        self.writes += o.writes;
        add_vec(&mut self.reads_per_bank, &o.reads_per_bank);
        add_vec(&mut self.writes_per_bank, &o.writes_per_bank);
        self.bank_conflicts += o.bank_conflicts;
        self.write_priority_conflicts += o.write_priority_conflicts;
        self.collector_wait_cycles += o.collector_wait_cycles;
        self.collector_busy_cycles += o.collector_busy_cycles;
        self.collector_full += o.collector_full;
    }
}

pub(crate) fn add_vec(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// The collector units and bank arbitration of one SM.
pub struct OperandCollector {
    pub units: Vec<CollectorUnit>,
    /// For each execution unit class: the collector-unit class it uses first.
    preferred: [CuClass; 5],
    /// Busy units in allocation order (the dispatch order: oldest first).
    by_age: Vec<usize>,
    /// Units with operands still to read (bit per unit).
    reading: u64,
    /// Busy units with every operand read (bit per unit).
    collected: u64,
    /// Free units (bit per unit), and the units of each class (by `CuClass as usize`).
    free: u64,
    class_units: [u64; 6],
    pub map: BankMap,
    /// Rotating start of the arbitration order.
    rr: usize,
    /// Banks written back this cycle (bit per bank).
    written: u64,
    pub stats: RfStats,
}

impl OperandCollector {
    pub fn new(cfg: &GpuConfig) -> OperandCollector {
        let c = &cfg.sm.rf.collectors;
        let mut units = Vec::new();
        for (class, n) in [
            (CuClass::Sp, c.sp),
            (CuClass::Sfu, c.sfu),
            (CuClass::Int, c.int),
            (CuClass::Dp, c.dp),
            (CuClass::Mem, c.mem),
            (CuClass::General, c.general),
        ] {
            for _ in 0..n {
                units.push(CollectorUnit {
                    class,
                    busy: false,
                    alloc_cycle: 0,
                    pending: Vec::with_capacity(8),
                    inst: 0,
                    unit: Unit::Sp,
                });
            }
        }
        let has = |c: CuClass| units.iter().any(|u| u.class == c);
        // Integer and double-precision instructions use the SP units' collectors when the
        // configuration has none of their own (Fermi).
        let preferred = Unit::ALL.map(|unit| match unit {
            Unit::Sp => CuClass::Sp,
            Unit::Sfu => CuClass::Sfu,
            Unit::LdSt => CuClass::Mem,
            Unit::Int if has(CuClass::Int) => CuClass::Int,
            Unit::Dp if has(CuClass::Dp) => CuClass::Dp,
            Unit::Int | Unit::Dp => CuClass::Sp,
        });
        let class_units = [
            CuClass::Sp,
            CuClass::Sfu,
            CuClass::Int,
            CuClass::Dp,
            CuClass::Mem,
            CuClass::General,
        ]
        .map(|c| {
            units
                .iter()
                .enumerate()
                .filter(|(_, u)| u.class == c)
                .fold(0u64, |m, (i, _)| m | (1 << i))
        });
        OperandCollector {
            free: class_units.iter().fold(0, |m, c| m | c),
            class_units,
            preferred,
            by_age: Vec::with_capacity(units.len()),
            reading: 0,
            collected: 0,
            units,
            map: BankMap::new(cfg),
            rr: 0,
            written: 0,
            stats: RfStats::new(cfg.sm.rf.banks),
        }
    }

    /// A free collector unit for an instruction of `unit` (one of its class first, then a
    /// general one), if any.
    pub fn free_unit(&self, unit: Unit) -> Option<usize> {
        let own = self.free & self.class_units[self.preferred[unit.index()] as usize];
        let any = if own != 0 {
            own
        } else {
            self.free & self.class_units[CuClass::General as usize]
        };
        (any != 0).then(|| any.trailing_zeros() as usize)
    }

    /// Puts an instruction into collector unit `cu`: it will read `regs` of warp slot `warp`.
    pub fn allocate(
        &mut self,
        cu: usize,
        now: u64,
        warp: u32,
        regs: &[u32],
        inst: usize,
        unit: Unit,
    ) {
        let map = self.map;
        let u = &mut self.units[cu];
        u.busy = true;
        u.alloc_cycle = now;
        u.inst = inst;
        u.unit = unit;
        u.pending.clear();
        u.pending
            .extend(regs.iter().map(|&r| (map.bank(warp, r), r)));
        self.by_age.push(cu);
        self.free &= !(1 << cu);
        if regs.is_empty() {
            self.collected |= 1 << cu;
        } else {
            self.reading |= 1 << cu;
        }
    }

    /// Records a write-back to register `reg` of warp slot `warp` this cycle.
    pub fn write(&mut self, warp: u32, reg: u32) {
        let bank = self.map.bank(warp, reg);
        self.written |= 1 << bank;
        self.stats.writes += 1;
        self.stats.writes_per_bank[bank as usize] += 1;
    }

    /// One cycle of bank arbitration: each bank not being written grants one read, and each
    /// collector unit (single-ported, as in the book and GPGPU-Sim) receives at most one
    /// operand. Returns whether any read was granted.
    pub fn arbitrate(&mut self) -> bool {
        let n = self.units.len();
        let mut granted = self.written;
        let write_held = self.written;
        self.written = 0;
        let before = self.stats.reads;
        // Units with operands to read, from the rotating priority position on.
        let mut order = self.reading.rotate_right(self.rr as u32);
        while order != 0 {
            let k = order.trailing_zeros() as usize;
            order &= order - 1;
            let i = (self.rr + k) % 64;
            let u = &mut self.units[i];
            let stats = &mut self.stats;
            // The first operand whose bank is free is read (the unit's one port); every
            // operand whose bank is taken waits (a conflict); operands after the read one
            // whose bank is free wait for the port, without a conflict.
            let mut read = None;
            for (j, &(bank, _)) in u.pending.iter().enumerate() {
                let bit = 1u64 << bank;
                if granted & bit == 0 {
                    if read.is_none() {
                        read = Some(j);
                        granted |= bit;
                        stats.reads += 1;
                        stats.reads_per_bank[bank as usize] += 1;
                    }
                    continue;
                }
                if write_held & bit != 0 {
                    stats.write_priority_conflicts += 1;
                }
                stats.bank_conflicts += 1;
            }
            if let Some(j) = read {
                u.pending.remove(j);
            }
            if u.pending.is_empty() {
                self.reading &= !(1 << i);
                self.collected |= 1 << i;
            }
        }
        // The priority rotates only in cycles that granted something, so a cycle without
        // activity leaves the collector exactly as it was (the GPU may skip such cycles).
        let granted_any = self.stats.reads != before;
        if granted_any && n > 0 {
            self.rr = (self.rr + 1) % n;
        }
        granted_any
    }

    /// Collector units holding an instruction.
    pub fn busy_units(&self) -> u64 {
        self.by_age.len() as u64
    }

    /// Collector units ready to dispatch this cycle (all operands read, allocated before
    /// `now`), oldest first.
    pub fn ready(&self, now: u64, out: &mut Vec<usize>) {
        out.clear();
        if self.collected == 0 {
            return;
        }
        out.extend(
            self.by_age
                .iter()
                .copied()
                .filter(|&i| self.collected & (1 << i) != 0 && self.units[i].alloc_cycle < now),
        );
    }

    /// The `k`-th busy unit in allocation order, if it is ready to dispatch (see
    /// [`OperandCollector::ready`]); `None` past the last busy unit.
    #[inline]
    pub fn ready_at(&self, k: usize, now: u64) -> Option<Option<usize>> {
        let &cu = self.by_age.get(k)?;
        let ready = self.collected & (1 << cu) != 0 && self.units[cu].alloc_cycle < now;
        Some(ready.then_some(cu))
    }

    /// Whether any busy unit has read all its operands.
    #[inline]
    pub fn any_collected(&self) -> bool {
        self.collected != 0
    }

    /// Frees collector unit `cu` (its instruction dispatched).
    pub fn release(&mut self, cu: usize, now: u64) {
        let u = &mut self.units[cu];
        u.busy = false;
        if let Some(k) = self.by_age.iter().position(|&i| i == cu) {
            self.by_age.remove(k);
        }
        self.free |= 1 << cu;
        self.collected &= !(1 << cu);
        self.stats.collector_wait_cycles += now - u.alloc_cycle;
    }

    /// Whether any unit holds an instruction.
    pub fn is_busy(&self) -> bool {
        !self.by_age.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wshift_spreads_one_register_of_consecutive_warps() {
        let map = BankMap::new(&GpuConfig::preset("gtx480"));
        assert_eq!(map.bank(0, 5), 5);
        assert_eq!(map.bank(1, 5), 6);
        assert_eq!(map.bank(3, 15), 2);
        let mut cfg = GpuConfig::preset("gtx480");
        cfg.sm.rf.mapping = BankMapping::Wid;
        let map = BankMap::new(&cfg);
        assert_eq!(map.bank(3, 15), 3);
        assert_eq!(map.bank(3, 0), 3);
    }
}
