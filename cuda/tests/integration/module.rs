//! Modules and libraries: PTX in, binaries refused, kernels and variables by name.

use crate::common::*;

#[test]
fn kernels_and_variables_are_found_by_name() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "store");
        assert_eq!(function(m, "store"), f, "one handle per kernel");
        let mut g = null_mut();
        expect(
            cuModuleGetFunction(&mut g, m, c"missing".as_ptr()),
            NOT_FOUND,
        );
        let (mut addr, mut size) = (0, 0usize);
        ok(cuModuleGetGlobal_v2(
            &mut addr,
            &mut size,
            m,
            c"counter".as_ptr(),
        ));
        assert_eq!(size, 16);
        assert_eq!(download::<u32>(addr, 4), [7, 8, 9, 10]);
        ok(cuModuleGetGlobal_v2(
            null_mut(),
            &mut size,
            m,
            c"counter".as_ptr(),
        ));
        expect(
            cuModuleGetGlobal_v2(&mut addr, &mut size, m, c"nothing".as_ptr()),
            NOT_FOUND,
        );
        let mut n = 0u32;
        ok(cuModuleGetFunctionCount(&mut n, m));
        assert_eq!(n, 2);
        let mut name: *const c_char = null();
        ok(cuFuncGetName(&mut name, f));
        assert_eq!(CStr::from_ptr(name).to_str().unwrap(), "store");
        ok(cuModuleUnload(m));
        expect(cuModuleUnload(m), INVALID_HANDLE);
        expect(
            cuModuleGetFunction(&mut g, m, c"store".as_ptr()),
            INVALID_HANDLE,
        );
        expect(cuFuncGetName(&mut name, f), INVALID_HANDLE);
    }
}

#[test]
fn binary_images_are_refused_and_bad_ptx_fills_the_error_log() {
    let _c = Ctx::new();
    unsafe {
        let mut m = null_mut();
        expect(
            cuModuleLoadData(&mut m, c"\x7fELF\x02\x01\x01".as_ptr().cast()),
            NOT_SUPPORTED,
        );
        let fatbin = [0x50u8, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0];
        expect(
            cuModuleLoadData(&mut m, fatbin.as_ptr().cast()),
            NOT_SUPPORTED,
        );
        let wrapper = [0xB1u8, 0x43, 0x62, 0x46, 1, 0, 0, 0];
        expect(
            cuModuleLoadData(&mut m, wrapper.as_ptr().cast()),
            NOT_SUPPORTED,
        );
        let bad =
            c".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() { bogus.op; }\n";
        let mut log = [0 as c_char; 512];
        let mut options = [5 as c_int, 6];
        let mut values = [log.as_mut_ptr().cast::<c_void>(), 512usize as *mut c_void];
        expect(
            cuModuleLoadDataEx(
                &mut m,
                bad.as_ptr().cast(),
                2,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            ),
            INVALID_PTX,
        );
        let text = CStr::from_ptr(log.as_ptr()).to_string_lossy();
        assert!(text.contains("bogus"), "error log: {text}");
        assert_eq!(
            values[1] as usize,
            text.len() + 1,
            "the size option gets the bytes written"
        );
        expect(
            cuModuleLoadData(null_mut(), bad.as_ptr().cast()),
            INVALID_VALUE,
        );
    }
}

#[test]
fn a_library_is_its_own_module_and_its_kernels_are_functions() {
    let _c = Ctx::new();
    unsafe {
        let lib = load_library(SAXPY);
        let mut k = null_mut();
        ok(cuLibraryGetKernel(&mut k, lib, c"saxpy".as_ptr()));
        let mut f = null_mut();
        ok(cuKernelGetFunction(&mut f, k));
        assert_eq!(f, k);
        let mut m = null_mut();
        ok(cuLibraryGetModule(&mut m, lib));
        assert_eq!(function(m, "saxpy"), k);
        let (mut offset, mut size) = (0usize, 0usize);
        ok(cuKernelGetParamInfo(k, 1, &mut offset, &mut size));
        assert_eq!((offset, size), (4, 4));
        ok(cuKernelGetParamInfo(k, 2, &mut offset, &mut size));
        assert_eq!((offset, size), (8, 8));
        expect(
            cuKernelGetParamInfo(k, 4, &mut offset, &mut size),
            INVALID_VALUE,
        );
        ok(cuLibraryUnload(lib));
        expect(cuKernelGetFunction(&mut f, k), INVALID_HANDLE);
    }
}
