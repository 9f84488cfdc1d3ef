//! The driver API called as a C program calls it (the exported functions, directly), with
//! exact results and error codes. One test binary; each test makes and destroys its own
//! context on its own thread. The device is the default one (functional, `a100`): these tests
//! run with the `WARPSIM_*` variables unset, and `timing.rs` runs itself again in a child
//! process for what needs another environment.

mod common;
mod context;
mod device;
mod function;
mod hostile;
mod launch;
mod link;
mod memory;
mod module;
mod proc_address;
mod stream;
mod timing;
