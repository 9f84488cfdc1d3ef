//! The static share of source-register reads that warpsim's compiler marks for operand-cache
//! reuse (`isa::reuse`), per PTX file under a directory (default `samples`), as the Markdown
//! table of docs/modern-rf.md.
//!
//! ```text
//! cargo run --release -p frontend --example reuse_fractions [-- DIR]
//! ```
//!
//! Columns, over every function with a body, each instruction counted once (static counts):
//! - `reads`: 32-bit register reads (`FunctionHints::reads`);
//! - `reuse`: those with the reuse bit set, and their share of `reads`;
//! - `ALU reads`: reads by operand-cache (fixed-latency ALU) instructions, the only ones that
//!   can carry a bit, and the share of those marked;
//! - `insts with reuse`: instructions with at least one bit set, as a share of all
//!   instructions (the measure of Huerta et al., MICRO 2025, Table 6).

use isa::reuse::reads_through_operand_cache;
use isa::{FunctionAnalysis, FunctionHints};
use std::path::{Path, PathBuf};

/// Static counts of one file (or of all of them).
#[derive(Default)]
struct Counts {
    insts: usize,
    insts_with_reuse: usize,
    reads: usize,
    alu_reads: usize,
    reuse: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.insts += other.insts;
        self.insts_with_reuse += other.insts_with_reuse;
        self.reads += other.reads;
        self.alu_reads += other.alu_reads;
        self.reuse += other.reuse;
    }
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "samples".to_string());
    let mut files = Vec::new();
    collect_ptx(Path::new(&root), &mut files);
    files.sort();
    println!(
        "| PTX | insts | reads | reuse | reuse / reads | ALU reads | reuse / ALU reads | insts with reuse |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|");
    let mut total = Counts::default();
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        match count_file(path) {
            Ok(c) => {
                row(&name, &c);
                total.add(&c);
            }
            Err(e) => eprintln!("{name}: {e}"),
        }
    }
    row("**all**", &total);
}

fn row(name: &str, c: &Counts) {
    println!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} |",
        c.insts,
        c.reads,
        c.reuse,
        percent(c.reuse, c.reads),
        c.alu_reads,
        percent(c.reuse, c.alu_reads),
        percent(c.insts_with_reuse, c.insts),
    );
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn collect_ptx(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // The PTX sets (samples/ptx-sets) are other compilers' output of the same sources, not
        // part of the table; given as DIR, a set is walked.
        if path.is_dir() && path.file_name() == Some("ptx-sets".as_ref()) {
            continue;
        }
        if path.is_dir() {
            collect_ptx(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

fn count_file(path: &Path) -> Result<Counts, String> {
    let text = frontend::read_source(path)?;
    let module = frontend::compile(&path.display().to_string(), &text)
        .map_err(|e| format!("does not compile: {e}"))?;
    let mut c = Counts::default();
    for f in module.functions.iter().filter(|f| !f.blocks.is_empty()) {
        let h = FunctionHints::compute(f, &FunctionAnalysis::compute(f));
        let insts = f.blocks.iter().flat_map(|b| &b.insts);
        for (pc, inst) in (0u32..).zip(insts) {
            let reads = h.reads(pc).len();
            let reuse = h.reuse_reads(pc);
            c.insts += 1;
            c.insts_with_reuse += usize::from(reuse > 0);
            c.reads += reads;
            c.reuse += reuse;
            if reads_through_operand_cache(&inst.op) {
                c.alu_reads += reads;
            }
        }
    }
    Ok(c)
}
