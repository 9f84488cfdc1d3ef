//! Launch capture: every launch of a device written out as `warpsim run-ptx` (and GPGPU-Sim's
//! `ptxsim` driver, whose command line is run-ptx's) can replay it alone.
//!
//! Each launch appends one `[[launch]]` entry to `DIR/launches.toml` in the terms of
//! tools/gpgpusim/compare.py: the PTX file, kernel, grid, block, dynamic shared memory, the
//! arguments (scalars as `TYPE:V`; a pointer to the start of an allocation as `bin:u8:FILE`
//! holding the allocation's bytes at launch, or `@K` when argument K names it already), the
//! module variables the host changed from their declarations (`symbols`, as `--symbol`
//! takes them) and, after the launch, the warp instructions it executed. A launch that cannot
//! be replayed that way (a pointer into the middle of an allocation, an aggregate argument, a
//! texture or surface, a module variable holding device addresses) is written with
//! `unreplayable = "why"` and no inputs. Addresses kept inside buffers are not detected.
//!
//! The files are written before the launch runs, so a replay starts from the same bytes; a
//! capture costs a copy of every buffer per launch, for validation corpora at small sizes.

use crate::args::Arg;
use crate::error::{Error, Result};
use crate::module::Kernel;
use emulator::GlobalMemory;
use isa::{InitValue, Op, StateSpace};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where a device writes its launches, and how many it wrote (see the module's doc).
#[derive(Debug)]
pub struct LaunchCapture {
    dir: PathBuf,
    /// A prefix of every launch's name (the sample's name).
    label: String,
    /// Launches of one kernel written at most (the rest are counted, not written).
    per_kernel: usize,
    state: Mutex<State>,
}

/// Launches seen so far, in all and per kernel.
#[derive(Debug, Default)]
struct State {
    launches: usize,
    by_kernel: std::collections::BTreeMap<String, usize>,
}

/// One launch's entry, written once the launch has run.
pub(crate) struct Captured {
    text: String,
}

impl LaunchCapture {
    /// Captures into `dir` (created if missing; an existing `launches.toml` there is
    /// replaced) the first `per_kernel` launches of each kernel, naming them
    /// `LABEL.INDEX.KERNEL`, INDEX counting every launch of the device from 0.
    pub fn new(dir: &Path, label: &str, per_kernel: usize) -> Result<LaunchCapture> {
        std::fs::create_dir_all(dir.join("data")).map_err(|e| io_error(dir, e))?;
        let list = dir.join("launches.toml");
        std::fs::write(
            &list,
            format!("# Launches of `{label}` captured by warpsim (runtime/src/capture.rs).\n"),
        )
        .map_err(|e| io_error(&list, e))?;
        Ok(LaunchCapture {
            dir: dir.to_path_buf(),
            label: label.to_string(),
            per_kernel,
            state: Mutex::default(),
        })
    }

    /// Writes the inputs of a launch about to run and returns its entry, to be completed by
    /// [`LaunchCapture::finish`] once it ran; `None` past the kernel's limit.
    pub(crate) fn begin(
        &self,
        kernel: &Kernel,
        mem: &GlobalMemory,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u64,
        args: &[Arg],
    ) -> Result<Option<Captured>> {
        let index = {
            let mut state = self.state.lock().expect("capture lock");
            state.launches += 1;
            let seen = state
                .by_kernel
                .entry(kernel.name().to_string())
                .or_default();
            *seen += 1;
            if *seen > self.per_kernel {
                return Ok(None);
            }
            state.launches - 1
        };
        let name = format!("{}.{index}.{}", self.label, kernel.name());
        let dim = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
        let mut text = format!(
            "\n[[launch]]\nname = {}\nptx = {}\nkernel = {}\ngrid = \"{}\"\nblock = \"{}\"\nshared = {dynamic_shared}\n",
            quoted(&name),
            quoted(&self.ptx_file(kernel)?),
            quoted(kernel.name()),
            dim(grid),
            dim(block),
        );
        match self.inputs(kernel, mem, index, args) {
            Ok((args, symbols)) => {
                let list = |items: &[String]| {
                    let items: Vec<String> = items.iter().map(|s| quoted(s)).collect();
                    format!("[{}]", items.join(", "))
                };
                writeln!(text, "args = {}", list(&args)).expect("a String");
                if !symbols.is_empty() {
                    writeln!(text, "symbols = {}", list(&symbols)).expect("a String");
                }
            }
            Err(why) => writeln!(text, "unreplayable = {}", quoted(&why)).expect("a String"),
        }
        Ok(Some(Captured { text }))
    }

    /// Appends a launch's entry with the warp instructions it executed.
    pub(crate) fn finish(&self, captured: Captured, warp_insts: u64) -> Result<()> {
        use std::io::Write as _;
        let list = self.dir.join("launches.toml");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&list)
            .map_err(|e| io_error(&list, e))?;
        writeln!(f, "{}warp_insts = {warp_insts}", captured.text).map_err(|e| io_error(&list, e))
    }

    /// The kernel's PTX file: the file it was loaded from when that still holds the text, or
    /// a copy in `DIR/data/`.
    fn ptx_file(&self, kernel: &Kernel) -> Result<String> {
        let source = kernel.program().source().unwrap_or_default();
        let original = Path::new(&kernel.file);
        if std::fs::read_to_string(original).is_ok_and(|t| t == source) {
            return Ok(kernel.file.clone());
        }
        let stem = original
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("module.ptx");
        let copy = self
            .dir
            .join("data")
            .join(format!("{:016x}-{stem}", fnv1a(source.as_bytes())));
        std::fs::write(&copy, source).map_err(|e| io_error(&copy, e))?;
        Ok(copy.display().to_string())
    }

    /// run-ptx's `--arg`s and `--symbol`s for a launch, with the buffers' bytes written to
    /// files; or why the launch cannot be replayed from them.
    fn inputs(
        &self,
        kernel: &Kernel,
        mem: &GlobalMemory,
        index: usize,
        args: &[Arg],
    ) -> std::result::Result<(Vec<String>, Vec<String>), String> {
        if let Some(op) = opaque_object_use(kernel) {
            return Err(format!(
                "uses {op} (textures and surfaces are not captured)"
            ));
        }
        let mut specs = Vec::with_capacity(args.len());
        let mut buffers: Vec<(u64, usize)> = Vec::new();
        for (k, arg) in args.iter().enumerate() {
            let spec = match *arg {
                // A 64-bit integer naming the start of an allocation is a pointer too (some
                // hosts pass addresses as integers).
                Arg::Ptr(p) | Arg::U64(p) if p != 0 => match mem.allocation_of(p, 1) {
                    Some((start, size)) if start == p => {
                        match buffers.iter().find(|(s, _)| *s == start) {
                            Some((_, first)) => format!("@{first}"),
                            None => {
                                buffers.push((start, k));
                                let name = format!("{index}.arg{k}");
                                format!("bin:u8:{}", self.dump(mem, start, size, &name)?)
                            }
                        }
                    }
                    _ if matches!(arg, Arg::U64(_)) => format!("u64:{p}"),
                    Some((start, _)) => {
                        return Err(format!(
                            "argument {k} points {} bytes into an allocation",
                            p - start
                        ));
                    }
                    None => return Err(format!("argument {k} points outside every allocation")),
                },
                Arg::Ptr(p) => format!("u64:{p}"),
                Arg::U8(v) => format!("u8:{v}"),
                Arg::U16(v) => format!("u16:{v}"),
                Arg::U32(v) => format!("u32:{v}"),
                Arg::U64(v) => format!("u64:{v}"),
                Arg::I8(v) => format!("i8:{v}"),
                Arg::I16(v) => format!("i16:{v}"),
                Arg::I32(v) => format!("i32:{v}"),
                Arg::I64(v) => format!("i64:{v}"),
                // Bit-exact: Rust prints the shortest decimal that reads back as the same value.
                Arg::F32(v) => format!("f32:{v:?}"),
                Arg::F64(v) => format!("f64:{v:?}"),
                Arg::Bytes(ref b) => {
                    return Err(format!("argument {k} is a {}-byte aggregate", b.len()));
                }
            };
            specs.push(spec);
        }
        let mut symbols = Vec::new();
        let program = kernel.program();
        for (v, addr) in program.module.globals.iter().zip(&program.global_addrs) {
            let (Some(addr), StateSpace::Global | StateSpace::Const) = (addr, v.space) else {
                continue;
            };
            let mut now = vec![0u8; v.size_bytes() as usize];
            mem.read(*addr, &mut now).map_err(|e| e.to_string())?;
            // A replay allocates its buffers elsewhere: addresses kept in a variable would
            // point nowhere (heartwall's `d_unique` holds its buffers' addresses).
            let holds_address = now.chunks_exact(8).any(|w| {
                let word = u64::from_le_bytes(w.try_into().expect("8 bytes"));
                word != 0
                    && mem
                        .allocation_of(word, 1)
                        .is_some_and(|(start, _)| start == word)
            });
            if holds_address {
                return Err(format!(
                    "module variable `{}` holds device addresses",
                    v.name
                ));
            }
            match declared_bytes(v) {
                Some(declared) if declared == now => {}
                Some(_) => {
                    let file =
                        self.dump(mem, *addr, now.len() as u64, &format!("{index}.{}", v.name))?;
                    symbols.push(format!("{}=bin:u8:{file}", v.name));
                }
                None => {
                    return Err(format!(
                        "module variable `{}` is initialised with addresses",
                        v.name
                    ));
                }
            }
        }
        Ok((specs, symbols))
    }

    /// Writes `size` bytes of device memory at `addr` to `DIR/data/NAME.bin`; its path.
    fn dump(
        &self,
        mem: &GlobalMemory,
        addr: u64,
        size: u64,
        name: &str,
    ) -> std::result::Result<String, String> {
        let mut bytes = vec![0u8; size as usize];
        mem.read(addr, &mut bytes).map_err(|e| e.to_string())?;
        let path = self.dir.join("data").join(format!("{name}.bin"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path.display().to_string())
    }
}

/// The first texture or surface instruction the kernel (or a callee) executes, if any.
fn opaque_object_use(kernel: &Kernel) -> Option<&'static str> {
    let m = &kernel.program().module;
    emulator::program::reachable_functions(m, kernel.id())
        .into_iter()
        .flat_map(|f| m.function(f).blocks.iter().flat_map(|b| &b.insts))
        .find_map(|i| match i.op {
            Op::Tex(_) | Op::Tld4(_) | Op::Txq { .. } => Some("a texture"),
            Op::Suld(_) | Op::Sust(_) | Op::Sured { .. } | Op::Suq { .. } => Some("a surface"),
            _ => None,
        })
}

/// The bytes a module variable's declaration gives it (zeros without an initialiser); `None`
/// when the initialiser holds addresses, which differ between simulators.
fn declared_bytes(v: &isa::Variable) -> Option<Vec<u8>> {
    let mut bytes = vec![0u8; v.size_bytes() as usize];
    let elem = v.ty.bytes() as usize;
    for (i, value) in v.init.iter().flatten().enumerate() {
        let InitValue::Bits(bits) = value else {
            return None;
        };
        let at = i * elem;
        if let Some(slot) = bytes.get_mut(at..at + elem) {
            slot.copy_from_slice(&bits.to_le_bytes()[..elem]);
        }
    }
    Some(bytes)
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => write!(out, "\\u{:04X}", c as u32).expect("a String"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A stable 64-bit hash of a file's bytes, to name copies.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::HostAccess(format!("launch capture: {}: {e}", path.display()))
}
