//! Scalar numerics: the exact PTX semantics of every ALU instruction on one lane's values.
//!
//! The engine (interpreter today, JIT helpers tomorrow) reads a lane's source operands as raw
//! bits, calls [`eval`], and writes back what it returns. Everything here is a pure function of
//! those bits (plus the lane's carry flag), so the JIT can be tested bit for bit against it.
//!
//! ```text
//! srcs: [u64] (register bits zero-extended, immediates as isa encodes them)
//!    └─ eval(op) ─► int | bits | float (round, approx) | cvt | compare ─► [d, q]
//! ```
//!
//! Conventions every family follows:
//! - Sources are truncated to their operand type's width first (registers may be wider than the
//!   type, and integer immediates arrive sign-extended to 64 bits). Results are the
//!   destination type's bits, zero-extended; widening a signed result into a wider register is
//!   the engine's job.
//! - NaN results of float arithmetic are canonical: `0x7fffffff` for f32 (what NVIDIA GPUs
//!   produce, and CUDA's `CUDART_NAN_F`), `0xfff8000000000000` for f64 (CUDA's `CUDART_NAN`, the
//!   default NaN of the FP64 units). The manual leaves payloads unspecified; canonicalising makes
//!   results deterministic. Pure bit operations (`abs`, `neg`, `copysign`, `mov`, `selp`,
//!   `slct`) move NaNs through unchanged.
//! - `.ftz` only affects f32 values (and the f64 forms the manual defines with it:
//!   `rcp.approx.ftz.f64`, `rsqrt.approx.ftz.f64`): subnormal inputs become zeros of the same
//!   sign, and so do results that are subnormal after rounding.
//! - `.sat` on float results clamps to [+0.0, 1.0]; NaN, -0.0 and negative results give +0.0.
//! - Directed rounding (`.rz .rm .rp`, and cvt's `.rna`) is exact: see [`round`].

pub mod approx;
pub mod atomic;
pub mod bits;
pub mod compare;
pub mod cvt;
pub mod float;
pub mod int;
pub mod matrix;
pub mod round;
pub mod video;

pub use atomic::{atomic_update, atomic_update_in, redux};

use isa::{Op, Rounding, Type};
use std::fmt;

/// Why [`eval`] did not evaluate an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluError {
    /// Not a scalar ALU operation (memory, control, synchronisation, warp-level, pack/unpack or
    /// unsupported): the engine handles it itself.
    NotAlu,
    /// A scalar operation with an operand type the front end never produces for it (half
    /// precision, or a float type on a float-only operation that is not f32/f64).
    UnsupportedType {
        /// The PTX opcode.
        op: &'static str,
        /// The offending type.
        ty: Type,
    },
}

impl fmt::Display for AluError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AluError::NotAlu => f.write_str("not a scalar ALU operation"),
            AluError::UnsupportedType { op, ty } => {
                write!(f, "`{op}` is not supported for type `.{ty}`")
            }
        }
    }
}

impl std::error::Error for AluError {}

/// Evaluates one lane of an ALU instruction.
///
/// `srcs[i]` is the raw value of source operand `i`: a register's bits zero-extended to 64 bits,
/// or an immediate's 64-bit encoding as documented in `isa::inst` (integers as their 64-bit
/// value, floats as IEEE bits of the operand's own float type; predicates are 0 or 1, and a
/// negated predicate operand `!p` is already inverted by the engine). A missing source reads as
/// 0 (the verifier guarantees the count).
///
/// Returns up to two destination values, each the zero-extended raw bits of the destination's
/// own type (predicates 0/1). The second is only meaningful for `setp` with `p|q`, where it is
/// the value combined from the complement of the comparison. `carry` is the thread's CC.CF flag,
/// read and written by [`Op::Carry`].
pub fn eval(op: &Op, srcs: &[u64], carry: &mut bool) -> Result<[u64; 2], AluError> {
    let s = |i: usize| srcs.get(i).copied().unwrap_or(0);
    let (a, b, c, d) = (s(0), s(1), s(2), s(3));
    let one = |v: u64| Ok([v, 0]);
    match *op {
        Op::IAdd { ty, sat } => one(int::add(ty, sat, a, b)),
        Op::ISub { ty, sat } => one(int::sub(ty, sat, a, b)),
        Op::IMul { ty, mode } => one(int::mul(ty, mode, a, b)),
        Op::IMad { ty, mode, sat } => one(int::mad(ty, mode, sat, a, b, c)),
        Op::Mul24 { ty, hi } => one(int::mul24(ty, hi, a, b)),
        Op::Mad24 { ty, hi, sat } => one(int::mad24(ty, hi, sat, a, b, c)),
        Op::IDiv { ty } => one(int::div(ty, a, b)),
        Op::IRem { ty } => one(int::rem(ty, a, b)),
        Op::IAbs { ty } => one(int::abs(ty, a)),
        Op::INeg { ty } => one(int::neg(ty, a)),
        Op::IMin { ty } => one(int::min(ty, a, b)),
        Op::IMax { ty } => one(int::max(ty, a, b)),
        Op::IPacked {
            op,
            ty,
            lanes,
            relu,
        } => one(int::packed(op, ty, lanes, relu, a, b)),
        Op::FMixed { op, half, rnd, sat } => {
            let from = if half == isa::Type::BF16 {
                round::Format::BF16
            } else {
                round::Format::F16
            };
            let wide = |x: u64| round::convert(from, round::Format::F32, x & 0xffff, Rounding::Rn);
            let f32_ = round::Format::F32;
            one(match op {
                isa::MixedOp::Add => float::add(f32_, rnd, false, sat, wide(a), b),
                isa::MixedOp::Sub => float::sub(f32_, rnd, false, sat, wide(a), b),
                isa::MixedOp::Fma => float::fma(f32_, rnd, false, sat, wide(a), wide(b), c),
            })
        }
        Op::Createpolicy { priorities } => {
            let fraction = if srcs.is_empty() {
                1f32.to_bits()
            } else {
                a as u32
            };
            one(u64::from(priorities) | u64::from(fraction) << 32)
        }
        Op::Sad { ty } => one(int::sad(ty, a, b, c)),
        Op::Carry {
            op,
            ty,
            carry_in,
            carry_out,
        } => one(int::carry(op, ty, carry_in, carry_out, a, b, c, carry)),

        Op::Popc { ty } => one(bits::popc(ty, a)),
        Op::Clz { ty } => one(bits::clz(ty, a)),
        Op::Bfind { ty, shift_amount } => one(bits::bfind(ty, shift_amount, a)),
        Op::Brev { ty } => one(bits::brev(ty, a)),
        Op::Bfe { ty } => one(bits::bfe(ty, a, b, c)),
        Op::Bfi { ty } => one(bits::bfi(ty, a, b, c, d)),
        Op::Prmt { mode } => one(bits::prmt(mode, a, b, c)),
        Op::Shf { dir, mode } => one(bits::shf(dir, mode, a, b, c)),
        Op::Bmsk { mode } => one(bits::bmsk(mode, a, b)),
        Op::Fns => one(bits::fns(a, b, c)),
        Op::Video(v) => one(video::eval(v, a, b, c)),
        Op::VideoSimd(v) => one(video::eval_simd(v, a, b, c)),
        Op::Lop3 { combine } => {
            let r = bits::lop3(a, b, c, d);
            Ok([
                r,
                u64::from(compare::combine(r != 0, combine, s(4) & 1 != 0)),
            ])
        }
        Op::Szext { mode, signed } => one(bits::szext(mode, signed, a, b)),
        Op::CvtPack { bits, signed } => one(int::cvt_pack(bits, signed, a, b, c)),
        Op::Dp4a { a_signed, b_signed } => one(int::dp4a(a_signed, b_signed, a, b, c)),
        Op::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => one(int::dp2a(hi, a_signed, b_signed, a, b, c)),
        Op::And { ty } => one(trunc(a & b, ty)),
        Op::Or { ty } => one(trunc(a | b, ty)),
        Op::Xor { ty } => one(trunc(a ^ b, ty)),
        Op::Not { ty } => one(trunc(!a, ty)),
        Op::CNot { ty } => one(u64::from(trunc(a, ty) == 0)),
        Op::Shl { ty } => one(bits::shl(ty, a, b)),
        Op::Shr { ty } => one(bits::shr(ty, a, b)),

        Op::FAdd { ty, rnd, ftz, sat } => {
            one(elementwise(ty, "add", [a, b, c], |f, [a, b, _]| {
                float::add(f, rnd_or_rn(rnd), ftz, sat, a, b)
            })?)
        }
        Op::FSub { ty, rnd, ftz, sat } => {
            one(elementwise(ty, "sub", [a, b, c], |f, [a, b, _]| {
                float::sub(f, rnd_or_rn(rnd), ftz, sat, a, b)
            })?)
        }
        Op::FMul { ty, rnd, ftz, sat } => {
            one(elementwise(ty, "mul", [a, b, c], |f, [a, b, _]| {
                float::mul(f, rnd_or_rn(rnd), ftz, sat, a, b)
            })?)
        }
        Op::Fma {
            ty,
            rnd,
            ftz,
            sat,
            relu,
        } => one(elementwise(ty, "fma", [a, b, c], |f, [a, b, c]| {
            let r = float::fma(f, rnd, ftz, sat, a, b, c);
            if relu { float::relu(f, r) } else { r }
        })?),
        Op::FDiv { ty, prec, ftz } => one(float::div(fmt(ty, "div")?, prec, ftz, a, b)),
        Op::Rcp { ty, prec, ftz } => one(float::rcp(fmt(ty, "rcp")?, prec, ftz, a)),
        Op::Sqrt { ty, prec, ftz } => one(float::sqrt(fmt(ty, "sqrt")?, prec, ftz, a)),
        Op::Transc { func, ty, ftz } => one(elementwise(ty, "transc", [a, b, c], |f, [a, ..]| {
            approx::transc(func, f, ftz, a)
        })?),
        Op::FAbs { ty, ftz } => one(elementwise(ty, "abs", [a, b, c], |f, [a, ..]| {
            float::abs(f, ftz, a)
        })?),
        Op::FNeg { ty, ftz } => one(elementwise(ty, "neg", [a, b, c], |f, [a, ..]| {
            float::neg(f, ftz, a)
        })?),
        Op::FMin {
            ty,
            ftz,
            nan,
            xorsign,
        } => one(elementwise(ty, "min", [a, b, c], |f, [a, b, _]| {
            float::xorsign_abs_if(xorsign, f, a, b, |a, b| float::min(f, ftz, nan, a, b))
        })?),
        Op::FMax {
            ty,
            ftz,
            nan,
            xorsign,
        } => one(elementwise(ty, "max", [a, b, c], |f, [a, b, _]| {
            float::xorsign_abs_if(xorsign, f, a, b, |a, b| float::max(f, ftz, nan, a, b))
        })?),
        Op::Copysign { ty } => one(float::copysign(fmt(ty, "copysign")?, a, b)),
        Op::Testp { prop, ty } => one(u64::from(float::testp(fmt(ty, "testp")?, prop, a))),

        Op::Setp {
            cmp,
            ty,
            combine,
            ftz,
        } => {
            check_compare(ty, "setp")?;
            Ok(compare::setp(cmp, ty, combine, ftz, a, b, c))
        }
        Op::Set {
            cmp,
            dty,
            sty,
            combine,
            ftz,
        } => {
            check_compare(sty, "set")?;
            if !(dty.is_integer() || round::Format::element_of(dty).is_some()) {
                return Err(AluError::UnsupportedType { op: "set", ty: dty });
            }
            one(compare::set(cmp, dty, sty, combine, ftz, a, b, c))
        }
        Op::Selp { ty } => one(compare::selp(ty, a, b, c)),
        Op::Slct { ty, cty, ftz } => {
            if !matches!(cty, Type::S32 | Type::F32) {
                return Err(AluError::UnsupportedType {
                    op: "slct",
                    ty: cty,
                });
            }
            one(compare::slct(ty, cty, ftz, a, b, c))
        }

        Op::Mov { ty } => one(trunc(a, ty)),
        Op::Cvt {
            dty,
            sty,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        } => {
            let clamp = cvt::Clamp {
                ftz,
                sat,
                relu,
                satfinite,
            };
            let half = |x: u64, ty: Type| x & mask(ty.bits() / 2);
            let (hi, lo) = match (dty.packed_element(), sty.packed_element()) {
                (None, _) => return one(cvt::cvt(dty, sty, rnd, clamp, a)?),
                // Two scalar sources, the first converted into the upper half.
                (Some(d), None) => (
                    cvt::cvt(d, sty, rnd, clamp, a)?,
                    cvt::cvt(d, sty, rnd, clamp, b)?,
                ),
                // One packed source, half by half.
                (Some(d), Some(s)) => (
                    cvt::cvt(d, s, rnd, clamp, a >> (sty.bits() / 2))?,
                    cvt::cvt(d, s, rnd, clamp, half(a, sty))?,
                ),
            };
            one(hi << (dty.bits() / 2) | lo)
        }

        Op::Pack { .. }
        | Op::Unpack { .. }
        | Op::Cvta { .. }
        | Op::Ld { .. }
        | Op::St { .. }
        | Op::Ldu { .. }
        | Op::Atom { .. }
        | Op::Red { .. }
        | Op::CpAsync { .. }
        | Op::Prefetch { .. }
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::WmmaLoad { .. }
        | Op::WmmaStore { .. }
        | Op::WmmaMma { .. }
        | Op::Mma { .. }
        | Op::Ldmatrix { .. }
        | Op::Stmatrix { .. }
        | Op::Mbarrier { .. }
        | Op::Movmatrix
        | Op::Tex(_)
        | Op::Tld4(_)
        | Op::Txq { .. }
        | Op::Suld(_)
        | Op::Sust(_)
        | Op::Sured { .. }
        | Op::Suq { .. }
        | Op::Bar { .. }
        | Op::BarWarpSync
        | Op::Membar { .. }
        | Op::Fence { .. }
        | Op::Nanosleep
        | Op::Vote { .. }
        | Op::Shfl { .. }
        | Op::Match { .. }
        | Op::Activemask
        | Op::Isspacep { .. }
        | Op::Redux { .. }
        | Op::Elect
        | Op::Bra { .. }
        | Op::Call { .. }
        | Op::Ret { .. }
        | Op::Exit
        | Op::Trap
        | Op::Unsupported { .. } => Err(AluError::NotAlu),
    }
}

/// `add`/`sub`/`mul` without a rounding modifier round to nearest even.
fn rnd_or_rn(rnd: Option<isa::Rounding>) -> isa::Rounding {
    rnd.unwrap_or(isa::Rounding::Rn)
}

/// The float format of an operation warpsim computes in f32 and f64 only (division, square
/// root, the approximations, `copysign`, `testp`).
fn fmt(ty: Type, op: &'static str) -> Result<round::Format, AluError> {
    round::Format::of(ty)
        .filter(|f| matches!(f, round::Format::F32 | round::Format::F64))
        .ok_or(AluError::UnsupportedType { op, ty })
}

/// Applies `f` to the sources of an operation of float type `ty`, with its format: once for a
/// scalar type, and to each half of a packed pair such as `.f16x2` (low halves into the low
/// half).
fn elementwise(
    ty: Type,
    op: &'static str,
    srcs: [u64; 3],
    f: impl Fn(round::Format, [u64; 3]) -> u64,
) -> Result<u64, AluError> {
    let format = round::Format::element_of(ty).ok_or(AluError::UnsupportedType { op, ty })?;
    if ty.packed_element().is_none() {
        return Ok(f(format, srcs));
    }
    let w = ty.bits() / 2;
    let half = |i: u32| srcs.map(|x| x >> (w * i) & mask(w));
    Ok(f(format, half(1)) << w | f(format, half(0)))
}

/// Comparisons take integers of any width and every float type.
fn check_compare(ty: Type, op: &'static str) -> Result<(), AluError> {
    if ty.is_float() && round::Format::element_of(ty).is_none() {
        return Err(AluError::UnsupportedType { op, ty });
    }
    Ok(())
}

/// All ones in the low `bits` bits.
pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 { !0 } else { (1 << bits) - 1 }
}

/// `v` truncated to the width of `ty` (predicates keep one bit).
pub(crate) fn trunc(v: u64, ty: Type) -> u64 {
    v & mask(ty.bits())
}

/// The value of `v` as `ty` reads it: sign-extended from the type's width for signed types,
/// zero-extended otherwise.
pub(crate) fn ext(v: u64, ty: Type) -> i128 {
    let bits = ty.bits().min(64);
    if ty.is_signed() {
        i128::from(((v << (64 - bits)) as i64) >> (64 - bits))
    } else {
        i128::from(v & mask(bits))
    }
}

/// The smallest and largest values of an integer type.
pub(crate) fn int_range(ty: Type) -> (i128, i128) {
    let bits = ty.bits().min(64);
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `v` wrapped to the width of `ty` (two's complement).
pub(crate) fn wrap(v: i128, ty: Type) -> u64 {
    (v as u64) & mask(ty.bits())
}
