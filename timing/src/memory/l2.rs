//! The GPU-wide memory: interconnect, L2 slices, DRAM channels.

use super::cache::{Cache, Victim};
use super::{AccessKind, MemStats, Transaction, full_mask, request_mask};
use crate::config::GpuConfig;

/// One L2 slice: its lines and the next cycle it can accept a request.
#[derive(Clone, Debug)]
struct Slice {
    cache: Cache,
    free: u64,
}

/// A DRAM channel as a queue: when its data bus is next free, in units of 1/`bytes_per_cycle`
/// cycle, so fractional transfer times add up exactly and a channel sustains precisely its
/// configured bandwidth.
#[derive(Clone, Copy, Debug, Default)]
struct Channel {
    free: u128,
}

/// The GPU-wide memory: interconnect, L2 slices, DRAM channels.
///
/// The interconnect is a fixed latency each way. Each slice accepts one request per cycle (an
/// atomic occupies it for `l2.atomic_latency` cycles), looks the line up, and on a miss sends
/// the missing sectors to its DRAM channel (slice mod channels), a queue whose transfers take
/// bytes / `dram.bytes_per_cycle` cycles, plus `dram.latency`. L2 is write-back with
/// write-allocate at sector granularity. L2 MSHR limits are not modelled: a request to a line
/// being filled waits for that fill, and DRAM queueing provides the back-pressure.
#[derive(Clone, Debug)]
pub struct MemorySystem {
    slices: Vec<Slice>,
    channels: Vec<Channel>,
    icnt: u64,
    latency: u64,
    atomic_latency: u64,
    dram_latency: u64,
    bytes_per_cycle: u64,
    /// Line size of incoming transactions (the L1 line the coalescer used).
    txn_line: u64,
    txn_full: u32,
    /// L2 line and sector sizes.
    line: u64,
    sector: u64,
    stats: MemStats,
}

/// Scalar parameters of a slice access, copied out so the slice and channel borrows can be
/// split.
#[derive(Clone, Copy)]
struct Params {
    latency: u64,
    atomic_latency: u64,
    dram_latency: u64,
    bytes_per_cycle: u64,
    sector: u64,
}

impl MemorySystem {
    /// Empty caches and idle channels for `cfg`.
    pub fn new(cfg: &GpuConfig) -> MemorySystem {
        let l2 = &cfg.mem.l2;
        let slice = Slice {
            cache: Cache::new(l2.slice.sets, l2.slice.ways),
            free: 0,
        };
        let txn_line = u64::from(cfg.mem.l1d.line.max(1));
        let sector = u64::from(cfg.mem.sector.max(1));
        MemorySystem {
            slices: vec![slice; l2.slices.max(1) as usize],
            channels: vec![Channel::default(); cfg.mem.dram.channels.max(1) as usize],
            icnt: u64::from(cfg.mem.icnt_latency),
            latency: u64::from(l2.slice.latency),
            atomic_latency: u64::from(l2.atomic_latency),
            dram_latency: u64::from(cfg.mem.dram.latency),
            bytes_per_cycle: u64::from(cfg.mem.dram.bytes_per_cycle.max(1)),
            txn_line,
            txn_full: full_mask(txn_line, sector),
            line: u64::from(l2.slice.line.max(1)),
            sector,
            stats: MemStats::default(),
        }
    }

    /// A transaction leaving an SM at `now`; returns the cycle its response arrives back at the
    /// SM (data for a load or an atomic, the acknowledgement for a store).
    ///
    /// Path: interconnect (`mem.icnt_latency` each way); the slice chosen by address; the
    /// slice's queue (one request per cycle); the L2 lookup (`l2.slice.latency`); on a miss the
    /// slice's DRAM channel. Loads fetch only their missing sectors; stores are taken to write
    /// whole sectors (a transaction carries no byte mask), so they never read DRAM; dirty
    /// sectors are written back when their line is evicted, occupying the channel. Atomics are
    /// performed at the slice (`l2.atomic_latency` more, occupying the slice that long). A
    /// request to a line already being filled waits for that fill.
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

    /// The slice serving L2 line `index`, and the line's index within that slice.
    ///
    /// Consecutive lines rotate over the slices (each block of `slices` lines visits every
    /// slice once); the block number, with its higher bits folded in by xor, sets the
    /// rotation, so strides of a multiple of the slice count spread too. The in-slice index
    /// (the block number) keeps every set of a slice in use.
    fn slice_of(&self, index: u64) -> (usize, u64) {
        let n = self.slices.len() as u64;
        let block = index / n;
        let fold = block ^ (block >> 5) ^ (block >> 10) ^ (block >> 15) ^ (block >> 20);
        (((index % n + fold % n) % n) as usize, block)
    }

    /// One request for `mask` of L2 line `index`; returns the cycle the response is back at
    /// the SM.
    fn access_line(&mut self, now: u64, index: u64, mask: u32, kind: AccessKind) -> u64 {
        let (slice_id, local) = self.slice_of(index);
        let channel_id = slice_id % self.channels.len();
        let p = Params {
            latency: self.latency,
            atomic_latency: self.atomic_latency,
            dram_latency: self.dram_latency,
            bytes_per_cycle: self.bytes_per_cycle,
            sector: self.sector,
        };
        let icnt = self.icnt;
        let stats = &mut self.stats;
        let slice = &mut self.slices[slice_id];
        let channel = &mut self.channels[channel_id];

        let arrive = now.saturating_add(icnt);
        let start = arrive.max(slice.free);
        stats.l2_queue_cycles += start - arrive;
        let occupancy = match kind {
            AccessKind::Atomic => p.atomic_latency.max(1),
            _ => 1,
        };
        slice.free = start.saturating_add(occupancy);
        stats.l2_accesses += 1;
        match kind {
            AccessKind::Atomic => stats.l2_atomics += 1,
            AccessKind::Store => stats.l2_stores += 1,
            AccessKind::Load => {}
        }
        let lookup = start.saturating_add(p.latency);
        let cache = &mut slice.cache;

        let done = match cache.find(local, index) {
            Some(way) => {
                cache.touch(way);
                let line = cache.line_mut(way);
                if kind == AccessKind::Store {
                    stats.l2_hits += 1;
                    line.valid |= mask;
                    line.dirty |= mask;
                    // The store's bytes supersede a fill still on its way.
                    line.pending &= !mask;
                    lookup
                } else {
                    let in_flight = line.is_pending(start);
                    let wait = if in_flight && mask & line.pending != 0 {
                        line.ready
                    } else {
                        0
                    };
                    let missing = mask & !line.valid;
                    let mut ready = lookup.max(wait);
                    if missing != 0 {
                        stats.l2_misses += 1;
                        let bytes = u64::from(missing.count_ones()) * p.sector;
                        let data = dram_read(channel, stats, &p, lookup, bytes);
                        line.valid |= missing;
                        if in_flight {
                            line.pending |= missing;
                            line.ready = line.ready.max(data);
                        } else {
                            line.pending = missing;
                            line.ready = data;
                        }
                        ready = ready.max(data);
                    } else if wait > lookup {
                        stats.l2_mshr_merges += 1;
                    } else {
                        stats.l2_hits += 1;
                    }
                    if kind == AccessKind::Atomic {
                        line.dirty |= mask;
                        ready = ready.saturating_add(p.atomic_latency);
                    }
                    ready
                }
            }
            None => {
                stats.l2_misses += 1;
                let (way, at) = match cache.victim(local, start) {
                    Victim::Free(w) | Victim::Evict(w) => (w, lookup),
                    // Every way awaits a fill: the line replaces the first to arrive, then.
                    Victim::Busy(w) => (w, lookup.max(cache.line(w).ready)),
                };
                let old = *cache.line(way);
                let ready = if kind == AccessKind::Store {
                    cache.install(way, index, mask, 0, at);
                    cache.line_mut(way).dirty = mask;
                    at
                } else {
                    let bytes = u64::from(mask.count_ones()) * p.sector;
                    let data = dram_read(channel, stats, &p, at, bytes);
                    cache.install(way, index, mask, mask, data);
                    if kind == AccessKind::Atomic {
                        cache.line_mut(way).dirty = mask;
                        data.saturating_add(p.atomic_latency)
                    } else {
                        data
                    }
                };
                // The read goes first (a load waits on it); the writeback drains behind it.
                if old.valid != 0 && old.dirty != 0 {
                    stats.l2_writebacks += 1;
                    let bytes = u64::from(old.dirty.count_ones()) * p.sector;
                    dram_transfer(channel, stats, p.bytes_per_cycle, at, bytes);
                    stats.dram_writes_bytes += bytes;
                }
                ready
            }
        };
        done.saturating_add(icnt)
    }
}

/// Reads `bytes` on `channel`, queued from cycle `at`; returns the cycle the data is at the
/// slice (end of the transfer plus the DRAM latency).
fn dram_read(channel: &mut Channel, stats: &mut MemStats, p: &Params, at: u64, bytes: u64) -> u64 {
    stats.dram_reads_bytes += bytes;
    dram_transfer(channel, stats, p.bytes_per_cycle, at, bytes).saturating_add(p.dram_latency)
}

/// Occupies `channel` for `bytes` from cycle `at` or when it is next free; returns the cycle
/// the transfer ends.
fn dram_transfer(
    channel: &mut Channel,
    stats: &mut MemStats,
    bytes_per_cycle: u64,
    at: u64,
    bytes: u64,
) -> u64 {
    let rate = u128::from(bytes_per_cycle.max(1));
    let earliest = u128::from(at) * rate;
    let start = earliest.max(channel.free);
    channel.free = start + u128::from(bytes);
    stats.dram_requests += 1;
    stats.dram_queue_cycles += u64::try_from((start - earliest) / rate).unwrap_or(u64::MAX);
    u64::try_from(channel.free.div_ceil(rate)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(overrides: &[&str]) -> GpuConfig {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        GpuConfig::load("gtx480", &o).unwrap()
    }

    fn load(line: u64) -> Transaction {
        Transaction {
            line,
            sectors: 0b1111,
        }
    }

    #[test]
    fn miss_latency_is_the_sum_of_the_path_and_a_hit_skips_dram() {
        let cfg = config(&[]);
        let mut m = MemorySystem::new(&cfg);
        let transfer = 128u64.div_ceil(42); // 4 cycles for a whole line at 42 B/cycle
        let miss = 2 * 20 + 120 + 260 + transfer;
        assert_eq!(m.access(1000, load(0x4000), AccessKind::Load), 1000 + miss);
        assert_eq!(m.stats().l2_misses, 1);
        assert_eq!(m.stats().dram_reads_bytes, 128);
        let hit = 2 * 20 + 120;
        assert_eq!(m.access(5000, load(0x4000), AccessKind::Load), 5000 + hit);
        assert_eq!(m.stats().l2_hits, 1);
        assert_eq!(m.stats().l2_hit_rate(), 0.5);
    }

    #[test]
    fn a_request_to_a_line_being_filled_waits_for_the_fill() {
        let mut m = MemorySystem::new(&config(&[]));
        let first = m.access(0, load(0), AccessKind::Load);
        let second = m.access(10, load(0), AccessKind::Load);
        assert_eq!(second, first);
        assert_eq!(m.stats().l2_mshr_merges, 1);
        assert_eq!(m.stats().dram_requests, 1);
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
    fn back_to_back_misses_to_one_channel_are_spaced_by_the_transfer_time() {
        // One slice, one channel, 16 B/cycle: a 128-byte line takes 8 cycles on the bus.
        let cfg = config(&[
            "mem.l2.slices=1",
            "mem.dram.channels=1",
            "mem.dram.bytes_per_cycle=16",
        ]);
        let mut m = MemorySystem::new(&cfg);
        let done: Vec<u64> = (0..6)
            .map(|i| m.access(0, load(i * 128), AccessKind::Load))
            .collect();
        assert_eq!(done[0], 2 * 20 + 120 + 260 + 8);
        for w in done.windows(2) {
            assert_eq!(w[1] - w[0], 8);
        }
        assert!(m.stats().dram_queue_cycles > 0);
    }

    #[test]
    fn fractional_transfer_times_sustain_the_bandwidth() {
        // 42 B/cycle: 100 lines take 12800 / 42 = 304.8 cycles of bus time, not 100 × 4.
        let cfg = config(&["mem.l2.slices=1", "mem.dram.channels=1"]);
        let mut m = MemorySystem::new(&cfg);
        let done: Vec<u64> = (0..100)
            .map(|i| m.access(0, load(i * 128), AccessKind::Load))
            .collect();
        assert_eq!(done[99] - done[0], 12800u64.div_ceil(42) - 4);
    }

    #[test]
    fn atomics_to_one_slice_serialize() {
        let mut m = MemorySystem::new(&config(&[]));
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
        // One slice of one set of 2 ways: the third line evicts the first (LRU).
        let cfg = config(&[
            "mem.l2.slices=1",
            "mem.l2.slice.sets=1",
            "mem.l2.slice.ways=2",
        ]);
        let mut m = MemorySystem::new(&cfg);
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
        m.access(2000, load(256), AccessKind::Load);
        assert_eq!(m.stats().l2_writebacks, 1);
        assert_eq!(m.stats().dram_writes_bytes, 64);
        assert_eq!(m.stats().dram_requests, 3);
        // Clean evictions write nothing.
        m.access(3000, load(384), AccessKind::Load);
        assert_eq!(m.stats().dram_writes_bytes, 64);
    }

    #[test]
    fn slices_spread_consecutive_and_strided_lines() {
        let m = MemorySystem::new(&config(&[]));
        let n = 12u64;
        let mut seen = [false; 12];
        for i in 0..n {
            seen[m.slice_of(i).0] = true;
        }
        assert!(
            seen.iter().all(|&s| s),
            "consecutive lines visit every slice"
        );
        for stride in [12u64, 16, 64, 96, 1024] {
            let mut hit = [0u32; 12];
            for i in 0..48 {
                hit[m.slice_of(i * stride).0] += 1;
            }
            let used = hit.iter().filter(|&&c| c > 0).count();
            assert!(used >= 6, "stride {stride} lines uses {used} slices");
        }
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
