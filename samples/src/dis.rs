//! `warpsim dis`: the internal-ISA listing of a PTX file.

use isa::analysis::{FunctionAnalysis, ModuleAnalysis};
use isa::print::{FunctionText, Printer, disassemble_with};
use std::path::Path;
use std::process::ExitCode;

pub(crate) fn run(file: &Path, kernel: Option<&str>) -> Result<ExitCode, String> {
    let module = crate::load_ptx(file)?;
    match kernel {
        None => print!(
            "{}",
            disassemble_with(&module, &ModuleAnalysis::compute(&module))
        ),
        Some(name) => {
            let id = module.function_by_name(name).ok_or_else(|| {
                let names: Vec<_> = module.functions.iter().map(|f| f.name.as_str()).collect();
                format!(
                    "error: no kernel or function `{name}` in {}; it has: {}",
                    file.display(),
                    names.join(", ")
                )
            })?;
            let func = module.function(id);
            let analysis = FunctionAnalysis::compute(func);
            print!(
                "{}",
                FunctionText {
                    printer: Printer::new(Some(&module), func),
                    analysis: &analysis
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
