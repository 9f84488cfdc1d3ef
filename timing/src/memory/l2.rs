//! The GPU-wide memory: interconnect, L2 slices, and the DRAM behind them.

use super::addrmap::{AddressMap, Location};
use super::cache::{Cache, Victim};
use super::dram::{Dir, Dram};
use super::power::{DomainTotals, PowerDomain, Target};
use super::slots::Slots;
use super::{AccessKind, MemStats, Transaction, full_mask, request_mask};
use crate::config::GpuConfig;

/// One L2 slice: its lines, the next cycle it can accept a request, and its data array's
/// power states (Snooze; `None` when off).
#[derive(Clone, Debug)]
struct Slice {
    cache: Cache,
    free: u64,
    power: Option<PowerDomain>,
    /// The cycles its crossbar output is taken, a packet a cycle (`mem.request_crossbar`).
    port: Slots,
    /// The cycles its reply port into the interconnect is taken, a flit a cycle
    /// (`l2.reply_port`).
    replies: Slots,
}

/// The GPU-wide memory: interconnect, L2 slices, DRAM.
///
/// The interconnect is a fixed latency each way; with `mem.request_crossbar`, requests first
/// cross an input-queued crossbar ([`MemorySystem::cross`]). An address picks its slice and
/// DRAM channel by the configuration's address mapping (GPGPU-Sim's; each channel has its own
/// slices). Each slice accepts one request per cycle (an atomic occupies it for
/// `l2.atomic_latency` cycles, at least one), looks the line up, and on a miss reads each
/// missing sector from DRAM as a request of its own (a sectored L2, as GPGPU-Sim's). L2 is write-back with write-allocate at sector
/// granularity; a dirty line evicted is one DRAM write of its dirty sectors. A read of a sector
/// being filled waits for that fill, up to `l2.slice.mshr_merge` requests a sector; the next
/// one stops the slice until the fill is back (GPGPU-Sim's lock-up). With `l2.reply_port` a
/// slice sends its replies into the interconnect a flit a cycle. The number of MSHRs and the
/// miss queue are not modelled: the DRAM's queues provide the back-pressure.
#[derive(Clone, Debug)]
pub struct MemorySystem {
    slices: Vec<Slice>,
    map: AddressMap,
    dram: Dram,
    icnt: u64,
    /// Whether requests cross the crossbar (`mem.request_crossbar`).
    crossbar: bool,
    /// Whether a slice sends a reply flit a cycle (`l2.reply_port`), and the flit's bytes
    /// (`l2.reply_flit_bytes`; 0: a reply is one flit).
    reply_port: bool,
    reply_flit: u64,
    /// The cycle the crossbar outputs last forgot their past bookings.
    forgotten: u64,
    /// The L2 line the last request crossed for and its location: the access that follows
    /// needs it again.
    crossed: Option<(u64, Location)>,
    latency: u64,
    atomic_latency: u64,
    /// Requests one fill may hold (`l2.slice.mshr_merge`; 0: no limit).
    merge_limit: u32,
    /// Line size of incoming transactions (the L1 line the coalescer used).
    txn_line: u64,
    txn_full: u32,
    /// L2 line and sector sizes.
    line: u64,
    sector: u64,
    /// Snooze: the current cycle as the SMs last told it ([`MemorySystem::advance_to`]);
    /// nothing the L2 is asked from now on starts before it.
    horizon: u64,
    /// Snooze: core cycles a DRAM read's data is known to be coming before it is back at the
    /// slice (CL and the burst after its column command), when the DRAM→L2 queue sees it.
    dram_lead: u64,
    stats: MemStats,
}

/// The header of a reply packet (GPGPU-Sim's `mem_fetch` control size, `READ_PACKET_SIZE`):
/// a store's acknowledgement is the header alone.
const REPLY_HEADER_BYTES: u64 = 8;

/// How many cycles apart the crossbar outputs forget their past bookings.
const FORGET_EVERY: u64 = 1024;

impl MemorySystem {
    /// Empty caches and idle DRAM for `cfg` (a validated configuration).
    pub fn new(cfg: &GpuConfig) -> MemorySystem {
        let l2 = &cfg.mem.l2;
        let slice = Slice {
            cache: Cache::with_set_index(
                l2.slice.sets,
                l2.slice.ways,
                l2.slice.line,
                l2.slice.set_index,
            ),
            free: 0,
            port: Slots::default(),
            replies: Slots::default(),
            power: PowerDomain::new(
                &cfg.mem.snooze,
                l2.slice.sets.max(1) as usize * l2.slice.ways.max(1) as usize,
                l2.slice.line,
                cfg.mem.sector,
                0,
            ),
        };
        let dram = Dram::new(&cfg.mem.dram, cfg.gpu.clock_mhz);
        let txn_line = u64::from(cfg.mem.l1d.line.max(1));
        let sector = u64::from(cfg.mem.sector.max(1));
        MemorySystem {
            slices: vec![slice; l2.slices.max(1) as usize],
            map: cfg
                .mem
                .dram
                .address_map(l2)
                .expect("a validated configuration has a valid address map"),
            dram_lead: dram.read_lead(),
            dram,
            icnt: u64::from(cfg.mem.icnt_latency),
            crossbar: cfg.mem.request_crossbar,
            reply_port: l2.reply_port,
            reply_flit: u64::from(l2.reply_flit_bytes),
            forgotten: 0,
            crossed: None,
            latency: u64::from(l2.slice.latency),
            atomic_latency: u64::from(l2.atomic_latency),
            merge_limit: l2.slice.mshr_merge,
            txn_line,
            txn_full: full_mask(txn_line, sector),
            line: u64::from(l2.slice.line.max(1)),
            sector,
            horizon: 0,
            stats: MemStats::default(),
        }
    }

    /// The SMs are at cycle `now`: nothing asked of the L2 from now on starts earlier, so
    /// Snooze may count the power states before it.
    pub fn advance_to(&mut self, now: u64) {
        self.horizon = self.horizon.max(now);
        // Nothing crosses before `now` any more; forgetting is batched (the SMs call this
        // every cycle each).
        if (self.crossbar || self.reply_port) && now >= self.forgotten + FORGET_EVERY {
            self.forgotten = now;
            for slice in &mut self.slices {
                slice.port.forget_before(now);
                slice.replies.forget_before(now);
            }
        }
    }

    /// Whether requests cross the input-queued crossbar (`mem.request_crossbar`); when not,
    /// [`MemorySystem::cross`] is not needed.
    pub fn has_crossbar(&self) -> bool {
        self.crossbar
    }

    /// Passes `packets` packets of a request for `t` through the request crossbar, the first
    /// no earlier than `from`, each in the first cycle its slice's output is free after the
    /// one before it; returns the cycle the last one passed. The caller keeps its input's
    /// order: its next packet passes after this cycle. A transaction spanning L2 lines goes
    /// to the slice of its first.
    pub fn cross(&mut self, from: u64, t: Transaction, packets: u32) -> u64 {
        let base = t.line - t.line % self.txn_line;
        let first = request_mask(t.sectors, self.txn_full).trailing_zeros();
        let byte = base.saturating_add(u64::from(first) * self.sector);
        let index = byte / self.line;
        let loc = self.map.locate(index.saturating_mul(self.line));
        self.crossed = Some((index, loc));
        let port = &mut self.slices[loc.slice].port;
        let mut at = from;
        let mut passed = from;
        for _ in 0..packets.max(1) {
            passed = port.book(at);
            at = passed + 1;
        }
        passed
    }

    /// The L2's gating units (over every slice) and their state counts up to cycle `until`
    /// (Snooze; `None` when off).
    pub fn power_totals(&mut self, until: u64) -> Option<DomainTotals> {
        let mut totals = DomainTotals::default();
        for slice in &mut self.slices {
            totals.merge(&slice.power.as_mut()?.totals_until(until));
        }
        Some(totals)
    }

    /// A transaction leaving an SM at `now`; returns the cycle its response arrives back at the
    /// SM (data for a load or an atomic, the acknowledgement for a store).
    ///
    /// Path: interconnect (`mem.icnt_latency` each way); the slice chosen by address; its ROP
    /// pipeline (`l2.slice.latency`); the slice's queue (one request per cycle) and lookup; on
    /// a miss DRAM. Loads fetch only their missing sectors; stores are taken to write whole sectors
    /// (a transaction carries no byte mask), so they never read DRAM; dirty sectors are written
    /// back when their line is evicted. Atomics are performed at the slice
    /// (`l2.atomic_latency` more, occupying the slice that long). A request to a line already
    /// being filled waits for that fill.
    pub fn access(&mut self, now: u64, t: Transaction, kind: AccessKind) -> u64 {
        let base = t.line - t.line % self.txn_line;
        let mask = request_mask(t.sectors, self.txn_full);
        if self.txn_line == self.line {
            return self.access_line(now, base / self.line, mask, kind);
        }
        // L1 and L2 lines differ in size: regroup the sectors by L2 line. Sectors come in
        // address order, so each L2 line's sectors are consecutive.
        let mut done = now;
        let mut group: Option<(u64, u32)> = None;
        let mut rest = mask;
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            let byte = base.saturating_add(u64::from(i) * self.sector);
            let index = byte / self.line;
            let bit = 1u32 << ((byte % self.line) / self.sector).min(31);
            match &mut group {
                Some((l, bits)) if *l == index => *bits |= bit,
                _ => {
                    if let Some((l, bits)) = group {
                        done = done.max(self.access_line(now, l, bits, kind));
                    }
                    group = Some((index, bit));
                }
            }
        }
        if let Some((l, bits)) = group {
            done = done.max(self.access_line(now, l, bits, kind));
        }
        done
    }

    /// Counters of the L2 and DRAM.
    pub fn stats(&self) -> &MemStats {
        &self.stats
    }

    /// DRAM cycles in `core` core cycles.
    pub fn dram_cycles(&self, core: u64) -> u64 {
        self.dram.dram_cycles(core)
    }

    /// One request for `mask` of L2 line `index`; returns the cycle the response is back at
    /// the SM.
    fn access_line(&mut self, now: u64, index: u64, mask: u32, kind: AccessKind) -> u64 {
        let loc = match self.crossed.take() {
            Some((line, loc)) if line == index => loc,
            _ => self.map.locate(index.saturating_mul(self.line)),
        };
        let (latency, atomic_latency, sector, icnt, merge_limit) = (
            self.latency,
            self.atomic_latency,
            self.sector,
            self.icnt,
            self.merge_limit,
        );
        let (reply_port, reply_flit) = (self.reply_port, self.reply_flit);
        let (horizon, dram_lead) = (self.horizon, self.dram_lead);
        let stats = &mut self.stats;
        let dram = &mut self.dram;
        let Slice {
            cache,
            free,
            power,
            replies,
            ..
        } = &mut self.slices[loc.slice];
        let local = loc.local_line;
        // The request enters the slice's ROP pipeline as it leaves the interconnect, and its
        // queue `latency` cycles later: GPGPU-Sim delays every request by
        // `gpgpu_l2_rop_latency` before the L2 sees it (`memory_sub_partition::push`, `m_rop`),
        // so a lookup that must wait (a lock-up below) waits for a fill sent that much closer
        // to it.
        let arrive = now.saturating_add(icnt);
        let queued = arrive.saturating_add(latency);
        let mut start = queued.max(*free);
        // A read of sectors whose fill already holds `mshr_merge` requests cannot merge:
        // GPGPU-Sim's L2 answers RESERVATION_FAIL and the request stays at the head of the
        // slice's queue (`memory_sub_partition::cache_cycle`, "L2 cache lock-up") until the
        // fill frees its MSHR, so the slice takes nothing else until then.
        let found = cache.find(local, index);
        if kind != AccessKind::Store
            && merge_limit > 0
            && let Some(line) = found.map(|way| cache.line(way))
        {
            let full = line.sectors_holding(line.sectors_in_flight(mask, start), merge_limit);
            if full != 0 {
                start = line.sectors_ready(full);
                stats.l2_merge_lockups += 1;
            }
        }
        stats.l2_queue_cycles += start - queued;
        // A slice takes one 32-byte sector a cycle: GPGPU-Sim breaks a request to a sectored
        // L2 into sector requests (`memory_sub_partition::push`,
        // `breakdown_request_to_sector_requests`) and its `cache_cycle` takes one a cycle.
        // warpsim keeps that throughput but looks a request's sectors up together (GPGPU-Sim's
        // last sector is looked up up to 3 cycles after its first).
        let sectors = u64::from(mask.count_ones().max(1));
        let occupancy = match kind {
            AccessKind::Atomic => atomic_latency.max(1),
            _ => sectors,
        };
        *free = start.saturating_add(occupancy);
        stats.l2_accesses += 1;
        stats.l2_sector_accesses += sectors;
        match kind {
            AccessKind::Atomic => stats.l2_atomics += 1,
            AccessKind::Store => stats.l2_stores += 1,
            AccessKind::Load => {}
        }
        let lookup = start;
        let read_sectors = |dram: &mut Dram, stats: &mut MemStats, at: u64, sectors: u32| {
            // One DRAM request per sector, in address order (a sectored L2's misses).
            (0..sectors.count_ones())
                .map(|_| dram.access(at, &loc, Dir::Read, sector, stats))
                .fold(at, u64::max)
        };
        // Snooze: an access to the slice's data array, and the cycles it waits for its units
        // to wake (0 when off). An atomic holds its sectors for its operation.
        let busy = if kind == AccessKind::Atomic {
            atomic_latency
        } else {
            1
        };
        let mut wake = |seen: u64, at: u64, target: Target| match power {
            Some(p) => p.access(horizon, seen, at, busy, target),
            None => 0,
        };
        // A fill enters the DRAM→L2 queue `dram_lead` before its data is back at `data` (not
        // before its request left, at `sent`), and is written into the line then.
        let fill_seen = |sent: u64, data: u64| data.saturating_sub(dram_lead).max(sent);

        // Nothing above changed the lines: the lookup's way is still `found`.
        let done = match found {
            Some(way) => {
                cache.touch(way);
                let line = cache.line_mut(way);
                if kind == AccessKind::Store {
                    let sectors = mask;
                    let woke = wake(arrive, lookup, Target::Data { way, sectors });
                    // Sectors the line lacks are written without a fetch (lazy fetch on read),
                    // but counted as misses, as GPGPU-Sim's sector cache counts them.
                    let absent = mask & !line.valid;
                    if absent == 0 {
                        stats.l2_hits += 1;
                    } else {
                        stats.l2_misses += 1;
                        stats.l2_sector_misses += u64::from(absent.count_ones());
                    }
                    line.valid |= mask;
                    line.dirty |= mask;
                    // The store's bytes supersede a fill still on its way.
                    line.pending &= !mask;
                    lookup.saturating_add(woke)
                } else {
                    let in_flight = line.is_pending(start);
                    // Each sector is served when its own fill is back.
                    let flying = line.sectors_in_flight(mask, start);
                    let wait = line.sectors_ready(flying);
                    let missing = mask & !line.valid;
                    let target = match mask & line.valid {
                        0 => Target::Tags,
                        sectors => Target::Data { way, sectors },
                    };
                    let lookup = lookup.saturating_add(wake(arrive, lookup, target));
                    let mut ready = lookup.max(wait);
                    if missing != 0 {
                        stats.l2_misses += 1;
                        stats.l2_sector_misses += u64::from(missing.count_ones());
                        let data = read_sectors(dram, stats, lookup, missing);
                        let sectors = missing;
                        let woke =
                            wake(fill_seen(lookup, data), data, Target::Data { way, sectors });
                        let data = data.saturating_add(woke);
                        line.valid |= missing;
                        if in_flight {
                            line.pending |= missing;
                            line.ready = line.ready.max(data);
                        } else {
                            line.pending = missing;
                            line.ready = data;
                        }
                        line.fill_sectors(missing, data);
                        line.add_sector_waiters(flying, false);
                        line.add_sector_waiters(missing, true);
                        ready = ready.max(data);
                    } else if wait > lookup {
                        stats.l2_mshr_merges += 1;
                        line.add_sector_waiters(flying, false);
                    } else {
                        stats.l2_hits += 1;
                    }
                    if kind == AccessKind::Atomic {
                        line.dirty |= mask;
                        ready = ready.saturating_add(atomic_latency);
                    }
                    ready
                }
            }
            None => {
                stats.l2_misses += 1;
                stats.l2_sector_misses += sectors;
                let (way, at) = match cache.victim(local, start) {
                    Victim::Free(w) | Victim::Evict(w) => (w, lookup),
                    // Every way awaits a fill: the line replaces the first to arrive, then.
                    Victim::Busy(w) => (w, lookup.max(cache.line(w).ready)),
                };
                let old = *cache.line(way);
                // The lookup reads a dirty victim's sectors for their writeback; a store
                // writes its own.
                let dirty = if old.valid != 0 { old.dirty } else { 0 };
                let written = if kind == AccessKind::Store { mask } else { 0 };
                let target = match dirty | written {
                    0 => Target::Tags,
                    sectors => Target::Data { way, sectors },
                };
                let at = at.saturating_add(wake(arrive, at, target));
                let ready = if kind == AccessKind::Store {
                    cache.install(way, index, mask, 0, at);
                    cache.line_mut(way).dirty = mask;
                    at
                } else {
                    let data = read_sectors(dram, stats, at, mask);
                    let sectors = mask;
                    let woke = wake(fill_seen(at, data), data, Target::Data { way, sectors });
                    let data = data.saturating_add(woke);
                    cache.install(way, index, mask, mask, data);
                    cache.line_mut(way).add_sector_waiters(mask, true);
                    if kind == AccessKind::Atomic {
                        cache.line_mut(way).dirty = mask;
                        data.saturating_add(atomic_latency)
                    } else {
                        data
                    }
                };
                // The read goes first (a load waits on it); the writeback follows it.
                if old.valid != 0 && old.dirty != 0 {
                    stats.l2_writebacks += 1;
                    let bytes = u64::from(old.dirty.count_ones()) * sector;
                    let victim: Location = self.map.locate(old.tag.saturating_mul(self.line));
                    dram.write_back(at, &victim, bytes, stats);
                }
                ready
            }
        };
        // The reply leaves the slice when its port is free, a flit a cycle. GPGPU-Sim answers
        // each sector request of its breakdown on its own (`memory_sub_partition::pop`): a
        // load's sectors come back as a packet each, a store's as an acknowledgement (the
        // header alone) each; an atomic is one request and one reply.
        let sent = if reply_port {
            let (packets, bytes) = match kind {
                AccessKind::Store => (sectors, REPLY_HEADER_BYTES),
                AccessKind::Load => (sectors, sector + REPLY_HEADER_BYTES),
                AccessKind::Atomic => (1, sectors * sector + REPLY_HEADER_BYTES),
            };
            let flits = if reply_flit == 0 {
                packets
            } else {
                packets * bytes.div_ceil(reply_flit)
            };
            (0..flits).fold(done, |at, _| replies.book(at) + 1) - 1
        } else {
            done
        };
        sent.saturating_add(icnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gtx480 with a 20-cycle interconnect and no limit on a slice's replies (tested on its
    /// own): the paths below are worked out so.
    fn config(overrides: &[&str]) -> GpuConfig {
        let o: Vec<String> = ["mem.icnt_latency=20", "mem.l2.reply_port=false"]
            .iter()
            .chain(overrides)
            .map(|s| s.to_string())
            .collect();
        GpuConfig::load("gtx480", &o).unwrap()
    }

    fn load(line: u64) -> Transaction {
        Transaction {
            line,
            sectors: 0b1111,
        }
    }

    /// gtx480 with the DRAM clocked like the core and no fixed DRAM latency, so the DRAM's
    /// part of a miss is its command timing in core cycles.
    fn plain_dram(overrides: &[&str]) -> GpuConfig {
        let mut o = vec!["mem.dram.clock_mhz=700", "mem.dram.latency=0"];
        o.extend_from_slice(overrides);
        config(&o)
    }

    /// A slice sends a reply flit a cycle (`l2.reply_port`, GPGPU-Sim's one reply a
    /// sub-partition a cycle), a packet per sector (GPGPU-Sim answers each sector request of
    /// its breakdown on its own): two loads of one line, the second merged into the first's
    /// fill, have their data at the slice in the same cycle D. Without the port both are back
    /// at D + 20. Each is four sector packets of 40 bytes (32 and the 8-byte header): one
    /// flit each with booksim's 40-byte flits and with the local crossbar's one-flit packets,
    /// so the first leaves at D + 3 and the second at D + 7. A store of four sectors, done at
    /// the slice at S, is acknowledged by four one-flit packets: the last leaves at S + 3.
    #[test]
    fn a_slice_sends_a_reply_flit_a_cycle() {
        let both = |overrides: &[&str]| {
            let mut m = MemorySystem::new(&config(overrides));
            let first = m.access(0, load(0x4000), AccessKind::Load);
            let second = m.access(0, load(0x4000), AccessKind::Load);
            (first, second)
        };
        let (back, merged) = both(&[]);
        assert_eq!(merged, back, "the merged load waits for the same fill");
        let booksim = both(&["mem.l2.reply_port=true", "mem.l2.reply_flit_bytes=40"]);
        assert_eq!(booksim, (back + 3, back + 7));
        let local = both(&["mem.l2.reply_port=true", "mem.l2.reply_flit_bytes=0"]);
        assert_eq!(local, (back + 3, back + 7));
        let store = |overrides: &[&str]| {
            MemorySystem::new(&config(overrides)).access(0, load(0x4000), AccessKind::Store)
        };
        let acked = store(&[]);
        assert_eq!(store(&["mem.l2.reply_port=true"]), acked + 3);
    }

    /// A slice takes a sector a cycle (GPGPU-Sim's sector requests): a second request for a
    /// whole line waits four cycles behind the first, a one-sector request one.
    #[test]
    fn a_slice_takes_one_sector_a_cycle() {
        let mut m = MemorySystem::new(&config(&[]));
        m.access(0, load(0x4000), AccessKind::Load);
        m.access(0, load(0x4000), AccessKind::Load);
        assert_eq!(m.stats().l2_queue_cycles, 4);
        let one = Transaction {
            line: 0x8000,
            sectors: 0b0100,
        };
        let mut m = MemorySystem::new(&config(&[]));
        m.access(0, one, AccessKind::Load);
        m.access(0, one, AccessKind::Load);
        let s = m.stats();
        assert_eq!(s.l2_queue_cycles, 1);
        assert_eq!((s.l2_sector_accesses, s.l2_sector_misses), (2, 1));
    }

    #[test]
    fn miss_latency_is_the_sum_of_the_path_and_a_hit_skips_dram() {
        let mut m = MemorySystem::new(&plain_dram(&[]));
        // Interconnect both ways, the L2 lookup, then four sector reads from one closed bank:
        // activate, tRCD, four reads tCCDL = 3 apart (one bank group) on the tCCD = 2 grid
        // (so 4 apart), CL and the burst.
        let miss = 2 * 20 + 120 + 12 + 3 * 4 + 12 + 2;
        assert_eq!(m.access(1000, load(0x4000), AccessKind::Load), 1000 + miss);
        let s = m.stats();
        assert_eq!(
            (s.l2_misses, s.dram_reads, s.dram_bursts, s.dram_activates),
            (1, 4, 4, 1)
        );
        assert_eq!(s.dram_reads_bytes, 128);
        assert_eq!(
            s.dram_row_hits, 3,
            "the sectors after the first find their row open"
        );
        let hit = 2 * 20 + 120;
        assert_eq!(m.access(5000, load(0x4000), AccessKind::Load), 5000 + hit);
        assert_eq!(m.stats().l2_hits, 1);
        assert_eq!(m.stats().l2_hit_rate(), 0.5);
    }

    #[test]
    fn the_dram_clock_and_latency_add_up() {
        // The same miss on gtx480 as configured: 100 core cycles to the DRAM scheduler, the
        // commands at 924 MHz.
        let mut m = MemorySystem::new(&config(&[]));
        let at_dram = m.dram_cycles(1000 + 20 + 120 + 100);
        let data = (at_dram + 12).next_multiple_of(2) + 3 * 4 + 12 + 2;
        let back = (data * 700).div_ceil(924) + 20;
        assert_eq!(m.access(1000, load(0x4000), AccessKind::Load), back);
    }

    /// gtx480's L2 MSHRs merge 4 requests a sector ("A:256:4"): the fifth read of a sector
    /// still being filled cannot merge, and the slice takes nothing until the fill is back
    /// (GPGPU-Sim's lock-up); then it is a hit, and the requests behind it waited too. A read
    /// of another sector of the line counts on its own sector.
    #[test]
    fn a_fill_holding_its_merge_limit_locks_the_slice() {
        let sector = |line: u64, s: u32| Transaction {
            line,
            sectors: 1 << s,
        };
        let mut m = MemorySystem::new(&config(&[]));
        let fill = m.access(0, sector(0x4000, 0), AccessKind::Load);
        for now in 1..4 {
            assert_eq!(m.access(now, sector(0x4000, 0), AccessKind::Load), fill);
        }
        assert_eq!(m.stats().l2_merge_lockups, 0);
        // The fifth on sector 0 leaves the ROP pipeline 5 cycles after the first, waits for the
        // fill at the slice, then hits at once: back with the fill (GPGPU-Sim's ROP delay comes
        // before the lookup, so the lock-up lasts no longer than the fill's DRAM trip).
        let fifth = m.access(5, sector(0x4000, 0), AccessKind::Load);
        assert_eq!(m.stats().l2_merge_lockups, 1);
        assert_eq!(fifth, fill);
        // A hit on another line of the slice, behind it in the queue, waits as long.
        let slice = m.map.locate(0x4000).slice;
        let neighbour = (1..4096u64)
            .map(|i| 0x4000 + i * 128)
            .find(|&a| m.map.locate(a).slice == slice && a / 128 != 0x4000 / 128)
            .unwrap();
        let behind = m.access(6, sector(neighbour, 0), AccessKind::Load);
        assert!(behind > fifth, "{behind} after {fifth}");
        // Another sector of a line whose sector 0 holds four: its own fill, no lock-up.
        let line = 0x9000_0000;
        for now in 7..11 {
            let _ = m.access(now, sector(line, 0), AccessKind::Load);
        }
        let _ = m.access(11, sector(line, 1), AccessKind::Load);
        assert_eq!(m.stats().l2_merge_lockups, 1);
        let mut free = MemorySystem::new(&config(&[
            "mem.l2.slice.mshr_merge=0",
            "mem.l2.slice.mshrs=0",
        ]));
        for now in 0..6 {
            let _ = free.access(now, sector(0x4000, 0), AccessKind::Load);
        }
        assert_eq!(free.stats().l2_merge_lockups, 0);
    }

    /// Each sector of a line is served when its own fill is back (GPGPU-Sim's MSHRs of a
    /// sectored L2 are per sector): a read merging into sector 0's fill does not wait for the
    /// later fill of sector 1, nor does a read of sector 0 after its fill is back.
    #[test]
    fn a_sector_waits_only_for_its_own_fill() {
        let sector = |s: u32| Transaction {
            line: 0x4000,
            sectors: 1 << s,
        };
        let mut m = MemorySystem::new(&config(&[]));
        let first = m.access(0, sector(0), AccessKind::Load);
        let second = m.access(50, sector(1), AccessKind::Load);
        assert!(second > first, "{second} after {first}");
        assert_eq!(m.access(60, sector(0), AccessKind::Load), first);
        assert_eq!(m.stats().l2_mshr_merges, 1);
        let icnt = 20;
        let after = first - icnt + 1;
        assert_eq!(
            m.access(after - icnt - 120, sector(0), AccessKind::Load),
            after + icnt
        );
        assert_eq!(m.stats().l2_hits, 1);
    }

    #[test]
    fn a_request_to_a_line_being_filled_waits_for_the_fill() {
        let mut m = MemorySystem::new(&config(&[]));
        let first = m.access(0, load(0), AccessKind::Load);
        let second = m.access(10, load(0), AccessKind::Load);
        assert_eq!(second, first);
        assert_eq!(m.stats().l2_mshr_merges, 1);
        assert_eq!(m.stats().dram_reads, 4, "one line's sectors, read once");
    }

    #[test]
    fn loads_fetch_only_missing_sectors() {
        let mut m = MemorySystem::new(&config(&[]));
        let one = Transaction {
            line: 0,
            sectors: 0b0001,
        };
        m.access(0, one, AccessKind::Load);
        assert_eq!(m.stats().dram_reads_bytes, 32);
        m.access(10_000, load(0), AccessKind::Load);
        assert_eq!(m.stats().dram_reads_bytes, 32 + 96);
        assert_eq!(m.stats().l2_misses, 2);
    }

    #[test]
    fn a_sector_costs_a_whole_atom_of_bus_time() {
        // gtx480's column command moves 64 bytes: a 32-byte sector holds the bus as long.
        let mut m = MemorySystem::new(&config(&[]));
        let one = Transaction {
            line: 0,
            sectors: 0b0001,
        };
        m.access(0, one, AccessKind::Load);
        assert_eq!((m.stats().dram_bursts, m.stats().dram_bus_cycles), (1, 2));
    }

    #[test]
    fn atomics_to_one_slice_serialize() {
        let mut m = MemorySystem::new(&config(&["mem.l2.atomic_latency=4"]));
        let t = Transaction {
            line: 0x8000,
            sectors: 1,
        };
        let warm = m.access(0, t, AccessKind::Load);
        let a: Vec<u64> = (0..4)
            .map(|_| m.access(warm, t, AccessKind::Atomic))
            .collect();
        assert_eq!(a[0], warm + 2 * 20 + 120 + 4);
        for w in a.windows(2) {
            assert_eq!(w[1] - w[0], 4);
        }
        assert_eq!(m.stats().l2_atomics, 4);
        // Loads to one slice in one cycle serialize one per cycle.
        let l: Vec<u64> = (0..3)
            .map(|_| m.access(warm + 100, t, AccessKind::Load))
            .collect();
        assert_eq!((l[1] - l[0], l[2] - l[1]), (1, 1));
    }

    #[test]
    fn dirty_evictions_write_back_to_dram() {
        // Slices of one set of 2 ways. Lines 0 and 128 share a 256-byte chunk, so a slice;
        // 12 chunks on (3072) the mapping comes back to that slice: the third line evicts the
        // first (LRU).
        // Each writeback scheduled at once (no batching), so it is counted at once.
        let cfg = config(&[
            "mem.l2.slice.sets=1",
            "mem.l2.slice.ways=2",
            "mem.dram.write_batch=1",
        ]);
        let mut m = MemorySystem::new(&cfg);
        assert_eq!(m.map.locate(3072).slice, m.map.locate(0).slice);
        let half = Transaction {
            line: 0,
            sectors: 0b0011,
        };
        let ack = m.access(0, half, AccessKind::Store);
        assert_eq!(ack, 2 * 20 + 120);
        assert_eq!(
            m.stats().dram_reads_bytes,
            0,
            "whole-sector stores do not fetch"
        );
        m.access(1000, load(128), AccessKind::Load);
        assert_eq!(m.stats().dram_writes_bytes, 0);
        m.access(2000, load(3072), AccessKind::Load);
        assert_eq!(m.stats().l2_writebacks, 1);
        assert_eq!(m.stats().dram_writes_bytes, 64);
        assert_eq!((m.stats().dram_reads, m.stats().dram_writes), (8, 1));
        // Clean evictions write nothing.
        m.access(3000, load(3072 + 128), AccessKind::Load);
        assert_eq!(m.stats().dram_writes_bytes, 64);
    }

    /// A store's sectors the line lacks are misses (GPGPU-Sim's sector cache counts the first
    /// write of each sector so), written without a DRAM read: a warp storing one word in each
    /// of a line's four sectors, one store after another, misses four times, not once.
    #[test]
    fn stores_count_the_sectors_a_line_lacks_as_misses() {
        let mut m = MemorySystem::new(&config(&[]));
        for (i, s) in (0..4).enumerate() {
            let one = Transaction {
                line: 0x4000,
                sectors: 1 << s,
            };
            m.access(i as u64 * 10, one, AccessKind::Store);
        }
        m.access(100, load(0x4000), AccessKind::Load);
        let s = m.stats();
        assert_eq!((s.l2_misses, s.l2_sector_misses, s.l2_hits), (4, 4, 1));
        assert_eq!(s.dram_reads, 0);
    }

    #[test]
    fn differing_line_sizes_split_a_transaction() {
        let cfg = config(&["mem.l2.slice.line=64"]);
        let mut m = MemorySystem::new(&cfg);
        m.access(0, load(0), AccessKind::Load);
        assert_eq!(m.stats().l2_accesses, 2);
        assert_eq!(m.stats().dram_reads_bytes, 128);
        let mut m = MemorySystem::new(&config(&["mem.l2.slice.line=256"]));
        m.access(0, load(128), AccessKind::Load);
        assert_eq!(m.stats().l2_accesses, 1);
        assert_eq!(m.stats().dram_reads_bytes, 128);
    }

    #[test]
    fn same_sequence_same_cycles() {
        let run = || {
            let mut m = MemorySystem::new(&config(&[]));
            let mut out = Vec::new();
            for i in 0..500u64 {
                let line = (i * 7919 % 97) * 128 * 5;
                let kind = match i % 5 {
                    0 => AccessKind::Store,
                    1 => AccessKind::Atomic,
                    _ => AccessKind::Load,
                };
                let t = Transaction {
                    line,
                    sectors: (i % 15 + 1) as u32,
                };
                out.push(m.access(i * 3, t, kind));
            }
            (out, m.stats().clone())
        };
        assert_eq!(run(), run());
    }
}
