//! Each measure on hand-made instruction streams, with the expected counts worked out by hand
//! in the comments.

use super::*;
use crate::decode::OpClass;

/// A register access of one width class (all lanes and executing lanes alike).
fn acc(reg: u32, class: u8) -> RegAccess {
    RegAccess {
        reg,
        class_all: class,
        class_active: class,
    }
}

/// Feeds one instruction of `warp`.
fn inst(
    c: &mut Characterizer,
    warp: u32,
    class: OpClass,
    reads: &[RegAccess],
    writes: &[RegAccess],
) {
    c.observe(&InstRecord {
        warp,
        class,
        active: u32::MAX,
        exec: u32::MAX,
        reads,
        source_operands: reads.len() as u8,
        writes,
    });
}

/// The stream of warp `w` used by several tests:
///
/// ```text
/// i0  write r1            value A
/// i1  read  r1            A: gap 1 (first read)
/// i2  -                   (no register operand: still moves the window)
/// i3  read  r1            A: gap 2
/// i4  write r1            value B (A ends: 2 reads, first gap 1, largest gap 2)
/// i5..i8  -
/// i9  read  r1, r2        B: gap 5; r2 never written (an unwritten read, no prior access)
/// i10 read r2, write r2   r2: gap 1 (bypassable in every window), still unwritten; value C
/// end                     B ends (1 read, gap 5), C ends (never read)
/// ```
fn stream(c: &mut Characterizer, w: u32) {
    let int = OpClass::Int;
    inst(c, w, int, &[], &[acc(1, 1)]);
    inst(c, w, int, &[acc(1, 1)], &[]);
    inst(c, w, OpClass::Control, &[], &[]);
    inst(c, w, int, &[acc(1, 1)], &[]);
    inst(c, w, int, &[], &[acc(1, 4)]);
    for _ in 5..9 {
        inst(c, w, OpClass::Control, &[], &[]);
    }
    inst(c, w, OpClass::Fp32, &[acc(1, 4), acc(2, 1)], &[]);
    inst(c, w, int, &[acc(2, 1)], &[acc(2, 2)]);
}

#[test]
fn values_are_counted_by_their_reads_when_they_end() {
    let mut c = Characterizer::new();
    stream(&mut c, 0);
    c.warp_done(0);
    let r = c.report();
    // A: 2 reads; B: 1 read; C: none.
    assert_eq!(r.values.by_reads, [1, 1, 1, 0]);
    // r2 at i9, and again at i10 (read before i10's own write).
    assert_eq!(r.values.unwritten_reads, 2);
    assert_eq!(r.warp_insts, 11);
}

/// A `bar.red` destination written when its barrier releases is a write of the warp's
/// `bar.red`:
///
/// ```text
/// warp 0: i0 bar.red (arrives)                    warp 1: i0 bar.red (releases): r3 of
///         i1 read r3   value of the release: gap 1          warp 0 written, 1 byte
/// ```
#[test]
fn a_late_write_is_a_write_of_the_warp_s_last_instruction() {
    let mut c = Characterizer::new();
    inst(&mut c, 0, OpClass::Control, &[], &[]);
    inst(&mut c, 1, OpClass::Control, &[], &[]);
    c.late_write(0, OpClass::Control, &acc(3, 1));
    inst(&mut c, 0, OpClass::Int, &[acc(3, 1)], &[]);
    c.warp_done(0);
    c.warp_done(1);
    let r = c.report();
    assert_eq!(r.warp_insts, 3);
    assert_eq!(r.values.by_reads, [0, 1, 0, 0]);
    assert_eq!(r.values.unwritten_reads, 0);
    assert_eq!(r.sources.writes, 1);
    assert_eq!(r.widths.total.writes_all.0, [1, 0, 0, 0]);
    assert_eq!(
        r.widths.by_class[OpClass::Control.index()].writes_all.0,
        [1, 0, 0, 0]
    );
    // Read at distance 1 from the write: bypassable in every window, and transient.
    let reads: Vec<u64> = r.bypass.windows.iter().map(|w| w.bypassed_reads).collect();
    assert_eq!(reads, [1, 1, 1]);
}

#[test]
fn bow_reads_are_bypassable_within_the_window_of_the_last_access() {
    let mut c = Characterizer::new();
    stream(&mut c, 0);
    c.warp_done(0);
    let b = c.report().bypass;
    // Reads and their distance to the register's last access: i1 (1), i3 (2), i9 r1 (5),
    // i9 r2 (none), i10 r2 (1). A window of w bypasses distances below w.
    assert_eq!(b.reads, 5);
    let reads: Vec<u64> = b.windows.iter().map(|w| w.bypassed_reads).collect();
    assert_eq!(reads, [2, 3, 4]);
}

#[test]
fn bow_writes_are_bypassable_when_every_read_stays_in_the_window() {
    let mut c = Characterizer::new();
    stream(&mut c, 0);
    c.warp_done(0);
    let b = c.report().bypass;
    assert_eq!(b.writes, 3);
    // A (gaps 1, 2) is transient from IW 3 on; B (gap 5) from IW 7 on; C is never read.
    let transient: Vec<u64> = b.windows.iter().map(|w| w.transient_writes).collect();
    assert_eq!(transient, [0, 1, 2]);
    // First reads: A at 1 (every window), B at 5 (IW 7).
    let reused: Vec<u64> = b.windows.iter().map(|w| w.reused_writes).collect();
    assert_eq!(reused, [1, 1, 2]);
}

#[test]
fn warps_are_independent_however_they_interleave() {
    let mut alone = Characterizer::new();
    stream(&mut alone, 0);
    alone.warp_done(0);
    stream(&mut alone, 0);
    alone.warp_done(0);
    // The same two streams interleaved instruction by instruction (by replaying them into
    // two characterizers' worth of warps: warp 0 and warp 7 of one characterizer).
    let mut a = Characterizer::new();
    let mut b = Characterizer::new();
    stream(&mut a, 0);
    stream(&mut b, 7);
    let mut mixed = Characterizer::new();
    let int = OpClass::Int;
    let ops: Vec<(Vec<RegAccess>, Vec<RegAccess>, OpClass)> = vec![
        (vec![], vec![acc(1, 1)], int),
        (vec![acc(1, 1)], vec![], int),
        (vec![], vec![], OpClass::Control),
        (vec![acc(1, 1)], vec![], int),
        (vec![], vec![acc(1, 4)], int),
        (vec![], vec![], OpClass::Control),
        (vec![], vec![], OpClass::Control),
        (vec![], vec![], OpClass::Control),
        (vec![], vec![], OpClass::Control),
        (vec![acc(1, 4), acc(2, 1)], vec![], OpClass::Fp32),
        (vec![acc(2, 1)], vec![acc(2, 2)], int),
    ];
    for (reads, writes, class) in &ops {
        inst(&mut mixed, 3, *class, reads, writes);
        inst(&mut mixed, 5, *class, reads, writes);
    }
    mixed.warp_done(5);
    mixed.warp_done(3);
    assert_eq!(mixed.report(), alone.report());
    // A report taken before the warps end counts their live values as ended.
    let mut both = a.report();
    both.merge(&b.report());
    assert_eq!(both, alone.report());
}

#[test]
fn widths_are_counted_per_opcode_class_over_reads_and_writes() {
    let mut c = Characterizer::new();
    stream(&mut c, 0);
    let w = c.report().widths;
    // Reads: i1 1B, i3 1B, i9 4B + 1B, i10 1B; writes: 1B, 4B, 2B.
    assert_eq!(w.total.reads_all.0, [4, 0, 0, 1]);
    assert_eq!(w.total.writes_all.0, [1, 1, 0, 1]);
    let fp = &w.by_class[OpClass::Fp32.index()];
    assert_eq!(fp.reads_all.0, [1, 0, 0, 1]);
    assert_eq!(fp.writes_all.total(), 0);
    let int = &w.by_class[OpClass::Int.index()];
    assert_eq!(int.reads_all.0, [3, 0, 0, 0]);
    // Of 8 accesses: 5 need 1 byte, 6 at most 2, 6 at most 3; 2 need all 4.
    let s = c.report().summary();
    assert_eq!(s.narrow_all, [62.5, 75.0, 75.0]);
    assert_eq!(s.full_width, 25.0);
}

#[test]
fn executing_lanes_are_counted_beside_all_lanes() {
    let mut c = Characterizer::new();
    let wide_inactive = RegAccess {
        reg: 3,
        class_all: 4,
        class_active: 1,
    };
    c.observe(&InstRecord {
        warp: 0,
        class: OpClass::Move,
        active: 0xffff,
        exec: 0xffff,
        reads: &[],
        source_operands: 0,
        writes: &[wide_inactive],
    });
    let s = c.report().summary();
    assert_eq!(s.narrow_all, [0.0, 0.0, 0.0]);
    assert_eq!(s.narrow_active, [100.0, 100.0, 100.0]);
}

#[test]
fn multi_source_instructions_and_their_share_of_reads() {
    let mut c = Characterizer::new();
    stream(&mut c, 0);
    let s = c.report().sources;
    // Only i9 reads two registers (4 B + 1 B: they do not fit one register together).
    assert_eq!(s.reads, 5);
    assert_eq!(s.writes, 3);
    assert_eq!(s.multi_source_insts, 1);
    assert_eq!(s.multi_source_reads, 2);
    assert_eq!(s.packable_insts, 0);
    let summary = c.report().summary();
    assert_eq!(summary.multi_source_insts, 100.0 / 11.0);
    assert_eq!(summary.multi_source_reads, 40.0);
}

#[test]
fn first_fit_packs_narrow_values_and_coalesces_operands_sharing_a_register() {
    let mut c = Characterizer::new();
    let int = OpClass::Int;
    // Placement, first fit: r1 (1 B) phys 0 byte 0; r2 (2 B) phys 0 bytes 1-2; r3 (4 B)
    // phys 1; r4 (2 B): phys 0 has one byte left, phys 1 none: phys 2 bytes 0-1.
    inst(&mut c, 0, int, &[], &[acc(1, 1)]);
    inst(&mut c, 0, int, &[], &[acc(2, 2)]);
    inst(&mut c, 0, int, &[], &[acc(3, 4)]);
    inst(&mut c, 0, int, &[], &[acc(4, 2)]);
    // r1 + r2: same register, coalesced (and packable: 1 + 2 bytes).
    inst(&mut c, 0, int, &[acc(1, 1), acc(2, 2)], &[acc(5, 4)]);
    // r1 + r3: different registers; packable? 1 + 4 > 4: no.
    inst(&mut c, 0, int, &[acc(1, 1), acc(3, 4)], &[]);
    // r1 grows to 3 B: moves. Phys 0 holds bytes 1-2, phys 2 bytes 0-1, phys 1 and 3 (r5)
    // are full: phys 4, bytes 0-2.
    inst(&mut c, 0, int, &[], &[acc(1, 3)]);
    // r1 + r2 no longer share a register; r2 + r4 + r1: no pair does (packable: 2 + 2).
    inst(&mut c, 0, int, &[acc(1, 3), acc(2, 2)], &[]);
    inst(&mut c, 0, int, &[acc(2, 2), acc(4, 2), acc(1, 3)], &[]);
    // r2 shrinks to 1 B: keeps its slices.
    inst(&mut c, 0, int, &[], &[acc(2, 1)]);
    let s = c.report().sources;
    assert_eq!(s.multi_source_insts, 4);
    assert_eq!(s.multi_source_reads, 9);
    assert_eq!(s.packable_insts, 2);
    assert_eq!(s.first_fit_coalesced, 1);
    assert_eq!(s.reallocations, 1);
    let w = c.warps[0].as_ref().unwrap();
    assert_eq!(w.packing.placement(1), Some((4, 0b0111)));
    assert_eq!(w.packing.placement(2), Some((0, 0b0110)));
    assert_eq!(w.packing.placement(4), Some((2, 0b0011)));
    assert_eq!(w.packing.placement(5), Some((3, 0b1111)));
}

#[test]
fn first_fit_reuses_freed_slices() {
    let mut p = packing::FirstFit::default();
    assert_eq!(p.write(0, 2), packing::Placement::Allocated);
    assert_eq!(p.write(1, 2), packing::Placement::Allocated);
    // r0 grows: its bytes 0-1 of phys 0 are freed and it moves to phys 1.
    assert_eq!(p.write(0, 3), packing::Placement::Moved);
    assert_eq!(p.placement(0), Some((1, 0b0111)));
    // A new 1-byte register takes the first free byte: phys 0, byte 0.
    assert_eq!(p.write(2, 1), packing::Placement::Allocated);
    assert_eq!(p.placement(2), Some((0, 0b0001)));
    assert_eq!(p.write(2, 1), packing::Placement::Kept);
    assert!(p.shares_register(1, 2));
    assert!(!p.shares_register(0, 2));
    assert!(!p.shares_register(2, 9));
}

#[test]
fn merging_adds_every_count() {
    let mut a = Characterizer::new();
    stream(&mut a, 0);
    let mut twice = a.report();
    twice.merge(&a.report());
    assert_eq!(twice.warp_insts, 22);
    assert_eq!(twice.values.by_reads, [2, 2, 2, 0]);
    assert_eq!(twice.bypass.windows[1].transient_writes, 2);
    assert_eq!(twice.sources.multi_source_reads, 4);
    // Percentages are unchanged by doubling.
    assert_eq!(twice.summary(), {
        let mut s = a.report().summary();
        s.warp_insts *= 2;
        s
    });
}

#[test]
fn a_64_bit_register_is_two_sources_but_one_operand() {
    let mut c = Characterizer::new();
    // ld r2, [r0:r1]: two 32-bit registers, one operand.
    c.observe(&InstRecord {
        warp: 0,
        class: OpClass::Memory,
        active: 1,
        exec: 1,
        reads: &[acc(0, 4), acc(1, 2)],
        source_operands: 1,
        writes: &[acc(2, 1)],
    });
    // add r3, r2, r4: two operands.
    inst(
        &mut c,
        0,
        OpClass::Int,
        &[acc(2, 1), acc(4, 1)],
        &[acc(3, 1)],
    );
    let s = c.report().sources;
    assert_eq!((s.multi_source_insts, s.multi_source_reads), (2, 4));
    assert_eq!((s.multi_operand_insts, s.multi_operand_reads), (1, 2));
    let summary = c.report().summary();
    assert_eq!(summary.multi_operand_insts, 50.0);
    assert_eq!(summary.multi_operand_reads, 50.0);
}

#[test]
fn scaling_multiplies_every_count() {
    let mut a = Characterizer::new();
    stream(&mut a, 0);
    let r = a.report();
    assert_eq!(r.scaled(1.0), r);
    let mut twice = r.clone();
    twice.merge(&r);
    assert_eq!(r.scaled(2.0), twice);
    assert_eq!(r.scaled(0.5).warp_insts, 6); // 5.5 rounds away from zero
}
