//! A small builder for constructing functions programmatically, for tests and tools.
//!
//! Blocks are laid out in creation order; block 0 (the entry) exists from the start.
//! [`FunctionBuilder::finish`] fills in every block's fall-through from its last instruction,
//! so callers only place instructions and branches.
//!
//! ```
//! use isa::builder::{FunctionBuilder, imm, reg};
//! use isa::{CmpOp, FuncKind, Type};
//!
//! let mut b = FunctionBuilder::new("k", FuncKind::Entry);
//! let (r, p) = (b.reg("%r1", Type::S32), b.reg("%p1", Type::Pred));
//! let done = b.block();
//! b.mov(Type::S32, r, imm(1));
//! b.setp(CmpOp::Lt, Type::S32, p, reg(r), imm(4));
//! b.bra_if(p, false, done);
//! b.switch_to(done);
//! b.ret();
//! let f = b.finish();
//! assert!(isa::verify::verify_function(&f, None).is_empty());
//! ```

use crate::function::{
    Block, BlockId, FuncKind, Function, Linkage, LocalId, Module, RegInfo, SymbolRef, Tuning, VReg,
    Variable,
};
use crate::inst::{AddrBase, AddrWidth, Address, Guard, Inst, MulMode, Op, Operand, SrcLoc};
use crate::types::{CmpOp, MemOrder, StateSpace, Type};

/// A register operand.
pub fn reg(v: VReg) -> Operand {
    Operand::Reg(v)
}

/// An integer immediate (sign-extended to 64 bits).
pub fn imm(value: i64) -> Operand {
    Operand::Imm(value as u64)
}

/// An `f32` immediate.
pub fn imm_f32(value: f32) -> Operand {
    Operand::Imm(u64::from(value.to_bits()))
}

/// A memory address `[base+offset]` of a 64-bit base register.
pub fn addr(base: VReg, offset: i64) -> Operand {
    Operand::Address(Address::new(AddrBase::Reg(base), offset))
}

/// A memory address `[base+offset]` of a 32-bit base register (the sum wraps modulo 2^32).
pub fn addr32(base: VReg, offset: i64) -> Operand {
    Operand::Address(Address {
        base: AddrBase::Reg(base),
        offset,
        width: AddrWidth::Bits32,
    })
}

/// A memory address `[symbol+offset]`.
pub fn sym_addr(sym: SymbolRef, offset: i64) -> Operand {
    Operand::Address(Address::new(AddrBase::Symbol(sym), offset))
}

/// A vector operand `{a, b, ...}` of registers.
pub fn vector(regs: &[VReg]) -> Operand {
    Operand::Vector(regs.iter().copied().map(Operand::Reg).collect())
}

/// A variable with the natural alignment of its element type.
pub fn variable(name: &str, space: StateSpace, ty: Type, count: Option<u64>) -> Variable {
    Variable {
        name: name.to_string(),
        space,
        ty,
        vec: 1,
        count,
        align: ty.bytes(),
        init: None,
        linkage: Linkage::Internal,
        loc: SrcLoc::default(),
        opaque: None,
    }
}

/// Builds one [`Function`] block by block.
#[derive(Clone, Debug)]
pub struct FunctionBuilder {
    func: Function,
    current: BlockId,
}

impl FunctionBuilder {
    /// A function with an empty entry block, which is the current block.
    pub fn new(name: &str, kind: FuncKind) -> FunctionBuilder {
        let func = Function {
            name: name.to_string(),
            kind,
            linkage: if kind == FuncKind::Entry {
                Linkage::Visible
            } else {
                Linkage::Internal
            },
            params: Vec::new(),
            rets: Vec::new(),
            regs: Vec::new(),
            locals: Vec::new(),
            blocks: vec![Block {
                label: None,
                insts: Vec::new(),
                fallthrough: None,
            }],
            tuning: Tuning::default(),
            loc: SrcLoc::default(),
        };
        FunctionBuilder {
            func,
            current: BlockId(0),
        }
    }

    /// Declares a `.param` input.
    pub fn param(&mut self, name: &str, ty: Type) -> SymbolRef {
        self.func
            .params
            .push(variable(name, StateSpace::Param, ty, None));
        SymbolRef::Param(self.func.params.len() as u32 - 1)
    }

    /// Declares a return parameter.
    pub fn ret_param(&mut self, name: &str, ty: Type) -> SymbolRef {
        self.func
            .rets
            .push(variable(name, StateSpace::Param, ty, None));
        SymbolRef::Ret(self.func.rets.len() as u32 - 1)
    }

    /// Declares a function-scope variable.
    pub fn local(&mut self, var: Variable) -> SymbolRef {
        self.func.locals.push(var);
        SymbolRef::Local(LocalId(self.func.locals.len() as u32 - 1))
    }

    /// Declares a virtual register.
    pub fn reg(&mut self, name: &str, ty: Type) -> VReg {
        self.func.regs.push(RegInfo {
            name: name.to_string(),
            ty,
        });
        VReg(self.func.regs.len() as u32 - 1)
    }

    /// Appends an empty block (not made current).
    pub fn block(&mut self) -> BlockId {
        self.func.blocks.push(Block {
            label: None,
            insts: Vec::new(),
            fallthrough: None,
        });
        BlockId(self.func.blocks.len() as u32 - 1)
    }

    /// Appends an empty block with a label (not made current).
    pub fn labeled_block(&mut self, label: &str) -> BlockId {
        let b = self.block();
        self.func.blocks[b.index()].label = Some(label.to_string());
        b
    }

    /// Makes `b` the block instructions are appended to.
    pub fn switch_to(&mut self, b: BlockId) {
        self.current = b;
    }

    /// The block instructions are appended to.
    pub fn current(&self) -> BlockId {
        self.current
    }

    /// Appends an instruction to the current block.
    pub fn push(&mut self, inst: Inst) {
        self.func.blocks[self.current.index()].insts.push(inst);
    }

    /// Appends an unguarded instruction.
    pub fn inst(&mut self, op: Op, dsts: Vec<Operand>, srcs: Vec<Operand>) {
        self.push(Inst {
            guard: None,
            op,
            dsts,
            srcs,
            loc: SrcLoc::default(),
        });
    }

    /// Appends an instruction guarded by `@pred` (or `@!pred` when `negated`).
    pub fn guarded(
        &mut self,
        pred: VReg,
        negated: bool,
        op: Op,
        dsts: Vec<Operand>,
        srcs: Vec<Operand>,
    ) {
        let guard = Some(Guard { pred, negated });
        self.push(Inst {
            guard,
            op,
            dsts,
            srcs,
            loc: SrcLoc::default(),
        });
    }

    /// `mov.ty d, src`.
    pub fn mov(&mut self, ty: Type, d: VReg, src: Operand) {
        self.inst(Op::Mov { ty }, vec![reg(d)], vec![src]);
    }

    /// `add.ty d, a, b` (integer).
    pub fn add(&mut self, ty: Type, d: VReg, a: Operand, b: Operand) {
        self.inst(Op::IAdd { ty, sat: false }, vec![reg(d)], vec![a, b]);
    }

    /// `mul.wide.ty d, a, b`.
    pub fn mul_wide(&mut self, ty: Type, d: VReg, a: Operand, b: Operand) {
        self.inst(
            Op::IMul {
                ty,
                mode: MulMode::Wide,
            },
            vec![reg(d)],
            vec![a, b],
        );
    }

    /// `setp.cmp.ty p, a, b`.
    pub fn setp(&mut self, cmp: CmpOp, ty: Type, p: VReg, a: Operand, b: Operand) {
        self.inst(
            Op::Setp {
                cmp,
                ty,
                combine: None,
                ftz: false,
            },
            vec![reg(p)],
            vec![a, b],
        );
    }

    /// `ld.space.ty d, [address]` (plain, scalar).
    pub fn ld(&mut self, space: StateSpace, ty: Type, d: Operand, address: Operand) {
        let op = Op::Ld {
            space,
            ty,
            vec: 1,
            order: MemOrder::Weak,
            scope: None,
            cache: None,
            nc: false,
        };
        self.inst(op, vec![d], vec![address]);
    }

    /// `st.space.ty [address], value` (plain, scalar).
    pub fn st(&mut self, space: StateSpace, ty: Type, address: Operand, value: Operand) {
        let op = Op::St {
            space,
            ty,
            vec: 1,
            order: MemOrder::Weak,
            scope: None,
            cache: None,
        };
        self.inst(op, Vec::new(), vec![address, value]);
    }

    /// `ld.param.ty d, [param]`.
    pub fn ld_param(&mut self, ty: Type, d: VReg, param: SymbolRef) {
        self.ld(StateSpace::Param, ty, reg(d), sym_addr(param, 0));
    }

    /// `bra target` (unguarded).
    pub fn bra(&mut self, target: BlockId) {
        self.inst(Op::Bra { target, uni: false }, Vec::new(), Vec::new());
    }

    /// `bra.uni target` (unguarded).
    pub fn bra_uni(&mut self, target: BlockId) {
        self.inst(Op::Bra { target, uni: true }, Vec::new(), Vec::new());
    }

    /// `@p bra target` (or `@!p` when `negated`): a conditional branch.
    pub fn bra_if(&mut self, p: VReg, negated: bool, target: BlockId) {
        self.guarded(
            p,
            negated,
            Op::Bra { target, uni: false },
            Vec::new(),
            Vec::new(),
        );
    }

    /// `ret`.
    pub fn ret(&mut self) {
        self.inst(Op::Ret { uni: false }, Vec::new(), Vec::new());
    }

    /// `exit`.
    pub fn exit(&mut self) {
        self.inst(Op::Exit, Vec::new(), Vec::new());
    }

    /// The function, with each block's fall-through set to the next block when its end can
    /// fall through (it is empty, does not end in a terminator, or ends in a guarded one).
    pub fn finish(mut self) -> Function {
        let n = self.func.blocks.len();
        for (i, block) in self.func.blocks.iter_mut().enumerate() {
            let falls = block.insts.last().is_none_or(Inst::can_fall_through);
            block.fallthrough = (falls && i + 1 < n).then(|| BlockId(i as u32 + 1));
        }
        self.func
    }

    /// The function alone in a module targeting `sm_70` with 64-bit addresses.
    pub fn into_module(self) -> Module {
        Module {
            version: (8, 8),
            target: vec!["sm_70".to_string()],
            address_size: 64,
            globals: Vec::new(),
            functions: vec![self.finish()],
        }
    }
}
