//! The linker entry points over PTX (`cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`,
//! `cuLinkComplete`, `cuLinkDestroy`).
//!
//! warpsim has no object code and no separate linking: a module is one PTX text. So linking
//! here means:
//!
//! - only PTX inputs (`CU_JIT_INPUT_PTX`); a cubin, fatbin, object, library or NVVM input is
//!   refused with `CUDA_ERROR_NOT_SUPPORTED`, naming the input;
//! - one input: the image is that PTX;
//! - several inputs: their concatenation, in the order added. The first input's `.version`,
//!   `.target` and `.address_size` head the image; each later input's are dropped, and its
//!   `.address_size` must equal the first's. An `.extern` declaration in one input is then
//!   resolved by the definition in another, as within one PTX module; a name defined in two
//!   inputs is an error of the front end, reported by `cuLinkComplete`;
//! - `cuLinkAddData` and `cuLinkAddFile` parse each PTX input as it is added
//!   (`CUDA_ERROR_INVALID_PTX` for text that is not PTX, with the front end's diagnostic in
//!   the error log), as CUDA compiles each input there;
//! - `cuLinkComplete` checks the image through warpsim's front end (so a PTX error is a link
//!   error, as with ptxas) and returns it as NUL-terminated PTX text, which
//!   `cuModuleLoadData` and `cuLibraryLoadData` accept. It stays valid until `cuLinkDestroy`.

use crate::error::{Error, Result, guard};
use crate::ffi::{self, c_str, handle, handle_id, write};
use crate::module::ptx_of;
use crate::state::{LinkEntry, with};
use crate::types::{CUresult, Handle, jit, status};
use std::ffi::{CString, c_char, c_int, c_uint, c_void};

/// The PTX directives that head a module.
const HEADER: [&str; 3] = [".version", ".target", ".address_size"];

fn address_size(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(".address_size"))
        .map(|rest| rest.split_whitespace().next().unwrap_or(""))
}

/// The image of `inputs` (name, PTX text), as the module documentation says.
pub fn merge(inputs: &[(String, String)]) -> Result<String> {
    let Some(((_, first), rest)) = inputs.split_first() else {
        return Err(Error::invalid("nothing to link: no input was added"));
    };
    let mut out = first.clone();
    let size = address_size(first);
    for (name, text) in rest {
        if address_size(text) != size {
            return Err(Error::new(
                status::INVALID_PTX,
                format!(
                    "`{name}` has .address_size {} but the first input has {}",
                    address_size(text).unwrap_or("(none)"),
                    size.unwrap_or("(none)")
                ),
            ));
        }
        out.push_str("\n// ---- linked: ");
        out.push_str(name);
        out.push('\n');
        for line in text.lines() {
            let t = line.trim_start();
            if HEADER.iter().any(|h| t.starts_with(h)) {
                out.push_str("// ");
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// A live link.
fn with_link<T>(state: Handle, f: impl FnOnce(&mut LinkEntry) -> Result<T>) -> Result<T> {
    with(|d| {
        let link = d
            .links
            .get_mut(&handle_id(state))
            .ok_or_else(|| Error::code(status::INVALID_HANDLE))?;
        f(link)
    })
}

/// Writes a failure into the link's error log, if it has one, and passes it on.
fn logged<T>(state: Handle, outcome: Result<T>) -> Result<T> {
    if let Err(e) = &outcome
        && let Some(message) = &e.message
    {
        let log = with_link(state, |l| Ok(l.error_log)).ok().flatten();
        if let Some((buf, size)) = log {
            ffi::write_c_string(buf as *mut c_char, size, message)?;
        }
    }
    outcome
}

fn link_create(
    n: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
    out: *mut Handle,
) -> Result {
    if out.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    let opts = ffi::array(options.cast_const(), n as usize)?;
    let vals = ffi::array(values.cast_const(), n as usize)?;
    let mut entry = LinkEntry::default();
    let find = |o: c_int| opts.iter().position(|&x| x == o).map(|i| vals[i] as usize);
    if let (Some(buf), Some(size)) = (
        find(jit::ERROR_LOG_BUFFER),
        find(jit::ERROR_LOG_BUFFER_SIZE_BYTES),
    ) && buf != 0
        && size != 0
    {
        entry.error_log = Some((buf, size));
    }
    if let (Some(buf), Some(size)) = (
        find(jit::INFO_LOG_BUFFER),
        find(jit::INFO_LOG_BUFFER_SIZE_BYTES),
    ) && buf != 0
        && size != 0
    {
        ffi::write_c_string(buf as *mut c_char, size, "")?;
        entry.info_log = Some((buf, size));
    }
    with(|d| {
        d.current()?;
        let id = d.new_id();
        d.links.insert(id, entry);
        write(out, handle(id))
    })
}

/// `cuLinkCreate_v2`: the error and information log options are honoured.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkCreate_v2(
    num_options: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
    state: *mut Handle,
) -> CUresult {
    guard("cuLinkCreate_v2", || {
        link_create(num_options, options, values, state)
    })
}

/// Refuses inputs other than PTX, naming them.
fn check_input_type(kind: c_int, name: &str) -> Result {
    let what = match kind {
        jit::INPUT_PTX => return Ok(()),
        jit::INPUT_CUBIN => "a cubin",
        jit::INPUT_FATBINARY => "a fatbin",
        jit::INPUT_OBJECT => "an object file",
        jit::INPUT_LIBRARY => "a library archive",
        jit::INPUT_NVVM => "NVVM IR (LTO)",
        _ => return Err(Error::invalid(format!("input type {kind} of `{name}`"))),
    };
    Err(Error::unsupported(format!(
        "`{name}` is {what}: warpsim links PTX inputs only (CU_JIT_INPUT_PTX)"
    )))
}

fn add(state: Handle, kind: c_int, name: &str, bytes: &[u8]) -> Result {
    let outcome = check_input_type(kind, name).and_then(|()| {
        let text = ptx_of(bytes, &format!("`{name}`"))?.to_string();
        // Parsed as it is added, as CUDA compiles each PTX input in cuLinkAddData: text that
        // is not PTX fails here, naming its line. Names are resolved across inputs at
        // cuLinkComplete, so an `.extern` another input defines is no error yet.
        frontend::parse(name, &text).map_err(|e| Error::new(status::INVALID_PTX, e.to_string()))?;
        with_link(state, |l| {
            l.inputs.push((name.to_string(), text));
            Ok(())
        })
    });
    logged(state, outcome)
}

/// `cuLinkAddData_v2`: a PTX input (per-input options are accepted and have no effect).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: Handle,
    kind: c_int,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    _num_options: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    guard("cuLinkAddData_v2", || {
        with_link(state, |_| Ok(()))?;
        let name = if name.is_null() {
            "(unnamed input)"
        } else {
            c_str(name)?
        };
        let bytes = ffi::host_bytes(data.cast_const().cast(), size)?;
        add(state, kind, name, bytes)
    })
}

/// `cuLinkAddFile_v2`: a PTX file.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: Handle,
    kind: c_int,
    path: *const c_char,
    _num_options: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    guard("cuLinkAddFile_v2", || {
        with_link(state, |_| Ok(()))?;
        let path = c_str(path)?;
        let bytes = std::fs::read(path)
            .map_err(|e| Error::new(status::FILE_NOT_FOUND, format!("{path}: {e}")));
        let bytes = logged(state, bytes)?;
        add(state, kind, path, &bytes)
    })
}

/// `cuLinkComplete`: the image, checked by the front end, as NUL-terminated PTX text; the
/// size counts the NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkComplete(
    state: Handle,
    image: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    guard("cuLinkComplete", || {
        let inputs = with_link(state, |l| Ok(l.inputs.clone()))?;
        let outcome = merge(&inputs).and_then(|text| {
            frontend::compile("linked.ptx", &text)
                .map_err(|e| Error::new(status::INVALID_PTX, e.to_string()))?;
            CString::new(text).map_err(|_| Error::invalid("a NUL byte inside PTX text"))
        });
        let text = logged(state, outcome)?;
        with_link(state, |l| {
            let ptr = text.as_ptr();
            let len = text.as_bytes_with_nul().len();
            l.output = Some(text);
            write(image, ptr.cast_mut().cast::<c_void>())?;
            ffi::write_opt(size, len)
        })
    })
}

/// `cuLinkDestroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkDestroy(state: Handle) -> CUresult {
    guard("cuLinkDestroy", || {
        with(|d| {
            d.links
                .remove(&handle_id(state))
                .map(|_| ())
                .ok_or_else(|| Error::code(status::INVALID_HANDLE))
        })
    })
}
