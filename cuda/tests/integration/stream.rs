//! Streams and events: in order, at submission; callbacks at once; event timing rules.

use crate::common::*;

unsafe extern "C" fn count(_s: Handle, status: CUresult, data: *mut c_void) {
    assert_eq!(status, 0);
    // SAFETY: the test passes a pointer to its counter.
    unsafe { *data.cast::<u32>() += 1 };
}

unsafe extern "C" fn count_host(data: *mut c_void) {
    // SAFETY: the test passes a pointer to its counter.
    unsafe { *data.cast::<u32>() += 10 };
}

#[test]
fn streams_are_idle_and_callbacks_run_at_once() {
    let _c = Ctx::new();
    unsafe {
        let mut s = null_mut();
        ok(cuStreamCreate(&mut s, 1));
        let mut flags = 0;
        ok(cuStreamGetFlags(s, &mut flags));
        assert_eq!(flags, 1);
        ok(cuStreamQuery(s));
        ok(cuStreamSynchronize(s));
        ok(cuStreamSynchronize(null_mut()));
        let mut n = 0u32;
        ok(cuStreamAddCallback(
            s,
            Some(count),
            (&mut n as *mut u32).cast(),
            0,
        ));
        ok(cuLaunchHostFunc(
            s,
            Some(count_host),
            (&mut n as *mut u32).cast(),
        ));
        assert_eq!(n, 11);
        ok(cuStreamDestroy_v2(s));
        expect(cuStreamQuery(s), INVALID_HANDLE);
        expect(cuStreamDestroy_v2(s), INVALID_HANDLE);
    }
}

#[test]
fn events_time_what_ran_between_them() {
    let _c = Ctx::new();
    unsafe {
        let (mut a, mut b, mut untimed) = (null_mut(), null_mut(), null_mut());
        ok(cuEventCreate(&mut a, 0));
        ok(cuEventCreate(&mut b, 0));
        ok(cuEventCreate(&mut untimed, 2));
        let mut ms = -1.0f32;
        expect(cuEventElapsedTime(&mut ms, a, b), INVALID_HANDLE);
        ok(cuEventQuery(a));
        ok(cuEventRecord(a, null_mut()));
        let m = load(SAXPY);
        let f = function(m, "saxpy");
        let (mut x, mut y) = (upload(&[1.0f32; 256]), upload(&[1.0f32; 256]));
        let (mut n, mut alpha) = (256i32, 1.0f32);
        let mut params = [
            (&mut n as *mut i32).cast::<c_void>(),
            (&mut alpha as *mut f32).cast(),
            (&mut x as *mut u64).cast(),
            (&mut y as *mut u64).cast(),
        ];
        ok(cuLaunchKernel(
            f,
            1,
            1,
            1,
            256,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        ));
        ok(cuEventRecord(b, null_mut()));
        ok(cuEventSynchronize(b));
        ok(cuEventElapsedTime(&mut ms, a, b));
        assert!(ms >= 0.0, "functional mode times on the host clock: {ms}");
        ok(cuEventRecord(untimed, null_mut()));
        expect(cuEventElapsedTime(&mut ms, a, untimed), INVALID_HANDLE);
        ok(cuStreamWaitEvent(null_mut(), b, 0));
        for e in [a, b, untimed] {
            ok(cuEventDestroy_v2(e));
        }
        expect(cuEventQuery(a), INVALID_HANDLE);
        ok(cuMemFree_v2(x));
        ok(cuMemFree_v2(y));
        ok(cuModuleUnload(m));
    }
}
