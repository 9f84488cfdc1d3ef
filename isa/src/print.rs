//! Text forms of the ISA: opcode mnemonics ([`Op`]'s `Display`), operands and instructions in
//! PTX-like syntax ([`Printer`]), and the annotated listing of `warpsim dis`
//! ([`FunctionText`], [`disassemble`]).
//!
//! Mnemonics list modifiers in the order PTX documents them (`fma.rn.ftz.sat.f32`,
//! `ld.relaxed.gpu.global.nc.v4.f32`, `setp.lt.and.ftz.f32`, `cvt.rzi.sat.s32.f32`), so they
//! read like what NVRTC emits. The listing is meant for people and for golden tests: it is
//! deterministic, and its shape is documented on [`FunctionText`].

use crate::analysis::{FunctionAnalysis, ModuleAnalysis};
use crate::function::{
    BlockId, FuncId, FuncKind, Function, Linkage, Module, SymbolRef, VReg, Variable,
};
use crate::inst::{
    AddrBase, Address, AtomOp, BarRedOp, BarrierKind, CarryOp, CvtRounding, FloatPrecision, Inst,
    MatchMode, MbarrierOp, MembarLevel, MulMode, Op, Operand, Part, PrmtMode, ReduxOp, ShflMode,
    ShiftDir, ShiftMode, SimdVideo, SimdVideoOp, TestProp, TranscFn, Video, VideoOp, VideoThen,
    VoteMode,
};
use crate::texture::TexLevel;
use crate::types::{MemOrder, Type};
use std::borrow::Cow;
use std::fmt::{self, Display, Formatter, Write as _};

/// Adapts a closure to `Display`.
struct DisplayFn<F>(F);

impl<F: Fn(&mut Formatter<'_>) -> fmt::Result> Display for DisplayFn<F> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}

impl Display for crate::inst::Callee {
    /// The callee (`fn3`), or `(indirect)`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            crate::inst::Callee::Direct(id) => write!(f, "{id}"),
            crate::inst::Callee::Indirect => f.write_str("(indirect)"),
        }
    }
}

impl Display for Op {
    /// The mnemonic with its modifiers (`add.s32`, `bra.uni`); a call also names its callee
    /// (`call.uni fn3`), since which function is called is part of what the operation is.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_mnemonic(f, self)?;
        if let Op::Call { callee, .. } = self {
            write!(f, " {callee}")?;
        }
        Ok(())
    }
}

/// Writes `.name` when `on`.
fn flag(f: &mut Formatter<'_>, on: bool, name: &str) -> fmt::Result {
    if on { write!(f, ".{name}") } else { Ok(()) }
}

/// Writes `.name` for a present modifier.
fn opt<T: Display>(f: &mut Formatter<'_>, m: Option<T>) -> fmt::Result {
    match m {
        Some(m) => write!(f, ".{m}"),
        None => Ok(()),
    }
}

fn order_name(order: MemOrder) -> Option<&'static str> {
    (order != MemOrder::Weak).then(|| order.name())
}

fn space_name(space: crate::types::StateSpace) -> Option<&'static str> {
    (space != crate::types::StateSpace::Generic).then(|| space.name())
}

/// `ld`/`st` with their qualifiers in PTX's order: ordering, scope, space, cache operator,
/// `.nc`, vector width (the type follows).
#[allow(clippy::too_many_arguments)]
fn access_mnemonic(
    f: &mut Formatter<'_>,
    name: &str,
    order: MemOrder,
    scope: Option<crate::types::Scope>,
    space: crate::types::StateSpace,
    cache: Option<crate::types::CacheOp>,
    nc: bool,
    vec: u8,
) -> fmt::Result {
    f.write_str(name)?;
    opt(f, order_name(order))?;
    opt(f, scope.map(|s| s.name()))?;
    opt(f, space_name(space))?;
    opt(f, cache.map(|c| c.name()))?;
    flag(f, nc, "nc")?;
    opt(f, vec_name(vec))
}

fn vec_name(vec: u8) -> Option<String> {
    (vec > 1).then(|| format!("v{vec}"))
}

fn mul_mode(mode: MulMode) -> &'static str {
    match mode {
        MulMode::Lo => "lo",
        MulMode::Hi => "hi",
        MulMode::Wide => "wide",
    }
}

fn precision(prec: FloatPrecision) -> &'static str {
    match prec {
        FloatPrecision::Rounded(r) => r.name(),
        FloatPrecision::Approx => "approx",
        FloatPrecision::Full => "full",
    }
}

fn shift_mode(mode: ShiftMode) -> &'static str {
    match mode {
        ShiftMode::Clamp => "clamp",
        ShiftMode::Wrap => "wrap",
    }
}

fn atom_op(op: AtomOp) -> &'static str {
    match op {
        AtomOp::Add => "add",
        AtomOp::Inc => "inc",
        AtomOp::Dec => "dec",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Exch => "exch",
        AtomOp::Cas => "cas",
    }
}

/// Writes the mnemonic and modifiers of `op` (a call's callee excluded).
fn write_mnemonic(f: &mut Formatter<'_>, op: &Op) -> fmt::Result {
    // Each arm writes the base name and modifiers; the trailing types follow.
    let tys: &[Type] = match op {
        Op::IAdd { ty, sat } | Op::ISub { ty, sat } => {
            f.write_str(if matches!(op, Op::IAdd { .. }) {
                "add"
            } else {
                "sub"
            })?;
            flag(f, *sat, "sat")?;
            std::slice::from_ref(ty)
        }
        Op::IMul { ty, mode } => {
            write!(f, "mul.{}", mul_mode(*mode))?;
            std::slice::from_ref(ty)
        }
        Op::IMad { ty, mode, sat } => {
            write!(f, "mad.{}", mul_mode(*mode))?;
            flag(f, *sat, "sat")?;
            std::slice::from_ref(ty)
        }
        Op::Mul24 { ty, hi } => {
            write!(f, "mul24.{}", if *hi { "hi" } else { "lo" })?;
            std::slice::from_ref(ty)
        }
        Op::Mad24 { ty, hi, sat } => {
            write!(f, "mad24.{}", if *hi { "hi" } else { "lo" })?;
            flag(f, *sat, "sat")?;
            std::slice::from_ref(ty)
        }
        Op::IDiv { ty } => named(f, "div", ty)?,
        Op::IRem { ty } => named(f, "rem", ty)?,
        Op::IAbs { ty } => named(f, "abs", ty)?,
        Op::INeg { ty } => named(f, "neg", ty)?,
        Op::IMin { ty } => named(f, "min", ty)?,
        Op::IMax { ty } => named(f, "max", ty)?,
        Op::Sad { ty } => named(f, "sad", ty)?,
        Op::Carry {
            op: carry,
            ty,
            carry_in,
            carry_out,
        } => {
            let (base, mode) = match carry {
                CarryOp::Add => ("add", None),
                CarryOp::Sub => ("sub", None),
                CarryOp::MadLo => ("mad", Some("lo")),
                CarryOp::MadHi => ("mad", Some("hi")),
            };
            f.write_str(base)?;
            if *carry_in {
                f.write_str("c")?;
            }
            opt(f, mode)?;
            flag(f, *carry_out, "cc")?;
            std::slice::from_ref(ty)
        }
        Op::Popc { ty } => named(f, "popc", ty)?,
        Op::Clz { ty } => named(f, "clz", ty)?,
        Op::Bfind { ty, shift_amount } => {
            f.write_str("bfind")?;
            flag(f, *shift_amount, "shiftamt")?;
            std::slice::from_ref(ty)
        }
        Op::Brev { ty } => named(f, "brev", ty)?,
        Op::Bfe { ty } => named(f, "bfe", ty)?,
        Op::Bfi { ty } => named(f, "bfi", ty)?,
        Op::Prmt { mode } => {
            f.write_str("prmt.b32")?;
            opt(
                f,
                mode.map(|m| match m {
                    PrmtMode::F4e => "f4e",
                    PrmtMode::B4e => "b4e",
                    PrmtMode::Rc8 => "rc8",
                    PrmtMode::Ecl => "ecl",
                    PrmtMode::Ecr => "ecr",
                    PrmtMode::Rc16 => "rc16",
                }),
            )?;
            &[]
        }
        Op::Shf { dir, mode } => {
            let dir = match dir {
                ShiftDir::Left => "l",
                ShiftDir::Right => "r",
            };
            write!(f, "shf.{dir}.{}", shift_mode(*mode))?;
            &[Type::B32]
        }
        Op::Bmsk { mode } => {
            write!(f, "bmsk.{}", shift_mode(*mode))?;
            &[Type::B32]
        }
        Op::Fns => {
            f.write_str("fns")?;
            &[Type::B32]
        }
        Op::Video(Video {
            op,
            dty,
            aty,
            bty,
            sat,
            then,
            ..
        }) => {
            let name = match op {
                VideoOp::Add => "vadd",
                VideoOp::Sub => "vsub",
                VideoOp::Absdiff => "vabsdiff",
                VideoOp::Min => "vmin",
                VideoOp::Max => "vmax",
                VideoOp::Shl { .. } => "vshl",
                VideoOp::Shr { .. } => "vshr",
                VideoOp::Set(_) => "vset",
                VideoOp::Mad { .. } => "vmad",
            };
            f.write_str(name)?;
            // vset has no destination type; the shifts' mode follows the types.
            if !matches!(op, VideoOp::Set(_)) {
                write!(f, ".{dty}")?;
            }
            write!(f, ".{aty}.{bty}")?;
            flag(f, *sat, "sat")?;
            match op {
                VideoOp::Shl { clamp } | VideoOp::Shr { clamp } => {
                    f.write_str(if *clamp { ".clamp" } else { ".wrap" })?
                }
                VideoOp::Set(cmp) => write!(f, ".{}", cmp.name())?,
                VideoOp::Mad { po, shift, .. } => {
                    flag(f, *po, "po")?;
                    if *shift > 0 {
                        write!(f, ".shr{shift}")?;
                    }
                }
                _ => {}
            }
            return match then {
                VideoThen::Add => f.write_str(".add"),
                VideoThen::Min => f.write_str(".min"),
                VideoThen::Max => f.write_str(".max"),
                _ => Ok(()),
            };
        }
        Op::VideoSimd(v) => {
            let name = match v.op {
                SimdVideoOp::Add => "vadd",
                SimdVideoOp::Sub => "vsub",
                SimdVideoOp::Avrg => "vavrg",
                SimdVideoOp::Absdiff => "vabsdiff",
                SimdVideoOp::Min => "vmin",
                SimdVideoOp::Max => "vmax",
                SimdVideoOp::Set(_) => "vset",
            };
            write!(f, "{name}{}", v.lanes)?;
            if !matches!(v.op, SimdVideoOp::Set(_)) {
                write!(f, ".{}", v.dty)?;
            }
            write!(f, ".{}.{}", v.aty, v.bty)?;
            if let SimdVideoOp::Set(cmp) = v.op {
                write!(f, ".{}", cmp.name())?;
            }
            flag(f, v.sat, "sat")?;
            return flag(f, v.add, "add");
        }
        Op::Lop3 { combine } => {
            f.write_str("lop3")?;
            opt(f, combine.map(crate::BoolOp::name))?;
            &[Type::B32]
        }
        Op::Szext { mode, signed } => {
            write!(f, "szext.{}", shift_mode(*mode))?;
            if *signed { &[Type::S32] } else { &[Type::U32] }
        }
        Op::Nanosleep => return f.write_str("nanosleep.u32"),
        Op::CpAsync { bypass_l1, .. } => {
            let level = if *bypass_l1 { "cg" } else { "ca" };
            return write!(f, "cp.async.{level}.shared.global");
        }
        Op::CpAsyncCommit => return f.write_str("cp.async.commit_group"),
        Op::Prefetch {
            space,
            level,
            uniform,
        } => {
            f.write_str(if *uniform { "prefetchu" } else { "prefetch" })?;
            opt(f, space_name(*space))?;
            return write!(f, ".{}", level.name());
        }
        Op::Mma {
            shape,
            a_layout,
            b_layout,
            d,
            a,
            b,
            c,
            satfinite,
        } => {
            let (al, bl) = (a_layout.name(), b_layout.name());
            write!(f, "mma.sync.aligned.{shape}.{al}.{bl}")?;
            flag(f, *satfinite, "satfinite")?;
            return write!(f, ".{d}.{a}.{b}.{c}");
        }
        Op::Ldmatrix {
            count,
            trans,
            space,
        }
        | Op::Stmatrix {
            count,
            trans,
            space,
        } => {
            let name = if matches!(op, Op::Ldmatrix { .. }) {
                "ldmatrix"
            } else {
                "stmatrix"
            };
            write!(f, "{name}.sync.aligned.m8n8.x{count}")?;
            flag(f, *trans, "trans")?;
            opt(f, space_name(*space))?;
            &[Type::B16]
        }
        Op::WmmaLoad {
            frag,
            layout,
            space,
        } => {
            let m = match frag.matrix {
                crate::MatrixUse::A => "a",
                crate::MatrixUse::B => "b",
                crate::MatrixUse::C => "c",
            };
            write!(
                f,
                "wmma.load.{m}.sync.aligned.{}.{}",
                layout.name(),
                frag.shape
            )?;
            opt(f, space_name(*space))?;
            std::slice::from_ref(&frag.ty)
        }
        Op::WmmaStore {
            frag,
            layout,
            space,
        } => {
            write!(
                f,
                "wmma.store.d.sync.aligned.{}.{}",
                layout.name(),
                frag.shape
            )?;
            opt(f, space_name(*space))?;
            std::slice::from_ref(&frag.ty)
        }
        Op::WmmaMma {
            shape,
            a_layout,
            b_layout,
            d,
            a,
            b,
            c,
            satfinite,
            rnd,
        } => {
            let (al, bl) = (a_layout.name(), b_layout.name());
            write!(f, "wmma.mma.sync.aligned.{al}.{bl}.{shape}")?;
            opt(f, rnd.map(|r| r.name()))?;
            // The `.f16` form names only the accumulators' types.
            if *a == Type::F16 {
                write!(f, ".{d}.{c}")?;
            } else {
                write!(f, ".{d}.{a}.{b}.{c}")?;
            }
            return flag(f, *satfinite, "satfinite");
        }
        Op::CpAsyncWait { all, .. } => {
            return f.write_str(if *all {
                "cp.async.wait_all"
            } else {
                "cp.async.wait_group"
            });
        }
        Op::CvtPack { bits, signed } => {
            let sign = if *signed { 's' } else { 'u' };
            let c = if *bits < 16 { ".b32" } else { "" };
            return write!(f, "cvt.pack.sat.{sign}{bits}.s32{c}");
        }
        Op::Dp4a { a_signed, b_signed } => {
            return write!(
                f,
                "dp4a.{}.{}",
                s32_or_u32(*a_signed),
                s32_or_u32(*b_signed)
            );
        }
        Op::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => {
            let half = if *hi { "hi" } else { "lo" };
            return write!(
                f,
                "dp2a.{half}.{}.{}",
                s32_or_u32(*a_signed),
                s32_or_u32(*b_signed)
            );
        }
        Op::And { ty } => named(f, "and", ty)?,
        Op::Or { ty } => named(f, "or", ty)?,
        Op::Xor { ty } => named(f, "xor", ty)?,
        Op::Not { ty } => named(f, "not", ty)?,
        Op::CNot { ty } => named(f, "cnot", ty)?,
        Op::Shl { ty } => named(f, "shl", ty)?,
        Op::Shr { ty } => named(f, "shr", ty)?,
        Op::FAdd { ty, rnd, ftz, sat }
        | Op::FSub { ty, rnd, ftz, sat }
        | Op::FMul { ty, rnd, ftz, sat } => {
            f.write_str(match op {
                Op::FAdd { .. } => "add",
                Op::FSub { .. } => "sub",
                _ => "mul",
            })?;
            opt(f, rnd.map(|r| r.name()))?;
            flag(f, *ftz, "ftz")?;
            flag(f, *sat, "sat")?;
            std::slice::from_ref(ty)
        }
        Op::Fma {
            ty,
            rnd,
            ftz,
            sat,
            relu,
        } => {
            write!(f, "fma.{}", rnd.name())?;
            flag(f, *ftz, "ftz")?;
            flag(f, *sat, "sat")?;
            flag(f, *relu, "relu")?;
            std::slice::from_ref(ty)
        }
        Op::FDiv { ty, prec, ftz } | Op::Rcp { ty, prec, ftz } | Op::Sqrt { ty, prec, ftz } => {
            let name = match op {
                Op::FDiv { .. } => "div",
                Op::Rcp { .. } => "rcp",
                _ => "sqrt",
            };
            write!(f, "{name}.{}", precision(*prec))?;
            flag(f, *ftz, "ftz")?;
            std::slice::from_ref(ty)
        }
        Op::Transc { func, ty, ftz } => {
            let name = match func {
                TranscFn::Rsqrt => "rsqrt",
                TranscFn::Sin => "sin",
                TranscFn::Cos => "cos",
                TranscFn::Ex2 => "ex2",
                TranscFn::Lg2 => "lg2",
                TranscFn::Tanh => "tanh",
            };
            write!(f, "{name}.approx")?;
            flag(f, *ftz, "ftz")?;
            std::slice::from_ref(ty)
        }
        Op::FAbs { ty, ftz } | Op::FNeg { ty, ftz } => {
            f.write_str(if matches!(op, Op::FAbs { .. }) {
                "abs"
            } else {
                "neg"
            })?;
            flag(f, *ftz, "ftz")?;
            std::slice::from_ref(ty)
        }
        Op::FMin {
            ty,
            ftz,
            nan,
            xorsign,
        }
        | Op::FMax {
            ty,
            ftz,
            nan,
            xorsign,
        } => {
            f.write_str(if matches!(op, Op::FMin { .. }) {
                "min"
            } else {
                "max"
            })?;
            flag(f, *ftz, "ftz")?;
            flag(f, *nan, "NaN")?;
            flag(f, *xorsign, "xorsign.abs")?;
            std::slice::from_ref(ty)
        }
        Op::Copysign { ty } => named(f, "copysign", ty)?,
        Op::Testp { prop, ty } => {
            let prop = match prop {
                TestProp::Finite => "finite",
                TestProp::Infinite => "infinite",
                TestProp::Number => "number",
                TestProp::NotANumber => "notanumber",
                TestProp::Normal => "normal",
                TestProp::Subnormal => "subnormal",
            };
            write!(f, "testp.{prop}")?;
            std::slice::from_ref(ty)
        }
        Op::Setp {
            cmp,
            ty,
            combine,
            ftz,
        } => {
            write!(f, "setp.{}", cmp.name())?;
            opt(f, combine.map(|b| b.name()))?;
            flag(f, *ftz, "ftz")?;
            std::slice::from_ref(ty)
        }
        Op::Set {
            cmp,
            dty,
            sty,
            combine,
            ftz,
        } => {
            write!(f, "set.{}", cmp.name())?;
            opt(f, combine.map(|b| b.name()))?;
            flag(f, *ftz, "ftz")?;
            return write!(f, ".{dty}.{sty}");
        }
        Op::Selp { ty } => named(f, "selp", ty)?,
        Op::Slct { ty, cty, ftz } => {
            f.write_str("slct")?;
            flag(f, *ftz, "ftz")?;
            return write!(f, ".{ty}.{cty}");
        }
        Op::Mov { ty } | Op::Pack { ty } | Op::Unpack { ty } => named(f, "mov", ty)?,
        Op::Cvt {
            dty,
            sty,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        } => {
            f.write_str("cvt")?;
            match rnd {
                CvtRounding::None => {}
                CvtRounding::Float(r) => write!(f, ".{}", r.name())?,
                CvtRounding::Int(r) => write!(f, ".{}i", r.name())?,
            }
            flag(f, *ftz, "ftz")?;
            flag(f, *sat, "sat")?;
            flag(f, *relu, "relu")?;
            flag(f, *satfinite, "satfinite")?;
            return write!(f, ".{dty}.{sty}");
        }
        Op::Cvta {
            space,
            to_generic,
            ty,
        } => {
            f.write_str("cvta")?;
            flag(f, !*to_generic, "to")?;
            write!(f, ".{space}")?;
            std::slice::from_ref(ty)
        }
        Op::Ld {
            space,
            ty,
            vec,
            order,
            scope,
            cache,
            nc,
        } => {
            access_mnemonic(f, "ld", *order, *scope, *space, *cache, *nc, *vec)?;
            std::slice::from_ref(ty)
        }
        Op::St {
            space,
            ty,
            vec,
            order,
            scope,
            cache,
        } => {
            access_mnemonic(f, "st", *order, *scope, *space, *cache, false, *vec)?;
            std::slice::from_ref(ty)
        }
        Op::Ldu { space, ty, vec } => {
            f.write_str("ldu")?;
            opt(f, space_name(*space))?;
            opt(f, vec_name(*vec))?;
            std::slice::from_ref(ty)
        }
        Op::Atom {
            space,
            op: aop,
            ty,
            vec,
            order,
            scope,
        }
        | Op::Red {
            space,
            op: aop,
            ty,
            vec,
            order,
            scope,
        } => {
            f.write_str(if matches!(op, Op::Atom { .. }) {
                "atom"
            } else {
                "red"
            })?;
            opt(f, order_name(*order))?;
            opt(f, scope.map(|s| s.name()))?;
            opt(f, space_name(*space))?;
            write!(f, ".{}", atom_op(*aop))?;
            // Half-precision atomics are written `.noftz`.
            let half = matches!(ty, Type::F16 | Type::BF16 | Type::F16x2 | Type::BF16x2);
            flag(f, half, "noftz")?;
            opt(f, vec_name(*vec))?;
            std::slice::from_ref(ty)
        }
        Op::Bar { kind, aligned } => {
            let base = if *aligned { "bar" } else { "barrier" };
            return match kind {
                BarrierKind::Sync => write!(f, "{base}.sync"),
                BarrierKind::Arrive => write!(f, "{base}.arrive"),
                BarrierKind::Red(BarRedOp::Popc) => write!(f, "{base}.red.popc.u32"),
                BarrierKind::Red(BarRedOp::And) => write!(f, "{base}.red.and.pred"),
                BarrierKind::Red(BarRedOp::Or) => write!(f, "{base}.red.or.pred"),
                BarrierKind::ClusterArrive { relaxed } => {
                    f.write_str("barrier.cluster.arrive")?;
                    flag(f, *relaxed, "relaxed")?;
                    flag(f, *aligned, "aligned")
                }
                BarrierKind::ClusterWait => {
                    f.write_str("barrier.cluster.wait")?;
                    flag(f, *aligned, "aligned")
                }
            };
        }
        Op::BarWarpSync => return f.write_str("bar.warp.sync"),
        Op::Membar { level } => {
            return f.write_str(match level {
                MembarLevel::Cta => "membar.cta",
                MembarLevel::Gl => "membar.gl",
                MembarLevel::Sys => "membar.sys",
            });
        }
        Op::Fence { order, scope } => return write!(f, "fence.{}.{}", order.name(), scope.name()),
        Op::Vote { mode } => {
            return f.write_str(match mode {
                VoteMode::All => "vote.sync.all.pred",
                VoteMode::Any => "vote.sync.any.pred",
                VoteMode::Uni => "vote.sync.uni.pred",
                VoteMode::Ballot => "vote.sync.ballot.b32",
            });
        }
        Op::Shfl { mode } => {
            let mode = match mode {
                ShflMode::Up => "up",
                ShflMode::Down => "down",
                ShflMode::Bfly => "bfly",
                ShflMode::Idx => "idx",
            };
            return write!(f, "shfl.sync.{mode}.b32");
        }
        Op::Match { mode, ty } => {
            let mode = match mode {
                MatchMode::Any => "any",
                MatchMode::All => "all",
            };
            write!(f, "match.{mode}.sync")?;
            std::slice::from_ref(ty)
        }
        Op::Activemask => return f.write_str("activemask.b32"),
        Op::Elect => return f.write_str("elect.sync"),
        Op::Isspacep { space } => return write!(f, "isspacep.{space}"),
        Op::Createpolicy { priorities } => {
            let name = |code: u8| {
                [
                    "evict_last",
                    "evict_normal",
                    "evict_first",
                    "evict_unchanged",
                ][usize::from(code & 3)]
            };
            write!(f, "createpolicy.fractional.L2::{}", name(priorities & 0xf))?;
            if priorities >> 4 != 0 {
                write!(f, ".L2::{}", name(priorities >> 4))?;
            }
            return f.write_str(".b64");
        }
        Op::Redux {
            op: rop,
            ty,
            abs,
            nan,
        } => {
            let name = match rop {
                ReduxOp::Add => "add",
                ReduxOp::Min => "min",
                ReduxOp::Max => "max",
                ReduxOp::And => "and",
                ReduxOp::Or => "or",
                ReduxOp::Xor => "xor",
            };
            write!(f, "redux.sync.{name}")?;
            if *abs {
                f.write_str(".abs")?;
            }
            if *nan {
                f.write_str(".NaN")?;
            }
            std::slice::from_ref(ty)
        }
        Op::Movmatrix => return f.write_str("movmatrix.sync.aligned.m8n8.trans.b16"),
        Op::FMixed { op, half, rnd, sat } => {
            let name = match op {
                crate::inst::MixedOp::Add => "add",
                crate::inst::MixedOp::Sub => "sub",
                crate::inst::MixedOp::Fma => "fma",
            };
            write!(f, "{name}.{}", rnd.name())?;
            flag(f, *sat, "sat")?;
            return write!(f, ".f32.{half}");
        }
        Op::IPacked {
            op,
            ty,
            lanes,
            relu,
        } => {
            f.write_str(match op {
                crate::inst::PackedIntOp::Add => "add",
                crate::inst::PackedIntOp::Min => "min",
                crate::inst::PackedIntOp::Max => "max",
            })?;
            flag(f, *relu, "relu")?;
            return if *lanes == 2 {
                write!(f, ".{ty}x2")
            } else {
                write!(f, ".{ty}")
            };
        }
        Op::Mbarrier { op, space } => {
            let name = match op {
                MbarrierOp::Init => "mbarrier.init",
                MbarrierOp::Inval => "mbarrier.inval",
                MbarrierOp::Arrive { drop: false } => "mbarrier.arrive",
                MbarrierOp::Arrive { drop: true } => "mbarrier.arrive_drop",
                MbarrierOp::TestWait { parity } => {
                    f.write_str("mbarrier.test_wait")?;
                    flag(f, *parity, "parity")?;
                    ""
                }
                MbarrierOp::PendingCount => "mbarrier.pending_count",
                MbarrierOp::CpAsyncArrive { noinc } => {
                    f.write_str("cp.async.mbarrier.arrive")?;
                    flag(f, *noinc, "noinc")?;
                    ""
                }
            };
            f.write_str(name)?;
            opt(f, space_name(*space))?;
            return f.write_str(".b64");
        }
        Op::Tex(t) => {
            f.write_str("tex")?;
            match t.level {
                TexLevel::Implicit => {}
                TexLevel::Base => f.write_str(".base")?,
                TexLevel::Level => f.write_str(".level")?,
                TexLevel::Grad => f.write_str(".grad")?,
            }
            let vec = if t.dty == Type::F16x2 { 2 } else { 4 };
            return write!(f, ".{}.v{vec}.{}.{}", t.geom.name(), t.dty, t.cty);
        }
        Op::Tld4(t) => {
            return write!(
                f,
                "tld4.{}.{}.v4.{}.f32",
                t.comp.name(),
                t.geom.name(),
                t.dty
            );
        }
        Op::Txq { query, level } => {
            f.write_str("txq")?;
            flag(f, *level, "level")?;
            return write!(f, ".{}.b32", query.name());
        }
        Op::Suq { query } => return write!(f, "suq.{}.b32", query.name()),
        Op::Suld(a) | Op::Sust(a) => {
            let name = if matches!(op, Op::Suld(_)) {
                "suld"
            } else {
                "sust"
            };
            write!(f, "{name}.b.{}", a.geom.name())?;
            if a.vec > 1 {
                write!(f, ".v{}", a.vec)?;
            }
            return write!(f, ".{}.{}", a.ty, a.clamp.name());
        }
        Op::Sured { op: rop, access: a } => {
            return write!(
                f,
                "sured.b.{}.{}.{}.{}",
                atom_op(*rop),
                a.geom.name(),
                a.ty,
                a.clamp.name()
            );
        }
        Op::Bra { uni, .. } => return write!(f, "bra{}", if *uni { ".uni" } else { "" }),
        Op::Call { uni, .. } => return write!(f, "call{}", if *uni { ".uni" } else { "" }),
        Op::Ret { uni } => return write!(f, "ret{}", if *uni { ".uni" } else { "" }),
        Op::Exit => return f.write_str("exit"),
        Op::Trap => return f.write_str("trap"),
        Op::Unsupported { text } => return f.write_str(text),
    };
    for ty in tys {
        write!(f, ".{ty}")?;
    }
    Ok(())
}

/// Writes a base name and hands back the single type to append.
fn named<'t>(f: &mut Formatter<'_>, name: &str, ty: &'t Type) -> Result<&'t [Type], fmt::Error> {
    f.write_str(name)?;
    Ok(std::slice::from_ref(ty))
}

/// The type an immediate source operand of `op` is encoded in, when it is a float type whose
/// literal should print as PTX hex-float (`0f3F800000`, `0d3FF0000000000000`).
fn float_imm_type(op: &Op, src: usize) -> Option<Type> {
    let ty = match op {
        Op::FAdd { ty, .. }
        | Op::FSub { ty, .. }
        | Op::FMul { ty, .. }
        | Op::Fma { ty, .. }
        | Op::FDiv { ty, .. }
        | Op::Rcp { ty, .. }
        | Op::Sqrt { ty, .. }
        | Op::Transc { ty, .. }
        | Op::FAbs { ty, .. }
        | Op::FNeg { ty, .. }
        | Op::FMin { ty, .. }
        | Op::FMax { ty, .. }
        | Op::Copysign { ty }
        | Op::Testp { ty, .. }
        | Op::Setp { ty, .. }
        | Op::Selp { ty }
        | Op::Mov { ty }
        | Op::St { ty, .. }
        | Op::Atom { ty, .. }
        | Op::Red { ty, .. } => *ty,
        Op::Set { sty, .. } | Op::Cvt { sty, .. } => *sty,
        Op::Createpolicy { .. } => Type::F32,
        Op::Slct { ty, cty, .. } => {
            if src == 2 {
                *cty
            } else {
                *ty
            }
        }
        _ => return None,
    };
    matches!(ty, Type::F32 | Type::F64).then_some(ty)
}

fn write_imm(f: &mut Formatter<'_>, value: u64, ty: Option<Type>) -> fmt::Result {
    match ty {
        Some(Type::F32) => write!(f, "0f{:08X}", value as u32),
        Some(Type::F64) => write!(f, "0d{value:016X}"),
        _ => {
            let signed = value as i64;
            if signed.unsigned_abs() < 1 << 32 {
                write!(f, "{signed}")
            } else {
                write!(f, "0x{value:X}")
            }
        }
    }
}

fn write_offset(f: &mut Formatter<'_>, offset: i64) -> fmt::Result {
    match offset {
        0 => Ok(()),
        o if o > 0 => write!(f, "+{o}"),
        o => write!(f, "{o}"),
    }
}

/// Names registers, symbols and functions of one function (and its module, when known) for
/// printing operands and instructions.
#[derive(Clone, Copy, Debug)]
pub struct Printer<'a> {
    /// The module, for global symbols and functions; without it they print as `g3` / `fn3`.
    pub module: Option<&'a Module>,
    /// The function whose registers and symbols are named.
    pub func: &'a Function,
}

impl<'a> Printer<'a> {
    /// A printer for `func`, a function of `module` when given.
    pub fn new(module: Option<&'a Module>, func: &'a Function) -> Printer<'a> {
        Printer { module, func }
    }

    /// The register's declared name (`%r3`), or its id (`v3`) when out of range.
    pub fn reg_name(&self, v: VReg) -> Cow<'a, str> {
        match self.func.regs.get(v.index()) {
            Some(r) => Cow::Borrowed(r.name.as_str()),
            None => Cow::Owned(v.to_string()),
        }
    }

    /// A symbol's declared name, or a placeholder (`param3`, `ret0`, `l2`, `g1`) when it does
    /// not resolve.
    pub fn symbol_name(&self, s: SymbolRef) -> Cow<'a, str> {
        let var: Option<&'a Variable> = match s {
            SymbolRef::Param(i) => self.func.params.get(i as usize),
            SymbolRef::Ret(i) => self.func.rets.get(i as usize),
            SymbolRef::Local(l) => self.func.locals.get(l.index()),
            SymbolRef::Global(g) => self.module.and_then(|m| m.globals.get(g.index())),
        };
        match (var, s) {
            (Some(v), _) => Cow::Borrowed(v.name.as_str()),
            (None, SymbolRef::Param(i)) => Cow::Owned(format!("param{i}")),
            (None, SymbolRef::Ret(i)) => Cow::Owned(format!("ret{i}")),
            (None, SymbolRef::Local(l)) => Cow::Owned(l.to_string()),
            (None, SymbolRef::Global(g)) => Cow::Owned(g.to_string()),
        }
    }

    /// A function's name, or its id (`fn3`) without a module.
    pub fn func_name(&self, id: FuncId) -> Cow<'a, str> {
        match self.module.and_then(|m| m.functions.get(id.index())) {
            Some(f) => Cow::Borrowed(f.name.as_str()),
            None => Cow::Owned(id.to_string()),
        }
    }

    /// An operand: `%r3`, `!%p1`, `42`, `%tid.x`, `sym+8`, `[%rd1+16]`, `{%f1, %f2}`, `_`.
    /// Immediates print as integers; [`Printer::inst`] prints float ones in hex-float form.
    pub fn operand<'b>(&'b self, op: &'b Operand) -> impl Display + 'b {
        DisplayFn(move |f: &mut Formatter<'_>| self.write_operand(f, op, None))
    }

    fn write_address(&self, f: &mut Formatter<'_>, a: &Address) -> fmt::Result {
        f.write_str("[")?;
        match a.base {
            AddrBase::Reg(v) => {
                f.write_str(&self.reg_name(v))?;
                write_offset(f, a.offset)?;
            }
            AddrBase::Symbol(s) => {
                f.write_str(&self.symbol_name(s))?;
                write_offset(f, a.offset)?;
            }
            AddrBase::Absolute => write!(f, "{}", a.offset)?,
        }
        f.write_str("]")
    }

    fn write_operand(&self, f: &mut Formatter<'_>, op: &Operand, imm: Option<Type>) -> fmt::Result {
        match op {
            Operand::Reg(v) => f.write_str(&self.reg_name(*v)),
            Operand::NotPred(v) => write!(f, "!{}", self.reg_name(*v)),
            Operand::Imm(value) => write_imm(f, *value, imm),
            Operand::Special(s) => write!(f, "{s}"),
            Operand::SymbolAddr { sym, offset } => {
                f.write_str(&self.symbol_name(*sym))?;
                write_offset(f, *offset)
            }
            Operand::FuncAddr(id) => f.write_str(&self.func_name(*id)),
            Operand::Address(a) => self.write_address(f, a),
            Operand::Vector(elems) => {
                f.write_str("{")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    self.write_operand(f, e, imm)?;
                }
                f.write_str("}")
            }
            Operand::Sink => f.write_str("_"),
        }
    }

    /// An instruction in PTX-like syntax: `@!%p1 add.s32 %r1, %r2, 4;`, `bra.uni bb3;`,
    /// `setp.lt.s32 %p1|%p2, %r1, 0;`, `call.uni (retval0), foo, (param0, param1);`.
    pub fn inst<'b>(&'b self, inst: &'b Inst) -> impl Display + 'b {
        DisplayFn(move |f: &mut Formatter<'_>| self.write_inst(f, inst))
    }

    fn write_inst(&self, f: &mut Formatter<'_>, inst: &Inst) -> fmt::Result {
        if let Some(g) = inst.guard {
            write!(
                f,
                "@{}{} ",
                if g.negated { "!" } else { "" },
                self.reg_name(g.pred)
            )?;
        }
        write_mnemonic(f, &inst.op)?;
        let mut first = true;
        match &inst.op {
            Op::Bra { target, .. } => {
                write!(f, " {target}")?;
                first = false;
            }
            Op::Call {
                callee, args, rets, ..
            } => {
                f.write_str(" ")?;
                if !rets.is_empty() {
                    self.write_symbol_list(f, rets)?;
                    f.write_str(", ")?;
                }
                match callee {
                    crate::inst::Callee::Direct(id) => f.write_str(&self.func_name(*id))?,
                    // The target register is the only source.
                    crate::inst::Callee::Indirect => self.write_operand(f, &inst.srcs[0], None)?,
                }
                if !args.is_empty() {
                    f.write_str(", ")?;
                    self.write_symbol_list(f, args)?;
                }
                return f.write_str(";");
            }
            _ => {}
        }
        let pair = matches!(
            inst.op,
            Op::Setp { .. }
                | Op::Shfl { .. }
                | Op::Match { .. }
                | Op::Elect
                | Op::Lop3 { .. }
                | Op::Tex(_)
                | Op::Tld4(_)
        );
        // Texture and surface instructions bracket their object and coordinates, as PTX
        // writes them (`[%rd1, {%f1, %f2}]`, `txq.width.b32 %r1, [%rd1]`): the sources
        // `brackets.0..brackets.1`.
        let brackets = match &inst.op {
            Op::Tex(t) => Some((0, 2 + usize::from(t.sampler))),
            Op::Tld4(t) => Some((0, 2 + usize::from(t.sampler))),
            Op::Suld(_) | Op::Sust(_) | Op::Sured { .. } => Some((0, 2)),
            Op::Txq { .. } | Op::Suq { .. } => Some((0, 1)),
            _ => None,
        };
        // A SIMD video instruction's selectors follow their operands (`d.h0, a.h32, b.h10, c`)
        // where they are not the defaults.
        if let Op::VideoSimd(v) = &inst.op {
            let (da, db) = SimdVideo::default_selectors(v.lanes);
            let all = (1u8 << v.lanes) - 1;
            let sels = [
                (v.mask != all).then(|| simd_mask_name(v.mask, v.lanes)),
                (v.asel != da).then(|| simd_selector_name(v.asel, v.lanes)),
                (v.bsel != db).then(|| simd_selector_name(v.bsel, v.lanes)),
                None,
            ];
            for (i, o) in inst.dsts.iter().chain(&inst.srcs).enumerate() {
                f.write_str(if i == 0 { " " } else { ", " })?;
                self.write_operand(f, o, None)?;
                opt(f, sels.get(i).cloned().flatten())?;
            }
            return f.write_str(";");
        }
        // A video instruction's part selectors follow their operands (`d.h0, a.b1, b`), and
        // `vmad`'s negations precede them (`-a`).
        let negate = match inst.op {
            Op::Video(Video {
                op: VideoOp::Mad { negate, .. },
                ..
            }) => negate,
            _ => [false; 3],
        };
        let (dsel, srcsel) = match inst.op {
            Op::Video(Video {
                asel, bsel, then, ..
            }) => (
                match then {
                    VideoThen::Merge(p) => Some(p),
                    _ => None,
                },
                [asel, bsel],
            ),
            _ => (None, [None, None]),
        };
        for (i, d) in inst.dsts.iter().enumerate() {
            f.write_str(if first {
                " "
            } else if pair && i > 0 {
                "|"
            } else {
                ", "
            })?;
            first = false;
            self.write_operand(f, d, None)?;
            opt(f, dsel.map(Part::name))?;
        }
        for (i, s) in inst.srcs.iter().enumerate() {
            f.write_str(if first { " " } else { ", " })?;
            first = false;
            if brackets.is_some_and(|(start, _)| start == i) {
                f.write_str("[")?;
            }
            if negate.get(i) == Some(&true) {
                f.write_str("-")?;
            }
            self.write_operand(f, s, float_imm_type(&inst.op, i))?;
            opt(f, srcsel.get(i).copied().flatten().map(Part::name))?;
            if brackets.is_some_and(|(_, end)| end == i + 1) {
                f.write_str("]")?;
            }
        }
        f.write_str(";")
    }

    fn write_symbol_list(&self, f: &mut Formatter<'_>, syms: &[SymbolRef]) -> fmt::Result {
        f.write_str("(")?;
        for (i, s) in syms.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&self.symbol_name(*s))?;
        }
        f.write_str(")")
    }
}

/// A SIMD video selector as written: `h10`, `b7654` (element `lanes - 1` first).
fn simd_selector_name(sel: [u8; 4], lanes: u8) -> String {
    let prefix = if lanes == 2 { 'h' } else { 'b' };
    let digits: String = sel[..usize::from(lanes)]
        .iter()
        .rev()
        .map(|d| char::from(b'0' + d))
        .collect();
    format!("{prefix}{digits}")
}

/// A SIMD video destination mask as written: `h1`, `b310` (highest element first).
fn simd_mask_name(mask: u8, lanes: u8) -> String {
    let prefix = if lanes == 2 { 'h' } else { 'b' };
    let digits: String = (0..lanes)
        .rev()
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| char::from(b'0' + i))
        .collect();
    format!("{prefix}{digits}")
}

/// A variable declaration: `.shared .align 4 .b8 tile[1024]` (`.align` only when it differs
/// from the element size).
fn write_var(f: &mut Formatter<'_>, v: &Variable) -> fmt::Result {
    write!(f, ".{}", v.space)?;
    if u64::from(v.align) != v.elem_bytes() {
        write!(f, " .align {}", v.align)?;
    }
    if v.vec > 1 {
        write!(f, " .v{}", v.vec)?;
    }
    write!(f, " .{} {}", v.ty, v.name)?;
    match v.count {
        Some(0) => f.write_str("[]"),
        Some(n) => write!(f, "[{n}]"),
        None => Ok(()),
    }
}

fn linkage_prefix(l: Linkage) -> &'static str {
    match l {
        Linkage::Internal => "",
        Linkage::Visible => ".visible ",
        Linkage::Extern => ".extern ",
        Linkage::Weak => ".weak ",
        Linkage::Common => ".common ",
    }
}

fn write_var_list(f: &mut Formatter<'_>, vars: &[Variable]) -> fmt::Result {
    f.write_str("(")?;
    for (i, v) in vars.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_var(f, v)?;
    }
    f.write_str(")")
}

/// Column at which an instruction's annotations start (after PC and text).
const TEXT_WIDTH: usize = 44;

/// The annotated listing of one function, as `warpsim dis` prints it.
///
/// ```text
/// .visible .entry saxpy(.param .u32 saxpy_param_0, .param .f32 saxpy_param_1, ...)
/// // regs 9, preds 1 per thread; 17 vregs, 3 blocks, 20 insts
/// {
/// bb0:  // preds: none; loop depth 0
///      0  ld.param.u32 %r2, [saxpy_param_0];            // %r2→R0 | live: %r2
///      ...
///      9  @%p1 bra bb2;                                 // %p1→P0 | live: %f1 %r1 %rd1 %rd2 | reconverge at bb2
/// bb1:  // preds: bb0; loop depth 0
///     10  cvta.to.global.u64 %rd3, %rd2;                // %rd3→R[4:5] %rd2→R[4:5] | live: %f1 %r1 %rd1 %rd3
///      ...
/// bb2 ($L__BB0_2):  // preds: bb0, bb1; loop depth 0
///     19  ret;                                          // live: -
/// }
/// ```
///
/// - Header: linkage, `.entry`/`.func`, return parameters and name, parameters; then one line
///   per tuning directive (`.maxntid 256, 1, 1`, `.pragma "nounroll";`); then a comment with
///   the allocation's registers and predicates per thread and the function's sizes.
///   A declaration is the header line ending in `;` and nothing else.
/// - Function-scope variables, indented, after `{`.
/// - Blocks in layout order: `bbN:` or `bbN (label):`, then predecessors (`none` if there are
///   none), loop depth, `, header` for a loop header, `; unreachable` for dead blocks.
/// - Instructions: the PC (index in layout order, right-aligned to 6), the instruction padded
///   to 44 columns, then `// ` and, separated by ` | `: the physical register of each register
///   the instruction mentions in order of appearance (`%rd1→R[2:3]`, omitted when none), the
///   registers live after it in register order (`live: -` when none; left out when `live` is
///   false), and for a conditional branch `reconverge at bbN` or `reconverge at exit`.
pub struct FunctionText<'a> {
    /// The function (and module) to list.
    pub printer: Printer<'a>,
    /// The function's analyses, whose results annotate the listing.
    pub analysis: &'a FunctionAnalysis,
    /// Whether each instruction's line lists the registers live after it. A kernel with many
    /// values live at once makes that quadratic in its size (200,000 live values: 200,000
    /// names on each of 200,000 lines).
    pub live: bool,
}

impl Display for FunctionText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let func = self.printer.func;
        let a = self.analysis;
        f.write_str(linkage_prefix(func.linkage))?;
        f.write_str(match func.kind {
            FuncKind::Entry => ".entry ",
            FuncKind::Func => ".func ",
        })?;
        if !func.rets.is_empty() {
            write_var_list(f, &func.rets)?;
            f.write_str(" ")?;
        }
        f.write_str(&func.name)?;
        write_var_list(f, &func.params)?;
        if func.is_declaration() {
            return writeln!(f, ";");
        }
        writeln!(f)?;
        let t = &func.tuning;
        for (name, dims) in [(".maxntid", t.maxntid), (".reqntid", t.reqntid)] {
            if let Some([x, y, z]) = dims {
                writeln!(f, "{name} {x}, {y}, {z}")?;
            }
        }
        if let Some(n) = t.minnctapersm {
            writeln!(f, ".minnctapersm {n}")?;
        }
        if let Some(n) = t.maxnreg {
            writeln!(f, ".maxnreg {n}")?;
        }
        for p in &t.pragmas {
            writeln!(f, ".pragma \"{p}\";")?;
        }
        writeln!(
            f,
            "// regs {}, preds {} per thread; {} vregs, {} blocks, {} insts",
            a.alloc.regs_per_thread,
            a.alloc.preds_per_thread,
            func.regs.len(),
            func.blocks.len(),
            func.inst_count()
        )?;
        writeln!(f, "{{")?;
        for v in &func.locals {
            f.write_str("    ")?;
            write_var(f, v)?;
            writeln!(f, ";")?;
        }
        for b in func.block_ids() {
            self.write_block(f, b)?;
        }
        writeln!(f, "}}")
    }
}

impl FunctionText<'_> {
    fn write_block(&self, f: &mut Formatter<'_>, b: BlockId) -> fmt::Result {
        let p = &self.printer;
        let a = self.analysis;
        let block = p.func.block(b);
        match &block.label {
            Some(l) => write!(f, "{b} ({l}):  // preds: ")?,
            None => write!(f, "{b}:  // preds: ")?,
        }
        let preds = a.cfg.preds(b);
        if preds.is_empty() {
            f.write_str("none")?;
        }
        for (i, pred) in preds.iter().enumerate() {
            write!(f, "{}{pred}", if i > 0 { ", " } else { "" })?;
        }
        write!(f, "; loop depth {}", a.loops.depth(b))?;
        if a.loops.is_header(b) {
            f.write_str(", header")?;
        }
        if !a.cfg.is_reachable(b) {
            f.write_str("; unreachable")?;
        }
        writeln!(f)?;

        let last = block.insts.len().saturating_sub(1);
        // Forwards, from each instruction's changes: a dense set per instruction would cost
        // the function's register count for every line, however few are live.
        let mut result = Ok(());
        a.liveness.walk_forward(p.func, b, |i, inst, live| {
            if result.is_ok() {
                result = self.write_line(f, b, i, inst, live, i == last);
            }
        });
        result
    }

    /// One instruction's line: PC, text, registers with their physical registers, the
    /// registers live after it, and at a block's `last` instruction its reconvergence point.
    fn write_line(
        &self,
        f: &mut Formatter<'_>,
        b: BlockId,
        i: usize,
        inst: &Inst,
        live: &std::collections::BTreeSet<u32>,
        last: bool,
    ) -> fmt::Result {
        let p = &self.printer;
        let a = self.analysis;
        let text = p.inst(inst).to_string();
        let mut seen: Vec<VReg> = Vec::new();
        let guard = inst.guard.map(|g| g.pred);
        for v in guard
            .into_iter()
            .chain(inst.defs())
            .chain(inst.srcs.iter().flat_map(Operand::regs))
        {
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        // The annotations, ` | ` between them; the comment only when there is one.
        let mut annotations: Vec<String> = Vec::new();
        let physical: Vec<String> = seen
            .iter()
            .filter_map(|&v| Some(format!("{}→{}", p.reg_name(v), a.alloc.get(v)?)))
            .collect();
        if !physical.is_empty() {
            annotations.push(physical.join(" "));
        }
        if self.live {
            let mut names = String::from("live:");
            if live.is_empty() {
                names.push_str(" -");
            }
            for &v in live {
                let _ = write!(names, " {}", p.reg_name(VReg(v)));
            }
            annotations.push(names);
        }
        if let Some(r) = a.postdom.reconvergence_point(b).filter(|_| last) {
            annotations.push(format!("reconverge at {r}"));
        }
        if annotations.is_empty() {
            write!(f, "{:>6}  {text}", a.pc(b, i))?;
        } else {
            write!(
                f,
                "{:>6}  {text:<TEXT_WIDTH$}  // {}",
                a.pc(b, i),
                annotations.join(" | ")
            )?;
        }
        writeln!(f)
    }
}

/// The listing of a whole module: its `.version`/`.target`/`.address_size` lines, module-scope
/// variables, then each function as [`FunctionText`] prints it, separated by blank lines.
pub fn disassemble(m: &Module) -> String {
    disassemble_with(m, &ModuleAnalysis::compute(m))
}

/// Like [`disassemble`], with analyses already computed.
pub fn disassemble_with(m: &Module, analysis: &ModuleAnalysis) -> String {
    ModuleText {
        module: m,
        analysis,
        live: true,
    }
    .to_string()
}

/// The listing of a whole module, as [`disassemble`] returns it, to be written as it is
/// formatted (`warpsim dis` streams it rather than building it in memory).
pub struct ModuleText<'a> {
    /// The module to list.
    pub module: &'a Module,
    /// Its analyses, one per function in order.
    pub analysis: &'a ModuleAnalysis,
    /// Whether instructions list the registers live after them ([`FunctionText::live`]).
    pub live: bool,
}

impl Display for ModuleText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let m = self.module;
        writeln!(f, ".version {}.{}", m.version.0, m.version.1)?;
        writeln!(f, ".target {}", m.target.join(", "))?;
        writeln!(f, ".address_size {}", m.address_size)?;
        for g in &m.globals {
            f.write_str(linkage_prefix(g.linkage))?;
            write_var(f, g)?;
            writeln!(
                f,
                ";{}",
                if g.init.is_some() {
                    "  // initialized"
                } else {
                    ""
                }
            )?;
        }
        for (func, fa) in m.functions.iter().zip(&self.analysis.functions) {
            writeln!(f)?;
            write!(
                f,
                "{}",
                FunctionText {
                    printer: Printer::new(Some(m), func),
                    analysis: fa,
                    live: self.live,
                }
            )?;
        }
        Ok(())
    }
}

/// The PTX type name of a 32-bit integer operand of `dp4a`/`dp2a`.
fn s32_or_u32(signed: bool) -> &'static str {
    if signed { "s32" } else { "u32" }
}
