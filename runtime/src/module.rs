//! Loaded modules: PTX lowered and prepared, with module variables allocated in device memory.

use crate::error::{Error, Result};
use emulator::{GlobalMemory, Program};
use isa::{FuncId, FuncKind, InitValue, Op, StateSpace, SymbolRef};
use std::sync::Arc;

/// A PTX module loaded on a device (`cuModuleLoadData`).
pub struct Module {
    pub(crate) program: Arc<Program>,
    pub(crate) mem: Arc<GlobalMemory>,
    /// The file name used in diagnostics.
    pub(crate) file: String,
    /// How the device's engine compiles the module's kernels (`None`: it interprets them).
    pub(crate) granularity: Option<emulator::jit::Granularity>,
    /// The device's registers per thread: a kernel needing more cannot launch, so it is not
    /// compiled ahead of time (a huge kernel would take the JIT minutes for nothing).
    pub(crate) max_registers: u32,
}

/// A kernel of a loaded module (`cuModuleGetFunction`).
#[derive(Clone)]
pub struct Kernel {
    pub(crate) program: Arc<Program>,
    pub(crate) id: FuncId,
    pub(crate) file: String,
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.program.module.function(self.id).name
    }

    /// The kernel's function in the ISA.
    pub fn function(&self) -> &isa::Function {
        self.program.module.function(self.id)
    }

    /// The prepared program the kernel belongs to.
    pub fn program(&self) -> &Program {
        &self.program
    }

    pub fn id(&self) -> FuncId {
        self.id
    }

    /// Instructions in the kernel or its callees that warpsim cannot execute, as
    /// `unsupported: <opcode with modifiers> at file:line` lines.
    pub fn unsupported(&self) -> Vec<String> {
        let m = &self.program.module;
        emulator::program::reachable_functions(m, self.id)
            .into_iter()
            .flat_map(|f| {
                m.function(f)
                    .blocks
                    .iter()
                    .flat_map(|b| &b.insts)
                    .map(move |i| (f, i))
            })
            .filter_map(|(f, i)| match &i.op {
                Op::Unsupported { text } => Some(format!(
                    "unsupported: {text} at {}:{} (in `{}`)",
                    self.file,
                    i.loc.line,
                    m.function(f).name
                )),
                _ => None,
            })
            .collect()
    }
}

impl Module {
    /// Lowers (or finds prepared) `text` and loads it into the device memory `memory` gives for
    /// the lowered module (the device picks its memory by the module's address size).
    pub(crate) fn load(
        memory: impl FnOnce(&isa::Module) -> Result<Arc<GlobalMemory>>,
        file: &str,
        text: &str,
        granularity: Option<emulator::jit::Granularity>,
        max_registers: u32,
    ) -> Result<Module> {
        // A program prepared from the same text before (by this device or another) is
        // reused when the variables land at the same addresses: see `crate::programs`.
        let kept = crate::programs::find(file, text);
        let parsed = match kept {
            Some(_) => None,
            None => Some(frontend::compile(file, text)?),
        };
        let module = kept
            .as_ref()
            .map(|program| &program.module)
            .or(parsed.as_ref())
            .expect("a module kept or parsed");
        let mem = memory(module)?;
        // `.global` and `.const` variables live in device memory; allocate them, then write
        // their initializers (which may hold each other's addresses).
        let mut addrs = Vec::with_capacity(module.globals.len());
        for v in &module.globals {
            addrs.push(match v.space {
                StateSpace::Global | StateSpace::Const => {
                    let addr = mem.alloc(v.size_bytes().max(1))?;
                    mem.set_label(addr, format!("{} variable {}", v.space, v.name))?;
                    Some(addr)
                }
                _ => None,
            });
        }
        for (v, addr) in module.globals.iter().zip(&addrs) {
            let (Some(addr), Some(init)) = (addr, &v.init) else {
                continue;
            };
            let elem = u64::from(v.ty.bytes());
            for (i, value) in init.iter().enumerate() {
                let bits = match value {
                    InitValue::Bits(b) => *b,
                    InitValue::SymbolAddr {
                        sym: SymbolRef::Global(g),
                        offset,
                    } => addrs[g.index()].unwrap_or(0).wrapping_add(*offset as u64),
                    InitValue::SymbolAddr { .. } => 0,
                    InitValue::FuncAddr(f) => u64::from(f.0),
                };
                let at = addr + i as u64 * elem;
                mem.write(at, &bits.to_le_bytes()[..elem as usize])
                    .map_err(|e| Error::HostAccess(e.to_string()))?;
            }
        }
        let program = match kept {
            Some(program) if program.global_addrs == addrs && program.map() == mem.map() => program,
            kept => {
                let module = parsed.unwrap_or_else(|| kept.expect("kept").module.clone());
                let program = Program::new(module, addrs)
                    .with_map(mem.map())
                    .map_err(|e| Error::InvalidValue(format!("{file}: {e}")))?;
                let program = Arc::new(program.with_source(text));
                crate::programs::keep(file, text, program.clone());
                program
            }
        };
        Ok(Module {
            program,
            mem,
            file: file.to_string(),
            granularity,
            max_registers,
        })
    }

    /// Looks a kernel up by name.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let m = &self.program.module;
        match m.function_by_name(name) {
            Some(id) if m.function(id).kind == FuncKind::Entry => Ok(Kernel {
                program: self.program.clone(),
                id,
                file: self.file.clone(),
            }),
            Some(_) => Err(Error::InvalidValue(format!(
                "`{name}` is a device function, not a kernel"
            ))),
            None => {
                let kernels: Vec<_> = m.kernels().map(|(_, f)| f.name.as_str()).collect();
                Err(Error::InvalidValue(format!(
                    "no kernel `{name}` in {}; kernels: {}",
                    self.file,
                    kernels.join(", ")
                )))
            }
        }
    }

    /// Compiles every kernel that can launch for the device's engine, if it compiles (errors
    /// are reported again at launch).
    pub(crate) fn precompile(&self) {
        let _ = self.jit_compile_seconds();
    }

    /// Seconds the JIT spent compiling this module's kernels that can launch (0 with the
    /// interpreter). A program shared with an earlier load (`crate::programs`) reports the
    /// time its code took to compile then.
    pub fn jit_compile_seconds(&self) -> f64 {
        let Some(granularity) = self.granularity else {
            return 0.0;
        };
        self.program
            .module
            .kernels()
            .filter(|(id, _)| self.program.kernel_registers(*id) <= self.max_registers)
            .filter_map(|(id, _)| self.program.jit_at(id, granularity).ok())
            .map(|k| k.compile_seconds)
            .sum()
    }

    /// Names of the module's kernels.
    pub fn kernel_names(&self) -> Vec<String> {
        self.program
            .module
            .kernels()
            .map(|(_, f)| f.name.clone())
            .collect()
    }

    /// The device address and size in bytes of module variable `name` (`cuModuleGetGlobal`).
    pub fn symbol(&self, name: &str) -> Result<(u64, u64)> {
        let m = &self.program.module;
        let i = m
            .globals
            .iter()
            .position(|g| g.name == name)
            .ok_or_else(|| Error::InvalidValue(format!("no symbol `{name}` in {}", self.file)))?;
        let addr = self.program.global_addrs[i].ok_or_else(|| {
            Error::InvalidValue(format!(
                "symbol `{name}` is in `.{}`, not in device memory",
                m.globals[i].space
            ))
        })?;
        Ok((addr, m.globals[i].size_bytes()))
    }

    /// Writes a `__constant__` or `__device__` variable (`cudaMemcpyToSymbol`) at `offset`.
    pub fn write_symbol(&self, name: &str, offset: u64, data: &[u8]) -> Result<()> {
        let (addr, size) = self.symbol(name)?;
        if offset + data.len() as u64 > size {
            return Err(Error::InvalidValue(format!(
                "{} bytes at offset {offset} overflow symbol `{name}` of {size} bytes",
                data.len()
            )));
        }
        self.mem
            .write(addr + offset, data)
            .map_err(|e| Error::HostAccess(e.to_string()))
    }

    /// The element type a module variable is declared with, and its size in bytes.
    pub fn symbol_type(&self, name: &str) -> Result<(isa::Type, u64)> {
        let (_, size) = self.symbol(name)?;
        let m = &self.program.module;
        let g = m
            .globals
            .iter()
            .find(|g| g.name == name)
            .expect("found above");
        Ok((g.ty, size))
    }

    /// Reads a module variable (`cudaMemcpyFromSymbol`).
    pub fn read_symbol(&self, name: &str) -> Result<Vec<u8>> {
        let (addr, size) = self.symbol(name)?;
        let mut out = vec![0u8; size as usize];
        self.mem
            .read(addr, &mut out)
            .map_err(|e| Error::HostAccess(e.to_string()))?;
        Ok(out)
    }
}
