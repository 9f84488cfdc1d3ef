//! The linker over PTX: one input, several concatenated, other inputs refused.

use crate::common::*;

/// A kernel calling `twice`, declared `.extern`.
const CALLER: &str = r#".version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry run(.param .u64 p)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r1;
    call.uni (r0), twice, (a0);
    ld.param.b32 %r2, [r0];
    }
    st.global.u32 [%rd2], %r2;
    ret;
}
"#;

/// `twice`, defined.
const CALLEE: &str = r#".version 7.0
.target sm_70
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [r], %r2;
    ret;
}
"#;

unsafe fn add(link: Handle, kind: c_int, text: &str, name: &CStr) -> CUresult {
    unsafe {
        cuLinkAddData_v2(
            link,
            kind,
            text.as_ptr().cast_mut().cast(),
            text.len(),
            name.as_ptr(),
            0,
            null_mut(),
            null_mut(),
        )
    }
}

#[test]
fn two_ptx_inputs_link_into_one_module() {
    let _c = Ctx::new();
    unsafe {
        let mut link = null_mut();
        ok(cuLinkCreate_v2(0, null_mut(), null_mut(), &mut link));
        ok(add(link, 1, CALLER, c"caller.ptx"));
        ok(add(link, 1, CALLEE, c"callee.ptx"));
        let (mut image, mut size) = (null_mut(), 0usize);
        ok(cuLinkComplete(link, &mut image, &mut size));
        let text = CStr::from_ptr(image.cast());
        assert_eq!(text.to_bytes_with_nul().len(), size);
        let mut m = null_mut();
        ok(cuModuleLoadData(&mut m, image));
        ok(cuLinkDestroy(link));
        expect(cuLinkDestroy(link), INVALID_HANDLE);
        let run = function(m, "run");
        let p = upload(&[21u32]);
        let mut pp = p;
        let mut params = [(&mut pp as *mut u64).cast::<c_void>()];
        ok(cuLaunchKernel(
            run,
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
        assert_eq!(download::<u32>(p, 1), [42]);
        ok(cuMemFree_v2(p));
        ok(cuModuleUnload(m));
    }
}

#[test]
fn other_inputs_and_mismatches_are_refused_with_the_error_log() {
    let _c = Ctx::new();
    unsafe {
        let mut log = [0 as c_char; 256];
        let mut options = [5 as c_int, 6];
        let mut values = [log.as_mut_ptr().cast::<c_void>(), 256usize as *mut c_void];
        let mut link = null_mut();
        ok(cuLinkCreate_v2(
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut link,
        ));
        expect(add(link, 0, "\x7fELF", c"kernel.cubin"), NOT_SUPPORTED);
        let text = CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
        assert!(
            text.contains("kernel.cubin") && text.contains("PTX inputs only"),
            "{text}"
        );
        expect(add(link, 4, "!<arch>", c"libdevrt.a"), NOT_SUPPORTED);
        let (mut image, mut size) = (null_mut(), 0usize);
        expect(cuLinkComplete(link, &mut image, &mut size), INVALID_VALUE);
        ok(add(link, 1, CALLEE, c"callee.ptx"));
        ok(add(
            link,
            1,
            &CALLER.replace(".address_size 64", ".address_size 32"),
            c"caller32.ptx",
        ));
        expect(cuLinkComplete(link, &mut image, &mut size), INVALID_PTX);
        let text = CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
        assert!(text.contains(".address_size"), "{text}");
        ok(cuLinkDestroy(link));
        // The same definition twice is the front end's error, at link time.
        ok(cuLinkCreate_v2(0, null_mut(), null_mut(), &mut link));
        ok(add(link, 1, CALLEE, c"a.ptx"));
        ok(add(link, 1, CALLEE, c"b.ptx"));
        expect(cuLinkComplete(link, &mut image, &mut size), INVALID_PTX);
        ok(cuLinkDestroy(link));
    }
}

#[test]
fn merging_keeps_the_first_header_and_comments_out_the_others() {
    let merged =
        warpsim_cuda::link::merge(&[("a".into(), CALLER.into()), ("b".into(), CALLEE.into())])
            .unwrap();
    assert_eq!(
        merged.matches("\n.version").count() + usize::from(merged.starts_with(".version")),
        1
    );
    assert_eq!(merged.matches("// .version 7.0").count(), 1);
    assert!(merged.contains("// ---- linked: b"));
}

/// Text that is not PTX fails when it is added (`CUDA_ERROR_INVALID_PTX`, the front end's
/// diagnostic in the error log), as CUDA compiles each input in `cuLinkAddData`; it is not
/// kept, so the link goes on with the inputs that parsed.
#[test]
fn garbage_ptx_is_refused_when_added() {
    let _c = Ctx::new();
    unsafe {
        let mut log = [0 as c_char; 512];
        let mut options = [5 as c_int, 6];
        let mut values = [log.as_mut_ptr().cast::<c_void>(), 512usize as *mut c_void];
        let mut link = null_mut();
        ok(cuLinkCreate_v2(
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut link,
        ));
        expect(
            add(link, 1, "this is not PTX at all ;;", c"garbage.ptx"),
            INVALID_PTX,
        );
        let text = CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
        assert!(text.contains("garbage.ptx:1:"), "{text}");
        let dir = std::env::temp_dir().join(format!("warpsim-cuda-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("garbage-file.ptx");
        std::fs::write(&file, ".version 7.0\n.target sm_70\n.entry {").unwrap();
        let path = CString::new(file.to_str().unwrap()).unwrap();
        expect(
            cuLinkAddFile_v2(link, 1, path.as_ptr(), 0, null_mut(), null_mut()),
            INVALID_PTX,
        );
        std::fs::remove_dir_all(&dir).unwrap();
        ok(add(link, 1, CALLER, c"caller.ptx"));
        ok(add(link, 1, CALLEE, c"callee.ptx"));
        let (mut image, mut size) = (null_mut(), 0usize);
        ok(cuLinkComplete(link, &mut image, &mut size));
        ok(cuLinkDestroy(link));
    }
}
