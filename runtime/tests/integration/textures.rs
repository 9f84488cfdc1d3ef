//! Textures and surfaces end to end: objects created through the `Device` API, sampled by
//! hand-written PTX, every expected value worked out by hand from the CUDA programming guide's
//! texture-fetching rules (not from warpsim's code), under the interpreter, the JIT and the
//! timing model alike; and the errors of bad objects, unbound references and out-of-range
//! surface accesses.

use runtime::texture::{AddressMode, ChannelKind, FilterMode, Format, ReadMode, SamplerState};
use runtime::{Arg, Device, DeviceConfig, Error, TextureDesc, TextureResource};

/// One thread per lane: `out[tid * 4 ..]` = the four results of `lookup` at the coordinates
/// `coords[tid * 2 ..]` (two 32-bit values; `%r10`, `%r11` as integers, `%f10`, `%f11` as
/// floats); `%rd1` is the object, `%r1`..`%r4` the results.
fn lookup_kernel(name: &str, lookup: &str) -> String {
    format!(
        r#"
.visible .entry {name}(.param .u64 obj, .param .u64 coords, .param .u64 out)
{{
    .reg .b32 %r<12>;
    .reg .f32 %f<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [obj];
    ld.param.u64 %rd2, [coords];
    ld.param.u64 %rd3, [out];
    mov.u32 %r5, %tid.x;
    mul.wide.u32 %rd4, %r5, 8;
    add.s64 %rd5, %rd2, %rd4;
    ld.global.v2.u32 {{%r10, %r11}}, [%rd5];
    mov.b32 %f10, %r10;
    mov.b32 %f11, %r11;
    {lookup}
    mul.wide.u32 %rd6, %r5, 16;
    add.s64 %rd7, %rd3, %rd6;
    st.global.v4.u32 [%rd7], {{%r1, %r2, %r3, %r4}};
    ret;
}}
"#
    )
}

fn module_text() -> String {
    let mut text = String::from(
        ".version 8.8\n.target sm_70\n.address_size 64\n.global .texref tref;\n\
         .global .surfref sref;\n",
    );
    let kernels = [
        (
            "fetch1d",
            "tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r10}];",
        ),
        (
            "sample2d",
            "tex.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f10, %f11}];",
        ),
        (
            "sample2d_ref",
            "tex.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}|%p1, [tref, {%f10, %f11}];",
        ),
        (
            "gather2d",
            "tld4.r.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f10, %f11}];",
        ),
        (
            "query",
            "txq.width.b32 %r1, [%rd1];\n    txq.height.b32 %r2, [%rd1];\n    \
             txq.filter_mode.b32 %r3, [%rd1];\n    txq.channel_data_type.b32 %r4, [%rd1];",
        ),
        ("surf_trap", surface_read("trap")),
        ("surf_clamp", surface_read("clamp")),
        ("surf_zero", surface_read("zero")),
        (
            "surf_write",
            "sust.b.2d.b32.zero [%rd1, {%r10, %r11}], %r5;\n    suq.width.b32 %r1, [sref];\n    \
             mov.u32 %r2, 0;\n    mov.u32 %r3, 0;\n    mov.u32 %r4, 0;",
        ),
    ];
    for (name, lookup) in kernels {
        text += &lookup_kernel(name, lookup);
    }
    text
}

fn surface_read(mode: &str) -> &'static str {
    match mode {
        "trap" => {
            "suld.b.2d.b32.trap {%r1}, [%rd1, {%r10, %r11}];\n    mov.u32 %r2, 0;\n    mov.u32 %r3, 0;\n    mov.u32 %r4, 0;"
        }
        "clamp" => {
            "suld.b.2d.b32.clamp {%r1}, [%rd1, {%r10, %r11}];\n    mov.u32 %r2, 0;\n    mov.u32 %r3, 0;\n    mov.u32 %r4, 0;"
        }
        _ => {
            "suld.b.2d.b32.zero {%r1}, [%rd1, {%r10, %r11}];\n    mov.u32 %r2, 0;\n    mov.u32 %r3, 0;\n    mov.u32 %r4, 0;"
        }
    }
}

const F32: Format = Format {
    kind: ChannelKind::F32,
    channels: 1,
};

/// Runs `kernel` with one thread per coordinate pair and returns each thread's four words.
fn run(
    dev: &Device,
    kernel: &str,
    object: u64,
    coords: &[[u32; 2]],
) -> Result<Vec<[u32; 4]>, Error> {
    let module = dev.load_ptx("textures.ptx", &module_text())?;
    run_in(dev, &module, kernel, object, coords)
}

fn run_in(
    dev: &Device,
    module: &runtime::Module,
    kernel: &str,
    object: u64,
    coords: &[[u32; 2]],
) -> Result<Vec<[u32; 4]>, Error> {
    let k = module.kernel(kernel)?;
    let flat: Vec<u32> = coords.iter().flatten().copied().collect();
    let c = dev.alloc_from(&flat)?;
    let out = dev.alloc::<u32>(coords.len() * 4)?;
    dev.launch(
        &k,
        1,
        coords.len() as u32,
        0,
        &[Arg::U64(object), (&c).into(), (&out).into()],
    )?;
    let words = out.to_host()?;
    Ok(words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
}

fn floats(x: f32, y: f32) -> [u32; 2] {
    [x.to_bits(), y.to_bits()]
}

fn ints(x: i32, y: i32) -> [u32; 2] {
    [x as u32, y as u32]
}

/// A 4 × 2 array of f32 texels T[y][x] = 10·y + x.
fn grid_texture(dev: &Device, sampler: SamplerState) -> (runtime::DeviceArray, u64) {
    let array = dev.create_array(F32, [4, 2, 0], false).unwrap();
    let texels: Vec<u8> = (0..2)
        .flat_map(|y| (0..4).map(move |x| (10 * y + x) as f32))
        .flat_map(f32::to_le_bytes)
        .collect();
    array.write(&texels).unwrap();
    let desc = TextureDesc {
        sampler,
        read_mode: ReadMode::ElementType,
    };
    let tex = dev
        .create_texture(&TextureResource::Array(&array), &desc)
        .unwrap();
    (array, tex)
}

fn sampler(filter: FilterMode, mode: AddressMode, normalized: bool) -> SamplerState {
    SamplerState {
        address: [mode; 3],
        filter,
        normalized_coords: normalized,
    }
}

fn first_floats(results: &[[u32; 4]]) -> Vec<f32> {
    results.iter().map(|r| f32::from_bits(r[0])).collect()
}

#[test]
fn linear_buffer_fetch_reads_zero_outside() {
    for (engine, dev) in crate::engines::three() {
        let data = dev.alloc_from(&[1.5f32, 2.5, 3.5, 4.5]).unwrap();
        let tex = dev
            .create_texture(
                &TextureResource::Linear {
                    ptr: data.device_ptr(),
                    format: F32,
                    texels: 4,
                },
                &TextureDesc::default(),
            )
            .unwrap();
        let coords: Vec<[u32; 2]> = (-1..6).map(|i| ints(i, 0)).collect();
        let r = run(&dev, "fetch1d", tex, &coords).unwrap();
        let one = 1f32.to_bits();
        let expected: Vec<[u32; 4]> = [0.0, 1.5, 2.5, 3.5, 4.5, 0.0, 0.0]
            .iter()
            .enumerate()
            .map(|(i, v): (usize, &f32)| {
                // A one-channel texel reads (x, 0, 0, 1); the border, outside, is all zero.
                let inside = (1..5).contains(&i);
                [v.to_bits(), 0, 0, if inside { one } else { 0 }]
            })
            .collect();
        assert_eq!(r, expected, "{engine}");
    }
}

#[test]
fn point_and_linear_sampling_of_a_2d_array() {
    for (engine, dev) in crate::engines::three() {
        let (_a, point) = grid_texture(&dev, sampler(FilterMode::Point, AddressMode::Clamp, false));
        let r = run(
            &dev,
            "sample2d",
            point,
            &[
                floats(1.7, 0.2),
                floats(5.0, 3.0),
                floats(-1.0, 0.5),
                floats(3.99, 1.0),
            ],
        )
        .unwrap();
        assert_eq!(
            first_floats(&r),
            [1.0, 13.0, 0.0, 13.0],
            "{engine}: point, clamp"
        );

        let (_b, linear) =
            grid_texture(&dev, sampler(FilterMode::Linear, AddressMode::Clamp, false));
        let r = run(
            &dev,
            "sample2d",
            linear,
            &[
                // The centre of texel (1, 0).
                floats(1.5, 0.5),
                // Halfway between texels 1 and 2 of row 0.
                floats(2.0, 0.5),
                // The middle of texels (1, 0), (2, 0), (1, 1), (2, 1): (1 + 2 + 11 + 12) / 4.
                floats(2.0, 1.0),
                // x - 0.5 = 0.8: the weight 0.8 rounds to 205/256 of texel 1 (value 1).
                floats(1.3, 0.5),
                // Left of the first centre: texel 0 twice (clamp).
                floats(0.25, 0.5),
            ],
        )
        .unwrap();
        assert_eq!(
            first_floats(&r),
            [1.0, 1.5, 6.5, 205.0 / 256.0, 0.0],
            "{engine}: linear"
        );
    }
}

#[test]
fn normalized_coordinates_wrap_mirror_and_border() {
    for (engine, dev) in crate::engines::three() {
        // u = 1.375 is x = 5.5, texel 5; v = 0.75 is y = 1.5, row 1.
        let at = [floats(1.375, 0.75), floats(-0.125, 0.25)];
        let cases = [
            // 5 mod 4 = 1: T[1][1]; -0.5 → texel -1 → 3: T[0][3].
            (AddressMode::Wrap, [11.0, 3.0]),
            // 5 reflects to 2: T[1][2]; -1 reflects to 0: T[0][0].
            (AddressMode::Mirror, [12.0, 0.0]),
            (AddressMode::Clamp, [13.0, 0.0]),
            (AddressMode::Border, [0.0, 0.0]),
        ];
        for (mode, expected) in cases {
            let (_a, tex) = grid_texture(&dev, sampler(FilterMode::Point, mode, true));
            let r = run(&dev, "sample2d", tex, &at).unwrap();
            assert_eq!(first_floats(&r), expected, "{engine}: {mode:?}");
        }
    }
}

#[test]
fn normalized_reads_of_uchar4_texels() {
    for (engine, dev) in crate::engines::three() {
        let format = Format {
            kind: ChannelKind::U8,
            channels: 4,
        };
        let array = dev.create_array(format, [2, 1, 0], false).unwrap();
        array.write(&[255, 0, 51, 128, 0, 255, 0, 255]).unwrap();
        let read = |mode| {
            let desc = TextureDesc {
                sampler: sampler(FilterMode::Point, AddressMode::Clamp, false),
                read_mode: mode,
            };
            let tex = dev
                .create_texture(&TextureResource::Array(&array), &desc)
                .unwrap();
            run(&dev, "sample2d", tex, &[floats(0.5, 0.5)]).unwrap()[0]
        };
        let normalized = read(ReadMode::NormalizedFloat).map(f32::from_bits);
        assert_eq!(normalized, [1.0, 0.0, 0.2, 128.0 / 255.0], "{engine}");
        assert_eq!(read(ReadMode::ElementType), [255, 0, 51, 128], "{engine}");
    }
}

#[test]
fn tld4_gathers_the_footprint_counter_clockwise() {
    for (engine, dev) in crate::engines::three() {
        let (_a, tex) = grid_texture(&dev, sampler(FilterMode::Point, AddressMode::Clamp, false));
        // x - 0.5 = 1.5, y - 0.5 = 0.5: texels i = 1, j = 0; from the lower left (1, 1),
        // then (2, 1), (2, 0), (1, 0).
        let r = run(&dev, "gather2d", tex, &[floats(2.0, 1.0)]).unwrap();
        assert_eq!(r[0].map(f32::from_bits), [11.0, 12.0, 2.0, 1.0], "{engine}");
    }
}

#[test]
fn txq_reads_the_texture_description() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let (_a, tex) = grid_texture(&dev, sampler(FilterMode::Linear, AddressMode::Clamp, false));
    let r = run(&dev, "query", tex, &[[0, 0]]).unwrap();
    // Width, height, linear filtering (CUDA's 1), CL_FLOAT (OpenCL's 0x10DE).
    assert_eq!(r[0], [4, 2, 1, 0x10DE]);
}

#[test]
fn texture_references_are_bound_by_name() {
    for (engine, dev) in crate::engines::three() {
        let module = dev.load_ptx("textures.ptx", &module_text()).unwrap();
        let err = run_in(&dev, &module, "sample2d_ref", 0, &[floats(1.5, 0.5)]).unwrap_err();
        assert!(
            err.to_string().contains("`.texref tref` is not bound"),
            "{engine}: {err}"
        );
        let (_a, tex) = grid_texture(&dev, sampler(FilterMode::Point, AddressMode::Clamp, false));
        module.bind("tref", tex).unwrap();
        let r = run_in(&dev, &module, "sample2d_ref", 0, &[floats(2.5, 1.5)]).unwrap();
        assert_eq!(first_floats(&r), [12.0], "{engine}");
        // A surface is no texture.
        let array = dev.create_array(F32, [4, 0, 0], false).unwrap();
        let surface = dev.create_surface(&array).unwrap();
        let err = module.bind("tref", surface).unwrap_err();
        assert!(
            err.to_string().contains("cannot be bound to a surface"),
            "{err}"
        );
        assert!(module.bind("nothing", tex).is_err());
    }
}

/// A 4 × 2 surface of u32 elements 100·y + x.
fn grid_surface(dev: &Device) -> (runtime::DeviceArray, u64) {
    let format = Format {
        kind: ChannelKind::U32,
        channels: 1,
    };
    let array = dev.create_array(format, [4, 2, 0], false).unwrap();
    let words: Vec<u8> = (0..2u32)
        .flat_map(|y| (0..4u32).map(move |x| 100 * y + x))
        .flat_map(u32::to_le_bytes)
        .collect();
    array.write(&words).unwrap();
    let s = dev.create_surface(&array).unwrap();
    (array, s)
}

#[test]
fn surface_loads_in_every_out_of_range_mode() {
    for (engine, dev) in crate::engines::three() {
        let (_a, s) = grid_surface(&dev);
        let words = |kernel, at: &[[u32; 2]]| -> Vec<u32> {
            run(&dev, kernel, s, at)
                .unwrap()
                .iter()
                .map(|r| r[0])
                .collect()
        };
        // x is in bytes: 8 is element 2.
        assert_eq!(
            words("surf_trap", &[ints(8, 1), ints(0, 0)]),
            [102, 0],
            "{engine}"
        );
        assert_eq!(
            words("surf_clamp", &[ints(16, 0), ints(-4, 5), ints(12, 1)]),
            [3, 100, 103],
            "{engine}"
        );
        assert_eq!(
            words("surf_zero", &[ints(16, 0), ints(4, 1)]),
            [0, 101],
            "{engine}"
        );
        let err = run(&dev, "surf_trap", s, &[ints(16, 0)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`suld.b.2d.b32.trap` at x = 16 bytes, y = 0, z = 0 is outside the surface (2-D, 4 × 2 texels of 4 bytes)"),
            "{engine}: {err}"
        );
        let err = run(&dev, "surf_trap", s, &[ints(2, 0)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x = 2 is not a multiple of the access size 4"),
            "{engine}: {err}"
        );
        // The device stays usable.
        assert_eq!(words("surf_trap", &[ints(4, 0)]), [1], "{engine}");
    }
}

#[test]
fn surface_stores_and_queries() {
    for (engine, dev) in crate::engines::three() {
        let (array, s) = grid_surface(&dev);
        let module = dev.load_ptx("textures.ptx", &module_text()).unwrap();
        module.bind("sref", s).unwrap();
        // Thread t stores t; thread 1's store is outside and dropped (`.zero`).
        let r = run_in(&dev, &module, "surf_write", s, &[ints(4, 1), ints(400, 0)]).unwrap();
        assert_eq!(r[0][0], 4, "{engine}: suq.width");
        let words: Vec<u32> = array
            .read()
            .unwrap()
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(words, [0, 1, 2, 3, 100, 0, 102, 103], "{engine}");
    }
}

#[test]
fn bad_objects_and_handles_are_errors() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let ints = Format {
        kind: ChannelKind::S32,
        channels: 1,
    };
    let array = dev.create_array(ints, [4, 0, 0], false).unwrap();
    let linear = TextureDesc {
        sampler: sampler(FilterMode::Linear, AddressMode::Clamp, false),
        read_mode: ReadMode::ElementType,
    };
    let err = dev
        .create_texture(&TextureResource::Array(&array), &linear)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("linear filtering of integer texels"),
        "{err}"
    );
    let buf = dev.alloc::<u8>(4096).unwrap();
    let pitched = |pitch| TextureResource::Pitch2D {
        ptr: buf.device_ptr(),
        format: F32,
        width: 10,
        height: 4,
        pitch,
    };
    let bad = |resource: TextureResource| {
        dev.create_texture(&resource, &TextureDesc::default())
            .unwrap_err()
            .to_string()
    };
    let err = bad(TextureResource::Linear {
        ptr: buf.device_ptr(),
        format: F32,
        texels: 0,
    });
    assert!(err.contains("a linear texture of 0 texels"), "{err}");
    let flat = |height, pitch| TextureResource::Pitch2D {
        ptr: buf.device_ptr(),
        format: F32,
        width: 10,
        height,
        pitch,
    };
    let err = bad(flat(0, 64));
    assert!(err.contains("a pitched texture of 10 × 0 texels"), "{err}");
    let err = bad(flat(1 << 20, 1 << 50));
    assert!(err.contains("overflows the address space"), "{err}");
    let err = dev
        .create_texture(&pitched(40), &TextureDesc::default())
        .unwrap_err();
    assert!(err.to_string().contains("a multiple of 32"), "{err}");
    let err = dev
        .create_texture(&pitched(2048), &TextureDesc::default())
        .unwrap_err();
    assert!(err.to_string().contains("pitched texture"), "{err}");
    let three = Format {
        kind: ChannelKind::F32,
        channels: 3,
    };
    assert!(dev.create_array(three, [4, 0, 0], false).is_err());
    assert!(dev.create_array(F32, [4, 0, 0], true).is_err());
    // A destroyed texture's handle is reported.
    let (_a, tex) = grid_texture(&dev, SamplerState::default());
    dev.destroy_object(tex).unwrap();
    let err = run(&dev, "sample2d", tex, &[floats(0.5, 0.5)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is not a texture, sampler or surface handle"),
        "{err}"
    );
    assert!(dev.destroy_object(tex).is_err());
    // A surface where a texture is expected.
    let (_s, surface) = grid_surface(&dev);
    let err = run(&dev, "sample2d", surface, &[floats(0.5, 0.5)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("a surface handle where a texture is expected"),
        "{err}"
    );
    // The geometry must match the object's.
    let one_d = dev.create_array(F32, [4, 0, 0], false).unwrap();
    let t1 = dev
        .create_texture(&TextureResource::Array(&one_d), &TextureDesc::default())
        .unwrap();
    let err = run(&dev, "sample2d", t1, &[floats(0.5, 0.5)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("on a 1-D, 4 texels of 4 bytes object"),
        "{err}"
    );
}
