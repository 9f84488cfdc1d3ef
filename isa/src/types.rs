//! Scalar types, state spaces and the small modifier enums shared by many instructions.

use std::fmt;

/// A PTX fundamental type as an instruction or declaration names it.
///
/// Bit-size types (`.b*`) carry no interpretation; the instruction decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    /// TensorFloat-32: f32's encoding with the 13 low fraction bits zero (a `cvt` result).
    TF32,
    /// The 8-bit float formats (OCP FP8): `E4M3` (no infinities, one NaN per sign, largest
    /// 448) and `E5M2` (IEEE-like); PTX names only their packed pairs, `.e4m3x2`/`.e5m2x2`.
    E4M3,
    E5M2,
    E4M3x2,
    E5M2x2,
    F32,
    F64,
}

/// How the bits of a [`Type`] are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Pred,
    Bits,
    Unsigned,
    Signed,
    Float,
}

impl Type {
    /// Parses a type name without its leading dot (`"u32"`).
    pub fn from_name(name: &str) -> Option<Type> {
        Some(match name {
            "pred" => Type::Pred,
            "b8" => Type::B8,
            "b16" => Type::B16,
            "b32" => Type::B32,
            "b64" => Type::B64,
            "b128" => Type::B128,
            "u8" => Type::U8,
            "u16" => Type::U16,
            "u32" => Type::U32,
            "u64" => Type::U64,
            "s8" => Type::S8,
            "s16" => Type::S16,
            "s32" => Type::S32,
            "s64" => Type::S64,
            "f16" => Type::F16,
            "f16x2" => Type::F16x2,
            "bf16" => Type::BF16,
            "bf16x2" => Type::BF16x2,
            "tf32" => Type::TF32,
            "e4m3x2" => Type::E4M3x2,
            "e5m2x2" => Type::E5M2x2,
            "f32" => Type::F32,
            "f64" => Type::F64,
            _ => return None,
        })
    }

    /// The name without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            Type::Pred => "pred",
            Type::B8 => "b8",
            Type::B16 => "b16",
            Type::B32 => "b32",
            Type::B64 => "b64",
            Type::B128 => "b128",
            Type::U8 => "u8",
            Type::U16 => "u16",
            Type::U32 => "u32",
            Type::U64 => "u64",
            Type::S8 => "s8",
            Type::S16 => "s16",
            Type::S32 => "s32",
            Type::S64 => "s64",
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::BF16 => "bf16",
            Type::BF16x2 => "bf16x2",
            Type::TF32 => "tf32",
            Type::E4M3 => "e4m3",
            Type::E5M2 => "e5m2",
            Type::E4M3x2 => "e4m3x2",
            Type::E5M2x2 => "e5m2x2",
            Type::F32 => "f32",
            Type::F64 => "f64",
        }
    }

    /// Size in bits (predicates count as 1).
    pub fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            Type::B8 | Type::U8 | Type::S8 | Type::E4M3 | Type::E5M2 => 8,
            Type::B16
            | Type::U16
            | Type::S16
            | Type::F16
            | Type::BF16
            | Type::E4M3x2
            | Type::E5M2x2 => 16,
            Type::B32
            | Type::U32
            | Type::S32
            | Type::F32
            | Type::F16x2
            | Type::BF16x2
            | Type::TF32 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 64,
            Type::B128 => 128,
        }
    }

    /// Size in bytes in memory (predicates are not addressable; reported as 1).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn kind(self) -> TypeKind {
        match self {
            Type::Pred => TypeKind::Pred,
            Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128 => TypeKind::Bits,
            Type::U8 | Type::U16 | Type::U32 | Type::U64 => TypeKind::Unsigned,
            Type::S8 | Type::S16 | Type::S32 | Type::S64 => TypeKind::Signed,
            Type::F16
            | Type::F16x2
            | Type::BF16
            | Type::BF16x2
            | Type::TF32
            | Type::E4M3
            | Type::E5M2
            | Type::E4M3x2
            | Type::E5M2x2
            | Type::F32
            | Type::F64 => TypeKind::Float,
        }
    }

    /// The element type of a packed pair (`.f16x2` → `.f16`, `.e4m3x2` → `.e4m3`, ...), whose
    /// first element is in the low half.
    pub fn packed_element(self) -> Option<Type> {
        match self {
            Type::F16x2 => Some(Type::F16),
            Type::BF16x2 => Some(Type::BF16),
            Type::E4M3x2 => Some(Type::E4M3),
            Type::E5M2x2 => Some(Type::E5M2),
            _ => None,
        }
    }

    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    /// Integer-like: bits, unsigned or signed.
    pub fn is_integer(self) -> bool {
        matches!(
            self.kind(),
            TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed
        )
    }

    /// The register class a value of this type lives in.
    pub fn reg_class(self) -> RegClass {
        match self.bits() {
            1 => RegClass::Pred,
            8 | 16 => RegClass::B16,
            32 => RegClass::B32,
            64 => RegClass::B64,
            _ => RegClass::B128,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The storage class of a virtual register, which decides how many physical 32-bit registers
/// it takes (see [`RegClass::phys_regs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// A 1-bit predicate, allocated in the separate predicate file.
    Pred,
    /// 8- and 16-bit values: one 32-bit register.
    B16,
    B32,
    /// 64-bit values: an aligned pair of 32-bit registers.
    B64,
    /// 128-bit values: an aligned quad.
    B128,
}

impl RegClass {
    /// Number of 32-bit physical registers a value of this class occupies (0 for predicates,
    /// which live in their own file).
    pub fn phys_regs(self) -> u32 {
        match self {
            RegClass::Pred => 0,
            RegClass::B16 | RegClass::B32 => 1,
            RegClass::B64 => 2,
            RegClass::B128 => 4,
        }
    }
}

/// A PTX state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// No space named: the generic address space.
    Generic,
    Global,
    Shared,
    /// `.shared::cluster`; lowered as CTA shared memory (clusters of one CTA).
    SharedCluster,
    Local,
    Const,
    Param,
    Reg,
}

impl StateSpace {
    pub fn from_name(name: &str) -> Option<StateSpace> {
        Some(match name {
            "global" => StateSpace::Global,
            "shared" | "shared::cta" => StateSpace::Shared,
            "shared::cluster" => StateSpace::SharedCluster,
            "local" => StateSpace::Local,
            "const" => StateSpace::Const,
            "param" | "param::entry" | "param::func" => StateSpace::Param,
            "reg" => StateSpace::Reg,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Generic => "generic",
            StateSpace::Global => "global",
            StateSpace::Shared => "shared",
            StateSpace::SharedCluster => "shared::cluster",
            StateSpace::Local => "local",
            StateSpace::Const => "const",
            StateSpace::Param => "param",
            StateSpace::Reg => "reg",
        }
    }
}

impl fmt::Display for StateSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// IEEE rounding of a floating-point result (`.rn .rna .rz .rm .rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to even.
    Rn,
    /// To nearest, ties away from zero (cvt only).
    Rna,
    /// Towards zero.
    Rz,
    /// Towards minus infinity.
    Rm,
    /// Towards plus infinity.
    Rp,
}

impl Rounding {
    /// Parses a float rounding modifier (`"rn"`), or the integer form (`"rni"`) when `int` is set.
    pub fn from_name(name: &str) -> Option<(Rounding, bool)> {
        Some(match name {
            "rn" => (Rounding::Rn, false),
            "rna" => (Rounding::Rna, false),
            "rz" => (Rounding::Rz, false),
            "rm" => (Rounding::Rm, false),
            "rp" => (Rounding::Rp, false),
            "rni" => (Rounding::Rn, true),
            "rzi" => (Rounding::Rz, true),
            "rmi" => (Rounding::Rm, true),
            "rpi" => (Rounding::Rp, true),
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rna => "rna",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
        }
    }
}

/// Memory scope of an ordered access, fence or atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

impl Scope {
    pub fn from_name(name: &str) -> Option<Scope> {
        Some(match name {
            "cta" => Scope::Cta,
            "cluster" => Scope::Cluster,
            "gpu" => Scope::Gpu,
            "sys" => Scope::Sys,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }
}

/// Memory-ordering semantics of a load, store, atomic or fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOrder {
    /// Plain access (no qualifier, or `.weak`).
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    /// Sequentially consistent (`fence.sc`).
    Sc,
}

impl MemOrder {
    pub fn from_name(name: &str) -> Option<MemOrder> {
        Some(match name {
            "weak" => MemOrder::Weak,
            "volatile" => MemOrder::Volatile,
            "relaxed" => MemOrder::Relaxed,
            "acquire" => MemOrder::Acquire,
            "release" => MemOrder::Release,
            "acq_rel" => MemOrder::AcqRel,
            "sc" => MemOrder::Sc,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            MemOrder::Weak => "weak",
            MemOrder::Volatile => "volatile",
            MemOrder::Relaxed => "relaxed",
            MemOrder::Acquire => "acquire",
            MemOrder::Release => "release",
            MemOrder::AcqRel => "acq_rel",
            MemOrder::Sc => "sc",
        }
    }
}

/// Cache operator of a load or store (`.ca .cg .cs .lu .cv .wb .wt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    Ca,
    Cg,
    Cs,
    Lu,
    Cv,
    Wb,
    Wt,
}

impl CacheOp {
    pub fn from_name(name: &str) -> Option<CacheOp> {
        Some(match name {
            "ca" => CacheOp::Ca,
            "cg" => CacheOp::Cg,
            "cs" => CacheOp::Cs,
            "lu" => CacheOp::Lu,
            "cv" => CacheOp::Cv,
            "wb" => CacheOp::Wb,
            "wt" => CacheOp::Wt,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            CacheOp::Ca => "ca",
            CacheOp::Cg => "cg",
            CacheOp::Cs => "cs",
            CacheOp::Lu => "lu",
            CacheOp::Cv => "cv",
            CacheOp::Wb => "wb",
            CacheOp::Wt => "wt",
        }
    }
}

/// A comparison of `setp` / `set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned comparisons on `.b` types.
    Lo,
    Ls,
    Hi,
    Hs,
    /// Unordered float comparisons: true when either operand is NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both operands are numbers.
    Num,
    /// Either operand is NaN.
    Nan,
}

impl CmpOp {
    pub fn from_name(name: &str) -> Option<CmpOp> {
        Some(match name {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" => CmpOp::Lt,
            "le" => CmpOp::Le,
            "gt" => CmpOp::Gt,
            "ge" => CmpOp::Ge,
            "lo" => CmpOp::Lo,
            "ls" => CmpOp::Ls,
            "hi" => CmpOp::Hi,
            "hs" => CmpOp::Hs,
            "equ" => CmpOp::Equ,
            "neu" => CmpOp::Neu,
            "ltu" => CmpOp::Ltu,
            "leu" => CmpOp::Leu,
            "gtu" => CmpOp::Gtu,
            "geu" => CmpOp::Geu,
            "num" => CmpOp::Num,
            "nan" => CmpOp::Nan,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
            CmpOp::Lo => "lo",
            CmpOp::Ls => "ls",
            CmpOp::Hi => "hi",
            CmpOp::Hs => "hs",
            CmpOp::Equ => "equ",
            CmpOp::Neu => "neu",
            CmpOp::Ltu => "ltu",
            CmpOp::Leu => "leu",
            CmpOp::Gtu => "gtu",
            CmpOp::Geu => "geu",
            CmpOp::Num => "num",
            CmpOp::Nan => "nan",
        }
    }

    /// Whether this comparison is only meaningful for floating-point operands.
    pub fn is_float_only(self) -> bool {
        matches!(
            self,
            CmpOp::Equ
                | CmpOp::Neu
                | CmpOp::Ltu
                | CmpOp::Leu
                | CmpOp::Gtu
                | CmpOp::Geu
                | CmpOp::Num
                | CmpOp::Nan
        )
    }
}

/// The boolean combining operation of `setp.cmp.bop` / `set.cmp.bop` / `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    pub fn from_name(name: &str) -> Option<BoolOp> {
        Some(match name {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            "xor" => BoolOp::Xor,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
            BoolOp::Xor => "xor",
        }
    }
}

/// One of the three grid dimensions of `%tid`, `%ntid`, `%ctaid`, `%nctaid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    pub fn from_name(name: &str) -> Option<Dim> {
        Some(match name {
            "x" => Dim::X,
            "y" => Dim::Y,
            "z" => Dim::Z,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
