//! Launches: both argument forms, argument errors, faults, shared memory limits.

use crate::common::*;

fn saxpy_args(n: &mut i32, a: &mut f32, x: &mut u64, y: &mut u64) -> [*mut c_void; 4] {
    [
        (n as *mut i32).cast(),
        (a as *mut f32).cast(),
        (x as *mut u64).cast(),
        (y as *mut u64).cast(),
    ]
}

#[test]
fn saxpy_with_kernel_params_and_with_the_extra_buffer() {
    let _c = Ctx::new();
    unsafe {
        let m = load(SAXPY);
        let f = function(m, "saxpy");
        let xs: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        let (mut x, mut y) = (upload(&xs), upload(&vec![1.0f32; 1000]));
        let (mut n, mut a) = (1000i32, 2.0f32);
        let mut params = saxpy_args(&mut n, &mut a, &mut x, &mut y);
        ok(cuLaunchKernel(
            f,
            4,
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
        // The same parameters at their ABI offsets: 0, 4, 8, 16.
        #[repr(C)]
        struct Params(i32, f32, u64, u64);
        let mut buffer = Params(1000, 2.0, x, y);
        let mut size = std::mem::size_of::<Params>();
        let mut extra = [
            std::ptr::without_provenance_mut(1),
            (&mut buffer as *mut Params).cast(),
            std::ptr::without_provenance_mut(2),
            (&mut size as *mut usize).cast(),
            null_mut(),
        ];
        ok(cuLaunchKernel(
            f,
            4,
            1,
            1,
            256,
            1,
            1,
            0,
            null_mut(),
            null_mut(),
            extra.as_mut_ptr(),
        ));
        let got = download::<f32>(y, 1000);
        let want: Vec<f32> = xs.iter().map(|v| 1.0 + 2.0 * v + 2.0 * v).collect();
        assert_eq!(got, want);
        // A buffer smaller than the parameters, neither form, a bad handle.
        // SAFETY: `extra[3]` points at `size`.
        *extra[3].cast::<usize>() = 16;
        expect(
            cuLaunchKernel(
                f,
                4,
                1,
                1,
                256,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                extra.as_mut_ptr(),
            ),
            INVALID_VALUE,
        );
        expect(
            cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, null_mut(), null_mut(), null_mut()),
            INVALID_VALUE,
        );
        expect(
            cuLaunchKernel(
                0x999 as Handle,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            ),
            INVALID_HANDLE,
        );
        expect(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                2048,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            ),
            INVALID_VALUE,
        );
        expect(
            cuLaunchKernel(
                f,
                0,
                1,
                1,
                32,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            ),
            INVALID_VALUE,
        );
        ok(cuModuleUnload(m));
    }
}

#[test]
fn launch_kernel_ex_takes_a_config_and_refuses_cooperative_launches() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "store");
        let mut p = upload(&[0u32; 4]);
        let (mut v, mut i) = (99u32, 3u32);
        let mut params = [
            (&mut p as *mut u64).cast::<c_void>(),
            (&mut v as *mut u32).cast(),
            (&mut i as *mut u32).cast(),
        ];
        let mut attr = warpsim_cuda::types::CUlaunchAttribute {
            id: 8,
            pad: [0; 4],
            value: [0; 64],
        };
        let mut config = warpsim_cuda::types::CUlaunchConfig {
            grid_dim_x: 1,
            grid_dim_y: 1,
            grid_dim_z: 1,
            block_dim_x: 1,
            block_dim_y: 1,
            block_dim_z: 1,
            shared_mem_bytes: 0,
            h_stream: null_mut(),
            attrs: &mut attr,
            num_attrs: 1,
        };
        ok(cuLaunchKernelEx(
            &config,
            f,
            params.as_mut_ptr(),
            null_mut(),
        ));
        assert_eq!(download::<u32>(p, 4), [0, 0, 0, 99]);
        attr.id = 2;
        attr.value[0] = 1;
        config.attrs = &mut attr;
        expect(
            cuLaunchKernelEx(&config, f, params.as_mut_ptr(), null_mut()),
            NOT_SUPPORTED,
        );
        expect(
            cuLaunchKernelEx(null(), f, params.as_mut_ptr(), null_mut()),
            INVALID_VALUE,
        );
        ok(cuMemFree_v2(p));
        ok(cuModuleUnload(m));
    }
}

#[test]
fn a_fault_is_an_error_and_the_context_stays_usable() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "store");
        let mut p = upload(&[0u32; 4]);
        let (mut v, mut i) = (5u32, 4u32);
        let mut params = [
            (&mut p as *mut u64).cast::<c_void>(),
            (&mut v as *mut u32).cast(),
            (&mut i as *mut u32).cast(),
        ];
        expect(
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
                params.as_mut_ptr(),
                null_mut(),
            ),
            ILLEGAL_ADDRESS,
        );
        // SAFETY: `params[2]` points at `i`.
        *params[2].cast::<u32>() = 2;
        ok(cuLaunchKernel(
            f,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        ));
        assert_eq!(download::<u32>(p, 4), [0, 0, 5, 0]);
        ok(cuCtxSynchronize());
        ok(cuMemFree_v2(p));
        ok(cuModuleUnload(m));
    }
}

#[test]
fn shared_memory_beyond_48_kib_needs_the_opt_in_attribute() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "shared_user");
        let mut p = upload(&[0u32]);
        let mut params = [(&mut p as *mut u64).cast::<c_void>()];
        let mut dynamic = 0;
        ok(cuFuncGetAttribute(&mut dynamic, 8, f));
        assert_eq!(dynamic, 48 * 1024 - 40000);
        expect(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                10000,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            ),
            INVALID_VALUE,
        );
        ok(cuFuncSetAttribute(f, 8, 20000));
        ok(cuLaunchKernel(
            f,
            1,
            1,
            1,
            32,
            1,
            1,
            10000,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        ));
        assert_eq!(download::<u32>(p, 1), [5]);
        expect(cuFuncSetAttribute(f, 8, 200_000), INVALID_VALUE);
        ok(cuMemFree_v2(p));
        ok(cuModuleUnload(m));
    }
}

/// The arguments of `store(p, 7, 1)`: `p[1] = 7`.
fn store_args(p: &mut u64, v: &mut u32, i: &mut u32) -> [*mut c_void; 3] {
    [
        (p as *mut u64).cast(),
        (v as *mut u32).cast(),
        (i as *mut u32).cast(),
    ]
}

/// Launches `f` on one thread with `params` and `extra`.
unsafe fn launch_one(f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult {
    unsafe { cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), params, extra) }
}

/// CUDA's documentation: kernel parameters given both through `kernelParams` and `extra` are
/// `CUDA_ERROR_INVALID_VALUE`; neither is read and the kernel does not run.
#[test]
fn kernel_params_and_extra_together_are_refused() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "store");
        let mut p = upload(&[0u32; 4]);
        let (mut v, mut i) = (7u32, 1u32);
        let mut params = store_args(&mut p, &mut v, &mut i);
        #[repr(C)]
        struct Params(u64, u32, u32);
        let mut buffer = Params(p, 9, 2);
        let mut size = std::mem::size_of::<Params>();
        let mut extra = [
            std::ptr::without_provenance_mut(1),
            (&mut buffer as *mut Params).cast(),
            std::ptr::without_provenance_mut(2),
            (&mut size as *mut usize).cast(),
            null_mut(),
        ];
        expect(
            launch_one(f, params.as_mut_ptr(), extra.as_mut_ptr()),
            INVALID_VALUE,
        );
        assert_eq!(download::<u32>(p, 4), [0, 0, 0, 0], "nothing ran");
        ok(launch_one(f, params.as_mut_ptr(), null_mut()));
        ok(launch_one(f, null_mut(), extra.as_mut_ptr()));
        assert_eq!(download::<u32>(p, 4), [0, 7, 9, 0]);
        ok(cuMemFree_v2(p));
        ok(cuModuleUnload(m));
    }
}

/// A module's function runs in the module's context: launched while another context is
/// current it is `CUDA_ERROR_INVALID_HANDLE`. A library's kernel belongs to no context and
/// runs in whichever is current.
#[test]
fn a_function_of_another_context_is_refused() {
    let a = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "store");
        let mut p = upload(&[0u32; 4]);
        let (mut v, mut i) = (7u32, 1u32);
        let mut params = store_args(&mut p, &mut v, &mut i);
        let mut b = null_mut();
        ok(cuCtxCreate_v2(&mut b, 0, 0));
        expect(
            launch_one(f, params.as_mut_ptr(), null_mut()),
            INVALID_HANDLE,
        );
        assert_eq!(download::<u32>(p, 4), [0, 0, 0, 0], "nothing ran");
        let lib = load_library(STORE);
        let mut k = null_mut();
        ok(cuLibraryGetKernel(&mut k, lib, c"store".as_ptr()));
        ok(launch_one(k, params.as_mut_ptr(), null_mut()));
        assert_eq!(download::<u32>(p, 4), [0, 7, 0, 0]);
        ok(cuCtxDestroy_v2(b));
        let mut current = null_mut();
        ok(cuCtxGetCurrent(&mut current));
        assert_eq!(current, a.0);
        *params[2].cast::<u32>() = 2;
        ok(launch_one(f, params.as_mut_ptr(), null_mut()));
        assert_eq!(download::<u32>(p, 4), [0, 7, 7, 0]);
        ok(cuLibraryUnload(lib));
        ok(cuMemFree_v2(p));
        ok(cuModuleUnload(m));
    }
}
