//! Lowering one instruction for one lane: operands to values, inline code for the common
//! operations, a call to the interpreter's numerics for the rest, and memory accesses with
//! inline bounds and alignment checks.
//!
//! Register values are 64-bit and zero-extended, as in the interpreter's register file; every
//! result is fitted to its register exactly as `warp::fit_to_register` does.

use super::ctx::{self, Offsets};
use crate::program::{KernelLayout, Location, Program};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{FuncRef, InstBuilder, MemFlagsData, StackSlot, Value, types};
use cranelift_frontend::{FunctionBuilder, Variable};
use isa::{
    AddrBase, CmpOp, FuncId, ImplicitCluster, Inst, MulMode, Op, Operand, Rounding, SpecialReg,
    StateSpace, Type, TypeKind, VReg,
};
use std::collections::BTreeMap;

type Result<T> = std::result::Result<T, String>;

/// The helpers, as callable from the function being built.
#[derive(Clone, Copy)]
pub(super) struct HelperRefs {
    pub alu: FuncRef,
    pub special: FuncRef,
    pub global: FuncRef,
    pub fault: FuncRef,
    pub warp: FuncRef,
    /// Global stores through `CtaEnv::store_global` (which may hold them back), instead of
    /// inline: in code for the stepper.
    pub store_global: Option<FuncRef>,
}

/// The state of one lane's pass through a segment.
pub(super) struct LaneCx<'a> {
    pub ctx: Value,
    /// The lane, as i64 and i32.
    pub lane: Value,
    pub lane32: Value,
    pub vars: BTreeMap<VReg, Variable>,
    pub refs: HelperRefs,
    pub scratch: StackSlot,
    pub program: &'a Program,
    pub layout: &'a KernelLayout,
    pub func: FuncId,
    pub inline: u32,
    pub helper: u32,
    /// In a segment with several memory accesses: the variable holding the PC of the first
    /// fault so far (`u32::MAX`: none), and the block that ends the lane's pass.
    pub fault: Option<(Variable, cranelift_codegen::ir::Block)>,
    /// The global-memory fields of the context, loaded once before the segment's lane loop.
    pub global: Option<GlobalFields>,
    /// Per global access of the segment (by PC): the variable holding the granule the last
    /// lane's access found wholly valid (`u64::MAX`: none yet), so a lane touching the same
    /// granule skips the table probe. Only a granule valid to its last byte is remembered: in a
    /// partly valid one, the next lane's offset decides. Memory is neither allocated nor freed
    /// while a kernel runs.
    pub granule_cache: BTreeMap<u32, Variable>,
    /// Registers last written, in this lane's pass, by an unguarded float operation: the
    /// result as a float before NaN canonicalisation, and its type. Float operations whose
    /// result depends on an operand only through its value or NaN-ness (arithmetic that
    /// canonicalises its own result, comparisons, conversions) read it instead of the
    /// register's bits, so the canonicalisation disappears when nothing else needs it.
    pub raw_float: BTreeMap<VReg, (Value, Type)>,
    /// Whether the instruction being lowered has a guard (its writes are conditional).
    pub guarded: bool,
}

/// See [`LaneCx::global`].
#[derive(Clone, Copy)]
pub(super) struct GlobalFields {
    pub base: Value,
    pub span: Value,
    pub valid: Value,
}

/// Whether the instruction accesses memory.
pub(super) fn is_memory(op: &Op) -> bool {
    matches!(op, Op::Ld { .. } | Op::St { .. } | Op::Ldu { .. })
}

/// Whether the instruction writes memory.
pub(super) fn is_store(op: &Op) -> bool {
    matches!(op, Op::St { .. })
}

/// The registers an unguarded instruction writes in every lane's pass that completes it: its
/// first destination, or a load's destination registers. (Other destinations may be left
/// alone by some lowering, so they count as possibly unwritten.)
pub(super) fn sure_defs(inst: &Inst) -> Vec<VReg> {
    if inst.guard.is_some() {
        return Vec::new();
    }
    let uses: Vec<VReg> = inst.uses().collect();
    let mut sure = Vec::new();
    match (&inst.op, inst.dsts.first()) {
        (Op::Ld { .. } | Op::Ldu { .. }, Some(Operand::Vector(elems))) => {
            for e in elems {
                if let Operand::Reg(r) = e {
                    sure.push(*r);
                }
            }
        }
        (_, Some(Operand::Reg(r))) => sure.push(*r),
        _ => {}
    }
    sure.retain(|r| !uses.contains(r));
    sure
}

fn mask(b: &mut FunctionBuilder, v: Value, bits: u32) -> Value {
    if bits >= 64 {
        v
    } else {
        b.ins().band_imm_s(v, ((1u64 << bits) - 1) as i64)
    }
}

fn sext(b: &mut FunctionBuilder, v: Value, bits: u32) -> Value {
    if bits >= 64 {
        v
    } else {
        let s = i64::from(64 - bits);
        let l = b.ins().ishl_imm_s(v, s);
        b.ins().sshr_imm_s(l, s)
    }
}

/// The value extended from `ty`'s width by its signedness.
fn extend(b: &mut FunctionBuilder, v: Value, ty: Type) -> Value {
    if ty.is_signed() {
        sext(b, v, ty.bits())
    } else {
        mask(b, v, ty.bits())
    }
}

fn bool_to_i64(b: &mut FunctionBuilder, c: Value) -> Value {
    b.ins().uextend(types::I64, c)
}

impl LaneCx<'_> {
    fn reg_type(&self, r: VReg) -> Type {
        self.program.code[self.func.index()].reg_types[r.index()]
    }

    /// The value of a source operand.
    fn read(&self, b: &mut FunctionBuilder, op: &Operand, pc: u32) -> Value {
        match op {
            Operand::Reg(r) => b.use_var(self.vars[r]),
            Operand::NotPred(r) => {
                let v = b.use_var(self.vars[r]);
                let v = b.ins().band_imm_s(v, 1);
                b.ins().bxor_imm_s(v, 1)
            }
            Operand::Imm(v) => b.ins().iconst(types::I64, *v as i64),
            Operand::Special(s) => {
                let load32 = |b: &mut FunctionBuilder, base: Value, off: i32| {
                    let v = b.ins().load(types::I32, ctx::FIXED, base, off);
                    b.ins().uextend(types::I64, v)
                };
                match s {
                    SpecialReg::Tid(d) => {
                        let table = b.ins().load(types::I64, ctx::FIXED, self.ctx, Offsets::TID);
                        let off = b.ins().ishl_imm_s(self.lane, 2);
                        let at = b.ins().iadd(table, off);
                        load32(b, at, (d.index() * 32 * 4) as i32)
                    }
                    SpecialReg::Ntid(d) => {
                        load32(b, self.ctx, Offsets::NTID + 4 * d.index() as i32)
                    }
                    SpecialReg::Ctaid(d) => {
                        load32(b, self.ctx, Offsets::CTAID + 4 * d.index() as i32)
                    }
                    SpecialReg::Nctaid(d) => {
                        load32(b, self.ctx, Offsets::NCTAID + 4 * d.index() as i32)
                    }
                    c @ (SpecialReg::ClusterId(_)
                    | SpecialReg::NClusterId(_)
                    | SpecialReg::ClusterCtaid(_)
                    | SpecialReg::ClusterNctaid(_)
                    | SpecialReg::ClusterCtarank
                    | SpecialReg::ClusterNctarank
                    | SpecialReg::IsExplicitCluster) => match c.implicit_cluster() {
                        Some(ImplicitCluster::Register(r)) => {
                            self.read(b, &Operand::Special(r), pc)
                        }
                        Some(ImplicitCluster::Constant(k)) => {
                            b.ins().iconst(types::I64, i64::from(k))
                        }
                        None => unreachable!("`{c}` is a cluster register"),
                    },
                    SpecialReg::LaneId => self.lane,
                    SpecialReg::WarpId => load32(b, self.ctx, Offsets::WARP_INDEX),
                    _ => {
                        let code = b
                            .ins()
                            .iconst(types::I32, i64::from(super::special_code(*s)));
                        let pcv = b.ins().iconst(types::I32, i64::from(pc));
                        let call = b
                            .ins()
                            .call(self.refs.special, &[self.ctx, code, self.lane32, pcv]);
                        b.inst_results(call)[0]
                    }
                }
            }
            Operand::SymbolAddr { sym, offset } => {
                match self.program.location(self.layout, self.func, *sym) {
                    Location::Global(a) => b
                        .ins()
                        .iconst(types::I64, a.wrapping_add(*offset as u64) as i64),
                    Location::Shared(o) | Location::KernelParam(o) => b
                        .ins()
                        .iconst(types::I64, o.wrapping_add(*offset as u64) as i64),
                    Location::Frame(o) => {
                        let base =
                            b.ins()
                                .load(types::I64, ctx::FIXED, self.ctx, Offsets::LOCAL_BASE);
                        b.ins()
                            .iadd_imm_s(base, o.wrapping_add(*offset as u64) as i64)
                    }
                }
            }
            Operand::FuncAddr(f) => b.ins().iconst(types::I64, i64::from(f.0)),
            Operand::Address(_) | Operand::Vector(_) | Operand::Sink => {
                b.ins().iconst(types::I64, 0)
            }
        }
    }

    /// A float operand of type `ty`, for an operation whose result depends on it only through
    /// its value or NaN-ness (see [`LaneCx::raw_float`]).
    fn float_src(&self, b: &mut FunctionBuilder, op: &Operand, pc: u32, ty: Type) -> Value {
        if let Operand::Reg(r) = op
            && let Some(&(f, t)) = self.raw_float.get(r)
            && t == ty
        {
            return f;
        }
        let v = self.read(b, op, pc);
        to_float(b, v, ty)
    }

    /// Writes float result `f` of type `ty` into `dst`, NaN canonicalised, and remembers the
    /// uncanonicalised float for later float operands (see [`LaneCx::raw_float`]).
    fn write_float(&mut self, b: &mut FunctionBuilder, dst: &Operand, f: Value, ty: Type) {
        let v = from_float(b, f, ty);
        self.write_result(b, dst, v);
        if let Operand::Reg(r) = dst
            && !self.guarded
            && self.reg_type(*r).bits() >= ty.bits()
        {
            self.raw_float.insert(*r, (f, ty));
        }
    }

    /// Writes an ALU result into `dst`: truncated to the register, never sign-extended (the
    /// interpreter extends only the results of `cvt` and loads).
    fn write_result(&mut self, b: &mut FunctionBuilder, dst: &Operand, value: Value) {
        self.write(b, dst, value, Type::B64);
    }

    /// Writes `value`, a result of type `ty`, into destination `dst` (fitted to the register).
    fn write(&mut self, b: &mut FunctionBuilder, dst: &Operand, value: Value, ty: Type) {
        if let Operand::Reg(r) = dst {
            self.raw_float.remove(r);
            let reg = self.reg_type(*r);
            let v = if ty.is_signed() && reg.bits() > ty.bits() {
                sext(b, value, ty.bits())
            } else {
                value
            };
            let v = mask(b, v, reg.bits().max(1));
            b.def_var(self.vars[r], v);
        }
    }
}

impl LaneCx<'_> {
    /// Leaves the lane's pass after a fault at `pc` whose status is `status`: with a fault
    /// limit, records `pc` as the limit and goes on with the next lane; else returns.
    fn fault_exit(&self, b: &mut FunctionBuilder, pc: u32, status: Value) {
        match self.fault {
            Some((limit, next)) => {
                let pcv = b.ins().iconst(types::I32, i64::from(pc));
                b.def_var(limit, pcv);
                b.ins().jump(next, &[]);
            }
            None => {
                b.ins().return_(&[status]);
            }
        }
    }

    /// Continues only if the helper's `status` is OK (else see [`LaneCx::fault_exit`]).
    fn exit_if_fault(&self, b: &mut FunctionBuilder, pc: u32, status: Value) {
        let fail = b.create_block();
        let cont = b.create_block();
        b.ins().brif(status, fail, &[], cont, &[]);
        b.switch_to_block(fail);
        self.fault_exit(b, pc, status);
        b.switch_to_block(cont);
    }
}

/// Lowers one instruction, guard included.
pub(super) fn lower(b: &mut FunctionBuilder, cx: &mut LaneCx, pc: u32, inst: &Inst) -> Result<()> {
    if let (Some((limit, next)), true) = (cx.fault, is_memory(&inst.op)) {
        // An earlier lane faulted at or before this access: this lane stops here.
        let l = b.use_var(limit);
        let stop = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, l, i64::from(pc));
        let go = b.create_block();
        b.ins().brif(stop, next, &[], go, &[]);
        b.switch_to_block(go);
    }
    cx.guarded = inst.guard.is_some();
    let skip = match inst.guard {
        None => None,
        Some(g) => {
            let p = b.use_var(cx.vars[&g.pred]);
            let p = b.ins().band_imm_s(p, 1);
            let run = b.create_block();
            let skip = b.create_block();
            if g.negated {
                b.ins().brif(p, skip, &[], run, &[]);
            } else {
                b.ins().brif(p, run, &[], skip, &[]);
            }
            b.switch_to_block(run);
            Some(skip)
        }
    };
    if is_memory(&inst.op) {
        super::lower::memory(b, cx, pc, inst)?;
        cx.inline += 1;
    } else if inline(b, cx, pc, inst) {
        cx.inline += 1;
    } else {
        alu_helper(b, cx, pc, inst);
        cx.helper += 1;
    }
    if let Some(skip) = skip {
        b.ins().jump(skip, &[]);
        b.switch_to_block(skip);
    }
    Ok(())
}

/// Calls the interpreter's numerics for one lane.
fn alu_helper(b: &mut FunctionBuilder, cx: &mut LaneCx, pc: u32, inst: &Inst) {
    let ptr = types::I64;
    let n = inst.srcs.len().min(5);
    for (i, s) in inst.srcs.iter().take(5).enumerate() {
        let v = cx.read(b, s, pc);
        b.ins().stack_store(ptr, v, cx.scratch, (i * 8) as i32);
    }
    let srcs = b.ins().stack_addr(ptr, cx.scratch, 0);
    let out = b.ins().stack_addr(ptr, cx.scratch, 48);
    let op = b.ins().iconst(ptr, &inst.op as *const Op as i64);
    let n = b.ins().iconst(types::I32, n as i64);
    b.ins()
        .call(cx.refs.alu, &[cx.ctx, op, srcs, n, cx.lane32, out]);
    let rtype = match inst.op {
        Op::Cvt { dty, .. } => Some(dty),
        _ => None,
    };
    for (i, d) in inst.dsts.iter().take(2).enumerate() {
        let v = b
            .ins()
            .stack_load(types::I64, types::I64, cx.scratch, 48 + (i * 8) as i32);
        let ty = match d {
            Operand::Reg(r) => rtype.unwrap_or(cx.reg_type(*r)),
            _ => Type::B64,
        };
        cx.write(b, d, v, ty);
    }
}

fn int_cc(cmp: CmpOp, signed: bool) -> Option<IntCC> {
    Some(match cmp {
        CmpOp::Eq => IntCC::Equal,
        CmpOp::Ne => IntCC::NotEqual,
        CmpOp::Lt if signed => IntCC::SignedLessThan,
        CmpOp::Le if signed => IntCC::SignedLessThanOrEqual,
        CmpOp::Gt if signed => IntCC::SignedGreaterThan,
        CmpOp::Ge if signed => IntCC::SignedGreaterThanOrEqual,
        CmpOp::Lt | CmpOp::Lo => IntCC::UnsignedLessThan,
        CmpOp::Le | CmpOp::Ls => IntCC::UnsignedLessThanOrEqual,
        CmpOp::Gt | CmpOp::Hi => IntCC::UnsignedGreaterThan,
        CmpOp::Ge | CmpOp::Hs => IntCC::UnsignedGreaterThanOrEqual,
        _ => return None,
    })
}

fn float_cc(cmp: CmpOp) -> Option<FloatCC> {
    Some(match cmp {
        CmpOp::Eq => FloatCC::Equal,
        CmpOp::Ne => FloatCC::OrderedNotEqual,
        CmpOp::Lt => FloatCC::LessThan,
        CmpOp::Le => FloatCC::LessThanOrEqual,
        CmpOp::Gt => FloatCC::GreaterThan,
        CmpOp::Ge => FloatCC::GreaterThanOrEqual,
        CmpOp::Equ => FloatCC::UnorderedOrEqual,
        CmpOp::Neu => FloatCC::NotEqual,
        CmpOp::Ltu => FloatCC::UnorderedOrLessThan,
        CmpOp::Leu => FloatCC::UnorderedOrLessThanOrEqual,
        CmpOp::Gtu => FloatCC::UnorderedOrGreaterThan,
        CmpOp::Geu => FloatCC::UnorderedOrGreaterThanOrEqual,
        CmpOp::Num => FloatCC::Ordered,
        CmpOp::Nan => FloatCC::Unordered,
        _ => return None,
    })
}

/// Whether Cranelift computes in float type `ty` (f32, f64); the half-precision types go
/// through the numerics' soft-float ([`alu_helper`]).
fn native_float(ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F64)
}

/// A float operand as a Cranelift float value.
fn to_float(b: &mut FunctionBuilder, v: Value, ty: Type) -> Value {
    if ty == Type::F32 {
        let i = b.ins().ireduce(types::I32, v);
        b.ins().bitcast(types::F32, MemFlagsData::new(), i)
    } else {
        b.ins().bitcast(types::F64, MemFlagsData::new(), v)
    }
}

/// A float result as register bits, with NaN replaced by the canonical NaN the numerics give.
fn from_float(b: &mut FunctionBuilder, f: Value, ty: Type) -> Value {
    let is_nan = b.ins().fcmp(FloatCC::Unordered, f, f);
    let bits = if ty == Type::F32 {
        let i = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
        b.ins().uextend(types::I64, i)
    } else {
        b.ins().bitcast(types::I64, MemFlagsData::new(), f)
    };
    let canonical = b.ins().iconst(
        types::I64,
        if ty == Type::F32 {
            0x7fff_ffff
        } else {
            0xfff8_0000_0000_0000u64 as i64
        },
    );
    b.ins().select(is_nan, canonical, bits)
}

/// Inline lowering of common operations; `false` when the operation needs the helper.
fn inline(b: &mut FunctionBuilder, cx: &mut LaneCx, pc: u32, inst: &Inst) -> bool {
    let src = |b: &mut FunctionBuilder, cx: &LaneCx, i: usize| cx.read(b, &inst.srcs[i], pc);
    let dst = &inst.dsts.first().cloned().unwrap_or(Operand::Sink);
    match inst.op {
        Op::Mov { ty } => {
            let v = src(b, cx, 0);
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::IAdd { ty, sat: false } | Op::ISub { ty, sat: false } => {
            let (x, y) = (src(b, cx, 0), src(b, cx, 1));
            let v = if matches!(inst.op, Op::IAdd { .. }) {
                b.ins().iadd(x, y)
            } else {
                b.ins().isub(x, y)
            };
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::IMul { ty, mode }
        | Op::IMad {
            ty,
            mode,
            sat: false,
        } if mode != MulMode::Hi || ty.bits() <= 32 => {
            let (x, y) = (src(b, cx, 0), src(b, cx, 1));
            let (x, y) = (extend(b, x, ty), extend(b, y, ty));
            let p = b.ins().imul(x, y);
            let (p, bits) = match mode {
                MulMode::Lo => (p, ty.bits()),
                MulMode::Wide => (p, ty.bits() * 2),
                MulMode::Hi => {
                    let s = i64::from(ty.bits());
                    (
                        if ty.is_signed() {
                            b.ins().sshr_imm_s(p, s)
                        } else {
                            b.ins().ushr_imm_s(p, s)
                        },
                        ty.bits(),
                    )
                }
            };
            let p = if matches!(inst.op, Op::IMad { .. }) {
                let c = src(b, cx, 2);
                b.ins().iadd(p, c)
            } else {
                p
            };
            let v = mask(b, p, bits);
            cx.write_result(b, dst, v);
        }
        Op::And { ty } | Op::Or { ty } | Op::Xor { ty } => {
            let (x, y) = (src(b, cx, 0), src(b, cx, 1));
            let v = match inst.op {
                Op::And { .. } => b.ins().band(x, y),
                Op::Or { .. } => b.ins().bor(x, y),
                _ => b.ins().bxor(x, y),
            };
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::Not { ty } => {
            let x = src(b, cx, 0);
            let v = b.ins().bnot(x);
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::Shl { ty } | Op::Shr { ty } => {
            let bits = ty.bits();
            let x = src(b, cx, 0);
            let amt = src(b, cx, 1);
            let amt = mask(b, amt, 32);
            let big = b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, amt, i64::from(bits));
            let v = match inst.op {
                Op::Shr { .. } if ty.is_signed() => {
                    // Counts past the width fill with the sign, as a shift by width - 1 does.
                    let x = sext(b, x, bits);
                    let max = b.ins().iconst(types::I64, i64::from(bits - 1));
                    let a = b.ins().select(big, max, amt);
                    b.ins().sshr(x, a)
                }
                Op::Shr { .. } => {
                    let x = mask(b, x, bits);
                    let s = b.ins().ushr(x, amt);
                    let zero = b.ins().iconst(types::I64, 0);
                    b.ins().select(big, zero, s)
                }
                _ => {
                    let s = b.ins().ishl(x, amt);
                    let zero = b.ins().iconst(types::I64, 0);
                    b.ins().select(big, zero, s)
                }
            };
            let v = mask(b, v, bits);
            cx.write_result(b, dst, v);
        }
        Op::IMin { ty } | Op::IMax { ty } => {
            let (x, y) = (src(b, cx, 0), src(b, cx, 1));
            let (x, y) = (extend(b, x, ty), extend(b, y, ty));
            let cc = if ty.is_signed() {
                IntCC::SignedLessThan
            } else {
                IntCC::UnsignedLessThan
            };
            let lt = b.ins().icmp(cc, x, y);
            let v = if matches!(inst.op, Op::IMin { .. }) {
                b.ins().select(lt, x, y)
            } else {
                b.ins().select(lt, y, x)
            };
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::Selp { ty } => {
            let (x, y, c) = (src(b, cx, 0), src(b, cx, 1), src(b, cx, 2));
            let c = b.ins().band_imm_s(c, 1);
            let v = b.ins().select(c, x, y);
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::Setp {
            cmp,
            ty,
            combine,
            ftz: false,
        } => {
            let (x, y) = (src(b, cx, 0), src(b, cx, 1));
            let raw = if ty.is_float() {
                let (true, Some(cc)) = (native_float(ty), float_cc(cmp)) else {
                    return false;
                };
                let fx = cx.float_src(b, &inst.srcs[0], pc, ty);
                let fy = cx.float_src(b, &inst.srcs[1], pc, ty);
                b.ins().fcmp(cc, fx, fy)
            } else {
                let Some(cc) = int_cc(cmp, ty.kind() == TypeKind::Signed) else {
                    return false;
                };
                let (x, y) = (extend(b, x, ty), extend(b, y, ty));
                b.ins().icmp(cc, x, y)
            };
            let t = bool_to_i64(b, raw);
            let f = b.ins().bxor_imm_s(t, 1);
            let (p, q) = match combine {
                None => (t, f),
                Some(op) => {
                    let c = src(b, cx, 2);
                    let c = b.ins().band_imm_s(c, 1);
                    let comb = |b: &mut FunctionBuilder, v: Value| match op {
                        isa::BoolOp::And => b.ins().band(v, c),
                        isa::BoolOp::Or => b.ins().bor(v, c),
                        isa::BoolOp::Xor => b.ins().bxor(v, c),
                    };
                    (comb(b, t), comb(b, f))
                }
            };
            cx.write_result(b, dst, p);
            if let Some(qd) = inst.dsts.get(1) {
                cx.write_result(b, qd, q);
            }
        }
        Op::Cvt {
            dty,
            sty,
            rnd: isa::CvtRounding::None,
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
        } if dty.is_integer() && sty.is_integer() => {
            let x = src(b, cx, 0);
            let x = extend(b, x, sty);
            let v = mask(b, x, dty.bits());
            cx.write(b, dst, v, dty);
        }
        Op::FAdd {
            ty,
            rnd: None | Some(Rounding::Rn),
            ftz: false,
            sat: false,
        }
        | Op::FSub {
            ty,
            rnd: None | Some(Rounding::Rn),
            ftz: false,
            sat: false,
        }
        | Op::FMul {
            ty,
            rnd: None | Some(Rounding::Rn),
            ftz: false,
            sat: false,
        } if native_float(ty) => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, ty);
            let fy = cx.float_src(b, &inst.srcs[1], pc, ty);
            let r = match inst.op {
                Op::FAdd { .. } => b.ins().fadd(fx, fy),
                Op::FSub { .. } => b.ins().fsub(fx, fy),
                _ => b.ins().fmul(fx, fy),
            };
            cx.write_float(b, dst, r, ty);
        }
        Op::Fma {
            ty,
            rnd: Rounding::Rn,
            ftz: false,
            sat: false,
            relu: false,
        } if native_float(ty) => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, ty);
            let fy = cx.float_src(b, &inst.srcs[1], pc, ty);
            let fz = cx.float_src(b, &inst.srcs[2], pc, ty);
            let r = b.ins().fma(fx, fy, fz);
            cx.write_float(b, dst, r, ty);
        }
        Op::INeg { ty } => {
            let x = src(b, cx, 0);
            let zero = b.ins().iconst(types::I64, 0);
            let v = b.ins().isub(zero, x);
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::IAbs { ty } => {
            let x = src(b, cx, 0);
            let x = sext(b, x, ty.bits());
            let zero = b.ins().iconst(types::I64, 0);
            let neg = b.ins().isub(zero, x);
            let is_neg = b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
            let v = b.ins().select(is_neg, neg, x);
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::FDiv {
            ty,
            prec: isa::FloatPrecision::Rounded(Rounding::Rn),
            ftz: false,
        } => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, ty);
            let fy = cx.float_src(b, &inst.srcs[1], pc, ty);
            let r = b.ins().fdiv(fx, fy);
            cx.write_float(b, dst, r, ty);
        }
        Op::Rcp {
            ty,
            prec: isa::FloatPrecision::Rounded(Rounding::Rn),
            ftz: false,
        } => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, ty);
            let one = if ty == Type::F32 {
                b.ins().f32const(1.0)
            } else {
                b.ins().f64const(1.0)
            };
            let r = b.ins().fdiv(one, fx);
            cx.write_float(b, dst, r, ty);
        }
        Op::Sqrt {
            ty,
            prec: isa::FloatPrecision::Rounded(Rounding::Rn),
            ftz: false,
        } => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, ty);
            let r = b.ins().sqrt(fx);
            cx.write_float(b, dst, r, ty);
        }
        // Float conversions with IEEE round-to-nearest (or exact): the same results as the
        // numerics, NaN canonicalised.
        Op::Cvt {
            dty: Type::F64,
            sty: Type::F32,
            rnd: isa::CvtRounding::None,
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
        } => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, Type::F32);
            let r = b.ins().fpromote(types::F64, fx);
            cx.write_float(b, dst, r, Type::F64);
        }
        Op::Cvt {
            dty: Type::F32,
            sty: Type::F64,
            rnd: isa::CvtRounding::Float(Rounding::Rn),
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
        } => {
            let fx = cx.float_src(b, &inst.srcs[0], pc, Type::F64);
            let r = b.ins().fdemote(types::F32, fx);
            cx.write_float(b, dst, r, Type::F32);
        }
        Op::Cvt {
            dty,
            sty,
            rnd: isa::CvtRounding::Float(Rounding::Rn),
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
        } if native_float(dty) && matches!(sty, Type::S32 | Type::U32 | Type::S64 | Type::U64) => {
            let x = src(b, cx, 0);
            let x = extend(b, x, sty);
            let fty = if dty == Type::F32 {
                types::F32
            } else {
                types::F64
            };
            let r = if sty.is_signed() {
                b.ins().fcvt_from_sint(fty, x)
            } else {
                b.ins().fcvt_from_uint(fty, x)
            };
            cx.write_float(b, dst, r, dty);
        }
        Op::Cvt {
            dty: dty @ (Type::S32 | Type::U32),
            sty: Type::F32,
            rnd: isa::CvtRounding::Int(r),
            ftz: false,
            ..
        } => {
            // f32 to a 32-bit integer: round to an integral value, then convert saturating
            // (NaN gives 0), which is also what `.sat` asks for.
            let fx = cx.float_src(b, &inst.srcs[0], pc, Type::F32);
            let fr = match r {
                Rounding::Rn => b.ins().nearest(fx),
                Rounding::Rz => b.ins().trunc(fx),
                Rounding::Rm => b.ins().floor(fx),
                Rounding::Rp => b.ins().ceil(fx),
                Rounding::Rna => return false,
            };
            let i = if dty == Type::S32 {
                b.ins().fcvt_to_sint_sat(types::I32, fr)
            } else {
                b.ins().fcvt_to_uint_sat(types::I32, fr)
            };
            let v = b.ins().uextend(types::I64, i);
            cx.write(b, dst, v, dty);
        }
        Op::FNeg { ty, ftz: false } | Op::FAbs { ty, ftz: false } if native_float(ty) => {
            // Sign-bit operations: NaN payloads pass through, as in the numerics.
            let x = src(b, cx, 0);
            let sign = if ty == Type::F32 {
                1i64 << 31
            } else {
                i64::MIN
            };
            let v = if matches!(inst.op, Op::FNeg { .. }) {
                b.ins().bxor_imm_s(x, sign)
            } else {
                b.ins().band_imm_s(x, !sign)
            };
            let v = mask(b, v, ty.bits());
            cx.write_result(b, dst, v);
        }
        Op::Pack { ty } => {
            let Operand::Vector(elems) = &inst.srcs[0] else {
                return false;
            };
            let bits = ty.bits() / elems.len() as u32;
            let mut acc = b.ins().iconst(types::I64, 0);
            for (i, e) in elems.iter().enumerate() {
                let v = cx.read(b, e, pc);
                let v = mask(b, v, bits);
                let v = b.ins().ishl_imm_s(v, i64::from(i as u32 * bits));
                acc = b.ins().bor(acc, v);
            }
            cx.write_result(b, dst, acc);
        }
        Op::Unpack { ty } => {
            let Operand::Vector(elems) = &inst.dsts[0] else {
                return false;
            };
            let bits = ty.bits() / elems.len() as u32;
            let v = src(b, cx, 0);
            for (i, e) in elems.iter().enumerate() {
                let part = b.ins().ushr_imm_s(v, i64::from(i as u32 * bits));
                let part = mask(b, part, bits);
                cx.write_result(b, e, part);
            }
        }
        Op::Cvta {
            space,
            to_generic,
            ty,
        } => {
            // The program's map, baked in (a launch checks it is the memory's). `.param`
            // has no window: the interpreter faults on it, and the run never reaches here.
            let window = cx.program.map().window(space).unwrap_or(0);
            let v = src(b, cx, 0);
            let r = if to_generic {
                b.ins().iadd_imm_s(v, window as i64)
            } else {
                b.ins().iadd_imm_s(v, (window as i64).wrapping_neg())
            };
            let r = mask(b, r, ty.bits());
            cx.write_result(b, dst, r);
        }
        _ => return false,
    }
    true
}

/// Which memory an access reaches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Space {
    Global,
    Shared,
    Local,
    Param,
}

/// Lowers a load or store for one lane.
pub(super) fn memory(b: &mut FunctionBuilder, cx: &mut LaneCx, pc: u32, inst: &Inst) -> Result<()> {
    let (space, ty, vec, store) = match inst.op {
        Op::Ld { space, ty, vec, .. } | Op::Ldu { space, ty, vec } => (space, ty, vec, false),
        Op::St { space, ty, vec, .. } => (space, ty, vec, true),
        _ => return Err("not a memory instruction".into()),
    };
    let Operand::Address(addr) = &inst.srcs[0] else {
        return Err("memory operand without address".into());
    };
    let off = addr.offset;
    let is_entry = cx.program.code[cx.func.index()].kind == isa::FuncKind::Entry;
    // Resolve the state space statically where possible.
    let (fixed, a) = match addr.base {
        AddrBase::Symbol(sym) => match cx.program.location(cx.layout, cx.func, sym) {
            Location::Global(g) => (
                Some(Space::Global),
                b.ins()
                    .iconst(types::I64, g.wrapping_add(off as u64) as i64),
            ),
            Location::Shared(o) => (
                Some(Space::Shared),
                b.ins()
                    .iconst(types::I64, o.wrapping_add(off as u64) as i64),
            ),
            Location::KernelParam(o) => (
                Some(Space::Param),
                b.ins()
                    .iconst(types::I64, o.wrapping_add(off as u64) as i64),
            ),
            Location::Frame(o) => {
                let base = b
                    .ins()
                    .load(types::I64, ctx::FIXED, cx.ctx, Offsets::LOCAL_BASE);
                (
                    Some(Space::Local),
                    b.ins().iadd_imm_s(base, o.wrapping_add(off as u64) as i64),
                )
            }
        },
        AddrBase::Reg(r) => {
            let v = b.use_var(cx.vars[&r]);
            let a = b.ins().iadd_imm_s(v, off);
            let s = match space {
                StateSpace::Global | StateSpace::Const => Some(Space::Global),
                StateSpace::Shared | StateSpace::SharedCluster => Some(Space::Shared),
                StateSpace::Local => Some(Space::Local),
                StateSpace::Param if is_entry => Some(Space::Param),
                StateSpace::Param => Some(Space::Local),
                _ => None,
            };
            (s, a)
        }
        AddrBase::Absolute => {
            let a = b.ins().iconst(types::I64, off);
            let s = match space {
                StateSpace::Shared | StateSpace::SharedCluster => Some(Space::Shared),
                StateSpace::Local => Some(Space::Local),
                StateSpace::Param if is_entry => Some(Space::Param),
                StateSpace::Param => Some(Space::Local),
                StateSpace::Generic => None,
                _ => Some(Space::Global),
            };
            (s, a)
        }
    };
    // `base + offset` at the base's width (a 32-bit register's sum wraps modulo 2^32,
    // `Address::sum`), and a 32-bit module computes addresses modulo 2^32, as the interpreter
    // does (`Program::address_mask`); a 64-bit sum in a 64-bit module needs no instruction.
    let mask = cx.program.address_mask() & addr.width.mask();
    let a = if mask == u64::MAX {
        a
    } else {
        b.ins().band_imm_s(a, mask as i64)
    };
    let map = cx.program.map();
    match fixed {
        Some(s) => access(b, cx, pc, inst, s, a, ty, vec, store),
        None => {
            // Generic: classify by window at run time, as `MemoryMap::classify` does.
            let shared_blk = b.create_block();
            let not_shared = b.create_block();
            let local_blk = b.create_block();
            let global_blk = b.create_block();
            let done = b.create_block();
            let rel_s = b
                .ins()
                .iadd_imm_s(a, (map.shared_window as i64).wrapping_neg());
            let in_s = b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThan, rel_s, map.shared_size as i64);
            b.ins().brif(in_s, shared_blk, &[], not_shared, &[]);
            b.switch_to_block(not_shared);
            let rel_l = b
                .ins()
                .iadd_imm_s(a, (map.local_window as i64).wrapping_neg());
            let in_l = b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThan, rel_l, map.local_size as i64);
            b.ins().brif(in_l, local_blk, &[], global_blk, &[]);
            for (blk, sp, addr) in [
                (shared_blk, Space::Shared, rel_s),
                (local_blk, Space::Local, rel_l),
                (global_blk, Space::Global, a),
            ] {
                b.switch_to_block(blk);
                access(b, cx, pc, inst, sp, addr, ty, vec, store)?;
                b.ins().jump(done, &[]);
            }
            b.switch_to_block(done);
            Ok(())
        }
    }
}

/// The access itself, once the space is known: checks, then element loads or stores.
#[allow(clippy::too_many_arguments)]
fn access(
    b: &mut FunctionBuilder,
    cx: &mut LaneCx,
    pc: u32,
    inst: &Inst,
    space: Space,
    a: Value,
    ty: Type,
    vec: u8,
    store: bool,
) -> Result<()> {
    let size = ty.bytes();
    let total = size * u32::from(vec);
    if space == Space::Param && store {
        // The interpreter refuses stores to kernel parameters; hand it the instruction.
        return param_store_fault(b, cx, pc, inst);
    }
    let pcv = b.ins().iconst(types::I32, i64::from(pc));
    // Alignment of the whole vector, as the interpreter checks first.
    let misaligned = b.ins().band_imm_s(a, i64::from(total - 1));
    let space_code = match space {
        Space::Shared => 0,
        Space::Local => 1,
        Space::Param | Space::Global => 2,
    };
    let fault_space = if space == Space::Global {
        None
    } else {
        Some(space_code)
    };
    {
        let bad = b.create_block();
        let ok = b.create_block();
        b.ins().brif(misaligned, bad, &[], ok, &[]);
        b.switch_to_block(bad);
        let status = match fault_space {
            Some(code) => {
                let code = b.ins().iconst(types::I32, code);
                let one = b.ins().iconst(types::I32, 1);
                let sz = b.ins().iconst(types::I32, i64::from(total));
                let call = b
                    .ins()
                    .call(cx.refs.fault, &[cx.ctx, code, one, sz, a, cx.lane32, pcv]);
                b.inst_results(call)[0]
            }
            None => {
                // The global helper reports misalignment of the first element itself; the
                // vector's alignment fault needs the same report, so use a size it fails.
                let sz = b.ins().iconst(types::I32, i64::from(total));
                let call = b
                    .ins()
                    .call(cx.refs.global, &[cx.ctx, a, sz, cx.lane32, pcv]);
                b.inst_results(call)[0]
            }
        };
        cx.fault_exit(b, pc, status);
        b.switch_to_block(ok);
    }
    // Bounds: the host pointer of the first element.
    let host = match space {
        Space::Global => {
            // Inside the mapping and inside the valid bytes of its granule (see
            // `GlobalMemory::valid`); the vector is aligned to its size (at most 32 bytes), so
            // it never crosses a 256-byte granule.
            let rel = b
                .ins()
                .iadd_imm_s(a, (cx.program.map().global_base as i64).wrapping_neg());
            let fields = match cx.global {
                Some(f) => f,
                None => GlobalFields {
                    base: b
                        .ins()
                        .load(types::I64, ctx::FIXED, cx.ctx, Offsets::GLOBAL_BASE),
                    span: b.ins().load(types::I64, ctx::FIXED, cx.ctx, Offsets::SPAN),
                    valid: b.ins().load(types::I64, ctx::FIXED, cx.ctx, Offsets::VALID),
                },
            };
            let granule = b.ins().ushr_imm_s(rel, 8);
            let cache = cx.granule_cache.get(&pc).copied();
            let slow = b.create_block();
            let probe = b.create_block();
            let fast = b.create_block();
            let check = b.create_block();
            match cache {
                Some(var) => {
                    let last = b.use_var(var);
                    let hit = b.ins().icmp(IntCC::Equal, granule, last);
                    b.ins().brif(hit, fast, &[], check, &[]);
                }
                None => {
                    b.ins().jump(check, &[]);
                }
            }
            b.switch_to_block(check);
            let in_map = b.ins().icmp(IntCC::UnsignedLessThan, rel, fields.span);
            b.ins().brif(in_map, probe, &[], slow, &[]);
            b.switch_to_block(probe);
            let entry_off = b.ins().ishl_imm_s(granule, 1);
            let entry_addr = b.ins().iadd(fields.valid, entry_off);
            let valid = b
                .ins()
                .uload16(types::I64, MemFlagsData::trusted(), entry_addr, 0);
            let offset = b.ins().band_imm_s(rel, 255);
            let end = b.ins().iadd_imm_s(offset, i64::from(total));
            let inside = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, valid);
            let live = b.create_block();
            b.ins().brif(inside, live, &[], slow, &[]);
            b.switch_to_block(live);
            if let Some(var) = cache {
                let whole = b.ins().icmp_imm_s(IntCC::Equal, valid, 256);
                let none = b.ins().iconst(types::I64, -1);
                let remembered = b.ins().select(whole, granule, none);
                b.def_var(var, remembered);
            }
            b.ins().jump(fast, &[]);
            b.switch_to_block(slow);
            // Check element by element, as the interpreter does, so a fault names the first
            // element outside an allocation.
            for i in 0..u32::from(vec) {
                let ea = b.ins().iadd_imm_s(a, i64::from(i * size));
                let sz = b.ins().iconst(types::I32, i64::from(size));
                let call = b
                    .ins()
                    .call(cx.refs.global, &[cx.ctx, ea, sz, cx.lane32, pcv]);
                let status = b.inst_results(call)[0];
                cx.exit_if_fault(b, pc, status);
            }
            b.ins().jump(fast, &[]);
            b.switch_to_block(fast);
            b.ins().iadd(fields.base, rel)
        }
        _ => {
            let (ptr, len) = match space {
                Space::Shared => (
                    b.ins()
                        .load(types::I64, ctx::FIXED, cx.ctx, Offsets::SHARED),
                    b.ins()
                        .load(types::I64, ctx::FIXED, cx.ctx, Offsets::SHARED_LEN),
                ),
                Space::Param => (
                    b.ins()
                        .load(types::I64, ctx::FIXED, cx.ctx, Offsets::PARAMS),
                    b.ins()
                        .load(types::I64, ctx::FIXED, cx.ctx, Offsets::PARAMS_LEN),
                ),
                _ => {
                    let idx = b.ins().ishl_imm_s(cx.lane, 3);
                    let slot = b.ins().iadd(cx.ctx, idx);
                    (
                        b.ins().load(types::I64, ctx::FIXED, slot, Offsets::LOCAL),
                        b.ins()
                            .load(types::I64, ctx::FIXED, slot, Offsets::LOCAL_LEN),
                    )
                }
            };
            // Element i fails when a + (i+1)*size > len; the first failing element is reported.
            for i in 0..u32::from(vec) {
                let end = b.ins().iadd_imm_s(a, i64::from((i + 1) * size));
                let past = b.ins().icmp(IntCC::UnsignedGreaterThan, end, len);
                let wrapped = b.ins().icmp(IntCC::UnsignedLessThan, end, a);
                let bad_c = b.ins().bor(past, wrapped);
                let bad = b.create_block();
                let ok = b.create_block();
                b.ins().brif(bad_c, bad, &[], ok, &[]);
                b.switch_to_block(bad);
                let code = b.ins().iconst(types::I32, space_code);
                let zero = b.ins().iconst(types::I32, 0);
                let sz = b.ins().iconst(types::I32, i64::from(size));
                let ea = b.ins().iadd_imm_s(a, i64::from(i * size));
                let call = b
                    .ins()
                    .call(cx.refs.fault, &[cx.ctx, code, zero, sz, ea, cx.lane32, pcv]);
                let status = b.inst_results(call)[0];
                cx.fault_exit(b, pc, status);
                b.switch_to_block(ok);
            }
            b.ins().iadd(ptr, a)
        }
    };
    let mem_ty = match size {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        _ => types::I64,
    };
    let flags = MemFlagsData::trusted();
    if store {
        let values: Vec<Value> = match &inst.srcs[1] {
            Operand::Vector(elems) => elems.iter().map(|e| cx.read(b, e, pc)).collect(),
            v => vec![cx.read(b, v, pc)],
        };
        for (i, v) in values.into_iter().enumerate() {
            if let (Space::Global, Some(helper)) = (space, cx.refs.store_global) {
                // Checked above: the helper only makes (or holds back) the store.
                let ea = b.ins().iadd_imm_s(a, i64::from(i as u32 * size));
                let sz = b.ins().iconst(types::I32, i64::from(size));
                b.ins().call(helper, &[cx.ctx, ea, v, sz]);
                continue;
            }
            let v = if mem_ty == types::I64 {
                v
            } else {
                b.ins().ireduce(mem_ty, v)
            };
            b.ins().store(flags, v, host, (i as u32 * size) as i32);
        }
    } else {
        let dsts: Vec<Operand> = match &inst.dsts[0] {
            Operand::Vector(elems) => elems.clone(),
            d => vec![d.clone()],
        };
        for (i, d) in dsts.iter().enumerate() {
            let v = b.ins().load(mem_ty, flags, host, (i as u32 * size) as i32);
            let v = if mem_ty == types::I64 {
                v
            } else {
                b.ins().uextend(types::I64, v)
            };
            cx.write(b, d, v, ty);
        }
    }
    Ok(())
}

/// A store to a kernel parameter: the interpreter always faults on it, so hand the instruction
/// to the interpreter's code, which reports that fault for the first lane whose guard holds
/// (it reads only the guard's register, which is unchanged in memory at this point).
fn param_store_fault(b: &mut FunctionBuilder, cx: &mut LaneCx, pc: u32, inst: &Inst) -> Result<()> {
    let pcv = b.ins().iconst(types::I32, i64::from(pc));
    let ip = b.ins().iconst(types::I64, inst as *const Inst as i64);
    let call = b.ins().call(cx.refs.warp, &[cx.ctx, ip, pcv]);
    let status = b.inst_results(call)[0];
    cx.exit_if_fault(b, pc, status);
    Ok(())
}
