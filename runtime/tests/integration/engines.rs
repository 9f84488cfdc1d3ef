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
