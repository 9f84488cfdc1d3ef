//! The parser never panics, hangs or overflows the stack, whatever the input: property tests
//! that mutate valid PTX (delete, insert, duplicate and swap tokens or characters, truncate),
//! plus hand-picked pathological inputs (deep nesting, huge runs).

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

/// Valid PTX to start from.
const SEEDS: &[&str] = &[
    include_str!("../fixtures/syntax/saxpy.ptx"),
    include_str!("../fixtures/syntax/calls.ptx"),
    include_str!("../fixtures/syntax/memory.ptx"),
    include_str!("../fixtures/syntax/texture.ptx"),
    include_str!("../fixtures/syntax/debug.ptx"),
    include_str!("../fixtures/syntax/scopes.ptx"),
];

/// Characters worth inserting: every PTX punctuation character, literal prefixes, quotes,
/// comment starters, a non-ASCII letter and a control character.
const INSERTS: &[&str] = &[
    "{", "}", "[", "]", "(", ")", ";", ",", ":", ".", "@", "!", "%", "$", "_", "+", "-", "|", "<",
    ">", "=", "\"", "/", "*", "/*", "//", "\n", " ", "0", "0f", "0d", "0x", "1.5e", "é", "\u{0}",
    "#", ".section", ".loc", ".reg", "::",
];

/// One edit of the text.
#[derive(Clone, Debug)]
enum Mutation {
    DeleteToken(usize),
    DuplicateToken(usize),
    CopyToken { from: usize, to: usize },
    SwapTokens(usize, usize),
    DeleteChar(usize),
    InsertText { at: usize, what: usize },
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let n = any::<usize>();
    prop_oneof![
        n.prop_map(Mutation::DeleteToken),
        n.prop_map(Mutation::DuplicateToken),
        (n, n).prop_map(|(from, to)| Mutation::CopyToken { from, to }),
        (n, n).prop_map(|(a, b)| Mutation::SwapTokens(a, b)),
        n.prop_map(Mutation::DeleteChar),
        (n, 0..INSERTS.len()).prop_map(|(at, what)| Mutation::InsertText { at, what }),
        n.prop_map(Mutation::Truncate),
    ]
}

/// Splits text into rough tokens (identifier-like runs, whitespace runs, single other chars);
/// concatenating them gives the text back.
fn tokens(text: &str) -> Vec<&str> {
    fn class(c: char) -> u8 {
        match c {
            c if c.is_alphanumeric() || matches!(c, '%' | '$' | '_' | '.') => 0,
            c if c.is_whitespace() => 1,
            _ => 2,
        }
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<u8> = None;
    for (i, c) in text.char_indices() {
        let k = class(c);
        if prev.is_some_and(|p| p != k || k == 2) {
            out.push(&text[start..i]);
            start = i;
        }
        prev = Some(k);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn apply(text: &str, m: &Mutation) -> String {
    let toks = tokens(text);
    if toks.is_empty() {
        return INSERTS[0].to_string();
    }
    let n = toks.len();
    let mut toks: Vec<&str> = toks;
    match *m {
        Mutation::DeleteToken(i) => {
            toks.remove(i % n);
        }
        Mutation::DuplicateToken(i) => toks.insert(i % n, toks[i % n]),
        Mutation::CopyToken { from, to } => toks.insert(to % n, toks[from % n]),
        Mutation::SwapTokens(a, b) => toks.swap(a % n, b % n),
        Mutation::DeleteChar(i) => {
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            let (at, c) = chars[i % chars.len()];
            return format!("{}{}", &text[..at], &text[at + c.len_utf8()..]);
        }
        Mutation::InsertText { at, what } => {
            let bounds: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            let at = bounds[at % bounds.len()];
            return format!("{}{}{}", &text[..at], INSERTS[what], &text[at..]);
        }
        Mutation::Truncate(i) => {
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            return text[..bounds[i % bounds.len()]].to_string();
        }
    }
    toks.concat()
}

/// Parses and, on error, checks the diagnostic is well-formed and renders.
fn check(text: &str) {
    if let Err(e) = frontend::parser::parse("fuzz.ptx", text) {
        let headlines = e.headlines();
        assert_eq!(headlines.len(), 1, "exactly one diagnostic: {headlines:?}");
        assert!(
            headlines[0].starts_with("fuzz.ptx:") && headlines[0].contains(": error: "),
            "{headlines:?}"
        );
        let d = &e.diagnostics[0];
        assert!(
            d.span.start <= d.span.end && d.span.end as usize <= text.len(),
            "span {:?} outside text",
            d.span
        );
        assert!(
            !d.message.is_empty() && !d.message.ends_with('.'),
            "message style: {:?}",
            d.message
        );
        let _ = e.render();
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 3000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    })]

    #[test]
    fn mutated_ptx_never_panics(seed in 0..SEEDS.len(), edits in prop::collection::vec(mutation(), 1..6)) {
        let mut text = SEEDS[seed].to_string();
        for m in &edits {
            text = apply(&text, m);
        }
        check(&text);
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "[ -~\\n\\té%$_]{0,200}") {
        check(&text);
    }
}

/// Wraps `inner` in a kernel body.
fn kernel(inner: &str) -> String {
    format!(".version 8.8\n.target sm_70\n.address_size 64\n.entry k()\n{{\n{inner}\n}}\n")
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 100_000;
    let cases = [
        kernel(&format!("{}{}", "{".repeat(n), "}".repeat(n))),
        kernel(&format!(
            "mov.b32 %r1, {}%r2{};",
            "{".repeat(n),
            "}".repeat(n)
        )),
        kernel(&format!("call f, {}a{};", "(".repeat(n), ")".repeat(n))),
        format!(".global .b8 x[1] = {}1{};", "{".repeat(n), "}".repeat(n)),
    ];
    for text in &cases {
        let e = frontend::parser::parse("deep.ptx", text).expect_err("too deep");
        assert!(
            e.headlines()[0].ends_with("error: nesting too deep"),
            "{:?}",
            e.headlines()
        );
    }
    // Brackets cannot nest at all.
    check(&kernel(&format!(
        "ld.u32 %r1, {}%r2{};",
        "[".repeat(n),
        "]".repeat(n)
    )));
}

#[test]
fn nesting_within_the_limit_parses() {
    let depth = frontend::lexer::MAX_NESTING as usize - 2;
    let blocks = kernel(&format!("{}ret;{}", "{".repeat(depth), "}".repeat(depth)));
    check(&blocks);
    assert!(frontend::parser::parse("ok.ptx", &blocks).is_ok());
    let vectors = kernel(&format!(
        "mov.b32 %r1, {}%r2{};",
        "{".repeat(depth),
        "}".repeat(depth)
    ));
    assert!(frontend::parser::parse("ok.ptx", &vectors).is_ok());
    let init = format!(
        ".global .b8 x[1] = {}1{};",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    assert!(frontend::parser::parse("ok.ptx", &init).is_ok());
}

#[test]
fn long_flat_inputs_parse() {
    let many_ops = kernel(&format!("foo {};", vec!["%r1"; 50_000].join(", ")));
    assert!(frontend::parser::parse("long.ptx", &many_ops).is_ok());
    let many_mods = kernel(&format!("add{} %r1;", ".x".repeat(50_000)));
    assert!(frontend::parser::parse("long.ptx", &many_mods).is_ok());
    let many_stmts = kernel(&"ret;\n".repeat(50_000));
    assert!(frontend::parser::parse("long.ptx", &many_stmts).is_ok());
    let many_items = ".global .u32 x;\n".repeat(50_000);
    assert!(frontend::parser::parse("long.ptx", &many_items).is_ok());
    let list = format!(
        ".global .b8 x[50000] = {{{}}};",
        vec!["1"; 50_000].join(", ")
    );
    assert!(frontend::parser::parse("long.ptx", &list).is_ok());
    // Error paths on long inputs must stay linear as well.
    check(&kernel(&"ret;\n".repeat(50_000)).replace("}\n", ""));
    check(&"/*".repeat(50_000));
    check(&"\"".repeat(50_000));
    check(&".section {".repeat(20_000));
}
