//! `warpsim regs`: registers per thread from warpsim's allocator beside `ptxas -v`'s count.
//!
//! A kernel's count is the maximum over the kernel and every function it calls (directly or
//! not), as a caller must hold room for its callees' registers.

use isa::analysis::ModuleAnalysis;
use isa::{FuncId, Module};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One table row.
struct Row {
    file: String,
    kernel: String,
    warpsim: u32,
    ptxas: Option<u32>,
}

pub(crate) fn run(
    paths: &[PathBuf],
    ptxas_table: &Path,
    markdown: bool,
    why: bool,
) -> Result<ExitCode, String> {
    let files = if paths.is_empty() {
        // The committed PTX, which ptxas-registers.tsv counts: not the PTX sets' files (given
        // by path, `warpsim regs samples/ptx-sets/cuda13-sm_90`, they come without ptxas's).
        let sets = Path::new("samples").join(warpsim::ptx_set::SETS_DIR);
        let mut files = crate::ptx_files(&[PathBuf::from("samples")])?;
        files.retain(|f| !f.starts_with(&sets));
        files
    } else {
        crate::ptx_files(paths)?
    };
    let ptxas = read_ptxas(ptxas_table)?;
    let mut rows = Vec::new();
    for path in &files {
        let module = crate::load_ptx(path)?;
        let analysis = ModuleAnalysis::compute(&module);
        let file = path.display().to_string();
        for (id, f) in module.kernels() {
            let warpsim = kernel_regs(&module, &analysis, id);
            let ptxas = ptxas.get(&(file.clone(), f.name.clone())).copied();
            if why {
                print_why(&module, &analysis, id, &file, ptxas);
            }
            rows.push(Row {
                file: file.clone(),
                kernel: f.name.clone(),
                warpsim,
                ptxas,
            });
        }
    }
    print_table(&rows, markdown);
    Ok(ExitCode::SUCCESS)
}

/// Registers per thread of kernel `id`: the maximum over it and its callees.
fn kernel_regs(module: &Module, analysis: &ModuleAnalysis, id: FuncId) -> u32 {
    emulator::program::reachable_functions(module, id)
        .into_iter()
        .map(|f| analysis.function(f).alloc.regs_per_thread)
        .max()
        .unwrap_or(0)
}

/// Prints, for kernel `id` and each function it calls, the point of highest register pressure
/// and what is live there, each value with the instruction that defines it.
fn print_why(
    module: &Module,
    analysis: &ModuleAnalysis,
    id: FuncId,
    file: &str,
    ptxas: Option<u32>,
) {
    for fid in emulator::program::reachable_functions(module, id) {
        let f = module.function(fid);
        let a = analysis.function(fid);
        let width = |v: isa::VReg| a.alloc.get(v).map_or(0, |p| p.gprs().len() as u32);
        let Some(peak) = isa::pressure::peak(f, &a.liveness, width) else {
            continue;
        };
        let printer = isa::Printer::new(Some(module), f);
        println!(
            "{file} {}: {} registers allocated, peak pressure {} at {} inst {}{}",
            f.name,
            a.alloc.regs_per_thread,
            peak.regs,
            peak.block,
            peak.inst,
            ptxas.map_or(String::new(), |p| format!(" (ptxas {p})"))
        );
        let defs = first_defs(f);
        for v in peak.live {
            let def = defs[v.index()].map_or("(live in)".to_string(), |(b, i)| {
                format!("{}", printer.inst(&f.blocks[b].insts[i]))
            });
            println!("  {:>2}  {:<8} {def}", width(v), printer.reg_name(v));
        }
    }
}

/// The first definition of each register in layout order (block, instruction).
fn first_defs(f: &isa::Function) -> Vec<Option<(usize, usize)>> {
    let mut defs = vec![None; f.regs.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for d in inst.defs() {
                if let Some(slot @ None) = defs.get_mut(d.index()) {
                    *slot = Some((b, i));
                }
            }
        }
    }
    defs
}

/// `ptxas -v`'s registers per thread of every sample kernel, keyed `FILE:KERNEL` as
/// [`runtime::DeviceConfig::kernel_registers`] expects, from the committed table
/// (samples/ptxas-registers.tsv; the corpus files are left out).
pub(crate) fn ptxas_by_kernel() -> Result<std::collections::BTreeMap<String, u32>, String> {
    let path = warpsim::samples_dir().join("ptxas-registers.tsv");
    if !path.exists() {
        return Err(format!("error: {} not found", path.display()));
    }
    // Keyed by file name and kernel, as the runtime names a kernel; two sample files of one
    // name with a kernel of one name would make the key ambiguous.
    let mut by_kernel = std::collections::BTreeMap::new();
    let mut files = HashMap::new();
    for ((file, kernel), regs) in read_ptxas(&path)? {
        if file.contains("/corpus/") {
            continue;
        }
        let name = file.rsplit('/').next().unwrap_or(&file);
        let key = format!("{name}:{kernel}");
        if let Some(other) = files.insert(key.clone(), file.clone()) {
            return Err(format!(
                "error: {}: `{key}` names a kernel of both {other} and {file}",
                path.display()
            ));
        }
        by_kernel.insert(key, regs);
    }
    Ok(by_kernel)
}

fn read_ptxas(path: &Path) -> Result<HashMap<(String, String), u32>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(_) => return Ok(HashMap::new()),
    };
    let mut out = HashMap::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<_> = line.split('\t').collect();
        let [file, kernel, regs] = cols.as_slice() else {
            return Err(format!(
                "error: {}:{}: expected 3 tab-separated columns",
                path.display(),
                i + 1
            ));
        };
        let regs = regs.parse().map_err(|_| {
            format!(
                "error: {}:{}: bad register count `{regs}`",
                path.display(),
                i + 1
            )
        })?;
        out.insert((file.to_string(), kernel.to_string()), regs);
    }
    Ok(out)
}

fn print_table(rows: &[Row], markdown: bool) {
    let diff = |r: &Row| {
        r.ptxas.map_or("-".to_string(), |p| {
            format!("{:+}", i64::from(r.warpsim) - i64::from(p))
        })
    };
    let ptxas = |r: &Row| r.ptxas.map_or("-".to_string(), |p| p.to_string());
    if markdown {
        println!("| file | kernel | warpsim | ptxas | diff |");
        println!("|---|---|---:|---:|---:|");
        for r in rows {
            println!(
                "| {} | {} | {} | {} | {} |",
                r.file,
                r.kernel,
                r.warpsim,
                ptxas(r),
                diff(r)
            );
        }
    } else {
        println!(
            "{:<40} {:<28} {:>7} {:>6} {:>5}",
            "file", "kernel", "warpsim", "ptxas", "diff"
        );
        for r in rows {
            println!(
                "{:<40} {:<28} {:>7} {:>6} {:>5}",
                r.file,
                r.kernel,
                r.warpsim,
                ptxas(r),
                diff(r)
            );
        }
    }
    let compared: Vec<_> = rows
        .iter()
        .filter_map(|r| r.ptxas.map(|p| (r.warpsim, p)))
        .collect();
    if !compared.is_empty() {
        let n = compared.len() as f64;
        let mean_abs = compared
            .iter()
            .map(|(w, p)| (i64::from(*w) - i64::from(*p)).abs() as f64)
            .sum::<f64>()
            / n;
        let within2 = compared
            .iter()
            .filter(|(w, p)| (i64::from(*w) - i64::from(*p)).abs() <= 2)
            .count();
        println!(
            "\n{} kernels compared: mean |warpsim - ptxas| = {mean_abs:.1} registers; {within2} within ±2",
            compared.len()
        );
    }
}
