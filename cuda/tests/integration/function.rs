//! Kernel attributes and occupancy, against the timing crate's occupancy rule.

use crate::common::*;

#[test]
fn attributes_come_from_the_kernels_ptx_and_allocation() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "shared_user");
        let mut v = 0;
        ok(cuFuncGetAttribute(&mut v, 1, f));
        assert_eq!(v, 40000, "static shared memory");
        ok(cuFuncGetAttribute(&mut v, 5, f));
        assert_eq!(v, 70, "PTX version 7.0");
        ok(cuFuncGetAttribute(&mut v, 6, f));
        assert_eq!(v, 80, "the device's compute capability");
        ok(cuFuncGetAttribute(&mut v, 2, f));
        assert_eq!(
            v, 0,
            "the module has no .const variable (its counter is .global)"
        );
        ok(cuFuncGetAttribute(&mut v, 4, f));
        assert!(v > 0);
        ok(cuFuncGetAttribute(&mut v, 0, f));
        assert_eq!(v, 1024);
        expect(cuFuncGetAttribute(&mut v, 99, f), INVALID_VALUE);
        ok(cuFuncSetCacheConfig(f, 1));
        expect(cuFuncSetCacheConfig(f, 9), INVALID_VALUE);
        ok(cuModuleUnload(m));
    }
}

/// Dynamic shared memory of 100 bytes per thread; it calls the driver, which must not be
/// locked while it runs.
unsafe extern "C" fn hundred_per_thread(block: c_int) -> usize {
    let mut c = null_mut();
    // SAFETY: a valid out-pointer.
    ok(unsafe { cuCtxGetCurrent(&mut c) });
    block as usize * 100
}

#[test]
fn occupancy_follows_the_timing_models_rule() {
    let _c = Ctx::new();
    unsafe {
        let m = load(STORE);
        let f = function(m, "shared_user");
        let gpu = timing::GpuConfig::preset("a100");
        let mut regs = 0;
        ok(cuFuncGetAttribute(&mut regs, 4, f));
        let want = timing::occupancy::occupancy(
            &gpu,
            timing::occupancy::CtaDemand {
                threads: 256,
                regs_per_thread: regs as u32,
                shared_bytes: 40000,
            },
        )
        .unwrap()
        .ctas_per_sm;
        let mut blocks = 0;
        ok(cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut blocks,
            f,
            256,
            0,
        ));
        assert_eq!(blocks as u32, want);
        assert_eq!(
            blocks,
            167936 / 40192,
            "shared memory limits: 4 blocks of 40000 (+ granularity)"
        );
        let (mut grid, mut block) = (0, 0);
        ok(cuOccupancyMaxPotentialBlockSize(
            &mut grid, &mut block, f, None, 0, 0,
        ));
        // 2 blocks of 1024 and 4 of 512 both fill the SM's 2048 threads: the largest wins.
        assert_eq!(block, 1024);
        assert_eq!(grid, 2 * gpu.gpu.sms as c_int);
        ok(cuOccupancyMaxPotentialBlockSize(
            &mut grid, &mut block, f, None, 0, 128,
        ));
        assert_eq!(block, 128);
        // 40000 static + 100 per thread: one CTA of 1024 (142400 bytes) beats two of 256.
        ok(cuOccupancyMaxPotentialBlockSize(
            &mut grid,
            &mut block,
            f,
            Some(hundred_per_thread),
            0,
            0,
        ));
        assert_eq!((block, grid), (1024, gpu.gpu.sms as c_int));
        ok(cuModuleUnload(m));
    }
}
