//! `warpsim dis --locality`: what PAVER's analysis (LocalityGuru, `timing::paver`) sees of a
//! kernel. Without a launch: each global load and what its address is computed from. With
//! `--grid` and `--block` (and `--param` for the parameters that are not pointers): the CTA
//! locality graph of that launch and the groups PAVER would make of it.

use std::fmt::Write as _;
use std::path::Path;
use timing::paver::graph::LocalityGraph;
use timing::paver::guru::{self, LaunchShape, address_sources, is_global_load};
use timing::paver::partition::recursive_bisection;

/// Where pointer parameters left out of `--param` point: 1 TiB apart, so that no two share
/// a line.
const POINTER_SPACING: u64 = 1 << 40;

/// Heaviest edges listed.
const EDGES_SHOWN: usize = 12;

/// Groups listed.
const GROUPS_SHOWN: usize = 8;

/// A launch to analyse: its shape, parameter values by name, and the SM's CTA capacity.
pub(crate) struct LocalityLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub params: Vec<(String, String)>,
    pub ctas_per_sm: u32,
}

/// Parses `NAME=VALUE`.
pub(crate) fn parse_param(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    Ok((name.trim().to_string(), value.trim().to_string()))
}

/// The listing of every kernel of `file` (or of `kernel`), for `launch` if given.
pub(crate) fn listing(
    file: &Path,
    kernel: Option<&str>,
    launch: Option<&LocalityLaunch>,
) -> Result<String, String> {
    let dev = runtime::Device::new(runtime::DeviceConfig::default()).map_err(|e| e.to_string())?;
    let module = dev.load_ptx_file(file).map_err(|e| format!("error: {e}"))?;
    let names = match kernel {
        Some(k) => vec![k.to_string()],
        None => module.kernel_names(),
    };
    if launch.is_some() && names.len() != 1 {
        return Err(format!(
            "error: a launch (--grid) needs one kernel: give --kernel (the file has {})",
            names.join(", ")
        ));
    }
    let mut out = String::new();
    for name in names {
        let k = module.kernel(&name).map_err(|e| format!("error: {e}"))?;
        let program = k.program();
        let func = k.function();
        let code = &program.code[k.id().index()];
        let _ = writeln!(out, ".entry {name}: global loads and their address sources");
        let printer = isa::print::Printer::new(Some(&program.module), func);
        for pc in 0..code.insts.len() as u32 {
            let inst = &code.insts[pc as usize];
            if !is_global_load(inst) {
                continue;
            }
            let sources = address_sources(code, pc).expect("a global load");
            let _ = writeln!(
                out,
                "{pc:>6}  {:<44}  // {}",
                printer.inst(inst).to_string(),
                describe(&sources, func)
            );
        }
        if let Some(launch) = launch {
            out.push_str(&graph_listing(
                program,
                k.id(),
                func,
                launch,
                &dev.memory(),
            )?);
        }
    }
    Ok(out)
}

/// One load's sources, in words.
fn describe(s: &guru::AddressSources, func: &isa::Function) -> String {
    if !s.is_static() {
        let pcs: Vec<String> = s.data.iter().map(|pc| pc.to_string()).collect();
        return format!("from data (PC {}): not analysed", pcs.join(", "));
    }
    let mut parts: Vec<String> = s.specials.iter().map(|r| r.to_string()).collect();
    parts.extend(
        s.params
            .iter()
            .map(|&i| format!("param {}", func.params[i as usize].name)),
    );
    if s.constants {
        parts.push(".const".into());
    }
    if s.loop_carried {
        parts.push("loop counter".into());
    }
    if parts.is_empty() {
        "constant".into()
    } else {
        parts.join(", ")
    }
}

/// The graph summary and PAVER's groups for one launch.
fn graph_listing(
    program: &emulator::Program,
    kernel: isa::FuncId,
    func: &isa::Function,
    launch: &LocalityLaunch,
    mem: &emulator::GlobalMemory,
) -> Result<String, String> {
    let params = parameter_buffer(program, kernel, func, &launch.params)?;
    let shape = LaunchShape {
        program,
        kernel,
        params: &params.bytes,
        constants: Some(mem),
        grid: launch.grid,
        block: launch.block,
        dynamic_shared: 0,
    };
    let ctas = emulator::launch::grid_ctas(launch.grid);
    let line = 128;
    let footprints = guru::footprints(&shape, ctas, line);
    let graph = LocalityGraph::build(&footprints);
    let groups = recursive_bisection(&graph, launch.ctas_per_sm as usize);
    let s = &graph.summary;
    let r = &footprints.report;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// launch: grid {:?}, block {:?}; {}",
        launch.grid,
        launch.block,
        params.notes.join("; ")
    );
    let _ = writeln!(
        out,
        "// LocalityGuru: {} global loads evaluated, {} from data (not analysed); {} threads \
         cut; {} calls skipped",
        r.static_loads,
        r.data_dependent_loads.iter().map(|l| l.1).sum::<u64>(),
        r.cut_threads.iter().map(|c| c.2).sum::<u64>(),
        r.calls_skipped
    );
    if r.unanalysed_ctas > 0 {
        let _ = writeln!(
            out,
            "//   the last {} CTAs not analysed: over {} instructions evaluated",
            r.unanalysed_ctas,
            guru::LAUNCH_STEP_LIMIT
        );
    }
    for (cut, pc, n) in &r.cut_threads {
        let _ = writeln!(out, "//   {n} threads stopped at PC {pc}: {cut:?}");
    }
    let _ = writeln!(
        out,
        "// graph ({line}-byte lines): {} CTAs, {} lines, {} shared ({} by more than {} CTAs: \
         no edge), {} CTAs share; {} edges, weight {}, mean distance {:.1} CTAs",
        s.ctas,
        s.lines,
        s.shared_lines,
        s.widely_shared_lines,
        timing::paver::graph::MAX_SHARERS,
        s.sharing_ctas,
        s.edges,
        s.weight,
        s.mean_distance
    );
    let mut edges: Vec<(u64, u32, u32)> = (0..graph.len() as u32)
        .flat_map(|a| {
            graph
                .neighbours(a)
                .iter()
                .filter(move |e| e.0 > a)
                .map(move |e| (e.1, a, e.0))
        })
        .collect();
    edges.sort_by_key(|&(w, a, b)| (std::cmp::Reverse(w), a, b));
    let shown: Vec<String> = edges
        .iter()
        .take(EDGES_SHOWN)
        .map(|(w, a, b)| format!("{a}-{b}={w}"))
        .collect();
    let _ = writeln!(out, "// heaviest edges: {}", shown.join(" "));
    let within = graph.weight_within(&groups);
    let _ = writeln!(
        out,
        "// PAVER groups of at most {} CTAs: {} groups, {:.1}% of the weight inside them",
        launch.ctas_per_sm,
        groups.len(),
        if s.weight > 0 {
            within as f64 * 100.0 / s.weight as f64
        } else {
            0.0
        }
    );
    for (i, g) in groups.iter().take(GROUPS_SHOWN).enumerate() {
        let members: Vec<String> = g.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "//   group {i}: {}", members.join(" "));
    }
    if groups.len() > GROUPS_SHOWN {
        let _ = writeln!(out, "//   ... {} more", groups.len() - GROUPS_SHOWN);
    }
    Ok(out)
}

/// A kernel's parameter buffer from `NAME=VALUE` pairs, and what was assumed.
struct Parameters {
    bytes: Vec<u8>,
    notes: Vec<String>,
}

/// Lays out the parameters: given values by their declared type; 64-bit parameters left out
/// taken as pointers to buffers of their own.
fn parameter_buffer(
    program: &emulator::Program,
    kernel: isa::FuncId,
    func: &isa::Function,
    given: &[(String, String)],
) -> Result<Parameters, String> {
    let layout = program.layouts[kernel.index()]
        .as_ref()
        .expect("a kernel has a layout");
    for (name, _) in given {
        if !func.params.iter().any(|p| &p.name == name) {
            let names: Vec<&str> = func.params.iter().map(|p| p.name.as_str()).collect();
            return Err(format!(
                "error: --param {name}: `{}` has no parameter `{name}`; it has: {}",
                func.name,
                names.join(", ")
            ));
        }
    }
    let mut bytes = vec![0u8; layout.param_size as usize];
    let mut notes = Vec::new();
    let mut pointers = 0u64;
    for (i, p) in func.params.iter().enumerate() {
        let at = layout.param_offsets[i] as usize;
        let size = p.size_bytes() as usize;
        let value = match given.iter().find(|(n, _)| n == &p.name) {
            Some((_, v)) => {
                scalar(v, p.ty).map_err(|e| format!("error: --param {}: {e}", p.name))?
            }
            None if size == 8 && p.count.is_none() => {
                pointers += 1;
                notes.push(format!("{} = buffer {pointers}", p.name));
                pointers * POINTER_SPACING
            }
            None => {
                return Err(format!(
                    "error: parameter `{}` ({}) needs a value: --param {}=VALUE",
                    p.name, p.ty, p.name
                ));
            }
        };
        let n = size.min(8);
        bytes[at..at + n].copy_from_slice(&value.to_le_bytes()[..n]);
    }
    Ok(Parameters { bytes, notes })
}

/// A value of type `ty` written as an integer or (for float types) a decimal.
fn scalar(text: &str, ty: isa::Type) -> Result<u64, String> {
    use isa::Type;
    match ty {
        Type::F32 => text
            .parse::<f32>()
            .map(|v| u64::from(v.to_bits()))
            .map_err(|_| format!("`{text}` is not an f32")),
        Type::F64 => text
            .parse::<f64>()
            .map(f64::to_bits)
            .map_err(|_| format!("`{text}` is not an f64")),
        _ => {
            let (digits, radix) = match text.strip_prefix("0x") {
                Some(hex) => (hex, 16),
                None => (text, 10),
            };
            i64::from_str_radix(digits, radix)
                .map(|v| v as u64)
                .or_else(|_| u64::from_str_radix(digits, radix))
                .map_err(|_| format!("`{text}` is not an integer"))
        }
    }
}
