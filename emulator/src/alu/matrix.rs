//! Tensor-core arithmetic: `D = A · B + C` over whole matrices, elements as raw bits in
//! row-major order (the executor gathers them from the warp's fragments).
//!
//! The manual leaves the order and precision of the accumulation to the implementation;
//! warpsim defines it as:
//!
//! - `.f16`, `.bf16`, `.tf32` inputs: every product is exact (in f64), the `K` products of an
//!   element are summed in order, then `C` is added, in f64, and the sum is rounded once to
//!   the destination type (to nearest even). A NaN gives the destination's canonical NaN.
//!   `.tf32` operands are read as their top 19 bits (the 13 below are ignored, as by the
//!   hardware's tf32 inputs). `.satfinite` turns infinities into the largest finite value.
//! - `.f64`: `K` fused multiply-adds in order, from `C`, each rounded as `rnd` says.
//! - `.s8`/`.u8`: the exact integer sum, wrapped to 32 bits, or clamped with `.satfinite`.

use super::round::{self, Format};
use isa::{MatrixShape, Rounding, Type};

/// The element types of one `mma`.
#[derive(Clone, Copy, Debug)]
pub struct MmaTypes {
    pub d: Type,
    pub a: Type,
    pub b: Type,
    pub c: Type,
}

/// `D = A · B + C` for `shape`: `a` is M×K, `b` K×N, `c` M×N, row-major raw bits; returns D.
pub fn mma(
    shape: MatrixShape,
    types: MmaTypes,
    satfinite: bool,
    rnd: Rounding,
    a: &[u64],
    b: &[u64],
    c: &[u64],
) -> Vec<u64> {
    let (m, n, k) = (
        usize::from(shape.m),
        usize::from(shape.n),
        usize::from(shape.k),
    );
    let mut d = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let row = &a[i * k..][..k];
            let col = (0..k).map(|x| b[x * n + j]);
            let acc = c[i * n + j];
            d.push(match types.d {
                Type::S32 => int_dot(types, satfinite, row, col, acc),
                Type::F64 => row
                    .iter()
                    .zip(col)
                    .fold(acc, |acc, (&x, y)| round::fma(Format::F64, x, y, acc, rnd)),
                _ => float_dot(types, satfinite, row, col, acc),
            });
        }
    }
    d
}

fn int_dot(
    types: MmaTypes,
    satfinite: bool,
    row: &[u64],
    col: impl Iterator<Item = u64>,
    acc: u64,
) -> u64 {
    let value = |ty: Type, x: u64| match ty {
        Type::S8 => i64::from(x as u8 as i8),
        _ => i64::from(x as u8),
    };
    let sum = row
        .iter()
        .zip(col)
        .map(|(&x, y)| value(types.a, x) * value(types.b, y))
        .sum::<i64>()
        + i64::from(acc as u32 as i32);
    let sum = if satfinite {
        sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        sum
    };
    u64::from(sum as i32 as u32)
}

/// An element of type `ty` as f64 bits (exact).
fn widen(ty: Type, x: u64) -> u64 {
    let (from, x) = match ty {
        Type::F16 => (Format::F16, x & 0xffff),
        Type::BF16 => (Format::BF16, x & 0xffff),
        Type::TF32 => (Format::F32, x & 0xffff_e000),
        _ => (Format::F32, x & 0xffff_ffff),
    };
    round::convert(from, Format::F64, x, Rounding::Rn)
}

fn float_dot(
    types: MmaTypes,
    satfinite: bool,
    row: &[u64],
    col: impl Iterator<Item = u64>,
    acc: u64,
) -> u64 {
    let sum = row
        .iter()
        .zip(col)
        .map(|(&x, y)| f64::from_bits(widen(types.a, x)) * f64::from_bits(widen(types.b, y)))
        .sum::<f64>()
        + f64::from_bits(widen(types.c, acc));
    let to = if types.d == Type::F16 {
        Format::F16
    } else {
        Format::F32
    };
    let r = round::convert(Format::F64, to, sum.to_bits(), Rounding::Rn);
    if satfinite && to.is_inf(r) {
        r & to.sign_bit() | to.max_finite()
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: MatrixShape = MatrixShape { m: 2, n: 2, k: 2 };

    fn types(d: Type, ab: Type, c: Type) -> MmaTypes {
        MmaTypes { d, a: ab, b: ab, c }
    }

    #[test]
    fn f16_products_sum_exactly_and_round_once() {
        // A = [1 2; 3 4], B = [5 6; 7 8], C = [0.5 0; 0 -1] in f16; D in f32.
        let h = |x: f32| {
            round::convert(
                Format::F32,
                Format::F16,
                u64::from(x.to_bits()),
                Rounding::Rn,
            )
        };
        let a = [h(1.0), h(2.0), h(3.0), h(4.0)];
        let b = [h(5.0), h(6.0), h(7.0), h(8.0)];
        let c = [0.5f32, 0.0, 0.0, -1.0].map(|x| u64::from(x.to_bits()));
        let d = mma(
            SHAPE,
            types(Type::F32, Type::F16, Type::F32),
            false,
            Rounding::Rn,
            &a,
            &b,
            &c,
        );
        let want = [19.5f32, 22.0, 43.0, 49.0].map(|x| u64::from(x.to_bits()));
        assert_eq!(d, want);
    }

    #[test]
    fn integer_products_wrap_or_saturate() {
        let a = [0x80, 0x7f, 0xff, 1]; // s8: -128, 127, -1, 1
        let b = [0x80, 0, 0x80, 0]; // -128 0; -128 0
        let c = [0x7fff_ffc0, 5, 0, 0];
        let t = MmaTypes {
            d: Type::S32,
            a: Type::S8,
            b: Type::S8,
            c: Type::S32,
        };
        let d = mma(SHAPE, t, false, Rounding::Rn, &a, &b, &c);
        // Row 0: -128·-128 + 127·-128 = 128, + 0x7fffffc0 wraps past i32::MAX.
        assert_eq!(d[0], u64::from((0x7fff_ffc0i64 + 128) as i32 as u32));
        assert!((d[0] as u32 as i32) < 0, "wrapped");
        assert_eq!(d[1], 5);
        assert_eq!(d[2], u64::from((128 - 128i32) as u32));
        let s = mma(SHAPE, t, true, Rounding::Rn, &a, &b, &c);
        assert_eq!(s[0], 0x7fff_ffff);
        // u8 reads the same bytes unsigned.
        let u = MmaTypes {
            a: Type::U8,
            b: Type::U8,
            ..t
        };
        let d = mma(SHAPE, u, false, Rounding::Rn, &a, &b, &[0; 4]);
        assert_eq!(d[0], 128 * 128 + 127 * 128);
    }
}
