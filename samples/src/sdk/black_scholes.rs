//! CUDA SDK BlackScholes: one `BlackScholesGPU` launch prices a batch of European options
//! (call and put) under the Black-Scholes model with the SDK's polynomial cumulative normal
//! distribution; threads walk the options in a grid-stride loop (128 threads per block, the
//! SDK's 480 blocks at the default and large sizes).
//!
//! Inputs are the SDK's: stock price S uniform in [5, 30), strike X in [1, 100), years T in
//! [0.25, 10), riskless rate R = 0.02 and volatility V = 0.30 for all options (the SDK's
//! `RandFloat`, seeded here).
//!
//! Validation: NVRTC compiles `logf` to a polynomial of `fma.rn` steps, `sqrtf` to `sqrt.rn`,
//! `/` to `div.rn` (`1/x` to `rcp.rn`), and `expf` to a range reduction (with an `fma.rm` and
//! a saturating conversion) around one `ex2.approx.ftz.f32`. The reference below repeats
//! NVRTC's instruction sequence operation by operation, evaluating `ex2.approx` as the
//! correctly rounded 2^x; everything else in it is exact IEEE arithmetic, so the only
//! freedom left is `ex2.approx` itself, which the PTX manual bounds to 2 ulp (relative error
//! ≤ 2^-22) — real GPUs differ from the correctly rounded value within that bound.
//! The prices are compared with the absolute tolerance that bound allows: an ex2 error of
//! 2^-22 relative in e^(-RT) and in the two CND exponentials moves
//! `call = S·N(d1) − X·e^(−RT)·N(d2)` by at most 2^-22·(X + 0.5·S + 0.5·X) (the CND's
//! polynomial tail term, the part the exponential scales, is at most 0.5), ≤ 165·2^-22 for
//! S < 30 and X < 100; perturbed operands can change each of the four f32 roundings after them
//! by one ulp, ≤ 4·2^-24·(S + X) ≤ 130·2^-22. Both together stay below 300·2^-22 ≈ 7.2e-5 (the
//! put's terms are bounded the same way). warpsim's `ex2.approx` is correctly rounded,
//! so it matches the reference exactly (max |diff| 0).

use super::common::{all_of, uniform};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// The SDK's RISKFREE and VOLATILITY.
pub const RISKFREE: f32 = 0.02;
pub const VOLATILITY: f32 = 0.30;
/// Threads per block (the SDK's 128).
const THREADS: u32 = 128;
/// The tolerance on a price: 300·2^-22 (see the module documentation).
const TOLERANCE: f64 = 300.0 / (1u64 << 22) as f64;

/// (options, blocks) per size: small 1,000 options on 4 blocks (two or more options per
/// thread, the last round partial); default 4,000,000 (the SDK's OPT_N) on the SDK's 480
/// blocks; large 8,000,000 on 480 blocks.
pub fn problem(size: Size) -> (usize, u32) {
    match size {
        Size::Small => (1_000, 4),
        Size::Default => (4_000_000, 480),
        Size::Large => (8_000_000, 480),
    }
}

/// Seeded option data (S, X, T) in the SDK's ranges.
pub fn options(n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    (
        uniform(0x5D4B_0201, n, 5.0, 30.0),
        uniform(0x5D4B_0202, n, 1.0, 100.0),
        uniform(0x5D4B_0203, n, 0.25, 10.0),
    )
}

/// `ex2.approx.ftz.f32` as the reference evaluates it: 2^x correctly rounded.
fn ex2(x: f32) -> f32 {
    (f64::from(x)).exp2() as f32
}

/// NVRTC's `logf` for a positive finite argument, instruction for instruction.
fn logf(x: f32) -> f32 {
    // Subnormals are scaled into the normal range first.
    let (m, bias) = if x < f32::MIN_POSITIVE {
        (x * 8_388_608.0, -23.0f32)
    } else {
        (x, 0.0)
    };
    let bits = m.to_bits() as i32;
    // Split m = 2^e · f with f in [2/3, 4/3).
    let e_bits = bits.wrapping_sub(0x3F2A_AAAB) & (0xFF80_0000u32 as i32);
    let f = f32::from_bits(bits.wrapping_sub(e_bits) as u32);
    let e = (e_bits as f32).mul_add(f32::from_bits(0x3400_0000), bias);
    let t = f - 1.0;
    let mut p = f32::from_bits(0xBE05_5027).mul_add(t, f32::from_bits(0x3E10_39F6));
    for c in [
        0xBDF8_CDCC,
        0x3E0F_2955,
        0xBE2A_D8B9,
        0x3E4C_ED0B,
        0xBE7F_FF22,
        0x3EAA_AA78,
        0xBF00_0000,
    ] {
        p = p.mul_add(t, f32::from_bits(c));
    }
    let r = (t * p).mul_add(t, t);
    e.mul_add(f32::from_bits(0x3F31_7218), r)
}

/// NVRTC's `expf`, instruction for instruction: x·log2(e) split into an integer j (found with
/// a saturated, round-down fma) and a remainder r, then 2^r · 2^j.
fn expf(x: f32) -> f32 {
    let s = x.mul_add(f32::from_bits(0x3BBB_989D), 0.5);
    let s = if s.is_nan() { 0.0 } else { s.clamp(0.0, 1.0) }; // cvt.sat.f32.f32
    // fma.rm.f32(s, 252, 12582913): s·252 is exact in f64 and the sum an integer plus it, so
    // rounding down is the floor.
    let j = (12_582_913.0 + (f64::from(s) * 252.0).floor()) as f32;
    let jm = -(j + f32::from_bits(0xCB40_007F));
    let r = x.mul_add(f32::from_bits(0x3FB8_AA3B), jm);
    let r = x.mul_add(f32::from_bits(0x32A5_7060), r);
    let scale = f32::from_bits(j.to_bits() << 23);
    ex2(r) * scale
}

/// The SDK's polynomial CND, as compiled.
// The SDK's decimal coefficients, kept as written; both rustc and NVRTC round them to the
// nearest f32.
#[allow(clippy::excessive_precision)]
fn cnd(d: f32) -> f32 {
    const A1: f32 = 0.319_381_53;
    const A2: f32 = -0.356_563_782;
    const A3: f32 = 1.781_477_937;
    const A4: f32 = -1.821_255_978;
    const A5: f32 = 1.330_274_429;
    const RSQRT2PI: f32 = 0.398_942_280_401_432_677_939_946_059_934_38;
    let k = 1.0 / d.abs().mul_add(0.231_641_9, 1.0);
    let x = d * (d * -0.5);
    let e = expf(x) * RSQRT2PI;
    let poly = k.mul_add(A5, A4);
    let poly = k.mul_add(poly, A3);
    let poly = k.mul_add(poly, A2);
    let poly = k.mul_add(poly, A1);
    let c = e * (k * poly);
    if d > 0.0 { 1.0 - c } else { c }
}

/// Call and put prices of one option, as compiled.
pub fn price(s: f32, x: f32, t: f32, r: f32, v: f32) -> (f32, f32) {
    let drift = (v * 0.5).mul_add(v, r);
    let sqrt_t = t.sqrt();
    let v_sqrt_t = sqrt_t * v;
    let d1 = drift.mul_add(t, logf(s / x)) / v_sqrt_t;
    let d2 = d1 - v_sqrt_t;
    let (cnd1, cnd2) = (cnd(d1), cnd(d2));
    let x_exp_rt = x * expf(-(t * r));
    let call = s * cnd1 - x_exp_rt * cnd2;
    let put = x_exp_rt * (1.0 - cnd2) - s * (1.0 - cnd1);
    (call, put)
}

/// CUDA SDK BlackScholes as a registered sample.
pub struct BlackScholes;

impl Sample for BlackScholes {
    fn name(&self) -> &'static str {
        "sdk/BlackScholes"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["BlackScholesGPU"]
    }

    fn size_description(&self, size: Size) -> String {
        let (n, blocks) = problem(size);
        format!("{n} options, {blocks} blocks of {THREADS} threads")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (n, blocks) = problem(size);
        let (s, x, t) = options(n);

        let mut session = Session::new(dev);
        let module = session.load("sdk/BlackScholes/BlackScholes.ptx")?;
        let kernel = module.kernel("BlackScholesGPU")?;
        let d_call = dev.alloc::<f32>(n)?;
        let d_put = dev.alloc::<f32>(n)?;
        let d_s = dev.alloc_from(&s)?;
        let d_x = dev.alloc_from(&x)?;
        let d_t = dev.alloc_from(&t)?;
        session.launch(
            &kernel,
            blocks,
            THREADS,
            0,
            &[
                (&d_call).into(),
                (&d_put).into(),
                (&d_s).into(),
                (&d_x).into(),
                (&d_t).into(),
                Arg::F32(RISKFREE),
                Arg::F32(VOLATILITY),
                Arg::I32(n as i32),
            ],
        )?;
        let (call, put) = (d_call.to_host()?, d_put.to_host()?);

        let (call_ref, put_ref): (Vec<f32>, Vec<f32>) = (0..n)
            .map(|i| price(s[i], x[i], t[i], RISKFREE, VOLATILITY))
            .unzip();
        let validation = all_of([
            Validation::close_f32(&call, &call_ref, 0.0, TOLERANCE),
            Validation::close_f32(&put, &put_ref, 0.0, TOLERANCE),
        ]);
        Ok(session.finish(validation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in ulps between two finite f32 of the same sign.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    /// The mirrored `logf` is within NVRTC's documented 1 ulp of the correctly rounded ln
    /// over the option ratios S/X (0.05 to 30) and beyond.
    #[test]
    fn logf_is_within_one_ulp() {
        let mut x = 1.0e-3f32;
        while x < 1.0e3 {
            let exact = f64::from(x).ln() as f32;
            assert!(
                ulps(logf(x), exact) <= 1,
                "logf({x}) = {} against {exact}",
                logf(x)
            );
            x *= 1.000_37;
        }
    }

    /// The mirrored `expf`, with a correctly rounded ex2, is within NVRTC's documented 2 ulp
    /// of the correctly rounded exp over the arguments the kernel takes (−d²/2 and −RT).
    #[test]
    fn expf_is_within_two_ulps() {
        let mut x = -80.0f32;
        while x <= 0.0 {
            let exact = f64::from(x).exp() as f32;
            assert!(
                ulps(expf(x), exact) <= 2,
                "expf({x}) = {} against {exact}",
                expf(x)
            );
            x += 0.001_3;
        }
    }

    /// The polynomial CND is the normal distribution function to the polynomial's 7.5e-8
    /// (Abramowitz & Stegun 26.2.17) plus f32 rounding; Φ by Simpson's rule in f64.
    #[test]
    fn cnd_approximates_the_normal_distribution() {
        let phi = |d: f64| {
            let steps = 2000;
            let h = d / f64::from(steps);
            let pdf = |t: f64| (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let inner: f64 = (1..steps)
                .map(|i| pdf(f64::from(i) * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
                .sum();
            0.5 + h / 3.0 * (pdf(0.0) + inner + pdf(d))
        };
        for i in -500..=500 {
            let d = i as f32 / 100.0;
            let diff = (f64::from(cnd(d)) - phi(f64::from(d))).abs();
            assert!(diff < 1.0e-6, "cnd({d}) off by {diff}");
        }
    }

    /// Call and put satisfy put-call parity, C − P = S − X·e^(−RT), to f32 rounding.
    #[test]
    fn prices_satisfy_put_call_parity() {
        let (s, x, t) = options(1000);
        for i in 0..s.len() {
            let (call, put) = price(s[i], x[i], t[i], RISKFREE, VOLATILITY);
            let parity = f64::from(s[i]) - f64::from(x[i]) * (-f64::from(RISKFREE * t[i])).exp();
            let diff = (f64::from(call) - f64::from(put) - parity).abs();
            assert!(diff < 1.0e-4, "option {i}: parity off by {diff}");
        }
    }
}
