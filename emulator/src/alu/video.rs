//! The scalar video instructions (`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`,
//! `vset`), after the manual's pseudo-code: the selected parts of `a` and `b` extended to 33
//! bits by their types, the primary operation exact (shifts in 65 bits), the result clamped to
//! the destination type or merged part with `.sat`, then a secondary operation with `c` (of
//! the destination's signedness) or a merge into a part of `c`; the low 32 bits are the result.

use isa::{CmpOp, Part, Type, Video, VideoOp, VideoThen};

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
