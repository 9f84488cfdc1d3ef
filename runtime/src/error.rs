//! Runtime errors, in the spirit of `cudaError_t`.

use emulator::{Fault, FaultKind};

/// Everything the runtime API can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad argument to an API call (wrong kernel arguments, bad sizes, unknown names).
    #[error("invalid value: {0}")]
    InvalidValue(String),
    /// A launch configuration the device cannot run (block too large, zero dimensions, ...).
    #[error("invalid configuration: {0}")]
    InvalidConfiguration(String),
    /// The launch needs more per-block resources than the device has.
    #[error("out of resources: {0}")]
    OutOfResources(String),
    /// Device memory exhausted, or a bad pointer freed.
    #[error("memory allocation: {0}")]
    Memory(#[from] emulator::memory::AllocError),
    /// A host copy outside the buffer or a bad device address.
    #[error("illegal host access: {0}")]
    HostAccess(String),
    /// The PTX does not parse or lower.
    #[error("{0}")]
    InvalidPtx(#[from] frontend::PtxError),
    /// The kernel contains instructions warpsim cannot execute.
    #[error("{0}")]
    Unsupported(String),
    /// A kernel accessed memory outside every allocation.
    #[error("{0}")]
    IllegalAddress(Box<Fault>),
    /// A kernel made an access not aligned to its size.
    #[error("{0}")]
    MisalignedAddress(Box<Fault>),
    /// A barrier that can never complete.
    #[error("{0}")]
    BarrierDeadlock(Box<Fault>),
    /// A warp ran past its instruction budget.
    #[error("{0}")]
    BudgetExceeded(Box<Fault>),
    /// Any other fault inside a kernel (`trap`, runaway recursion, unsupported instruction).
    #[error("{0}")]
    LaunchFailure(Box<Fault>),
    /// The timing model stopped issuing (its watchdog fired).
    #[error("{0}")]
    TimingDeadlock(String),
    /// The launch ran past its wall-clock limit.
    #[error("{0}")]
    TimeLimit(String),
}

impl Error {
    /// The name `cudaGetErrorName` would give the closest CUDA error.
    pub fn cuda_name(&self) -> &'static str {
        match self {
            Error::InvalidValue(_) | Error::HostAccess(_) => "cudaErrorInvalidValue",
            Error::InvalidConfiguration(_) => "cudaErrorInvalidConfiguration",
            Error::OutOfResources(_) => "cudaErrorLaunchOutOfResources",
            Error::Memory(_) => "cudaErrorMemoryAllocation",
            Error::InvalidPtx(_) => "cudaErrorInvalidPtx",
            Error::Unsupported(_) => "cudaErrorNotSupported",
            Error::IllegalAddress(_) => "cudaErrorIllegalAddress",
            Error::MisalignedAddress(_) => "cudaErrorMisalignedAddress",
            Error::BarrierDeadlock(_) => "cudaErrorLaunchFailure",
            Error::BudgetExceeded(_) | Error::TimeLimit(_) => "cudaErrorLaunchTimeout",
            Error::LaunchFailure(_) | Error::TimingDeadlock(_) => "cudaErrorLaunchFailure",
        }
    }
}

impl From<Box<Fault>> for Error {
    fn from(f: Box<Fault>) -> Error {
        match f.kind {
            FaultKind::IllegalAddress { .. } => Error::IllegalAddress(f),
            FaultKind::MisalignedAddress { .. } => Error::MisalignedAddress(f),
            FaultKind::BarrierDeadlock { .. } => Error::BarrierDeadlock(f),
            FaultKind::BudgetExceeded { .. } => Error::BudgetExceeded(f),
            FaultKind::TimeLimit { .. } => Error::TimeLimit(f.to_string()),
            FaultKind::Unsupported { .. }
            | FaultKind::InvalidOperand { .. }
            | FaultKind::Trap
            | FaultKind::CallDepthExceeded { .. }
            | FaultKind::MemoryMap { .. } => Error::LaunchFailure(f),
        }
    }
}

impl From<timing::SimError> for Error {
    fn from(e: timing::SimError) -> Error {
        match e {
            timing::SimError::Fault(f) => Error::from(f),
            timing::SimError::DoesNotFit(d) => Error::OutOfResources(d.to_string()),
            w @ timing::SimError::Watchdog { .. } => Error::TimingDeadlock(w.to_string()),
            t @ timing::SimError::TimeLimit { .. } => Error::TimeLimit(t.to_string()),
        }
    }
}

/// Results of the runtime API.
pub type Result<T> = std::result::Result<T, Error>;
