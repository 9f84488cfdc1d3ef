//! Rodinia dwt2d: multi-level forward 2-D discrete wavelet transform of a `width × height`
//! 8-bit RGB image (the CUDA DWT of Matela and Jirman). Two registered samples, one per
//! transform Rodinia's `dwt2d` can run:
//!
//! - `rodinia/dwt2d_53` (`-5`, what Rodinia's run script uses): the reversible integer 5/3
//!   transform, `fdwt53Kernel`, vertical lifting first, then horizontal;
//! - `rodinia/dwt2d_97` (`-9`): the irreversible float 9/7 transform, `fdwt97Kernel`,
//!   horizontal lifting and scaling first, then vertical.
//!
//! As in Rodinia's `processDWT`, the host uploads the interleaved image (padded to a multiple
//! of 3 × 256 bytes) and launches `c_CopySrcToComponents` (256 threads per block) to split it
//! into three planes (`c - 128` for 5/3, `c / 255 - 0.5` for 9/7); then for each plane
//! `nStage2dDWT` backs the plane up and runs `levels` levels: per level one fdwt launch with
//! Rodinia's window for the level's width (5/3: 192 × 8 from a width of 960, 128 × 8 from 480,
//! else 64 × 8; 9/7: 192 × 8, 128 × 6, 64 × 6), ⌈height / (15 · WIN_Y)⌉ window steps per block,
//! a grid of ⌈width / WIN_X⌉ × ⌈height / (WIN_Y · steps)⌉ blocks of WIN_X threads, after which
//! the LL band (the first ⌈w/2⌉ · ⌈h/2⌉ coefficients of the output) is copied back over the
//! input for the next level.
//!
//! Differences from Rodinia:
//! - Rodinia reads the image from a file (`rgb.bmp`, whose bytes it takes raw, header
//!   included); here the image is synthetic: seeded noise over diagonal colour ramps.
//! - Rodinia's templated kernels are instantiated as `extern "C"` kernels named after their
//!   template arguments (`fdwt53Kernel_192_8`, `c_CopySrcToComponents_int`, ...).
//! - The device-to-device `cudaMemcpy`s (the backup of each plane, the LL band between levels)
//!   go through the host: they are copies, not kernels, and are not simulated either way.
//! - Rodinia's loaders mirror a column index once, so a level narrower than about half the
//!   window would read outside the image; every size here keeps each level wide enough.
//!
//! Validation is bit-exact on the three output planes.
//! - 5/3: the reference lifts whole columns, then whole rows, with whole-sample symmetric
//!   extension and C's truncating integer division: what the sliding windows, their boundary
//!   columns and the mirroring loaders amount to; coefficients go to the band writer's indices.
//! - 9/7: NVRTC compiles `c += k · (p + n)` as `fma.rn.f32` for the positive coefficients, but
//!   for the negative ones as `c − round(|k| · (p + n))` except in the last, partial round of
//!   each horizontal pass over the shared buffer (`threadIdx.x < count % WIN_X`), where it
//!   fuses. Which values are fused depends on where they sit in a block's buffer, so the
//!   reference recomputes `fdwt97Kernel` block by block and window by window (the same lines,
//!   mirrored loads, passes, kept lines and scalings) with those roundings.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device, DeviceCopy};

/// Threads per block of `c_CopySrcToComponents`.
const THREADS: usize = 256;

const F97_PREDICT1: f32 = -1.586_134_342_f64 as f32;
const F97_UPDATE1: f32 = -0.052_980_118_54_f64 as f32;
const F97_PREDICT2: f32 = 0.882_911_076_2_f64 as f32;
const F97_UPDATE2: f32 = 0.443_506_852_2_f64 as f32;
const SCALE97_MUL: f32 = 1.230_174_104_914_f64 as f32;
const SCALE97_DIV: f32 = (1.0 / SCALE97_MUL as f64) as f32;

/// One problem: Rodinia's `-d WxH -l levels` (three components).
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub width: usize,
    pub height: usize,
    pub levels: usize,
}

fn params(size: Size) -> Params {
    match size {
        // Levels of 192 × 72, 96 × 36 and 48 × 18: partial windows at the right and bottom.
        Size::Small => Params {
            width: 192,
            height: 72,
            levels: 3,
        },
        // Rodinia's run script: ./dwt2d rgb.bmp -d 1024x1024 -f -5 -l 3
        Size::Default => Params {
            width: 1024,
            height: 1024,
            levels: 3,
        },
        Size::Large => Params {
            width: 2048,
            height: 2048,
            levels: 3,
        },
    }
}

/// The interleaved RGB image: per channel a diagonal ramp plus seeded noise.
fn image(p: &Params) -> Vec<u8> {
    let mut rng = Rng::new(0xD3D2_0001);
    let mut img = Vec::with_capacity(p.width * p.height * 3);
    for y in 0..p.height {
        for x in 0..p.width {
            for c in 0..3 {
                let ramp = (x + 2 * y + 85 * c) as u64;
                img.push(((ramp + (rng.next_u64() >> 59)) & 255) as u8);
            }
        }
    }
    img
}

fn div_rnd_up(n: usize, d: usize) -> usize {
    n.div_ceil(d)
}

/// The 5/3 or 9/7 arithmetic, on the device and in the reference.
trait Transform: DeviceCopy + PartialEq + std::fmt::Debug {
    const PTX_SUFFIX: &'static str;
    /// Rodinia's window (WIN_X, WIN_Y) for a level `sx` pixels wide.
    fn window(sx: usize) -> (usize, usize);
    fn component(c: u8) -> Self;
    /// One level of the `sx × sy` plane `a` into the bands of `out`.
    fn level(a: &[Self], sx: usize, sy: usize, out: &mut [Self]);
    fn validate(got: &[Self], expected: &[Self]) -> Validation;
}

/// Whole-sample symmetric extension of index `i` (one reflection) in 0..n.
fn mirror(i: isize, n: usize) -> usize {
    let n = n as isize;
    (if i < 0 {
        -i
    } else if i >= n {
        2 * n - 2 - i
    } else {
        i
    }) as usize
}

/// One lifting step over the items of `line` with the parity `odd`, from their neighbours.
fn lift<T: Copy>(line: &mut [T], odd: bool, f: impl Fn(T, T, T) -> T) {
    let n = line.len();
    for i in (usize::from(odd)..n).step_by(2) {
        let p = line[mirror(i as isize - 1, n)];
        let q = line[mirror(i as isize + 1, n)];
        line[i] = f(p, line[i], q);
    }
}

/// Applies `f` to every row (`rows`) or every column of the `sx × sy` plane.
fn each_line<T: Copy + Default>(
    a: &mut [T],
    sx: usize,
    sy: usize,
    rows: bool,
    f: impl Fn(&mut [T]),
) {
    if rows {
        for row in a.chunks_mut(sx).take(sy) {
            f(row);
        }
    } else {
        let mut col = vec![T::default(); sy];
        for x in 0..sx {
            for y in 0..sy {
                col[y] = a[y * sx + x];
            }
            f(&mut col);
            for y in 0..sy {
                a[y * sx + x] = col[y];
            }
        }
    }
}

fn lift53(line: &mut [i32]) {
    lift(line, true, |p, c, n| c - (p + n) / 2);
    lift(line, false, |p, c, n| c + (p + n + 2) / 4);
}

/// `c += k · (p + n)` as NVRTC compiles it: fused (`fma.rn.f32`) or, for the negative
/// coefficients outside the tail of a horizontal pass, `c − round(|k| · (p + n))`.
fn add_scaled_sum(k: f32, p: f32, c: f32, n: f32, fused: bool) -> f32 {
    if fused || k > 0.0 {
        k.mul_add(p + n, c)
    } else {
        c - (-k) * (p + n)
    }
}

/// The 9/7 row transform of one line of a block's transform buffer (columns −4 .. WIN_X + 3 of
/// the window, `seg[i]` is column i − 4), as the `lines`-line horizontal pass whose `l`-th line
/// it is: each of the four lifting steps runs over the pass's items WIN_X at a time, and the
/// items of the last, partial round (`threadIdx.x < count % WIN_X`) are the ones NVRTC fuses.
fn horizontal97(seg: &mut [f32], win_x: usize, lines: usize, l: usize) {
    let stride = seg.len() / 2;
    let count = lines * stride - 1;
    let fused_from = count / win_x * win_x;
    let steps = [
        (true, F97_PREDICT1),
        (false, F97_UPDATE1),
        (true, F97_PREDICT2),
        (false, F97_UPDATE2),
    ];
    for (odd, k) in steps {
        // odd item i = 2j + 1 is the pass's item l·stride + j; even item i = 2j its item
        // l·stride + j − 1. The first even and last odd item of a line take a neighbour from
        // another line; they never reach the window's outputs and are left out.
        for i in (if odd { 1 } else { 2 }..seg.len() - 1).step_by(2) {
            let item = l * stride + i / 2 - usize::from(!odd);
            seg[i] = add_scaled_sum(k, seg[i - 1], seg[i], seg[i + 1], item >= fused_from);
        }
    }
    for (i, v) in seg.iter_mut().enumerate() {
        *v *= if i % 2 == 0 { SCALE97_DIV } else { SCALE97_MUL };
    }
}

/// The 9/7 column transform of one output column of a window (`v`: WIN_Y + 7 lines, the
/// window's results in lines 4 .. 4 + WIN_Y); no pass tails here, so only the negative
/// coefficients are unfused.
fn vertical97(v: &mut [f32]) {
    let n = v.len();
    for (odd, k) in [
        (true, F97_PREDICT1),
        (false, F97_UPDATE1),
        (true, F97_PREDICT2),
        (false, F97_UPDATE2),
    ] {
        for r in (if odd { 1 } else { 2 }..n - 1).step_by(2) {
            v[r] = add_scaled_sum(k, v[r - 1], v[r], v[r + 1], false);
        }
    }
}

/// One 9/7 level of the `sx × sy` plane `a`, block by block and window by window as
/// `fdwt97Kernel` computes it (see [`horizontal97`]), into `out` at the band writer's indices.
fn level97(a: &[f32], sx: usize, sy: usize, out: &mut [f32]) {
    let (win_x, win_y) = f32::window(sx);
    let steps = sy.div_ceil(15 * win_y);
    let (gx, gy) = (sx.div_ceil(win_x), sy.div_ceil(win_y * steps));
    let width = win_x + 8;
    // one buffer line: image row `y` (mirrored) over the block's columns −4 .. WIN_X + 3
    let load = |bx: usize, y: isize| -> Vec<f32> {
        let row = mirror(y, sy) * sx;
        let mut seg = vec![0.0f32; width];
        for (i, v) in seg.iter_mut().enumerate().take(width - 1) {
            *v = a[row + mirror((bx * win_x + i) as isize - 4, sx)];
        }
        seg
    };
    for by in 0..gy {
        let first_y = (by * win_y * steps) as isize;
        for bx in 0..gx {
            let mut buf: Vec<Vec<f32>> = (0..7)
                .map(|r| {
                    let mut seg = load(bx, first_y + r as isize - 4);
                    horizontal97(&mut seg, win_x, 7, r);
                    seg
                })
                .collect();
            for w in 0..steps {
                let top = first_y + (w * win_y) as isize;
                buf.truncate(7);
                for i in 0..win_y {
                    let mut seg = load(bx, top + 3 + i as isize);
                    horizontal97(&mut seg, win_x, win_y, i);
                    buf.push(seg);
                }
                for c in 0..win_x {
                    let x = bx * win_x + c;
                    if x >= sx {
                        continue;
                    }
                    let mut v: Vec<f32> = buf.iter().map(|line| line[c + 4]).collect();
                    vertical97(&mut v);
                    for r in 0..win_y {
                        let y = top as usize + r;
                        if y < sy {
                            let scale = if r % 2 == 0 { SCALE97_DIV } else { SCALE97_MUL };
                            out[band_index(x, y, sx, sy)] = v[4 + r] * scale;
                        }
                    }
                }
                buf.drain(..win_y);
            }
        }
    }
}

impl Transform for i32 {
    const PTX_SUFFIX: &'static str = "int";

    fn window(sx: usize) -> (usize, usize) {
        match sx {
            960.. => (192, 8),
            480.. => (128, 8),
            _ => (64, 8),
        }
    }

    fn component(c: u8) -> i32 {
        i32::from(c) - 128
    }

    fn level(a: &[i32], sx: usize, sy: usize, out: &mut [i32]) {
        let mut t = a.to_vec();
        each_line(&mut t, sx, sy, false, lift53);
        each_line(&mut t, sx, sy, true, lift53);
        for y in 0..sy {
            for x in 0..sx {
                out[band_index(x, y, sx, sy)] = t[y * sx + x];
            }
        }
    }

    fn validate(got: &[i32], expected: &[i32]) -> Validation {
        Validation::exact(got, expected)
    }
}

impl Transform for f32 {
    const PTX_SUFFIX: &'static str = "float";

    fn window(sx: usize) -> (usize, usize) {
        match sx {
            960.. => (192, 8),
            480.. => (128, 6),
            _ => (64, 6),
        }
    }

    fn component(c: u8) -> f32 {
        f32::from(c) / 255.0 - 0.5
    }

    fn level(a: &[f32], sx: usize, sy: usize, out: &mut [f32]) {
        level97(a, sx, sy, out);
    }

    fn validate(got: &[f32], expected: &[f32]) -> Validation {
        Validation::exact_f32(got, expected)
    }
}

/// Index of the coefficient of column `x`, row `y` of a transformed `sx × sy` level in the
/// linearly stored bands LL, HL, LH, HH (Rodinia's band writer).
fn band_index(x: usize, y: usize, sx: usize, sy: usize) -> usize {
    let (offset, row_stride, low_to_high) = if x % 2 == 1 {
        (x / 2 + sx.div_ceil(2) * sy.div_ceil(2), sx / 2, sx * sy / 2)
    } else {
        (x / 2, sx.div_ceil(2), sy.div_ceil(2) * sx)
    };
    offset + (y / 2) * row_stride + (y % 2) * low_to_high
}

/// The CPU reference of `nStage2dDWT` on one plane: the final output buffer.
fn reference<T: Transform>(plane: &[T], p: &Params) -> Vec<T> {
    let mut input = plane.to_vec();
    let mut out = vec![T::default(); plane.len()];
    let (mut sx, mut sy) = (p.width, p.height);
    for level in 0..p.levels {
        T::level(&input[..sx * sy], sx, sy, &mut out);
        if level + 1 < p.levels {
            let (lx, ly) = (sx.div_ceil(2), sy.div_ceil(2));
            input[..lx * ly].copy_from_slice(&out[..lx * ly]);
            (sx, sy) = (lx, ly);
        }
    }
    out
}

/// Runs Rodinia's `processDWT` for component type `T` and validates the three planes.
fn run_dwt<T: Transform>(
    dev: &Device,
    size: Size,
    kernel_prefix: &str,
) -> runtime::Result<Outcome> {
    let p = params(size);
    let (w, h) = (p.width, p.height);
    let pixels = w * h;
    let img = image(&p);

    let mut session = Session::new(dev);
    let module = session.load("rodinia/dwt2d/dwt2d.ptx")?;
    let copy = module.kernel(&format!("c_CopySrcToComponents_{}", T::PTX_SUFFIX))?;

    let alloc_zeroed = || -> runtime::Result<runtime::DeviceBuffer<T>> {
        let b = dev.alloc::<T>(pixels)?;
        b.memset(0)?;
        Ok(b)
    };
    let c_r_out = alloc_zeroed()?;
    let backup = alloc_zeroed()?;
    let c_g_out = alloc_zeroed()?;
    let c_b_out = alloc_zeroed()?;
    let c_r = alloc_zeroed()?;
    let c_g = alloc_zeroed()?;
    let c_b = alloc_zeroed()?;

    // rgbToComponents
    let aligned = div_rnd_up(pixels, THREADS) * THREADS * 3;
    let d_src = dev.alloc::<u8>(aligned)?;
    d_src.memset(0)?;
    d_src.copy_from_host(&img)?;
    session.launch(
        &copy,
        (aligned / (THREADS * 3)) as u32,
        THREADS as u32,
        0,
        &[
            (&c_r).into(),
            (&c_g).into(),
            (&c_b).into(),
            (&d_src).into(),
            Arg::I32(pixels as i32),
        ],
    )?;
    drop(d_src);

    // nStage2dDWT per component
    for (input, out) in [(&c_r, &c_r_out), (&c_g, &c_g_out), (&c_b, &c_b_out)] {
        backup.copy_from_host(&input.to_host()?)?;
        let (mut sx, mut sy) = (w, h);
        for level in 0..p.levels {
            let (wx, wy) = T::window(sx);
            let kernel = module.kernel(&format!("{kernel_prefix}_{wx}_{wy}"))?;
            let steps = div_rnd_up(sy, 15 * wy);
            let grid = (div_rnd_up(sx, wx) as u32, div_rnd_up(sy, wy * steps) as u32);
            session.launch(
                &kernel,
                grid,
                wx as u32,
                0,
                &[
                    input.into(),
                    out.into(),
                    Arg::I32(sx as i32),
                    Arg::I32(sy as i32),
                    Arg::I32(steps as i32),
                ],
            )?;
            if level + 1 < p.levels {
                let (lx, ly) = (sx.div_ceil(2), sy.div_ceil(2));
                input.copy_from_host(&out.to_host()?[..lx * ly])?;
                (sx, sy) = (lx, ly);
            }
        }
    }

    let mut got = Vec::with_capacity(3 * pixels);
    let mut expected = Vec::with_capacity(3 * pixels);
    for (c, out) in [&c_r_out, &c_g_out, &c_b_out].into_iter().enumerate() {
        got.extend(out.to_host()?);
        let plane: Vec<T> = (0..pixels).map(|i| T::component(img[3 * i + c])).collect();
        expected.extend(reference(&plane, &p));
    }
    Ok(session.finish(T::validate(&got, &expected)))
}

fn describe(size: Size, transform: &str) -> String {
    let p = params(size);
    format!(
        "{} × {} RGB image, {} levels of forward {transform}",
        p.width, p.height, p.levels
    )
}

/// Rodinia dwt2d with the 5/3 transform as a registered sample.
pub struct Dwt2d53;

impl Sample for Dwt2d53 {
    fn name(&self) -> &'static str {
        "rodinia/dwt2d_53"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "c_CopySrcToComponents_int",
            "fdwt53Kernel_192_8",
            "fdwt53Kernel_128_8",
            "fdwt53Kernel_64_8",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        describe(size, "5/3")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        run_dwt::<i32>(dev, size, "fdwt53Kernel")
    }
}

/// Rodinia dwt2d with the 9/7 transform as a registered sample.
pub struct Dwt2d97;

impl Sample for Dwt2d97 {
    fn name(&self) -> &'static str {
        "rodinia/dwt2d_97"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "c_CopySrcToComponents_float",
            "fdwt97Kernel_192_8",
            "fdwt97Kernel_128_6",
            "fdwt97Kernel_64_6",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        describe(size, "9/7")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        run_dwt::<f32>(dev, size, "fdwt97Kernel")
    }
}
