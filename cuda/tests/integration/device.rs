//! Initialisation, the device and its attributes, error names.

use crate::common::*;

#[test]
fn the_one_device_reports_the_presets_properties() {
    init();
    // SAFETY (every test): the driver API called with valid pointers, as a C program would.
    unsafe {
        let (mut count, mut dev, mut v) = (0, -1, 0);
        ok(cuDeviceGetCount(&mut count));
        assert_eq!(count, 1);
        ok(cuDeviceGet(&mut dev, 0));
        assert_eq!(dev, 0);
        expect(cuDeviceGet(&mut dev, 1), INVALID_DEVICE);
        let gpu = timing::GpuConfig::preset("a100");
        for (attr, want) in [
            (75, 8),                                 // COMPUTE_CAPABILITY_MAJOR
            (76, 0),                                 // COMPUTE_CAPABILITY_MINOR
            (16, gpu.gpu.sms as c_int),              // MULTIPROCESSOR_COUNT
            (13, gpu.gpu.clock_mhz as c_int * 1000), // CLOCK_RATE (kHz)
            (10, 32),                                // WARP_SIZE
            (1, 1024),                               // MAX_THREADS_PER_BLOCK
            (8, 48 * 1024),                          // MAX_SHARED_MEMORY_PER_BLOCK
            (97, gpu.sm.shared_memory as c_int),     // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
            (39, 2048),                              // MAX_THREADS_PER_MULTIPROCESSOR
            (19, 0),                                 // CAN_MAP_HOST_MEMORY
            (41, 1),                                 // UNIFIED_ADDRESSING
        ] {
            ok(cuDeviceGetAttribute(&mut v, attr, 0));
            assert_eq!(v, want, "attribute {attr}");
        }
        expect(cuDeviceGetAttribute(&mut v, 0, 0), INVALID_VALUE);
        expect(cuDeviceGetAttribute(&mut v, 144, 0), INVALID_VALUE);
        expect(cuDeviceGetAttribute(&mut v, 75, 3), INVALID_DEVICE);
        expect(cuDeviceGetAttribute(null_mut(), 75, 0), INVALID_VALUE);
        let (mut major, mut minor) = (0, 0);
        ok(cuDeviceComputeCapability(&mut major, &mut minor, 0));
        assert_eq!((major, minor), (8, 0));
        let mut total = 0usize;
        ok(cuDeviceTotalMem_v2(&mut total, 0));
        assert!(total > 0);
        let mut bus = [0 as c_char; 16];
        ok(cuDeviceGetPCIBusId(bus.as_mut_ptr(), 16, 0));
        assert_eq!(
            CStr::from_ptr(bus.as_ptr()).to_str().unwrap(),
            "0000:00:00.0"
        );
        let mut uuid = warpsim_cuda::types::CUuuid::default();
        ok(cuDeviceGetUuid_v2(&mut uuid, 0));
        assert_eq!(&uuid.bytes[..11], b"warpsima100");
        let mut version = 0;
        ok(cuDriverGetVersion(&mut version));
        assert_eq!(version, 12090);
    }
}

#[test]
fn a_short_name_buffer_gets_a_truncated_terminated_name() {
    init();
    unsafe {
        let mut buf = [b'x' as c_char; 8];
        ok(cuDeviceGetName(buf.as_mut_ptr(), 8, 0));
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), "warpsim");
        expect(cuDeviceGetName(null_mut(), 8, 0), INVALID_VALUE);
    }
}

#[test]
fn error_names_and_strings() {
    unsafe {
        let mut p: *const c_char = null();
        for (code, name, text) in [
            (0, "CUDA_SUCCESS", "no error"),
            (1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"),
            (
                700,
                "CUDA_ERROR_ILLEGAL_ADDRESS",
                "an illegal memory access was encountered",
            ),
            (801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"),
        ] {
            ok(cuGetErrorName(code, &mut p));
            assert_eq!(CStr::from_ptr(p).to_str().unwrap(), name);
            ok(cuGetErrorString(code, &mut p));
            assert_eq!(CStr::from_ptr(p).to_str().unwrap(), text);
        }
        expect(cuGetErrorName(12345, &mut p), INVALID_VALUE);
        assert!(p.is_null());
        expect(cuGetErrorName(0, null_mut()), INVALID_VALUE);
    }
}
