//! The simulated device's properties (`cuDeviceGetAttribute`), derived from the GPU preset:
//! SMs, clock, shared memory, registers, caches, DRAM and compute capability come from the
//! timing configuration; the architectural limits are those of the compute capability
//! (NVIDIA's CUDA C Programming Guide); capabilities warpsim does not have (mapped host memory,
//! managed memory, concurrent kernels, cooperative launches, clusters) are reported absent.

use crate::config::Settings;

/// `CU_DEVICE_ATTRIBUTE_MAX`: attributes are numbered 1 to `END - 1`.
pub const END: i32 = 144;

/// The value of device attribute `attr`, or `None` for a number that is no attribute.
pub fn value(s: &Settings, attr: i32) -> Option<i64> {
    let g = &s.gpu;
    let sm = &g.sm;
    let mem = &g.mem;
    let cc = g.gpu.compute_capability;
    let per_block_shared = i64::from(sm.shared_memory.min(48 * 1024));
    let l2 = i64::from(mem.l2.slices)
        * i64::from(mem.l2.slice.sets)
        * i64::from(mem.l2.slice.ways)
        * i64::from(mem.l2.slice.line);
    let v: i64 = match attr {
        1 => i64::from(sm.max_threads.min(1024)), // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,                            // MAX_BLOCK_DIM_X, _Y
        4 => 64,                                  // MAX_BLOCK_DIM_Z
        5 => i64::from(i32::MAX),                 // MAX_GRID_DIM_X
        6 | 7 => 65535,                           // MAX_GRID_DIM_Y, _Z
        8 => per_block_shared,                    // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 65536,                               // TOTAL_CONSTANT_MEMORY
        10 => 32,                                 // WARP_SIZE
        11 => i64::from(i32::MAX),                // MAX_PITCH
        12 => i64::from(sm.registers.min(65536)), // MAX_REGISTERS_PER_BLOCK
        13 => i64::from(g.gpu.clock_mhz) * 1000,  // CLOCK_RATE (kHz)
        14 => 512,                                // TEXTURE_ALIGNMENT
        15 => 0,                                  // GPU_OVERLAP: copies do not overlap kernels
        16 => i64::from(g.gpu.sms),               // MULTIPROCESSOR_COUNT
        17..=19 => 0,     // KERNEL_EXEC_TIMEOUT, INTEGRATED, CAN_MAP_HOST_MEMORY
        20 => 0,          // COMPUTE_MODE: default
        21 => 131072,     // MAXIMUM_TEXTURE1D_WIDTH
        22 => 131072,     // MAXIMUM_TEXTURE2D_WIDTH
        23 => 65536,      // MAXIMUM_TEXTURE2D_HEIGHT
        24..=26 => 16384, // MAXIMUM_TEXTURE3D_*
        27 => 32768,      // MAXIMUM_TEXTURE2D_LAYERED_WIDTH
        28 => 32768,      // MAXIMUM_TEXTURE2D_LAYERED_HEIGHT
        29 => 2048,       // MAXIMUM_TEXTURE2D_LAYERED_LAYERS
        30 => 512,        // SURFACE_ALIGNMENT
        31 => 0,          // CONCURRENT_KERNELS: launches run one after another
        32..=35 => 0,     // ECC_ENABLED, PCI_BUS_ID, PCI_DEVICE_ID, TCC_DRIVER
        36 => i64::from(mem.dram.clock_mhz) * 1000, // MEMORY_CLOCK_RATE (kHz)
        37 => i64::from(mem.dram.channels * mem.dram.bus_bytes * 8), // GLOBAL_MEMORY_BUS_WIDTH
        38 => l2,         // L2_CACHE_SIZE
        39 => i64::from(sm.max_threads), // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 0,          // ASYNC_ENGINE_COUNT
        41 => 1,          // UNIFIED_ADDRESSING: cuMemcpy tells device from host addresses
        42 => 32768,      // MAXIMUM_TEXTURE1D_LAYERED_WIDTH
        43 => 2048,       // MAXIMUM_TEXTURE1D_LAYERED_LAYERS
        44 => 1,          // CAN_TEX2D_GATHER
        45 | 46 => 32768, // MAXIMUM_TEXTURE2D_GATHER_*
        47 | 48 => 8192,  // MAXIMUM_TEXTURE3D_*_ALTERNATE
        49 => 32768,      // MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE
        50 => 0,          // PCI_DOMAIN_ID
        51 => 32,         // TEXTURE_PITCH_ALIGNMENT
        52 | 53 => 32768, // MAXIMUM_TEXTURECUBEMAP_*
        54 => 2046,       // MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS
        55 => 32768,      // MAXIMUM_SURFACE1D_WIDTH
        56 => 131072,     // MAXIMUM_SURFACE2D_WIDTH
        57 => 65536,      // MAXIMUM_SURFACE2D_HEIGHT
        58..=60 => 16384, // MAXIMUM_SURFACE3D_*
        61 => 32768,      // MAXIMUM_SURFACE1D_LAYERED_WIDTH
        62 => 2048,       // MAXIMUM_SURFACE1D_LAYERED_LAYERS
        63 | 64 => 32768, // MAXIMUM_SURFACE2D_LAYERED_*
        65 => 2048,       // MAXIMUM_SURFACE2D_LAYERED_LAYERS
        66 | 67 => 32768, // MAXIMUM_SURFACECUBEMAP_*
        68 => 2046,       // MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS
        69 => 268435456,  // MAXIMUM_TEXTURE1D_LINEAR_WIDTH
        70 | 71 => 131072, // MAXIMUM_TEXTURE2D_LINEAR_*
        72 => 2097120,    // MAXIMUM_TEXTURE2D_LINEAR_PITCH
        73 => 32768,      // MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH
        74 => 32768,      // MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT
        75 => i64::from(cc.major), // COMPUTE_CAPABILITY_MAJOR
        76 => i64::from(cc.minor), // COMPUTE_CAPABILITY_MINOR
        77 => 32768,      // MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH
        78 => 0,          // STREAM_PRIORITIES_SUPPORTED
        79 | 80 => 1,     // GLOBAL_L1_CACHE_SUPPORTED, LOCAL_L1_CACHE_SUPPORTED
        81 => i64::from(sm.shared_memory), // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => i64::from(sm.registers), // MAX_REGISTERS_PER_MULTIPROCESSOR
        83..=86 => 0, // MANAGED_MEMORY, MULTI_GPU_BOARD(_GROUP_ID), HOST_NATIVE_ATOMIC_SUPPORTED
        87 => 2,      // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        88..=96 => 0, // pageable / managed access, preemption, stream memory operations, cooperative launches
        97 => i64::from(sm.shared_memory), // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        98 => 0,      // CAN_FLUSH_REMOTE_WRITES
        99 => 1,      // HOST_REGISTER_SUPPORTED (as plain host memory)
        100..=105 => 0, // host page tables, VMM, IPC handle types
        106 => i64::from(sm.max_ctas), // MAX_BLOCKS_PER_MULTIPROCESSOR
        107..=130 => 0, // compression, persisting L2, RDMA, pools, clusters, ... : absent
        131 => -1,    // NUMA_ID
        132 | 133 => 0, // MULTICAST_SUPPORTED, MPS_ENABLED
        134 => -1,    // HOST_NUMA_ID
        135..=143 => 0,
        _ => return None,
    };
    Some(v)
}
