//! Worked examples of "General-Purpose Graphics Processor Architectures" (Aamodt, Fung,
//! Rogers; chapter 3) replayed on the timing model's own components: the operand collector
//! with four banks (Figure 3.17) and the per-warp scoreboard (Section 3.3, Coon et al.'s
//! design). Each test says what the book shows, what the model gives, and where they differ.
//! (The SIMT stack example, Figure 3.4, needs PTX: it is in
//! `samples/tests/integration/timing_book.rs`.)

use timing::GpuConfig;
use timing::collector::OperandCollector;
use timing::decode::Unit;
use timing::rf::{ALL_SLICES, BankMap, BankReq, RfPolicy};
use timing::scoreboard::{Hazard, Scoreboard};

/// An instruction of the example: the warp that issues it, the cycle it issues, its source
/// registers and its destination.
struct Inst {
    name: &'static str,
    warp: u32,
    issue: u64,
    reads: &'static [u32],
    write: u32,
}

/// What happened to a bank (or the execution unit) in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Event {
    /// Operand `reg` of the instruction from `warp` read from `bank`.
    Read { bank: u32, warp: u32, reg: u32 },
    /// Result register `reg` of `warp` written back to `bank`.
    Write { bank: u32, warp: u32, reg: u32 },
    /// The instruction from `warp` leaves its collector unit for the execution unit.
    Execute { warp: u32 },
}

/// Runs `insts` through an operand collector of `cfg`, stage by stage in the order `Sm::cycle`
/// uses (write-back, dispatch, bank arbitration, issue into a collector unit), with results
/// written back `latency` cycles after dispatch. Returns each cycle's events and the collector.
fn replay(
    cfg: &GpuConfig,
    insts: &[Inst],
    latency: u64,
    cycles: u64,
) -> (Vec<Vec<Event>>, OperandCollector) {
    let mut oc = OperandCollector::new(cfg);
    let policy = RfPolicy::new(cfg);
    let map = BankMap::new(cfg);
    let access = |warp, reg, write| BankReq {
        bank: map.bank(warp, reg),
        row: reg,
        slices: ALL_SLICES,
        write,
        operands: u8::from(!write),
        forwarded: false,
        ready_at: 0,
    };
    let mut writebacks: Vec<(u64, u32, u32)> = Vec::new();
    let mut trace = vec![Vec::new(); cycles as usize];
    let mut ready = Vec::new();
    for now in 0..cycles {
        let log = &mut trace[now as usize];
        for &(_, warp, reg) in writebacks.iter().filter(|w| w.0 == now) {
            oc.write(access(warp, reg, true));
            log.push(Event::Write {
                bank: map.bank(warp, reg),
                warp,
                reg,
            });
        }
        oc.ready(now, 0, &mut ready);
        for &cu in &ready {
            let inst = &insts[oc.holds(cu).0];
            log.push(Event::Execute { warp: inst.warp });
            writebacks.push((now + latency, inst.warp, inst.write));
            oc.release(cu, now);
        }
        let before: Vec<(usize, Vec<BankReq>)> = oc
            .entry_ids()
            .map(|cu| (cu, oc.pending(cu).to_vec()))
            .collect();
        oc.arbitrate(&policy, now);
        for &(cu, ref pending) in &before {
            let warp = insts[oc.holds(cu).0].warp;
            for r in pending.iter().filter(|p| !oc.pending(cu).contains(p)) {
                log.push(Event::Read {
                    bank: r.bank,
                    warp,
                    reg: r.row,
                });
            }
        }
        for (i, inst) in insts.iter().enumerate().filter(|(_, i)| i.issue == now) {
            let cu = oc
                .free_unit(inst.warp as usize, Unit::Sp)
                .unwrap_or_else(|| panic!("{}: a free collector unit", inst.name));
            oc.allocate(cu, now, i, Unit::Sp, |reads| {
                reads.extend(inst.reads.iter().map(|&r| access(inst.warp, r, false)))
            });
        }
    }
    (trace, oc)
}

/// Figure 3.17, "Timing of operand collector": four single-ported banks with the swizzled
/// layout of Figure 3.16 (bank = (register + warp) mod 4, the `wshift` mapping of the
/// `gtx480-4bank` preset) and the instructions
///
/// ```text
///     i1: add r1, r2, r5          issued by w1, w2, w3 on cycles 0, 1, 2
///     i2: mad r4, r3, r7, r1      issued by w0 on cycle 3
/// ```
///
/// The book's bank timing (cycles 1 to 6; "wb" marks a write-back, EU the execution unit):
///
/// ```text
///     cycle    1       2       3       4          5          6
///     bank 0           w2:r2           w3:r5                 wb w3:r1
///     bank 1                   w3:r2
///     bank 2           w1:r5           wb w1:r1
///     bank 3   w1:r2           w2:r5   w0:r3      wb w2:r1   w0:r7
///     EU                       w1      w2         w3
/// ```
///
/// The model reproduces the table cycle for cycle: single-ported collector units receive one
/// operand per cycle, so each i1 collects r2 on cycle n+1 and r5 on n+2 and executes on n+3;
/// no i1 conflicts (the swizzle keeps the three warps' operands apart); i2's r3 and r7 share
/// bank 3 and are read on different cycles, r7 also waiting for the higher-priority write-back
/// of w2's r1; write-backs proceed in parallel with reads of other banks; w0's r7 is read on
/// cycle 6. The book's EU takes one cycle (EU on cycle n, write-back on n+1): the replay uses
/// a latency of 1.
#[test]
fn figure_3_17_operand_collector_with_four_banks() {
    let cfg = GpuConfig::preset("gtx480-4bank");
    assert_eq!(cfg.sm.rf.banks, 4);
    let map = BankMap::new(&cfg);
    // The subscripts of Figure 3.17: the bank of each operand.
    for (warp, reg, bank) in [
        (1, 1, 2),
        (1, 2, 3),
        (1, 5, 2),
        (2, 1, 3),
        (2, 2, 0),
        (2, 5, 3),
        (3, 1, 0),
        (3, 2, 1),
        (3, 5, 0),
        (0, 4, 0),
        (0, 3, 3),
        (0, 7, 3),
        (0, 1, 1),
    ] {
        assert_eq!(map.bank(warp, reg), bank, "w{warp}:r{reg}");
    }
    let i1 = |warp, issue| Inst {
        name: "i1",
        warp,
        issue,
        reads: &[2, 5],
        write: 1,
    };
    let insts = [
        i1(1, 0),
        i1(2, 1),
        i1(3, 2),
        Inst {
            name: "i2",
            warp: 0,
            issue: 3,
            reads: &[3, 7, 1],
            write: 4,
        },
    ];
    let (trace, oc) = replay(&cfg, &insts, 1, 9);
    use Event::*;
    let read = |bank, warp, reg| Read { bank, warp, reg };
    let write = |bank, warp, reg| Write { bank, warp, reg };
    // The book's table, cycle for cycle (plus w0's r1 from bank 1 on cycle 5, which the
    // figure leaves out, and the cycles after it).
    let expected: [Vec<Event>; 9] = [
        vec![],
        vec![read(3, 1, 2)],
        vec![read(2, 1, 5), read(0, 2, 2)],
        vec![Execute { warp: 1 }, read(3, 2, 5), read(1, 3, 2)],
        vec![
            write(2, 1, 1),
            Execute { warp: 2 },
            read(3, 0, 3),
            read(0, 3, 5),
        ],
        // w2's write-back holds bank 3: w0's r7 waits.
        vec![write(3, 2, 1), Execute { warp: 3 }, read(1, 0, 1)],
        // As in the book, w0's r7 is read on cycle 6.
        vec![write(0, 3, 1), read(3, 0, 7)],
        vec![Execute { warp: 0 }],
        vec![write(0, 0, 4)],
    ];
    for (cycle, (got, want)) in trace.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "cycle {cycle}");
    }
    let rf = &oc.stats;
    assert_eq!((rf.reads, rf.writes), (9, 4));
    // Cycle 4: r7 loses to r3 (same bank); cycle 5: r7 loses to the write-back.
    assert_eq!(rf.bank_conflicts, 2);
    assert_eq!(rf.write_priority_conflicts, 1);
    assert_eq!(rf.reads_per_bank, [2, 2, 1, 4]);
    assert_eq!(rf.writes_per_bank, [2, 0, 1, 1]);
    // Cycles from issue to dispatch: 3 for each i1 (one operand per cycle, dispatch the cycle
    // after the last), 4 for i2 (issued 3, dispatched 7).
    assert_eq!(rf.collector_wait_cycles, 3 + 3 + 3 + 4);
}

/// Figure 3.14's point, with collector units: `add r5, r5, r1` of warp 0 (Figure 3.13's
/// layout puts r5 and r1 in bank 1) cannot read both sources in one cycle. The book's naive
/// design stalls issue for it; with the operand collector the conflict costs that instruction
/// one more cycle of collection and is counted once.
#[test]
fn figure_3_14_same_bank_sources_serialize() {
    let cfg = GpuConfig::preset("gtx480-4bank");
    let map = BankMap::new(&cfg);
    assert_eq!((map.bank(0, 5), map.bank(0, 1)), (1, 1));
    let insts = [Inst {
        name: "i2",
        warp: 0,
        issue: 0,
        reads: &[5, 1],
        write: 5,
    }];
    let (trace, oc) = replay(&cfg, &insts, 1, 5);
    use Event::*;
    assert_eq!(
        trace[1],
        [Read {
            bank: 1,
            warp: 0,
            reg: 5
        }]
    );
    assert_eq!(
        trace[2],
        [Read {
            bank: 1,
            warp: 0,
            reg: 1
        }]
    );
    assert_eq!(trace[3], [Execute { warp: 0 }]);
    assert_eq!(oc.stats.bank_conflicts, 1);
    assert_eq!(oc.stats.write_priority_conflicts, 0);
}

/// Section 3.3 (Coon et al.'s scoreboard): a warp has a few entries (3 or 4, the book
/// estimates), each the register of an issued, not yet completed write. An instruction that
/// reads (RAW) or writes (WAW) such a register is stalled until the write-back clears the
/// entry; when all entries are in use the warp cannot issue another writer. The sequence is
/// block A of Figure 3.3 (`ld.global t3; mov t4, 0; setp.eq p1, t3, t4`), with t3 = r3, t4 = r4.
/// (In the whole pipeline, `samples/tests/integration/timing_micro.rs` shows the same blocking in
/// cycles: each add of a dependent chain issues exactly when its producer writes back (RAW), and
/// loads into one register follow each other's write-backs (WAW).)
#[test]
fn section_3_3_scoreboard_blocks_dependent_instructions() {
    let cfg = GpuConfig::preset("gtx480-4bank");
    let mut sb = Scoreboard::new(4);
    // ld.global.u32 t3, [t2]: issues; t3 becomes pending (a long-latency memory result).
    assert_eq!(sb.check(&[2], &[3]), Ok(()));
    sb.reserve(&[3], true);
    // mov.u32 t4, 0: independent of t3, issues in the shadow of the load.
    assert_eq!(sb.check(&[], &[4]), Ok(()));
    sb.reserve(&[4], false);
    // setp.eq.u32 p1, t3, t4: RAW on t3 (and t4) — blocked, flagged as waiting on memory.
    assert_eq!(
        sb.check(&[3, 4], &[100]),
        Err(Hazard::Pending { long: true })
    );
    // The mov writes back: still blocked on the load.
    sb.release(&[4]);
    assert_eq!(
        sb.check(&[3, 4], &[100]),
        Err(Hazard::Pending { long: true })
    );
    // A WAW on t3 (a second load into t3) is blocked too.
    assert_eq!(sb.check(&[2], &[3]), Err(Hazard::Pending { long: true }));
    // The load writes back: the setp may issue.
    sb.release(&[3]);
    assert_eq!(sb.check(&[3, 4], &[100]), Ok(()));
    assert!(sb.is_empty());
    // Entries run out: four pending writes fill a 4-entry scoreboard; a fifth writer waits,
    // however independent; an instruction that writes nothing may still go.
    for r in 10..14 {
        assert_eq!(sb.check(&[], &[r]), Ok(()));
        sb.reserve(&[r], false);
    }
    assert_eq!(sb.check(&[1], &[20]), Err(Hazard::Full));
    assert_eq!(sb.check(&[1], &[]), Ok(()));
    sb.release(&[10]);
    assert_eq!(sb.check(&[1], &[20]), Ok(()));
    // The presets' scoreboards are larger than the book's estimate (GPGPU-Sim tracks more).
    assert!(cfg.sm.scoreboard_entries >= 4);
}
