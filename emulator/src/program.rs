//! A module prepared for execution: each function's instructions in one array indexed by PC,
//! branch targets and SIMT reconvergence PCs resolved, and every variable given its place
//! (device address, shared-memory offset, or offset in a thread's local frame).

use crate::gpr_operands::GprOperands;
use crate::memory_map::MemoryMap;
use isa::analysis::FunctionAnalysis;
use isa::dom::Reconvergence;
use isa::hints::FunctionHints;
use isa::{FuncId, FuncKind, Inst, Module, Op, Operand, StateSpace, SymbolRef, Type, Variable};

/// PC meaning "the function exit" (no reconvergence inside the function).
pub const EXIT_PC: u32 = u32::MAX;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// A device address (`.global` and `.const` variables).
    Global(u64),
    /// An offset in the CTA's shared memory.
    Shared(u64),
    /// An offset from the thread's current frame in local memory (`.local` variables, and the
    /// `.param` variables of device functions and of call sites).
    Frame(u64),
    /// An offset in the launch's kernel-parameter buffer.
    KernelParam(u64),
}

/// One function, ready to run.
#[derive(Debug)]
pub struct Code {
    pub name: String,
    pub kind: FuncKind,
    /// Instructions in layout order; the index is the PC.
    pub insts: Vec<Inst>,
    /// For each PC: the branch target PC of a `bra`, else 0.
    pub target: Vec<u32>,
    /// For each PC: where lanes that diverge at this instruction reconverge ([`EXIT_PC`] when
    /// only at the function exit).
    pub reconverge: Vec<u32>,
    /// Declared type of each virtual register.
    pub reg_types: Vec<Type>,
    /// Physical 32-bit registers per thread from the register allocator (the function alone,
    /// without its callees).
    pub regs_per_thread: u32,
    /// Predicate registers per thread from the register allocator (the function alone).
    pub preds_per_thread: u32,
    /// Physical register of each virtual register (by `VReg`), as the timing model sees the
    /// register file; `None` for registers no instruction mentions.
    pub phys: Vec<Option<isa::regalloc::PhysReg>>,
    /// Each instruction's general-purpose register operands under `phys`, by PC.
    pub gprs: GprOperands,
    /// Local frame layout: params (of a function, not a kernel), then return values, then
    /// `.local`/`.param` variables.
    pub frame_size: u64,
    /// Where each parameter of a (non-kernel) function lives in its frame; empty for a kernel.
    pub param_locs: Vec<Location>,
    pub ret_locs: Vec<Location>,
    /// Location of each function-scope variable (by `LocalId`); shared ones are filled per
    /// kernel in [`KernelLayout`].
    pub local_locs: Vec<Location>,
}

/// The shared-memory layout of one kernel (its own and its callees' shared variables).
#[derive(Clone, Debug, Default)]
pub struct KernelLayout {
    /// Bytes of static shared memory.
    pub static_shared: u64,
    /// Offset of dynamic shared memory (`.extern .shared` arrays), after the static part.
    pub dynamic_offset: u64,
    /// Shared offsets of module-scope `.shared` variables (by `GlobalId`).
    pub global_shared: Vec<Option<u64>>,
    /// Shared offsets of function-scope `.shared` variables (by function, then `LocalId`).
    pub local_shared: Vec<Vec<Option<u64>>>,
    /// Bytes of kernel parameters, and each parameter's offset.
    pub param_size: u64,
    pub param_offsets: Vec<u64>,
}

/// A module prepared for execution.
#[derive(Debug)]
pub struct Program {
    pub module: Module,
    pub code: Vec<Code>,
    /// Device address of each module-scope variable in `.global`/`.const` (others: `None`).
    pub global_addrs: Vec<Option<u64>>,
    /// Per kernel (by `FuncId`; `None` for device functions).
    pub layouts: Vec<Option<KernelLayout>>,
    /// Compiled code per kernel and granularity, built on first use and kept with the
    /// program it points into.
    jit: std::sync::Mutex<JitCache>,
    /// Compiler hints per function (by `FuncId`), computed on first use: functional-only runs
    /// never ask, so they pay nothing.
    hints: Vec<std::sync::OnceLock<FunctionHints>>,
    /// The PTX text the module was lowered from, when the loader kept it: faults quote the
    /// faulting instruction's source line rather than warpsim's listing.
    source: Option<std::sync::Arc<str>>,
    /// The memory map of the device memory the program runs on (compiled code bakes it in).
    map: MemoryMap,
}

type JitCache = std::collections::HashMap<
    (FuncId, crate::jit::Granularity),
    std::sync::Arc<crate::jit::JitKernel>,
>;

fn align_to(x: u64, a: u64) -> u64 {
    x.next_multiple_of(a.max(1))
}

impl Program {
    /// Prepares `module`. `global_addrs` gives the device address allocated for each
    /// module-scope `.global`/`.const` variable (the runtime allocates and initializes them).
    /// The program runs on device memory of its address size's default map
    /// ([`MemoryMap::for_address_size`]); [`Program::with_map`] chooses another.
    pub fn new(module: Module, global_addrs: Vec<Option<u64>>) -> Program {
        let map = MemoryMap::for_address_size(module.address_size);
        let code: Vec<Code> = module.functions.iter().map(prepare).collect();
        let layouts = module
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (f.kind == FuncKind::Entry).then(|| kernel_layout(&module, FuncId(i as u32)))
            })
            .collect();
        let hints = module
            .functions
            .iter()
            .map(|_| Default::default())
            .collect();
        Program {
            module,
            code,
            global_addrs,
            layouts,
            jit: Default::default(),
            hints,
            source: None,
            map,
        }
    }

    /// The program for device memory laid out as `map` (a 64-bit module on a device with the
    /// 32-bit map). A module of `.address_size 32` needs a map below 4 GiB: another is an
    /// error naming both.
    pub fn with_map(mut self, map: MemoryMap) -> Result<Program, String> {
        let bits = self.module.address_size;
        if !map.serves(bits) {
            return Err(format!(
                "a module of `.address_size {bits}` cannot run under {}: its addresses must lie below 4 GiB",
                map.describe()
            ));
        }
        self.map = map;
        Ok(self)
    }

    /// The memory map of the device memory the program runs on.
    pub fn map(&self) -> MemoryMap {
        self.map
    }

    /// The mask every computed address goes through: a module of `.address_size 32` computes
    /// addresses modulo 2^32 (a wider register or a sum past 4 GiB is truncated, as the PTX
    /// manual says of addresses wider than the address size); 64-bit ones keep all 64 bits.
    pub fn address_mask(&self) -> u64 {
        if self.module.address_size == 32 {
            u32::MAX.into()
        } else {
            u64::MAX
        }
    }

    /// Keeps the PTX text the module was lowered from, for fault reports.
    pub fn with_source(mut self, text: impl Into<std::sync::Arc<str>>) -> Program {
        self.source = Some(text.into());
        self
    }

    /// The PTX text the module was lowered from, if the program kept it.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// Line `line` (from 1) of the PTX source, trimmed, if the program kept its source.
    pub fn source_line(&self, line: u32) -> Option<&str> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        Some(self.source.as_deref()?.lines().nth(index)?.trim())
    }

    /// The compiler hints of `func` for register-file techniques, indexed by the same PCs as
    /// [`Code::insts`]: live-in/live-out 32-bit registers per PC, the last-use bit of each
    /// register read, and the register affinity graph (see [`isa::hints`]). Computed once per
    /// function on first use and cached with the program, so every launch shares them; they
    /// are consistent with [`Code::phys`], the allocation the timing model sees.
    pub fn hints(&self, func: FuncId) -> &FunctionHints {
        self.hints[func.index()].get_or_init(|| {
            FunctionHints::with_allocation(
                &self.module.functions[func.index()],
                &self.code[func.index()].phys,
            )
        })
    }

    /// The compiled code of `kernel` for the functional engine, compiling it on first use.
    pub fn jit(&self, kernel: FuncId) -> Result<std::sync::Arc<crate::jit::JitKernel>, String> {
        self.jit_at(kernel, crate::jit::Granularity::Runs)
    }

    /// The compiled code of `kernel` at `granularity`, compiling it on first use.
    pub fn jit_at(
        &self,
        kernel: FuncId,
        granularity: crate::jit::Granularity,
    ) -> Result<std::sync::Arc<crate::jit::JitKernel>, String> {
        let mut cache = self.jit.lock().expect("JIT cache lock");
        if let Some(k) = cache.get(&(kernel, granularity)) {
            return Ok(k.clone());
        }
        let compiled = std::sync::Arc::new(crate::jit::compile(self, kernel, granularity)?);
        cache.insert((kernel, granularity), compiled.clone());
        Ok(compiled)
    }

    /// Registers per thread a launch of `kernel` needs: the most over the kernel and every
    /// function it may call.
    pub fn kernel_registers(&self, kernel: FuncId) -> u32 {
        reachable_functions(&self.module, kernel)
            .iter()
            .map(|f| self.code[f.index()].regs_per_thread)
            .max()
            .unwrap_or(0)
    }

    /// Where `sym` lives, seen from function `func` running under kernel `layout`.
    pub fn location(&self, layout: &KernelLayout, func: FuncId, sym: SymbolRef) -> Location {
        let code = &self.code[func.index()];
        match sym {
            SymbolRef::Global(g) => match self.global_addrs[g.index()] {
                Some(addr) => Location::Global(addr),
                None => Location::Shared(
                    layout.global_shared[g.index()].unwrap_or(layout.dynamic_offset),
                ),
            },
            SymbolRef::Local(l) => match layout.local_shared[func.index()]
                .get(l.index())
                .copied()
                .flatten()
            {
                Some(off) => Location::Shared(off),
                None => code.local_locs[l.index()],
            },
            SymbolRef::Param(i) if code.kind == FuncKind::Entry => {
                Location::KernelParam(layout.param_offsets[i as usize])
            }
            SymbolRef::Param(i) => code.param_locs[i as usize],
            SymbolRef::Ret(i) => code.ret_locs[i as usize],
        }
    }
}

/// Flattens blocks into one array and lays out the local frame.
fn prepare(f: &isa::Function) -> Code {
    let analysis = FunctionAnalysis::compute(f);
    let mut insts = Vec::with_capacity(f.inst_count());
    let mut target = Vec::with_capacity(f.inst_count());
    let mut reconverge = Vec::with_capacity(f.inst_count());
    let pc_of = |b: isa::BlockId| analysis.block_pc[b.index()];
    for (bi, block) in f.blocks.iter().enumerate() {
        let b = isa::BlockId(bi as u32);
        let rpc = match analysis.postdom.reconvergence_point(b) {
            Some(Reconvergence::Block(r)) => pc_of(r),
            _ => EXIT_PC,
        };
        for inst in &block.insts {
            target.push(match inst.op {
                Op::Bra { target, .. } => pc_of(target),
                _ => 0,
            });
            reconverge.push(rpc);
            insts.push(inst.clone());
        }
    }
    let mut offset = 0u64;
    let mut place = |v: &Variable| {
        offset = align_to(offset, u64::from(v.align));
        let loc = Location::Frame(offset);
        offset += v.size_bytes();
        loc
    };
    // A kernel's parameters live in the parameter space (see `Program::location`), not in
    // its frame: a kernel without `.local` variables then has no local memory at all.
    let param_locs: Vec<_> = if f.kind == FuncKind::Entry {
        Vec::new()
    } else {
        f.params.iter().map(&mut place).collect()
    };
    let ret_locs: Vec<_> = f.rets.iter().map(&mut place).collect();
    let local_locs: Vec<_> = f
        .locals
        .iter()
        .map(|v| match v.space {
            StateSpace::Shared | StateSpace::SharedCluster => Location::Shared(0), // per kernel
            _ => place(v),
        })
        .collect();
    let reg_types: Vec<Type> = f.regs.iter().map(|r| r.ty).collect();
    let gprs = GprOperands::new(&insts, &analysis.alloc.phys, &reg_types);
    Code {
        name: f.name.clone(),
        kind: f.kind,
        insts,
        target,
        reconverge,
        reg_types,
        regs_per_thread: analysis.alloc.regs_per_thread,
        preds_per_thread: analysis.alloc.preds_per_thread,
        phys: analysis.alloc.phys,
        gprs,
        frame_size: align_to(offset, 16),
        param_locs,
        ret_locs,
        local_locs,
    }
}

/// Functions reachable from `kernel` through calls, the kernel first. An indirect call may
/// reach every function whose address the module takes.
pub fn reachable_functions(module: &Module, kernel: FuncId) -> Vec<FuncId> {
    let mut seen = vec![false; module.functions.len()];
    let mut order = vec![kernel];
    seen[kernel.index()] = true;
    let mut i = 0;
    while i < order.len() {
        let mut callees = Vec::new();
        for inst in module
            .function(order[i])
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
        {
            match inst.op {
                Op::Call {
                    callee: isa::Callee::Direct(f),
                    ..
                } => callees.push(f),
                Op::Call {
                    callee: isa::Callee::Indirect,
                    ..
                } => callees.extend(address_taken(module)),
                _ => {}
            }
        }
        for f in callees {
            if !std::mem::replace(&mut seen[f.index()], true) {
                order.push(f);
            }
        }
        i += 1;
    }
    order
}

/// The functions whose address the module takes: in an instruction's operand
/// (`mov.u64 %rd, f`) or in a variable's initializer.
fn address_taken(module: &Module) -> Vec<FuncId> {
    let in_code = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.insts)
        .flat_map(|i| &i.srcs)
        .filter_map(|o| match o {
            isa::Operand::FuncAddr(f) => Some(*f),
            _ => None,
        });
    let in_data = module
        .globals
        .iter()
        .flat_map(|g| g.init.iter().flatten())
        .filter_map(|v| match v {
            isa::InitValue::FuncAddr(f) => Some(*f),
            _ => None,
        });
    in_code.chain(in_data).collect()
}

/// Shared-memory and parameter layout of a kernel: module-scope shared variables that the
/// kernel or its callees name, then each reachable function's own shared variables.
fn kernel_layout(module: &Module, kernel: FuncId) -> KernelLayout {
    let reach = reachable_functions(module, kernel);
    let mut used_globals = vec![false; module.globals.len()];
    for &f in &reach {
        for inst in module.function(f).blocks.iter().flat_map(|b| &b.insts) {
            for op in inst.srcs.iter().chain(&inst.dsts) {
                let sym = match op {
                    Operand::SymbolAddr { sym, .. } => Some(*sym),
                    Operand::Address(isa::Address {
                        base: isa::AddrBase::Symbol(sym),
                        ..
                    }) => Some(*sym),
                    _ => None,
                };
                if let Some(SymbolRef::Global(g)) = sym {
                    used_globals[g.index()] = true;
                }
            }
        }
    }
    let mut offset = 0u64;
    let mut max_align = 16u64;
    let mut place = |v: &Variable| {
        max_align = max_align.max(u64::from(v.align));
        offset = align_to(offset, u64::from(v.align));
        let at = offset;
        offset += v.size_bytes();
        at
    };
    let is_shared =
        |v: &Variable| matches!(v.space, StateSpace::Shared | StateSpace::SharedCluster);
    let global_shared: Vec<Option<u64>> = module
        .globals
        .iter()
        .zip(&used_globals)
        .map(|(v, used)| (*used && is_shared(v) && !v.is_dynamic_shared()).then(|| place(v)))
        .collect();
    let mut local_shared = vec![Vec::new(); module.functions.len()];
    for &f in &reach {
        local_shared[f.index()] = module
            .function(f)
            .locals
            .iter()
            .map(|v| (is_shared(v) && !v.is_dynamic_shared()).then(|| place(v)))
            .collect();
    }
    let static_shared = offset;
    let dynamic_offset = align_to(offset, max_align);
    // Dynamic shared arrays all start at the dynamic offset.
    let global_shared = global_shared
        .into_iter()
        .zip(&module.globals)
        .map(|(o, v)| {
            if v.is_dynamic_shared() {
                Some(dynamic_offset)
            } else {
                o
            }
        })
        .collect();
    for &f in &reach {
        for (slot, v) in local_shared[f.index()]
            .iter_mut()
            .zip(&module.function(f).locals)
        {
            if v.is_dynamic_shared() {
                *slot = Some(dynamic_offset);
            }
        }
    }
    let mut param_size = 0u64;
    let param_offsets = module
        .function(kernel)
        .params
        .iter()
        .map(|p| {
            param_size = align_to(param_size, u64::from(p.align));
            let at = param_size;
            param_size += p.size_bytes();
            at
        })
        .collect();
    KernelLayout {
        static_shared,
        dynamic_offset,
        global_shared,
        local_shared,
        param_size,
        param_offsets,
    }
}

#[cfg(test)]
mod tests {
    use super::Program;
    use isa::analysis::FunctionAnalysis;
    use isa::hints::FunctionHints;

    /// The cached hints are the ones computed from the full analyses (same allocation, same
    /// PCs), computed once: a second call returns the same object.
    #[test]
    fn hints_are_cached_and_match_the_analyses() {
        let text = include_str!("../../samples/saxpy/saxpy.ptx");
        let module = frontend::compile("saxpy.ptx", text).expect("saxpy lowers");
        let program = Program::new(module, Vec::new());
        let id = program.module.function_by_name("saxpy").expect("saxpy");
        let f = program.module.function(id);
        let expected = FunctionHints::compute(f, &FunctionAnalysis::compute(f));
        let first = program.hints(id);
        assert_eq!(*first, expected);
        assert_eq!(first.len(), program.code[id.index()].insts.len());
        assert!(std::ptr::eq(first, program.hints(id)));
    }
}
