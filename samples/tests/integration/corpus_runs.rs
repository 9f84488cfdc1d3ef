//! Robustness: every kernel of the instruction corpus launches on zero-filled buffers without a
//! panic or a hang. Kernels may fault (their inputs are meaningless); a fault must be one of the
//! documented errors, and the device must keep working.

use runtime::{Arg, Device, DeviceConfig, Error};

#[test]
fn every_corpus_kernel_runs_or_faults_cleanly() {
    let dev = Device::new(DeviceConfig {
        warp_budget: 200_000,
        host_threads: 2,
        ..DeviceConfig::default()
    })
    .unwrap();
    // One zeroed buffer, large enough for every index these kernels compute from zeros.
    let buffer = dev.alloc::<u8>(1 << 20).unwrap();
    let dir = warpsim::samples_dir().join("corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "ptx"));
    files.sort();
    let (mut ran, mut faulted) = (0, 0);
    for path in &files {
        let module = dev.load_ptx_file(path).unwrap();
        for name in module.kernel_names() {
            let kernel = module.kernel(&name).unwrap();
            let args: Vec<Arg> = kernel
                .function()
                .params
                .iter()
                .map(|p| match p.size_bytes() {
                    8 => Arg::Ptr(buffer.device_ptr()),
                    4 => Arg::U32(1),
                    2 => Arg::U16(1),
                    1 => Arg::U8(1),
                    n => Arg::Bytes(vec![0; n as usize]),
                })
                .collect();
            match dev.launch(&kernel, 2, 64, 256, &args) {
                Ok(_) => ran += 1,
                Err(
                    e @ (Error::IllegalAddress(_)
                    | Error::MisalignedAddress(_)
                    | Error::BarrierDeadlock(_)
                    | Error::BudgetExceeded(_)
                    | Error::LaunchFailure(_)
                    | Error::Unsupported(_)
                    | Error::OutOfResources(_)
                    | Error::InvalidConfiguration(_)),
                ) => {
                    // Meaningless inputs may fault; the fault names kernel and place.
                    assert!(e.to_string().contains(&name), "{e}");
                    faulted += 1
                }
                Err(other) => panic!("{}: `{name}`: unexpected error {other}", path.display()),
            }
            buffer.memset(0).unwrap();
        }
    }
    assert!(ran + faulted >= 70, "ran {ran}, faulted {faulted}");
    assert!(
        ran >= 50,
        "most corpus kernels run on zeros: ran {ran}, faulted {faulted}"
    );
}
