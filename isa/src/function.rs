//! Modules, functions, basic blocks, virtual registers and variables.

use crate::inst::{Inst, SrcLoc};
use crate::types::{RegClass, StateSpace, Type};
use std::fmt;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// A virtual register of a function (index into [`Function::regs`]).
    VReg,
    "v"
);
entity!(
    /// A basic block of a function (index into [`Function::blocks`]).
    BlockId,
    "bb"
);
entity!(
    /// A function of a module (index into [`Module::functions`]).
    FuncId,
    "fn"
);
entity!(
    /// A module-scope variable (index into [`Module::globals`]).
    GlobalId,
    "g"
);
entity!(
    /// A function-scope variable (index into [`Function::locals`]).
    LocalId,
    "l"
);

/// A reference to a variable from an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolRef {
    Global(GlobalId),
    Local(LocalId),
    /// A parameter of the current function (index into [`Function::params`]).
    Param(u32),
    /// A return parameter of the current function (index into [`Function::rets`]).
    Ret(u32),
}

/// A virtual register as declared.
#[derive(Clone, Debug, PartialEq)]
pub struct RegInfo {
    /// The PTX name (`%r12`).
    pub name: String,
    /// The declared type.
    pub ty: Type,
}

impl RegInfo {
    pub fn class(&self) -> RegClass {
        self.ty.reg_class()
    }
}

/// Initial contents of a variable: one value per element, as raw little-endian bits of the
/// element type, or the address of another symbol.
#[derive(Clone, Debug, PartialEq)]
pub enum InitValue {
    Bits(u64),
    /// The generic address of a global variable or function, plus an offset.
    SymbolAddr {
        sym: SymbolRef,
        offset: i64,
    },
    FuncAddr(FuncId),
}

/// A declared variable (module or function scope) or parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub space: StateSpace,
    /// Element type; `vec` elements of it make one array element.
    pub ty: Type,
    /// Vector width (1, 2 or 4) of each element.
    pub vec: u8,
    /// Number of array elements; `None` for a scalar, `Some(0)` for `name[]` of unknown size
    /// (dynamic shared memory, or an extern array).
    pub count: Option<u64>,
    /// Alignment in bytes (the natural alignment when not declared).
    pub align: u32,
    pub init: Option<Vec<InitValue>>,
    pub linkage: Linkage,
    pub loc: SrcLoc,
    /// A `.texref`, `.samplerref` or `.surfref` variable: 8 bytes (`ty` is `.b64`) holding the
    /// handle of the object the host bound to it ([`crate::texture`]).
    pub opaque: Option<crate::texture::Opaque>,
}

impl Variable {
    /// Size in bytes of one element.
    pub fn elem_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()) * u64::from(self.vec)
    }

    /// Size in bytes (0 for unsized arrays).
    pub fn size_bytes(&self) -> u64 {
        self.elem_bytes() * self.count.unwrap_or(1)
    }

    /// Whether the variable is an unsized `.extern .shared` array, i.e. dynamic shared memory.
    pub fn is_dynamic_shared(&self) -> bool {
        self.space == StateSpace::Shared && self.count == Some(0)
    }
}

/// Linkage of a module-scope symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Linkage {
    #[default]
    Internal,
    Visible,
    Extern,
    Weak,
    Common,
}

/// Performance-tuning directives of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    pub pragmas: Vec<String>,
}

/// A basic block: straight-line instructions; only the last may be a terminator.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The PTX label that starts the block, if any.
    pub label: Option<String>,
    pub insts: Vec<Inst>,
    /// The block reached when control runs off the end (no terminator, or a guarded one).
    pub fallthrough: Option<BlockId>,
}

impl Block {
    /// Successor blocks: the branch target (if any) first, then the fall-through.
    pub fn successors(&self) -> impl Iterator<Item = BlockId> + '_ {
        let target = match self.insts.last().map(|i| &i.op) {
            Some(crate::inst::Op::Bra { target, .. }) => Some(*target),
            _ => None,
        };
        target
            .into_iter()
            .chain(self.fallthrough.filter(|f| Some(*f) != target))
    }
}

/// Whether a function is a kernel entry point or a device function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FuncKind {
    Entry,
    Func,
}

/// A kernel (`.entry`) or device function (`.func`).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    pub linkage: Linkage,
    /// `.param` inputs, in order (space [`StateSpace::Param`]).
    pub params: Vec<Variable>,
    /// Return parameters of a `.func`.
    pub rets: Vec<Variable>,
    pub regs: Vec<RegInfo>,
    /// Function-scope `.local`, `.shared`, `.param` (call argument) variables.
    pub locals: Vec<Variable>,
    /// Basic blocks in layout order; block 0 is the entry. Empty for a declaration without body.
    pub blocks: Vec<Block>,
    pub tuning: Tuning,
    pub loc: SrcLoc,
}

impl Function {
    pub fn reg(&self, r: VReg) -> &RegInfo {
        &self.regs[r.index()]
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }

    /// Whether this is a prototype (`.extern .func` or a declaration without a body).
    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Block ids in layout order.
    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> + use<> {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    /// Number of instructions in the function.
    pub fn inst_count(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }
}

/// A whole PTX module after lowering.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The PTX ISA version (`.version 8.8` → (8, 8)).
    pub version: (u32, u32),
    /// The `.target` list (`sm_70`, `texmode_independent`, ...).
    pub target: Vec<String>,
    /// Bits of an address (`.address_size`: 32 or 64; 32 when the directive is omitted):
    /// a 32-bit module's pointers are `.u32` and its addresses are computed modulo 2^32.
    pub address_size: u32,
    pub globals: Vec<Variable>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    /// Looks a function up by name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// Kernel entry points.
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FuncKind::Entry)
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    /// Every instruction that parsed but cannot be executed, with its function.
    pub fn unsupported(&self) -> impl Iterator<Item = (&Function, &Inst)> {
        self.functions.iter().flat_map(|f| {
            f.blocks
                .iter()
                .flat_map(|b| b.insts.iter())
                .filter(|i| matches!(i.op, crate::inst::Op::Unsupported { .. }))
                .map(move |i| (f, i))
        })
    }
}
