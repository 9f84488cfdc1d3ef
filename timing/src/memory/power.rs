//! Snooze (seed 002, chapter 5): leakage power states of the L1 data caches and the L2 slices.
//!
//! Each cache's data array is split into *gating units*: the whole cache (`bank` gating: an
//! SM's L1, or one L2 slice) or blocks of `mem.snooze.block` bytes of each way (`line`
//! gating). A unit is ON (100% leakage), in Sleep (state-retentive, `sleep_leakage` of it) or
//! OFF (`off_leakage`; its contents are lost). Both low states wake in `wake` cycles (Table
//! 5.2: 2 cycles, 22.8% and 1.5%).
//!
//! **When a unit is ON.** The gating logic watches the queues that feed the cache (AGU→L1 and
//! ICNT→L1 for an L1; ICNT→L2 and DRAM→L2 for a slice). Every request has two cycles here:
//! `seen`, when it enters such a queue, and `at`, when it uses the array. The logic sees the
//! last `lookahead` cycles of the queue (the seed: "make sure that the caches are not
//! transitioned to the sleep mode when there is a pending memory access in next 2 cycles"),
//! so a unit starts waking at `w = max(seen, at − lookahead)` and is ON from `w + wake`; the
//! waking cycles count as ON. If it is not ON by `at`, the access waits for it: the delay is
//! returned to the cache, which moves the access and everything after it (the stall the
//! timing model shows). A unit ON (or waking) at `w`, or whose ON period ends exactly at `w`,
//! stays ON: its ON period is extended, and the request is ready when that period's wake-up
//! completes. A request refused by the cache (MSHRs full, no replaceable way, the L1's
//! requests for the cycle used up) is not accepted, so it wakes nothing until it is: the
//! seed's reservation queue, which keeps such requests from waking the cache.
//!
//! Outside its ON periods a unit is OFF until its first use (the L1s are empty at each launch;
//! an L2 unit until it first holds data: L2 contents persist across launches, so a unit that
//! holds data sleeps between kernels rather than losing it), then in Sleep, and OFF again once
//! its SM's CTAs have all finished (L1: [`PowerDomain::switch_off_from`]).
//!
//! **Exact under fast-forward.** Nothing runs per cycle. Each unit keeps its ON periods still
//! to come (disjoint, sorted, adjacent ones merged) and counts the cycles before a *horizon*:
//! every request's `w` is at or after the cycle in which the cache was called, so the timeline
//! before the current cycle is final and is folded into the counters, from timestamps only.
//! The counts are thus the same whether or not idle cycles are skipped.

use serde::{Deserialize, Serialize};

use crate::config::ConfigError;

/// How the caches' data arrays are power-gated (`mem.snooze.gating`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gating {
    /// No power states: every unit always ON (the default; nothing is measured).
    #[default]
    Off,
    /// One unit per cache: an SM's whole L1, each L2 slice.
    Bank,
    /// One unit per `mem.snooze.block` bytes of each way.
    Line,
}

impl Gating {
    /// The name used in the configuration and the statistics.
    pub fn name(self) -> &'static str {
        match self {
            Gating::Off => "off",
            Gating::Bank => "bank",
            Gating::Line => "line",
        }
    }
}

/// Snooze's parameters (`[mem.snooze]`; optional, off by default). docs/techniques.md gives
/// the origin of each default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnoozeConfig {
    /// Gating granularity: `off`, `bank` or `line`.
    pub gating: Gating,
    /// Bytes of a line-level gating unit: a multiple of `mem.sector` dividing the L1 and L2
    /// lines (32: the seed's gated SRAM array and our sector; 128: a whole line).
    pub block: u32,
    /// Cycles from Sleep or OFF to ON (Table 5.2: 2 for both).
    pub wake: u32,
    /// Cycles before its array access at which the gating logic sees a queued request.
    pub lookahead: u32,
    /// Leakage in Sleep, as a share of ON (Table 5.2: 22.8%).
    pub sleep_leakage: f64,
    /// Leakage when OFF, as a share of ON (Table 5.2: 1.5%).
    pub off_leakage: f64,
    /// Leakage of 1 KB of L1 data array when ON, in µW.
    pub l1_leakage_uw_per_kb: f64,
    /// Leakage of 1 KB of L2 data array when ON, in µW.
    pub l2_leakage_uw_per_kb: f64,
}

impl Default for SnoozeConfig {
    fn default() -> SnoozeConfig {
        SnoozeConfig {
            gating: Gating::Off,
            block: 32,
            wake: 2,
            lookahead: 2,
            sleep_leakage: 0.228,
            off_leakage: 0.015,
            // Fermi's SRAM density of leakage: the 128 KB register file leaks 89.6 mW
            // (seed 000, Table 2.2), 700 µW per KB.
            l1_leakage_uw_per_kb: 700.0,
            l2_leakage_uw_per_kb: 700.0,
        }
    }
}

impl SnoozeConfig {
    /// Rejects a block that does not tile the sectors and lines, and impossible shares and
    /// powers, naming the key.
    pub fn validate(&self, sector: u32, l1_line: u32, l2_line: u32) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| ConfigError::Invalid {
            key: format!("mem.snooze.{key}"),
            message,
        };
        let b = self.block;
        if b == 0 || !b.is_multiple_of(sector.max(1)) {
            return Err(bad(
                "block",
                format!("must be a multiple of mem.sector ({sector}), not {b}"),
            ));
        }
        if !l1_line.is_multiple_of(b) || !l2_line.is_multiple_of(b) {
            return Err(bad(
                "block",
                format!("must divide the L1 line ({l1_line}) and the L2 line ({l2_line}), not {b}"),
            ));
        }
        for (key, v) in [
            ("sleep_leakage", self.sleep_leakage),
            ("off_leakage", self.off_leakage),
        ] {
            if !v.is_finite() || !(0.0..=1.0).contains(&v) {
                return Err(bad(
                    key,
                    format!("is a share of ON leakage: 0 to 1, not {v}"),
                ));
            }
        }
        for (key, v) in [
            ("l1_leakage_uw_per_kb", self.l1_leakage_uw_per_kb),
            ("l2_leakage_uw_per_kb", self.l2_leakage_uw_per_kb),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(
                    key,
                    format!("must be a finite number at least 0, not {v}"),
                ));
            }
        }
        Ok(())
    }
}

/// What a request uses in a cache, for the gating units it needs ON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// The tags only (a miss's lookup, an L1 store's write-evict): the whole cache's unit under
    /// bank gating, no data block under line gating.
    Tags,
    /// The data of `sectors` (bit i = sector i) of the line in `way` (the cache's way index):
    /// under line gating, the blocks holding them.
    Data { way: usize, sectors: u32 },
}

/// Unit-cycles by state, and what waking cost: a domain's running totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StateCycles {
    /// Unit-cycles ON (waking included).
    pub on: u64,
    pub sleep: u64,
    pub off: u64,
    /// Transitions from Sleep or OFF to ON.
    pub wakeups: u64,
    /// Accesses that waited for a unit still waking, and the cycles they waited, summed.
    pub delayed_accesses: u64,
    pub wake_stall_cycles: u64,
}

impl StateCycles {
    /// Adds another cache's (or launch's) counts.
    pub fn merge(&mut self, o: &StateCycles) {
        self.on += o.on;
        self.sleep += o.sleep;
        self.off += o.off;
        self.wakeups += o.wakeups;
        self.delayed_accesses += o.delayed_accesses;
        self.wake_stall_cycles += o.wake_stall_cycles;
    }

    /// The counts accumulated since `earlier` (a snapshot of the same totals).
    pub fn since(&self, earlier: &StateCycles) -> StateCycles {
        StateCycles {
            on: self.on - earlier.on,
            sleep: self.sleep - earlier.sleep,
            off: self.off - earlier.off,
            wakeups: self.wakeups - earlier.wakeups,
            delayed_accesses: self.delayed_accesses - earlier.delayed_accesses,
            wake_stall_cycles: self.wake_stall_cycles - earlier.wake_stall_cycles,
        }
    }

    /// Every unit-cycle counted.
    pub fn unit_cycles(&self) -> u64 {
        self.on + self.sleep + self.off
    }
}

/// A cache's (or a level's) gating units and their counts so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainTotals {
    /// Gating units.
    pub units: usize,
    /// Of them, those never ON yet: OFF since they were counted from.
    pub unused: usize,
    pub cycles: StateCycles,
}

impl DomainTotals {
    /// Adds another cache's.
    pub fn merge(&mut self, o: &DomainTotals) {
        self.units += o.units;
        self.unused += o.unused;
        self.cycles.merge(&o.cycles);
    }
}

/// One gating unit: its ON periods to come and how far its timeline is counted.
#[derive(Clone, Debug, Default)]
struct Unit {
    /// Cycles before this one are counted.
    settled: u64,
    /// Whether an ON period has begun before `settled` (a unit never used is OFF).
    used: bool,
    /// ON periods `[start, end)`, sorted, disjoint and not adjacent; each ends after
    /// `settled - 1` (a period is dropped once the horizon passes its end). A period's start is
    /// kept when it is partly counted: its wake-up completes at start + wake.
    on: Vec<(u64, u64)>,
}

/// The gating units of one cache (an SM's L1, or one L2 slice) and their state counts.
#[derive(Clone, Debug)]
pub(crate) struct PowerDomain {
    gating: Gating,
    wake: u64,
    lookahead: u64,
    /// Line gating: blocks per line, and sector and block sizes.
    blocks_per_line: usize,
    sector: u64,
    block: u64,
    units: Vec<Unit>,
    /// Rest state is OFF from this cycle (the SM's CTAs all finished); `u64::MAX`: never.
    off_from: u64,
    totals: StateCycles,
}

impl PowerDomain {
    /// The units of a cache of `lines` ways in all of `line`-byte lines with `sector`-byte
    /// sectors, counted from cycle `start`; `None` when gating is off.
    pub fn new(
        cfg: &SnoozeConfig,
        lines: usize,
        line: u32,
        sector: u32,
        start: u64,
    ) -> Option<PowerDomain> {
        let (count, blocks_per_line) = match cfg.gating {
            Gating::Off => return None,
            Gating::Bank => (1, 1),
            Gating::Line => {
                let per = (line / cfg.block.max(1)).max(1) as usize;
                (lines * per, per)
            }
        };
        Some(PowerDomain {
            gating: cfg.gating,
            wake: u64::from(cfg.wake),
            lookahead: u64::from(cfg.lookahead),
            blocks_per_line,
            sector: u64::from(sector.max(1)),
            block: u64::from(cfg.block.max(1)),
            units: vec![
                Unit {
                    settled: start,
                    ..Unit::default()
                };
                count
            ],
            off_from: u64::MAX,
            totals: StateCycles::default(),
        })
    }

    /// Gating units of this cache.
    #[cfg(test)]
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// From cycle `at` on, a unit with no request is OFF rather than in Sleep (the SM's CTAs
    /// have all finished). The first call counts.
    pub fn switch_off_from(&mut self, at: u64) {
        if self.off_from == u64::MAX {
            self.off_from = at;
        }
    }

    /// A request seen at `seen` (it entered a queue feeding the cache) that uses `target` for
    /// `busy` cycles from `at` (`seen ≤ at`; both at or after `horizon`, the current cycle,
    /// before which nothing can change any more). Returns the cycles the access waits for its
    /// units to wake (0 when the wake-up was hidden); its units stay ON until it is done.
    pub fn access(&mut self, horizon: u64, seen: u64, at: u64, busy: u64, target: Target) -> u64 {
        let (base, blocks) = match (self.gating, target) {
            (Gating::Line, Target::Tags) | (Gating::Off, _) => return 0,
            (Gating::Bank, _) => (0, 1u32),
            (Gating::Line, Target::Data { way, sectors }) => {
                (way * self.blocks_per_line, self.blocks(sectors))
            }
        };
        let w = seen.max(at.saturating_sub(self.lookahead)).min(at);
        let mut ready = at;
        let mut rest = blocks;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let wake = self.wake;
            let unit = &mut self.units[base + b];
            fold(unit, horizon, self.off_from, &mut self.totals);
            ready = ready.max(unit.ready(w, wake));
        }
        let delay = ready - at;
        if delay > 0 {
            self.totals.delayed_accesses += 1;
            self.totals.wake_stall_cycles += delay;
        }
        let end = ready.saturating_add(busy.max(1));
        let mut rest = blocks;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.units[base + b].insert(w, end);
        }
        delay
    }

    /// The blocks of a line holding `sectors` (bit i = block i).
    fn blocks(&self, sectors: u32) -> u32 {
        let mut blocks = 0u32;
        let mut rest = sectors;
        while rest != 0 {
            let i = u64::from(rest.trailing_zeros());
            rest &= rest - 1;
            let b = (i * self.sector / self.block) as usize;
            blocks |= 1 << b.min(self.blocks_per_line - 1).min(31);
        }
        blocks
    }

    /// Counts every unit's timeline up to `until` and returns the totals so far.
    pub fn totals_until(&mut self, until: u64) -> DomainTotals {
        let mut unused = 0;
        for unit in &mut self.units {
            fold(unit, until, self.off_from, &mut self.totals);
            unused += usize::from(!unit.used);
        }
        DomainTotals {
            units: self.units.len(),
            unused,
            cycles: self.totals,
        }
    }
}

impl Unit {
    /// The cycle the unit is ON for a request that starts waking it at `w`: when the ON
    /// period covering `w` (or ending at it) finished waking, or `w + wake`.
    fn ready(&self, w: u64, wake: u64) -> u64 {
        let i = self.on.partition_point(|&(_, end)| end < w);
        match self.on.get(i) {
            Some(&(start, _)) if start <= w => start.saturating_add(wake),
            _ => w.saturating_add(wake),
        }
    }

    /// Adds the ON period `[start, end)`, merging it with those it overlaps or touches.
    fn insert(&mut self, start: u64, end: u64) {
        let i = self.on.partition_point(|&(_, e)| e < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.on.len() && self.on[j].0 <= e {
            s = s.min(self.on[j].0);
            e = e.max(self.on[j].1);
            j += 1;
        }
        self.on.splice(i..j, [(s, e)]);
    }
}

/// Counts `unit`'s timeline up to `until` into `totals`: its ON periods, and between them its
/// rest state (OFF before its first use and from `off_from`, Sleep otherwise). Periods that
/// end before `until` are dropped; one ending at it stays, so a request at `until` finds the
/// unit still ON.
fn fold(unit: &mut Unit, until: u64, off_from: u64, totals: &mut StateCycles) {
    if until <= unit.settled {
        return;
    }
    let mut done = 0;
    for &(start, end) in &unit.on {
        if start >= until {
            break;
        }
        if start >= unit.settled {
            rest(unit.used, unit.settled, start, off_from, totals);
            unit.settled = start;
            totals.wakeups += 1;
        }
        unit.used = true;
        let stop = end.min(until);
        if stop > unit.settled {
            totals.on += stop - unit.settled;
            unit.settled = stop;
        }
        if end < until {
            done += 1;
        } else {
            break;
        }
    }
    unit.on.drain(..done);
    if until > unit.settled {
        rest(unit.used, unit.settled, until, off_from, totals);
        unit.settled = until;
    }
}

/// Counts the rest cycles `[from, to)` of a unit used before them or not.
fn rest(used: bool, from: u64, to: u64, off_from: u64, totals: &mut StateCycles) {
    let split = off_from.clamp(from, to);
    if used {
        totals.sleep += split - from;
    } else {
        totals.off += split - from;
    }
    totals.off += to - split;
}

/// One level's power states and leakage over a launch (or, merged, several).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LevelPower {
    /// Gating units, over every cache of the level, and the bytes of data array each gates.
    pub units: u64,
    pub unit_bytes: u64,
    /// Unit-cycles by state (they sum to units × cycles), wake-ups and their cost.
    pub cycles: StateCycles,
    /// Of `cycles.off`, those of units never used by the end of their launch (OFF throughout:
    /// an SM that ran no global access, lines no request reached).
    pub unused_cycles: u64,
    /// Leakage energy with Snooze, and with every unit ON throughout (the baseline), in pJ.
    pub leakage_pj: f64,
    pub baseline_leakage_pj: f64,
}

impl LevelPower {
    /// A level of `units` units of `unit_bytes` whose state counts are `cycles`, leaking
    /// `uw_per_kb` when ON at `clock_mhz` (µW / MHz = pJ per cycle).
    fn new(
        cfg: &SnoozeConfig,
        t: &DomainTotals,
        window: u64,
        unit_bytes: u64,
        uw_per_kb: f64,
        clock_mhz: u32,
    ) -> LevelPower {
        let cycles = t.cycles;
        let pj_per_cycle = unit_bytes as f64 / 1024.0 * uw_per_kb / f64::from(clock_mhz.max(1));
        let weighted = cycles.on as f64
            + cycles.sleep as f64 * cfg.sleep_leakage
            + cycles.off as f64 * cfg.off_leakage;
        LevelPower {
            units: t.units as u64,
            unit_bytes,
            cycles,
            unused_cycles: t.unused as u64 * window,
            leakage_pj: weighted * pj_per_cycle,
            baseline_leakage_pj: cycles.unit_cycles() as f64 * pj_per_cycle,
        }
    }

    /// Leakage with Snooze as a share of the baseline's (1 when nothing was counted).
    pub fn leakage_remaining(&self) -> f64 {
        if self.baseline_leakage_pj > 0.0 {
            self.leakage_pj / self.baseline_leakage_pj
        } else {
            1.0
        }
    }

    /// Leakage left of the units used in their launch (those never used, OFF throughout,
    /// left out of both sides): what the caches a workload exercises leak.
    pub fn leakage_remaining_of_used(&self, off_leakage: f64) -> f64 {
        let per_cycle = self.baseline_leakage_pj / self.cycles.unit_cycles().max(1) as f64;
        let unused = self.unused_cycles as f64 * per_cycle;
        let base = self.baseline_leakage_pj - unused;
        if base > 0.0 {
            (self.leakage_pj - unused * off_leakage) / base
        } else {
            1.0
        }
    }

    fn merge(&mut self, o: &LevelPower) {
        self.units = self.units.max(o.units);
        self.unused_cycles += o.unused_cycles;
        self.unit_bytes = self.unit_bytes.max(o.unit_bytes);
        self.cycles.merge(&o.cycles);
        self.leakage_pj += o.leakage_pj;
        self.baseline_leakage_pj += o.baseline_leakage_pj;
    }
}

/// Snooze's report (`cache_power` in the statistics; absent when `mem.snooze.gating` is off).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CachePowerReport {
    /// `bank` or `line`.
    pub gating: String,
    pub l1: LevelPower,
    pub l2: LevelPower,
}

impl CachePowerReport {
    /// The report of a launch of `window` cycles: the L1s' totals (one per SM, over the
    /// launch) and the L2's over the launch, under `cfg`.
    pub fn new(
        cfg: &crate::config::GpuConfig,
        window: u64,
        l1: &[DomainTotals],
        l2: &DomainTotals,
    ) -> CachePowerReport {
        let s = &cfg.mem.snooze;
        let unit_bytes = |line: u32, sets: u32, ways: u32| match s.gating {
            Gating::Line => u64::from(s.block),
            _ => u64::from(line) * u64::from(sets) * u64::from(ways),
        };
        let mut l1_totals = DomainTotals::default();
        for t in l1 {
            l1_totals.merge(t);
        }
        let d = &cfg.mem.l1d;
        let sl = &cfg.mem.l2.slice;
        let clock = cfg.gpu.clock_mhz;
        CachePowerReport {
            gating: s.gating.name().to_string(),
            l1: LevelPower::new(
                s,
                &l1_totals,
                window,
                unit_bytes(d.line, d.sets, d.ways),
                s.l1_leakage_uw_per_kb,
                clock,
            ),
            l2: LevelPower::new(
                s,
                l2,
                window,
                unit_bytes(sl.line, sl.sets, sl.ways),
                s.l2_leakage_uw_per_kb,
                clock,
            ),
        }
    }

    /// Whether there is nothing to report (Snooze off).
    pub fn is_empty(&self) -> bool {
        self.gating.is_empty()
    }

    /// Adds a later launch's report.
    pub fn merge(&mut self, o: &CachePowerReport) {
        if o.is_empty() {
            return;
        }
        if self.gating.is_empty() {
            self.gating = o.gating.clone();
        }
        self.l1.merge(&o.l1);
        self.l2.merge(&o.l2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;

    fn config(gating: Gating) -> SnoozeConfig {
        SnoozeConfig {
            gating,
            ..SnoozeConfig::default()
        }
    }

    /// A cache of `lines` 128-byte lines with 32-byte sectors, counted from cycle 0.
    fn domain(gating: Gating, lines: usize) -> PowerDomain {
        PowerDomain::new(&config(gating), lines, 128, 32, 0).unwrap()
    }

    fn data(way: usize, sectors: u32) -> Target {
        Target::Data { way, sectors }
    }

    #[test]
    fn off_means_no_domain() {
        assert!(PowerDomain::new(&config(Gating::Off), 4, 128, 32, 0).is_none());
        assert_eq!(domain(Gating::Bank, 4).units(), 1);
        assert_eq!(domain(Gating::Line, 4).units(), 16);
        let whole = SnoozeConfig {
            block: 128,
            ..config(Gating::Line)
        };
        assert_eq!(PowerDomain::new(&whole, 4, 128, 32, 0).unwrap().units(), 4);
    }

    /// Table 5.2's 2-cycle wake-up: hidden when the request was queued at least 2 cycles
    /// before its access, the whole of it when seen at the access, the remainder otherwise,
    /// and the rest of it for a request reaching a unit still waking.
    #[test]
    fn a_line_asleep_wakes_in_time_when_queued_early_enough() {
        let mut d = domain(Gating::Line, 2);
        let line0 = data(0, 0b0001);
        // Seen 10 cycles ahead: woken at 108, ON at 110.
        assert_eq!(d.access(100, 100, 110, 1, line0), 0);
        // Asleep again; seen exactly 2 ahead: still in time.
        assert_eq!(d.access(148, 148, 150, 1, line0), 0);
        // Seen only at its access: the whole wake-up.
        assert_eq!(d.access(200, 200, 200, 1, line0), 2);
        // Seen 1 cycle ahead: the remainder.
        assert_eq!(d.access(299, 299, 300, 1, line0), 1);
        // A second request for a unit still waking (since 400, ON at 402) waits the rest, and
        // the unit stays ON for both: [400, 403).
        assert_eq!(d.access(400, 400, 400, 1, line0), 2);
        assert_eq!(d.access(401, 401, 401, 1, line0), 1);
        // Another block of the line was asleep all along: its own wake-up.
        assert_eq!(d.access(401, 401, 401, 1, data(0, 0b0010)), 2);
        let t = d.totals_until(1000).cycles;
        assert_eq!((t.delayed_accesses, t.wake_stall_cycles), (5, 8));
        // Block 0: ON [108,111) [148,151) [200,203) [299,302) [400,403); block 1: [401,404).
        assert_eq!(t.on, 6 * 3);
        assert_eq!(t.wakeups, 6);
        assert_eq!(t.unit_cycles(), 8 * 1000);
    }

    /// The accounting of a known access sequence on one bank, by hand: OFF until the first
    /// wake-up, Sleep between ON periods, OFF once the SM is done.
    #[test]
    fn state_cycles_of_a_known_sequence() {
        let mut d = domain(Gating::Bank, 128);
        // [8, 11): seen at 0, used at 10.
        assert_eq!(d.access(0, 0, 10, 1, data(3, 1)), 0);
        // Waking at 9 within that period (ON since 10): merged into [8, 12).
        assert_eq!(d.access(5, 5, 11, 1, Target::Tags), 0);
        // Seen at its access: ON [30, 33), 2 cycles late.
        assert_eq!(d.access(30, 30, 30, 1, data(7, 2)), 2);
        d.switch_off_from(50);
        // After the SM's last CTA: woken from OFF, [63, 66).
        assert_eq!(d.access(60, 60, 65, 1, Target::Tags), 0);
        let t = d.totals_until(100).cycles;
        // OFF [0,8) + [50,63) + [66,100); ON [8,12) + [30,33) + [63,66); Sleep [12,30) +
        // [33,50).
        assert_eq!((t.off, t.on, t.sleep), (8 + 13 + 34, 4 + 3 + 3, 18 + 17));
        assert_eq!(t.wakeups, 3);
        assert_eq!((t.delayed_accesses, t.wake_stall_cycles), (1, 2));
        // Counting again later goes on from there.
        let later = d.totals_until(110).cycles;
        assert_eq!(later.since(&t).off, 10);
    }

    /// Periods reported out of order (a fill known long before a later lookup that happens
    /// first) count the same as in order, and the unit's first use is the earliest one.
    #[test]
    fn periods_out_of_order_count_as_in_order() {
        let run = |order: &[(u64, u64)]| {
            let mut d = domain(Gating::Bank, 1);
            for &(seen, at) in order {
                d.access(0, seen, at, 1, Target::Tags);
            }
            d.totals_until(1000).cycles
        };
        let a = run(&[(100, 500), (136, 136), (200, 300)]);
        let b = run(&[(136, 136), (200, 300), (100, 500)]);
        assert_eq!(a, b);
        // ON [136,139) (2 late) [298,301) [498,501); OFF before 136.
        assert_eq!((a.on, a.off, a.wakeups), (9, 136, 3));
        assert_eq!(a.sleep, 1000 - 9 - 136);
    }

    /// Bank gating keeps the whole cache ON whenever any line is used; line gating only the
    /// blocks used, the others OFF until their first use.
    #[test]
    fn bank_and_line_gating_differ_as_expected() {
        let run = |gating: Gating, block: u32| {
            let cfg = SnoozeConfig {
                block,
                ..config(gating)
            };
            let mut d = PowerDomain::new(&cfg, 2, 128, 32, 0).unwrap();
            d.access(0, 0, 5, 1, data(0, 0b0001));
            d.access(0, 0, 10, 1, data(1, 0b1100));
            d.access(0, 0, 10, 1, Target::Tags);
            let t = d.totals_until(20);
            assert_eq!(t.units, d.units());
            (t.units, t.unused, t.cycles)
        };
        let (units, unused, bank) = run(Gating::Bank, 32);
        assert_eq!((units, unused), (1, 0));
        // ON [3,6) [8,11); OFF [0,3); Sleep [6,8) [11,20).
        assert_eq!((bank.on, bank.sleep, bank.off), (6, 11, 3));
        let (units, unused, line) = run(Gating::Line, 32);
        assert_eq!((units, unused), (8, 5));
        // Block 0 ON [3,6), blocks 6 and 7 ON [8,11); the tags wake nothing.
        assert_eq!(
            (line.on, line.sleep, line.off),
            (9, 14 + 9 + 9, 3 + 8 + 8 + 5 * 20)
        );
        let (units, unused, lines) = run(Gating::Line, 128);
        assert_eq!((units, unused), (2, 0));
        assert_eq!((lines.on, lines.sleep, lines.off), (6, 14 + 9, 3 + 8));

        // The leakage each leaves, of every unit ON: (ON + 22.8% Sleep + 1.5% OFF) / all.
        let cfg = GpuConfig::load("gtx480", &["mem.snooze.gating=bank".into()]).unwrap();
        let one = |units, unused, cycles| DomainTotals {
            units,
            unused,
            cycles,
        };
        let nothing = DomainTotals::default();
        let report = CachePowerReport::new(&cfg, 20, &[one(1, 0, bank)], &nothing);
        let expected = (6.0 + 11.0 * 0.228 + 3.0 * 0.015) / 20.0;
        assert!((report.l1.leakage_remaining() - expected).abs() < 1e-12);
        // 16 KB at 700 µW per KB and 700 MHz: 16 pJ per cycle.
        assert!((report.l1.baseline_leakage_pj - 20.0 * 16.0).abs() < 1e-9);
        assert_eq!(report.l2.leakage_remaining(), 1.0, "nothing counted");
        let cfg = GpuConfig::load("gtx480", &["mem.snooze.gating=line".into()]).unwrap();
        let report = CachePowerReport::new(&cfg, 20, &[one(8, 5, line)], &nothing);
        let expected = (9.0 + 32.0 * 0.228 + 119.0 * 0.015) / 160.0;
        assert!((report.l1.leakage_remaining() - expected).abs() < 1e-12);
        // Of the 3 blocks used: the 5 others' 100 OFF cycles left out.
        assert_eq!(report.l1.unused_cycles, 100);
        let used = (9.0 + 32.0 * 0.228 + 19.0 * 0.015) / 60.0;
        assert!((report.l1.leakage_remaining_of_used(0.015) - used).abs() < 1e-12);
        assert!(report.l1.leakage_remaining() < 0.5 * bank_remaining(&bank));
    }

    fn bank_remaining(c: &StateCycles) -> f64 {
        (c.on as f64 + c.sleep as f64 * 0.228 + c.off as f64 * 0.015) / c.unit_cycles() as f64
    }

    #[test]
    fn reports_merge_and_an_empty_one_is_absent() {
        let cfg = GpuConfig::load("gtx480", &["mem.snooze.gating=line".into()]).unwrap();
        let c = StateCycles {
            on: 1,
            sleep: 2,
            off: 3,
            ..StateCycles::default()
        };
        let t = DomainTotals {
            units: 6,
            unused: 1,
            cycles: c,
        };
        let one = CachePowerReport::new(&cfg, 1, &[t], &t);
        let mut sum = CachePowerReport::default();
        assert!(sum.is_empty());
        sum.merge(&one);
        sum.merge(&CachePowerReport::default());
        sum.merge(&one);
        assert_eq!(sum.gating, "line");
        assert_eq!(
            (sum.l1.units, sum.l2.cycles.off, sum.l2.unused_cycles),
            (6, 6, 2)
        );
        assert!((sum.l2.leakage_pj - 2.0 * one.l2.leakage_pj).abs() < 1e-12);
    }

    /// The default lookahead hides the wake-up on every preset: each queue sees a request at
    /// least `wake` cycles before its array access (the L1's pipeline, the interconnect, the
    /// L2's, the DRAM's CL and burst), so Snooze costs no cycle with the defaults.
    #[test]
    fn every_preset_sees_its_requests_a_wake_up_ahead() {
        for preset in crate::config::PRESETS {
            let cfg = GpuConfig::preset(preset);
            let wake = u64::from(cfg.mem.snooze.wake);
            let dram = super::super::dram::Dram::new(&cfg.mem.dram, cfg.gpu.clock_mhz);
            for (queue, lead) in [
                ("AGU→L1", u64::from(cfg.mem.l1d.latency)),
                ("ICNT→L1", u64::from(cfg.mem.icnt_latency)),
                ("ICNT→L2", u64::from(cfg.mem.l2.slice.latency)),
                ("DRAM→L2", dram.read_lead()),
            ] {
                assert!(lead >= wake, "{preset} {queue}: {lead}");
            }
            assert!(u64::from(cfg.mem.snooze.lookahead) >= wake, "{preset}");
        }
    }

    #[test]
    fn configuration_is_checked_and_settable_on_every_preset() {
        for preset in crate::config::PRESETS {
            let cfg = GpuConfig::load(preset, &["mem.snooze.gating=line".into()]).unwrap();
            assert_eq!(cfg.mem.snooze.gating, Gating::Line, "{preset}");
            assert_eq!(GpuConfig::preset(preset).mem.snooze.gating, Gating::Off);
        }
        let err = |o: &str| GpuConfig::load("gtx480", &[o.to_string()]).unwrap_err();
        for (o, key) in [
            ("mem.snooze.block=48", "mem.snooze.block"),
            ("mem.snooze.block=256", "mem.snooze.block"),
            ("mem.snooze.sleep_leakage=1.5", "mem.snooze.sleep_leakage"),
            (
                "mem.snooze.l2_leakage_uw_per_kb=-1.0",
                "mem.snooze.l2_leakage_uw_per_kb",
            ),
        ] {
            assert!(
                matches!(err(o), ConfigError::Invalid { key: k, .. } if k == key),
                "{o}: {:?}",
                err(o)
            );
        }
        assert!(GpuConfig::load("gtx480", &["mem.snooze.gating=sometimes".into()]).is_err());
    }
}
