//! Kernels too big for a GPU are refused with a precise error before anything heavy runs, and
//! big straight-line kernels that do fit compile and run in memory linear in their size.

use runtime::{Device, DeviceConfig, Error};
// The generators the front end's scaling tests use.
#[path = "../../../frontend/tests/support/big_kernel.rs"]
mod big_kernel;

fn devices() -> Vec<Device> {
    let functional = DeviceConfig::default();
    let interpreted = DeviceConfig {
        engine: emulator::launch::Engine::Interpreter,
        ..DeviceConfig::default()
    };
    [functional, interpreted]
        .into_iter()
        .map(|c| Device::new(c).expect("device"))
        .collect()
}

#[test]
fn a_kernel_needing_more_than_255_registers_per_thread_is_refused_at_launch() {
    // 300 values live at once need 303 registers; ptxas would spill, warpsim does not.
    let text = big_kernel::live_values(300);
    for dev in devices() {
        let m = dev.load_ptx("live.ptx", &text).expect("it loads");
        let k = m.kernel("live").unwrap();
        let input = dev.alloc::<f32>(300).unwrap();
        let out = dev.alloc::<f32>(1).unwrap();
        let err = dev
            .launch(&k, 1, 32, 0, &[(&input).into(), (&out).into()])
            .unwrap_err();
        assert!(matches!(err, Error::OutOfResources(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "out of resources: `live` needs 303 registers per thread; the device allows 255 \
             (warpsim does not spill registers to local memory)"
        );
    }
}

#[test]
fn fifty_thousand_uniform_values_live_at_once_compile_and_run() {
    // Immediates take no register, so 50,000 of them live at once fit; the JIT's uniform pass
    // looks each register up instead of rescanning the segment per definition (issue 49: 112 s
    // at this size when it rescanned; `warpsim run-ptx` on this kernel measures it).
    let n: u32 = 50_000;
    let text = big_kernel::uniform_values(n as usize);
    // 1 + 2 + ... + n, modulo 2^32 as `add.u32` wraps.
    let expected = (u64::from(n) * u64::from(n + 1) / 2) as u32;
    for dev in devices() {
        let m = dev.load_ptx("uniform.ptx", &text).unwrap();
        let k = m.kernel("uniform").unwrap();
        let out = dev.alloc::<u32>(1).unwrap();
        dev.launch(&k, 1, 32, 0, &[(&out).into()]).unwrap();
        assert_eq!(out.to_host().unwrap(), vec![expected]);
    }
}

#[test]
fn a_long_chain_of_virtual_registers_compiles_and_runs() {
    // 20,000 virtual registers and as many instructions: the JIT's liveness is indexed, not a
    // dense set per instruction (which would be 20,000 × 20,000 bits).
    let n = 20_000;
    let text = big_kernel::chain(n);
    for dev in devices() {
        let m = dev.load_ptx("chain.ptx", &text).unwrap();
        let k = m.kernel("chain").unwrap();
        let input = dev.alloc_from(&[0.5f32]).unwrap();
        let out = dev.alloc::<f32>(1).unwrap();
        dev.launch(&k, 1, 32, 0, &[(&input).into(), (&out).into()])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), vec![0.5 + (n - 1) as f32]);
    }
}
