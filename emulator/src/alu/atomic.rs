//! The read-modify-write step of `atom`/`red` and the combine step of `redux.sync`.
//!
//! The engine performs the memory access and the warp-wide iteration; these functions only say
//! what the new value is.

use super::float;
use super::round::Format;
use super::{ext, trunc, wrap};
use isa::{AtomOp, ReduxOp, Rounding, StateSpace, Type};

/// The new memory value of `atom`/`red` from the `old` one and operands `b` (and `c` for
/// `.cas`), for the op's type (values are that type's bits).
///
/// `inc` is `old >= b ? 0 : old + 1` and `dec` is `old == 0 || old > b ? b : old - 1`
/// (unsigned); `cas` is `old == b ? c : old`. `add.f32` rounds to nearest and, as on shared
/// memory, keeps subnormals; use [`atomic_update_in`] for the global-memory behaviour. The
/// half-precision additions (`.noftz`, scalar or packed) keep subnormals everywhere.
pub fn atomic_update(op: AtomOp, ty: Type, old: u64, b: u64, c: u64) -> u64 {
    update(op, ty, false, old, b, c)
}

/// [`atomic_update`] for an access to `space` (resolved, not generic): `atom.add.f32` on global
/// memory flushes subnormal inputs and results to sign-preserving zero, which the manual
/// documents as the current implementation; on shared memory it does not.
pub fn atomic_update_in(space: StateSpace, op: AtomOp, ty: Type, old: u64, b: u64, c: u64) -> u64 {
    update(op, ty, space == StateSpace::Global, old, b, c)
}

fn update(op: AtomOp, ty: Type, ftz: bool, old: u64, b: u64, c: u64) -> u64 {
    let (old, b, c) = (trunc(old, ty), trunc(b, ty), trunc(c, ty));
    // Only f32 additions flush (half precision ones are `.noftz`).
    let ftz = ftz && ty == Type::F32;
    match op {
        AtomOp::Add => match (ty.packed_element().and_then(Format::of), Format::of(ty)) {
            // A packed pair adds half by half.
            (Some(fmt), _) => {
                let add = |i: u32| float::add(fmt, Rounding::Rn, false, false, old >> i, b >> i);
                add(16) << 16 | add(0)
            }
            (None, Some(fmt)) => float::add(fmt, Rounding::Rn, ftz, false, old, b),
            (None, None) => wrap(ext(old, ty) + ext(b, ty), ty),
        },
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::Min | AtomOp::Max => {
            let pick = |fmt, x, y| {
                if op == AtomOp::Min {
                    float::min(fmt, false, false, x, y)
                } else {
                    float::max(fmt, false, false, x, y)
                }
            };
            match (ty.packed_element().and_then(Format::of), Format::of(ty)) {
                // A packed pair (sm_90's vector atomics) half by half.
                (Some(fmt), _) => {
                    let half = |i: u32| pick(fmt, old >> i & 0xffff, b >> i & 0xffff);
                    half(16) << 16 | half(0)
                }
                (None, Some(fmt)) => pick(fmt, old, b),
                (None, None) if op == AtomOp::Min => wrap(ext(old, ty).min(ext(b, ty)), ty),
                (None, None) => wrap(ext(old, ty).max(ext(b, ty)), ty),
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    }
}

/// The canonical NaN of PTX's `.f32` results.
const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;

/// `redux.sync.op{.abs}{.NaN}.type` over the participants' `values` (at least one): `.add`
/// wraps to 32 bits, `.min`/`.max` compare signed for `.s32`, unsigned for `.u32` and as
/// floats for `.f32` (with +0.0 above -0.0), `.and .or .xor` are bitwise. For `.f32`, `.abs`
/// takes each input's absolute value; a NaN input makes the result the canonical NaN with
/// `.NaN` and is left out without it, the result being the canonical NaN when every input is.
pub fn redux(
    op: ReduxOp,
    ty: Type,
    abs: bool,
    nan: bool,
    values: impl Iterator<Item = u32>,
) -> u32 {
    if ty != Type::F32 {
        return values
            .reduce(|a, b| redux_combine(op, ty, a, b))
            .expect("redux.sync has a participant");
    }
    let inputs = values.map(|v| if abs { v & 0x7fff_ffff } else { v });
    let result = inputs
        .reduce(|a, b| {
            let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
            match (fa.is_nan(), fb.is_nan()) {
                (true, _) | (_, true) if nan => CANONICAL_NAN_F32,
                (true, _) => b,
                (_, true) => a,
                _ => {
                    // Zeros compare by sign: -0.0 is the smaller.
                    let a_first =
                        fa < fb || (fa == fb && fa.is_sign_negative() && !fb.is_sign_negative());
                    if a_first == (op == ReduxOp::Min) {
                        a
                    } else {
                        b
                    }
                }
            }
        })
        .expect("redux.sync has a participant");
    if f32::from_bits(result).is_nan() {
        CANONICAL_NAN_F32
    } else {
        result
    }
}

/// `redux.sync`'s combine step for the integer types.
fn redux_combine(op: ReduxOp, ty: Type, a: u32, b: u32) -> u32 {
    match op {
        ReduxOp::Add => a.wrapping_add(b),
        ReduxOp::Min if ty.is_signed() => (a as i32).min(b as i32) as u32,
        ReduxOp::Min => a.min(b),
        ReduxOp::Max if ty.is_signed() => (a as i32).max(b as i32) as u32,
        ReduxOp::Max => a.max(b),
        ReduxOp::And => a & b,
        ReduxOp::Or => a | b,
        ReduxOp::Xor => a ^ b,
    }
}
