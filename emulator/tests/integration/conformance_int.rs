//! Conformance of integer arithmetic (add, sub, mul, mad, mul24, mad24, div, rem, abs, neg, min,
//! max, sad, carry chains) with the PTX ISA manual.
//!
//! Expected values are hand-derived bit patterns or computed here with Rust's own integer
//! operations (`wrapping_*`, `i128` products), never with warpsim's code.

use emulator::alu::eval;
use isa::{CarryOp, MulMode, Op, Type};

const M32: u64 = 0xffff_ffff;
const M64: u64 = u64::MAX;
/// An s32/s64 immediate `-n` as the front end encodes it (sign-extended to 64 bits).
const fn neg(n: u64) -> u64 {
    n.wrapping_neg()
}

/// Runs every case, reporting all mismatches at once; returns the number of cases.
fn check(cases: &[(Op, &[u64], u64)]) -> usize {
    let mut failures = Vec::new();
    for (op, srcs, want) in cases {
        let mut carry = false;
        match eval(op, srcs, &mut carry) {
            Ok([got, _]) if got == *want => {}
            other => failures.push(format!("{op:?} {srcs:x?}: got {other:x?}, want {want:#x}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cases.len()
}

fn add(ty: Type) -> Op {
    Op::IAdd { ty, sat: false }
}
fn add_sat() -> Op {
    Op::IAdd {
        ty: Type::S32,
        sat: true,
    }
}
fn sub(ty: Type) -> Op {
    Op::ISub { ty, sat: false }
}
fn sub_sat() -> Op {
    Op::ISub {
        ty: Type::S32,
        sat: true,
    }
}
fn mul(ty: Type, mode: MulMode) -> Op {
    Op::IMul { ty, mode }
}
fn mad(ty: Type, mode: MulMode) -> Op {
    Op::IMad {
        ty,
        mode,
        sat: false,
    }
}

use MulMode::{Hi, Lo, Wide};
use Type::{S16, S32, S64, U16, U32, U64};

#[test]
fn add_and_sub_wrap_or_saturate() {
    check(&[
        (add(U16), &[0xffff, 1], 0),
        (add(U16), &[0x7fff, 1], 0x8000),
        (add(S16), &[neg(1), 1], 0),
        (add(S16), &[0x7fff, 1], 0x8000),
        (add(U32), &[M32, 1], 0),
        (add(U32), &[123, 456], 579),
        (add(U32), &[0x1_0000_0001, 1], 2), // a wider register's high bits are ignored
        (add(S32), &[0x7fff_ffff, 1], 0x8000_0000),
        (add(S32), &[neg(5), 3], 0xffff_fffe),
        (add(S32), &[neg(1), 2], 1),
        (add(U64), &[M64, 1], 0),
        (add(S64), &[i64::MAX as u64, 1], 1 << 63),
        (add_sat(), &[0x7fff_ffff, 1], 0x7fff_ffff),
        (add_sat(), &[0x7fff_fff0, 0x10], 0x7fff_ffff),
        (add_sat(), &[0x7fff_fff0, 0xf], 0x7fff_ffff),
        (add_sat(), &[0x7fff_fff0, 0xe], 0x7fff_fffe),
        (add_sat(), &[0x8000_0000, neg(1)], 0x8000_0000),
        (add_sat(), &[0x8000_0000, 0x8000_0000], 0x8000_0000),
        (add_sat(), &[neg(5), 3], 0xffff_fffe),
        (add_sat(), &[0x7fff_ffff, 0x8000_0000], M32),
        (sub(U32), &[0, 1], M32),
        (sub(U32), &[5, 3], 2),
        (sub(S32), &[5, 7], 0xffff_fffe),
        (sub(S32), &[0x8000_0000, 1], 0x7fff_ffff),
        (sub(U16), &[0, 1], 0xffff),
        (sub(S16), &[0x8000, 1], 0x7fff),
        (sub(S64), &[0, 1], M64),
        (sub(U64), &[1 << 63, 1], i64::MAX as u64),
        (sub_sat(), &[0x8000_0000, 1], 0x8000_0000),
        (sub_sat(), &[0x7fff_ffff, neg(1)], 0x7fff_ffff),
        (sub_sat(), &[0, 0x8000_0000], 0x7fff_ffff),
        (sub_sat(), &[neg(1), 0x7fff_ffff], 0x8000_0000),
        (sub_sat(), &[neg(2), 0x7fff_ffff], 0x8000_0000),
        (sub_sat(), &[5, 7], 0xffff_fffe),
    ]);
}

/// The 2N-bit product of `a` and `b` read as `ty`, computed independently.
fn product(ty: Type, a: u64, b: u64) -> u128 {
    let n = match ty {
        U16 | S16 => 16,
        U32 | S32 => 32,
        _ => 64,
    };
    if matches!(ty, S16 | S32 | S64) {
        let sx = |v: u64| ((v << (64 - n)) as i64 >> (64 - n)) as i128;
        (sx(a) * sx(b)) as u128
    } else {
        let m = if n == 64 { M64 } else { (1 << n) - 1 };
        (a & m) as u128 * (b & m) as u128
    }
}

#[test]
fn mul_lo_hi_wide() {
    check(&[
        (mul(U32, Lo), &[M32, M32], 1),
        (mul(U32, Lo), &[0x1_0000, 0x1_0000], 0),
        (mul(U32, Hi), &[M32, M32], 0xffff_fffe),
        (mul(U32, Hi), &[0x1_0000, 0x1_0000], 1),
        (mul(S32, Lo), &[neg(2), 3], 0xffff_fffa),
        (mul(S32, Hi), &[neg(1), neg(1)], 0),
        (mul(S32, Hi), &[0x8000_0000, 0x8000_0000], 0x4000_0000),
        (mul(S32, Hi), &[neg(2), 3], M32),
        (mul(S32, Hi), &[0x7fff_ffff, 0x7fff_ffff], 0x3fff_ffff),
        (mul(S32, Wide), &[neg(2), 3], 0xffff_ffff_ffff_fffa),
        (mul(S32, Wide), &[0x8000_0000, 0x8000_0000], 1 << 62),
        (
            mul(S32, Wide),
            &[0x8000_0000, 0x7fff_ffff],
            0xc000_0000_8000_0000,
        ),
        (mul(U32, Wide), &[M32, M32], 0xffff_fffe_0000_0001),
        (mul(U32, Wide), &[0x8000_0000, 2], 1 << 32),
        (mul(U16, Wide), &[0xffff, 0xffff], 0xfffe_0001),
        (mul(S16, Wide), &[0x8000, 0x8000], 0x4000_0000),
        (mul(S16, Wide), &[neg(1), 0x7fff], 0xffff_8001),
        (mul(S16, Lo), &[0x100, 0x100], 0),
        (mul(U16, Hi), &[0xffff, 0xffff], 0xfffe),
        (mul(S16, Hi), &[neg(1), 1], 0xffff),
        (mul(U64, Lo), &[M64, 3], M64.wrapping_mul(3)),
        (mul(U64, Hi), &[M64, M64], 0xffff_ffff_ffff_fffe),
        (mul(S64, Hi), &[1 << 63, 1 << 63], 1 << 62),
        (mul(S64, Hi), &[neg(1), 5], M64),
        (mul(S64, Lo), &[neg(1), 5], neg(5)),
        (
            mul(U64, Hi),
            &[0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210],
            (product(U64, 0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210) >> 64) as u64,
        ),
        (
            mul(S64, Hi),
            &[0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210],
            (product(S64, 0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210) >> 64) as u64,
        ),
        (
            mul(S32, Hi),
            &[0x89ab_cdef, 0x7654_3210],
            (product(S32, 0x89ab_cdef, 0x7654_3210) >> 32) as u64 & M32,
        ),
    ]);
}

#[test]
fn mad_lo_hi_wide_and_sat() {
    let hi_sat = Op::IMad {
        ty: S32,
        mode: Hi,
        sat: true,
    };
    check(&[
        (mad(S32, Lo), &[3, 4, 5], 17),
        (mad(S32, Lo), &[neg(3), 4, 5], neg(7) & M32),
        (mad(U32, Lo), &[M32, 2, 3], 1),
        (mad(U32, Hi), &[M32, M32, 2], 0),
        (mad(U32, Hi), &[M32, M32, 1], M32),
        (
            mad(S32, Hi),
            &[0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff],
            0xbfff_fffe,
        ),
        (
            hi_sat.clone(),
            &[0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff],
            0x7fff_ffff,
        ),
        (hi_sat.clone(), &[0x7fff_ffff, 0x7fff_ffff, 1], 0x4000_0000),
        (
            hi_sat.clone(),
            &[0x8000_0000, 0x7fff_ffff, 0x8000_0000],
            0x8000_0000,
        ),
        (hi_sat.clone(), &[neg(1), neg(1), neg(1)], M32),
        (hi_sat.clone(), &[neg(1), 1, 0x8000_0000], 0x8000_0000),
        (mad(S32, Wide), &[neg(2), 3, neg(10)], neg(16)),
        (mad(U32, Wide), &[M32, M32, M64], 0xffff_fffe_0000_0000),
        (mad(U16, Wide), &[0xffff, 0xffff, 0xffff], 0xffff_0000),
        (mad(S16, Wide), &[0x8000, 0x8000, 0xffff_ffff], 0x3fff_ffff),
        (mad(U16, Lo), &[0xff, 0xff, 1], 0xfe02),
        (mad(S64, Lo), &[neg(1), neg(1), neg(1)], 0),
        (mad(U64, Hi), &[M64, M64, 2], 0),
    ]);
}

#[test]
fn mul24_and_mad24_use_24_bit_operands() {
    let mul24 = |ty, hi| Op::Mul24 { ty, hi };
    let mad24 = |ty, hi, sat| Op::Mad24 { ty, hi, sat };
    check(&[
        (mul24(U32, false), &[0xff_ffff, 0xff_ffff], 0xfe00_0001),
        (mul24(U32, true), &[0xff_ffff, 0xff_ffff], 0xffff_fe00),
        (mul24(U32, false), &[0xff00_0002, 3], 6),
        (mul24(U32, true), &[0x1_0000, 0x1_0000], 0x1_0000),
        (mul24(S32, false), &[0x80_0000, 2], 0xff00_0000),
        (mul24(S32, true), &[0x80_0000, 2], 0xffff_ff00),
        (mul24(S32, false), &[0xff_ffff, 0xff_ffff], 1),
        (mul24(S32, true), &[0xff_ffff, 0xff_ffff], 0),
        (mul24(S32, true), &[0x80_0000, 0x80_0000], 0x4000_0000),
        (mul24(S32, false), &[0x7f_ffff, 0x7f_ffff], 0xff00_0001),
        (
            mad24(U32, false, false),
            &[0xff_ffff, 0xff_ffff, 1],
            0xfe00_0002,
        ),
        (mad24(U32, true, false), &[0xff_ffff, 0xff_ffff, 0x200], 0),
        (
            mad24(S32, true, false),
            &[0x80_0000, 0x80_0000, 0x4000_0000],
            0x8000_0000,
        ),
        (
            mad24(S32, true, true),
            &[0x80_0000, 0x80_0000, 0x4000_0000],
            0x7fff_ffff,
        ),
        (
            mad24(S32, true, true),
            &[neg(1), neg(1), 0x7fff_ffff],
            0x7fff_ffff,
        ),
        (
            mad24(S32, true, true),
            &[0x80_0000, 0x7f_ffff, 0x8000_0000],
            0x8000_0000,
        ),
        (mad24(S32, false, false), &[3, neg(2), 1], neg(5) & M32),
    ]);
}

#[test]
fn div_and_rem_including_unspecified_cases() {
    let div = |ty| Op::IDiv { ty };
    let rem = |ty| Op::IRem { ty };
    check(&[
        (div(U32), &[7, 2], 3),
        (div(U32), &[M32, 1], M32),
        (div(U32), &[M32, 0x1_0000], 0xffff),
        (div(U32), &[5, 0], M32),
        (div(U32), &[0, 0], M32),
        (div(S32), &[neg(7), 2], neg(3) & M32),
        (div(S32), &[7, neg(2)], neg(3) & M32),
        (div(S32), &[neg(7), neg(2)], 3),
        (div(S32), &[0x8000_0000, neg(1)], 0x8000_0000),
        (div(S32), &[0x8000_0000, 1], 0x8000_0000),
        (div(S32), &[5, 0], M32),
        (div(S32), &[neg(5), 0], M32),
        (div(U16), &[9, 0], 0xffff),
        (div(S16), &[neg(7), 2], 0xfffd),
        (div(S16), &[0x8000, neg(1)], 0x8000),
        (div(U64), &[9, 0], M64),
        (div(U64), &[M64, 2], i64::MAX as u64),
        (div(S64), &[1 << 63, neg(1)], 1 << 63),
        (div(S64), &[neg(9), 4], neg(2)),
        (rem(U32), &[7, 2], 1),
        (rem(U32), &[7, 0], 7),
        (rem(U32), &[M32, 0x10], 0xf),
        (rem(S32), &[neg(7), 2], M32),
        (rem(S32), &[7, neg(2)], 1),
        (rem(S32), &[0x8000_0000, neg(1)], 0),
        (rem(S32), &[neg(5), 0], neg(5) & M32),
        (rem(S16), &[neg(7), 3], 0xffff),
        (rem(U16), &[0xffff, 0], 0xffff),
        (rem(U64), &[M64, 0], M64),
        (rem(S64), &[1 << 63, neg(1)], 0),
        (rem(S64), &[neg(9), 4], neg(1)),
    ]);
}

#[test]
fn abs_neg_min_max_sad() {
    let abs = |ty| Op::IAbs { ty };
    let ineg = |ty| Op::INeg { ty };
    let min = |ty| Op::IMin { ty };
    let max = |ty| Op::IMax { ty };
    let sad = |ty| Op::Sad { ty };
    check(&[
        (abs(S32), &[neg(5)], 5),
        (abs(S32), &[0x8000_0000], 0x8000_0000),
        (abs(S32), &[0], 0),
        (abs(S32), &[7], 7),
        (abs(S16), &[0x8000], 0x8000),
        (abs(S16), &[0xffff], 1),
        (abs(S64), &[1 << 63], 1 << 63),
        (abs(S64), &[neg(1)], 1),
        (ineg(S32), &[5], neg(5) & M32),
        (ineg(S32), &[0x8000_0000], 0x8000_0000),
        (ineg(S32), &[0], 0),
        (ineg(S16), &[1], 0xffff),
        (ineg(S64), &[1], M64),
        (ineg(S64), &[1 << 63], 1 << 63),
        (min(S32), &[neg(1), 1], M32),
        (max(S32), &[neg(1), 1], 1),
        (min(U32), &[M32, 1], 1),
        (max(U32), &[M32, 1], M32),
        (min(S16), &[0x8000, 0x7fff], 0x8000),
        (min(U16), &[0x8000, 0x7fff], 0x7fff),
        (max(S16), &[0x8000, 0x7fff], 0x7fff),
        (max(U16), &[0x8000, 0x7fff], 0x8000),
        (min(S64), &[1 << 63, 0], 1 << 63),
        (max(S64), &[1 << 63, 0], 0),
        (min(U64), &[1 << 63, 0], 0),
        (max(U64), &[1 << 63, 0], 1 << 63),
        (sad(U32), &[3, 5, 10], 12),
        (sad(U32), &[5, 3, 10], 12),
        (sad(S32), &[neg(3), 5, 0], 8),
        (sad(U32), &[0, M32, 0], M32),
        (sad(S32), &[0, M32, 0], 1),
        (sad(S32), &[0x8000_0000, 0x7fff_ffff, 1], 0),
        (sad(U16), &[0, 0xffff, 2], 1),
        (sad(S16), &[0, 0xffff, 2], 3),
        (sad(S64), &[neg(10), 10, 1], 21),
    ]);
}

/// Dot products worked by hand from the manual's definitions: each byte (dp2a: each 16-bit
/// half of `a`) signed or not as its operand's type says, the sum wrapping at 32 bits.
#[test]
fn dp4a_and_dp2a_sum_products_of_bytes_and_halves() {
    let dp4a = |a_signed, b_signed| Op::Dp4a { a_signed, b_signed };
    let dp2a = |hi, a_signed, b_signed| Op::Dp2a {
        hi,
        a_signed,
        b_signed,
    };
    check(&[
        (dp4a(false, false), &[0x0102_0304, 0x0101_0101, 10], 20),
        (dp4a(true, true), &[M32, 0x0102_0304, 0], neg(10) & M32),
        // a's top byte -128 (signed) times b's 255 (unsigned), plus 5.
        (
            dp4a(true, false),
            &[0x8000_0000, 0xff00_0000, 5],
            0xffff_8085,
        ),
        // 128 (unsigned) times -1 (signed), plus 5.
        (
            dp4a(false, true),
            &[0x8000_0000, 0xff00_0000, 5],
            0xffff_ff85,
        ),
        // 4 × 255 × 255 = 260,100 plus 2^32 - 1 wraps to 260,099.
        (dp4a(false, false), &[M32, M32, M32], 260_099),
        (dp2a(false, false, false), &[0x0002_0003, 0x0403_0201, 1], 8),
        (dp2a(true, false, false), &[0x0002_0003, 0x0403_0201, 1], 18),
        // -32768 × 127 + (-1) × (-1).
        (
            dp2a(false, true, true),
            &[0xffff_8000, 0x0000_ff7f, 0],
            0xffc0_8001,
        ),
        // -1 × 128 + 1 × 255 (b unsigned, its bytes 2 and 3).
        (dp2a(true, true, false), &[0x0001_ffff, 0xff80_0000, 0], 127),
    ]);
}

/// A carry-chain case: op, sources, CC.CF before, result, CC.CF after.
type CarryCase = (Op, [u64; 3], bool, u64, bool);

fn check_carry(cases: &[CarryCase]) {
    let mut failures = Vec::new();
    for (op, srcs, cf_in, want, cf_want) in cases {
        let mut cf = *cf_in;
        let got = eval(op, srcs, &mut cf);
        if got.map(|d| d[0]) != Ok(*want) || cf != *cf_want {
            failures.push(format!(
                "{op:?} {srcs:x?} cf={cf_in}: got {got:x?} cf={cf}, want {want:#x} cf={cf_want}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn carry(op: CarryOp, ty: Type, carry_in: bool, carry_out: bool) -> Op {
    Op::Carry {
        op,
        ty,
        carry_in,
        carry_out,
    }
}

/// CC.CF is an adder's carry, for subtractions too (`emulator::alu::int::carry` gives the
/// evidence): `sub.cc` is `a + !b + 1`, `subc` is `a + !b + CF`, and CF-out is 1 when nothing
/// was borrowed.
#[test]
fn carry_flag_is_an_adders_carry_for_subtractions_too() {
    use CarryOp::{Add, MadHi, MadLo, Sub};
    let add_cc = carry(Add, U32, false, true);
    let addc = carry(Add, U32, true, false);
    let addc_cc = carry(Add, U32, true, true);
    let sub_cc = carry(Sub, U32, false, true);
    let subc = carry(Sub, U32, true, false);
    let subc_cc = carry(Sub, U32, true, true);
    check_carry(&[
        (add_cc.clone(), [M32, 1, 0], false, 0, true),
        (add_cc.clone(), [1, 2, 0], true, 3, false), // no carry-in for add.cc
        (
            add_cc.clone(),
            [0x8000_0000, 0x8000_0000, 0],
            false,
            0,
            true,
        ),
        (addc.clone(), [1, 2, 0], true, 4, true), // CF read, not written
        (addc.clone(), [1, 2, 0], false, 3, false),
        (addc_cc.clone(), [M32, 0, 0], true, 0, true),
        (addc_cc.clone(), [M32, 0, 0], false, M32, false),
        (addc_cc.clone(), [M32, M32, 0], true, M32, true),
        // sub.cc: a + !b + 1, whatever CF was; CF-out 0 exactly when it borrowed.
        (sub_cc.clone(), [0, 1, 0], false, M32, false),
        (sub_cc.clone(), [5, 3, 0], false, 2, true),
        (sub_cc.clone(), [3, 3, 0], false, 0, true),
        (sub_cc.clone(), [3, 3, 0], true, 0, true),
        // subc: a + !b + CF, so a - b when CF = 1 and a - b - 1 when CF = 0.
        (subc_cc.clone(), [5, 3, 0], true, 2, true),
        (subc_cc.clone(), [5, 3, 0], false, 1, true),
        (subc_cc.clone(), [0, 0, 0], true, 0, true),
        (subc_cc.clone(), [0, 0, 0], false, M32, false),
        (subc_cc.clone(), [3, 4, 0], true, M32, false),
        (subc.clone(), [0, 0, 0], true, 0, true), // CF read, not written
        (subc.clone(), [0, 0, 0], false, M32, false),
        (carry(Add, U64, false, true), [M64, 1, 0], false, 0, true),
        (carry(Add, S64, true, true), [M64, 0, 0], true, 0, true),
        (carry(Sub, U64, false, true), [0, 1, 0], false, M64, false),
        (carry(Sub, S64, true, true), [1, 0, 0], true, 1, true),
        (carry(Sub, S64, true, true), [1, 0, 0], false, 0, true),
        (carry(Add, S32, false, true), [M32, 1, 0], false, 0, true),
        (
            carry(Sub, S32, false, true),
            [neg(1), 1, 0],
            false,
            0xffff_fffe,
            true,
        ),
        (carry(MadLo, U32, false, true), [M32, 2, 3], false, 1, true),
        (carry(MadLo, U32, true, true), [M32, 2, 1], true, 0, true),
        (carry(MadHi, U32, true, true), [M32, M32, 1], true, 0, true),
        (
            carry(MadHi, U32, true, false),
            [M32, M32, 0],
            true,
            M32,
            true,
        ),
        (
            carry(MadHi, S32, false, true),
            [neg(1), neg(1), M32],
            false,
            M32,
            false,
        ),
        (
            carry(MadHi, S32, false, true),
            [neg(1), 1, 1],
            false,
            0,
            true,
        ),
        (
            carry(MadLo, U64, false, true),
            [M64, M64, M64],
            false,
            0,
            true,
        ),
        (
            carry(MadHi, U64, true, true),
            [M64, M64, 1],
            false,
            M64,
            false,
        ),
    ]);
}

/// Runs `chain` in order on one thread's CC.CF (cleared first; each chain below sets it before
/// reading it) and returns the results.
fn run_chain(chain: &[(Op, [u64; 3])]) -> Vec<u64> {
    let mut cf = false;
    chain
        .iter()
        .map(|(op, srcs)| eval(op, srcs, &mut cf).expect("a carry instruction")[0])
        .collect()
}

/// ZLUDA's tests of mixed carry chains (`ptx/src/test/spirv_run/{carry_mixed,subc_cc2,
/// madc_cc2}.ptx`), instruction for instruction, with the outputs its test suite expects of
/// NVIDIA GPUs (`test_ptx!` in `spirv_run/mod.rs`, run by its `_cuda` tests). The borrow
/// reading of the manual gives 2 for the second result of `carry_mixed`, 1 for the third of
/// `subc_cc2` and 1 for the last of `madc_cc2`.
#[test]
fn mixed_carry_chains_compute_what_nvidia_gpus_do() {
    use CarryOp::{Add, MadLo, Sub};
    let sub_cc = carry(Sub, S32, false, true);
    let subc = carry(Sub, S32, true, false);
    let subc_cc = carry(Sub, S32, true, true);
    let addc = carry(Add, S32, true, false);
    // carry_mixed: a borrowing sub.cc, read by subc, then by addc.
    let carry_mixed = [
        (sub_cc.clone(), [0, 1, 0]),
        (subc.clone(), [2, 0, 0]),
        (sub_cc.clone(), [0, 1, 0]),
        (addc.clone(), [1, 0, 0]),
    ];
    let results = run_chain(&carry_mixed);
    assert_eq!([results[1], results[3]], [1, 1], "carry_mixed");
    // subc_cc2: subc.cc whose b + CF overflows, then one that borrows, then one that borrows
    // with CF = 1; each CF written out by subc, the first also by addc.
    let subc_cc2 = [
        (sub_cc.clone(), [0, 1, 0]),
        (subc_cc.clone(), [0, M32, 0]),
        (subc.clone(), [2, 0, 0]),
        (addc.clone(), [0, 0, 0]),
        (sub_cc.clone(), [0, 1, 0]),
        (subc_cc.clone(), [0, 0, 0]),
        (subc.clone(), [2, 0, 0]),
        (sub_cc.clone(), [0, 0, 0]),
        (subc_cc.clone(), [0, 1, 0]),
        (subc.clone(), [2, 0, 0]),
    ];
    let r = run_chain(&subc_cc2);
    assert_eq!(
        [r[1], r[2], r[3], r[5], r[6], r[8], r[9]],
        [0, 1, 0, M32, 1, M32, 1],
        "subc_cc2"
    );
    // madc_cc2: a carry out of madc.lo.cc, written out by madc.lo, addc and subc.
    let madc_cc2 = [
        (carry(MadLo, U32, false, true), [0, 0, M32]),
        (carry(MadLo, U32, true, true), [1, 1, M32]),
        (carry(MadLo, U32, true, false), [0, 0, 0]),
        (carry(Add, U32, true, false), [0, 0, 0]),
        (carry(Sub, U32, true, false), [2, 0, 0]),
    ];
    assert_eq!(run_chain(&madc_cc2)[1..], [0, 1, 1, 2], "madc_cc2");
}

/// Multi-word arithmetic written the way PTX code chains carries, checked against `u128`.
#[test]
fn extended_precision_chains_match_u128() {
    use CarryOp::{Add, MadHi, MadLo, Sub};
    let words = |v: u128| {
        [
            v as u32 as u64,
            (v >> 32) as u32 as u64,
            (v >> 64) as u32 as u64,
            (v >> 96) as u64,
        ]
    };
    let join = |w: [u64; 4]| w.iter().rev().fold(0u128, |acc, &x| acc << 32 | x as u128);
    let values: [u128; 6] = [
        0,
        u128::MAX,
        1,
        0xffff_ffff_0000_0000_ffff_ffff_0000_0000,
        0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        0x8000_0000_0000_0000_0000_0000_0000_0001,
    ];
    for &x in &values {
        for &y in &values {
            let (a, b) = (words(x), words(y));
            // add.cc / addc.cc / addc.cc / addc
            let mut cf = false;
            let mut sum = [0; 4];
            for i in 0..4 {
                let op = carry(Add, U32, i > 0, i < 3);
                sum[i] = eval(&op, &[a[i], b[i]], &mut cf).unwrap()[0];
            }
            assert_eq!(join(sum), x.wrapping_add(y), "{x:#x} + {y:#x}");
            // sub.cc / subc.cc / subc.cc / subc
            let mut cf = false;
            let mut diff = [0; 4];
            for i in 0..4 {
                let op = carry(Sub, U32, i > 0, i < 3);
                diff[i] = eval(&op, &[a[i], b[i]], &mut cf).unwrap()[0];
            }
            assert_eq!(join(diff), x.wrapping_sub(y), "{x:#x} - {y:#x}");
        }
    }
    // The manual's example: [r3,r2,r1,r0] = [r5,r4] * [r7,r6].
    for &x in &[0u64, 1, M64, 0xdead_beef_0123_4567, 0x8000_0000_ffff_ffff] {
        for &y in &[0u64, 1, M64, 0xfedc_ba98_7654_3210, 0xffff_ffff_0000_0001] {
            let (r4, r5, r6, r7) = (x & M32, x >> 32, y & M32, y >> 32);
            let mut cf = false;
            let mut run =
                |op: Op, a: u64, b: u64, c: u64| eval(&op, &[a, b, c], &mut cf).unwrap()[0];
            let r0 = run(mul(U32, Lo), r4, r6, 0);
            let mut r1 = run(mul(U32, Hi), r4, r6, 0);
            r1 = run(carry(MadLo, U32, false, true), r5, r6, r1);
            let mut r2 = run(carry(MadHi, U32, true, false), r5, r6, 0);
            r1 = run(carry(MadLo, U32, false, true), r4, r7, r1);
            r2 = run(carry(MadHi, U32, true, true), r4, r7, r2);
            let mut r3 = run(carry(Add, U32, true, false), 0, 0, 0);
            r2 = run(carry(MadLo, U32, false, true), r5, r7, r2);
            r3 = run(carry(MadHi, U32, true, false), r5, r7, r3);
            assert_eq!(
                join([r0, r1, r2, r3]),
                x as u128 * y as u128,
                "{x:#x} * {y:#x}"
            );
        }
    }
}

/// `cvt.pack.sat`, worked by hand from the manual's pseudo-code: saturate `a` and `b` to the
/// N-bit type, `b` in the low N bits, `a` above, then `c` from bit 2N up (N < 16).
#[test]
fn cvt_pack_saturates_and_packs() {
    let pack = |bits, signed| Op::CvtPack { bits, signed };
    let neg = |x: i32| u64::from(x as u32);
    let cases: &[(Op, &[u64], u64)] = &[
        // u16: 70000 saturates to 0xffff, -5 to 0.
        (pack(16, false), &[70000, neg(-5)], 0xffff_0000),
        (pack(16, false), &[0x1234, 0x5678], 0x1234_5678),
        // s16: -40000 to -32768 (0x8000), 40000 to 32767; -2 stays 0xfffe.
        (pack(16, true), &[neg(-40000), 40000], 0x8000_7fff),
        (pack(16, true), &[neg(-2), 1], 0xfffe_0001),
        // u8 with c: d = c << 16 | a << 8 | b.
        (pack(8, false), &[300, 7, 0xabcd], 0xabcd_ff07),
        // s8: -129 to 0x80, 127 kept; c's top byte shifted out.
        (pack(8, true), &[neg(-129), 127, 0x1234_5678], 0x5678_807f),
        // s4: 9 to 7, -9 to -8 (0x8); u2: 5 to 3, -1 to 0.
        (pack(4, true), &[9, neg(-9), 0xf], 0xf78),
        (pack(2, false), &[5, neg(-1), 1], 0x1c),
    ];
    for (op, srcs, want) in cases {
        assert_eq!(
            eval(op, srcs, &mut false),
            Ok([*want, 0]),
            "{op:?} {srcs:x?}"
        );
    }
}

fn packed(max: bool, ty: Type, lanes: u8, relu: bool) -> Op {
    let op = if max {
        isa::PackedIntOp::Max
    } else {
        isa::PackedIntOp::Min
    };
    Op::IPacked {
        op,
        ty,
        lanes,
        relu,
    }
}

/// sm_90's `min`/`max` of 16-bit halves (`.u16x2`, `.s16x2`) and with `.relu`; each half's
/// value worked by hand.
#[test]
fn packed_and_relu_min_max() {
    // Halves: a = (h1 -32768 | 0x8000, h0 5), b = (h1 1, h0 -2 | 0xfffe).
    let (a, b) = (0x8000_0005, 0x0001_fffe);
    check(&[
        (packed(false, S16, 2, false), &[a, b], 0x8000_fffe),
        (packed(true, U16, 2, false), &[a, b], 0x8000_fffe),
        (packed(false, U16, 2, false), &[a, b], 0x0001_0005),
        (packed(true, S16, 2, false), &[a, b], 0x0001_0005),
        // .relu: max(5, -2) = 5, max(-32768, 1) = 1; the minima -2 and -32768 become 0.
        (packed(true, S16, 2, true), &[a, b], 0x0001_0005),
        (packed(false, S16, 2, true), &[a, b], 0),
        (packed(false, S32, 1, true), &[neg(5), 3], 0),
        (packed(true, S32, 1, true), &[neg(5), neg(3)], 0),
        (packed(true, S32, 1, true), &[7, neg(3)], 7),
        (packed(false, S32, 1, true), &[7, 9], 7),
        // add.u16x2 / add.s16x2 wrap each half: 0xffff + 2 = 1, 0x8000 + 0x8000 = 0.
        (
            Op::IPacked {
                op: isa::PackedIntOp::Add,
                ty: U16,
                lanes: 2,
                relu: false,
            },
            &[0x8000_ffff, 0x8000_0002],
            0x0000_0001,
        ),
        (
            Op::IPacked {
                op: isa::PackedIntOp::Add,
                ty: S16,
                lanes: 2,
                relu: false,
            },
            &[0x0001_fffe, 0xffff_0003],
            0x0000_0001,
        ),
    ]);
}
