//! The operand collector: the bank arbiter of the register file and the collector units that
//! gather an instruction's source operands before it dispatches to an execution unit.
//!
//! Each cycle the arbiter grants the register-file policy's write-backs first (write-back has
//! priority; the write ports bound them), then reads, to the collector units in rotating
//! priority, as far as the policy lets requests share a bank ([`RegisterFilePolicy::bank_accepts`];
//! the baseline's banks are single-ported) and a unit's port take them
//! ([`RegisterFilePolicy::port_accepts`]; one operand per cycle in the baseline). A collector
//! unit whose operands are all gathered dispatches in a later cycle, oldest first, when its
//! execution unit can accept it.

use crate::config::GpuConfig;
use crate::decode::Unit;
use crate::rf::{BankReq, RegisterFilePolicy};

/// Requests one bank can grant in a cycle (techniques with dual-addressable banks grant two).
const GRANTS_PER_BANK: usize = 4;

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

/// One collector unit.
#[derive(Clone, Debug)]
struct CollectorUnit {
    class: CuClass,
    alloc_cycle: u64,
    /// Bank reads still to make.
    pending: Vec<BankReq>,
    /// The instruction it holds (an index into the SM's in-flight table).
    inst: usize,
    unit: Unit,
}

/// The requests a bank granted this cycle.
#[derive(Clone, Copy, Debug, Default)]
struct BankGrants {
    n: u8,
    reqs: [BankReq; GRANTS_PER_BANK],
}

impl BankGrants {
    fn granted(&self) -> &[BankReq] {
        &self.reqs[..usize::from(self.n)]
    }

    fn push(&mut self, r: BankReq) {
        self.reqs[usize::from(self.n)] = r;
        self.n += 1;
    }
}

/// Counters of the register file and collectors.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RfStats {
    /// Register-file reads (32-bit warp registers) and writes.
    pub reads: u64,
    pub writes: u64,
    pub reads_per_bank: Vec<u64>,
    pub writes_per_bank: Vec<u64>,
    /// Reads granted into a bank that had already granted a request that cycle (a
    /// technique's coalesced access, or a second port; 0 for single-ported banks).
    pub shared_bank_accesses: u64,
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
        self.shared_bank_accesses += o.shared_bank_accesses;
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
    units: Vec<CollectorUnit>,
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
    /// Rotating start of the arbitration order.
    rr: usize,
    /// What each bank granted this cycle, and the banks that granted anything (bit per bank).
    grants: Vec<BankGrants>,
    touched: u64,
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
            rr: 0,
            grants: vec![BankGrants::default(); cfg.sm.rf.banks as usize],
            touched: 0,
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

    /// Puts an instruction into collector unit `cu`: it will make the bank reads `plan` puts
    /// in the (empty) list it is given. (Planned in place: copying a few requests cost a
    /// `memcpy` call per instruction.)
    pub fn allocate(
        &mut self,
        cu: usize,
        now: u64,
        inst: usize,
        unit: Unit,
        plan: impl FnOnce(&mut Vec<BankReq>),
    ) {
        let u = &mut self.units[cu];
        u.alloc_cycle = now;
        u.inst = inst;
        u.unit = unit;
        u.pending.clear();
        plan(&mut u.pending);
        self.by_age.push(cu);
        self.free &= !(1 << cu);
        if u.pending.is_empty() {
            self.collected |= 1 << cu;
        } else {
            self.reading |= 1 << cu;
        }
    }

    /// Grants a write-back this cycle: writes have priority over reads and are limited by the
    /// write ports alone, so the bank always takes it; reads of the cycle see it.
    pub fn write(&mut self, req: BankReq) {
        let g = &mut self.grants[req.bank as usize];
        if usize::from(g.n) < GRANTS_PER_BANK {
            g.push(req);
        }
        self.touched |= 1 << req.bank;
        self.stats.writes += 1;
        self.stats.writes_per_bank[req.bank as usize] += 1;
    }

    /// One cycle of bank arbitration after this cycle's write-backs: the collector units with
    /// reads pending, from the rotating priority position on, each try their requests in
    /// order. A request its bank refuses waits (a bank conflict); one its port refuses waits
    /// without a conflict. Returns whether any read was granted.
    pub fn arbitrate(&mut self, policy: &impl RegisterFilePolicy) -> bool {
        let n = self.units.len();
        let before = self.stats.reads;
        let mut order = self.reading.rotate_right(self.rr as u32);
        while order != 0 {
            let k = order.trailing_zeros() as usize;
            order &= order - 1;
            let i = (self.rr + k) % 64;
            let u = &mut self.units[i];
            let stats = &mut self.stats;
            let mut taken = [BankReq::default(); GRANTS_PER_BANK];
            let mut n_taken = 0;
            // Bit j: pending request j was granted.
            let mut granted_mask = 0u64;
            for (j, req) in u.pending.iter().enumerate() {
                let g = &mut self.grants[req.bank as usize];
                if usize::from(g.n) == GRANTS_PER_BANK || !policy.bank_accepts(g.granted(), req) {
                    if g.granted().iter().any(|r| r.write) {
                        stats.write_priority_conflicts += 1;
                    }
                    stats.bank_conflicts += 1;
                    continue;
                }
                if n_taken == GRANTS_PER_BANK || !policy.port_accepts(&taken[..n_taken], req) {
                    continue;
                }
                taken[n_taken] = *req;
                n_taken += 1;
                stats.shared_bank_accesses += u64::from(g.n > 0);
                g.push(*req);
                self.touched |= 1 << req.bank;
                granted_mask |= 1 << j;
                stats.reads += 1;
                stats.reads_per_bank[req.bank as usize] += 1;
            }
            if granted_mask.is_power_of_two() {
                u.pending.remove(granted_mask.trailing_zeros() as usize);
            } else if granted_mask != 0 {
                let mut j = 0;
                u.pending.retain(|_| {
                    j += 1;
                    granted_mask & (1 << (j - 1)) == 0
                });
            }
            if u.pending.is_empty() {
                self.reading &= !(1 << i);
                self.collected |= 1 << i;
            }
        }
        // The next cycle's banks start empty.
        let mut touched = std::mem::take(&mut self.touched);
        while touched != 0 {
            let b = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            self.grants[b].n = 0;
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

    /// The in-flight index and execution unit of the instruction in collector unit `cu`.
    #[inline]
    pub fn holds(&self, cu: usize) -> (usize, Unit) {
        let u = &self.units[cu];
        (u.inst, u.unit)
    }

    /// Each busy unit in allocation order: (unit index, in-flight index, execution unit,
    /// bank reads still to make), for deadlock reports.
    pub fn busy(&self) -> impl Iterator<Item = (usize, usize, Unit, usize)> + '_ {
        self.by_age.iter().map(|&i| {
            let u = &self.units[i];
            (i, u.inst, u.unit, u.pending.len())
        })
    }

    /// Collector units.
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// The bank reads collector unit `cu` still has to make.
    pub fn pending(&self, cu: usize) -> &[BankReq] {
        &self.units[cu].pending
    }

    /// Frees collector unit `cu` (its instruction dispatched).
    pub fn release(&mut self, cu: usize, now: u64) {
        let u = &mut self.units[cu];
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
