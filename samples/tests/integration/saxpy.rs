//! SAXPY end to end: PASS (bit-exact against `f32::mul_add`) for sizes around warp and block
//! boundaries and for 2^20, and identical results and counts whatever the host thread count.

use runtime::{Device, DeviceConfig};

fn device(threads: usize) -> Device {
    Device::new(DeviceConfig {
        host_threads: threads,
        ..DeviceConfig::default()
    })
    .unwrap()
}

#[test]
fn saxpy_passes_for_every_size() {
    let dev = device(2);
    for n in [1, 31, 32, 33, 1000, 1 << 20] {
        let r = warpsim::saxpy::run(&dev, n).unwrap();
        assert!(r.validation.passed(), "n = {n}: {}", r.validation);
        assert_eq!(r.validation.checked, n);
        // Every thread of the grid runs the 10-instruction bounds check and the final `ret`;
        // the n threads inside run the 9-instruction body too (see `warpsim dis`).
        let threads = u64::from((n as u32).div_ceil(warpsim::saxpy::BLOCK))
            * u64::from(warpsim::saxpy::BLOCK);
        assert_eq!(r.stats.thread_insts, threads * 11 + n as u64 * 9, "n = {n}");
    }
}

#[test]
fn results_and_counts_do_not_depend_on_host_threads() {
    let one = warpsim::saxpy::run(&device(1), 5000).unwrap();
    let two = warpsim::saxpy::run(&device(2), 5000).unwrap();
    assert!(one.validation.passed() && two.validation.passed());
    assert_eq!(one.stats, two.stats);
}
