//! Devices under each functional engine, for tests whose results must agree exactly.

use emulator::Engine;
use runtime::{Device, DeviceConfig};

/// A device under the interpreter, then one under the JIT.
pub fn both() -> impl Iterator<Item = (Engine, Device)> {
    [Engine::Interpreter, Engine::Jit]
        .into_iter()
        .map(|engine| {
            let dev = Device::new(DeviceConfig {
                engine,
                ..DeviceConfig::default()
            })
            .unwrap();
            (engine, dev)
        })
}

/// Devices under the interpreter, the JIT and the timing model (gtx480), each with its name.
pub fn three() -> Vec<(&'static str, Device)> {
    let functional = |engine| {
        Device::new(DeviceConfig {
            engine,
            ..DeviceConfig::default()
        })
        .unwrap()
    };
    let timing = Device::new(DeviceConfig {
        timing: Some(timing::GpuConfig::load("gtx480", &[]).unwrap()),
        ..DeviceConfig::default()
    })
    .unwrap();
    vec![
        ("interpreter", functional(Engine::Interpreter)),
        ("jit", functional(Engine::Jit)),
        ("timing", timing),
    ]
}
