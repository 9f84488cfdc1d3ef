//! Progress bars of long commands (`run` and `characterize` over several samples or at the
//! large size, `rf`), on standard error and only where a person watches them. What a command
//! prints while its bar is drawn goes through [`ProgressBar::suspend`], so it appears above
//! the bar instead of tearing it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar over `len` steps of `what`, drawn on standard error when it is a terminal, hidden
/// otherwise or when `quiet`. It ticks on its own, so its clock moves during a long step.
pub(crate) fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len),
        if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}, {{elapsed}} {{wide_msg}}"
        ))
        .expect("a valid template"),
    );
    if !bar.is_hidden() {
        bar.enable_steady_tick(std::time::Duration::from_secs(1));
    }
    bar
}
