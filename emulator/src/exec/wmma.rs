//! `wmma.load`, `wmma.store` and `wmma.mma`: warp-wide, over fragments laid out as
//! [`isa::matrix`] says. Every thread of the warp must execute them (`.sync.aligned`); they
//! read the address and stride of the lowest lane, as all lanes must pass the same ones.

use super::{CtaEnv, Target, at, first_lane, offset, write};
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

/// The whole matrix held in the fragment `op`, row-major, from every lane's registers (where
/// the matrix repeats across the warp, the lowest lane holding an element gives it).
fn gather(env: &CtaEnv, w: &Warp, frag: Fragment, op: &Operand) -> Vec<u64> {
    let regs = registers(op);
    let (per, bits) = (frag.per_register(), element_bits(frag));
    let slots = frag.slots(regs.len() as u32);
    let mut out = vec![None; frag.elements() as usize];
    for lane in 0..WARP_SIZE {
        for (r, reg) in regs.iter().enumerate() {
            let v = env.read(w, reg, lane);
            for p in 0..per {
                let slot = r as u32 * per + p;
                let e = frag.element_of(lane as u32, slot, slots) as usize;
                let x = (v >> (p * bits)) & (u64::MAX >> (64 - bits));
                out[e].get_or_insert(x);
            }
        }
    }
    out.into_iter().map(|x| x.unwrap_or(0)).collect()
}

/// Writes the matrix `m` (row-major) into the fragment `op` of every lane.
fn scatter(env: &CtaEnv, w: &mut Warp, frag: Fragment, op: &Operand, m: &[u64]) {
    let code = &env.program.code[w.frame().func.index()];
    let regs = registers(op);
    let (per, bits) = (frag.per_register(), element_bits(frag));
    let slots = frag.slots(regs.len() as u32);
    let ty = register_type(frag);
    let frame = w.frame_mut();
    for lane in 0..WARP_SIZE {
        for (r, reg) in regs.iter().enumerate() {
            let v = (0..per).fold(0u64, |v, p| {
                let e = frag.element_of(lane as u32, r as u32 * per + p, slots);
                v | m[e as usize] << (p * bits)
            });
            write(frame, code, reg, lane, v, ty);
        }
    }
}

/// Each element's byte offset from the matrix's start, row-major order, and the lane whose
/// address and stride the instruction uses.
fn element_offsets(
    env: &CtaEnv,
    w: &Warp,
    frag: Fragment,
    layout: Layout,
    stride: Option<&Operand>,
    lane: usize,
) -> Vec<u32> {
    let stride = stride.map_or(u64::from(frag.default_stride(layout)), |s| {
        env.read(w, s, lane) & 0xffff_ffff
    });
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
    let stride_at = if matches!(inst.op, isa::Op::WmmaLoad { .. }) {
        1
    } else {
        2
    };
    let lane = first_lane(exec);
    let base = env.target(w, space, addr, lane).ok();
    let stride = inst
        .srcs
        .get(stride_at)
        .map_or(u64::from(frag.default_stride(layout)), |s| {
            env.read(w, s, lane) & 0xffff_ffff
        });
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

pub(super) fn load(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    (frag, layout, space): (Fragment, Layout, StateSpace),
) -> Result<(), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    let Operand::Address(addr) = &inst.srcs[0] else {
        unreachable!("verified wmma.load shape")
    };
    let lane = first_lane(exec);
    let base = env.target(w, space, addr, lane).map_err(at(lane))?;
    let offsets = element_offsets(env, w, frag, layout, inst.srcs.get(1), lane);
    let size = frag.element_bytes();
    let m = offsets
        .iter()
        .map(|&o| env.load(w, offset(base, o), lane, size))
        .collect::<Result<Vec<u64>, FaultKind>>()
        .map_err(at(lane))?;
    scatter(env, w, frag, &inst.dsts[0], &m);
    Ok(())
}

pub(super) fn store(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    (frag, layout, space): (Fragment, Layout, StateSpace),
) -> Result<(), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    let Operand::Address(addr) = &inst.srcs[0] else {
        unreachable!("verified wmma.store shape")
    };
    let lane = first_lane(exec);
    let base = env.target(w, space, addr, lane).map_err(at(lane))?;
    let offsets = element_offsets(env, w, frag, layout, inst.srcs.get(2), lane);
    let m = gather(env, w, frag, &inst.srcs[1]);
    let size = frag.element_bytes();
    for (&o, &v) in offsets.iter().zip(&m) {
        env.store(w, offset(base, o), lane, size, v)
            .map_err(at(lane))?;
    }
    Ok(())
}

pub(super) fn mma(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
) -> Result<(), (FaultKind, u32)> {
    whole_warp(inst, exec)?;
    let isa::Op::WmmaMma {
        shape,
        d,
        a,
        b,
        c,
        satfinite,
        rnd,
        ..
    } = inst.op
    else {
        unreachable!("an mma")
    };
    let frag = |matrix, ty| Fragment { matrix, shape, ty };
    let ma = gather(env, w, frag(MatrixUse::A, a), &inst.srcs[0]);
    let mb = gather(env, w, frag(MatrixUse::B, b), &inst.srcs[1]);
    let mc = gather(env, w, frag(MatrixUse::C, c), &inst.srcs[2]);
    let types = MmaTypes { d, a, b, c };
    let md = matrix::mma(
        shape,
        types,
        satfinite,
        rnd.unwrap_or(Rounding::Rn),
        &ma,
        &mb,
        &mc,
    );
    scatter(env, w, frag(MatrixUse::C, d), &inst.dsts[0], &md);
    Ok(())
}
