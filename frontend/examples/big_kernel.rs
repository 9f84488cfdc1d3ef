//! Scaling benchmark of the front end and the analyses on generated kernels: parse, lower,
//! verify (what `warpsim check` does) and every analysis including register allocation (what
//! `warpsim dis` computes before printing), with the time of each stage and the process's peak
//! resident memory.
//!
//! ```text
//! cargo run --release -p frontend --example big_kernel -- live 100000
//! cargo run --release -p frontend --example big_kernel -- params 100000
//! cargo run --release -p frontend --example big_kernel -- func-params 100000
//! ```
//!
//! - `live N`: a straight-line kernel with N simultaneously live values (N loads into distinct
//!   registers, then a reduction); prints the register count, which must be N + 3.
//! - `params N`: a kernel with N + 1 parameters (N `.u32` and a pointer). Beyond the kernel
//!   parameter space (32764 bytes, about 8,000 `.u32`) it is refused, and the figure is the time
//!   to the diagnostic.
//! - `func-params N`: a device function with N `.u32` parameters (accepted up to 131,071: the
//!   512 KiB local frame holds them and the return value).
//!
//! The peak is the process's `VmHWM` (Linux), so it includes the generated text. The listing
//! `warpsim dis` prints is not produced: with N live values it holds the live set of every
//! instruction, quadratic in N by nature.

#[path = "../tests/support/big_kernel.rs"]
mod big_kernel;

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, n) = match args.as_slice() {
        [kind, n] => match n.parse::<usize>() {
            Ok(n) if n >= 2 => (kind.as_str(), n),
            _ => usage(),
        },
        _ => usage(),
    };
    let text = match kind {
        "live" => big_kernel::live_values(n),
        "params" => big_kernel::parameters(n, true),
        "func-params" => big_kernel::parameters(n, false),
        _ => usage(),
    };
    println!("{kind} {n}: {} bytes of PTX", text.len());

    let start = Instant::now();
    let ast = match frontend::parse("big.ptx", &text) {
        Ok(ast) => ast,
        Err(e) => return report_error(&e, start),
    };
    let parsed = start.elapsed();
    println!("parse    {:>9.3} s", parsed.as_secs_f64());
    let module = match frontend::lower::lower("big.ptx", &text, &ast) {
        Ok(m) => m,
        Err(e) => return report_error(&e, start),
    };
    let lowered = start.elapsed();
    println!("lower    {:>9.3} s", (lowered - parsed).as_secs_f64());
    let violations = isa::verify::verify_module(&module);
    let verified = start.elapsed();
    println!(
        "verify   {:>9.3} s  ({} violations)",
        (verified - lowered).as_secs_f64(),
        violations.len()
    );
    let analysis = isa::analysis::ModuleAnalysis::compute(&module);
    let analysed = start.elapsed();
    println!("analyses {:>9.3} s", (analysed - verified).as_secs_f64());
    for (f, a) in module.functions.iter().zip(&analysis.functions) {
        println!(
            "`{}`: {} vregs, {} instructions, {} registers, {} predicates per thread",
            f.name,
            f.regs.len(),
            f.inst_count(),
            a.alloc.regs_per_thread,
            a.alloc.preds_per_thread
        );
    }
    println!("total    {:>9.3} s", analysed.as_secs_f64());
    print_peak();
}

fn report_error(e: &frontend::PtxError, start: Instant) {
    let headlines = e.headlines();
    println!("refused  {:>9.3} s", start.elapsed().as_secs_f64());
    println!("{}", headlines.first().map_or("", String::as_str));
    print_peak();
}

/// The peak resident set, from `/proc/self/status` (absent elsewhere than Linux).
fn print_peak() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib: u64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        println!("peak RSS {:>9.1} MiB", kib as f64 / 1024.0);
    }
}

fn usage() -> ! {
    eprintln!("usage: big_kernel (live | params | func-params) N   (N >= 2)");
    std::process::exit(2);
}
