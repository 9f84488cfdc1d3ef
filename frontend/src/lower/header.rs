//! The module header, in the order ptxas requires: `.version` first, immediately followed by
//! one or more `.target` directives, then at most one `.address_size`, and none of the three
//! anywhere else. ptxas (CUDA 12.9) refuses every other arrangement ("Missing .version
//! directive at start of file", "Missing .target directive at start of file", or a syntax
//! error at a late or repeated directive); so does warpsim, with the place and the rule.

use crate::ast::{Item, Span};
use crate::diag::Diagnostic;

/// Where a header directive may appear, given what came before it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Only `.version`: nothing has been seen yet.
    Version,
    /// `.target`: the `.version` has just been seen.
    Target,
    /// Another `.target`, the `.address_size`, or the module's body.
    TargetOrAddressSize,
    /// The body: no more header directives.
    Body,
}

/// Reports every header directive out of place, and a module that does not start with
/// `.version` and `.target`.
pub(super) fn check(items: &[Item<'_>], diags: &mut Vec<Diagnostic>) {
    let mut expect = Expect::Version;
    for item in items {
        expect = match (item, expect) {
            (Item::Version { .. }, Expect::Version) => Expect::Target,
            (_, Expect::Version) => {
                return diags.push(Diagnostic::semantic(
                    item.span(),
                    "missing `.version` directive at the start of the module",
                ));
            }
            (Item::Target { .. }, Expect::Target | Expect::TargetOrAddressSize) => {
                Expect::TargetOrAddressSize
            }
            (_, Expect::Target) => {
                return diags.push(Diagnostic::semantic(
                    item.span(),
                    "missing `.target` directive: it must immediately follow `.version`",
                ));
            }
            (Item::AddressSize { .. }, Expect::TargetOrAddressSize) => Expect::Body,
            (Item::Version { span, .. }, _) => misplaced(
                diags,
                *span,
                "`.version` must come once, first in the module",
            ),
            (Item::Target { span, .. }, _) => misplaced(
                diags,
                *span,
                "`.target` must immediately follow `.version` (or another `.target`)",
            ),
            (Item::AddressSize { span, .. }, _) => misplaced(
                diags,
                *span,
                "`.address_size` must come at most once, immediately after `.target`",
            ),
            _ => Expect::Body,
        };
    }
    if expect == Expect::Version {
        diags.push(Diagnostic::semantic(
            Span::default(),
            "missing `.version` directive at the start of the module",
        ));
    } else if expect == Expect::Target {
        diags.push(Diagnostic::semantic(
            Span::default(),
            "missing `.target` directive: it must immediately follow `.version`",
        ));
    }
}

/// Reports a header directive out of place; the body goes on.
fn misplaced(diags: &mut Vec<Diagnostic>, span: Span, rule: &str) -> Expect {
    diags.push(Diagnostic::semantic(span, rule));
    Expect::Body
}
