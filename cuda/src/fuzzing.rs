//! The fuzzing harness of the driver API: one input is a sequence of calls, each entry point
//! and its arguments drawn from the input's bytes. The libFuzzer target `cuda_calls` in `fuzz/`
//! calls [`calls`] on every input; `cuda/tests/integration/hostile.rs` calls it on the
//! committed corpus and on deterministic random inputs, so stable CI runs the same checks.
//!
//! Arguments are hostile where the driver can check them: sizes from 0 to `usize::MAX`,
//! handles live, stale (freed, destroyed) or never made, device pointers anywhere in or around
//! the allocations, undefined flags and attributes, both argument forms of a launch at once,
//! PTX from the input's bytes. Host pointers are NULL or into the harness's own buffer, large
//! enough for every range the driver can accept, since no driver can check a host pointer (the
//! API contract of `lib.rs`).
//!
//! A call finds a bug when it panics (caught at the C boundary as `CUDA_ERROR_UNKNOWN`), aborts
//! or hangs: [`calls`] panics on the first, libFuzzer (or the test's child process) sees the
//! others. Each input is bounded (its length, the sizes of successful allocations, small launch
//! shapes), so it takes milliseconds.

use crate::context::*;
use crate::device::cuInit;
use crate::function::*;
use crate::launch::*;
use crate::link::*;
use crate::memory::*;
use crate::module::*;
use crate::stream::*;
use crate::types::{CUdeviceptr, CUresult, Handle, status};
use std::ffi::{CString, c_int, c_void};
use std::ptr::null_mut;

/// Longest input [`calls`] looks at; longer ones are skipped.
pub const MAX_BYTES: usize = 4096;

/// The module every input can load: `store(u32 *p, u32 v, u32 i)` sets `p[i] = v`, and
/// `shared_user` takes 40000 bytes of static shared memory.
pub const KERNELS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry store(.param .u64 p, .param .u32 v, .param .u32 i)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<3>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    ld.param.u32 %r2, [i];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
    ret;
}
.visible .entry shared_user(.param .u64 p)
{
    .shared .align 4 .b8 tile[40000];
    .reg .b64 %rd<3>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 5;
    st.shared.u32 [tile], %r1;
    ld.shared.u32 %r1, [tile];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r1;
    ret;
}
"#;

/// Sizes, hostile ones among them; a successful allocation is at most 1 MiB.
const SIZES: [usize; 12] = [
    0,
    1,
    3,
    4,
    16,
    256,
    4096,
    65536,
    1 << 20,
    1 << 40,
    usize::MAX,
    usize::MAX / 2,
];

/// Host bytes the harness owns: every host range the driver can accept fits (a device range
/// is at most 1 MiB, host offsets at most 4 KiB).
const SCRATCH: usize = (1 << 20) + 8192;

/// A handle no table holds.
const BOGUS: Handle = 0x7fff_dead_0000usize as Handle;

/// The input, read a byte at a time; once exhausted every read is 0.
struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    fn size(&mut self) -> usize {
        SIZES[usize::from(self.byte()) % SIZES.len()]
    }

    /// One of `pool`, or (one time in four) a handle that was never made.
    fn handle(&mut self, pool: &[Handle]) -> Handle {
        let b = usize::from(self.byte());
        if pool.is_empty() || b % 4 == 0 {
            [BOGUS, null_mut()][b / 4 % 2]
        } else {
            pool[b % pool.len()]
        }
    }

    /// A device address: an allocation's start moved by a small or hostile offset, or one
    /// outside every allocation.
    fn dptr(&mut self, pool: &[CUdeviceptr]) -> CUdeviceptr {
        let b = usize::from(self.byte());
        let base = if pool.is_empty() || b % 8 == 0 {
            [0, 0x1234, u64::MAX - 7][b % 3]
        } else {
            pool[b % pool.len()]
        };
        match self.byte() % 4 {
            0 => base,
            1 => base.wrapping_add(u64::from(self.byte()) * 4),
            2 => base.wrapping_add(self.size() as u64),
            _ => base.wrapping_sub(u64::from(self.byte())),
        }
    }

    /// A PTX text from the input (up to 512 bytes, NUL-free), or the harness's module.
    fn ptx(&mut self) -> CString {
        if self.byte().is_multiple_of(2) {
            return CString::new(KERNELS).expect("no NUL in the module");
        }
        let n = usize::from(self.byte()) * 2;
        let start = self.at.min(self.data.len());
        let end = (start + n).min(self.data.len());
        self.at = end;
        let text: Vec<u8> = self.data[start..end]
            .iter()
            .map(|&b| if b == 0 { b' ' } else { b })
            .collect();
        CString::new(text).expect("NUL bytes replaced")
    }
}

/// What the calls of one input made, released at its end.
#[derive(Default)]
struct Made {
    contexts: Vec<Handle>,
    allocations: Vec<CUdeviceptr>,
    modules: Vec<Handle>,
    functions: Vec<Handle>,
    streams: Vec<Handle>,
    events: Vec<Handle>,
    links: Vec<Handle>,
    registered: Vec<*mut c_void>,
}

/// Checks one call's result: a caught panic is a bug.
#[track_caller]
fn check(call: &str, r: CUresult) -> CUresult {
    assert_ne!(
        r,
        status::UNKNOWN,
        "{call} panicked inside the driver (CUDA_ERROR_UNKNOWN)"
    );
    r
}

/// Runs the calls `data` describes, on a fresh context of the calling thread, and releases
/// everything they made.
///
/// # Panics
///
/// When an entry point panicked (a bug: it returned `CUDA_ERROR_UNKNOWN`).
pub fn calls(data: &[u8]) {
    if data.len() > MAX_BYTES {
        return;
    }
    // SAFETY: every pointer passed below is NULL or valid for what the call reads or writes
    // (the harness's own buffers and out-parameters).
    unsafe {
        check("cuInit", cuInit(0));
        let mut made = Made::default();
        let mut ctx = null_mut();
        check("cuCtxCreate_v2", cuCtxCreate_v2(&mut ctx, 0, 0));
        made.contexts.push(ctx);
        // Something to launch and copy from the first call on: the harness's module, its
        // kernels and a 4 KiB buffer.
        let text = CString::new(KERNELS).expect("no NUL in the module");
        let mut m = null_mut();
        check(
            "cuModuleLoadData",
            cuModuleLoadData(&mut m, text.as_ptr().cast()),
        );
        made.modules.push(m);
        for name in [c"store", c"shared_user"] {
            let mut f = null_mut();
            check(
                "cuModuleGetFunction",
                cuModuleGetFunction(&mut f, m, name.as_ptr()),
            );
            made.functions.push(f);
        }
        let mut p = 0;
        check("cuMemAlloc_v2", cuMemAlloc_v2(&mut p, 4096));
        made.allocations.push(p);
        let mut scratch = vec![0u8; SCRATCH];
        let mut input = Input { data, at: 0 };
        while !input.done() {
            step(&mut input, &mut made, &mut scratch);
        }
        release(made);
    }
}

/// One call, drawn from the input.
unsafe fn step(input: &mut Input<'_>, made: &mut Made, scratch: &mut [u8]) {
    let host = scratch.as_mut_ptr();
    // A host pointer: NULL or into the scratch buffer, at most 4 KiB in.
    let host_ptr = |input: &mut Input<'_>| -> *mut u8 {
        match input.byte() % 8 {
            0 => null_mut(),
            b => host.wrapping_add(usize::from(b) * 512),
        }
    };
    // SAFETY (every call below): pointers are NULL, the harness's out-parameters, or into
    // `scratch`, which holds every host range the driver can accept.
    unsafe {
        match input.byte() % 24 {
            0 => {
                let mut p = 0;
                let size = input.size();
                if check("cuMemAlloc_v2", cuMemAlloc_v2(&mut p, size)) == status::SUCCESS {
                    made.allocations.push(p);
                }
            }
            1 => {
                let p = input.dptr(&made.allocations);
                check("cuMemFree_v2", cuMemFree_v2(p));
            }
            2 => {
                let (d, h, n) = (input.dptr(&made.allocations), host_ptr(input), input.size());
                check("cuMemcpyHtoD_v2", cuMemcpyHtoD_v2(d, h.cast(), n));
            }
            3 => {
                let (h, d, n) = (host_ptr(input), input.dptr(&made.allocations), input.size());
                check("cuMemcpyDtoH_v2", cuMemcpyDtoH_v2(h.cast(), d, n));
            }
            4 => {
                let (a, b) = (input.dptr(&made.allocations), input.dptr(&made.allocations));
                let n = input.size();
                check("cuMemcpyDtoD_v2", cuMemcpyDtoD_v2(a, b, n));
            }
            5 => {
                // Unified: each side device or host. Host to host reads the whole size, so it
                // gets one the scratch buffer holds (or one refused before any read).
                let side = |input: &mut Input<'_>, device: bool| -> u64 {
                    let d = input.dptr(&made.allocations);
                    if device && in_device(d) {
                        d
                    } else {
                        host_ptr(input) as u64
                    }
                };
                let dev = input.byte();
                let a = side(input, dev & 1 != 0);
                let b = side(input, dev & 2 != 0);
                let n = match (in_device(a) || in_device(b), input.size()) {
                    (false, n) if n > 4096 => usize::MAX,
                    (_, n) => n,
                };
                check("cuMemcpy", cuMemcpy(a, b, n));
            }
            6 => {
                let d = input.dptr(&made.allocations);
                let (n, v) = (input.size(), input.u32());
                match input.byte() % 3 {
                    0 => check("cuMemsetD8_v2", cuMemsetD8_v2(d, v as u8, n)),
                    1 => check("cuMemsetD16_v2", cuMemsetD16_v2(d, v as u16, n)),
                    _ => check("cuMemsetD32_v2", cuMemsetD32_v2(d, v, n)),
                };
            }
            7 => {
                let d = input.dptr(&made.allocations);
                let (pitch, width, height) = (input.size(), input.size(), input.size());
                let v = input.u32();
                match input.byte() % 3 {
                    0 => check(
                        "cuMemsetD2D8_v2",
                        cuMemsetD2D8_v2(d, pitch, v as u8, width, height),
                    ),
                    1 => check(
                        "cuMemsetD2D16_v2",
                        cuMemsetD2D16_v2(d, pitch, v as u16, width, height),
                    ),
                    _ => check(
                        "cuMemsetD2D32_v2",
                        cuMemsetD2D32_v2(d, pitch, v, width, height),
                    ),
                };
            }
            8 => {
                let (mut p, mut pitch) = (0, 0);
                let (w, h) = (input.size().min(1 << 12), input.size().min(1 << 8));
                // Or a width no device holds (a pitched allocation of gigabytes that fits
                // would be valid, and slow to hand out: committing its pages takes seconds).
                let (w, h) = if input.byte().is_multiple_of(4) {
                    (
                        [1 << 40, usize::MAX][usize::from(input.byte() % 2)],
                        input.size(),
                    )
                } else {
                    (w, h)
                };
                let element = [1, 4, 8, 16][usize::from(input.byte() % 4)];
                let r = cuMemAllocPitch_v2(&mut p, &mut pitch, w, h, element);
                if check("cuMemAllocPitch_v2", r) == status::SUCCESS {
                    // At most 2 MiB (a 512-byte pitch of 4096 rows): a host range as long as
                    // the rows the driver accepts fits the scratch buffer only when it is at
                    // most 1 MiB, so larger ones are freed at once.
                    if pitch.saturating_mul(h) <= 1 << 20 {
                        made.allocations.push(p);
                    } else {
                        check("cuMemFree_v2", cuMemFree_v2(p));
                    }
                }
            }
            9 => {
                let d = input.dptr(&made.allocations);
                let (mut base, mut size) = (0, 0);
                check(
                    "cuMemGetAddressRange_v2",
                    cuMemGetAddressRange_v2(&mut base, &mut size, d),
                );
                let mut word = 0u64;
                let attr = c_int::from(input.byte() % 24);
                check(
                    "cuPointerGetAttribute",
                    cuPointerGetAttribute((&mut word as *mut u64).cast(), attr, d),
                );
            }
            10 => {
                let (h, size, flags) = (host_ptr(input), input.size(), input.u32());
                let r = cuMemHostRegister_v2(h.cast(), size, flags);
                if check("cuMemHostRegister_v2", r) == status::SUCCESS {
                    made.registered.push(h.cast());
                }
                let h = host_ptr(input);
                check("cuMemHostUnregister", cuMemHostUnregister(h.cast()));
            }
            11 => {
                let text = input.ptx();
                let mut m = null_mut();
                if check(
                    "cuModuleLoadData",
                    cuModuleLoadData(&mut m, text.as_ptr().cast()),
                ) == status::SUCCESS
                {
                    made.modules.push(m);
                }
            }
            12 => {
                let m = input.handle(&made.modules);
                let name = [c"store", c"shared_user", c"nope"][usize::from(input.byte() % 3)];
                let mut f = null_mut();
                if check(
                    "cuModuleGetFunction",
                    cuModuleGetFunction(&mut f, m, name.as_ptr()),
                ) == status::SUCCESS
                {
                    made.functions.push(f);
                }
            }
            13 => launch(input, made),
            14 => {
                let f = input.handle(&made.functions);
                let (attr, value) = (c_int::from(input.byte() % 16), input.u32() as c_int);
                let mut v = 0;
                check("cuFuncGetAttribute", cuFuncGetAttribute(&mut v, attr, f));
                check("cuFuncSetAttribute", cuFuncSetAttribute(f, attr, value));
                let (mut offset, mut size) = (0, 0);
                let index = input.size();
                check(
                    "cuFuncGetParamInfo",
                    cuFuncGetParamInfo(f, index, &mut offset, &mut size),
                );
            }
            15 => {
                let f = input.handle(&made.functions);
                let (block, dynamic) = (input.u32() as c_int, input.size());
                let mut n = 0;
                check(
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                    cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block, dynamic),
                );
                let (mut grid, mut best) = (0, 0);
                let limit = input.u32() as c_int;
                check(
                    "cuOccupancyMaxPotentialBlockSize",
                    cuOccupancyMaxPotentialBlockSize(&mut grid, &mut best, f, None, dynamic, limit),
                );
                let mut size = 0;
                check(
                    "cuOccupancyAvailableDynamicSMemPerBlock",
                    cuOccupancyAvailableDynamicSMemPerBlock(&mut size, f, block, block),
                );
            }
            16 => {
                // Mostly defined flags; else bits CUDA does not define.
                let b = input.byte();
                let flags = match b % 4 {
                    0 => input.u32(),
                    1 => 0x100 << (b % 24),
                    _ => [0, 1, 2, 4, 3][usize::from(b / 4) % 5] | u32::from(b & 0xf8),
                };
                let mut c = null_mut();
                if check("cuCtxCreate_v2", cuCtxCreate_v2(&mut c, flags, 0)) == status::SUCCESS {
                    made.contexts.push(c);
                }
            }
            17 => {
                let c = input.handle(&made.contexts);
                // Popping (often to no context at all) one time in four: the calls after it
                // should mostly have a context.
                match input.byte() % 4 {
                    0 => check("cuCtxPopCurrent_v2", cuCtxPopCurrent_v2(null_mut())),
                    1 => check("cuCtxSetCurrent", cuCtxSetCurrent(c)),
                    _ => check("cuCtxPushCurrent_v2", cuCtxPushCurrent_v2(c)),
                };
            }
            18 => {
                // The newest context, or a bogus one: the first, which holds the harness's
                // module and buffer, only when nothing newer is left.
                let c = match made.contexts.last() {
                    Some(&c) if input.byte().is_multiple_of(2) => c,
                    _ => BOGUS,
                };
                check("cuCtxDestroy_v2", cuCtxDestroy_v2(c));
                if made.contexts.len() > 1 {
                    made.contexts.pop();
                }
            }
            19 => {
                let (limit, value) = (c_int::from(input.byte() % 8), input.size());
                check("cuCtxSetLimit", cuCtxSetLimit(limit, value));
                let mut v = 0;
                check("cuCtxGetLimit", cuCtxGetLimit(&mut v, limit));
                check("cuCtxSetFlags", cuCtxSetFlags(input.u32()));
            }
            20 => {
                let mut s = null_mut();
                let flags = u32::from(input.byte() % 3);
                if check("cuStreamCreate", cuStreamCreate(&mut s, flags)) == status::SUCCESS {
                    made.streams.push(s);
                }
                let s = input.handle(&made.streams);
                check("cuStreamSynchronize", cuStreamSynchronize(s));
                let s = input.handle(&made.streams);
                check("cuStreamDestroy_v2", cuStreamDestroy_v2(s));
            }
            21 => {
                let mut e = null_mut();
                let flags = u32::from(input.byte() % 5);
                if check("cuEventCreate", cuEventCreate(&mut e, flags)) == status::SUCCESS {
                    made.events.push(e);
                }
                let (e, s) = (input.handle(&made.events), input.handle(&made.streams));
                check("cuEventRecord", cuEventRecord(e, s));
                let (a, b) = (input.handle(&made.events), input.handle(&made.events));
                let mut ms = 0.0;
                check("cuEventElapsedTime", cuEventElapsedTime(&mut ms, a, b));
                let e = input.handle(&made.events);
                check("cuEventDestroy_v2", cuEventDestroy_v2(e));
            }
            22 => {
                let mut l = null_mut();
                if check(
                    "cuLinkCreate_v2",
                    cuLinkCreate_v2(0, null_mut(), null_mut(), &mut l),
                ) == status::SUCCESS
                {
                    made.links.push(l);
                }
                let l = input.handle(&made.links);
                let text = input.ptx();
                let bytes = text.as_bytes();
                let n = match input.byte() % 4 {
                    0 => input.size(),
                    _ => bytes.len(),
                };
                // A size past the text only when the driver refuses it before reading.
                let n = if n > bytes.len() { usize::MAX } else { n };
                let kind = c_int::from(input.byte() % 7);
                check(
                    "cuLinkAddData_v2",
                    cuLinkAddData_v2(
                        l,
                        kind,
                        text.as_ptr().cast_mut().cast(),
                        n,
                        c"fuzz.ptx".as_ptr(),
                        0,
                        null_mut(),
                        null_mut(),
                    ),
                );
                let (mut image, mut size) = (null_mut(), 0);
                let l = input.handle(&made.links);
                check("cuLinkComplete", cuLinkComplete(l, &mut image, &mut size));
            }
            _ => {
                let l = input.handle(&made.links);
                check("cuLinkDestroy", cuLinkDestroy(l));
                let m = input.handle(&made.modules);
                check("cuModuleUnload", cuModuleUnload(m));
            }
        }
    }
}

/// A launch of a made (or stale, or bogus) function: small or invalid shapes, arguments by
/// `kernelParams`, by `extra`, both or neither.
unsafe fn launch(input: &mut Input<'_>, made: &mut Made) {
    const DIMS: [u32; 6] = [0, 1, 2, 3, 4, u32::MAX];
    const BLOCKS: [u32; 6] = [0, 1, 32, 64, 1025, u32::MAX];
    let f = input.handle(&made.functions);
    let grid = [0; 3].map(|_: u32| DIMS[usize::from(input.byte()) % DIMS.len()]);
    let block = [0; 3].map(|_: u32| BLOCKS[usize::from(input.byte()) % BLOCKS.len()]);
    let shared = [0, 256, 49152, u32::MAX][usize::from(input.byte() % 4)];
    let stream = input.handle(&made.streams);
    let mut p = input.dptr(&made.allocations);
    let (mut v, mut i) = (input.u32(), input.u32() % 4096);
    let mut params = [
        (&mut p as *mut u64).cast::<c_void>(),
        (&mut v as *mut u32).cast(),
        (&mut i as *mut u32).cast(),
    ];
    #[repr(C)]
    struct Buffer(u64, u32, u32);
    let mut buffer = Buffer(p, v, i);
    let mut size = match input.byte() % 4 {
        0 => input.size().min(size_of::<Buffer>()),
        _ => size_of::<Buffer>(),
    };
    let mut extra = [
        std::ptr::without_provenance_mut(1),
        (&mut buffer as *mut Buffer).cast::<c_void>(),
        std::ptr::without_provenance_mut(2),
        (&mut size as *mut usize).cast(),
        null_mut(),
    ];
    let (kernel_params, extra) = match input.byte() % 4 {
        0 => (params.as_mut_ptr(), null_mut()),
        1 => (null_mut(), extra.as_mut_ptr()),
        2 => (params.as_mut_ptr(), extra.as_mut_ptr()),
        _ => (null_mut(), null_mut()),
    };
    // SAFETY: the parameter pointers point at the locals above, the `extra` array is
    // terminated and its size is at most the buffer's.
    let r = unsafe {
        cuLaunchKernel(
            f,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            shared,
            stream,
            kernel_params,
            extra,
        )
    };
    check("cuLaunchKernel", r);
}

/// Releases what the calls made (each may already be gone: results ignored but for a panic)
/// and leaves the thread with no current context.
unsafe fn release(made: Made) {
    // SAFETY: handles and addresses are only looked up; the registered host pointers were
    // registered from the scratch buffer, still alive.
    unsafe {
        for h in made.registered {
            check("cuMemHostUnregister", cuMemHostUnregister(h));
        }
        for l in made.links {
            check("cuLinkDestroy", cuLinkDestroy(l));
        }
        for e in made.events {
            check("cuEventDestroy_v2", cuEventDestroy_v2(e));
        }
        for s in made.streams {
            check("cuStreamDestroy_v2", cuStreamDestroy_v2(s));
        }
        for p in made.allocations {
            check("cuMemFree_v2", cuMemFree_v2(p));
        }
        for m in made.modules {
            check("cuModuleUnload", cuModuleUnload(m));
        }
        for c in made.contexts {
            check("cuCtxDestroy_v2", cuCtxDestroy_v2(c));
        }
        while check("cuCtxPopCurrent_v2", cuCtxPopCurrent_v2(null_mut())) == status::SUCCESS {}
    }
}

/// Whether `addr` is in the device's address range: `cuMemcpy` takes anything else for a host
/// address and reads or writes it, so the harness passes no such address there.
fn in_device(addr: u64) -> bool {
    crate::state::with(|d| Ok(is_device_address(&d.device.memory(), addr))).unwrap_or(false)
}
