//! LARF (seed 000, chapter 5): warps share the registers that hold the same loaded data.
//!
//! **The address mapping table** (per SM, `sm.rf.larf.entries`, the paper's 400; the
//! `larf-infinite` technique has no limit) records warp-wide global loads: the address of the
//! first executing lane, one stride between consecutive lanes, the executing lanes, the bytes
//! each lane reads, and the physical register that received the data. A load whose lanes do
//! not follow one stride is not recorded (the paper supports one stride per entry).
//!
//! **Sharing.** A later load with the same entry — by any warp — is served at the operand
//! collector: its destination registers are renamed to the entry's physical register, the
//! LD/ST unit makes no memory access for it and nothing is written back
//! ([`RegisterFilePolicy::serves_load`]). The paper's partial sharing (merging two entries
//! that together cover a load) is not modelled. A load that misses is recorded, and the
//! table, when full, drops its oldest entry (first in, first out).
//!
//! **Lifetime.** An entry lives while the data it points to is valid and held: a store or an
//! atomic from this SM to an address it covers deletes it (the data would be stale); and
//! every architectural register renamed to its physical register counts as a holder, released
//! when the warp writes that register again (renaming gives the new value a register of its
//! own; a partial write under divergence is treated the same, its copy of the other lanes not
//! counted) or retires; the last holder gone, the entry goes. Stores from other SMs are not
//! seen (the paper's workloads only read what they share); functional results never depend on
//! the table, which only decides timing.
//!
//! Register reads and writes are the baseline's otherwise.
//!
//! Counters: `global_loads` (warp loads from global memory), `loads_irregular` (no single
//! stride), `loads_shared` (served from a register), `entries_inserted`,
//! `evictions_capacity`, `evictions_store`, `evictions_dead` (no holder left),
//! `registers_shared` (destination registers renamed to a shared one) and
//! `register_cycles_saved` (cycles summed over the registers a holder beyond the first keeps:
//! the register file a warp would otherwise need for its copy); under the LAS scheduler,
//! `locality_checks` and `locality_hits` (its look-ups of a warp's next load, and those that
//! found the data: the warp goes first).

use super::{BankReq, Baseline, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::config::GpuConfig;
use crate::decode::MemOp;
use crate::memory::AccessKind;
use emulator::exec::Target;
use std::collections::BTreeMap;

/// What a warp-wide load read: an entry's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LoadKey {
    /// Address of the first executing lane, and the distance between consecutive lanes.
    base: u64,
    stride: i64,
    /// Executing lanes.
    mask: u32,
    /// Bytes each lane reads.
    bytes: u32,
}

impl LoadKey {
    /// The key of a load by lanes `mask` at `targets` of `bytes` each, if its lanes are all
    /// global and follow one stride.
    fn of(targets: &[Target], mask: u32, bytes: u32) -> Option<LoadKey> {
        let first = mask.trailing_zeros() as usize;
        let addr = |l: usize| match targets.get(l) {
            Some(&Target::Global(a)) => Some(a),
            _ => None,
        };
        let base = addr(first)?;
        let mut stride = None;
        for l in (first + 1..32).filter(|&l| mask & (1 << l) != 0) {
            let step = addr(l)?.wrapping_sub(base) as i64;
            let lanes = (l - first) as i64;
            match stride {
                None if step % lanes == 0 => stride = Some(step / lanes),
                Some(s) if s.wrapping_mul(lanes) == step => {}
                _ => return None,
            }
        }
        Some(LoadKey {
            base,
            stride: stride.unwrap_or(0),
            mask,
            bytes,
        })
    }

    /// The bytes `[lo, hi)` spanning every lane's access.
    fn span(&self) -> (u64, u64) {
        let last = (31 - self.mask.leading_zeros()) - self.mask.trailing_zeros();
        let end = self
            .base
            .wrapping_add((self.stride * i64::from(last)) as u64);
        let (lo, hi) = if self.stride < 0 {
            (end, self.base)
        } else {
            (self.base, end)
        };
        (lo, hi + u64::from(self.bytes))
    }

    /// Whether the `bytes` at `addr` overlap what a lane of this load read.
    fn covers(&self, addr: u64, bytes: u32) -> bool {
        let first = self.mask.trailing_zeros();
        (first..32).filter(|&l| self.mask & (1 << l) != 0).any(|l| {
            let at = self
                .base
                .wrapping_add((self.stride * i64::from(l - first)) as u64);
            addr < at + u64::from(self.bytes) && at < addr + u64::from(bytes)
        })
    }
}

/// An entry of the table: the load's key, the bytes it spans, and the physical register(s)
/// holding its data (by id).
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: LoadKey,
    span: (u64, u64),
}

/// A physical register group holding one load's data (as many registers as the load wrote),
/// with the architectural registers renamed to it.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    holders: u32,
    width: u32,
}

/// The LARF technique of one SM.
pub struct Larf {
    base: Baseline,
    /// Most entries (`None`: unbounded).
    capacity: Option<usize>,
    /// The table by id (ids grow in insertion order: the first is the oldest), and its ids by
    /// key.
    table: BTreeMap<u64, Entry>,
    by_key: BTreeMap<LoadKey, u64>,
    /// Physical register groups holding loaded data, by id (an entry's id while it has one).
    held: BTreeMap<u64, Held>,
    next_id: u64,
    /// The group each warp's register is renamed to (`renamed[warp][reg]`).
    renamed: Vec<Vec<Option<u64>>>,
    /// The load [`Self::serves_load`] looked up, until its [`Self::plan_reads`]: its issue
    /// id, its group and whether it hit.
    looked_up: Option<(u64, u64, bool)>,
    /// Loads served (by issue id) whose write-back writes nothing.
    served: Vec<u64>,
    /// Registers held beyond each group's own, and their sum over cycles to `last`.
    extra_holders: u64,
    saved_cycles: u64,
    last: u64,
    counters: Counters,
}

#[derive(Default)]
struct Counters {
    global_loads: u64,
    irregular: u64,
    shared: u64,
    inserted: u64,
    evict_capacity: u64,
    evict_store: u64,
    evict_dead: u64,
    registers_shared: u64,
    locality_checks: u64,
    locality_hits: u64,
}

impl Larf {
    /// LARF with the table of `cfg.sm.rf.larf.entries` entries, or unbounded if `infinite`.
    pub fn new(cfg: &GpuConfig, infinite: bool) -> Larf {
        Larf {
            base: Baseline::new(cfg),
            capacity: (!infinite).then_some(cfg.sm.rf.larf.entries as usize),
            table: BTreeMap::new(),
            by_key: BTreeMap::new(),
            held: BTreeMap::new(),
            next_id: 0,
            renamed: Vec::new(),
            looked_up: None,
            served: Vec::new(),
            extra_holders: 0,
            saved_cycles: 0,
            last: 0,
            counters: Counters::default(),
        }
    }

    /// Whether the table is unbounded.
    pub fn is_infinite(&self) -> bool {
        self.capacity.is_none()
    }

    /// Adds the registers saved since the last change, up to `now`.
    fn account(&mut self, now: u64) {
        self.saved_cycles += self.extra_holders * now.saturating_sub(self.last);
        self.last = self.last.max(now);
    }

    /// Deletes entry `id` from the table (its registers stay with their holders).
    fn delete(&mut self, id: u64) {
        if let Some(e) = self.table.remove(&id) {
            self.by_key.remove(&e.key);
        }
    }

    /// Renames `warp`'s register `reg` to group `id` (or to a register of its own), releasing
    /// the group it was renamed to; a group without holders is freed, and its entry deleted.
    fn rename(&mut self, warp: u32, reg: u32, id: Option<u64>) {
        let (w, r) = (warp as usize, reg as usize);
        if self.renamed.len() <= w {
            self.renamed.resize(w + 1, Vec::new());
        }
        let regs = &mut self.renamed[w];
        if regs.len() <= r {
            regs.resize(r + 1, None);
        }
        let old = std::mem::replace(&mut regs[r], id);
        if old == id {
            return;
        }
        if let Some(h) = id.and_then(|id| self.held.get_mut(&id)) {
            h.holders += 1;
            if h.holders > h.width {
                self.extra_holders += 1;
            }
        }
        if let Some(old) = old
            && let Some(h) = self.held.get_mut(&old)
        {
            if h.holders > h.width {
                self.extra_holders -= 1;
            }
            h.holders -= 1;
            if h.holders == 0 {
                self.held.remove(&old);
                if self.table.contains_key(&old) {
                    self.counters.evict_dead += 1;
                    self.delete(old);
                }
            }
        }
    }

    /// Deletes the entries a store or atomic of `bytes` per lane at `targets` overwrites.
    fn store(&mut self, targets: &[Target], mask: u32, bytes: u32) {
        let addrs: Vec<u64> = (0..32)
            .filter(|&l| mask & (1 << l) != 0)
            .filter_map(|l| match targets.get(l) {
                Some(&Target::Global(a)) => Some(a),
                _ => None,
            })
            .collect();
        let (Some(&lo), Some(&hi)) = (addrs.iter().min(), addrs.iter().max()) else {
            return;
        };
        let hi = hi + u64::from(bytes);
        let stale: Vec<u64> = self
            .table
            .iter()
            .filter(|(_, e)| e.span.0 < hi && lo < e.span.1)
            .filter(|(_, e)| addrs.iter().any(|&a| e.key.covers(a, bytes)))
            .map(|(&id, _)| id)
            .collect();
        for id in stale {
            self.counters.evict_store += 1;
            self.delete(id);
        }
    }

    /// Records a load that missed under `key`, whose data takes `width` registers, evicting
    /// the oldest entry if the table is full.
    fn insert(&mut self, key: LoadKey) -> u64 {
        if self.capacity.is_some_and(|c| self.table.len() >= c)
            && let Some((&oldest, _)) = self.table.first_key_value()
        {
            self.counters.evict_capacity += 1;
            self.delete(oldest);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.table.insert(
            id,
            Entry {
                key,
                span: key.span(),
            },
        );
        self.by_key.insert(key, id);
        self.counters.inserted += 1;
        id
    }
}

impl RegisterFilePolicy for Larf {
    fn serves_load(&mut self, i: &IssueView) -> bool {
        // Loads through the constant cache are not global loads.
        let MemOp::Access {
            bytes,
            constant: false,
            ..
        } = i.decoded.mem
        else {
            return false;
        };
        let first = i.exec.trailing_zeros() as usize;
        if i.exec == 0 || !matches!(i.targets.get(first), Some(Target::Global(_))) {
            return false;
        }
        self.counters.global_loads += 1;
        let Some(key) = LoadKey::of(i.targets, i.exec, bytes) else {
            self.counters.irregular += 1;
            return false;
        };
        if let Some(&id) = self.by_key.get(&key) {
            self.counters.shared += 1;
            self.looked_up = Some((i.uid, id, true));
            self.served.push(i.uid);
            true
        } else {
            let id = self.insert(key);
            self.looked_up = Some((i.uid, id, false));
            false
        }
    }

    fn holds_load(&mut self, targets: &[Target], exec: u32, bytes: u32) -> bool {
        self.counters.locality_checks += 1;
        let hit = exec != 0
            && LoadKey::of(targets, exec, bytes).is_some_and(|k| self.by_key.contains_key(&k));
        self.counters.locality_hits += u64::from(hit);
        hit
    }

    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        self.base.plan_reads(i, out);
        self.account(i.now);
        let load = self.looked_up.take().filter(|&(uid, ..)| uid == i.uid);
        if let MemOp::Access {
            kind: AccessKind::Store | AccessKind::Atomic,
            bytes,
            ..
        } = i.decoded.mem
        {
            self.store(i.targets, i.exec, bytes);
        }
        // Every register written gets a new name: the load's group, or one of its own.
        let group = load.map(|(_, id, _)| id);
        if let Some((_, id, false)) = load {
            let width = i.writes.len() as u32;
            self.held.insert(id, Held { holders: 0, width });
        }
        for w in i.writes {
            if load.is_some_and(|(_, _, hit)| hit) {
                self.counters.registers_shared += 1;
            }
            self.rename(i.warp, w.reg, group);
        }
        if let Some(id) = group
            && self.held.get(&id).is_some_and(|h| h.holders == 0)
        {
            // A load that wrote no register holds nothing.
            self.held.remove(&id);
            self.counters.evict_dead += 1;
            self.delete(id);
        }
    }

    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        if let Some(k) = self.served.iter().position(|&u| u == uid) {
            // The data is in the shared register already.
            self.served.swap_remove(k);
            return;
        }
        self.base.plan_writes(warp, uid, regs, out);
    }

    fn on_warp_retire(&mut self, warp: u32, now: u64) {
        self.account(now);
        let regs = self.renamed.get(warp as usize).map_or(0, Vec::len);
        for r in 0..regs {
            self.rename(warp, r as u32, None);
        }
    }

    fn report(&self, out: &mut TechniqueReport) {
        let c = &self.counters;
        for (key, value) in [
            ("global_loads", c.global_loads),
            ("loads_irregular", c.irregular),
            ("loads_shared", c.shared),
            ("entries_inserted", c.inserted),
            ("evictions_capacity", c.evict_capacity),
            ("evictions_store", c.evict_store),
            ("evictions_dead", c.evict_dead),
            ("registers_shared", c.registers_shared),
            ("register_cycles_saved", self.saved_cycles),
            ("locality_checks", c.locality_checks),
            ("locality_hits", c.locality_hits),
        ] {
            out.add(key, value);
        }
    }
}
