//! `cvt`: conversions between every pair of u8..u64, s8..s64, f16, bf16, f32 and f64.
//!
//! The manual's rules, by kind of conversion:
//! - integer → integer: sign- or zero-extend by the source type, truncate to the destination;
//!   `.sat` clamps to the destination's range instead.
//! - float → integer: `.rni .rzi .rmi .rpi` round to an integral value, which always saturates to
//!   the destination's range (`.sat` is redundant). NaN gives 0, except "1 << (BitWidth(dst) - 1)"
//!   (MININT for signed, `(MAXINT >> 1) + 1` for unsigned) when the source is f64 or the
//!   destination is 64-bit.
//! - integer → float and narrowing float → float: `.rn .rna .rz .rm .rp`, exact.
//! - same-size float → float with `.rni ...`: rounds to an integral value in floating point.
//! - widening float → float is exact.
//! - `.ftz` flushes subnormal f32 inputs and results; `.sat` on a float result clamps it to
//!   [0.0, 1.0] with NaN giving +0.0; `.relu` (to half precision) clamps negative results to
//!   +0.0 and `.satfinite` infinite ones to the largest finite value, both giving the canonical
//!   NaN for NaN.
//!
//! The half formats convert through the soft-float of [`round`] (every direction, exact);
//! f16 and bf16 widen exactly into f32 and f64. (A packed `.f16x2`/`.bf16x2` destination is
//! two of these conversions, put together by [`super::eval`].)

use super::float::{self, finish, input, saturate};
use super::round::{self, Format};
use super::{AluError, ext, int_range, wrap};
use isa::{CvtRounding, Rounding, Type};

/// The clamping and flushing modifiers of a conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clamp {
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
}

/// `cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.stype d, a`: `a` is the source's bits (a
/// wider register's extra bits are ignored); the result is the destination type's bits,
/// zero-extended.
pub fn cvt(dty: Type, sty: Type, rnd: CvtRounding, clamp: Clamp, a: u64) -> Result<u64, AluError> {
    if dty == Type::TF32 {
        return Ok(to_tf32(a as u32, rounding(rnd), clamp));
    }
    let r = convert_value(dty, sty, rnd, clamp.ftz, clamp.sat, a)?;
    Ok(match Format::of(dty) {
        Some(to) if clamp.relu || clamp.satfinite => {
            let r = if clamp.relu { float::relu(to, r) } else { r };
            if clamp.satfinite {
                float::satfinite(to, r)
            } else {
                r
            }
        }
        _ => r,
    })
}

fn convert_value(
    dty: Type,
    sty: Type,
    rnd: CvtRounding,
    ftz: bool,
    sat: bool,
    a: u64,
) -> Result<u64, AluError> {
    let format = |ty: Type| {
        if ty.is_float() {
            Format::of(ty)
                .map(Some)
                .ok_or(AluError::UnsupportedType { op: "cvt", ty })
        } else {
            Ok(None)
        }
    };
    Ok(match (format(sty)?, format(dty)?) {
        (None, None) => int_to_int(dty, sty, sat, a),
        (None, Some(to)) => {
            let v = ext(a, sty);
            let r = match (rounding(rnd), to) {
                // Native conversions round to nearest even; the sources are at most 64 bits.
                (Rounding::Rn, Format::F32 | Format::F64) => {
                    native_from_int(to, sty.is_signed(), v)
                }
                (mode, _) => round::from_int(to, v, mode),
            };
            finish(to, ftz, sat, r)
        }
        (Some(from), None) => float_to_int(dty, from, rnd, ftz, a),
        (Some(from), Some(to)) => float_to_float(to, from, rnd, ftz, sat, a),
    })
}

/// The 13 fraction bits of an f32 that TensorFloat-32 drops.
const TF32_DROPPED: u32 = 0x1fff;

/// `cvt.rnd{.relu}{.satfinite}.tf32.f32`: the f32 `a` rounded to 10 fraction bits in direction
/// `mode`, in f32's encoding with the dropped bits zero (as CUTLASS's software conversion
/// leaves them). Rounding the encoding is rounding the value: f32 encodings are monotonic in
/// magnitude, subnormals included, and a carry out of the fraction steps the exponent (up to
/// +Inf from the largest finite value). A NaN gives 0x7fffe000, the canonical f32 NaN with the
/// dropped bits zero.
fn to_tf32(a: u32, mode: Rounding, clamp: Clamp) -> u64 {
    let f = Format::F32;
    let x = u64::from(a);
    if f.is_nan(x) {
        return u64::from(0x7fff_ffff & !TF32_DROPPED);
    }
    let (low, kept) = (a & TF32_DROPPED, a & !TF32_DROPPED);
    let half = TF32_DROPPED / 2 + 1;
    let neg = f.is_neg(x);
    let up = match mode {
        Rounding::Rna => low >= half,
        Rounding::Rn => low > half || (low == half && kept & (TF32_DROPPED + 1) != 0),
        Rounding::Rz => false,
        Rounding::Rm => neg && low != 0,
        Rounding::Rp => !neg && low != 0,
    };
    let mut r = u64::from(if up { kept + TF32_DROPPED + 1 } else { kept });
    if clamp.relu && neg {
        r = 0;
    }
    if clamp.satfinite && f.is_inf(r) {
        r = (r & f.sign_bit()) | (f.max_finite() & !u64::from(TF32_DROPPED));
    }
    r
}

/// The rounding direction of a conversion. The front end requires one wherever it matters;
/// where none is given (exact conversions) round to nearest even is as good as any.
fn rounding(rnd: CvtRounding) -> Rounding {
    match rnd {
        CvtRounding::None => Rounding::Rn,
        CvtRounding::Float(r) | CvtRounding::Int(r) => r,
    }
}

fn int_to_int(dty: Type, sty: Type, sat: bool, a: u64) -> u64 {
    let v = ext(a, sty);
    if sat {
        let (lo, hi) = int_range(dty);
        wrap(v.clamp(lo, hi), dty)
    } else {
        wrap(v, dty)
    }
}

fn native_from_int(to: Format, signed: bool, v: i128) -> u64 {
    match (to, signed) {
        (Format::F32, true) => u64::from((v as i64 as f32).to_bits()),
        (Format::F32, false) => u64::from((v as u64 as f32).to_bits()),
        (Format::F64, true) => (v as i64 as f64).to_bits(),
        (Format::F64, false) => (v as u64 as f64).to_bits(),
        (Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2, _) => {
            unreachable!("no native half conversions")
        }
    }
}

/// The value of `a` (bits of `from`) as an f64, which holds every value of every format.
fn to_f64(from: Format, a: u64) -> f64 {
    match from {
        Format::F32 => f64::from(f32::from_bits(a as u32)),
        Format::F64 => f64::from_bits(a),
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => {
            f64::from_bits(round::convert(from, Format::F64, a, Rounding::Rn))
        }
    }
}

/// Rounds to an integral value in direction `mode` (exact in f64 for f32 and f64 sources).
fn integral(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Rn => x.round_ties_even(),
        Rounding::Rna => x.round(),
        Rounding::Rz => x.trunc(),
        Rounding::Rm => x.floor(),
        Rounding::Rp => x.ceil(),
    }
}

fn float_to_int(dty: Type, from: Format, rnd: CvtRounding, ftz: bool, a: u64) -> u64 {
    let a = input(from, ftz, a);
    if from.is_nan(a) {
        let bits = dty.bits();
        return if from == Format::F64 || bits == 64 {
            1 << (bits - 1)
        } else {
            0
        };
    }
    let x = to_f64(from, a);
    // Without a modifier (which the front end rejects) truncate, as C does.
    let mode = match rnd {
        CvtRounding::None => Rounding::Rz,
        CvtRounding::Float(r) | CvtRounding::Int(r) => r,
    };
    let r = integral(x, mode);
    // Rust's float-to-int casts saturate (and `r` is already integral), which is exactly the
    // clamping the manual prescribes.
    match dty {
        Type::U8 => u64::from(r as u8),
        Type::U16 => u64::from(r as u16),
        Type::U32 => u64::from(r as u32),
        Type::S8 => u64::from(r as i8 as u8),
        Type::S16 => u64::from(r as i16 as u16),
        Type::S32 => u64::from(r as i32 as u32),
        Type::S64 => r as i64 as u64,
        // u64 and the bit types (which the front end never pairs with floats).
        _ => wrap(i128::from(r as u64), dty),
    }
}

fn float_to_float(to: Format, from: Format, rnd: CvtRounding, ftz: bool, sat: bool, a: u64) -> u64 {
    let a = input(from, ftz, a);
    let r = match rnd {
        CvtRounding::Int(mode) => {
            // Rounding to an integral value is exact in every format, so do it in f64.
            let y = integral(to_f64(from, a), mode).to_bits();
            round::convert(Format::F64, to, y, Rounding::Rn)
        }
        CvtRounding::Float(mode) => convert(from, to, a, mode),
        CvtRounding::None => convert(from, to, a, Rounding::Rn),
    };
    let r = finish(to, ftz, false, r);
    if sat { saturate(to, r) } else { r }
}

/// A float-to-float conversion: exact when widening or keeping the format, rounded when
/// narrowing.
fn convert(from: Format, to: Format, a: u64, mode: Rounding) -> u64 {
    match (from, to, mode) {
        _ if from == to => a,
        (Format::F32, Format::F64, _) => f64::from(f32::from_bits(a as u32)).to_bits(),
        (Format::F64, Format::F32, Rounding::Rn) => u64::from((f64::from_bits(a) as f32).to_bits()),
        (from, to, mode) => round::convert(from, to, a, mode),
    }
}
