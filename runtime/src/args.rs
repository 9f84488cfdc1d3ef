//! Kernel arguments: typed values packed into the parameter buffer, checked against the
//! kernel's `.param` list so that a wrong launch is an error, not a garbled one.

use crate::buffer::{DeviceBuffer, DeviceCopy};
use crate::error::{Error, Result};
use emulator::program::KernelLayout;
use isa::Variable;

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    /// A device address.
    Ptr(u64),
    /// Raw bytes of an aggregate (a `.param .align N .b8 name[SIZE]` parameter).
    Bytes(Vec<u8>),
}

impl Arg {
    /// The argument's bytes, little-endian.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Arg::U8(v) => v.to_le_bytes().to_vec(),
            Arg::U16(v) => v.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) | Arg::Ptr(v) => v.to_le_bytes().to_vec(),
            Arg::I8(v) => v.to_le_bytes().to_vec(),
            Arg::I16(v) => v.to_le_bytes().to_vec(),
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::I64(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
            Arg::F64(v) => v.to_le_bytes().to_vec(),
            Arg::Bytes(b) => b.clone(),
        }
    }

    /// A short description for error messages (`f32`, `pointer`, `12 bytes`).
    pub fn describe(&self) -> String {
        match self {
            Arg::U8(_) => "u8".into(),
            Arg::U16(_) => "u16".into(),
            Arg::U32(_) => "u32".into(),
            Arg::U64(_) => "u64".into(),
            Arg::I8(_) => "i8".into(),
            Arg::I16(_) => "i16".into(),
            Arg::I32(_) => "i32".into(),
            Arg::I64(_) => "i64".into(),
            Arg::F32(_) => "f32".into(),
            Arg::F64(_) => "f64".into(),
            Arg::Ptr(_) => "pointer".into(),
            Arg::Bytes(b) => format!("{} bytes", b.len()),
        }
    }
}

impl<T: DeviceCopy> From<&DeviceBuffer<T>> for Arg {
    fn from(b: &DeviceBuffer<T>) -> Arg {
        Arg::Ptr(b.device_ptr())
    }
}

macro_rules! arg_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Arg {
            fn from(x: $t) -> Arg {
                Arg::$v(x)
            }
        }
    )*};
}
arg_from!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32, i64 => I64, f32 => F32, f64 => F64);

fn param_type(p: &Variable) -> String {
    match p.count {
        Some(n) => format!(".{}[{n}]", p.ty),
        None => format!(".{}", p.ty),
    }
}

/// Packs `args` into the parameter buffer of a kernel of a module of `.address_size
/// address_size`, checking count and sizes. A pointer ([`Arg::Ptr`]) fills a scalar parameter
/// of 64 bits (as it always did), or in a 32-bit module a 32-bit integer one, where it must fit
/// 32 bits (a 64-bit one takes it zero-extended: the kernel's 32-bit addresses truncate it).
pub fn pack(
    kernel: &str,
    params: &[Variable],
    layout: &KernelLayout,
    address_size: u32,
    args: &[Arg],
) -> Result<Vec<u8>> {
    if args.len() != params.len() {
        return Err(Error::InvalidValue(format!(
            "kernel `{kernel}` takes {} argument(s), {} given",
            params.len(),
            args.len()
        )));
    }
    let mut buf = vec![0u8; layout.param_size as usize];
    for (i, ((p, a), off)) in params
        .iter()
        .zip(args)
        .zip(&layout.param_offsets)
        .enumerate()
    {
        let size = p.size_bytes() as usize;
        if let &Arg::Ptr(ptr) = a {
            let fits = match p.ty.bits() {
                64 => true,
                32 => address_size == 32 && !p.ty.is_float(),
                _ => false,
            };
            if !(fits && p.count.is_none()) {
                let expected = if address_size == 32 { ".u32" } else { ".u64" };
                return Err(Error::InvalidValue(format!(
                    "argument {i} of `{kernel}` is a pointer but parameter `{}` is {} (pointers are {expected} in a module of `.address_size {address_size}`)",
                    p.name,
                    param_type(p)
                )));
            }
            if size == 4 && u32::try_from(ptr).is_err() {
                return Err(Error::InvalidValue(format!(
                    "argument {i} of `{kernel}` is pointer {ptr:#x}, which does not fit 32 bits (parameter `{}` is {} in a module of `.address_size 32`)",
                    p.name,
                    param_type(p)
                )));
            }
        }
        let mut bytes = a.bytes();
        if matches!(a, Arg::Ptr(_)) {
            bytes.truncate(size);
        }
        if bytes.len() != size {
            return Err(Error::InvalidValue(format!(
                "argument {i} of `{kernel}` is {} ({} bytes) but parameter `{}` is {} ({size} bytes)",
                a.describe(),
                bytes.len(),
                p.name,
                param_type(p)
            )));
        }
        if a_is_float(a) && !p.ty.is_float() && p.ty.kind() != isa::TypeKind::Bits {
            return Err(Error::InvalidValue(format!(
                "argument {i} of `{kernel}` is {} but parameter `{}` is {}",
                a.describe(),
                p.name,
                param_type(p)
            )));
        }
        let off = *off as usize;
        buf[off..off + size].copy_from_slice(&bytes);
    }
    Ok(buf)
}

fn a_is_float(a: &Arg) -> bool {
    matches!(a, Arg::F32(_) | Arg::F64(_))
}
