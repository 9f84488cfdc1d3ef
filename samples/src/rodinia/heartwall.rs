//! Rodinia heartwall: tracks the endocardial and epicardial points of a mouse heart's wall
//! through the frames of an ultrasound video by template matching.
//!
//! As in Rodinia's CUDA version, the host computes the size of every intermediate matrix, uploads
//! them (`d_common`) and the per-point parameters (`d_unique`: coordinates, template slot, work
//! buffers) to constant memory once, then per frame copies the frame to the device, uploads
//! `d_common_change` (frame pointer and number) and launches `kernel` with one block of 256
//! threads per point. Frame 0 cuts each point's template out of the frame; every later frame
//! correlates the template with the search area around the point (convolution, local sums by
//! padded cumulative sums, normalisation), restricts the result to the `maxMove` window around
//! the point's previous location and records the best match; every 10th frame moves the points
//! there and blends their templates with the frame (α = 0.87). The tracked locations and the
//! templates are copied back at the end.
//!
//! Rodinia reads its frames from an AVI file (`test.avi`); here the video is synthetic and
//! seeded: a smooth random texture (bilinear interpolation of random values on an 8-pixel grid,
//! intensities 40–200) that moves periodically by a few pixels per frame, plus ±8 of noise per
//! pixel per frame, rounded to 8-bit values as the AVI's converted frames are; frames are
//! 609 × 590 (rows × columns) at the default size. The point coordinates and the constants
//! (template size 25, search size 40, maxMove 10, α) are Rodinia's.
//!
//! Differences from Rodinia: the template cut uses `tSize` where Rodinia writes the constant 25
//! (its `tSize`), so that the small size can use smaller templates; the structures in constant
//! memory list their fields in another order (pointers first) and leave out what the kernel never
//! reads; the location arrays are indexed with the number of frames processed (Rodinia: the
//! number of frames in the AVI file).
//!
//! Validation is exact: a CPU reference runs every block's computation per frame with the
//! kernel's float arithmetic (the convolution's `fma.rn.f32` chain, `div.rn`, `sqrt.rn`, the
//! template blend's `fma.rn.f64`, all sums in the kernel's order), so the tracked locations
//! (integers) and the final templates (f32, bit for bit) must match.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's NUMBER_THREADS (threads per block).
const NUMBER_THREADS: usize = 256;
/// The kernel's `d_unique` array length (Rodinia's ALL_POINTS).
const ALL_POINTS: usize = 51;

/// Rodinia's endocardial points (row, column).
#[rustfmt::skip]
const ENDO: [(i32, i32); 20] = [
    (369, 408), (400, 406), (429, 397), (452, 383), (476, 354), (486, 322), (479, 294),
    (458, 270), (433, 250), (404, 237), (374, 235), (346, 241), (318, 254), (294, 273),
    (277, 300), (269, 328), (275, 356), (287, 383), (311, 401), (339, 411),
];

/// Rodinia's epicardial points (row, column).
#[rustfmt::skip]
const EPI: [(i32, i32); 31] = [
    (390, 457), (419, 454), (448, 446), (474, 431), (501, 411), (519, 388), (535, 361),
    (542, 331), (543, 301), (538, 273), (528, 243), (511, 218), (491, 196), (466, 178),
    (438, 166), (406, 157), (376, 155), (347, 165), (318, 177), (291, 197), (275, 218),
    (259, 248), (256, 276), (252, 304), (252, 333), (257, 361), (266, 391), (283, 415),
    (305, 434), (331, 448), (360, 455),
];

/// One problem.
#[derive(Clone, Debug)]
pub struct Params {
    pub frame_rows: usize,
    pub frame_cols: usize,
    pub frames: usize,
    pub s_size: i32,
    pub t_size: i32,
    pub max_move: i32,
    pub endo: Vec<(i32, i32)>,
    pub epi: Vec<(i32, i32)>,
}

fn params(size: Size) -> Params {
    match size {
        // 4 points with small templates; 12 frames include the template update at frame 10
        Size::Small => Params {
            frame_rows: 96,
            frame_cols: 96,
            frames: 12,
            s_size: 6,
            t_size: 4,
            max_move: 4,
            endo: vec![(40, 40), (40, 56)],
            epi: vec![(56, 40), (56, 56)],
        },
        // Rodinia's run script: ./heartwall test.avi 20
        Size::Default => Params {
            frame_rows: 609,
            frame_cols: 590,
            frames: 20,
            s_size: 40,
            t_size: 25,
            max_move: 10,
            endo: ENDO.to_vec(),
            epi: EPI.to_vec(),
        },
        Size::Large => Params {
            frame_rows: 609,
            frame_cols: 590,
            frames: 40,
            s_size: 40,
            t_size: 25,
            max_move: 10,
            endo: ENDO.to_vec(),
            epi: EPI.to_vec(),
        },
    }
}

/// The sizes Rodinia's host computes (`params_common`), in the kernel's field order.
#[derive(Clone, Copy, Debug, Default)]
struct Common {
    s_size: i32,
    t_size: i32,
    max_move: i32,
    alpha: f32,
    no_frames: i32,
    frame_rows: i32,
    frame_cols: i32,
    frame_elem: i32,
    in_rows: i32,
    in_cols: i32,
    in_elem: i32,
    in2_rows: i32,
    in2_cols: i32,
    in2_elem: i32,
    conv_rows: i32,
    conv_cols: i32,
    conv_elem: i32,
    ioffset: i32,
    joffset: i32,
    pad_add_rows: i32,
    pad_add_cols: i32,
    pad_cumv_rows: i32,
    pad_cumv_cols: i32,
    pad_cumv_elem: i32,
    pad_cumv_sel_rowlow: i32,
    pad_cumv_sel_collow: i32,
    pad_cumv_sel_rows: i32,
    pad_cumv_sel_cols: i32,
    pad_cumv_sel_elem: i32,
    pad_cumv_sel2_rowlow: i32,
    pad_cumv_sel2_collow: i32,
    sub_cumh_rows: i32,
    sub_cumh_cols: i32,
    sub_cumh_elem: i32,
    sub_cumh_sel_rowlow: i32,
    sub_cumh_sel_collow: i32,
    sub_cumh_sel_rows: i32,
    sub_cumh_sel_cols: i32,
    sub_cumh_sel_elem: i32,
    sub_cumh_sel2_rowlow: i32,
    sub_cumh_sel2_collow: i32,
    sub2_rows: i32,
    sub2_cols: i32,
    sub2_elem: i32,
    in2_sqr_rows: i32,
    in2_sqr_cols: i32,
    in2_sqr_elem: i32,
    in_sqr_rows: i32,
    in_sqr_cols: i32,
    in_sqr_elem: i32,
    tmask_rows: i32,
    tmask_cols: i32,
    tmask_elem: i32,
    mask_rows: i32,
    mask_cols: i32,
    mask_conv_rows: i32,
    mask_conv_cols: i32,
    mask_conv_elem: i32,
    mask_conv_ioffset: i32,
    mask_conv_joffset: i32,
}

impl Common {
    /// Rodinia's host-side size computations.
    fn new(p: &Params) -> Common {
        let mut c = Common {
            s_size: p.s_size,
            t_size: p.t_size,
            max_move: p.max_move,
            alpha: 0.87,
            no_frames: p.frames as i32,
            frame_rows: p.frame_rows as i32,
            frame_cols: p.frame_cols as i32,
            frame_elem: (p.frame_rows * p.frame_cols) as i32,
            ..Common::default()
        };
        c.in_rows = c.t_size + 1 + c.t_size;
        c.in_cols = c.in_rows;
        c.in_elem = c.in_rows * c.in_cols;
        c.in2_rows = 2 * c.s_size + 1;
        c.in2_cols = 2 * c.s_size + 1;
        c.in2_elem = c.in2_rows * c.in2_cols;
        c.conv_rows = c.in_rows + c.in2_rows - 1;
        c.conv_cols = c.in_cols + c.in2_cols - 1;
        c.conv_elem = c.conv_rows * c.conv_cols;
        c.ioffset = 0;
        c.joffset = 0;
        c.pad_add_rows = c.in_rows;
        c.pad_add_cols = c.in_cols;
        c.pad_cumv_rows = c.in2_rows + 2 * c.pad_add_rows;
        c.pad_cumv_cols = c.in2_cols + 2 * c.pad_add_cols;
        c.pad_cumv_elem = c.pad_cumv_rows * c.pad_cumv_cols;
        c.pad_cumv_sel_rowlow = 1 + c.in_rows;
        let sel_rowhig = c.pad_cumv_rows - 1;
        c.pad_cumv_sel_collow = 1;
        let sel_colhig = c.pad_cumv_cols;
        c.pad_cumv_sel_rows = sel_rowhig - c.pad_cumv_sel_rowlow + 1;
        c.pad_cumv_sel_cols = sel_colhig - c.pad_cumv_sel_collow + 1;
        c.pad_cumv_sel_elem = c.pad_cumv_sel_rows * c.pad_cumv_sel_cols;
        c.pad_cumv_sel2_rowlow = 1;
        let sel2_rowhig = c.pad_cumv_rows - c.in_rows - 1;
        c.pad_cumv_sel2_collow = 1;
        let sel2_colhig = c.pad_cumv_cols;
        c.sub_cumh_rows = sel2_rowhig - c.pad_cumv_sel2_rowlow + 1;
        c.sub_cumh_cols = sel2_colhig - c.pad_cumv_sel2_collow + 1;
        c.sub_cumh_elem = c.sub_cumh_rows * c.sub_cumh_cols;
        c.sub_cumh_sel_rowlow = 1;
        let hsel_rowhig = c.sub_cumh_rows;
        c.sub_cumh_sel_collow = 1 + c.in_cols;
        let hsel_colhig = c.sub_cumh_cols - 1;
        c.sub_cumh_sel_rows = hsel_rowhig - c.sub_cumh_sel_rowlow + 1;
        c.sub_cumh_sel_cols = hsel_colhig - c.sub_cumh_sel_collow + 1;
        c.sub_cumh_sel_elem = c.sub_cumh_sel_rows * c.sub_cumh_sel_cols;
        c.sub_cumh_sel2_rowlow = 1;
        let hsel2_rowhig = c.sub_cumh_rows;
        c.sub_cumh_sel2_collow = 1;
        let hsel2_colhig = c.sub_cumh_cols - c.in_cols - 1;
        c.sub2_rows = hsel2_rowhig - c.sub_cumh_sel2_rowlow + 1;
        c.sub2_cols = hsel2_colhig - c.sub_cumh_sel2_collow + 1;
        c.sub2_elem = c.sub2_rows * c.sub2_cols;
        c.in2_sqr_rows = c.in2_rows;
        c.in2_sqr_cols = c.in2_cols;
        c.in2_sqr_elem = c.in2_elem;
        c.in_sqr_rows = c.in_rows;
        c.in_sqr_cols = c.in_cols;
        c.in_sqr_elem = c.in_elem;
        c.tmask_rows = c.in_rows + (c.s_size + 1 + c.s_size) - 1;
        c.tmask_cols = c.tmask_rows;
        c.tmask_elem = c.tmask_rows * c.tmask_cols;
        c.mask_rows = c.max_move;
        c.mask_cols = c.mask_rows;
        c.mask_conv_rows = c.tmask_rows;
        c.mask_conv_cols = c.tmask_cols;
        c.mask_conv_elem = c.mask_conv_rows * c.mask_conv_cols;
        c.mask_conv_ioffset = (c.mask_rows - 1) / 2;
        if (c.mask_rows - 1) % 2 > 0 {
            c.mask_conv_ioffset += 1;
        }
        c.mask_conv_joffset = (c.mask_cols - 1) / 2;
        if (c.mask_cols - 1) % 2 > 0 {
            c.mask_conv_joffset += 1;
        }
        c
    }

    /// The constant-memory image of `params_common`.
    fn words(&self) -> Vec<u32> {
        let ints = [
            self.s_size,
            self.t_size,
            self.max_move,
            self.alpha.to_bits() as i32,
            self.no_frames,
            self.frame_rows,
            self.frame_cols,
            self.frame_elem,
            self.in_rows,
            self.in_cols,
            self.in_elem,
            self.in2_rows,
            self.in2_cols,
            self.in2_elem,
            self.conv_rows,
            self.conv_cols,
            self.conv_elem,
            self.ioffset,
            self.joffset,
            self.pad_add_rows,
            self.pad_add_cols,
            self.pad_cumv_rows,
            self.pad_cumv_cols,
            self.pad_cumv_elem,
            self.pad_cumv_sel_rowlow,
            self.pad_cumv_sel_collow,
            self.pad_cumv_sel_rows,
            self.pad_cumv_sel_cols,
            self.pad_cumv_sel_elem,
            self.pad_cumv_sel2_rowlow,
            self.pad_cumv_sel2_collow,
            self.sub_cumh_rows,
            self.sub_cumh_cols,
            self.sub_cumh_elem,
            self.sub_cumh_sel_rowlow,
            self.sub_cumh_sel_collow,
            self.sub_cumh_sel_rows,
            self.sub_cumh_sel_cols,
            self.sub_cumh_sel_elem,
            self.sub_cumh_sel2_rowlow,
            self.sub_cumh_sel2_collow,
            self.sub2_rows,
            self.sub2_cols,
            self.sub2_elem,
            self.in2_sqr_rows,
            self.in2_sqr_cols,
            self.in2_sqr_elem,
            self.in_sqr_rows,
            self.in_sqr_cols,
            self.in_sqr_elem,
            self.tmask_rows,
            self.tmask_cols,
            self.tmask_elem,
            self.mask_rows,
            self.mask_cols,
            self.mask_conv_rows,
            self.mask_conv_cols,
            self.mask_conv_elem,
            self.mask_conv_ioffset,
            self.mask_conv_joffset,
        ];
        ints.iter().map(|v| *v as u32).collect()
    }
}

/// The synthetic video (see the module doc): `frames` column-major frames of 8-bit intensities.
fn video(p: &Params) -> Vec<Vec<f32>> {
    const GRID: usize = 8;
    const MARGIN: usize = 16;
    let (rows, cols) = (p.frame_rows + 2 * MARGIN, p.frame_cols + 2 * MARGIN);
    let (grows, gcols) = (rows / GRID + 2, cols / GRID + 2);
    let mut rng = Rng::new(0x4EA2_7A11);
    let grid: Vec<f64> = (0..grows * gcols)
        .map(|_| f64::from(rng.f32_in(0.0, 1.0)))
        .collect();
    let texture = |r: usize, c: usize| {
        let (gr, gc) = (r / GRID, c / GRID);
        let (fr, fc) = (
            (r % GRID) as f64 / GRID as f64,
            (c % GRID) as f64 / GRID as f64,
        );
        let g = |i: usize, j: usize| grid[i * gcols + j];
        let top = g(gr, gc) * (1.0 - fc) + g(gr, gc + 1) * fc;
        let bottom = g(gr + 1, gc) * (1.0 - fc) + g(gr + 1, gc + 1) * fc;
        40.0 + 160.0 * (top * (1.0 - fr) + bottom * fr)
    };
    (0..p.frames)
        .map(|t| {
            let phase = 2.0 * std::f64::consts::PI * t as f64 / 12.0;
            let dy = (3.0 * phase.sin()).round() as isize;
            let dx = (2.0 * phase.cos()).round() as isize;
            let mut frame = vec![0.0f32; p.frame_rows * p.frame_cols];
            for col in 0..p.frame_cols {
                for row in 0..p.frame_rows {
                    let r = (row as isize + MARGIN as isize + dy) as usize;
                    let c = (col as isize + MARGIN as isize + dx) as usize;
                    let noise = f64::from(rng.f32_in(-8.0, 8.0));
                    let v = (texture(r, c) + noise).round().clamp(0.0, 255.0);
                    frame[col * p.frame_rows + row] = v as f32;
                }
            }
            frame
        })
        .collect()
}

/// Rodinia's MATLAB-style position of element `ei` in a column-major matrix: (row, col), 0-based.
fn position(ei: i32, rows: i32) -> (i32, i32) {
    let mut row = (ei + 1) % rows - 1;
    let mut col = (ei + 1) / rows;
    if (ei + 1) % rows == 0 {
        row = rows - 1;
        col -= 1;
    }
    (row, col)
}

/// The state of one point on the CPU: its coordinates, template and tracked locations.
struct PointState {
    row: i32,
    col: i32,
    template: Vec<f32>,
    t_row_loc: Vec<i32>,
    t_col_loc: Vec<i32>,
}

/// Pads `src` and sums its columns cumulatively (the kernel's `pad_and_cumv`).
fn pad_and_cumv(c: &Common, src: &[f32], src_rows: i32, src_cols: i32) -> Vec<f32> {
    let mut pad = vec![0.0f32; c.pad_cumv_elem as usize];
    for ei in 0..c.pad_cumv_elem {
        let (row, col) = position(ei, c.pad_cumv_rows);
        if row > c.pad_add_rows - 1
            && row < c.pad_add_rows + src_rows
            && col > c.pad_add_cols - 1
            && col < c.pad_add_cols + src_cols
        {
            let (ori_row, ori_col) = (row - c.pad_add_rows, col - c.pad_add_cols);
            pad[ei as usize] = src[(ori_col * src_rows + ori_row) as usize];
        }
    }
    for column in pad.chunks_exact_mut(c.pad_cumv_rows as usize) {
        let mut sum = 0.0f32;
        for v in column {
            *v += sum;
            sum = *v;
        }
    }
    pad
}

/// The kernel's `window_sums`: local sums over template-sized windows from the padded sums.
fn window_sums(c: &Common, pad: &[f32]) -> Vec<f32> {
    let at = |m: &[f32], row: i32, col: i32, rows: i32| m[(col * rows + row) as usize];
    let sel: Vec<f32> = (0..c.pad_cumv_sel_elem)
        .map(|ei| {
            let (row, col) = position(ei, c.pad_cumv_sel_rows);
            at(
                pad,
                row + c.pad_cumv_sel_rowlow - 1,
                col + c.pad_cumv_sel_collow - 1,
                c.pad_cumv_rows,
            )
        })
        .collect();
    let mut cumh: Vec<f32> = (0..c.sub_cumh_elem)
        .map(|ei| {
            let (row, col) = position(ei, c.sub_cumh_rows);
            let v = at(
                pad,
                row + c.pad_cumv_sel2_rowlow - 1,
                col + c.pad_cumv_sel2_collow - 1,
                c.pad_cumv_rows,
            );
            sel[ei as usize] - v
        })
        .collect();
    for r in 0..c.sub_cumh_rows as usize {
        let mut sum = 0.0f32;
        for p in (r..c.sub_cumh_elem as usize).step_by(c.sub_cumh_rows as usize) {
            cumh[p] += sum;
            sum = cumh[p];
        }
    }
    let hsel: Vec<f32> = (0..c.sub_cumh_sel_elem)
        .map(|ei| {
            let (row, col) = position(ei, c.sub_cumh_sel_rows);
            at(
                &cumh,
                row + c.sub_cumh_sel_rowlow - 1,
                col + c.sub_cumh_sel_collow - 1,
                c.sub_cumh_rows,
            )
        })
        .collect();
    (0..c.sub2_elem)
        .map(|ei| {
            let (row, col) = position(ei, c.sub2_rows);
            let v = at(
                &cumh,
                row + c.sub_cumh_sel2_rowlow - 1,
                col + c.sub_cumh_sel2_collow - 1,
                c.sub_cumh_rows,
            );
            hsel[ei as usize] - v
        })
        .collect()
}

/// One point's work in one frame (a block of `kernel`), on the CPU.
fn reference_block(c: &Common, frame_no: i32, frame: &[f32], st: &mut PointState) {
    let fr = c.frame_rows;
    let pixel = |row: i32, col: i32| frame[(col * fr + row) as usize];
    let fno = frame_no as usize;
    if frame_no == 0 {
        st.t_row_loc[0] = st.row;
        st.t_col_loc[0] = st.col;
        for ei in 0..c.in_elem {
            let (row, col) = position(ei, c.in_rows);
            st.template[(col * c.in_rows + row) as usize] =
                pixel(st.row - c.t_size + row - 1, st.col - c.t_size + col - 1);
        }
        return;
    }
    // search area
    let in2: Vec<f32> = (0..c.in2_elem)
        .map(|ei| {
            let (row, col) = position(ei, c.in2_rows);
            pixel(row + st.row - c.s_size - 1, col + st.col - c.s_size - 1)
        })
        .collect();
    // rotated template
    let rot: Vec<f32> = (0..c.in_elem)
        .map(|ei| {
            let (row, col) = position(ei, c.in_rows);
            let (rr, rc) = (c.in_rows - 1 - row, c.in_rows - 1 - col);
            st.template[(rc * c.in_rows + rr) as usize]
        })
        .collect();
    // convolution
    let mut conv: Vec<f32> = (0..c.conv_elem)
        .map(|ei| {
            let mut ic = (ei + 1) % c.conv_rows;
            let mut jc = (ei + 1) / c.conv_rows + 1;
            if (ei + 1) % c.conv_rows == 0 {
                ic = c.conv_rows;
                jc -= 1;
            }
            let j = jc + c.joffset;
            let jp1 = j + 1;
            let ja1 = if c.in2_cols < jp1 {
                jp1 - c.in2_cols
            } else {
                1
            };
            let ja2 = if c.in_cols < j { c.in_cols } else { j };
            let i = ic + c.ioffset;
            let ip1 = i + 1;
            let ia1 = if c.in2_rows < ip1 {
                ip1 - c.in2_rows
            } else {
                1
            };
            let ia2 = if c.in_rows < i { c.in_rows } else { i };
            let mut s = 0.0f32;
            for ja in ja1..=ja2 {
                let jb = jp1 - ja;
                for ia in ia1..=ia2 {
                    let ib = ip1 - ia;
                    let a = rot[(c.in_rows * (ja - 1) + ia - 1) as usize];
                    let b = in2[(c.in2_rows * (jb - 1) + ib - 1) as usize];
                    s = a.mul_add(b, s);
                }
            }
            s
        })
        .collect();
    // local sums of the area and of its square
    let sub2 = window_sums(c, &pad_and_cumv(c, &in2, c.in2_rows, c.in2_cols));
    let in2_sqr: Vec<f32> = in2.iter().map(|v| v * v).collect();
    let sqr_sub2 = window_sums(
        c,
        &pad_and_cumv(c, &in2_sqr, c.in2_sqr_rows, c.in2_sqr_cols),
    );
    let in_elem = c.in_elem as f32;
    let mut denom: Vec<f32> = sub2
        .iter()
        .zip(&sqr_sub2)
        .map(|(t, q)| {
            let temp2 = q - (t * t / in_elem);
            (if temp2 < 0.0 { 0.0 } else { temp2 }).sqrt()
        })
        .collect();
    // template statistics
    let in_sqr: Vec<f32> = st.template.iter().map(|v| v * v).collect();
    let partial: Vec<f32> = (0..c.in_cols as usize)
        .map(|col| {
            st.template[col * c.in_rows as usize..(col + 1) * c.in_rows as usize]
                .iter()
                .fold(0.0f32, |s, v| s + v)
        })
        .collect();
    let sqr_partial: Vec<f32> = (0..c.in_sqr_rows as usize)
        .map(|row| {
            (0..c.in_sqr_cols as usize)
                .fold(0.0f32, |s, i| s + in_sqr[row + c.in_sqr_rows as usize * i])
        })
        .collect();
    let in_final_sum = partial.iter().fold(0.0f32, |s, v| s + v);
    let in_sqr_final_sum = sqr_partial.iter().fold(0.0f32, |s, v| s + v);
    let mean = in_final_sum / in_elem;
    let mean_sqr = mean * mean;
    let variance = (in_sqr_final_sum / in_elem) - mean_sqr;
    let deviation = variance.sqrt();
    let denom_t = ((c.in_elem - 1) as f32).sqrt() * deviation;
    for d in &mut denom {
        *d *= denom_t;
    }
    for (v, s) in conv.iter_mut().zip(&sub2) {
        *v -= s * in_final_sum / in_elem;
    }
    let corr: Vec<f32> = conv.iter().zip(&denom).map(|(n, d)| n / d).collect();
    // template mask at the previous location, its convolution with the maxMove square
    let cent = c.s_size + c.t_size + 1;
    let tmask_row = cent + st.t_row_loc[fno - 1] - st.row - 1;
    let tmask_col = cent + st.t_col_loc[fno - 1] - st.col - 1;
    let location = tmask_col * c.tmask_rows + tmask_row;
    let mask_conv: Vec<f32> = (0..c.mask_conv_elem)
        .map(|ei| {
            let mut ic = (ei + 1) % c.mask_conv_rows;
            let mut jc = (ei + 1) / c.mask_conv_rows + 1;
            if (ei + 1) % c.mask_conv_rows == 0 {
                ic = c.mask_conv_rows;
                jc -= 1;
            }
            let j = jc + c.mask_conv_joffset;
            let jp1 = j + 1;
            let ja1 = if c.mask_cols < jp1 {
                jp1 - c.mask_cols
            } else {
                1
            };
            let ja2 = if c.tmask_cols < j { c.tmask_cols } else { j };
            let i = ic + c.mask_conv_ioffset;
            let ip1 = i + 1;
            let ia1 = if c.mask_rows < ip1 {
                ip1 - c.mask_rows
            } else {
                1
            };
            let ia2 = if c.tmask_rows < i { c.tmask_rows } else { i };
            let mut s = 0.0f32;
            for ja in ja1..=ja2 {
                for ia in ia1..=ia2 {
                    let e = c.tmask_rows * (ja - 1) + ia - 1;
                    s += if e == location { 1.0 } else { 0.0 };
                }
            }
            corr[ei as usize] * s
        })
        .collect();
    // largest magnitude: per thread over its columns, then thread 0
    let rows = c.mask_conv_rows as usize;
    let mut par_val = vec![0.0f32; rows];
    let mut par_coo = vec![0i32; rows];
    for t in 0..NUMBER_THREADS.min(rows) {
        let (mut lv, mut lc) = (0.0f32, 0i32);
        for ei in (t..rows).step_by(NUMBER_THREADS) {
            for i in 0..c.mask_conv_cols as usize {
                let coordinate = ei * rows + i;
                let value = mask_conv[coordinate].abs();
                if value > lv {
                    lc = coordinate as i32;
                    lv = value;
                }
            }
            par_coo[ei] = lc;
            par_val[ei] = lv;
        }
    }
    let (mut fin_val, mut fin_coo) = (0.0f32, 0i32);
    for (v, coo) in par_val.iter().zip(&par_coo) {
        if *v > fin_val {
            fin_val = *v;
            fin_coo = *coo;
        }
    }
    let (largest_row, largest_col) = position(fin_coo, c.mask_conv_rows);
    let offset_row = largest_row + 1 - c.in_rows - (c.s_size - c.t_size);
    let offset_col = largest_col + 1 - c.in_cols - (c.s_size - c.t_size);
    st.t_row_loc[fno] = st.row + offset_row;
    st.t_col_loc[fno] = st.col + offset_col;
    // every 10th frame: move the point, blend its template with the frame
    if frame_no % 10 == 0 {
        st.row = st.t_row_loc[fno];
        st.col = st.t_col_loc[fno];
        let alpha = c.alpha;
        let beta = 1.0 - f64::from(alpha);
        for ei in 0..c.in_elem {
            let (row, col) = position(ei, c.in_rows);
            let f = pixel(st.row - c.t_size + row - 1, st.col - c.t_size + col - 1);
            let t = &mut st.template[ei as usize];
            *t = beta.mul_add(f64::from(f), f64::from(alpha * *t)) as f32;
        }
    }
}

fn bytes_u64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// Rodinia heartwall as a registered sample.
pub struct Heartwall;

impl Sample for Heartwall {
    fn name(&self) -> &'static str {
        "rodinia/heartwall"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = params(size);
        format!(
            "{} frames of {} × {}, {} + {} points, template {}², search area {}²",
            p.frames,
            p.frame_rows,
            p.frame_cols,
            p.endo.len(),
            p.epi.len(),
            2 * p.t_size + 1,
            2 * p.s_size + 1
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = params(size);
        let c = Common::new(&p);
        let frames = video(&p);
        let (n_endo, n_epi) = (p.endo.len(), p.epi.len());
        let all = n_endo + n_epi;
        assert!(all <= ALL_POINTS);
        let nf = p.frames;

        let mut session = Session::new(dev);
        let module = session.load("rodinia/heartwall/heartwall.ptx")?;
        let kernel = module.kernel("kernel")?;

        let d_frame = dev.alloc::<f32>(p.frame_rows * p.frame_cols)?;
        let rows_of = |pts: &[(i32, i32)]| pts.iter().map(|x| x.0).collect::<Vec<_>>();
        let cols_of = |pts: &[(i32, i32)]| pts.iter().map(|x| x.1).collect::<Vec<_>>();
        let d_endo_row = dev.alloc_from(&rows_of(&p.endo))?;
        let d_endo_col = dev.alloc_from(&cols_of(&p.endo))?;
        let d_epi_row = dev.alloc_from(&rows_of(&p.epi))?;
        let d_epi_col = dev.alloc_from(&cols_of(&p.epi))?;
        let d_t_endo_row = dev.alloc::<i32>(n_endo * nf)?;
        let d_t_endo_col = dev.alloc::<i32>(n_endo * nf)?;
        let d_t_epi_row = dev.alloc::<i32>(n_epi * nf)?;
        let d_t_epi_col = dev.alloc::<i32>(n_epi * nf)?;
        for b in [&d_t_endo_row, &d_t_endo_col, &d_t_epi_row, &d_t_epi_col] {
            b.memset(0)?;
        }
        let in_elem = c.in_elem as usize;
        let d_endo_t = dev.alloc::<f32>(in_elem * n_endo)?;
        let d_epi_t = dev.alloc::<f32>(in_elem * n_epi)?;
        d_endo_t.memset(0)?;
        d_epi_t.memset(0)?;

        // per point work buffers, in params_unique's order after d_T
        let sizes = [
            c.in2_elem,
            c.conv_elem,
            c.pad_cumv_elem,
            c.pad_cumv_sel_elem,
            c.sub_cumh_elem,
            c.sub_cumh_sel_elem,
            c.sub2_elem,
            c.in2_sqr_elem,
            c.sub2_elem,
            c.in_sqr_elem,
            c.tmask_elem,
            c.mask_conv_elem,
        ];
        let mut work = Vec::new();
        let mut unique = Vec::with_capacity(ALL_POINTS * 144);
        for i in 0..all {
            let endo = i < n_endo;
            let point_no = if endo { i } else { i - n_endo };
            let ptrs = if endo {
                [&d_endo_row, &d_endo_col, &d_t_endo_row, &d_t_endo_col]
            } else {
                [&d_epi_row, &d_epi_col, &d_t_epi_row, &d_t_epi_col]
            };
            for b in ptrs {
                unique.extend(bytes_u64(b.device_ptr()));
            }
            let t = if endo { &d_endo_t } else { &d_epi_t };
            unique.extend(bytes_u64(t.device_ptr()));
            for n in sizes {
                let buf = dev.alloc::<f32>(n as usize)?;
                unique.extend(bytes_u64(buf.device_ptr()));
                work.push(buf);
            }
            unique.extend((point_no as i32).to_le_bytes());
            unique.extend(((point_no * in_elem) as i32).to_le_bytes());
        }
        unique.resize(ALL_POINTS * 144, 0);
        module.write_symbol("d_common", 0, &runtime::buffer::to_bytes(&c.words()))?;
        module.write_symbol("d_unique", 0, &unique)?;

        let no_args: [Arg; 0] = [];
        for (frame_no, frame) in frames.iter().enumerate() {
            d_frame.copy_from_host(frame)?;
            let mut change = bytes_u64(d_frame.device_ptr()).to_vec();
            change.extend((frame_no as i32).to_le_bytes());
            change.extend([0u8; 4]);
            module.write_symbol("d_common_change", 0, &change)?;
            session.launch(&kernel, all as u32, NUMBER_THREADS as u32, 0, &no_args)?;
        }
        let got_locs = [
            d_t_endo_row.to_host()?,
            d_t_endo_col.to_host()?,
            d_t_epi_row.to_host()?,
            d_t_epi_col.to_host()?,
        ]
        .concat();
        let got_t = [d_endo_t.to_host()?, d_epi_t.to_host()?].concat();

        // CPU reference
        let mut states: Vec<PointState> = p
            .endo
            .iter()
            .chain(&p.epi)
            .map(|&(row, col)| PointState {
                row,
                col,
                template: vec![0.0f32; in_elem],
                t_row_loc: vec![0; nf],
                t_col_loc: vec![0; nf],
            })
            .collect();
        for (frame_no, frame) in frames.iter().enumerate() {
            for st in &mut states {
                reference_block(&c, frame_no as i32, frame, st);
            }
        }
        let (endo_st, epi_st) = states.split_at(n_endo);
        let flat = |s: &[PointState], f: fn(&PointState) -> &Vec<i32>| {
            s.iter()
                .flat_map(|x| f(x).iter().copied())
                .collect::<Vec<_>>()
        };
        let exp_locs = [
            flat(endo_st, |s| &s.t_row_loc),
            flat(endo_st, |s| &s.t_col_loc),
            flat(epi_st, |s| &s.t_row_loc),
            flat(epi_st, |s| &s.t_col_loc),
        ]
        .concat();
        let exp_t: Vec<f32> = states
            .iter()
            .flat_map(|s| s.template.iter().copied())
            .collect();

        let a = Validation::exact(&got_locs, &exp_locs);
        let b = Validation::exact_f32(&got_t, &exp_t);
        let v = Validation {
            checked: a.checked + b.checked,
            mismatches: a.mismatches + b.mismatches,
            first_mismatch: a
                .first_mismatch
                .or(b.first_mismatch.map(|(i, g, e)| (i + exp_locs.len(), g, e))),
            max_abs_diff: a.max_abs_diff.max(b.max_abs_diff),
        };
        drop(work);
        Ok(session.finish(v))
    }
}
