//! The context compiled code runs in, and the helpers it calls for what it does not do inline.
//!
//! A compiled run receives one pointer, to a [`JitCtx`], whose layout is `repr(C)` because
//! generated code reads its fields at fixed offsets. Helpers are `extern "C"` functions that
//! receive the same pointer back; they reach the engine's state (the CTA environment and the
//! warp) through it, so anything the JIT does not lower inline runs the interpreter's own code
//! and stays bit-identical by construction.

use crate::alu;
use crate::error::FaultKind;
use crate::exec::{self, CtaEnv};
use crate::warp::{WARP_SIZE, Warp};
use isa::{Inst, Op};
use std::mem::offset_of;

/// Status codes a compiled run returns.
pub const STATUS_OK: u32 = 0;
pub const STATUS_FAULT: u32 = 1;

/// Flags of compiled code's loads of context fields that no run changes (pointers, lengths,
/// the mask, launch geometry, the `%tid` table): read-only and never trapping, so Cranelift
/// treats them as pure, shares them between accesses and hoists them out of the lane loops.
pub const FIXED: cranelift_codegen::ir::MemFlagsData =
    cranelift_codegen::ir::MemFlagsData::trusted()
        .with_readonly()
        .with_can_move();

/// Everything compiled code reads or writes.
#[repr(C)]
pub struct JitCtx {
    /// The current frame's registers, `regs[reg * 32 + lane]`.
    pub regs: *mut u64,
    /// Lanes running this run (the SIMT stack's top mask).
    pub mask: u32,
    /// Set by a run that ends at a `bra`: the lanes that take it.
    pub branch_mask: u32,
    /// Each lane's carry flag, bit per lane (the warp's CC.CF).
    pub carry: u32,
    /// Base of the global-memory mapping, its span, and its validity table (see
    /// `GlobalMemory::valid`), for inline bounds checks.
    pub global_base: *mut u8,
    pub span: u64,
    pub valid: *const u16,
    pub shared: *mut u8,
    pub shared_len: u64,
    /// Each lane's local memory.
    pub local: [*mut u8; WARP_SIZE],
    pub local_len: [u64; WARP_SIZE],
    /// The current frame's offset in local memory.
    pub local_base: u64,
    pub params: *const u8,
    pub params_len: u64,
    /// PC of the run's first instruction, and the warp's executed-instruction count before the
    /// run: `%clock` inside the run reads what the interpreter would (see `helper_special`).
    pub run_start: u32,
    pub executed_before: u64,
    /// Launch geometry for inline special registers: the warp's `%tid` table (see
    /// `Warp::tid`), `%ntid`, `%ctaid`, `%nctaid` and `%warpid`.
    pub tid: *const u32,
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub warp_index: u32,
    /// Set by a faulting helper or inline check: the fault, its lane and instruction PC.
    pub fault_lane: u32,
    pub fault_pc: u32,
    pub fault: Option<FaultKind>,
    /// The engine state, for helpers.
    pub env: *mut CtaEnv<'static>,
    pub warp: *mut Warp,
}

// SAFETY: every pointer of a context points into memory that outlives its moves between
// threads and that no other thread touches meanwhile: global memory (shared, `Sync`), the
// launch's parameters (read only), and the shared memory, warps, registers, local memory and
// environment of the one CTA that owns the context (`env` and `warp` are set again for each
// run). Nothing refers to thread-local state, so the owner may move to another thread between
// runs (the timing model steps each SM's CTAs on whichever host thread takes the SM).
unsafe impl Send for JitCtx {}

/// Byte offsets of the fields generated code uses.
pub struct Offsets;

impl Offsets {
    pub const REGS: i32 = offset_of!(JitCtx, regs) as i32;
    pub const MASK: i32 = offset_of!(JitCtx, mask) as i32;
    pub const BRANCH_MASK: i32 = offset_of!(JitCtx, branch_mask) as i32;
    pub const CARRY: i32 = offset_of!(JitCtx, carry) as i32;
    pub const GLOBAL_BASE: i32 = offset_of!(JitCtx, global_base) as i32;
    pub const SPAN: i32 = offset_of!(JitCtx, span) as i32;
    pub const VALID: i32 = offset_of!(JitCtx, valid) as i32;
    pub const SHARED: i32 = offset_of!(JitCtx, shared) as i32;
    pub const SHARED_LEN: i32 = offset_of!(JitCtx, shared_len) as i32;
    pub const LOCAL: i32 = offset_of!(JitCtx, local) as i32;
    pub const LOCAL_LEN: i32 = offset_of!(JitCtx, local_len) as i32;
    pub const LOCAL_BASE: i32 = offset_of!(JitCtx, local_base) as i32;
    pub const PARAMS: i32 = offset_of!(JitCtx, params) as i32;
    pub const PARAMS_LEN: i32 = offset_of!(JitCtx, params_len) as i32;
    pub const TID: i32 = offset_of!(JitCtx, tid) as i32;
    pub const NTID: i32 = offset_of!(JitCtx, ntid) as i32;
    pub const CTAID: i32 = offset_of!(JitCtx, ctaid) as i32;
    pub const NCTAID: i32 = offset_of!(JitCtx, nctaid) as i32;
    pub const WARP_INDEX: i32 = offset_of!(JitCtx, warp_index) as i32;
}

impl JitCtx {
    fn env(&mut self) -> &mut CtaEnv<'static> {
        // SAFETY: the engine sets `env` to a live CTA environment for the duration of the run.
        unsafe { &mut *self.env }
    }

    fn record(&mut self, kind: FaultKind, lane: u32, pc: u32) -> u32 {
        self.fault = Some(kind);
        self.fault_lane = lane;
        self.fault_pc = pc;
        STATUS_FAULT
    }
}

/// Evaluates one lane of an ALU instruction with the interpreter's own numerics.
///
/// `srcs` holds the sources' values; the two results go to `out`. Returns 0, or 1 when the
/// operation is not an ALU operation (a bug in run formation).
///
/// # Safety
/// Called only by compiled code, with the live context of the run and pointers it owns.
pub(crate) unsafe extern "C" fn helper_alu(
    ctx: *mut JitCtx,
    op: *const Op,
    srcs: *const u64,
    n: u32,
    lane: u32,
    out: *mut u64,
) -> u32 {
    // SAFETY: generated code passes a live context, an `Op` owned by the program (which
    // outlives compiled code), and stack slots of the sizes named.
    let (ctx, op, srcs, out) = unsafe {
        (
            &mut *ctx,
            &*op,
            std::slice::from_raw_parts(srcs, n as usize),
            std::slice::from_raw_parts_mut(out, 2),
        )
    };
    let mut carry = ctx.carry & (1 << lane) != 0;
    match alu::eval(op, srcs, &mut carry) {
        Ok(r) => {
            ctx.carry = (ctx.carry & !(1 << lane)) | (u32::from(carry) << lane);
            out.copy_from_slice(&r);
            0
        }
        Err(_) => 1,
    }
}

/// The value of a special register in one lane, at instruction `pc` of the run.
///
/// # Safety
/// Called only by compiled code, with the live context of the run and pointers it owns.
pub(crate) unsafe extern "C" fn helper_special(
    ctx: *mut JitCtx,
    code: u32,
    lane: u32,
    pc: u32,
) -> u64 {
    // SAFETY: generated code passes a live context.
    let ctx = unsafe { &mut *ctx };
    let reg = super::special_from_code(code);
    // The interpreter counts an instruction before executing it: match its `%clock` (which
    // reads the count only when no timing model set `CtaEnv::clock`).
    let executed = ctx.executed_before + u64::from(pc - ctx.run_start) + 1;
    let (env, warp) = (ctx.env as *const CtaEnv, ctx.warp);
    // SAFETY: the engine keeps both alive and does not borrow them during the call.
    unsafe {
        let saved = (*warp).executed;
        (*warp).executed = executed;
        let v = (*env).special_value(&*warp, lane as usize, reg);
        (*warp).executed = saved;
        v
    }
}

/// Makes (or holds back, see `CtaEnv::held_stores`) a global store of the low `size` bytes of
/// `value` at `addr`, which the compiled code checked: returns 0.
///
/// # Safety
/// Called only by compiled code, with the live context of the run.
pub(crate) unsafe extern "C" fn helper_store_global(
    ctx: *mut JitCtx,
    addr: u64,
    value: u64,
    size: u32,
) -> u32 {
    // SAFETY: generated code passes a live context.
    let env = unsafe { &mut *ctx }.env();
    match &mut env.held_stores {
        Some(held) => held.push(crate::exec::HeldStore { addr, size, value }),
        None => env
            .mem
            .store(addr, size, value)
            .expect("the compiled code checked the store"),
    }
    STATUS_OK
}

/// Checks a global access the inline test rejected, exactly as the interpreter does: returns
/// 0 if it is fine after all, else records the fault and returns 1.
///
/// # Safety
/// Called only by compiled code, with the live context of the run and pointers it owns.
pub(crate) unsafe extern "C" fn helper_global_check(
    ctx: *mut JitCtx,
    addr: u64,
    size: u32,
    lane: u32,
    pc: u32,
) -> u32 {
    // SAFETY: generated code passes a live context.
    let ctx = unsafe { &mut *ctx };
    let mem = ctx.env().mem;
    // Alignment first, as `GlobalMemory::load` checks it.
    if !addr.is_multiple_of(u64::from(size)) {
        return ctx.record(
            FaultKind::MisalignedAddress {
                space: "global",
                address: addr,
            },
            lane,
            pc,
        );
    }
    match mem.check(addr, u64::from(size)) {
        Ok(()) => STATUS_OK,
        Err(e) => ctx.record(crate::exec::global_fault(e), lane, pc),
    }
}

/// Records a fault of an inline shared/local/param check.
///
/// # Safety
/// Called only by compiled code, with the live context of the run and pointers it owns.
pub(crate) unsafe extern "C" fn helper_fault(
    ctx: *mut JitCtx,
    space: u32,
    misaligned: u32,
    size: u32,
    addr: u64,
    lane: u32,
    pc: u32,
) -> u32 {
    // SAFETY: generated code passes a live context.
    let ctx = unsafe { &mut *ctx };
    let (space, len) = match space {
        0 => ("shared", ctx.shared_len),
        1 => ("local", ctx.local_len[lane as usize]),
        _ => ("param", ctx.params_len),
    };
    let kind = if misaligned != 0 {
        FaultKind::MisalignedAddress {
            space,
            address: addr,
        }
    } else {
        crate::exec::window_fault(space, addr, size, len as usize)
    };
    ctx.record(kind, lane, pc)
}

/// Runs one warp-wide instruction (warp collectives, atomics, fences) with the interpreter's
/// code, for the lanes in the context's mask whose guard holds. Returns a status code.
///
/// # Safety
/// Called only by compiled code, with the live context of the run and pointers it owns.
pub(crate) unsafe extern "C" fn helper_warp(ctx: *mut JitCtx, inst: *const Inst, pc: u32) -> u32 {
    // SAFETY: generated code passes a live context and an instruction owned by the program.
    let (ctx, inst) = unsafe { (&mut *ctx, &*inst) };
    let mask = ctx.mask;
    let carry = ctx.carry;
    let (env, warp) = (ctx.env, ctx.warp);
    // SAFETY: the engine state is live and not otherwise borrowed during the call.
    let (env, warp) = unsafe { (&mut *env, &mut *warp) };
    warp.carry = carry;
    let result = exec::execute_guarded(env, warp, inst, mask);
    ctx.carry = warp.carry;
    match result {
        Ok(()) => STATUS_OK,
        Err((kind, lane)) => ctx.record(kind, lane, pc),
    }
}
