//! Conformance of bit manipulation (popc, clz, bfind, brev, bfe, bfi, prmt, shf, bmsk, fns, lop3,
//! logic operations, shl, shr) with the PTX ISA manual.
//!
//! Expected values are hand-derived from the manual's pseudo-code and tables.

use emulator::alu::eval;
use isa::{Op, PrmtMode, ShiftDir, ShiftMode, Type};

const M32: u64 = 0xffff_ffff;
const M64: u64 = u64::MAX;

/// Runs every case, reporting all mismatches at once.
fn check(cases: &[(Op, &[u64], u64)]) {
    let mut failures = Vec::new();
    for (op, srcs, want) in cases {
        let mut carry = false;
        match eval(op, srcs, &mut carry) {
            Ok([got, _]) if got == *want => {}
            other => failures.push(format!("{op:?} {srcs:x?}: got {other:x?}, want {want:#x}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

use Type::{B16, B32, B64, Pred, S16, S32, S64, U16, U32, U64};

#[test]
fn popc_clz_brev() {
    let popc = |ty| Op::Popc { ty };
    let clz = |ty| Op::Clz { ty };
    let brev = |ty| Op::Brev { ty };
    check(&[
        (popc(B32), &[0], 0),
        (popc(B32), &[M32], 32),
        (popc(B32), &[0x8000_0001], 2),
        (popc(B32), &[0xf_0000_0000], 0),
        (popc(B64), &[M64], 64),
        (popc(B64), &[1 << 63], 1),
        (popc(B64), &[0x0f0f_0f0f_0f0f_0f0f], 32),
        (clz(B32), &[0], 32),
        (clz(B32), &[1], 31),
        (clz(B32), &[0x8000_0000], 0),
        (clz(B32), &[0x0001_0000], 15),
        (clz(B32), &[0x1_0000_0000], 32),
        (clz(B64), &[0], 64),
        (clz(B64), &[1], 63),
        (clz(B64), &[1 << 63], 0),
        (clz(B64), &[0x1_0000_0000], 31),
        (brev(B32), &[1], 0x8000_0000),
        (brev(B32), &[0x1234_5678], 0x1e6a_2c48),
        (brev(B32), &[0x0000_ffff], 0xffff_0000),
        (brev(B64), &[1], 1 << 63),
        (brev(B64), &[0x0123_4567_89ab_cdef], 0xf7b3_d591_e6a2_c480),
    ]);
}

#[test]
fn bfind_finds_the_most_significant_non_sign_bit() {
    let bfind = |ty| Op::Bfind {
        ty,
        shift_amount: false,
    };
    let shiftamt = |ty| Op::Bfind {
        ty,
        shift_amount: true,
    };
    check(&[
        (bfind(U32), &[0], M32),
        (bfind(U32), &[1], 0),
        (bfind(U32), &[0x8000_0000], 31),
        (bfind(U32), &[0x0001_0001], 16),
        (shiftamt(U32), &[0x8000_0000], 0),
        (shiftamt(U32), &[1], 31),
        (shiftamt(U32), &[0], M32),
        (bfind(S32), &[M32], M32),
        (bfind(S32), &[0], M32),
        (bfind(S32), &[0x7fff_ffff], 30),
        (bfind(S32), &[0x8000_0000], 30),
        (bfind(S32), &[0xffff_fffe], 0),
        (bfind(S32), &[0xffff_0000], 15),
        (shiftamt(S32), &[0xffff_fffe], 31),
        (shiftamt(S32), &[M32], M32),
        (bfind(S32), &[1], 0),
        (bfind(U64), &[1 << 40], 40),
        (bfind(U64), &[M64], 63),
        (bfind(S64), &[M64], M32),
        (shiftamt(S64), &[1], 63),
        (bfind(S64), &[1 << 63], 62),
        (shiftamt(U64), &[1 << 40], 23),
    ]);
}

#[test]
fn bfe_extracts_with_sign_and_range_rules() {
    let bfe = |ty| Op::Bfe { ty };
    check(&[
        (bfe(U32), &[0x1234_5678, 4, 8], 0x67),
        (bfe(U32), &[0x1234_5678, 28, 8], 0x1),
        (bfe(U32), &[0x1234_5678, 4, 0], 0),
        (bfe(U32), &[0x1234_5678, 32, 8], 0),
        (bfe(U32), &[0x1234_5678, 0, 32], 0x1234_5678),
        (bfe(U32), &[0x1234_5678, 0, 255], 0x1234_5678),
        (bfe(U32), &[0x1234_5678, 0x12c, 8], 0), // pos & 0xff = 44
        (bfe(U32), &[0x1234_5678, 0x104, 0x108], 0x67), // pos 4, len 8
        (bfe(U32), &[0xffff_ffff, 31, 1], 1),
        (bfe(S32), &[0x1234_5678, 4, 8], 0x67),
        (bfe(S32), &[0x0000_00f0, 4, 4], M32),
        (bfe(S32), &[0x0000_0070, 4, 4], 7),
        (bfe(S32), &[0x0000_00f0, 4, 0], 0),
        (bfe(S32), &[0x8000_0000, 40, 4], M32),
        (bfe(S32), &[0x7fff_ffff, 40, 4], 0),
        (bfe(S32), &[0x8000_0000, 28, 8], 0xffff_fff8),
        (bfe(S32), &[0x8000_0000, 31, 1], M32),
        (bfe(S32), &[0x4000_0000, 30, 2], 1),
        (bfe(S32), &[0x8000_0000, 0, 32], 0x8000_0000),
        (bfe(U64), &[0xff00_0000_0000_0000, 56, 8], 0xff),
        (bfe(S64), &[0xff00_0000_0000_0000, 56, 8], M64),
        (bfe(S64), &[0xff00_0000_0000_0000, 60, 8], M64),
        (bfe(U64), &[0xff00_0000_0000_0000, 60, 8], 0xf),
        (bfe(S64), &[0x0000_0000_8000_0000, 28, 4], M64 - 7),
        (bfe(U64), &[M64, 0, 64], M64),
        (bfe(S64), &[0x7f00_0000_0000_0000, 70, 3], 0),
    ]);
}

#[test]
fn bfi_inserts_and_clips_at_the_msb() {
    let bfi = |ty| Op::Bfi { ty };
    check(&[
        (bfi(B32), &[0xff, 0, 8, 4], 0xf00),
        (bfi(B32), &[0xff, 0x1234_5678, 8, 0], 0x1234_5678),
        (bfi(B32), &[0xff, 0x1234_5678, 32, 8], 0x1234_5678),
        (bfi(B32), &[0xff, 0x1234_5678, 0x120, 8], 0x1234_5678), // pos & 0xff = 32
        (bfi(B32), &[0xff, 0, 30, 8], 0xc000_0000),
        (bfi(B32), &[0x1234_5678, 0xdead_beef, 0, 32], 0x1234_5678),
        (bfi(B32), &[0x1234_5678, 0xdead_beef, 0, 255], 0x1234_5678),
        (bfi(B32), &[0, M32, 4, 8], 0xffff_f00f),
        (bfi(B32), &[0xabc, M32, 0, 0x104], 0xffff_fffc), // len & 0xff = 4
        (bfi(B64), &[0xff, M64, 60, 8], M64),
        (bfi(B64), &[0, M64, 60, 8], 0x0fff_ffff_ffff_ffff),
        (bfi(B64), &[0x1, 0, 63, 1], 1 << 63),
        (bfi(B64), &[M64, 0, 32, 16], 0x0000_ffff_0000_0000),
        (bfi(B64), &[M64, 0, 64, 16], 0),
    ]);
}

#[test]
fn prmt_generic_mode_with_sign_replication() {
    let prmt = Op::Prmt { mode: None };
    let (a, b) = (0x3322_1100, 0x7766_5544);
    // Bytes of {b, a} with sign bits in interesting places: b0=80 b1=00 b2=ff b3=80 | b4..b7.
    let (sa, sb) = (0x80ff_0080, 0x7f01_0203);
    check(&[
        (prmt.clone(), &[a, b, 0x3210], 0x3322_1100),
        (prmt.clone(), &[a, b, 0x7654], 0x7766_5544),
        (prmt.clone(), &[a, b, 0x0123], 0x0011_2233),
        (prmt.clone(), &[a, b, 0x4444], 0x4444_4444),
        (prmt.clone(), &[a, b, 0x5140], 0x5511_4400),
        (prmt.clone(), &[a, b, 0xffff_3210], 0x3322_1100), // only 16 selector bits
        (prmt.clone(), &[a, b, 0xfedc], 0),                // b4..b7 < 0x80: sign 0
        (prmt.clone(), &[sa, sb, 0x8888], M32),
        (prmt.clone(), &[sa, sb, 0x9999], 0),
        (prmt.clone(), &[sa, sb, 0x0b0a], 0x80ff_80ff),
        (prmt.clone(), &[sa, sb, 0x3210], 0x80ff_0080),
        (prmt.clone(), &[sa, sb, 0xfa98], 0x00ff_00ff),
        (prmt.clone(), &[sa, sb, 0x7654], 0x7f01_0203),
    ]);
}

#[test]
fn prmt_special_modes_follow_the_manuals_table() {
    let (a, b) = (0x3322_1100, 0x7766_5544); // source byte i holds 0x11 * i
    let m = |mode| Op::Prmt { mode: Some(mode) };
    use PrmtMode::*;
    check(&[
        (m(F4e), &[a, b, 0], 0x3322_1100),
        (m(F4e), &[a, b, 1], 0x4433_2211),
        (m(F4e), &[a, b, 2], 0x5544_3322),
        (m(F4e), &[a, b, 3], 0x6655_4433),
        (m(F4e), &[a, b, 7], 0x6655_4433), // only c & 3 counts
        (m(B4e), &[a, b, 0], 0x5566_7700),
        (m(B4e), &[a, b, 1], 0x6677_0011),
        (m(B4e), &[a, b, 2], 0x7700_1122),
        (m(B4e), &[a, b, 3], 0x0011_2233),
        (m(Rc8), &[a, b, 0], 0),
        (m(Rc8), &[a, b, 1], 0x1111_1111),
        (m(Rc8), &[a, b, 2], 0x2222_2222),
        (m(Rc8), &[a, b, 3], 0x3333_3333),
        (m(Ecl), &[a, b, 0], 0x3322_1100),
        (m(Ecl), &[a, b, 1], 0x3322_1111),
        (m(Ecl), &[a, b, 2], 0x3322_2222),
        (m(Ecl), &[a, b, 3], 0x3333_3333),
        (m(Ecr), &[a, b, 0], 0),
        (m(Ecr), &[a, b, 1], 0x1111_1100),
        (m(Ecr), &[a, b, 2], 0x2222_1100),
        (m(Ecr), &[a, b, 3], 0x3322_1100),
        (m(Rc16), &[a, b, 0], 0x1100_1100),
        (m(Rc16), &[a, b, 1], 0x3322_3322),
        (m(Rc16), &[a, b, 2], 0x1100_1100),
        (m(Rc16), &[a, b, 3], 0x3322_3322),
        (m(Rc8), &[0x8080_8080, 0, 0], 0x8080_8080), // no sign replication in modes
    ]);
}

#[test]
fn shf_clamps_or_wraps_the_funnel_shift() {
    let shf = |dir, mode| Op::Shf { dir, mode };
    use ShiftDir::{Left, Right};
    use ShiftMode::{Clamp, Wrap};
    let (a, b) = (0x89ab_cdef, 0x0123_4567); // {b, a} = 0x0123456789abcdef
    check(&[
        (shf(Left, Clamp), &[a, b, 4], 0x1234_5678),
        (shf(Left, Clamp), &[a, b, 0], b),
        (shf(Left, Clamp), &[a, b, 32], a),
        (shf(Left, Clamp), &[a, b, 40], a),
        (shf(Left, Clamp), &[a, b, M32], a),
        (shf(Left, Wrap), &[a, b, 36], 0x1234_5678),
        (shf(Left, Wrap), &[a, b, 32], b),
        (
            shf(Left, Wrap),
            &[a, b, 31],
            0x89ab_cdef_u64 >> 1 | 0x8000_0000,
        ),
        (shf(Right, Clamp), &[a, b, 4], 0x789a_bcde),
        (shf(Right, Clamp), &[a, b, 0], a),
        (shf(Right, Clamp), &[a, b, 32], b),
        (shf(Right, Clamp), &[a, b, 100], b),
        (shf(Right, Wrap), &[a, b, 36], 0x789a_bcde),
        (shf(Right, Wrap), &[a, b, 32], a),
        (shf(Right, Wrap), &[a, b, 31], 0x0246_8acf),
    ]);
}

#[test]
fn bmsk_follows_the_manuals_pseudo_code() {
    let bmsk = |mode| Op::Bmsk { mode };
    use ShiftMode::{Clamp, Wrap};
    check(&[
        (bmsk(Wrap), &[1, 2], 0x6),
        (bmsk(Clamp), &[1, 2], 0x6),
        (bmsk(Clamp), &[0, 32], M32),
        (bmsk(Clamp), &[0, 0], 0),
        (bmsk(Wrap), &[0, 0], 0),
        (bmsk(Clamp), &[32, 5], 0),
        (bmsk(Wrap), &[32, 5], 0x1f),
        (bmsk(Clamp), &[4, 28], 0xffff_fff0),
        (bmsk(Clamp), &[4, 30], 0xffff_fff0),
        (bmsk(Wrap), &[4, 30], 0xffff_fff0),
        (bmsk(Wrap), &[4, 33], 0x10),
        (bmsk(Clamp), &[4, 33], 0xffff_fff0),
        (bmsk(Wrap), &[0, 32], 0),
        (bmsk(Clamp), &[31, 1], 0x8000_0000),
        (bmsk(Clamp), &[0, 31], 0x7fff_ffff),
        (bmsk(Wrap), &[8, 8], 0xff00),
    ]);
}

/// `fns`: the manual's four examples, then cases worked by hand from its pseudo-code.
#[test]
fn fns_follows_the_manuals_pseudo_code() {
    let neg = |n: i64| n as u64 & M32;
    check(&[
        (Op::Fns, &[0xaaaa_aaaa, 3, 1], 3),
        (Op::Fns, &[0xaaaa_aaaa, 3, neg(-1)], 3),
        (Op::Fns, &[0xaaaa_aaaa, 2, 1], 3),
        (Op::Fns, &[0xaaaa_aaaa, 2, neg(-1)], 1),
        // Offset 0: bit `base` itself, or not found.
        (Op::Fns, &[0xaaaa_aaaa, 3, 0], 3),
        (Op::Fns, &[0xaaaa_aaaa, 2, 0], M32),
        // The third set bit from bit 4 of 0b1011_0110_0000 (bits 5, 6, 8, 9, 11): bit 8.
        (Op::Fns, &[0xb60, 4, 3], 8),
        // The second set bit downwards from bit 10: bits 9, then 8.
        (Op::Fns, &[0xb60, 10, neg(-2)], 8),
        // Past the last set bit, either way.
        (Op::Fns, &[0xb60, 4, 6], M32),
        (Op::Fns, &[0xb60, 10, neg(-5)], M32),
        (Op::Fns, &[0, 0, 1], M32),
        (Op::Fns, &[M32, 31, 1], 31),
        (Op::Fns, &[M32, 0, neg(-1)], 0),
        (Op::Fns, &[M32, 0, 32], 31),
        // Base above 31: undefined in the manual; the search finds nothing.
        (Op::Fns, &[M32, 32, 1], M32),
    ]);
}

/// `lop3` with the manual's four worked look-up tables, each checked against the function it
/// encodes written out in Rust, on operands with every combination of bits; and the
/// `.BoolOp` form's predicate, `(d != 0) BoolOp q`.
#[test]
fn lop3_applies_the_look_up_table_bitwise() {
    let (a, b, c) = (0xf0f0_ff00u64, 0xcccc_f0f0, 0xaaaa_cccc);
    let not = |x: u64| !x & M32;
    let plain = Op::Lop3 { combine: None };
    check(&[
        (plain.clone(), &[a, b, c, 0x80], a & b & c),
        (plain.clone(), &[a, b, c, 0xfe], a | b | c),
        (plain.clone(), &[a, b, c, 0x40], a & b & not(c)),
        (plain.clone(), &[a, b, c, 0x1a], (a & b | c) ^ a),
        // The three constants themselves select each operand.
        (plain.clone(), &[a, b, c, 0xf0], a),
        (plain.clone(), &[a, b, c, 0xcc], b),
        (plain.clone(), &[a, b, c, 0xaa], c),
        (plain.clone(), &[a, b, c, 0xff], M32),
        (plain, &[a, b, c, 0], 0),
    ]);
    use isa::BoolOp::{And, Or};
    let combined = |op| Op::Lop3 { combine: Some(op) };
    for (op, srcs, d, p) in [
        (And, [a, b, c, 0x80, 1], a & b & c, 1),
        (And, [a, b, c, 0x80, 0], a & b & c, 0),
        (And, [a, b, c, 0, 1], 0, 0),
        (Or, [a, b, c, 0, 1], 0, 1),
        (Or, [a, b, c, 0, 0], 0, 0),
        (Or, [a, b, c, 0xfe, 0], a | b | c, 1),
    ] {
        let got = eval(&combined(op), &srcs, &mut false).unwrap();
        assert_eq!(got, [d, p], "{op:?} {srcs:x?}");
    }
}

/// Values from the manual's pseudo-code for `szext`, worked by hand.
#[test]
fn szext_follows_the_manuals_pseudo_code() {
    let szext = |mode, signed| Op::Szext { mode, signed };
    use ShiftMode::{Clamp, Wrap};
    check(&[
        (szext(Wrap, true), &[0xff, 8], M32),
        (szext(Wrap, false), &[0xff, 8], 0xff),
        (szext(Clamp, true), &[0x80, 8], 0xffff_ff80),
        (szext(Clamp, true), &[0x7f, 8], 0x7f),
        (szext(Wrap, false), &[M32, 0], 0), // the manual's example
        (szext(Wrap, true), &[M32, 0], 0),
        (szext(Clamp, true), &[0xffff_0000, 32], 0xffff_0000),
        (szext(Clamp, false), &[0x1234_5678, 100], 0x1234_5678),
        (szext(Wrap, true), &[0x180, 40], 0xffff_ff80), // N = 40 mod 32 = 8
        (szext(Wrap, true), &[1, 1], M32),
        (szext(Wrap, false), &[0xdead_beef, 16], 0xbeef),
        (szext(Wrap, true), &[0xdead_beef, 16], 0xffff_beef),
        (szext(Wrap, true), &[0x7fff_ffff, 31], 0xffff_ffff),
    ]);
}

#[test]
fn logic_on_bits_and_predicates() {
    let and = |ty| Op::And { ty };
    let or = |ty| Op::Or { ty };
    let xor = |ty| Op::Xor { ty };
    let not = |ty| Op::Not { ty };
    let cnot = |ty| Op::CNot { ty };
    check(&[
        (and(B32), &[0xf0f0, 0xff00], 0xf000),
        (or(B32), &[0xf0f0, 0xff00], 0xfff0),
        (xor(B32), &[0xf0f0, 0xff00], 0x0ff0),
        (and(B16), &[0x1_ffff, 0xffff], 0xffff),
        (xor(B64), &[M64, 0x0f], M64 - 0xf),
        (not(B16), &[0], 0xffff),
        (not(B32), &[0], M32),
        (not(B64), &[0x0f], M64 - 0xf),
        (not(Pred), &[0], 1),
        (not(Pred), &[1], 0),
        (and(Pred), &[1, 1], 1),
        (and(Pred), &[1, 0], 0),
        (or(Pred), &[0, 1], 1),
        (or(Pred), &[0, 0], 0),
        (xor(Pred), &[1, 1], 0),
        (xor(Pred), &[1, 0], 1),
        (cnot(B32), &[0], 1),
        (cnot(B32), &[5], 0),
        (cnot(B16), &[0x1_0000], 1),
        (cnot(B64), &[0], 1),
        (cnot(B64), &[1 << 63], 0),
        (Op::Mov { ty: B16 }, &[0x1_2345], 0x2345),
        (Op::Mov { ty: U32 }, &[0xffff_ffff_ffff_fff0], 0xffff_fff0),
        (Op::Mov { ty: Pred }, &[1], 1),
        (Op::Mov { ty: B64 }, &[M64], M64),
    ]);
}

#[test]
fn shifts_at_and_past_the_width() {
    let shl = |ty| Op::Shl { ty };
    let shr = |ty| Op::Shr { ty };
    check(&[
        (shl(B32), &[1, 31], 0x8000_0000),
        (shl(B32), &[1, 32], 0),
        (shl(B32), &[1, M32], 0),
        (shl(B32), &[M32, 4], 0xffff_fff0),
        (shl(B16), &[1, 15], 0x8000),
        (shl(B16), &[1, 16], 0),
        (shl(B64), &[1, 63], 1 << 63),
        (shl(B64), &[1, 64], 0),
        (shr(U32), &[0x8000_0000, 31], 1),
        (shr(U32), &[0x8000_0000, 32], 0),
        (shr(B32), &[0x8000_0000, 1], 0x4000_0000),
        (shr(S32), &[0x8000_0000, 1], 0xc000_0000),
        (shr(S32), &[0x8000_0000, 31], M32),
        (shr(S32), &[0x8000_0000, 32], M32),
        (shr(S32), &[0x8000_0000, 1000], M32),
        (shr(S32), &[0x7fff_ffff, 40], 0),
        (shr(S32), &[0x7fff_ffff, 30], 1),
        (shr(S16), &[0x8000, 15], 0xffff),
        (shr(S16), &[0x8000, 16], 0xffff),
        (shr(S16), &[0xffff_0001, 0], 1),
        (shr(U16), &[0x8000, 16], 0),
        (shr(B16), &[0x8000, 15], 1),
        (shr(S64), &[1 << 63, 64], M64),
        (shr(S64), &[1 << 63, 63], M64),
        (shr(U64), &[1 << 63, 63], 1),
        (shr(U64), &[1 << 63, 64], 0),
        (shr(B64), &[M64, 60], 0xf),
    ]);
}
