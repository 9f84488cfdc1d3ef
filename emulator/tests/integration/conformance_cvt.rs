//! Conformance of `cvt` between integer and float types: truncation and extension, `.sat`,
//! float-to-integer rounding with saturation and the manual's NaN results, exact directed
//! rounding of integer-to-float and f64-to-f32 conversions, rounding to integral floats, `.ftz`.
//!
//! Expected values are literal bit patterns or Rust's own conversions; the property tests check
//! directed rounding against exact integer (`i128`) and f64 comparisons.

use emulator::alu::eval;
use isa::{CvtRounding, Op, Rounding, Type};
use proptest::prelude::*;

const M32: u64 = 0xffff_ffff;
const M64: u64 = u64::MAX;
const ONE: u64 = 0x3f80_0000;
const HALF: u64 = 0x3f00_0000;
const NEG_HALF: u64 = 0xbf00_0000;
const NEG_ZERO: u64 = 0x8000_0000;
const INF: u64 = 0x7f80_0000;
const NEG_INF: u64 = 0xff80_0000;
const MAX: u64 = 0x7f7f_ffff;
const NAN: u64 = 0x7fff_ffff;
const QNAN: u64 = 0x7fc1_2345;
const MIN_SUB: u64 = 1;
const NEG_MIN_SUB: u64 = 0x8000_0001;
const D_ONE: u64 = 0x3ff0_0000_0000_0000;
const D_NAN: u64 = 0xfff8_0000_0000_0000;
const D_QNAN: u64 = 0x7ff8_0000_0000_0001;

fn cvt(dty: Type, sty: Type, rnd: CvtRounding, ftz: bool, sat: bool) -> Op {
    Op::Cvt {
        dty,
        sty,
        rnd,
        ftz,
        sat,
        relu: false,
        satfinite: false,
    }
}
/// An integer-to-integer (or exact) conversion.
fn plain(dty: Type, sty: Type, sat: bool) -> Op {
    cvt(dty, sty, CvtRounding::None, false, sat)
}
/// A conversion rounding to a float (`.rn .rz ...`).
fn fr(dty: Type, sty: Type, r: Rounding) -> Op {
    cvt(dty, sty, CvtRounding::Float(r), false, false)
}
/// A conversion rounding to an integral value (`.rni .rzi ...`).
fn ir(dty: Type, sty: Type, r: Rounding) -> Op {
    cvt(dty, sty, CvtRounding::Int(r), false, false)
}

fn f(x: f32) -> u64 {
    u64::from(x.to_bits())
}
fn d(x: f64) -> u64 {
    x.to_bits()
}

use crate::eval_cases::check;
use Rounding::{Rm, Rn, Rna, Rp, Rz};
use Type::{F32, F64, S8, S16, S32, S64, U8, U16, U32, U64};

#[test]
fn integer_to_integer_extends_truncates_or_saturates() {
    check(&[
        (plain(U32, U8, false), &[0xff], 0xff),
        (plain(U32, U8, false), &[0x1ff], 0xff), // only the source type's bits
        (plain(S32, S8, false), &[0x80], 0xffff_ff80),
        (plain(S32, S8, false), &[0x7f], 0x7f),
        (plain(U32, S8, false), &[0xff], M32),
        (plain(S8, S32, false), &[0x1ff], 0xff),
        (plain(S8, S32, true), &[0x1ff], 0x7f),
        (plain(S8, S32, true), &[(-200i64) as u64], 0x80),
        (plain(S8, S32, true), &[(-100i64) as u64], 0x9c),
        (plain(U8, S32, true), &[(-5i64) as u64], 0),
        (plain(U8, S32, true), &[300], 0xff),
        (plain(U8, S32, false), &[300], 300 & 0xff),
        (plain(U16, U32, false), &[0x1_2345], 0x2345),
        (plain(U16, U32, true), &[0x1_2345], 0xffff),
        (plain(S16, U16, true), &[0xffff], 0x7fff),
        (plain(U32, S32, true), &[M32], 0),
        (plain(U32, S32, false), &[M32], M32),
        (plain(S32, U32, true), &[M32], 0x7fff_ffff),
        (plain(U64, S32, false), &[M32], M64),
        (plain(U64, U32, false), &[M32], M32),
        (plain(S64, S16, false), &[0x8000], 0xffff_ffff_ffff_8000),
        (plain(U32, U64, true), &[1 << 32], M32),
        (plain(U32, U64, false), &[1 << 32], 0),
        (plain(S32, S64, true), &[1 << 63], 0x8000_0000),
        (plain(S32, S64, true), &[0x7fff_ffff], 0x7fff_ffff),
        (plain(U64, S64, true), &[M64], 0),
        (plain(S64, U64, true), &[M64], i64::MAX as u64),
        (plain(S8, U8, true), &[0xff], 0x7f),
        (plain(U16, S8, true), &[0x80], 0),
        (plain(S16, S8, false), &[0x80], 0xff80),
    ]);
}

#[test]
fn integer_to_float_rounds_exactly() {
    check(&[
        (fr(F32, S32, Rn), &[1], ONE),
        (fr(F32, S32, Rn), &[(-1i64) as u64], 0xbf80_0000),
        (fr(F32, S32, Rz), &[0], 0),
        (fr(F32, S32, Rm), &[0], 0), // integer zero is +0 in every direction
        // 2^24 + 1 is halfway between 2^24 and 2^24 + 2.
        (fr(F32, S32, Rn), &[16_777_217], 0x4b80_0000),
        (fr(F32, S32, Rz), &[16_777_217], 0x4b80_0000),
        (fr(F32, S32, Rm), &[16_777_217], 0x4b80_0000),
        (fr(F32, S32, Rp), &[16_777_217], 0x4b80_0001),
        (fr(F32, S32, Rna), &[16_777_217], 0x4b80_0001),
        (fr(F32, S32, Rn), &[16_777_219], 0x4b80_0002), // tie, to even
        (fr(F32, S32, Rna), &[16_777_219], 0x4b80_0002),
        (fr(F32, S32, Rm), &[(-16_777_217i64) as u64], 0xcb80_0001),
        (fr(F32, S32, Rp), &[(-16_777_217i64) as u64], 0xcb80_0000),
        (fr(F32, S32, Rz), &[(-16_777_217i64) as u64], 0xcb80_0000),
        (fr(F32, S32, Rna), &[(-16_777_217i64) as u64], 0xcb80_0001),
        (fr(F32, S32, Rn), &[0x7fff_ffff], 0x4f00_0000),
        (fr(F32, S32, Rz), &[0x7fff_ffff], 0x4eff_ffff),
        (fr(F32, S32, Rn), &[0x8000_0000], 0xcf00_0000),
        (fr(F32, U32, Rn), &[M32], 0x4f80_0000),
        (fr(F32, U32, Rz), &[M32], 0x4f7f_ffff),
        (fr(F32, U64, Rn), &[M64], 0x5f80_0000),
        (fr(F32, U64, Rz), &[M64], 0x5f7f_ffff),
        (fr(F32, U64, Rm), &[M64], 0x5f7f_ffff),
        (fr(F32, U64, Rp), &[M64], 0x5f80_0000),
        (fr(F32, S64, Rz), &[1 << 63], 0xdf00_0000),
        (fr(F32, S64, Rp), &[(1 << 53) + 1], 0x5a00_0001),
        (fr(F32, S64, Rn), &[(1 << 53) + 1], 0x5a00_0000),
        (fr(F32, S16, Rn), &[0xffff], 0xbf80_0000),
        (fr(F32, U16, Rn), &[0xffff], f(65535.0)),
        (fr(F32, U8, Rz), &[0x1ff], f(255.0)),
        (fr(F64, S64, Rn), &[(1 << 53) + 1], 0x4340_0000_0000_0000),
        (fr(F64, S64, Rp), &[(1 << 53) + 1], 0x4340_0000_0000_0001),
        (
            fr(F64, S64, Rm),
            &[((1i64 << 53) + 1).wrapping_neg() as u64],
            0xc340_0000_0000_0001,
        ),
        (fr(F64, U64, Rn), &[M64], 0x43f0_0000_0000_0000),
        (fr(F64, U64, Rz), &[M64], 0x43ef_ffff_ffff_ffff),
        (fr(F64, S32, Rn), &[(-1i64) as u64], 0xbff0_0000_0000_0000),
        (fr(F64, U8, Rn), &[255], 0x406f_e000_0000_0000),
        (
            cvt(F32, S32, CvtRounding::Float(Rn), false, true),
            &[5],
            ONE,
        ),
        (
            cvt(F32, S32, CvtRounding::Float(Rn), false, true),
            &[(-5i64) as u64],
            0,
        ),
        (cvt(F32, S32, CvtRounding::Float(Rn), false, true), &[0], 0),
    ]);
}

#[test]
fn float_to_integer_rounds_and_saturates() {
    check(&[
        (ir(S32, F32, Rz), &[f(2.7)], 2),
        (ir(S32, F32, Rz), &[f(-2.7)], (-2i64) as u64 & M32),
        (ir(S32, F32, Rz), &[f(2_147_483_648.0)], 0x7fff_ffff),
        (ir(S32, F32, Rz), &[f(-2_147_483_648.0)], 0x8000_0000),
        (ir(S32, F32, Rz), &[f(-3e9)], 0x8000_0000),
        (ir(S32, F32, Rz), &[f(3e9)], 0x7fff_ffff),
        (ir(S32, F32, Rz), &[INF], 0x7fff_ffff),
        (ir(S32, F32, Rz), &[NEG_INF], 0x8000_0000),
        (ir(S32, F32, Rz), &[QNAN], 0),
        (ir(S32, F32, Rn), &[f(2.5)], 2),
        (ir(S32, F32, Rn), &[f(3.5)], 4),
        (ir(S32, F32, Rn), &[NEG_HALF], 0), // -0.5 rounds to -0, which is integer 0
        (ir(S32, F32, Rn), &[HALF], 0),
        (ir(S32, F32, Rn), &[f(-1.5)], (-2i64) as u64 & M32),
        (ir(S32, F32, Rm), &[NEG_HALF], M32),
        (ir(S32, F32, Rm), &[f(1.9)], 1),
        (ir(S32, F32, Rp), &[f(1.1)], 2),
        (ir(S32, F32, Rp), &[f(-1.9)], M32),
        (ir(S32, F32, Rp), &[MIN_SUB], 1),
        (
            cvt(S32, F32, CvtRounding::Int(Rp), true, false),
            &[MIN_SUB],
            0,
        ), // flushed first
        (ir(S32, F32, Rm), &[NEG_MIN_SUB], M32),
        (
            cvt(S32, F32, CvtRounding::Int(Rm), true, false),
            &[NEG_MIN_SUB],
            0,
        ),
        (ir(U32, F32, Rz), &[f(-1.0)], 0),
        (ir(U32, F32, Rz), &[f(3e9)], 3_000_000_000),
        (ir(U32, F32, Rz), &[f(4_294_967_296.0)], M32),
        (ir(U32, F32, Rz), &[QNAN], 0),
        (ir(U8, F32, Rz), &[f(300.0)], 0xff),
        (ir(U8, F32, Rz), &[f(-3.0)], 0),
        (ir(U8, F32, Rz), &[QNAN], 0),
        (ir(S8, F32, Rz), &[f(-200.0)], 0x80),
        (ir(S8, F32, Rz), &[f(127.9)], 0x7f),
        (ir(S16, F32, Rn), &[f(-32768.4)], 0x8000),
        (ir(U16, F32, Rp), &[f(65534.1)], 0xffff),
        // NaN gives 1 << (bits - 1) for f64 sources and 64-bit destinations.
        (ir(S64, F32, Rz), &[QNAN], 1 << 63),
        (ir(U64, F32, Rz), &[QNAN], 1 << 63),
        (ir(S32, F64, Rz), &[D_QNAN], 0x8000_0000),
        (ir(U32, F64, Rz), &[D_QNAN], 0x8000_0000),
        (ir(U8, F64, Rz), &[D_QNAN], 0x80),
        (ir(S16, F64, Rz), &[D_QNAN], 0x8000),
        (ir(U64, F64, Rz), &[D_QNAN], 1 << 63),
        (
            ir(S64, F64, Rn),
            &[d(9_223_372_036_854_775_808.0)],
            i64::MAX as u64,
        ),
        (
            ir(S64, F64, Rn),
            &[d(-9_223_372_036_854_775_808.0)],
            1 << 63,
        ),
        (ir(S64, F64, Rn), &[d(1e19)], i64::MAX as u64),
        (ir(U64, F64, Rz), &[d(18_446_744_073_709_551_616.0)], M64),
        (ir(U64, F64, Rz), &[d(-0.0)], 0),
        (ir(U64, F64, Rz), &[d(1e19)], 10_000_000_000_000_000_000),
        (ir(S32, F64, Rz), &[d(1e10)], 0x7fff_ffff),
        (ir(S32, F64, Rz), &[d(-1e10)], 0x8000_0000),
        (ir(S32, F64, Rn), &[d(-2.5)], (-2i64) as u64 & M32),
        (ir(S32, F64, Rna), &[d(-2.5)], (-3i64) as u64 & M32),
        (ir(S64, F64, Rm), &[d(-0.5)], M64),
    ]);
}

#[test]
fn float_to_float_conversions() {
    let third = d(1.0 / 3.0);
    let big = d(1e39);
    let tiny = d(1e-46);
    check(&[
        (plain(F64, F32, false), &[ONE], D_ONE),
        (plain(F64, F32, false), &[MIN_SUB], 0x36a0_0000_0000_0000),
        (cvt(F64, F32, CvtRounding::None, true, false), &[MIN_SUB], 0),
        (
            cvt(F64, F32, CvtRounding::None, true, false),
            &[NEG_MIN_SUB],
            1 << 63,
        ),
        (plain(F64, F32, false), &[QNAN], D_NAN),
        (plain(F64, F32, false), &[INF], 0x7ff0_0000_0000_0000),
        (plain(F64, F32, false), &[NEG_ZERO], 1 << 63),
        (fr(F32, F64, Rn), &[third], 0x3eaa_aaab),
        (fr(F32, F64, Rz), &[third], 0x3eaa_aaaa),
        (fr(F32, F64, Rm), &[third], 0x3eaa_aaaa),
        (fr(F32, F64, Rp), &[third], 0x3eaa_aaab),
        (fr(F32, F64, Rm), &[d(-1.0 / 3.0)], 0xbeaa_aaab),
        (fr(F32, F64, Rp), &[d(-1.0 / 3.0)], 0xbeaa_aaaa),
        (fr(F32, F64, Rn), &[big], INF),
        (fr(F32, F64, Rz), &[big], MAX),
        (fr(F32, F64, Rm), &[big], MAX),
        (fr(F32, F64, Rp), &[big], INF),
        (fr(F32, F64, Rm), &[d(-1e39)], NEG_INF),
        (fr(F32, F64, Rz), &[d(-1e39)], 0xff7f_ffff),
        (fr(F32, F64, Rn), &[tiny], 0),
        (fr(F32, F64, Rp), &[tiny], MIN_SUB),
        (fr(F32, F64, Rm), &[d(-1e-46)], NEG_MIN_SUB),
        (fr(F32, F64, Rz), &[d(-1e-46)], NEG_ZERO),
        (fr(F32, F64, Rn), &[0x3690_0000_0000_0000], 0), // 2^-150: tie, to even
        (fr(F32, F64, Rna), &[0x3690_0000_0000_0000], MIN_SUB), // ties away
        (fr(F32, F64, Rn), &[0x3ff0_0000_1000_0000], ONE), // 1 + 2^-24
        (fr(F32, F64, Rna), &[0x3ff0_0000_1000_0000], 0x3f80_0001),
        (fr(F32, F64, Rz), &[0x3ff0_0000_1000_0000], ONE),
        (fr(F32, F64, Rp), &[0x3ff0_0000_1000_0000], 0x3f80_0001),
        (fr(F32, F64, Rn), &[0x37d0_0000_0000_0000], 0x0008_0000), // 2^-130: subnormal
        (
            cvt(F32, F64, CvtRounding::Float(Rn), true, false),
            &[0x37d0_0000_0000_0000],
            0,
        ),
        (fr(F32, F64, Rz), &[D_QNAN], NAN),
        (fr(F32, F64, Rz), &[0x7ff0_0000_0000_0000], INF),
        (
            cvt(F32, F64, CvtRounding::Float(Rn), false, true),
            &[d(2.0)],
            ONE,
        ),
        (
            cvt(F32, F64, CvtRounding::Float(Rn), false, true),
            &[d(-1.0)],
            0,
        ),
        (
            cvt(F32, F64, CvtRounding::Float(Rn), false, true),
            &[D_QNAN],
            0,
        ),
        (plain(F32, F32, false), &[f(1.5)], f(1.5)),
        (plain(F32, F32, false), &[QNAN], NAN),
        (cvt(F32, F32, CvtRounding::None, true, false), &[MIN_SUB], 0),
        (
            cvt(F32, F32, CvtRounding::None, false, true),
            &[f(1.5)],
            ONE,
        ),
        (cvt(F32, F32, CvtRounding::None, false, true), &[QNAN], 0),
        (
            cvt(F32, F32, CvtRounding::None, false, true),
            &[NEG_ZERO],
            0,
        ),
        (cvt(F32, F32, CvtRounding::None, false, true), &[HALF], HALF),
        (
            cvt(F64, F64, CvtRounding::None, false, true),
            &[d(7.0)],
            D_ONE,
        ),
        (ir(F32, F32, Rn), &[f(2.5)], f(2.0)),
        (ir(F32, F32, Rn), &[NEG_HALF], NEG_ZERO),
        (ir(F32, F32, Rn), &[HALF], 0),
        (ir(F32, F32, Rn), &[f(1.5)], f(2.0)),
        (ir(F32, F32, Rn), &[f(-1.5)], f(-2.0)),
        (ir(F32, F32, Rn), &[0x4a80_0001], 0x4a80_0000), // 2^22 + 0.5 → 2^22
        (ir(F32, F32, Rn), &[0x4a80_0003], 0x4a80_0004), // 2^22 + 1.5 → 2^22 + 2
        (ir(F32, F32, Rz), &[f(-2.7)], f(-2.0)),
        (ir(F32, F32, Rm), &[NEG_HALF], f(-1.0)),
        (ir(F32, F32, Rp), &[NEG_HALF], NEG_ZERO),
        (ir(F32, F32, Rp), &[HALF], ONE),
        (ir(F32, F32, Rp), &[MIN_SUB], ONE),
        (
            cvt(F32, F32, CvtRounding::Int(Rp), true, false),
            &[MIN_SUB],
            0,
        ),
        (ir(F32, F32, Rz), &[QNAN], NAN),
        (ir(F32, F32, Rz), &[NEG_INF], NEG_INF),
        (ir(F32, F32, Rn), &[f(1e30)], f(1e30)),
        (ir(F64, F64, Rn), &[d(2.5)], d(2.0)),
        (ir(F64, F64, Rn), &[d(-0.5)], 1 << 63),
        (
            ir(F64, F64, Rp),
            &[d(4503599627370495.5)],
            d(4503599627370496.0),
        ),
        (ir(F64, F64, Rz), &[D_QNAN], D_NAN),
        (ir(F64, F32, Rz), &[f(2.7)], d(2.0)),
        (ir(F64, F32, Rm), &[f(-2.2)], d(-3.0)),
    ]);
}

// ---- properties: directed rounding of conversions ----

fn run(op: Op, a: u64) -> u64 {
    eval(&op, &[a], &mut false).unwrap()[0]
}

/// The neighbours of `n` (f32 bits of a finite value) in the direction of `above`.
fn next32(n: f32, up: bool) -> f32 {
    let b = n.to_bits();
    let next = match (n == 0.0, n > 0.0, up) {
        (true, _, true) => 1,
        (true, _, false) => 0x8000_0001,
        (false, true, true) | (false, false, false) => b + 1,
        _ => b - 1,
    };
    f32::from_bits(next)
}

fn next64(n: f64, up: bool) -> f64 {
    let b = n.to_bits();
    let next = match (n == 0.0, n > 0.0, up) {
        (true, _, true) => 1,
        (true, _, false) => 0x8000_0000_0000_0001,
        (false, true, true) | (false, false, false) => b + 1,
        _ => b - 1,
    };
    f64::from_bits(next)
}

/// The expected directed results (rz, rm, rp) from the `.rn` result `n` and the sign of
/// `n - exact`.
fn directed<T: Copy>(
    n: T,
    n_vs_exact: std::cmp::Ordering,
    exact_positive: bool,
    next: fn(T, bool) -> T,
) -> [T; 3] {
    use std::cmp::Ordering::*;
    let (lo, hi) = match n_vs_exact {
        Equal => return [n; 3],
        Greater => (next(n, false), n),
        Less => (n, next(n, true)),
    };
    [if exact_positive { lo } else { hi }, lo, hi]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn s64_and_u64_to_f32_directed(v in any::<i64>(), shift in 0u32..64, unsigned in any::<bool>()) {
        let v = v >> shift; // all magnitudes
        let (ty, exact, bits) = if unsigned {
            (U64, i128::from(v as u64), v as u64)
        } else {
            (S64, i128::from(v), v as u64)
        };
        let n = if unsigned { v as u64 as f32 } else { v as f32 };
        // f32 values of integers up to 2^64 are integers, exact in i128 through f64.
        let n_vs = (n as f64 as i128).cmp(&exact);
        let want = directed(n, n_vs, exact > 0, next32);
        for (mode, w) in [Rz, Rm, Rp].into_iter().zip(want) {
            prop_assert_eq!(run(fr(F32, ty, mode), bits), f(w), "{:?} {}", mode, exact);
        }
        prop_assert_eq!(run(fr(F32, ty, Rn), bits), f(n));
    }

    #[test]
    fn s64_and_u64_to_f64_directed(v in any::<i64>(), shift in 0u32..64, unsigned in any::<bool>()) {
        let v = v >> shift;
        let (ty, exact, bits) = if unsigned {
            (U64, i128::from(v as u64), v as u64)
        } else {
            (S64, i128::from(v), v as u64)
        };
        let n = if unsigned { v as u64 as f64 } else { v as f64 };
        let n_vs = (n as i128).cmp(&exact);
        let want = directed(n, n_vs, exact > 0, next64);
        for (mode, w) in [Rz, Rm, Rp].into_iter().zip(want) {
            prop_assert_eq!(run(fr(F64, ty, mode), bits), d(w), "{:?} {}", mode, exact);
        }
    }

    #[test]
    fn f64_to_f32_directed(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let n = x as f32;
        // Every f32 is exact in f64, so comparing there is exact.
        let n_vs = if n.is_infinite() {
            if n > 0.0 { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Less }
        } else {
            f64::from(n).partial_cmp(&x).unwrap()
        };
        let want = directed(n, n_vs, x > 0.0, |v, up| {
            if v.is_infinite() {
                // The neighbour of ±Inf towards the exact value is ±MAX.
                f32::MAX.copysign(v)
            } else {
                next32(v, up)
            }
        });
        for (mode, w) in [Rz, Rm, Rp].into_iter().zip(want) {
            if w == 0.0 && n == 0.0 {
                // Exact zero keeps its sign in every direction.
                prop_assert_eq!(run(fr(F32, F64, mode), bits), f(n));
            } else {
                prop_assert_eq!(run(fr(F32, F64, mode), bits), f(w), "{:?} {}", mode, x);
            }
        }
    }

    #[test]
    fn f32_to_integers_match_rounded_saturating_casts(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        let a = u64::from(bits);
        let nan = |wide: bool| if x.is_nan() { Some(wide) } else { None };
        // Rust's saturating casts of the integral value are the manual's clamping.
        let cases: [(Type, Rounding, u64); 6] = [
            (S32, Rz, u64::from(x.trunc() as i32 as u32)),
            (S32, Rn, u64::from(x.round_ties_even() as i32 as u32)),
            (U32, Rm, u64::from(x.floor() as u32)),
            (U16, Rp, u64::from(x.ceil() as u16)),
            (S64, Rm, x.floor() as i64 as u64),
            (U8, Rn, u64::from(x.round_ties_even() as u8)),
        ];
        for (ty, mode, want) in cases {
            let want = match nan(ty.bits() == 64) {
                Some(true) => 1 << 63,
                Some(false) => 0,
                None => want,
            };
            prop_assert_eq!(run(ir(ty, F32, mode), a), want, "{:?} {:?}", ty, mode);
        }
    }
}

/// `cvt.rnd.tf32.f32`: 10 fraction bits kept, the 13 below them zero. Worked by hand on the
/// encodings: 1 + 2^-11 (0x3f80_1000) is exactly halfway between 1 and 1 + 2^-10.
#[test]
fn tf32_conversions_table() {
    use Rounding::{Rn, Rna, Rz};
    let tf32 = |rnd, relu, satfinite| Op::Cvt {
        dty: Type::TF32,
        sty: Type::F32,
        rnd: CvtRounding::Float(rnd),
        ftz: false,
        sat: false,
        relu,
        satfinite,
    };
    check(&[
        (tf32(Rna, false, false), &[0x3f80_1000], 0x3f80_2000), // tie: away from zero
        (tf32(Rn, false, false), &[0x3f80_1000], ONE),          // tie: to even
        (tf32(Rn, false, false), &[0x3f80_3000], 0x3f80_4000),  // tie: to even, upwards
        (tf32(Rn, false, false), &[0x3f80_1001], 0x3f80_2000),  // above halfway
        (tf32(Rz, false, false), &[0x3f80_1fff], ONE),
        (tf32(Rna, false, false), &[0xbf80_1000], 0xbf80_2000),
        // The largest finite f32 rounds up to +Inf, or saturates to the largest tf32.
        (tf32(Rna, false, false), &[MAX], INF),
        (tf32(Rna, false, true), &[MAX], 0x7f7f_e000),
        (tf32(Rna, false, true), &[NEG_INF], 0xff7f_e000),
        (tf32(Rz, false, false), &[MAX], 0x7f7f_e000),
        // Subnormals round on the same encoding: 0x1000 is halfway between 0 and 0x2000.
        (tf32(Rna, false, false), &[0x0000_1000], 0x0000_2000),
        (tf32(Rn, false, false), &[0x0000_1000], 0),
        (tf32(Rn, true, false), &[0xbf80_0000], 0),
        (tf32(Rna, false, false), &[QNAN], 0x7fff_e000),
        (tf32(Rna, false, false), &[INF], INF),
    ]);
}
