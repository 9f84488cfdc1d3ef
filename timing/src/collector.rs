//! The operand collector: the bank arbiter of the register file and the collector units that
//! gather an instruction's source operands before it dispatches to an execution unit.
//!
//! Each step (`sm.rf.collector_steps` a cycle, GPGPU-Sim's `opndcoll_rfu_t::step`) the arbiter
//! grants the register-file policy's write-backs first (write-back has priority; the write
//! ports bound them; they hold their banks in the cycle's first step), then reads, to the
//! collector units in rotating priority, as far as the policy lets requests share a bank
//! ([`RegisterFilePolicy::bank_accepts`]; the baseline's banks are single-ported) and a unit's
//! port take them ([`RegisterFilePolicy::port_accepts`]; one operand a step in the baseline,
//! one from each bank with `sm.rf.multi_read_units`). An instruction whose operands are all
//! gathered dispatches in a later step when its execution unit can accept it; with
//! `sm.rf.issue_latch` an issued instruction first waits in the issue latch until the end of
//! the next cycle's first step.
//!
//! The register-file technique chooses how the units are organised ([`CollectorLayout`]):
//! GPGPU-Sim's pool of units by class, one instruction each, dispatched oldest first; or one
//! unit per warp slot holding several of its warp's instructions (BOW's bypassing operand
//! collectors), which share the unit's one port and the operands it holds, dispatched round
//! robin over the warps' units; or, without collector units, one operand-read stage per
//! sub-core (recent NVIDIA cores), whose reads the technique schedules. An operand a
//! technique forwards from the unit's own storage ([`BankReq::forwarded`]) costs no bank
//! access; it waits only while an older instruction of the same unit is still reading that
//! register from its bank.

use crate::config::GpuConfig;
use crate::decode::Unit;
use crate::rf::{BankReq, RegisterFilePolicy};

/// Requests one bank can grant in a cycle (techniques with dual-addressable banks grant two).
const GRANTS_PER_BANK: usize = 4;

/// Bits of an entry id that number the entry within its unit: entry `k` of unit `u` is
/// `u << ENTRY_BITS | k` (a shift, not a division, on the hot path), so a unit holds at most
/// `1 << ENTRY_BITS` instructions (`sm.rf.bow.window` is at most 16).
const ENTRY_BITS: u32 = 4;

fn entry_id(unit: usize, k: usize) -> usize {
    unit << ENTRY_BITS | k
}

fn split_id(id: usize) -> (usize, usize) {
    (id >> ENTRY_BITS, id & ((1 << ENTRY_BITS) - 1))
}

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

/// How the SM's collector units are organised; the register-file technique chooses
/// ([`RegisterFilePolicy::collector_layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectorLayout {
    /// `sm.rf.collectors`: units of each class shared by every warp, one instruction each,
    /// dispatched oldest first (GPGPU-Sim's operand collector).
    Pooled,
    /// One unit per warp slot holding its warp's last `depth` instructions until they leave
    /// (a window sliding in order: an instruction enters once the one `depth` before it has
    /// left), which share the unit's one port and the operands it holds; the units dispatch
    /// round robin, each its oldest ready instruction first (BOW's bypassing operand
    /// collectors, seed 000 ch. 3).
    PerWarp { depth: u32 },
    /// No collector units: each sub-core's operand-read stage, one unit holding two of its
    /// sub-core's instructions (the Control and Allocate stages of recent NVIDIA cores, which
    /// have no collector units: docs/modern-rf.md), dispatched in order. The technique
    /// schedules each read's port-cycle itself ([`BankReq::ready_at`]), so the sub-core
    /// issues one instruction a cycle unless reads do not fit their window.
    OperandStage,
}

/// One instruction held by a collector unit.
#[derive(Clone, Debug)]
struct Entry {
    alloc_cycle: u64,
    /// Allocation order within its unit.
    seq: u64,
    /// Bank reads still to make, and forwarded operands still waiting for an older entry's
    /// read of their register.
    pending: Vec<BankReq>,
    /// The instruction (an index into the SM's in-flight table).
    inst: usize,
    unit: Unit,
}

/// One collector unit: one port, and room for the instructions of its layout.
#[derive(Clone, Debug)]
struct CollectorUnit {
    class: CuClass,
    entries: Vec<Entry>,
    /// The entries holding an instruction, oldest first.
    held: Vec<u8>,
    /// Forwarded operands of its entries still in transit (an older entry reads them).
    in_transit: u32,
    /// The next entry's allocation order.
    next_seq: u64,
}

impl CollectorUnit {
    /// Whether an instruction may enter: the instructions a unit holds are its last `depth`
    /// (a window sliding in order: a new one enters only when the one `depth` before it has
    /// left, whatever else left).
    fn has_room(&self, depth: usize) -> bool {
        self.held
            .first()
            .is_none_or(|&k| self.entries[usize::from(k)].seq + depth as u64 > self.next_seq)
    }

    /// Whether some held instruction has every operand (`pending` empty), and whether some
    /// still waits for one.
    fn state(&self) -> (bool, bool) {
        let mut collected = false;
        let mut reading = false;
        for &k in &self.held {
            if self.entries[usize::from(k)].pending.is_empty() {
                collected = true;
            } else {
                reading = true;
            }
        }
        (collected, reading)
    }
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

/// The operand collector's steps: how many a cycle, and whether an issued instruction waits
/// one in the issue latch.
#[derive(Clone, Copy, Debug)]
struct Steps {
    per_cycle: u64,
    latch: u64,
}

impl Steps {
    /// Whether an instruction taken into its unit at cycle `alloc` takes part in step `step`
    /// of cycle `now`: from the first step after its issue cycle, one step later with the
    /// issue latch (GPGPU-Sim allocates units at the end of a step, after it grants reads).
    #[inline]
    fn takes_part(self, alloc: u64, now: u64, step: u64) -> bool {
        now * self.per_cycle + step >= (alloc + 1) * self.per_cycle + self.latch
    }
}

/// Preset `name` with GPGPU-Sim 3.x's operand collector
/// ([`GpuConfig::use_single_step_collector`]): the pipeline hand-worked unit tests assume.
#[cfg(test)]
pub(crate) fn single_step_preset(name: &str) -> GpuConfig {
    let mut cfg = GpuConfig::preset(name);
    cfg.use_single_step_collector();
    cfg
}

/// The collector units and bank arbitration of one SM.
pub struct OperandCollector {
    units: Vec<CollectorUnit>,
    layout: CollectorLayout,
    /// Entries per unit (1 when pooled); entry `k` of unit `u` has id [`entry_id`]`(u, k)`.
    depth: usize,
    /// For each execution unit class: the collector-unit class it uses first.
    preferred: [CuClass; Unit::ALL.len()],
    /// Held entries in allocation order (oldest first: the pooled dispatch order).
    by_age: Vec<usize>,
    /// Units with an operand still to read (bit per unit).
    reading: u64,
    /// Units holding an instruction with every operand read (bit per unit).
    collected: u64,
    /// Units with room for an instruction (bit per unit, see `CollectorUnit::has_room`), and
    /// the units of each class (by `CuClass as usize`).
    free: u64,
    class_units: [u64; 6],
    /// The units of each sub-core (`sm.sub_cores`; one sub-core holding every unit without):
    /// a warp takes only its own sub-core's, the one of its scheduler (`warp mod sub-cores`).
    sub_core_units: Vec<u64>,
    /// Rotating start of the arbitration order, and of the per-warp dispatch order (the unit
    /// after the one that dispatched last; past the last unit means the first).
    rr: usize,
    dispatch_rr: usize,
    /// What each bank granted this step, and the banks that granted anything (bit per bank).
    grants: Vec<BankGrants>,
    touched: u64,
    /// When a held instruction takes part in a step.
    steps: Steps,
    /// Whether a unit reads any number of banks in a step (`sm.rf.multi_read_units`).
    multi_read: bool,
    pub stats: RfStats,
}

impl OperandCollector {
    /// The pooled collector units of `cfg` (`sm.rf.collectors`).
    pub fn new(cfg: &GpuConfig) -> OperandCollector {
        OperandCollector::with_layout(cfg, CollectorLayout::Pooled)
    }

    /// The collector units of `cfg` organised as `layout`.
    pub fn with_layout(cfg: &GpuConfig, layout: CollectorLayout) -> OperandCollector {
        let c = &cfg.sm.rf.collectors;
        let classes: Vec<(CuClass, u32)> = match layout {
            CollectorLayout::Pooled => vec![
                (CuClass::Sp, c.sp),
                (CuClass::Sfu, c.sfu),
                (CuClass::Int, c.int),
                (CuClass::Dp, c.dp),
                (CuClass::Mem, c.mem),
                (CuClass::General, c.general),
            ],
            CollectorLayout::PerWarp { .. } => vec![(CuClass::General, cfg.sm.max_warps)],
            CollectorLayout::OperandStage => vec![(CuClass::General, crate::rf::sub_cores(cfg))],
        };
        let depth = match layout {
            CollectorLayout::Pooled => 1,
            CollectorLayout::PerWarp { depth } => depth.max(1) as usize,
            CollectorLayout::OperandStage => 2,
        };
        let entry = Entry {
            alloc_cycle: 0,
            seq: 0,
            pending: Vec::with_capacity(8),
            inst: 0,
            unit: Unit::Sp,
        };
        let sub_cores = crate::rf::sub_cores(cfg) as usize;
        let mut unit_sub_core = Vec::new();
        let mut units = Vec::new();
        for (class, n) in classes {
            for j in 0..n as usize {
                // Pooled, each sub-core gets an equal run of every class (the configuration
                // checks they divide); per warp, each warp slot's unit is its sub-core's; an
                // operand stage is its sub-core's own.
                let sub = match layout {
                    CollectorLayout::Pooled => j / (n as usize / sub_cores),
                    CollectorLayout::PerWarp { .. } | CollectorLayout::OperandStage => {
                        j % sub_cores
                    }
                };
                unit_sub_core.push(sub);
                units.push(CollectorUnit {
                    class,
                    entries: vec![entry.clone(); depth],
                    held: Vec::with_capacity(depth),
                    in_transit: 0,
                    next_seq: 0,
                });
            }
        }
        assert!(
            units.len() <= 64,
            "at most 64 collector units (configuration checks it)"
        );
        let mut sub_core_units = vec![0u64; sub_cores];
        for (i, &sub) in unit_sub_core.iter().enumerate() {
            sub_core_units[sub] |= 1 << i;
        }
        let has = |c: CuClass| units.iter().any(|u| u.class == c);
        // Integer and double-precision instructions use the SP units' collectors when the
        // configuration has none of their own (Fermi); tensor instructions always do (no
        // preset has tensor-core collectors of their own).
        let preferred = Unit::ALL.map(|unit| match unit {
            Unit::Sp => CuClass::Sp,
            Unit::Sfu => CuClass::Sfu,
            Unit::LdSt => CuClass::Mem,
            Unit::Int if has(CuClass::Int) => CuClass::Int,
            Unit::Dp if has(CuClass::Dp) => CuClass::Dp,
            Unit::Int | Unit::Dp | Unit::Tensor => CuClass::Sp,
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
            sub_core_units,
            preferred,
            by_age: Vec::with_capacity(units.len() * depth),
            reading: 0,
            collected: 0,
            units,
            layout,
            depth,
            rr: 0,
            dispatch_rr: 0,
            grants: vec![BankGrants::default(); cfg.sm.rf.banks as usize],
            touched: 0,
            steps: Steps {
                per_cycle: u64::from(cfg.sm.rf.collector_steps.max(1)),
                latch: u64::from(cfg.sm.rf.issue_latch),
            },
            multi_read: cfg.sm.rf.multi_read_units,
            stats: RfStats::new(cfg.sm.rf.banks),
        }
    }

    /// A collector unit with room for an instruction of `unit` from warp slot `warp`, if any:
    /// pooled, a free one of its class first, then a general one; per warp, the warp's own.
    pub fn free_unit(&self, warp: usize, unit: Unit) -> Option<usize> {
        let any = match self.layout {
            CollectorLayout::Pooled => {
                let free = self.free & self.sub_core_units[warp % self.sub_core_units.len()];
                let own = free & self.class_units[self.preferred[unit.index()] as usize];
                if own != 0 {
                    own
                } else {
                    free & self.class_units[CuClass::General as usize]
                }
            }
            CollectorLayout::PerWarp { .. } => self.free & (1 << warp),
            CollectorLayout::OperandStage => {
                self.free & self.sub_core_units[warp % self.sub_core_units.len()]
            }
        };
        (any != 0).then(|| any.trailing_zeros() as usize)
    }

    /// Which units an instruction of `unit` (by [`Unit::index`]) from warp slot `warp` may
    /// take, as a number below 64: instructions with the same number see the same free units,
    /// so a refusal holds for all of them until a unit is released. (Pooled: the unit class
    /// within the warp's sub-core, at most 8 of them.)
    #[inline]
    pub fn pool(&self, warp: usize, unit: u8) -> u32 {
        match self.layout {
            CollectorLayout::Pooled => {
                let sub = warp % self.sub_core_units.len();
                u32::from(unit) + 8 * sub as u32
            }
            CollectorLayout::PerWarp { .. } => warp as u32,
            CollectorLayout::OperandStage => (warp % self.sub_core_units.len()) as u32,
        }
    }

    /// Puts an instruction into collector unit `cu` (which has room, see
    /// [`OperandCollector::free_unit`]): it will make the bank reads `plan` puts in the (empty)
    /// list it is given. A forwarded operand waits only if an older instruction of the unit
    /// still reads its register. (Planned in place: copying a few requests cost a `memcpy`
    /// call per instruction.)
    pub fn allocate(
        &mut self,
        cu: usize,
        now: u64,
        inst: usize,
        unit: Unit,
        plan: impl FnOnce(&mut Vec<BankReq>),
    ) {
        let entry = self.reserve(cu, now, inst, unit);
        self.plan(cu, entry, plan);
    }

    /// The first half of [`OperandCollector::allocate`]: takes an entry of unit `cu` (which
    /// has room) for an instruction issued at `now`, in issue order, without its reads yet;
    /// returns the entry for [`OperandCollector::plan`], which must come before the next
    /// arbitration. (An instruction whose execution waits for the end of its cycle holds its
    /// unit from issue.)
    #[inline]
    pub fn reserve(&mut self, cu: usize, now: u64, inst: usize, unit: Unit) -> usize {
        let depth = self.depth;
        let u = &mut self.units[cu];
        // The entry below the first held one that is not held (entries are reused in turn).
        let k = if depth == 1 {
            0
        } else {
            (0..depth)
                .find(|k| !u.held.contains(&(*k as u8)))
                .expect("the unit has room")
        };
        let e = &mut u.entries[k];
        e.pending.clear();
        e.alloc_cycle = now;
        e.seq = u.next_seq;
        e.inst = inst;
        e.unit = unit;
        u.next_seq += 1;
        u.held.push(k as u8);
        self.by_age.push(entry_id(cu, k));
        if !u.has_room(depth) {
            self.free &= !(1 << cu);
        }
        k
    }

    /// The second half of [`OperandCollector::allocate`]: the bank reads of the instruction in
    /// entry `entry` of unit `cu`, which `plan` puts in the (empty) list it is given.
    #[inline]
    pub fn plan(&mut self, cu: usize, entry: usize, plan: impl FnOnce(&mut Vec<BankReq>)) {
        let k = entry;
        let u = &mut self.units[cu];
        let pending = &mut u.entries[k].pending;
        debug_assert!(pending.is_empty());
        plan(pending);
        if pending.iter().any(|r| r.forwarded) {
            // In transit while an older instruction of this unit still reads the register (the
            // entry's own list is taken out meanwhile, so it never matches itself).
            let mut mine = std::mem::take(&mut u.entries[k].pending);
            let seq = u.entries[k].seq;
            let older = &u.entries;
            let held = &u.held;
            mine.retain(|r| {
                !r.forwarded
                    || held.iter().any(|&h| {
                        let o = &older[usize::from(h)];
                        o.seq < seq
                            && o.pending
                                .iter()
                                .any(|o| !o.forwarded && o.bank == r.bank && o.row == r.row)
                    })
            });
            u.in_transit += mine.iter().filter(|r| r.forwarded).count() as u32;
            u.entries[k].pending = mine;
        }
        if u.entries[k].pending.is_empty() {
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

    /// Steps of the collector a cycle (`sm.rf.collector_steps`).
    pub fn steps(&self) -> u64 {
        self.steps.per_cycle
    }

    /// Every step of cycle `now`'s bank arbitration ([`OperandCollector::arbitrate_step`]),
    /// with nothing dispatched between them. Returns whether any read was granted or an
    /// instruction waited in the issue latch.
    pub fn arbitrate(&mut self, policy: &impl RegisterFilePolicy, now: u64) -> bool {
        let mut any = false;
        for step in 0..self.steps.per_cycle {
            any |= self.arbitrate_step(policy, now, step);
        }
        any
    }

    /// Step `step` of cycle `now`'s bank arbitration, after the cycle's write-backs (which hold
    /// their banks in the first step): the collector units with
    /// reads pending, from the rotating priority position on, each try their instructions'
    /// requests, oldest instruction first, in order. A request its bank refuses waits (a bank
    /// conflict); one its port refuses waits without a conflict. A granted read also delivers
    /// the operands other instructions of the unit forwarded from it. A read whose register
    /// is still waking up ([`BankReq::ready_at`] after `now`) waits without asking its bank:
    /// it is no bank conflict, and it counts nothing, since cycles in which only such reads
    /// wait may be skipped (the power policy reports when they become ready). Returns whether
    /// any read was granted or an instruction waited in the issue latch (the next step
    /// changes something).
    pub fn arbitrate_step(
        &mut self,
        policy: &impl RegisterFilePolicy,
        now: u64,
        step: u64,
    ) -> bool {
        let n = self.units.len();
        let before = self.stats.reads;
        let mut latched = false;
        let steps = self.steps;
        let mut order = self.reading.rotate_right(self.rr as u32);
        while order != 0 {
            let k = order.trailing_zeros() as usize;
            order &= order - 1;
            let i = (self.rr + k) % 64;
            let u = &mut self.units[i];
            let stats = &mut self.stats;
            let mut taken = [BankReq::default(); GRANTS_PER_BANK];
            let mut n_taken = 0;
            for &h in &u.held {
                let e = &mut u.entries[usize::from(h)];
                if !steps.takes_part(e.alloc_cycle, now, step) {
                    latched = true;
                    continue;
                }
                // Bit j: pending request j was granted.
                let mut granted_mask = 0u64;
                for (j, req) in e.pending.iter().enumerate() {
                    if req.forwarded || req.ready_at > now {
                        continue;
                    }
                    let g = &mut self.grants[req.bank as usize];
                    if usize::from(g.n) == GRANTS_PER_BANK || !policy.bank_accepts(g.granted(), req)
                    {
                        if g.granted().iter().any(|r| r.write) {
                            stats.write_priority_conflicts += 1;
                        }
                        stats.bank_conflicts += 1;
                        continue;
                    }
                    if n_taken == GRANTS_PER_BANK
                        || !(self.multi_read || policy.port_accepts(&taken[..n_taken], req))
                    {
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
                remove_granted(&mut e.pending, granted_mask);
            }
            if u.in_transit > 0 && n_taken > 0 {
                // The operands forwarded from this cycle's reads have arrived.
                let arrived = &taken[..n_taken];
                for &h in &u.held {
                    let p = &mut u.entries[usize::from(h)].pending;
                    let len = p.len();
                    p.retain(|r| {
                        !(r.forwarded && arrived.iter().any(|a| a.bank == r.bank && a.row == r.row))
                    });
                    u.in_transit -= (len - p.len()) as u32;
                }
            }
            let (collected, reading) = u.state();
            if collected {
                self.collected |= 1 << i;
            }
            if !reading {
                self.reading &= !(1 << i);
            }
        }
        // The next step's banks start empty.
        let mut touched = std::mem::take(&mut self.touched);
        while touched != 0 {
            let b = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            self.grants[b].n = 0;
        }
        // The priority rotates only in steps that granted something, so a cycle without
        // activity leaves the collector exactly as it was (the GPU may skip such cycles).
        let granted_any = self.stats.reads != before;
        if granted_any && n > 0 {
            self.rr = (self.rr + 1) % n;
        }
        granted_any || latched
    }

    /// Collector units in all.
    pub fn unit_count(&self) -> u64 {
        self.units.len() as u64
    }

    /// Instructions held by collector units.
    pub fn busy_units(&self) -> u64 {
        self.by_age.len() as u64
    }

    /// The held instructions (entry ids) ready to dispatch at step `step` of cycle `now` (all
    /// operands read, past the issue latch), in dispatch order: pooled, oldest first; per
    /// warp, round robin over the units from the one after the last that dispatched, oldest
    /// first within one; operand stages, each one's oldest, oldest first. Returns whether a
    /// collected instruction waits in the issue latch (a later step dispatches it).
    pub fn ready(&self, now: u64, step: u64, out: &mut Vec<usize>) -> bool {
        out.clear();
        if self.collected == 0 {
            return false;
        }
        let latched = std::cell::Cell::new(false);
        let ready = |id: usize| {
            let e = self.entry(id);
            if !e.pending.is_empty() {
                return false;
            }
            let past = self.steps.takes_part(e.alloc_cycle, now, step);
            latched.set(latched.get() | !past);
            past
        };
        match self.layout {
            CollectorLayout::Pooled => {
                out.extend(self.by_age.iter().copied().filter(|&id| ready(id)));
            }
            CollectorLayout::OperandStage => {
                // In order within a sub-core: only each stage's oldest instruction.
                let oldest = |id: usize| {
                    let (cu, k) = split_id(id);
                    self.units[cu].held.first() == Some(&(k as u8))
                };
                out.extend(
                    self.by_age
                        .iter()
                        .copied()
                        .filter(|&id| oldest(id) && ready(id)),
                );
            }
            CollectorLayout::PerWarp { .. } => {
                let n = self.units.len();
                let start = if self.dispatch_rr < n {
                    self.dispatch_rr
                } else {
                    0
                };
                let mut order = self.collected.rotate_right(start as u32);
                while order != 0 {
                    let k = order.trailing_zeros() as usize;
                    order &= order - 1;
                    let cu = (start + k) % 64;
                    debug_assert!(cu < n);
                    let ids = self.units[cu]
                        .held
                        .iter()
                        .map(|&h| entry_id(cu, usize::from(h)));
                    out.extend(ids.filter(|&id| ready(id)));
                }
            }
        }
        latched.get()
    }

    /// Whether any unit holds an instruction with every operand read.
    #[inline]
    pub fn any_collected(&self) -> bool {
        self.collected != 0
    }

    /// The in-flight index and execution unit of the instruction in entry `id`.
    #[inline]
    pub fn holds(&self, id: usize) -> (usize, Unit) {
        let e = self.entry(id);
        (e.inst, e.unit)
    }

    /// Each held instruction in allocation order: (entry id, in-flight index, execution unit,
    /// operands still to arrive), for deadlock reports.
    pub fn busy(&self) -> impl Iterator<Item = (usize, usize, Unit, usize)> + '_ {
        self.by_age.iter().map(|&id| {
            let e = self.entry(id);
            (id, e.inst, e.unit, e.pending.len())
        })
    }

    /// The id of every entry of every unit.
    pub fn entry_ids(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.units.len()).flat_map(|u| (0..self.depth).map(move |k| entry_id(u, k)))
    }

    #[inline]
    fn entry(&self, id: usize) -> &Entry {
        let (u, k) = split_id(id);
        &self.units[u].entries[k]
    }

    /// The bank reads entry `id` still has to make (and its forwarded operands in transit).
    pub fn pending(&self, id: usize) -> &[BankReq] {
        &self.entry(id).pending
    }

    /// Frees entry `id` (its instruction dispatched).
    pub fn release(&mut self, id: usize, now: u64) {
        let (cu, k) = split_id(id);
        let k = k as u8;
        let u = &mut self.units[cu];
        if let Some(j) = u.held.iter().position(|&h| h == k) {
            u.held.remove(j);
        }
        if let Some(j) = self.by_age.iter().position(|&i| i == id) {
            self.by_age.remove(j);
        }
        self.stats.collector_wait_cycles += now - u.entries[usize::from(k)].alloc_cycle;
        if u.held.is_empty() {
            self.free |= 1 << cu;
            self.collected &= !(1 << cu);
        } else {
            if u.has_room(self.depth) {
                self.free |= 1 << cu;
            }
            if !u.state().0 {
                self.collected &= !(1 << cu);
            }
        }
        self.dispatch_rr = cu + 1;
    }

    /// Whether any unit holds an instruction.
    pub fn is_busy(&self) -> bool {
        !self.by_age.is_empty()
    }
}

/// Removes the requests of `pending` whose bits are set in `granted` (bit j: request j).
fn remove_granted(pending: &mut Vec<BankReq>, granted: u64) {
    if granted.is_power_of_two() {
        pending.remove(granted.trailing_zeros() as usize);
    } else if granted != 0 {
        let mut j = 0;
        pending.retain(|_| {
            j += 1;
            granted & (1 << (j - 1)) == 0
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rf::RfPolicy;

    fn read(bank: u32, row: u32, forwarded: bool) -> BankReq {
        BankReq {
            bank,
            row,
            slices: crate::rf::ALL_SLICES,
            write: false,
            operands: 1,
            forwarded,
            ready_at: 0,
        }
    }

    /// When an instruction issued at cycle 0 with reads `banks` (rows distinct) is
    /// dispatched, as (cycle, step), with `steps` collector steps a cycle, the issue latch,
    /// and units reading several banks in a step or one. Steps run as the SM runs them:
    /// dispatch, then arbitration.
    fn dispatched_at(steps: u32, multi_read: bool, banks: &[u32]) -> (u64, u64) {
        let mut cfg = GpuConfig::preset("gtx480");
        cfg.sm.rf.collector_steps = steps;
        cfg.sm.rf.issue_latch = true;
        cfg.sm.rf.multi_read_units = multi_read;
        let policy = RfPolicy::new(&cfg);
        let mut oc = OperandCollector::new(&cfg);
        let cu = oc.free_unit(0, Unit::Sp).expect("a free unit");
        oc.allocate(cu, 0, 0, Unit::Sp, |r| {
            r.extend(
                banks
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| read(b, i as u32, false)),
            )
        });
        let mut ready = Vec::new();
        for now in 1..10 {
            for step in 0..u64::from(steps) {
                oc.ready(now, step, &mut ready);
                if !ready.is_empty() {
                    return (now, step);
                }
                oc.arbitrate_step(&policy, now, step);
            }
        }
        panic!("never dispatched");
    }

    /// GPGPU-Sim's operand collector (`opndcoll_rfu_t::step`: dispatch the collected units,
    /// grant reads, one a bank, then take issued instructions into units), worked by hand for
    /// an instruction issued at cycle 0, whose unit is taken at the end of cycle 1's first
    /// step. Two steps a cycle (`gpgpu_reg_file_port_throughput 2`): its reads are granted
    /// in cycle 1's second step, all at once from distinct banks, and it dispatches at
    /// cycle 2's first; two reads of one bank take that step and cycle 2's first, and it
    /// dispatches in cycle 2's second; so do two reads of distinct banks when a unit takes
    /// one operand a step (GPGPU-Sim 3.x). One step a cycle: reads in cycle 2, dispatch in 3.
    #[test]
    fn issue_latch_and_steps_follow_gpgpu_sims_collector() {
        assert_eq!(dispatched_at(2, true, &[0, 1, 2]), (2, 0));
        assert_eq!(dispatched_at(2, true, &[]), (1, 1), "nothing to read");
        assert_eq!(dispatched_at(2, true, &[3, 3]), (2, 1));
        assert_eq!(dispatched_at(2, false, &[0, 1]), (2, 1));
        assert_eq!(dispatched_at(1, true, &[0, 1, 2]), (3, 0));
        assert_eq!(dispatched_at(1, true, &[]), (2, 0), "nothing to read");
        assert_eq!(dispatched_at(1, false, &[0, 1, 2]), (5, 0));
    }

    fn per_warp(depth: u32) -> (OperandCollector, RfPolicy) {
        let cfg = single_step_preset("gtx480");
        let layout = CollectorLayout::PerWarp { depth };
        (
            OperandCollector::with_layout(&cfg, layout),
            RfPolicy::new(&cfg),
        )
    }

    #[test]
    fn a_forwarded_operand_arrives_with_the_older_instructions_read() {
        let (mut oc, policy) = per_warp(3);
        let cu = oc.free_unit(5, Unit::Sp).expect("warp 5's unit");
        assert_eq!(cu, 5);
        // Instruction 0 reads r1 and r2 from banks 1 and 2; instruction 1 forwards r1 (still
        // in transit) and r7 (already there: nothing to wait for) and reads r3.
        oc.allocate(cu, 0, 0, Unit::Sp, |r| {
            r.extend([read(1, 1, false), read(2, 2, false)])
        });
        oc.allocate(cu, 0, 1, Unit::Sp, |r| {
            r.extend([read(1, 1, true), read(7, 7, true), read(3, 3, false)])
        });
        assert_eq!(oc.pending(entry_id(5, 1)).len(), 2, "r1 waits, r7 is there");
        // One port: one read per cycle for the whole unit, oldest instruction first. The read
        // of r1 delivers it to both instructions.
        oc.arbitrate(&policy, 1);
        assert_eq!(oc.pending(entry_id(5, 0)), [read(2, 2, false)]);
        assert_eq!(oc.pending(entry_id(5, 1)), [read(3, 3, false)]);
        oc.arbitrate(&policy, 1);
        oc.arbitrate(&policy, 1);
        assert_eq!(oc.stats.reads, 3, "r1, r2, r3: one bank read each");
        let mut ready = Vec::new();
        oc.ready(1, 0, &mut ready);
        assert_eq!(ready, [entry_id(5, 0), entry_id(5, 1)]);
    }

    #[test]
    fn an_instruction_enters_only_when_the_one_a_window_before_left() {
        let (mut oc, _) = per_warp(2);
        oc.allocate(0, 0, 10, Unit::Sp, |_| {});
        oc.allocate(0, 0, 11, Unit::Sp, |_| {});
        assert_eq!(oc.free_unit(0, Unit::Sp), None, "two held");
        // The younger leaves first: the oldest still holds the window.
        oc.release(entry_id(0, 1), 1);
        assert_eq!(oc.free_unit(0, Unit::Sp), None);
        oc.release(entry_id(0, 0), 1);
        assert_eq!(oc.free_unit(0, Unit::Sp), Some(0));
        oc.allocate(0, 1, 12, Unit::Sp, |_| {});
        assert_eq!(oc.free_unit(0, Unit::Sp), Some(0), "one of two held");
        // Other warps have units of their own.
        assert_eq!(oc.free_unit(1, Unit::Sfu), Some(1));
        assert_eq!(oc.pool(1, 0), 1);
    }

    #[test]
    fn per_warp_units_dispatch_round_robin() {
        let (mut oc, _) = per_warp(1);
        for (warp, inst) in [(2, 0), (0, 1), (1, 2)] {
            oc.allocate(warp, 0, inst, Unit::Sp, |_| {});
        }
        let mut ready = Vec::new();
        oc.ready(1, 0, &mut ready);
        let ids = [0, 1, 2].map(|u| entry_id(u, 0));
        assert_eq!(ready, ids, "from unit 0 on, not by age");
        oc.release(ids[0], 1);
        oc.allocate(0, 1, 3, Unit::Sp, |_| {});
        oc.ready(2, 0, &mut ready);
        assert_eq!(
            ready,
            [ids[1], ids[2], ids[0]],
            "after the unit that dispatched last"
        );
        // Pooled units dispatch oldest first.
        let cfg = single_step_preset("gtx480");
        let mut pooled = OperandCollector::new(&cfg);
        for inst in 0..3 {
            let cu = pooled.free_unit(0, Unit::Sp).expect("a free unit");
            pooled.allocate(cu, 0, inst, Unit::Sp, |_| {});
        }
        pooled.release(ids[0], 1);
        let cu = pooled.free_unit(0, Unit::Sp).expect("a free unit");
        pooled.allocate(cu, 1, 3, Unit::Sp, |_| {});
        pooled.ready(2, 0, &mut ready);
        assert_eq!(ready, [ids[1], ids[2], ids[0]]);
    }

    #[test]
    fn with_sub_cores_a_warp_takes_only_its_schedulers_units() {
        // v100: 8 general units, 4 sub-cores: units 2s and 2s + 1 are scheduler s's.
        let cfg = GpuConfig::preset("v100");
        assert!(cfg.sm.sub_cores);
        let mut oc = OperandCollector::new(&cfg);
        assert_eq!(oc.free_unit(0, Unit::Sp), Some(0));
        assert_eq!(oc.free_unit(5, Unit::Sfu), Some(2));
        assert_eq!(oc.free_unit(7, Unit::LdSt), Some(6));
        assert_ne!(oc.pool(1, 0), oc.pool(2, 0), "sub-cores refuse separately");
        // Warp 3's sub-core fills up; warp 7 (the same sub-core) finds nothing, warp 6 does.
        oc.allocate(6, 0, 0, Unit::Sp, |_| {});
        oc.allocate(7, 0, 1, Unit::Sp, |_| {});
        assert_eq!(oc.free_unit(7, Unit::Sp), None);
        assert_eq!(oc.free_unit(6, Unit::Sp), Some(4));
        // Without sub-cores every warp sees every unit.
        let mut shared = cfg.clone();
        shared.sm.sub_cores = false;
        let mut oc = OperandCollector::new(&shared);
        oc.allocate(0, 0, 0, Unit::Sp, |_| {});
        assert_eq!(oc.free_unit(7, Unit::Sp), Some(1));
        assert_eq!(oc.pool(1, 0), oc.pool(2, 0));
    }
}
