//! The driver API's C types and the enum values this library reads or returns, with the
//! numbers of NVIDIA's documented ABI (`CUresult`, `CUdevice_attribute`, `CUjit_option`, ...).

use std::ffi::{c_int, c_uint, c_void};

/// `CUresult`: every entry point's status.
pub type CUresult = c_int;
/// `CUdevice`: a device ordinal.
pub type CUdevice = c_int;
/// `CUdeviceptr`: a device address (64-bit in every `_v2` entry point).
pub type CUdeviceptr = u64;
/// The opaque handles: warpsim hands out numbers, never pointers to its own objects.
pub type Handle = *mut c_void;

/// The `CUresult` codes warpsim returns (names and texts in `error.rs`).
pub mod status {
    use super::CUresult;
    pub const SUCCESS: CUresult = 0;
    pub const INVALID_VALUE: CUresult = 1;
    pub const OUT_OF_MEMORY: CUresult = 2;
    pub const NOT_INITIALIZED: CUresult = 3;
    pub const DEINITIALIZED: CUresult = 4;
    pub const NO_DEVICE: CUresult = 100;
    pub const INVALID_DEVICE: CUresult = 101;
    pub const INVALID_IMAGE: CUresult = 200;
    pub const INVALID_CONTEXT: CUresult = 201;
    pub const NO_BINARY_FOR_GPU: CUresult = 209;
    pub const UNSUPPORTED_LIMIT: CUresult = 215;
    pub const INVALID_PTX: CUresult = 218;
    pub const FILE_NOT_FOUND: CUresult = 301;
    pub const INVALID_HANDLE: CUresult = 400;
    pub const NOT_FOUND: CUresult = 500;
    pub const NOT_READY: CUresult = 600;
    pub const ILLEGAL_ADDRESS: CUresult = 700;
    pub const LAUNCH_OUT_OF_RESOURCES: CUresult = 701;
    pub const LAUNCH_TIMEOUT: CUresult = 702;
    pub const HOST_MEMORY_ALREADY_REGISTERED: CUresult = 712;
    pub const HOST_MEMORY_NOT_REGISTERED: CUresult = 713;
    pub const MISALIGNED_ADDRESS: CUresult = 716;
    pub const LAUNCH_FAILED: CUresult = 719;
    pub const NOT_SUPPORTED: CUresult = 801;
    pub const UNKNOWN: CUresult = 999;
}

/// `CUjit_option` values read by module loading and the linker.
pub mod jit {
    use std::ffi::c_int;
    pub const INFO_LOG_BUFFER: c_int = 3;
    pub const INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
    pub const ERROR_LOG_BUFFER: c_int = 5;
    pub const ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;
    /// `CUjitInputType`: the one input warpsim reads.
    pub const INPUT_CUBIN: c_int = 0;
    pub const INPUT_PTX: c_int = 1;
    pub const INPUT_FATBINARY: c_int = 2;
    pub const INPUT_OBJECT: c_int = 3;
    pub const INPUT_LIBRARY: c_int = 4;
    pub const INPUT_NVVM: c_int = 5;
}

/// `cuLaunchKernel`'s `extra` keys (pointer-sized markers).
pub mod launch_param {
    pub const END: usize = 0;
    pub const BUFFER_POINTER: usize = 1;
    pub const BUFFER_SIZE: usize = 2;
}

/// `CUlaunchConfig` (`cuLaunchKernelEx`).
#[repr(C)]
pub struct CUlaunchConfig {
    pub grid_dim_x: c_uint,
    pub grid_dim_y: c_uint,
    pub grid_dim_z: c_uint,
    pub block_dim_x: c_uint,
    pub block_dim_y: c_uint,
    pub block_dim_z: c_uint,
    pub shared_mem_bytes: c_uint,
    pub h_stream: Handle,
    pub attrs: *mut CUlaunchAttribute,
    pub num_attrs: c_uint,
}

/// `CUlaunchAttribute`: an id, padding to 8 bytes, and a 64-byte value union.
#[repr(C)]
pub struct CUlaunchAttribute {
    pub id: c_int,
    pub pad: [u8; 4],
    pub value: [u8; 64],
}

/// `CUlaunchAttributeID` values with a meaning under warpsim.
pub mod launch_attr {
    use std::ffi::c_int;
    pub const IGNORE: c_int = 0;
    pub const COOPERATIVE: c_int = 2;
    pub const CLUSTER_DIMENSION: c_int = 4;
    pub const PRIORITY: c_int = 8;
}

/// `CUuuid`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CUuuid {
    pub bytes: [u8; 16],
}

/// `CUfunction_attribute`.
pub mod func_attr {
    use std::ffi::c_int;
    pub const MAX_THREADS_PER_BLOCK: c_int = 0;
    pub const SHARED_SIZE_BYTES: c_int = 1;
    pub const CONST_SIZE_BYTES: c_int = 2;
    pub const LOCAL_SIZE_BYTES: c_int = 3;
    pub const NUM_REGS: c_int = 4;
    pub const PTX_VERSION: c_int = 5;
    pub const BINARY_VERSION: c_int = 6;
    pub const CACHE_MODE_CA: c_int = 7;
    pub const MAX_DYNAMIC_SHARED_SIZE_BYTES: c_int = 8;
    pub const PREFERRED_SHARED_MEMORY_CARVEOUT: c_int = 9;
    /// One past the last attribute (`CU_FUNC_ATTRIBUTE_MAX`).
    pub const END: c_int = 16;
}

/// `CUpointer_attribute`.
pub mod ptr_attr {
    use std::ffi::c_int;
    pub const CONTEXT: c_int = 1;
    pub const MEMORY_TYPE: c_int = 2;
    pub const DEVICE_POINTER: c_int = 3;
    pub const HOST_POINTER: c_int = 4;
    pub const P2P_TOKENS: c_int = 5;
    pub const SYNC_MEMOPS: c_int = 6;
    pub const BUFFER_ID: c_int = 7;
    pub const IS_MANAGED: c_int = 8;
    pub const DEVICE_ORDINAL: c_int = 9;
    pub const IS_LEGACY_CUDA_IPC_CAPABLE: c_int = 10;
    pub const RANGE_START_ADDR: c_int = 11;
    pub const RANGE_SIZE: c_int = 12;
    pub const MAPPED: c_int = 13;
    pub const ALLOWED_HANDLE_TYPES: c_int = 14;
    pub const IS_GPU_DIRECT_RDMA_CAPABLE: c_int = 15;
    pub const ACCESS_FLAGS: c_int = 16;
    pub const MEMPOOL_HANDLE: c_int = 17;
    pub const MAPPING_SIZE: c_int = 18;
    pub const MAPPING_BASE_ADDR: c_int = 19;
    pub const MEMORY_BLOCK_ID: c_int = 20;
    pub const IS_HW_DECOMPRESS_CAPABLE: c_int = 21;
    /// `CUmemorytype`.
    pub const MEMORYTYPE_HOST: u32 = 1;
    pub const MEMORYTYPE_DEVICE: u32 = 2;
}

/// `CUevent_flags`.
pub mod event_flags {
    use std::ffi::c_uint;
    pub const DISABLE_TIMING: c_uint = 2;
}

/// Special stream handles.
pub mod stream {
    pub const LEGACY: usize = 1;
    pub const PER_THREAD: usize = 2;
}

/// `CUlimit` values and their defaults.
pub mod limit {
    pub const STACK_SIZE: i32 = 0;
    pub const PRINTF_FIFO_SIZE: i32 = 1;
    pub const MALLOC_HEAP_SIZE: i32 = 2;
    pub const DEV_RUNTIME_SYNC_DEPTH: i32 = 3;
    pub const DEV_RUNTIME_PENDING_LAUNCH_COUNT: i32 = 4;
    pub const MAX_L2_FETCH_GRANULARITY: i32 = 5;
    pub const PERSISTING_L2_CACHE_SIZE: i32 = 6;
    /// Defaults as a fresh CUDA context reports them.
    pub const DEFAULTS: [(i32, usize); 7] = [
        (STACK_SIZE, 1024),
        (PRINTF_FIFO_SIZE, 1 << 20),
        (MALLOC_HEAP_SIZE, 8 << 20),
        (DEV_RUNTIME_SYNC_DEPTH, 2),
        (DEV_RUNTIME_PENDING_LAUNCH_COUNT, 2048),
        (MAX_L2_FETCH_GRANULARITY, 128),
        (PERSISTING_L2_CACHE_SIZE, 0),
    ];
}

/// `cuGetProcAddress` flags and `CUdriverProcAddressQueryResult`.
pub mod proc_address {
    pub const PER_THREAD_DEFAULT_STREAM: u64 = 2;
    pub const SUCCESS: i32 = 0;
    pub const SYMBOL_NOT_FOUND: i32 = 1;
    pub const VERSION_NOT_SUFFICIENT: i32 = 2;
}

/// The CUDA version warpsim's driver reports (`cuDriverGetVersion`): 12.9, the newest
/// interface whose entry points it resolves.
pub const DRIVER_VERSION: c_int = 12090;
