//! Rodinia leukocyte: detects white blood cells in the first frame of an intravital microscopy
//! video and tracks them through the following frames.
//!
//! As in Rodinia, the host uploads the stencils (sine, cosine and pixel offsets of 150 points on
//! 7 circles of radii 8, 10, ..., 20) and the disk-shaped 25 × 25 structuring element to
//! constant memory; detection crops rows `TOP..=BOTTOM` of frame 0, computes its x and y
//! gradients (Matlab's `gradient`), and launches `GICOV_kernel` (one block per column and one
//! thread per row of the cropped frame, minus a 22-pixel margin) and `dilate_kernel` (blocks of
//! 176 threads, ⌊pixels / 176 + 0.5⌋ of them); cell centres are the pixels whose GICOV score is
//! non-zero and equal to the dilated one (Rodinia's `double_eq`), in crop rows 30 and below,
//! with √GICOV above the threshold 1.8. Tracking then runs frames 1..=`frames`: per frame the
//! host cuts each cell's sub-image around its centre (41 × 81, clipped to the frame), takes
//! the normalised gradient magnitude, and launches `IMGVF_kernel` once for all cells (one
//! 320-thread block per cell, `vx = vy = 1`, `e = 1e-10`, at most `max_iterations`
//! iterations, cutoff 1e-5), then copies the MGVF matrices back.
//!
//! Differences from Rodinia:
//! - Rodinia reads `testfile.avi` (640 × 480, the vessel in rows 110..=328); here the frames are
//!   synthetic and seeded: a noisy background with dark round cells (half intensity within
//!   radius 6, fading out by radius 14), each drifting by a pixel per frame, laid out on a
//!   jittered grid inside the vessel rows. Frames are generated right side up (Rodinia flips
//!   the AVI's rows).
//! - Textures (removed in CUDA 12): the gradients and the GICOV matrix are passed to the kernels
//!   as pointers and read with plain loads. `rodinia/leukocyte-textures` runs
//!   `leukocyte_tex.ptx` instead, Rodinia's texture reads compiled with NVRTC 11.8: the host
//!   binds linear textures as Rodinia does (`t_grad_x`, `t_grad_y` over the gradients, `t_img`
//!   over the GICOV matrix) and passes Rodinia's arguments.
//! - The host-side curve fitting is left out: Rodinia refines each detected centre with 20
//!   steps of a spline snake before tracking and evolves an elliptical snake on the MGVF of
//!   every cell after every frame (`ellipseevolve`, up to 1000 steps on the CPU). Both are CPU
//!   work between launches; here cells are tracked at their detected centres (crop row + TOP).
//!   Cells whose (clipped) sub-image width makes the kernel's float row index wrong are not
//!   tracked (see [`sub_image`]).
//! - `IMGVF_kernel` has one more `__syncthreads()`: in Rodinia a thread may store the previous
//!   virtual block's new values while other warps still read their neighbours, a race whose
//!   result depends on warp scheduling (see the `.cu`).
//! - `small` limits the MGVF iterations to 5 (Rodinia: 500) to stay quick.
//! - Memory Rodinia leaves uninitialised (the dilated matrix's last elements, which its rounded
//!   grid does not reach) is zero.
//!
//! Validation is bit-exact on the GICOV matrix, the dilated matrix and every frame's MGVF
//! matrices. The references follow the PTX: GICOV's `fma.rn.f32` forms and `div.rn.f32`
//! (Welford's running mean), and for the MGVF NVRTC's inlined `atanf` (libdevice's polynomial
//! with `rcp.approx.ftz.f32`, which warpsim rounds correctly), the double-precision `fma.rn.f64`
//! steps with 1/π, μ/λ = 0.1 and −1/λ, the f32 fma chain of the eight neighbour terms, the
//! row index computed through `1.f / n`, the virtual blocks' update order and the shared-memory
//! reduction tree that decides convergence.

use super::bind_linear;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

const NPOINTS: usize = 150;
const NCIRCLES: usize = 7;
const MIN_RAD: usize = 8;
/// MAX_RAD + 2: the margin GICOV_kernel leaves on every side.
const MAX_R: usize = 22;
const STREL_RADIUS: usize = 12;
const STREL_SIZE: usize = 2 * STREL_RADIUS + 1;
const DILATE_THREADS: usize = 176;
const IMGVF_THREADS: usize = 320;
/// Rodinia's `radius`: the expected cell radius, which sizes the tracking sub-images.
const RADIUS: f64 = 10.0;
const THRESHOLD: f64 = 1.8;
const CELL_RADIUS: f64 = 10.0;

/// One problem: frame size, the vessel rows used for detection, frames to track, cells.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub width: usize,
    pub height: usize,
    pub top: usize,
    pub bottom: usize,
    /// Rodinia's `<number of frames to process>`.
    pub frames: usize,
    /// Cells on a grid of `cells_x × cells_y` (spread over the vessel rows).
    pub cells_x: usize,
    pub cells_y: usize,
    pub max_iterations: i32,
}

fn params(size: Size) -> Params {
    match size {
        // One cell; GICOV on 4 × 11 pixels, a 41 × 48 sub-image, 5 MGVF iterations.
        Size::Small => Params {
            width: 48,
            height: 64,
            top: 4,
            bottom: 58,
            frames: 1,
            cells_x: 1,
            cells_y: 1,
            max_iterations: 5,
        },
        // Rodinia's run script: ./leukocyte testfile.avi 5 (640 × 480 frames, rows 110..=328)
        Size::Default => Params {
            width: 640,
            height: 480,
            top: 110,
            bottom: 328,
            frames: 5,
            cells_x: 11,
            cells_y: 3,
            max_iterations: 500,
        },
        Size::Large => Params {
            width: 1280,
            height: 960,
            top: 220,
            bottom: 656,
            frames: 10,
            cells_x: 23,
            cells_y: 7,
            max_iterations: 500,
        },
    }
}

/// The cells' centres in frame 0 (x, y in frame pixels): a jittered grid inside the vessel.
fn cell_centres(p: &Params) -> Vec<(f64, f64)> {
    let mut rng = Rng::new(0x1E0C_0001);
    let (x0, x1) = (44.0, p.width as f64 - 44.0 - p.frames as f64);
    let (y0, y1) = ((p.top + 31) as f64, (p.bottom - 31) as f64);
    let mut centres = Vec::new();
    for gy in 0..p.cells_y {
        for gx in 0..p.cells_x {
            let fx = (gx as f64 + 0.5) / p.cells_x as f64;
            let fy = (gy as f64 + 0.5) / p.cells_y as f64;
            let jx = f64::from(rng.f32_in(-4.0, 4.0));
            let jy = f64::from(rng.f32_in(-4.0, 4.0));
            let x = (x0 + fx * (x1 - x0) + jx).round();
            let y = (y0 + fy * (y1 - y0) + jy).round();
            centres.push((x, y));
        }
    }
    if p.cells_x * p.cells_y == 1 {
        // the small size: a cell in crop row 31, where GICOV scores exist and count
        centres[0] = ((p.width / 2) as f64, (p.top + 31) as f64);
    }
    centres
}

/// Frame `f` (row-major, 8 bits): noise around 128 with dark cells drifting +1 px/frame in x;
/// a cell darkens pixels to half within radius 6, fading out linearly to radius 14.
fn frame(p: &Params, centres: &[(f64, f64)], f: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x1E0C_1000 + f as u64);
    let mut img: Vec<f64> = (0..p.width * p.height)
        .map(|_| 128.0 + f64::from(rng.f32_in(-4.0, 4.0)))
        .collect();
    for &(cx, cy) in centres {
        let cx = cx + f as f64;
        for y in 0..p.height {
            for x in 0..p.width {
                let (dx, dy) = (x as f64 - cx, y as f64 - cy);
                let r = (dx * dx + dy * dy).sqrt();
                let dark = ((CELL_RADIUS + 4.0 - r) / 8.0).clamp(0.0, 1.0);
                img[y * p.width + x] *= 1.0 - 0.5 * dark;
            }
        }
    }
    img.iter().map(|&v| v as u8).collect()
}

/// Rodinia's `gradient_x` (d/dcolumn) of a row-major `m × n` matrix.
fn gradient_x(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut g = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let at = |c: usize| a[i * n + c];
            g[i * n + j] = if j == 0 {
                at(1) - at(0)
            } else if j == n - 1 {
                at(j) - at(j - 1)
            } else {
                (at(j + 1) - at(j - 1)) / 2.0
            };
        }
    }
    g
}

/// Rodinia's `gradient_y` (d/drow) of a row-major `m × n` matrix.
fn gradient_y(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut g = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let at = |r: usize| a[r * n + j];
            g[i * n + j] = if i == 0 {
                at(1) - at(0)
            } else if i == m - 1 {
                at(i) - at(i - 1)
            } else {
                (at(i + 1) - at(i - 1)) / 2.0
            };
        }
    }
    g
}

/// Rodinia's `compute_constants`: sin, cos, tX, tY and the structuring element.
struct Constants {
    sin: Vec<f32>,
    cos: Vec<f32>,
    tx: Vec<i32>,
    ty: Vec<i32>,
    strel: Vec<f32>,
}

fn constants() -> Constants {
    let theta: Vec<f32> = (0..NPOINTS)
        .map(|n| ((n as f64 * 2.0 * std::f64::consts::PI) / NPOINTS as f64) as f32)
        .collect();
    let sin = theta.iter().map(|&t| f64::from(t).sin() as f32).collect();
    let cos = theta.iter().map(|&t| f64::from(t).cos() as f32).collect();
    let (mut tx, mut ty) = (Vec::new(), Vec::new());
    for k in 0..NCIRCLES {
        let rad = (MIN_RAD + 2 * k) as f64;
        for &t in &theta {
            tx.push((f64::from(t).cos() * rad) as i32);
            ty.push((f64::from(t).sin() * rad) as i32);
        }
    }
    let r = STREL_RADIUS as i32;
    let mut strel = Vec::new();
    for i in 0..STREL_SIZE as i32 {
        for j in 0..STREL_SIZE as i32 {
            let d = (((i - r) * (i - r) + (j - r) * (j - r)) as f32).sqrt();
            strel.push(if d <= r as f32 { 1.0 } else { 0.0 });
        }
    }
    Constants {
        sin,
        cos,
        tx,
        ty,
        strel,
    }
}

/// GICOV_kernel on the CPU: the column-major score matrix.
fn gicov_reference(c: &Constants, gx: &[f32], gy: &[f32], m: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; m * n];
    for i in MAX_R..n - MAX_R {
        for j in MAX_R..m - MAX_R {
            let mut max_gicov = 0.0f32;
            for k in 0..NCIRCLES {
                let (mut sum, mut m2, mut mean) = (0.0f32, 0.0f32, 0.0f32);
                for pt in 0..NPOINTS {
                    let y = j as i32 + c.ty[k * NPOINTS + pt];
                    let x = i as i32 + c.tx[k * NPOINTS + pt];
                    let addr = (x * m as i32 + y) as usize;
                    let p = gx[addr].mul_add(c.cos[pt], gy[addr] * c.sin[pt]);
                    sum += p;
                    let delta = p - mean;
                    mean += delta / (pt + 1) as f32;
                    m2 = delta.mul_add(p - mean, m2);
                }
                let mean = sum / NPOINTS as f32;
                let var = m2 / (NPOINTS - 1) as f32;
                let score = (mean * mean) / var;
                if score > max_gicov {
                    max_gicov = score;
                }
            }
            out[i * m + j] = max_gicov;
        }
    }
    out
}

/// dilate_kernel on the CPU for the first `threads` elements: the row-major dilated matrix.
fn dilate_reference(c: &Constants, img: &[f32], m: usize, n: usize, threads: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; m * n];
    let centre = (STREL_SIZE / 2) as isize;
    for t in 0..threads {
        let (i, j) = (t % m, t / m);
        let mut max = 0.0f32;
        for el_i in 0..STREL_SIZE {
            let y = i as isize - centre + el_i as isize;
            if y < 0 || y >= m as isize {
                continue;
            }
            for el_j in 0..STREL_SIZE {
                let x = j as isize - centre + el_j as isize;
                if x >= 0 && x < n as isize && c.strel[el_i * STREL_SIZE + el_j] != 0.0 {
                    let v = img[x as usize * m + y as usize];
                    if v > max {
                        max = v;
                    }
                }
            }
        }
        out[i * n + j] = max;
    }
    out
}

/// libdevice's `atanf` as NVRTC inlines it (the PTX's constants and operation order;
/// `rcp.approx.ftz.f32` is correctly rounded in warpsim).
fn nv_atanf(x: f32) -> f32 {
    let c = f32::from_bits;
    let a = x.abs();
    let r = if a > 1.0 { 1.0 / a } else { a };
    let s = r * r;
    let mut q = c(0x3B20_90AA).mul_add(s, c(0xBC6B_E14F));
    for k in [
        0x3D23_397E,
        0xBD94_8A7A,
        0x3DD7_6B21,
        0xBE11_1E88,
        0x3E4C_AF60,
        0xBEAA_AA27,
    ] {
        q = q.mul_add(s, c(k));
    }
    let mut t = (s * q).mul_add(r, r);
    if a > 1.0 {
        t = c(0x3F6E_E581).mul_add(c(0x3FD7_74EB), -t);
    }
    if a <= f32::INFINITY {
        f32::from_bits((x.to_bits() & 0x8000_0000) | t.to_bits())
    } else {
        t
    }
}

/// `heaviside`: `(atan(x) * (1.0 / PI)) + 0.5` in double, rounded to float.
fn heaviside(x: f32) -> f32 {
    f64::from(nv_atanf(x)).mul_add(f64::from_bits(0x3FD4_5F30_6DC9_C889), 0.5) as f32
}

/// IMGVF_kernel on the CPU for one cell: the MGVF matrix of the row-major `m × n` image `img`.
fn imgvf_reference(img: &[f32], m: usize, n: usize, v: (f32, f32, f32, i32, f32)) -> Vec<f32> {
    let (vx, vy, e, max_iterations, cutoff) = v;
    let nt = IMGVF_THREADS;
    let mut g = img.to_vec();
    let blocks = (m * n).div_ceil(nt);
    let one_nth = 1.0f32 / n as f32;
    let tbsize_mod = nt % n;
    let one_over_e = (1.0 / f64::from(e)) as f32;
    let (mut i, mut j) = (vec![0usize; nt], vec![0usize; nt]);
    let (mut old_i, mut old_j) = (vec![0usize; nt], vec![0usize; nt]);
    let mut buffer = vec![0.0f32; nt];
    let mut new_val = vec![0.0f32; nt];
    let mut converged = false;
    let mut iterations = 0;
    while !converged && iterations < max_iterations {
        let mut total_diff = vec![0.0f32; nt];
        for tb in 0..blocks {
            for t in 0..nt {
                old_i[t] = i[t];
                old_j[t] = j[t];
                i[t] = (((t + tb * nt) as f32) * one_nth) as usize;
                j[t] = if tb == 0 {
                    t % n
                } else {
                    (j[t] + tbsize_mod) % n
                };
                let (ii, jj) = (i[t], j[t]);
                let (mut nv, mut ov) = (0.0f32, 0.0f32);
                if ii < m {
                    let row_u = ii.saturating_sub(1);
                    let row_d = if ii == m - 1 { m - 1 } else { ii + 1 };
                    let col_l = jj.saturating_sub(1);
                    let col_r = if jj == n - 1 { n - 1 } else { jj + 1 };
                    ov = g[ii * n + jj];
                    let at = |r: usize, c: usize| g[r * n + c] - ov;
                    let u = at(row_u, jj);
                    let d = at(row_d, jj);
                    let l = at(ii, col_l);
                    let r = at(ii, col_r);
                    let ur = at(row_u, col_r);
                    let dr = at(row_d, col_r);
                    let ul = at(row_u, col_l);
                    let dl = at(row_d, col_l);
                    let he = |diff: f32, vel: f32| heaviside((diff * vel) * one_over_e);
                    let terms = [
                        (he(u, -vy), u),
                        (he(l, -vx), l),
                        (he(r, vx), r),
                        (he(ur, vx - vy), ur),
                        (he(dr, vx + vy), dr),
                        (he(ul, -vx - vy), ul),
                        (he(dl, -vx + vy), dl),
                    ];
                    let mut sum = he(d, vy) * d;
                    for (h, diff) in terms {
                        sum = h.mul_add(diff, sum);
                    }
                    nv = f64::from(sum).mul_add(0.1, f64::from(ov)) as f32;
                    let vi = img[ii * n + jj];
                    nv = (f64::from(vi) * -0.2).mul_add(f64::from(nv - vi), f64::from(nv)) as f32;
                }
                new_val[t] = nv;
                total_diff[t] += (nv - ov).abs();
            }
            // the barrier; then the stores of the previous and (last block) this block
            for t in 0..nt {
                if tb > 0 && old_i[t] < m {
                    g[old_i[t] * n + old_j[t]] = buffer[t];
                }
                if tb < blocks - 1 {
                    buffer[t] = new_val[t];
                } else if i[t] < m {
                    g[i[t] * n + j[t]] = new_val[t];
                }
            }
        }
        buffer.copy_from_slice(&total_diff);
        for t in 256..nt {
            buffer[t - 256] += buffer[t];
        }
        let mut th = 128;
        while th > 0 {
            for t in 0..th {
                buffer[t] += buffer[t + th];
            }
            th /= 2;
        }
        if buffer[0] / ((m * n) as f32) < cutoff {
            converged = true;
        }
        iterations += 1;
    }
    g
}

/// A tracked cell's sub-image bounds (Rodinia's u1, u2, v1, v2, clipped to the frame), or
/// `None` where `IMGVF_kernel`'s row index `(int)(k * (1.f / n))` would be wrong for some
/// element `k` (widths 41, 47, 55, 61 among those possible): two threads would then store the
/// same element at once.
fn sub_image(p: &Params, xc: f64, yc: f64) -> Option<(usize, usize, usize, usize)> {
    let u1 = (xc - 4.0 * RADIUS + 0.5).max(0.0) as usize;
    let u2 = (xc + 4.0 * RADIUS + 0.5).min((p.width - 1) as f64) as usize;
    let v1 = (yc - 2.0 * RADIUS + 1.5).max(0.0) as usize;
    let v2 = (yc + 2.0 * RADIUS + 1.5).min((p.height - 1) as f64) as usize;
    let (m, n) = (v2 - v1 + 1, u2 - u1 + 1);
    let one_nth = 1.0f32 / n as f32;
    let rows_ok = (0..(m * n).div_ceil(IMGVF_THREADS) * IMGVF_THREADS)
        .all(|k| ((k as f32 * one_nth) as usize).min(m) == (k / n).min(m));
    rows_ok.then_some((u1, u2, v1, v2))
}

/// Rodinia leukocyte as a registered sample; with `texture_references`, the kernels of
/// `leukocyte_tex.ptx`, which read through Rodinia's texture references.
pub struct Leukocyte {
    pub texture_references: bool,
}

impl Sample for Leukocyte {
    fn name(&self) -> &'static str {
        if self.texture_references {
            "rodinia/leukocyte-textures"
        } else {
            "rodinia/leukocyte"
        }
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["GICOV_kernel", "dilate_kernel", "IMGVF_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = params(size);
        format!(
            "{} × {} frames (detection rows {}..={}), {} cell(s), {} tracked frame(s), ≤ {} MGVF iterations",
            p.width,
            p.height,
            p.top,
            p.bottom,
            p.cells_x * p.cells_y,
            p.frames,
            p.max_iterations
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = params(size);
        let centres = cell_centres(&p);
        let c = constants();

        let mut session = Session::new(dev);
        let module = session.load(if self.texture_references {
            "rodinia/leukocyte/leukocyte_tex.ptx"
        } else {
            "rodinia/leukocyte/leukocyte.ptx"
        })?;
        let gicov_kernel = module.kernel("GICOV_kernel")?;
        let dilate_kernel = module.kernel("dilate_kernel")?;
        let imgvf_kernel = module.kernel("IMGVF_kernel")?;

        // transfer_constants
        let bytes = runtime::buffer::to_bytes::<f32>;
        module.write_symbol("c_sin_angle", 0, &bytes(&c.sin))?;
        module.write_symbol("c_cos_angle", 0, &bytes(&c.cos))?;
        module.write_symbol("c_tX", 0, &runtime::buffer::to_bytes(&c.tx))?;
        module.write_symbol("c_tY", 0, &runtime::buffer::to_bytes(&c.ty))?;
        module.write_symbol("c_strel", 0, &bytes(&c.strel))?;

        // Detection on the cropped first frame.
        let f0 = frame(&p, &centres, 0);
        let (m, n) = (p.bottom - p.top + 1, p.width);
        let chopped: Vec<f64> = f0[p.top * n..(p.bottom + 1) * n]
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let (grad_x, grad_y) = (gradient_x(&chopped, m, n), gradient_y(&chopped, m, n));
        let column_major = |g: &[f64]| -> Vec<f32> {
            let mut out = vec![0.0f32; m * n];
            for r in 0..m {
                for col in 0..n {
                    out[col * m + r] = g[r * n + col] as f32;
                }
            }
            out
        };
        let (host_gx, host_gy) = (column_major(&grad_x), column_major(&grad_y));
        let d_gx = dev.alloc_from(&host_gx)?;
        let d_gy = dev.alloc_from(&host_gy)?;
        let d_gicov = dev.alloc::<f32>(m * n)?;
        d_gicov.memset(0)?;
        let tex = self.texture_references;
        let gicov_args = if tex {
            bind_linear(dev, &module, "t_grad_x", &d_gx)?;
            bind_linear(dev, &module, "t_grad_y", &d_gy)?;
            vec![Arg::I32(m as i32), (&d_gicov).into()]
        } else {
            vec![
                Arg::I32(m as i32),
                (&d_gx).into(),
                (&d_gy).into(),
                (&d_gicov).into(),
            ]
        };
        session.launch(
            &gicov_kernel,
            (n - 2 * MAX_R) as u32,
            (m - 2 * MAX_R) as u32,
            0,
            &gicov_args,
        )?;
        let gicov = d_gicov.to_host()?;

        let threads = m * n;
        let blocks = (f64::from(threads as f32 / DILATE_THREADS as f32) + 0.5) as usize;
        assert!(
            blocks * DILATE_THREADS <= threads,
            "dilate grid overruns the matrix"
        );
        let d_dilated = dev.alloc::<f32>(m * n)?;
        d_dilated.memset(0)?;
        let mut dilate_args = vec![
            Arg::I32(m as i32),
            Arg::I32(n as i32),
            Arg::I32(STREL_SIZE as i32),
            Arg::I32(STREL_SIZE as i32),
        ];
        if tex {
            bind_linear(dev, &module, "t_img", &d_gicov)?;
        } else {
            dilate_args.push((&d_gicov).into());
        }
        dilate_args.push((&d_dilated).into());
        session.launch(
            &dilate_kernel,
            blocks as u32,
            DILATE_THREADS as u32,
            0,
            &dilate_args,
        )?;
        let dilated = d_dilated.to_host()?;

        // Cell centres: GICOV maxima (Rodinia's double_eq, row range and threshold).
        let double_eq = |a: f64, b: f64| (a - b).abs() < 0.000001;
        let mut cells = Vec::new();
        for i in 0..m {
            for j in 0..n {
                let g = f64::from(gicov[j * m + i]);
                let d = f64::from(dilated[i * n + j]);
                if !double_eq(g, 0.0)
                    && double_eq(d, g)
                    && i > 29
                    && i < p.bottom - p.top + 39
                    && g.sqrt() > THRESHOLD
                {
                    let (xc, yc) = (j as f64, (i + p.top) as f64);
                    if let Some(bounds) = sub_image(&p, xc, yc) {
                        cells.push(bounds);
                    }
                }
            }
        }
        let num_cells = cells.len();

        // Tracking.
        let consts = (1.0f32, 1.0f32, 1e-10f32, p.max_iterations, 0.00001f32);
        let mut got_mgvf = Vec::new();
        let mut expected_mgvf = Vec::new();
        for f in 1..=p.frames {
            let img = frame(&p, &centres, f);
            let mut all = Vec::new();
            let mut dims = Vec::new();
            for &(u1, u2, v1, v2) in &cells {
                let (sm, sn) = (v2 - v1 + 1, u2 - u1 + 1);
                let mut sub = Vec::with_capacity(sm * sn);
                for r in v1..=v2 {
                    for col in u1..=u2 {
                        sub.push(f64::from(img[r * p.width + col]) / 255.0);
                    }
                }
                let (ix, iy) = (gradient_x(&sub, sm, sn), gradient_y(&sub, sm, sn));
                let ie: Vec<f64> = ix
                    .iter()
                    .zip(&iy)
                    .map(|(x, y)| (x * x + y * y).sqrt())
                    .collect();
                // MGVF's normalisation
                let (mut imax, mut imin) = (ie[0], ie[0]);
                for &v in &ie {
                    if v > imax {
                        imax = v;
                    } else if v < imin {
                        imin = v;
                    }
                }
                let scale = 1.0 / (imax - imin + f64::EPSILON);
                all.extend(ie.iter().map(|&v| ((v - imin) * scale) as f32));
                dims.push((sm, sn));
            }
            if num_cells == 0 {
                continue;
            }

            // IMGVF_cuda_init: one allocation for all cells, arrays of pointers and sizes
            let d_i_all = dev.alloc_from(&all)?;
            let d_imgvf_all = dev.alloc_from(&all)?;
            let (mut i_ptrs, mut imgvf_ptrs, mut ms, mut ns) = (vec![], vec![], vec![], vec![]);
            let mut offset = 0u64;
            for &(sm, sn) in &dims {
                i_ptrs.push(d_i_all.device_ptr() + 4 * offset);
                imgvf_ptrs.push(d_imgvf_all.device_ptr() + 4 * offset);
                ms.push(sm as i32);
                ns.push(sn as i32);
                offset += (sm * sn) as u64;
            }
            let d_i_array = dev.alloc_from(&i_ptrs)?;
            let d_imgvf_array = dev.alloc_from(&imgvf_ptrs)?;
            let d_m = dev.alloc_from(&ms)?;
            let d_n = dev.alloc_from(&ns)?;
            session.launch(
                &imgvf_kernel,
                num_cells as u32,
                IMGVF_THREADS as u32,
                0,
                &[
                    (&d_imgvf_array).into(),
                    (&d_i_array).into(),
                    (&d_m).into(),
                    (&d_n).into(),
                    Arg::F32(consts.0),
                    Arg::F32(consts.1),
                    Arg::F32(consts.2),
                    Arg::I32(consts.3),
                    Arg::F32(consts.4),
                ],
            )?;
            got_mgvf.extend(d_imgvf_all.to_host()?);

            let mut at = 0;
            for &(sm, sn) in &dims {
                let cell = &all[at..at + sm * sn];
                expected_mgvf.extend(imgvf_reference(cell, sm, sn, consts));
                at += sm * sn;
            }
        }

        let mut got = gicov;
        got.extend(dilated);
        got.extend(got_mgvf);
        let mut expected = gicov_reference(&c, &host_gx, &host_gy, m, n);
        let expected_dilated = dilate_reference(&c, &expected, m, n, blocks * DILATE_THREADS);
        expected.extend(expected_dilated);
        expected.extend(expected_mgvf);
        if num_cells == 0 {
            // a run that tracks nothing would not test IMGVF_kernel
            expected.push(f32::NAN);
        }
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
