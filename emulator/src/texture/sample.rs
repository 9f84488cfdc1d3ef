//! The arithmetic of a texture lookup, after the CUDA C Programming Guide's "Texture
//! Fetching" appendix: coordinates scaled when normalized, address modes, nearest-point and
//! linear filtering with 8-bit fractional weights, texel channels converted by the read mode.
//!
//! Where the guide leaves a choice, warpsim's (docs/ptx.md lists them):
//! - Address modes act on texel indices: wrap is the index modulo the size, mirror reflects
//!   it with period twice the size, clamp clamps it, border reads the border colour (zero).
//!   For a normalized coordinate u this is the guide's frac(u) (wrap) and its reflection
//!   (mirror), up to the rounding of u·N.
//! - A weight α = frac(x − 0.5) is rounded to the nearest multiple of 1/256 (ties away from
//!   zero): the guide's "9-bit fixed point format with 8 bits of fractional value".
//! - Filtering is `lerp(a, b, t) = (1 − t)·a + t·b` in f32, along x, then y, then z.
//! - Channels a format lacks read as 0, and the fourth as 1 (1.0 for float results), as
//!   Direct3D and OpenGL define for the same hardware.
//! - A layer index past the last layer reads the last layer.

use super::{AddressMode, ChannelKind, FilterMode, ResourceKind, SamplerState, Texture};
use crate::alu::round::{self, Format as FloatFormat};
use isa::Rounding;

/// A lookup's coordinates: texel indices (`.s32`, never filtered) or floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coords {
    Int([i32; 3]),
    Float([f32; 3]),
}

/// Reads `bytes` bytes (at most 8) at a device address.
pub type Read<'a, E> = dyn FnMut(u64, u32) -> Result<u64, E> + 'a;

/// The four 32-bit results of sampling `tex` at `coords` (plus `offset` texels) in layer
/// `layer`: f32 bits when the texture returns floats, integers otherwise.
pub fn lookup<E>(
    tex: &Texture,
    sampler: &SamplerState,
    layer: u32,
    coords: Coords,
    offset: [i32; 3],
    read: &mut Read<E>,
) -> Result<[u32; 4], E> {
    let dims = usize::from(tex.layout.dims);
    let layer = clamp_layer(tex, layer);
    let x = match coords {
        Coords::Int(c) => {
            let at = std::array::from_fn(|d| i64::from(c[d]) + i64::from(offset[d]));
            return fetch(tex, sampler, layer, at, read);
        }
        Coords::Float(c) => scaled(tex, sampler, c, offset),
    };
    if sampler.filter == FilterMode::Point || !tex.returns_float() {
        let at = std::array::from_fn(|d| floor_index(x[d]));
        return fetch(tex, sampler, layer, at, read);
    }
    // Linear filtering: the 2^dims texels around x - 0.5, weighted by the 8-bit fractions.
    let mut base = [0i64; 3];
    let mut weight = [0f32; 3];
    for d in 0..dims {
        let xb = x[d] - 0.5;
        base[d] = floor_index(xb);
        weight[d] = quantize_weight(xb - xb.floor());
    }
    let mut corners = [[0f32; 4]; 8];
    for (k, corner) in corners.iter_mut().enumerate().take(1 << dims) {
        let at = std::array::from_fn(|d| base[d] + ((k >> d) & 1) as i64);
        *corner = fetch(tex, sampler, layer, at, read)?.map(f32::from_bits);
    }
    // Fold along x, then y, then z: corner k's bit d says which side of dimension d it is.
    let mut n = 1 << dims;
    for w in weight.iter().take(dims) {
        n /= 2;
        for k in 0..n {
            let (lo, hi) = (corners[2 * k], corners[2 * k + 1]);
            corners[k] = std::array::from_fn(|c| lerp(lo[c], hi[c], *w));
        }
    }
    Ok(corners[0].map(f32::to_bits))
}

/// `tld4`: channel `channel` of the four texels a bilinear lookup at `coords` reads, counter-
/// clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
pub fn gather<E>(
    tex: &Texture,
    sampler: &SamplerState,
    layer: u32,
    coords: [f32; 2],
    offset: [i32; 2],
    channel: usize,
    read: &mut Read<E>,
) -> Result<[u32; 4], E> {
    let layer = clamp_layer(tex, layer);
    let x = scaled(
        tex,
        sampler,
        [coords[0], coords[1], 0.0],
        [offset[0], offset[1], 0],
    );
    let (i, j) = (floor_index(x[0] - 0.5), floor_index(x[1] - 0.5));
    let mut out = [0u32; 4];
    for (o, (di, dj)) in out.iter_mut().zip([(0, 1), (1, 1), (1, 0), (0, 0)]) {
        *o = fetch(tex, sampler, layer, [i + di, j + dj, 0], read)?[channel];
    }
    Ok(out)
}

/// Coordinates in texels: scaled by the extent when normalized, offset, for the texture's
/// dimensions (the rest 0).
fn scaled(tex: &Texture, sampler: &SamplerState, c: [f32; 3], offset: [i32; 3]) -> [f32; 3] {
    std::array::from_fn(|d| {
        if d >= usize::from(tex.layout.dims) {
            return 0.0;
        }
        let scale = if sampler.normalized_coords {
            tex.layout.extent[d] as f32
        } else {
            1.0
        };
        c[d] * scale + offset[d] as f32
    })
}

fn clamp_layer(tex: &Texture, layer: u32) -> u32 {
    layer.min(tex.layout.layers.saturating_sub(1))
}

/// ⌊x⌋ as an index (saturating; NaN gives 0).
fn floor_index(x: f32) -> i64 {
    x.floor() as i64
}

/// A filter weight in [0, 1) rounded to 8 fractional bits.
fn quantize_weight(frac: f32) -> f32 {
    (frac * 256.0).round() / 256.0
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    (1.0 - t) * a + t * b
}

/// The texel at index `at` (address modes applied), its channels converted: the border
/// colour, zero, for an index outside in border mode (and always for a linear buffer).
fn fetch<E>(
    tex: &Texture,
    sampler: &SamplerState,
    layer: u32,
    at: [i64; 3],
    read: &mut Read<E>,
) -> Result<[u32; 4], E> {
    let layout = &tex.layout;
    let mut index = [0u32; 3];
    for d in 0..usize::from(layout.dims) {
        let mode = match layout.kind {
            ResourceKind::Linear => AddressMode::Border,
            _ => sampler.address[d],
        };
        match map_index(at[d], i64::from(layout.extent[d]), mode, sampler) {
            Some(i) => index[d] = i as u32,
            None => return Ok([0; 4]),
        }
    }
    let addr = layout.texel_address(layer, index);
    let kind = layout.format.kind;
    let mut raw = [0u64; 4];
    for (c, r) in raw
        .iter_mut()
        .enumerate()
        .take(usize::from(layout.format.channels))
    {
        *r = read(addr + c as u64 * u64::from(kind.bytes()), kind.bytes())?;
    }
    Ok(channels(tex, raw))
}

/// Index `i` of a dimension of `n` texels under `mode`; `None` for the border.
fn map_index(i: i64, n: i64, mode: AddressMode, sampler: &SamplerState) -> Option<i64> {
    let mode = match mode {
        AddressMode::Wrap | AddressMode::Mirror if !sampler.normalized_coords => AddressMode::Clamp,
        m => m,
    };
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Border => (0..n).contains(&i).then_some(i),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let j = i.rem_euclid(2 * n);
            Some(if j >= n { 2 * n - 1 - j } else { j })
        }
    }
}

/// A texel's channels as a lookup returns them (see the module docs for missing ones).
fn channels(tex: &Texture, raw: [u64; 4]) -> [u32; 4] {
    let kind = tex.layout.format.kind;
    let float = tex.returns_float();
    let present = usize::from(tex.layout.format.channels);
    std::array::from_fn(|c| {
        if c >= present {
            return match (c, float) {
                (3, true) => 1f32.to_bits(),
                (3, false) => 1,
                _ => 0,
            };
        }
        let v = raw[c];
        match kind {
            ChannelKind::F32 => v as u32,
            ChannelKind::F16 => {
                round::convert(FloatFormat::F16, FloatFormat::F32, v, Rounding::Rn) as u32
            }
            _ if float => normalized(kind, v).to_bits(),
            ChannelKind::U8 | ChannelKind::U16 | ChannelKind::U32 => v as u32,
            ChannelKind::S8 => v as u8 as i8 as i32 as u32,
            ChannelKind::S16 => v as u16 as i16 as i32 as u32,
            ChannelKind::S32 => v as u32,
        }
    })
}

/// An 8- or 16-bit integer read as a normalized float: unsigned to [0, 1], signed to
/// [-1, 1] (the most negative value clamped to -1).
fn normalized(kind: ChannelKind, v: u64) -> f32 {
    match kind {
        ChannelKind::U8 => f32::from(v as u8) / 255.0,
        ChannelKind::U16 => f32::from(v as u16) / 65535.0,
        ChannelKind::S8 => (f32::from(v as u8 as i8) / 127.0).max(-1.0),
        ChannelKind::S16 => (f32::from(v as u16 as i16) / 32767.0).max(-1.0),
        _ => unreachable!("normalized read of a 32-bit or float channel"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::{Format, Layout, ReadMode};

    /// A 1-D f32 array texture over `values`, stored at address 0 of a byte vector.
    fn texture_1d(values: &[f32], sampler: SamplerState) -> (Texture, Vec<u8>) {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let format = Format {
            kind: ChannelKind::F32,
            channels: 1,
        };
        let layout = Layout::array(0, format, 1, [values.len() as u32, 1, 1], 0);
        let tex = Texture {
            layout,
            sampler,
            read_mode: ReadMode::ElementType,
        };
        (tex, bytes)
    }

    fn sample_1d(values: &[f32], sampler: SamplerState, x: f32) -> f32 {
        let (tex, mem) = texture_1d(values, sampler);
        let mut read = |a: u64, n: u32| -> Result<u64, ()> {
            let mut b = [0u8; 8];
            b[..n as usize].copy_from_slice(&mem[a as usize..a as usize + n as usize]);
            Ok(u64::from_le_bytes(b))
        };
        let r = lookup(
            &tex,
            &sampler,
            0,
            Coords::Float([x, 0.0, 0.0]),
            [0; 3],
            &mut read,
        );
        f32::from_bits(r.unwrap()[0])
    }

    fn sampler(filter: FilterMode, mode: AddressMode, normalized: bool) -> SamplerState {
        SamplerState {
            address: [mode; 3],
            filter,
            normalized_coords: normalized,
        }
    }

    #[test]
    fn point_sampling_floors_the_coordinate() {
        let s = sampler(FilterMode::Point, AddressMode::Clamp, false);
        let t = [10.0, 20.0, 30.0, 40.0];
        assert_eq!(sample_1d(&t, s, 0.0), 10.0);
        assert_eq!(sample_1d(&t, s, 1.99), 20.0);
        assert_eq!(sample_1d(&t, s, -3.0), 10.0);
        assert_eq!(sample_1d(&t, s, 7.5), 40.0);
    }

    #[test]
    fn linear_filtering_weighs_the_neighbours() {
        let s = sampler(FilterMode::Linear, AddressMode::Clamp, false);
        let t = [0.0, 256.0, 512.0, 768.0];
        // x = 1.25: x - 0.5 = 0.75 between texels 0 and 1.
        assert_eq!(sample_1d(&t, s, 1.25), 192.0);
        // Texel centres return the texel.
        assert_eq!(sample_1d(&t, s, 2.5), 512.0);
        // Weights are rounded to 1/256: 0.752 · 256 = 192.51 → 193/256; 0.7519 → 192/256.
        assert_eq!(sample_1d(&t, s, 1.252), 193.0);
        assert_eq!(sample_1d(&t, s, 1.2519), 192.0);
        // Below the first centre, clamp reads texel 0 twice.
        assert_eq!(sample_1d(&t, s, 0.2), 0.0);
    }

    #[test]
    fn normalized_address_modes() {
        let t = [1.0, 2.0, 3.0, 4.0];
        let at = |mode, u| sample_1d(&t, sampler(FilterMode::Point, mode, true), u);
        // u = 1.125 is texel 4.5 → 4 past the end.
        assert_eq!(at(AddressMode::Wrap, 1.125), 1.0);
        assert_eq!(at(AddressMode::Mirror, 1.125), 4.0);
        assert_eq!(at(AddressMode::Mirror, 1.375), 3.0);
        assert_eq!(at(AddressMode::Clamp, 1.125), 4.0);
        assert_eq!(at(AddressMode::Border, 1.125), 0.0);
        assert_eq!(at(AddressMode::Wrap, -0.125), 4.0);
        // Without normalized coordinates wrap acts as clamp.
        let s = sampler(FilterMode::Point, AddressMode::Wrap, false);
        assert_eq!(sample_1d(&t, s, 5.0), 4.0);
    }

    #[test]
    fn normalized_reads_of_integers() {
        assert_eq!(normalized(ChannelKind::U8, 255), 1.0);
        assert_eq!(normalized(ChannelKind::U8, 51), 0.2);
        assert_eq!(normalized(ChannelKind::S8, 0x80), -1.0);
        assert_eq!(normalized(ChannelKind::S16, 0x7fff), 1.0);
        assert_eq!(normalized(ChannelKind::U16, 0), 0.0);
    }
}
