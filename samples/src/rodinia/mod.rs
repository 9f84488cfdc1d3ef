//! Ports of the Rodinia 3.1 benchmarks, written for warpsim: each keeps Rodinia's kernel names,
//! block sizes, launch sequence and host-side iteration, with its own CUDA sources under
//! `samples/rodinia/<name>/`, seeded inputs and a CPU reference in Rust.

pub mod backprop;
pub mod bfs;
pub mod bptree;
pub mod cfd;
pub mod dwt2d;
pub mod gaussian;
pub mod heartwall;
pub mod hotspot;
pub mod hotspot3d;
pub mod huffman;
pub mod hybridsort;
pub mod kmeans;
pub mod lavamd;
pub mod leukocyte;
pub mod lud;
pub mod myocyte;
pub mod nn;
pub mod nw;
pub mod particlefilter;
pub mod pathfinder;
pub mod sradv1;
pub mod sradv2;
pub mod streamcluster;

use runtime::texture::{ChannelKind, Format};
use runtime::{Device, DeviceBuffer, Module, TextureDesc, TextureResource};

/// A linear texture (`tex1Dfetch`; indices outside read zero) of `texels` texels of `channels`
/// f32 channels at device address `ptr`: what Rodinia's `cudaBindTexture` binds a texture
/// reference to, for the `*-textures` variants.
pub(crate) fn linear_texture(
    dev: &Device,
    ptr: u64,
    channels: u8,
    texels: usize,
) -> runtime::Result<u64> {
    let resource = TextureResource::Linear {
        ptr,
        format: Format {
            kind: ChannelKind::F32,
            channels,
        },
        texels: u32::try_from(texels)
            .map_err(|_| runtime::Error::InvalidValue(format!("{texels} texels")))?,
    };
    dev.create_texture(&resource, &TextureDesc::default())
}

/// Binds the module's `.texref NAME` to a linear f32 texture over all of `buffer`.
pub(crate) fn bind_linear(
    dev: &Device,
    module: &Module,
    name: &str,
    buffer: &DeviceBuffer<f32>,
) -> runtime::Result<()> {
    module.bind(
        name,
        linear_texture(dev, buffer.device_ptr(), 1, buffer.len())?,
    )
}
