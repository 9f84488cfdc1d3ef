//! `cuGetProcAddress`: names and versions to the versioned entry points; unsupported ones
//! resolve to functions that refuse.

use crate::common::*;

fn get(name: &CStr, version: c_int, flags: u64) -> (CUresult, *const c_void, c_int) {
    let mut f: *const c_void = null();
    let mut status = -1;
    // SAFETY: valid pointers.
    let r = unsafe { cuGetProcAddress_v2(name.as_ptr(), &mut f, version, flags, &mut status) };
    (r, f, status)
}

#[test]
fn names_resolve_to_the_variant_of_the_callers_version() {
    let (r, f, status) = get(c"cuMemAlloc", 12000, 0);
    ok(r);
    assert_eq!(status, 0);
    assert_eq!(f, cuMemAlloc_v2 as *const c_void);
    let (r, f, status) = get(c"cuMemAlloc", 2000, 0);
    expect(r, NOT_FOUND);
    assert!(f.is_null());
    assert_eq!(status, 2, "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT");
    let (r, _, status) = get(c"cuNoSuchFunction", 12000, 0);
    expect(r, NOT_FOUND);
    assert_eq!(status, 1, "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND");
    // Per-thread default-stream variants are the same functions.
    let (r, f, _) = get(c"cuMemcpyHtoD", 12000, 2);
    ok(r);
    assert_eq!(f, cuMemcpyHtoD_v2 as *const c_void);
    let (_, f, _) = get(c"cuCtxCreate", 3020, 0);
    assert_eq!(f, cuCtxCreate_v2 as *const c_void);
    let (_, f, _) = get(c"cuCtxCreate", 12050, 0);
    assert_eq!(f, cuCtxCreate_v4 as *const c_void);
    let (_, f, _) = get(c"cuGetProcAddress", 12000, 0);
    assert_eq!(f, cuGetProcAddress_v2 as *const c_void);
    let (_, f, _) = get(c"cuGetProcAddress", 11030, 0);
    assert_eq!(f, cuGetProcAddress as *const c_void);
}

#[test]
fn an_unsupported_entry_point_resolves_and_refuses() {
    let (r, f, _) = get(c"cuGraphCreate", 12000, 0);
    ok(r);
    assert!(!f.is_null());
    // SAFETY: an unsupported entry point ignores its arguments.
    let refused =
        unsafe { std::mem::transmute::<*const c_void, unsafe extern "C" fn() -> CUresult>(f)() };
    expect(refused, NOT_SUPPORTED);
}

#[test]
fn the_table_is_consistent() {
    let mut seen = std::collections::HashSet::new();
    for e in TABLE {
        assert!(
            seen.insert((e.name, e.version)),
            "{} {} twice",
            e.name,
            e.version
        );
        assert!(
            e.symbol.starts_with(e.name),
            "{} under {}",
            e.symbol,
            e.name
        );
        assert!(!e.function.is_null());
    }
    for name in [
        "cuInit",
        "cuLaunchKernel",
        "cuLaunchKernelEx",
        "cuLibraryLoadData",
        "cuMemcpyDtoHAsync",
        "cuEventElapsedTime",
        "cuOccupancyMaxPotentialBlockSize",
        "cuLinkComplete",
    ] {
        let c = CString::new(name).unwrap();
        ok(get(&c, 12090, 0).0);
    }
}
