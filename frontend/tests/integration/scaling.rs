//! Large generated kernels go through the front end and the analyses in near-linear time and
//! memory, with correct results: 20,000 simultaneously live values (whose interference graph
//! would have 2 × 10^8 edges) and 100,000 parameters. No wall-clock limit is asserted; the
//! `big_kernel` example measures these at full size (see its docs).

#[path = "../support/big_kernel.rs"]
mod big_kernel;

use isa::analysis::{FunctionAnalysis, ModuleAnalysis};
use isa::regalloc::{self, Allocation, Interference};
use isa::{AddrBase, Operand, SymbolRef};

fn compile(text: &str) -> isa::Module {
    let module = frontend::compile("big.ptx", text).expect("the generated kernel lowers");
    assert_eq!(isa::verify::verify_module(&module), []);
    module
}

#[test]
fn twenty_thousand_live_values_get_a_register_each() {
    let n = 20_000;
    let module = compile(&big_kernel::live_values(n));
    let f = &module.functions[0];
    let a = FunctionAnalysis::compute(f);
    // The graph is far too large to build: the allocation is the linear scan's.
    assert!(Interference::edge_bound(f, &a.liveness) > regalloc::edge_budget(f));
    assert_eq!(regalloc::validate(f, &a.liveness, &a.alloc), []);
    // Every loaded value and the output pointer are live after the last load (see
    // `live_values`).
    assert_eq!(a.alloc.regs_per_thread, n as u32 + 3);
    assert_eq!(a.alloc.preds_per_thread, 0);
}

#[test]
fn the_linear_scan_is_the_graph_colouring_on_this_kernel() {
    // Small enough for the graph: both allocators agree (straight-line SSA code).
    let module = compile(&big_kernel::live_values(1_000));
    let f = &module.functions[0];
    let a = FunctionAnalysis::compute(f);
    assert!(Interference::edge_bound(f, &a.liveness) <= regalloc::edge_budget(f));
    assert_eq!(Allocation::linear_scan(f, &a.liveness), a.alloc);
    assert_eq!(a.alloc.regs_per_thread, 1_003);

    // The listing's live sets, computed forwards from each instruction's changes: after the
    // last load, the output pointer and every value. (The listing itself is quadratic: it
    // prints the live set of every instruction.)
    let last_load = a.pc(isa::BlockId(0), 1_001);
    let listing = isa::print::disassemble_with(&module, &ModuleAnalysis { functions: vec![a] });
    let line = listing
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{last_load} ")))
        .expect("the last load's line");
    let live: Vec<&str> = line
        .split("live: ")
        .nth(1)
        .expect("a live set")
        .split(' ')
        .collect();
    let expected: Vec<String> = std::iter::once("%rd2".to_string())
        .chain((0..1_000).map(|i| format!("%f{i}")))
        .collect();
    assert_eq!(live, expected);
}

#[test]
fn a_hundred_thousand_parameters() {
    let n = 100_000;
    let module = compile(&big_kernel::parameters(n, false));
    let f = &module.functions[0];
    assert_eq!(f.params.len(), n);
    assert_eq!(f.params[n - 1].name, format!("p{}", n - 1));
    // `ld.param.u32 %r2, [p99999]` reads the last parameter; `st.param` writes the result.
    let reads: Vec<_> = f.blocks[0]
        .insts
        .iter()
        .filter_map(|i| match i.srcs.first() {
            Some(Operand::Address(a)) => match a.base {
                AddrBase::Symbol(s) => Some(s),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        reads,
        [
            SymbolRef::Param(0),
            SymbolRef::Param(n as u32 - 1),
            SymbolRef::Ret(0)
        ]
    );

    // A kernel cannot have that many: its parameter space ends at 32,764 bytes.
    let e = frontend::compile("big.ptx", &big_kernel::parameters(n, true)).expect_err("too many");
    assert_eq!(
        e.headlines(),
        [
            "big.ptx:8197:14: error: `params` has more than 32764 bytes of kernel parameters: \
          `p8191` ends at byte 32768"
        ]
    );
}
