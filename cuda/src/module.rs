//! Modules and libraries: PTX text loaded onto the device (`cuModuleLoadData`/`Ex`,
//! `cuModuleLoad`, and the context-independent `cuLibraryLoadData` that recent bindings use),
//! their kernels (`CUfunction` and `CUkernel` are one handle) and their variables.
//!
//! warpsim runs PTX only: a cubin (ELF) or fatbin image is refused with
//! `CUDA_ERROR_NOT_SUPPORTED` and a message saying so. The linker's output (`link.rs`) is PTX
//! text too, so an image from `cuLinkComplete` loads here.

use crate::error::{Error, Result, guard};
use crate::ffi::{self, c_str, handle, handle_id, write, write_opt};
use crate::state::{Driver, FunctionEntry, ModuleEntry, with};
use crate::types::{CUdeviceptr, CUresult, Handle, jit, status};
use std::collections::HashMap;
use std::ffi::{CString, c_char, c_int, c_uint, c_void};
use std::sync::Arc;

/// The format of an image handed to a loader.
#[derive(Debug, PartialEq, Eq)]
pub enum Image<'a> {
    Ptx(&'a str),
    Cubin,
    Fatbin,
}

/// Tells PTX text from the binary formats by their magic numbers: ELF for a cubin,
/// `0xBA55ED50` for a fatbin and `0x466243B1` for a fatbin wrapper.
pub fn classify(bytes: &[u8]) -> Result<Image<'_>> {
    if bytes.starts_with(b"\x7fELF") {
        return Ok(Image::Cubin);
    }
    if bytes.starts_with(&0xBA55_ED50u32.to_le_bytes())
        || bytes.starts_with(&0x4662_43B1u32.to_le_bytes())
    {
        return Ok(Image::Fatbin);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| {
        Error::new(
            status::INVALID_IMAGE,
            "the image is neither PTX text nor a cubin or fatbin",
        )
    })?;
    Ok(Image::Ptx(text.trim_end_matches('\0')))
}

/// The PTX text of an image, or the error for a binary one.
pub fn ptx_of<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str> {
    match classify(bytes)? {
        Image::Ptx(t) => Ok(t),
        Image::Cubin => Err(Error::unsupported(format!(
            "{what} is a cubin (ELF): warpsim runs PTX only (compile to PTX: nvrtcGetPTX, nvcc -ptx)"
        ))),
        Image::Fatbin => Err(Error::unsupported(format!(
            "{what} is a fatbin: warpsim runs PTX only (compile to PTX: nvrtcGetPTX, nvcc -ptx)"
        ))),
    }
}

/// The JIT options warpsim honours: the error and information log buffers, filled with
/// the front end's diagnostics and with nothing. Every other option is accepted and has no
/// effect (warpsim's compilation has no knobs).
pub struct JitLogs {
    error: Option<(usize, usize)>,
    error_size_slot: Option<*mut *mut c_void>,
    info_size_slot: Option<*mut *mut c_void>,
    info: Option<(usize, usize)>,
}

impl JitLogs {
    /// Reads `n` options and their values.
    pub fn parse(n: c_uint, options: *const c_int, values: *mut *mut c_void) -> Result<JitLogs> {
        let opts = ffi::array(options, n as usize)?;
        let vals = ffi::array(values.cast_const(), n as usize)?;
        let mut logs = JitLogs {
            error: None,
            error_size_slot: None,
            info_size_slot: None,
            info: None,
        };
        let (mut error_buf, mut error_size, mut info_buf, mut info_size) = (0, 0, 0, 0);
        for (i, (&o, &v)) in opts.iter().zip(vals).enumerate() {
            match o {
                jit::ERROR_LOG_BUFFER => error_buf = v as usize,
                jit::ERROR_LOG_BUFFER_SIZE_BYTES => {
                    error_size = v as usize;
                    logs.error_size_slot = Some(values.wrapping_add(i));
                }
                jit::INFO_LOG_BUFFER => info_buf = v as usize,
                jit::INFO_LOG_BUFFER_SIZE_BYTES => {
                    info_size = v as usize;
                    logs.info_size_slot = Some(values.wrapping_add(i));
                }
                _ => {}
            }
        }
        if error_buf != 0 && error_size != 0 {
            logs.error = Some((error_buf, error_size));
        }
        if info_buf != 0 && info_size != 0 {
            logs.info = Some((info_buf, info_size));
        }
        Ok(logs)
    }

    /// Writes the outcome into the logs: the message of a failure into the error log, an
    /// empty information log; each size slot gets the bytes written.
    pub fn report(&self, outcome: &Result<u64>) -> Result {
        let message = match outcome {
            Err(Error {
                message: Some(m), ..
            }) => m.as_str(),
            _ => "",
        };
        if let Some((buf, size)) = self.error {
            ffi::write_c_string(buf as *mut c_char, size, message)?;
            if let Some(slot) = self.error_size_slot {
                ffi::write(slot, (message.len().min(size - 1) + 1) as *mut c_void)?;
            }
        }
        if let Some((buf, size)) = self.info {
            ffi::write_c_string(buf as *mut c_char, size, "")?;
            if let Some(slot) = self.info_size_slot {
                ffi::write(slot, std::ptr::null_mut::<c_void>().wrapping_add(1))?;
            }
        }
        Ok(())
    }
}

/// Loads PTX `text` (named `file` in diagnostics) for context `ctx` (`None`: a library).
pub fn load_ptx(file: &str, text: &str, ctx: Option<u64>) -> Result<u64> {
    let device = with(|d| Ok(d.device.clone()))?;
    let module = device.load_ptx(file, text)?;
    with(|d| {
        let id = d.new_id();
        d.modules_loaded += 1;
        d.modules.insert(
            id,
            ModuleEntry {
                module: Arc::new(module),
                ctx,
                functions: HashMap::new(),
            },
        );
        Ok(id)
    })
}

/// Loads the image at `image` (PTX text, NUL-terminated).
fn load_image(image: *const c_void, ctx: Option<u64>, file: &str) -> Result<u64> {
    let bytes = ffi::c_bytes(image.cast())?.to_bytes();
    let text = ptx_of(bytes, "the image")?;
    load_ptx(file, text, ctx)
}

fn module_load_data(module: *mut Handle, image: *const c_void, logs: Option<&JitLogs>) -> Result {
    if module.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    let ctx = with(|d| d.current())?;
    let outcome = load_image(image, Some(ctx), "module.ptx");
    if let Some(logs) = logs {
        logs.report(&outcome)?;
    }
    write(module, handle(outcome?))
}

/// `cuModuleLoadData`: PTX text.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    guard("cuModuleLoadData", || module_load_data(module, image, None))
}

/// `cuModuleLoadDataEx`: PTX text; the log-buffer options are filled in.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    num_options: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> CUresult {
    guard("cuModuleLoadDataEx", || {
        let logs = JitLogs::parse(num_options, options, values)?;
        module_load_data(module, image, Some(&logs))
    })
}

/// Reads a PTX file for `cuModuleLoad` and `cuLibraryLoadFromFile`.
fn read_ptx_file(name: *const c_char) -> Result<(String, String)> {
    let path = c_str(name)?;
    let bytes = std::fs::read(path)
        .map_err(|e| Error::new(status::FILE_NOT_FOUND, format!("{path}: {e}")))?;
    let text = ptx_of(&bytes, path)?.to_string();
    Ok((path.to_string(), text))
}

/// `cuModuleLoad`: a PTX file.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoad(module: *mut Handle, fname: *const c_char) -> CUresult {
    guard("cuModuleLoad", || {
        if module.is_null() {
            return Err(Error::code(status::INVALID_VALUE));
        }
        let ctx = with(|d| d.current())?;
        let (path, text) = read_ptx_file(fname)?;
        write(module, handle(load_ptx(&path, &text, Some(ctx))?))
    })
}

/// `cuModuleLoadFatBinary`: refused, warpsim runs PTX only.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadFatBinary(
    _module: *mut Handle,
    _fat: *const c_void,
) -> CUresult {
    guard("cuModuleLoadFatBinary", || {
        Err(Error::unsupported(
            "fatbins: warpsim runs PTX only (load PTX text with cuModuleLoadData)",
        ))
    })
}

/// A live module or library.
fn module_entry(d: &Driver, h: Handle) -> Result<&ModuleEntry> {
    d.modules
        .get(&handle_id(h))
        .ok_or_else(|| Error::code(status::INVALID_HANDLE))
}

/// `cuModuleUnload`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    guard("cuModuleUnload", || {
        with(|d| {
            d.unload_module(handle_id(module))
                .map(|_| ())
                .ok_or_else(|| Error::code(status::INVALID_HANDLE))
        })
    })
}

/// The function handle for kernel `name` of module `module`, made on first request.
pub fn function(d: &mut Driver, module: Handle, name: &str) -> Result<u64> {
    let mid = handle_id(module);
    let entry = module_entry(d, module)?;
    if let Some(&f) = entry.functions.get(name) {
        return Ok(f);
    }
    let kernel = entry
        .module
        .kernel(name)
        .map_err(|e| Error::new(status::NOT_FOUND, e.to_string()))?;
    let id = d.new_id();
    d.functions.insert(
        id,
        FunctionEntry {
            kernel,
            module: mid,
            name: CString::new(name).map_err(|_| Error::code(status::INVALID_VALUE))?,
            max_dynamic_shared: None,
            carveout: -1,
            cache_config: 0,
        },
    );
    d.modules
        .get_mut(&mid)
        .expect("looked up above")
        .functions
        .insert(name.to_string(), id);
    Ok(id)
}

/// `cuModuleGetFunction`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunction(
    hfunc: *mut Handle,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    guard("cuModuleGetFunction", || {
        let name = c_str(name)?;
        with(|d| {
            let f = function(d, module, name)?;
            write(hfunc, handle(f))
        })
    })
}

fn global(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> Result {
    let name = c_str(name)?;
    with(|d| {
        let entry = module_entry(d, module)?;
        let (addr, size) = entry
            .module
            .symbol(name)
            .map_err(|e| Error::new(status::NOT_FOUND, e.to_string()))?;
        write_opt(dptr, addr)?;
        write_opt(bytes, size as usize)
    })
}

/// `cuModuleGetGlobal_v2`: a `.global` or `.const` variable; either out-pointer may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    guard("cuModuleGetGlobal_v2", || global(dptr, bytes, module, name))
}

/// `cuModuleGetFunctionCount`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunctionCount(count: *mut c_uint, module: Handle) -> CUresult {
    guard("cuModuleGetFunctionCount", || {
        with(|d| {
            let n = module_entry(d, module)?.module.kernel_names().len();
            write(count, n as c_uint)
        })
    })
}

fn enumerate(out: *mut Handle, n: c_uint, module: Handle) -> Result {
    with(|d| {
        let names = module_entry(d, module)?.module.kernel_names();
        if names.len() > n as usize {
            return Err(Error::code(status::INVALID_VALUE));
        }
        for (i, name) in names.iter().enumerate() {
            let f = function(d, module, name)?;
            write(out.wrapping_add(i), handle(f))?;
        }
        Ok(())
    })
}

/// `cuModuleEnumerateFunctions`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleEnumerateFunctions(
    functions: *mut Handle,
    n: c_uint,
    module: Handle,
) -> CUresult {
    guard("cuModuleEnumerateFunctions", || {
        enumerate(functions, n, module)
    })
}

/// `cuModuleGetLoadingMode`: eager (`CU_MODULE_EAGER_LOADING`); the JIT compiles every kernel
/// when the module loads.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut c_int) -> CUresult {
    guard("cuModuleGetLoadingMode", || with(|_| write(mode, 1)))
}

#[allow(clippy::too_many_arguments)]
fn library_load(
    library: *mut Handle,
    image: *const c_void,
    file: *const c_char,
    num_jit: c_uint,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
) -> Result {
    if library.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    let logs = JitLogs::parse(num_jit, jit_options, jit_values)?;
    let outcome = if image.is_null() {
        read_ptx_file(file).and_then(|(path, text)| load_ptx(&path, &text, None))
    } else {
        load_image(image, None, "library.ptx")
    };
    logs.report(&outcome)?;
    write(library, handle(outcome?))
}

/// `cuLibraryLoadData`: PTX text, as a library of no context (library options are ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut Handle,
    code: *const c_void,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
    num_jit: c_uint,
    _library_options: *mut c_int,
    _library_values: *mut *mut c_void,
    _num_library: c_uint,
) -> CUresult {
    guard("cuLibraryLoadData", || {
        if code.is_null() {
            return Err(Error::code(status::INVALID_VALUE));
        }
        with(|_| Ok(()))?;
        library_load(
            library,
            code,
            std::ptr::null(),
            num_jit,
            jit_options,
            jit_values,
        )
    })
}

/// `cuLibraryLoadFromFile`: a PTX file.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    library: *mut Handle,
    file: *const c_char,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
    num_jit: c_uint,
    _library_options: *mut c_int,
    _library_values: *mut *mut c_void,
    _num_library: c_uint,
) -> CUresult {
    guard("cuLibraryLoadFromFile", || {
        with(|_| Ok(()))?;
        library_load(
            library,
            std::ptr::null(),
            file,
            num_jit,
            jit_options,
            jit_values,
        )
    })
}

/// `cuLibraryUnload`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryUnload(library: Handle) -> CUresult {
    guard("cuLibraryUnload", || {
        with(|d| {
            d.unload_module(handle_id(library))
                .map(|_| ())
                .ok_or_else(|| Error::code(status::INVALID_HANDLE))
        })
    })
}

/// `cuLibraryGetKernel`: the same handle `cuModuleGetFunction` gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut Handle,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    guard("cuLibraryGetKernel", || {
        let name = c_str(name)?;
        with(|d| {
            let f = function(d, library, name)?;
            write(kernel, handle(f))
        })
    })
}

/// `cuLibraryGetModule`: a library is its own module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetModule(module: *mut Handle, library: Handle) -> CUresult {
    guard("cuLibraryGetModule", || {
        with(|d| {
            module_entry(d, library)?;
            write(module, library)
        })
    })
}

/// `cuLibraryGetGlobal`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    guard("cuLibraryGetGlobal", || global(dptr, bytes, library, name))
}

/// `cuLibraryGetKernelCount`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernelCount(count: *mut c_uint, library: Handle) -> CUresult {
    guard("cuLibraryGetKernelCount", || {
        with(|d| {
            let n = module_entry(d, library)?.module.kernel_names().len();
            write(count, n as c_uint)
        })
    })
}

/// `cuLibraryEnumerateKernels`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryEnumerateKernels(
    kernels: *mut Handle,
    n: c_uint,
    library: Handle,
) -> CUresult {
    guard("cuLibraryEnumerateKernels", || {
        enumerate(kernels, n, library)
    })
}

/// A live function (or kernel) handle.
pub fn function_entry(d: &Driver, f: Handle) -> Result<&FunctionEntry> {
    d.functions
        .get(&handle_id(f))
        .ok_or_else(|| Error::code(status::INVALID_HANDLE))
}

/// `cuKernelGetFunction`: a kernel is its own function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetFunction(func: *mut Handle, kernel: Handle) -> CUresult {
    guard("cuKernelGetFunction", || {
        with(|d| {
            function_entry(d, kernel)?;
            write(func, kernel)
        })
    })
}

/// `cuKernelGetLibrary`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetLibrary(library: *mut Handle, kernel: Handle) -> CUresult {
    guard("cuKernelGetLibrary", || {
        with(|d| {
            let m = function_entry(d, kernel)?.module;
            write(library, handle(m))
        })
    })
}

/// `cuFuncGetModule`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetModule(module: *mut Handle, func: Handle) -> CUresult {
    guard("cuFuncGetModule", || {
        with(|d| {
            let m = function_entry(d, func)?.module;
            write(module, handle(m))
        })
    })
}

fn name_of(name: *mut *const c_char, f: Handle) -> Result {
    with(|d| {
        let p = function_entry(d, f)?.name.as_ptr();
        write(name, p)
    })
}

/// `cuFuncGetName`: valid while the module is loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, func: Handle) -> CUresult {
    guard("cuFuncGetName", || name_of(name, func))
}

/// `cuKernelGetName`: valid while the library is loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetName(name: *mut *const c_char, kernel: Handle) -> CUresult {
    guard("cuKernelGetName", || name_of(name, kernel))
}

/// `cuFuncIsLoaded`: always loaded (`CU_FUNCTION_LOADING_STATE_LOADED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncIsLoaded(state: *mut c_int, func: Handle) -> CUresult {
    guard("cuFuncIsLoaded", || {
        with(|d| {
            function_entry(d, func)?;
            write(state, 1)
        })
    })
}

/// `cuFuncLoad`: nothing to do, kernels compile when their module loads.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncLoad(func: Handle) -> CUresult {
    guard("cuFuncLoad", || {
        with(|d| function_entry(d, func).map(|_| ()))
    })
}
