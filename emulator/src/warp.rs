//! The architectural state of one warp: a call stack of frames (registers and SIMT stack per
//! function activation), each lane's local memory, and the lanes that have exited.

use crate::program::{Code, EXIT_PC};
use crate::simt::{SimtStack, SimtStats};
use isa::{FuncId, Type};

/// Lanes per warp.
pub const WARP_SIZE: usize = 32;

/// What [`Warp::reset_zeroing`] leaves in registers it does not zero and never held a value.
pub const POISON: u64 = 0xdead_beef_dead_beef;

/// One function activation.
#[derive(Clone, Debug)]
pub struct Frame {
    pub func: FuncId,
    /// Register values, `regs[reg * 32 + lane]`, zero-extended to 64 bits.
    pub regs: Vec<u64>,
    pub simt: SimtStack,
    /// Offset of this frame in each lane's local memory.
    pub local_base: u64,
    /// PC of the `call` in the caller (unused for the kernel's frame).
    pub call_pc: u32,
    /// Lanes that entered this frame (to copy return values back to).
    pub entry_mask: u32,
}

/// Why a warp is not running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpState {
    Ready,
    /// Waiting at barrier `id`, reached by `lanes` at `pc` (of the current frame's function).
    AtBarrier {
        id: u32,
        pc: u32,
        lanes: u32,
    },
    /// Every lane exited.
    Done,
}

/// One warp.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Index of the warp in its CTA.
    pub index: u32,
    /// Lanes that hold a thread (the last warp of a CTA may be partial).
    pub valid: u32,
    pub exited: u32,
    pub frames: Vec<Frame>,
    /// Each lane's local memory (frames are stacked in it). Grow it with
    /// [`Warp::grow_local`], which keeps [`Warp::has_local`] true.
    pub local: Vec<Vec<u8>>,
    /// Whether some lane's local buffer may be non-empty: lets a reset, and compiled code's
    /// context, skip the 32 buffers of the many kernels that never use local memory.
    local_in_use: bool,
    /// Each lane's carry flag (CC.CF), bit per lane.
    pub carry: u32,
    pub state: WarpState,
    /// Warp instructions executed (also the deterministic value of `%clock`).
    pub executed: u64,
    pub simt_stats: SimtStats,
    /// The timing model's view of the warp's physical register file, by register of the
    /// warp's register window: the width of what each lane holds, possibly another virtual
    /// register's value sharing the physical register in lanes that did not execute a write.
    /// Kept only by [`crate::stepper`]; empty otherwise.
    pub phys: Vec<crate::widths::LaneWidths>,
    /// `%tid.x`, `%tid.y`, `%tid.z` of each lane (x for lanes 0..32, then y, then z).
    pub tid: [u32; 3 * WARP_SIZE],
    /// The warp index and block shape `tid` was computed for: a reset for the same ones (the
    /// same warp of the next CTA) keeps the table.
    tid_for: Option<(u32, [u32; 3])>,
}

impl Warp {
    /// A warp of a CTA of shape `block`, whose lanes in `valid` hold threads.
    pub fn new(index: u32, valid: u32, kernel: FuncId, code: &Code, block: [u32; 3]) -> Warp {
        let frame = Frame {
            func: kernel,
            regs: Vec::new(),
            simt: SimtStack::new(0, valid),
            local_base: 0,
            call_pc: EXIT_PC,
            entry_mask: valid,
        };
        let mut w = Warp {
            index,
            valid,
            exited: 0,
            frames: vec![frame],
            local: vec![Vec::new(); WARP_SIZE],
            local_in_use: false,
            carry: 0,
            state: WarpState::Ready,
            executed: 0,
            simt_stats: SimtStats::default(),
            phys: Vec::new(),
            tid: [0; 3 * WARP_SIZE],
            tid_for: None,
        };
        w.reset(index, valid, kernel, code, block);
        w
    }

    /// Makes this warp a fresh one, reusing its buffers (CTAs are many and short: reuse saves
    /// allocating registers and local memory for every warp of every CTA).
    pub fn reset(&mut self, index: u32, valid: u32, kernel: FuncId, code: &Code, block: [u32; 3]) {
        self.reset_with(index, valid, kernel, code, block, None);
    }

    /// [`Warp::reset`], zeroing only the kernel-frame registers in `zero` (register indices):
    /// the others keep whatever they held. Correct when no thread can read any other register
    /// before writing it (see `JitKernel::zeroed_registers`), and much cheaper for kernels with
    /// hundreds of registers. Storage the register file grows by holds [`POISON`], so a
    /// register missing from `zero` shows up in a fresh warp rather than reading as zero.
    pub fn reset_zeroing(
        &mut self,
        index: u32,
        valid: u32,
        kernel: FuncId,
        code: &Code,
        block: [u32; 3],
        zero: &[u32],
    ) {
        self.reset_with(index, valid, kernel, code, block, Some(zero));
    }

    fn reset_with(
        &mut self,
        index: u32,
        valid: u32,
        kernel: FuncId,
        code: &Code,
        block: [u32; 3],
        zero: Option<&[u32]>,
    ) {
        if self.tid_for != Some((index, block)) {
            // Walk the thread index in x, y, z order from the warp's first thread: no division
            // per lane (this runs for every warp of every CTA).
            let first = index * WARP_SIZE as u32;
            let (mut x, mut y, mut z) = (
                first % block[0],
                (first / block[0]) % block[1],
                first / (block[0] * block[1]),
            );
            for lane in 0..WARP_SIZE {
                self.tid[lane] = x;
                self.tid[WARP_SIZE + lane] = y;
                self.tid[2 * WARP_SIZE + lane] = z;
                x += 1;
                if x == block[0] {
                    x = 0;
                    y += 1;
                    if y == block[1] {
                        y = 0;
                        z += 1;
                    }
                }
            }
            self.tid_for = Some((index, block));
        }
        self.frames.truncate(1);
        let frame = &mut self.frames[0];
        frame.func = kernel;
        let len = code.reg_types.len() * WARP_SIZE;
        match zero {
            None => {
                frame.regs.clear();
                frame.regs.resize(len, 0);
            }
            Some(zero) => {
                frame.regs.resize(len, POISON);
                for &r in zero {
                    let at = r as usize * WARP_SIZE;
                    frame.regs[at..at + WARP_SIZE].fill(0);
                }
            }
        }
        frame.simt.reset(0, valid);
        frame.local_base = 0;
        frame.call_pc = EXIT_PC;
        frame.entry_mask = valid;
        let size = code.frame_size as usize;
        // Most kernels have no local memory: then there is nothing to clear or fill.
        if size != 0 || self.local_in_use {
            for buf in &mut self.local {
                buf.clear();
                buf.resize(size, 0);
            }
            self.local_in_use = size != 0;
        }
        self.index = index;
        self.valid = valid;
        self.exited = 0;
        self.carry = 0;
        self.state = if valid == 0 {
            WarpState::Done
        } else {
            WarpState::Ready
        };
        self.executed = 0;
        self.simt_stats = SimtStats {
            max_depth: 1,
            ..SimtStats::default()
        };
    }

    /// Whether some lane may have local memory (false means every buffer is empty).
    pub fn has_local(&self) -> bool {
        self.local_in_use
    }

    /// Grows `lane`'s local memory to at least `len` bytes (zero-filled).
    pub fn grow_local(&mut self, lane: usize, len: usize) {
        if self.local[lane].len() < len {
            self.local[lane].resize(len, 0);
            self.local_in_use = true;
        }
    }

    pub fn frame(&self) -> &Frame {
        self.frames.last().expect("a running warp has a frame")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a running warp has a frame")
    }

    /// Adds the divergence counters of a finished frame to the warp's.
    pub fn absorb_stats(&mut self, s: &SimtStats) {
        self.simt_stats.divergent_branches += s.divergent_branches;
        self.simt_stats.reconvergences += s.reconvergences;
        self.simt_stats.max_depth = self.simt_stats.max_depth.max(s.max_depth);
    }

    /// Divergence counters of the warp so far, live frames included. Depth is per frame.
    pub fn simt_totals(&self) -> SimtStats {
        let mut t = self.simt_stats;
        for f in &self.frames {
            t.divergent_branches += f.simt.stats.divergent_branches;
            t.reconvergences += f.simt.stats.reconvergences;
            t.max_depth = t.max_depth.max(f.simt.stats.max_depth);
        }
        t
    }

    /// Lanes still alive (not exited).
    pub fn live(&self) -> u32 {
        self.valid & !self.exited
    }
}

/// Keeps the low `bits` bits of `v`.
pub fn truncate(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Sign-extends the low `bits` bits of `v` to 64 bits.
pub fn sign_extend(v: u64, bits: u32) -> u64 {
    if bits >= 64 || bits == 0 {
        v
    } else {
        let shift = 64 - bits;
        (((v << shift) as i64) >> shift) as u64
    }
}

/// The value written into a register declared `reg` for a result of type `ty`: extended to the
/// register's width (sign-extended for signed types, as PTX specifies for `ld` and `cvt` into
/// wider registers) and truncated to it.
pub fn fit_to_register(value: u64, ty: Type, reg: Type) -> u64 {
    let value = if ty.is_signed() && reg.bits() > ty.bits() {
        sign_extend(value, ty.bits())
    } else {
        value
    };
    truncate(value, reg.bits().max(1))
}
