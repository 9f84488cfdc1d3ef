//! Approximate instructions: `div.approx`, `div.full`, `rcp.approx`, `sqrt.approx` and the
//! `.approx` functions `rsqrt sin cos ex2 lg2 tanh`.
//!
//! The manual only bounds their error (ex2 2 ulp, lg2 2^-22, rsqrt 2^-22.9, sin/cos 2^-20.5
//! absolute, tanh 2^-11, rcp 1 ulp, div.approx/.full 2 ulp, ...). warpsim computes each one
//! deterministically and much more accurately than required: division, reciprocal and square
//! root are correctly rounded, and the functions are evaluated in f64 (with the host libm) and
//! rounded once to f32; the half-precision forms of `ex2` and `tanh` (manual: 2^-9.9 and
//! 2^-10.7 relative error for f16) round that f32 result to nearest once more. The special values of the manual's tables follow from IEEE arithmetic:
//! `ex2(-Inf) = +0`, `lg2(±0) = -Inf`, `lg2(x<0) = NaN`, `sin(±Inf) = NaN`, `rsqrt(+0) = +Inf`,
//! `rsqrt(-0) = -Inf`, `rcp(-0) = -Inf`, `tanh(±Inf) = ±1`, `sqrt(-0) = -0`, ...
//!
//! Subnormal operands are honoured unless `.ftz` is given (the manual: "subnormal numbers are
//! supported" by default on sm_20+); with `.ftz` the tables' "subnormal" rows hold, e.g.
//! `rcp.approx.ftz(+subnormal) = +Inf` and `ex2.approx.ftz(subnormal) = 1.0`.

use super::float::{finish, input};
use super::round::{self, Format};
use isa::{Rounding, TranscFn};

/// `2^126` as f32 bits: above it, `div.approx.f32`'s reciprocal of the divisor underflows.
const F32_2_POW_126: u64 = 0x7e80_0000;

/// Evaluates an f32 function through f64, rounding once; `.ftz` flushes input and result.
fn via_f64(ftz: bool, a: u64, f: impl Fn(f64) -> f64) -> u64 {
    let x = f64::from(f32::from_bits(input(Format::F32, ftz, a) as u32));
    let r = u64::from((f(x) as f32).to_bits());
    finish(Format::F32, ftz, false, r)
}

/// A half-precision function: the f32 one on the (exactly widened) operand, rounded to nearest
/// once more; `.ftz` flushes the f16 input and result.
fn via_f32(fmt: Format, ftz: bool, a: u64, f: impl Fn(f64) -> f64) -> u64 {
    let x = round::convert(fmt, Format::F32, input(fmt, ftz, a), Rounding::Rn);
    let r = round::convert(Format::F32, fmt, via_f64(false, x, f), Rounding::Rn);
    finish(fmt, ftz, false, r)
}

/// An f64 approximate function; its `.ftz` forms (`rcp/rsqrt.approx.ftz.f64`) flush f64
/// subnormal inputs and results too.
fn f64_approx(ftz: bool, a: u64, f: impl Fn(f64) -> f64) -> u64 {
    let flush = |x: u64| if ftz { Format::F64.flush(x) } else { x };
    let r = f(f64::from_bits(flush(a))).to_bits();
    flush(Format::F64.canonical(r))
}

/// `div.approx.f32 d, a, b`: the manual defines it as `a * (1/b)` (each step rounded to
/// nearest here, at most 1.5 ulp from `a / b`), except that for `2^126 < |b| < 2^128` the result
/// is 0 (signed like the quotient), or NaN when `a` is infinite or NaN. Operands arrive already
/// flushed under `.ftz`.
pub fn div_approx(fmt: Format, a: u64, b: u64) -> u64 {
    if fmt == Format::F64 {
        // There is no div.approx.f64; the quotient is as good an approximation as any.
        return div_full(fmt, a, b);
    }
    let magnitude = b & !fmt.sign_bit();
    if magnitude > F32_2_POW_126 && magnitude < fmt.infinity() {
        if fmt.is_nan(a) || fmt.is_inf(a) {
            return fmt.canonical_nan();
        }
        return (a ^ b) & fmt.sign_bit();
    }
    let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    u64::from((x * (1.0 / y)).to_bits())
}

/// `div.full.f32`: at most 2 ulp over the full range per the manual; warpsim returns the
/// correctly rounded quotient, which meets that bound.
pub fn div_full(fmt: Format, a: u64, b: u64) -> u64 {
    match fmt {
        Format::F32 => u64::from((f32::from_bits(a as u32) / f32::from_bits(b as u32)).to_bits()),
        Format::F64 => (f64::from_bits(a) / f64::from_bits(b)).to_bits(),
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => {
            round::div(fmt, a, b, Rounding::Rn)
        }
    }
}

/// `rcp.approx{.ftz}.f32` (1 ulp per the manual) and `rcp.approx.ftz.f64` (a "gross
/// approximation" per the manual): the correctly rounded reciprocal, within both bounds.
pub fn rcp_approx(fmt: Format, ftz: bool, a: u64) -> u64 {
    match fmt {
        Format::F32 => via_f64(ftz, a, |x| 1.0 / x),
        Format::F64 => f64_approx(ftz, a, |x| 1.0 / x),
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => {
            via_f32(fmt, ftz, a, |x| 1.0 / x)
        }
    }
}

/// `sqrt.approx{.ftz}.f32` (relative error 2^-23 per the manual): the correctly rounded root
/// (the f64 root of an f32 is exact enough that rounding it to f32 is correct).
pub fn sqrt_approx(fmt: Format, ftz: bool, a: u64) -> u64 {
    match fmt {
        Format::F32 => via_f64(ftz, a, f64::sqrt),
        Format::F64 => f64_approx(ftz, a, f64::sqrt),
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => via_f32(fmt, ftz, a, f64::sqrt),
    }
}

/// `rsqrt/sin/cos/ex2/lg2/tanh.approx{.ftz}.type` (only rsqrt exists for f64).
pub fn transc(func: TranscFn, fmt: Format, ftz: bool, a: u64) -> u64 {
    let f: fn(f64) -> f64 = match func {
        TranscFn::Rsqrt => |x| 1.0 / x.sqrt(),
        TranscFn::Sin => f64::sin,
        TranscFn::Cos => f64::cos,
        TranscFn::Ex2 => f64::exp2,
        TranscFn::Lg2 => f64::log2,
        TranscFn::Tanh => f64::tanh,
    };
    match fmt {
        Format::F32 => via_f64(ftz, a, f),
        Format::F64 => f64_approx(ftz, a, f),
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => via_f32(fmt, ftz, a, f),
    }
}
