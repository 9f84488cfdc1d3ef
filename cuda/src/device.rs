//! Initialisation, the driver's version and the one simulated device: its name, identity,
//! memory and attributes.

use crate::context::check_device;
use crate::error::{Error, guard};
use crate::ffi::{write, write_c_string};
use crate::state::{self, with};
use crate::types::{CUdevice, CUresult, CUuuid, DRIVER_VERSION, status};
use std::ffi::{c_char, c_int, c_uint};

/// `cuInit`: reads the environment (see `config.rs`) and makes the simulated device.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuInit(flags: c_uint) -> CUresult {
    guard("cuInit", || {
        if flags != 0 {
            return Err(Error::invalid("cuInit takes flags 0"));
        }
        state::init()
    })
}

/// `cuDriverGetVersion`: answers before `cuInit` too, as CUDA's does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    guard("cuDriverGetVersion", || write(version, DRIVER_VERSION))
}

/// `cuDeviceGetCount`: one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    guard("cuDeviceGetCount", || with(|_| write(count, 1)))
}

/// `cuDeviceGet`: ordinal 0 is the device.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    guard("cuDeviceGet", || {
        with(|_| {
            check_device(ordinal)?;
            write(device, 0)
        })
    })
}

/// `cuDeviceGetName`: `warpsim <preset> (functional)` or `(timing model)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    guard("cuDeviceGetName", || {
        with(|d| {
            check_device(dev)?;
            let len = usize::try_from(len).map_err(|_| Error::code(status::INVALID_VALUE))?;
            write_c_string(name, len, &d.settings.device_name())
        })
    })
}

/// The device's memory in bytes.
pub fn total_memory(d: &state::Driver) -> u64 {
    d.device.memory().capacity()
}

/// `cuDeviceTotalMem_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    guard("cuDeviceTotalMem_v2", || {
        with(|d| {
            check_device(dev)?;
            write(bytes, total_memory(d) as usize)
        })
    })
}

/// `cuDeviceComputeCapability` (deprecated, still asked for).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    dev: CUdevice,
) -> CUresult {
    guard("cuDeviceComputeCapability", || {
        with(|d| {
            check_device(dev)?;
            let cc = d.settings.gpu.gpu.compute_capability;
            write(major, c_int::from(cc.major))?;
            write(minor, c_int::from(cc.minor))
        })
    })
}

/// `cuDeviceGetAttribute`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    dev: CUdevice,
) -> CUresult {
    guard("cuDeviceGetAttribute", || {
        with(|d| {
            check_device(dev)?;
            let v = crate::attributes::value(&d.settings, attrib)
                .ok_or_else(|| Error::invalid(format!("no device attribute {attrib}")))?;
            write(value, v as c_int)
        })
    })
}

/// The device's UUID: "warpsim" and the preset's name, so that two presets differ.
fn uuid(d: &state::Driver) -> CUuuid {
    let mut bytes = *b"warpsim\0\0\0\0\0\0\0\0\0";
    for (i, b) in d.settings.gpu.name.bytes().take(9).enumerate() {
        bytes[7 + i] = b;
    }
    CUuuid { bytes }
}

/// `cuDeviceGetUuid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid(out: *mut CUuuid, dev: CUdevice) -> CUresult {
    guard("cuDeviceGetUuid", || {
        with(|d| {
            check_device(dev)?;
            write(out, uuid(d))
        })
    })
}

/// `cuDeviceGetUuid_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(out: *mut CUuuid, dev: CUdevice) -> CUresult {
    guard("cuDeviceGetUuid_v2", || {
        with(|d| {
            check_device(dev)?;
            write(out, uuid(d))
        })
    })
}

/// `cuDeviceGetPCIBusId`: `0000:00:00.0`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    bus_id: *mut c_char,
    len: c_int,
    dev: CUdevice,
) -> CUresult {
    guard("cuDeviceGetPCIBusId", || {
        with(|_| {
            check_device(dev)?;
            let len = usize::try_from(len).map_err(|_| Error::code(status::INVALID_VALUE))?;
            write_c_string(bus_id, len, "0000:00:00.0")
        })
    })
}

/// `cuDeviceGetByPCIBusId`: the one device's bus id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetByPCIBusId(
    dev: *mut CUdevice,
    bus_id: *const c_char,
) -> CUresult {
    guard("cuDeviceGetByPCIBusId", || {
        with(|_| {
            let id = crate::ffi::c_str(bus_id)?;
            if id.eq_ignore_ascii_case("0000:00:00.0") || id.eq_ignore_ascii_case("00:00.0") {
                write(dev, 0)
            } else {
                Err(Error::new(
                    status::INVALID_DEVICE,
                    format!("no device at PCI bus id `{id}`"),
                ))
            }
        })
    })
}

/// `cuDeviceCanAccessPeer`: there is no other device.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceCanAccessPeer(
    can: *mut c_int,
    dev: CUdevice,
    peer: CUdevice,
) -> CUresult {
    guard("cuDeviceCanAccessPeer", || {
        with(|_| {
            check_device(dev)?;
            check_device(peer)?;
            write(can, 0)
        })
    })
}

/// `cuGetExportTable`: NVIDIA's private export tables do not exist here. NVRTC and the CUDA
/// runtime ask for them when a driver is loaded and carry on without, so the refusal says so.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetExportTable(
    _table: *mut *const std::ffi::c_void,
    _id: *const CUuuid,
) -> CUresult {
    guard("cuGetExportTable", || {
        Err(Error::unsupported(
            "NVIDIA's private export tables do not exist in warpsim (NVRTC and the CUDA runtime ask, and carry on without them)",
        ))
    })
}
