//! Float arithmetic with IEEE rounding (add, sub, mul, fma/mad, div, rcp, sqrt) and the exact
//! float operations (abs, neg, min, max, copysign, testp).
//!
//! Round-to-nearest-even on f32/f64 uses native Rust arithmetic, which is IEEE-correct
//! (`mul_add` is a fused multiply-add); the directed roundings and the half formats (f16,
//! bf16) use the soft-float of [`super::round`]. Every operation wraps the same three steps:
//! flush `.ftz` inputs, compute, then canonicalise NaNs, flush `.ftz` results and apply `.sat`
//! (see [`finish`]). Packed `.f16x2`/`.bf16x2` operations apply these per half, in
//! [`super::packed`].

use super::approx;
use super::round::{self, Format};
use isa::{FloatPrecision, Rounding, TestProp};

/// `x` as an operand: truncated to the format's width, and flushed if subnormal under `.ftz`
/// in a format the manual defines it for ([`Format::has_ftz`]).
pub(crate) fn input(fmt: Format, ftz: bool, x: u64) -> u64 {
    let x = x & fmt.mask();
    if ftz && fmt.has_ftz() {
        fmt.flush(x)
    } else {
        x
    }
}

/// A computed result: NaNs made canonical, subnormal f32 results flushed under `.ftz`, and
/// clamped to [0, 1] under `.sat`.
pub(crate) fn finish(fmt: Format, ftz: bool, sat: bool, x: u64) -> u64 {
    let x = input(fmt, ftz, fmt.canonical(x));
    if sat { saturate(fmt, x) } else { x }
}

/// `.sat` on a float result: NaN and everything at or below zero (-0.0 included) give +0.0,
/// everything above 1.0 gives 1.0.
pub fn saturate(fmt: Format, x: u64) -> u64 {
    if fmt.is_nan(x) || fmt.is_neg(x) || fmt.is_zero(x) {
        0
    } else if x > fmt.one() {
        // Positive floats order like their bits.
        fmt.one()
    } else {
        x
    }
}

/// `.relu` on a half-precision result: negative values (-0.0 included) give +0.0, NaN the
/// canonical NaN.
pub fn relu(fmt: Format, x: u64) -> u64 {
    if fmt.is_nan(x) {
        fmt.canonical_nan()
    } else if fmt.is_neg(x) {
        0
    } else {
        x
    }
}

/// `.satfinite` on a conversion's result: ±Inf (an infinite source, or an overflow rounded to
/// infinity) gives the largest finite value of its sign, NaN the canonical NaN.
pub fn satfinite(fmt: Format, x: u64) -> u64 {
    if fmt.is_nan(x) {
        fmt.canonical_nan()
    } else if fmt.is_inf(x) {
        (x & fmt.sign_bit()) | fmt.max_finite()
    } else {
        x
    }
}

/// Applies a native f32/f64 operation to bits (the half formats go to [`round`] instead).
fn native2(
    fmt: Format,
    a: u64,
    b: u64,
    f32op: fn(f32, f32) -> f32,
    f64op: fn(f64, f64) -> f64,
) -> u64 {
    match fmt {
        Format::F32 => {
            u64::from(f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits())
        }
        Format::F64 => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => {
            unreachable!("no native half arithmetic")
        }
    }
}

/// Whether Rust computes in `fmt` natively (and so rounds to nearest even in hardware).
fn native(fmt: Format) -> bool {
    matches!(fmt, Format::F32 | Format::F64)
}

/// `add{.rnd}{.ftz}{.sat}.type` (no rounding modifier means `.rn`).
pub fn add(fmt: Format, rnd: Rounding, ftz: bool, sat: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (input(fmt, ftz, a), input(fmt, ftz, b));
    let r = match rnd {
        Rounding::Rn if native(fmt) => native2(fmt, a, b, |x, y| x + y, |x, y| x + y),
        _ => round::add(fmt, a, b, rnd),
    };
    finish(fmt, ftz, sat, r)
}

/// `sub{.rnd}{.ftz}{.sat}.type`: `a + (-b)`, which IEEE defines identically (zero signs
/// included).
pub fn sub(fmt: Format, rnd: Rounding, ftz: bool, sat: bool, a: u64, b: u64) -> u64 {
    add(fmt, rnd, ftz, sat, a, b ^ fmt.sign_bit())
}

/// `mul{.rnd}{.ftz}{.sat}.type`.
pub fn mul(fmt: Format, rnd: Rounding, ftz: bool, sat: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (input(fmt, ftz, a), input(fmt, ftz, b));
    let r = match rnd {
        Rounding::Rn if native(fmt) => native2(fmt, a, b, |x, y| x * y, |x, y| x * y),
        _ => round::mul(fmt, a, b, rnd),
    };
    finish(fmt, ftz, sat, r)
}

/// `fma.rnd{.ftz}{.sat}.type` and `mad.rnd...` (the same fused operation): `a × b + c` rounded
/// once.
#[allow(clippy::too_many_arguments)]
pub fn fma(fmt: Format, rnd: Rounding, ftz: bool, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    let (a, b, c) = (input(fmt, ftz, a), input(fmt, ftz, b), input(fmt, ftz, c));
    let r = match (rnd, fmt) {
        (Rounding::Rn, Format::F32) => {
            let (x, y, z) = (
                f32::from_bits(a as u32),
                f32::from_bits(b as u32),
                f32::from_bits(c as u32),
            );
            u64::from(x.mul_add(y, z).to_bits())
        }
        (Rounding::Rn, Format::F64) => f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits(),
        _ => round::fma(fmt, a, b, c, rnd),
    };
    finish(fmt, ftz, sat, r)
}

/// `a / b` correctly rounded in direction `rnd`.
fn div_rounded(fmt: Format, rnd: Rounding, a: u64, b: u64) -> u64 {
    match rnd {
        Rounding::Rn if native(fmt) => native2(fmt, a, b, |x, y| x / y, |x, y| x / y),
        _ => round::div(fmt, a, b, rnd),
    }
}

/// `div.prec{.ftz}.type`: `.rn .rz .rm .rp` are IEEE divisions; `.approx` and `.full` are
/// f32-only and defined in [`approx`].
pub fn div(fmt: Format, prec: FloatPrecision, ftz: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (input(fmt, ftz, a), input(fmt, ftz, b));
    let r = match prec {
        FloatPrecision::Rounded(rnd) => div_rounded(fmt, rnd, a, b),
        FloatPrecision::Approx => approx::div_approx(fmt, a, b),
        FloatPrecision::Full => approx::div_full(fmt, a, b),
    };
    finish(fmt, ftz, false, r)
}

/// `rcp.prec{.ftz}.type`: `1 / a`, IEEE-rounded, or `.approx` (see [`approx::rcp_approx`]).
pub fn rcp(fmt: Format, prec: FloatPrecision, ftz: bool, a: u64) -> u64 {
    match prec {
        FloatPrecision::Rounded(rnd) => {
            let a = input(fmt, ftz, a);
            finish(fmt, ftz, false, div_rounded(fmt, rnd, fmt.one(), a))
        }
        FloatPrecision::Approx | FloatPrecision::Full => approx::rcp_approx(fmt, ftz, a),
    }
}

/// `sqrt.prec{.ftz}.type`: IEEE-rounded, or `.approx` (see [`approx::sqrt_approx`]).
pub fn sqrt(fmt: Format, prec: FloatPrecision, ftz: bool, a: u64) -> u64 {
    match prec {
        FloatPrecision::Rounded(rnd) => {
            let a = input(fmt, ftz, a);
            let r = match (rnd, fmt) {
                (Rounding::Rn, Format::F32) => u64::from(f32::from_bits(a as u32).sqrt().to_bits()),
                (Rounding::Rn, Format::F64) => f64::from_bits(a).sqrt().to_bits(),
                _ => round::sqrt(fmt, a, rnd),
            };
            finish(fmt, ftz, false, r)
        }
        FloatPrecision::Approx | FloatPrecision::Full => approx::sqrt_approx(fmt, ftz, a),
    }
}

/// `abs{.ftz}.type`: clears the sign bit (after flushing under `.ftz`). The manual leaves the
/// NaN result unspecified; warpsim keeps the NaN's payload, like a bit operation.
pub fn abs(fmt: Format, ftz: bool, a: u64) -> u64 {
    input(fmt, ftz, a) & !fmt.sign_bit()
}

/// `neg{.ftz}.type`: flips the sign bit (after flushing under `.ftz`); NaNs keep their
/// payload, as for [`abs`].
pub fn neg(fmt: Format, ftz: bool, a: u64) -> u64 {
    input(fmt, ftz, a) ^ fmt.sign_bit()
}

/// A key that orders non-NaN floats numerically, with -0.0 below +0.0.
fn order_key(fmt: Format, x: u64) -> i64 {
    let magnitude = (x & !fmt.sign_bit()) as i64;
    if fmt.is_neg(x) {
        -magnitude - 1
    } else {
        magnitude
    }
}

/// Shared NaN rules of `min`/`max`: with `.NaN` any NaN operand gives the canonical NaN;
/// otherwise one NaN gives the other operand and two give the canonical NaN.
fn min_max(fmt: Format, ftz: bool, nan: bool, a: u64, b: u64, pick_a: fn(i64, i64) -> bool) -> u64 {
    let (a, b) = (input(fmt, ftz, a), input(fmt, ftz, b));
    match (fmt.is_nan(a), fmt.is_nan(b)) {
        (true, true) => fmt.canonical_nan(),
        (true, false) | (false, true) if nan => fmt.canonical_nan(),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if pick_a(order_key(fmt, a), order_key(fmt, b)) {
                a
            } else {
                b
            }
        }
    }
}

/// `min{.ftz}{.NaN}.type`; per the manual, -0.0 is less than +0.0.
pub fn min(fmt: Format, ftz: bool, nan: bool, a: u64, b: u64) -> u64 {
    min_max(fmt, ftz, nan, a, b, |x, y| x < y)
}

/// `max{.ftz}{.NaN}.type`; per the manual, +0.0 is greater than -0.0.
pub fn max(fmt: Format, ftz: bool, nan: bool, a: u64, b: u64) -> u64 {
    min_max(fmt, ftz, nan, a, b, |x, y| x > y)
}

/// `min/max.xorsign.abs` when `xorsign`: `pick` (the min or max) of the magnitudes of `a` and
/// `b`, given the XOR of their sign bits; a NaN result stays `pick`'s canonical NaN. Without
/// `xorsign`, `pick(a, b)`.
pub fn xorsign_abs_if(
    xorsign: bool,
    fmt: Format,
    a: u64,
    b: u64,
    pick: impl Fn(u64, u64) -> u64,
) -> u64 {
    if !xorsign {
        return pick(a, b);
    }
    let magnitude = fmt.mask() & !fmt.sign_bit();
    let r = pick(a & magnitude, b & magnitude);
    if fmt.is_nan(r) {
        r
    } else {
        r | ((a ^ b) & fmt.sign_bit())
    }
}

/// `copysign.type d, a, b`: the value of **b** with the sign of **a** (the manual's operand
/// order), a pure bit operation.
pub fn copysign(fmt: Format, a: u64, b: u64) -> u64 {
    (b & fmt.mask() & !fmt.sign_bit()) | (a & fmt.sign_bit())
}

/// `testp.prop.type`: classifies `a` (no flushing: zero is neither normal nor subnormal).
pub fn testp(fmt: Format, prop: TestProp, a: u64) -> bool {
    let a = a & fmt.mask();
    let (nan, inf) = (fmt.is_nan(a), fmt.is_inf(a));
    match prop {
        TestProp::Finite => !nan && !inf,
        TestProp::Infinite => inf,
        TestProp::Number => !nan,
        TestProp::NotANumber => nan,
        TestProp::Normal => !nan && !inf && !fmt.is_zero(a) && !fmt.is_subnormal(a),
        TestProp::Subnormal => fmt.is_subnormal(a),
    }
}
