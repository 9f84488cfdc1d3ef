//! Faults raised while executing a kernel, with the place they happened.

use std::fmt;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An access outside every live allocation (or outside shared/local memory); `detail`
    /// says where it lies (the nearest allocation, or the window's size), empty if unknown.
    IllegalAddress {
        space: &'static str,
        address: u64,
        detail: String,
    },
    /// An access not aligned to its size (vector accesses: to the whole vector's size).
    MisalignedAddress { space: &'static str, address: u64 },
    /// Every live warp of a CTA waits at a barrier that can no longer complete.
    BarrierDeadlock { detail: String },
    /// A warp executed more instructions than its budget allows.
    BudgetExceeded { budget: u64 },
    /// An instruction warpsim cannot execute.
    Unsupported { what: String },
    /// An operand value the instruction does not allow (`cp.async`'s src-size above its size).
    InvalidOperand { detail: String },
    /// `trap` was executed.
    Trap,
    /// Calls nested deeper than the limit (runaway recursion).
    CallDepthExceeded { limit: usize },
    /// The launch ran longer than its wall-clock limit (see [`crate::watch::WallClock`]).
    TimeLimit { limit: std::time::Duration },
    /// The program was prepared for another memory map than the device memory's.
    MemoryMap { detail: String },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::IllegalAddress {
                space,
                address,
                detail,
            } => {
                write!(f, "illegal {space} address {address:#x}")?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                Ok(())
            }
            FaultKind::MisalignedAddress { space, address } => {
                write!(f, "misaligned {space} address {address:#x}")
            }
            FaultKind::BarrierDeadlock { detail } => write!(f, "barrier deadlock: {detail}"),
            FaultKind::BudgetExceeded { budget } => {
                write!(
                    f,
                    "instruction budget exceeded: a warp executed {budget} instructions (runaway loop? raise it with --budget)"
                )
            }
            FaultKind::Unsupported { what } => write!(f, "unsupported: {what}"),
            FaultKind::InvalidOperand { detail } => write!(f, "invalid operand: {detail}"),
            FaultKind::Trap => write!(f, "trap instruction executed"),
            FaultKind::TimeLimit { limit } => write!(
                f,
                "wall-clock limit of {} s exceeded (raise it with --time-limit)",
                limit.as_secs_f64()
            ),
            FaultKind::MemoryMap { detail } => write!(f, "memory map mismatch: {detail}"),
            FaultKind::CallDepthExceeded { limit } => {
                write!(f, "call depth exceeds {limit} (runaway recursion?)")
            }
        }
    }
}

/// A fault with the kernel, CTA, thread and instruction where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub kernel: String,
    /// The function executing (the kernel itself, or a callee).
    pub function: String,
    pub cta: [u32; 3],
    /// The first faulting thread (lowest lane of the warp).
    pub thread: [u32; 3],
    /// Index of the instruction in its function (as `warpsim dis` numbers it).
    pub pc: u32,
    /// PTX source line of the instruction (0 when unknown).
    pub line: u32,
    /// The instruction: its PTX source line when the program kept its source (the runtime's
    /// always do), else as `warpsim dis` prints it.
    pub inst: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [cx, cy, cz] = self.cta;
        let [tx, ty, tz] = self.thread;
        write!(f, "{} in kernel `{}`", self.kind, self.kernel)?;
        if self.function != self.kernel {
            write!(f, " (in function `{}`)", self.function)?;
        }
        write!(
            f,
            ", CTA ({cx},{cy},{cz}), thread ({tx},{ty},{tz}), pc {}",
            self.pc
        )?;
        if self.line > 0 {
            write!(f, ", PTX line {}", self.line)?;
        }
        if !self.inst.is_empty() {
            write!(f, ": `{}`", self.inst)?;
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}
