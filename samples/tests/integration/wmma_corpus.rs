//! The warp matrix corpus (`samples/corpus/wmma*.cu`, NVRTC's PTX of mma.h; `mma_sync.cu` and
//! `mma_volta.cu`, inline `mma.sync`): every `wmma` shape and type NVRTC emits, row- and
//! column-major, f16 and f32 accumulators, element-wise work on fragments, shared-memory
//! fragments and accumulation over K, and `mma.sync` over the manual's fragment layouts, each
//! output checked exactly against a host product (the inputs are small multiples of 1/4, so
//! every sum is exact in every accumulator type), under the JIT, the interpreter and the
//! timing model.

use emulator::Engine;
use runtime::{Arg, Device, DeviceConfig};
use timing::GpuConfig;

fn devices(preset: &str) -> [(String, Device); 3] {
    let device = |engine, timing: Option<&str>| {
        Device::new(DeviceConfig {
            engine,
            timing: timing.map(GpuConfig::preset),
            ..DeviceConfig::default()
        })
        .unwrap()
    };
    [
        ("jit".into(), device(Engine::Jit, None)),
        ("interpreter".into(), device(Engine::Interpreter, None)),
        (
            format!("{preset} timing"),
            device(Engine::Jit, Some(preset)),
        ),
    ]
}

fn kernel(dev: &Device, file: &str, name: &str) -> runtime::Kernel {
    let path = warpsim::samples_dir().join("corpus").join(file);
    dev.load_ptx_file(&path).unwrap().kernel(name).unwrap()
}

/// Exactly representable inputs: multiples of 1/4 in [-2, 2].
fn quarters(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7 + seed * 3 + i / 5) % 17) as f64 / 4.0 - 2.0)
        .collect()
}

/// The f16 encoding of an exactly representable normal value (or zero).
fn f16_bits(x: f64) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let (sign, a) = (u16::from(x < 0.0) << 15, x.abs());
    let e = a.log2().floor() as i32;
    let frac = a / 2f64.powi(e) - 1.0;
    let m = frac * 1024.0;
    assert!(
        m.fract() == 0.0 && (-14..=15).contains(&e),
        "{x} is not an exact f16"
    );
    sign | ((e + 15) as u16) << 10 | m as u16
}

fn f16_value(h: u16) -> f64 {
    let e = i32::from(h >> 10 & 0x1f);
    let m = f64::from(h & 0x3ff);
    let v = if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    };
    if h & 0x8000 != 0 { -v } else { v }
}

/// The bf16 encoding of an exactly representable value: the top half of its f32.
fn bf16_bits(x: f64) -> u16 {
    let b = (x as f32).to_bits();
    assert_eq!(b & 0xffff, 0, "{x} is not an exact bf16");
    (b >> 16) as u16
}

/// `A (m×k) · B (k×n) + C`, row-major, from element functions.
fn product(
    (m, n, k): (usize, usize, usize),
    a: impl Fn(usize, usize) -> f64,
    b: impl Fn(usize, usize) -> f64,
    c: impl Fn(usize, usize) -> f64,
) -> Vec<f64> {
    let mut d = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            d.push((0..k).map(|x| a(i, x) * b(x, j)).sum::<f64>() + c(i, j));
        }
    }
    d
}

const BLOCKS: usize = 2;

#[test]
fn m16n16k16_row_col_with_f32_and_f16_accumulators() {
    let (a, b, c) = (
        quarters(BLOCKS * 256, 1),
        quarters(BLOCKS * 256, 2),
        quarters(BLOCKS * 256, 3),
    );
    let mut d_want = vec![0f32; BLOCKS * 256];
    let mut dh_want = vec![0u16; BLOCKS * 256];
    for blk in 0..BLOCKS {
        let t = blk * 256;
        let ab = |c: &dyn Fn(usize, usize) -> f64| {
            product(
                (16, 16, 16),
                |i, k| a[t + i * 16 + k],
                |k, j| b[t + j * 16 + k],
                c,
            )
        };
        for (e, v) in ab(&|i, j| 2.0 * c[t + i * 16 + j]).iter().enumerate() {
            let (i, j) = (e / 16, e % 16);
            d_want[t + j * 16 + i] = *v as f32;
        }
        for (e, v) in ab(&|_, _| 0.0).iter().enumerate() {
            dh_want[t + e] = f16_bits(*v);
        }
    }
    let halves = |v: &[f64]| v.iter().map(|&x| f16_bits(x)).collect::<Vec<_>>();
    let c32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
    for (what, dev) in devices("v100") {
        let (da, db, dc) = (
            dev.alloc_from(&halves(&a)).unwrap(),
            dev.alloc_from(&halves(&b)).unwrap(),
            dev.alloc_from(&c32).unwrap(),
        );
        let d = dev.alloc::<f32>(BLOCKS * 256).unwrap();
        let dh = dev.alloc::<u16>(BLOCKS * 256).unwrap();
        let args = [
            (&da).into(),
            (&db).into(),
            (&dc).into(),
            (&d).into(),
            (&dh).into(),
        ];
        let k = kernel(&dev, "wmma.ptx", "mma_m16n16k16");
        dev.launch(&k, BLOCKS as u32, 32, 0, &args).unwrap();
        assert_eq!(d.to_host().unwrap(), d_want, "{what}");
        assert_eq!(dh.to_host().unwrap(), dh_want, "{what}");
    }
}

#[test]
fn m32n8k16_and_m8n32k16_over_k_through_shared_memory() {
    let (a, b, c) = (
        quarters(BLOCKS * 512, 4),
        quarters(BLOCKS * 128, 5),
        quarters(BLOCKS * 256, 6),
    );
    let halves = |v: &[f64]| v.iter().map(|&x| f16_bits(x)).collect::<Vec<_>>();
    let want: Vec<u16> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (32, 8, 16),
                |i, k| a[blk * 512 + k * 32 + i],
                |k, j| b[blk * 128 + k * 8 + j],
                |i, j| c[blk * 256 + i * 8 + j],
            )
        })
        .map(f16_bits)
        .collect();
    const K: usize = 3;
    let (ta, tb) = (
        quarters(BLOCKS * 8 * 16 * K, 7),
        quarters(BLOCKS * 16 * K * 32, 8),
    );
    let tiled: Vec<f32> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (8, 32, 16 * K),
                |i, k| ta[blk * 8 * 16 * K + i * 16 * K + k],
                |k, j| tb[blk * 16 * K * 32 + k * 32 + j],
                |_, _| 0.0,
            )
        })
        .map(|x| x as f32)
        .collect();
    for (what, dev) in devices("v100") {
        let (da, db, dc) = (
            dev.alloc_from(&halves(&a)).unwrap(),
            dev.alloc_from(&halves(&b)).unwrap(),
            dev.alloc_from(&halves(&c)).unwrap(),
        );
        let d = dev.alloc::<u16>(BLOCKS * 256).unwrap();
        let args = [(&da).into(), (&db).into(), (&dc).into(), (&d).into()];
        dev.launch(
            &kernel(&dev, "wmma.ptx", "mma_m32n8k16"),
            BLOCKS as u32,
            32,
            0,
            &args,
        )
        .unwrap();
        assert_eq!(d.to_host().unwrap(), want, "{what} m32n8k16");
        let (da, db) = (
            dev.alloc_from(&halves(&ta)).unwrap(),
            dev.alloc_from(&halves(&tb)).unwrap(),
        );
        let d = dev.alloc::<f32>(BLOCKS * 256).unwrap();
        let args = [(&da).into(), (&db).into(), (&d).into(), Arg::I32(K as i32)];
        let k = kernel(&dev, "wmma.ptx", "mma_m8n32k16_tiled");
        dev.launch(&k, BLOCKS as u32, 32, 0, &args).unwrap();
        assert_eq!(d.to_host().unwrap(), tiled, "{what} m8n32k16 over K");
    }
}

#[test]
fn bf16_tf32_and_f64_fragments() {
    let (a, b, c) = (
        quarters(BLOCKS * 256, 9),
        quarters(BLOCKS * 256, 10),
        quarters(BLOCKS * 256, 11),
    );
    let bf16_want: Vec<f32> = (0..BLOCKS)
        .flat_map(|blk| {
            let t = blk * 256;
            product(
                (16, 16, 16),
                |i, k| a[t + i * 16 + k],
                |k, j| b[t + k * 16 + j],
                |i, j| c[t + j * 16 + i],
            )
        })
        .map(|x| x as f32)
        .collect();
    let tf32_want: Vec<f32> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (16, 16, 8),
                |i, k| a[blk * 128 + i * 8 + k],
                |k, j| b[blk * 128 + j * 8 + k],
                |_, _| 0.0,
            )
        })
        .map(|x| x as f32)
        .collect();
    let f64_want: Vec<f64> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (8, 8, 4),
                |i, k| a[blk * 32 + i * 4 + k],
                |k, j| b[blk * 32 + j * 4 + k],
                |i, j| c[blk * 64 + i * 8 + j],
            )
        })
        .collect();
    let bf16 = |v: &[f64]| v.iter().map(|&x| bf16_bits(x)).collect::<Vec<_>>();
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    for (what, dev) in devices("a100") {
        let file = "wmma_sm80.ptx";
        let (da, db, dc) = (
            dev.alloc_from(&bf16(&a)).unwrap(),
            dev.alloc_from(&bf16(&b)).unwrap(),
            dev.alloc_from(&f32s(&c)).unwrap(),
        );
        let d = dev.alloc::<f32>(BLOCKS * 256).unwrap();
        let args = [(&da).into(), (&db).into(), (&dc).into(), (&d).into()];
        dev.launch(&kernel(&dev, file, "mma_bf16"), BLOCKS as u32, 32, 0, &args)
            .unwrap();
        assert_eq!(d.to_host().unwrap(), bf16_want, "{what} bf16");
        let (da, db) = (
            dev.alloc_from(&f32s(&a)).unwrap(),
            dev.alloc_from(&f32s(&b)).unwrap(),
        );
        let args = [(&da).into(), (&db).into(), (&d).into()];
        dev.launch(&kernel(&dev, file, "mma_tf32"), BLOCKS as u32, 32, 0, &args)
            .unwrap();
        assert_eq!(d.to_host().unwrap(), tf32_want, "{what} tf32");
        let (da, db, dc) = (
            dev.alloc_from(&a).unwrap(),
            dev.alloc_from(&b).unwrap(),
            dev.alloc_from(&c).unwrap(),
        );
        let d = dev.alloc::<f64>(BLOCKS * 64).unwrap();
        let args = [(&da).into(), (&db).into(), (&dc).into(), (&d).into()];
        dev.launch(&kernel(&dev, file, "mma_f64"), BLOCKS as u32, 32, 0, &args)
            .unwrap();
        assert_eq!(d.to_host().unwrap(), f64_want, "{what} f64");
    }
}

#[test]
fn s8_and_u8_fragments_accumulate_in_s32() {
    let bytes = |n: usize, seed: usize| -> Vec<u8> {
        (0..n)
            .map(|i| ((i * 37 + seed * 101 + i / 7) % 256) as u8)
            .collect()
    };
    let (a, b, au, bu) = (
        bytes(BLOCKS * 256, 1),
        bytes(BLOCKS * 256, 2),
        bytes(BLOCKS * 512, 3),
        bytes(BLOCKS * 128, 4),
    );
    let s = |x: u8| f64::from(x as i8);
    let d_want: Vec<f64> = (0..BLOCKS)
        .flat_map(|blk| {
            let t = blk * 256;
            product(
                (16, 16, 16),
                |i, k| s(a[t + i * 16 + k]),
                |k, j| s(b[t + j * 16 + k]),
                |_, _| 0.0,
            )
        })
        .collect();
    let du_want: Vec<i32> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (32, 8, 16),
                |i, k| f64::from(au[blk * 512 + i * 16 + k]),
                |k, j| f64::from(bu[blk * 128 + j * 16 + k]),
                |i, j| d_want[blk * 256 + i * 8 + j],
            )
        })
        .map(|x| x as i32)
        .collect();
    let d_want: Vec<i32> = d_want.iter().map(|&x| x as i32).collect();
    for (what, dev) in devices("a100") {
        let bufs = [&a, &b, &au, &bu].map(|v| dev.alloc_from(v).unwrap());
        let d = dev.alloc::<i32>(BLOCKS * 256).unwrap();
        let du = dev.alloc::<i32>(BLOCKS * 256).unwrap();
        let mut args: Vec<Arg> = bufs.iter().map(|b| b.into()).collect();
        args.extend([(&d).into(), (&du).into()]);
        dev.launch(
            &kernel(&dev, "wmma_sm80.ptx", "mma_int8"),
            BLOCKS as u32,
            32,
            0,
            &args,
        )
        .unwrap();
        assert_eq!(d.to_host().unwrap(), d_want, "{what} s8");
        assert_eq!(du.to_host().unwrap(), du_want, "{what} u8");
    }
}

/// `f16_value` inverts `f16_bits` (the test's own helpers agree).
#[test]
fn f16_helpers_round_trip() {
    for x in quarters(64, 0) {
        assert_eq!(f16_value(f16_bits(x)), x);
    }
}

/// `mma.sync` with the manual's fragment layouts (`samples/corpus/mma_sync.cu`): fragments
/// loaded by `ldmatrix` (plain and transposed, which must agree with each other and with the
/// multiply-add's layout) or by each thread from the manual's formulas.
#[test]
fn mma_sync_with_ldmatrix_and_the_manuals_layouts() {
    let file = "mma_sync.ptx";
    let (a, b, c) = (
        quarters(BLOCKS * 256, 12),
        quarters(BLOCKS * 128, 13),
        quarters(BLOCKS * 128, 14),
    );
    // B as 16x8: element (k, n) = b[blk*128 + n*16 + k] (column-major), and its row-major copy.
    let b_row: Vec<f64> = (0..BLOCKS * 128)
        .map(|i| {
            let (blk, e) = (i / 128, i % 128);
            let (k, n) = (e / 8, e % 8);
            b[blk * 128 + n * 16 + k]
        })
        .collect();
    let want: Vec<f32> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (16, 8, 16),
                |i, k| a[blk * 256 + i * 16 + k],
                |k, n| b[blk * 128 + n * 16 + k],
                |i, n| c[blk * 128 + i * 8 + n],
            )
        })
        .map(|x| x as f32)
        .collect();
    let (ta, tb) = (quarters(BLOCKS * 128, 15), quarters(BLOCKS * 64, 16));
    let tf32_want: Vec<f32> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (16, 8, 8),
                |i, k| ta[blk * 128 + i * 8 + k],
                |k, n| tb[blk * 64 + k * 8 + n],
                |_, _| 0.0,
            )
        })
        .map(|x| x as f32)
        .collect();
    let bytes: Vec<u8> = (0..BLOCKS * 768)
        .map(|i| ((i * 53 + i / 3) % 256) as u8)
        .collect();
    let (sa, sb) = bytes.split_at(BLOCKS * 512);
    let s8 = |x: u8| f64::from(x as i8);
    let s8_want: Vec<i32> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (16, 8, 32),
                |i, k| s8(sa[blk * 512 + i * 32 + k]),
                |k, n| s8(sb[blk * 256 + n * 32 + k]),
                |_, _| 0.0,
            )
        })
        .map(|x| x as i32)
        .collect();
    let (da, db, dc) = (
        quarters(BLOCKS * 32, 17),
        quarters(BLOCKS * 32, 18),
        quarters(BLOCKS * 64, 19),
    );
    let f64_want: Vec<f64> = (0..BLOCKS)
        .flat_map(|blk| {
            product(
                (8, 8, 4),
                |i, k| da[blk * 32 + i * 4 + k],
                |k, n| db[blk * 32 + k * 8 + n],
                |i, n| dc[blk * 64 + i * 8 + n],
            )
        })
        .collect();
    let halves = |v: &[f64]| v.iter().map(|&x| f16_bits(x)).collect::<Vec<_>>();
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let grid = BLOCKS as u32;
    for (what, dev) in devices("a100") {
        let bufs = [
            dev.alloc_from(&halves(&a)).unwrap(),
            dev.alloc_from(&halves(&b)).unwrap(),
            dev.alloc_from(&halves(&b_row)).unwrap(),
        ];
        let cbuf = dev.alloc_from(&f32s(&c)).unwrap();
        let (d, d2) = (
            dev.alloc::<f32>(BLOCKS * 128).unwrap(),
            dev.alloc::<f32>(BLOCKS * 128).unwrap(),
        );
        let mut args: Vec<Arg> = bufs.iter().map(|b| b.into()).collect();
        args.extend([(&cbuf).into(), (&d).into(), (&d2).into()]);
        dev.launch(
            &kernel(&dev, file, "mma_m16n8k16_ldmatrix"),
            grid,
            32,
            0,
            &args,
        )
        .unwrap();
        assert_eq!(d.to_host().unwrap(), want, "{what} ldmatrix");
        assert_eq!(d2.to_host().unwrap(), want, "{what} ldmatrix.trans");
        let (x, y) = (
            dev.alloc_from(&f32s(&ta)).unwrap(),
            dev.alloc_from(&f32s(&tb)).unwrap(),
        );
        let args = [(&x).into(), (&y).into(), (&d).into()];
        dev.launch(&kernel(&dev, file, "mma_m16n8k8_tf32"), grid, 32, 0, &args)
            .unwrap();
        assert_eq!(d.to_host().unwrap(), tf32_want, "{what} tf32");
        let (x, y) = (dev.alloc_from(sa).unwrap(), dev.alloc_from(sb).unwrap());
        let out = dev.alloc::<i32>(BLOCKS * 128).unwrap();
        let args = [(&x).into(), (&y).into(), (&out).into()];
        dev.launch(&kernel(&dev, file, "mma_m16n8k32_s8"), grid, 32, 0, &args)
            .unwrap();
        assert_eq!(out.to_host().unwrap(), s8_want, "{what} s8");
        let bufs = [&da, &db, &dc].map(|v| dev.alloc_from(v).unwrap());
        let out = dev.alloc::<f64>(BLOCKS * 64).unwrap();
        let mut args: Vec<Arg> = bufs.iter().map(|b| b.into()).collect();
        args.push((&out).into());
        dev.launch(&kernel(&dev, file, "mma_m8n8k4_f64"), grid, 32, 0, &args)
            .unwrap();
        assert_eq!(out.to_host().unwrap(), f64_want, "{what} f64");
    }
}

/// Volta's `mma.sync.aligned.m8n8k4` `.f16` (`samples/corpus/mma_volta.cu`, compute_70): a
/// warp's four products, one per quad pair, each with matrices of its own; A and B `.row` or
/// `.col` (stored in their layout, so that each thread loads its fragment whole), `.f32` and
/// `.f16` accumulators and the mixed form. Every output exact against the host's products
/// of the logical matrices, under the JIT, the interpreter and v100 timing.
#[test]
fn mma_m8n8k4_quad_pairs_in_every_layout() {
    let file = "mma_volta.ptx";
    let products = BLOCKS * 4;
    let (a, b, c) = (
        quarters(products * 32, 20),
        quarters(products * 32, 21),
        quarters(products * 64, 22),
    );
    // Product p: A (8x4) element (i, k) is a[32p + 4i + k], B (4x8) element (k, n) is
    // b[32p + 8k + n], C (8x8) element (i, n) is c[64p + 8i + n].
    let want: Vec<f64> = (0..products)
        .flat_map(|p| {
            product(
                (8, 8, 4),
                |i, k| a[32 * p + 4 * i + k],
                |k, n| b[32 * p + 8 * k + n],
                |i, n| c[64 * p + 8 * i + n],
            )
        })
        .collect();
    // The column-major images: A's (i, k) at 8k + i, B's (k, n) at 4n + k.
    let a_col: Vec<f64> = (0..products * 32)
        .map(|x| {
            let (p, e) = (x / 32, x % 32);
            a[32 * p + 4 * (e % 8) + e / 8]
        })
        .collect();
    let b_col: Vec<f64> = (0..products * 32)
        .map(|x| {
            let (p, e) = (x / 32, x % 32);
            b[32 * p + 8 * (e % 4) + e / 4]
        })
        .collect();
    let halves = |v: &[f64]| v.iter().map(|&x| f16_bits(x)).collect::<Vec<_>>();
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let grid = BLOCKS as u32;
    for (what, dev) in devices("v100") {
        let ab = |row: bool, m: &[f64], col: &[f64]| {
            dev.alloc_from(&halves(if row { m } else { col })).unwrap()
        };
        let (c32, c16) = (
            dev.alloc_from(&f32s(&c)).unwrap(),
            dev.alloc_from(&halves(&c)).unwrap(),
        );
        let (d32, d16) = (
            dev.alloc::<f32>(products * 64).unwrap(),
            dev.alloc::<u16>(products * 64).unwrap(),
        );
        for (al, bl) in [
            ("row", "col"),
            ("row", "row"),
            ("col", "col"),
            ("col", "row"),
        ] {
            let (da, db) = (ab(al == "row", &a, &a_col), ab(bl == "row", &b, &b_col));
            let name = format!("mma_m8n8k4_{al}_{bl}");
            let args = [(&da).into(), (&db).into(), (&c32).into(), (&d32).into()];
            let k = kernel(&dev, file, &format!("{name}_f32"));
            dev.launch(&k, grid, 32, 0, &args).unwrap();
            assert_eq!(d32.to_host().unwrap(), f32s(&want), "{what} {name} f32");
            let args = [(&da).into(), (&db).into(), (&c16).into(), (&d16).into()];
            let k = kernel(&dev, file, &format!("{name}_f16"));
            dev.launch(&k, grid, 32, 0, &args).unwrap();
            assert_eq!(d16.to_host().unwrap(), halves(&want), "{what} {name} f16");
        }
        // .row.col with an .f16 C into an .f32 D (the manual has no .f16 D from an .f32 C).
        let (da, db) = (ab(true, &a, &a_col), ab(false, &b, &b_col));
        let args = [(&da).into(), (&db).into(), (&c16).into(), (&d32).into()];
        let k = kernel(&dev, file, "mma_m8n8k4_f32_from_f16");
        dev.launch(&k, grid, 32, 0, &args).unwrap();
        assert_eq!(d32.to_host().unwrap(), f32s(&want), "{what} f32 from f16");
    }
}

/// The quad-pair form's sums are rounded once: product 2's row 3 of A and column 5 of B are
/// `[1, 2^-6, 2^-6, 2^-6]`, everything else zero, so D(3, 5) is `1 + 3·2^-12` exactly, which
/// `.f32` holds and `.f16` rounds to `1 + 2^-10` (0x3c01; three roundings after each product
/// would leave 1, 0x3c00).
#[test]
fn mma_m8n8k4_sums_round_once() {
    let file = "mma_volta.ptx";
    let products = BLOCKS * 4;
    let small = 2f64.powi(-6);
    let (mut a, mut b) = (vec![0.0; products * 32], vec![0.0; products * 32]);
    for (k, x) in [1.0, small, small, small].into_iter().enumerate() {
        a[2 * 32 + 4 * 3 + k] = x; // A .row: (3, k) at 4·3 + k
        b[2 * 32 + 8 * k + 5] = x; // B .row: (k, 5) at 8k + 5
    }
    let at = 2 * 64 + 8 * 3 + 5;
    let halves = |v: &[f64]| v.iter().map(|&x| f16_bits(x)).collect::<Vec<_>>();
    for (what, dev) in devices("v100") {
        let (da, db) = (
            dev.alloc_from(&halves(&a)).unwrap(),
            dev.alloc_from(&halves(&b)).unwrap(),
        );
        let (c32, c16) = (
            dev.alloc::<f32>(products * 64).unwrap(),
            dev.alloc::<u16>(products * 64).unwrap(),
        );
        let (d32, d16) = (
            dev.alloc::<f32>(products * 64).unwrap(),
            dev.alloc::<u16>(products * 64).unwrap(),
        );
        let args = [(&da).into(), (&db).into(), (&c32).into(), (&d32).into()];
        let k = kernel(&dev, file, "mma_m8n8k4_row_row_f32");
        dev.launch(&k, BLOCKS as u32, 32, 0, &args).unwrap();
        let mut want = vec![0f32; products * 64];
        want[at] = 1.0 + 3.0 / 4096.0;
        assert_eq!(d32.to_host().unwrap(), want, "{what} f32");
        let args = [(&da).into(), (&db).into(), (&c16).into(), (&d16).into()];
        let k = kernel(&dev, file, "mma_m8n8k4_row_row_f16");
        dev.launch(&k, BLOCKS as u32, 32, 0, &args).unwrap();
        let mut want = vec![0u16; products * 64];
        want[at] = 0x3c01;
        assert_eq!(d16.to_host().unwrap(), want, "{what} f16");
    }
}

/// `ldmatrix` then `stmatrix.trans` (sm_90) transposes each of four 8×8 matrices of halves.
const TRANSPOSE: &str = r#"
.version 8.8
.target sm_90
.address_size 64
.visible .entry transpose4(.param .u64 in, .param .u64 out)
{
    .shared .align 16 .b8 s[512];
    .shared .align 16 .b8 t[512];
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 16;
    add.u64 %rd3, %rd1, %rd2;
    add.u64 %rd5, %rd4, %rd2;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd3];
    mov.u32 %r6, s;
    mad.lo.u32 %r7, %r1, 16, %r6;
    st.shared.v4.u32 [%r7], {%r2, %r3, %r4, %r5};
    bar.warp.sync -1;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r7];
    mov.u32 %r8, t;
    mad.lo.u32 %r9, %r1, 16, %r8;
    stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r9], {%r2, %r3, %r4, %r5};
    bar.warp.sync -1;
    ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r9];
    st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};
    ret;
}
"#;

#[test]
fn ldmatrix_and_stmatrix_trans_transpose() {
    let input: Vec<u16> = (0..256).map(|i| i * 3 + 1).collect();
    let want: Vec<u16> = (0..256)
        .map(|i| {
            let (j, r, c) = (i / 64, i / 8 % 8, i % 8);
            input[j * 64 + c * 8 + r]
        })
        .collect();
    for (what, dev) in devices("h100") {
        let m = dev.load_ptx("transpose.ptx", TRANSPOSE).unwrap();
        let (x, y) = (
            dev.alloc_from(&input).unwrap(),
            dev.alloc::<u16>(256).unwrap(),
        );
        dev.launch(
            &m.kernel("transpose4").unwrap(),
            1,
            32,
            0,
            &[(&x).into(), (&y).into()],
        )
        .unwrap();
        assert_eq!(y.to_host().unwrap(), want, "{what}");
    }
}
