//! Textures, samplers and surfaces on the host side: arrays (`cudaMalloc3DArray`), texture
//! objects over arrays, linear and pitched buffers (`cudaCreateTextureObject`), surface objects
//! (`cudaCreateSurfaceObject`), sampler objects for PTX's independent mode, and binding them
//! to a module's `.texref`, `.samplerref` and `.surfref` variables ([`Module::bind`]).
//!
//! Objects are handles (`u64`, what a kernel receives as a `cudaTextureObject_t`): pass one as
//! [`Arg::U64`](crate::Arg::U64). They read the memory they describe when a kernel samples
//! it, so the memory must outlive their use; a lookup in freed memory faults naming it.

use crate::DeviceBuffer;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::module::Module;
pub use emulator::texture::{
    AddressMode, ChannelKind, FilterMode, Format, Layout, ReadMode, Resource, SamplerState,
};
use emulator::texture::{Surface, Texture};
use isa::Opaque;

/// The largest extent of an array dimension (CUDA's 3-D limit on recent GPUs).
pub const MAX_ARRAY_EXTENT: u32 = 16384;

/// A CUDA array: texels in a device allocation, row by row, slice by slice, layer by layer;
/// freed when dropped.
pub struct DeviceArray {
    buffer: DeviceBuffer<u8>,
    layout: Layout,
}

impl DeviceArray {
    /// Where and how the texels lie.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Bytes of all texels.
    pub fn size_bytes(&self) -> usize {
        self.buffer.len()
    }

    /// Copies every texel from the host (`cudaMemcpy3D` of the whole array): `data` holds
    /// exactly [`size_bytes`](Self::size_bytes) bytes, texels in the array's order.
    pub fn write(&self, data: &[u8]) -> Result<()> {
        if data.len() != self.buffer.len() {
            return Err(Error::InvalidValue(format!(
                "{} bytes for an array of {} bytes ({})",
                data.len(),
                self.buffer.len(),
                self.layout.describe()
            )));
        }
        self.buffer.copy_from_host(data)
    }

    /// Copies every texel to the host.
    pub fn read(&self) -> Result<Vec<u8>> {
        self.buffer.to_host()
    }
}

/// The memory a texture reads (`cudaResourceDesc`).
pub enum TextureResource<'a> {
    /// `texels` texels of `format` at device address `ptr` (`tex1Dfetch`).
    Linear {
        ptr: u64,
        format: Format,
        texels: u32,
    },
    /// `height` rows of `width` texels, `pitch` bytes apart, at `ptr`.
    Pitch2D {
        ptr: u64,
        format: Format,
        width: u32,
        height: u32,
        pitch: u64,
    },
    Array(&'a DeviceArray),
}

/// How a texture is sampled and read (`cudaTextureDesc`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureDesc {
    pub sampler: SamplerState,
    pub read_mode: ReadMode,
}

fn check_format(format: Format) -> Result<()> {
    if matches!(format.channels, 1 | 2 | 4) {
        Ok(())
    } else {
        Err(Error::InvalidValue(format!(
            "{} channels per texel (1, 2 or 4)",
            format.channels
        )))
    }
}

impl Device {
    /// Allocates an array (`cudaMalloc3DArray`): `extent` is width, height, depth in texels,
    /// 0 for the dimensions a 1-D or 2-D array does not have; with `layered`, the depth counts
    /// layers, as in CUDA: (w, 0, L) is L 1-D layers, (w, h, L) L 2-D layers.
    pub fn create_array(
        &self,
        format: Format,
        extent: [u32; 3],
        layered: bool,
    ) -> Result<DeviceArray> {
        check_format(format)?;
        let [w, h, d] = extent;
        let bad = |why: &str| Error::InvalidValue(format!("array extent {w} × {h} × {d}: {why}"));
        if w == 0 {
            return Err(bad("the width must be at least 1"));
        }
        if extent.iter().any(|e| *e > MAX_ARRAY_EXTENT) {
            return Err(bad(&format!(
                "at most {MAX_ARRAY_EXTENT} texels per dimension"
            )));
        }
        let (dims, size, layers) = match (h, d, layered) {
            (0, 0, false) => (1, [w, 1, 1], 0),
            (_, 0, false) => (2, [w, h, 1], 0),
            (0, _, false) => return Err(bad("a 3-D array needs a height")),
            (_, _, false) => (3, [w, h, d], 0),
            (_, 0, true) => return Err(bad("a layered array needs its layer count as depth")),
            (0, l, true) => (1, [w, 1, 1], l),
            (_, l, true) => (2, [w, h, 1], l),
        };
        let layout0 = Layout::array(0, format, dims, size, layers);
        let bytes = usize::try_from(layout0.span_bytes())
            .map_err(|_| bad("larger than the address space"))?;
        let buffer = self.alloc::<u8>(bytes)?;
        buffer.set_label(format!("array ({})", layout0.describe()));
        let layout = Layout {
            base: buffer.device_ptr(),
            ..layout0
        };
        Ok(DeviceArray { buffer, layout })
    }

    /// Creates a texture object (`cudaCreateTextureObject`) and returns its handle.
    pub fn create_texture(&self, resource: &TextureResource, desc: &TextureDesc) -> Result<u64> {
        let layout = match *resource {
            TextureResource::Linear {
                ptr,
                format,
                texels,
            } => {
                check_format(format)?;
                if texels == 0 {
                    return Err(Error::InvalidValue("a linear texture of 0 texels".into()));
                }
                let l = Layout::linear(ptr, format, texels);
                self.check_memory(&l, "linear texture")?;
                l
            }
            TextureResource::Pitch2D {
                ptr,
                format,
                width,
                height,
                pitch,
            } => {
                check_format(format)?;
                if width == 0 || height == 0 {
                    return Err(Error::InvalidValue(format!(
                        "a pitched texture of {width} × {height} texels"
                    )));
                }
                if pitch.checked_mul(u64::from(height)).is_none() {
                    return Err(Error::InvalidValue(format!(
                        "pitch {pitch} bytes × {height} rows overflows the address space"
                    )));
                }
                let row = u64::from(width) * u64::from(format.texel_bytes());
                if pitch < row || !pitch.is_multiple_of(32) {
                    return Err(Error::InvalidValue(format!(
                        "pitch {pitch} bytes: at least the row's {row} bytes, and a multiple \
                         of 32 (the texture pitch alignment)"
                    )));
                }
                let l = Layout::pitch_2d(ptr, format, width, height, pitch);
                self.check_memory(&l, "pitched texture")?;
                l
            }
            TextureResource::Array(a) => a.layout,
        };
        let texture = Texture {
            layout,
            sampler: desc.sampler,
            read_mode: desc.read_mode,
        };
        let kind = layout.format.kind;
        if desc.read_mode == ReadMode::NormalizedFloat && !kind.normalizable() && !kind.is_float() {
            return Err(Error::InvalidValue(format!(
                "normalized reads of {kind:?} texels (only 8- and 16-bit integers normalize)"
            )));
        }
        if desc.sampler.filter == FilterMode::Linear && !texture.returns_float() {
            return Err(Error::InvalidValue(
                "linear filtering of integer texels read as integers (use float texels or \
                 ReadMode::NormalizedFloat)"
                    .into(),
            ));
        }
        Ok(self.memory().resources().create(Resource::Texture(texture)))
    }

    /// Creates a surface object over an array (`cudaCreateSurfaceObject`).
    pub fn create_surface(&self, array: &DeviceArray) -> Result<u64> {
        Ok(self.memory().resources().create(Resource::Surface(Surface {
            layout: array.layout,
        })))
    }

    /// Creates a sampler object, for `tex [t, s, c]` (PTX's independent mode).
    pub fn create_sampler(&self, sampler: SamplerState) -> Result<u64> {
        Ok(self.memory().resources().create(Resource::Sampler(sampler)))
    }

    /// Destroys a texture, surface or sampler object (`cudaDestroyTextureObject`).
    pub fn destroy_object(&self, handle: u64) -> Result<()> {
        if self.memory().resources().destroy(handle) {
            Ok(())
        } else {
            Err(Error::InvalidValue(format!(
                "{handle} is not a live texture, surface or sampler handle"
            )))
        }
    }

    /// Checks that a linear or pitched texture's texels lie in one live allocation, from a
    /// 16-byte aligned start.
    fn check_memory(&self, layout: &Layout, what: &str) -> Result<()> {
        if !layout.base.is_multiple_of(16) {
            return Err(Error::InvalidValue(format!(
                "{what} at {:#x}: texture memory must be 16-byte aligned",
                layout.base
            )));
        }
        let len = layout.span_bytes();
        match self.memory().allocation_of(layout.base, len) {
            Some(_) => Ok(()),
            None => Err(Error::InvalidValue(format!(
                "{what} ({}) at {:#x}: {}",
                layout.describe(),
                layout.base,
                self.memory().describe_access(layout.base, len)
            ))),
        }
    }
}

impl Module {
    /// The kind of the module's opaque variable `name` (`.texref`, `.samplerref`,
    /// `.surfref`), if it has one of that name.
    pub fn reference_kind(&self, name: &str) -> Option<Opaque> {
        let globals = &self.program.module.globals;
        globals
            .iter()
            .find(|g| g.name == name)
            .and_then(|g| g.opaque)
    }

    /// Binds a texture, sampler or surface object to the module's `.texref`, `.samplerref` or
    /// `.surfref` variable `name` (`cudaBindTextureToArray` of texture references).
    pub fn bind(&self, name: &str, handle: u64) -> Result<()> {
        let var = self
            .program
            .module
            .globals
            .iter()
            .find(|g| g.name == name)
            .ok_or_else(|| Error::InvalidValue(format!("no variable `{name}` in {}", self.file)))?;
        let Some(kind) = var.opaque else {
            return Err(Error::InvalidValue(format!(
                "`{name}` is not a `.texref`, `.samplerref` or `.surfref` variable"
            )));
        };
        let object =
            self.mem.resources().get(handle).ok_or_else(|| {
                Error::InvalidValue(format!("{handle} is not a live object handle"))
            })?;
        let matches = matches!(
            (kind, object),
            (Opaque::Texture, Resource::Texture(_))
                | (Opaque::Sampler, Resource::Sampler(_))
                | (Opaque::Surface, Resource::Surface(_))
        );
        if !matches {
            return Err(Error::InvalidValue(format!(
                "`.{} {name}` cannot be bound to a {}",
                kind.type_name(),
                object.kind_name()
            )));
        }
        self.write_symbol(name, 0, &handle.to_le_bytes())
    }
}
