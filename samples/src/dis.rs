//! `warpsim dis`: the internal-ISA listing of a PTX file, or with `--hints` the compiler hints
//! register-file techniques see (`isa::hints`).

use isa::analysis::{FunctionAnalysis, ModuleAnalysis};
use isa::hints::{FunctionHints, LOOP_WEIGHT};
use isa::print::{FunctionText, ModuleText, Printer};
use isa::{FuncKind, Function, Module};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Column of the `//` annotations, as in the ordinary listing.
const TEXT_WIDTH: usize = 44;

/// Affinity edges per line of the `--hints` listing.
const EDGES_PER_LINE: usize = 8;

/// Prints the listing of `file` (or of its function `kernel`): the internal ISA with each
/// instruction's registers and, with `live`, the registers live after it; or with `hints` the
/// register-file hints. The listing is written as it is formatted, not built in memory.
pub(crate) fn run(
    file: &Path,
    kernel: Option<&str>,
    hints: bool,
    live: bool,
) -> Result<ExitCode, String> {
    let module = crate::load_ptx(file)?;
    let selected = match kernel {
        None => None,
        Some(name) => Some(module.function_by_name(name).ok_or_else(|| {
            let names: Vec<_> = module.functions.iter().map(|f| f.name.as_str()).collect();
            format!(
                "error: no kernel or function `{name}` in {}; it has: {}",
                file.display(),
                names.join(", ")
            )
        })?),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match (selected, hints) {
        (None, false) => write!(
            out,
            "{}",
            ModuleText {
                module: &module,
                analysis: &ModuleAnalysis::compute(&module),
                live
            }
        ),
        (Some(id), false) => {
            let func = module.function(id);
            let analysis = FunctionAnalysis::compute(func);
            write!(
                out,
                "{}",
                FunctionText {
                    printer: Printer::new(Some(&module), func),
                    analysis: &analysis,
                    live
                }
            )
        }
        (None, true) => {
            let listings: Vec<String> = module
                .functions
                .iter()
                .map(|f| hints_listing(&module, f))
                .collect();
            write!(out, "{}", listings.join("\n"))
        }
        (Some(id), true) => write!(out, "{}", hints_listing(&module, module.function(id))),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // The reader went away (`warpsim dis big.ptx | head`): nothing more to say.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!(
            "error: writing the listing of {}: {e}",
            file.display()
        )),
    }
}

/// One function's hints: each instruction with the 32-bit registers it reads (`*` marking a
/// last use) and those live after it, then the affinity graph, heaviest edges first.
fn hints_listing(module: &Module, func: &Function) -> String {
    let kind = match func.kind {
        FuncKind::Entry => ".entry",
        FuncKind::Func => ".func",
    };
    let mut out = String::new();
    if func.is_declaration() {
        let _ = writeln!(out, "{kind} {}  // declaration: no hints", func.name);
        return out;
    }
    let analysis = FunctionAnalysis::compute(func);
    let hints = FunctionHints::compute(func, &analysis);
    let printer = Printer::new(Some(module), func);
    let _ = writeln!(out, "{kind} {}", func.name);
    let _ = writeln!(
        out,
        "// hints over {} 32-bit registers (predicates excluded): reads (* = last use) | live after; \
         weight = {LOOP_WEIGHT}^loop depth",
        hints.num_regs()
    );
    for b in func.block_ids() {
        let label = match &func.block(b).label {
            Some(l) => format!("{b} ({l})"),
            None => b.to_string(),
        };
        let first = analysis.pc(b, 0);
        let _ = write!(out, "{label}:  // loop depth {}", analysis.loops.depth(b));
        // An empty block has no PC, hence no weight of its own to show.
        if !func.block(b).insts.is_empty() {
            let _ = write!(out, ", weight {}", hints.weight(first));
        }
        if !analysis.cfg.is_reachable(b) {
            out.push_str("; unreachable");
        }
        out.push('\n');
        for (i, inst) in func.block(b).insts.iter().enumerate() {
            let pc = first + i as u32;
            let text = printer.inst(inst).to_string();
            let _ = write!(out, "{pc:>6}  {text:<TEXT_WIDTH$}  // reads:");
            let reads = hints.reads(pc);
            if reads.is_empty() {
                out.push_str(" -");
            }
            for (&r, &last) in reads.iter().zip(hints.last_uses(pc)) {
                let _ = write!(out, " R{r}{}", if last { "*" } else { "" });
            }
            let _ = writeln!(out, " | live: {}", hints.live_out(pc));
        }
    }
    let edges = hints.affinity_by_weight();
    let _ = writeln!(
        out,
        "// affinity: {} edges (registers read by one instruction, summed weights), heaviest first",
        edges.len()
    );
    for line in edges.chunks(EDGES_PER_LINE) {
        out.push_str("//  ");
        for e in line {
            let _ = write!(out, " R{},R{}={}", e.a, e.b, e.weight);
        }
        out.push('\n');
    }
    out
}
