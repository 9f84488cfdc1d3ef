//! Rodinia lavaMD: particle potentials and forces over a `boxes1d`³ grid of boxes, 100
//! particles per box (`NUMBER_PAR_PER_BOX`). One launch of `kernel_gpu_cuda`, one 128-thread
//! block per home box; each home particle interacts with every particle of its box and of the
//! up to 26 neighbouring boxes, in double precision (Rodinia's `fp` is `double`).
//!
//! Inputs as Rodinia draws them (`(rand() % 10 + 1) / 10.0`: positions, "v" and charges in
//! 0.1–1.0), from a seeded [`Rng`]; `alpha` = 0.5.
//!
//! Validation is bit-exact. NVRTC compiles `DOT` to `mul` + two `fma.rn.f64`, `2 * vij` to an
//! add, and each accumulation `fA += qB * f` to one `fma.rn.f64`, which the reference mirrors.
//! `exp(-u2)` is libdevice's `__nv_exp`, inlined as pure IEEE double arithmetic (a rounding
//! shift, a two-part `ln 2` reduction, a degree-11 polynomial by `fma`, and an exponent add,
//! with a rescaling path for |x| ≥ 708.4); [`nv_exp`] transcribes that PTX instruction for
//! instruction, so the reference reproduces every bit.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's NUMBER_PAR_PER_BOX and NUMBER_THREADS.
pub const PAR_PER_BOX: usize = 100;
pub const THREADS: u32 = 128;
/// `par_cpu.alpha`.
pub const ALPHA: f64 = 0.5;
/// Bytes of `box_str` (x, y, z, number, offset, nn, 26 × `nei_str` of 24 bytes).
const BOX_BYTES: usize = 32 + 26 * 24;

/// `-boxes1d`: small 2 (8 boxes), default 10 (Rodinia's run script), large 16.
pub fn boxes1d(size: Size) -> usize {
    match size {
        Size::Small => 2,
        Size::Default => 10,
        Size::Large => 16,
    }
}

/// One box: its number, first particle, and neighbour box numbers in Rodinia's order.
#[derive(Clone, Debug)]
pub struct Box3 {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub number: i32,
    pub offset: i64,
    pub nei: Vec<(i32, i32, i32, i32)>,
}

/// The box grid (Rodinia's main: home boxes z-y-x, neighbours z-y-x, home excluded).
pub fn boxes(b: usize) -> Vec<Box3> {
    let b = b as i32;
    let mut out = Vec::new();
    for i in 0..b {
        for j in 0..b {
            for k in 0..b {
                let nh = out.len() as i32;
                let mut nei = Vec::new();
                for l in -1..2 {
                    for m in -1..2 {
                        for n in -1..2 {
                            let inside = i + l >= 0
                                && j + m >= 0
                                && k + n >= 0
                                && i + l < b
                                && j + m < b
                                && k + n < b;
                            if inside && !(l == 0 && m == 0 && n == 0) {
                                let (x, y, z) = (k + n, j + m, i + l);
                                nei.push((x, y, z, z * b * b + y * b + x));
                            }
                        }
                    }
                }
                out.push(Box3 {
                    x: k,
                    y: j,
                    z: i,
                    number: nh,
                    offset: i64::from(nh) * PAR_PER_BOX as i64,
                    nei,
                });
            }
        }
    }
    out
}

fn box_bytes(boxes: &[Box3]) -> Vec<u8> {
    let mut out = vec![0u8; boxes.len() * BOX_BYTES];
    for (b, chunk) in boxes.iter().zip(out.chunks_exact_mut(BOX_BYTES)) {
        let mut put = |at: usize, bytes: &[u8]| chunk[at..at + bytes.len()].copy_from_slice(bytes);
        put(0, &b.x.to_le_bytes());
        put(4, &b.y.to_le_bytes());
        put(8, &b.z.to_le_bytes());
        put(12, &b.number.to_le_bytes());
        put(16, &b.offset.to_le_bytes());
        put(24, &(b.nei.len() as i32).to_le_bytes());
        for (n, &(x, y, z, number)) in b.nei.iter().enumerate() {
            let at = 32 + 24 * n;
            put(at, &x.to_le_bytes());
            put(at + 4, &y.to_le_bytes());
            put(at + 8, &z.to_le_bytes());
            put(at + 12, &number.to_le_bytes());
            put(
                at + 16,
                &(i64::from(number) * PAR_PER_BOX as i64).to_le_bytes(),
            );
        }
    }
    out
}

/// `dim_str` by value: cur_arg, arch_arg, cores_arg, boxes1d_arg, number_boxes, box_mem,
/// space_elem, space_mem, space_mem2.
fn dim_bytes(b: usize) -> Vec<u8> {
    let number_boxes = (b * b * b) as i64;
    let space_elem = number_boxes * PAR_PER_BOX as i64;
    let mut out = Vec::with_capacity(56);
    for v in [0i32, 0, 0, b as i32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [
        number_boxes,
        number_boxes * BOX_BYTES as i64,
        space_elem,
        space_elem * 32,
        space_elem * 8,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// libdevice `__nv_exp(x)` as NVRTC inlines it (sm_70), operation by operation.
pub fn nv_exp(x: f64) -> f64 {
    const SHIFT: f64 = f64::from_bits(0x4338_0000_0000_0000); // 1.5 · 2^52
    const LOG2E: f64 = f64::from_bits(0x3FF7_1547_652B_82FE);
    const LN2_HI: f64 = f64::from_bits(0xBFE6_2E42_FEFA_39EF); // −ln 2, high part
    const LN2_LO: f64 = f64::from_bits(0xBC7A_BC9E_3B39_803F); // −ln 2, low part
    const C: [u64; 9] = [
        0x3EC7_1DEE_6240_1315,
        0x3EFA_0199_7C89_EB71,
        0x3F2A_01A0_1476_1F65,
        0x3F56_C16C_1852_B7AF,
        0x3F81_1111_1112_2322,
        0x3FA5_5555_5555_02A1,
        0x3FC5_5555_5555_5511,
        0x3FE0_0000_0000_000B,
        0x3FF0_0000_0000_0000,
    ];
    let t = x.mul_add(LOG2E, SHIFT);
    let i = t.to_bits() as u32 as i32;
    let k = t + (-SHIFT);
    let r = k.mul_add(LN2_HI, x);
    let r = k.mul_add(LN2_LO, r);
    let mut p =
        f64::from_bits(0x3E5A_DE15_69CE_2BDF).mul_add(r, f64::from_bits(0x3E92_8AF3_FCA2_13EA));
    for c in C {
        p = p.mul_add(r, f64::from_bits(c));
    }
    p = p.mul_add(r, 1.0);
    let (plo, phi) = (p.to_bits() as u32, (p.to_bits() >> 32) as u32);
    let join = |lo: u32, hi: u32| f64::from_bits((u64::from(hi) << 32) | u64::from(lo));
    let mut result = join(plo, phi.wrapping_add((i << 20) as u32));
    // |x| tested on the high word, as an f32 bit pattern (`setp.lt.f32`: false for NaN).
    let h = f32::from_bits(((x.to_bits() >> 32) as u32) & 0x7FFF_FFFF);
    let fast = h < f32::from_bits(0x4086_232B);
    if !fast {
        let u = -x;
        result = if u > -0.0 { 0.0 } else { f64::INFINITY - u };
        if h < f32::from_bits(0x4087_4800) {
            let half = i.wrapping_add((i as u32 >> 31) as i32) >> 1;
            let a = join(plo, phi.wrapping_add((half << 20) as u32));
            let b = join(
                0,
                (i.wrapping_sub(half) << 20).wrapping_add(0x3FF0_0000) as u32,
            );
            result = a * b;
        }
    }
    result
}

/// The CPU reference: (v, x, y, z) per particle after the kernel, with its arithmetic.
pub fn reference(boxes: &[Box3], rv: &[f64], qv: &[f64]) -> Vec<f64> {
    let a2 = ALPHA * (ALPHA + ALPHA);
    let mut fv = vec![0.0f64; rv.len()];
    for home in boxes {
        let first_i = home.offset as usize;
        let neighbourhood = std::iter::once(home.number).chain(home.nei.iter().map(|n| n.3));
        for pointer in neighbourhood {
            let first_j = boxes[pointer as usize].offset as usize;
            for i in first_i..first_i + PAR_PER_BOX {
                let a = &rv[4 * i..4 * i + 4];
                let f = &mut fv[4 * i..4 * i + 4];
                for j in first_j..first_j + PAR_PER_BOX {
                    let b = &rv[4 * j..4 * j + 4];
                    let dot = a[3].mul_add(b[3], a[1].mul_add(b[1], a[2] * b[2]));
                    let r2 = (a[0] + b[0]) - dot;
                    let u2 = a2 * r2;
                    let vij = nv_exp(-u2);
                    let fs = vij + vij;
                    let fx = fs * (a[1] - b[1]);
                    let fy = fs * (a[2] - b[2]);
                    let fz = fs * (a[3] - b[3]);
                    let q = qv[j];
                    f[0] = vij.mul_add(q, f[0]);
                    f[1] = fx.mul_add(q, f[1]);
                    f[2] = fy.mul_add(q, f[2]);
                    f[3] = fz.mul_add(q, f[3]);
                }
            }
        }
    }
    fv
}

/// lavaMD as a registered sample.
pub struct LavaMd;

impl Sample for LavaMd {
    fn name(&self) -> &'static str {
        "rodinia/lavaMD"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["kernel_gpu_cuda"]
    }

    fn size_description(&self, size: Size) -> String {
        let b = boxes1d(size);
        format!(
            "-boxes1d {b}: {} boxes of {PAR_PER_BOX} particles",
            b * b * b
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let b = boxes1d(size);
        let grid = boxes(b);
        let space_elem = grid.len() * PAR_PER_BOX;
        let mut rng = Rng::new(0x1A7A_0001);
        let mut draw = || (rng.next_u64() % 10 + 1) as f64 / 10.0;
        let rv: Vec<f64> = (0..4 * space_elem).map(|_| draw()).collect();
        let qv: Vec<f64> = (0..space_elem).map(|_| draw()).collect();

        let mut session = Session::new(dev);
        let module = session.load("rodinia/lavaMD/lavaMD.ptx")?;
        let kernel = module.kernel("kernel_gpu_cuda")?;
        let box_d = dev.alloc_from(&box_bytes(&grid))?;
        let rv_d = dev.alloc_from(&rv)?;
        let qv_d = dev.alloc_from(&qv)?;
        let fv_d = dev.alloc_from(&vec![0.0f64; 4 * space_elem])?;
        session.launch(
            &kernel,
            grid.len() as u32,
            THREADS,
            0,
            &[
                Arg::Bytes(ALPHA.to_le_bytes().to_vec()),
                Arg::Bytes(dim_bytes(b)),
                (&box_d).into(),
                (&rv_d).into(),
                (&qv_d).into(),
                (&fv_d).into(),
            ],
        )?;
        let got = fv_d.to_host()?;
        let want = reference(&grid, &rv, &qv);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut validation = Validation::exact(&bits(&got), &bits(&want));
        if !validation.passed() {
            // Report the values and the size of the difference, not bit patterns.
            let close = Validation::close(&got, &want, 0.0, 0.0);
            validation.first_mismatch = close.first_mismatch;
            validation.max_abs_diff = close.max_abs_diff;
        }
        Ok(session.finish(validation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The transcribed `__nv_exp` is an accurate exp over the whole range.
    #[test]
    fn nv_exp_is_exp() {
        for i in -800_000..800_000 {
            let x = i as f64 / 1000.0 + 0.000_37;
            let (got, want) = (nv_exp(x), x.exp());
            if want == 0.0 || want.is_infinite() {
                assert_eq!(got, want, "exp({x})");
            } else if want.is_normal() {
                assert!(
                    ((got - want) / want).abs() < 4e-16,
                    "exp({x}) = {got}, not {want}"
                );
            }
        }
        assert_eq!(nv_exp(0.0), 1.0);
        assert!(nv_exp(f64::NAN).is_nan());
        assert_eq!(nv_exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(nv_exp(f64::INFINITY), f64::INFINITY);
    }
}
