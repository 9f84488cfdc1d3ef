//! The table check the conformance modules share.

use emulator::alu::eval;
use isa::Op;

/// Evaluates every `(op, sources, expected first result)` case, reporting all mismatches at
/// once.
pub fn check(cases: &[(Op, &[u64], u64)]) {
    let mut failures = Vec::new();
    for (op, srcs, want) in cases {
        match eval(op, srcs, &mut false) {
            Ok([got, _]) if got == *want => {}
            other => failures.push(format!("{op:?} {srcs:x?}: got {other:x?}, want {want:#x}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
