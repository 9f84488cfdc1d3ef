//! What every test needs: initialisation, a context of its own, result checks and PTX.

pub use std::ffi::{CStr, CString, c_char, c_int, c_void};
pub use std::ptr::{null, null_mut};
pub use warpsim_cuda::context::*;
pub use warpsim_cuda::device::*;
pub use warpsim_cuda::error::{cuGetErrorName, cuGetErrorString};
pub use warpsim_cuda::function::*;
pub use warpsim_cuda::launch::*;
pub use warpsim_cuda::link::*;
pub use warpsim_cuda::memory::*;
pub use warpsim_cuda::module::*;
pub use warpsim_cuda::proc_address::*;
pub use warpsim_cuda::stream::*;
pub use warpsim_cuda::types::{CUdeviceptr, CUresult, Handle};

pub const SUCCESS: CUresult = 0;
pub const INVALID_VALUE: CUresult = 1;
pub const OUT_OF_MEMORY: CUresult = 2;
pub const NOT_INITIALIZED: CUresult = 3;
pub const INVALID_DEVICE: CUresult = 101;
pub const INVALID_CONTEXT: CUresult = 201;
pub const INVALID_PTX: CUresult = 218;
pub const INVALID_HANDLE: CUresult = 400;
pub const NOT_FOUND: CUresult = 500;
pub const ILLEGAL_ADDRESS: CUresult = 700;
pub const NOT_SUPPORTED: CUresult = 801;

/// The name `cuGetErrorName` gives `r`, for failure messages.
pub fn name(r: CUresult) -> String {
    let mut p: *const c_char = null();
    // SAFETY: a valid out-pointer; the name is a static string.
    unsafe {
        cuGetErrorName(r, &mut p);
        if p.is_null() {
            return format!("{r}");
        }
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// Asserts that `r` is `want`.
#[track_caller]
pub fn expect(r: CUresult, want: CUresult) {
    assert_eq!(r, want, "returned {}, expected {}", name(r), name(want));
}

/// Asserts success.
#[track_caller]
pub fn ok(r: CUresult) {
    expect(r, SUCCESS);
}

/// `cuInit`, checking the default device (functional a100) the tests expect.
pub fn init() {
    // SAFETY: plain calls with valid out-pointers.
    unsafe {
        ok(cuInit(0));
        let mut buf = [0 as c_char; 64];
        ok(cuDeviceGetName(buf.as_mut_ptr(), 64, 0));
        let n = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        assert_eq!(
            n, "warpsim a100 (functional)",
            "run these tests with WARPSIM_* unset"
        );
    }
}

/// A context of the test's own, current on its thread until dropped.
pub struct Ctx(pub Handle);

impl Ctx {
    pub fn new() -> Ctx {
        init();
        let mut c = null_mut();
        // SAFETY: a valid out-pointer.
        ok(unsafe { cuCtxCreate_v2(&mut c, 0, 0) });
        Ctx(c)
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: a context this test made.
        let r = unsafe { cuCtxDestroy_v2(self.0) };
        if !std::thread::panicking() {
            ok(r);
        }
    }
}

/// Loads PTX text as a module of the current context.
pub fn load(ptx: &str) -> Handle {
    let text = CString::new(ptx).unwrap();
    let mut m = null_mut();
    // SAFETY: a NUL-terminated image and a valid out-pointer.
    ok(unsafe { cuModuleLoadData(&mut m, text.as_ptr().cast()) });
    m
}

/// Loads PTX text as a library (`cuLibraryLoadData`, no options).
pub fn load_library(ptx: &str) -> Handle {
    let text = CString::new(ptx).unwrap();
    let mut lib = null_mut();
    // SAFETY: a NUL-terminated image, a valid out-pointer and no options.
    ok(unsafe {
        cuLibraryLoadData(
            &mut lib,
            text.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        )
    });
    lib
}

/// Kernel `kernel` of module `m`.
pub fn function(m: Handle, kernel: &str) -> Handle {
    let n = CString::new(kernel).unwrap();
    let mut f = null_mut();
    // SAFETY: valid pointers.
    ok(unsafe { cuModuleGetFunction(&mut f, m, n.as_ptr()) });
    f
}

/// A device allocation holding `data`.
pub fn upload<T: Copy>(data: &[T]) -> CUdeviceptr {
    let bytes = std::mem::size_of_val(data);
    let mut p = 0;
    // SAFETY: valid pointers; `data` is `bytes` long.
    unsafe {
        ok(cuMemAlloc_v2(&mut p, bytes.max(1)));
        ok(cuMemcpyHtoD_v2(p, data.as_ptr().cast(), bytes));
    }
    p
}

/// `n` values of device memory at `p`.
pub fn download<T: Copy + Default>(p: CUdeviceptr, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: `out` holds `n` values.
    ok(unsafe { cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), p, n * std::mem::size_of::<T>()) });
    out
}

/// The SAXPY sample: `saxpy(int n, float a, const float *x, float *y)`, y = a*x + y.
pub const SAXPY: &str = include_str!("../../../samples/saxpy/saxpy.ptx");

/// `store(u32 *p, u32 v, u32 i)`: p[i] = v, by one thread (an index past the end faults);
/// `shared_user` uses 40000 bytes of static shared memory; `.global counter` is a variable.
pub const STORE: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.global .align 4 .u32 counter[4] = {7, 8, 9, 10};
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
