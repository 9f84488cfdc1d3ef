//! The CUDA-like host API of warpsim: a [`Device`] with device memory, PTX [`Module`]s,
//! [`Kernel`] lookup, typed [`DeviceBuffer`]s and launches with checked [`Arg`]uments.
//!
//! ```no_run
//! use runtime::{Arg, Device, DeviceConfig};
//! let dev = Device::new(DeviceConfig::default())?;
//! let module = dev.load_ptx_file("samples/saxpy/saxpy.ptx".as_ref())?;
//! let saxpy = module.kernel("saxpy")?;
//! let x = dev.alloc_from(&[1.0f32; 256])?;
//! let y = dev.alloc_from(&[2.0f32; 256])?;
//! dev.launch(&saxpy, 1, 256, 0, &[Arg::I32(256), Arg::F32(3.0), (&x).into(), (&y).into()])?;
//! assert_eq!(y.to_host()?[0], 5.0);
//! # Ok::<(), runtime::Error>(())
//! ```
//!
//! **API boundary:** with the CLI and the `cuda` library, this is the only crate that does I/O.

pub mod args;
pub mod buffer;
pub mod capture;
pub mod config;
pub mod device;
pub mod error;
pub mod module;
mod programs;
pub mod texture;

pub use args::Arg;
pub use buffer::{DeviceBuffer, DeviceCopy};
pub use capture::LaunchCapture;
pub use config::{DeviceConfig, FUNCTIONAL_MEMORY_BYTES, TimingSampling};
pub use device::{CharacterizationReport, Device, Dim3, LaunchCharacterization, TimingReport};
pub use emulator::LaunchStats;
pub use error::{Error, Result};
pub use module::{Kernel, Module};
pub use texture::{DeviceArray, TextureDesc, TextureResource};
