//! Comparison and selection: setp, set, selp, slct.

use super::round::{self, Format};
use super::{ext, mask, trunc};
use isa::{BoolOp, CmpOp, Type};

/// `a cmp b` for operands of type `ty`.
///
/// Floats: the ordered comparisons (`eq ne lt le gt ge`) are false when either operand is NaN,
/// the unordered ones (`equ neu ltu leu gtu geu`) true; `num` is "neither is NaN", `nan` "either
/// is NaN"; -0.0 equals +0.0; `.ftz` flushes subnormal f32 operands first. Integers: `lt le gt
/// ge` follow the type's signedness, `lo ls hi hs` are always unsigned.
pub fn compare(cmp: CmpOp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    match Format::of(ty) {
        Some(fmt) => compare_float(cmp, fmt, ftz, a, b),
        None => compare_int(cmp, ty, a, b),
    }
}

fn compare_float(cmp: CmpOp, fmt: Format, ftz: bool, a: u64, b: u64) -> bool {
    let (a, b) = (
        super::float::input(fmt, ftz, a),
        super::float::input(fmt, ftz, b),
    );
    let (x, y) = match fmt {
        Format::F32 => (
            f64::from(f32::from_bits(a as u32)),
            f64::from(f32::from_bits(b as u32)),
        ),
        Format::F64 => (f64::from_bits(a), f64::from_bits(b)),
        // Exact: f64 holds every value of the narrower formats.
        Format::F16 | Format::BF16 | Format::E4M3 | Format::E5M2 => {
            let wide = |x| f64::from_bits(round::convert(fmt, Format::F64, x, isa::Rounding::Rn));
            (wide(a), wide(b))
        }
    };
    // Rust's float comparisons are IEEE's: false for NaN operands, -0.0 == +0.0.
    let unordered = x.is_nan() || y.is_nan();
    match cmp {
        CmpOp::Eq => x == y,
        CmpOp::Ne => !unordered && x != y,
        CmpOp::Lt | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Hi => x > y,
        CmpOp::Ge | CmpOp::Hs => x >= y,
        CmpOp::Equ => unordered || x == y,
        CmpOp::Neu => x != y,
        CmpOp::Ltu => unordered || x < y,
        CmpOp::Leu => unordered || x <= y,
        CmpOp::Gtu => unordered || x > y,
        CmpOp::Geu => unordered || x >= y,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}

fn compare_int(cmp: CmpOp, ty: Type, a: u64, b: u64) -> bool {
    let (x, y) = (ext(a, ty), ext(b, ty));
    let (u, v) = (trunc(a, ty), trunc(b, ty));
    // The float-only comparisons (rejected by the front end) read as their ordered forms.
    match cmp {
        CmpOp::Eq | CmpOp::Equ => x == y,
        CmpOp::Ne | CmpOp::Neu => x != y,
        CmpOp::Lt | CmpOp::Ltu => x < y,
        CmpOp::Le | CmpOp::Leu => x <= y,
        CmpOp::Gt | CmpOp::Gtu => x > y,
        CmpOp::Ge | CmpOp::Geu => x >= y,
        CmpOp::Lo => u < v,
        CmpOp::Ls => u <= v,
        CmpOp::Hi => u > v,
        CmpOp::Hs => u >= v,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

/// `t BOP c`, or `t` without a combining operation.
pub(crate) fn combine(t: bool, op: Option<BoolOp>, c: bool) -> bool {
    match op {
        None => t,
        Some(BoolOp::And) => t && c,
        Some(BoolOp::Or) => t || c,
        Some(BoolOp::Xor) => t != c,
    }
}

/// `setp.cmp{.bop}{.ftz}.type p|q, a, b{, c}`: `p = (a cmp b) BOP c` and
/// `q = !(a cmp b) BOP c`, as 0/1; for a packed `.f16x2`/`.bf16x2` type, `p` compares the low
/// halves and `q` the high ones, each combined with `c`.
pub fn setp(
    cmp: CmpOp,
    ty: Type,
    op: Option<BoolOp>,
    ftz: bool,
    a: u64,
    b: u64,
    c: u64,
) -> [u64; 2] {
    let c = c != 0;
    if let Some(elem) = ty.packed_element() {
        let half = |i: u32| {
            let t = compare(cmp, elem, ftz, a >> (16 * i), b >> (16 * i));
            u64::from(combine(t, op, c))
        };
        return [half(0), half(1)];
    }
    let t = compare(cmp, ty, ftz, a, b);
    [u64::from(combine(t, op, c)), u64::from(combine(!t, op, c))]
}

/// `set.cmp{.bop}{.ftz}.dtype.stype d, a, b{, c}`: all ones (integer `dtype`) or 1.0 (float
/// `dtype`) when `(a cmp b) BOP c`, else 0. A packed `.f16x2`/`.bf16x2` comparison sets each
/// half of the result from its own halves.
#[allow(clippy::too_many_arguments)]
pub fn set(
    cmp: CmpOp,
    dty: Type,
    sty: Type,
    op: Option<BoolOp>,
    ftz: bool,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let (elem, n) = sty.packed_element().map_or((sty, 1), |e| (e, 2));
    let width = dty.bits() / n;
    let truth = Format::element_of(dty).map_or(mask(width), Format::one);
    (0..n)
        .filter(|i| {
            combine(
                compare(cmp, elem, ftz, a >> (16 * i), b >> (16 * i)),
                op,
                c != 0,
            )
        })
        .fold(0, |d, i| d | truth << (width * i))
}

/// `selp.type d, a, b, c`: `c ? a : b`.
pub fn selp(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    trunc(if c != 0 { a } else { b }, ty)
}

/// `slct{.ftz}.dtype.ctype d, a, b, c`: `c >= 0 ? a : b`, the selected operand copied
/// unchanged. For an f32 `c`, -0.0 counts as >= 0 and NaN selects `b` (the comparison is
/// unordered); `.ftz` flushes a subnormal `c` to a zero of its sign, which then selects `a`.
pub fn slct(ty: Type, cty: Type, ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    let take_a = match cty {
        Type::F32 => compare_float(CmpOp::Ge, Format::F32, ftz, c, 0),
        _ => ext(c, cty) >= 0,
    };
    trunc(if take_a { a } else { b }, ty)
}
