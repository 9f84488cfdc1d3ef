//! Texture, sampler and surface objects: what the host creates (`cudaCreateTextureObject`,
//! `cudaCreateSurfaceObject`), the device's table that their handles index, and where each
//! texel lies in device memory. [`sample`] has the arithmetic of a lookup.
//!
//! An object describes memory the host allocated (a linear buffer, a pitched 2-D buffer or
//! an array laid out row by row, slice by slice, layer by layer); texels are read from that
//! memory when a kernel samples them, through the same checks as every load, so a texture
//! over a freed buffer faults naming it. A handle is a small integer (1, 2, ...), as CUDA's
//! are, never a device address: a register holding something else is reported, not read.

pub mod sample;

use std::sync::RwLock;

/// The type of each channel of a texel (`cudaChannelFormatDesc`'s kind and size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl ChannelKind {
    pub fn bytes(self) -> u32 {
        match self {
            ChannelKind::U8 | ChannelKind::S8 => 1,
            ChannelKind::U16 | ChannelKind::S16 | ChannelKind::F16 => 2,
            ChannelKind::U32 | ChannelKind::S32 | ChannelKind::F32 => 4,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ChannelKind::F16 | ChannelKind::F32)
    }

    /// Whether a normalized read is defined for it (8- and 16-bit integers).
    pub fn normalizable(self) -> bool {
        matches!(
            self,
            ChannelKind::U8 | ChannelKind::S8 | ChannelKind::U16 | ChannelKind::S16
        )
    }

    pub fn from_name(name: &str) -> Option<ChannelKind> {
        Some(match name {
            "u8" => ChannelKind::U8,
            "s8" => ChannelKind::S8,
            "u16" => ChannelKind::U16,
            "s16" => ChannelKind::S16,
            "u32" => ChannelKind::U32,
            "s32" => ChannelKind::S32,
            "f16" => ChannelKind::F16,
            "f32" => ChannelKind::F32,
            _ => return None,
        })
    }
}

/// A texel's format: 1, 2 or 4 channels of one kind (the hardware has no 3-channel formats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    pub kind: ChannelKind,
    pub channels: u8,
}

impl Format {
    pub fn texel_bytes(self) -> u32 {
        self.kind.bytes() * u32::from(self.channels)
    }
}

/// What a coordinate outside the texture reads (`cudaTextureAddressMode`, numbered as CUDA
/// numbers it, which `txq.addr_mode_N` returns). Wrap and mirror need normalized coordinates;
/// without them they act as clamp, as CUDA specifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    Wrap = 0,
    Clamp = 1,
    Mirror = 2,
    /// Texels outside read as the border colour, zero.
    Border = 3,
}

impl AddressMode {
    pub fn from_name(name: &str) -> Option<AddressMode> {
        Some(match name {
            "wrap" => AddressMode::Wrap,
            "clamp" => AddressMode::Clamp,
            "mirror" => AddressMode::Mirror,
            "border" => AddressMode::Border,
            _ => return None,
        })
    }
}

/// `cudaTextureFilterMode` (CUDA's numbers, which `txq.filter_mode` returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterMode {
    Point = 0,
    Linear = 1,
}

/// `cudaTextureReadMode`: integer texels as they are, or as floats in [0, 1] (unsigned) and
/// [-1, 1] (signed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadMode {
    #[default]
    ElementType,
    NormalizedFloat,
}

/// How a texture is sampled: a texture's own (unified mode) or a sampler object's
/// (independent mode, `tex [t, s, c]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerState {
    pub address: [AddressMode; 3],
    pub filter: FilterMode,
    pub normalized_coords: bool,
}

impl Default for SamplerState {
    /// What a zeroed `cudaTextureDesc` gives: wrap (CUDA's 0), point sampling, unnormalized
    /// coordinates (where wrap acts as clamp).
    fn default() -> SamplerState {
        SamplerState {
            address: [AddressMode::Wrap; 3],
            filter: FilterMode::Point,
            normalized_coords: false,
        }
    }
}

/// How the memory behind an object is laid out (`cudaResourceType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// A linear buffer of texels (`tex1Dfetch`): no filtering or address modes; indices outside
    /// read zero.
    Linear,
    /// A 2-D buffer with a row pitch.
    Pitch2D,
    /// An array (`cudaArray`): 1-D, 2-D or 3-D, optionally layered, texels row by row.
    Array,
}

/// Where an object's texels are: texel (x, y, z) of layer `l` is at
/// `base + l·layer_pitch + z·slice_pitch + y·row_pitch + x·texel_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub kind: ResourceKind,
    pub base: u64,
    pub format: Format,
    /// Dimensions of one layer (1, 2 or 3).
    pub dims: u8,
    /// Texels along x, y, z (1 beyond `dims`).
    pub extent: [u32; 3],
    /// Layers of a layered array; 0 when not layered.
    pub layers: u32,
    pub row_pitch: u64,
    pub slice_pitch: u64,
    pub layer_pitch: u64,
}

impl Layout {
    /// The layout of an array of `extent` texels (`extent[d]` = 1 beyond `dims`), densely
    /// packed, with `layers` layers (0: not layered).
    pub fn array(base: u64, format: Format, dims: u8, extent: [u32; 3], layers: u32) -> Layout {
        let row_pitch = u64::from(extent[0]) * u64::from(format.texel_bytes());
        let slice_pitch = row_pitch * u64::from(extent[1]);
        Layout {
            kind: ResourceKind::Array,
            base,
            format,
            dims,
            extent,
            layers,
            row_pitch,
            slice_pitch,
            layer_pitch: slice_pitch * u64::from(extent[2]),
        }
    }

    /// A linear buffer of `texels` texels.
    pub fn linear(base: u64, format: Format, texels: u32) -> Layout {
        Layout {
            kind: ResourceKind::Linear,
            ..Layout::array(base, format, 1, [texels, 1, 1], 0)
        }
    }

    /// A pitched 2-D buffer.
    pub fn pitch_2d(base: u64, format: Format, width: u32, height: u32, pitch: u64) -> Layout {
        Layout {
            kind: ResourceKind::Pitch2D,
            row_pitch: pitch,
            slice_pitch: pitch * u64::from(height),
            layer_pitch: pitch * u64::from(height),
            ..Layout::array(base, format, 2, [width, height, 1], 0)
        }
    }

    /// Bytes from `base` to the end of the last texel.
    pub fn span_bytes(&self) -> u64 {
        let [w, h, d] = self.extent.map(u64::from);
        let last_layer = u64::from(self.layers.max(1)) - 1;
        last_layer * self.layer_pitch
            + (d - 1) * self.slice_pitch
            + (h - 1) * self.row_pitch
            + w * u64::from(self.format.texel_bytes())
    }

    /// The device address of texel `at` (inside the extent) of layer `layer`.
    pub fn texel_address(&self, layer: u32, at: [u32; 3]) -> u64 {
        self.base
            + u64::from(layer) * self.layer_pitch
            + u64::from(at[2]) * self.slice_pitch
            + u64::from(at[1]) * self.row_pitch
            + u64::from(at[0]) * u64::from(self.format.texel_bytes())
    }

    /// "2-D, 64 × 32 texels of 4 bytes" and the like, for messages.
    pub fn describe(&self) -> String {
        let dims = &self.extent[..usize::from(self.dims)];
        let sizes: Vec<String> = dims.iter().map(u32::to_string).collect();
        let layers = if self.layers > 0 {
            format!(", {} layers", self.layers)
        } else {
            String::new()
        };
        format!(
            "{}-D, {} texels of {} bytes{layers}",
            self.dims,
            sizes.join(" × "),
            self.format.texel_bytes()
        )
    }
}

/// A texture object: memory, how it is sampled, and how its texels read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Texture {
    pub layout: Layout,
    pub sampler: SamplerState,
    pub read_mode: ReadMode,
}

impl Texture {
    /// Whether lookups return floats (float texels, or integers read normalized): what
    /// linear filtering needs.
    pub fn returns_float(&self) -> bool {
        self.layout.format.kind.is_float() || self.read_mode == ReadMode::NormalizedFloat
    }
}

/// A surface object: memory read and written by byte x coordinate (`suld.b`, `sust.b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Surface {
    pub layout: Layout,
}

/// Any object a handle may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resource {
    Texture(Texture),
    Sampler(SamplerState),
    Surface(Surface),
}

impl Resource {
    pub fn kind_name(&self) -> &'static str {
        match self {
            Resource::Texture(_) => "texture",
            Resource::Sampler(_) => "sampler",
            Resource::Surface(_) => "surface",
        }
    }
}

/// The device's objects by handle (handle `h` is entry `h - 1`; 0 is never a handle).
/// Destroyed entries stay empty, so a stale handle is reported rather than reused.
#[derive(Debug, Default)]
pub struct Resources {
    objects: RwLock<Vec<Option<Resource>>>,
}

impl Resources {
    /// Registers `r` and returns its handle.
    pub fn create(&self, r: Resource) -> u64 {
        let mut objects = self.objects.write().expect("resource table lock");
        objects.push(Some(r));
        objects.len() as u64
    }

    /// Destroys the object of `handle`; false if there is none.
    pub fn destroy(&self, handle: u64) -> bool {
        let mut objects = self.objects.write().expect("resource table lock");
        let slot = handle
            .checked_sub(1)
            .and_then(|i| objects.get_mut(usize::try_from(i).ok()?));
        slot.and_then(Option::take).is_some()
    }

    /// The object of `handle`, if it is live.
    pub fn get(&self, handle: u64) -> Option<Resource> {
        let i = usize::try_from(handle.checked_sub(1)?).ok()?;
        *self.objects.read().expect("resource table lock").get(i)?
    }

    /// Whether no object is live.
    pub fn is_empty(&self) -> bool {
        self.objects
            .read()
            .expect("resource table lock")
            .iter()
            .all(Option::is_none)
    }
}
