//! The memory of one SM: L1 data cache with MSHRs, constant cache, instruction cache.
//!
//! An SM's cycle may run on any host thread, so its memory never touches the GPU-wide L2
//! during the cycle: a request that must go below is recorded, answered with a [`Ticket`],
//! and sent when the cycle commits ([`SmMemory::commit`], the SMs one after another in index
//! order), which is when the cycle its data is back becomes known. Until then the MSHR it
//! holds is busy and the L1 line it fills is pending (a request of the same cycle that needs
//! that line waits for the next cycle); nothing the SM does in the cycle could have seen the
//! answer anyway, since it comes back at least two interconnect crossings later.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::cache::{Cache, Line, Victim};
use super::power::{DomainTotals, PowerDomain, Target};
use super::{
    AccessKind, MemStats, MemorySystem, Outcome, Ticket, Transaction, full_mask, request_mask,
};
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
    /// Whether a miss fetches only the sectors it needs (`false`: the whole line).
    l1_sectored: bool,
    /// A store that hits keeps its line (`mem.l1d.write_through_keeps`).
    l1_write_through_keeps: bool,
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
    const_perfect: bool,
    icache: Cache,
    icache_line: u64,
    icache_latency: u64,
    icache_miss: u64,
    icache_perfect: bool,
    icache_mshrs: Mshrs,
    icache_merge: u32,
    /// Sector size of requests to the L2.
    sector: u64,
    /// One-way interconnect latency: a response enters the ICNT→L1 queue this long before it
    /// reaches the L1.
    icnt: u64,
    /// Cycles of the SM's reply port taken by read data on its way in (`None`: no limit);
    /// each reply sector takes the first free cycle at or after its arrival.
    reply_port: Option<ReplyPort>,
    /// The port requests leave by, in flits (`mem.request_flits_per_cycle`; `None`: no
    /// limit).
    request_port: Option<RequestPort>,
    /// The earliest cycle this SM's next packet may pass the request crossbar: its packets
    /// pass in the order they were sent (`mem.request_crossbar`).
    next_pass: u64,
    /// The L1 data array's power states (Snooze; `None` when `mem.snooze.gating` is off).
    power: Option<PowerDomain>,
    /// This cycle's requests to the L2, in the order they were made (a [`Ticket`] indexes
    /// them), sent by [`SmMemory::commit`].
    below: Vec<Below>,
    /// L1 ways whose fill is one of this cycle's requests (way, ticket): their ready cycle is
    /// not known before the commit.
    unresolved: Vec<(usize, Ticket)>,
    /// Whether a constant-cache access of this cycle waits for the commit (and so every later
    /// one of the cycle does).
    constant_queued: bool,
    stats: MemStats,
}

/// A request to the L2 made during an SM's cycle, sent when the cycle commits, with what its
/// answer completes.
#[derive(Clone, Debug)]
enum Below {
    /// An L1 data miss at `now`: the sectors `mask` of the line at `base` (line `index`) fill
    /// `way` under an MSHR; the lookup waited `woke` cycles for Snooze. The line was to be
    /// ready at `prior` (0 when no fill was in flight), and the requester's data is back no
    /// earlier than `floor`.
    L1Fill {
        now: u64,
        woke: u64,
        base: u64,
        mask: u32,
        way: usize,
        index: u64,
        prior: u64,
        floor: u64,
    },
    /// A store, an atomic or a load bypassing the L1, made at `made`, leaving for the L2 at
    /// `depart`.
    ToL2 {
        made: u64,
        depart: u64,
        t: Transaction,
        kind: AccessKind,
    },
    /// An instruction-cache miss at `now` of line `index`, under an MSHR.
    IFill { now: u64, index: u64 },
    /// A constant-cache access whose lanes from `next` on wait for the commit (the lane at
    /// `next` misses and reads its line from the L2, or an earlier access of the cycle did):
    /// the lane at `next` is served from cycle `at`, the ones before were done at `done`.
    Constant {
        lanes: Vec<u64>,
        next: usize,
        at: u64,
        done: u64,
    },
}

/// An SM's reply port: the cycles its incoming read data occupies, `per_cycle` sectors each,
/// in the first free cycle at or after each sector's arrival (replies arrive out of order).
#[derive(Clone, Debug)]
struct ReplyPort {
    per_cycle: u32,
    /// Sectors taken per cycle, for cycles with any (pruned behind the arrivals).
    taken: std::collections::BTreeMap<u64, u32>,
}

impl ReplyPort {
    fn new(per_cycle: u32) -> ReplyPort {
        ReplyPort {
            per_cycle,
            taken: std::collections::BTreeMap::new(),
        }
    }

    /// The cycle the last of `sectors` sectors arriving at `at` is through the port, for a
    /// request made at `now` (requests are made in cycle order, and data arrives after its
    /// request: cycles before `now` are settled).
    fn take(&mut self, now: u64, at: u64, sectors: u32) -> u64 {
        while let Some((&c, _)) = self.taken.first_key_value() {
            if c >= now {
                break;
            }
            self.taken.pop_first();
        }
        let mut cycle = at;
        let mut done = at;
        for _ in 0..sectors.max(1) {
            loop {
                let used = self.taken.entry(cycle).or_insert(0);
                if *used < self.per_cycle {
                    *used += 1;
                    done = cycle;
                    break;
                }
                cycle += 1;
            }
        }
        done
    }
}

/// An SM's request port: `per_cycle` flits a cycle, leaving in the order they are offered
/// (GPGPU-Sim's L1 miss queue is a FIFO), so a cursor is all it needs.
#[derive(Clone, Debug)]
struct RequestPort {
    per_cycle: u64,
    /// The last cycle a flit left in, and how many left in it.
    cycle: u64,
    used: u64,
}

impl RequestPort {
    fn new(per_cycle: u32) -> RequestPort {
        RequestPort {
            per_cycle: u64::from(per_cycle.max(1)),
            cycle: 0,
            used: 0,
        }
    }

    /// The cycles the first and the last of `flits` flits ready at `at` leave, behind every
    /// earlier one.
    fn take(&mut self, at: u64, flits: u32) -> (u64, u64) {
        if self.cycle < at {
            self.cycle = at;
            self.used = 0;
        }
        let first = if self.used < self.per_cycle {
            self.cycle
        } else {
            self.cycle + 1
        };
        let total = self.used + u64::from(flits.max(1));
        self.cycle += (total - 1) / self.per_cycle;
        self.used = (total - 1) % self.per_cycle + 1;
        (first, self.cycle)
    }
}

/// The MSHRs of a cache: each is busy from a miss until its fill arrives.
#[derive(Clone, Debug)]
struct Mshrs {
    /// How many there are; 0 = unlimited.
    limit: usize,
    /// Cycle each busy one frees: a min-heap, pruned when asked.
    busy: BinaryHeap<Reverse<u64>>,
    /// Busy ones whose fill is one of this cycle's requests to the L2 (freeing once the
    /// commit knows when).
    unresolved: usize,
}

impl Mshrs {
    fn new(limit: u32) -> Mshrs {
        let limit = limit as usize;
        Mshrs {
            limit,
            busy: BinaryHeap::with_capacity(limit.min(MSHR_PREALLOC)),
            unresolved: 0,
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
        self.limit == 0 || self.busy.len() + self.unresolved < self.limit
    }

    /// Takes one until `ready` (untracked when unlimited).
    fn hold_until(&mut self, ready: u64) {
        if self.limit != 0 {
            self.busy.push(Reverse(ready));
        }
    }

    /// Takes one until a cycle the commit will know ([`Mshrs::resolve`]).
    fn hold_unresolved(&mut self) {
        if self.limit != 0 {
            self.unresolved += 1;
        }
    }

    /// One taken by [`Mshrs::hold_unresolved`] frees at `ready`.
    fn resolve(&mut self, ready: u64) {
        if self.limit != 0 {
            self.unresolved -= 1;
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
            l1_sectored: l1.sectored,
            l1_write_through_keeps: l1.write_through_keeps,
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
            const_perfect: cfg.mem.constant.perfect,
            icache: Cache::with_set_index(
                cfg.sm.icache.sets,
                cfg.sm.icache.ways,
                cfg.sm.icache.line,
                cfg.sm.icache.set_index,
            ),
            icache_line: u64::from(cfg.sm.icache.line.max(1)),
            icache_latency: u64::from(cfg.sm.icache.latency),
            icache_miss: u64::from(cfg.sm.icache.miss_latency),
            icache_perfect: cfg.sm.icache.perfect,
            icache_mshrs: Mshrs::new(cfg.sm.icache.mshrs),
            icache_merge: cfg.sm.icache.mshr_merge,
            sector: u64::from(cfg.mem.sector.max(1)),
            icnt: u64::from(cfg.mem.icnt_latency),
            reply_port: (cfg.mem.reply_sectors_per_cycle > 0)
                .then(|| ReplyPort::new(cfg.mem.reply_sectors_per_cycle)),
            request_port: (cfg.mem.request_flits_per_cycle > 0)
                .then(|| RequestPort::new(cfg.mem.request_flits_per_cycle)),
            next_pass: 0,
            power: PowerDomain::new(
                &cfg.mem.snooze,
                l1.sets.max(1) as usize * l1.ways.max(1) as usize,
                l1.line,
                cfg.mem.sector,
                start,
            ),
            below: Vec::new(),
            unresolved: Vec::new(),
            constant_queued: false,
            stats: MemStats::default(),
        }
    }

    /// Whether requests of this cycle wait for [`SmMemory::commit`].
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.below.is_empty()
    }

    /// Sends this cycle's requests (made at cycle `now`) to the L2 in the order they were
    /// made, completes what waits for their answers (MSHRs, line fills, the constant cache's
    /// remaining lanes), and puts in `answers`, by [`Ticket`], the cycle each requester's data
    /// (or a store's acknowledgement) is back. The SMs commit one after another in index
    /// order, so the L2 sees the same requests in the same order whichever host thread ran
    /// each SM's cycle.
    pub fn commit(&mut self, now: u64, l2: &mut MemorySystem, answers: &mut Vec<u64>) {
        answers.clear();
        if self.below.is_empty() {
            return;
        }
        l2.advance_to(now);
        let below = std::mem::take(&mut self.below);
        for (ticket, op) in below.iter().enumerate() {
            let answer = match *op {
                Below::L1Fill {
                    now,
                    woke,
                    base,
                    mask,
                    way,
                    index,
                    prior,
                    floor,
                } => {
                    let ready = self.request(now, woke, base, mask, way, l2);
                    let t = Transaction {
                        line: base,
                        sectors: mask,
                    };
                    self.count_fetch(now, ready, t, AccessKind::Load);
                    self.mshrs.resolve(ready);
                    let owned = self.unresolved.contains(&(way, ticket as Ticket));
                    if owned && self.l1.line(way).tag == index {
                        let l = self.l1.line_mut(way);
                        l.ready = prior.max(ready);
                    }
                    ready.max(floor)
                }
                Below::ToL2 {
                    made,
                    depart,
                    t,
                    kind,
                } => {
                    let depart = self.inject(depart, t, kind, l2);
                    let back = l2.access(depart, t, kind);
                    let back = match kind {
                        AccessKind::Load => self.reply(depart, back, t.sectors),
                        AccessKind::Atomic => self.reply(depart, back, 1),
                        AccessKind::Store => self.reply(depart, back, t.sectors),
                    };
                    self.count_fetch(made, back, t, kind);
                    back
                }
                Below::IFill { now, index } => {
                    let hit = now.saturating_add(self.icache_latency);
                    let (way, start) = fill_slot(&self.icache, index, now);
                    let base = index * self.icache_line;
                    let ready = self.read_below(start, base, self.icache_line, l2).max(hit);
                    self.icache.install(way, index, 1, 1, ready);
                    self.icache.line_mut(way).waiters = 1;
                    self.icache_mshrs.resolve(ready);
                    ready
                }
                Below::Constant {
                    ref lanes,
                    next,
                    at,
                    done,
                } => match self.constant_lanes(lanes, next, at, done, Some(l2)) {
                    Ok(done) => done,
                    Err(_) => unreachable!("with the L2 at hand every lane is served"),
                },
            };
            answers.push(answer);
        }
        self.below = below;
        self.below.clear();
        self.unresolved.clear();
        self.constant_queued = false;
    }

    /// When read data of `sectors` (a mask) requested at `now` and arriving at `back` is
    /// through the reply port.
    fn reply(&mut self, now: u64, back: u64, sectors: u32) -> u64 {
        match &mut self.reply_port {
            Some(port) => port.take(now, back, sectors.count_ones()),
            None => back,
        }
    }

    /// The cycle the last flit of a request of `sectors` (a mask) ready to leave at `depart`
    /// is through the request port. GPGPU-Sim sends an SM's requests one a cycle (the L1's miss
    /// queue, `baseline_cache::cycle`; bypassing accesses, `ldst_unit::memory_cycle`), each
    /// one 40-byte flit (`-icnt_flit_size 40`): a sectored L1 sends a request per sector, a
    /// sector's read or its write with the data; a whole-line read (an L1 that is not
    /// sectored) is one request, a write of k sectors k flits; an atomic is one.
    ///
    /// With the request crossbar (`mem.request_crossbar`) the answer is the cycle the last
    /// flit passed it: the flits leave in order, so each passes after the one before it
    /// ([`MemorySystem::cross`]).
    fn inject(
        &mut self,
        depart: u64,
        t: Transaction,
        kind: AccessKind,
        l2: &mut MemorySystem,
    ) -> u64 {
        let flits = self.packets(t, kind);
        let (first, last) = match &mut self.request_port {
            Some(port) => port.take(depart, flits),
            None => (depart, depart),
        };
        if !l2.has_crossbar() {
            return last;
        }
        let passed = l2.cross(first.max(self.next_pass), t, flits);
        self.next_pass = passed + 1;
        passed
    }

    /// The packets (GPGPU-Sim's memory fetches) a request of `t` sends below the L1: one per
    /// sector of a sectored L1's load or of a store, one for a whole line or an atomic.
    fn packets(&self, t: Transaction, kind: AccessKind) -> u32 {
        match kind {
            AccessKind::Atomic => 1,
            AccessKind::Load if !self.l1_sectored => 1,
            AccessKind::Load | AccessKind::Store => {
                request_mask(t.sectors, self.l1_full).count_ones()
            }
        }
    }

    /// Counts the packets of a request of `t` made at `made` whose replies are back at `back`.
    fn count_fetch(&mut self, made: u64, back: u64, t: Transaction, kind: AccessKind) {
        let packets = u64::from(self.packets(t, kind));
        self.stats.fetches += packets;
        self.stats.fetch_latency = self
            .stats
            .fetch_latency
            .saturating_add(packets.saturating_mul(back.saturating_sub(made)));
    }

    /// Records a request for the commit; its ticket.
    fn defer(&mut self, op: Below) -> Ticket {
        self.below.push(op);
        (self.below.len() - 1) as Ticket
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

    /// Fetch of the instruction-cache line holding byte address `addr` at `now`: the cycle the
    /// instructions are available ([`Outcome::Ready`], or [`Outcome::Pending`] until the
    /// commit), or [`Outcome::Stall`] when the fetch cannot start this cycle (a miss with
    /// every MSHR busy, or a fill already holding `mshr_merge` fetches): nothing changes but
    /// the counters. A hit costs the hit latency; a miss takes an MSHR and reads the line from
    /// the L2 (or waits `miss_latency` when one is set), and the line is ready when it
    /// arrives; a fetch of a line being filled waits for the same fill. (An SM fetches once a
    /// cycle, so the line a miss fills is placed at the commit.)
    pub fn fetch(&mut self, now: u64, addr: u64) -> Outcome {
        let index = addr / self.icache_line;
        let hit = now.saturating_add(self.icache_latency);
        if self.icache_perfect {
            self.stats.icache_accesses += 1;
            self.stats.icache_hits += 1;
            return Outcome::Ready(hit);
        }
        if let Some(way) = self.icache.find(index, index) {
            let line = *self.icache.line(way);
            if !line.is_pending(now) {
                self.icache.touch(way);
                self.stats.icache_accesses += 1;
                self.stats.icache_hits += 1;
                return Outcome::Ready(hit);
            }
            if !self.icache.join_fill(way, self.icache_merge) {
                self.stats.icache_reservation_fails += 1;
                return Outcome::Stall;
            }
            self.stats.icache_accesses += 1;
            self.stats.icache_pending_hits += 1;
            return Outcome::Ready(hit.max(line.ready));
        }
        if !self.icache_mshrs.any_free(now) {
            self.stats.icache_reservation_fails += 1;
            return Outcome::Stall;
        }
        self.stats.icache_accesses += 1;
        self.stats.icache_misses += 1;
        if self.icache_miss == 0 {
            self.icache_mshrs.hold_unresolved();
            return Outcome::Pending(self.defer(Below::IFill { now, index }));
        }
        let (way, start) = fill_slot(&self.icache, index, now);
        let ready = start
            .saturating_add(self.icache_latency)
            .saturating_add(self.icache_miss);
        self.icache.install(way, index, 1, 1, ready);
        self.icache.line_mut(way).waiters = 1;
        self.icache_mshrs.hold_until(ready);
        Outcome::Ready(ready)
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

    /// A load through the constant cache (`ld.const` and kernel parameters) at `now` by the
    /// given active lanes: distinct addresses are served one per cycle (lanes with equal
    /// addresses are one broadcast); a distinct line that misses is read from the L2 (or
    /// costs `miss_latency` when one is set) and holds up the addresses after it. The cycle
    /// the last value is available (`now` when no lane): [`Outcome::Ready`], or, once a line
    /// must be read from the L2, [`Outcome::Pending`]: that lane and the ones after it are
    /// served when the cycle commits (as are all lanes of a later access of the same cycle,
    /// so they see the cache as those left it). Never [`Outcome::Stall`].
    pub fn constant(&mut self, now: u64, lane_addrs: &[u64]) -> Outcome {
        let stopped = if self.constant_queued {
            Err((0, now, now))
        } else {
            self.constant_lanes(lane_addrs, 0, now, now, None)
        };
        match stopped {
            Ok(done) => Outcome::Ready(done),
            Err((next, at, done)) => {
                self.constant_queued = true;
                Outcome::Pending(self.defer(Below::Constant {
                    lanes: lane_addrs.to_vec(),
                    next,
                    at,
                    done,
                }))
            }
        }
    }

    /// Serves `lane_addrs` from lane `next` on, that lane from cycle `at`, the lanes before
    /// it having been done at `done`: the cycle the last value is available, or, without the
    /// L2 at hand (`l2` is `None`), `Err((lane, at, done))` at the first lane that must read
    /// its line from it.
    fn constant_lanes(
        &mut self,
        lane_addrs: &[u64],
        next: usize,
        mut at: u64,
        mut done: u64,
        mut l2: Option<&mut MemorySystem>,
    ) -> Result<u64, (usize, u64, u64)> {
        for i in next..lane_addrs.len() {
            let addr = lane_addrs[i];
            // Warps have at most 32 lanes: a scan of the earlier ones beats any set.
            if lane_addrs[..i].contains(&addr) {
                continue;
            }
            if self.const_perfect {
                // Every address at once, each a hit (see `CacheConfig::perfect`).
                self.stats.const_accesses += 1;
                self.stats.const_hits += 1;
                done = done.max(at.saturating_add(self.const_latency));
                continue;
            }
            let index = addr / self.const_line;
            let found = self.constant.find(index, index);
            if found.is_none() && self.const_miss == 0 && l2.is_none() {
                return Err((i, at, done));
            }
            self.stats.const_accesses += 1;
            let served = match found {
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
                    let ready = match l2.as_deref_mut() {
                        Some(l2) if self.const_miss == 0 => {
                            let base = index * self.const_line;
                            at = self.read_below(start, base, self.const_line, l2);
                            at.max(start.saturating_add(self.const_latency))
                        }
                        _ => {
                            at = start.saturating_add(self.const_miss);
                            at.saturating_add(self.const_latency)
                        }
                    };
                    self.constant.install(way, index, 1, 1, ready);
                    ready
                }
            };
            done = done.max(served);
            at = at.saturating_add(1);
        }
        Ok(done)
    }

    /// One coalesced global/local transaction at the L1 (Fermi policy).
    ///
    /// Loads hit (now + `l1d.latency`); wait for a pending fill of the same line when fewer
    /// than `mshr_merge` requests (the first included, as GPGPU-Sim counts) are merged in it;
    /// or take an MSHR (fewer than `mshrs` fills in flight) and, for a line not present, a
    /// victim way (LRU among the set's lines with no fill in flight), and go to `l2` for the
    /// missing sectors; the line becomes valid at the cycle the L2 returns. Stores are
    /// write-through with write-evict (a hit invalidates the line) and no write-allocate: they
    /// go to `l2` and return its ready cycle. Atomics are performed at L2 (the LD/ST unit sends
    /// them with `bypass`, as GPGPU-Sim does: [`crate::decode::L1Route`]; without it they evict
    /// the line like a store). Whatever goes to `l2` leaves after the L1's pipeline,
    /// at now + `l1d.latency`: GPGPU-Sim's L1 looks its tags up at the end of its latency
    /// queue and only then sends a miss on.
    ///
    /// What goes to `l2` is sent when the cycle commits: the answer is then
    /// [`Outcome::Pending`], and a request of the same cycle that needs the line it fills is
    /// refused (only an SM with several LD/ST units can make one).
    ///
    /// `Stall` (nothing changes but the counters) when the request cannot be accepted: MSHRs
    /// full, merge limit reached, every way of the set awaiting a fill, the line's fill sent
    /// this cycle, or `mem.l1_requests_per_cycle` transactions already accepted at this cycle.
    ///
    /// With `bypass` the transaction skips the L1 (tags, latency and lines): it leaves for the
    /// L2 at once, as GPGPU-Sim's `ldst_unit::memory_cycle` pushes a bypassing access straight
    /// into the interconnect.
    pub fn global(&mut self, now: u64, t: Transaction, kind: AccessKind, bypass: bool) -> Outcome {
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
            _ if bypass => {
                self.stats.l1d_bypasses += 1;
                self.count_write(kind);
                Outcome::Pending(self.defer(Below::ToL2 {
                    made: now,
                    depart: now,
                    t,
                    kind,
                }))
            }
            AccessKind::Load => self.load(now, t),
            AccessKind::Store | AccessKind::Atomic => self.write(now, t, kind),
        };
        match outcome {
            Outcome::Ready(_) | Outcome::Pending(_) => self.port_used += 1,
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

    fn load(&mut self, now: u64, t: Transaction) -> Outcome {
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
            // A cache that is not sectored fetches the whole line.
            let mask = if self.l1_sectored { mask } else { self.l1_full };
            let way = match self.l1.victim(index, now) {
                Victim::Free(w) | Victim::Evict(w) => w,
                Victim::Busy(_) => return Outcome::Stall,
            };
            // The tags are looked up at the end of the L1's pipeline (Snooze: the request
            // entered the AGU→L1 queue at `now`).
            let woke = self.wake(now, now, hit, Target::Tags);
            let ticket = self.defer(Below::L1Fill {
                now,
                woke,
                base,
                mask,
                way,
                index,
                prior: 0,
                floor: hit.saturating_add(woke),
            });
            self.mshrs.hold_unresolved();
            self.l1.install(way, index, mask, mask, u64::MAX);
            self.l1.line_mut(way).waiters = 1;
            self.l1.line_mut(way).add_sector_waiters(mask, true);
            self.unresolved.push((way, ticket));
            self.stats.l1d_accesses += 1;
            self.stats.l1d_misses += 1;
            return Outcome::Pending(ticket);
        };
        if self.unresolved.iter().any(|&(w, _)| w == way) {
            // Its fill leaves at the commit: when it is back is not known yet.
            return Outcome::Stall;
        }

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
            let joined = if self.l1_sectored {
                self.l1
                    .join_fill_sectors(way, mask & line.pending, self.mshr_merge)
            } else {
                self.l1.join_fill(way, self.mshr_merge)
            };
            if !joined {
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
        let earlier = if waits { line.ready } else { 0 };
        let ticket = self.defer(Below::L1Fill {
            now,
            woke,
            base,
            mask: missing,
            way,
            index,
            prior: if in_flight { line.ready } else { 0 },
            floor: hit.saturating_add(woke).max(earlier),
        });
        self.mshrs.hold_unresolved();
        self.l1.touch(way);
        let l = self.l1.line_mut(way);
        l.valid |= missing;
        if in_flight {
            l.pending |= missing;
            l.waiters = l.waiters.saturating_add(1);
            l.add_sector_waiters(present & line.pending, false);
        } else {
            l.pending = missing;
            l.waiters = 1;
        }
        l.add_sector_waiters(missing, true);
        l.ready = u64::MAX;
        self.unresolved.push((way, ticket));
        self.stats.l1d_accesses += 1;
        self.stats.l1d_misses += 1;
        self.stats.l1d_sector_misses += 1;
        Outcome::Pending(ticket)
    }

    /// Sends the sectors `mask` of the line at `base` to L2 (after the L1's pipeline and
    /// `woke` cycles of its lookup waiting for Snooze's wake-up) for a miss at `now` filling
    /// `way`; returns the cycle they are filled. Snooze: the response enters the ICNT→L1
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
        let depart = self.inject(depart, t, AccessKind::Load, l2);
        let back = self.reply(now, l2.access(depart, t, AccessKind::Load), mask);
        let seen = back.saturating_sub(self.icnt).max(now);
        back.saturating_add(self.wake(now, seen, back, Target::Data { way, sectors: mask }))
    }

    fn write(&mut self, now: u64, t: Transaction, kind: AccessKind) -> Outcome {
        let index = t.line / self.l1_line;
        if let Some(way) = self.l1.find(index, index) {
            if self.l1_write_through_keeps && kind == AccessKind::Store {
                // Its sectors present are updated; the absent ones stay absent (no fetch).
                self.l1.touch(way);
            } else {
                *self.l1.line_mut(way) = Line::default();
                // A fill of this cycle no longer has a line to complete.
                self.unresolved.retain(|&(w, _)| w != way);
                self.stats.l1d_store_evictions += 1;
            }
        }
        self.count_write(kind);
        // The store touches the tags only here; the data goes on to the L2.
        let hit = now.saturating_add(self.l1_latency);
        let woke = self.wake(now, now, hit, Target::Tags);
        let depart = hit.saturating_add(woke);
        Outcome::Pending(self.defer(Below::ToL2 {
            made: now,
            depart,
            t,
            kind,
        }))
    }

    /// Counts a store or an atomic the L1 passes on.
    fn count_write(&mut self, kind: AccessKind) {
        match kind {
            AccessKind::Atomic => self.stats.l1d_atomics += 1,
            AccessKind::Store => self.stats.l1d_stores += 1,
            AccessKind::Load => {}
        }
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

    /// gtx480 without its reply and request ports' limits and its slices' reply ports
    /// (tested on their own), with a 20-cycle interconnect: the latencies below are worked out
    /// so.
    fn config(overrides: &[&str]) -> GpuConfig {
        let o: Vec<String> = [
            "mem.icnt_latency=20",
            "mem.l2.reply_port=false",
            "mem.reply_sectors_per_cycle=0",
            "mem.request_flits_per_cycle=0",
            "mem.request_crossbar=false",
        ]
        .iter()
        .chain(overrides)
        .map(|s| s.to_string())
        .collect();
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
            Outcome::Pending(t) => panic!("ticket {t} not committed"),
            Outcome::Stall => panic!("unexpected stall"),
        }
    }

    /// The outcome of `o` once the cycle `now` commits (a pending answer filled in).
    fn commit(sm: &mut SmMemory, now: u64, l2: &mut MemorySystem, o: Outcome) -> Outcome {
        let mut answers = Vec::new();
        sm.commit(now, l2, &mut answers);
        match o {
            Outcome::Pending(t) => Outcome::Ready(answers[t as usize]),
            o => o,
        }
    }

    /// A global transaction at `now`, committed.
    fn global(
        sm: &mut SmMemory,
        now: u64,
        t: Transaction,
        kind: AccessKind,
        l2: &mut MemorySystem,
    ) -> Outcome {
        let o = sm.global(now, t, kind, false);
        commit(sm, now, l2, o)
    }

    /// An instruction fetch at `now`, committed: `None` when refused.
    fn fetch(sm: &mut SmMemory, now: u64, addr: u64, l2: &mut MemorySystem) -> Option<u64> {
        let o = sm.fetch(now, addr);
        match commit(sm, now, l2, o) {
            Outcome::Ready(c) => Some(c),
            _ => None,
        }
    }

    /// A constant-cache access at `now`, committed.
    fn constant(sm: &mut SmMemory, now: u64, lanes: &[u64], l2: &mut MemorySystem) -> u64 {
        let o = sm.constant(now, lanes);
        ready(commit(sm, now, l2, o))
    }

    /// Cycle of an L2 miss at cycle 0 on gtx480 for a whole idle line: the interconnect (20)
    /// and the L2 lookup (120) reach DRAM at 140 + 100 = 240 core cycles = DRAM cycle 317
    /// (924 / 700 MHz); activate there, four sector reads from 317 + tRCD = 329 on the
    /// tCCD = 2 grid (330) and tCCDL = 3 apart on it (4), the last one's data CL + burst = 14
    /// later at DRAM cycle 356 = core cycle 270, and the interconnect back.
    const MISS: u64 = 270 + 20;

    /// gtx480's L1 pipeline: its hit latency, and the cycles before a miss leaves for the L2.
    const L1: u64 = 35;

    /// One sector a cycle through the reply port, each in the first free cycle at or after
    /// its arrival, whatever order the requests were made in.
    #[test]
    fn the_reply_port_takes_a_sector_a_cycle() {
        let mut port = ReplyPort::new(1);
        assert_eq!(port.take(0, 100, 4), 103);
        assert_eq!(port.take(0, 100, 4), 107);
        assert_eq!(port.take(0, 50, 1), 50);
        assert_eq!(port.take(0, 101, 1), 108);
        let mut two = ReplyPort::new(2);
        assert_eq!(two.take(0, 10, 4), 11);
    }

    /// A store's acknowledgements come in through the reply port too, one a sector
    /// (GPGPU-Sim acknowledges each sector request of its breakdown, and the cluster ejects
    /// one packet a cycle, data or acknowledgement): a four-sector store's last is through
    /// 3 cycles after it arrives.
    #[test]
    fn a_stores_acknowledgements_take_the_reply_port() {
        let acked = |overrides: &[&str]| {
            let cfg = config(overrides);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            let mut answers = Vec::new();
            let _ = sm.global(0, line(0x1000), AccessKind::Store, true);
            sm.commit(0, &mut l2, &mut answers);
            answers[0]
        };
        assert_eq!(acked(&["mem.reply_sectors_per_cycle=1"]), acked(&[]) + 3);
    }

    /// The request port is a FIFO: flits leave in order, `per_cycle` a cycle, each no earlier
    /// than it is ready.
    #[test]
    fn the_request_port_is_a_fifo() {
        let mut port = RequestPort::new(1);
        assert_eq!(port.take(100, 4), (100, 103));
        assert_eq!(port.take(100, 1), (104, 104));
        assert_eq!(port.take(50, 1), (105, 105), "no overtaking");
        assert_eq!(port.take(200, 2), (200, 201));
        let mut two = RequestPort::new(2);
        assert_eq!(two.take(10, 3), (10, 11));
        assert_eq!(two.take(10, 1), (11, 11));
        assert_eq!(two.take(10, 1), (12, 12));
    }

    /// A flit a cycle out of the SM: a sectored L1 sends a request per sector, so a
    /// four-sector load leaves 3 cycles after a one-sector one, and the next request waits
    /// behind both; a whole-line read of an L1 that is not sectored is one flit, a store of
    /// four sectors four.
    #[test]
    fn the_request_port_sends_a_flit_a_cycle() {
        let back = |overrides: &[&str], kind: AccessKind, sectors: u32, twice: bool| {
            let cfg = config(overrides);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            let t = Transaction {
                line: 0x1000,
                sectors,
            };
            let other = Transaction {
                line: 0x8000,
                sectors: 1,
            };
            // Both lines in the L2 first, so the answers are L2 hits: the departure plus the
            // interconnect both ways and the L2 lookup, no DRAM grid.
            let mut answers = Vec::new();
            for (now, t) in [(0, t), (10, other)] {
                let _ = sm.global(now, t, AccessKind::Load, true);
                sm.commit(now, &mut l2, &mut answers);
            }
            let now = 10_000;
            let _ = sm.global(now, t, kind, true);
            if twice {
                let _ = sm.global(now, other, kind, true);
            }
            sm.commit(now, &mut l2, &mut answers);
            answers
        };
        let limited = [
            "mem.request_flits_per_cycle=1",
            "mem.l1_requests_per_cycle=2",
        ];
        let free = ["mem.l1_requests_per_cycle=2"];
        let sectored = |o: &[&str]| -> Vec<String> {
            o.iter()
                .map(|s| s.to_string())
                .chain(["mem.l1d.sectored=true".into()])
                .collect()
        };
        let (l, f) = (sectored(&limited), sectored(&free));
        let (l, f): (Vec<&str>, Vec<&str>) = (
            l.iter().map(String::as_str).collect(),
            f.iter().map(String::as_str).collect(),
        );
        // Sectored: the four-sector load's last flit leaves 3 cycles late; the next request's
        // flit waits behind the four.
        let slow = back(&l, AccessKind::Load, 0b1111, true);
        let fast = back(&f, AccessKind::Load, 0b1111, true);
        assert_eq!(slow[0], fast[0] + 3);
        assert_eq!(slow[1], fast[1] + 4);
        assert_eq!(
            back(&l, AccessKind::Load, 0b0001, false),
            back(&f, AccessKind::Load, 0b0001, false)
        );
        // Not sectored (gtx480's L1): a line read is one flit, a four-sector store four.
        assert_eq!(
            back(&limited, AccessKind::Load, 0b1111, true)[1],
            back(&free, AccessKind::Load, 0b1111, true)[1] + 1
        );
        assert_eq!(
            back(&limited, AccessKind::Store, 0b1111, true)[1],
            back(&free, AccessKind::Store, 0b1111, true)[1] + 4
        );
    }

    /// With the request crossbar an L2 slice's port takes a packet a cycle and an SM's
    /// packets pass in the order they were sent: SM B's read of line Y, behind its read of
    /// line X, waits while X's slice takes SM A's four-flit store, though Y's slice is idle
    /// (head-of-line blocking). The read of X itself is no later: it queued behind the store
    /// at the slice before.
    #[test]
    fn the_request_crossbar_blocks_at_the_head_of_the_line() {
        let answers = |crossbar: bool| {
            let cfg = config(&[
                "mem.request_flits_per_cycle=1",
                "mem.l1_requests_per_cycle=2",
                if crossbar {
                    "mem.request_crossbar=true"
                } else {
                    "mem.request_crossbar=false"
                },
            ]);
            let map = cfg.mem.dram.address_map(&cfg.mem.l2).unwrap();
            let x = 0x10_0000u64;
            let y = (1..64)
                .map(|i| x + i * 128)
                .find(|&a| map.locate(a).slice != map.locate(x).slice)
                .unwrap();
            let (mut a, mut b) = (SmMemory::new(&cfg), SmMemory::new(&cfg));
            let mut l2 = MemorySystem::new(&cfg);
            let mut out = Vec::new();
            // Both lines in the L2 first, so every answer is a hit.
            let _ = b.global(0, line(x), AccessKind::Load, true);
            let _ = b.global(0, line(y), AccessKind::Load, true);
            b.commit(0, &mut l2, &mut out);
            let now = 10_000;
            let store = Transaction {
                line: x,
                sectors: 0b1111,
            };
            let _ = a.global(now, store, AccessKind::Store, true);
            a.commit(now, &mut l2, &mut out);
            let _ = b.global(now, line(x), AccessKind::Load, true);
            let _ = b.global(now, line(y), AccessKind::Load, true);
            b.commit(now, &mut l2, &mut out);
            out
        };
        let (free, blocked) = (answers(false), answers(true));
        assert_eq!(blocked[0], free[0], "X queued behind the store either way");
        assert_eq!(
            blocked[1],
            free[1] + 4,
            "Y waited for X to pass: 4 cycles later"
        );
    }

    /// A sectored L1 counts its merge limit per sector, as GPGPU-Sim's MSHRs of a sectored
    /// cache are (`cache_config::mshr_addr`): with a limit of 2, a fill of two sectors takes
    /// one more request on each, where a count per line would refuse the second.
    #[test]
    fn a_sectored_l1_merges_up_to_its_limit_per_sector() {
        let outcomes = |sectored: &str| {
            let cfg = config(&[
                sectored,
                "mem.l1d.mshr_merge=2",
                "mem.l1_requests_per_cycle=8",
            ]);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            let sectors = |sectors| Transaction {
                line: 0x4000,
                sectors,
            };
            let miss = global(&mut sm, 0, sectors(0b0011), AccessKind::Load, &mut l2);
            assert!(matches!(miss, Outcome::Ready(_)), "{miss:?}");
            [0b0001, 0b0010, 0b0001]
                .map(|m| sm.global(1, sectors(m), AccessKind::Load, false))
                .map(|o| matches!(o, Outcome::Stall))
        };
        assert_eq!(outcomes("mem.l1d.sectored=true"), [false, false, true]);
        assert_eq!(outcomes("mem.l1d.sectored=false"), [false, true, true]);
    }

    /// A write-through L1 (`mem.l1d.write_through_keeps`) keeps a line a store hits, so the
    /// next load hits; a write-evict one loses it, so the next load misses.
    #[test]
    fn a_write_through_l1_keeps_the_line_a_store_hits() {
        let load_after_store = |keeps: &str| {
            let cfg = config(&[keeps]);
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            let x = line(0x4000);
            let _ = global(&mut sm, 0, x, AccessKind::Load, &mut l2);
            let _ = global(&mut sm, 5_000, x, AccessKind::Store, &mut l2);
            global(&mut sm, 10_000, x, AccessKind::Load, &mut l2)
        };
        let latency = u64::from(config(&[]).mem.l1d.latency);
        assert_eq!(
            load_after_store("mem.l1d.write_through_keeps=true"),
            Outcome::Ready(10_000 + latency)
        );
        assert!(
            ready(load_after_store("mem.l1d.write_through_keeps=false")) > 10_000 + latency,
            "the evicted line is fetched again"
        );
    }

    /// A bypassing load (`.cg`, or a global load under `gpgpu_gmem_skip_L1D`) leaves for the
    /// L2 at once, so it is back the L1's pipeline earlier than a miss, and leaves no line.
    #[test]
    fn a_bypassing_load_skips_the_l1() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let o = sm.global(0, line(0x1000), AccessKind::Load, true);
        assert_eq!(ready(commit(&mut sm, 0, &mut l2, o)), MISS);
        assert_eq!((sm.stats().l1d_accesses, sm.stats().l1d_bypasses), (0, 1));
        // The line is in the L2 now, not in the L1: a cached load misses the L1 and hits L2.
        let r = ready(global(
            &mut sm,
            1000,
            line(0x1000),
            AccessKind::Load,
            &mut l2,
        ));
        assert_eq!(r, 1000 + L1 + 2 * 20 + 120);
        assert_eq!(sm.stats().l1d_misses, 1);
    }

    #[test]
    fn miss_then_hit_after_the_fill() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = ready(global(&mut sm, 0, line(0x1000), AccessKind::Load, &mut l2));
        assert_eq!(fill, L1 + MISS);
        let r = ready(global(
            &mut sm,
            fill + 5,
            line(0x1000),
            AccessKind::Load,
            &mut l2,
        ));
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
        let fill = ready(global(&mut sm, 0, line(0), AccessKind::Load, &mut l2));
        let r = ready(global(&mut sm, 10, line(0), AccessKind::Load, &mut l2));
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
        let fill = ready(global(&mut sm, 0, line(0), AccessKind::Load, &mut l2));
        assert_eq!(
            ready(global(&mut sm, 1, line(0), AccessKind::Load, &mut l2)),
            fill
        );
        assert_eq!(
            ready(global(&mut sm, 2, line(0), AccessKind::Load, &mut l2)),
            fill
        );
        assert_eq!(
            global(&mut sm, 3, line(0), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert_eq!(sm.stats().l1d_reservation_fails, 1);
        // Once the fill is in, it is a plain hit.
        assert_eq!(
            ready(global(&mut sm, fill, line(0), AccessKind::Load, &mut l2)),
            fill + 35
        );
    }

    #[test]
    fn mshr_limit_then_stall_until_a_fill_returns() {
        let cfg = config(&["mem.l1d.mshrs=2"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let a = ready(global(&mut sm, 0, line(0), AccessKind::Load, &mut l2));
        ready(global(&mut sm, 1, line(128), AccessKind::Load, &mut l2));
        let before = l2.stats().clone();
        assert_eq!(
            global(&mut sm, 2, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert_eq!(
            l2.stats(),
            &before,
            "a stalled request changes nothing below"
        );
        // Merging needs no new MSHR.
        assert_eq!(
            ready(global(&mut sm, 3, line(0), AccessKind::Load, &mut l2)),
            a
        );
        assert_eq!(
            global(&mut sm, a - 1, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert!(matches!(
            global(&mut sm, a, line(256), AccessKind::Load, &mut l2),
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
        let f0 = ready(global(&mut sm, 0, line(0), AccessKind::Load, &mut l2));
        let f1 = ready(global(&mut sm, 1, line(128), AccessKind::Load, &mut l2));
        // Both ways await fills: a third line cannot be placed.
        assert_eq!(
            global(&mut sm, 2, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        let t = f0.max(f1) + 1;
        // Touch line 0, so line 128 is the least recently used and goes.
        ready(global(&mut sm, t, line(0), AccessKind::Load, &mut l2));
        ready(global(&mut sm, t + 1, line(256), AccessKind::Load, &mut l2));
        let later = t + 10_000;
        assert_eq!(
            ready(global(&mut sm, later, line(0), AccessKind::Load, &mut l2)),
            later + 35
        );
        let misses = sm.stats().l1d_misses;
        ready(global(
            &mut sm,
            later + 1,
            line(128),
            AccessKind::Load,
            &mut l2,
        ));
        assert_eq!(sm.stats().l1d_misses, misses + 1, "line 128 was evicted");
    }

    #[test]
    fn stores_write_through_and_evict() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let fill = ready(global(&mut sm, 0, line(0), AccessKind::Load, &mut l2));
        let t = fill + 1;
        let ack = ready(global(&mut sm, t, line(0), AccessKind::Store, &mut l2));
        assert_eq!(
            ack,
            t + L1 + 2 * 20 + 120,
            "the store is acknowledged by L2"
        );
        assert_eq!(sm.stats().l1d_store_evictions, 1);
        assert_eq!(l2.stats().l2_stores, 1);
        // The line is gone from L1 (a miss), but L2 has it.
        let r = ready(global(
            &mut sm,
            t + 1000,
            line(0),
            AccessKind::Load,
            &mut l2,
        ));
        assert_eq!(r, t + 1000 + L1 + 2 * 20 + 120);
        assert_eq!(sm.stats().l1d_misses, 2);
        // A store to a line not in L1 does not allocate it.
        ready(global(
            &mut sm,
            t + 3000,
            line(4096),
            AccessKind::Store,
            &mut l2,
        ));
        ready(global(
            &mut sm,
            t + 4000,
            line(4096),
            AccessKind::Load,
            &mut l2,
        ));
        assert_eq!(sm.stats().l1d_misses, 3);
        // Atomics go to L2 too.
        ready(global(
            &mut sm,
            t + 5000,
            line(4096),
            AccessKind::Atomic,
            &mut l2,
        ));
        assert_eq!((sm.stats().l1d_atomics, l2.stats().l2_atomics), (1, 1));
        assert_eq!(sm.stats().l1d_store_evictions, 2);
    }

    #[test]
    fn sector_misses_fetch_only_the_missing_sectors() {
        let cfg = config(&["mem.l1d.sectored=true"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let first = Transaction {
            line: 0,
            sectors: 0b0001,
        };
        let f = ready(global(&mut sm, 0, first, AccessKind::Load, &mut l2));
        ready(global(&mut sm, f + 1, line(0), AccessKind::Load, &mut l2));
        assert_eq!(sm.stats().l1d_sector_misses, 1);
        assert_eq!(l2.stats().dram_reads_bytes, 128);
        assert_eq!(
            ready(global(
                &mut sm,
                f + 9999,
                line(0),
                AccessKind::Load,
                &mut l2
            )),
            f + 9999 + 35
        );
    }

    /// Fetches count GPGPU-Sim's memory fetches and their latency from the L1 access to the
    /// reply: a sectored L1's load miss of two sectors is two, a store of three sectors three
    /// acknowledgements, an atomic one; a hit sends nothing.
    #[test]
    fn fetches_count_packets_from_the_l1_access_to_the_reply() {
        let cfg = config(&["mem.l1d.sectored=true"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let two = Transaction {
            line: 0,
            sectors: 0b0011,
        };
        let load = ready(global(&mut sm, 10, two, AccessKind::Load, &mut l2));
        ready(global(&mut sm, load + 1, two, AccessKind::Load, &mut l2));
        let three = Transaction {
            line: 4096,
            sectors: 0b0111,
        };
        let store = ready(global(&mut sm, 20, three, AccessKind::Store, &mut l2));
        let atomic = ready(global(&mut sm, 30, line(8192), AccessKind::Atomic, &mut l2));
        assert_eq!(sm.stats().fetches, 2 + 3 + 1);
        assert_eq!(
            sm.stats().fetch_latency,
            2 * (load - 10) + 3 * (store - 20) + (atomic - 30)
        );
    }

    /// gtx480's L1 is not sectored (GPGPU-Sim's `N`): a miss on one sector fetches the line,
    /// so another sector of it hits, and DRAM reads all four.
    #[test]
    fn a_cache_that_is_not_sectored_fetches_whole_lines() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let sector = |i: u32| Transaction {
            line: 0,
            sectors: 1 << i,
        };
        let f = ready(global(&mut sm, 0, sector(0), AccessKind::Load, &mut l2));
        let r = ready(global(&mut sm, f + 1, sector(3), AccessKind::Load, &mut l2));
        assert_eq!(r, f + 1 + L1);
        assert_eq!((sm.stats().l1d_misses, sm.stats().l1d_hits), (1, 1));
        assert_eq!(l2.stats().dram_reads_bytes, 128);
    }

    #[test]
    fn requests_per_cycle_are_limited() {
        let cfg = config(&["mem.l1_requests_per_cycle=2"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        ready(global(&mut sm, 5, line(0), AccessKind::Load, &mut l2));
        ready(global(&mut sm, 5, line(128), AccessKind::Load, &mut l2));
        assert_eq!(
            global(&mut sm, 5, line(256), AccessKind::Load, &mut l2),
            Outcome::Stall
        );
        assert_eq!(sm.stats().l1d_port_stalls, 1);
        ready(global(&mut sm, 6, line(256), AccessKind::Load, &mut l2));
    }

    #[test]
    fn constant_cache_broadcast_and_distinct_addresses() {
        let cfg = config(&["mem.constant.miss_latency=200"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        // One address for every lane: one miss, then one hit.
        assert_eq!(constant(&mut sm, 0, &[0x100; 32], &mut l2), 8 + 200);
        assert_eq!(constant(&mut sm, 1000, &[0x100; 32], &mut l2), 1000 + 8);
        assert_eq!(sm.stats().const_accesses, 2);
        // Four distinct addresses in that (now valid) line: one per cycle.
        let four = [0x100, 0x104, 0x108, 0x10c];
        assert_eq!(constant(&mut sm, 2000, &four, &mut l2), 2000 + 3 + 8);
        // Two distinct lines missing: each adds the miss latency.
        assert_eq!(
            constant(&mut sm, 3000, &[0x1000, 0x2000], &mut l2),
            3000 + 1 + 8 + 2 * 200
        );
        assert_eq!(sm.stats().const_misses, 3);
        assert_eq!(constant(&mut sm, 4000, &[], &mut l2), 4000);
        sm.invalidate();
        assert_eq!(constant(&mut sm, 5000, &[0x100], &mut l2), 5000 + 8 + 200);
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
        let fill = constant(&mut sm, 0, &[0x1040], &mut l2);
        assert!(fill > 200, "through the interconnect, L2 and DRAM: {fill}");
        let s = l2.stats();
        assert_eq!((s.l2_accesses, s.dram_reads), (1, 2), "two 32-byte sectors");
        assert_eq!(constant(&mut sm, fill, &[0x1044], &mut l2), fill + 8);
        // Read again after the SM's caches are dropped: an L2 hit (the interconnect both ways
        // and the lookup).
        sm.invalidate();
        assert_eq!(
            constant(&mut sm, 10_000, &[0x1048], &mut l2),
            10_000 + 20 + 120 + 20
        );
        assert_eq!(l2.stats().l2_hits, 1);
    }

    #[test]
    fn icache_miss_fill_and_hit_with_a_fixed_miss_latency() {
        let cfg = config(&["sm.icache.miss_latency=100"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        assert_eq!(fetch(&mut sm, 0, 0x40, &mut l2), Some(101));
        // Same line, still filling: wait for the fill.
        assert_eq!(fetch(&mut sm, 10, 0x48, &mut l2), Some(101));
        assert_eq!(fetch(&mut sm, 200, 0x7f, &mut l2), Some(201));
        assert_eq!(
            fetch(&mut sm, 300, 0x80, &mut l2),
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
        assert_eq!(fetch(&mut sm, 1000, 0x40, &mut l2), Some(1101));
        assert_eq!(l2.stats().l2_accesses, 0);
    }

    /// gtx480 (GPGPU-Sim's "S:2:32"): a miss reads the line from the L2 under one of two
    /// MSHRs; a third line waits for one to free; a pending line takes 32 fetches at most.
    #[test]
    fn icache_misses_read_the_l2_under_two_mshrs() {
        let cfg = config(&[]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let a = fetch(&mut sm, 0, 0x40, &mut l2).unwrap();
        assert_eq!(a, MISS, "a whole line from DRAM");
        let b = fetch(&mut sm, 1, 0x1000, &mut l2).unwrap();
        let before = l2.stats().clone();
        assert_eq!(fetch(&mut sm, 2, 0x2000, &mut l2), None, "both MSHRs busy");
        assert_eq!(l2.stats(), &before, "a refused fetch changes nothing below");
        for now in 3..34 {
            assert_eq!(
                fetch(&mut sm, now, 0x48, &mut l2),
                Some(a),
                "merged at {now}"
            );
        }
        assert_eq!(
            fetch(&mut sm, 34, 0x48, &mut l2),
            None,
            "the 33rd fetch of a pending line"
        );
        assert_eq!(sm.stats().icache_reservation_fails, 2);
        let first_free = a.min(b);
        assert_eq!(fetch(&mut sm, first_free - 1, 0x2000, &mut l2), None);
        assert!(fetch(&mut sm, first_free, 0x2000, &mut l2).is_some());
        assert_eq!(
            fetch(&mut sm, a, 0x40, &mut l2),
            Some(a + 1),
            "a hit once filled"
        );
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
            let fill = ready(global(&mut sm, 0, line(0x1000), AccessKind::Load, &mut l2));
            let later = fill + 100;
            let hit = ready(global(
                &mut sm,
                later,
                line(0x1000),
                AccessKind::Load,
                &mut l2,
            ));
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
                            global(&mut sm, now, t, kind, &mut l2);
                            l2.access(now, t, kind);
                        }
                    }
                    fetch(&mut sm, now, addr, &mut l2);
                    constant(&mut sm, now, &[addr, 0, addr], &mut l2);
                }
            }
        }
    }

    /// A cycle's requests wait for the commit and go to the L2 in the order they were made,
    /// with the answers sending each at once would give; meanwhile a miss's MSHR is busy and
    /// the line it fills cannot be used again before the next cycle.
    #[test]
    fn requests_wait_for_the_commit_and_go_in_order() {
        let cfg = config(&["mem.l1_requests_per_cycle=4", "mem.l1d.mshrs=2"]);
        let at_once = {
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            [
                ready(global(&mut sm, 0, line(0), AccessKind::Load, &mut l2)),
                ready(global(&mut sm, 0, line(1 << 20), AccessKind::Load, &mut l2)),
                ready(global(
                    &mut sm,
                    0,
                    line(2 << 20),
                    AccessKind::Store,
                    &mut l2,
                )),
            ]
        };
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let a = sm.global(0, line(0), AccessKind::Load, false);
        let b = sm.global(0, line(1 << 20), AccessKind::Load, false);
        assert_eq!((a, b), (Outcome::Pending(0), Outcome::Pending(1)));
        // Both MSHRs are busy until the commit says when they free.
        assert_eq!(
            sm.global(0, line(3 << 20), AccessKind::Load, false),
            Outcome::Stall
        );
        // The line being filled: not before the commit knows when it is.
        let first = Transaction {
            line: 0,
            sectors: 0b0001,
        };
        assert_eq!(sm.global(0, first, AccessKind::Load, false), Outcome::Stall);
        assert_eq!(
            sm.global(0, line(2 << 20), AccessKind::Store, false),
            Outcome::Pending(2)
        );
        assert!(sm.has_pending());
        assert_eq!(
            l2.stats().l2_accesses,
            0,
            "nothing goes below before the commit"
        );
        let mut answers = Vec::new();
        sm.commit(0, &mut l2, &mut answers);
        assert_eq!(answers, at_once);
        assert!(!sm.has_pending());
        // From the next cycle the fill is known: a request for the line merges with it.
        assert_eq!(
            sm.global(1, first, AccessKind::Load, false),
            Outcome::Ready(at_once[0])
        );
        assert_eq!(sm.stats().l1d_reservation_fails, 2);
    }

    /// A store that evicts a line whose fill left this cycle: the load still gets its data,
    /// the line stays evicted.
    #[test]
    fn a_store_evicts_a_line_whose_fill_waits_for_the_commit() {
        let cfg = config(&["mem.l1_requests_per_cycle=2"]);
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let load = sm.global(0, line(0), AccessKind::Load, false);
        let store = sm.global(0, line(0), AccessKind::Store, false);
        let mut answers = Vec::new();
        sm.commit(0, &mut l2, &mut answers);
        assert_eq!((load, store), (Outcome::Pending(0), Outcome::Pending(1)));
        assert_eq!(answers[0], L1 + MISS);
        let later = ready(global(&mut sm, 5000, line(0), AccessKind::Load, &mut l2));
        assert!(later > 5000 + L1, "a miss again");
        assert_eq!(
            (sm.stats().l1d_misses, sm.stats().l1d_store_evictions),
            (2, 1)
        );
    }

    /// The constant cache serves a missing line's lane and the lanes after it at the commit,
    /// and a later access of the same cycle whole after it: the same cycles as serving both
    /// at once.
    #[test]
    fn constant_lanes_after_a_miss_are_served_at_the_commit() {
        let cfg = config(&[]);
        let at_once = {
            let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
            [
                constant(&mut sm, 0, &[0x10, 0x1040, 0x1044], &mut l2),
                constant(&mut sm, 0, &[0x1048], &mut l2),
            ]
        };
        let (mut sm, mut l2) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        // A line already there is served at once.
        let warm = constant(&mut sm, 0, &[0x10], &mut l2);
        assert_eq!(sm.constant(warm, &[0x10]), Outcome::Ready(warm + 8));
        let (mut sm2, mut l22) = (SmMemory::new(&cfg), MemorySystem::new(&cfg));
        let a = sm2.constant(0, &[0x10, 0x1040, 0x1044]);
        let b = sm2.constant(0, &[0x1048]);
        assert_eq!((a, b), (Outcome::Pending(0), Outcome::Pending(1)));
        assert_eq!(sm2.stats().const_accesses, 0, "the first lane also missed");
        let mut answers = Vec::new();
        sm2.commit(0, &mut l22, &mut answers);
        assert_eq!(answers, at_once);
        assert_eq!(sm2.stats().const_accesses, 4);
    }

    /// The L2 sees the SMs' requests of a cycle in the order of their commits (the GPU commits
    /// its SMs in index order), not in the order the SMs made them.
    #[test]
    fn the_l2_sees_requests_in_commit_order() {
        let cfg = config(&["mem.l1d.sectored=true"]);
        // Two sectors of one line from two SMs: the DRAM reads the first one asked for first.
        let sector = |i: u32| Transaction {
            line: 0,
            sectors: 1 << i,
        };
        let sequential = |first: usize| {
            let l2 = &mut MemorySystem::new(&cfg);
            let mut sms = [SmMemory::new(&cfg), SmMemory::new(&cfg)];
            let mut back = [0; 2];
            for i in [first, 1 - first] {
                back[i] = ready(global(
                    &mut sms[i],
                    0,
                    sector(i as u32),
                    AccessKind::Load,
                    l2,
                ));
            }
            back
        };
        let (sm0_first, sm1_first) = (sequential(0), sequential(1));
        assert_ne!(sm0_first, sm1_first);
        let l2 = &mut MemorySystem::new(&cfg);
        let (mut sm0, mut sm1) = (SmMemory::new(&cfg), SmMemory::new(&cfg));
        // SM 1 makes its request first (another host thread may run its cycle first) ...
        assert_eq!(
            sm1.global(0, sector(1), AccessKind::Load, false),
            Outcome::Pending(0)
        );
        assert_eq!(
            sm0.global(0, sector(0), AccessKind::Load, false),
            Outcome::Pending(0)
        );
        // ... but SM 0 commits first.
        let (mut a0, mut a1) = (Vec::new(), Vec::new());
        sm0.commit(0, l2, &mut a0);
        sm1.commit(0, l2, &mut a1);
        assert_eq!([a0[0], a1[0]], sm0_first);
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
                out.push(global(&mut sm, i, t, kind, &mut l2));
                out.push(Outcome::Ready(constant(
                    &mut sm,
                    i,
                    &[i % 64 * 4, 0],
                    &mut l2,
                )));
                out.push(
                    fetch(&mut sm, i, i * 8 % 4096, &mut l2).map_or(Outcome::Stall, Outcome::Ready),
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
