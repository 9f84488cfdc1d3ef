//! Host-side arrays for `run-ptx` buffers: read from `.npy` and raw files, made of zeros, and
//! written back to `.npy` with their element type and shape.

use super::spec::Elem;
use npyz::{DType, NpyHeader, Order, WriteOptions, WriterBuilder};
use runtime::DeviceCopy;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read};
use std::path::Path;

/// An array on the host: element type, shape (C order) and little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    pub elem: Elem,
    pub shape: Vec<u64>,
    pub bytes: Vec<u8>,
}

/// The dtype strings `npy:` accepts, for error messages.
fn accepted_dtypes() -> String {
    let d: Vec<_> = Elem::ALL.iter().map(|e| e.descr()).collect();
    d.join(" ")
}

/// Reads a `.npy` file of a supported dtype in C order; the data is kept as bytes.
pub fn read_npy(path: &Path) -> Result<HostArray, String> {
    let name = path.display();
    let file = File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut reader = BufReader::new(file);
    // npyz multiplies the shape out unchecked (it wraps, or panics in a debug build): check
    // the shape first.
    if let Some(shape) = declared_shape(&mut reader)
        && shape_elements(&shape).is_none()
    {
        return Err(format!(
            "{name} has shape {}: more elements than fit in memory",
            format_shape(&shape)
        ));
    }
    let header = NpyHeader::from_reader(&mut reader)
        .map_err(|e| format!("{name} is not a .npy file: {e}"))?;
    let descr = match header.dtype() {
        DType::Plain(t) => t.to_string(),
        other => other.descr(),
    };
    let elem = Elem::from_descr(&descr)
        .ok_or_else(|| format!("{name} has dtype {descr}; supported: {}", accepted_dtypes()))?;
    if header.order() == Order::Fortran {
        return Err(format!(
            "{name} is in Fortran order; save it in C order (numpy.ascontiguousarray)"
        ));
    }
    let expected = shape_elements(header.shape())
        .and_then(|n| n.checked_mul(elem.size()))
        .ok_or_else(|| {
            format!(
                "{name} has shape {}: more elements than fit in memory",
                format_shape(header.shape())
            )
        })?;
    // Not `with_capacity(expected)`: the data present bounds the allocation, not the header.
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() != expected {
        return Err(format!(
            "{name} holds {} data bytes; its header promises {expected} (shape {})",
            bytes.len(),
            format_shape(header.shape())
        ));
    }
    Ok(HostArray {
        elem,
        shape: header.shape().to_vec(),
        bytes,
    })
}

/// The elements of an array of `shape`, if their count fits in memory.
fn shape_elements(shape: &[u64]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .and_then(|n| usize::try_from(n).ok())
}

/// The shape a `.npy` header declares, read without consuming `reader` (`None` if the
/// header is not one this understands: npyz then reports what is wrong with it).
fn declared_shape(reader: &mut BufReader<File>) -> Option<Vec<u64>> {
    let head = reader.fill_buf().ok()?;
    let rest = head.strip_prefix(b"\x93NUMPY")?;
    let (&major, rest) = rest.split_first()?;
    let rest = rest.get(1..)?;
    let (len, rest) = match major {
        1 => (
            usize::from(u16::from_le_bytes(rest.get(..2)?.try_into().ok()?)),
            &rest[2..],
        ),
        _ => (
            u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize,
            &rest[4..],
        ),
    };
    let dict = std::str::from_utf8(rest.get(..len)?).ok()?;
    let tuple = dict
        .split_once("'shape'")?
        .1
        .split_once('(')?
        .1
        .split_once(')')?
        .0;
    tuple
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.trim_end_matches('L').parse().ok())
        .collect()
}

/// Reads a raw little-endian file of `elem` values as a 1-D array.
pub fn read_bin(elem: Elem, path: &Path) -> Result<HostArray, String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() % elem.size() != 0 {
        return Err(format!(
            "{name} has {} bytes, not a whole number of {} elements ({} bytes each)",
            bytes.len(),
            elem.name(),
            elem.size()
        ));
    }
    Ok(HostArray {
        elem,
        shape: vec![(bytes.len() / elem.size()) as u64],
        bytes,
    })
}

/// Writes `bytes` (little-endian `elem` values) as a `.npy` array of `shape`, whole or not at
/// all.
pub fn write_npy(path: &Path, elem: Elem, shape: &[u64], bytes: &[u8]) -> Result<(), String> {
    fn write<T: npyz::Serialize + DeviceCopy>(
        path: &Path,
        elem: Elem,
        shape: &[u64],
        bytes: &[u8],
    ) -> std::io::Result<()> {
        let dtype = DType::Plain(elem.descr().parse().expect("supported dtypes parse"));
        let mut writer = WriteOptions::<T>::new()
            .dtype(dtype)
            .shape(shape)
            .writer(BufWriter::new(File::create(path)?))
            .begin_nd()?;
        writer.extend(runtime::buffer::from_bytes::<T>(bytes))?;
        writer.finish()
    }
    // Whole or not at all: a failed write leaves no partial array behind.
    crate::output::write_whole(path, |temp| {
        let written = match elem {
            Elem::U8 => write::<u8>(temp, elem, shape, bytes),
            Elem::U16 => write::<u16>(temp, elem, shape, bytes),
            Elem::U32 => write::<u32>(temp, elem, shape, bytes),
            Elem::U64 => write::<u64>(temp, elem, shape, bytes),
            Elem::I8 => write::<i8>(temp, elem, shape, bytes),
            Elem::I16 => write::<i16>(temp, elem, shape, bytes),
            Elem::I32 => write::<i32>(temp, elem, shape, bytes),
            Elem::I64 => write::<i64>(temp, elem, shape, bytes),
            Elem::F32 => write::<f32>(temp, elem, shape, bytes),
            Elem::F64 => write::<f64>(temp, elem, shape, bytes),
        };
        written.map_err(|e| format!("cannot write {}: {e}", path.display()))
    })
}

/// A shape the way NumPy prints it: `(4, 250)`, `(1000,)`, `()`.
pub fn format_shape(shape: &[u64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let dims: Vec<_> = shape.iter().map(u64::to_string).collect();
            format!("({})", dims.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trip_keeps_dtype_and_shape() {
        let dir = std::env::temp_dir().join(format!("warpsim-host-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for elem in Elem::ALL {
            let path = dir.join(format!("{}.npy", elem.name()));
            let bytes: Vec<u8> = (0..6 * elem.size()).map(|i| i as u8).collect();
            write_npy(&path, elem, &[2, 3], &bytes).unwrap();
            let back = read_npy(&path).unwrap();
            assert_eq!(
                back,
                HostArray {
                    elem,
                    shape: vec![2, 3],
                    bytes
                }
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shapes_print_like_numpy() {
        assert_eq!(format_shape(&[4, 250]), "(4, 250)");
        assert_eq!(format_shape(&[1000]), "(1000,)");
        assert_eq!(format_shape(&[]), "()");
    }
}
