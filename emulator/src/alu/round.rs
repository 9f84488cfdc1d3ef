//! Correctly rounded f16/bf16/f32/f64 arithmetic under every IEEE rounding direction, in
//! integer soft-float.
//!
//! Rust and Cranelift only compute round-to-nearest-even, but PTX's `.rz .rm .rp` (and cvt's
//! `.rna`) must be exact as well. Each operation here forms its exact result as an integer
//! significand times a power of two — plus a *sticky* flag standing for nonzero bits below the
//! significand when the exact value has too many (a quotient, a square root, the far-away
//! operand of a sum) — and rounds it once with [`round`]. The significands are kept wide (at
//! least 62 bits above any sticky bits, against 53 needed) so the flag never sits next to the
//! rounding position and every rounding decision is exact.
//!
//! Round-to-nearest-even results of these functions are identical to the hardware's (and
//! Rust's), which the unit tests check against native arithmetic; [`super::float`] uses native
//! arithmetic for f32/f64 `.rn` and this module for the other directions and for the half
//! formats, which Rust does not compute in.

use isa::{Rounding, Type};
use std::cmp::Ordering;

/// A binary format PTX computes in: IEEE binary16 (`.f16`), bfloat16 (`.bf16`: binary32's
/// exponent, 8 significand bits), binary32 and binary64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    F16,
    BF16,
    F32,
    F64,
    /// OCP FP8 E4M3: no infinities; only S.1111.111 is NaN, so the top binade is finite up to
    /// 448 and overflow saturates (PTX converts to it only with `.satfinite`).
    E4M3,
    /// OCP FP8 E5M2: IEEE binary16's top byte.
    E5M2,
}

impl Format {
    /// The format of a scalar float type (a packed `.f16x2`/`.bf16x2` is two values of
    /// [`Format::element_of`]).
    pub fn of(ty: Type) -> Option<Format> {
        match ty {
            Type::F16 => Some(Format::F16),
            Type::BF16 => Some(Format::BF16),
            Type::E4M3 => Some(Format::E4M3),
            Type::E5M2 => Some(Format::E5M2),
            Type::F32 => Some(Format::F32),
            Type::F64 => Some(Format::F64),
            _ => None,
        }
    }

    /// The format of each element of a scalar or packed float type.
    pub fn element_of(ty: Type) -> Option<Format> {
        match ty {
            Type::F16x2 => Some(Format::F16),
            Type::BF16x2 => Some(Format::BF16),
            Type::E4M3x2 => Some(Format::E4M3),
            Type::E5M2x2 => Some(Format::E5M2),
            _ => Format::of(ty),
        }
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Format::E4M3 | Format::E5M2 => 8,
            Format::F16 | Format::BF16 => 16,
            Format::F32 => 32,
            Format::F64 => 64,
        }
    }

    /// All ones in the format's width.
    pub const fn mask(self) -> u64 {
        match self {
            Format::F64 => !0,
            _ => (1 << self.bits()) - 1,
        }
    }

    /// Significand bits, the hidden bit included.
    pub const fn precision(self) -> u32 {
        match self {
            Format::E5M2 => 3,
            Format::E4M3 => 4,
            Format::F16 => 11,
            Format::BF16 => 8,
            Format::F32 => 24,
            Format::F64 => 53,
        }
    }

    /// Stored fraction bits.
    pub const fn frac_bits(self) -> u32 {
        self.precision() - 1
    }

    /// Exponent of the smallest subnormal's (only) bit.
    const fn min_lsb(self) -> i32 {
        match self {
            Format::E4M3 => -9,
            Format::E5M2 => -16,
            Format::F16 => -24,
            Format::BF16 => -133,
            Format::F32 => -149,
            Format::F64 => -1074,
        }
    }

    /// Exponent of the largest finite value's msb.
    const fn max_exp(self) -> i32 {
        match self {
            Format::E4M3 => 8,
            Format::F16 | Format::E5M2 => 15,
            Format::BF16 | Format::F32 => 127,
            Format::F64 => 1023,
        }
    }

    /// The sign bit.
    pub const fn sign_bit(self) -> u64 {
        1 << (self.bits() - 1)
    }

    /// The exponent field, which is also +Inf's encoding.
    pub const fn exp_mask(self) -> u64 {
        self.mask() >> 1 & !(self.min_normal() - 1)
    }

    /// +Inf; for E4M3, which has none, the largest finite value (where it saturates).
    pub const fn infinity(self) -> u64 {
        match self {
            Format::E4M3 => self.max_finite(),
            _ => self.exp_mask(),
        }
    }

    /// The largest finite value.
    pub const fn max_finite(self) -> u64 {
        match self {
            Format::E4M3 => 0x7e,
            _ => self.exp_mask() - 1,
        }
    }

    /// The smallest normal value.
    pub const fn min_normal(self) -> u64 {
        1 << self.frac_bits()
    }

    /// +1.0.
    pub const fn one(self) -> u64 {
        match self {
            Format::E4M3 => 0x38,
            Format::E5M2 => 0x3c,
            Format::F16 => 0x3c00,
            Format::BF16 => 0x3f80,
            Format::F32 => 0x3f80_0000,
            Format::F64 => 0x3ff0_0000_0000_0000,
        }
    }

    /// The NaN warpsim's float arithmetic returns (see the module docs of [`super`]).
    pub const fn canonical_nan(self) -> u64 {
        match self {
            // CUDA's CUDART_NAN_FP16 and CUDART_NAN_BF16, which the half-precision units return.
            Format::F16 | Format::BF16 => 0x7fff,
            Format::E4M3 | Format::E5M2 => 0x7f,
            Format::F32 => 0x7fff_ffff,
            Format::F64 => 0xfff8_0000_0000_0000,
        }
    }

    /// Whether `.ftz` applies to this format: the manual defines it for f32 and f16 (bf16
    /// always keeps subnormals; f64 ignores it, apart from two approximations).
    pub const fn has_ftz(self) -> bool {
        matches!(self, Format::F16 | Format::F32)
    }

    /// Whether `x` (bits of this format) is a NaN.
    pub const fn is_nan(self, x: u64) -> bool {
        match self {
            Format::E4M3 => x & 0x7f == 0x7f,
            _ => x & !self.sign_bit() > self.exp_mask(),
        }
    }

    /// Whether `x` is ±Inf.
    pub const fn is_inf(self, x: u64) -> bool {
        !matches!(self, Format::E4M3) && x & !self.sign_bit() == self.exp_mask()
    }

    /// Whether `x` is ±0.
    pub const fn is_zero(self, x: u64) -> bool {
        x & !self.sign_bit() == 0
    }

    /// Whether `x` is a (nonzero) subnormal.
    pub const fn is_subnormal(self, x: u64) -> bool {
        let m = x & !self.sign_bit();
        m != 0 && m & self.exp_mask() == 0
    }

    /// Whether the sign bit of `x` is set.
    pub const fn is_neg(self, x: u64) -> bool {
        x & self.sign_bit() != 0
    }

    /// A zero with the given sign.
    pub const fn zero(self, neg: bool) -> u64 {
        if neg { self.sign_bit() } else { 0 }
    }

    /// `x` with subnormals replaced by zeros of the same sign (`.ftz`).
    pub const fn flush(self, x: u64) -> u64 {
        if self.is_subnormal(x) {
            x & self.sign_bit()
        } else {
            x
        }
    }

    /// `x` with any NaN replaced by the canonical NaN.
    pub const fn canonical(self, x: u64) -> u64 {
        if self.is_nan(x) {
            self.canonical_nan()
        } else {
            x
        }
    }
}

/// A nonzero finite real `(-1)^neg × (mant + δ) × 2^exp`, where `0 < δ < 1` exactly when
/// `sticky` is set (the value has nonzero bits below the significand).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Exact {
    neg: bool,
    mant: u128,
    exp: i32,
    sticky: bool,
}

/// A decoded operand.
enum Class {
    Nan,
    Inf(bool),
    Zero(bool),
    Finite(Exact),
}

fn decode(fmt: Format, x: u64) -> Class {
    let neg = fmt.is_neg(x);
    let biased = (x & fmt.exp_mask()) >> fmt.frac_bits();
    let frac = x & (fmt.min_normal() - 1);
    if fmt.is_nan(x) {
        return Class::Nan;
    }
    if fmt.is_inf(x) {
        return Class::Inf(neg);
    }
    if biased == 0 && frac == 0 {
        return Class::Zero(neg);
    }
    let (mant, exp) = if biased == 0 {
        (frac, fmt.min_lsb())
    } else {
        (frac | fmt.min_normal(), biased as i32 - 1 + fmt.min_lsb())
    };
    Class::Finite(Exact {
        neg,
        mant: u128::from(mant),
        exp,
        sticky: false,
    })
}

/// The result of an overflow: ±Inf or the largest finite value, by rounding direction.
fn overflow(fmt: Format, neg: bool, mode: Rounding) -> u64 {
    let to_inf = match mode {
        // E4M3 has no infinity: it saturates.
        _ if fmt == Format::E4M3 => false,
        Rounding::Rn | Rounding::Rna => true,
        Rounding::Rz => false,
        Rounding::Rm => neg,
        Rounding::Rp => !neg,
    };
    fmt.zero(neg)
        | if to_inf {
            fmt.infinity()
        } else {
            fmt.max_finite()
        }
}

/// Rounds `x` to `fmt` in direction `mode`: the one rounding of every operation here.
fn round(fmt: Format, x: Exact, mode: Rounding) -> u64 {
    debug_assert!(x.mant != 0);
    let p = fmt.precision() as i32;
    let msb = 127 - x.mant.leading_zeros() as i32;
    // The result's lsb: p bits below the value's msb, but never below the subnormal lsb.
    let mut lsb = (x.exp + msb - (p - 1)).max(fmt.min_lsb());
    let shift = lsb - x.exp;
    // `half` compares the discarded part with half an ulp of the result.
    let (mut q, half, inexact) = if shift <= 0 {
        // Every significand bit is kept; a sticky tail (never this close, see the module docs)
        // would be below half an ulp.
        debug_assert!(!x.sticky);
        (x.mant << -shift, Ordering::Less, x.sticky)
    } else if shift > 128 {
        (0, Ordering::Less, true)
    } else {
        let (q, rest) = if shift == 128 {
            (0, x.mant)
        } else {
            (x.mant >> shift, x.mant & ((1 << shift) - 1))
        };
        let half = rest.cmp(&(1 << (shift - 1))).then(if x.sticky {
            Ordering::Greater
        } else {
            Ordering::Equal
        });
        (q, half, rest != 0 || x.sticky)
    };
    let up = match mode {
        Rounding::Rn => half == Ordering::Greater || (half == Ordering::Equal && q & 1 == 1),
        Rounding::Rna => half != Ordering::Less,
        Rounding::Rz => false,
        Rounding::Rm => inexact && x.neg,
        Rounding::Rp => inexact && !x.neg,
    };
    if up {
        q += 1;
        if q == 1 << p {
            q >>= 1;
            lsb += 1;
        }
    }
    if q == 0 {
        return fmt.zero(x.neg);
    }
    if lsb + (127 - q.leading_zeros() as i32) > fmt.max_exp() {
        return overflow(fmt, x.neg, mode);
    }
    // Subnormals have lsb == min_lsb and q < 2^(p-1); normals carry the hidden bit in q, which
    // adds the 1 that the biased exponent needs.
    let bits = fmt.zero(x.neg) | ((((lsb - fmt.min_lsb()) as u64) << (p - 1)) + q as u64);
    if fmt.is_nan(bits) {
        // Only E4M3 gets here: its would-be 480 is its NaN, so the value has overflowed.
        return overflow(fmt, x.neg, mode);
    }
    bits
}

/// `x` shifted left so that its msb is bit `top` (its msb must be at most `top`).
fn normalize(x: Exact, top: u32) -> Exact {
    let s = top - (127 - x.mant.leading_zeros());
    Exact {
        mant: x.mant << s,
        exp: x.exp - s as i32,
        ..x
    }
}

/// The exact sum of two exact values of at most 126 significant bits, or `None` if it is zero.
fn exact_add(x: Exact, y: Exact) -> Option<Exact> {
    debug_assert!(!x.sticky && !y.sticky);
    // Both msbs at bit 125 leave room for the carry of a same-sign sum.
    let (mut x, mut y) = (normalize(x, 125), normalize(y, 125));
    if x.exp < y.exp {
        std::mem::swap(&mut x, &mut y);
    }
    let d = (x.exp - y.exp) as u32;
    let (ym, sticky) = match d {
        0 => (y.mant, false),
        1..128 => (y.mant >> d, y.mant & ((1 << d) - 1) != 0),
        _ => (0, true),
    };
    if x.neg == y.neg {
        return Some(Exact {
            mant: x.mant + ym,
            sticky,
            ..x
        });
    }
    if d == 0 {
        // Same exponent, opposite signs: the larger significand wins (or they cancel).
        return match x.mant.cmp(&ym) {
            Ordering::Equal => None,
            Ordering::Greater => Some(Exact {
                mant: x.mant - ym,
                ..x
            }),
            Ordering::Less => Some(Exact {
                mant: ym - x.mant,
                ..y
            }),
        };
    }
    // d >= 1: y's shifted significand (plus its tail δ) is below 2^125 <= x's. Subtracting a
    // tail δ borrows one unit and leaves 1 - δ, again strictly between 0 and 1.
    Some(Exact {
        mant: x.mant - ym - u128::from(sticky),
        sticky,
        ..x
    })
}

/// The exact product (at most 106 significant bits).
fn exact_mul(x: Exact, y: Exact) -> Exact {
    Exact {
        neg: x.neg != y.neg,
        mant: x.mant * y.mant,
        exp: x.exp + y.exp,
        sticky: false,
    }
}

/// The quotient to at least 74 significant bits, with the remainder as the sticky flag.
fn exact_div(x: Exact, y: Exact) -> Exact {
    let s = x.mant.leading_zeros();
    let num = x.mant << s;
    Exact {
        neg: x.neg != y.neg,
        mant: num / y.mant,
        exp: x.exp - s as i32 - y.exp,
        sticky: !num.is_multiple_of(y.mant),
    }
}

/// The square root to at least 63 significant bits, with the remainder as the sticky flag.
fn exact_sqrt(x: Exact) -> Exact {
    // Shift the msb to bit 127 or 126, whichever leaves an even exponent.
    let mut s = x.mant.leading_zeros() as i32;
    if (x.exp - s) % 2 != 0 {
        s -= 1;
    }
    let m = x.mant << s;
    let r = m.isqrt();
    Exact {
        neg: false,
        mant: r,
        exp: (x.exp - s) / 2,
        sticky: r * r != m,
    }
}

/// The sign of an exact zero sum of nonzero terms: +0, except -0 when rounding down.
fn zero_sum(fmt: Format, mode: Rounding) -> u64 {
    fmt.zero(mode == Rounding::Rm)
}

/// `a + b` rounded in direction `mode`.
pub fn add(fmt: Format, a: u64, b: u64, mode: Rounding) -> u64 {
    match (decode(fmt, a), decode(fmt, b)) {
        (Class::Nan, _) | (_, Class::Nan) => fmt.canonical_nan(),
        (Class::Inf(x), Class::Inf(y)) if x != y => fmt.canonical_nan(),
        (Class::Inf(_), _) => a,
        (_, Class::Inf(_)) => b,
        (Class::Zero(x), Class::Zero(y)) if x == y => a,
        (Class::Zero(_), Class::Zero(_)) => zero_sum(fmt, mode),
        (Class::Zero(_), Class::Finite(_)) => b,
        (Class::Finite(_), Class::Zero(_)) => a,
        (Class::Finite(x), Class::Finite(y)) => match exact_add(x, y) {
            Some(s) => round(fmt, s, mode),
            None => zero_sum(fmt, mode),
        },
    }
}

/// `a × b` rounded in direction `mode`.
pub fn mul(fmt: Format, a: u64, b: u64, mode: Rounding) -> u64 {
    let neg = fmt.is_neg(a) != fmt.is_neg(b);
    match (decode(fmt, a), decode(fmt, b)) {
        (Class::Nan, _) | (_, Class::Nan) => fmt.canonical_nan(),
        (Class::Inf(_), Class::Zero(_)) | (Class::Zero(_), Class::Inf(_)) => fmt.canonical_nan(),
        (Class::Inf(_), _) | (_, Class::Inf(_)) => fmt.zero(neg) | fmt.infinity(),
        (Class::Zero(_), _) | (_, Class::Zero(_)) => fmt.zero(neg),
        (Class::Finite(x), Class::Finite(y)) => round(fmt, exact_mul(x, y), mode),
    }
}

/// `a × b + c` with a single rounding in direction `mode`.
pub fn fma(fmt: Format, a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    let neg = fmt.is_neg(a) != fmt.is_neg(b);
    let (ca, cb, cc) = (decode(fmt, a), decode(fmt, b), decode(fmt, c));
    if matches!(ca, Class::Nan) || matches!(cb, Class::Nan) || matches!(cc, Class::Nan) {
        return fmt.canonical_nan();
    }
    // The product's class decides the special cases; only finite × finite is rounded.
    let product = match (ca, cb) {
        (Class::Inf(_), Class::Zero(_)) | (Class::Zero(_), Class::Inf(_)) => {
            return fmt.canonical_nan();
        }
        (Class::Inf(_), _) | (_, Class::Inf(_)) => Class::Inf(neg),
        (Class::Zero(_), _) | (_, Class::Zero(_)) => Class::Zero(neg),
        (Class::Finite(x), Class::Finite(y)) => Class::Finite(exact_mul(x, y)),
        (Class::Nan, _) | (_, Class::Nan) => unreachable!("NaN operands returned above"),
    };
    match (product, cc) {
        (Class::Inf(p), Class::Inf(q)) if p != q => fmt.canonical_nan(),
        (Class::Inf(p), _) => fmt.zero(p) | fmt.infinity(),
        (_, Class::Inf(_)) => c,
        (Class::Zero(p), Class::Zero(q)) if p == q => fmt.zero(p),
        (Class::Zero(_), Class::Zero(_)) => zero_sum(fmt, mode),
        (Class::Zero(_), Class::Finite(_)) => c,
        (Class::Finite(p), Class::Zero(_)) => round(fmt, p, mode),
        (Class::Finite(p), Class::Finite(q)) => match exact_add(p, q) {
            Some(s) => round(fmt, s, mode),
            None => zero_sum(fmt, mode),
        },
        (Class::Nan, _) | (_, Class::Nan) => unreachable!("NaN operands returned above"),
    }
}

/// `a / b` rounded in direction `mode`.
pub fn div(fmt: Format, a: u64, b: u64, mode: Rounding) -> u64 {
    let neg = fmt.is_neg(a) != fmt.is_neg(b);
    match (decode(fmt, a), decode(fmt, b)) {
        (Class::Nan, _) | (_, Class::Nan) => fmt.canonical_nan(),
        (Class::Inf(_), Class::Inf(_)) | (Class::Zero(_), Class::Zero(_)) => fmt.canonical_nan(),
        (Class::Inf(_), _) | (_, Class::Zero(_)) => fmt.zero(neg) | fmt.infinity(),
        (_, Class::Inf(_)) | (Class::Zero(_), _) => fmt.zero(neg),
        (Class::Finite(x), Class::Finite(y)) => round(fmt, exact_div(x, y), mode),
    }
}

/// `√a` rounded in direction `mode` (`√-0 = -0`; negative operands give NaN).
pub fn sqrt(fmt: Format, a: u64, mode: Rounding) -> u64 {
    match decode(fmt, a) {
        Class::Nan | Class::Inf(true) => fmt.canonical_nan(),
        Class::Finite(x) if x.neg => fmt.canonical_nan(),
        Class::Inf(false) | Class::Zero(_) => a,
        Class::Finite(x) => round(fmt, exact_sqrt(x), mode),
    }
}

/// The integer `v` rounded to `fmt` in direction `mode` (0 gives +0).
pub fn from_int(fmt: Format, v: i128, mode: Rounding) -> u64 {
    if v == 0 {
        return 0;
    }
    let x = Exact {
        neg: v < 0,
        mant: v.unsigned_abs(),
        exp: 0,
        sticky: false,
    };
    round(fmt, x, mode)
}

/// `a` (bits of `from`) converted to `to`, rounded in direction `mode` when narrowing; NaNs
/// become `to`'s canonical NaN.
pub fn convert(from: Format, to: Format, a: u64, mode: Rounding) -> u64 {
    match decode(from, a) {
        Class::Nan => to.canonical_nan(),
        Class::Inf(neg) => to.zero(neg) | to.infinity(),
        Class::Zero(neg) => to.zero(neg),
        Class::Finite(x) => round(to, x, mode),
    }
}

#[cfg(test)]
mod tests {
    //! The soft-float core against native round-to-nearest-even arithmetic, which Rust
    //! guarantees to be IEEE-correct: if rounding to nearest is right for random operands in
    //! every binade, the exact results and the rounding machinery the other directions share
    //! are right too.

    use super::*;

    /// A small deterministic generator (xorshift64*), biased towards special and extreme
    /// exponents so that subnormals, overflow and cancellation are exercised.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn f32(&mut self) -> u32 {
            let r = self.next();
            match r % 8 {
                0 => (r >> 32) as u32 & 0x807f_ffff, // subnormal or zero
                1 => (r >> 32) as u32 & 0x80ff_ffff | 0x3f00_0000, // near 1
                2 => (r >> 32) as u32 | 0x7f00_0000, // huge, Inf or NaN
                _ => (r >> 32) as u32,
            }
        }

        fn f64(&mut self) -> u64 {
            let r = self.next();
            match r % 8 {
                0 => r & 0x800f_ffff_ffff_ffff,
                1 => r & 0x801f_ffff_ffff_ffff | 0x3fe0_0000_0000_0000,
                2 => r | 0x7fe0_0000_0000_0000,
                _ => r,
            }
        }
    }

    fn same(fmt: Format, got: u64, want: u64) -> bool {
        got == want || (fmt.is_nan(got) && fmt.is_nan(want))
    }

    #[test]
    fn f32_operations_match_native_round_to_nearest() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let f = Format::F32;
        for _ in 0..200_000 {
            let (a, b, c) = (g.f32(), g.f32(), g.f32());
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let (a, b, c) = (u64::from(a), u64::from(b), u64::from(c));
            let cases = [
                (add(f, a, b, Rounding::Rn), (x + y).to_bits()),
                (mul(f, a, b, Rounding::Rn), (x * y).to_bits()),
                (div(f, a, b, Rounding::Rn), (x / y).to_bits()),
                (sqrt(f, a, Rounding::Rn), x.sqrt().to_bits()),
                (fma(f, a, b, c, Rounding::Rn), x.mul_add(y, z).to_bits()),
            ];
            for (i, (got, want)) in cases.into_iter().enumerate() {
                assert!(
                    same(f, got, u64::from(want)),
                    "op {i} on {a:#x} {b:#x} {c:#x}: {got:#x} != {want:#x}"
                );
            }
        }
    }

    #[test]
    fn f64_operations_match_native_round_to_nearest() {
        let mut g = Gen(0x0123_4567_89ab_cdef);
        let f = Format::F64;
        for _ in 0..200_000 {
            let (a, b, c) = (g.f64(), g.f64(), g.f64());
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let cases = [
                (add(f, a, b, Rounding::Rn), (x + y).to_bits()),
                (mul(f, a, b, Rounding::Rn), (x * y).to_bits()),
                (div(f, a, b, Rounding::Rn), (x / y).to_bits()),
                (sqrt(f, a, Rounding::Rn), x.sqrt().to_bits()),
                (fma(f, a, b, c, Rounding::Rn), x.mul_add(y, z).to_bits()),
            ];
            for (i, (got, want)) in cases.into_iter().enumerate() {
                assert!(
                    same(f, got, want),
                    "op {i} on {a:#x} {b:#x} {c:#x}: {got:#x} != {want:#x}"
                );
            }
            let narrowed = convert(f, Format::F32, a, Rounding::Rn);
            let want = u64::from((x as f32).to_bits());
            assert!(same(Format::F32, narrowed, want), "{a:#x}: {narrowed:#x}");
        }
    }

    #[test]
    fn integers_match_native_conversion() {
        let mut g = Gen(42);
        for _ in 0..100_000 {
            let v = g.next() as i64 >> (g.next() % 64);
            assert_eq!(
                from_int(Format::F32, i128::from(v), Rounding::Rn),
                u64::from((v as f32).to_bits())
            );
            assert_eq!(
                from_int(Format::F64, i128::from(v), Rounding::Rn),
                (v as f64).to_bits()
            );
        }
    }
}
