//! The scalar video instructions (`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`,
//! `vset`), after the manual's pseudo-code: the selected parts of `a` and `b` extended to 33
//! bits by their types, the primary operation exact (shifts in 65 bits), the result clamped to
//! the destination type or merged part with `.sat`, then a secondary operation with `c` (of
//! the destination's signedness) or a merge into a part of `c`; the low 32 bits are the result.
//! `vmad` has its own pseudo-code ([`mad`]), and so do the SIMD forms ([`eval_simd`]).

use isa::{CmpOp, Part, SimdVideo, SimdVideoOp, Type, Video, VideoOp, VideoThen};

/// `partSelectSignExtend`: the selected part of `x` (all 32 bits without one), sign-extended
/// when `ty` is signed.
fn part(x: u64, ty: Type, sel: Option<Part>) -> i128 {
    let (bits, shift) = sel.map_or((32, 0), Part::bits_and_shift);
    let raw = (x >> shift) & ((1u64 << bits) - 1);
    if ty.is_signed() && raw >> (bits - 1) & 1 == 1 {
        i128::from(raw) - (1i128 << bits)
    } else {
        i128::from(raw)
    }
}

/// `optSaturate`: the range of the merged part, or of the whole destination type.
fn saturate(tmp: i128, signed: bool, then: VideoThen) -> i128 {
    let bits = match then {
        VideoThen::Merge(p) => p.bits_and_shift().0,
        _ => 32,
    };
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    tmp.clamp(lo, hi)
}

/// Evaluates one lane.
pub fn eval(v: Video, a: u64, b: u64, c: u64) -> u64 {
    let ta = part(a, v.aty, v.asel);
    let tb = part(b, v.bty, v.bsel);
    let shift = |clamp: bool| {
        // The amount is the unsigned part of b.
        let n = tb.clamp(0, i128::from(u32::MAX)) as u32;
        if clamp { n.min(32) } else { n & 31 }
    };
    let tmp = match v.op {
        VideoOp::Add => ta + tb,
        VideoOp::Sub => ta - tb,
        VideoOp::Absdiff => (ta - tb).abs(),
        VideoOp::Min => ta.min(tb),
        VideoOp::Max => ta.max(tb),
        VideoOp::Shl { clamp } => ta << shift(clamp),
        VideoOp::Shr { clamp } => ta >> shift(clamp),
        VideoOp::Set(cmp) => i128::from(compare(cmp, ta, tb)),
        VideoOp::Mad { po, shift, negate } => return mad(v, ta, tb, c, po, shift, negate),
    };
    let signed = v.dty.is_signed();
    let tmp = if v.sat {
        saturate(tmp, signed, v.then)
    } else {
        tmp
    };
    let c_value = part(c, v.dty, None);
    let d = match v.then {
        VideoThen::Nothing => tmp,
        VideoThen::Add => tmp + c_value,
        VideoThen::Min => tmp.min(c_value),
        VideoThen::Max => tmp.max(c_value),
        VideoThen::Merge(p) => {
            let (bits, at) = p.bits_and_shift();
            let mask = ((1i128 << bits) - 1) << at;
            ((tmp << at) & mask) | (i128::from(c) & !mask)
        }
    };
    (d as u64) & 0xffff_ffff
}

/// `vmad` after the manual's pseudo-code: the product (negated by complementing it and adding
/// one) plus `c` (likewise, or plus one with `.po`), exact in 128 bits, signed when either
/// type is or anything is negated; shifted right (sign-extending when signed); with `.sat`
/// clamped to the 32-bit range of that signedness; the low 32 bits.
fn mad(v: Video, ta: i128, tb: i128, c: u64, po: bool, shift: u8, negate: [bool; 3]) -> u64 {
    let negate_product = negate[0] != negate[1];
    let signed = v.aty.is_signed() || v.bty.is_signed() || negate_product || negate[2];
    let mut tmp = ta * tb;
    let mut c = c as u32;
    let mut lsb = 0;
    if po {
        lsb = 1;
    } else if negate_product {
        tmp = !tmp;
        lsb = 1;
    } else if negate[2] {
        c = !c;
        lsb = 1;
    }
    let c128 = if signed {
        i128::from(c as i32)
    } else {
        i128::from(c)
    };
    // The pseudo-code keeps the low 64 bits of the shifted sum; every combination fits them.
    let result = ((tmp + c128 + lsb) >> shift) as i64;
    let result = match (v.sat, signed) {
        (false, _) => result,
        (true, true) => result.clamp(i64::from(i32::MIN), i64::from(i32::MAX)),
        (true, false) => (result as u64).min(u64::from(u32::MAX)) as i64,
    };
    (result as u64) & 0xffff_ffff
}

/// A SIMD video instruction (`vadd2` ... `vset4`) on one lane, after the manual's pseudo-code:
/// each element's operands taken from `{b, a}` by the selectors and extended by their types,
/// the operation exact (`vavrg` rounds a non-negative sum's half up), `.sat` clamping to the
/// destination type's element range; then `.add` sums `c` and the masked elements (32-bit,
/// wrapping), or the masked elements replace `c`'s.
pub fn eval_simd(v: SimdVideo, a: u64, b: u64, c: u64) -> u64 {
    let n = usize::from(v.lanes);
    let bits = 32 / n as u32;
    let both = (a & 0xffff_ffff) | (b << 32);
    let element = |sel: u8, ty: Type| {
        let raw = (both >> (u32::from(sel) * bits)) & ((1 << bits) - 1);
        if ty.is_signed() && raw >> (bits - 1) & 1 == 1 {
            raw as i64 - (1 << bits)
        } else {
            raw as i64
        }
    };
    let signed = v.dty.is_signed();
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    let mut d: u64 = if v.add { c & 0xffff_ffff } else { 0 };
    for i in 0..n {
        let (x, y) = (element(v.asel[i], v.aty), element(v.bsel[i], v.bty));
        let mut t = match v.op {
            SimdVideoOp::Add => x + y,
            SimdVideoOp::Sub => x - y,
            SimdVideoOp::Avrg if x + y >= 0 => (x + y + 1) >> 1,
            SimdVideoOp::Avrg => (x + y) >> 1,
            SimdVideoOp::Absdiff => (x - y).abs(),
            SimdVideoOp::Min => x.min(y),
            SimdVideoOp::Max => x.max(y),
            SimdVideoOp::Set(cmp) => i64::from(compare(cmp, i128::from(x), i128::from(y))),
        };
        if v.sat {
            t = t.clamp(lo, hi);
        }
        let selected = v.mask & (1 << i) != 0;
        let shift = i as u32 * bits;
        let field = ((1u64 << bits) - 1) << shift;
        d = if v.add {
            if selected {
                d.wrapping_add(t as u64)
            } else {
                d
            }
        } else if selected {
            d | ((t as u64) << shift & field)
        } else {
            d | (c & field)
        };
    }
    d & 0xffff_ffff
}

fn compare(cmp: CmpOp, a: i128, b: i128) -> bool {
    match cmp {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        _ => a >= b,
    }
}
