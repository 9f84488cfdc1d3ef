//! The texture-reference variants of Rodinia's kmeans, hybridsort and leukocyte (the kernels as
//! Rodinia writes them, reading through `.texref`s bound by the host; PTX from NVRTC 11.8):
//! each validates against the same CPU reference as its port, under the JIT and the
//! interpreter and, for kmeans, the timing model; they are found by name and belong to no
//! suite.

use emulator::Engine;
use runtime::{Device, DeviceConfig};
use timing::GpuConfig;
use warpsim::registry;
use warpsim::sample::Size;

#[test]
fn texture_variants_validate() {
    let names: Vec<&str> = registry::texture_variants()
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(
        names,
        [
            "rodinia/kmeans-textures",
            "rodinia/hybridsort-textures",
            "rodinia/leukocyte-textures"
        ]
    );
    for (engine, timing) in [(Engine::Jit, None), (Engine::Interpreter, None)] {
        let dev = Device::new(DeviceConfig {
            engine,
            timing,
            ..DeviceConfig::default()
        })
        .unwrap();
        for s in registry::texture_variants() {
            let o = s.run(&dev, Size::Small).unwrap();
            assert!(
                o.validation.passed(),
                "{} {engine:?}: {}",
                s.name(),
                o.validation
            );
        }
    }
    let dev = Device::new(DeviceConfig {
        timing: Some(GpuConfig::preset("gtx480")),
        ..DeviceConfig::default()
    })
    .unwrap();
    let kmeans = registry::find("rodinia/kmeans-textures").unwrap();
    let o = kmeans.run(&dev, Size::Small).unwrap();
    assert!(o.validation.passed(), "{}", o.validation);
}

#[test]
fn texture_variants_are_selected_by_name_only() {
    let select = |names: &[&str]| -> Vec<&'static str> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        registry::select(&names)
            .unwrap()
            .iter()
            .map(|s| s.name())
            .collect()
    };
    assert!(!select(&["all"]).contains(&"rodinia/kmeans-textures"));
    assert!(!select(&["rodinia"]).contains(&"rodinia/kmeans-textures"));
    assert_eq!(
        select(&["rodinia/kmeans-textures", "rodinia/nn"]),
        ["rodinia/nn", "rodinia/kmeans-textures"]
    );
    assert_eq!(
        registry::find("rodinia/leukocyte-textures").map(|s| s.name()),
        Some("rodinia/leukocyte-textures")
    );
}
