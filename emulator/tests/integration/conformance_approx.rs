//! Conformance of the approximate instructions (`div.approx/.full`, `rcp.approx`,
//! `sqrt.approx`, `rsqrt sin cos ex2 lg2 tanh .approx`): the special values of the manual's
//! tables exactly, and the manual's error bounds on random operands (measured against f64
//! evaluations of the same functions).

use emulator::alu::eval;
use isa::{FloatPrecision, Op, TranscFn, Type};
use proptest::prelude::*;

const ONE: u64 = 0x3f80_0000;
const TWO: u64 = 0x4000_0000;
const THREE: u64 = 0x4040_0000;
const FOUR: u64 = 0x4080_0000;
const HALF: u64 = 0x3f00_0000;
const QUARTER: u64 = 0x3e80_0000;
const NEG_ONE: u64 = 0xbf80_0000;
const ZERO: u64 = 0;
const NEG_ZERO: u64 = 0x8000_0000;
const INF: u64 = 0x7f80_0000;
const NEG_INF: u64 = 0xff80_0000;
const NAN: u64 = 0x7fff_ffff;
const QNAN: u64 = 0x7fc0_0000;
const MIN_SUB: u64 = 1;
const NEG_MIN_SUB: u64 = 0x8000_0001;
const MAX: u64 = 0x7f7f_ffff;
const TWO_POW_126: u64 = 0x7e80_0000;
const TWO_POW_127: u64 = 0x7f00_0000;
const D_TWO: u64 = 0x4000_0000_0000_0000;
const D_FOUR: u64 = 0x4010_0000_0000_0000;
const D_HALF: u64 = 0x3fe0_0000_0000_0000;
const D_INF: u64 = 0x7ff0_0000_0000_0000;
const D_NEG_INF: u64 = 0xfff0_0000_0000_0000;
const D_NAN: u64 = 0xfff8_0000_0000_0000;
const D_NEG_ZERO: u64 = 0x8000_0000_0000_0000;

use crate::eval_cases::check;
use Type::{F32, F64};

fn transc(func: TranscFn, ftz: bool) -> Op {
    Op::Transc { func, ty: F32, ftz }
}
fn rcp(ty: Type, ftz: bool) -> Op {
    Op::Rcp {
        ty,
        prec: FloatPrecision::Approx,
        ftz,
    }
}
fn sqrt(ftz: bool) -> Op {
    Op::Sqrt {
        ty: F32,
        prec: FloatPrecision::Approx,
        ftz,
    }
}
fn div(prec: FloatPrecision, ftz: bool) -> Op {
    Op::FDiv { ty: F32, prec, ftz }
}

#[test]
fn rcp_and_sqrt_special_values() {
    check(&[
        (rcp(F32, false), &[NEG_INF], NEG_ZERO),
        (rcp(F32, false), &[NEG_ZERO], NEG_INF),
        (rcp(F32, false), &[ZERO], INF),
        (rcp(F32, false), &[INF], ZERO),
        (rcp(F32, false), &[QNAN], NAN),
        (rcp(F32, false), &[TWO], HALF),
        (rcp(F32, false), &[THREE], 0x3eaa_aaab),
        (rcp(F32, false), &[0x0040_0000], TWO_POW_127), // 1 / 2^-127, subnormal operand
        (rcp(F32, true), &[0x0040_0000], INF),
        (rcp(F32, true), &[NEG_MIN_SUB], NEG_INF),
        (rcp(F32, true), &[TWO_POW_127], ZERO), // 2^-127 flushed
        (rcp(F32, false), &[TWO_POW_127], 0x0040_0000),
        (rcp(F64, true), &[D_NEG_INF], D_NEG_ZERO),
        (rcp(F64, true), &[0], D_INF),
        (rcp(F64, true), &[D_NEG_ZERO], D_NEG_INF),
        (rcp(F64, true), &[1], D_INF), // subnormal flushed
        (rcp(F64, true), &[0x8000_0000_0000_0001], D_NEG_INF),
        (rcp(F64, true), &[D_TWO], D_HALF),
        (rcp(F64, true), &[0x7ff8_0000_0000_0001], D_NAN),
        (rcp(F64, true), &[0x7fe0_0000_0000_0000], 0), // 2^-1023 flushed
        (sqrt(false), &[NEG_INF], NAN),
        (sqrt(false), &[NEG_ONE], NAN),
        (sqrt(false), &[NEG_ZERO], NEG_ZERO),
        (sqrt(false), &[ZERO], ZERO),
        (sqrt(false), &[INF], INF),
        (sqrt(false), &[QNAN], NAN),
        (sqrt(false), &[FOUR], TWO),
        (sqrt(false), &[0x0000_0002], 0x1a80_0000), // √(2^-148) = 2^-74
        (sqrt(true), &[NEG_MIN_SUB], NEG_ZERO),
        (sqrt(true), &[MIN_SUB], ZERO),
    ]);
}

#[test]
fn transcendental_special_values() {
    use TranscFn::*;
    check(&[
        (transc(Rsqrt, false), &[NEG_INF], NAN),
        (transc(Rsqrt, false), &[NEG_ONE], NAN),
        (transc(Rsqrt, false), &[NEG_ZERO], NEG_INF),
        (transc(Rsqrt, false), &[ZERO], INF),
        (transc(Rsqrt, false), &[INF], ZERO),
        (transc(Rsqrt, false), &[QNAN], NAN),
        (transc(Rsqrt, false), &[FOUR], HALF),
        (transc(Rsqrt, false), &[QUARTER], TWO),
        (transc(Rsqrt, false), &[0x0000_0002], 0x6480_0000), // 1/√(2^-148) = 2^74
        (transc(Rsqrt, true), &[0x0000_0002], INF),
        (transc(Rsqrt, true), &[NEG_MIN_SUB], NEG_INF),
        (
            Op::Transc {
                func: Rsqrt,
                ty: F64,
                ftz: false,
            },
            &[D_FOUR],
            D_HALF,
        ),
        (
            Op::Transc {
                func: Rsqrt,
                ty: F64,
                ftz: false,
            },
            &[0],
            D_INF,
        ),
        (
            Op::Transc {
                func: Rsqrt,
                ty: F64,
                ftz: false,
            },
            &[D_NEG_ZERO],
            D_NEG_INF,
        ),
        (
            Op::Transc {
                func: Rsqrt,
                ty: F64,
                ftz: false,
            },
            &[0xbff0_0000_0000_0000],
            D_NAN,
        ),
        (
            Op::Transc {
                func: Rsqrt,
                ty: F64,
                ftz: true,
            },
            &[1],
            D_INF,
        ),
        (
            Op::Transc {
                func: Rsqrt,
                ty: F64,
                ftz: false,
            },
            &[D_INF],
            0,
        ),
        (transc(Sin, false), &[INF], NAN),
        (transc(Sin, false), &[NEG_INF], NAN),
        (transc(Sin, false), &[NEG_ZERO], NEG_ZERO),
        (transc(Sin, false), &[ZERO], ZERO),
        (transc(Sin, false), &[QNAN], NAN),
        (transc(Sin, true), &[NEG_MIN_SUB], NEG_ZERO),
        (transc(Sin, false), &[NEG_MIN_SUB], NEG_MIN_SUB),
        (transc(Sin, false), &[0x3fc9_0fdb], ONE), // sin(π/2)
        (transc(Cos, false), &[INF], NAN),
        (transc(Cos, false), &[NEG_INF], NAN),
        (transc(Cos, false), &[NEG_ZERO], ONE),
        (transc(Cos, false), &[ZERO], ONE),
        (transc(Cos, true), &[MIN_SUB], ONE),
        (transc(Cos, false), &[0x4049_0fdb], NEG_ONE), // cos(π)
        (transc(Cos, false), &[QNAN], NAN),
        (transc(Ex2, false), &[NEG_INF], ZERO),
        (transc(Ex2, false), &[INF], INF),
        (transc(Ex2, false), &[ZERO], ONE),
        (transc(Ex2, false), &[NEG_ZERO], ONE),
        (transc(Ex2, true), &[NEG_MIN_SUB], ONE),
        (transc(Ex2, false), &[QNAN], NAN),
        (transc(Ex2, false), &[ONE], TWO),
        (transc(Ex2, false), &[NEG_ONE], HALF),
        (transc(Ex2, false), &[0x4120_0000], 0x4480_0000), // 2^10
        (transc(Ex2, false), &[0x4300_0000], INF),         // 2^128
        (transc(Ex2, false), &[0xc315_0000], MIN_SUB),     // 2^-149
        (transc(Ex2, true), &[0xc315_0000], ZERO),
        (transc(Ex2, false), &[0xc2fe_0000], 0x0040_0000), // 2^-127
        (transc(Ex2, true), &[0xc2fe_0000], ZERO),
        (transc(Ex2, false), &[0xc300_0000], 0x0020_0000), // 2^-128
        (transc(Lg2, false), &[NEG_INF], NAN),
        (transc(Lg2, false), &[NEG_ONE], NAN),
        (transc(Lg2, false), &[NEG_ZERO], NEG_INF),
        (transc(Lg2, false), &[ZERO], NEG_INF),
        (transc(Lg2, false), &[INF], INF),
        (transc(Lg2, false), &[QNAN], NAN),
        (transc(Lg2, true), &[MIN_SUB], NEG_INF),
        (transc(Lg2, true), &[NEG_MIN_SUB], NEG_INF),
        (transc(Lg2, false), &[MIN_SUB], 0xc315_0000), // -149
        (transc(Lg2, false), &[ONE], ZERO),
        (transc(Lg2, false), &[0x4100_0000], 0x4040_0000), // lg2(8) = 3
        (transc(Lg2, false), &[HALF], NEG_ONE),
        (transc(Lg2, false), &[MAX], 0x4300_0000), // just below 128, rounds to 128
        (transc(Tanh, false), &[NEG_INF], NEG_ONE),
        (transc(Tanh, false), &[INF], ONE),
        (transc(Tanh, false), &[NEG_ZERO], NEG_ZERO),
        (transc(Tanh, false), &[ZERO], ZERO),
        (transc(Tanh, false), &[MIN_SUB], MIN_SUB),
        (transc(Tanh, false), &[NEG_MIN_SUB], NEG_MIN_SUB),
        (transc(Tanh, false), &[QNAN], NAN),
        (transc(Tanh, false), &[0x4120_0000], ONE), // tanh(10) rounds to 1
    ]);
}

#[test]
fn div_approx_and_full_special_values() {
    let approx = div(FloatPrecision::Approx, false);
    let full = div(FloatPrecision::Full, false);
    check(&[
        // For 2^126 < |b| < 2^128 the manual gives 0 (NaN for infinite a).
        (approx.clone(), &[ONE, TWO_POW_127], ZERO),
        (approx.clone(), &[NEG_ONE, TWO_POW_127], NEG_ZERO),
        (approx.clone(), &[ONE, 0xff00_0000], NEG_ZERO),
        (approx.clone(), &[MAX, MAX], ZERO),
        (approx.clone(), &[INF, TWO_POW_127], NAN),
        (approx.clone(), &[QNAN, TWO_POW_127], NAN),
        (approx.clone(), &[ONE, TWO_POW_126], 0x0080_0000), // 2^126 itself is in range
        (approx.clone(), &[0x40c0_0000, THREE], TWO),       // 6 × rn(1/3)
        (approx.clone(), &[ONE, ZERO], INF),
        (approx.clone(), &[ZERO, ZERO], NAN),
        (approx.clone(), &[INF, INF], NAN),
        (approx.clone(), &[ONE, INF], ZERO),
        (approx.clone(), &[NEG_ONE, INF], NEG_ZERO),
        (approx.clone(), &[FOUR, TWO], TWO),
        (div(FloatPrecision::Approx, true), &[MIN_SUB, ONE], ZERO),
        (
            div(FloatPrecision::Approx, true),
            &[0x0100_0000, FOUR],
            ZERO,
        ), // 2^-127 flushed
        (full.clone(), &[ONE, TWO_POW_127], 0x0040_0000), // full range: 2^-127
        (full.clone(), &[ONE, THREE], 0x3eaa_aaab),
        (full.clone(), &[ZERO, ZERO], NAN),
        (full.clone(), &[MAX, HALF], INF),
        (div(FloatPrecision::Full, true), &[ONE, TWO_POW_127], ZERO),
    ]);
}

// ---- error bounds ----

/// The size of one f32 ulp at `x` (subnormal spacing below the normal range).
fn ulp32(x: f64) -> f64 {
    let e = x.abs().log2().floor().max(-126.0);
    2f64.powf(e - 23.0)
}

fn run(op: &Op, a: u64) -> f32 {
    f32::from_bits(eval(op, &[a], &mut false).unwrap()[0] as u32)
}

fn run2(op: &Op, a: u64, b: u64) -> f32 {
    f32::from_bits(eval(op, &[a, b], &mut false).unwrap()[0] as u32)
}

/// Normal f32 values with exponents in `lo..hi` (unbiased), either sign unless `pos`.
fn normal(lo: i32, hi: i32, pos: bool) -> impl Strategy<Value = u64> {
    (any::<bool>(), lo..hi, 0u32..0x80_0000).prop_map(move |(s, e, m)| {
        u64::from(((s && !pos) as u32) << 31 | ((e + 127) as u32) << 23 | m)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn ex2_within_2_ulp(x in -125.0f32..127.0) {
        let got = f64::from(run(&transc(TranscFn::Ex2, false), u64::from(x.to_bits())));
        let exact = f64::from(x).exp2();
        prop_assert!((got - exact).abs() <= 2.0 * ulp32(exact), "ex2({x}) = {got}, want {exact}");
    }

    #[test]
    fn lg2_within_the_manuals_bounds(a in normal(-126, 128, true)) {
        let x = f64::from(f32::from_bits(a as u32));
        let got = f64::from(run(&transc(TranscFn::Lg2, false), a));
        let exact = x.log2();
        // 2^-22 absolute on (0.5, 2), 2^-22 relative elsewhere.
        let bound = if x > 0.5 && x < 2.0 { 2f64.powi(-22) } else { exact.abs() * 2f64.powi(-22) };
        prop_assert!((got - exact).abs() <= bound, "lg2({x}) = {got}, want {exact}");
    }

    #[test]
    fn sin_cos_within_2_pow_minus_20_5(x in -std::f32::consts::PI..std::f32::consts::PI) {
        let a = u64::from(x.to_bits());
        let bound = 2f64.powf(-20.5);
        let (s, c) = (run(&transc(TranscFn::Sin, false), a), run(&transc(TranscFn::Cos, false), a));
        prop_assert!((f64::from(s) - f64::from(x).sin()).abs() <= bound);
        prop_assert!((f64::from(c) - f64::from(x).cos()).abs() <= bound);
    }

    #[test]
    fn rsqrt_within_2_pow_minus_22_9(a in normal(-126, 128, true)) {
        let x = f64::from(f32::from_bits(a as u32));
        let got = f64::from(run(&transc(TranscFn::Rsqrt, false), a));
        let exact = 1.0 / x.sqrt();
        prop_assert!(((got - exact) / exact).abs() <= 2f64.powf(-22.9));
    }

    #[test]
    fn tanh_within_2_pow_minus_11(x in -20.0f32..20.0) {
        let got = f64::from(run(&transc(TranscFn::Tanh, false), u64::from(x.to_bits())));
        let exact = f64::from(x).tanh();
        prop_assert!((got - exact).abs() <= exact.abs() * 2f64.powi(-11) + 1e-45);
    }

    #[test]
    fn rcp_and_sqrt_within_bounds(a in normal(-126, 127, false)) {
        let x = f64::from(f32::from_bits(a as u32));
        let r = f64::from(run(&rcp(F32, false), a));
        prop_assert!((r - 1.0 / x).abs() <= ulp32(1.0 / x));
        let s = f64::from(run(&sqrt(false), a & 0x7fff_ffff));
        let exact = x.abs().sqrt();
        prop_assert!(((s - exact) / exact).abs() <= 2f64.powi(-23));
    }

    #[test]
    fn div_approx_and_full_within_2_ulp(a in normal(-60, 60, false), b in normal(-60, 60, false)) {
        let exact = f64::from(f32::from_bits(a as u32)) / f64::from(f32::from_bits(b as u32));
        for prec in [FloatPrecision::Approx, FloatPrecision::Full] {
            let got = f64::from(run2(&div(prec, false), a, b));
            prop_assert!((got - exact).abs() <= 2.0 * ulp32(exact), "{prec:?}: {got} vs {exact}");
        }
    }
}
