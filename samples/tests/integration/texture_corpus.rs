//! `samples/corpus/texture.cu` as NVRTC emits it (bindless `tex1Dfetch`, `tex1D`, `tex2D`,
//! `tex3D`, `tex2DLod`, `surf2Dread`/`surf2Dwrite` in trap, clamp and zero modes,
//! `surf1Dread`/`surf1Dwrite`), over objects made through the runtime, checked against the
//! CUDA programming guide's fetch rules computed on the host, under the JIT, the interpreter
//! and the timing model.

use runtime::texture::{AddressMode, ChannelKind, FilterMode, Format, ReadMode, SamplerState};
use runtime::{Arg, Device, TextureDesc, TextureResource};

fn format(kind: ChannelKind, channels: u8) -> Format {
    Format { kind, channels }
}

fn desc(filter: FilterMode, normalized: bool) -> TextureDesc {
    TextureDesc {
        sampler: SamplerState {
            address: [AddressMode::Clamp; 3],
            filter,
            normalized_coords: normalized,
        },
        read_mode: ReadMode::ElementType,
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn devices() -> Vec<Device> {
    crate::common::engine_devices("v100")
}

fn module(dev: &Device) -> runtime::Module {
    dev.load_ptx_file(&warpsim::samples_dir().join("corpus/texture.ptx"))
        .unwrap()
}

#[test]
fn tex1dfetch_reads_linear_buffers() {
    const N: usize = 300;
    let floats: Vec<f32> = (0..N).map(|i| i as f32 * 0.75 - 9.0).collect();
    let ints: Vec<i32> = (0..N as i32).map(|i| i * i - 500).collect();
    // tex1Dfetch<int>(lin_int, 2i) reads zero past the buffer's end.
    let want_i: Vec<i32> = (0..N)
        .map(|i| ints.get(2 * i).copied().unwrap_or(0))
        .collect();
    for dev in devices() {
        let k = module(&dev).kernel("tex_fetch").unwrap();
        let (fb, ib) = (
            dev.alloc_from(&floats).unwrap(),
            dev.alloc_from(&ints).unwrap(),
        );
        let linear = |ptr, kind| TextureResource::Linear {
            ptr,
            format: format(kind, 1),
            texels: N as u32,
        };
        let plain = TextureDesc::default();
        let lin = dev
            .create_texture(&linear(fb.device_ptr(), ChannelKind::F32), &plain)
            .unwrap();
        let lin_int = dev
            .create_texture(&linear(ib.device_ptr(), ChannelKind::S32), &plain)
            .unwrap();
        let out = dev.alloc::<f32>(N).unwrap();
        let outi = dev.alloc::<i32>(N).unwrap();
        let args = [
            Arg::U64(lin),
            Arg::U64(lin_int),
            (&out).into(),
            (&outi).into(),
            Arg::I32(N as i32),
        ];
        dev.launch(&k, 2, 256, 0, &args).unwrap();
        assert_eq!(out.to_host().unwrap(), floats);
        assert_eq!(outi.to_host().unwrap(), want_i);
    }
}

/// Nearest-point lookup at normalized u of `n` texels, clamped.
fn point_index(u: f32, n: usize) -> usize {
    ((u * n as f32).floor().max(0.0) as usize).min(n - 1)
}

/// The guide's bilinear filter of `t` (rows of `w` four-channel texels) at normalized (u, v),
/// clamped, with weights of 8 fractional bits.
fn bilinear(t: &[[f32; 4]], w: usize, h: usize, u: f32, v: f32) -> [f32; 4] {
    let (xb, yb) = (u * w as f32 - 0.5, v * h as f32 - 0.5);
    let (i, j) = (xb.floor(), yb.floor());
    let weight = |f: f32| (f * 256.0).round() / 256.0;
    let (a, b) = (weight(xb - i), weight(yb - j));
    let texel = |x: f32, y: f32| {
        let (x, y) = (x.clamp(0.0, w as f32 - 1.0), y.clamp(0.0, h as f32 - 1.0));
        t[y as usize * w + x as usize]
    };
    let lerp = |p: f32, q: f32, s: f32| (1.0 - s) * p + s * q;
    let (t00, t10, t01, t11) = (
        texel(i, j),
        texel(i + 1.0, j),
        texel(i, j + 1.0),
        texel(i + 1.0, j + 1.0),
    );
    std::array::from_fn(|c| lerp(lerp(t00[c], t10[c], a), lerp(t01[c], t11[c], a), b))
}

#[test]
fn tex1d_tex2d_tex3d_and_lod_sample_arrays() {
    let (w, h, d) = (24usize, 10usize, 4usize);
    let t1: Vec<f32> = (0..w).map(|x| x as f32 * 1.5).collect();
    let t2: Vec<[f32; 4]> = (0..h)
        .flat_map(|y| {
            (0..w).map(move |x| [(x + 100 * y) as f32, -(x as f32), y as f32 * 0.25, 7.0])
        })
        .collect();
    let t3: Vec<f32> = (0..w * h * d).map(|i| i as f32).collect();
    let mut want = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let u = (x as f32 + 0.5) / w as f32;
            let v = (y as f32 + 0.5) / h as f32;
            let a = t1[point_index(u, w)];
            let b = bilinear(&t2, w, h, u, v)[0];
            let c = bilinear(&t2, w, h, u * 0.5, v);
            let z = point_index(0.5, d);
            let dd = t3[(z * h + point_index(v, h)) * w + point_index(u, w)];
            // tex2DLod: the texture has one level.
            let e = b;
            want[y * w + x] = a + b + c[0] + c[1] + c[2] + c[3] + dd + e;
        }
    }
    for dev in devices() {
        let k = module(&dev).kernel("tex_sample").unwrap();
        let a1 = dev
            .create_array(format(ChannelKind::F32, 1), [w as u32, 0, 0], false)
            .unwrap();
        a1.write(&f32_bytes(&t1)).unwrap();
        let a2 = dev
            .create_array(format(ChannelKind::F32, 4), [w as u32, h as u32, 0], false)
            .unwrap();
        a2.write(&f32_bytes(&t2.concat())).unwrap();
        let a3 = dev
            .create_array(
                format(ChannelKind::F32, 1),
                [w as u32, h as u32, d as u32],
                false,
            )
            .unwrap();
        a3.write(&f32_bytes(&t3)).unwrap();
        let tex = |a, filter| {
            dev.create_texture(&TextureResource::Array(a), &desc(filter, true))
                .unwrap()
        };
        let out = dev.alloc::<f32>(w * h).unwrap();
        let args = [
            Arg::U64(tex(&a1, FilterMode::Point)),
            Arg::U64(tex(&a2, FilterMode::Linear)),
            Arg::U64(tex(&a3, FilterMode::Point)),
            (&out).into(),
            Arg::I32(w as i32),
            Arg::I32(h as i32),
        ];
        dev.launch(&k, (3, 2), (8, 8), 0, &args).unwrap();
        assert_eq!(out.to_host().unwrap(), want);
    }
}

#[test]
fn surfaces_in_trap_clamp_and_zero_modes() {
    let (w, h) = (24usize, 10usize);
    let src: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.5 - 3.0).collect();
    let line: Vec<i32> = (0..w as i32).map(|x| 3 * x).collect();
    let want_dst: Vec<f32> = src.iter().map(|v| v * 2.0).collect();
    // Row h-1-y of `flip` holds the bytes of the next element of row y (the last one at the
    // right edge: clamp).
    let mut want_flip = vec![0u8; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            let next = src[y * w + (x + 1).min(w - 1)].to_le_bytes();
            let at = ((h - 1 - y) * w + x) * 4;
            want_flip[at..at + 4].copy_from_slice(&next);
        }
    }
    let want_line: Vec<i32> = line.iter().map(|q| q + 1).collect();
    for dev in devices() {
        let k = module(&dev).kernel("surf_copy").unwrap();
        let f32x1 = format(ChannelKind::F32, 1);
        let a_src = dev
            .create_array(f32x1, [w as u32, h as u32, 0], false)
            .unwrap();
        a_src.write(&f32_bytes(&src)).unwrap();
        let a_dst = dev
            .create_array(f32x1, [w as u32, h as u32, 0], false)
            .unwrap();
        let a_flip = dev
            .create_array(format(ChannelKind::U8, 4), [w as u32, h as u32, 0], false)
            .unwrap();
        let a_line = dev
            .create_array(format(ChannelKind::S32, 1), [w as u32, 0, 0], false)
            .unwrap();
        a_line
            .write(
                &line
                    .iter()
                    .flat_map(|q| q.to_le_bytes())
                    .collect::<Vec<_>>(),
            )
            .unwrap();
        let surf = |a| Arg::U64(dev.create_surface(a).unwrap());
        let args = [
            surf(&a_src),
            surf(&a_dst),
            surf(&a_flip),
            surf(&a_line),
            Arg::I32(w as i32),
            Arg::I32(h as i32),
        ];
        dev.launch(&k, (3, 2), (8, 8), 0, &args).unwrap();
        let dst: Vec<f32> = a_dst
            .read()
            .unwrap()
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(dst, want_dst);
        assert_eq!(a_flip.read().unwrap(), want_flip);
        let got_line: Vec<i32> = a_line
            .read()
            .unwrap()
            .chunks(4)
            .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got_line, want_line);
    }
}
