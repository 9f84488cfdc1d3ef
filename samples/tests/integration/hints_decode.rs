//! The compiler hints register-file policies see line up with what the timing model decodes:
//! for every instruction of every committed PTX file, `FunctionHints::reads(pc)` (the
//! registers the last-use bits describe) is exactly `Decoded::reads` (the bank reads the
//! baseline plans), in the same order.

use emulator::Engine;
use runtime::{Device, DeviceConfig};
use std::path::Path;
use timing::GpuConfig;
use timing::decode::DecodedProgram;

fn ptx_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn hint_reads_are_the_decoded_bank_reads_of_every_instruction() {
    let mut files = Vec::new();
    ptx_files(&warpsim::samples_dir(), &mut files);
    assert!(
        files.len() > 40,
        "committed PTX files found: {}",
        files.len()
    );
    // Under the interpreter: the programs are only read, and loading them for the JIT
    // would compile every kernel (most of this test's time).
    let dev = Device::new(DeviceConfig {
        engine: Engine::Interpreter,
        ..DeviceConfig::default()
    })
    .unwrap();
    let cfg = GpuConfig::preset("gtx480");
    let mut checked = 0;
    for file in &files {
        let Ok(module) = dev.load_ptx_file(file) else {
            continue; // files that do not load are the front end's tests' business
        };
        let Some(name) = module.kernel_names().into_iter().next() else {
            continue;
        };
        let kernel = module.kernel(&name).unwrap();
        let program = kernel.program();
        let decoded = DecodedProgram::new(program, &cfg);
        for (f, code) in program.code.iter().enumerate() {
            let hints = program.hints(isa::FuncId(f as u32));
            for pc in 0..code.insts.len() as u32 {
                let d = decoded.get(isa::FuncId(f as u32), pc);
                assert_eq!(
                    hints.reads(pc),
                    d.reads.as_slice(),
                    "{} function {} pc {pc}",
                    file.display(),
                    code.name
                );
                assert_eq!(hints.last_uses(pc).len(), d.reads.len());
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "instructions checked: {checked}");
}
