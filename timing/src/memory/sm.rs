//! The memory of one SM: L1 data cache with MSHRs, constant cache, instruction cache.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::cache::{Cache, Line, Victim};
use super::power::{DomainTotals, PowerDomain, Target};
use super::{AccessKind, MemStats, MemorySystem, Outcome, Transaction, full_mask, request_mask};
use crate::config::GpuConfig;

/// MSHR slots preallocated at most (a larger configured count grows the heap on demand once).
const MSHR_PREALLOC: usize = 4096;

/// The memory of one SM: L1 data cache (with MSHRs), constant cache, instruction cache.
///
/// The L1 data cache is sectored: a miss fetches only the sectors the transaction names, and a
/// later load needing other sectors of a present line is a sector miss (it needs an MSHR but no
/// victim). The instruction and constant caches read a missing line from the L2 through the
/// interconnect, as GPGPU-Sim's do, or, with a `miss_latency` set, pay that fixed latency
/// instead.
#[derive(Clone, Debug)]
pub struct SmMemory {
    l1: Cache,
    l1_line: u64,
    l1_full: u32,
    l1_latency: u64,
    /// MSHRs (lines with a fill in flight).
    mshrs: Mshrs,
    /// Requests one MSHR holds, the first included; 0 = unlimited.
    mshr_merge: u32,
    /// Transactions the L1 accepts per cycle, and those accepted so far at `port_cycle`.
    ports: u32,
    port_cycle: u64,
    port_used: u32,
    constant: Cache,
    const_line: u64,
    const_latency: u64,
    const_miss: u64,
    icache: Cache,
    icache_line: u64,
    icache_latency: u64,
    icache_miss: u64,
    icache_mshrs: Mshrs,
    icache_merge: u32,
    /// Sector size of requests to the L2.
    sector: u64,
    /// One-way interconnect latency: a response enters the ICNT→L1 queue this long before it
    /// reaches the L1.
    icnt: u64,
    /// The L1 data array's power states (Snooze; `None` when `mem.snooze.gating` is off).
    power: Option<PowerDomain>,
    stats: MemStats,
}

/// The MSHRs of a cache: each is busy from a miss until its fill arrives.
#[derive(Clone, Debug)]
struct Mshrs {
    /// How many there are; 0 = unlimited.
    limit: usize,
    /// Cycle each busy one frees: a min-heap, pruned when asked.
    busy: BinaryHeap<Reverse<u64>>,
}

impl Mshrs {
    fn new(limit: u32) -> Mshrs {
        let limit = limit as usize;
        Mshrs {
            limit,
            busy: BinaryHeap::with_capacity(limit.min(MSHR_PREALLOC)),
        }
    }

    /// Whether one is free at `now`.
    fn any_free(&mut self, now: u64) -> bool {
        while let Some(&Reverse(free)) = self.busy.peek() {
            if free > now {
                break;
            }
            self.busy.pop();
        }
        self.limit == 0 || self.busy.len() < self.limit
    }

    /// Takes one until `ready` (untracked when unlimited).
    fn hold_until(&mut self, ready: u64) {
        if self.limit != 0 {
            self.busy.push(Reverse(ready));
        }
    }
}

impl SmMemory {
    /// Empty caches for `cfg`.
    pub fn new(cfg: &GpuConfig) -> SmMemory {
        SmMemory::starting_at(cfg, 0)
    }

    /// Empty caches for `cfg` in a launch that begins at cycle `start` (from which the L1's
    /// power states are counted).
    pub fn starting_at(cfg: &GpuConfig, start: u64) -> SmMemory {
        let l1 = &cfg.mem.l1d;
        let l1_line = u64::from(l1.line.max(1));
        SmMemory {
            l1: Cache::with_set_index(l1.sets, l1.ways, l1.line, l1.set_index),
            l1_line,
            l1_full: full_mask(l1_line, u64::from(cfg.mem.sector)),
            l1_latency: u64::from(l1.latency),
            mshrs: Mshrs::new(l1.mshrs),
            mshr_merge: l1.mshr_merge,
            ports: cfg.mem.l1_requests_per_cycle.max(1),
            port_cycle: 0,
            port_used: 0,
            constant: Cache::with_set_index(
                cfg.mem.constant.sets,
                cfg.mem.constant.ways,
                cfg.mem.constant.line,
                cfg.mem.constant.set_index,
            ),
            const_line: u64::from(cfg.mem.constant.line.max(1)),
            const_latency: u64::from(cfg.mem.constant.latency),
            const_miss: u64::from(cfg.mem.constant.miss_latency),
            icache: Cache::with_set_index(
                cfg.sm.icache.sets,
                cfg.sm.icache.ways,
                cfg.sm.icache.line,
                cfg.sm.icache.set_index,
            ),
            icache_line: u64::from(cfg.sm.icache.line.max(1)),
            icache_latency: u64::from(cfg.sm.icache.latency),
            icache_miss: u64::from(cfg.sm.icache.miss_latency),
            icache_mshrs: Mshrs::new(cfg.sm.icache.mshrs),
            icache_merge: cfg.sm.icache.mshr_merge,
            sector: u64::from(cfg.mem.sector.max(1)),
            icnt: u64::from(cfg.mem.icnt_latency),
            power: PowerDomain::new(
                &cfg.mem.snooze,
                l1.sets.max(1) as usize * l1.ways.max(1) as usize,
                l1.line,
                cfg.mem.sector,
                start,
            ),
            stats: MemStats::default(),
        }
    }

    /// From cycle `at` on, the L1's idle gating units are OFF rather than asleep (the SM's
    /// CTAs have all finished and no more will come). The first call counts.
    pub fn switch_off_from(&mut self, at: u64) {
        if let Some(p) = &mut self.power {
            p.switch_off_from(at);
        }
    }

    /// The L1's gating units and their state counts up to cycle `until` (Snooze; `None` when
    /// off).
    pub fn power_totals(&mut self, until: u64) -> Option<DomainTotals> {
        Some(self.power.as_mut()?.totals_until(until))
    }

    /// Wakes the L1 units `target` uses from `at` for a request seen at `seen`, at cycle
    /// `now`: the cycles the access waits for them (0 without Snooze).
    fn wake(&mut self, now: u64, seen: u64, at: u64, target: Target) -> u64 {
        match &mut self.power {
            Some(p) => p.access(now, seen, at, 1, target),
            None => 0,
        }
    }

    /// Fetch of the instruction-cache line holding byte address `addr`: the cycle the
    /// instructions are available, or `None` when the fetch cannot start this cycle (a miss
    /// with every MSHR busy, or a fill already holding `mshr_merge` fetches): nothing changes
    /// but the counters. A hit costs the hit latency; a miss takes an MSHR and reads the line
    /// from the L2 (or waits `miss_latency` when one is set), and the line is ready when it
    /// arrives; a fetch of a line being filled waits for the same fill.
    pub fn fetch(&mut self, now: u64, addr: u64, l2: &mut MemorySystem) -> Option<u64> {
        l2.advance_to(now);
        let index = addr / self.icache_line;
        let hit = now.saturating_add(self.icache_latency);
        if let Some(way) = self.icache.find(index, index) {
            let line = *self.icache.line(way);
            if !line.is_pending(now) {
                self.icache.touch(way);
                self.stats.icache_accesses += 1;
                self.stats.icache_hits += 1;
                return Some(hit);
            }
            if !self.icache.join_fill(way, self.icache_merge) {
                self.stats.icache_reservation_fails += 1;
                return None;
            }
            self.stats.icache_accesses += 1;
            self.stats.icache_pending_hits += 1;
            return Some(hit.max(line.ready));
        }
        if !self.icache_mshrs.any_free(now) {
            self.stats.icache_reservation_fails += 1;
            return None;
        }
        self.stats.icache_accesses += 1;
        self.stats.icache_misses += 1;
        let (way, start) = fill_slot(&self.icache, index, now);
        let ready = if self.icache_miss > 0 {
            start
                .saturating_add(self.icache_latency)
                .saturating_add(self.icache_miss)
        } else {
            let base = index * self.icache_line;
            self.read_below(start, base, self.icache_line, l2).max(hit)
        };
        self.icache.install(way, index, 1, 1, ready);
        self.icache.line_mut(way).waiters = 1;
        self.icache_mshrs.hold_until(ready);
        Some(ready)
    }

    /// Reads the `bytes` bytes at `addr` from the L2 at `now`, a request per L1-line-sized
    /// block, naming only their sectors; returns the cycle the last of them is back.
    fn read_below(&self, now: u64, addr: u64, bytes: u64, l2: &mut MemorySystem) -> u64 {
        let end = addr.saturating_add(bytes.max(1));
        let mut done = now;
        let mut at = addr;
        while at < end {
            let base = at - at % self.l1_line;
            // (At the top of the address space the block ends at the last byte.)
            let stop = end.min(base.saturating_add(self.l1_line));
            let first = (at - base) / self.sector;
            let last = (stop - 1 - base) / self.sector;
            let mask = (first..=last.min(31)).fold(0u32, |m, i| m | 1 << i);
            let t = Transaction {
                line: base,
                sectors: mask,
            };
            done = done.max(l2.access(now, t, AccessKind::Load));
            at = stop;
        }
        done
    }

    /// A load through the constant cache (`ld.const` and kernel parameters) by the given active
    /// lanes: distinct addresses are served one per cycle (lanes with equal addresses are one
    /// broadcast); a distinct line that misses is read from the L2 (or costs `miss_latency`
    /// when one is set) and holds up the addresses after it. Returns the cycle the last value
    /// is available (`now` when no lane).
    pub fn constant(&mut self, now: u64, lane_addrs: &[u64], l2: &mut MemorySystem) -> u64 {
        l2.advance_to(now);
        let mut at = now;
        let mut done = now;
        for (i, &addr) in lane_addrs.iter().enumerate() {
            // Warps have at most 32 lanes: a scan of the earlier ones beats any set.
            if lane_addrs[..i].contains(&addr) {
                continue;
            }
            self.stats.const_accesses += 1;
            let index = addr / self.const_line;
            let served = match self.constant.find(index, index) {
                Some(way) => {
                    self.constant.touch(way);
                    let line = self.constant.line(way);
                    let hit = at.saturating_add(self.const_latency);
                    if line.is_pending(at) {
                        self.stats.const_pending_hits += 1;
                        hit.max(line.ready)
                    } else {
                        self.stats.const_hits += 1;
                        hit
                    }
                }
                None => {
                    self.stats.const_misses += 1;
                    let (way, start) = fill_slot(&self.constant, index, at);
                    let ready = if self.const_miss > 0 {
                        at = start.saturating_add(self.const_miss);
                        at.saturating_add(self.const_latency)
                    } else {
                        let base = index * self.const_line;
                        at = self.read_below(start, base, self.const_line, l2);
                        at.max(start.saturating_add(self.const_latency))
                    };
                    self.constant.install(way, index, 1, 1, ready);
                    ready
                }
            };
            done = done.max(served);
            at = at.saturating_add(1);
        }
        done
    }

    /// One coalesced global/local transaction at the L1 (Fermi policy).
    ///
    /// Loads hit (now + `l1d.latency`); wait for a pending fill of the same line when fewer
    /// than `mshr_merge` requests (the first included, as GPGPU-Sim counts) are merged in it;
    /// or take an MSHR (fewer than `mshrs` fills in flight) and, for a line not present, a
    /// victim way (LRU among the set's lines with no fill in flight), and go to `l2` for the
    /// missing sectors; the line becomes valid at the cycle the L2 returns. Stores are
    /// write-through with write-evict (a hit invalidates the line) and no write-allocate: they
    /// go to `l2` and return its ready cycle. Atomics bypass L1 (evicting the line like a
    /// store) and are performed at L2. Whatever goes to `l2` leaves after the L1's pipeline,
    /// at now + `l1d.latency`: GPGPU-Sim's L1 looks its tags up at the end of its latency
    /// queue and only then sends a miss on.
    ///
    /// `Stall` (nothing changes but the counters) when the request cannot be accepted: MSHRs
    /// full, merge limit reached, every way of the set awaiting a fill, or
    /// `mem.l1_requests_per_cycle` transactions already accepted at this cycle.
    pub fn global(
        &mut self,
        now: u64,
        t: Transaction,
        kind: AccessKind,
        l2: &mut MemorySystem,
    ) -> Outcome {
        l2.advance_to(now);
        if self.port_cycle != now {
            self.port_cycle = now;
            self.port_used = 0;
        }
        if self.port_used >= self.ports {
            self.stats.l1d_port_stalls += 1;
            self.stats.l1d_reservation_fails += 1;
            return Outcome::Stall;
        }
        let outcome = match kind {
            AccessKind::Load => self.load(now, t, l2),
            AccessKind::Store | AccessKind::Atomic => Outcome::Ready(self.write(now, t, kind, l2)),
        };
        match outcome {
            Outcome::Ready(_) => self.port_used += 1,
            Outcome::Stall => self.stats.l1d_reservation_fails += 1,
        }
        outcome
    }

    /// Drops every line (kernel boundary: L1 and constant caches are not coherent across
    /// kernels), the instruction cache's too. Fills in flight keep their MSHRs until they
    /// arrive.
    pub fn invalidate(&mut self) {
        self.l1.invalidate_all();
        self.constant.invalidate_all();
        self.icache.invalidate_all();
    }

    /// Counters of this SM's caches.
    pub fn stats(&self) -> &MemStats {
        &self.stats
    }

    fn load(&mut self, now: u64, t: Transaction, l2: &mut MemorySystem) -> Outcome {
        let mshr_free = self.mshrs.any_free(now);
        let mask = request_mask(t.sectors, self.l1_full);
        let index = t.line / self.l1_line;
        let base = index * self.l1_line;
        let hit = now.saturating_add(self.l1_latency);

        let Some(way) = self.l1.find(index, index) else {
            // Line miss: an MSHR and a way, or nothing changes.
            if !mshr_free {
                return Outcome::Stall;
            }
            let way = match self.l1.victim(index, now) {
                Victim::Free(w) | Victim::Evict(w) => w,
                Victim::Busy(_) => return Outcome::Stall,
            };
            // The tags are looked up at the end of the L1's pipeline (Snooze: the request
            // entered the AGU→L1 queue at `now`).
            let woke = self.wake(now, now, hit, Target::Tags);
            let ready = self.request(now, woke, base, mask, way, l2);
            self.l1.install(way, index, mask, mask, ready);
            self.l1.line_mut(way).waiters = 1;
            self.stats.l1d_accesses += 1;
            self.stats.l1d_misses += 1;
            return Outcome::Ready(ready.max(hit.saturating_add(woke)));
        };

        let line = *self.l1.line(way);
        let in_flight = line.is_pending(now);
        let waits = in_flight && mask & line.pending != 0;
        let missing = mask & !line.valid;
        if missing == 0 {
            if !waits {
                let sectors = mask;
                let woke = self.wake(now, now, hit, Target::Data { way, sectors });
                self.l1.touch(way);
                self.stats.l1d_accesses += 1;
                self.stats.l1d_hits += 1;
                return Outcome::Ready(hit.saturating_add(woke));
            }
            if !self.l1.join_fill(way, self.mshr_merge) {
                return Outcome::Stall;
            }
            // Its data comes with the fill it joins.
            let woke = self.wake(now, now, hit, Target::Tags);
            self.stats.l1d_accesses += 1;
            self.stats.l1d_mshr_merges += 1;
            return Outcome::Ready(line.ready.max(hit.saturating_add(woke)));
        }

        // Sector miss: the line stays, the missing sectors are fetched under a new MSHR.
        if !mshr_free {
            return Outcome::Stall;
        }
        let present = mask & !missing;
        let target = match present {
            0 => Target::Tags,
            sectors => Target::Data { way, sectors },
        };
        let woke = self.wake(now, now, hit, target);
        let ready = self.request(now, woke, base, missing, way, l2);
        self.l1.touch(way);
        let l = self.l1.line_mut(way);
        l.valid |= missing;
        if in_flight {
            l.pending |= missing;
            l.ready = l.ready.max(ready);
            l.waiters = l.waiters.saturating_add(1);
        } else {
            l.pending = missing;
            l.ready = ready;
            l.waiters = 1;
        }
        self.stats.l1d_accesses += 1;
        self.stats.l1d_misses += 1;
        self.stats.l1d_sector_misses += 1;
        let earlier = if waits { line.ready } else { 0 };
        Outcome::Ready(ready.max(hit.saturating_add(woke)).max(earlier))
    }

    /// Sends the sectors `mask` of the line at `base` to L2 (after the L1's pipeline and
    /// `woke` cycles of its lookup waiting for Snooze's wake-up) under an MSHR held until they
    /// are filled into `way`; returns that cycle. Snooze: the response enters the ICNT→L1
    /// queue when it leaves the L2, `mem.icnt_latency` before it reaches the L1.
    fn request(
        &mut self,
        now: u64,
        woke: u64,
        base: u64,
        mask: u32,
        way: usize,
        l2: &mut MemorySystem,
    ) -> u64 {
        let t = Transaction {
            line: base,
            sectors: mask,
        };
        let depart = now.saturating_add(self.l1_latency).saturating_add(woke);
        let back = l2.access(depart, t, AccessKind::Load);
        let seen = back.saturating_sub(self.icnt).max(now);
        let ready =
            back.saturating_add(self.wake(now, seen, back, Target::Data { way, sectors: mask }));
        self.mshrs.hold_until(ready);
        ready
    }

    fn write(&mut self, now: u64, t: Transaction, kind: AccessKind, l2: &mut MemorySystem) -> u64 {
        let index = t.line / self.l1_line;
        if let Some(way) = self.l1.find(index, index) {
            *self.l1.line_mut(way) = Line::default();
            self.stats.l1d_store_evictions += 1;
        }
        if kind == AccessKind::Atomic {
            self.stats.l1d_atomics += 1;
        } else {
            self.stats.l1d_stores += 1;
        }
        // Write-evict touches the tags only; the data goes on to the L2.
        let hit = now.saturating_add(self.l1_latency);
        let woke = self.wake(now, now, hit, Target::Tags);
        l2.access(hit.saturating_add(woke), t, kind)
    }
}

/// The way a missing line of a fixed-latency cache fills, and the cycle its fill can start: at
/// `now`, or when every way awaits a fill, once the first of them arrives.
fn fill_slot(cache: &Cache, index: u64, now: u64) -> (usize, u64) {
    match cache.victim(index, now) {
        Victim::Free(w) | Victim::Evict(w) => (w, now),
        Victim::Busy(w) => (w, now.max(cache.line(w).ready)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(overrides: &[&str]) -> GpuConfig {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        GpuConfig::load("gtx480", &o).unwrap()
    }

    fn line(addr: u64) -> Transaction {
        Transaction {
            line: addr,
            sectors: 0b1111,
        }
    }

    fn ready(o: Outcome) -> u64 {
        match o {
            Outcome::Ready(c) => c,
            Outcome::Stall => panic!("unexpected stall"),
        }
    }

    /// Cycle of an L2 miss at cycle 0 on gtx480 for a whole idle line: the interconnect (20)
    /// and the L2 lookup (120) reach DRAM at 140 + 100 = 240 core cycles = DRAM cycle 317
    /// (924 / 700 MHz); activate there, four sector reads from 317 + tRCD = 329 on the
    /// tCCD = 2 grid (330) and tCCDL = 3 apart on it (4), the last one's data CL + burst = 14
    /// later at DRAM cycle 356 = core cycle 270, and the interconnect back.
    const MISS: u64 = 270 + 20;

    /// gtx480's L1 pipeline: its hit latency, and the cycles before a miss leaves for the L2.
    const L1: u64 = 35;

    #[test]
    fn miss_then_hit_after_the_fill() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = ready(sm.global(0, line(0x1000), AccessKind::Load, &mut l2));
        assert_eq!(fill, L1 + MISS);
        let r = ready(sm.global(fill + 5, line(0x1000), AccessKind::Load, &mut l2));
        assert_eq!(r, fill + 5 + 35);
        let s = sm.stats();
        assert_eq!((s.l1d_accesses, s.l1d_hits, s.l1d_misses), (2, 1, 1));
        assert_eq!(s.l1d_hit_rate(), 0.5);
        assert_eq!(l2.stats().l2_accesses, 1);
    }

    #[test]
    fn a_hit_before_the_fill_merges_and_waits_for_it() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = ready(sm.global(0, line(0), AccessKind::Load, &mut l2));
        let r = ready(sm.global(10, line(0), AccessKind::Load, &mut l2));
        assert_eq!(r, fill);
        assert_eq!(sm.stats().l1d_mshr_merges, 1);
        assert_eq!(
            l2.stats().l2_accesses,
            1,
            "a merged request does not go to L2"
        );
    }

    #[test]
    fn merge_limit_then_stall() {
        let cfg = config(&["mem.l1d.mshr_merge=3"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = ready(sm.global(0, line(0), AccessKind::Load, &mut l2));
        assert_eq!(
            ready(sm.global(1, line(0), AccessKind::Load, &mut l2)),
            fill
        );
        assert_eq!(
            ready(sm.global(2, line(0), AccessKind::Load, &mut l2)),
            fill
        );
        assert_eq!(
            sm.global(3, line(0), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert_eq!(sm.stats().l1d_reservation_fails, 1);
        // Once the fill is in, it is a plain hit.
        assert_eq!(
            ready(sm.global(fill, line(0), AccessKind::Load, &mut l2)),
            fill + 35
        );
    }

    #[test]
    fn mshr_limit_then_stall_until_a_fill_returns() {
        let cfg = config(&["mem.l1d.mshrs=2"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let a = ready(sm.global(0, line(0), AccessKind::Load, &mut l2));
        ready(sm.global(1, line(128), AccessKind::Load, &mut l2));
        let before = l2.stats().clone();
        assert_eq!(
            sm.global(2, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert_eq!(
            l2.stats(),
            &before,
            "a stalled request changes nothing below"
        );
        // Merging needs no new MSHR.
        assert_eq!(ready(sm.global(3, line(0), AccessKind::Load, &mut l2)), a);
        assert_eq!(
            sm.global(a - 1, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert!(matches!(
            sm.global(a, line(256), AccessKind::Load, &mut l2),
            Outcome::Ready(_)
        ));
        assert_eq!(sm.stats().l1d_reservation_fails, 2);
    }

    #[test]
    fn lru_eviction_order_and_pending_ways_are_not_victims() {
        // One set of 2 ways: lines 0, 128, 256 compete.
        let cfg = config(&[
            "mem.l1d.sets=1",
            "mem.l1d.ways=2",
            "mem.l1d.set_index=linear",
        ]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let f0 = ready(sm.global(0, line(0), AccessKind::Load, &mut l2));
        let f1 = ready(sm.global(1, line(128), AccessKind::Load, &mut l2));
        // Both ways await fills: a third line cannot be placed.
        assert_eq!(
            sm.global(2, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        let t = f0.max(f1) + 1;
        // Touch line 0, so line 128 is the least recently used and goes.
        ready(sm.global(t, line(0), AccessKind::Load, &mut l2));
        ready(sm.global(t + 1, line(256), AccessKind::Load, &mut l2));
        let later = t + 10_000;
        assert_eq!(
            ready(sm.global(later, line(0), AccessKind::Load, &mut l2)),
            later + 35
        );
        let misses = sm.stats().l1d_misses;
        ready(sm.global(later + 1, line(128), AccessKind::Load, &mut l2));
        assert_eq!(sm.stats().l1d_misses, misses + 1, "line 128 was evicted");
    }

    #[test]
    fn stores_write_through_and_evict() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = ready(sm.global(0, line(0), AccessKind::Load, &mut l2));
        let t = fill + 1;
        let ack = ready(sm.global(t, line(0), AccessKind::Store, &mut l2));
        assert_eq!(
            ack,
            t + L1 + 2 * 20 + 120,
            "the store is acknowledged by L2"
        );
        assert_eq!(sm.stats().l1d_store_evictions, 1);
        assert_eq!(l2.stats().l2_stores, 1);
        // The line is gone from L1 (a miss), but L2 has it.
        let r = ready(sm.global(t + 1000, line(0), AccessKind::Load, &mut l2));
        assert_eq!(r, t + 1000 + L1 + 2 * 20 + 120);
        assert_eq!(sm.stats().l1d_misses, 2);
        // A store to a line not in L1 does not allocate it.
        ready(sm.global(t + 3000, line(4096), AccessKind::Store, &mut l2));
        ready(sm.global(t + 4000, line(4096), AccessKind::Load, &mut l2));
        assert_eq!(sm.stats().l1d_misses, 3);
        // Atomics go to L2 too.
        ready(sm.global(t + 5000, line(4096), AccessKind::Atomic, &mut l2));
        assert_eq!((sm.stats().l1d_atomics, l2.stats().l2_atomics), (1, 1));
        assert_eq!(sm.stats().l1d_store_evictions, 2);
    }

    #[test]
    fn sector_misses_fetch_only_the_missing_sectors() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let first = Transaction {
            line: 0,
            sectors: 0b0001,
        };
        let f = ready(sm.global(0, first, AccessKind::Load, &mut l2));
        ready(sm.global(f + 1, line(0), AccessKind::Load, &mut l2));
        assert_eq!(sm.stats().l1d_sector_misses, 1);
        assert_eq!(l2.stats().dram_reads_bytes, 128);
        assert_eq!(
            ready(sm.global(f + 9999, line(0), AccessKind::Load, &mut l2)),
            f + 9999 + 35
        );
    }

    #[test]
    fn requests_per_cycle_are_limited() {
        let cfg = config(&["mem.l1_requests_per_cycle=2"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        ready(sm.global(5, line(0), AccessKind::Load, &mut l2));
        ready(sm.global(5, line(128), AccessKind::Load, &mut l2));
        assert_eq!(
            sm.global(5, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert_eq!(sm.stats().l1d_port_stalls, 1);
        ready(sm.global(6, line(256), AccessKind::Load, &mut l2));
    }

    #[test]
    fn constant_cache_broadcast_and_distinct_addresses() {
        let cfg = config(&["mem.constant.miss_latency=200"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        // One address for every lane: one miss, then one hit.
        assert_eq!(sm.constant(0, &[0x100; 32], &mut l2), 8 + 200);
        assert_eq!(sm.constant(1000, &[0x100; 32], &mut l2), 1000 + 8);
        assert_eq!(sm.stats().const_accesses, 2);
        // Four distinct addresses in that (now valid) line: one per cycle.
        let four = [0x100, 0x104, 0x108, 0x10c];
        assert_eq!(sm.constant(2000, &four, &mut l2), 2000 + 3 + 8);
        // Two distinct lines missing: each adds the miss latency.
        assert_eq!(
            sm.constant(3000, &[0x1000, 0x2000], &mut l2),
            3000 + 1 + 8 + 2 * 200
        );
        assert_eq!(sm.stats().const_misses, 3);
        assert_eq!(sm.constant(4000, &[], &mut l2), 4000);
        sm.invalidate();
        assert_eq!(sm.constant(5000, &[0x100], &mut l2), 5000 + 8 + 200);
        assert_eq!(
            l2.stats().l2_accesses,
            0,
            "a fixed miss latency reads nothing below"
        );
    }

    /// gtx480 (as GPGPU-Sim): a constant-cache miss reads its 64-byte line, two sectors, from
    /// the L2; the addresses after it wait for the fill.
    #[test]
    fn constant_misses_read_the_l2() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = sm.constant(0, &[0x1040], &mut l2);
        assert!(fill > 200, "through the interconnect, L2 and DRAM: {fill}");
        let s = l2.stats();
        assert_eq!((s.l2_accesses, s.dram_reads), (1, 2), "two 32-byte sectors");
        assert_eq!(sm.constant(fill, &[0x1044], &mut l2), fill + 8);
        // Read again after the SM's caches are dropped: an L2 hit (the interconnect both ways
        // and the lookup).
        sm.invalidate();
        assert_eq!(
            sm.constant(10_000, &[0x1048], &mut l2),
            10_000 + 20 + 120 + 20
        );
        assert_eq!(l2.stats().l2_hits, 1);
    }

    #[test]
    fn icache_miss_fill_and_hit_with_a_fixed_miss_latency() {
        let cfg = config(&["sm.icache.miss_latency=100"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        assert_eq!(sm.fetch(0, 0x40, &mut l2), Some(101));
        // Same line, still filling: wait for the fill.
        assert_eq!(sm.fetch(10, 0x48, &mut l2), Some(101));
        assert_eq!(sm.fetch(200, 0x7f, &mut l2), Some(201));
        assert_eq!(
            sm.fetch(300, 0x80, &mut l2),
            Some(401),
            "the next line misses"
        );
        let s = sm.stats();
        assert_eq!(
            (
                s.icache_accesses,
                s.icache_hits,
                s.icache_misses,
                s.icache_pending_hits
            ),
            (4, 1, 2, 1)
        );
        sm.invalidate();
        assert_eq!(sm.fetch(1000, 0x40, &mut l2), Some(1101));
        assert_eq!(l2.stats().l2_accesses, 0);
    }

    /// gtx480 (GPGPU-Sim's "S:2:32"): a miss reads the line from the L2 under one of two
    /// MSHRs; a third line waits for one to free; a pending line takes 32 fetches at most.
    #[test]
    fn icache_misses_read_the_l2_under_two_mshrs() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let a = sm.fetch(0, 0x40, &mut l2).unwrap();
        assert_eq!(a, MISS, "a whole line from DRAM");
        let b = sm.fetch(1, 0x1000, &mut l2).unwrap();
        let before = l2.stats().clone();
        assert_eq!(sm.fetch(2, 0x2000, &mut l2), None, "both MSHRs busy");
        assert_eq!(l2.stats(), &before, "a refused fetch changes nothing below");
        for now in 3..34 {
            assert_eq!(sm.fetch(now, 0x48, &mut l2), Some(a), "merged at {now}");
        }
        assert_eq!(
            sm.fetch(34, 0x48, &mut l2),
            None,
            "the 33rd fetch of a pending line"
        );
        assert_eq!(sm.stats().icache_reservation_fails, 2);
        let first_free = a.min(b);
        assert_eq!(sm.fetch(first_free - 1, 0x2000, &mut l2), None);
        assert!(sm.fetch(first_free, 0x2000, &mut l2).is_some());
        assert_eq!(sm.fetch(a, 0x40, &mut l2), Some(a + 1), "a hit once filled");
        let s = sm.stats();
        assert_eq!(
            (s.icache_misses, s.icache_pending_hits, s.icache_hits),
            (3, 31, 1)
        );
    }

    /// Snooze through the L1 and the L2 (32-byte blocks, 2-cycle wake-up). The L1's pipeline
    /// (35 cycles from the AGU→L1 queue to the array), the interconnect (20 cycles in the
    /// ICNT→L1 queue) and the DRAM (CL + burst known ahead) all see a request more than the
    /// wake-up ahead, so every wake-up is hidden: the same cycles as without Snooze. A gating
    /// logic that sees a request only as it reaches the array (lookahead 0) pays the whole
    /// wake-up at each sleeping block (the L2's fill, the L1's fill, the later hit), one that
    /// sees it a cycle ahead the remainder.
    #[test]
    fn snooze_wake_ups_are_hidden_or_cost_their_latency() {
        let run = |o: &[&str]| {
            let cfg = config(o);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            let fill = ready(sm.global(0, line(0x1000), AccessKind::Load, &mut l2));
            let later = fill + 100;
            let hit = ready(sm.global(later, line(0x1000), AccessKind::Load, &mut l2));
            let until = later + 1000;
            let power = (sm.power_totals(until), l2.power_totals(until));
            ((fill, hit - later), power)
        };
        let (base, none) = run(&[]);
        assert_eq!(base, (L1 + MISS, 35));
        assert_eq!(none, (None, None));
        for gating in ["bank", "line"] {
            let (cycles, (l1, l2)) = run(&[&format!("mem.snooze.gating={gating}")]);
            assert_eq!(cycles, base, "{gating}");
            let (l1, l2) = (l1.unwrap().cycles, l2.unwrap().cycles);
            assert_eq!(
                (l1.delayed_accesses, l2.delayed_accesses),
                (0, 0),
                "{gating}"
            );
            assert!(
                l1.wakeups >= 2 && l2.wakeups >= 1,
                "{gating}: {l1:?} {l2:?}"
            );
        }
        for (lookahead, late) in [(0, 2), (1, 1)] {
            let o = [
                "mem.snooze.gating=line",
                &format!("mem.snooze.lookahead={lookahead}"),
            ];
            let ((fill, hit), (l1, l2)) = run(&o);
            assert_eq!(
                fill,
                base.0 + 2 * late,
                "lookahead {lookahead}: the L2's and the L1's fills"
            );
            assert_eq!(hit, base.1 + late, "lookahead {lookahead}: the hit");
            let (l1, l2) = (l1.unwrap(), l2.unwrap());
            // 4 blocks of the line, in the L1 (128 lines) and the L2 (12 slices of 512); the
            // other blocks never used.
            assert_eq!((l1.units, l2.units), (128 * 4, 12 * 512 * 4));
            assert_eq!((l1.unused, l2.unused), (127 * 4, (12 * 512 - 1) * 4));
            let (l1, l2) = (l1.cycles, l2.cycles);
            assert_eq!((l1.delayed_accesses, l1.wake_stall_cycles), (2, 2 * late));
            assert_eq!((l2.delayed_accesses, l2.wake_stall_cycles), (1, late));
            // The line's four blocks woke for the L1's fill and for the hit, the L2's for
            // its fill.
            assert_eq!((l1.wakeups, l2.wakeups), (8, 4));
            assert_eq!(l1.unit_cycles(), 128 * 4 * (fill + 1100));
        }
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        for o in [&[][..], &["mem.l1d.mshrs=0", "mem.l1d.mshr_merge=0"][..]] {
            let cfg = config(o);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            for now in [0, u64::MAX - 1000, u64::MAX] {
                for addr in [0, u64::MAX, u64::MAX - 200] {
                    for sectors in [0, 1, u32::MAX] {
                        for kind in [AccessKind::Load, AccessKind::Store, AccessKind::Atomic] {
                            let t = Transaction {
                                line: addr,
                                sectors,
                            };
                            sm.global(now, t, kind, &mut l2);
                            l2.access(now, t, kind);
                        }
                    }
                    sm.fetch(now, addr, &mut l2);
                    sm.constant(now, &[addr, 0, addr], &mut l2);
                }
            }
        }
    }

    #[test]
    fn same_sequence_same_cycles() {
        let run = || {
            let cfg = config(&["mem.l1d.mshrs=4"]);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            let mut out = Vec::new();
            for i in 0..2000u64 {
                let kind = if i % 7 == 0 {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                };
                let t = Transaction {
                    line: (i * 37 % 131) * 128,
                    sectors: (i % 15 + 1) as u32,
                };
                out.push(sm.global(i, t, kind, &mut l2));
                out.push(Outcome::Ready(sm.constant(i, &[i % 64 * 4, 0], &mut l2)));
                out.push(
                    sm.fetch(i, i * 8 % 4096, &mut l2)
                        .map_or(Outcome::Stall, Outcome::Ready),
                );
            }
            let mut stats = sm.stats().clone();
            stats.merge(l2.stats());
            (out, stats)
        };
        let (a, sa) = run();
        assert!(a.contains(&Outcome::Stall));
        assert_eq!((a, sa), run());
    }
}
