//! The host threads that run the SMs' cycles of a launch ([`with_crew`], [`Crew`]).
//!
//! Each simulated cycle, the launch's thread hands the SMs to the crew: every thread, the
//! launch's own included, takes the next SM nobody took yet (an atomic counter) and runs its
//! cycle ([`Sm::cycle`]), until none is left; the launch's thread waits for the last one and
//! then, alone, commits the SMs in index order ([`Sm::commit`]: the L2 requests and the
//! global-memory writes of the cycle). An SM's cycle reads and writes only the SM and its
//! memory (global memory is only read), so which thread runs which SM changes nothing, and
//! the statistics and results are the same for every thread count (docs/timing.md,
//! "Parallel timing and memory semantics").
//!
//! Between cycles a worker spins for a while (the launch's thread commits, dispatches CTAs and
//! hands out the next cycle within microseconds), then parks until woken. A panic in an SM's
//! cycle on a worker is caught and raised again on the launch's thread.

use crate::memory::SmMemory;
use crate::sm::Sm;
use std::any::Any;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::thread::Thread;

/// Spins of a waiting worker before it parks (tens of microseconds).
const SPINS: u32 = 20_000;

/// Spins of the launch's thread waiting for the workers' last SMs before it yields its core
/// (to a worker that the host descheduled).
const SPINS_BEFORE_YIELD: u32 = 2_000;

/// What the crew's threads share: the cycle being run and the SMs being taken.
struct Phase<'a> {
    /// The cycle's generation (high 32 bits) and the next SM to take (low 32 bits). A thread
    /// takes an SM by a compare-and-swap that also checks the generation, so a late thread
    /// can never take an SM of a later cycle with the state of an earlier one.
    claim: AtomicU64,
    /// The SMs and their memories of the cycle (written before the generation is published).
    sms: AtomicPtr<Sm<'a>>,
    mems: AtomicPtr<SmMemory>,
    count: AtomicUsize,
    now: AtomicU64,
    /// SMs whose cycle is done.
    done: AtomicUsize,
    stop: AtomicBool,
    /// Workers parked (or about to park), one flag each.
    parked: Vec<AtomicBool>,
    /// The first panic of an SM's cycle on a worker.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// The generation in a claim word, and the SM it names.
fn split(claim: u64) -> (u32, usize) {
    ((claim >> 32) as u32, (claim & 0xffff_ffff) as usize)
}

impl<'a> Phase<'a> {
    /// Takes and runs SMs of generation `generation` until none is left; how many it ran.
    fn take_sms(&self, generation: u32) -> usize {
        let mut ran = 0;
        let mut claim = self.claim.load(Ordering::Acquire);
        loop {
            let (g, next) = split(claim);
            if g != generation || next >= self.count.load(Ordering::Acquire) {
                return ran;
            }
            if let Err(now) = self.claim.compare_exchange_weak(
                claim,
                claim + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                claim = now;
                continue;
            }
            // The SM is ours alone until `done` counts it: nobody else takes index `next` of
            // this generation, and the launch's thread waits for `done` before it touches
            // the SMs again (or publishes the next generation's pointers).
            let now = self.now.load(Ordering::Acquire);
            // SAFETY: `next` is below the count of the slices published for this generation,
            // which stay borrowed by the launch's thread until every SM of it is done.
            let (sm, mem) = unsafe {
                (
                    &mut *self.sms.load(Ordering::Acquire).add(next),
                    &mut *self.mems.load(Ordering::Acquire).add(next),
                )
            };
            let cycle = std::panic::AssertUnwindSafe(|| sm.run_cycle(now, mem));
            if let Err(payload) = std::panic::catch_unwind(cycle) {
                // The SM counts as done, so the launch's thread stops waiting and raises the
                // panic once every other SM has run.
                let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(payload);
            }
            ran += 1;
            claim = self.claim.load(Ordering::Acquire);
        }
    }

    /// A worker's loop: each new generation, take SMs; between them spin, then park.
    fn work(&self, worker: usize) {
        let mut seen = 0u32;
        loop {
            let mut spins = 0;
            let generation = loop {
                if self.stop.load(Ordering::Acquire) {
                    return;
                }
                let (g, _) = split(self.claim.load(Ordering::Acquire));
                if g != seen {
                    break g;
                }
                if spins < SPINS {
                    spins += 1;
                    std::hint::spin_loop();
                    continue;
                }
                // Park, unless a generation (or the stop) came after the last look: the
                // launch's thread unparks every worker whose flag it sees after publishing.
                self.parked[worker].store(true, Ordering::SeqCst);
                let (g, _) = split(self.claim.load(Ordering::SeqCst));
                if g == seen && !self.stop.load(Ordering::SeqCst) {
                    std::thread::park();
                }
                self.parked[worker].store(false, Ordering::SeqCst);
            };
            seen = generation;
            let ran = self.take_sms(generation);
            if ran > 0 {
                self.done.fetch_add(ran, Ordering::AcqRel);
            }
        }
    }
}

/// The launch's handle on its crew: runs a cycle of every SM, on the crew's threads and its
/// own.
pub(crate) struct Crew<'p, 'a> {
    phase: &'p Phase<'a>,
    workers: Vec<Thread>,
    generation: u32,
}

impl<'a> Crew<'_, 'a> {
    /// Runs cycle `now` of every SM ([`Sm::run_cycle`]; `mems[i]` is SM `i`'s memory), and
    /// returns once all are done.
    pub(crate) fn cycle(&mut self, now: u64, sms: &mut [Sm<'a>], mems: &mut [SmMemory]) {
        debug_assert_eq!(sms.len(), mems.len());
        if self.workers.is_empty() {
            for (sm, mem) in sms.iter_mut().zip(mems.iter_mut()) {
                sm.run_cycle(now, mem);
            }
            return;
        }
        let p = self.phase;
        p.sms.store(sms.as_mut_ptr(), Ordering::Relaxed);
        p.mems.store(mems.as_mut_ptr(), Ordering::Relaxed);
        p.count.store(sms.len(), Ordering::Relaxed);
        p.now.store(now, Ordering::Relaxed);
        p.done.store(0, Ordering::Relaxed);
        self.generation = self.generation.wrapping_add(1).max(1);
        // Publishes everything above with the generation.
        p.claim
            .store(u64::from(self.generation) << 32, Ordering::SeqCst);
        for (worker, thread) in self.workers.iter().enumerate() {
            if p.parked[worker].load(Ordering::SeqCst) {
                thread.unpark();
            }
        }
        let mine = p.take_sms(self.generation);
        let mut done = p.done.fetch_add(mine, Ordering::AcqRel) + mine;
        let mut spins = 0;
        while done < sms.len() {
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
            done = p.done.load(Ordering::Acquire);
        }
        let panic = p.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// Stops the workers when the launch's thread leaves the crew, returning or unwinding.
struct Stop<'p, 'a> {
    phase: &'p Phase<'a>,
    workers: Vec<Thread>,
}

impl Drop for Stop<'_, '_> {
    fn drop(&mut self) {
        self.phase.stop.store(true, Ordering::SeqCst);
        for thread in &self.workers {
            thread.unpark();
        }
    }
}

/// Runs `f` with a crew of `threads` host threads in all (the calling thread and `threads -
/// 1` workers; at least 1), which live until `f` returns.
pub(crate) fn with_crew<'a, R>(threads: usize, f: impl FnOnce(&mut Crew<'_, 'a>) -> R) -> R {
    // What makes handing an SM to another thread sound.
    fn send<T: Send>() {}
    send::<Sm<'a>>();
    send::<SmMemory>();
    let workers = threads.max(1) - 1;
    let phase = Phase {
        claim: AtomicU64::new(0),
        sms: AtomicPtr::new(std::ptr::null_mut()),
        mems: AtomicPtr::new(std::ptr::null_mut()),
        count: AtomicUsize::new(0),
        now: AtomicU64::new(0),
        done: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        parked: (0..workers).map(|_| AtomicBool::new(false)).collect(),
        panic: Mutex::new(None),
    };
    std::thread::scope(|scope| {
        let phase = &phase;
        let threads: Vec<Thread> = (0..workers)
            .map(|w| {
                std::thread::Builder::new()
                    .name(format!("warpsim-sm-{}", w + 1))
                    .spawn_scoped(scope, move || phase.work(w))
                    .expect("spawn a timing-model thread")
                    .thread()
                    .clone()
            })
            .collect();
        let _stop = Stop {
            phase,
            workers: threads.clone(),
        };
        let mut crew = Crew {
            phase,
            workers: threads,
            generation: 0,
        };
        f(&mut crew)
    })
}
