//! Contexts: explicit ones on each thread's stack, the primary context, what needs a context.

use crate::common::*;

#[test]
fn without_a_current_context_work_is_refused() {
    init();
    unsafe {
        let mut p = 0;
        let mut c = null_mut();
        ok(cuCtxGetCurrent(&mut c));
        assert!(c.is_null());
        expect(cuMemAlloc_v2(&mut p, 16), INVALID_CONTEXT);
        expect(cuCtxSynchronize(), INVALID_CONTEXT);
        let mut s = null_mut();
        expect(cuStreamCreate(&mut s, 0), INVALID_CONTEXT);
        let mut dev = 9;
        expect(cuCtxGetDevice(&mut dev), INVALID_CONTEXT);
    }
}

#[test]
fn contexts_stack_per_thread() {
    let a = Ctx::new();
    unsafe {
        let mut b = null_mut();
        ok(cuCtxCreate_v2(&mut b, 0, 0));
        let mut c = null_mut();
        ok(cuCtxGetCurrent(&mut c));
        assert_eq!(c, b, "a new context is current");
        let mut popped = null_mut();
        ok(cuCtxPopCurrent_v2(&mut popped));
        assert_eq!(popped, b);
        ok(cuCtxGetCurrent(&mut c));
        assert_eq!(c, a.0);
        ok(cuCtxPushCurrent_v2(b));
        ok(cuCtxSetCurrent(a.0));
        ok(cuCtxGetCurrent(&mut c));
        assert_eq!(c, a.0, "SetCurrent replaces the top");
        let other = b as usize;
        let seen = std::thread::spawn(move || {
            let mut c = null_mut();
            ok(cuCtxGetCurrent(&mut c));
            ok(cuCtxPushCurrent_v2(other as Handle));
            let mut dev = -1;
            ok(cuCtxGetDevice(&mut dev));
            c as usize
        })
        .join()
        .unwrap();
        assert_eq!(seen, 0, "another thread has no current context");
        ok(cuCtxDestroy_v2(b));
        expect(cuCtxDestroy_v2(b), INVALID_CONTEXT);
        expect(cuCtxPushCurrent_v2(b), INVALID_CONTEXT);
        expect(cuCtxPushCurrent_v2(0x4321 as Handle), INVALID_CONTEXT);
        let (mut flags, mut version) = (9, 0);
        ok(cuCtxGetFlags(&mut flags));
        assert_eq!(flags, 0);
        ok(cuCtxGetApiVersion(a.0, &mut version));
        assert_eq!(version, 12090);
        let mut stack = 0usize;
        ok(cuCtxGetLimit(&mut stack, 0));
        assert_eq!(stack, 1024);
        ok(cuCtxSetLimit(0, 4096));
        ok(cuCtxGetLimit(&mut stack, 0));
        assert_eq!(stack, 4096);
        expect(cuCtxSetLimit(77, 1), 215);
    }
}

#[test]
fn destroying_a_context_frees_its_memory() {
    let _outer = Ctx::new();
    unsafe {
        let (mut free, mut total) = (0usize, 0usize);
        ok(cuMemGetInfo_v2(&mut free, &mut total));
        assert!(free <= total && total > 0);
        let mut c = null_mut();
        ok(cuCtxCreate_v2(&mut c, 0, 0));
        let mut p = 0;
        ok(cuMemAlloc_v2(&mut p, 1 << 20));
        let mut attr = 0u32;
        ok(cuPointerGetAttribute((&mut attr as *mut u32).cast(), 2, p));
        assert_eq!(attr, 2, "device memory");
        ok(cuCtxDestroy_v2(c));
        expect(
            cuPointerGetAttribute((&mut attr as *mut u32).cast(), 2, p),
            INVALID_VALUE,
        );
    }
}

#[test]
fn the_primary_context_is_retained_and_released_by_count() {
    init();
    unsafe {
        let (mut flags, mut active) = (0u32, 0);
        let (mut p1, mut p2) = (null_mut(), null_mut());
        ok(cuDevicePrimaryCtxRetain(&mut p1, 0));
        ok(cuDevicePrimaryCtxRetain(&mut p2, 0));
        assert_eq!(p1, p2);
        ok(cuDevicePrimaryCtxGetState(0, &mut flags, &mut active));
        assert_eq!(active, 1);
        ok(cuCtxPushCurrent_v2(p1));
        let mut ptr = 0;
        ok(cuMemAlloc_v2(&mut ptr, 64));
        expect(cuCtxDestroy_v2(p1), INVALID_VALUE);
        ok(cuDevicePrimaryCtxReset_v2(0));
        let mut attr = 0u32;
        expect(
            cuPointerGetAttribute((&mut attr as *mut u32).cast(), 2, ptr),
            INVALID_VALUE,
        );
        ok(cuDevicePrimaryCtxRelease_v2(0));
        ok(cuDevicePrimaryCtxRelease_v2(0));
        expect(cuDevicePrimaryCtxRelease_v2(0), INVALID_CONTEXT);
        expect(cuMemAlloc_v2(&mut ptr, 64), INVALID_CONTEXT);
        let mut popped = null_mut();
        ok(cuCtxPopCurrent_v2(&mut popped));
        expect(cuDevicePrimaryCtxRetain(&mut p1, 2), INVALID_DEVICE);
    }
}

/// Flags CUDA does not define, or two scheduling policies at once, are
/// `CUDA_ERROR_INVALID_VALUE` wherever context flags are given, and nothing is made or changed.
#[test]
fn undefined_context_flags_are_refused() {
    let _c = Ctx::new();
    unsafe {
        let mut before = null_mut();
        ok(cuCtxGetCurrent(&mut before));
        for bad in [0x100, 0x8000_0000, u32::MAX, 1 | 2, 2 | 4] {
            let mut c = null_mut();
            expect(cuCtxCreate_v2(&mut c, bad, 0), INVALID_VALUE);
            assert!(c.is_null(), "no context for flags {bad:#x}");
            expect(cuCtxCreate_v3(&mut c, null_mut(), 0, bad, 0), INVALID_VALUE);
            expect(cuCtxCreate_v4(&mut c, null_mut(), bad, 0), INVALID_VALUE);
            expect(cuCtxSetFlags(bad), INVALID_VALUE);
            expect(cuDevicePrimaryCtxSetFlags_v2(0, bad), INVALID_VALUE);
        }
        let mut now = null_mut();
        ok(cuCtxGetCurrent(&mut now));
        assert_eq!(now, before, "no context was pushed");
        let mut flags = 9;
        ok(cuCtxGetFlags(&mut flags));
        assert_eq!(flags, 0, "the flags are unchanged");
        // Every defined flag together with one policy is accepted.
        let mut c = null_mut();
        ok(cuCtxCreate_v2(&mut c, 0xf8 | 4, 0));
        ok(cuCtxDestroy_v2(c));
    }
}
