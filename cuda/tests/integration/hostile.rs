//! Hostile callers: every implemented entry point called with NULL pointers, huge sizes, bogus
//! handles and ranges outside their allocations must return an error code, never abort the
//! process nor panic (a caught panic is `CUDA_ERROR_UNKNOWN` and "internal error" on stderr).
//!
//! An abort kills the process it happens in, so each walk runs in a child process (this test
//! binary again, one `child_*` test selected, `WARPSIM_CHILD` set): the parent asserts that it
//! passed and, if it died, names the entry point it died in (the child prints each name on
//! stderr before the call).

use crate::common::*;
use std::collections::BTreeSet;
use std::process::Command;
use warpsim_cuda::types::{CUlaunchConfig, CUuuid};

/// Runs test `name` of this binary in a child process and asserts that it passed, that it
/// reported no caught panic, and (if it died) which entry point it was calling.
fn survives(name: &str) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("WARPSIM_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("hostile: "))
        .unwrap_or("(none)");
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the child died or failed ({:?}) in or after {last}\n{stdout}\n{}",
        out.status,
        tail(&stderr)
    );
    assert!(
        !stderr.contains("internal error"),
        "a panic was caught:\n{}",
        tail(&stderr)
    );
}

/// The last 40 lines of `text`.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

fn in_child() -> bool {
    std::env::var_os("WARPSIM_CHILD").is_some()
}

/// What a hostile call may return.
#[derive(Clone, Copy)]
enum Want {
    /// An error code: not success, not `CUDA_ERROR_UNKNOWN` (a caught panic).
    Fails,
    /// Exactly this code.
    Code(CUresult),
    /// Anything but `CUDA_ERROR_UNKNOWN`: arguments odd but allowed (a NULL optional
    /// out-pointer, a size that yields zero).
    Any,
}
use Want::*;

const UNKNOWN: CUresult = 999;

impl Want {
    #[track_caller]
    fn check(self, call: &str, r: CUresult) {
        let good = match self {
            Fails => r != SUCCESS && r != UNKNOWN,
            Code(c) => r == c,
            Any => r != UNKNOWN,
        };
        assert!(good, "{call} returned {}", name(r));
    }
}

/// Calls an entry point, recording its name and checking its result.
macro_rules! call {
    ($seen:ident, $want:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let label = stringify!($f);
        eprintln!("hostile: {label}");
        $seen.insert(label);
        // SAFETY: every non-NULL pointer passed is valid for what the call reads or writes
        // (the API contract); everything else about the arguments is hostile.
        let r = unsafe { $f($($a),*) };
        $want.check(label, r);
        r
    }};
}

/// A handle no table holds.
const BOGUS: Handle = 0x7fff_dead_0000usize as Handle;

/// A size no allocation reaches: 1 TiB.
const HUGE: usize = 1 << 40;

/// `cuMemcpyDtoD_v2(p, q, 1 << 40)` on two 4 KiB buffers once allocated a 1 TiB buffer
/// before checking the ranges, and the allocation failure aborted the process; so did
/// `cuMemcpy` and a patterned set (`cuMemsetD16`, `D32`) of that many elements.
#[test]
fn oversized_copies_and_sets_are_refused_not_aborted() {
    survives("hostile::child_oversized_copies_and_sets");
}

#[test]
fn child_oversized_copies_and_sets() {
    if !in_child() {
        return;
    }
    let _c = Ctx::new();
    let mut seen = BTreeSet::new();
    let data: Vec<u8> = (0..4096).map(|i| i as u8).collect();
    let p = upload(&data);
    let q = upload(&[0u8; 4096]);
    for n in [HUGE, usize::MAX, 4097] {
        call!(seen, Code(INVALID_VALUE), cuMemcpyDtoD_v2(q, p, n));
        call!(seen, Code(INVALID_VALUE), cuMemcpy(q, p, n));
        call!(
            seen,
            Code(INVALID_VALUE),
            cuMemcpyDtoDAsync_v2(q, p, n, null_mut())
        );
        call!(
            seen,
            Code(INVALID_VALUE),
            cuMemcpyAsync(q, p, n, null_mut())
        );
        call!(seen, Code(INVALID_VALUE), cuMemsetD8_v2(q, 1, n));
        call!(seen, Code(INVALID_VALUE), cuMemsetD16_v2(q, 0x1234, n));
        call!(seen, Code(INVALID_VALUE), cuMemsetD32_v2(q, 0x1234_5678, n));
    }
    // A pitched set whose span overflows, or whose rows overlap (pitch below a row).
    call!(
        seen,
        Code(INVALID_VALUE),
        cuMemsetD2D16_v2(q, usize::MAX, 1, 1, 3)
    );
    call!(
        seen,
        Code(INVALID_VALUE),
        cuMemsetD2D32_v2(q, 4, 1, 1, usize::MAX)
    );
    call!(seen, Code(INVALID_VALUE), cuMemsetD2D8_v2(q, 2, 1, 4, 2));
    // Nothing was written by the refused calls.
    assert_eq!(download::<u8>(q, 4096), vec![0u8; 4096]);
    // In range, the copies still copy, overlapping ones as `memmove` does.
    ok(unsafe { cuMemcpyDtoD_v2(q, p, 4096) });
    assert_eq!(download::<u8>(q, 4096), data);
    ok(unsafe { cuMemcpyDtoD_v2(q + 1, q, 4095) });
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&data[..4095]);
    assert_eq!(download::<u8>(q, 4096), shifted);
    ok(unsafe { cuMemsetD16_v2(q, 0xBEEF, 2048) });
    assert!(
        download::<u16>(q, 2048).iter().all(|&v| v == 0xBEEF),
        "a patterned set of a whole allocation"
    );
    ok(unsafe { cuMemFree_v2(p) });
    ok(unsafe { cuMemFree_v2(q) });
}

/// Every implemented entry point, walked with hostile arguments.
#[test]
fn every_entry_point_survives_hostile_arguments() {
    survives("hostile::child_hostile_walk");
}

/// The entry points warpsim implements: every `pub unsafe extern "C" fn` of the crate's
/// sources but the refusing stubs of `unsupported.rs`, and the sets the `memset!` macro
/// makes. Read from the sources, so that a new entry point without a hostile call fails the
/// walk.
fn implemented() -> BTreeSet<String> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() == "unsupported.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("pub unsafe extern \"C\" fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    for width in ["8", "16", "32"] {
        names.insert(format!("cuMemsetD{width}_v2"));
        names.insert(format!("cuMemsetD{width}Async"));
        names.insert(format!("cuMemsetD2D{width}_v2"));
        names.insert(format!("cuMemsetD2D{width}Async"));
    }
    names
}

#[test]
fn child_hostile_walk() {
    if !in_child() {
        return;
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let (mut c, mut p, mut sz, mut n) = (null_mut(), 0u64, 0usize, 0 as c_int);
    let mut u = 0u32;
    let mut h = null_mut();

    // Before cuInit.
    call!(seen, Fails, cuCtxCreate_v2(&mut c, 0, 0));
    call!(seen, Fails, cuMemAlloc_v2(&mut p, 16));
    call!(
        seen,
        Fails,
        cuLaunchKernel(
            BOGUS,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            null_mut(),
            null_mut()
        )
    );
    call!(seen, Fails, cuDriverGetVersion(null_mut()));
    call!(seen, Fails, cuInit(0xffff));
    call!(seen, Code(SUCCESS), cuInit(0));

    // No context current.
    call!(seen, Fails, cuCtxPopCurrent_v2(null_mut()));
    call!(seen, Fails, cuCtxSynchronize());
    call!(seen, Fails, cuMemAlloc_v2(&mut p, 16));
    call!(seen, Fails, cuMemcpyDtoD_v2(0x1000, 0x2000, HUGE));
    call!(seen, Fails, cuStreamCreate(&mut h, 0));

    // Contexts.
    call!(seen, Fails, cuCtxCreate_v2(null_mut(), 0, 0));
    call!(seen, Fails, cuCtxCreate_v2(&mut c, 0, 7));
    call!(seen, Fails, cuCtxCreate_v2(&mut c, u32::MAX, 0));
    call!(seen, Fails, cuCtxCreate_v2(&mut c, 3, 0));
    let mut scratch = [0u64; 16];
    call!(
        seen,
        Fails,
        cuCtxCreate_v3(&mut c, scratch.as_mut_ptr().cast(), 1, 0, 0)
    );
    call!(
        seen,
        Fails,
        cuCtxCreate_v3(null_mut(), null_mut(), -5, 0x100, 0)
    );
    call!(seen, Fails, cuCtxCreate_v4(&mut c, null_mut(), u32::MAX, 0));
    call!(seen, Fails, cuCtxCreate_v4(null_mut(), null_mut(), 0, 0));
    call!(seen, Code(SUCCESS), cuCtxCreate_v2(&mut c, 0, 0));
    let ctx = c;
    call!(seen, Fails, cuCtxDestroy_v2(BOGUS));
    call!(seen, Fails, cuCtxDestroy_v2(null_mut()));
    call!(seen, Fails, cuCtxPushCurrent_v2(BOGUS));
    call!(seen, Fails, cuCtxSetCurrent(BOGUS));
    call!(seen, Fails, cuCtxGetCurrent(null_mut()));
    call!(seen, Fails, cuCtxGetDevice(null_mut()));
    call!(seen, Any, cuCtxSynchronize());
    call!(seen, Fails, cuCtxGetFlags(null_mut()));
    call!(seen, Fails, cuCtxSetFlags(u32::MAX));
    let mut id = 0u64;
    call!(seen, Fails, cuCtxGetId(BOGUS, &mut id));
    call!(seen, Fails, cuCtxGetId(ctx, null_mut()));
    call!(seen, Fails, cuCtxGetApiVersion(BOGUS, &mut u));
    call!(seen, Fails, cuCtxGetApiVersion(ctx, null_mut()));
    call!(seen, Fails, cuCtxGetLimit(null_mut(), 0));
    call!(seen, Fails, cuCtxGetLimit(&mut sz, 9999));
    call!(seen, Fails, cuCtxSetLimit(9999, 0));
    call!(seen, Any, cuCtxSetLimit(0, usize::MAX));
    call!(seen, Fails, cuCtxGetCacheConfig(null_mut()));
    call!(seen, Fails, cuCtxSetCacheConfig(99));
    call!(seen, Fails, cuCtxGetSharedMemConfig(null_mut()));
    call!(seen, Any, cuCtxSetSharedMemConfig(99));
    call!(
        seen,
        Any,
        cuCtxGetStreamPriorityRange(null_mut(), null_mut())
    );
    call!(seen, Fails, cuDevicePrimaryCtxRetain(null_mut(), 0));
    call!(seen, Fails, cuDevicePrimaryCtxRetain(&mut c, 5));
    call!(seen, Fails, cuDevicePrimaryCtxRelease_v2(5));
    call!(seen, Any, cuDevicePrimaryCtxRelease_v2(0));
    call!(seen, Fails, cuDevicePrimaryCtxReset_v2(5));
    call!(seen, Fails, cuDevicePrimaryCtxGetState(5, &mut u, &mut n));
    call!(
        seen,
        Fails,
        cuDevicePrimaryCtxGetState(0, null_mut(), null_mut())
    );
    call!(seen, Fails, cuDevicePrimaryCtxSetFlags_v2(0, u32::MAX));
    call!(seen, Fails, cuDevicePrimaryCtxSetFlags_v2(5, 0));

    // The device and errors.
    let mut dev = 0;
    let mut text = [0 as c_char; 64];
    call!(seen, Fails, cuDeviceGetCount(null_mut()));
    call!(seen, Fails, cuDeviceGet(null_mut(), 0));
    call!(seen, Fails, cuDeviceGet(&mut dev, 1));
    call!(seen, Fails, cuDeviceGet(&mut dev, -1));
    call!(seen, Fails, cuDeviceGetName(null_mut(), 64, 0));
    call!(seen, Any, cuDeviceGetName(text.as_mut_ptr(), -1, 0));
    call!(seen, Fails, cuDeviceGetName(text.as_mut_ptr(), 64, 3));
    call!(seen, Fails, cuDeviceTotalMem_v2(null_mut(), 0));
    call!(seen, Fails, cuDeviceTotalMem_v2(&mut sz, -1));
    call!(
        seen,
        Fails,
        cuDeviceComputeCapability(null_mut(), null_mut(), 0)
    );
    call!(seen, Fails, cuDeviceGetAttribute(&mut n, 99999, 0));
    call!(seen, Fails, cuDeviceGetAttribute(&mut n, -1, 0));
    call!(seen, Fails, cuDeviceGetAttribute(&mut n, 1, 9));
    call!(seen, Fails, cuDeviceGetAttribute(null_mut(), 1, 0));
    let mut uuid = CUuuid::default();
    call!(seen, Fails, cuDeviceGetUuid(null_mut(), 0));
    call!(seen, Fails, cuDeviceGetUuid(&mut uuid, 2));
    call!(seen, Fails, cuDeviceGetUuid_v2(null_mut(), 0));
    call!(seen, Fails, cuDeviceGetPCIBusId(null_mut(), 16, 0));
    call!(seen, Any, cuDeviceGetPCIBusId(text.as_mut_ptr(), -5, 0));
    call!(seen, Fails, cuDeviceGetPCIBusId(text.as_mut_ptr(), 16, 4));
    call!(seen, Fails, cuDeviceGetByPCIBusId(&mut dev, null()));
    call!(
        seen,
        Fails,
        cuDeviceGetByPCIBusId(&mut dev, c"not a bus id".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuDeviceGetByPCIBusId(null_mut(), c"0000:00:00.0".as_ptr())
    );
    call!(seen, Fails, cuDeviceCanAccessPeer(&mut n, 0, 9));
    call!(seen, Fails, cuDeviceCanAccessPeer(null_mut(), 0, 0));
    call!(seen, Fails, cuGetExportTable(null_mut(), null()));
    let mut s: *const c_char = null();
    call!(seen, Fails, cuGetErrorName(12345, &mut s));
    call!(seen, Fails, cuGetErrorName(0, null_mut()));
    call!(seen, Fails, cuGetErrorString(-1, &mut s));
    call!(seen, Fails, cuGetErrorString(0, null_mut()));

    // Modules, libraries, kernels.
    let store = CString::new(STORE).unwrap();
    let garbage = c"this is not PTX {{{";
    let mut m = null_mut();
    call!(
        seen,
        Fails,
        cuModuleLoadData(null_mut(), store.as_ptr().cast())
    );
    call!(seen, Fails, cuModuleLoadData(&mut m, null()));
    call!(
        seen,
        Fails,
        cuModuleLoadData(&mut m, garbage.as_ptr().cast())
    );
    call!(
        seen,
        Fails,
        cuModuleLoadDataEx(
            &mut m,
            store.as_ptr().cast(),
            u32::MAX,
            null_mut(),
            null_mut()
        )
    );
    call!(
        seen,
        Fails,
        cuModuleLoadDataEx(&mut m, garbage.as_ptr().cast(), 0, null_mut(), null_mut())
    );
    call!(
        seen,
        Fails,
        cuModuleLoad(&mut m, c"/nonexistent/warpsim.ptx".as_ptr())
    );
    call!(seen, Fails, cuModuleLoad(&mut m, null()));
    call!(
        seen,
        Fails,
        cuModuleLoadFatBinary(&mut m, store.as_ptr().cast())
    );
    call!(
        seen,
        Code(SUCCESS),
        cuModuleLoadData(&mut m, store.as_ptr().cast())
    );
    let mut f = null_mut();
    call!(
        seen,
        Fails,
        cuModuleGetFunction(&mut f, m, c"nope".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuModuleGetFunction(null_mut(), m, c"store".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuModuleGetFunction(&mut f, BOGUS, c"store".as_ptr())
    );
    call!(seen, Fails, cuModuleGetFunction(&mut f, m, null()));
    call!(
        seen,
        Code(SUCCESS),
        cuModuleGetFunction(&mut f, m, c"store".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuModuleGetGlobal_v2(&mut p, &mut sz, m, c"nope".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuModuleGetGlobal_v2(null_mut(), null_mut(), BOGUS, c"counter".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuModuleGetGlobal_v2(&mut p, &mut sz, m, null())
    );
    call!(seen, Fails, cuModuleGetFunctionCount(null_mut(), m));
    call!(seen, Fails, cuModuleGetFunctionCount(&mut u, BOGUS));
    let mut handles = [null_mut(); 2];
    call!(seen, Fails, cuModuleEnumerateFunctions(null_mut(), 5, m));
    call!(
        seen,
        Fails,
        cuModuleEnumerateFunctions(handles.as_mut_ptr(), 2, BOGUS)
    );
    call!(
        seen,
        Any,
        cuModuleEnumerateFunctions(handles.as_mut_ptr(), 1, m)
    );
    call!(seen, Fails, cuModuleGetLoadingMode(null_mut()));
    call!(seen, Fails, cuModuleUnload(BOGUS));
    let mut lib = null_mut();
    call!(
        seen,
        Fails,
        cuLibraryLoadData(
            null_mut(),
            store.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        )
    );
    call!(
        seen,
        Fails,
        cuLibraryLoadData(
            &mut lib,
            garbage.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        )
    );
    call!(
        seen,
        Fails,
        cuLibraryLoadData(
            &mut lib,
            store.as_ptr().cast(),
            null_mut(),
            null_mut(),
            5,
            null_mut(),
            null_mut(),
            0
        )
    );
    call!(
        seen,
        Fails,
        cuLibraryLoadData(
            &mut lib,
            null(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        )
    );
    call!(
        seen,
        Fails,
        cuLibraryLoadFromFile(
            &mut lib,
            c"/nonexistent/warpsim.ptx".as_ptr(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        )
    );
    call!(
        seen,
        Fails,
        cuLibraryLoadFromFile(
            &mut lib,
            null(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        )
    );
    call!(
        seen,
        Code(SUCCESS),
        cuLibraryLoadData(
            &mut lib,
            store.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        )
    );
    let mut k = null_mut();
    call!(
        seen,
        Fails,
        cuLibraryGetKernel(&mut k, BOGUS, c"store".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuLibraryGetKernel(&mut k, lib, c"nope".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuLibraryGetKernel(null_mut(), lib, c"store".as_ptr())
    );
    call!(
        seen,
        Code(SUCCESS),
        cuLibraryGetKernel(&mut k, lib, c"store".as_ptr())
    );
    call!(seen, Fails, cuLibraryGetModule(null_mut(), lib));
    call!(seen, Fails, cuLibraryGetModule(&mut h, BOGUS));
    call!(
        seen,
        Fails,
        cuLibraryGetGlobal(&mut p, &mut sz, lib, c"nope".as_ptr())
    );
    call!(
        seen,
        Fails,
        cuLibraryGetGlobal(&mut p, &mut sz, BOGUS, c"counter".as_ptr())
    );
    call!(seen, Fails, cuLibraryGetKernelCount(null_mut(), lib));
    call!(seen, Fails, cuLibraryGetKernelCount(&mut u, BOGUS));
    call!(seen, Fails, cuLibraryEnumerateKernels(null_mut(), 3, lib));
    call!(
        seen,
        Fails,
        cuLibraryEnumerateKernels(handles.as_mut_ptr(), 2, BOGUS)
    );
    call!(seen, Fails, cuLibraryUnload(BOGUS));
    call!(seen, Fails, cuKernelGetFunction(null_mut(), k));
    call!(seen, Fails, cuKernelGetFunction(&mut h, BOGUS));
    call!(seen, Fails, cuKernelGetLibrary(&mut h, BOGUS));
    call!(seen, Fails, cuKernelGetLibrary(null_mut(), k));
    call!(seen, Fails, cuFuncGetModule(&mut h, BOGUS));
    call!(seen, Fails, cuFuncGetModule(null_mut(), f));
    call!(seen, Fails, cuFuncGetName(null_mut(), f));
    call!(seen, Fails, cuFuncGetName(&mut s, BOGUS));
    call!(seen, Fails, cuKernelGetName(null_mut(), k));
    call!(seen, Fails, cuKernelGetName(&mut s, BOGUS));
    call!(seen, Fails, cuFuncIsLoaded(null_mut(), f));
    call!(seen, Fails, cuFuncIsLoaded(&mut n, BOGUS));
    call!(seen, Fails, cuFuncLoad(BOGUS));

    // Function attributes and occupancy.
    call!(seen, Fails, cuFuncGetAttribute(null_mut(), 0, f));
    call!(seen, Fails, cuFuncGetAttribute(&mut n, 0, BOGUS));
    call!(seen, Fails, cuFuncGetAttribute(&mut n, 9999, f));
    call!(seen, Fails, cuFuncGetAttribute(&mut n, -1, f));
    call!(seen, Fails, cuFuncSetAttribute(BOGUS, 8, 0));
    call!(seen, Fails, cuFuncSetAttribute(f, 8, -1));
    call!(seen, Fails, cuFuncSetAttribute(f, 8, i32::MAX));
    call!(seen, Fails, cuFuncSetAttribute(f, 9, 101));
    call!(seen, Fails, cuFuncSetAttribute(f, 9999, 0));
    call!(seen, Fails, cuKernelGetAttribute(&mut n, 0, k, 3));
    call!(seen, Fails, cuKernelGetAttribute(&mut n, 0, BOGUS, 0));
    call!(seen, Fails, cuKernelSetAttribute(8, 0, k, 3));
    call!(seen, Fails, cuKernelSetAttribute(8, i32::MIN, k, 0));
    call!(seen, Fails, cuFuncSetCacheConfig(f, 99));
    call!(seen, Fails, cuFuncSetCacheConfig(BOGUS, 0));
    call!(seen, Fails, cuKernelSetCacheConfig(k, 0, 4));
    call!(seen, Fails, cuKernelSetCacheConfig(k, -1, 0));
    call!(seen, Fails, cuFuncSetSharedMemConfig(BOGUS, 0));
    let (mut off, mut size) = (0usize, 0usize);
    call!(
        seen,
        Fails,
        cuFuncGetParamInfo(f, usize::MAX, &mut off, &mut size)
    );
    call!(
        seen,
        Fails,
        cuFuncGetParamInfo(BOGUS, 0, &mut off, &mut size)
    );
    call!(seen, Fails, cuKernelGetParamInfo(k, 3, &mut off, &mut size));
    call!(
        seen,
        Fails,
        cuKernelGetParamInfo(BOGUS, 0, null_mut(), null_mut())
    );
    call!(
        seen,
        Any,
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, 32, usize::MAX)
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxActiveBlocksPerMultiprocessor(null_mut(), f, 32, 0)
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, -1, 0)
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, BOGUS, 32, 0)
    );
    call!(
        seen,
        Any,
        cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &mut n,
            f,
            i32::MAX,
            usize::MAX,
            u32::MAX
        )
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, BOGUS, 32, 0, 0)
    );
    let (mut grid, mut block) = (0 as c_int, 0 as c_int);
    call!(
        seen,
        Any,
        cuOccupancyMaxPotentialBlockSize(&mut grid, &mut block, f, None, usize::MAX, -1)
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxPotentialBlockSize(null_mut(), null_mut(), f, None, 0, 0)
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxPotentialBlockSize(&mut grid, &mut block, BOGUS, None, 0, 0)
    );
    call!(
        seen,
        Any,
        cuOccupancyMaxPotentialBlockSizeWithFlags(
            &mut grid,
            &mut block,
            f,
            None,
            usize::MAX,
            i32::MIN,
            u32::MAX
        )
    );
    call!(
        seen,
        Fails,
        cuOccupancyMaxPotentialBlockSizeWithFlags(&mut grid, &mut block, BOGUS, None, 0, 0, 0)
    );
    call!(
        seen,
        Fails,
        cuOccupancyAvailableDynamicSMemPerBlock(&mut sz, f, 0, 32)
    );
    call!(
        seen,
        Any,
        cuOccupancyAvailableDynamicSMemPerBlock(&mut sz, f, i32::MAX, i32::MAX)
    );
    call!(
        seen,
        Fails,
        cuOccupancyAvailableDynamicSMemPerBlock(null_mut(), f, 1, 32)
    );
    call!(
        seen,
        Fails,
        cuOccupancyAvailableDynamicSMemPerBlock(&mut sz, BOGUS, 1, 32)
    );

    // Memory.
    let mut a = 0u64;
    let mut pitch = 0usize;
    call!(seen, Fails, cuMemAlloc_v2(null_mut(), 16));
    call!(seen, Fails, cuMemAlloc_v2(&mut a, 0));
    call!(seen, Fails, cuMemAlloc_v2(&mut a, usize::MAX));
    call!(
        seen,
        Fails,
        cuMemAllocPitch_v2(&mut a, &mut pitch, usize::MAX, usize::MAX, 4)
    );
    call!(
        seen,
        Fails,
        cuMemAllocPitch_v2(&mut a, &mut pitch, 16, 16, 3)
    );
    call!(
        seen,
        Fails,
        cuMemAllocPitch_v2(null_mut(), &mut pitch, 16, 16, 4)
    );
    call!(seen, Code(SUCCESS), cuMemAlloc_v2(&mut a, 4096));
    let mut b = 0u64;
    call!(seen, Code(SUCCESS), cuMemAlloc_v2(&mut b, 4096));
    call!(seen, Fails, cuMemFree_v2(0x1234));
    call!(seen, Fails, cuMemFree_v2(a + 1));
    call!(seen, Fails, cuMemFree_v2(u64::MAX));
    call!(seen, Fails, cuMemGetInfo_v2(null_mut(), null_mut()));
    call!(
        seen,
        Fails,
        cuMemGetAddressRange_v2(null_mut(), null_mut(), 0x1234)
    );
    call!(
        seen,
        Fails,
        cuMemGetAddressRange_v2(&mut p, &mut sz, u64::MAX)
    );
    let mut host = vec![0u8; 4096];
    let hp = host.as_mut_ptr();
    for n in [HUGE, usize::MAX, 4097] {
        call!(seen, Fails, cuMemcpyHtoD_v2(a, hp.cast(), n));
        call!(seen, Fails, cuMemcpyDtoH_v2(hp.cast(), a, n));
        call!(seen, Fails, cuMemcpyDtoD_v2(a, b, n));
        call!(seen, Fails, cuMemcpy(a, b, n));
        call!(seen, Fails, cuMemcpy(a, hp as u64, n));
        call!(seen, Fails, cuMemcpy(hp as u64, b, n));
        call!(
            seen,
            Fails,
            cuMemcpyHtoDAsync_v2(a, hp.cast(), n, null_mut())
        );
        call!(
            seen,
            Fails,
            cuMemcpyDtoHAsync_v2(hp.cast(), a, n, null_mut())
        );
        call!(seen, Fails, cuMemcpyDtoDAsync_v2(a, b, n, null_mut()));
        call!(seen, Fails, cuMemcpyAsync(a, b, n, null_mut()));
        call!(seen, Fails, cuMemsetD8_v2(a, 1, n));
        call!(seen, Fails, cuMemsetD16_v2(a, 0x1234, n));
        call!(seen, Fails, cuMemsetD32_v2(a, 0x1234_5678, n));
        call!(seen, Fails, cuMemsetD8Async(a, 1, n, null_mut()));
        call!(seen, Fails, cuMemsetD16Async(a, 0x1234, n, null_mut()));
        call!(seen, Fails, cuMemsetD32Async(a, 0x1234_5678, n, null_mut()));
        call!(seen, Fails, cuMemsetD2D8_v2(a, n, 1, 1, 2));
        call!(seen, Fails, cuMemsetD2D16_v2(a, 2, 0x1234, 1, n));
        call!(seen, Fails, cuMemsetD2D32_v2(a, n, 7, n, 2));
        call!(seen, Fails, cuMemsetD2D8Async(a, 1, 1, n, 2, null_mut()));
        call!(
            seen,
            Fails,
            cuMemsetD2D16Async(a, n, 0x1234, 1, 2, null_mut())
        );
        call!(seen, Fails, cuMemsetD2D32Async(a, 4, 7, 1, n, null_mut()));
    }
    // Host to host with a size no host object has.
    call!(seen, Fails, cuMemcpy(hp as u64, hp as u64, usize::MAX));
    // Outside any allocation, NULL host pointers, bogus streams.
    call!(seen, Fails, cuMemcpyHtoD_v2(0x1234, hp.cast(), 4));
    call!(seen, Fails, cuMemcpyHtoD_v2(a, null(), 16));
    call!(seen, Fails, cuMemcpyDtoH_v2(null_mut(), a, 16));
    call!(seen, Fails, cuMemcpyDtoD_v2(a + 4000, b, 200));
    call!(seen, Fails, cuMemcpyDtoD_v2(u64::MAX - 8, b, 16));
    call!(seen, Fails, cuMemcpyHtoDAsync_v2(a, hp.cast(), 16, BOGUS));
    call!(seen, Fails, cuMemcpyDtoHAsync_v2(hp.cast(), a, 16, BOGUS));
    call!(seen, Fails, cuMemcpyDtoDAsync_v2(a, b, 16, BOGUS));
    call!(seen, Fails, cuMemcpyAsync(a, b, 16, BOGUS));
    call!(seen, Fails, cuMemsetD32_v2(a + 2, 1, 1));
    call!(seen, Fails, cuMemsetD8Async(a, 1, 16, BOGUS));
    call!(seen, Fails, cuMemsetD2D8_v2(u64::MAX - 4, 16, 1, 8, 8));
    let mut pinned: *mut c_void = null_mut();
    call!(seen, Fails, cuMemAllocHost_v2(null_mut(), 16));
    call!(seen, Fails, cuMemAllocHost_v2(&mut pinned, 0));
    call!(seen, Fails, cuMemAllocHost_v2(&mut pinned, usize::MAX));
    call!(seen, Fails, cuMemHostAlloc(&mut pinned, 16, 2));
    call!(
        seen,
        Fails,
        cuMemHostAlloc(&mut pinned, isize::MAX as usize, 0)
    );
    call!(seen, Fails, cuMemFreeHost(hp.cast()));
    call!(seen, Fails, cuMemFreeHost(null_mut()));
    call!(seen, Fails, cuMemHostRegister_v2(hp.cast(), usize::MAX, 0));
    call!(seen, Fails, cuMemHostRegister_v2(null_mut(), 16, 0));
    call!(seen, Fails, cuMemHostRegister_v2(hp.cast(), 16, 2));
    call!(seen, Fails, cuMemHostUnregister(hp.cast()));
    call!(
        seen,
        Fails,
        cuMemHostGetDevicePointer_v2(&mut p, hp.cast(), 0)
    );
    call!(seen, Fails, cuMemHostGetFlags(&mut u, hp.cast()));
    call!(seen, Fails, cuMemHostGetFlags(null_mut(), hp.cast()));
    let mut word = 0u64;
    call!(seen, Fails, cuPointerGetAttribute(null_mut(), 1, a));
    call!(
        seen,
        Fails,
        cuPointerGetAttribute((&mut word as *mut u64).cast(), 9999, a)
    );
    call!(
        seen,
        Fails,
        cuPointerGetAttribute((&mut word as *mut u64).cast(), 1, 0x1234)
    );
    call!(
        seen,
        Fails,
        cuPointerGetAttributes(u32::MAX, null(), null(), a)
    );
    let attrs = [1 as c_int, 2];
    let outs = [null_mut::<c_void>(); 2];
    call!(
        seen,
        Fails,
        cuPointerGetAttributes(2, attrs.as_ptr(), outs.as_ptr(), a)
    );

    // Launches.
    let (mut v, mut i) = (1u32, u32::MAX);
    let mut params = [
        (&mut a as *mut u64).cast::<c_void>(),
        (&mut v as *mut u32).cast(),
        (&mut i as *mut u32).cast(),
    ];
    let pp = params.as_mut_ptr();
    call!(
        seen,
        Fails,
        cuLaunchKernel(BOGUS, 1, 1, 1, 1, 1, 1, 0, null_mut(), pp, null_mut())
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, null_mut(), pp, null_mut())
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(
            f,
            1,
            1,
            1,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            0,
            null_mut(),
            pp,
            null_mut()
        )
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(
            f,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            1,
            1,
            1,
            0,
            null_mut(),
            pp,
            null_mut()
        )
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, u32::MAX, null_mut(), pp, null_mut())
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, BOGUS, pp, null_mut())
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut())
    );
    // The store at index u32::MAX faults.
    call!(
        seen,
        Fails,
        cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), pp, null_mut())
    );
    let mut nulls = [null_mut::<c_void>(); 3];
    call!(
        seen,
        Fails,
        cuLaunchKernel(
            f,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            nulls.as_mut_ptr(),
            null_mut()
        )
    );
    let mut buffer = [0u64; 2];
    let mut huge_size = usize::MAX;
    let mut extra = [
        std::ptr::without_provenance_mut(1),
        buffer.as_mut_ptr().cast::<c_void>(),
        std::ptr::without_provenance_mut(2),
        (&mut huge_size as *mut usize).cast(),
        null_mut(),
    ];
    call!(
        seen,
        Fails,
        cuLaunchKernel(
            f,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            null_mut(),
            extra.as_mut_ptr()
        )
    );
    call!(
        seen,
        Fails,
        cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), pp, extra.as_mut_ptr())
    );
    let mut unknown_key = [
        std::ptr::without_provenance_mut::<c_void>(0x77),
        null_mut(),
        null_mut(),
    ];
    call!(
        seen,
        Fails,
        cuLaunchKernel(
            f,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            null_mut(),
            unknown_key.as_mut_ptr()
        )
    );
    let mut config = CUlaunchConfig {
        grid_dim_x: 0,
        grid_dim_y: 1,
        grid_dim_z: 1,
        block_dim_x: 1,
        block_dim_y: 1,
        block_dim_z: 1,
        shared_mem_bytes: 0,
        h_stream: null_mut(),
        attrs: null_mut(),
        num_attrs: 0,
    };
    call!(seen, Fails, cuLaunchKernelEx(null(), f, pp, null_mut()));
    call!(seen, Fails, cuLaunchKernelEx(&config, f, pp, null_mut()));
    config.grid_dim_x = 1;
    config.num_attrs = u32::MAX;
    call!(seen, Fails, cuLaunchKernelEx(&config, f, pp, null_mut()));
    config.num_attrs = 0;
    call!(
        seen,
        Fails,
        cuLaunchKernelEx(&config, BOGUS, pp, null_mut())
    );
    call!(
        seen,
        Fails,
        cuLaunchCooperativeKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), pp)
    );

    // The linker.
    let mut link = null_mut();
    call!(
        seen,
        Fails,
        cuLinkCreate_v2(0, null_mut(), null_mut(), null_mut())
    );
    call!(
        seen,
        Fails,
        cuLinkCreate_v2(u32::MAX, null_mut(), null_mut(), &mut link)
    );
    call!(
        seen,
        Code(SUCCESS),
        cuLinkCreate_v2(0, null_mut(), null_mut(), &mut link)
    );
    let (g, gl) = (garbage.as_ptr().cast_mut().cast(), garbage.to_bytes().len());
    call!(
        seen,
        Fails,
        cuLinkAddData_v2(BOGUS, 1, g, gl, c"g".as_ptr(), 0, null_mut(), null_mut())
    );
    call!(
        seen,
        Fails,
        cuLinkAddData_v2(
            link,
            1,
            null_mut(),
            100,
            c"g".as_ptr(),
            0,
            null_mut(),
            null_mut()
        )
    );
    call!(
        seen,
        Fails,
        cuLinkAddData_v2(
            link,
            1,
            g,
            usize::MAX,
            c"g".as_ptr(),
            0,
            null_mut(),
            null_mut()
        )
    );
    call!(
        seen,
        Fails,
        cuLinkAddData_v2(link, 1, g, gl, c"g".as_ptr(), 0, null_mut(), null_mut())
    );
    call!(
        seen,
        Fails,
        cuLinkAddData_v2(link, 99, g, gl, c"g".as_ptr(), 0, null_mut(), null_mut())
    );
    call!(
        seen,
        Fails,
        cuLinkAddFile_v2(
            link,
            1,
            c"/nonexistent/warpsim.ptx".as_ptr(),
            0,
            null_mut(),
            null_mut()
        )
    );
    call!(
        seen,
        Fails,
        cuLinkAddFile_v2(link, 1, null(), 0, null_mut(), null_mut())
    );
    call!(
        seen,
        Fails,
        cuLinkAddFile_v2(BOGUS, 1, c"/dev/null".as_ptr(), 0, null_mut(), null_mut())
    );
    let mut image = null_mut();
    call!(seen, Fails, cuLinkComplete(BOGUS, &mut image, &mut sz));
    call!(seen, Fails, cuLinkComplete(link, &mut image, &mut sz));
    call!(seen, Fails, cuLinkDestroy(BOGUS));
    call!(seen, Code(SUCCESS), cuLinkDestroy(link));

    // Entry points by name.
    let mut pfn: *const c_void = null();
    call!(seen, Fails, cuGetProcAddress(null(), &mut pfn, 12000, 0));
    call!(
        seen,
        Fails,
        cuGetProcAddress(c"cuNope".as_ptr(), &mut pfn, 12000, 0)
    );
    call!(
        seen,
        Fails,
        cuGetProcAddress(c"cuMemAlloc".as_ptr(), null_mut(), 12000, 0)
    );
    call!(
        seen,
        Fails,
        cuGetProcAddress(c"cuMemAlloc".as_ptr(), &mut pfn, i32::MIN, u64::MAX)
    );
    call!(
        seen,
        Fails,
        cuGetProcAddress_v2(null(), &mut pfn, 12000, 0, null_mut())
    );
    call!(
        seen,
        Fails,
        cuGetProcAddress_v2(c"cuNope".as_ptr(), &mut pfn, 12000, 0, &mut n)
    );

    // Streams and events.
    let (mut st, mut ev) = (null_mut(), null_mut());
    call!(seen, Fails, cuStreamCreate(null_mut(), 0));
    call!(seen, Fails, cuStreamCreate(&mut st, 99));
    call!(seen, Fails, cuStreamCreateWithPriority(&mut st, 99, 0));
    call!(
        seen,
        Fails,
        cuStreamCreateWithPriority(null_mut(), 0, i32::MIN)
    );
    call!(seen, Code(SUCCESS), cuStreamCreate(&mut st, 0));
    call!(seen, Fails, cuEventCreate(null_mut(), 0));
    call!(seen, Fails, cuEventCreate(&mut ev, 0xffff));
    call!(seen, Code(SUCCESS), cuEventCreate(&mut ev, 0));
    call!(seen, Fails, cuStreamDestroy_v2(BOGUS));
    call!(seen, Fails, cuStreamSynchronize(BOGUS));
    call!(seen, Fails, cuStreamQuery(BOGUS));
    call!(seen, Fails, cuStreamWaitEvent(st, BOGUS, 0));
    call!(seen, Fails, cuStreamWaitEvent(BOGUS, ev, 0));
    call!(seen, Fails, cuStreamGetFlags(BOGUS, &mut u));
    call!(seen, Fails, cuStreamGetFlags(st, null_mut()));
    call!(seen, Fails, cuStreamGetPriority(BOGUS, &mut n));
    call!(seen, Fails, cuStreamGetPriority(st, null_mut()));
    call!(seen, Fails, cuStreamGetId(BOGUS, &mut id));
    call!(seen, Fails, cuStreamGetId(st, null_mut()));
    call!(seen, Fails, cuStreamGetCtx(BOGUS, &mut c));
    call!(seen, Fails, cuStreamGetCtx(st, null_mut()));
    call!(seen, Fails, cuStreamGetCtx_v2(BOGUS, &mut c, &mut h));
    call!(seen, Fails, cuStreamGetCtx_v2(st, null_mut(), null_mut()));
    call!(seen, Fails, cuStreamAddCallback(st, None, null_mut(), 0));
    call!(seen, Fails, cuStreamAddCallback(BOGUS, None, null_mut(), 0));
    call!(seen, Fails, cuLaunchHostFunc(st, None, null_mut()));
    call!(seen, Fails, cuLaunchHostFunc(BOGUS, None, null_mut()));
    call!(seen, Fails, cuEventRecord(BOGUS, st));
    call!(seen, Fails, cuEventRecord(ev, BOGUS));
    call!(seen, Fails, cuEventRecordWithFlags(BOGUS, st, 0));
    call!(seen, Fails, cuEventRecordWithFlags(ev, BOGUS, u32::MAX));
    call!(seen, Fails, cuEventQuery(BOGUS));
    call!(seen, Fails, cuEventSynchronize(BOGUS));
    let mut ms = 0f32;
    call!(seen, Fails, cuEventElapsedTime(null_mut(), ev, ev));
    call!(seen, Fails, cuEventElapsedTime(&mut ms, BOGUS, ev));
    call!(seen, Fails, cuEventElapsedTime(&mut ms, ev, ev));
    call!(seen, Fails, cuEventElapsedTime_v2(null_mut(), ev, ev));
    call!(seen, Fails, cuEventElapsedTime_v2(&mut ms, ev, BOGUS));
    call!(seen, Fails, cuEventDestroy_v2(BOGUS));

    // Everything is still usable: the refused calls changed nothing.
    let data: Vec<u8> = (0..4096).map(|x| x as u8).collect();
    ok(unsafe { cuMemcpyHtoD_v2(a, data.as_ptr().cast(), 4096) });
    ok(unsafe { cuMemcpyDtoD_v2(b, a, 4096) });
    assert_eq!(download::<u8>(b, 4096), data);
    call!(seen, Code(SUCCESS), cuEventDestroy_v2(ev));
    call!(seen, Code(SUCCESS), cuStreamDestroy_v2(st));
    call!(seen, Code(SUCCESS), cuMemFree_v2(a));
    call!(seen, Code(SUCCESS), cuMemFree_v2(b));
    call!(seen, Code(SUCCESS), cuLibraryUnload(lib));
    call!(seen, Code(SUCCESS), cuModuleUnload(m));
    call!(seen, Code(SUCCESS), cuCtxDestroy_v2(ctx));
    // Its own context gone, the thread has none current.
    call!(seen, Fails, cuCtxGetApiVersion(ctx, &mut u));

    let missing: Vec<String> = implemented()
        .into_iter()
        .filter(|name| !seen.contains(name.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "entry points the hostile walk does not call: {missing:?}"
    );
    drop(host);
}

/// The `cuda_calls` fuzz target's harness (`warpsim_cuda::fuzzing::calls`), as stable CI runs
/// it: over every committed seed (`fuzz/corpus/cuda_calls/`), every committed reproducer
/// (`fuzz/regressions/cuda_calls/`) and deterministic random inputs.
#[test]
fn fuzzed_call_sequences_survive() {
    survives("hostile::child_fuzzed_call_sequences");
}

/// Random inputs after the committed ones.
const RANDOM_INPUTS: usize = 300;

#[test]
fn child_fuzzed_call_sequences() {
    if !in_child() {
        return;
    }
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in ["corpus/cuda_calls", "regressions/cuda_calls"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir)) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    inputs.sort();
    assert!(inputs.len() >= 4, "the committed seeds: {inputs:?}");
    // SplitMix64, seeded with no clock: the same inputs on every run, of 1 to 1024 bytes.
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for k in 0..RANDOM_INPUTS {
        let len = 1 + (next() % 1024) as usize;
        let bytes = (0..len).map(|_| next() as u8).collect();
        inputs.push((format!("random input {k}"), bytes));
    }
    for (name, bytes) in &inputs {
        eprintln!("hostile: fuzz {name}");
        warpsim_cuda::fuzzing::calls(bytes);
    }
}
