//! The warp-wide matrix instructions: `wmma.load`, `wmma.store` and `wmma.mma` over fragments
//! laid out as [`isa::matrix`] says (they read the address and stride of the lowest lane, as
//! all lanes must pass the same ones), `mma.sync` over the manual's layouts (Volta's m8n8k4
//! `.f16`: four products, one per quad pair), and `ldmatrix` and `stmatrix`. Every thread of
//! the warp must execute them (`.sync.aligned`).

use super::{CtaEnv, Target, at, first_lane, lanes, offset, write};
use crate::alu::matrix::{self, MmaTypes};
use crate::error::FaultKind;
use crate::warp::{WARP_SIZE, Warp};
use isa::{Fragment, Inst, Layout, MatrixUse, Operand, Rounding, StateSpace, Type};

/// Faults unless every thread of the warp executes the instruction.
fn whole_warp(inst: &Inst, exec: u32) -> Result<(), (FaultKind, u32)> {
    if exec == u32::MAX {
        return Ok(());
    }
    let detail = format!(
        "`{}` executed by {} of the warp's 32 threads (`.sync.aligned` needs all of them)",
        inst.op,
        exec.count_ones()
    );
    Err((
        FaultKind::InvalidOperand { detail },
        first_lane(exec) as u32,
    ))
}

/// The registers of a fragment operand.
fn registers(op: &Operand) -> &[Operand] {
    match op {
        Operand::Vector(v) => v,
        other => std::slice::from_ref(other),
    }
}

/// Bits of one element of the fragment's type.
fn element_bits(frag: Fragment) -> u32 {
    frag.element_bytes() * 8
}

/// The register type a fragment's elements travel in.
fn register_type(frag: Fragment) -> Type {
    match frag.ty {
        Type::F32 | Type::S32 | Type::F64 => frag.ty,
        _ => Type::B32,
    }
}

/// How a fragment's slots map to matrix elements: `wmma`'s (warpsim's own) or `mma.sync`'s
/// (the manual's, for the fragment's `.row`/`.col`).
#[derive(Clone, Copy, PartialEq)]
enum Placement {
    Wmma,
    Mma(Layout),
}

impl Placement {
    /// The matrices a fragment holds: one, or one per product of a quad-pair `mma.sync`.
    fn matrices(self, frag: Fragment) -> u32 {
        match self {
            Placement::Wmma => 1,
            Placement::Mma(_) => frag.mma_computations(),
        }
    }
}

/// The matrix element (row-major, the matrices one after the other) in slot `slot` of thread
/// `lane`, for a fragment of `regs` registers.
fn element(frag: Fragment, placement: Placement, regs: usize, lane: u32, slot: u32) -> u32 {
    match placement {
        Placement::Wmma => frag.element_of(lane, slot, frag.slots(regs as u32)),
        Placement::Mma(layout) => frag.mma_element(layout, lane, slot),
    }
}

/// The whole matrix (matrices) held in the fragment `op`, row-major, from every lane's
/// registers (where the matrix repeats across the warp, the lowest lane holding an element
/// gives it).
fn gather(env: &CtaEnv, w: &Warp, frag: Fragment, placement: Placement, op: &Operand) -> Vec<u64> {
    let regs = registers(op);
    let (per, bits) = (frag.per_register(), element_bits(frag));
    let mut out = vec![None; (frag.elements() * placement.matrices(frag)) as usize];
    for lane in 0..WARP_SIZE {
        for (r, reg) in regs.iter().enumerate() {
            let v = env.read(w, reg, lane);
            for p in 0..per {
                let slot = r as u32 * per + p;
                let e = element(frag, placement, regs.len(), lane as u32, slot) as usize;
                let x = (v >> (p * bits)) & (u64::MAX >> (64 - bits));
                out[e].get_or_insert(x);
            }
        }
    }
    out.into_iter().map(|x| x.unwrap_or(0)).collect()
}

/// Writes the matrix `m` (row-major; matrices one after the other) into the fragment `op` of
/// every lane.
fn scatter(
    env: &CtaEnv,
    w: &mut Warp,
    frag: Fragment,
    placement: Placement,
    op: &Operand,
    m: &[u64],
) {
    let code = &env.program.code[w.frame().func.index()];
    let regs = registers(op);
    let (per, bits) = (frag.per_register(), element_bits(frag));
    let ty = register_type(frag);
    let frame = w.frame_mut();
    for lane in 0..WARP_SIZE {
        for (r, reg) in regs.iter().enumerate() {
            let v = (0..per).fold(0u64, |v, p| {
                let e = element(frag, placement, regs.len(), lane as u32, r as u32 * per + p);
                v | m[e as usize] << (p * bits)
            });
            write(frame, code, reg, lane, v, ty);
        }
    }
}

/// The stride, in elements, of a `wmma.load` (operand after the address) or `wmma.store`
/// (after the fragment) as `lane` gives it, or the layout's default.
fn stride(env: &CtaEnv, w: &Warp, inst: &Inst, frag: Fragment, layout: Layout, lane: usize) -> u64 {
    let at = if matches!(inst.op, isa::Op::WmmaLoad { .. }) {
        1
    } else {
        2
    };
    inst.srcs
        .get(at)
        .map_or(u64::from(frag.default_stride(layout)), |s| {
            env.read(w, s, lane) & 0xffff_ffff
        })
}

/// Each element's byte offset from the matrix's start, row-major order.
fn element_offsets(frag: Fragment, layout: Layout, stride: u64) -> Vec<u32> {
    let (rows, cols) = frag.dims();
    let bytes = u64::from(frag.element_bytes());
    (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| (Fragment::offset(layout, stride, r, c) * bytes) as u32)
        .collect()
}

/// Where each lane of `exec` accesses memory as the timing model sees a `wmma.load` or
/// `wmma.store`: one segment of the matrix ([`Fragment::lane_segment`]).
pub(super) fn lane_targets(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    (frag, layout, space): (Fragment, Layout, StateSpace),
    exec: u32,
    out: &mut [Target; WARP_SIZE],
) {
    let Some(Operand::Address(addr)) = inst.srcs.first() else {
        return;
    };
    let lane = first_lane(exec);
    let base = env.target(w, space, addr, lane).ok();
    let stride = stride(env, w, inst, frag, layout, lane);
    for (l, t) in out.iter_mut().enumerate() {
        *t = match base {
            Some(base) if exec & (1 << l) != 0 => {
                let (_, at) = frag.lane_segment(layout, stride, l as u32);
                offset(base, (at * u64::from(frag.element_bytes())) as u32)
            }
            _ => Target::None,
        };
    }
}

/// Where a `wmma.load` or `wmma.store` finds its matrix: the lane whose address and stride
/// it uses, the matrix's start, and each element's byte offset from it (row-major order).
fn matrix_in_memory(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    exec: u32,
    (frag, layout, space): (Fragment, Layout, StateSpace),
) -> Result<(usize, Target, Vec<u32>), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    let Operand::Address(addr) = &inst.srcs[0] else {
        unreachable!("verified wmma access shape")
    };
    let lane = first_lane(exec);
    let base = env.target(w, space, addr, lane).map_err(at(lane))?;
    let warp_stride = stride(env, w, inst, frag, layout, lane);
    // The manual requires one address and one stride for the whole warp; the matrix is read
    // from the first lane's, so a lane that differs would be silently ignored.
    for l in lanes(exec) {
        let (other, other_stride) = (
            env.target(w, space, addr, l).map_err(at(l))?,
            stride(env, w, inst, frag, layout, l),
        );
        if (other, other_stride) != (base, warp_stride) {
            let detail = format!(
                "`{}`: lane {l} gives the matrix at {other:x?} with stride {other_stride}, lane \
                 {lane} at {base:x?} with stride {warp_stride} (the warp must give one address and \
                 one stride)",
                inst.op
            );
            return Err((FaultKind::InvalidOperand { detail }, l as u32));
        }
    }
    Ok((lane, base, element_offsets(frag, layout, warp_stride)))
}

pub(super) fn load(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    access: (Fragment, Layout, StateSpace),
) -> Result<(), (FaultKind, u32)> {
    let frag = access.0;
    let (lane, base, offsets) = matrix_in_memory(env, w, inst, exec, access)?;
    let size = frag.element_bytes();
    let m = offsets
        .iter()
        .map(|&o| env.load(w, offset(base, o), lane, size))
        .collect::<Result<Vec<u64>, FaultKind>>()
        .map_err(at(lane))?;
    scatter(env, w, frag, Placement::Wmma, &inst.dsts[0], &m);
    Ok(())
}

pub(super) fn store(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    access: (Fragment, Layout, StateSpace),
) -> Result<(), (FaultKind, u32)> {
    let frag = access.0;
    let (lane, base, offsets) = matrix_in_memory(env, w, inst, exec, access)?;
    let m = gather(env, w, frag, Placement::Wmma, &inst.srcs[1]);
    let size = frag.element_bytes();
    for (&o, &v) in offsets.iter().zip(&m) {
        env.store(w, offset(base, o), lane, size, v)
            .map_err(at(lane))?;
    }
    Ok(())
}

/// `wmma.mma` and `mma.sync`: `D = A · B + C` over the warp's fragments (each quad pair's
/// product on its own in Volta's m8n8k4 `.f16` form).
pub(super) fn mma(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
) -> Result<(), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    // The placements of A, B and C/D.
    let (placements, shape, types, satfinite, rnd) = match inst.op {
        isa::Op::WmmaMma {
            shape,
            d,
            a,
            b,
            c,
            satfinite,
            rnd,
            ..
        } => (
            [Placement::Wmma; 3],
            shape,
            MmaTypes { d, a, b, c },
            satfinite,
            rnd,
        ),
        isa::Op::Mma {
            shape,
            a_layout,
            b_layout,
            d,
            a,
            b,
            c,
            satfinite,
        } => (
            // C's and D's layouts are the manual's whatever the multiplicands' are.
            [a_layout, b_layout, Layout::Row].map(Placement::Mma),
            shape,
            MmaTypes { d, a, b, c },
            satfinite,
            None,
        ),
        _ => unreachable!("a matrix multiply-add"),
    };
    let frag = |matrix, ty| Fragment { matrix, shape, ty };
    let [fa, fb, fc] = [
        frag(MatrixUse::A, types.a),
        frag(MatrixUse::B, types.b),
        frag(MatrixUse::C, types.c),
    ];
    let ma = gather(env, w, fa, placements[0], &inst.srcs[0]);
    let mb = gather(env, w, fb, placements[1], &inst.srcs[1]);
    let mc = gather(env, w, fc, placements[2], &inst.srcs[2]);
    // One product per pair of matrices (four in the quad-pair form, else one).
    let products = placements[0].matrices(fa) as usize;
    let [ea, eb, ec] = [fa, fb, fc].map(|f| f.elements() as usize);
    let md: Vec<u64> = (0..products)
        .flat_map(|p| {
            matrix::mma(
                shape,
                types,
                satfinite,
                rnd.unwrap_or(Rounding::Rn),
                &ma[p * ea..][..ea],
                &mb[p * eb..][..eb],
                &mc[p * ec..][..ec],
            )
        })
        .collect();
    scatter(
        env,
        w,
        frag(MatrixUse::C, types.d),
        placements[2],
        &inst.dsts[0],
        &md,
    );
    Ok(())
}

/// `ldmatrix` (`load`) and `stmatrix`: `count` 8×8 matrices of 16-bit elements, row `r` of
/// matrix `j` at the address lane `8j + r` gives; lane `l`'s register `j` holds row `l / 4`,
/// elements `2(l % 4)` and the next (low half first), of matrix `j`, or of its transpose.
/// `movmatrix`: lane `l`'s half `h` of `d` is element (r, c) of the transposed matrix, where
/// (r, c) = (l / 4, 2(l % 4) + h): element (c, r) of `a`'s matrix, which lane 4c + r / 2 holds
/// in half r % 2.
pub(super) fn movmatrix(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
) -> Result<(), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    let a: [u64; WARP_SIZE] = std::array::from_fn(|l| env.read(w, &inst.srcs[0], l));
    let code = &env.program.code[w.frame().func.index()];
    let frame = w.frame_mut();
    for lane in 0..WARP_SIZE {
        let mut d = 0;
        for half in 0..2 {
            let (r, c) = (lane / 4, 2 * (lane % 4) + half);
            let x = a[4 * c + r / 2] >> (16 * (r % 2)) & 0xffff;
            d |= x << (16 * half);
        }
        write(frame, code, &inst.dsts[0], lane, d, Type::B32);
    }
    Ok(())
}

pub(super) fn ldst_matrix(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    load: bool,
) -> Result<(), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    let (isa::Op::Ldmatrix {
        count,
        trans,
        space,
    }
    | isa::Op::Stmatrix {
        count,
        trans,
        space,
    }) = inst.op
    else {
        unreachable!("ldmatrix or stmatrix")
    };
    let Operand::Address(addr) = &inst.srcs[0] else {
        unreachable!("verified matrix access shape")
    };
    let regs = if load { &inst.dsts[0] } else { &inst.srcs[1] };
    let regs = registers(regs);
    // Where lane l's register j takes its two elements from: (matrix j, row, column) of the
    // element in the low half, the high one being the next column (transposed: next row).
    let source = |lane: usize, half: usize| {
        let (r, c) = (lane / 4, 2 * (lane % 4) + half);
        if trans { (c, r) } else { (r, c) }
    };
    // Row addresses: row r of matrix j at lane 8j + r's address.
    let mut rows = [Target::None; 32];
    for j in 0..usize::from(count) {
        for r in 0..8 {
            let lane = 8 * j + r;
            rows[lane] = env.target(w, space, addr, lane).map_err(at(lane))?;
        }
    }
    if load {
        let mut values = [[0u64; 4]; WARP_SIZE];
        for (lane, v) in values.iter_mut().enumerate() {
            for (j, slot) in v.iter_mut().enumerate().take(usize::from(count)) {
                for half in 0..2 {
                    let (r, c) = source(lane, half);
                    let at_row = rows[8 * j + r];
                    let x = env
                        .load(w, offset(at_row, 2 * c as u32), 8 * j + r, 2)
                        .map_err(at(8 * j + r))?;
                    *slot |= x << (16 * half);
                }
            }
        }
        let code = &env.program.code[w.frame().func.index()];
        let frame = w.frame_mut();
        for (lane, v) in values.iter().enumerate() {
            for (reg, &x) in regs.iter().zip(v) {
                write(frame, code, reg, lane, x, Type::B32);
            }
        }
    } else {
        for lane in 0..WARP_SIZE {
            for (j, reg) in regs.iter().enumerate() {
                let x = env.read(w, reg, lane);
                for half in 0..2 {
                    let (r, c) = source(lane, half);
                    let at_row = rows[8 * j + r];
                    env.store(
                        w,
                        offset(at_row, 2 * c as u32),
                        8 * j + r,
                        2,
                        x >> (16 * half) & 0xffff,
                    )
                    .map_err(at(8 * j + r))?;
                }
            }
        }
    }
    Ok(())
}
