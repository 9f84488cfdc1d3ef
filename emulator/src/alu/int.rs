//! Integer arithmetic: add, sub, mul, mad (and their 24-bit forms), div, rem, abs, neg, min,
//! max, sad and the carry-chain instructions.
//!
//! Values are computed in `i128`/`u128` from the operands as their type reads them (see
//! [`super::ext`]), then wrapped (or saturated) to the destination width, so one formula serves
//! every width and signedness.

use super::{ext, int_range, mask, wrap};
use isa::{CarryOp, MulMode, Type};

/// `v` clamped to the range of `ty`, then as bits.
fn saturate(v: i128, ty: Type) -> u64 {
    let (lo, hi) = int_range(ty);
    wrap(v.clamp(lo, hi), ty)
}

/// `add{.sat}.type`: wrapping; `.sat` (s32 only) clamps to MININT..MAXINT.
pub fn add(ty: Type, sat: bool, a: u64, b: u64) -> u64 {
    let v = ext(a, ty) + ext(b, ty);
    if sat { saturate(v, ty) } else { wrap(v, ty) }
}

/// `sub{.sat}.type`: wrapping; `.sat` (s32 only) clamps to MININT..MAXINT.
pub fn sub(ty: Type, sat: bool, a: u64, b: u64) -> u64 {
    let v = ext(a, ty) - ext(b, ty);
    if sat { saturate(v, ty) } else { wrap(v, ty) }
}

/// The full 2N-bit product of two N-bit operands, as two's complement bits (N ≤ 64).
fn product(ty: Type, a: u64, b: u64) -> u128 {
    if ty.is_signed() {
        (ext(a, ty) * ext(b, ty)) as u128
    } else {
        // u64 × u64 overflows i128, so unsigned products stay in u128.
        (ext(a, ty) as u128) * (ext(b, ty) as u128)
    }
}

/// The low (`.lo`), high (`.hi`) or whole (`.wide`, 2N bits) part of an N-bit product.
fn product_part(ty: Type, mode: MulMode, a: u64, b: u64) -> u128 {
    let n = ty.bits();
    let p = product(ty, a, b);
    let half = u128::from(mask(n));
    match mode {
        MulMode::Lo => p & half,
        MulMode::Hi => (p >> n) & half,
        MulMode::Wide if n >= 64 => p,
        MulMode::Wide => p & ((1u128 << (2 * n)) - 1),
    }
}

/// `mul.mode.type`: `.hi` is the upper half of the 2N-bit product; `.wide` gives all 2N bits
/// (its destination is twice as wide).
pub fn mul(ty: Type, mode: MulMode, a: u64, b: u64) -> u64 {
    product_part(ty, mode, a, b) as u64
}

/// `mad.mode{.sat}.type`: the product part plus `c` (2N bits wide for `.wide`), wrapping.
///
/// `.sat` exists only for `mad.hi.sat.s32`: the manual limits "the result to MININT..MAXINT (no
/// overflow)", so the sum of the signed high half and `c` is formed without overflow and then
/// clamped.
pub fn mad(ty: Type, mode: MulMode, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    let part = product_part(ty, mode, a, b) as u64;
    match mode {
        MulMode::Wide => {
            let n = (2 * ty.bits()).min(64);
            part.wrapping_add(c) & mask(n)
        }
        _ if sat => saturate(ext(part, ty) + ext(c, ty), ty),
        _ => wrap(i128::from(part) + ext(c, ty), ty),
    }
}

/// The 48-bit product of the low 24 bits of `a` and `b` (sign-extended from bit 23 for s32).
fn product24(ty: Type, a: u64, b: u64) -> i64 {
    let a24 = |v: u64| {
        if ty.is_signed() {
            ((v << 40) as i64) >> 40
        } else {
            (v & 0xff_ffff) as i64
        }
    };
    a24(a) * a24(b)
}

/// `mul24.mode.type`: `.lo` is bits 31..0 of the 48-bit product, `.hi` bits 47..16.
pub fn mul24(ty: Type, hi: bool, a: u64, b: u64) -> u64 {
    let p = product24(ty, a, b) as u64;
    if hi {
        (p >> 16) & 0xffff_ffff
    } else {
        p & 0xffff_ffff
    }
}

/// `mad24.mode{.sat}.type`: the `mul24` part plus `c`; `.sat` (`.hi.s32` only) clamps the sum to
/// MININT..MAXINT.
pub fn mad24(ty: Type, hi: bool, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    let part = mul24(ty, hi, a, b);
    if sat {
        saturate(ext(part, Type::S32) + ext(c, Type::S32), Type::S32)
    } else {
        part.wrapping_add(c) & 0xffff_ffff
    }
}

/// `div.type`, truncating towards zero.
///
/// PTX leaves division by zero and signed overflow unspecified; warpsim follows what Volta and
/// later hardware (the sequences ptxas emits) give: `x / 0` is all ones (u: MAXUINT, s: -1),
/// and `MININT / -1` wraps to MININT.
pub fn div(ty: Type, a: u64, b: u64) -> u64 {
    let (a, b) = (ext(a, ty), ext(b, ty));
    if b == 0 {
        return mask(ty.bits());
    }
    // i128 holds MININT / -1 = 2^(N-1) exactly; wrapping brings it back to MININT.
    wrap(a / b, ty)
}

/// `rem.type`, with the sign of the dividend (C semantics).
///
/// Consistently with [`div`]: `x % 0` is `x`, and `MININT % -1` is 0.
pub fn rem(ty: Type, a: u64, b: u64) -> u64 {
    let (a, b) = (ext(a, ty), ext(b, ty));
    if b == 0 {
        return wrap(a, ty);
    }
    wrap(a % b, ty)
}

/// `abs.type` (signed types): wrapping, so `abs(MININT)` is MININT.
pub fn abs(ty: Type, a: u64) -> u64 {
    wrap(ext(a, ty).abs(), ty)
}

/// `neg.type`: wrapping, so `neg(MININT)` is MININT.
pub fn neg(ty: Type, a: u64) -> u64 {
    wrap(-ext(a, ty), ty)
}

/// `min.type`, signed or unsigned by the type.
pub fn min(ty: Type, a: u64, b: u64) -> u64 {
    wrap(ext(a, ty).min(ext(b, ty)), ty)
}

/// `max.type`, signed or unsigned by the type.
pub fn max(ty: Type, a: u64, b: u64) -> u64 {
    wrap(ext(a, ty).max(ext(b, ty)), ty)
}

/// sm_90's `add`, `min` and `max{.relu}` of `lanes` elements of type `ty` packed in 32 bits
/// (`.s32`, or the halves of `.u16x2`/`.s16x2`): each element's sum (wrapping), minimum or
/// maximum, below zero made 0 by `.relu`.
pub fn packed(op: isa::PackedIntOp, ty: Type, lanes: u8, relu: bool, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let mut d = 0;
    for i in 0..u32::from(lanes) {
        let part = |x: u64| (x >> (i * bits)) & ((1 << bits) - 1);
        let (x, y) = (ext(part(a), ty), ext(part(b), ty));
        let mut r = match op {
            isa::PackedIntOp::Add => x + y,
            isa::PackedIntOp::Min => x.min(y),
            isa::PackedIntOp::Max => x.max(y),
        };
        if relu {
            r = r.max(0);
        }
        d |= wrap(r, ty) << (i * bits);
    }
    d
}

/// `sad.type`: `c + |a - b|`, the difference taken in the type's signedness, the sum wrapping.
pub fn sad(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    wrap(ext(c, ty) + (ext(a, ty) - ext(b, ty)).abs(), ty)
}

/// The carry-chain instructions (`add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{c}.lo/hi{.cc}`)
/// on 32- or 64-bit operands; `cf` is the thread's CC.CF flag.
///
/// CF is the carry of an adder, as the hardware keeps it, for subtractions too: `addc` is
/// `a + b + CF`; `madc.lo/hi` is `(a*b).lo/hi + c + CF`; a subtraction adds the complement,
/// `sub.cc` as `a + !b + 1` and `subc` as `a + !b + CF`, and its CF-out is that addition's
/// carry, 1 when nothing was borrowed. Each CF-out is the carry of the unsigned addition of the
/// operands' bits, for signed types too.
///
/// The PTX manual words it differently (`subc` as `a - (b + CF)`, CF-out "the borrow"). The two
/// agree on every chain of subtractions alone (a borrow is a carry of 0, and `subc` subtracts
/// it), and differ when a chain mixes them: after a borrowing `sub.cc`, `addc` adds 0 on
/// hardware; after a carrying `add.cc` or `mad.cc`, `subc` subtracts nothing. The evidence is
/// ZLUDA's tests of mixed chains, whose expected outputs its test suite checks on NVIDIA GPUs
/// too (`carry_mixed`, `subc_cc2`, `madc_cc2` in its `ptx/src/test/spirv_run`, the fix in its
/// pull request 197); `emulator/tests/integration/conformance_int.rs` replays them, and the
/// borrow reading fails them.
#[allow(clippy::too_many_arguments)]
pub fn carry(
    op: CarryOp,
    ty: Type,
    carry_in: bool,
    carry_out: bool,
    a: u64,
    b: u64,
    c: u64,
    cf: &mut bool,
) -> u64 {
    let n = ty.bits().min(64);
    let m = u128::from(mask(n));
    let cin = u128::from(carry_in && *cf);
    let (a, b, c) = (u128::from(a) & m, u128::from(b) & m, u128::from(c) & m);
    let (sum, out) = match op {
        CarryOp::Add => {
            let s = a + b + cin;
            (s, s > m)
        }
        CarryOp::Sub => {
            let carry = if carry_in { u128::from(*cf) } else { 1 };
            let s = a + (!b & m) + carry;
            (s, s > m)
        }
        CarryOp::MadLo | CarryOp::MadHi => {
            let mode = if op == CarryOp::MadLo {
                MulMode::Lo
            } else {
                MulMode::Hi
            };
            let s = product_part(ty, mode, a as u64, b as u64) + c + cin;
            (s, s > m)
        }
    };
    if carry_out {
        *cf = out;
    }
    (sum & m) as u64
}

/// Byte `i` of `x`, sign-extended when `signed`.
fn byte(x: u64, i: u32, signed: bool) -> i64 {
    let b = (x >> (8 * i)) as u8;
    if signed {
        i64::from(b as i8)
    } else {
        i64::from(b)
    }
}

/// Half `i` (16 bits) of `x`, sign-extended when `signed`.
fn half(x: u64, i: u32, signed: bool) -> i64 {
    let h = (x >> (16 * i)) as u16;
    if signed {
        i64::from(h as i16)
    } else {
        i64::from(h)
    }
}

/// `cvt.pack.sat.{u,s}N.s32{.b32}`: the manual's pseudo-code. The `.s32` sources saturate to
/// the N-bit range; `b` fills bits 0..N, `a` bits N..2N, and for N < 16 `c` the bits from 2N up
/// (shifted out past bit 31).
pub fn cvt_pack(bits: u8, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let n = u32::from(bits);
    let (lo, hi) = if signed {
        (-(1i64 << (n - 1)), (1i64 << (n - 1)) - 1)
    } else {
        (0, (1i64 << n) - 1)
    };
    let field = |x: u64| (i64::from(x as u32 as i32).clamp(lo, hi) as u64) & ((1 << n) - 1);
    let packed = field(a) << n | field(b);
    let above = if n < 16 {
        (c as u32 as u64) << (2 * n)
    } else {
        0
    };
    (packed | above) & 0xffff_ffff
}

/// `dp4a.atype.btype`: `c + Σ a.byte[i] × b.byte[i]`, wrapping at 32 bits.
pub fn dp4a(a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let dot: i64 = (0..4)
        .map(|i| byte(a, i, a_signed) * byte(b, i, b_signed))
        .sum();
    u64::from((c as u32).wrapping_add(dot as u32))
}

/// `dp2a.{lo,hi}.atype.btype`: `c + a.half[0] × b.byte[k] + a.half[1] × b.byte[k + 1]`,
/// `k` 0 with `.lo` and 2 with `.hi`, wrapping at 32 bits.
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let k = if hi { 2 } else { 0 };
    let dot: i64 = (0..2)
        .map(|i| half(a, i, a_signed) * byte(b, k + i, b_signed))
        .sum();
    u64::from((c as u32).wrapping_add(dot as u32))
}
