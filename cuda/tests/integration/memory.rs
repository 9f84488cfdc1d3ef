//! Allocations, copies, sets, host memory and pointer queries.

use crate::common::*;

#[test]
fn copies_round_trip_in_every_direction() {
    let _c = Ctx::new();
    unsafe {
        let data: Vec<u32> = (0..1000).collect();
        let a = upload(&data);
        let mut b = 0;
        ok(cuMemAlloc_v2(&mut b, 4000));
        ok(cuMemcpyDtoD_v2(b, a, 4000));
        assert_eq!(download::<u32>(b, 1000), data);
        // cuMemcpy tells device from host addresses (unified addressing).
        let mut host = vec![0u32; 1000];
        ok(cuMemcpy(host.as_mut_ptr() as u64, b, 4000));
        assert_eq!(host, data);
        let back: Vec<u32> = data.iter().map(|x| x * 3).collect();
        ok(cuMemcpy(a, back.as_ptr() as u64, 4000));
        assert_eq!(download::<u32>(a, 1000), back);
        ok(cuMemcpyHtoDAsync_v2(b, back.as_ptr().cast(), 8, null_mut()));
        ok(cuMemcpyDtoHAsync_v2(
            host.as_mut_ptr().cast(),
            b,
            8,
            2 as Handle,
        ));
        assert_eq!(&host[..2], &back[..2]);
        expect(
            cuMemcpyHtoDAsync_v2(b, back.as_ptr().cast(), 8, 0x77 as Handle),
            INVALID_HANDLE,
        );
        // Past the end of the allocation, NULL host pointers, zero bytes.
        expect(
            cuMemcpyHtoD_v2(a, back.as_ptr().cast(), 4004),
            INVALID_VALUE,
        );
        expect(cuMemcpyDtoH_v2(null_mut(), a, 4), INVALID_VALUE);
        ok(cuMemcpyHtoD_v2(a, null(), 0));
        ok(cuMemFree_v2(a));
        expect(cuMemFree_v2(a), INVALID_VALUE);
        expect(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), a, 4),
            INVALID_VALUE,
        );
        ok(cuMemFree_v2(b));
        ok(cuMemFree_v2(0));
        let mut p = 0;
        expect(cuMemAlloc_v2(&mut p, 0), INVALID_VALUE);
        expect(cuMemAlloc_v2(null_mut(), 4), INVALID_VALUE);
        expect(cuMemAlloc_v2(&mut p, 1 << 62), OUT_OF_MEMORY);
    }
}

#[test]
fn sets_write_their_pattern_exactly() {
    let _c = Ctx::new();
    unsafe {
        let p = upload(&[0u8; 64]);
        ok(cuMemsetD8_v2(p, 0xAB, 3));
        ok(cuMemsetD16_v2(p + 4, 0x1234, 2));
        ok(cuMemsetD32Async(p + 8, 0xDEAD_BEEF, 1, null_mut()));
        ok(cuMemsetD2D8_v2(p + 16, 8, 0x5A, 2, 3));
        let got = download::<u8>(p, 40);
        let mut want = vec![0u8; 40];
        want[..3].fill(0xAB);
        want[4..8].copy_from_slice(&[0x34, 0x12, 0x34, 0x12]);
        want[8..12].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
        for row in 0..3 {
            want[16 + row * 8..18 + row * 8].fill(0x5A);
        }
        assert_eq!(got, want);
        expect(cuMemsetD32_v2(p + 2, 1, 1), INVALID_VALUE);
        expect(cuMemsetD8_v2(p + 60, 1, 8), INVALID_VALUE);
        let (mut base, mut size) = (0, 0usize);
        ok(cuMemGetAddressRange_v2(&mut base, &mut size, p + 10));
        assert_eq!((base, size), (p, 64));
        ok(cuMemFree_v2(p));
    }
}

#[test]
fn host_memory_is_plain_host_memory() {
    let _c = Ctx::new();
    unsafe {
        let mut h: *mut c_void = null_mut();
        ok(cuMemAllocHost_v2(&mut h, 10000));
        assert_eq!(h as usize % 4096, 0);
        let mut t = 0u32;
        ok(cuPointerGetAttribute(
            (&mut t as *mut u32).cast(),
            2,
            h as u64 + 100,
        ));
        assert_eq!(t, 1, "CU_MEMORYTYPE_HOST");
        let mut d = 0;
        expect(cuMemHostGetDevicePointer_v2(&mut d, h, 0), NOT_SUPPORTED);
        expect(cuMemHostAlloc(&mut h, 64, 2), NOT_SUPPORTED);
        ok(cuMemFreeHost(h));
        expect(cuMemFreeHost(h), INVALID_VALUE);

        let mut buf = vec![0u8; 4096];
        ok(cuMemHostRegister_v2(buf.as_mut_ptr().cast(), 4096, 0));
        expect(cuMemHostRegister_v2(buf.as_mut_ptr().cast(), 16, 0), 712);
        let mut start = 0u64;
        ok(cuPointerGetAttribute(
            (&mut start as *mut u64).cast(),
            11,
            buf.as_ptr() as u64 + 5,
        ));
        assert_eq!(start, buf.as_ptr() as u64);
        ok(cuMemHostUnregister(buf.as_mut_ptr().cast()));
        expect(cuMemHostUnregister(buf.as_mut_ptr().cast()), 713);
    }
}

#[test]
fn pointer_queries_know_device_allocations() {
    let _c = Ctx::new();
    unsafe {
        let p = upload(&[1u32; 16]);
        let mut t = 0u32;
        ok(cuPointerGetAttribute((&mut t as *mut u32).cast(), 2, p + 4));
        assert_eq!(t, 2, "CU_MEMORYTYPE_DEVICE");
        let mut size = 0u64;
        ok(cuPointerGetAttribute(
            (&mut size as *mut u64).cast(),
            12,
            p + 4,
        ));
        assert_eq!(size, 64);
        let unknown = [0u8; 4];
        expect(
            cuPointerGetAttribute((&mut t as *mut u32).cast(), 2, unknown.as_ptr() as u64),
            INVALID_VALUE,
        );
        // cuPointerGetAttributes answers zeros for a pointer it does not know.
        let attrs = [2 as c_int, 9];
        let (mut ty, mut ordinal) = (7u32, 7u32);
        let outs = [
            (&mut ty as *mut u32).cast::<c_void>(),
            (&mut ordinal as *mut u32).cast(),
        ];
        ok(cuPointerGetAttributes(
            2,
            attrs.as_ptr(),
            outs.as_ptr(),
            unknown.as_ptr() as u64,
        ));
        assert_eq!(ty, 0);
        ok(cuPointerGetAttributes(2, attrs.as_ptr(), outs.as_ptr(), p));
        assert_eq!((ty, ordinal), (2, 0));
        ok(cuMemFree_v2(p));
    }
}
