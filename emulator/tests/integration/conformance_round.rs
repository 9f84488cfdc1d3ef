//! Conformance of directed rounding (`.rz .rm .rp`) in add, sub, mul, fma, div, rcp and sqrt.
//!
//! The tables hold hand-derived bit patterns. The property tests check the defining property
//! of each direction on random operands: the exact result is compared, with an independent
//! arbitrary-precision dyadic type ([`Dy`], integer arithmetic only), against Rust's native
//! round-to-nearest result `n`; if `n` is exact every direction returns it, otherwise the exact
//! value lies strictly between `n` and its neighbour on the other side, and `.rm`/`.rp`/`.rz`
//! must return the lower, the upper, or the one nearer to zero of the two.

use emulator::alu::eval;
use isa::{FloatPrecision, Op, Rounding, Type};
use proptest::prelude::*;
use std::cmp::Ordering;

const ONE: u64 = 0x3f80_0000;
const NEG_ONE: u64 = 0xbf80_0000;
const TWO: u64 = 0x4000_0000;
const THREE: u64 = 0x4040_0000;
const HALF: u64 = 0x3f00_0000;
const INF: u64 = 0x7f80_0000;
const NEG_INF: u64 = 0xff80_0000;
const MAX: u64 = 0x7f7f_ffff;
const NEG_MAX: u64 = 0xff7f_ffff;
const NEG_ZERO: u64 = 0x8000_0000;
const MIN_SUB: u64 = 1;
const MIN_NORMAL: u64 = 0x0080_0000;
const TWO_POW_M24: u64 = 0x3380_0000;
const THIRD_UP: u64 = 0x3eaa_aaab; // 1/3 rounded up (and to nearest)
const THIRD_DOWN: u64 = 0x3eaa_aaaa;
const D_ONE: u64 = 0x3ff0_0000_0000_0000;
const D_TWO: u64 = 0x4000_0000_0000_0000;
const D_THREE: u64 = 0x4008_0000_0000_0000;
const D_MAX: u64 = 0x7fef_ffff_ffff_ffff;
const D_INF: u64 = 0x7ff0_0000_0000_0000;

use crate::eval_cases::check;
use Rounding::{Rm, Rn, Rp, Rz};
use Type::{F32, F64};

fn add(ty: Type, rnd: Rounding) -> Op {
    Op::FAdd {
        ty,
        rnd: Some(rnd),
        ftz: false,
        sat: false,
    }
}
fn sub(ty: Type, rnd: Rounding) -> Op {
    Op::FSub {
        ty,
        rnd: Some(rnd),
        ftz: false,
        sat: false,
    }
}
fn mul(ty: Type, rnd: Rounding, ftz: bool) -> Op {
    Op::FMul {
        ty,
        rnd: Some(rnd),
        ftz,
        sat: false,
    }
}
fn fma(ty: Type, rnd: Rounding) -> Op {
    Op::Fma {
        ty,
        rnd,
        ftz: false,
        sat: false,
        relu: false,
    }
}
fn div(ty: Type, rnd: Rounding) -> Op {
    Op::FDiv {
        ty,
        prec: FloatPrecision::Rounded(rnd),
        ftz: false,
    }
}
fn rcp(ty: Type, rnd: Rounding) -> Op {
    Op::Rcp {
        ty,
        prec: FloatPrecision::Rounded(rnd),
        ftz: false,
    }
}
fn sqrt(ty: Type, rnd: Rounding) -> Op {
    Op::Sqrt {
        ty,
        prec: FloatPrecision::Rounded(rnd),
        ftz: false,
    }
}

#[test]
fn f32_directed_rounding_table() {
    check(&[
        // 1 + 2^-24 lies halfway between 1 and 1 + 2^-23.
        (add(F32, Rz), &[ONE, TWO_POW_M24], ONE),
        (add(F32, Rm), &[ONE, TWO_POW_M24], ONE),
        (add(F32, Rp), &[ONE, TWO_POW_M24], 0x3f80_0001),
        (add(F32, Rn), &[ONE, TWO_POW_M24], ONE),
        (add(F32, Rz), &[NEG_ONE, 0xb380_0000], NEG_ONE),
        (add(F32, Rm), &[NEG_ONE, 0xb380_0000], 0xbf80_0001),
        (add(F32, Rp), &[NEG_ONE, 0xb380_0000], NEG_ONE),
        // Exact results are the same in every direction.
        (add(F32, Rz), &[ONE, TWO], THREE),
        (add(F32, Rp), &[ONE, TWO], THREE),
        // Exact zero sums: +0, except -0 when rounding down.
        (add(F32, Rm), &[ONE, NEG_ONE], NEG_ZERO),
        (add(F32, Rz), &[ONE, NEG_ONE], 0),
        (add(F32, Rp), &[ONE, NEG_ONE], 0),
        (add(F32, Rm), &[0, NEG_ZERO], NEG_ZERO),
        (add(F32, Rp), &[0, NEG_ZERO], 0),
        (add(F32, Rp), &[NEG_ZERO, NEG_ZERO], NEG_ZERO),
        (sub(F32, Rm), &[TWO, TWO], NEG_ZERO),
        (sub(F32, Rz), &[0, 0], 0),
        (sub(F32, Rm), &[0, 0], NEG_ZERO),
        // Overflow: the largest finite value unless rounding towards the infinity.
        (add(F32, Rz), &[MAX, MAX], MAX),
        (add(F32, Rm), &[MAX, MAX], MAX),
        (add(F32, Rp), &[MAX, MAX], INF),
        (add(F32, Rz), &[NEG_MAX, NEG_MAX], NEG_MAX),
        (add(F32, Rm), &[NEG_MAX, NEG_MAX], NEG_INF),
        (add(F32, Rp), &[NEG_MAX, NEG_MAX], NEG_MAX),
        (add(F32, Rz), &[INF, ONE], INF), // infinities are exact
        (add(F32, Rm), &[INF, NEG_INF], 0x7fff_ffff),
        // 0x3eaaaaab × 3 = 1 + 2^-25.
        (mul(F32, Rz, false), &[THIRD_UP, THREE], ONE),
        (mul(F32, Rm, false), &[THIRD_UP, THREE], ONE),
        (mul(F32, Rp, false), &[THIRD_UP, THREE], 0x3f80_0001),
        (mul(F32, Rm, false), &[0xbeaa_aaab, THREE], 0xbf80_0001),
        (mul(F32, Rp, false), &[0xbeaa_aaab, THREE], NEG_ONE),
        (mul(F32, Rz, false), &[0xbeaa_aaab, THREE], NEG_ONE),
        // Underflow: 2^-150.
        (mul(F32, Rz, false), &[MIN_SUB, HALF], 0),
        (mul(F32, Rm, false), &[MIN_SUB, HALF], 0),
        (mul(F32, Rp, false), &[MIN_SUB, HALF], MIN_SUB),
        (mul(F32, Rm, false), &[0x8000_0001, HALF], 0x8000_0001),
        (mul(F32, Rp, false), &[0x8000_0001, HALF], NEG_ZERO),
        (mul(F32, Rz, false), &[0x8000_0001, HALF], NEG_ZERO),
        (mul(F32, Rp, true), &[MIN_NORMAL, HALF], 0), // subnormal result flushed
        (mul(F32, Rm, true), &[0x8080_0000, HALF], NEG_ZERO),
        (mul(F32, Rp, false), &[MIN_NORMAL, HALF], 0x0040_0000),
        (mul(F32, Rz, false), &[MAX, TWO], MAX),
        (mul(F32, Rp, false), &[MAX, TWO], INF),
        (mul(F32, Rz, false), &[0, NEG_INF], 0x7fff_ffff),
        (mul(F32, Rp, false), &[NEG_ZERO, TWO], NEG_ZERO),
        // fma: one rounding of the exact a*b + c.
        (fma(F32, Rz), &[ONE, ONE, TWO_POW_M24], ONE),
        (fma(F32, Rp), &[ONE, ONE, TWO_POW_M24], 0x3f80_0001),
        (fma(F32, Rm), &[ONE, NEG_ONE, ONE], NEG_ZERO),
        (fma(F32, Rz), &[ONE, NEG_ONE, ONE], 0),
        (
            fma(F32, Rp),
            &[0x3f80_0800, 0x3f80_0800, 0xbf80_1000],
            TWO_POW_M24,
        ),
        (fma(F32, Rz), &[THIRD_UP, THREE, NEG_ONE], 0x3300_0000), // 2^-25 exactly
        (fma(F32, Rm), &[THIRD_UP, NEG_ONE, THIRD_UP], NEG_ZERO),
        (fma(F32, Rp), &[MIN_SUB, HALF, 0], MIN_SUB),
        (fma(F32, Rm), &[MIN_SUB, HALF, NEG_ZERO], 0),
        (fma(F32, Rz), &[MAX, TWO, NEG_MAX], MAX),
        (fma(F32, Rp), &[MAX, MAX, NEG_INF], NEG_INF),
        // Division and reciprocal.
        (div(F32, Rz), &[ONE, THREE], THIRD_DOWN),
        (div(F32, Rm), &[ONE, THREE], THIRD_DOWN),
        (div(F32, Rp), &[ONE, THREE], THIRD_UP),
        (div(F32, Rm), &[NEG_ONE, THREE], 0xbeaa_aaab),
        (div(F32, Rp), &[NEG_ONE, THREE], 0xbeaa_aaaa),
        (div(F32, Rz), &[ONE, 0], INF),
        (div(F32, Rm), &[NEG_ONE, 0], NEG_INF),
        (div(F32, Rz), &[MAX, HALF], MAX),
        (div(F32, Rp), &[MAX, HALF], INF),
        (div(F32, Rz), &[TWO, TWO], ONE),
        (div(F32, Rp), &[MIN_SUB, TWO], MIN_SUB),
        (div(F32, Rz), &[MIN_SUB, TWO], 0),
        (rcp(F32, Rz), &[THREE], THIRD_DOWN),
        (rcp(F32, Rp), &[THREE], THIRD_UP),
        (rcp(F32, Rm), &[NEG_ZERO], NEG_INF),
        (rcp(F32, Rz), &[0x7f00_0000], 0x0040_0000),
        // √2 = 1.41421356..., 0x3fb504f3 = 1.41421353...
        (sqrt(F32, Rz), &[TWO], 0x3fb5_04f3),
        (sqrt(F32, Rm), &[TWO], 0x3fb5_04f3),
        (sqrt(F32, Rp), &[TWO], 0x3fb5_04f4),
        (sqrt(F32, Rp), &[0x4080_0000], TWO),
        (sqrt(F32, Rm), &[NEG_ZERO], NEG_ZERO),
        (sqrt(F32, Rz), &[NEG_ONE], 0x7fff_ffff),
        (sqrt(F32, Rp), &[INF], INF),
    ]);
}

#[test]
fn f64_directed_rounding_table() {
    check(&[
        (
            add(F64, Rp),
            &[D_ONE, 0x3ca0_0000_0000_0000],
            0x3ff0_0000_0000_0001,
        ),
        (add(F64, Rz), &[D_ONE, 0x3ca0_0000_0000_0000], D_ONE),
        (
            add(F64, Rm),
            &[D_ONE, 0xbff0_0000_0000_0000],
            0x8000_0000_0000_0000,
        ),
        (add(F64, Rz), &[D_MAX, D_MAX], D_MAX),
        (add(F64, Rp), &[D_MAX, D_MAX], D_INF),
        (
            add(F64, Rm),
            &[D_INF, 0xfff0_0000_0000_0000],
            0xfff8_0000_0000_0000,
        ),
        (div(F64, Rz), &[D_ONE, D_THREE], 0x3fd5_5555_5555_5555),
        (div(F64, Rp), &[D_ONE, D_THREE], 0x3fd5_5555_5555_5556),
        (
            div(F64, Rm),
            &[0xbff0_0000_0000_0000, D_THREE],
            0xbfd5_5555_5555_5556,
        ),
        (rcp(F64, Rp), &[D_THREE], 0x3fd5_5555_5555_5556),
        (mul(F64, Rp, false), &[1, 0x3fe0_0000_0000_0000], 1),
        (mul(F64, Rz, false), &[1, 0x3fe0_0000_0000_0000], 0),
        (
            mul(F64, Rm, false),
            &[D_TWO, D_THREE],
            0x4018_0000_0000_0000,
        ),
        (
            fma(F64, Rp),
            &[D_ONE, D_ONE, 0x3ca0_0000_0000_0000],
            0x3ff0_0000_0000_0001,
        ),
        (
            fma(F64, Rm),
            &[D_ONE, 0xbff0_0000_0000_0000, D_ONE],
            0x8000_0000_0000_0000,
        ),
        // √2 = 1.41421356237309504..., 0x3ff6a09e667f3bcd = 1.41421356237309514...
        (sqrt(F64, Rz), &[D_TWO], 0x3ff6_a09e_667f_3bcc),
        (sqrt(F64, Rm), &[D_TWO], 0x3ff6_a09e_667f_3bcc),
        (sqrt(F64, Rp), &[D_TWO], 0x3ff6_a09e_667f_3bcd),
        (sqrt(F64, Rp), &[1], 0x1e60_0000_0000_0000),
    ]);
}

// ---- the exact oracle ----

/// An exact dyadic rational `(-1)^neg × mag × 2^exp`; `mag` is a little-endian big integer with
/// no leading zero limbs (empty for zero).
#[derive(Clone, Debug)]
struct Dy {
    neg: bool,
    mag: Vec<u64>,
    exp: i64,
}

fn trim(v: &mut Vec<u64>) {
    while v.last() == Some(&0) {
        v.pop();
    }
}

fn shl(v: &[u64], n: u64) -> Vec<u64> {
    let (limbs, bits) = ((n / 64) as usize, n % 64);
    let mut out = vec![0; limbs];
    let mut carry = 0;
    for &x in v {
        out.push(x << bits | carry);
        carry = if bits == 0 { 0 } else { x >> (64 - bits) };
    }
    out.push(carry);
    trim(&mut out);
    out
}

fn cmp_mag(a: &[u64], b: &[u64]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut carry = 0u128;
    for i in 0..a.len().max(b.len()) {
        let s = u128::from(*a.get(i).unwrap_or(&0)) + u128::from(*b.get(i).unwrap_or(&0)) + carry;
        out.push(s as u64);
        carry = s >> 64;
    }
    out.push(carry as u64);
    trim(&mut out);
    out
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut borrow = 0i128;
    for (i, &x) in a.iter().enumerate() {
        let d = i128::from(x) - i128::from(*b.get(i).unwrap_or(&0)) - borrow;
        borrow = i128::from(d < 0);
        out.push((d + (borrow << 64)) as u64);
    }
    trim(&mut out);
    out
}

fn mul_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len() + 1];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &y) in b.iter().enumerate() {
            let t = u128::from(x) * u128::from(y) + u128::from(out[i + j]) + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
        out[i + b.len()] = carry as u64;
    }
    trim(&mut out);
    out
}

impl Dy {
    /// The exact value of finite float bits (`frac` fraction bits, `ebits` exponent bits).
    fn from_bits(bits: u64, frac: u32, ebits: u32) -> Dy {
        let bias = (1i64 << (ebits - 1)) - 1;
        let e = ((bits >> frac) & ((1 << ebits) - 1)) as i64;
        let f = bits & ((1 << frac) - 1);
        let (m, exp) = if e == 0 {
            (f, 1 - bias - i64::from(frac))
        } else {
            (f | 1 << frac, e - bias - i64::from(frac))
        };
        let mut mag = vec![m];
        trim(&mut mag);
        Dy {
            neg: bits >> (frac + ebits) & 1 == 1,
            mag,
            exp,
        }
    }

    fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    fn negated(&self) -> Dy {
        Dy {
            neg: !self.neg,
            ..self.clone()
        }
    }

    fn mul(&self, o: &Dy) -> Dy {
        Dy {
            neg: self.neg != o.neg,
            mag: mul_mag(&self.mag, &o.mag),
            exp: self.exp + o.exp,
        }
    }

    fn add(&self, o: &Dy) -> Dy {
        if self.is_zero() {
            return o.clone();
        }
        if o.is_zero() {
            return self.clone();
        }
        let exp = self.exp.min(o.exp);
        let a = shl(&self.mag, (self.exp - exp) as u64);
        let b = shl(&o.mag, (o.exp - exp) as u64);
        let (neg, mag) = if self.neg == o.neg {
            (self.neg, add_mag(&a, &b))
        } else {
            match cmp_mag(&a, &b) {
                Ordering::Greater => (self.neg, sub_mag(&a, &b)),
                Ordering::Less => (o.neg, sub_mag(&b, &a)),
                Ordering::Equal => (false, Vec::new()),
            }
        };
        Dy { neg, mag, exp }
    }

    fn sign(&self) -> Ordering {
        match (self.is_zero(), self.neg) {
            (true, _) => Ordering::Equal,
            (false, true) => Ordering::Less,
            (false, false) => Ordering::Greater,
        }
    }
}

/// One of the two formats, as the oracle needs it.
#[derive(Clone, Copy)]
struct Fmt {
    frac: u32,
    ebits: u32,
}

const FMT32: Fmt = Fmt { frac: 23, ebits: 8 };
const FMT64: Fmt = Fmt {
    frac: 52,
    ebits: 11,
};

impl Fmt {
    fn sign(self) -> u64 {
        1 << (self.frac + self.ebits)
    }
    fn inf(self) -> u64 {
        ((1 << self.ebits) - 1) << self.frac
    }
    fn is_finite(self, x: u64) -> bool {
        x & self.inf() != self.inf()
    }
    fn is_nan(self, x: u64) -> bool {
        x & !self.sign() > self.inf()
    }
    fn is_zero(self, x: u64) -> bool {
        x & !self.sign() == 0
    }
    fn nan(self) -> u64 {
        if self.frac == 23 {
            0x7fff_ffff
        } else {
            0xfff8_0000_0000_0000
        }
    }
    fn value(self, x: u64) -> Dy {
        Dy::from_bits(x, self.frac, self.ebits)
    }
    /// The next representable value above `x` (not NaN, not +Inf).
    fn next_up(self, x: u64) -> u64 {
        if self.is_zero(x) {
            1
        } else if x & self.sign() == 0 {
            x + 1
        } else if x == self.sign() | 1 {
            self.sign() // -min_subnormal → -0
        } else {
            x - 1
        }
    }
    /// The next representable value below `x` (not NaN, not -Inf).
    fn next_down(self, x: u64) -> u64 {
        self.next_up(x ^ self.sign()) ^ self.sign()
    }
}

/// The result each direction must give, from the round-to-nearest result `n` and `above`,
/// the sign of `candidate - exact` for any candidate (`Greater`: the candidate is above).
fn directed(fmt: Fmt, n: u64, mode: Rounding, above: &dyn Fn(u64) -> Ordering) -> Option<u64> {
    let (lo, hi) = match above(n) {
        Ordering::Equal => return None, // exact: every direction returns n (zero signs aside)
        Ordering::Greater => (fmt.next_down(n), n),
        Ordering::Less => (n, fmt.next_up(n)),
    };
    // The exact value is positive iff +0 lies below it.
    let positive = above(0) == Ordering::Less;
    Some(match mode {
        Rm => lo,
        Rp => hi,
        _ if positive => lo,
        _ => hi,
    })
}

/// `candidate - exact` for an exact value given as a dyadic, with infinities handled.
fn vs_exact(fmt: Fmt, exact: &Dy) -> impl Fn(u64) -> Ordering + '_ {
    move |c| {
        if !fmt.is_finite(c) {
            return if c & fmt.sign() == 0 {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        fmt.value(c).add(&exact.negated()).sign()
    }
}

/// Checks the three directed results of an operation against its native `.rn` result `n`.
/// `exact_inf` says the exact result is infinite or NaN (an operand is, or a division by zero),
/// in which case every direction must give exactly the `.rn` result.
fn check_directed(
    fmt: Fmt,
    n: u64,
    exact_inf: bool,
    run: &dyn Fn(Rounding) -> u64,
    above: &dyn Fn(u64) -> Ordering,
) -> Result<(), TestCaseError> {
    let n = if fmt.is_nan(n) { fmt.nan() } else { n };
    for mode in [Rz, Rm, Rp] {
        let got = run(mode);
        if exact_inf || fmt.is_nan(n) {
            prop_assert_eq!(got, n, "{:?}", mode);
            continue;
        }
        match directed(fmt, n, mode, above) {
            Some(want) => prop_assert_eq!(got, want, "{:?}: rn {:#x}", mode, n),
            None if fmt.is_zero(n) => prop_assert!(fmt.is_zero(got), "{:?}: {:#x}", mode, got),
            None => prop_assert_eq!(got, n, "{:?}", mode),
        }
    }
    Ok(())
}

fn run(op: Op, srcs: &[u64]) -> u64 {
    eval(&op, srcs, &mut false).unwrap()[0]
}

/// f32 bit patterns spread over all binades, with extra weight on subnormals, values near 1
/// and huge values, so that sums and products meet and cancel often.
fn f32_bits() -> impl Strategy<Value = u64> {
    let with_exp = |lo: u64, hi: u64| {
        (any::<bool>(), lo..hi, any::<u32>())
            .prop_map(|(s, e, m)| u64::from(s) << 31 | e << 23 | u64::from(m & 0x7f_ffff))
    };
    prop_oneof![
        any::<u32>().prop_map(u64::from),
        with_exp(0, 3),
        with_exp(120, 134),
        with_exp(250, 255),
    ]
}

fn f64_bits() -> impl Strategy<Value = u64> {
    let with_exp = |lo: u64, hi: u64| {
        (any::<bool>(), lo..hi, any::<u64>())
            .prop_map(|(s, e, m)| u64::from(s) << 63 | e << 52 | (m & 0xf_ffff_ffff_ffff))
    };
    prop_oneof![
        any::<u64>(),
        with_exp(0, 3),
        with_exp(1015, 1030),
        with_exp(2040, 2047),
    ]
}

fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
fn bits32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn f32_add_sub_directed(a in f32_bits(), b in f32_bits()) {
        let inf = !FMT32.is_finite(a) || !FMT32.is_finite(b);
        let exact = FMT32.value(a).add(&FMT32.value(b));
        let n = bits32(f32_of(a) + f32_of(b));
        check_directed(FMT32, n, inf, &|m| run(add(F32, m), &[a, b]), &vs_exact(FMT32, &exact))?;
        let exact = FMT32.value(a).add(&FMT32.value(b).negated());
        let n = bits32(f32_of(a) - f32_of(b));
        check_directed(FMT32, n, inf, &|m| run(sub(F32, m), &[a, b]), &vs_exact(FMT32, &exact))?;
    }

    #[test]
    fn f32_mul_directed(a in f32_bits(), b in f32_bits()) {
        let inf = !FMT32.is_finite(a) || !FMT32.is_finite(b);
        let exact = FMT32.value(a).mul(&FMT32.value(b));
        let n = bits32(f32_of(a) * f32_of(b));
        check_directed(FMT32, n, inf, &|m| run(mul(F32, m, false), &[a, b]), &vs_exact(FMT32, &exact))?;
    }

    #[test]
    fn f32_fma_directed(a in f32_bits(), b in f32_bits(), c in f32_bits()) {
        let inf = [a, b, c].iter().any(|&x| !FMT32.is_finite(x));
        let exact = FMT32.value(a).mul(&FMT32.value(b)).add(&FMT32.value(c));
        let n = bits32(f32_of(a).mul_add(f32_of(b), f32_of(c)));
        check_directed(FMT32, n, inf, &|m| run(fma(F32, m), &[a, b, c]), &vs_exact(FMT32, &exact))?;
    }

    #[test]
    fn f32_div_directed(a in f32_bits(), b in f32_bits()) {
        let inf = !FMT32.is_finite(a) || !FMT32.is_finite(b) || FMT32.is_zero(b);
        let (va, vb) = (FMT32.value(a), FMT32.value(b));
        // sign(q - a/b) = sign(q·b - a) · sign(b)
        let above = |q: u64| {
            if !FMT32.is_finite(q) {
                return if q & FMT32.sign() == 0 { Ordering::Greater } else { Ordering::Less };
            }
            let d = FMT32.value(q).mul(&vb).add(&va.negated()).sign();
            if vb.neg { d.reverse() } else { d }
        };
        let n = bits32(f32_of(a) / f32_of(b));
        check_directed(FMT32, n, inf, &|m| run(div(F32, m), &[a, b]), &above)?;
    }

    #[test]
    fn f32_sqrt_directed(a in f32_bits()) {
        let inf = !FMT32.is_finite(a) || a >> 31 == 1;
        let va = FMT32.value(a);
        // For r >= 0: sign(r - √a) = sign(r² - a).
        let above = |r: u64| {
            if !FMT32.is_finite(r) {
                return Ordering::Greater;
            }
            let vr = FMT32.value(r);
            if vr.neg && !vr.is_zero() {
                return Ordering::Less;
            }
            vr.mul(&vr).add(&va.negated()).sign()
        };
        let n = bits32(f32_of(a).sqrt());
        check_directed(FMT32, n, inf, &|m| run(sqrt(F32, m), &[a]), &above)?;
    }

    #[test]
    fn f64_add_mul_directed(a in f64_bits(), b in f64_bits()) {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let inf = !x.is_finite() || !y.is_finite();
        let exact = FMT64.value(a).add(&FMT64.value(b));
        check_directed(FMT64, (x + y).to_bits(), inf, &|m| run(add(F64, m), &[a, b]), &vs_exact(FMT64, &exact))?;
        let exact = FMT64.value(a).mul(&FMT64.value(b));
        check_directed(FMT64, (x * y).to_bits(), inf, &|m| run(mul(F64, m, false), &[a, b]), &vs_exact(FMT64, &exact))?;
    }

    #[test]
    fn f64_fma_directed(a in f64_bits(), b in f64_bits(), c in f64_bits()) {
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let inf = !x.is_finite() || !y.is_finite() || !z.is_finite();
        let exact = FMT64.value(a).mul(&FMT64.value(b)).add(&FMT64.value(c));
        let n = x.mul_add(y, z).to_bits();
        check_directed(FMT64, n, inf, &|m| run(fma(F64, m), &[a, b, c]), &vs_exact(FMT64, &exact))?;
    }

    #[test]
    fn f64_div_sqrt_directed(a in f64_bits(), b in f64_bits()) {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let (va, vb) = (FMT64.value(a), FMT64.value(b));
        let inf = !x.is_finite() || !y.is_finite() || y == 0.0;
        let above = |q: u64| {
            if !FMT64.is_finite(q) {
                return if q >> 63 == 0 { Ordering::Greater } else { Ordering::Less };
            }
            let d = FMT64.value(q).mul(&vb).add(&va.negated()).sign();
            if vb.neg { d.reverse() } else { d }
        };
        check_directed(FMT64, (x / y).to_bits(), inf, &|m| run(div(F64, m), &[a, b]), &above)?;
        let inf = !x.is_finite() || x < 0.0;
        let above = |r: u64| {
            if !FMT64.is_finite(r) {
                return Ordering::Greater;
            }
            let vr = FMT64.value(r);
            vr.mul(&vr).add(&va.negated()).sign()
        };
        check_directed(FMT64, x.sqrt().to_bits(), inf, &|m| run(sqrt(F64, m), &[a]), &above)?;
    }
}
