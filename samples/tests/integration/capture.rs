//! Launch capture (`warpsim run --capture-launches`, runtime/src/capture.rs): a captured SAXPY
//! launch replayed alone by `warpsim run-ptx` gives `a·x + y` computed here from the captured
//! bytes; buffers named twice become `@K`; module variables the host wrote become `symbols`;
//! launches run-ptx cannot express say why.

use crate::common::TempDir;
use runtime::{Arg, Device, DeviceConfig, LaunchCapture};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn launches(listing: &Path) -> Vec<toml::Table> {
    let text = std::fs::read_to_string(listing).unwrap();
    let table: toml::Table = text.parse().unwrap();
    table["launch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_table().unwrap().clone())
        .collect()
}

fn strings(v: &toml::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn a_captured_saxpy_launch_replays_alone() {
    let dir = TempDir::new("capture-saxpy");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let warpsim = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
            .current_dir(&root)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let capture = dir.path("capture");
    warpsim(&[
        "run",
        "saxpy",
        "--size",
        "small",
        "--functional",
        "--capture-launches",
        &capture,
    ]);
    let list = launches(&Path::new(&capture).join("saxpy/launches.toml"));
    assert_eq!(list.len(), 1);
    let l = &list[0];
    assert_eq!(l["name"].as_str(), Some("saxpy.0.saxpy"));
    assert_eq!(l["kernel"].as_str(), Some("saxpy"));
    assert_eq!(l["grid"].as_str(), Some("256,1,1"));
    assert_eq!(l["block"].as_str(), Some("256,1,1"));
    // 65,536 threads × 20 instructions a thread, GPGPU-Sim's count on the same PTX
    // (../shared/calibration).
    assert_eq!(l["warp_insts"].as_integer(), Some(40_960));
    let args = strings(&l["args"]);
    assert_eq!(args.len(), 4);
    assert_eq!(args[0], "i32:65536");
    let a: f32 = args[1].strip_prefix("f32:").unwrap().parse().unwrap();
    let file = |arg: &str| arg.strip_prefix("bin:u8:").unwrap().to_string();
    let x = f32s(&std::fs::read(file(&args[2])).unwrap());
    let y = f32s(&std::fs::read(file(&args[3])).unwrap());
    assert_eq!((x.len(), y.len()), (65_536, 65_536));

    let out = dir.path("y.npy");
    let mut replay = vec![
        "run-ptx".to_string(),
        l["ptx"].as_str().unwrap().to_string(),
        "--kernel".into(),
        "saxpy".into(),
        "--grid".into(),
        "256".into(),
        "--block".into(),
        "256".into(),
        "--out".into(),
        format!("3:{out}"),
    ];
    for arg in &args {
        replay.extend(["--arg".to_string(), arg.clone()]);
    }
    warpsim(&replay.iter().map(String::as_str).collect::<Vec<_>>());
    let npy =
        npyz::NpyFile::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap())).unwrap();
    let bytes: Vec<u8> = npy.into_vec().unwrap();
    let got = f32s(&bytes);
    for i in 0..x.len() {
        // The PTX computes fma.rn.f32(a, x, y).
        let want = a.mul_add(x[i], y[i]);
        assert_eq!(got[i].to_bits(), want.to_bits(), "element {i}");
    }
}

const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.const .align 4 .u32 scale[2] = {3, 0};
.const .align 4 .u32 untouched[2] = {5, 6};
.visible .entry copy(.param .u64 dst, .param .u64 src)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    ld.const.u32 %r1, [scale];
    ld.global.u32 %r2, [%rd2];
    mul.lo.u32 %r3, %r1, %r2;
    st.global.u32 [%rd1], %r3;
    ret;
}
"#;

#[test]
fn aliases_symbols_and_unreplayable_launches() {
    let dir = TempDir::new("capture-forms");
    let capture = Path::new(&dir.path("c")).to_path_buf();
    let config = DeviceConfig {
        capture: Some(Arc::new(LaunchCapture::new(&capture, "t", 2).unwrap())),
        ..DeviceConfig::default()
    };
    let dev = Device::new(config).unwrap();
    let module = dev.load_ptx("copy.ptx", PTX).unwrap();
    let copy = module.kernel("copy").unwrap();
    let buf = dev.alloc_from(&[7u32, 8, 9, 10]).unwrap();
    module
        .write_symbol("scale", 4, &9u32.to_le_bytes())
        .unwrap();
    let base = Arg::from(&buf);
    let Arg::Ptr(p) = base else { panic!() };
    dev.launch(&copy, 1, 1, 0, &[base.clone(), base.clone()])
        .unwrap();
    dev.launch(&copy, 1, 1, 0, &[Arg::Ptr(p + 4), base.clone()])
        .unwrap();
    // A third launch of the kernel is past the limit of two: counted, not written.
    dev.launch(&copy, 1, 1, 0, &[base.clone(), base]).unwrap();
    let list = launches(&capture.join("launches.toml"));
    assert_eq!(list.len(), 2);

    let args = strings(&list[0]["args"]);
    assert_eq!(args[1], "@0");
    let file = args[0].strip_prefix("bin:u8:").unwrap();
    // Captured before the launch ran: the buffer as the host wrote it.
    let bytes: Vec<u8> = [7u32, 8, 9, 10]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(std::fs::read(file).unwrap(), bytes);
    // `scale` differs from its declaration, `untouched` does not.
    let symbols = strings(&list[0]["symbols"]);
    assert_eq!(symbols.len(), 1);
    let (name, value) = symbols[0].split_once('=').unwrap();
    assert_eq!(name, "scale");
    let want: Vec<u8> = [3u32, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(
        std::fs::read(value.strip_prefix("bin:u8:").unwrap()).unwrap(),
        want
    );
    assert_eq!(list[0]["warp_insts"].as_integer(), Some(7));

    assert_eq!(list[1]["name"].as_str(), Some("t.1.copy"));
    assert_eq!(
        list[1]["unreplayable"].as_str(),
        Some("argument 0 points 4 bytes into an allocation")
    );
    assert!(list[1].get("args").is_none());
}

#[test]
fn a_variable_holding_a_device_address_is_unreplayable() {
    let dir = TempDir::new("capture-address");
    let capture = Path::new(&dir.path("c")).to_path_buf();
    let config = DeviceConfig {
        capture: Some(Arc::new(LaunchCapture::new(&capture, "t", 1).unwrap())),
        ..DeviceConfig::default()
    };
    let dev = Device::new(config).unwrap();
    let ptx = PTX.replace(
        ".const .align 4 .u32 untouched[2] = {5, 6};",
        ".const .align 8 .u64 where;",
    );
    let module = dev.load_ptx("copy.ptx", &ptx).unwrap();
    let copy = module.kernel("copy").unwrap();
    let buf = dev.alloc_from(&[7u32, 8]).unwrap();
    let base = Arg::from(&buf);
    let Arg::Ptr(p) = base else { panic!() };
    module.write_symbol("where", 0, &p.to_le_bytes()).unwrap();
    dev.launch(&copy, 1, 1, 0, &[base.clone(), base]).unwrap();
    let list = launches(&capture.join("launches.toml"));
    assert_eq!(
        list[0]["unreplayable"].as_str(),
        Some("module variable `where` holds device addresses")
    );
}
