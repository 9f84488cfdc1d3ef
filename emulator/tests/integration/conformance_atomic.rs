//! Conformance of the read-modify-write step of `atom`/`red` ([`atomic_update`],
//! [`atomic_update_in`]) and the reduction of `redux.sync` ([`redux`]) with the
//! manual's definitions (`inc(r, s) = r >= s ? 0 : r+1`, `dec(r, s) = r == 0 || r > s ? s : r-1`,
//! `cas(r, s, t) = r == s ? t : r`), and the ALU's refusal of non-ALU operations.

use emulator::alu::{AluError, atomic_update, atomic_update_in, eval, redux};
use isa::{AtomOp, BarrierKind, MemOrder, Op, ReduxOp, StateSpace, Type};

const M32: u64 = 0xffff_ffff;
const M64: u64 = u64::MAX;

/// (op, type, old, b, c, new value)
type Case = (AtomOp, Type, u64, u64, u64, u64);

fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    for &(op, ty, old, b, c, want) in cases {
        let got = atomic_update(op, ty, old, b, c);
        if got != want {
            failures.push(format!(
                "{op:?}.{ty} old={old:#x} b={b:#x} c={c:#x}: got {got:#x}, want {want:#x}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

use AtomOp::*;
use Type::{B32, B64, F32, F64, S32, S64, U32, U64};

#[test]
fn integer_and_bitwise_updates() {
    check(&[
        (Add, U32, M32, 1, 0, 0),
        (Add, U32, 5, 7, 0, 12),
        (Add, S32, 0x7fff_ffff, 1, 0, 0x8000_0000),
        (Add, S32, 5, (-7i64) as u64 & M32, 0, 0xffff_fffe),
        (Add, U64, M64, 2, 0, 1),
        (Add, S64, 1 << 63, M64, 0, i64::MAX as u64),
        (Inc, U32, 5, 5, 0, 0),
        (Inc, U32, 4, 5, 0, 5),
        (Inc, U32, 10, 5, 0, 0),
        (Inc, U32, 0, 0, 0, 0),
        (Inc, U32, M32, M32, 0, 0),
        (Inc, U32, M32 - 1, M32, 0, M32),
        (Dec, U32, 0, 5, 0, 5),
        (Dec, U32, 6, 5, 0, 5),
        (Dec, U32, 3, 5, 0, 2),
        (Dec, U32, 5, 5, 0, 4),
        (Dec, U32, 1, 0, 0, 0),
        (Min, S32, M32, 1, 0, M32),
        (Min, U32, M32, 1, 0, 1),
        (Max, S32, M32, 1, 0, 1),
        (Max, U32, M32, 1, 0, M32),
        (Min, S64, 1 << 63, 0, 0, 1 << 63),
        (Max, U64, 1 << 63, 0, 0, 1 << 63),
        (And, B32, 0xf0f0, 0xff00, 0, 0xf000),
        (Or, B32, 0xf0f0, 0xff00, 0, 0xfff0),
        (Xor, B32, 0xf0f0, 0xff00, 0, 0x0ff0),
        (Xor, B64, M64, 1, 0, M64 - 1),
        (Exch, B32, 0x1234, 0x5678, 0, 0x5678),
        (Exch, B64, 0, M64, 0, M64),
        (Cas, B32, 7, 7, 9, 9),
        (Cas, B32, 7, 8, 9, 7),
        (Cas, B64, M64, M64, 0, 0),
        (Cas, B64, M64, M64 - 1, 0, M64),
    ]);
}

#[test]
fn float_add_rounds_to_nearest_and_flushes_only_on_global() {
    let f = |x: f32| u64::from(x.to_bits());
    let d = |x: f64| x.to_bits();
    let sub = 1; // the smallest f32 subnormal
    check(&[
        (Add, F32, f(1.5), f(2.25), 0, f(3.75)),
        (Add, F32, f(1.0), f(2f32.powi(-24)), 0, f(1.0)), // tie to even
        (
            Add,
            F32,
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            0,
            0x7fff_ffff,
        ),
        (Add, F32, sub, sub, 0, 2), // shared memory keeps subnormals
        (Add, F64, d(0.1), d(0.2), 0, d(0.1 + 0.2)),
        (Add, F64, 1, 1, 0, 2),
    ]);
    let global = |old, b| atomic_update_in(StateSpace::Global, Add, F32, old, b, 0);
    let shared = |old, b| atomic_update_in(StateSpace::Shared, Add, F32, old, b, 0);
    assert_eq!(global(sub, sub), 0);
    assert_eq!(global(f(1.0), sub), f(1.0));
    // 1.5·2^-126 - 2^-126 = 2^-127: a subnormal result, flushed on global memory only.
    assert_eq!(global(0x00c0_0000, 0x8080_0000), 0);
    assert_eq!(shared(0x00c0_0000, 0x8080_0000), 0x0040_0000);
    assert_eq!(shared(sub, sub), 2);
    assert_eq!(atomic_update_in(StateSpace::Global, Add, U32, M32, 1, 0), 0);
}

#[test]
fn redux_reduces_32_bit_values() {
    const NAN: u32 = 0x7fff_ffff;
    let (pos0, neg0, one, m_two, qnan) = (
        0u32,
        0x8000_0000u32,
        0x3f80_0000u32,
        0xc000_0000u32,
        0xffc0_0001u32,
    );
    // (op, type, abs, NaN, inputs, result), worked from the manual's text.
    type Case<'a> = (ReduxOp, Type, bool, bool, &'a [u32], u32);
    let cases: &[Case] = &[
        (ReduxOp::Add, U32, false, false, &[u32::MAX, 2], 1),
        (
            ReduxOp::Add,
            S32,
            false,
            false,
            &[5, (-7i32) as u32],
            (-2i32) as u32,
        ),
        (ReduxOp::Min, S32, false, false, &[u32::MAX, 1], u32::MAX),
        (ReduxOp::Min, U32, false, false, &[u32::MAX, 1], 1),
        (ReduxOp::Max, S32, false, false, &[u32::MAX, 1], 1),
        (ReduxOp::Max, U32, false, false, &[u32::MAX, 1], u32::MAX),
        (
            ReduxOp::Max,
            S32,
            false,
            false,
            &[0x8000_0000, 0x7fff_ffff],
            0x7fff_ffff,
        ),
        (
            ReduxOp::And,
            B32,
            false,
            false,
            &[0xf0f0, 0xff00, 0xf00f],
            0xf000,
        ),
        (ReduxOp::Or, B32, false, false, &[0xf0f0, 0xff00], 0xfff0),
        (
            ReduxOp::Xor,
            B32,
            false,
            false,
            &[0xf0f0, 0xff00, 1],
            0x0ff1,
        ),
        (ReduxOp::Add, U32, false, false, &[7], 7),
        // .f32: +0.0 > -0.0, in either order.
        (ReduxOp::Min, F32, false, false, &[pos0, neg0], neg0),
        (ReduxOp::Min, F32, false, false, &[neg0, pos0], neg0),
        (ReduxOp::Max, F32, false, false, &[neg0, pos0], pos0),
        (ReduxOp::Min, F32, false, false, &[one, m_two], m_two),
        // .abs: |-2| > 1.
        (ReduxOp::Max, F32, true, false, &[one, m_two], 0x4000_0000),
        (ReduxOp::Min, F32, true, false, &[neg0, one], pos0),
        // Without .NaN a NaN is skipped; all NaN gives the canonical NaN.
        (ReduxOp::Min, F32, false, false, &[qnan, one, qnan], one),
        (ReduxOp::Max, F32, false, false, &[qnan, qnan], NAN),
        (ReduxOp::Max, F32, false, false, &[qnan], NAN),
        // With .NaN any NaN gives the canonical NaN.
        (ReduxOp::Max, F32, false, true, &[one, qnan, m_two], NAN),
        (ReduxOp::Min, F32, true, true, &[one, m_two], one),
    ];
    for &(op, ty, abs, nan, inputs, want) in cases {
        assert_eq!(
            redux(op, ty, abs, nan, inputs.iter().copied()),
            want,
            "{op:?}.{ty} abs {abs} NaN {nan} {inputs:x?}"
        );
    }
}

#[test]
fn non_alu_operations_are_refused() {
    let refused = [
        Op::Exit,
        Op::Trap,
        Op::Activemask,
        Op::Elect,
        Op::BarWarpSync,
        Op::Pack { ty: B64 },
        Op::Unpack { ty: B64 },
        Op::Bar {
            kind: BarrierKind::Sync,
            aligned: true,
        },
        Op::Atom {
            space: StateSpace::Global,
            op: Add,
            ty: U32,
            vec: 1,
            order: MemOrder::Weak,
            scope: None,
        },
        Op::Redux {
            op: ReduxOp::Add,
            ty: S32,
            abs: false,
            nan: false,
        },
        Op::Unsupported {
            text: "tex.2d".into(),
        },
    ];
    for op in &refused {
        assert_eq!(
            eval(op, &[1, 2, 3], &mut false),
            Err(AluError::NotAlu),
            "{op:?}"
        );
    }
    // PTX has no half-precision division; the numerics refuse one rather than guess.
    let half = Op::FDiv {
        ty: Type::F16,
        prec: isa::FloatPrecision::Rounded(isa::Rounding::Rn),
        ftz: false,
    };
    assert_eq!(
        eval(&half, &[0, 0], &mut false),
        Err(AluError::UnsupportedType {
            op: "div",
            ty: Type::F16
        })
    );
}

/// `atom.add.noftz` on half precision: rounded to nearest, subnormals kept on global memory
/// too, packed pairs half by half; `atom.cas.b16` compares 16 bits.
#[test]
fn half_precision_additions_and_16_bit_cas() {
    use Type::{B16, BF16, BF16x2, F16, F16x2};
    check(&[
        (Add, F16, 0x3c00, 0x3c00, 0, 0x4000),                  // 1 + 1
        (Add, F16, 0x7bff, 0x4c00, 0, 0x7c00),                  // 65504 + 16 ties up to +Inf
        (Add, F16, 1, 1, 0, 2),                                 // subnormals kept
        (Add, BF16, 0x3f80, 0x3b80, 0, 0x3f80),                 // 1 + 2^-8 ties to even
        (Add, F16x2, 0x3c00_4000, 0x3c00_4000, 0, 0x4000_4400), // {2, 1} + {2, 1}
        (Add, BF16x2, 0x7fc0_3f80, 0x3f80_3f80, 0, 0x7fff_4000), // NaN half, 1 + 1
        (Cas, B16, 0x1234, 0x1234, 0xbeef, 0xbeef),
        (Cas, B16, 0x1234, 0x4321, 0xbeef, 0x1234),
    ]);
    let global = |ty, old, b| atomic_update_in(StateSpace::Global, Add, ty, old, b, 0);
    assert_eq!(global(F16, 1, 1), 2, "no flushing on global memory");
    assert_eq!(global(F16x2, 0x0001_0001, 0x0001_0001), 0x0002_0002);
}
