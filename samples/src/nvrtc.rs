//! NVRTC, found at run time: CUDA C++ to PTX for `warpsim run-cu`. The library is looked up
//! as `tools/regen_ptx.py` does: `$WARPSIM_NVRTC` (a path to libnvrtc.so*), the
//! `nvidia-cuda-nvrtc-cu12` wheel of the `python3` on PATH, then the system loader
//! (`libnvrtc.so.12`, `libnvrtc.so`). Nothing links against it: warpsim builds and runs
//! without NVRTC, and `run-cu` says how to get it when it is absent.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::PathBuf;

/// How to get NVRTC, for the message when none is found.
const HOW: &str =
    "pip install nvidia-cuda-nvrtc-cu12, or set WARPSIM_NVRTC=/path/to/libnvrtc.so.12";

type Program = *mut c_void;
type Create = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type Compile = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type GetSize = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type GetText = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut Program) -> c_int;
type AddName = unsafe extern "C" fn(Program, *const c_char) -> c_int;
type Lowered = unsafe extern "C" fn(Program, *const c_char, *mut *const c_char) -> c_int;

/// The candidate library paths, in order.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(p) = std::env::var("WARPSIM_NVRTC") {
        out.push(PathBuf::from(p));
    }
    let wheel = std::process::Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])",
        ])
        .output();
    if let Ok(o) = wheel
        && o.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("lib");
        out.push(dir.join("libnvrtc.so.12"));
    }
    out.push("libnvrtc.so.12".into());
    out.push("libnvrtc.so".into());
    out
}

/// A loaded NVRTC.
struct Nvrtc {
    lib: *mut c_void,
}

impl Nvrtc {
    fn load() -> Result<Nvrtc, String> {
        let mut tried = Vec::new();
        for path in candidates() {
            let c = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
            // SAFETY: a NUL-terminated path; dlopen has no other precondition.
            let lib = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            if !lib.is_null() {
                return Ok(Nvrtc { lib });
            }
            tried.push(path.display().to_string());
        }
        Err(format!(
            "error: NVRTC not found (tried {}): {HOW}",
            tried.join(", ")
        ))
    }

    /// The address of `name`.
    fn symbol(&self, name: &str) -> Result<*mut c_void, String> {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: `lib` is a handle dlopen returned; `c` is NUL-terminated.
        let f = unsafe { libc::dlsym(self.lib, c.as_ptr()) };
        if f.is_null() {
            Err(format!("error: NVRTC has no `{name}`"))
        } else {
            Ok(f)
        }
    }
}

macro_rules! function {
    ($nvrtc:expr, $name:literal, $t:ty) => {{
        let f = $nvrtc.symbol($name)?;
        // SAFETY: NVRTC exports `$name` with this signature (its documented API).
        unsafe { std::mem::transmute::<*mut c_void, $t>(f) }
    }};
}

/// `source` (named `name` in diagnostics) compiled to PTX with `flags`, and the lowered name
/// of each of `kernels` (a kernel `extern "C"` keeps its name; a C++ one, or a template
/// instance such as `axpy<float>`, gets its mangled name).
pub(crate) fn compile(
    source: &str,
    name: &str,
    flags: &[String],
    kernels: &[String],
) -> Result<(String, HashMap<String, String>), String> {
    let nvrtc = Nvrtc::load()?;
    let create = function!(nvrtc, "nvrtcCreateProgram", Create);
    let compile = function!(nvrtc, "nvrtcCompileProgram", Compile);
    let log_size = function!(nvrtc, "nvrtcGetProgramLogSize", GetSize);
    let log = function!(nvrtc, "nvrtcGetProgramLog", GetText);
    let ptx_size = function!(nvrtc, "nvrtcGetPTXSize", GetSize);
    let ptx = function!(nvrtc, "nvrtcGetPTX", GetText);
    let destroy = function!(nvrtc, "nvrtcDestroyProgram", Destroy);
    let add_name = function!(nvrtc, "nvrtcAddNameExpression", AddName);
    let lowered = function!(nvrtc, "nvrtcGetLoweredName", Lowered);

    let c_source = CString::new(source).map_err(|_| "error: a NUL byte in the source")?;
    let c_name = CString::new(name).map_err(|_| "error: a NUL byte in the file name")?;
    let c_flags: Vec<CString> = flags
        .iter()
        .map(|f| CString::new(f.as_str()).map_err(|_| format!("error: NVRTC flag `{f}`")))
        .collect::<Result<_, _>>()?;
    let flag_ptrs: Vec<*const c_char> = c_flags.iter().map(|f| f.as_ptr()).collect();
    let c_kernels: Vec<CString> = kernels
        .iter()
        .map(|k| CString::new(k.as_str()).map_err(|_| format!("error: kernel name `{k}`")))
        .collect::<Result<_, _>>()?;
    let check = |what: &str, r: c_int| {
        if r == 0 {
            Ok(())
        } else {
            Err(format!("error: {what} failed (nvrtcResult {r})"))
        }
    };

    let mut prog: Program = std::ptr::null_mut();
    // SAFETY: each call passes NUL-terminated strings and arrays of the lengths given, and
    // the program handle NVRTC made; text buffers are sized by NVRTC's own size queries.
    unsafe {
        check(
            "nvrtcCreateProgram",
            create(
                &mut prog,
                c_source.as_ptr(),
                c_name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            ),
        )?;
        for k in &c_kernels {
            check("nvrtcAddNameExpression", add_name(prog, k.as_ptr()))?;
        }
        let compiled = compile(prog, flag_ptrs.len() as c_int, flag_ptrs.as_ptr());
        let mut n = 0usize;
        check("nvrtcGetProgramLogSize", log_size(prog, &mut n))?;
        let mut text = vec![0u8; n.max(1)];
        check("nvrtcGetProgramLog", log(prog, text.as_mut_ptr().cast()))?;
        let log_text = String::from_utf8_lossy(&text)
            .trim_end_matches('\0')
            .trim()
            .to_string();
        if compiled != 0 {
            destroy(&mut prog);
            return Err(format!(
                "error: NVRTC could not compile {name}:\n{log_text}"
            ));
        }
        if !log_text.is_empty() {
            eprintln!("{log_text}");
        }
        let mut names = HashMap::new();
        for (k, c) in kernels.iter().zip(&c_kernels) {
            let mut out: *const c_char = std::ptr::null();
            check("nvrtcGetLoweredName", lowered(prog, c.as_ptr(), &mut out))?;
            names.insert(
                k.clone(),
                CStr::from_ptr(out).to_string_lossy().into_owned(),
            );
        }
        check("nvrtcGetPTXSize", ptx_size(prog, &mut n))?;
        let mut text = vec![0u8; n.max(1)];
        check("nvrtcGetPTX", ptx(prog, text.as_mut_ptr().cast()))?;
        destroy(&mut prog);
        let ptx_text = String::from_utf8(text)
            .map_err(|_| "error: NVRTC's PTX is not UTF-8".to_string())?
            .trim_end_matches('\0')
            .to_string();
        Ok((ptx_text, names))
    }
}
