//! The IR verifier. What it checks is the list of invariants every later stage (analyses,
//! interpreter, JIT, timing model) may rely on:
//!
//! **Functions**
//! 1. A kernel (`.entry`) has a body: block 0 exists. A `.func` without blocks is a declaration.
//! 2. Symbols resolve: `Param(i)`, `Ret(i)`, `Local(l)` index the function's own tables and
//!    `Global(g)` the module's; function references (`call`, function addresses) index the
//!    module's functions. (Module-scope checks need [`verify_module`] or a module argument.)
//!
//! **Blocks and control flow**
//! 3. Only the last instruction of a block may be a terminator (`bra`, `ret`, `exit`, `trap`).
//! 4. Branch targets and fall-throughs name blocks in range.
//! 5. `fallthrough` is set iff control can run off the end of the block (it is empty, its last
//!    instruction is not a terminator, or that terminator is guarded), and then it is the next
//!    block in layout order.
//! 6. Control never runs off the end of the function: the last block cannot fall through.
//!
//! **Operands**
//! 7. Every virtual register index is in range of [`Function::regs`].
//! 8. Guards and `!p` operands are predicate registers.
//! 9. Destinations are registers, `_`, or vectors of those; `_` is never a source.
//! 10. Vectors are flat (no vector inside a vector) and not empty.
//! 11. Memory instructions (`ld`, `ldu`, `st`, `atom`, `red`) take their address first among
//!     the sources, and an address operand appears nowhere else.
//! 12. A vector memory access (`.v2`, `.v4`) moves a vector of exactly that many elements: the
//!     destination of a load, the second source of a store.
//!
//! The verifier reports every violation it finds, with its place, and never panics, whatever
//! the function holds.

use crate::function::{BlockId, FuncId, FuncKind, Function, Module, SymbolRef, VReg};
use crate::inst::{AddrBase, AddrWidth, Inst, Op, Operand};
use crate::types::Type;
use std::fmt;

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// A kernel without blocks.
    KernelWithoutBody,
    /// A terminator that is not the last instruction of its block.
    TerminatorNotLast,
    /// A branch to a block that does not exist.
    BranchTargetOutOfRange(BlockId),
    /// The fall-through is wrong: `expected` is what the block's end implies.
    BadFallthrough {
        /// The next block if the block can fall through, else `None`.
        expected: Option<BlockId>,
        /// The block's `fallthrough`.
        found: Option<BlockId>,
    },
    /// The last block can run off the end of the function.
    FallsOffEnd,
    /// A virtual register index past the function's register table.
    RegOutOfRange(VReg),
    /// A guard or `!p` operand that is not a predicate register.
    NotAPredicate(VReg),
    /// A symbol that does not resolve.
    SymbolOutOfRange(SymbolRef),
    /// A function reference that does not resolve.
    FuncOutOfRange(FuncId),
    /// A destination that is not a register, `_` or a vector of those.
    BadDestination,
    /// `_` used as a source.
    SinkAsSource,
    /// A vector nested in a vector, or an empty vector.
    BadVector,
    /// A memory instruction whose first source (`cp.async`: first two) is not an address.
    MissingAddress,
    /// An address operand anywhere but a memory instruction's first source (`cp.async`: first
    /// two).
    MisplacedAddress,
    /// An address whose [`crate::AddrWidth`] is not its base's: a register of another width,
    /// or a 32-bit width on a symbol or absolute base.
    AddressWidth,
    /// A `.vN` access whose data is not a vector of N elements.
    VectorWidth {
        /// The instruction's `.vN`.
        expected: u8,
        /// The number of elements of its data operand (1 for a scalar, 0 if missing).
        found: usize,
    },
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViolationKind::KernelWithoutBody => f.write_str("kernel has no body"),
            ViolationKind::TerminatorNotLast => {
                f.write_str("terminator is not the last instruction of its block")
            }
            ViolationKind::BranchTargetOutOfRange(b) => {
                write!(f, "branch target {b} does not exist")
            }
            ViolationKind::BadFallthrough { expected, found } => {
                let show =
                    |b: &Option<BlockId>| b.map_or_else(|| "none".to_string(), |b| b.to_string());
                write!(
                    f,
                    "fall-through is {}, expected {}",
                    show(found),
                    show(expected)
                )
            }
            ViolationKind::FallsOffEnd => f.write_str("control runs off the end of the function"),
            ViolationKind::RegOutOfRange(v) => write!(f, "register {v} does not exist"),
            ViolationKind::NotAPredicate(v) => write!(f, "register {v} is not a predicate"),
            ViolationKind::SymbolOutOfRange(s) => write!(f, "symbol {s:?} does not exist"),
            ViolationKind::FuncOutOfRange(id) => write!(f, "function {id} does not exist"),
            ViolationKind::BadDestination => {
                f.write_str("destination is not a register, `_` or a vector of those")
            }
            ViolationKind::SinkAsSource => f.write_str("`_` used as a source"),
            ViolationKind::BadVector => f.write_str("vector is empty or nested"),
            ViolationKind::MissingAddress => {
                f.write_str("memory instruction has no address as its first source(s)")
            }
            ViolationKind::MisplacedAddress => {
                f.write_str("address operand outside a memory instruction's first source(s)")
            }
            ViolationKind::AddressWidth => {
                f.write_str("address computed at a width other than its base's")
            }
            ViolationKind::VectorWidth { expected, found } => {
                write!(
                    f,
                    "vector access of width {expected} moves {found} elements"
                )
            }
        }
    }
}

/// One violated invariant and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The function, when known (set by [`verify_module`]).
    pub func: Option<FuncId>,
    /// The block, for block- and instruction-level violations.
    pub block: Option<BlockId>,
    /// The instruction's index in its block, for instruction-level violations.
    pub inst: Option<usize>,
    /// What is wrong.
    pub kind: ViolationKind,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(func) = self.func {
            write!(f, "{func} ")?;
        }
        if let Some(b) = self.block {
            write!(f, "{b} ")?;
        }
        if let Some(i) = self.inst {
            write!(f, "inst {i} ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// Verifies every function of `m`; violations carry their function.
pub fn verify_module(m: &Module) -> Vec<Violation> {
    let mut out = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        for mut v in verify_function(f, Some(m)) {
            v.func = Some(FuncId(i as u32));
            out.push(v);
        }
    }
    out
}

/// Verifies `f`. Global symbols and function references are checked only when `module` is given.
pub fn verify_function(f: &Function, module: Option<&Module>) -> Vec<Violation> {
    let mut cx = Checker {
        f,
        module,
        out: Vec::new(),
        block: None,
        inst: None,
    };
    if f.kind == FuncKind::Entry && f.blocks.is_empty() {
        cx.report(ViolationKind::KernelWithoutBody);
    }
    let n = f.blocks.len();
    for (b, block) in f.blocks.iter().enumerate() {
        cx.block = Some(BlockId(b as u32));
        for (i, inst) in block.insts.iter().enumerate() {
            cx.inst = Some(i);
            if inst.is_terminator() && i + 1 != block.insts.len() {
                cx.report(ViolationKind::TerminatorNotLast);
            }
            cx.check_inst(inst);
        }
        cx.inst = None;
        let falls = block.insts.last().is_none_or(Inst::can_fall_through);
        if falls && b + 1 == n {
            cx.report(ViolationKind::FallsOffEnd);
        }
        let expected = (falls && b + 1 < n).then(|| BlockId(b as u32 + 1));
        if block.fallthrough != expected {
            cx.report(ViolationKind::BadFallthrough {
                expected,
                found: block.fallthrough,
            });
        }
    }
    cx.out
}

struct Checker<'a> {
    f: &'a Function,
    module: Option<&'a Module>,
    out: Vec<Violation>,
    block: Option<BlockId>,
    inst: Option<usize>,
}

impl Checker<'_> {
    fn report(&mut self, kind: ViolationKind) {
        self.out.push(Violation {
            func: None,
            block: self.block,
            inst: self.inst,
            kind,
        });
    }

    fn check_reg(&mut self, v: VReg) -> Option<Type> {
        match self.f.regs.get(v.index()) {
            Some(r) => Some(r.ty),
            None => {
                self.report(ViolationKind::RegOutOfRange(v));
                None
            }
        }
    }

    fn check_pred(&mut self, v: VReg) {
        if self.check_reg(v).is_some_and(|t| t != Type::Pred) {
            self.report(ViolationKind::NotAPredicate(v));
        }
    }

    fn check_symbol(&mut self, s: SymbolRef) {
        let ok = match s {
            SymbolRef::Param(i) => (i as usize) < self.f.params.len(),
            SymbolRef::Ret(i) => (i as usize) < self.f.rets.len(),
            SymbolRef::Local(l) => l.index() < self.f.locals.len(),
            SymbolRef::Global(g) => self.module.is_none_or(|m| g.index() < m.globals.len()),
        };
        if !ok {
            self.report(ViolationKind::SymbolOutOfRange(s));
        }
    }

    fn check_func(&mut self, id: FuncId) {
        if self.module.is_some_and(|m| id.index() >= m.functions.len()) {
            self.report(ViolationKind::FuncOutOfRange(id));
        }
    }

    fn check_inst(&mut self, inst: &Inst) {
        if let Some(g) = inst.guard {
            self.check_pred(g.pred);
        }
        match &inst.op {
            Op::Bra { target, .. } if target.index() >= self.f.blocks.len() => {
                self.report(ViolationKind::BranchTargetOutOfRange(*target));
            }
            Op::Call {
                callee, args, rets, ..
            } => {
                if let Some(f) = callee.direct() {
                    self.check_func(f);
                }
                for s in args.iter().chain(rets) {
                    self.check_symbol(*s);
                }
            }
            _ => {}
        }
        for d in &inst.dsts {
            self.check_operand(d, true, false);
        }
        // Memory instructions lead with their address; `cp.async` with its two.
        let addresses = match inst.op {
            Op::Ld { .. }
            | Op::Ldu { .. }
            | Op::St { .. }
            | Op::Atom { .. }
            | Op::Red { .. }
            | Op::WmmaLoad { .. }
            | Op::WmmaStore { .. }
            | Op::Ldmatrix { .. }
            | Op::Stmatrix { .. }
            | Op::Prefetch { .. } => 1,
            Op::Mbarrier { op, .. } if op != crate::inst::MbarrierOp::PendingCount => 1,
            Op::CpAsync { .. } => 2,
            _ => 0,
        };
        if inst.srcs.len() < addresses
            || !inst.srcs[..addresses]
                .iter()
                .all(|s| matches!(s, Operand::Address(_)))
        {
            self.report(ViolationKind::MissingAddress);
        }
        for (i, s) in inst.srcs.iter().enumerate() {
            self.check_operand(s, false, i < addresses);
        }
        let (vec, data) = match &inst.op {
            Op::Ld { vec, .. } | Op::Ldu { vec, .. } => (*vec, inst.dsts.first()),
            Op::St { vec, .. } => (*vec, inst.srcs.get(1)),
            _ => (1, None),
        };
        if vec > 1 {
            let found = match data {
                Some(Operand::Vector(v)) => v.len(),
                Some(_) => 1,
                None => 0,
            };
            if found != usize::from(vec) {
                self.report(ViolationKind::VectorWidth {
                    expected: vec,
                    found,
                });
            }
        }
    }

    fn check_operand(&mut self, op: &Operand, dst: bool, address_allowed: bool) {
        match op {
            Operand::Reg(v) => {
                self.check_reg(*v);
            }
            Operand::NotPred(v) => {
                self.check_pred(*v);
                if dst {
                    self.report(ViolationKind::BadDestination);
                }
            }
            Operand::Sink => {
                if !dst {
                    self.report(ViolationKind::SinkAsSource);
                }
            }
            Operand::Vector(elems) => {
                if elems.is_empty() {
                    self.report(ViolationKind::BadVector);
                }
                for e in elems {
                    if matches!(e, Operand::Vector(_)) {
                        self.report(ViolationKind::BadVector);
                    } else {
                        self.check_operand(e, dst, false);
                    }
                }
            }
            Operand::Address(a) => {
                if !address_allowed {
                    self.report(ViolationKind::MisplacedAddress);
                }
                let width = match a.base {
                    AddrBase::Reg(v) => self.check_reg(v).map(|t| AddrWidth::of_register(t.bits())),
                    AddrBase::Symbol(s) => {
                        self.check_symbol(s);
                        Some(AddrWidth::Bits64)
                    }
                    AddrBase::Absolute => Some(AddrWidth::Bits64),
                };
                if width.is_some_and(|w| w != a.width) {
                    self.report(ViolationKind::AddressWidth);
                }
            }
            Operand::Imm(_)
            | Operand::Special(_)
            | Operand::SymbolAddr { .. }
            | Operand::FuncAddr(_) => {
                if dst {
                    self.report(ViolationKind::BadDestination);
                }
                match op {
                    Operand::SymbolAddr { sym, .. } => self.check_symbol(*sym),
                    Operand::FuncAddr(id) => self.check_func(*id),
                    _ => {}
                }
            }
        }
    }
}
