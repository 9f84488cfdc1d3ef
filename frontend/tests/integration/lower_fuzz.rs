//! Fuzzing the whole front end: mutated corpus PTX goes through lexing, parsing, lowering and
//! every ISA analysis. Nothing may panic, and whatever lowers without a diagnostic must pass the
//! IR verifier.

use proptest::prelude::*;
use std::sync::OnceLock;

/// The corpus files the mutations start from, split into whitespace-separated words so that
/// mutations mostly produce near-valid PTX (the interesting case for the lowering).
fn seeds() -> &'static [Vec<String>] {
    static SEEDS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples");
        [
            "saxpy/saxpy.ptx",
            "corpus/divergence.ptx",
            "corpus/control.ptx",
            "corpus/memory_spaces.ptx",
            "corpus/warp.ptx",
        ]
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(format!("{root}/{f}")).expect("corpus file");
            text.split_inclusive(char::is_whitespace)
                .map(str::to_string)
                .collect()
        })
        .collect()
    })
}

/// One edit of a word list.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    /// Replace word `at` with word `from` of the same file.
    Replace {
        at: usize,
        from: usize,
    },
    /// Replace one character of word `at` with `c`.
    Poke {
        at: usize,
        offset: usize,
        c: char,
    },
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let idx = any::<prop::sample::Index>();
    prop_oneof![
        idx.clone()
            .prop_map(|i| Mutation::Delete(i.index(usize::MAX))),
        idx.clone()
            .prop_map(|i| Mutation::Duplicate(i.index(usize::MAX))),
        (idx.clone(), idx.clone())
            .prop_map(|(a, b)| Mutation::Swap(a.index(usize::MAX), b.index(usize::MAX))),
        (idx.clone(), idx.clone()).prop_map(|(a, b)| Mutation::Replace {
            at: a.index(usize::MAX),
            from: b.index(usize::MAX)
        }),
        (
            idx.clone(),
            any::<usize>(),
            prop::sample::select(vec![
                '%', '.', ',', ';', '{', '}', '[', ']', '0', 'x', '-', '|', '@', '!', ' '
            ])
        )
            .prop_map(|(a, offset, c)| Mutation::Poke {
                at: a.index(usize::MAX),
                offset,
                c
            }),
        idx.prop_map(|i| Mutation::Truncate(i.index(usize::MAX))),
    ]
}

fn apply(words: &mut Vec<String>, m: &Mutation) {
    if words.is_empty() {
        return;
    }
    let n = words.len();
    match *m {
        Mutation::Delete(i) => {
            words.remove(i % n);
        }
        Mutation::Duplicate(i) => {
            let w = words[i % n].clone();
            words.insert(i % n, w);
        }
        Mutation::Swap(a, b) => words.swap(a % n, b % n),
        Mutation::Replace { at, from } => words[at % n] = words[from % n].clone(),
        Mutation::Poke { at, offset, c } => {
            let w = &mut words[at % n];
            let chars: Vec<char> = w.chars().collect();
            if !chars.is_empty() {
                let mut chars = chars;
                let k = offset % chars.len();
                chars[k] = c;
                *w = chars.into_iter().collect();
            }
        }
        Mutation::Truncate(i) => words.truncate(i % n),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_ptx_never_panics_and_lowered_ir_verifies(
        seed in 0..5usize,
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut words = seeds()[seed].clone();
        for m in &mutations {
            apply(&mut words, m);
        }
        let text: String = words.concat();
        if let Ok(module) = frontend::compile("fuzz.ptx", &text) {
            let violations = isa::verify::verify_module(&module);
            prop_assert!(violations.is_empty(), "lowered IR fails verification: {:?}\n{}", violations, text);
            let _ = isa::analysis::ModuleAnalysis::compute(&module);
        }
    }
}
