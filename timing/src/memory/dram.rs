//! DRAM channels with banks, row buffers and GDDR5 command timing, scheduled first-ready
//! first-come-first-served (FR-FCFS) with an open-row policy, as GPGPU-Sim's `dram.cc` and
//! `dram_sched.cc` model them, in the timestamp style of the rest of the memory system: a
//! request is answered when it is made, with the cycle its data is back at the L2 slice.
//!
//! **Commands.** A request needs `ceil(bytes / atom)` column commands, where an atom is
//! `burst × bus_bytes` bytes (64 B on GTX480: a 32-byte sector costs as much bus time as 64).
//! A bank whose open row is another must precharge (no earlier than tRAS after its activate,
//! the read-to-precharge time after a read, tWTP = WL + burst + tWR after a write), then
//! activate (tRP after the precharge, tRC after its previous activate, tRRD after any
//! activate of the channel); columns follow tRCD after the activate (tRCD − WL − 1 for writes,
//! as GPGPU-Sim derives it). Column commands of a channel are at least tCCD apart, tCCDL in one
//! bank group; a write follows a read by tRTW = CL + burst + 2 − WL, a read a write by
//! tWTR = WL + burst + tCDLR. Read data is back CL + burst cycles after its column command.
//! The column address never matters (as in GPGPU-Sim); there is no refresh.
//!
//! **Scheduling.** Each bank keeps the *row segments* it has scheduled: a row, its activate,
//! its last column command, and the precharge that closes it (none for the last, open row).
//! A request to the row of a segment that is open, or queued to open, when it arrives is a row
//! hit served in that segment, as FR-FCFS serves every request of the current row before the
//! bank moves on; a request to any other row opens a new segment behind the bank's last one.
//! A hit in a segment that is not the bank's last is the case the timestamp model cannot
//! reproduce exactly: its column command goes right after the segment's last one, the bank's
//! later segments move back by the time it adds, and the channel's next column slot moves back
//! by one tCCD, so bank and bus time are conserved; requests already answered from the later
//! segments keep their cycles.
//!
//! Times inside are DRAM command-clock cycles; the interface takes and returns core cycles.

use std::collections::VecDeque;

use super::MemStats;
use super::addrmap::Location;
use crate::config::DramConfig;

/// Row segments a bank remembers (GPGPU-Sim's scheduler queue holds 64 requests per channel):
/// older rows can no longer be hit.
const MAX_SEGMENTS: usize = 64;

/// Direction of a DRAM request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
}

/// Timing parameters in command-clock cycles, with the derived ones.
#[derive(Clone, Copy, Debug)]
struct Timing {
    ccd: u64,
    ccdl: u64,
    rrd: u64,
    rcd: u64,
    rcd_write: u64,
    ras: u64,
    rp: u64,
    rc: u64,
    cl: u64,
    wl: u64,
    /// Read column to a write column of the channel.
    rtw: u64,
    /// Write column to a read column of the channel.
    wtr: u64,
    /// Write column to precharge of its bank.
    wtp: u64,
    /// Read column to precharge of its bank (the burst, or tRTPL if longer).
    rtp: u64,
    /// Cycles a column command holds the data bus.
    burst: u64,
}

/// A row a bank has scheduled.
#[derive(Clone, Copy, Debug)]
struct Segment {
    row: u64,
    act: u64,
    last_col: u64,
    /// Earliest precharge allowed by the commands so far.
    pre_ready: u64,
    /// The precharge that closes it; `u64::MAX` while it is the bank's last (open) row.
    closes: u64,
}

#[derive(Clone, Debug, Default)]
struct Bank {
    segments: VecDeque<Segment>,
}

/// Cycles of commands a channel remembers: a request can take a free cycle this far before
/// the channel's latest command. Commands booked further apart share slots and forget each
/// other: with 4,096, rtx3070's saturated channels moved 12% more than their peak.
const CALENDAR: usize = 16384;

/// How far past its earliest cycle a command looks for a free one; past it, every cycle is
/// taken as free.
const HORIZON: u64 = 2048;

/// A command in a channel's calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Command {
    /// The cycle it issues (`u64::MAX`: an empty slot).
    cycle: u64,
    /// Its bank group.
    group: u8,
    dir: Dir,
}

/// The commands of one kind a channel has scheduled, by cycle: slot `c % CALENDAR` holds the
/// command issuing at cycle `c`, if any. New commands take the earliest cycle that keeps the
/// required distances from every command already there, before or after it, so requests to
/// different banks interleave as GPGPU-Sim's round robin over banks does, even when they are
/// answered in another order.
#[derive(Clone, Debug)]
struct Calendar {
    slots: Vec<Command>,
}

impl Calendar {
    fn new() -> Calendar {
        Calendar {
            slots: vec![
                Command {
                    cycle: u64::MAX,
                    group: 0,
                    dir: Dir::Read,
                };
                CALENDAR
            ],
        }
    }

    /// The earliest cycle from `earliest`, a multiple of `grid`, at which `cmd` keeps
    /// `gap(earlier, later)` cycles from every command within `reach` of it; books it there.
    fn book(
        &mut self,
        earliest: u64,
        mut cmd: Command,
        grid: u64,
        reach: u64,
        gap: impl Fn(&Command, &Command) -> u64,
    ) -> u64 {
        let mut x = earliest.next_multiple_of(grid);
        // Past the horizon every cycle is taken as free; a crowded calendar books there.
        let limit = earliest + HORIZON;
        while x < limit {
            // A cycle holding a command that needs a gap after it is not free: skip a run of
            // them cheaply before the full check, which a saturated channel would otherwise
            // repeat at every one of them.
            while x < limit {
                let here = self.slots[(x % CALENDAR as u64) as usize];
                if here.cycle != x || gap(&cmd, &here) == 0 {
                    break;
                }
                x += grid;
            }
            if x >= limit {
                break;
            }
            // The earliest cycle every conflicting command allows: a command at `c` within
            // reach of `x` is cleared only at `c + gap(it, cmd)` or later, whether it lies
            // before `x` or after (moving towards a later command only brings it closer).
            let mut next = x;
            for c in x.saturating_sub(reach)..=x + reach {
                let other = self.slots[(c % CALENDAR as u64) as usize];
                if other.cycle != c {
                    continue;
                }
                let clear = if c < x {
                    c + gap(&other, &cmd)
                } else if c - x >= gap(&cmd, &other) {
                    continue;
                } else {
                    c + gap(&other, &cmd).max(1)
                };
                next = next.max(clear);
            }
            let next = next.next_multiple_of(grid);
            if next == x {
                break;
            }
            x = next;
        }
        let x = x.min(limit);
        cmd.cycle = x;
        self.slots[(x % CALENDAR as u64) as usize] = cmd;
        x
    }
}

#[derive(Clone, Debug)]
struct Channel {
    banks: Vec<Bank>,
    /// Column commands: tCCD apart, tCCDL in one bank group, tRTW from a read to a write and
    /// tWTR from a write to a read.
    columns: Calendar,
    /// Activates: tRRD apart.
    activates: Calendar,
    /// Writebacks posted and not yet scheduled: (core cycle posted, location, bytes).
    posted: Vec<(u64, Location, u64)>,
}

/// The DRAM channels of the GPU.
#[derive(Clone, Debug)]
pub struct Dram {
    channels: Vec<Channel>,
    t: Timing,
    atom: u64,
    groups: usize,
    /// Core-cycle latency from the L2 to the scheduler.
    latency: u64,
    /// Writebacks a channel holds before scheduling them together.
    write_batch: usize,
    core_mhz: u128,
    dram_mhz: u128,
}

impl Dram {
    /// Idle channels with every bank precharged, for a core clock of `core_mhz`.
    pub fn new(cfg: &DramConfig, core_mhz: u32) -> Dram {
        let d = &cfg.timing;
        let burst = u64::from(cfg.burst_cycles()).max(1);
        let (cl, wl) = (u64::from(d.cl), u64::from(d.wl));
        let t = Timing {
            ccd: u64::from(d.ccd).max(1),
            ccdl: u64::from(d.ccdl),
            rrd: u64::from(d.rrd),
            rcd: u64::from(d.rcd),
            rcd_write: u64::from(d.rcd).saturating_sub(wl + 1),
            ras: u64::from(d.ras),
            rp: u64::from(d.rp),
            rc: u64::from(d.rc),
            cl,
            wl,
            rtw: (cl + burst + 2).saturating_sub(wl),
            wtr: wl + burst + u64::from(d.cdlr),
            wtp: wl + burst + u64::from(d.wr),
            rtp: burst.max(u64::from(d.rtpl)),
            burst,
        };
        let groups = cfg.bank_groups.max(1) as usize;
        let channel = Channel {
            banks: vec![Bank::default(); cfg.banks.max(1) as usize],
            columns: Calendar::new(),
            activates: Calendar::new(),
            posted: Vec::new(),
        };
        Dram {
            channels: vec![channel; cfg.channels.max(1) as usize],
            t,
            atom: u64::from(cfg.atom_bytes()).max(1),
            groups,
            latency: u64::from(cfg.latency),
            write_batch: cfg.write_batch.max(1) as usize,
            core_mhz: u128::from(core_mhz.max(1)),
            dram_mhz: u128::from(cfg.clock_mhz.max(1)),
        }
    }

    /// DRAM cycles in `core` core cycles (rounded up).
    pub fn dram_cycles(&self, core: u64) -> u64 {
        u64::try_from((u128::from(core) * self.dram_mhz).div_ceil(self.core_mhz))
            .unwrap_or(u64::MAX)
    }

    /// Core cycles (rounded down) from a read's column command to its data being back: CL and
    /// the burst, which the controller knows when it issues the command.
    pub fn read_lead(&self) -> u64 {
        let dram = u128::from(self.t.cl + self.t.burst);
        u64::try_from(dram * self.core_mhz / self.dram_mhz).unwrap_or(u64::MAX)
    }

    /// Core cycles in `dram` DRAM cycles (rounded up).
    fn core_cycles(&self, dram: u64) -> u64 {
        u64::try_from((u128::from(dram) * self.core_mhz).div_ceil(self.dram_mhz))
            .unwrap_or(u64::MAX)
    }

    /// A writeback of `bytes` posted at `at` (a core cycle) to the bank and row of `loc`.
    ///
    /// Nothing waits for a writeback, so the channel holds them until `mem.dram.write_batch`
    /// are pending and then schedules them together: the bus turns from reads to writes and
    /// back once per batch, as FR-FCFS's row streaks and the turnaround timers let
    /// GPGPU-Sim's controller batch them, rather than once per write.
    pub fn write_back(&mut self, at: u64, loc: &Location, bytes: u64, stats: &mut MemStats) {
        let posted = &mut self.channels[loc.channel].posted;
        posted.push((at, *loc, bytes));
        if posted.len() < self.write_batch {
            return;
        }
        let batch = std::mem::take(posted);
        for (_, loc, bytes) in &batch {
            self.access(at, loc, Dir::Write, *bytes, stats);
        }
        // Keep the buffer's allocation.
        let mut batch = batch;
        batch.clear();
        self.channels[loc.channel].posted = batch;
    }

    /// A request of `bytes` at `at` (a core cycle, as it leaves the L2 slice) to the bank and
    /// row of `loc`; returns the core cycle its data is back at the slice (a read) or its last
    /// data is written (a write).
    pub fn access(
        &mut self,
        at: u64,
        loc: &Location,
        dir: Dir,
        bytes: u64,
        stats: &mut MemStats,
    ) -> u64 {
        let t = self.t;
        let arrive = self.dram_cycles(at.saturating_add(self.latency));
        let cols = bytes.div_ceil(self.atom).max(1);
        let group = loc.bank % self.groups;
        let channel = &mut self.channels[loc.channel];
        let segments = &mut channel.banks[loc.bank].segments;
        while segments.len() > 1 && (segments[0].closes <= arrive || segments.len() > MAX_SEGMENTS)
        {
            segments.pop_front();
        }
        let hit = segments
            .iter()
            .position(|s| s.row == loc.row && s.closes > arrive);
        let rcd = match dir {
            Dir::Read => t.rcd,
            Dir::Write => t.rcd_write,
        };
        let last_col = match hit {
            Some(i) if i + 1 == segments.len() => {
                let s = segments[i];
                let first = arrive.max(s.act + rcd).max(s.last_col + t.ccdl.max(1));
                let last = issue_columns(channel, &t, group, dir, first, cols);
                let s = channel.banks[loc.bank]
                    .segments
                    .back_mut()
                    .expect("the hit segment");
                s.last_col = last;
                s.pre_ready = s.pre_ready.max(last + after_column(&t, dir));
                last
            }
            Some(i) => {
                // Queued behind other rows: served in its own row's streak, before the bank's
                // later rows, in the channel's free column slots.
                let s = segments[i];
                let first = arrive.max(s.act + rcd).max(s.last_col + t.ccdl.max(1));
                let last = issue_columns(channel, &t, group, dir, first, cols);
                let segments = &mut channel.banks[loc.bank].segments;
                let s = &mut segments[i];
                s.last_col = last;
                s.pre_ready = s.pre_ready.max(last + after_column(&t, dir));
                let shift = s.pre_ready.saturating_sub(s.closes);
                s.closes += shift;
                for later in segments.iter_mut().skip(i + 1) {
                    later.act += shift;
                    later.last_col += shift;
                    later.pre_ready += shift;
                    if later.closes != u64::MAX {
                        later.closes += shift;
                    }
                }
                last
            }
            None => {
                let act_earliest = match segments.back_mut() {
                    Some(open) => {
                        let pre = arrive.max(open.pre_ready).max(open.last_col + 1);
                        open.closes = pre;
                        stats.dram_precharges += 1;
                        (pre + t.rp).max(open.act + t.rc)
                    }
                    None => arrive,
                };
                let rrd = t.rrd.max(1);
                let act =
                    channel
                        .activates
                        .book(act_earliest, command(group, dir), 1, rrd, |_, _| rrd);
                stats.dram_activates += 1;
                let last = issue_columns(channel, &t, group, dir, act + rcd, cols);
                channel.banks[loc.bank].segments.push_back(Segment {
                    row: loc.row,
                    act,
                    last_col: last,
                    pre_ready: (act + t.ras).max(last + after_column(&t, dir)),
                    closes: u64::MAX,
                });
                last
            }
        };
        if hit.is_some() {
            stats.dram_row_hits += 1;
        }
        stats.dram_bursts += cols;
        stats.dram_bus_cycles += cols * t.burst;
        let done = last_col
            + t.burst
            + match dir {
                Dir::Read => t.cl,
                Dir::Write => t.wl,
            };
        let done = self.core_cycles(done);
        match dir {
            Dir::Read => {
                stats.dram_reads += 1;
                stats.dram_reads_bytes += bytes;
                stats.dram_read_latency += done.saturating_sub(at);
            }
            Dir::Write => {
                stats.dram_writes += 1;
                stats.dram_writes_bytes += bytes;
            }
        }
        done
    }
}

/// Cycles from a column command to the earliest precharge of its bank.
fn after_column(t: &Timing, dir: Dir) -> u64 {
    match dir {
        Dir::Read => t.rtp,
        Dir::Write => t.wtp,
    }
}

fn command(group: usize, dir: Dir) -> Command {
    Command {
        cycle: 0,
        group: group as u8,
        dir,
    }
}

/// Issues `cols` column commands of one request in bank group `group`, the first no earlier
/// than `earliest`, each in the earliest cycle the channel's calendar allows; returns the
/// cycle of the last.
///
/// Column commands go on a grid of tCCD cycles (the data bus in slots of one burst when, as in
/// GDDR5, tCCD is the burst): booked one request at a time, a bank's commands tCCDL apart
/// would otherwise leave gaps shorter than tCCD that no other bank could use, where
/// GPGPU-Sim's cycle-by-cycle round robin over banks interleaves two bank groups at the full
/// rate. The cost: commands of one bank group alone are `ceil(tCCDL / tCCD)` slots apart (4
/// cycles on gtx480 instead of 3).
fn issue_columns(
    channel: &mut Channel,
    t: &Timing,
    group: usize,
    dir: Dir,
    earliest: u64,
    cols: u64,
) -> u64 {
    let reach = t.ccd.max(t.ccdl).max(t.rtw).max(t.wtr);
    let gap = |first: &Command, second: &Command| {
        let turnaround = match (first.dir, second.dir) {
            (Dir::Read, Dir::Write) => t.rtw,
            (Dir::Write, Dir::Read) => t.wtr,
            _ => 0,
        };
        let group = if first.group == second.group {
            t.ccdl
        } else {
            0
        };
        t.ccd.max(group).max(turnaround)
    };
    let mut at = earliest;
    let mut last = earliest;
    for _ in 0..cols {
        last = channel
            .columns
            .book(at, command(group, dir), t.ccd, reach, gap);
        at = last + 1;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;

    /// gtx480's DRAM with equal core and DRAM clocks and no fixed latency, so the cycle counts
    /// below are the command timing alone: tCCD 2, tCCDL 3, tRRD 6, tRCD 12, tRAS 28, tRP 12,
    /// tRC 40, CL 12, WL 4, burst 2 cycles of a 64-byte atom.
    fn dram() -> Dram {
        let mut cfg = GpuConfig::preset("gtx480").mem.dram;
        cfg.clock_mhz = 700;
        cfg.latency = 0;
        Dram::new(&cfg, 700)
    }

    fn at(bank: usize, row: u64) -> Location {
        Location {
            channel: 0,
            slice: 0,
            local_line: 0,
            bank,
            row,
        }
    }

    /// The calendar remembers a command while commands up to 4,096 cycles later are booked
    /// (a saturated channel's span): a late request cannot take its cycle again. With a
    /// calendar of 4,096 cycles the command at 4,096 took the slot of the one at 0, and the
    /// late one was booked at 0 beside it (rtx3070's DRAM then moved 12% over its peak).
    #[test]
    fn the_calendar_remembers_a_saturated_span() {
        let mut cal = Calendar::new();
        let read = command(0, Dir::Read);
        let gap = |_: &Command, _: &Command| 2;
        assert_eq!(cal.book(0, read, 2, 2, gap), 0);
        assert_eq!(cal.book(4096, read, 2, 2, gap), 4096);
        assert_eq!(cal.book(0, read, 2, 2, gap), 2);
    }

    #[test]
    fn a_closed_bank_activates_then_reads() {
        let mut d = dram();
        let mut s = MemStats::default();
        // ACT at 0, READ at tRCD = 12, data CL + burst later.
        assert_eq!(d.access(0, &at(0, 5), Dir::Read, 32, &mut s), 12 + 12 + 2);
        assert_eq!(
            (s.dram_activates, s.dram_row_hits, s.dram_bursts),
            (1, 0, 1)
        );
        assert_eq!(s.dram_read_latency, 26);
    }

    #[test]
    fn row_hits_stream_at_the_column_rate() {
        let mut d = dram();
        let mut s = MemStats::default();
        let first = d.access(0, &at(0, 5), Dir::Read, 32, &mut s);
        // Same bank, same row: one bank group, so tCCDL = 3 apart, on the tCCD = 2 grid: 4.
        let second = d.access(0, &at(0, 5), Dir::Read, 32, &mut s);
        assert_eq!(second - first, 4);
        // A 128-byte request needs two column commands.
        let third = d.access(0, &at(0, 5), Dir::Read, 128, &mut s);
        assert_eq!(third - second, 8);
        assert_eq!(
            (s.dram_activates, s.dram_row_hits, s.dram_bursts),
            (1, 2, 4)
        );
        assert_eq!(s.dram_bus_cycles, 8);
    }

    #[test]
    fn a_row_conflict_precharges_and_activates() {
        let mut d = dram();
        let mut s = MemStats::default();
        d.access(0, &at(0, 5), Dir::Read, 32, &mut s); // ACT 0, READ 12
        // Another row of the bank at cycle 100: PRE at 100 (tRAS and the read are long past),
        // ACT at 100 + tRP = 112, READ at 124, data at 124 + 12 + 2.
        assert_eq!(d.access(100, &at(0, 6), Dir::Read, 32, &mut s), 138);
        // Right behind the activate: PRE waits for tRAS (ACT + 28), ACT for tRC (ACT + 40).
        let mut d = dram();
        d.access(0, &at(0, 5), Dir::Read, 32, &mut s);
        assert_eq!(d.access(0, &at(0, 6), Dir::Read, 32, &mut s), 40 + 12 + 14);
        assert_eq!((s.dram_activates, s.dram_precharges), (4, 2));
    }

    #[test]
    fn banks_work_in_parallel() {
        let mut d = dram();
        let mut s = MemStats::default();
        // Four banks of four bank groups: activates tRRD = 6 apart, reads follow each by tRCD.
        let done: Vec<u64> = (0..4)
            .map(|b| d.access(0, &at(b, 1), Dir::Read, 32, &mut s))
            .collect();
        assert_eq!(done, vec![26, 32, 38, 44]);
        // One bank: the second row waits for tRC behind the first.
        let mut d = dram();
        let one: Vec<u64> = (0..2)
            .map(|r| d.access(0, &at(0, r), Dir::Read, 32, &mut s))
            .collect();
        assert_eq!(one, vec![26, 66]);
    }

    #[test]
    fn fr_fcfs_serves_a_queued_row_before_switching() {
        let mut d = dram();
        let mut s = MemStats::default();
        d.access(0, &at(0, 1), Dir::Read, 32, &mut s); // row 1: ACT 0, READ 12
        d.access(0, &at(0, 2), Dir::Read, 32, &mut s); // row 2 queued: PRE 28, ACT 40, READ 52
        // Row 1 again while row 2 waits: hits in row 1, 4 apart (tCCDL on the tCCD grid)
        // from READ 16 on.
        let hits: Vec<u64> = (0..6)
            .map(|_| d.access(1, &at(0, 1), Dir::Read, 32, &mut s))
            .collect();
        assert_eq!(hits, vec![30, 34, 38, 42, 46, 50]);
        assert_eq!((s.dram_activates, s.dram_row_hits), (2, 6));
        // The last read (36) allows the precharge at 38, not 28: row 2's activate moved back
        // by 10 to 50 and its read to 62, so its next read is at 66 (data at 80).
        assert_eq!(d.access(2, &at(0, 2), Dir::Read, 32, &mut s), 80);
        assert_eq!(s.dram_row_hits, 7);
    }

    #[test]
    fn write_to_read_turnaround() {
        let mut d = dram();
        let mut s = MemStats::default();
        // A write in bank 0 (ACT 0, WRITE at tRCD - WL - 1 = 7, on the grid 8), then a read in
        // bank 1 (ACT at tRRD = 6, READ no earlier than 8 + tWTR = 8 + 4 + 2 + 5 = 19: 20).
        assert_eq!(d.access(0, &at(0, 1), Dir::Write, 64, &mut s), 8 + 4 + 2);
        assert_eq!(d.access(0, &at(1, 1), Dir::Read, 32, &mut s), 20 + 12 + 2);
        assert_eq!((s.dram_writes, s.dram_reads), (1, 1));
    }

    #[test]
    fn clocks_convert_both_ways() {
        let cfg = GpuConfig::preset("gtx480").mem.dram;
        let d = Dram::new(&cfg, 700);
        assert_eq!(d.dram_cycles(700), 924);
        assert_eq!(d.dram_cycles(1), 2);
        assert_eq!(d.core_cycles(924), 700);
        let mut d = d;
        let mut s = MemStats::default();
        // 100 core cycles to the scheduler (132 DRAM cycles), 26 DRAM cycles of commands:
        // 158 DRAM cycles = 119.7 core cycles.
        assert_eq!(d.access(0, &at(0, 1), Dir::Read, 32, &mut s), 120);
    }

    #[test]
    fn writebacks_wait_for_a_batch() {
        let mut d = dram();
        let mut s = MemStats::default();
        let batch = d.write_batch;
        for i in 0..batch - 1 {
            d.write_back(i as u64, &at(i % 16, 1), 128, &mut s);
        }
        assert_eq!(s.dram_writes, 0, "held until the batch is full");
        d.write_back(100, &at(0, 1), 128, &mut s);
        assert_eq!(s.dram_writes, batch as u64);
        assert_eq!(s.dram_bursts, 2 * batch as u64, "128 bytes: two atoms each");
        // Drained: the next writeback waits again.
        d.write_back(200, &at(0, 1), 128, &mut s);
        assert_eq!(s.dram_writes, batch as u64);
    }

    /// The calendar books the earliest cycle keeping every distance, as a scan of every cycle
    /// would find it.
    #[test]
    fn calendar_books_the_earliest_fitting_cycle() {
        let t = dram().t;
        let reach = t.ccd.max(t.ccdl).max(t.rtw).max(t.wtr);
        let gap = |a: &Command, b: &Command| {
            let turn = match (a.dir, b.dir) {
                (Dir::Read, Dir::Write) => t.rtw,
                (Dir::Write, Dir::Read) => t.wtr,
                _ => 0,
            };
            let g = if a.group == b.group { t.ccdl } else { 0 };
            t.ccd.max(g).max(turn)
        };
        let mut cal = Calendar::new();
        let mut booked: Vec<Command> = Vec::new();
        let mut x = 12345u64;
        for i in 0..2000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let cmd = Command {
                cycle: 0,
                group: (x % 4) as u8,
                dir: if x.is_multiple_of(5) {
                    Dir::Write
                } else {
                    Dir::Read
                },
            };
            // A command every 6 cycles on average, arriving up to 200 cycles late: a busy
            // calendar, booked out of order, never fuller than it can hold.
            let earliest = i * 6 + (x >> 8) % 200;
            let fits = |y: u64| {
                booked.iter().all(|o| {
                    o.cycle.abs_diff(y) > reach
                        || (o.cycle < y && y - o.cycle >= gap(o, &cmd))
                        || (o.cycle > y && o.cycle - y >= gap(&cmd, o))
                })
            };
            let want = (earliest.next_multiple_of(t.ccd)..)
                .step_by(t.ccd as usize)
                .find(|&y| fits(y))
                .unwrap();
            let got = cal.book(earliest, cmd, t.ccd, reach, gap);
            assert_eq!(got, want, "command {i}");
            booked.push(Command { cycle: got, ..cmd });
        }
    }
}
