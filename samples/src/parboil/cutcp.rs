//! Parboil cutcp: the cutoff-limited Coulombic potential of a box of water on a 3-D lattice
//! (Parboil's `cutoff6overlap` CUDA version). The host sorts the atoms into 4 Å bins of at
//! most 8 atoms and writes the list of bins within reach of a lattice region to constant
//! memory; `cuda_cutoff_potential_lattice6overlap` is launched once per z plane of 8 × 8 × 8
//! point regions, one 8 × 2 × 8 CTA per region, each thread summing four points.
//!
//! Inputs: Parboil reads a water box from a PQR file (`watbox.sl40.pqr`); here a box of water
//! molecules (TIP3P charges, O −0.834 e, H +0.417 e, O–H 0.9572 Å) on a jittered cubic grid is
//! generated from a seeded [`Rng`]. The lattice spacing (0.5 Å), padding (0.5 Å) and, for
//! `default` and `large`, the cutoff (12 Å) are Parboil's. Atoms that do not fit their bin
//! (more than 8) are, in Parboil, summed on the CPU while the GPU runs; that CPU pass is host
//! code and is left out, so they are simply not part of the GPU's sum (the reference bins the
//! atoms with the same host code and sees the same bins).
//!
//! Validation is bit-exact on the region array the kernel writes. The reference walks the
//! neighbour list in the kernel's order (the shared-memory cache holds list entries in order)
//! and repeats its arithmetic as NVRTC emitted it: `dx·dx + dz·dz` and `dy·dy + dxdz2` are
//! `fma.rn.f32`, `1 − r2/c²` is a `mul` and a `sub`, the term is `(aq·rsqrt(r2))·s` and the
//! accumulation `fma(s, term, e)`; `dy` steps by `h + h` between the four points.
//! `rsqrtf` is `rsqrt.approx.f32`, which the PTX manual bounds only (2^-22.9 relative) and
//! warpsim evaluates deterministically as 1/√x in f64 rounded once to f32
//! (`emulator/src/alu/approx.rs`); [`rsqrt_approx`] does the same, so the comparison can stay
//! exact (as for `rcp.approx` in `rodinia/leukocyte`).

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Lattice spacing, padding around the atoms' extent (Parboil's main).
const H: f32 = 0.5;
const PADDING: f32 = 0.5;
/// Atoms per bin, floats per bin, bin side in Å.
const BIN_DEPTH: usize = 8;
const BIN_FLOATS: usize = 4 * BIN_DEPTH;
const BIN_LENGTH: f32 = 4.0;
const BIN_INVLEN: f32 = 1.0 / BIN_LENGTH;
/// Lattice points per region side and per region.
const REGION_SIDE: usize = 8;
const REGION_SIZE: usize = 512;
/// Capacity of the constant-memory neighbour list (11³ offsets).
const NBRLIST_MAXLEN: usize = 11 * 11 * 11;

/// One problem: a box of water of `side` Å (x, y, z), molecules `spacing` Å apart, and the
/// cutoff radius.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub side: [f32; 3],
    pub spacing: f32,
    pub cutoff: f32,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        match size {
            // An 8 × 8 × 16 lattice (one region column, two launches), atoms packed densely
            // enough that bins fill up and overflow, cutoff 5 Å so that the 93-bin
            // neighbour list needs three rounds of the shared-memory cache.
            Size::Small => Problem {
                side: [2.5, 2.5, 6.5],
                spacing: 1.3,
                cutoff: 5.0,
            },
            // Parboil's watbox.sl40 (40 Å) is ~6 G thread instructions; a 28 Å box of the same
            // density with Parboil's h, cutoff and padding.
            Size::Default => Problem {
                side: [28.0; 3],
                spacing: WATER_SPACING,
                cutoff: 12.0,
            },
            // The size of Parboil's watbox.sl40.
            Size::Large => Problem {
                side: [40.0; 3],
                spacing: WATER_SPACING,
                cutoff: 12.0,
            },
        }
    }
}

/// Distance between water molecules at 1 g/cm³ (0.0334 molecules per Å³).
const WATER_SPACING: f32 = 3.104;

/// One atom: position and charge.
#[derive(Clone, Copy, Debug)]
pub struct Atom {
    pub pos: [f32; 3],
    pub q: f32,
}

/// Water molecules on a jittered cubic grid inside `side` (offset from the origin, as a PQR
/// file's coordinates would be): an oxygen and two hydrogens 0.9572 Å away in seeded
/// directions. Every atom lies inside the box.
pub fn water_box(p: &Problem) -> Vec<Atom> {
    const OH: f32 = 0.9572;
    const ORIGIN: [f32; 3] = [12.25, -3.5, 7.75];
    let mut rng = Rng::new(0xC07C_0001);
    let cells = |d: usize| ((p.side[d] / p.spacing).floor() as usize).max(1);
    let (cx, cy, cz) = (cells(0), cells(1), cells(2));
    let mut atoms = Vec::with_capacity(3 * cx * cy * cz);
    for k in 0..cz {
        for j in 0..cy {
            for i in 0..cx {
                let jitter = 0.25 * p.spacing;
                let o = [i, j, k].map(|c| (c as f32 + 0.5) * p.spacing);
                let mut o = [0, 1, 2].map(|d| o[d] + rng.f32_in(-jitter, jitter));
                for (d, od) in o.iter_mut().enumerate() {
                    *od = od.clamp(OH, p.side[d] - OH);
                }
                atoms.push(Atom {
                    pos: [0, 1, 2].map(|d| ORIGIN[d] + o[d]),
                    q: -0.834,
                });
                for _ in 0..2 {
                    let v = [0; 3].map(|_| rng.f32_in(-1.0, 1.0));
                    let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
                    atoms.push(Atom {
                        pos: [0, 1, 2].map(|d| ORIGIN[d] + o[d] + OH * v[d] / norm),
                        q: 0.417,
                    });
                }
            }
        }
    }
    atoms
}

/// The lattice and bin geometry the host derives from the atoms (Parboil's main and
/// `gpu_compute_cutoff_potential_lattice6overlap`), in Parboil's float arithmetic.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// Lower corner of the padded domain.
    pub lo: [f32; 3],
    /// Lattice points requested per dimension.
    pub n: [usize; 3],
    /// Regions per dimension (the lattice padded to multiples of 8).
    pub regions: [usize; 3],
    /// Bins of padding around the lattice (`c`), and bins per dimension including it.
    pub pad_bins: i32,
    pub bin_dim: [i32; 3],
    /// The neighbour list: bin offsets around a region's centre bin.
    pub nbrlist: Vec<[i32; 3]>,
}

impl Geometry {
    pub fn new(atoms: &[Atom], cutoff: f32) -> Geometry {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for a in atoms {
            for d in 0..3 {
                lo[d] = lo[d].min(a.pos[d]);
                hi[d] = hi[d].max(a.pos[d]);
            }
        }
        let lo = lo.map(|v| v - PADDING);
        let hi = hi.map(|v| v + PADDING);
        let n = [0, 1, 2].map(|d| ((hi[d] - lo[d]) / H).floor() as usize + 1);
        let regions = n.map(|v| v.div_ceil(REGION_SIDE));
        let pad_bins = (cutoff * BIN_INVLEN).ceil() as i32;
        let bin_dim = regions
            .map(|r| ((REGION_SIDE * r) as f32 * H * BIN_INVLEN).ceil() as i32 + 2 * pad_bins);
        // Parboil's first case (8h = BIN_LENGTH): bins whose centre may lie within
        // cutoff + √3·BIN_LENGTH of the region's centre bin.
        assert_eq!(8.0 * H, BIN_LENGTH, "the neighbour list assumes h = 0.5");
        assert!(
            2 * pad_bins < 11,
            "cutoff too large for the 11³ neighbour list"
        );
        let reach = cutoff + 3f32.sqrt() * BIN_LENGTH;
        let r2 = reach * reach;
        let c = pad_bins;
        let mut nbrlist = Vec::new();
        for k in -c..=c {
            for j in -c..=c {
                for i in -c..=c {
                    if (i * i + j * j + k * k) as f32 * BIN_LENGTH * BIN_LENGTH < r2 {
                        nbrlist.push([i, j, k]);
                    }
                }
            }
        }
        Geometry {
            lo,
            n,
            regions,
            pad_bins,
            bin_dim,
            nbrlist,
        }
    }

    /// Lattice points in the padded lattice (the region array's length).
    pub fn padded_points(&self) -> usize {
        self.regions.iter().product::<usize>() * REGION_SIZE
    }

    /// Index of bin (i, j, k), counted from the lattice origin's bin, in the bin array.
    fn bin_index(&self, i: i32, j: i32, k: i32) -> usize {
        let c = self.pad_bins;
        let [bx, by, _] = self.bin_dim;
        (((k + c) * by + (j + c)) * bx + (i + c)) as usize
    }

    /// Offset, in bins, of the lattice origin's bin (`binZeroAddr − binBaseAddr`).
    fn zero_bin(&self) -> usize {
        self.bin_index(0, 0, 0)
    }
}

/// Geometric hashing of the atoms into bins (Parboil's host code): bins of 8 float4 slots
/// (x, y, z relative to `lo`, q; empty slots all zero). Returns the bins and the number of
/// atoms that did not fit (Parboil's "extra" atoms, left to its CPU pass).
pub fn bin_atoms(atoms: &[Atom], g: &Geometry) -> (Vec<f32>, usize) {
    let nbins: usize = g.bin_dim.iter().map(|&d| d as usize).product();
    let mut bins = vec![0.0f32; nbins * BIN_FLOATS];
    let mut counts = vec![0usize; nbins];
    let mut extra = 0;
    let c = g.pad_bins;
    for a in atoms {
        let p = [0, 1, 2].map(|d| a.pos[d] - g.lo[d]);
        let b = p.map(|v| (v * BIN_INVLEN).floor() as i32);
        let inside = (0..3).all(|d| b[d] >= -c && b[d] < g.bin_dim[d] - c);
        if !inside || a.q == 0.0 {
            continue; // excluded, as in Parboil
        }
        let index = g.bin_index(b[0], b[1], b[2]);
        if counts[index] < BIN_DEPTH {
            let slot = index * BIN_FLOATS + 4 * counts[index];
            bins[slot..slot + 4].copy_from_slice(&[p[0], p[1], p[2], a.q]);
            counts[index] += 1;
        } else {
            extra += 1;
        }
    }
    (bins, extra)
}

/// `rsqrt.approx.f32` as warpsim evaluates it: 1/√x in f64, rounded once.
fn rsqrt_approx(x: f32) -> f32 {
    (1.0 / f64::from(x).sqrt()) as f32
}

/// The CPU reference: the region array the kernel writes, point by point in the kernel's
/// arithmetic and summation order.
pub fn reference(bins: &[f32], g: &Geometry, cutoff: f32) -> Vec<f32> {
    let cutoff2 = cutoff * cutoff;
    let inv_cutoff2 = 1.0 / cutoff2;
    let two_h = H + H;
    let [rx, ry, rz] = g.regions;
    let mut out = vec![0.0f32; g.padded_points()];
    for zr in 0..rz {
        for yr in 0..ry {
            for xr in 0..rx {
                let centre = [xr, yr, zr]
                    .map(|r| (((8 * r + 4) as i32) as f32 * H * BIN_INVLEN).floor() as i32);
                // The neighbour bins' atoms, in list order, up to each bin's first empty slot.
                let mut near: Vec<[f32; 4]> = Vec::new();
                for off in &g.nbrlist {
                    let b = g.bin_index(centre[0] + off[0], centre[1] + off[1], centre[2] + off[2]);
                    for slot in 0..BIN_DEPTH {
                        let at = b * BIN_FLOATS + 4 * slot;
                        if bins[at + 3] == 0.0 {
                            break;
                        }
                        near.push([bins[at], bins[at + 1], bins[at + 2], bins[at + 3]]);
                    }
                }
                let region = ((zr * ry + yr) * rx + xr) * REGION_SIZE;
                for tz in 0..8 {
                    for ty in 0..2 {
                        for tx in 0..8 {
                            let x = ((8 * xr + tx) as f32) * H;
                            let y = ((8 * yr + ty) as f32) * H;
                            let z = ((8 * zr + tz) as f32) * H;
                            let mut energy = [0.0f32; 4];
                            for a in &near {
                                let dx = a[0] - x;
                                let dz = a[2] - z;
                                let dxdz2 = dx.mul_add(dx, dz * dz);
                                let mut dy = a[1] - y;
                                for (m, e) in energy.iter_mut().enumerate() {
                                    if m > 0 {
                                        dy -= two_h;
                                    }
                                    let r2 = dy.mul_add(dy, dxdz2);
                                    if r2 < cutoff2 {
                                        let s = 1.0 - r2 * inv_cutoff2;
                                        let term = s * (a[3] * rsqrt_approx(r2));
                                        *e = s.mul_add(term, *e);
                                    }
                                }
                            }
                            for (m, e) in energy.iter().enumerate() {
                                out[region + (tz * 8 + ty + 2 * m) * 8 + tx] = *e;
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Parboil cutcp as a registered sample.
pub struct Cutcp;

impl Sample for Cutcp {
    fn name(&self) -> &'static str {
        "parboil/cutcp"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["cuda_cutoff_potential_lattice6overlap"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        let atoms = water_box(&p);
        let g = Geometry::new(&atoms, p.cutoff);
        format!(
            "{} atoms in a {} × {} × {} Å box, {} × {} × {} lattice (h 0.5 Å), cutoff {} Å, \
             {} neighbour bins, {} launches",
            atoms.len(),
            p.side[0],
            p.side[1],
            p.side[2],
            g.n[0],
            g.n[1],
            g.n[2],
            p.cutoff,
            g.nbrlist.len(),
            g.regions[2]
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let atoms = water_box(&p);
        let g = Geometry::new(&atoms, p.cutoff);
        let (bins, _extra) = bin_atoms(&atoms, &g);

        let mut session = Session::new(dev);
        let module = session.load("parboil/cutcp/cutcp.ptx")?;
        let kernel = module.kernel("cuda_cutoff_potential_lattice6overlap")?;

        let mut list = vec![0i32; 3 * NBRLIST_MAXLEN];
        for (n, off) in g.nbrlist.iter().enumerate() {
            list[3 * n..3 * n + 3].copy_from_slice(off);
        }
        module.write_symbol("NbrListLen", 0, &(g.nbrlist.len() as i32).to_le_bytes())?;
        module.write_symbol("NbrList", 0, &runtime::buffer::to_bytes(&list))?;

        let d_bins = dev.alloc_from(&bins)?;
        let d_regions = dev.alloc::<f32>(g.padded_points())?;
        d_regions.memset(0)?;
        let bin_zero = d_bins.device_ptr() + (g.zero_bin() * BIN_FLOATS * 4) as u64;

        let cutoff2 = p.cutoff * p.cutoff;
        let [rx, ry, rz] = g.regions;
        for zr in 0..rz {
            session.launch(
                &kernel,
                (rx as u32, ry as u32),
                (8u32, 2u32, 8u32),
                0,
                &[
                    Arg::I32(g.bin_dim[0]),
                    Arg::I32(g.bin_dim[1]),
                    Arg::Ptr(bin_zero),
                    Arg::F32(H),
                    Arg::F32(cutoff2),
                    Arg::F32(1.0 / cutoff2),
                    (&d_regions).into(),
                    Arg::I32(zr as i32),
                ],
            )?;
        }

        let got = d_regions.to_host()?;
        let expected = reference(&bins, &g, p.cutoff);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The small size exercises what it is meant to: full bins, overflowing atoms, and a
    /// neighbour list longer than one round of the 32-bin cache.
    #[test]
    fn small_covers_the_kernel_paths() {
        let p = Problem::of(Size::Small);
        let atoms = water_box(&p);
        let g = Geometry::new(&atoms, p.cutoff);
        let (bins, extra) = bin_atoms(&atoms, &g);
        assert!(extra > 0);
        assert!(bins.chunks(BIN_FLOATS).any(|b| b[BIN_FLOATS - 1] != 0.0));
        assert!(g.nbrlist.len() > 64);
        assert_eq!(g.regions, [1, 1, 2]);
    }
}
