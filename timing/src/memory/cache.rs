//! The generic set-associative cache every level is built from: tags, LRU, a ready cycle per
//! line for fills in flight, and sector valid / pending / dirty bits.
//!
//! The cache holds state only; each level (`sm.rs`, `l2.rs`) decides its policies (what a miss
//! costs, what a store does). Lookups scan the ways of one set: O(ways), no allocation.

use super::ipoly;
use crate::config::SetIndex;

/// One way of a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Line {
    /// Line number (byte address / line size): the full number, so no aliasing between sets.
    pub tag: u64,
    /// Sectors valid or being filled; 0 = the way is empty.
    pub valid: u32,
    /// Sectors (a subset of `valid`) whose fill arrives at `ready`.
    pub pending: u32,
    /// Sectors written and not yet written back.
    pub dirty: u32,
    /// Cycle the pending sectors arrive.
    pub ready: u64,
    /// LRU stamp: the cache's use counter at the last touch.
    pub last_use: u64,
    /// Requests waiting on the current fill (the MSHR's merged requests, the first included).
    pub waiters: u32,
    /// Requests waiting on each sector's fill, in the L2 and a sectored L1 (GPGPU-Sim's MSHRs
    /// of a sectored cache are per sector, `cache_config::mshr_addr`); sectors from the fourth
    /// on share the last count.
    pub sector_waiters: [u8; 4],
    /// Cycle each pending sector's fill arrives, in the L2 (sectors from the fourth on share the
    /// last): a request waits for the fills of its own sectors, as GPGPU-Sim's per-sector
    /// MSHRs release each sector's requests when that sector is back. `ready` is the latest.
    pub sector_ready: [u64; 4],
}

/// The `sector_waiters` slots of the sectors in `mask`, one per set bit.
fn sector_slots(mask: u32) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            i.min(3)
        })
    })
}

/// The sectors of `mask` whose per-sector slot (as [`sector_slots`] numbers them) passes `keep`.
fn sectors_where(mask: u32, keep: impl Fn(usize) -> bool) -> u32 {
    let mut rest = mask;
    let mut kept = 0;
    while rest != 0 {
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        if keep((i as usize).min(3)) {
            kept |= 1 << i;
        }
    }
    kept
}

impl Line {
    /// Whether a fill is still in flight at `now`.
    pub fn is_pending(&self, now: u64) -> bool {
        self.pending != 0 && self.ready > now
    }

    /// The sectors of `mask` whose fill is still in flight at `now` (by `sector_ready`).
    pub fn sectors_in_flight(&self, mask: u32, now: u64) -> u32 {
        sectors_where(mask & self.pending, |s| self.sector_ready[s] > now)
    }

    /// The cycle the fills of the sectors of `mask` are all back (0 for none).
    pub fn sectors_ready(&self, mask: u32) -> u64 {
        sector_slots(mask)
            .map(|i| self.sector_ready[i])
            .max()
            .unwrap_or(0)
    }

    /// The sectors of `mask` are filled at `ready`.
    pub fn fill_sectors(&mut self, mask: u32, ready: u64) {
        for i in sector_slots(mask) {
            self.sector_ready[i] = ready;
        }
    }

    /// The sectors of `mask` holding `limit` or more requests.
    pub fn sectors_holding(&self, mask: u32, limit: u32) -> u32 {
        sectors_where(mask, |s| u32::from(self.sector_waiters[s]) >= limit)
    }

    /// The most requests any sector of `mask` holds.
    pub fn most_sector_waiters(&self, mask: u32) -> u32 {
        sector_slots(mask)
            .map(|i| u32::from(self.sector_waiters[i]))
            .max()
            .unwrap_or(0)
    }

    /// One more request waits on each sector of `mask`; with `fresh`, these sectors' fills
    /// are new and the request is their first.
    pub fn add_sector_waiters(&mut self, mask: u32, fresh: bool) {
        for i in sector_slots(mask) {
            let w = &mut self.sector_waiters[i];
            *w = if fresh { 1 } else { w.saturating_add(1) };
        }
    }
}

/// Where a new line can go in a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Victim {
    /// An empty way.
    Free(usize),
    /// The least recently used way among those with no fill in flight.
    Evict(usize),
    /// Every way is waiting for a fill; this one's arrives first.
    Busy(usize),
}

/// A set-associative cache of `sets × ways` lines (any positive counts).
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    sets: u64,
    ways: usize,
    /// How a line picks its set, and log2 of the line size (for the Fermi hash).
    set_index: SetIndex,
    line_log2: u32,
    lines: Vec<Line>,
    /// Use counter for LRU: bumped on every touch, so stamps are distinct and deterministic.
    uses: u64,
}

impl Cache {
    /// An empty cache; zero dimensions count as 1.
    pub fn new(sets: u32, ways: u32) -> Cache {
        let sets = sets.max(1);
        let ways = ways.max(1) as usize;
        Cache {
            sets: u64::from(sets),
            ways,
            set_index: SetIndex::Linear,
            line_log2: 0,
            lines: vec![Line::default(); sets as usize * ways],
            uses: 0,
        }
    }

    /// An empty cache of `line`-byte lines whose sets are picked by `set_index` (a validated
    /// configuration: the Fermi hash has 32 or 64 sets, IPOLY 16, 32 or 64).
    pub fn with_set_index(sets: u32, ways: u32, line: u32, set_index: SetIndex) -> Cache {
        let mut c = Cache::new(sets, ways);
        c.set_index = set_index;
        c.line_log2 = line.max(1).trailing_zeros();
        c
    }

    /// First way of the set that line `index` maps to: index mod sets, the Fermi hash, or
    /// IPOLY.
    fn set_base(&self, index: u64) -> usize {
        let set = match self.set_index {
            SetIndex::Linear => index % self.sets,
            SetIndex::FermiHash => {
                let addr = index << self.line_log2;
                let lower = index & 0x1f;
                let upper = ((addr >> 13) & 0x7) | ((addr >> 14) & 0x8) | ((addr >> 15) & 0x10);
                let high = if self.sets == 64 {
                    (addr >> 7) & 0x20
                } else {
                    0
                };
                ((lower ^ upper) | high) % self.sets
            }
            // GPGPU-Sim's `HASH_IPOLY_FUNCTION`: the linear set hashed with the line bits
            // above it.
            SetIndex::Ipoly => ipoly::hash(
                index >> self.sets.trailing_zeros(),
                index & (self.sets - 1),
                self.sets,
            ),
        };
        set as usize * self.ways
    }

    /// The way holding line `tag` in the set of `index`, if any.
    pub fn find(&self, index: u64, tag: u64) -> Option<usize> {
        let base = self.set_base(index);
        (base..base + self.ways).find(|&i| self.lines[i].valid != 0 && self.lines[i].tag == tag)
    }

    /// Where a new line of the set of `index` goes at `now` (lowest-numbered way on ties).
    pub fn victim(&self, index: u64, now: u64) -> Victim {
        let base = self.set_base(index);
        let ways = &self.lines[base..base + self.ways];
        if let Some(i) = ways.iter().position(|l| l.valid == 0) {
            return Victim::Free(base + i);
        }
        let lru = ways
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.is_pending(now))
            .min_by_key(|(i, l)| (l.last_use, *i));
        if let Some((i, _)) = lru {
            return Victim::Evict(base + i);
        }
        let first = ways
            .iter()
            .enumerate()
            .min_by_key(|(i, l)| (l.ready, *i))
            .map_or(0, |(i, _)| i);
        Victim::Busy(base + first)
    }

    pub fn line(&self, way: usize) -> &Line {
        &self.lines[way]
    }

    pub fn line_mut(&mut self, way: usize) -> &mut Line {
        &mut self.lines[way]
    }

    /// Marks a way most recently used.
    pub fn touch(&mut self, way: usize) {
        self.uses += 1;
        self.lines[way].last_use = self.uses;
    }

    /// Adds a request to the fill in flight in `way` and marks the way most recently used,
    /// unless the fill already holds `merge_limit` requests (0 = no limit): whether it did.
    pub fn join_fill(&mut self, way: usize, merge_limit: u32) -> bool {
        if merge_limit != 0 && self.lines[way].waiters >= merge_limit {
            return false;
        }
        self.touch(way);
        let l = &mut self.lines[way];
        l.waiters = l.waiters.saturating_add(1);
        true
    }

    /// As [`Cache::join_fill`], with the limit counted per sector of `mask` (a sectored
    /// cache's MSHRs are per sector).
    pub fn join_fill_sectors(&mut self, way: usize, mask: u32, merge_limit: u32) -> bool {
        if merge_limit != 0 && self.lines[way].most_sector_waiters(mask) >= merge_limit {
            return false;
        }
        self.touch(way);
        let l = &mut self.lines[way];
        l.waiters = l.waiters.saturating_add(1);
        l.add_sector_waiters(mask, false);
        true
    }

    /// Puts line `tag` in `way` (replacing whatever was there) and marks it most recently used.
    pub fn install(&mut self, way: usize, tag: u64, valid: u32, pending: u32, ready: u64) {
        self.lines[way] = Line {
            tag,
            valid,
            pending,
            dirty: 0,
            ready,
            last_use: 0,
            waiters: 0,
            sector_waiters: [0; 4],
            sector_ready: [ready; 4],
        };
        self.touch(way);
    }

    /// Empties every way.
    pub fn invalidate_all(&mut self) {
        self.lines.fill(Line::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recently_used_non_pending_way() {
        let mut c = Cache::new(3, 2);
        // Set 1 holds lines 1 and 4 (index mod 3).
        assert_eq!(c.victim(1, 0), Victim::Free(2));
        c.install(2, 1, 1, 0, 0);
        assert_eq!(c.victim(4, 0), Victim::Free(3));
        c.install(3, 4, 1, 0, 0);
        assert_eq!(c.find(4, 4), Some(3));
        assert_eq!(c.find(7, 7), None);
        assert_eq!(c.victim(7, 0), Victim::Evict(2));
        c.touch(2);
        assert_eq!(c.victim(7, 0), Victim::Evict(3));
        // A fill in flight is never the victim; when all are, the earliest fill is named.
        c.line_mut(3).pending = 1;
        c.line_mut(3).ready = 50;
        assert_eq!(c.victim(7, 10), Victim::Evict(2));
        c.line_mut(2).pending = 1;
        c.line_mut(2).ready = 60;
        assert_eq!(c.victim(7, 10), Victim::Busy(3));
        assert_eq!(c.victim(7, 55), Victim::Evict(3));
        c.invalidate_all();
        assert_eq!(c.find(4, 4), None);
    }

    /// GPGPU-Sim's Fermi hash: rows of a 2 KB pitch, which linear indexing puts in two sets
    /// of 32, spread over many; and the formula on a few addresses.
    #[test]
    fn fermi_hash_spreads_a_row_pitch() {
        let linear = Cache::new(32, 4);
        let hashed = Cache::with_set_index(32, 4, 128, SetIndex::FermiHash);
        let sets = |c: &Cache| {
            let mut s: Vec<usize> = (0..64u64).map(|r| c.set_base(r * 2048 / 128) / 4).collect();
            s.sort_unstable();
            s.dedup();
            s.len()
        };
        assert_eq!(sets(&linear), 2);
        assert!(sets(&hashed) >= 16, "{}", sets(&hashed));
        // addr 0x2000 (bit 13): line 64, low bits 0, upper 1.
        assert_eq!(hashed.set_base(0x2000 / 128) / 4, 1);
        // addr 0x80000 | 0x80 (bit 19 and line bit 0): 0b10000 ^ 0b00001.
        assert_eq!(hashed.set_base(0x80080 / 128) / 4, 0b10001);
        let wide = Cache::with_set_index(64, 4, 128, SetIndex::FermiHash);
        // addr 0x1080 (bit 12, the sixth set bit, and line bit 0).
        assert_eq!(wide.set_base(0x1080 / 128) / 4, 0x21);
    }

    /// IPOLY set index worked by hand on 32 sets: line 32 has index 0 and higher bit 0,
    /// which IPOLY(37) xors into set bits 0 and 2: set 5; lines 0..32 keep their set.
    #[test]
    fn ipoly_sets() {
        let c = Cache::with_set_index(32, 4, 128, SetIndex::Ipoly);
        assert_eq!(c.set_base(32), 5 * 4);
        assert!((0..32).all(|i| c.set_base(i) == i as usize * 4));
    }
}
