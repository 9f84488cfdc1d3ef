//! The driver's state: one simulated device (created at `cuInit` from the environment) and the
//! tables behind every handle. Handles are numbers from one counter, so a handle of one kind
//! passed where another is expected is `CUDA_ERROR_INVALID_HANDLE`, never a wild pointer.
//!
//! All of it sits behind one lock, taken briefly by each entry point; a launch takes what it
//! needs and runs with the lock released, so a stream callback or another thread may call in.

use crate::config::Settings;
use crate::error::{Error, Result};
use crate::types::status;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::CString;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// A context (`CUcontext`).
#[derive(Debug)]
pub struct Context {
    pub flags: u32,
    pub primary: bool,
    /// `cuCtxSetLimit` values.
    pub limits: HashMap<i32, usize>,
    pub cache_config: i32,
}

impl Context {
    pub fn new(flags: u32, primary: bool) -> Context {
        Context {
            flags,
            primary,
            limits: crate::types::limit::DEFAULTS.into_iter().collect(),
            cache_config: 0,
        }
    }
}

/// A device allocation (`cuMemAlloc`).
#[derive(Debug)]
pub struct Allocation {
    pub size: u64,
    pub ctx: u64,
}

/// Host memory the driver allocated or was told about.
#[derive(Debug)]
pub struct HostRange {
    pub size: usize,
    /// Registered (`cuMemHostRegister`) rather than allocated by the driver.
    pub registered: bool,
    pub flags: u32,
}

/// A loaded module or library (`CUmodule`, `CUlibrary`: one table, so
/// `cuLibraryGetModule` hands back the same handle).
pub struct ModuleEntry {
    pub module: Arc<runtime::Module>,
    /// The owning context; `None` for a library, which belongs to no context.
    pub ctx: Option<u64>,
    /// Functions handed out so far, by name.
    pub functions: HashMap<String, u64>,
}

/// A kernel (`CUfunction`, and `CUkernel`, which is the same handle).
pub struct FunctionEntry {
    pub kernel: runtime::Kernel,
    pub module: u64,
    pub name: CString,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` as set, if it was.
    pub max_dynamic_shared: Option<u64>,
    pub carveout: i32,
    pub cache_config: i32,
}

/// A stream (`CUstream`); work on it runs when it is submitted.
#[derive(Debug)]
pub struct StreamEntry {
    pub ctx: u64,
    pub flags: u32,
    pub priority: i32,
}

/// When an event was recorded: simulated cycles so far and the host's clock.
#[derive(Clone, Copy, Debug)]
pub struct Stamp {
    pub cycles: u64,
    pub host: Instant,
}

/// An event (`CUevent`).
#[derive(Debug)]
pub struct EventEntry {
    pub ctx: u64,
    pub flags: u32,
    pub recorded: Option<Stamp>,
}

/// A link in progress (`CUlinkState`).
#[derive(Debug, Default)]
pub struct LinkEntry {
    /// PTX inputs, by name, in order.
    pub inputs: Vec<(String, String)>,
    /// The linked image, kept until `cuLinkDestroy` (the caller holds a pointer into it).
    pub output: Option<CString>,
    /// The caller's error and information log buffers (address, size), if given.
    pub error_log: Option<(usize, usize)>,
    pub info_log: Option<(usize, usize)>,
}

/// Everything behind the handles.
pub struct Driver {
    pub settings: Settings,
    pub device: Arc<runtime::Device>,
    next_id: u64,
    /// The device's primary context: its handle, retain count and flags.
    pub primary: u64,
    pub primary_refs: u32,
    pub primary_flags: u32,
    pub contexts: HashMap<u64, Context>,
    pub allocations: BTreeMap<u64, Allocation>,
    /// Host ranges by start address.
    pub host: BTreeMap<usize, HostRange>,
    pub modules: HashMap<u64, ModuleEntry>,
    pub functions: HashMap<u64, FunctionEntry>,
    pub streams: HashMap<u64, StreamEntry>,
    pub events: HashMap<u64, EventEntry>,
    pub links: HashMap<u64, LinkEntry>,
    /// Simulated cycles of every timed launch so far (the clock events read).
    pub cycles: u64,
    /// Statistics of the launches so far.
    pub stats: crate::stats::Totals,
    /// Names of the PTX modules loaded so far (diagnostics quote `module-N.ptx`).
    pub modules_loaded: u64,
}

/// The first handle number: clear of the special stream handles 0, 1 (legacy) and 2 (per
/// thread), and of small integers a caller might pass by mistake.
const FIRST_HANDLE: u64 = 0x1000;

impl Driver {
    /// A driver over a new device described by `settings`.
    pub fn new(settings: Settings) -> Result<Driver> {
        let device = runtime::Device::new(settings.device_config())?;
        let mut d = Driver {
            settings,
            device: Arc::new(device),
            next_id: FIRST_HANDLE,
            primary: 0,
            primary_refs: 0,
            primary_flags: 0,
            contexts: HashMap::new(),
            allocations: BTreeMap::new(),
            host: BTreeMap::new(),
            modules: HashMap::new(),
            functions: HashMap::new(),
            streams: HashMap::new(),
            events: HashMap::new(),
            links: HashMap::new(),
            cycles: 0,
            stats: Default::default(),
            modules_loaded: 0,
        };
        d.primary = d.new_id();
        Ok(d)
    }

    /// A fresh handle number.
    pub fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 0x10;
        id
    }

    /// The calling thread's current context, which must be live.
    pub fn current(&self) -> Result<u64> {
        let top = current_context().ok_or_else(|| {
            Error::new(
                status::INVALID_CONTEXT,
                "no current context (cuCtxCreate, cuCtxSetCurrent or cuDevicePrimaryCtxRetain first)",
            )
        })?;
        if !self.contexts.contains_key(&top) {
            return Err(Error::new(
                status::INVALID_CONTEXT,
                "the current context was destroyed or released",
            ));
        }
        Ok(top)
    }

    /// Frees everything context `ctx` owns: allocations, modules and their functions,
    /// streams and events (`cuCtxDestroy`, `cuDevicePrimaryCtxReset`).
    pub fn release_context_resources(&mut self, ctx: u64) {
        let mem = self.device.memory().clone();
        self.allocations.retain(|&ptr, a| {
            if a.ctx == ctx {
                // The allocation is live (it is in the table), so freeing it succeeds.
                let _ = mem.free(ptr);
                false
            } else {
                true
            }
        });
        let gone: Vec<u64> = self
            .modules
            .iter()
            .filter(|(_, m)| m.ctx == Some(ctx))
            .map(|(&id, _)| id)
            .collect();
        for id in gone {
            self.unload_module(id);
        }
        self.streams.retain(|_, s| s.ctx != ctx);
        self.events.retain(|_, e| e.ctx != ctx);
    }

    /// Drops module `id` and its functions.
    pub fn unload_module(&mut self, id: u64) -> Option<ModuleEntry> {
        let entry = self.modules.remove(&id)?;
        for f in entry.functions.values() {
            self.functions.remove(f);
        }
        Some(entry)
    }
}

/// The driver, once `cuInit` made it.
static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

fn lock() -> MutexGuard<'static, Option<Driver>> {
    // A panic while holding the lock is caught at the entry point; the tables stay usable.
    DRIVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `f` on the driver, or fails with `CUDA_ERROR_NOT_INITIALIZED` before `cuInit`.
pub fn with<T>(f: impl FnOnce(&mut Driver) -> Result<T>) -> Result<T> {
    let mut guard = lock();
    let driver = guard.as_mut().ok_or_else(|| {
        Error::new(
            status::NOT_INITIALIZED,
            "the driver is not initialized (call cuInit first)",
        )
    })?;
    f(driver)
}

/// Makes the driver if `cuInit` has not yet.
pub fn init() -> Result {
    let mut guard = lock();
    if guard.is_none() {
        let settings = Settings::from_env()?;
        *guard = Some(Driver::new(settings)?);
        crate::stats::at_exit();
    }
    Ok(())
}

/// Whether `cuInit` has made the driver.
pub fn initialized() -> bool {
    lock().is_some()
}

thread_local! {
    /// The calling thread's context stack (`cuCtxPushCurrent`/`PopCurrent`), top last.
    static STACK: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The calling thread's current context handle, live or not.
pub fn current_context() -> Option<u64> {
    STACK.with(|s| s.borrow().last().copied())
}

/// Pushes `ctx` on the calling thread's stack.
pub fn push_context(ctx: u64) {
    STACK.with(|s| s.borrow_mut().push(ctx));
}

/// Pops the calling thread's current context.
pub fn pop_context() -> Option<u64> {
    STACK.with(|s| s.borrow_mut().pop())
}

/// Replaces the calling thread's current context (`cuCtxSetCurrent`); `None` unbinds it.
pub fn set_current_context(ctx: Option<u64>) {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        s.pop();
        if let Some(ctx) = ctx {
            s.push(ctx);
        }
    });
}

/// Runs `f` on the driver if `cuInit` made it and no thread holds its lock (at exit).
pub fn peek(f: impl FnOnce(&Driver)) {
    let guard = match DRIVER.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    if let Some(d) = guard.as_ref() {
        f(d);
    }
}
