//! Decoding an opcode and its modifiers into a typed [`Op`] and the [`Shape`] of its operands.
//!
//! Validation follows the PTX ISA manual: each family accepts only the types and modifiers the
//! manual lists for it; anything else is an error naming the offending modifier. Instructions
//! that are valid PTX but that warpsim cannot execute decode to [`Op::Unsupported`].

use super::mods::Mods;
use super::shape::{Shape, Slot};
use crate::diag::Diagnostic;
use isa::*;

type Result<T> = std::result::Result<T, Diagnostic>;

/// The outcome of decoding an instruction's opcode and modifiers.
pub(crate) enum Decoded {
    /// A typed operation; its operands must match the shape.
    Op(Op, Shape),
    /// A branch (`bra`): its operand is a label resolved later.
    Bra { uni: bool },
    /// A `call`: operands are resolved by the caller.
    Call { uni: bool },
    /// `mov.vN.type d, a`: a move of `vec` elements (vector registers or `{...}` lists), lowered
    /// as one scalar `mov` per element.
    VectorMov { ty: Type, vec: u8 },
    /// `mov.b128`: packing into or unpacking a `.b128` register, lowered per 64-bit half.
    Mov128,
    /// A texture or surface instruction: its operands are lowered by `texture.rs`.
    Texture(Op),
    /// Valid PTX that warpsim does not execute; operands are not checked.
    Unsupported,
}

/// Opcodes that are valid PTX but not executed by warpsim (mbarrier, warpgroup matrix
/// operations, ...); other families leave some of their forms unexecuted. They lower to [`Op::Unsupported`] so that later stages can report
/// them with their location.
const UNSUPPORTED_OPCODES: &[&str] = &[
    "istypep",
    "cp",
    "mma",
    "ldmatrix",
    "stmatrix",
    "wgmma",
    "brkpt",
    "pmevent",
    "applypriority",
    "createpolicy",
    "discard",
    "griddepcontrol",
    "setmaxnreg",
    "alloca",
    "stackrestore",
    "stacksave",
    "getctarank",
    "mapa",
    "multimem",
    "tensormap",
    "clusterlaunchcontrol",
    "brx",
    "st.async",
    "red.async",
];

/// Type modifiers of the half- and reduced-precision formats.
const HALF_PRECISION_TYPES: &[&str] = &[
    "f16", "f16x2", "bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2",
    "ue8m0x2",
];

/// Type modifiers of the reduced-precision formats warpsim does not execute yet (fp6, fp4,
/// and tf32 and fp8 outside `cvt`).
const NARROW_FLOAT_TYPES: &[&str] = &[
    "tf32", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2",
];

/// The opcodes whose half-precision forms (`.f16`, `.f16x2`, `.bf16`, `.bf16x2`) warpsim
/// executes; the others (atomics, `ld`/`st` of PTX 8.x, ...) lower to [`Decoded::Unsupported`].
const HALF_PRECISION_OPCODES: &[&str] = &[
    "add", "sub", "mul", "fma", "neg", "abs", "min", "max", "setp", "set", "cvt", "mov", "ex2",
    "tanh", "atom", "red", "tex",
];

/// Decodes `opcode` with its modifiers. `Ok(None)` means the opcode is unknown.
pub(crate) fn decode(opcode: &str, m: &mut Mods) -> Result<Option<Decoded>> {
    let half = m.any(|s| HALF_PRECISION_TYPES.contains(&s));
    // Of the narrow formats, only conversions to tf32 and to and from fp8 execute.
    let narrow = m.any(|s| {
        NARROW_FLOAT_TYPES.contains(&s)
            && !(opcode == "cvt" && matches!(s, "tf32" | "e4m3x2" | "e5m2x2"))
    });
    let executed = HALF_PRECISION_OPCODES.contains(&opcode) && !narrow;
    if half && !executed && KNOWN_OPCODES.contains(&opcode) {
        return Ok(Some(Decoded::Unsupported));
    }
    if let Some(decoded) = super::texture::decode(opcode, m)? {
        return Ok(Some(decoded));
    }
    let decoded = match opcode {
        "add" | "sub" if is_mixed(m) => mixed(
            if opcode == "add" {
                MixedOp::Add
            } else {
                MixedOp::Sub
            },
            m,
        )?,
        "add" | "sub" => add_sub(opcode == "sub", m)?,
        "addc" | "subc" => {
            let op = if opcode == "addc" {
                CarryOp::Add
            } else {
                CarryOp::Sub
            };
            let carry_out = m.flag("cc")?;
            let ty = m.one_type()?;
            carry(m, op, ty, true, carry_out)?
        }
        "mul" => mul(m)?,
        "mad" => mad(m, false)?,
        "madc" => mad(m, true)?,
        "mul24" | "mad24" => mul24(opcode == "mad24", m)?,
        "div" => div(m)?,
        "rem" => {
            let ty = int_type(m, opcode)?;
            op(Op::IRem { ty }, Shape::binary(ty))
        }
        "abs" | "neg" => abs_neg(opcode == "neg", m)?,
        "min" | "max" => min_max(opcode == "max", m)?,
        "sad" => {
            let ty = int_type(m, opcode)?;
            op(Op::Sad { ty }, Shape::ternary(ty))
        }
        "popc" | "clz" | "brev" => bit_count(opcode, m)?,
        "bfind" => {
            let shift_amount = m.flag("shiftamt")?;
            let ty = typed(m, opcode, &[Type::U32, Type::U64, Type::S32, Type::S64])?;
            op(
                Op::Bfind { ty, shift_amount },
                Shape::new().d(Slot::Val(Type::U32)).s(Slot::Val(ty)),
            )
        }
        "bfe" => {
            let ty = typed(m, opcode, &[Type::U32, Type::U64, Type::S32, Type::S64])?;
            let shape = Shape::unary(ty)
                .s(Slot::Val(Type::U32))
                .s(Slot::Val(Type::U32));
            op(Op::Bfe { ty }, shape)
        }
        "bfi" => {
            let ty = typed(m, opcode, &[Type::B32, Type::B64])?;
            op(
                Op::Bfi { ty },
                Shape::binary(ty)
                    .s(Slot::Val(Type::U32))
                    .s(Slot::Val(Type::U32)),
            )
        }
        "prmt" => {
            let mode = m.take(|s| {
                Some(match s {
                    "f4e" => PrmtMode::F4e,
                    "b4e" => PrmtMode::B4e,
                    "rc8" => PrmtMode::Rc8,
                    "ecl" => PrmtMode::Ecl,
                    "ecr" => PrmtMode::Ecr,
                    "rc16" => PrmtMode::Rc16,
                    _ => return None,
                })
            })?;
            typed(m, opcode, &[Type::B32])?;
            op(Op::Prmt { mode }, Shape::ternary(Type::B32))
        }
        "shf" => {
            let dir = m.take(|s| match s {
                "l" => Some(ShiftDir::Left),
                "r" => Some(ShiftDir::Right),
                _ => None,
            })?;
            let dir = dir.ok_or_else(|| m.error("missing direction `.l` or `.r`"))?;
            let mode = shift_mode(m)?;
            typed(m, opcode, &[Type::B32])?;
            op(
                Op::Shf { dir, mode },
                Shape::binary(Type::B32).s(Slot::Val(Type::U32)),
            )
        }
        "fns" => {
            typed(m, opcode, &[Type::B32])?;
            op(
                Op::Fns,
                Shape::new()
                    .d(Slot::Val(Type::B32))
                    .s(Slot::Val(Type::B32))
                    .s(Slot::Val(Type::U32))
                    .s(Slot::Val(Type::S32)),
            )
        }
        "bmsk" => {
            let mode = shift_mode(m)?;
            typed(m, opcode, &[Type::B32])?;
            op(
                Op::Bmsk { mode },
                Shape::new()
                    .d(Slot::Val(Type::B32))
                    .s(Slot::Val(Type::U32))
                    .s(Slot::Val(Type::U32)),
            )
        }
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" | "vmad" => {
            video(opcode, m)?
        }
        "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2" | "vadd4"
        | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => simd_video(opcode, m)?,
        "lop3" => {
            let combine = m.take(|s| match s {
                "and" => Some(BoolOp::And),
                "or" => Some(BoolOp::Or),
                _ => None,
            })?;
            typed(m, opcode, &[Type::B32])?;
            // The look-up table is an immediate (checked by `body`).
            let mut shape = Shape::ternary(Type::B32).s(Slot::Val(Type::B32));
            if combine.is_some() {
                shape = shape.d(Slot::Pred { negatable: false });
                shape = shape.s(Slot::Pred { negatable: true });
            }
            op(Op::Lop3 { combine }, shape)
        }
        "szext" => {
            let mode = shift_mode(m)?;
            let signed = typed(m, opcode, &[Type::U32, Type::S32])? == Type::S32;
            op(
                Op::Szext { mode, signed },
                Shape::new()
                    .d(Slot::Val(Type::B32))
                    .s(Slot::Val(Type::B32))
                    .s(Slot::Val(Type::U32)),
            )
        }
        "dp4a" | "dp2a" => dot_product(opcode, m)?,
        "and" | "or" | "xor" | "not" | "cnot" => logic(opcode, m)?,
        "shl" | "shr" => {
            let allowed: &[Type] = if opcode == "shl" {
                &[Type::B16, Type::B32, Type::B64]
            } else {
                &[
                    Type::B16,
                    Type::B32,
                    Type::B64,
                    Type::U16,
                    Type::U32,
                    Type::U64,
                    Type::S16,
                    Type::S32,
                    Type::S64,
                ]
            };
            let ty = typed(m, opcode, allowed)?;
            let shape = Shape::unary(ty).s(Slot::Val(Type::U32));
            op(
                if opcode == "shl" {
                    Op::Shl { ty }
                } else {
                    Op::Shr { ty }
                },
                shape,
            )
        }
        "fma" if is_mixed(m) => mixed(MixedOp::Fma, m)?,
        "fma" => {
            let rnd = float_rounding(m)?.ok_or_else(|| m.error("missing rounding modifier"))?;
            let (ftz, sat, relu) = (m.flag("ftz")?, m.flag("sat")?, m.flag("relu")?);
            let ty = m.one_type()?;
            arith_float(m, opcode, ty, Some(rnd), ftz, sat)?;
            if relu && (!is_half(ty) || sat) {
                return Err(
                    m.error("`.relu` applies only to half-precision types, and not with `.sat`")
                );
            }
            op(
                Op::Fma {
                    ty,
                    rnd,
                    ftz,
                    sat,
                    relu,
                },
                Shape::ternary(ty),
            )
        }
        "rcp" | "sqrt" => rcp_sqrt(opcode == "sqrt", m)?,
        "rsqrt" | "sin" | "cos" | "ex2" | "lg2" | "tanh" => transcendental(opcode, m)?,
        "copysign" => {
            let ty = typed(m, opcode, &[Type::F32, Type::F64])?;
            op(Op::Copysign { ty }, Shape::binary(ty))
        }
        "testp" => {
            let prop = m.take(|s| {
                Some(match s {
                    "finite" => TestProp::Finite,
                    "infinite" => TestProp::Infinite,
                    "number" => TestProp::Number,
                    "notanumber" => TestProp::NotANumber,
                    "normal" => TestProp::Normal,
                    "subnormal" => TestProp::Subnormal,
                    _ => return None,
                })
            })?;
            let prop = prop.ok_or_else(|| m.error("missing property"))?;
            let ty = typed(m, opcode, &[Type::F32, Type::F64])?;
            op(
                Op::Testp { prop, ty },
                Shape::new()
                    .d(Slot::Pred { negatable: false })
                    .s(Slot::Val(ty)),
            )
        }
        "setp" => setp(m)?,
        "set" => set(m)?,
        "selp" => {
            let ty = typed(m, opcode, VALUE_TYPES)?;
            op(
                Op::Selp { ty },
                Shape::binary(ty).s(Slot::Pred { negatable: false }),
            )
        }
        "slct" => {
            let ftz = m.flag("ftz")?;
            let (ty, cty) = m.two_types()?;
            check_type(m, opcode, ty, VALUE_TYPES)?;
            check_type(m, opcode, cty, &[Type::S32, Type::F32])?;
            op(
                Op::Slct { ty, cty, ftz },
                Shape::binary(ty).s(Slot::Val(cty)),
            )
        }
        "mov" => {
            let vec = m.vector()?;
            let ty = m.one_type()?;
            if vec > 1 {
                if vec > 4 || ty == Type::Pred || is_half(ty) && ty.bits() != 16 {
                    return Err(m.error(format!("invalid vector move `.v{vec}.{ty}`")));
                }
                check_type(m, opcode, ty, &VALUE_TYPES_AND_PRED)
                    .or_else(|e| if is_half(ty) { Ok(()) } else { Err(e) })?;
                return Ok(Some(Decoded::VectorMov { ty, vec }));
            }
            if ty == Type::B128 {
                return Ok(Some(Decoded::Mov128));
            }
            if !is_half(ty) {
                check_type(m, opcode, ty, &VALUE_TYPES_AND_PRED)?;
            }
            // Pack/unpack are told apart from plain moves by their operands (see `body`).
            op(
                Op::Mov { ty },
                Shape::new().d(Slot::Val(ty)).s(Slot::MovSrc(ty)),
            )
        }
        "cvt" => cvt(m)?,
        "nanosleep" => {
            typed(m, opcode, &[Type::U32])?;
            op(Op::Nanosleep, Shape::new().s(Slot::Val(Type::U32)))
        }
        "cvta" => {
            let to_generic = !m.flag("to")?;
            let space = m
                .take(StateSpace::from_name)?
                .ok_or_else(|| m.error("missing state space"))?;
            if !matches!(
                space,
                StateSpace::Global
                    | StateSpace::Shared
                    | StateSpace::Local
                    | StateSpace::Const
                    | StateSpace::Param
            ) {
                return Err(m.error(format!("invalid state space `.{space}`")));
            }
            let ty = typed(m, "cvta", &[Type::U32, Type::U64])?;
            op(
                Op::Cvta {
                    space,
                    to_generic,
                    ty,
                },
                Shape::new().d(Slot::Val(ty)).s(Slot::CvtaSrc(ty)),
            )
        }
        "ld" | "ldu" => load(opcode == "ldu", m)?,
        "st" => store(m)?,
        "atom" | "red" => atomic(opcode == "red", m)?,
        "bar" | "barrier" => barrier(opcode == "bar", m)?,
        "membar" => {
            let level = m.take(|s| match s {
                "cta" => Some(MembarLevel::Cta),
                "gl" => Some(MembarLevel::Gl),
                "sys" => Some(MembarLevel::Sys),
                _ => None,
            })?;
            let level = level.ok_or_else(|| m.error("missing level `.cta`, `.gl` or `.sys`"))?;
            op(Op::Membar { level }, Shape::new())
        }
        "fence" => {
            if m.flag("proxy")? {
                return Ok(Some(Decoded::Unsupported));
            }
            let order = m.take(|s| match s {
                "sc" => Some(MemOrder::Sc),
                "acq_rel" => Some(MemOrder::AcqRel),
                _ => None,
            })?;
            let scope = m
                .take(Scope::from_name)?
                .ok_or_else(|| m.error("missing scope"))?;
            op(
                Op::Fence {
                    order: order.unwrap_or(MemOrder::AcqRel),
                    scope,
                },
                Shape::new(),
            )
        }
        "vote" => vote(m)?,
        "shfl" => {
            let sync = m.flag("sync")?;
            let mode = m.take(|s| {
                Some(match s {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    "idx" => ShflMode::Idx,
                    _ => return None,
                })
            })?;
            let mode = mode.ok_or_else(|| m.error("missing mode"))?;
            typed(m, opcode, &[Type::B32])?;
            let shape = Shape::new()
                .d(Slot::Val(Type::B32))
                .opt_d(Slot::Pred { negatable: false })
                .s(Slot::Val(Type::B32))
                .s(Slot::Val(Type::B32))
                .s(Slot::Val(Type::B32));
            // The legacy form (deprecated in PTX ISA 6.0) has no member mask: it shuffles among
            // the executing threads.
            let shape = if sync {
                shape.s(Slot::Val(Type::B32))
            } else {
                shape
            };
            op(Op::Shfl { mode }, shape)
        }
        "match" => {
            let mode = m.take(|s| match s {
                "any" => Some(MatchMode::Any),
                "all" => Some(MatchMode::All),
                _ => None,
            })?;
            let mode = mode.ok_or_else(|| m.error("missing mode `.any` or `.all`"))?;
            if !m.flag("sync")? {
                return Err(m.error("missing `.sync`"));
            }
            let ty = typed(m, opcode, &[Type::B32, Type::B64])?;
            let mut shape = Shape::new().d(Slot::Val(Type::B32));
            if mode == MatchMode::All {
                shape = shape.opt_d(Slot::Pred { negatable: false });
            }
            op(
                Op::Match { mode, ty },
                shape.s(Slot::Val(ty)).s(Slot::Val(Type::B32)),
            )
        }
        "activemask" => {
            typed(m, opcode, &[Type::B32])?;
            op(Op::Activemask, Shape::new().d(Slot::Val(Type::B32)))
        }
        "elect" => {
            if !m.flag("sync")? {
                return Err(m.error("missing `.sync`"));
            }
            let shape = Shape::new()
                .d(Slot::Val(Type::B32))
                .d(Slot::Pred { negatable: false })
                .s(Slot::Val(Type::B32));
            op(Op::Elect, shape)
        }
        "redux" => {
            if !m.flag("sync")? {
                return Err(m.error("missing `.sync`"));
            }
            let rop = m.take(|s| {
                Some(match s {
                    "add" => ReduxOp::Add,
                    "min" => ReduxOp::Min,
                    "max" => ReduxOp::Max,
                    "and" => ReduxOp::And,
                    "or" => ReduxOp::Or,
                    "xor" => ReduxOp::Xor,
                    _ => return None,
                })
            })?;
            let rop = rop.ok_or_else(|| m.error("missing operation"))?;
            let allowed: &[Type] = match rop {
                ReduxOp::Add => &[Type::U32, Type::S32],
                ReduxOp::Min | ReduxOp::Max => &[Type::U32, Type::S32, Type::F32],
                ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => &[Type::B32],
            };
            // sm_100a's floating-point forms: `.abs` and `.NaN` come with `.f32` only.
            let (abs, nan) = if m.any(|s| s == "f32") {
                (m.flag("abs")?, m.flag("NaN")?)
            } else {
                (false, false)
            };
            let ty = typed(m, opcode, allowed)?;
            op(
                Op::Redux {
                    op: rop,
                    ty,
                    abs,
                    nan,
                },
                Shape::unary(ty).s(Slot::Val(Type::B32)),
            )
        }
        "bra" => Decoded::Bra {
            uni: m.flag("uni")?,
        },
        "call" => Decoded::Call {
            uni: m.flag("uni")?,
        },
        "ret" => op(
            Op::Ret {
                uni: m.flag("uni")?,
            },
            Shape::new(),
        ),
        "exit" => op(Op::Exit, Shape::new()),
        "trap" => op(Op::Trap, Shape::new()),
        // Sub-byte and single-bit fragments are not executed.
        "wmma" if !m.any(|s| matches!(s, "s4" | "u4" | "b1" | "popc")) => wmma(m)?,
        // Sparse and block-scaled `mma` are not executed.
        "mma" if m.any(|s| s == "sync") && !m.any(|s| matches!(s, "sp" | "block_scale")) => mma(m)?,
        "ldmatrix" | "stmatrix" if m.any(|s| s == "m8n8") && m.any(|s| s == "b16") => {
            ldst_matrix(opcode == "ldmatrix", m)?
        }
        // `prefetch.tensormap` is not executed.
        "prefetch" | "prefetchu" => {
            let space = memory_space(m)?;
            // A tensor map is a kernel parameter, a constant or a generic address.
            let tensormap = m.any(|s| s == "tensormap");
            let spaces: &[StateSpace] = if tensormap {
                &[StateSpace::Param, StateSpace::Const, StateSpace::Generic]
            } else {
                &[StateSpace::Global, StateSpace::Local, StateSpace::Generic]
            };
            if !spaces.contains(&space) {
                return Err(m.error(format!("invalid state space `.{space}` for `{opcode}`")));
            }
            let level = m
                .take(PrefetchLevel::from_name)?
                .ok_or_else(|| m.error("missing the cache level (`.L1`, `.L2`, ...)"))?;
            let uniform = opcode == "prefetchu";
            if uniform && level != PrefetchLevel::L1 {
                return Err(m.error("`prefetchu` prefetches into `.L1` only"));
            }
            op(
                Op::Prefetch {
                    space,
                    level,
                    uniform,
                },
                Shape::new().s(Slot::Addr),
            )
        }
        "mbarrier" => mbarrier(m)?,
        "movmatrix" => {
            for f in ["sync", "aligned", "m8n8", "trans"] {
                if !m.flag(f)? {
                    return Err(m.error(format!("missing `.{f}`")));
                }
            }
            match m.one_type()? {
                Type::B16 => {}
                ty => return Err(m.error(format!("invalid type `.{ty}` (`.b16`)"))),
            }
            op(
                Op::Movmatrix,
                Shape::new().d(Slot::Val(Type::B32)).s(Slot::Val(Type::B32)),
            )
        }
        // The range and conversion forms are not executed.
        "createpolicy" if m.any(|s| s == "fractional") => {
            m.flag("fractional")?;
            let priorities = m.take_all(|s| {
                Some(match s {
                    "L2::evict_last" => 0u8,
                    "L2::evict_normal" => 1,
                    "L2::evict_first" => 2,
                    "L2::evict_unchanged" => 3,
                    _ => return None,
                })
            });
            let priorities = match priorities.as_slice() {
                [p] => *p,
                // The secondary priority is evict_first or evict_unchanged.
                [p, s @ (2 | 3)] => p | s << 4,
                _ => {
                    return Err(m.error(
                        "expected a primary eviction priority (`.L2::evict_last`, ...) and at most an `.L2::evict_first` or `.L2::evict_unchanged` secondary one",
                    ));
                }
            };
            b64(m)?;
            op(
                Op::Createpolicy { priorities },
                Shape::new()
                    .d(Slot::Val(Type::B64))
                    .opt_s(Slot::Val(Type::F32)),
            )
        }
        "isspacep" => {
            let space = m
                .take(StateSpace::from_name)?
                .ok_or_else(|| m.error("missing the state space (`.global`, `.shared`, ...)"))?;
            let space = match space {
                StateSpace::Global
                | StateSpace::Const
                | StateSpace::Local
                | StateSpace::Shared
                | StateSpace::Param => space,
                // A cluster's shared memory is the CTA's own here (clusters of one CTA).
                StateSpace::SharedCluster => StateSpace::Shared,
                s => return Err(m.error(format!("invalid state space `.{s}` for `isspacep`"))),
            };
            op(
                Op::Isspacep { space },
                // "The source address operand must be of type .u32 or .u64", whatever the
                // address size (a wider one is truncated to it when tested).
                Shape::new()
                    .d(Slot::Pred { negatable: false })
                    .s(Slot::Wide(Type::U32)),
            )
        }
        "cp" if m.any(|s| s == "async")
            && m.any(|s| s == "mbarrier")
            && !m.any(|s| s == "bulk") =>
        {
            m.flag("async")?;
            m.flag("mbarrier")?;
            if !m.flag("arrive")? {
                return Err(m.error("missing `.arrive`"));
            }
            let noinc = m.flag("noinc")?;
            let space = mbarrier_space(m)?;
            b64(m)?;
            op(
                Op::Mbarrier {
                    op: MbarrierOp::CpAsyncArrive { noinc },
                    space,
                },
                Shape::new().s(Slot::Addr),
            )
        }
        "cp" if m.any(|s| s == "async") && !m.any(|s| matches!(s, "bulk" | "mbarrier")) => {
            cp_async(m)?
        }
        _ if is_unsupported_opcode(opcode, m) => Decoded::Unsupported,
        _ => return Ok(None),
    };
    Ok(Some(decoded))
}

/// Every opcode `decode` accepts, for telling half-precision forms of known instructions
/// (lowered as unsupported) from unknown opcodes.
const KNOWN_OPCODES: &[&str] = &[
    "add",
    "sub",
    "addc",
    "subc",
    "mul",
    "mad",
    "madc",
    "mul24",
    "mad24",
    "div",
    "rem",
    "abs",
    "neg",
    "min",
    "max",
    "sad",
    "popc",
    "clz",
    "brev",
    "bfind",
    "bfe",
    "bfi",
    "prmt",
    "shf",
    "bmsk",
    "fns",
    "szext",
    "dp4a",
    "dp2a",
    "and",
    "or",
    "xor",
    "not",
    "cnot",
    "shl",
    "shr",
    "fma",
    "rcp",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "ex2",
    "lg2",
    "tanh",
    "copysign",
    "testp",
    "setp",
    "set",
    "selp",
    "slct",
    "mov",
    "cvt",
    "cvta",
    "ld",
    "ldu",
    "st",
    "atom",
    "red",
    "bar",
    "barrier",
    "membar",
    "fence",
    "vote",
    "shfl",
    "match",
    "activemask",
    "redux",
    "elect",
    "bra",
    "call",
    "ret",
    "exit",
    "trap",
];

fn is_unsupported_opcode(opcode: &str, m: &Mods) -> bool {
    let full = m.full_name();
    UNSUPPORTED_OPCODES
        .iter()
        .any(|u| *u == opcode || (u.contains('.') && full.starts_with(u)))
}

fn op(op: Op, shape: Shape) -> Decoded {
    Decoded::Op(op, shape)
}

const INTS: [Type; 6] = [
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
];
/// Every 16-, 32- and 64-bit type: what `selp`, `slct`, `setp`, `set` and `mov` take (`mov`
/// takes `.pred` as well, and with `.pred` at its head this is that list too).
const VALUE_TYPES_AND_PRED: [Type; 12] = [
    Type::Pred,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
];
/// [`VALUE_TYPES_AND_PRED`] without `.pred`.
const VALUE_TYPES: &[Type] = VALUE_TYPES_AND_PRED.split_at(1).1;

/// Checks `ty` against the types the manual allows for `opcode`; half-precision types are valid
/// PTX that warpsim does not execute yet.
fn check_type(m: &Mods, opcode: &str, ty: Type, allowed: &[Type]) -> Result<()> {
    if allowed.contains(&ty) {
        Ok(())
    } else {
        Err(Diagnostic::semantic(
            m.span(),
            format!("invalid type `.{ty}` for `{opcode}`"),
        ))
    }
}

/// Consumes the one type modifier and checks it.
fn typed(m: &mut Mods, opcode: &str, allowed: &[Type]) -> Result<Type> {
    let ty = m.one_type()?;
    check_type(m, opcode, ty, allowed)?;
    Ok(ty)
}

fn int_type(m: &mut Mods, opcode: &str) -> Result<Type> {
    typed(m, opcode, &INTS)
}

/// Whether the types are sm_100's mixed `.f32.f16`/`.f32.bf16`.
fn is_mixed(m: &Mods) -> bool {
    m.any(|s| s == "f32") && m.any(|s| matches!(s, "f16" | "bf16"))
}

/// sm_100's mixed-precision `add`/`sub{.rnd}{.sat}.f32.atype` and `fma.rnd{.sat}.f32.abtype`.
fn mixed(op: MixedOp, m: &mut Mods) -> Result<Decoded> {
    let rnd = float_rounding(m)?;
    let rnd = match (op, rnd) {
        (MixedOp::Fma, None) => return Err(m.error("missing rounding modifier")),
        (_, r) => r.unwrap_or(Rounding::Rn),
    };
    let sat = m.flag("sat")?;
    let half = match m.two_types()? {
        (Type::F32, h @ (Type::F16 | Type::BF16)) => h,
        _ => {
            return Err(
                m.error("mixed precision is `.f32` with `.f16` or `.bf16` operands (`.f32.f16`)")
            );
        }
    };
    let shape = Shape::new().d(Slot::Val(Type::F32)).s(Slot::Val(half));
    let shape = match op {
        MixedOp::Fma => shape.s(Slot::Val(half)).s(Slot::Val(Type::F32)),
        _ => shape.s(Slot::Val(Type::F32)),
    };
    Ok(Decoded::Op(Op::FMixed { op, half, rnd, sat }, shape))
}

fn float_rounding(m: &mut Mods) -> Result<Option<Rounding>> {
    m.take(|s| match s {
        "rn" => Some(Rounding::Rn),
        "rz" => Some(Rounding::Rz),
        "rm" => Some(Rounding::Rm),
        "rp" => Some(Rounding::Rp),
        _ => None,
    })
}

/// `dp4a.atype.btype` and `dp2a.mode.atype.btype`: `c` and `d` are `.u32` when both inputs
/// are, else `.s32`.
fn dot_product(opcode: &str, m: &mut Mods) -> Result<Decoded> {
    let hi = if opcode == "dp2a" {
        let half = m.take(|s| match s {
            "lo" => Some(false),
            "hi" => Some(true),
            _ => None,
        })?;
        Some(half.ok_or_else(|| m.error("missing mode `.lo` or `.hi`"))?)
    } else {
        None
    };
    let (a_ty, b_ty) = m.two_types()?;
    for ty in [a_ty, b_ty] {
        check_type(m, opcode, ty, &[Type::U32, Type::S32])?;
    }
    let (a_signed, b_signed) = (a_ty == Type::S32, b_ty == Type::S32);
    let acc = if a_signed || b_signed {
        Type::S32
    } else {
        Type::U32
    };
    let shape = Shape::new()
        .d(Slot::Val(acc))
        .s(Slot::Val(a_ty))
        .s(Slot::Val(b_ty))
        .s(Slot::Val(acc));
    let op = match hi {
        None => Op::Dp4a { a_signed, b_signed },
        Some(hi) => Op::Dp2a {
            hi,
            a_signed,
            b_signed,
        },
    };
    Ok(Decoded::Op(op, shape))
}

fn shift_mode(m: &mut Mods) -> Result<ShiftMode> {
    let mode = m.take(|s| match s {
        "clamp" => Some(ShiftMode::Clamp),
        "wrap" => Some(ShiftMode::Wrap),
        _ => None,
    })?;
    mode.ok_or_else(|| m.error("missing mode `.clamp` or `.wrap`"))
}

fn add_sub(sub: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if sub { "sub" } else { "add" };
    // sm_90's packed halves.
    if !sub
        && let Some(ty) = m.take(|s| match s {
            "u16x2" => Some(Type::U16),
            "s16x2" => Some(Type::S16),
            _ => None,
        })?
    {
        let op = Op::IPacked {
            op: PackedIntOp::Add,
            ty,
            lanes: 2,
            relu: false,
        };
        return Ok(Decoded::Op(op, Shape::binary(Type::B32)));
    }
    // The type tells the integer form from the float form.
    let ty = m.one_type()?;
    if m.flag("cc")? {
        let op = if sub { CarryOp::Sub } else { CarryOp::Add };
        return carry(m, op, ty, false, true);
    }
    if ty.is_float() {
        let rnd = float_rounding(m)?;
        let (ftz, sat) = (m.flag("ftz")?, m.flag("sat")?);
        arith_float(m, name, ty, rnd, ftz, sat)?;
        let op = if sub {
            Op::FSub { ty, rnd, ftz, sat }
        } else {
            Op::FAdd { ty, rnd, ftz, sat }
        };
        return Ok(Decoded::Op(op, Shape::binary(ty)));
    }
    let sat = m.flag("sat")?;
    check_type(m, name, ty, &INTS)?;
    if sat && ty != Type::S32 {
        return Err(m.error("`.sat` applies only to `.s32`"));
    }
    let op = if sub {
        Op::ISub { ty, sat }
    } else {
        Op::IAdd { ty, sat }
    };
    Ok(Decoded::Op(op, Shape::binary(ty)))
}

/// A carry-chain add or subtract of type `ty` (already consumed from the modifiers).
fn carry(m: &Mods, op: CarryOp, ty: Type, carry_in: bool, carry_out: bool) -> Result<Decoded> {
    check_type(
        m,
        m.opcode(),
        ty,
        &[Type::U32, Type::S32, Type::U64, Type::S64],
    )?;
    let op = Op::Carry {
        op,
        ty,
        carry_in,
        carry_out,
    };
    Ok(Decoded::Op(op, Shape::binary(ty)))
}

fn mul_mode(m: &mut Mods) -> Result<Option<MulMode>> {
    m.take(|s| match s {
        "lo" => Some(MulMode::Lo),
        "hi" => Some(MulMode::Hi),
        "wide" => Some(MulMode::Wide),
        _ => None,
    })
}

/// The destination type of a `.wide` multiply of `ty`.
fn widened(ty: Type) -> Type {
    match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        _ => Type::S64,
    }
}

fn mul(m: &mut Mods) -> Result<Decoded> {
    // The type tells the integer form from the float form.
    let ty = m.one_type()?;
    if ty.is_float() {
        let rnd = float_rounding(m)?;
        let (ftz, sat) = (m.flag("ftz")?, m.flag("sat")?);
        arith_float(m, "mul", ty, rnd, ftz, sat)?;
        return Ok(Decoded::Op(
            Op::FMul { ty, rnd, ftz, sat },
            Shape::binary(ty),
        ));
    }
    let mode = mul_mode(m)?.ok_or_else(|| m.error("missing `.lo`, `.hi` or `.wide`"))?;
    check_type(m, "mul", ty, &INTS)?;
    let shape = match mode {
        MulMode::Wide => wide_shape(m, ty)?,
        _ => Shape::binary(ty),
    };
    Ok(Decoded::Op(Op::IMul { ty, mode }, shape))
}

fn wide_shape(m: &Mods, ty: Type) -> Result<Shape> {
    if ty.bits() > 32 {
        return Err(m.error("`.wide` applies only to 16- and 32-bit types"));
    }
    Ok(Shape::new()
        .d(Slot::Val(widened(ty)))
        .s(Slot::Val(ty))
        .s(Slot::Val(ty)))
}

/// The half-precision types: `.f16`, `.bf16` and their packed pairs.
fn is_half(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2)
}

/// Checks the float type and modifiers of `add sub mul fma`: f32 and f64 round in every
/// direction, f16 and bf16 (scalar or packed) to nearest only; `.ftz` and `.sat` apply to
/// f32, f16 and f16x2.
fn arith_float(
    m: &Mods,
    opcode: &str,
    ty: Type,
    rnd: Option<Rounding>,
    ftz: bool,
    sat: bool,
) -> Result<()> {
    if !is_half(ty) {
        float_check(m, opcode, ty, ftz || sat)?;
        return Ok(());
    }
    if rnd.is_some_and(|r| r != Rounding::Rn) {
        return Err(m.error(format!("`.{ty}` rounds to nearest only (`.rn`)")));
    }
    half_ftz_check(m, ty, ftz || sat)
}

/// `.ftz` (and `.sat`, where `mods` says it was given) apply to `.f16` and `.f16x2`, not to
/// bf16.
fn half_ftz_check(m: &Mods, ty: Type, mods: bool) -> Result<()> {
    if mods && matches!(ty, Type::BF16 | Type::BF16x2) {
        return Err(m.error(format!("`.ftz` and `.sat` do not apply to `.{ty}`")));
    }
    Ok(())
}

fn float_check(m: &Mods, opcode: &str, ty: Type, f32_only_mods: bool) -> Result<Type> {
    check_type(m, opcode, ty, &[Type::F32, Type::F64])?;
    if ty == Type::F64 && f32_only_mods {
        return Err(m.error("`.ftz` and `.sat` apply only to `.f32`"));
    }
    Ok(ty)
}

fn mad(m: &mut Mods, madc: bool) -> Result<Decoded> {
    // The type tells the integer form from the float form.
    let ty = m.one_type()?;
    let carry_out = m.flag("cc")?;
    if madc || carry_out {
        let mode = mul_mode(m)?.ok_or_else(|| m.error("missing `.lo` or `.hi`"))?;
        let op = match mode {
            MulMode::Lo => CarryOp::MadLo,
            MulMode::Hi => CarryOp::MadHi,
            MulMode::Wide => return Err(m.error("carry-chain `mad` takes `.lo` or `.hi`")),
        };
        check_type(m, "madc", ty, &[Type::U32, Type::S32, Type::U64, Type::S64])?;
        return Ok(Decoded::Op(
            Op::Carry {
                op,
                ty,
                carry_in: madc,
                carry_out,
            },
            Shape::ternary(ty),
        ));
    }
    if ty.is_float() {
        let rnd = float_rounding(m)?;
        let (ftz, sat) = (m.flag("ftz")?, m.flag("sat")?);
        let ty = float_check(m, "mad", ty, ftz || sat)?;
        let rnd =
            rnd.ok_or_else(|| m.error("missing rounding modifier (required for sm_20 and later)"))?;
        return Ok(Decoded::Op(
            Op::Fma {
                ty,
                rnd,
                ftz,
                sat,
                relu: false,
            },
            Shape::ternary(ty),
        ));
    }
    let mode = mul_mode(m)?.ok_or_else(|| m.error("missing `.lo`, `.hi` or `.wide`"))?;
    let sat = m.flag("sat")?;
    check_type(m, "mad", ty, &INTS)?;
    if sat && !(mode == MulMode::Hi && ty == Type::S32) {
        return Err(m.error("`.sat` applies only to `mad.hi.s32`"));
    }
    let shape = match mode {
        MulMode::Wide => wide_shape(m, ty)?.s(Slot::Val(widened(ty))),
        _ => Shape::ternary(ty),
    };
    Ok(Decoded::Op(Op::IMad { ty, mode, sat }, shape))
}

fn mul24(mad: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if mad { "mad24" } else { "mul24" };
    let hi = match mul_mode(m)? {
        Some(MulMode::Lo) => false,
        Some(MulMode::Hi) => true,
        _ => return Err(m.error("missing `.lo` or `.hi`")),
    };
    let sat = mad && m.flag("sat")?;
    let ty = typed(m, name, &[Type::U32, Type::S32])?;
    if sat && !(hi && ty == Type::S32) {
        return Err(m.error("`.sat` applies only to `mad24.hi.s32`"));
    }
    Ok(if mad {
        Decoded::Op(Op::Mad24 { ty, hi, sat }, Shape::ternary(ty))
    } else {
        Decoded::Op(Op::Mul24 { ty, hi }, Shape::binary(ty))
    })
}

/// `.approx`, `.full` or a rounding modifier of `div`/`rcp`/`sqrt`.
fn precision(m: &mut Mods, allow_full: bool) -> Result<Option<FloatPrecision>> {
    let approx = m.flag("approx")?;
    let full = allow_full && m.flag("full")?;
    let rnd = float_rounding(m)?;
    Ok(match (approx, full, rnd) {
        (false, false, None) => None,
        (true, false, None) => Some(FloatPrecision::Approx),
        (false, true, None) => Some(FloatPrecision::Full),
        (false, false, Some(r)) => Some(FloatPrecision::Rounded(r)),
        _ => return Err(m.error("conflicting precision modifiers")),
    })
}

fn div(m: &mut Mods) -> Result<Decoded> {
    // The type tells the integer form from the float form.
    let ty = m.one_type()?;
    if !ty.is_float() {
        check_type(m, "div", ty, &INTS)?;
        return Ok(Decoded::Op(Op::IDiv { ty }, Shape::binary(ty)));
    }
    let prec = precision(m, true)?;
    let ftz = m.flag("ftz")?;
    let ty = float_check(m, "div", ty, ftz)?;
    let prec = prec.ok_or_else(|| m.error("missing `.approx`, `.full` or rounding modifier"))?;
    if ty == Type::F64 && !matches!(prec, FloatPrecision::Rounded(_)) {
        return Err(m.error("`div.f64` requires a rounding modifier"));
    }
    Ok(Decoded::Op(Op::FDiv { ty, prec, ftz }, Shape::binary(ty)))
}

fn rcp_sqrt(sqrt: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if sqrt { "sqrt" } else { "rcp" };
    let prec = precision(m, false)?;
    let ftz = m.flag("ftz")?;
    let ty = typed(m, name, &[Type::F32, Type::F64])?;
    let prec = prec.ok_or_else(|| m.error("missing `.approx` or rounding modifier"))?;
    // rcp.approx.ftz.f64 exists (and requires .ftz); sqrt.approx is f32-only.
    if ty == Type::F64 && prec == FloatPrecision::Approx && (sqrt || !ftz) {
        return Err(m.error(format!("invalid `{name}.approx` form for `.f64`")));
    }
    if ty == Type::F64 && ftz && prec != FloatPrecision::Approx {
        return Err(m.error("`.ftz` applies only to `.f32`"));
    }
    Ok(if sqrt {
        Decoded::Op(Op::Sqrt { ty, prec, ftz }, Shape::unary(ty))
    } else {
        Decoded::Op(Op::Rcp { ty, prec, ftz }, Shape::unary(ty))
    })
}

fn transcendental(opcode: &str, m: &mut Mods) -> Result<Decoded> {
    let func = match opcode {
        "rsqrt" => TranscFn::Rsqrt,
        "sin" => TranscFn::Sin,
        "cos" => TranscFn::Cos,
        "ex2" => TranscFn::Ex2,
        "lg2" => TranscFn::Lg2,
        _ => TranscFn::Tanh,
    };
    if !m.flag("approx")? {
        return Err(m.error("missing `.approx`"));
    }
    let ftz = m.flag("ftz")?;
    // `ex2` and `tanh` have half-precision forms too (scalar and packed).
    let allowed: &[Type] = match func {
        TranscFn::Rsqrt => &[Type::F32, Type::F64],
        TranscFn::Ex2 | TranscFn::Tanh => {
            &[Type::F32, Type::F16, Type::F16x2, Type::BF16, Type::BF16x2]
        }
        _ => &[Type::F32],
    };
    let ty = typed(m, opcode, allowed)?;
    if func == TranscFn::Tanh && ftz {
        return Err(m.error("`tanh` takes no `.ftz`"));
    }
    Ok(Decoded::Op(Op::Transc { func, ty, ftz }, Shape::unary(ty)))
}

fn abs_neg(neg: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if neg { "neg" } else { "abs" };
    // The type tells the integer form from the float form.
    let ty = m.one_type()?;
    if ty.is_float() {
        let ftz = m.flag("ftz")?;
        if is_half(ty) {
            half_ftz_check(m, ty, ftz)?;
        } else {
            float_check(m, name, ty, ftz)?;
        }
        let op = if neg {
            Op::FNeg { ty, ftz }
        } else {
            Op::FAbs { ty, ftz }
        };
        return Ok(Decoded::Op(op, Shape::unary(ty)));
    }
    check_type(m, name, ty, &[Type::S16, Type::S32, Type::S64])?;
    Ok(Decoded::Op(
        if neg {
            Op::INeg { ty }
        } else {
            Op::IAbs { ty }
        },
        Shape::unary(ty),
    ))
}

fn min_max(max: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if max { "max" } else { "min" };
    // sm_90's packed halves and `.relu`.
    let packed = m.take(|s| match s {
        "u16x2" => Some(Type::U16),
        "s16x2" => Some(Type::S16),
        _ => None,
    })?;
    if packed.is_some() || m.any(|s| s == "relu") {
        let relu = m.flag("relu")?;
        let (ty, lanes) = match packed {
            Some(ty) => (ty, 2),
            None => (m.one_type()?, 1),
        };
        if relu && !matches!(ty, Type::S32 | Type::S16) {
            return Err(m.error(format!(
                "`.relu` applies to `.s32` and `.s16x2` (`{name}.relu`)"
            )));
        }
        if lanes == 1 && ty != Type::S32 {
            return Err(m.error(format!("invalid type `.{ty}` for `{name}.relu`")));
        }
        let reg = if lanes == 2 { Type::B32 } else { ty };
        let op = if max {
            PackedIntOp::Max
        } else {
            PackedIntOp::Min
        };
        return Ok(Decoded::Op(
            Op::IPacked {
                op,
                ty,
                lanes,
                relu,
            },
            Shape::binary(reg),
        ));
    }
    // The type tells the integer form from the float form.
    let ty = m.one_type()?;
    if ty.is_float() {
        let ftz = m.flag("ftz")?;
        let nan = m.flag("NaN")?;
        // `.xorsign.abs` (sm_86) is one modifier written in two parts.
        let xorsign = m.flag("xorsign")?;
        if xorsign != m.flag("abs")? {
            return Err(m.error(format!("`{name}` takes `.xorsign` and `.abs` together")));
        }
        if is_half(ty) {
            half_ftz_check(m, ty, ftz)?;
        } else {
            float_check(m, name, ty, ftz || nan)?;
            if ty == Type::F64 && xorsign {
                return Err(m.error("`.xorsign.abs` applies only to `.f32` and the half types"));
            }
        }
        let op = if max {
            Op::FMax {
                ty,
                ftz,
                nan,
                xorsign,
            }
        } else {
            Op::FMin {
                ty,
                ftz,
                nan,
                xorsign,
            }
        };
        return Ok(Decoded::Op(op, Shape::binary(ty)));
    }
    check_type(m, name, ty, &INTS)?;
    Ok(Decoded::Op(
        if max {
            Op::IMax { ty }
        } else {
            Op::IMin { ty }
        },
        Shape::binary(ty),
    ))
}

fn bit_count(opcode: &str, m: &mut Mods) -> Result<Decoded> {
    let ty = typed(m, opcode, &[Type::B32, Type::B64])?;
    Ok(match opcode {
        "popc" => Decoded::Op(
            Op::Popc { ty },
            Shape::new().d(Slot::Val(Type::U32)).s(Slot::Val(ty)),
        ),
        "clz" => Decoded::Op(
            Op::Clz { ty },
            Shape::new().d(Slot::Val(Type::U32)).s(Slot::Val(ty)),
        ),
        _ => Decoded::Op(Op::Brev { ty }, Shape::unary(ty)),
    })
}

fn logic(opcode: &str, m: &mut Mods) -> Result<Decoded> {
    let allowed: &[Type] = if opcode == "cnot" {
        &[Type::B16, Type::B32, Type::B64]
    } else {
        &[Type::Pred, Type::B16, Type::B32, Type::B64]
    };
    let ty = typed(m, opcode, allowed)?;
    let (op, shape) = match opcode {
        "and" => (Op::And { ty }, Shape::binary(ty)),
        "or" => (Op::Or { ty }, Shape::binary(ty)),
        "xor" => (Op::Xor { ty }, Shape::binary(ty)),
        "not" => (Op::Not { ty }, Shape::unary(ty)),
        _ => (Op::CNot { ty }, Shape::unary(ty)),
    };
    Ok(Decoded::Op(op, shape))
}

fn check_comparison(m: &Mods, cmp: CmpOp, ty: Type) -> Result<()> {
    let ok = match ty.kind() {
        TypeKind::Float => !matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs),
        TypeKind::Bits => matches!(cmp, CmpOp::Eq | CmpOp::Ne),
        TypeKind::Signed | TypeKind::Unsigned => !cmp.is_float_only(),
        TypeKind::Pred => false,
    };
    if ok {
        Ok(())
    } else {
        Err(m.error(format!(
            "comparison `.{}` is invalid for `.{ty}`",
            cmp.name()
        )))
    }
}

fn setp(m: &mut Mods) -> Result<Decoded> {
    let cmp = m
        .take(CmpOp::from_name)?
        .ok_or_else(|| m.error("missing comparison"))?;
    let combine = m.take(BoolOp::from_name)?;
    let ftz = m.flag("ftz")?;
    let ty = m.one_type()?;
    if !is_half(ty) {
        check_type(m, "setp", ty, VALUE_TYPES)?;
    }
    check_comparison(m, cmp, ty)?;
    if ftz && !matches!(ty, Type::F32 | Type::F16 | Type::F16x2) {
        return Err(m.error("`.ftz` applies only to `.f32`, `.f16` and `.f16x2`"));
    }
    let mut shape = Shape::new()
        .d(Slot::Pred { negatable: false })
        .opt_d(Slot::Pred { negatable: false })
        .s(Slot::Val(ty))
        .s(Slot::Val(ty));
    if combine.is_some() {
        shape = shape.s(Slot::Pred { negatable: true });
    }
    Ok(Decoded::Op(
        Op::Setp {
            cmp,
            ty,
            combine,
            ftz,
        },
        shape,
    ))
}

fn set(m: &mut Mods) -> Result<Decoded> {
    let cmp = m
        .take(CmpOp::from_name)?
        .ok_or_else(|| m.error("missing comparison"))?;
    let combine = m.take(BoolOp::from_name)?;
    let ftz = m.flag("ftz")?;
    let (dty, sty) = m.two_types()?;
    if !is_half(sty) {
        check_type(m, "set", sty, VALUE_TYPES)?;
    }
    // A packed comparison gives a packed result (of its own type or as 32 bits); a scalar one
    // a 32-bit, or a half-precision, value, and a half-precision one a 16-bit integer too.
    let results: &[Type] = match sty {
        Type::F16x2 | Type::BF16x2 => &[sty, Type::U32, Type::S32],
        Type::F16 | Type::BF16 => &[
            Type::U16,
            Type::S16,
            Type::U32,
            Type::S32,
            Type::F32,
            Type::F16,
            Type::BF16,
        ],
        _ => &[Type::U32, Type::S32, Type::F32, Type::F16, Type::BF16],
    };
    check_type(m, "set", dty, results)?;
    check_comparison(m, cmp, sty)?;
    let mut shape = Shape::new()
        .d(Slot::Val(dty))
        .s(Slot::Val(sty))
        .s(Slot::Val(sty));
    if combine.is_some() {
        shape = shape.s(Slot::Pred { negatable: true });
    }
    Ok(Decoded::Op(
        Op::Set {
            cmp,
            dty,
            sty,
            combine,
            ftz,
        },
        shape,
    ))
}

/// Whether converting `sty` to `dty` (both floats) is exact: the destination's format holds
/// every value of the source's.
fn widens(sty: Type, dty: Type) -> bool {
    matches!(
        (sty, dty),
        (Type::F16 | Type::BF16, Type::F32 | Type::F64) | (Type::F32, Type::F64)
    )
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`: `.u16`/`.s16` pack two values; the
/// narrower `.u8 .s8 .u4 .s4 .u2 .s2` take `c` for the bits above.
fn cvt_pack(m: &mut Mods) -> Result<Decoded> {
    if !m.flag("sat")? {
        return Err(m.error("`cvt.pack` needs `.sat`"));
    }
    let convert = m.take(|s| {
        let signed = s.starts_with('s');
        let bits = s.strip_prefix(['u', 's'])?.parse::<u8>().ok()?;
        matches!(bits, 2 | 4 | 8 | 16).then_some((bits, signed))
    })?;
    let (bits, signed) =
        convert.ok_or_else(|| m.error("missing `.u16 .s16 .u8 .s8 .u4 .s4 .u2 .s2`"))?;
    if !m.flag("s32")? {
        return Err(m.error("missing source type `.s32`"));
    }
    let with_c = m.flag("b32")?;
    if with_c != (bits < 16) {
        return Err(m.error(if with_c {
            "`.b32` (a third operand) applies only to conversions narrower than 16 bits"
        } else {
            "missing `.b32`: conversions narrower than 16 bits take a third operand"
        }));
    }
    let mut shape = Shape::new()
        .d(Slot::Val(Type::B32))
        .s(Slot::Val(Type::S32))
        .s(Slot::Val(Type::S32));
    if with_c {
        shape = shape.s(Slot::Val(Type::B32));
    }
    Ok(Decoded::Op(Op::CvtPack { bits, signed }, shape))
}

fn cvt(m: &mut Mods) -> Result<Decoded> {
    if m.flag("pack")? {
        return cvt_pack(m);
    }
    let rnd = m.take(Rounding::from_name)?;
    let ftz = m.flag("ftz")?;
    let sat = m.flag("sat")?;
    let relu = m.flag("relu")?;
    let satfinite = m.flag("satfinite")?;
    let (dty, sty) = m.two_types()?;
    if dty == Type::TF32 {
        return cvt_tf32(m, rnd, sty, ftz || sat, relu, satfinite);
    }
    let fp8 = |ty: Type| matches!(ty, Type::E4M3x2 | Type::E5M2x2);
    if fp8(dty) || fp8(sty) {
        let clamps = Clamps {
            ftz_or_sat: ftz || sat,
            relu,
            satfinite,
        };
        return cvt_fp8(m, rnd, dty, sty, clamps);
    }
    const CONVERTIBLE: [Type; 12] = [
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::BF16,
        Type::F32,
        Type::F64,
    ];
    // `.f16x2`/`.bf16x2` results pack two converted f32 sources.
    let packed = matches!(dty, Type::F16x2 | Type::BF16x2);
    if packed {
        check_type(m, "cvt", sty, &[Type::F32])?;
    } else {
        check_type(m, "cvt", dty, &CONVERTIBLE)?;
        check_type(m, "cvt", sty, &CONVERTIBLE)?;
    }
    if (relu || satfinite) && !(is_half(dty) && sty == Type::F32) {
        return Err(m.error(
            "`.relu` and `.satfinite` apply only to conversions from `.f32` to half precision",
        ));
    }
    let rnd = match rnd {
        None => CvtRounding::None,
        Some((r, false)) => CvtRounding::Float(r),
        Some((r, true)) => CvtRounding::Int(r),
    };
    // The manual's rules: float→int and float→float rounding to integral take `.rni`-style
    // modifiers; int→float and narrowing float→float take `.rn`-style ones; `.rna` only for
    // f32 results.
    let required = match (sty.is_float(), dty.is_float()) {
        (true, false) => Some("an integer rounding modifier (`.rni`, `.rzi`, `.rmi`, `.rpi`)"),
        (false, true) => Some("a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)"),
        (true, true) if !widens(sty, dty) && dty != sty => {
            Some("a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)")
        }
        _ => None,
    };
    let valid = match (rnd, sty.is_float(), dty.is_float()) {
        (CvtRounding::None, ..) => required.is_none(),
        (CvtRounding::Int(_), true, false) => true,
        (CvtRounding::Int(_), true, true) => widens(sty, dty) || dty == sty,
        (CvtRounding::Float(Rounding::Rna), false, true)
        | (CvtRounding::Float(Rounding::Rna), true, true) => dty == Type::F32 && sty != Type::F32,
        (CvtRounding::Float(_), false, true) => true,
        (CvtRounding::Float(_), true, true) => !widens(sty, dty) && dty != sty,
        _ => false,
    };
    if !valid {
        return Err(match (rnd, required) {
            (CvtRounding::None, Some(what)) => m.error(format!("missing {what}")),
            _ => m.error("invalid rounding modifier"),
        });
    }
    if ftz && sty != Type::F32 && dty != Type::F32 {
        return Err(m.error("`.ftz` applies only to `.f32` conversions"));
    }
    let shape = if packed {
        Shape::new()
            .d(Slot::Val(dty))
            .s(Slot::Val(sty))
            .s(Slot::Val(sty))
    } else {
        Shape::new().d(Slot::Wide(dty)).s(Slot::Wide(sty))
    };
    Ok(Decoded::Op(
        Op::Cvt {
            dty,
            sty,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        },
        shape,
    ))
}

/// The clamping modifiers of a narrow-format `cvt`.
struct Clamps {
    ftz_or_sat: bool,
    relu: bool,
    satfinite: bool,
}

/// The fp8 conversions of sm_89: `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b` (`a`
/// into the upper byte), `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a` (half by half)
/// and `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a` (byte by byte, exact).
fn cvt_fp8(
    m: &Mods,
    rnd: Option<(Rounding, bool)>,
    dty: Type,
    sty: Type,
    clamps: Clamps,
) -> Result<Decoded> {
    let to_fp8 = matches!(dty, Type::E4M3x2 | Type::E5M2x2);
    if to_fp8 {
        check_type(m, "cvt", sty, &[Type::F32, Type::F16x2])?;
    } else {
        check_type(m, "cvt", dty, &[Type::F16x2])?;
    }
    if rnd != Some((Rounding::Rn, false)) {
        return Err(m.error("fp8 conversions round to nearest (`.rn`)"));
    }
    if clamps.ftz_or_sat || clamps.satfinite != to_fp8 {
        return Err(m.error(if to_fp8 {
            "conversions to fp8 take `.satfinite` (required) and `.relu` only"
        } else {
            "conversions from fp8 take `.relu` only"
        }));
    }
    let mut shape = Shape::new().d(Slot::Val(dty)).s(Slot::Val(sty));
    if sty == Type::F32 {
        shape = shape.s(Slot::Val(sty));
    }
    Ok(Decoded::Op(
        Op::Cvt {
            dty,
            sty,
            rnd: CvtRounding::Float(Rounding::Rn),
            ftz: false,
            sat: false,
            relu: clamps.relu,
            satfinite: clamps.satfinite,
        },
        shape,
    ))
}

/// `cvt.rna{.satfinite}.tf32.f32` (sm_80) and `cvt.{rn,rz}{.relu}{.satfinite}.tf32.f32`
/// (sm_90): an f32 rounded to TensorFloat-32's 10 fraction bits, in a 32-bit register.
fn cvt_tf32(
    m: &Mods,
    rnd: Option<(Rounding, bool)>,
    sty: Type,
    ftz_or_sat: bool,
    relu: bool,
    satfinite: bool,
) -> Result<Decoded> {
    check_type(m, "cvt", sty, &[Type::F32])?;
    let rnd = match rnd {
        Some((r @ (Rounding::Rna | Rounding::Rn | Rounding::Rz), false)) => r,
        None => return Err(m.error("missing a rounding modifier (`.rna`, `.rn`, `.rz`)")),
        _ => return Err(m.error("invalid rounding modifier")),
    };
    if ftz_or_sat || (relu && rnd == Rounding::Rna) {
        return Err(m.error("`.tf32` takes `.relu` (with `.rn`, `.rz`) and `.satfinite` only"));
    }
    Ok(Decoded::Op(
        Op::Cvt {
            dty: Type::TF32,
            sty,
            rnd: CvtRounding::Float(rnd),
            ftz: false,
            sat: false,
            relu,
            satfinite,
        },
        Shape::new().d(Slot::Val(Type::TF32)).s(Slot::Val(sty)),
    ))
}

/// Memory-ordering qualifiers shared by loads, stores and atomics.
fn order_and_scope(m: &mut Mods) -> Result<(MemOrder, Option<Scope>)> {
    let order = m.take(MemOrder::from_name)?.unwrap_or(MemOrder::Weak);
    let scope = m.take(Scope::from_name)?;
    let needs_scope = matches!(
        order,
        MemOrder::Relaxed | MemOrder::Acquire | MemOrder::Release | MemOrder::AcqRel
    );
    if needs_scope && scope.is_none() {
        return Err(m.error(format!("`.{}` requires a scope", order.name())));
    }
    if !needs_scope && scope.is_some() {
        return Err(m.error("a scope requires `.relaxed`, `.acquire` or `.release`"));
    }
    Ok((order, scope))
}

/// Cache-eviction and L2 hints (`.L1::evict_last`, `.L2::128B`, ...): accepted and ignored,
/// since they only affect performance on real hardware. Returns whether one was
/// `.L2::cache_hint`, whose instruction then ends with a `.b64` cache-policy operand.
fn skip_cache_hints(m: &mut Mods) -> Result<bool> {
    let mut policy = false;
    while let Some(hint) = m.take(|s| {
        (s.starts_with("L1::") || s.starts_with("L2::")).then_some(s == "L2::cache_hint")
    })? {
        policy |= hint;
    }
    Ok(policy)
}

/// `shape` with the cache-policy operand of `.L2::cache_hint` last when there is one.
fn with_policy(shape: Shape, policy: bool) -> Shape {
    if policy {
        shape.s(Slot::Val(Type::B64))
    } else {
        shape
    }
}

const MEMORY_TYPES: [Type; 15] = [
    Type::B8,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
];

fn memory_space(m: &mut Mods) -> Result<StateSpace> {
    let space = m
        .take(StateSpace::from_name)?
        .unwrap_or(StateSpace::Generic);
    if space == StateSpace::Reg {
        return Err(m.error("invalid state space `.reg`"));
    }
    Ok(space)
}

fn load(ldu: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if ldu { "ldu" } else { "ld" };
    let (order, scope) = order_and_scope(m)?;
    let space = memory_space(m)?;
    let nc = m.flag("nc")?;
    let cache = m.take(CacheOp::from_name)?;
    let policy = skip_cache_hints(m)?;
    let vec = m.vector()?;
    let ty = typed(m, name, &MEMORY_TYPES)?;
    let data = data_slot(m, ty, vec)?;
    if nc && space != StateSpace::Global {
        return Err(m.error("`.nc` applies only to `.global`"));
    }
    if matches!(order, MemOrder::Release | MemOrder::AcqRel | MemOrder::Sc) {
        return Err(m.error(format!("invalid ordering `.{}` for a load", order.name())));
    }
    if cache.is_some_and(|c| matches!(c, CacheOp::Wb | CacheOp::Wt)) {
        return Err(m.error("store cache operator on a load"));
    }
    check_vector(m, vec, ty, space)?;
    let (ty, vec) = wide_halves(ty, vec);
    let shape = with_policy(Shape::new().d(data).s(Slot::Addr), policy);
    Ok(if ldu {
        if order != MemOrder::Weak || cache.is_some() || nc {
            return Err(m.error("`ldu` takes no ordering or cache modifiers"));
        }
        Decoded::Op(Op::Ldu { space, ty, vec }, shape)
    } else {
        Decoded::Op(
            Op::Ld {
                space,
                ty,
                vec,
                order,
                scope,
                cache,
                nc,
            },
            shape,
        )
    })
}

/// The data operand of an `ld`, `ldu` or `st` of `vec` elements of `ty`: a `.b128` register
/// for `.b128` (warpsim executes no `.b128` vector), else registers of the type.
fn data_slot(m: &Mods, ty: Type, vec: u8) -> Result<Slot> {
    match (ty, vec) {
        (Type::B128, 1) => Ok(Slot::B128),
        (Type::B128, _) => Err(Diagnostic::unsupported(m.span(), m.full_name())),
        _ => Ok(Slot::Data { ty, vec }),
    }
}

/// The access of a `.b128` as the ISA makes it: its two 64-bit halves, a `.v2.b64` (the same
/// 16 bytes at the same 16-byte alignment, the low half first).
fn wide_halves(ty: Type, vec: u8) -> (Type, u8) {
    match ty {
        Type::B128 => (Type::B64, 2),
        _ => (ty, vec),
    }
}

/// A vector access moves at most 128 bits (so `.v8` takes elements of up to 16 bits), or
/// exactly 256 in global memory: sm_100's `.v8` of 32-bit and `.v4` of 64-bit elements.
fn check_vector(m: &Mods, vec: u8, ty: Type, space: StateSpace) -> Result<()> {
    let bits = u32::from(vec) * ty.bits();
    if bits == 256 && space == StateSpace::Global {
        return Ok(());
    }
    if bits > 128 {
        return Err(m.error(format!(
            "vector `.v{vec}` of `.{ty}` exceeds 128 bits (256-bit accesses are `.global` only)"
        )));
    }
    Ok(())
}

fn store(m: &mut Mods) -> Result<Decoded> {
    let (order, scope) = order_and_scope(m)?;
    let space = memory_space(m)?;
    let cache = m.take(CacheOp::from_name)?;
    let policy = skip_cache_hints(m)?;
    let vec = m.vector()?;
    let ty = typed(m, "st", &MEMORY_TYPES)?;
    let data = data_slot(m, ty, vec)?;
    if matches!(order, MemOrder::Acquire | MemOrder::AcqRel | MemOrder::Sc) {
        return Err(m.error(format!("invalid ordering `.{}` for a store", order.name())));
    }
    if cache.is_some_and(|c| matches!(c, CacheOp::Ca | CacheOp::Lu | CacheOp::Cv)) {
        return Err(m.error("load cache operator on a store"));
    }
    check_vector(m, vec, ty, space)?;
    let (ty, vec) = wide_halves(ty, vec);
    let shape = with_policy(Shape::new().s(Slot::Addr).s(data), policy);
    Ok(Decoded::Op(
        Op::St {
            space,
            ty,
            vec,
            order,
            scope,
            cache,
        },
        shape,
    ))
}

fn atomic(red: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if red { "red" } else { "atom" };
    // No ordering qualifier means `.relaxed` at `.gpu` scope; it is kept as `Weak` so the text
    // form stays as written.
    let order = m.take(MemOrder::from_name)?;
    if let Some(o @ (MemOrder::Weak | MemOrder::Volatile | MemOrder::Sc)) = order {
        return Err(m.error(format!("invalid ordering `.{}` for `{name}`", o.name())));
    }
    let order = order.unwrap_or(MemOrder::Weak);
    let scope = m.take(Scope::from_name)?;
    let space = memory_space(m)?;
    if !matches!(
        space,
        StateSpace::Global | StateSpace::Shared | StateSpace::Generic | StateSpace::SharedCluster
    ) {
        return Err(m.error(format!("invalid state space `.{space}` for `{name}`")));
    }
    let aop = m.take(|s| {
        Some(match s {
            "add" => AtomOp::Add,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            _ => return None,
        })
    })?;
    let aop = aop.ok_or_else(|| m.error("missing operation"))?;
    let noftz = m.flag("noftz")?;
    let policy = skip_cache_hints(m)?;
    let vec = m.vector()?;
    let allowed: &[Type] = match aop {
        AtomOp::Add => &[
            Type::U32,
            Type::S32,
            Type::U64,
            Type::S64,
            Type::F32,
            Type::F64,
            Type::F16,
            Type::F16x2,
            Type::BF16,
            Type::BF16x2,
        ],
        AtomOp::Inc | AtomOp::Dec => &[Type::U32],
        AtomOp::Min | AtomOp::Max => &[Type::U32, Type::S32, Type::U64, Type::S64],
        AtomOp::And | AtomOp::Or | AtomOp::Xor => &[Type::B32, Type::B64],
        AtomOp::Exch => &[Type::B32, Type::B64],
        AtomOp::Cas => &[Type::B16, Type::B32, Type::B64],
    };
    let ty = m.one_type()?;
    if ty == Type::B128 && matches!(aop, AtomOp::Cas | AtomOp::Exch) {
        // sm_90's 128-bit `atom.cas` and `atom.exch`: valid PTX that warpsim does not execute
        // (its atomics are at most 64 bits wide); they lower as unsupported.
        return Ok(Decoded::Unsupported);
    }
    if vec > 1 {
        // sm_90's vector atomics: elements of 16 bits up to `.v8`, 32 bits up to `.v4`.
        let fits = match ty {
            Type::F16 | Type::BF16 => matches!(aop, AtomOp::Add | AtomOp::Min | AtomOp::Max),
            Type::F16x2 | Type::BF16x2 => {
                vec <= 4 && matches!(aop, AtomOp::Add | AtomOp::Min | AtomOp::Max)
            }
            Type::F32 => vec <= 4 && aop == AtomOp::Add,
            _ => false,
        };
        if !fits {
            return Err(m.error(
                "vector atomics are `.add`, `.min`, `.max` of half types (`.v8` at most, `.v4` for pairs) and `.add` of `.f32` (`.v4` at most)",
            ));
        }
        if !matches!(space, StateSpace::Global | StateSpace::Generic) {
            return Err(m.error("vector atomics are `.global` only"));
        }
    } else {
        if is_half(ty) && aop != AtomOp::Add {
            return Err(m.error(format!(
                "`.{ty}` atomics other than `.add` exist only as vectors (`.global.v2` ...)"
            )));
        }
        check_type(m, name, ty, allowed)?;
    }
    // Half-precision atomics are written `.noftz` (they keep subnormals).
    if is_half(ty) && !noftz {
        return Err(m.error(format!("`.{ty}` atomics need `.noftz`")));
    }
    let value = if vec > 1 {
        Slot::Data { ty, vec }
    } else {
        Slot::Val(ty)
    };
    if red && matches!(aop, AtomOp::Cas | AtomOp::Exch) {
        return Err(m.error(format!(
            "`red` cannot perform `.{}`",
            if aop == AtomOp::Cas { "cas" } else { "exch" }
        )));
    }
    if red {
        let shape = with_policy(Shape::new().s(Slot::Addr).s(value), policy);
        return Ok(Decoded::Op(
            Op::Red {
                space,
                op: aop,
                ty,
                vec,
                order,
                scope,
            },
            shape,
        ));
    }
    let mut shape = Shape::new().d(value).s(Slot::Addr).s(value);
    if aop == AtomOp::Cas {
        shape = shape.s(Slot::Val(ty));
    }
    let shape = with_policy(shape, policy);
    Ok(Decoded::Op(
        Op::Atom {
            space,
            op: aop,
            ty,
            vec,
            order,
            scope,
        },
        shape,
    ))
}

/// The scalar video instructions. The part selectors written on the operands (`d.h0`, `a.b1`)
/// and whether a merge or a secondary operation uses `c` are filled in by `body`, which sees
/// the operands.
fn video(opcode: &str, m: &mut Mods) -> Result<Decoded> {
    let sat = m.flag("sat")?;
    let shift = matches!(opcode, "vshl" | "vshr");
    let clamp = if shift {
        match m.take(|s| match s {
            "clamp" => Some(true),
            "wrap" => Some(false),
            _ => None,
        })? {
            Some(c) => c,
            None => return Err(m.error("missing `.clamp` or `.wrap`")),
        }
    } else {
        false
    };
    let cmp = if opcode == "vset" {
        let cmp = m.take(CmpOp::from_name)?;
        match cmp {
            Some(c @ (CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)) => {
                Some(c)
            }
            _ => {
                return Err(
                    m.error("missing a comparison `.eq`, `.ne`, `.lt`, `.le`, `.gt` or `.ge`")
                );
            }
        }
    } else {
        None
    };
    let mad = if opcode == "vmad" {
        let po = m.flag("po")?;
        let shift = m
            .take(|s| match s {
                "shr7" => Some(7),
                "shr15" => Some(15),
                _ => None,
            })?
            .unwrap_or(0);
        Some(VideoOp::Mad {
            po,
            shift,
            negate: [false; 3],
        })
    } else {
        None
    };
    let then = match m.take(|s| match s {
        "add" if mad.is_none() => Some(VideoThen::Add),
        "min" if mad.is_none() => Some(VideoThen::Min),
        "max" if mad.is_none() => Some(VideoThen::Max),
        _ => None,
    })? {
        Some(t) => t,
        None => VideoThen::Nothing,
    };
    let (dty, aty, bty) = video_types(m, cmp.is_some())?;
    if shift && bty != Type::U32 {
        return Err(m.error("the shift amount is `.u32`"));
    }
    if cmp.is_some() && sat {
        return Err(m.error("`vset` takes no `.sat`"));
    }
    let op = match (opcode, cmp, mad) {
        (_, _, Some(mad)) => mad,
        (_, Some(c), _) => VideoOp::Set(c),
        ("vadd", ..) => VideoOp::Add,
        ("vsub", ..) => VideoOp::Sub,
        ("vabsdiff", ..) => VideoOp::Absdiff,
        ("vmin", ..) => VideoOp::Min,
        ("vmax", ..) => VideoOp::Max,
        ("vshl", ..) => VideoOp::Shl { clamp },
        _ => VideoOp::Shr { clamp },
    };
    Ok(Decoded::Op(
        Op::Video(Video {
            op,
            dty,
            aty,
            bty,
            sat,
            asel: None,
            bsel: None,
            then,
        }),
        Shape::new()
            .d(Slot::Val(Type::B32))
            .s(Slot::Val(Type::B32))
            .s(Slot::Val(Type::B32))
            .opt_s(Slot::Val(Type::B32)),
    ))
}

/// The `mbarrier` operations of sm_80 ([`MbarrierOp`]). The transaction counts of sm_90
/// (`expect_tx`, `complete_tx`), cluster scope and `.shared::cluster` objects are left
/// unsupported.
fn mbarrier(m: &mut Mods) -> Result<Decoded> {
    if m.any(|s| {
        matches!(
            s,
            "expect_tx" | "complete_tx" | "cluster" | "shared::cluster" | "noComplete"
        )
    }) {
        return Ok(Decoded::Unsupported);
    }
    let kind = m
        .take(|s| {
            Some(match s {
                "init" => MbarrierOp::Init,
                "inval" => MbarrierOp::Inval,
                "arrive" => MbarrierOp::Arrive { drop: false },
                "arrive_drop" => MbarrierOp::Arrive { drop: true },
                "test_wait" | "try_wait" => MbarrierOp::TestWait { parity: false },
                "pending_count" => MbarrierOp::PendingCount,
                _ => return None,
            })
        })?
        .ok_or_else(|| m.error("missing the operation (`.init`, `.arrive`, `.test_wait`, ...)"))?;
    let parity = m.flag("parity")?;
    let kind = match kind {
        MbarrierOp::TestWait { .. } => MbarrierOp::TestWait { parity },
        _ if parity => return Err(m.error("`.parity` belongs to `test_wait` and `try_wait`")),
        k => k,
    };
    let try_wait = m.any(|s| s == "try_wait");
    // Memory-order qualifiers: the barrier lives in the CTA's shared memory, which warpsim
    // keeps sequentially consistent.
    m.take(|s| matches!(s, "release" | "acquire" | "relaxed").then_some(()))?;
    m.flag("cta")?;
    let space = if kind == MbarrierOp::PendingCount {
        StateSpace::Generic
    } else {
        mbarrier_space(m)?
    };
    b64(m)?;
    let shape = match kind {
        MbarrierOp::Init => Shape::new().s(Slot::Addr).s(Slot::Val(Type::B32)),
        MbarrierOp::Inval | MbarrierOp::CpAsyncArrive { .. } => Shape::new().s(Slot::Addr),
        MbarrierOp::Arrive { .. } => Shape::new()
            .d(Slot::Val(Type::B64))
            .s(Slot::Addr)
            .opt_s(Slot::Val(Type::U32)),
        MbarrierOp::TestWait { parity } => {
            let shape = Shape::new()
                .d(Slot::Pred { negatable: false })
                .s(Slot::Addr)
                .s(Slot::Val(if parity { Type::B32 } else { Type::B64 }));
            if try_wait {
                shape.opt_s(Slot::Val(Type::U32))
            } else {
                shape
            }
        }
        MbarrierOp::PendingCount => Shape::new().d(Slot::Val(Type::B32)).s(Slot::Val(Type::B64)),
    };
    Ok(op(Op::Mbarrier { op: kind, space }, shape))
}

/// An mbarrier's state space: `.shared` (`.shared::cta`) or generic.
fn mbarrier_space(m: &mut Mods) -> Result<StateSpace> {
    match memory_space(m)? {
        s @ (StateSpace::Shared | StateSpace::Generic) => Ok(s),
        s => Err(m.error(format!(
            "invalid state space `.{s}` (an mbarrier is in `.shared` memory)"
        ))),
    }
}

fn b64(m: &mut Mods) -> Result<()> {
    match m.one_type()? {
        Type::B64 => Ok(()),
        ty => Err(m.error(format!("invalid type `.{ty}` (`.b64`)"))),
    }
}

/// A video instruction's `.dtype.atype.btype` (`vset`'s `.atype.btype`, its results `.u32`),
/// each `.u32` or `.s32`.
fn video_types(m: &mut Mods, set: bool) -> Result<(Type, Type, Type)> {
    let types = m.types();
    let (dty, aty, bty) = match (set, types.as_slice()) {
        (true, [a, b]) => (Type::U32, *a, *b),
        (false, [d, a, b]) => (*d, *a, *b),
        _ => {
            return Err(m.error("expected the types `.dtype.atype.btype` (`vset`: `.atype.btype`)"));
        }
    };
    if ![dty, aty, bty]
        .iter()
        .all(|t| matches!(t, Type::U32 | Type::S32))
    {
        return Err(m.error("video instructions take `.u32` and `.s32` operands"));
    }
    Ok((dty, aty, bty))
}

/// The SIMD video instructions (`vadd2` ... `vset4`); their selectors and mask are written on
/// the operands and read by the operand lowering.
fn simd_video(opcode: &str, m: &mut Mods) -> Result<Decoded> {
    let (name, lanes) = opcode.split_at(opcode.len() - 1);
    let lanes: u8 = lanes.parse().expect("a 2 or 4 suffix");
    let sat = m.flag("sat")?;
    let add = m.flag("add")?;
    let op = match name {
        "vadd" => SimdVideoOp::Add,
        "vsub" => SimdVideoOp::Sub,
        "vavrg" => SimdVideoOp::Avrg,
        "vabsdiff" => SimdVideoOp::Absdiff,
        "vmin" => SimdVideoOp::Min,
        "vmax" => SimdVideoOp::Max,
        _ => match m.take(CmpOp::from_name)? {
            Some(c @ (CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)) => {
                SimdVideoOp::Set(c)
            }
            _ => {
                return Err(
                    m.error("missing a comparison `.eq`, `.ne`, `.lt`, `.le`, `.gt` or `.ge`")
                );
            }
        },
    };
    let set = matches!(op, SimdVideoOp::Set(_));
    let (dty, aty, bty) = video_types(m, set)?;
    if sat && (add || set) {
        return Err(m.error(if set {
            "`vset` takes no `.sat`"
        } else {
            "`.sat` does not go with the accumulating `.add`"
        }));
    }
    let (asel, bsel) = SimdVideo::default_selectors(lanes);
    Ok(Decoded::Op(
        Op::VideoSimd(SimdVideo {
            op,
            lanes,
            dty,
            aty,
            bty,
            sat,
            add,
            asel,
            bsel,
            mask: (1 << lanes) - 1,
        }),
        Shape::new()
            .d(Slot::Val(Type::B32))
            .s(Slot::Val(Type::B32))
            .s(Slot::Val(Type::B32))
            .s(Slot::Val(Type::B32)),
    ))
}

/// `wmma.load`, `wmma.store` and `wmma.mma` ([`isa::matrix`]): the fragments' register
/// counts are checked against the manual's table.
fn wmma(m: &mut Mods) -> Result<Decoded> {
    #[derive(PartialEq)]
    enum Kind {
        Load(MatrixUse),
        Store,
        Mma,
    }
    let kind = m.take(|s| {
        Some(match s {
            "load" => Kind::Load(MatrixUse::A),
            "store" => Kind::Store,
            "mma" => Kind::Mma,
            _ => return None,
        })
    })?;
    let kind = match kind {
        Some(Kind::Load(_)) => Kind::Load(
            m.take(|s| match s {
                "a" => Some(MatrixUse::A),
                "b" => Some(MatrixUse::B),
                "c" => Some(MatrixUse::C),
                _ => None,
            })?
            .ok_or_else(|| m.error("missing the matrix `.a`, `.b` or `.c`"))?,
        ),
        Some(Kind::Store) => {
            if !m.flag("d")? {
                return Err(m.error("missing the matrix `.d`"));
            }
            Kind::Store
        }
        Some(k) => k,
        None => return Err(m.error("missing `.load`, `.store` or `.mma`")),
    };
    if !m.flag("sync")? {
        return Err(m.error("missing `.sync`"));
    }
    // Required from PTX 6.3, implicit before.
    m.flag("aligned")?;
    let shape = m
        .take(MatrixShape::from_name)?
        .ok_or_else(|| m.error("missing the shape (`.m16n16k16`, ...)"))?;
    let layouts = m.take_all(|s| match s {
        "row" => Some(Layout::Row),
        "col" => Some(Layout::Col),
        _ => None,
    });
    let registers = |m: &Mods, frag: Fragment| {
        let regs = frag.wmma_registers().ok_or_else(|| {
            m.error(format!(
                "`wmma` has no `.{shape}` fragment of `.{}` for that matrix",
                frag.ty
            ))
        })?;
        // Packed elements travel in `.b32` registers.
        let ty = match frag.ty {
            Type::F16 | Type::BF16 | Type::TF32 | Type::S8 | Type::U8 => Type::B32,
            ty => ty,
        };
        Ok(Slot::Fragment {
            ty,
            regs: regs as u8,
        })
    };
    if kind == Kind::Mma {
        let [a_layout, b_layout] = layouts[..] else {
            return Err(m.error("expected the layouts of A and B (`.row.col`, ...)"));
        };
        let satfinite = m.flag("satfinite")?;
        let rnd = m
            .take(|s| Rounding::from_name(s).filter(|(r, i)| !i && *r != Rounding::Rna))?
            .map(|(r, _)| r);
        let (d, a, b, c) = match *m.types().as_slice() {
            [d, c] => (d, Type::F16, Type::F16, c),
            [d, a, b, c] => (d, a, b, c),
            _ => {
                return Err(
                    m.error("expected the types `.dtype.ctype` or `.dtype.atype.btype.ctype`")
                );
            }
        };
        let valid = match (d, a, b, c) {
            (Type::F16 | Type::F32, Type::F16, Type::F16, Type::F16 | Type::F32) => true,
            (Type::S32, Type::S8 | Type::U8, Type::S8 | Type::U8, Type::S32) => true,
            (Type::F32, Type::BF16, Type::BF16, Type::F32)
            | (Type::F32, Type::TF32, Type::TF32, Type::F32) => !satfinite,
            (Type::F64, Type::F64, Type::F64, Type::F64) => !satfinite,
            _ => false,
        };
        if !valid {
            return Err(m.error("invalid combination of types or `.satfinite`"));
        }
        if rnd.is_some() && d != Type::F64 {
            return Err(m.error("a rounding modifier applies only to `.f64`"));
        }
        let frag = |matrix, ty| Fragment { matrix, shape, ty };
        let shape_of = Shape::new()
            .d(registers(m, frag(MatrixUse::C, d))?)
            .s(registers(m, frag(MatrixUse::A, a))?)
            .s(registers(m, frag(MatrixUse::B, b))?)
            .s(registers(m, frag(MatrixUse::C, c))?);
        let op = Op::WmmaMma {
            shape,
            a_layout,
            b_layout,
            d,
            a,
            b,
            c,
            satfinite,
            rnd: rnd.or((d == Type::F64).then_some(Rounding::Rn)),
        };
        return Ok(Decoded::Op(op, shape_of));
    }
    let [layout] = layouts[..] else {
        return Err(m.error("expected one layout, `.row` or `.col`"));
    };
    let space = memory_space(m)?;
    if !matches!(
        space,
        StateSpace::Global | StateSpace::Shared | StateSpace::Generic
    ) {
        return Err(m.error(format!("invalid state space `.{space}` for `wmma`")));
    }
    let ty = m.one_type()?;
    let matrix = match kind {
        Kind::Load(matrix) => matrix,
        _ => MatrixUse::C,
    };
    let frag = Fragment { matrix, shape, ty };
    let data = registers(m, frag)?;
    let stride = Slot::Val(Type::U32);
    Ok(match kind {
        Kind::Load(_) => Decoded::Op(
            Op::WmmaLoad {
                frag,
                layout,
                space,
            },
            Shape::new().d(data).s(Slot::Addr).opt_s(stride),
        ),
        _ => Decoded::Op(
            Op::WmmaStore {
                frag,
                layout,
                space,
            },
            Shape::new().s(Slot::Addr).s(data).opt_s(stride),
        ),
    })
}

/// `mma.sync` on the m16n8kK and m8n8kK shapes whose fragment layouts the manual gives
/// ([`isa::Fragment::mma_element`]), Volta's m8n8k4 `.f16` (quad pairs) included; the fp8,
/// sub-byte and single-bit types lower as unsupported.
fn mma(m: &mut Mods) -> Result<Decoded> {
    m.flag("sync")?;
    if !m.flag("aligned")? {
        return Err(m.error("missing `.aligned`"));
    }
    let shape = m
        .take(MatrixShape::from_name)?
        .ok_or_else(|| m.error("missing the shape (`.m16n8k16`, ...)"))?;
    let layouts = m.take_all(|s| match s {
        "row" => Some(Layout::Row),
        "col" => Some(Layout::Col),
        _ => None,
    });
    let satfinite = m.flag("satfinite")?;
    let types = m.types();
    let [d, a, b, c] = *types.as_slice() else {
        if m.any(|s| {
            matches!(
                s,
                "e4m3" | "e5m2" | "s4" | "u4" | "b1" | "e2m1" | "e3m2" | "e2m3"
            )
        }) {
            return Ok(Decoded::Unsupported);
        }
        return Err(m.error("expected the types `.dtype.atype.btype.ctype`"));
    };
    let MatrixShape {
        m: sm,
        n: sn,
        k: sk,
    } = shape;
    let shape_is = |shapes: &[(u8, u8, u8)]| shapes.contains(&(sm, sn, sk));
    let valid = match (d, a, b, c) {
        // The manual's restrictions: m8n8k4's `.f32` C needs an `.f32` D; m16n8k8's and
        // m16n8k16's D is of C's type.
        (Type::F16 | Type::F32, Type::F16, Type::F16, Type::F16 | Type::F32) => {
            !satfinite
                && (shape_is(&[(16, 8, 8), (16, 8, 16)]) && d == c
                    || shape_is(&[(8, 8, 4)]) && (d, c) != (Type::F16, Type::F32))
        }
        (Type::F32, Type::BF16, Type::BF16, Type::F32) => {
            !satfinite && shape_is(&[(16, 8, 8), (16, 8, 16)])
        }
        (Type::F32, Type::TF32, Type::TF32, Type::F32) => {
            !satfinite && shape_is(&[(16, 8, 4), (16, 8, 8)])
        }
        (Type::S32, Type::S8 | Type::U8, Type::S8 | Type::U8, Type::S32) => {
            shape_is(&[(8, 8, 16), (16, 8, 16), (16, 8, 32)])
        }
        (Type::F64, Type::F64, Type::F64, Type::F64) => !satfinite && shape_is(&[(8, 8, 4)]),
        _ => false,
    };
    if !valid {
        return Err(m.error(format!(
            "no `mma.sync` of `.{shape}` with `.{d}.{a}.{b}.{c}`{}",
            if satfinite { " and `.satfinite`" } else { "" }
        )));
    }
    let (a_layout, b_layout) = if shape.is_quad_pair(a) {
        // Volta's m8n8k4 `.f16`: any layout for each multiplicand.
        let [a_layout, b_layout] = layouts[..] else {
            return Err(m.error(format!(
                "`.{shape}` with `.f16` takes a layout for each of A and B (`.row` or `.col`)"
            )));
        };
        (a_layout, b_layout)
    } else if layouts == [Layout::Row, Layout::Col] {
        (Layout::Row, Layout::Col)
    } else {
        return Err(m.error("this shape takes the layouts `.row.col`"));
    };
    let frag = |matrix, ty| Fragment { matrix, shape, ty };
    let slot = |f: Fragment| Slot::Fragment {
        ty: match f.ty {
            Type::F32 | Type::S32 | Type::F64 => f.ty,
            _ => Type::B32,
        },
        regs: f.mma_registers().expect("a valid mma shape") as u8,
    };
    Ok(Decoded::Op(
        Op::Mma {
            shape,
            a_layout,
            b_layout,
            d,
            a,
            b,
            c,
            satfinite,
        },
        Shape::new()
            .d(slot(frag(MatrixUse::C, d)))
            .s(slot(frag(MatrixUse::A, a)))
            .s(slot(frag(MatrixUse::B, b)))
            .s(slot(frag(MatrixUse::C, c))),
    ))
}

/// `ldmatrix` and `stmatrix` of 8×8 matrices of 16-bit elements (the `.m16n16` and `.b8`
/// forms of sm_100 lower as unsupported).
fn ldst_matrix(load: bool, m: &mut Mods) -> Result<Decoded> {
    if !m.flag("sync")? || !m.flag("aligned")? {
        return Err(m.error("missing `.sync.aligned`"));
    }
    m.flag("m8n8")?;
    let count = m
        .take(|s| match s {
            "x1" => Some(1u8),
            "x2" => Some(2),
            "x4" => Some(4),
            _ => None,
        })?
        .ok_or_else(|| m.error("missing the matrix count `.x1`, `.x2` or `.x4`"))?;
    let trans = m.flag("trans")?;
    let space = memory_space(m)?;
    if !matches!(space, StateSpace::Shared | StateSpace::Generic) {
        return Err(m.error(format!("invalid state space `.{space}` (`.shared` only)")));
    }
    m.one_type()?;
    let regs = Slot::Fragment {
        ty: Type::B32,
        regs: count,
    };
    Ok(if load {
        Decoded::Op(
            Op::Ldmatrix {
                count,
                trans,
                space,
            },
            Shape::new().d(regs).s(Slot::Addr),
        )
    } else {
        Decoded::Op(
            Op::Stmatrix {
                count,
                trans,
                space,
            },
            Shape::new().s(Slot::Addr).s(regs),
        )
    })
}

/// `cp.async` (sm_80) and its group operations. The bulk (TMA) and mbarrier forms of sm_90
/// are left to [`UNSUPPORTED_OPCODES`].
fn cp_async(m: &mut Mods) -> Result<Decoded> {
    m.flag("async")?;
    if m.flag("commit_group")? {
        return Ok(Decoded::Op(Op::CpAsyncCommit, Shape::new()));
    }
    if m.flag("wait_all")? {
        return Ok(Decoded::Op(
            Op::CpAsyncWait { n: 0, all: true },
            Shape::new(),
        ));
    }
    if m.flag("wait_group")? {
        // The count is an immediate; `body` moves it into the operation.
        return Ok(Decoded::Op(
            Op::CpAsyncWait { n: 0, all: false },
            Shape::new().s(Slot::Val(Type::U32)),
        ));
    }
    let bypass_l1 = match m.take(|s| match s {
        "ca" => Some(false),
        "cg" => Some(true),
        _ => None,
    })? {
        Some(cg) => cg,
        None => return Err(m.error("missing `.ca` or `.cg`")),
    };
    let to = m.take(|s| matches!(s, "shared" | "shared::cta").then_some(()))?;
    let from = m.flag("global")?;
    if to.is_none() || !from {
        return Err(m.error("copies from `.global` to `.shared` only (`.shared.global`)"));
    }
    skip_cache_hints(m)?;
    // The size, an immediate, is checked and moved into the operation by `body`; the fourth
    // operand is src-size (`.u32`) or, when it names a predicate, ignore-src; a cache policy
    // may follow.
    Ok(Decoded::Op(
        Op::CpAsync {
            size: 0,
            bypass_l1,
            ignore_src: false,
        },
        Shape::new()
            .s(Slot::Addr)
            .s(Slot::Addr)
            .s(Slot::Val(Type::U32))
            .opt_s(Slot::Val(Type::U32))
            .opt_s(Slot::Val(Type::B64)),
    ))
}

fn barrier(legacy_bar: bool, m: &mut Mods) -> Result<Decoded> {
    let name = if legacy_bar { "bar" } else { "barrier" };
    if legacy_bar && m.flag("warp")? {
        if !m.flag("sync")? {
            return Err(m.error("missing `.sync`"));
        }
        return Ok(Decoded::Op(
            Op::BarWarpSync,
            Shape::new().s(Slot::Val(Type::B32)),
        ));
    }
    if !legacy_bar && m.flag("cluster")? {
        return cluster_barrier(m);
    }
    m.flag("cta")?;
    let kind = if m.flag("sync")? {
        BarrierKind::Sync
    } else if m.flag("arrive")? {
        BarrierKind::Arrive
    } else if m.flag("red")? {
        let rop = m.take(|s| match s {
            "popc" => Some(BarRedOp::Popc),
            "and" => Some(BarRedOp::And),
            "or" => Some(BarRedOp::Or),
            _ => None,
        })?;
        BarrierKind::Red(rop.ok_or_else(|| m.error("missing reduction `.popc`, `.and` or `.or`"))?)
    } else {
        return Err(m.error("missing `.sync`, `.arrive` or `.red`"));
    };
    let aligned = legacy_bar || m.flag("aligned")?;
    let id = Slot::Val(Type::U32);
    let shape = match kind {
        BarrierKind::Red(rop) => {
            let ty = typed(
                m,
                name,
                if rop == BarRedOp::Popc {
                    &[Type::U32]
                } else {
                    &[Type::Pred]
                },
            )?;
            let d = if ty == Type::Pred {
                Slot::Pred { negatable: false }
            } else {
                Slot::Val(Type::U32)
            };
            // d, a{, b}, c: the optional thread count sits between id and predicate; the body
            // lowering inserts its slot when four operands are given.
            Shape::new().d(d).s(id).s(Slot::Pred { negatable: true })
        }
        _ => Shape::new().s(id).opt_s(Slot::Val(Type::U32)),
    };
    Ok(Decoded::Op(Op::Bar { kind, aligned }, shape))
}

/// `barrier.cluster.arrive{.release|.relaxed}{.aligned}` and
/// `barrier.cluster.wait{.acquire}{.aligned}`: no operands.
fn cluster_barrier(m: &mut Mods) -> Result<Decoded> {
    let kind = if m.flag("arrive")? {
        let sem = m.take(|s| match s {
            "release" => Some(false),
            "relaxed" => Some(true),
            _ => None,
        })?;
        BarrierKind::ClusterArrive {
            relaxed: sem == Some(true),
        }
    } else if m.flag("wait")? {
        m.flag("acquire")?;
        BarrierKind::ClusterWait
    } else {
        return Err(m.error("missing `.arrive` or `.wait`"));
    };
    let aligned = m.flag("aligned")?;
    Ok(Decoded::Op(Op::Bar { kind, aligned }, Shape::new()))
}

fn vote(m: &mut Mods) -> Result<Decoded> {
    let mode = m.take(|s| {
        Some(match s {
            "all" => VoteMode::All,
            "any" => VoteMode::Any,
            "uni" => VoteMode::Uni,
            "ballot" => VoteMode::Ballot,
            _ => return None,
        })
    })?;
    let mode = mode.ok_or_else(|| m.error("missing mode"))?;
    let sync = m.flag("sync")?;
    let ty = typed(
        m,
        "vote",
        if mode == VoteMode::Ballot {
            &[Type::B32]
        } else {
            &[Type::Pred]
        },
    )?;
    let d = if ty == Type::Pred {
        Slot::Pred { negatable: false }
    } else {
        Slot::Val(Type::B32)
    };
    let shape = Shape::new().d(d).s(Slot::Pred { negatable: true });
    // The legacy form (deprecated in PTX ISA 6.0) has no member mask: it votes among the
    // executing threads (the emulator's `cross_lane` module).
    let shape = if sync {
        shape.s(Slot::Val(Type::B32))
    } else {
        shape
    };
    Ok(Decoded::Op(Op::Vote { mode }, shape))
}
