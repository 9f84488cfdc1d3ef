//! Parboil sad: sums of absolute differences for H.264 motion estimation, for every 16 × 16
//! macroblock of a frame, all 41 block partitions (16 4×4, 8 4×8, 8 8×4, 4 8×8, 2 8×16,
//! 2 16×8, one 16×16) and all 33 × 33 search positions within ±16 pixels. Three launches as in
//! Parboil: `mb_sad_calc` (the 4×4 SADs, one 61-thread CTA per 4×4 block, 18 positions per
//! thread), then `larger_sad_calc_8` and `larger_sad_calc_16` (the larger partitions summed
//! from the smaller ones, two 16-bit SADs per 32-bit add).
//!
//! Inputs: Parboil reads a reference and a current frame of 16-bit pixels. Here the reference
//! is a seeded synthetic image (smooth gradients and stripes plus noise, 8-bit values), and the
//! current frame is it moved by a per-region motion vector plus noise, so that the SAD
//! surfaces have minima away from the centre. Reference pixels outside the frame are the
//! nearest edge pixel (Parboil's clamping texture; the port reads global memory and clamps).
//!
//! Validation is exact on every SAD of every partition and search position. The reference
//! computes each 4×4 SAD from the pixels and each larger partition as the sum of its 4×4
//! SADs. The 7 padding entries of each 1096-entry vector are not compared: `mb_sad_calc`
//! copies them out of shared memory it never wrote, as Parboil's kernel does.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Search positions per vector and the vector's padded length.
const SEARCH_RANGE: i64 = 16;
const SEARCH_DIMENSION: usize = 33;
const MAX_POS: usize = SEARCH_DIMENSION * SEARCH_DIMENSION;
const MAX_POS_PADDED: usize = 1096;
/// Threads of `mb_sad_calc`: ceil(1089 / 18).
const SAD_THREADS: u32 = 61;
/// Partitions per macroblock, and each type's (width, height in 4×4 blocks, vectors per
/// macroblock, first vector in units of the macroblock count), in Parboil's order.
const PARTITIONS: usize = 41;
const TYPES: [(usize, usize, usize, usize); 7] = [
    (4, 4, 1, 0),   // 16×16
    (4, 2, 2, 1),   // 16×8: top, bottom
    (2, 4, 2, 3),   // 8×16: left, right
    (2, 2, 4, 5),   // 8×8
    (2, 1, 8, 9),   // 8×4 (8 wide, 4 tall)
    (1, 2, 8, 17),  // 4×8 (4 wide, 8 tall)
    (1, 1, 16, 25), // 4×4
];

/// One problem: the frame size in macroblocks.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub mb_width: usize,
    pub mb_height: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (mb_width, mb_height) = match size {
            // One macroblock (16 CTAs of mb_sad_calc, ~100 k warp instructions: each 4×4
            // block costs 1089 positions whatever the frame): every search area reaches past
            // the frame's edges.
            Size::Small => (1, 1),
            // A CIF frame (352 × 288).
            Size::Default => (22, 18),
            // A 720 × 576 (PAL) frame.
            Size::Large => (45, 36),
        };
        Problem {
            mb_width,
            mb_height,
        }
    }

    fn width(&self) -> usize {
        16 * self.mb_width
    }

    fn height(&self) -> usize {
        16 * self.mb_height
    }

    fn macroblocks(&self) -> usize {
        self.mb_width * self.mb_height
    }
}

/// The reference and current frames (row-major, 8-bit values in 16-bit pixels).
pub fn frames(p: &Problem) -> (Vec<u16>, Vec<u16>) {
    let (w, h) = (p.width(), p.height());
    let mut rng = Rng::new(0x5AD0_0001);
    let mut noise = move |amp: u64| (rng.next_u64() % (2 * amp + 1)) as i64 - amp as i64;
    let mut reference = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            let (xf, yf) = (x as f64, y as f64);
            let v = 128.0
                + 50.0 * (xf / 7.0).sin() * (yf / 5.0).cos()
                + 40.0 * ((xf + 2.0 * yf) / 23.0).sin();
            reference.push((v as i64 + noise(6)).clamp(0, 255) as u16);
        }
    }
    // Motion: each 32 × 32 region moves by its own vector (within the search range).
    let vectors: Vec<(i64, i64)> = (0..w.div_ceil(32) * h.div_ceil(32))
        .map(|_| (noise(9), noise(9)))
        .collect();
    let mut current = Vec::with_capacity(w * h);
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let (dx, dy) = vectors[(y as usize / 32) * w.div_ceil(32) + x as usize / 32];
            let v = pixel(&reference, w, h, x + dx, y + dy) as i64 + noise(3);
            current.push(v.clamp(0, 255) as u16);
        }
    }
    (reference, current)
}

/// A pixel with coordinates clamped to the frame.
fn pixel(img: &[u16], w: usize, h: usize, x: i64, y: i64) -> u16 {
    let x = x.clamp(0, w as i64 - 1) as usize;
    let y = y.clamp(0, h as i64 - 1) as usize;
    img[y * w + x]
}

/// The CPU reference: the whole SAD array, laid out as the kernels write it (padding zero).
pub fn reference(p: &Problem, reference: &[u16], current: &[u16]) -> Vec<u16> {
    let (w, h) = (p.width(), p.height());
    let mbs = p.macroblocks();
    // 4×4 SADs: [macroblock][block_y][block_x][position].
    let mut sad4 = vec![0u32; mbs * 16 * MAX_POS];
    for mb in 0..mbs {
        let (mbx, mby) = (mb % p.mb_width, mb / p.mb_width);
        for blk in 0..16 {
            let x0 = (16 * mbx + 4 * (blk % 4)) as i64;
            let y0 = (16 * mby + 4 * (blk / 4)) as i64;
            for pos in 0..MAX_POS {
                let sx = (pos % SEARCH_DIMENSION) as i64 - SEARCH_RANGE;
                let sy = (pos / SEARCH_DIMENSION) as i64 - SEARCH_RANGE;
                let mut sad = 0u32;
                for y in 0..4 {
                    for x in 0..4 {
                        let cur = current[(y0 + y) as usize * w + (x0 + x) as usize];
                        let r = pixel(reference, w, h, x0 + x + sx, y0 + y + sy);
                        sad += u32::from(cur.abs_diff(r));
                    }
                }
                sad4[(mb * 16 + blk) * MAX_POS + pos] = sad;
            }
        }
    }
    let mut out = vec![0u16; PARTITIONS * MAX_POS_PADDED * mbs];
    for (bw, bh, count, first) in TYPES {
        let per_row = 4 / bw;
        for mb in 0..mbs {
            for part in 0..count {
                let (px, py) = (bw * (part % per_row), bh * (part / per_row));
                let vector = first * mbs + mb * count + part;
                for pos in 0..MAX_POS {
                    let mut sad = 0u32;
                    for by in py..py + bh {
                        for bx in px..px + bw {
                            sad += sad4[(mb * 16 + 4 * by + bx) * MAX_POS + pos];
                        }
                    }
                    out[vector * MAX_POS_PADDED + pos] = sad as u16;
                }
            }
        }
    }
    out
}

/// The SADs without each vector's padding entries.
fn unpadded(sads: &[u16]) -> Vec<u16> {
    sads.chunks(MAX_POS_PADDED)
        .flat_map(|v| v[..MAX_POS].iter().copied())
        .collect()
}

/// Parboil sad as a registered sample.
pub struct Sad;

impl Sample for Sad {
    fn name(&self) -> &'static str {
        "parboil/sad"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mb_sad_calc", "larger_sad_calc_8", "larger_sad_calc_16"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} × {} frame ({} macroblock{}), ±16 pixel search",
            p.width(),
            p.height(),
            p.macroblocks(),
            if p.macroblocks() == 1 { "" } else { "s" }
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let (ref_frame, cur_frame) = frames(&p);

        let mut session = Session::new(dev);
        let module = session.load("parboil/sad/sad.ptx")?;
        let mb_sad_calc = module.kernel("mb_sad_calc")?;
        let larger_8 = module.kernel("larger_sad_calc_8")?;
        let larger_16 = module.kernel("larger_sad_calc_16")?;

        let d_ref = dev.alloc_from(&ref_frame)?;
        let d_cur = dev.alloc_from(&cur_frame)?;
        let d_sads = dev.alloc::<u16>(PARTITIONS * MAX_POS_PADDED * p.macroblocks())?;
        d_sads.memset(0)?;
        let (mbw, mbh) = (p.mb_width as i32, p.mb_height as i32);
        let macroblock_grid = (p.mb_width as u32, p.mb_height as u32);

        session.launch(
            &mb_sad_calc,
            ((p.width() / 4) as u32, (p.height() / 4) as u32),
            SAD_THREADS,
            (MAX_POS_PADDED * 2) as u64,
            &[
                (&d_sads).into(),
                (&d_cur).into(),
                (&d_ref).into(),
                Arg::I32(mbw),
                Arg::I32(mbh),
            ],
        )?;
        let args = [(&d_sads).into(), Arg::I32(mbw), Arg::I32(mbh)];
        session.launch(&larger_8, macroblock_grid, (32u32, 4u32), 0, &args)?;
        session.launch(&larger_16, macroblock_grid, 32u32, 0, &args)?;

        let got = unpadded(&d_sads.to_host()?);
        let expected = unpadded(&reference(&p, &ref_frame, &cur_frame));
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
