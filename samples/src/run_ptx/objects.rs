//! `--texture`, `--surface` and `--out-surface`: device arrays (or linear buffers) filled from
//! `.npy` files, texture and surface objects over them, each bound to the module's `.texref`
//! or `.surfref` of its name when there is one and passed to kernels by `--arg tex:NAME` /
//! `--arg surf:NAME`; surfaces written back to `.npy` after the last launch.

use super::host;
use super::spec::{Elem, ObjectSpec, OutSurfaceSpec};
use runtime::texture::{ChannelKind, Format};
use runtime::{Device, DeviceArray, DeviceBuffer, Module, TextureDesc, TextureResource};

/// The memory an object reads.
enum Memory {
    Array(DeviceArray),
    Linear(DeviceBuffer<u8>),
}

/// A texture or surface made from the command line.
pub(super) struct Object {
    name: String,
    surface: bool,
    handle: u64,
    memory: Memory,
    elem: Elem,
    shape: Vec<u64>,
}

/// The channel kind of a `.npy` element type.
fn channel_kind(elem: Elem) -> Option<ChannelKind> {
    Some(match elem {
        Elem::U8 => ChannelKind::U8,
        Elem::I8 => ChannelKind::S8,
        Elem::U16 => ChannelKind::U16,
        Elem::I16 => ChannelKind::S16,
        Elem::U32 => ChannelKind::U32,
        Elem::I32 => ChannelKind::S32,
        Elem::F32 => ChannelKind::F32,
        Elem::U64 | Elem::I64 | Elem::F64 => return None,
    })
}

/// The array extent (width, height, depth; 0 where absent, the layer count as depth when
/// layered) of an `.npy` shape: C order, [layers,] [[depth,] height,] width [, channels].
fn extent(spec: &ObjectSpec, shape: &[u64]) -> Result<[u32; 3], String> {
    let mut axes = shape.to_vec();
    if spec.channels > 1 {
        match axes.pop() {
            Some(c) if c == u64::from(spec.channels) => {}
            _ => {
                return Err(format!(
                    "channels={} needs a last axis of {} (the shape is {})",
                    spec.channels,
                    spec.channels,
                    host::format_shape(shape)
                ));
            }
        }
    }
    let layers = match spec.layered {
        true if axes.len() < 2 => {
            return Err(format!(
                "layered needs a layer axis and a layer's (the shape is {})",
                host::format_shape(shape)
            ));
        }
        true => Some(axes.remove(0)),
        false => None,
    };
    let most = if spec.linear {
        1
    } else if spec.layered {
        2
    } else {
        3
    };
    if axes.is_empty() || axes.len() > most {
        return Err(format!(
            "a shape of {} gives {} dimensions; {} takes 1 to {most}",
            host::format_shape(shape),
            axes.len(),
            if spec.linear {
                "a linear buffer"
            } else if spec.layered {
                "a layered array"
            } else {
                "an array"
            }
        ));
    }
    axes.reverse();
    let mut out = [0u32; 3];
    for (o, a) in out.iter_mut().zip(&axes) {
        *o = u32::try_from(*a).map_err(|_| format!("an extent of {a} texels is too large"))?;
    }
    if let Some(l) = layers {
        out[2] = u32::try_from(l).map_err(|_| format!("{l} layers are too many"))?;
    }
    Ok(out)
}

fn create_one(
    dev: &Device,
    module: &Module,
    spec: &ObjectSpec,
    surface: bool,
) -> Result<Object, String> {
    let array = host::read_npy(&spec.path)?;
    let kind = channel_kind(array.elem).ok_or_else(|| {
        format!(
            "{} elements have no texel format (8-, 16- and 32-bit integers, f32)",
            array.elem.name()
        )
    })?;
    let format = Format {
        kind,
        channels: spec.channels,
    };
    let ext = extent(spec, &array.shape)?;
    let desc = TextureDesc {
        sampler: spec.sampler,
        read_mode: spec.read_mode,
    };
    let e = |e: runtime::Error| e.to_string();
    let (handle, memory) = if spec.linear {
        let buffer = dev.alloc_from(&array.bytes).map_err(e)?;
        let resource = TextureResource::Linear {
            ptr: buffer.device_ptr(),
            format,
            texels: ext[0],
        };
        let handle = dev.create_texture(&resource, &desc).map_err(e)?;
        (handle, Memory::Linear(buffer))
    } else {
        let a = dev.create_array(format, ext, spec.layered).map_err(e)?;
        a.write(&array.bytes).map_err(e)?;
        let handle = if surface {
            dev.create_surface(&a)
        } else {
            dev.create_texture(&TextureResource::Array(&a), &desc)
        }
        .map_err(e)?;
        (handle, Memory::Array(a))
    };
    if module.reference_kind(&spec.name).is_some() {
        module.bind(&spec.name, handle).map_err(e)?;
    }
    Ok(Object {
        name: spec.name.clone(),
        surface,
        handle,
        memory,
        elem: array.elem,
        shape: array.shape,
    })
}

/// Creates the objects of `--texture` and `--surface`, binding those named like one of the
/// module's references.
pub(super) fn create(
    dev: &Device,
    module: &Module,
    textures: &[ObjectSpec],
    surfaces: &[ObjectSpec],
) -> Result<Vec<Object>, String> {
    let specs = textures
        .iter()
        .map(|s| (s, false))
        .chain(surfaces.iter().map(|s| (s, true)));
    let mut out: Vec<Object> = Vec::new();
    for (spec, surface) in specs {
        let option = if surface { "--surface" } else { "--texture" };
        if out.iter().any(|o| o.name == spec.name) {
            return Err(format!(
                "error: {option} {}: a texture or surface named `{}` is already given",
                spec.text, spec.name
            ));
        }
        out.push(
            create_one(dev, module, spec, surface)
                .map_err(|why| format!("error: {option} {}: {why}", spec.text))?,
        );
    }
    Ok(out)
}

/// The handle `--arg tex:NAME` (or `surf:NAME`) passes.
pub(super) fn handle(objects: &[Object], name: &str, surface: bool) -> Result<u64, String> {
    let (form, option) = if surface {
        ("surf", "--surface")
    } else {
        ("tex", "--texture")
    };
    match objects.iter().find(|o| o.name == name) {
        Some(o) if o.surface == surface => Ok(o.handle),
        Some(_) => Err(format!(
            "error: --arg {form}:{name}: `{name}` is not a {option} object"
        )),
        None => Err(format!(
            "error: --arg {form}:{name}: no {option} {name}=... on the command line"
        )),
    }
}

/// Writes each `--out-surface` surface's texels to its `.npy` file, in the shape and dtype it
/// was read with.
pub(super) fn write_back(objects: &[Object], outs: &[OutSurfaceSpec]) -> Result<(), String> {
    for out in outs {
        let bad = |why: String| format!("error: --out-surface {}: {why}", out.name);
        let object = objects
            .iter()
            .find(|o| o.name == out.name && o.surface)
            .ok_or_else(|| bad(format!("no --surface {}=... on the command line", out.name)))?;
        let bytes = match &object.memory {
            Memory::Array(a) => a.read(),
            Memory::Linear(b) => b.to_host(),
        }
        .map_err(|e| bad(e.to_string()))?;
        host::write_npy(&out.path, object.elem, &object.shape, &bytes).map_err(bad)?;
        println!(
            "wrote surface {} ({} {}) to {}",
            out.name,
            object.elem.descr(),
            host::format_shape(&object.shape),
            out.path.display()
        );
    }
    Ok(())
}
