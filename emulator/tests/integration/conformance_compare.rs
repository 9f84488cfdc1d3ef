//! Conformance of comparison and selection (setp with `p|q` and combining predicates, set,
//! selp, slct): signed/unsigned/bit comparisons, ordered/unordered float comparisons with NaN,
//! signed zeros and `.ftz`.
//!
//! Expected values are hand-derived from the manual's definitions.

use emulator::alu::eval;
use isa::{BoolOp, CmpOp, Op, Type};

const M32: u64 = 0xffff_ffff;
const M64: u64 = u64::MAX;
const ONE: u64 = 0x3f80_0000;
const TWO: u64 = 0x4000_0000;
const NEG_ONE: u64 = 0xbf80_0000;
const ZERO: u64 = 0;
const NEG_ZERO: u64 = 0x8000_0000;
const INF: u64 = 0x7f80_0000;
const NEG_INF: u64 = 0xff80_0000;
const NAN: u64 = 0x7fc0_0000;
const MIN_SUB: u64 = 1;
const NEG_MIN_SUB: u64 = 0x8000_0001;
const D_ONE: u64 = 0x3ff0_0000_0000_0000;
const D_TWO: u64 = 0x4000_0000_0000_0000;
const D_NAN: u64 = 0x7ff8_0000_0000_0000;

/// Runs every case comparing both destinations, reporting all mismatches at once.
fn check2(cases: &[(Op, &[u64], [u64; 2])]) {
    let mut failures = Vec::new();
    for (op, srcs, want) in cases {
        match eval(op, srcs, &mut false) {
            Ok(got) if got == *want => {}
            other => failures.push(format!("{op:?} {srcs:x?}: got {other:x?}, want {want:x?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs single-destination cases.
fn check(cases: &[(Op, &[u64], u64)]) {
    let rows: Vec<_> = cases
        .iter()
        .map(|(op, srcs, want)| (op.clone(), *srcs, [*want, 0]))
        .collect();
    check2(&rows);
}

fn setp(cmp: CmpOp, ty: Type) -> Op {
    Op::Setp {
        cmp,
        ty,
        combine: None,
        ftz: false,
    }
}
fn setp_ftz(cmp: CmpOp) -> Op {
    Op::Setp {
        cmp,
        ty: Type::F32,
        combine: None,
        ftz: true,
    }
}
fn setp_bop(cmp: CmpOp, ty: Type, bop: BoolOp) -> Op {
    Op::Setp {
        cmp,
        ty,
        combine: Some(bop),
        ftz: false,
    }
}

const T: [u64; 2] = [1, 0];
const F: [u64; 2] = [0, 1];

use CmpOp::*;
use Type::{B16, B32, B64, F32, F64, S16, S32, S64, U16, U32, U64};

#[test]
fn integer_comparisons() {
    check2(&[
        (setp(Lt, S32), &[M32, 1], T),
        (setp(Lt, U32), &[M32, 1], F),
        (setp(Lo, S32), &[M32, 1], F), // lo/ls/hi/hs are unsigned for any type
        (setp(Hi, S32), &[M32, 1], T),
        (setp(Hs, S32), &[1, 1], T),
        (setp(Ls, S32), &[2, 1], F),
        (setp(Ls, U32), &[1, 1], T),
        (setp(Le, S32), &[0x8000_0000, 0x7fff_ffff], T),
        (setp(Gt, S32), &[0x8000_0000, 0x7fff_ffff], F),
        (setp(Gt, U32), &[0x8000_0000, 0x7fff_ffff], T),
        (setp(Ge, S32), &[M32, M32], T),
        (setp(Eq, S32), &[M32, (-1i64) as u64], T), // immediate sign-extended to 64 bits
        (setp(Ne, S32), &[0, 0x1_0000_0000], F),    // only the type's bits compare
        (setp(Eq, B32), &[0xdead_beef, 0xdead_beef], T),
        (setp(Ne, B32), &[0xdead_beef, 0xdead_beee], T),
        (setp(Eq, B16), &[0x1_0001, 1], T),
        (setp(Eq, B64), &[M64, M64], T),
        (setp(Lt, S16), &[0x8000, 0], T),
        (setp(Lt, U16), &[0x8000, 0], F),
        (setp(Ge, S16), &[0xffff, 0], F),
        (setp(Lt, S64), &[1 << 63, 0], T),
        (setp(Lt, U64), &[1 << 63, 0], F),
        (setp(Hi, S64), &[1 << 63, 0], T),
        (setp(Le, U64), &[M64, M64], T),
        (setp(Gt, S64), &[0, M64], T),
    ]);
}

#[test]
fn float_comparisons_with_nan_and_signed_zero() {
    check2(&[
        (setp(Eq, F32), &[ONE, ONE], T),
        (setp(Eq, F32), &[NAN, NAN], F),
        (setp(Ne, F32), &[NAN, ONE], F),
        (setp(Ne, F32), &[ONE, TWO], T),
        (setp(Neu, F32), &[NAN, ONE], T),
        (setp(Neu, F32), &[ONE, ONE], F),
        (setp(Equ, F32), &[NAN, ONE], T),
        (setp(Equ, F32), &[ONE, TWO], F),
        (setp(Lt, F32), &[NAN, ONE], F),
        (setp(Lt, F32), &[NEG_ONE, ONE], T),
        (setp(Ltu, F32), &[NAN, ONE], T),
        (setp(Ltu, F32), &[TWO, ONE], F),
        (setp(Le, F32), &[ONE, NAN], F),
        (setp(Leu, F32), &[ONE, NAN], T),
        (setp(Leu, F32), &[ONE, ONE], T),
        (setp(Gt, F32), &[INF, NAN], F),
        (setp(Gtu, F32), &[INF, NAN], T),
        (setp(Gt, F32), &[INF, TWO], T),
        (setp(Ge, F32), &[NEG_ZERO, ZERO], T),
        (setp(Lt, F32), &[NEG_ZERO, ZERO], F),
        (setp(Eq, F32), &[NEG_ZERO, ZERO], T),
        (setp(Geu, F32), &[NEG_INF, ONE], F),
        (setp(Geu, F32), &[NAN, NAN], T),
        (setp(Num, F32), &[ONE, NAN], F),
        (setp(Num, F32), &[ONE, INF], T),
        (setp(Nan, F32), &[ONE, NAN], T),
        (setp(Nan, F32), &[NEG_INF, INF], F),
        (setp(Lt, F32), &[NEG_MIN_SUB, ZERO], T),
        (setp(Eq, F32), &[MIN_SUB, ZERO], F),
        (setp_ftz(Lt), &[NEG_MIN_SUB, ZERO], F), // -0 < +0 is false
        (setp_ftz(Eq), &[MIN_SUB, ZERO], T),
        (setp_ftz(Eq), &[MIN_SUB, NEG_MIN_SUB], T),
        (setp_ftz(Gt), &[ONE, MIN_SUB], T),
        (setp(Eq, F64), &[D_ONE, D_ONE], T),
        (setp(Lt, F64), &[D_ONE, D_TWO], T),
        (setp(Lt, F64), &[D_NAN, D_TWO], F),
        (setp(Ltu, F64), &[D_NAN, D_TWO], T),
        (setp(Eq, F64), &[1 << 63, 0], T),
        (setp(Nan, F64), &[D_NAN, 0], T),
    ]);
}

#[test]
fn combining_predicates_give_p_and_q() {
    use BoolOp::{And, Or, Xor};
    check2(&[
        // p = t BOP c, q = !t BOP c.
        (setp_bop(Lt, S32, And), &[1, 2, 1], [1, 0]),
        (setp_bop(Lt, S32, And), &[1, 2, 0], [0, 0]),
        (setp_bop(Lt, S32, And), &[2, 1, 1], [0, 1]),
        (setp_bop(Lt, S32, Or), &[2, 1, 1], [1, 1]),
        (setp_bop(Lt, S32, Or), &[2, 1, 0], [0, 1]),
        (setp_bop(Lt, S32, Or), &[1, 2, 0], [1, 0]),
        (setp_bop(Lt, S32, Xor), &[1, 2, 1], [0, 1]),
        (setp_bop(Lt, S32, Xor), &[1, 2, 0], [1, 0]),
        (setp_bop(Lt, S32, Xor), &[2, 1, 1], [1, 0]),
        (setp_bop(Eq, F32, And), &[NAN, NAN, 1], [0, 1]),
        (setp_bop(Equ, F32, Or), &[NAN, ONE, 0], [1, 0]),
        (setp_bop(Ne, U64, And), &[M64, 0, 1], [1, 0]),
    ]);
}

#[test]
fn set_writes_all_ones_or_one_point_zero() {
    let set = |cmp, dty, sty, combine| Op::Set {
        cmp,
        dty,
        sty,
        combine,
        ftz: false,
    };
    check(&[
        (set(Lt, U32, S32, None), &[1, 2], M32),
        (set(Lt, U32, S32, None), &[2, 1], 0),
        (set(Lt, S32, S32, None), &[M32, 0], M32),
        (set(Lt, F32, S32, None), &[1, 2], ONE),
        (set(Lt, F32, S32, None), &[2, 1], 0),
        (set(Eq, S32, F32, None), &[NAN, NAN], 0),
        (set(Neu, F32, F32, None), &[NAN, ONE], ONE),
        (set(Hi, U32, U64, None), &[M64, 0], M32),
        (set(Lt, U32, S32, Some(BoolOp::And)), &[1, 2, 0], 0),
        (set(Lt, U32, S32, Some(BoolOp::Xor)), &[2, 1, 1], M32),
        (set(Ge, F32, F64, Some(BoolOp::Or)), &[D_NAN, D_ONE, 1], ONE),
        (
            Op::Set {
                cmp: Eq,
                dty: U32,
                sty: F32,
                combine: None,
                ftz: true,
            },
            &[MIN_SUB, ZERO],
            M32,
        ),
    ]);
}

#[test]
fn selp_and_slct_select_without_modification() {
    let selp = |ty| Op::Selp { ty };
    let slct = |ty, cty, ftz| Op::Slct { ty, cty, ftz };
    check(&[
        (selp(B32), &[0xaaaa, 0xbbbb, 1], 0xaaaa),
        (selp(B32), &[0xaaaa, 0xbbbb, 0], 0xbbbb),
        (selp(B16), &[0x1_aaaa, 0xbbbb, 1], 0xaaaa),
        (selp(U64), &[M64, 0, 1], M64),
        (selp(F32), &[NAN, ONE, 1], NAN), // NaN payloads move through unchanged
        (selp(F64), &[D_ONE, D_NAN, 0], D_NAN),
        (selp(S32), &[(-1i64) as u64, 0, 1], M32),
        (slct(U32, S32, false), &[1, 2, 0], 1),
        (slct(U32, S32, false), &[1, 2, M32], 2),
        (slct(U32, S32, false), &[1, 2, 0x7fff_ffff], 1),
        (slct(U32, S32, false), &[1, 2, 0x8000_0000], 2),
        (slct(B64, S32, false), &[M64, 0, 5], M64),
        (slct(U16, S32, false), &[0x1_0007, 9, 0], 7),
        (slct(F32, F32, false), &[ONE, TWO, NEG_ZERO], ONE),
        (slct(F32, F32, false), &[ONE, TWO, ZERO], ONE),
        (slct(F32, F32, false), &[ONE, TWO, NAN], TWO),
        (slct(F32, F32, false), &[ONE, TWO, NEG_MIN_SUB], TWO),
        (slct(F32, F32, true), &[ONE, TWO, NEG_MIN_SUB], ONE),
        (slct(F32, F32, false), &[ONE, TWO, NEG_ONE], TWO),
        (slct(F32, F32, false), &[ONE, TWO, INF], ONE),
        (slct(F32, F32, false), &[ONE, TWO, NEG_INF], TWO),
        (slct(F64, F32, false), &[D_ONE, D_TWO, MIN_SUB], D_ONE),
        (slct(S64, F32, false), &[M64, 3, NEG_ONE], 3),
    ]);
}
