//! `warpsim check`: parse, lower and verify PTX files.

use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn run(files: &[PathBuf]) -> Result<ExitCode, String> {
    let mut failed = 0;
    for path in files {
        match crate::load_ptx(path) {
            Err(message) => {
                eprintln!("{message}");
                failed += 1;
            }
            Ok(module) => {
                let violations = isa::verify::verify_module(&module);
                for v in &violations {
                    eprintln!(
                        "{}: internal error: lowered IR fails verification: {v}",
                        path.display()
                    );
                }
                let unsupported: Vec<_> = module.unsupported().collect();
                for (f, inst) in &unsupported {
                    if let isa::Op::Unsupported { text } = &inst.op {
                        println!(
                            "unsupported: {text} at {}:{} (in `{}`)",
                            path.display(),
                            inst.loc.line,
                            f.name
                        );
                    }
                }
                let kernels = module.kernels().count();
                let status = if violations.is_empty() {
                    "ok"
                } else {
                    "FAILED"
                };
                println!(
                    "{}: {status}: {} kernel(s), {} function(s), {} instruction(s), {} unsupported",
                    path.display(),
                    kernels,
                    module.functions.len() - kernels,
                    module
                        .functions
                        .iter()
                        .map(|f| f.inst_count())
                        .sum::<usize>(),
                    unsupported.len()
                );
                if !violations.is_empty() {
                    failed += 1;
                }
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
