//! Conformance of the half-precision formats: `.f16` (IEEE binary16) and `.bf16` (bfloat16),
//! scalar and packed (`.f16x2`, `.bf16x2`), in add, sub, mul, fma (`.relu` included), neg,
//! abs, min, max, setp, set and cvt (every rounding direction, `.ftz`, `.sat`, `.relu`,
//! `.satfinite`, and the two-source packing form).
//!
//! The tables hold hand-derived bit patterns, each with the reason. The property tests check
//! every result against an independent reference: the exact result formed in f64 (sums and
//! products of half values are exact there) and rounded by looking up its two neighbours among
//! all 65,536 encodings of the format, decoded from the bit layout alone; none of warpsim's
//! soft-float is involved.

use emulator::alu::eval;
use isa::{BoolOp, CmpOp, CvtRounding, Op, Rounding, Type};
use proptest::prelude::*;

use crate::eval_cases::check;
use Rounding::{Rm, Rn, Rp, Rz};
use Type::{BF16, BF16x2, F16, F16x2, F32, F64, S32};

fn add(ty: Type, ftz: bool, sat: bool) -> Op {
    Op::FAdd {
        ty,
        rnd: None,
        ftz,
        sat,
    }
}
fn sub(ty: Type) -> Op {
    Op::FSub {
        ty,
        rnd: Some(Rn),
        ftz: false,
        sat: false,
    }
}
fn mul(ty: Type, ftz: bool) -> Op {
    Op::FMul {
        ty,
        rnd: Some(Rn),
        ftz,
        sat: false,
    }
}
fn fma(ty: Type, relu: bool) -> Op {
    Op::Fma {
        ty,
        rnd: Rn,
        ftz: false,
        sat: false,
        relu,
    }
}
fn cvt(dty: Type, sty: Type, rnd: CvtRounding) -> Op {
    Op::Cvt {
        dty,
        sty,
        rnd,
        ftz: false,
        sat: false,
        relu: false,
        satfinite: false,
    }
}
fn cvt_clamped(dty: Type, rnd: Rounding, relu: bool, satfinite: bool) -> Op {
    Op::Cvt {
        dty,
        sty: F32,
        rnd: CvtRounding::Float(rnd),
        ftz: false,
        sat: false,
        relu,
        satfinite,
    }
}

// f16 bit patterns.
const H_ONE: u64 = 0x3c00;
const H_TWO: u64 = 0x4000;
const H_HALF: u64 = 0x3800;
const H_MAX: u64 = 0x7bff; // 65504
const H_INF: u64 = 0x7c00;
const H_NAN: u64 = 0x7fff; // the canonical NaN
const H_MIN_NORMAL: u64 = 0x0400; // 2^-14
const H_NEG_ZERO: u64 = 0x8000;
// bf16 bit patterns.
const B_ONE: u64 = 0x3f80;
const B_TWO: u64 = 0x4000;

#[test]
fn f16_arithmetic_table() {
    check(&[
        (add(F16, false, false), &[H_ONE, H_ONE], H_TWO),
        // An exact zero sum is +0 (round to nearest, the only direction of half precision).
        (add(F16, false, false), &[H_ONE, 0xbc00], 0),
        // 65504 + 16 = 65520, halfway between 65504 (odd significand) and 2^16: to even, which
        // is past the largest finite value, so +Inf.
        (add(F16, false, false), &[H_MAX, 0x4c00], H_INF),
        // 65504 + 8 = 65512 is below halfway: back to 65504.
        (add(F16, false, false), &[H_MAX, 0x4800], H_MAX),
        (add(F16, false, true), &[H_MAX, H_MAX], H_ONE),
        (add(F16, false, true), &[0xc000, H_ONE], 0),
        (add(F16, false, true), &[0x7e00, H_ONE], 0),
        // Subnormals are kept, unless `.ftz`.
        (add(F16, false, false), &[1, 1], 2),
        (add(F16, true, false), &[1, H_ONE], H_ONE),
        (add(F16, true, false), &[1, 1], 0),
        // 2^-14 × 0.5 = 2^-15, subnormal (0x0200); flushed to +0 under `.ftz`.
        (mul(F16, false), &[H_MIN_NORMAL, H_HALF], 0x0200),
        (mul(F16, true), &[H_MIN_NORMAL, H_HALF], 0),
        (mul(F16, true), &[0x8000 | H_MIN_NORMAL, H_HALF], H_NEG_ZERO),
        // NaNs: canonical 0x7fff, whatever the payload.
        (add(F16, false, false), &[0x7e01, H_ONE], H_NAN),
        (sub(F16), &[H_INF, H_INF], H_NAN),
        (mul(F16, false), &[H_INF, 0], H_NAN),
        // fma rounds once: (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20 exactly (subnormal 0x0010),
        // where a rounded product (1 + 2^-9) would leave 0.
        (fma(F16, false), &[0x3c01, 0x3c01, 0xbc02], 0x0010),
        (mul(F16, false), &[0x3c01, 0x3c01], 0x3c02),
        // `.relu`: negative results (and -0) to +0, NaN to the canonical NaN.
        (fma(F16, true), &[H_ONE, H_ONE, 0xc000], 0),
        (fma(F16, true), &[H_ONE, 0, H_NEG_ZERO], 0),
        (fma(F16, true), &[H_ONE, H_ONE, H_ONE], H_TWO),
        (fma(F16, true), &[H_INF, 0, H_ONE], H_NAN),
        // neg/abs are sign-bit operations (NaN payloads kept).
        (
            Op::FNeg {
                ty: F16,
                ftz: false,
            },
            &[H_ONE],
            0xbc00,
        ),
        (
            Op::FNeg {
                ty: F16,
                ftz: false,
            },
            &[0x7e01],
            0xfe01,
        ),
        (
            Op::FAbs {
                ty: F16,
                ftz: false,
            },
            &[0xfe01],
            0x7e01,
        ),
        (Op::FAbs { ty: F16, ftz: true }, &[0x8001], 0),
        // min/max: -0 < +0; one NaN gives the other operand, `.NaN` gives the canonical NaN.
        (
            Op::FMin {
                ty: F16,
                ftz: false,
                nan: false,
                xorsign: false,
            },
            &[0, H_NEG_ZERO],
            H_NEG_ZERO,
        ),
        (
            Op::FMax {
                ty: F16,
                ftz: false,
                nan: false,
                xorsign: false,
            },
            &[0x7e00, 0xbc00],
            0xbc00,
        ),
        (
            Op::FMax {
                ty: F16,
                ftz: false,
                nan: true,
                xorsign: false,
            },
            &[0x7e00, 0xbc00],
            H_NAN,
        ),
    ]);
}

#[test]
fn bf16_arithmetic_table() {
    check(&[
        (add(BF16, false, false), &[B_ONE, B_ONE], B_TWO),
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (8 significand bits): to even, 1.
        (add(BF16, false, false), &[B_ONE, 0x3b80], B_ONE),
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: to even, 0x3f82.
        (add(BF16, false, false), &[B_ONE, 0x3c40], 0x3f82),
        // bf16 keeps f32's exponent range: 2^127 × 2 overflows, 2^-126 × 2^-7 is the smallest
        // subnormal (0x0001).
        (mul(BF16, false), &[0x7f00, B_TWO], 0x7f80),
        (mul(BF16, false), &[0x0080, 0x3c00], 0x0001),
        (add(BF16, false, false), &[0x7fc1, B_ONE], H_NAN),
        (fma(BF16, true), &[B_ONE, 0xbf80, 0xbf80], 0),
        (
            Op::FNeg {
                ty: BF16,
                ftz: false,
            },
            &[B_ONE],
            0xbf80,
        ),
    ]);
}

#[test]
fn packed_operations_work_on_each_half() {
    // {lo, hi} pairs: the first element is in the low 16 bits.
    let pair = |lo: u64, hi: u64| hi << 16 | lo;
    check(&[
        (
            add(F16x2, false, false),
            &[pair(H_ONE, H_MAX), pair(H_ONE, H_MAX)],
            pair(H_TWO, H_INF),
        ),
        // `.sat` and `.ftz` per half.
        (
            add(F16x2, true, true),
            &[pair(1, 0xc000), pair(1, H_ONE)],
            pair(0, 0),
        ),
        (
            fma(BF16x2, true),
            &[pair(B_ONE, B_ONE), pair(B_ONE, 0xbf80), pair(B_ONE, 0)],
            pair(B_TWO, 0),
        ),
        (
            Op::FNeg {
                ty: F16x2,
                ftz: false,
            },
            &[pair(H_ONE, 0xbc00)],
            pair(0xbc00, H_ONE),
        ),
        (
            Op::FMin {
                ty: BF16x2,
                ftz: false,
                nan: true,
                xorsign: false,
            },
            &[pair(B_ONE, 0x7fc0), pair(B_TWO, B_ONE)],
            pair(B_ONE, H_NAN),
        ),
        // set: a packed comparison sets each half, 0xffff (integer) or 1.0 (float).
        (
            Op::Set {
                cmp: CmpOp::Lt,
                dty: Type::U32,
                sty: F16x2,
                combine: None,
                ftz: false,
            },
            &[pair(H_ONE, H_TWO), pair(H_TWO, H_ONE)],
            pair(0xffff, 0),
        ),
        (
            Op::Set {
                cmp: CmpOp::Ne,
                dty: F16x2,
                sty: F16x2,
                combine: None,
                ftz: false,
            },
            &[pair(H_ONE, 0x7e00), pair(H_TWO, H_ONE)],
            pair(H_ONE, 0),
        ),
        (
            Op::Set {
                cmp: CmpOp::Gtu,
                dty: F16,
                sty: F32,
                combine: None,
                ftz: false,
            },
            &[0x7fc0_0000, 0],
            H_ONE,
        ),
    ]);
}

#[test]
fn packed_setp_compares_low_halves_into_p_and_high_halves_into_q() {
    let op = |cmp, combine| Op::Setp {
        cmp,
        ty: F16x2,
        combine,
        ftz: false,
    };
    let (a, b) = (H_TWO << 16 | H_ONE, H_ONE << 16 | H_TWO);
    assert_eq!(eval(&op(CmpOp::Lt, None), &[a, b], &mut false), Ok([1, 0]));
    assert_eq!(eval(&op(CmpOp::Gt, None), &[a, b], &mut false), Ok([0, 1]));
    // Each half combined with c.
    let and = Some(BoolOp::And);
    assert_eq!(
        eval(&op(CmpOp::Lt, and), &[a, b, 0], &mut false),
        Ok([0, 0])
    );
    let or = Some(BoolOp::Or);
    assert_eq!(eval(&op(CmpOp::Lt, or), &[a, b, 1], &mut false), Ok([1, 1]));
    // NaN halves: ordered comparisons false, unordered true.
    let nan = H_NAN << 16 | H_NAN;
    assert_eq!(
        eval(&op(CmpOp::Eq, None), &[nan, nan], &mut false),
        Ok([0, 0])
    );
    assert_eq!(
        eval(&op(CmpOp::Equ, None), &[nan, nan], &mut false),
        Ok([1, 1])
    );
}

#[test]
fn conversions_table() {
    let f = CvtRounding::Float;
    let i = CvtRounding::Int;
    // 1/3 as f32 (0x3eaaaaab) lies between the f16 values 0x3555 (nearer) and 0x3556.
    let third = 0x3eaa_aaab;
    let neg_third = 0xbeaa_aaab;
    // 65520 = 65504 + 16, the f16 overflow threshold of round to nearest.
    let h_threshold = 0x477f_f000;
    check(&[
        (cvt(F16, F32, f(Rn)), &[third], 0x3555),
        (cvt(F16, F32, f(Rz)), &[third], 0x3555),
        (cvt(F16, F32, f(Rm)), &[third], 0x3555),
        (cvt(F16, F32, f(Rp)), &[third], 0x3556),
        (cvt(F16, F32, f(Rm)), &[neg_third], 0xb556),
        (cvt(F16, F32, f(Rn)), &[h_threshold], H_INF),
        (cvt(F16, F32, f(Rz)), &[h_threshold], H_MAX),
        (cvt(F16, F32, f(Rp)), &[0x3380_0000], 1), // 2^-24, the smallest subnormal
        (cvt(F16, F32, f(Rn)), &[0x3300_0000], 0), // 2^-25: halfway to 0 (even)
        (cvt(F16, F32, f(Rp)), &[0x3300_0000], 1),
        (cvt(F16, F32, f(Rn)), &[0x7fa0_0000], H_NAN),
        (cvt(F16, F64, f(Rn)), &[0x3fd5_5555_5555_5555], 0x3555),
        // bf16 keeps the top 16 bits of an f32, rounded: 0x3eaa|aaab rounds up.
        (cvt(BF16, F32, f(Rn)), &[third], 0x3eab),
        (cvt(BF16, F32, f(Rz)), &[third], 0x3eaa),
        (cvt(BF16, F32, f(Rn)), &[0x3f80_8000], B_ONE), // halfway, to even
        (cvt(BF16, F32, f(Rn)), &[0x3f81_8000], 0x3f82), // halfway, to even
        // Widening is exact; NaN becomes the canonical NaN.
        (cvt(F32, F16, CvtRounding::None), &[1], 0x3380_0000),
        (cvt(F32, F16, CvtRounding::None), &[H_MAX], 0x477f_e000),
        (cvt(F32, BF16, CvtRounding::None), &[0x3eab], 0x3eab_0000),
        (
            cvt(F64, F16, CvtRounding::None),
            &[0xbc00],
            0xbff0_0000_0000_0000,
        ),
        (cvt(F32, F16, CvtRounding::None), &[0x7e01], 0x7fff_ffff),
        // To and from integers.
        (cvt(S32, F16, i(Rn)), &[0x4100], 2), // 2.5 to even
        (cvt(S32, F16, i(Rp)), &[0x4100], 3),
        (cvt(S32, F16, i(Rm)), &[0xc100], 0xffff_fffd),
        (cvt(S32, F16, i(Rz)), &[0x7e00], 0),
        (cvt(F16, S32, f(Rn)), &[65519], H_MAX),
        (cvt(F16, S32, f(Rn)), &[65520], H_INF),
        (cvt(F16, S32, f(Rz)), &[65520], H_MAX),
        (cvt(F16, S32, f(Rn)), &[0xffff_fffd], 0xc200),
        (cvt(BF16, S32, f(Rn)), &[257], 0x4380), // 257 halfway between 256 and 258: 256
        // Rounding an f16 to an integral f16.
        (cvt(F16, F16, i(Rn)), &[0x3e00], H_TWO), // 1.5 to even
        (cvt(F16, F16, i(Rz)), &[0x3e00], H_ONE),
        // `.relu` and `.satfinite`.
        (cvt_clamped(F16, Rn, true, false), &[0xbf80_0000], 0),
        (cvt_clamped(F16, Rn, true, false), &[0x7fc0_0000], H_NAN),
        (cvt_clamped(F16, Rn, false, true), &[h_threshold], H_MAX),
        (cvt_clamped(F16, Rn, false, true), &[0xff80_0000], 0xfbff),
        (cvt_clamped(BF16, Rn, false, true), &[0x7f80_0000], 0x7f7f),
        (cvt_clamped(BF16, Rn, true, true), &[0xff80_0000], 0),
    ]);
    // The packed form converts a into the upper half and b into the lower one.
    check(&[
        (
            cvt(F16x2, F32, f(Rn)),
            &[0x3f80_0000, 0x4000_0000],
            0x3c00_4000,
        ),
        (
            cvt_clamped(BF16x2, Rn, true, false),
            &[0xbf80_0000, third],
            0x0000_3eab,
        ),
    ]);
}

/// One of the two half formats, described by its bit layout alone.
#[derive(Clone, Copy, Debug)]
struct Layout {
    ty: Type,
    frac_bits: u32,
    bias: i32,
}

const F16_LAYOUT: Layout = Layout {
    ty: F16,
    frac_bits: 10,
    bias: 15,
};
const BF16_LAYOUT: Layout = Layout {
    ty: BF16,
    frac_bits: 7,
    bias: 127,
};

impl Layout {
    /// The value of an encoding (NaN for NaNs).
    fn value(self, bits: u16) -> f64 {
        let neg = bits & 0x8000 != 0;
        let exp = i32::from((bits & 0x7fff) >> self.frac_bits);
        let frac = f64::from(bits & ((1 << self.frac_bits) - 1));
        let max_exp = (1 << (15 - self.frac_bits)) - 1;
        let scale = |e: i32| 2f64.powi(e);
        let magnitude = if exp == max_exp {
            if frac == 0.0 { f64::INFINITY } else { f64::NAN }
        } else if exp == 0 {
            frac * scale(1 - self.bias - self.frac_bits as i32)
        } else {
            (frac + scale(self.frac_bits as i32)) * scale(exp - self.bias - self.frac_bits as i32)
        };
        if neg { -magnitude } else { magnitude }
    }

    /// Every non-negative finite encoding, in increasing order of value (their bits order the
    /// same way), followed by the overflow step: the largest finite value plus one ulp, which
    /// stands for +Inf when rounding.
    fn positive_grid(self) -> Vec<(u16, f64)> {
        let inf = (((1u32 << (15 - self.frac_bits)) - 1) << self.frac_bits) as u16;
        let mut grid: Vec<(u16, f64)> = (0..inf).map(|b| (b, self.value(b))).collect();
        let (_, max) = grid[grid.len() - 1];
        let (_, below) = grid[grid.len() - 2];
        grid.push((inf, max + (max - below)));
        grid
    }

    /// The encoding of the exact value `x` (finite, nonzero) rounded in direction `mode`.
    fn round(self, grid: &[(u16, f64)], x: f64, mode: Rounding) -> u64 {
        let neg = x < 0.0;
        let m = x.abs();
        let sign = if neg { 0x8000u64 } else { 0 };
        let top = grid[grid.len() - 1];
        if m >= top.1 {
            // At or past the overflow step: infinity, or the largest finite value when the
            // direction rounds towards zero.
            let to_inf = match mode {
                Rn | Rounding::Rna => true,
                Rz => false,
                Rm => neg,
                Rp => !neg,
            };
            let bits = if to_inf {
                top.0
            } else {
                grid[grid.len() - 2].0
            };
            return sign | u64::from(bits);
        }
        // grid[i].1 <= m < grid[i + 1].1
        let i = grid.partition_point(|&(_, v)| v <= m) - 1;
        let (lo, hi) = (grid[i], grid[i + 1]);
        if lo.1 == m {
            return sign | u64::from(lo.0);
        }
        let up = match mode {
            Rn => {
                let mid = (lo.1 + hi.1) / 2.0; // exact: both have few significant bits
                m > mid || (m == mid && lo.0 & 1 == 1)
            }
            Rounding::Rna => m >= (lo.1 + hi.1) / 2.0,
            Rz => false,
            Rm => neg,
            Rp => !neg,
        };
        sign | u64::from(if up { hi.0 } else { lo.0 })
    }
}

/// The exact result (x + y in f64, with its rounding error) when f64 holds it exactly.
fn exact_sum(x: f64, y: f64) -> Option<f64> {
    let s = x + y;
    let bv = s - x;
    let err = (x - (s - bv)) + (y - bv);
    (err == 0.0 && s.is_finite()).then_some(s)
}

fn check_against_reference(layout: Layout, a: u16, b: u16, c: u16) -> Result<(), TestCaseError> {
    let grid = layout.positive_grid();
    let (x, y, z) = (layout.value(a), layout.value(b), layout.value(c));
    if !(x.is_finite() && y.is_finite() && z.is_finite()) {
        return Ok(());
    }
    let (a, b, c) = (u64::from(a), u64::from(b), u64::from(c));
    let ty = layout.ty;
    let run = |op: Op, srcs: &[u64]| eval(&op, srcs, &mut false).unwrap()[0];
    // Sums and products of two half values are exact in f64; a × b + c is when no bits are
    // lost adding (nearly always: the generator's exponents are close).
    let cases = [
        ("add", run(add(ty, false, false), &[a, b]), exact_sum(x, y)),
        ("mul", run(mul(ty, false), &[a, b]), Some(x * y)),
        ("fma", run(fma(ty, false), &[a, b, c]), exact_sum(x * y, z)),
    ];
    for (name, got, exact) in cases {
        // Zero results follow the sign rules of the tables; the grid rounds nonzero values.
        if let Some(e) = exact.filter(|e| *e != 0.0) {
            let want = layout.round(&grid, e, Rn);
            prop_assert_eq!(got, want, "{} {:?} {:#x} {:#x} {:#x}", name, ty, a, b, c);
        }
    }
    Ok(())
}

/// Half-precision encodings biased towards the interesting: subnormals, values near one (so
/// that sums round), and the largest binades (so that they overflow).
fn half_bits() -> impl Strategy<Value = u16> {
    prop_oneof![
        any::<u16>(),
        any::<u16>().prop_map(|b| b & 0x83ff),
        any::<u16>().prop_map(|b| (b & 0x87ff) | 0x3800),
        any::<u16>().prop_map(|b| b | 0x7000),
    ]
}

fn bf16_bits() -> impl Strategy<Value = u16> {
    prop_oneof![
        any::<u16>(),
        any::<u16>().prop_map(|b| b & 0x807f),
        any::<u16>().prop_map(|b| (b & 0x80ff) | 0x3f00),
        any::<u16>().prop_map(|b| b | 0x7f00),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn f16_arithmetic_matches_the_reference(a in half_bits(), b in half_bits(), c in half_bits()) {
        check_against_reference(F16_LAYOUT, a, b, c)?;
    }

    #[test]
    fn bf16_arithmetic_matches_the_reference(a in bf16_bits(), b in bf16_bits(), c in bf16_bits()) {
        check_against_reference(BF16_LAYOUT, a, b, c)?;
    }

    /// f32 to f16 and bf16 in every direction, against the grid.
    #[test]
    fn conversions_from_f32_match_the_reference(bits in any::<u32>(), mode in 0usize..4) {
        let mode = [Rn, Rz, Rm, Rp][mode];
        let x = f64::from(f32::from_bits(bits));
        prop_assume!(x.is_finite() && x != 0.0);
        for layout in [F16_LAYOUT, BF16_LAYOUT] {
            let op = cvt(layout.ty, F32, CvtRounding::Float(mode));
            let got = eval(&op, &[u64::from(bits)], &mut false).unwrap()[0];
            // Below the smallest subnormal the grid's neighbours are zero and that subnormal.
            let want = layout.round(&layout.positive_grid(), x, mode);
            prop_assert_eq!(got, want, "{:?} {:?} {:#x}", layout.ty, mode, bits);
        }
    }

    /// Every half value widens exactly to f32.
    #[test]
    fn widening_to_f32_is_exact(bits in any::<u16>()) {
        for layout in [F16_LAYOUT, BF16_LAYOUT] {
            let x = layout.value(bits);
            prop_assume!(!x.is_nan());
            let got = eval(&cvt(F32, layout.ty, CvtRounding::None), &[u64::from(bits)], &mut false)
                .unwrap()[0];
            prop_assert_eq!(f64::from(f32::from_bits(got as u32)), x);
            prop_assert_eq!(got >> 31, u64::from(bits >> 15));
        }
    }
}

/// The 8-bit formats of `cvt` (sm_89), by their bit layout alone: E4M3 (bias 7, no
/// infinities, S.1111.111 is NaN) and E5M2 (bias 15, IEEE-like).
fn fp8_value(e4m3: bool, bits: u8) -> f64 {
    let (frac_bits, bias) = if e4m3 { (3, 7) } else { (2, 15) };
    let neg = bits & 0x80 != 0;
    let exp = i32::from((bits & 0x7f) >> frac_bits);
    let frac = f64::from(bits & ((1 << frac_bits) - 1));
    let max_exp = (1 << (7 - frac_bits)) - 1;
    let magnitude = if e4m3 && bits & 0x7f == 0x7f {
        f64::NAN
    } else if !e4m3 && exp == max_exp {
        if frac == 0.0 { f64::INFINITY } else { f64::NAN }
    } else if exp == 0 {
        frac * 2f64.powi(1 - bias - frac_bits)
    } else {
        (frac + 2f64.powi(frac_bits)) * 2f64.powi(exp - bias - frac_bits)
    };
    if neg { -magnitude } else { magnitude }
}

fn to_fp8(dty: Type, sty: Type, relu: bool) -> Op {
    Op::Cvt {
        dty,
        sty,
        rnd: CvtRounding::Float(Rn),
        ftz: false,
        sat: false,
        relu,
        satfinite: true,
    }
}

fn from_fp8(sty: Type) -> Op {
    Op::Cvt {
        dty: F16x2,
        sty,
        rnd: CvtRounding::Float(Rn),
        ftz: false,
        sat: false,
        relu: false,
        satfinite: false,
    }
}

#[test]
fn fp8_conversions_table() {
    use Type::{E4M3x2, E5M2x2};
    let f = |x: f32| u64::from(x.to_bits());
    let pair = |hi: f32, lo: f32| [f(hi), f(lo)];
    check(&[
        // a into the upper byte, b into the lower.
        (to_fp8(E4M3x2, F32, false), &pair(2.0, 1.0), 0x4038),
        // E4M3: 448 is the largest; 464 (halfway to the NaN's 480) and beyond saturate.
        (to_fp8(E4M3x2, F32, false), &pair(448.0, 464.0), 0x7e7e),
        (
            to_fp8(E4M3x2, F32, false),
            &pair(1e9, f32::NEG_INFINITY),
            0x7efe,
        ),
        (to_fp8(E4M3x2, F32, false), &pair(f32::NAN, 0.0), 0x7f00),
        // 2^-9 is the smallest subnormal; 2^-10 ties to 0, 1.5 × 2^-9 to 2 × 2^-9.
        (
            to_fp8(E4M3x2, F32, false),
            &pair(2f32.powi(-9), 2f32.powi(-10)),
            0x0100,
        ),
        (
            to_fp8(E4M3x2, F32, false),
            &pair(1.5 * 2f32.powi(-9), 0.0),
            0x0200,
        ),
        // E5M2: 57344 is the largest; 61440 would round to infinity, which saturates.
        (to_fp8(E5M2x2, F32, false), &pair(1.0, 57344.0), 0x3c7b),
        (
            to_fp8(E5M2x2, F32, false),
            &pair(61440.0, f32::INFINITY),
            0x7b7b,
        ),
        (to_fp8(E5M2x2, F32, true), &pair(-1.0, f32::NAN), 0x007f),
        // From f16x2, half by half: {1.0, -2.0}.
        (to_fp8(E4M3x2, F16x2, false), &[0xc000_3c00], 0xc038),
        // To f16x2, exact: E4M3 {1.0, -448}; E5M2 {2^-16, +Inf}.
        (from_fp8(E4M3x2), &[0xfe38], 0xdf00_3c00),
        (from_fp8(E5M2x2), &[0x7c01], 0x7c00_0100),
        (from_fp8(E4M3x2), &[0x7f7f], 0x7fff_7fff),
    ]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// f32 to E4M3 and E5M2 (round to nearest even, saturating) against the grid of every
    /// finite non-negative encoding; and every encoding widens exactly to f16.
    #[test]
    fn fp8_conversions_match_the_reference(bits in any::<u32>(), byte in any::<u8>()) {
        let x = f32::from_bits(bits);
        for (e4m3, ty) in [(true, Type::E4M3x2), (false, Type::E5M2x2)] {
            let top: u8 = if e4m3 { 0x7e } else { 0x7b };
            let got = eval(&to_fp8(ty, F32, false), &[0, u64::from(bits)], &mut false).unwrap()[0];
            let want = if x.is_nan() {
                0x7f
            } else {
                let m = f64::from(x.abs());
                let sign = if x.is_sign_negative() { 0x80 } else { 0 };
                let grid: Vec<f64> = (0..=top).map(|b| fp8_value(e4m3, b)).collect();
                let code = if m >= grid[usize::from(top)] {
                    top
                } else {
                    let i = grid.partition_point(|v| *v <= m) - 1;
                    let (lo, hi) = (grid[i], grid[i + 1]);
                    let mid = (lo + hi) / 2.0;
                    let up = m > mid || (m == mid && i % 2 == 1);
                    (i + usize::from(up)) as u8
                };
                u64::from(sign | code)
            };
            prop_assert_eq!(got, want, "{:?} {:#x}", ty, bits);
            // Widening to f16 is exact (NaN to the canonical f16 NaN).
            let widened = eval(
                &from_fp8(ty),
                &[u64::from(byte)],
                &mut false,
            )
            .unwrap()[0];
            let v = fp8_value(e4m3, byte);
            if v.is_nan() {
                prop_assert_eq!(widened, H_NAN);
            } else {
                prop_assert_eq!(F16_LAYOUT.value(widened as u16), v);
                prop_assert_eq!(widened >> 15, u64::from(byte >> 7));
            }
        }
    }
}

fn mixed(op: isa::MixedOp, half: Type, rnd: isa::Rounding, sat: bool) -> Op {
    Op::FMixed { op, half, rnd, sat }
}

/// sm_100's mixed-precision `add`/`sub`/`fma.f32.{f16,bf16}`: the half operands widened
/// exactly, one f32 rounding; every value worked by hand.
#[test]
fn mixed_precision_add_sub_fma() {
    use isa::MixedOp::{Add, Fma, Sub};
    use isa::Rounding::{Rn, Rp, Rz};
    crate::eval_cases::check(&[
        // f16 1.5 + 0.25 = 1.75.
        (
            mixed(Add, Type::F16, Rn, false),
            &[0x3e00, 0x3e80_0000],
            0x3fe0_0000,
        ),
        // The f16 subnormal 2^-24 is exact in f32; 1 + 2^-24 is a tie: even (1.0) to
        // nearest, the next f32 rounding up.
        (
            mixed(Add, Type::F16, Rn, false),
            &[0x0001, 0x3f80_0000],
            0x3f80_0000,
        ),
        (
            mixed(Add, Type::F16, Rp, false),
            &[0x0001, 0x3f80_0000],
            0x3f80_0001,
        ),
        // bf16 2.0 - 0.5 = 1.5, saturated to 1.0.
        (
            mixed(Sub, Type::BF16, Rz, true),
            &[0x4000, 0x3f00_0000],
            0x3f80_0000,
        ),
        // 3.0 · -0.5 + 10 = 8.5.
        (
            mixed(Fma, Type::F16, Rn, false),
            &[0x4200, 0xb800, 0x4120_0000],
            0x4108_0000,
        ),
        // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20, exact in f32.
        (
            mixed(Fma, Type::F16, Rz, false),
            &[0x3c01, 0x3c01, 0],
            0x3f80_4008,
        ),
    ]);
}
