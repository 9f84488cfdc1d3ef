//! Building the native function of one run: the lane loops of its segments, the register
//! traffic around them, and the calls between them.

use super::ctx::{self, Offsets};
use super::lower::{self, LaneCx};
use super::{Placement, placement};
use crate::program::{KernelLayout, Program};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind, UserFuncName,
    types,
};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};
use isa::{FuncId, VReg};
use std::collections::{BTreeMap, BTreeSet};

/// The host's instruction set, for code of `granularity`: runs optimised for speed; single
/// instructions compiled fast.
pub(super) fn host_isa(granularity: super::Granularity) -> Result<OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| format!("cranelift setting {k}: {e}"))
    };
    match granularity {
        super::Granularity::Runs => set(&mut flags, "opt_level", "speed")?,
        // A function per instruction (the timing model's) is one lane loop: Cranelift's
        // e-graph optimiser and backtracking register allocator find little in it, and cost
        // a tenth of a small-size timing run (`run --all --size small`: 27.1 -> 24.5 CPU-s,
        // statistics identical; lavaMD, compiled once and run long, 4.0 against 4.1 s).
        super::Granularity::Instructions => {
            set(&mut flags, "opt_level", "none")?;
            set(&mut flags, "regalloc_algorithm", "single_pass")?;
        }
    }
    // Cranelift's IR verifier costs a tenth of compilation; the differential tests check
    // what the code computes, so optimised builds leave it to debug ones.
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    set(&mut flags, "enable_verifier", verify)?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    let isa =
        cranelift_native::builder().map_err(|e| format!("unsupported host for the JIT: {e}"))?;
    isa.finish(settings::Flags::new(flags))
        .map_err(|e| format!("cranelift ISA: {e}"))
}

/// Names under which the helpers are linked.
pub(super) const HELPER_ALU: &str = "warpsim_alu";
pub(super) const HELPER_SPECIAL: &str = "warpsim_special";
pub(super) const HELPER_GLOBAL: &str = "warpsim_global_check";
pub(super) const HELPER_FAULT: &str = "warpsim_fault";
pub(super) const HELPER_WARP: &str = "warpsim_warp";
pub(super) const HELPER_STORE: &str = "warpsim_store_global";

pub(super) fn register_helpers(b: &mut JITBuilder) {
    b.symbol(HELPER_ALU, ctx::helper_alu as *const u8);
    b.symbol(HELPER_SPECIAL, ctx::helper_special as *const u8);
    b.symbol(HELPER_GLOBAL, ctx::helper_global_check as *const u8);
    b.symbol(HELPER_FAULT, ctx::helper_fault as *const u8);
    b.symbol(HELPER_WARP, ctx::helper_warp as *const u8);
    b.symbol(HELPER_STORE, ctx::helper_store_global as *const u8);
}

/// The helpers declared in the module.
#[derive(Clone, Copy)]
pub(super) struct Helpers {
    pub alu: ClifFuncId,
    pub special: ClifFuncId,
    pub global: ClifFuncId,
    pub fault: ClifFuncId,
    pub warp: ClifFuncId,
    pub store: ClifFuncId,
}

/// A translated run, before finalisation.
pub(super) struct Translated {
    pub id: ClifFuncId,
    pub start: u32,
    pub end: u32,
    pub inline: u32,
    pub alu_helper: u32,
    pub warp_helper: u32,
    pub branch: bool,
}

/// Translates runs of one kernel's functions into one JIT module.
pub(super) struct Translator<'a> {
    module: &'a mut JITModule,
    program: &'a Program,
    layout: &'a KernelLayout,
    helpers: Helpers,
    fctx: FunctionBuilderContext,
    ctx: cranelift_codegen::Context,
    counter: u32,
    /// Per function (by index): what the lane passes must keep in the register file.
    keep: Vec<Option<Keep>>,
    /// Print each run's Cranelift IR and machine code to stderr (`WARPSIM_JIT_DISASM` set).
    dump: bool,
    /// Store every register an instruction writes, live or not (the timing model reads them).
    store_all: bool,
}

/// For one function: the registers live after each instruction (by PC), and the registers
/// warp-wide instructions read (they may read another lane's copy at any time).
pub(super) struct Keep {
    live_after: isa::LiveAfterIndex,
    warp_read: isa::BitSet,
    /// Registers every lane of a warp holds the same value of (see
    /// [`super::uniform::kernel_uniform`]).
    uniform: Vec<VReg>,
    /// Every register written is kept, live or not.
    all: bool,
}

impl Keep {
    fn compute(program: &Program, layout: &KernelLayout, func: FuncId, all: bool) -> Keep {
        let f = program.module.function(func);
        let n = program.code[func.index()].reg_types.len();
        let cfg = isa::Cfg::compute(f);
        let live_after = isa::LiveAfterIndex::new(f, isa::Liveness::compute(f, &cfg));
        let mut warp_read = isa::BitSet::new(n);
        for blk in &f.blocks {
            for inst in &blk.insts {
                if placement(&inst.op) != Placement::Lane {
                    for r in inst.uses().filter(|r| r.index() < n) {
                        warp_read.insert(r.index());
                    }
                }
            }
        }
        Keep {
            live_after,
            warp_read,
            uniform: super::uniform::kernel_uniform(program, layout, func),
            all,
        }
    }

    /// Whether register `r`, written before PC `pc`, must be in the register file after `pc`.
    fn needed_after(&self, pc: u32, r: VReg) -> bool {
        let i = r.index();
        let index = &self.live_after;
        self.all
            || self.warp_read.contains(i)
            || pc >= index.num_insts()
            || i >= index.num_regs()
            || index.live_after(pc, r)
    }
}

impl<'a> Translator<'a> {
    /// `store_all`: store every register written, live or not.
    pub fn new(
        module: &'a mut JITModule,
        program: &'a Program,
        kernel: FuncId,
        store_all: bool,
    ) -> Result<Translator<'a>, String> {
        let ptr = module.target_config().pointer_type();
        let sig = |params: &[types::Type], ret: types::Type| {
            let mut s = Signature::new(module.isa().default_call_conv());
            s.params.extend(params.iter().map(|t| AbiParam::new(*t)));
            s.returns.push(AbiParam::new(ret));
            s
        };
        let i32t = types::I32;
        let i64t = types::I64;
        let decls = [
            (HELPER_ALU, sig(&[ptr, ptr, ptr, i32t, i32t, ptr], i32t)),
            (HELPER_SPECIAL, sig(&[ptr, i32t, i32t, i32t], i64t)),
            (HELPER_GLOBAL, sig(&[ptr, i64t, i32t, i32t, i32t], i32t)),
            (
                HELPER_FAULT,
                sig(&[ptr, i32t, i32t, i32t, i64t, i32t, i32t], i32t),
            ),
            (HELPER_WARP, sig(&[ptr, ptr, i32t], i32t)),
            (HELPER_STORE, sig(&[ptr, i64t, i64t, i32t], i32t)),
        ];
        let mut ids = Vec::new();
        for (name, s) in &decls {
            ids.push(
                module
                    .declare_function(name, Linkage::Import, s)
                    .map_err(|e| format!("JIT helper {name}: {e}"))?,
            );
        }
        let helpers = Helpers {
            alu: ids[0],
            special: ids[1],
            global: ids[2],
            fault: ids[3],
            warp: ids[4],
            store: ids[5],
        };
        let layout = program.layouts[kernel.index()]
            .as_ref()
            .ok_or("JIT compile of a non-kernel")?;
        let ctx = module.make_context();
        Ok(Translator {
            module,
            program,
            layout,
            helpers,
            fctx: FunctionBuilderContext::new(),
            ctx,
            counter: 0,
            keep: (0..program.code.len()).map(|_| None).collect(),
            dump: std::env::var_os("WARPSIM_JIT_DISASM").is_some(),
            store_all,
        })
    }

    /// Compiles instructions `[start, end)` of `func` into one native function.
    pub fn translate(
        &mut self,
        func: FuncId,
        start: u32,
        end: u32,
        branch: bool,
    ) -> Result<Translated, String> {
        let target_config = self.module.target_config();
        let ptr = target_config.pointer_type();
        self.module.clear_context(&mut self.ctx);
        self.ctx.func.signature.params.push(AbiParam::new(ptr));
        self.ctx
            .func
            .signature
            .returns
            .push(AbiParam::new(types::I32));
        self.counter += 1;
        self.ctx.func.name = UserFuncName::user(0, self.counter);
        let (program, layout, store_all) = (self.program, self.layout, self.store_all);
        let code = &program.code[func.index()];
        let keep = self.keep[func.index()]
            .get_or_insert_with(|| Keep::compute(program, layout, func, store_all));
        let mut counts = (0u32, 0u32, 0u32);
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            b.seal_block(entry);
            let ctx_ptr = b.block_params(entry)[0];
            let refs = lower::HelperRefs {
                alu: self.module.declare_func_in_func(self.helpers.alu, b.func),
                special: self
                    .module
                    .declare_func_in_func(self.helpers.special, b.func),
                global: self
                    .module
                    .declare_func_in_func(self.helpers.global, b.func),
                fault: self.module.declare_func_in_func(self.helpers.fault, b.func),
                warp: self.module.declare_func_in_func(self.helpers.warp, b.func),
                // Code for the stepper (which the timing model asks to hold stores back)
                // makes its global stores through the CTA's environment.
                store_global: store_all
                    .then(|| self.module.declare_func_in_func(self.helpers.store, b.func)),
            };
            let scratch = b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                8 * 8,
                3,
            ));
            // Segments: runs of lane-wise instructions, executed lane by lane. Loads join a
            // segment freely (they change no memory, so no lane can see another lane's later
            // instruction); a store ends its segment and starts one unless the segment has no
            // memory access yet, so a store never follows another access in its segment.
            let mut pc = start;
            let mut mask_done = false;
            while pc < end {
                let inst = &code.insts[pc as usize];
                if placement(&inst.op) == Placement::Warp {
                    let inst_ptr = b.ins().iconst(ptr, inst as *const isa::Inst as i64);
                    let pcv = b.ins().iconst(types::I32, i64::from(pc));
                    let call = b.ins().call(refs.warp, &[ctx_ptr, inst_ptr, pcv]);
                    let status = b.inst_results(call)[0];
                    return_if_fault(&mut b, status);
                    counts.2 += 1;
                    pc += 1;
                    continue;
                }
                let mut seg_end = pc;
                let mut accesses = 0;
                while seg_end < end
                    && placement(&code.insts[seg_end as usize].op) == Placement::Lane
                {
                    let op = &code.insts[seg_end as usize].op;
                    if lower::is_store(op) {
                        // A store to a kernel parameter faults through the interpreter's code,
                        // which reads the register file: it runs in a segment of its own.
                        let alone = matches!(
                            op,
                            isa::Op::St {
                                space: isa::StateSpace::Param,
                                ..
                            }
                        );
                        if accesses == 0 && !(alone && seg_end > pc) {
                            seg_end += 1;
                        }
                        break;
                    }
                    if lower::is_memory(op) {
                        accesses += 1;
                    }
                    seg_end += 1;
                }
                // The run's last segment computes the closing `bra`'s taken lanes as it goes.
                let bra = (branch && seg_end == end).then(|| &code.insts[end as usize]);
                let (inline, helper, taken) = segment(
                    program, layout, keep, &mut b, &refs, ctx_ptr, scratch, func, pc, seg_end, bra,
                )?;
                counts.0 += inline;
                counts.1 += helper;
                mask_done |= taken;
                pc = seg_end;
            }
            if branch && !mask_done {
                branch_mask(&mut b, ctx_ptr, &code.insts[end as usize]);
            }
            let ok = b.ins().iconst(types::I32, i64::from(ctx::STATUS_OK));
            b.ins().return_(&[ok]);
            b.seal_all_blocks();
            b.finalize(target_config);
        }
        let name = format!("run_{}_{}_{}", func.0, start, self.counter);
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &self.ctx.func.signature)
            .map_err(|e| format!("JIT declare {name}: {e}"))?;
        self.ctx.set_disasm(self.dump);
        self.module
            .define_function(id, &mut self.ctx)
            .map_err(|e| format!("JIT compile of {} pc {start}..{end}: {e:?}", code.name))?;
        if self.dump {
            let machine = self.ctx.compiled_code().and_then(|c| c.vcode.as_deref());
            eprintln!(
                "== {name}: {} pc {start}..{end}\n{}\n{}",
                code.name,
                self.ctx.func.display(),
                machine.unwrap_or("")
            );
        }
        Ok(Translated {
            id,
            start,
            end,
            inline: counts.0,
            alu_helper: counts.1,
            warp_helper: counts.2,
            branch,
        })
    }
}

/// Emits the lane loop of one segment; returns (inline, helper) instruction counts, and
/// whether it stored the taken lanes of `bra` (the `bra` closing the run, when this segment
/// ends it) into `JitCtx::branch_mask`: it does when the guard's register is one of the
/// segment's, each lane's pass then adding its guard bit.
///
/// Each lane's pass loads the registers the segment reads before writing them, and stores the
/// registers it writes that are needed later (live after the segment, or read by a warp-wide
/// instruction). A segment with several memory accesses keeps the interpreter's fault: the
/// first faulting instruction, in its lowest lane. A lane that faults records its PC as a
/// limit, and later lanes stop before any access at or past it (one of them may fault at an
/// earlier PC, which is the interpreter's first fault); the segment then returns the fault.
#[allow(clippy::too_many_arguments)]
fn segment(
    program: &Program,
    layout: &KernelLayout,
    keep: &Keep,
    b: &mut FunctionBuilder,
    refs: &lower::HelperRefs,
    ctx_ptr: cranelift_codegen::ir::Value,
    scratch: cranelift_codegen::ir::StackSlot,
    func: FuncId,
    start: u32,
    end: u32,
    bra: Option<&isa::Inst>,
) -> Result<(u32, u32, bool), String> {
    let code = &program.code[func.index()];
    let insts = &code.insts[start as usize..end as usize];
    // Registers to load (read, or conditionally written, before the segment surely writes
    // them) and registers written.
    let mut load: BTreeMap<VReg, bool> = BTreeMap::new();
    let mut written: Vec<VReg> = Vec::new();
    let mut written_set: BTreeSet<VReg> = BTreeSet::new();
    for inst in insts {
        for r in inst.uses() {
            load.entry(r).or_insert(true);
        }
        let sure = lower::sure_defs(inst);
        for r in inst.defs() {
            load.entry(r).or_insert(!sure.contains(&r));
            if written_set.insert(r) {
                written.push(r);
            }
        }
    }
    // Kernel-uniform registers the segment reads and does not write: loaded once.
    let preload: Vec<VReg> = keep
        .uniform
        .iter()
        .copied()
        .filter(|r| load.get(r) == Some(&true) && !written_set.contains(r))
        .collect();
    let hoisted = super::uniform::hoisted(program, layout, func, insts, &preload);
    // Registers the lane loop reads from the variables the code before it sets.
    let uniform_regs: BTreeSet<VReg> = insts
        .iter()
        .zip(&hoisted)
        .filter(|(_, h)| **h)
        .flat_map(|(i, _)| i.defs())
        .chain(preload.iter().copied())
        .collect();
    let stored: Vec<VReg> = written
        .into_iter()
        .filter(|&r| keep.needed_after(end - 1, r))
        .collect();
    let in_loop = || insts.iter().zip(&hoisted).filter(|(_, h)| !**h);
    let accesses = in_loop().filter(|(i, _)| lower::is_memory(&i.op)).count();
    let limit_var = if accesses > 1 {
        let v = b.declare_var(types::I32);
        let none = b.ins().iconst(types::I32, i64::from(u32::MAX));
        b.def_var(v, none);
        Some(v)
    } else {
        None
    };
    let regs = b.ins().load(types::I64, ctx::FIXED, ctx_ptr, Offsets::REGS);
    let mask = b.ins().load(types::I32, ctx::FIXED, ctx_ptr, Offsets::MASK);
    let mask = b.ins().uextend(types::I64, mask);
    // Global-memory fields and each access's last fully valid granule, set before the lane loop.
    let global = (accesses > 0).then(|| lower::GlobalFields {
        base: b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            ctx_ptr,
            Offsets::GLOBAL_BASE,
        ),
        span: b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), ctx_ptr, Offsets::SPAN),
        valid: b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), ctx_ptr, Offsets::VALID),
    });
    let mut granule_cache = BTreeMap::new();
    for (i, inst) in insts.iter().enumerate() {
        if lower::is_memory(&inst.op) && !hoisted[i] {
            let v = b.declare_var(types::I64);
            let none = b.ins().iconst(types::I64, -1);
            b.def_var(v, none);
            granule_cache.insert(start + i as u32, v);
        }
    }
    // The hoisted instructions, once, as the lowest active lane (the lane whose fault the
    // interpreter would report): their registers keep the values through the lane loop.
    let mut vars: BTreeMap<VReg, Variable> = BTreeMap::new();
    for &r in &uniform_regs {
        vars.insert(r, b.declare_var(types::I64));
    }
    let (mut inline, mut helper) = (0, 0);
    if !uniform_regs.is_empty() {
        let lane = b.ins().ctz(mask);
        let lane_off = b.ins().ishl_imm_s(lane, 3);
        let rl = b.ins().iadd(regs, lane_off);
        for r in &preload {
            let value = b.ins().load(
                types::I64,
                MemFlagsData::trusted(),
                rl,
                (r.index() * 32 * 8) as i32,
            );
            b.def_var(vars[r], value);
        }
        let mut cx = LaneCx {
            ctx: ctx_ptr,
            lane,
            lane32: b.ins().ireduce(types::I32, lane),
            vars: vars.clone(),
            refs: *refs,
            scratch,
            program,
            layout,
            func,
            inline: 0,
            helper: 0,
            fault: None,
            global,
            granule_cache: BTreeMap::new(),
            raw_float: BTreeMap::new(),
            guarded: false,
        };
        for (i, inst) in insts.iter().enumerate().filter(|(i, _)| hoisted[*i]) {
            lower::lower(b, &mut cx, start + i as u32, inst)?;
        }
        (inline, helper) = (cx.inline, cx.helper);
    }
    // The lanes still to run, lowest first: each pass takes the lowest set bit.
    let rem_var = b.declare_var(types::I64);
    b.def_var(rem_var, mask);
    let taken_var = match bra.map(|i| i.guard) {
        Some(Some(g)) if load.contains_key(&g.pred) || vars.contains_key(&g.pred) => {
            let v = b.declare_var(types::I64);
            let none = b.ins().iconst(types::I64, 0);
            b.def_var(v, none);
            Some((v, g))
        }
        _ => None,
    };
    let unguarded = matches!(bra, Some(i) if i.guard.is_none());
    let header = b.create_block();
    let body = b.create_block();
    let next = b.create_block();
    let exit = b.create_block();
    b.ins().jump(header, &[]);

    b.switch_to_block(header);
    let rem = b.use_var(rem_var);
    b.ins().brif(rem, body, &[], exit, &[]);

    b.switch_to_block(body);
    let rem = b.use_var(rem_var);
    let lane = b.ins().ctz(rem);
    let lane_off = b.ins().ishl_imm_s(lane, 3);
    let rl = b.ins().iadd(regs, lane_off);
    for (r, needs_load) in load.iter().filter(|(r, _)| !uniform_regs.contains(r)) {
        let v = b.declare_var(types::I64);
        let value = if *needs_load {
            b.ins().load(
                types::I64,
                MemFlagsData::trusted(),
                rl,
                (r.index() * 32 * 8) as i32,
            )
        } else {
            // Written before any read: the value never reaches a use.
            b.ins().iconst(types::I64, 0)
        };
        b.def_var(v, value);
        vars.insert(*r, v);
    }
    let mut cx = LaneCx {
        ctx: ctx_ptr,
        lane,
        lane32: b.ins().ireduce(types::I32, lane),
        vars,
        refs: *refs,
        scratch,
        program,
        layout,
        func,
        inline,
        helper,
        fault: limit_var.map(|v| (v, next)),
        global,
        granule_cache,
        raw_float: BTreeMap::new(),
        guarded: false,
    };
    for (i, inst) in insts.iter().enumerate().filter(|(i, _)| !hoisted[*i]) {
        lower::lower(b, &mut cx, start + i as u32, inst)?;
    }
    for r in &stored {
        let v = b.use_var(cx.vars[r]);
        b.ins()
            .store(MemFlagsData::trusted(), v, rl, (r.index() * 32 * 8) as i32);
    }
    if let Some((acc, g)) = taken_var {
        let p = b.use_var(cx.vars[&g.pred]);
        let p = b.ins().band_imm_s(p, 1);
        let bit = b.ins().ishl(p, lane);
        let sum = b.use_var(acc);
        let sum = b.ins().bor(sum, bit);
        b.def_var(acc, sum);
    }
    b.ins().jump(next, &[]);

    b.switch_to_block(next);
    let rem = b.use_var(rem_var);
    let below = b.ins().iadd_imm_s(rem, -1);
    let rest = b.ins().band(rem, below);
    b.def_var(rem_var, rest);
    b.ins().jump(header, &[]);

    b.switch_to_block(exit);
    if let Some(v) = limit_var {
        let limit = b.use_var(v);
        let faulted = b
            .ins()
            .icmp_imm_s(IntCC::NotEqual, limit, i64::from(u32::MAX));
        let fail = b.create_block();
        let cont = b.create_block();
        b.ins().brif(faulted, fail, &[], cont, &[]);
        b.switch_to_block(fail);
        let status = b.ins().iconst(types::I32, i64::from(ctx::STATUS_FAULT));
        b.ins().return_(&[status]);
        b.switch_to_block(cont);
    }
    if let Some((acc, g)) = taken_var {
        // Only the mask's lanes ran, so the sum holds no other lane.
        let sum = b.use_var(acc);
        let sum = b.ins().ireduce(types::I32, sum);
        let taken = if g.negated {
            let m = b.ins().ireduce(types::I32, mask);
            b.ins().band_not(m, sum)
        } else {
            sum
        };
        b.ins().store(
            MemFlagsData::trusted(),
            taken,
            ctx_ptr,
            Offsets::BRANCH_MASK,
        );
    } else if unguarded {
        let m = b.ins().ireduce(types::I32, mask);
        b.ins()
            .store(MemFlagsData::trusted(), m, ctx_ptr, Offsets::BRANCH_MASK);
    }
    Ok((cx.inline, cx.helper, taken_var.is_some() || unguarded))
}

/// Returns the status from the function when it is not OK.
pub(super) fn return_if_fault(b: &mut FunctionBuilder, status: cranelift_codegen::ir::Value) {
    let fail = b.create_block();
    let cont = b.create_block();
    b.ins().brif(status, fail, &[], cont, &[]);
    b.switch_to_block(fail);
    b.ins().return_(&[status]);
    b.switch_to_block(cont);
}

/// Stores into `JitCtx::branch_mask` the lanes of the run's mask that take the closing `bra`:
/// all of them without a guard, else those whose guard predicate holds.
fn branch_mask(b: &mut FunctionBuilder, ctx_ptr: cranelift_codegen::ir::Value, bra: &isa::Inst) {
    let mask = b.ins().load(types::I32, ctx::FIXED, ctx_ptr, Offsets::MASK);
    let taken = match bra.guard {
        None => mask,
        Some(g) => {
            // For each lane: (regs[pred * 32 + lane] & 1) << lane, or-ed; then the guard's sense.
            let regs = b.ins().load(types::I64, ctx::FIXED, ctx_ptr, Offsets::REGS);
            let mut acc = b.ins().iconst(types::I32, 0);
            for lane in 0..32 {
                let v = b.ins().load(
                    types::I64,
                    MemFlagsData::trusted(),
                    regs,
                    ((g.pred.index() * 32 + lane) * 8) as i32,
                );
                let v = b.ins().ireduce(types::I32, v);
                let v = b.ins().band_imm_s(v, 1);
                let v = b.ins().ishl_imm_s(v, lane as i64);
                acc = b.ins().bor(acc, v);
            }
            let acc = if g.negated { b.ins().bnot(acc) } else { acc };
            b.ins().band(acc, mask)
        }
    };
    b.ins().store(
        MemFlagsData::trusted(),
        taken,
        ctx_ptr,
        Offsets::BRANCH_MASK,
    );
}
