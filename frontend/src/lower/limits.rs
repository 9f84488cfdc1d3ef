//! Resource limits: bounds on what a declaration may make warpsim allocate, checked before
//! anything proportional to a declared count or size is allocated. A file that crosses one is
//! refused with a semantic diagnostic at the declaration that crosses it, naming the limit.
//!
//! Two kinds of bound:
//!
//! - **Hardware and PTX limits** (no GPU can run what crosses them, so `ptxas` or the driver
//!   refuses it too): the kernel parameter space, per-thread local memory, constant memory.
//! - **Sanity bounds** where PTX sets none (virtual registers, shared and global variables):
//!   far beyond anything a compiler emits or a GPU holds, low enough that what warpsim
//!   allocates per declared item stays a bounded multiple of the input. The largest committed
//!   kernel declares 2,289 registers in its largest range; hardware has at most 255 per thread
//!   and 228 KiB of shared memory per SM.
//!
//! Finer limits that depend on the device (shared memory per block, registers per thread,
//! device memory) are the runtime's: it checks them at load or launch against its configuration.
//!
//! Nesting depth (`{ { ... } }` blocks, initializer lists, operand vectors) is bounded by the
//! lexer ([`crate::lexer::MAX_NESTING`]), so neither the parser nor the recursive parts of
//! lowering can run out of stack.

use super::Result;
use crate::ast::Span;
use crate::diag::Diagnostic;
use isa::{StateSpace, Variable};

/// Registers one `%r<N>` declaration may declare: 2^20 (1,048,576).
///
/// PTX sets no limit on virtual registers and `ptxas` accepts large counts, but compilers
/// declare one range per type sized to what the kernel uses: the largest committed kernel's
/// largest range is 2,289, and fully unrolled generated kernels reach 10^5. Lowering gives every
/// register a name and a type (about 40 bytes), and every analysis has a few words per register,
/// so the bound keeps one declaration to tens of MiB where `%r<2147483648>` asked for ~100 GiB.
pub const MAX_REG_RANGE: u32 = 1 << 20;

/// Virtual registers of one function, all its declarations together (ranges, vectors and
/// single names): 2^21, room for two full ranges. The emulator keeps a frame of every register
/// per warp, so this also bounds what one call costs at run time.
pub const MAX_FUNCTION_REGS: usize = 1 << 21;

/// Virtual registers of a whole module: 2^22. Without it, a short file could repeat a tiny
/// function declaring [`MAX_FUNCTION_REGS`] registers until memory runs out.
pub const MAX_MODULE_REGS: usize = 1 << 22;

/// Bytes of a kernel's parameter space: 32,764.
///
/// Kernel parameters are passed through constant memory. CUDA 12.1 raised their limit from
/// 4,096 bytes to 32,764 bytes on Volta (sm_70) and later (NVIDIA, "CUDA 12.1 Supports Large
/// Kernel Parameters"); older toolkits and targets keep 4,096 (4,352 in some PTX ISA versions).
/// warpsim applies the largest limit any target has, whatever `.target` says: a kernel beyond
/// it runs nowhere, one below it may still exceed an older target's limit.
pub const MAX_KERNEL_PARAM_BYTES: u64 = 32_764;

/// Bytes of a device function's per-thread local frame: 512 KiB, the most local memory a
/// thread may have on any CUDA GPU (CUDA C++ Programming Guide, compute capability tables). The
/// frame holds, as the emulator lays it out, a `.func`'s parameters and return values and the
/// function's `.local` and `.param` variables, each at its alignment. Also the bound of any
/// single `.local` or `.param` variable.
pub const MAX_LOCAL_FRAME_BYTES: u64 = 512 << 10;

/// Parameters (and, separately, return values) of one function: 2^19, as many one-byte
/// parameters as [`MAX_LOCAL_FRAME_BYTES`] holds, so that unsized (`[]`) parameters cannot go
/// further than sized ones. A kernel reaches [`MAX_KERNEL_PARAM_BYTES`] long before.
pub const MAX_PARAMS: usize = 1 << 19;

/// Bytes of one `.const` variable: 64 KiB, the size of the constant bank PTX exposes (`ptxas`
/// refuses more).
pub const MAX_CONST_BYTES: u64 = 64 << 10;

/// Bytes of one `.shared` variable: 4 GiB, what 32-bit shared-memory addresses reach. The
/// device's shared memory per block (48 to 228 KiB on real GPUs) is checked at launch.
pub const MAX_SHARED_BYTES: u64 = 1 << 32;

/// Bytes of one `.global` variable: 1 TiB, beyond any GPU's memory; the runtime refuses a
/// variable its device memory cannot hold when it loads the module.
pub const MAX_GLOBAL_BYTES: u64 = 1 << 40;

/// The most bytes one variable of `space` may take.
fn max_variable_bytes(space: StateSpace) -> u64 {
    match space {
        StateSpace::Const => MAX_CONST_BYTES,
        StateSpace::Shared | StateSpace::SharedCluster => MAX_SHARED_BYTES,
        StateSpace::Local | StateSpace::Param => MAX_LOCAL_FRAME_BYTES,
        StateSpace::Global | StateSpace::Generic | StateSpace::Reg => MAX_GLOBAL_BYTES,
    }
}

/// Checks the size of one variable of `space`, `bytes` long (`None`: it overflows 64 bits).
pub(crate) fn variable_size(
    space: StateSpace,
    name: &str,
    bytes: Option<u64>,
    span: Span,
) -> Result<()> {
    let max = max_variable_bytes(space);
    match bytes {
        Some(b) if b <= max => Ok(()),
        Some(b) => Err(Diagnostic::semantic(
            span,
            format!("`.{space}` variable `{name}` is too large: {b} bytes, at most {max}"),
        )),
        None => Err(Diagnostic::semantic(
            span,
            format!("`.{space}` variable `{name}` is too large: its size overflows 64 bits"),
        )),
    }
}

/// What a [`Layout`] lays out, for its diagnostics.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Area {
    /// A kernel's parameter space.
    KernelParams,
    /// A function's per-thread local frame.
    LocalFrame,
}

/// Variables placed one after another, each at its alignment, as the emulator places a
/// kernel's parameters or a function's frame; refuses the one that ends past the area's limit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    area: Area,
    end: u64,
}

impl Layout {
    pub(crate) fn new(area: Area) -> Layout {
        Layout { area, end: 0 }
    }

    /// Places `v` (declared at `span`) after what is already placed.
    pub(crate) fn place(&mut self, func: &str, v: &Variable, span: Span) -> Result<()> {
        let align = u64::from(v.align.max(1));
        // Both operands are bounded (the end by the limit, the size by `variable_size`, the
        // alignment by 2^32), so this cannot overflow.
        let end = self.end.div_ceil(align) * align + v.size_bytes();
        let (max, verb, what) = match self.area {
            Area::KernelParams => (MAX_KERNEL_PARAM_BYTES, "has", "kernel parameters"),
            Area::LocalFrame => (MAX_LOCAL_FRAME_BYTES, "needs", "local memory per thread"),
        };
        if end > max {
            return Err(Diagnostic::semantic(
                span,
                format!(
                    "`{func}` {verb} more than {max} bytes of {what}: `{}` ends at byte {end}",
                    v.name
                ),
            ));
        }
        self.end = end;
        Ok(())
    }
}
