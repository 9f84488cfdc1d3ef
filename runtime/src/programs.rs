//! Prepared programs shared by every device of the process.
//!
//! A [`Program`] is a pure function of the PTX text (and the file name its diagnostics quote)
//! and of the device's memory map and addresses of its module variables; its lazily built
//! parts — the JIT's code at each granularity, the compiler hints — are pure functions of the
//! program. So a module loaded again with the same text, on a device with the same memory map
//! that places its variables at the same addresses (a fresh device allocates
//! deterministically), takes the program prepared before,
//! with its compiled code: a sweep or a test suite running one sample on many devices pays for
//! parsing, lowering and compilation once. The compiled code points into its program (the
//! instructions its helpers interpret), which is why the whole program is shared rather than
//! the code alone.
//!
//! At most [`CAPACITY`] programs are kept; the one loaded longest ago goes first.

use emulator::Program;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

/// Programs kept: more than the samples' PTX files, so that sweeping every sample on one
/// device after another, from two threads at once, does not evict what the next device needs.
pub const CAPACITY: usize = 128;

/// What a program is prepared from, besides its variables' addresses.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Source {
    file: String,
    text: Arc<str>,
}

impl Source {
    fn new(file: &str, text: &str) -> Source {
        Source {
            file: file.to_string(),
            text: text.into(),
        }
    }
}

#[derive(Default)]
struct Shared {
    programs: HashMap<Source, Arc<Program>>,
    /// Sources from the oldest load to the newest.
    order: VecDeque<Source>,
}

fn shared() -> &'static Mutex<Shared> {
    static SHARED: OnceLock<Mutex<Shared>> = OnceLock::new();
    SHARED.get_or_init(Default::default)
}

/// The program prepared from `text` (named `file`), if one is kept.
pub(crate) fn find(file: &str, text: &str) -> Option<Arc<Program>> {
    let shared = shared().lock().expect("shared programs lock");
    shared.programs.get(&Source::new(file, text)).cloned()
}

/// Keeps `program`, prepared from `text` (named `file`), in place of any program kept for
/// them (prepared for other variable addresses).
pub(crate) fn keep(file: &str, text: &str, program: Arc<Program>) {
    let mut shared = shared().lock().expect("shared programs lock");
    let key = Source::new(file, text);
    if shared.programs.insert(key.clone(), program).is_none() {
        shared.order.push_back(key);
        while shared.order.len() > CAPACITY {
            let oldest = shared.order.pop_front().expect("non-empty");
            shared.programs.remove(&oldest);
        }
    }
}
