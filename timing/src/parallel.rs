//! The host threads that run the SMs' cycles of a launch ([`with_crew`], [`Crew`]).
//!
//! Each simulated cycle, the launch's thread hands the SMs to the crew. Every thread, the
//! launch's own included, runs the cycles ([`Sm::cycle`]) of the SMs of its own block, in
//! order (the SMs are dealt out in turn, SM `i` to thread `(i + 1) mod threads`, so that an
//! SM's state stays in one core's caches, the SMs finish roughly in index order, and the
//! launch's thread, which also commits, gets the smaller share), then takes
//! SMs nobody took yet from the backs of the other blocks, until none is left. Meanwhile the
//! launch's thread sends each SM's requests to the L2 (the first half of the commit,
//! [`Sm::commit_memory`]) in SM order, as soon as that SM's cycle is done: they touch only that
//! SM and the L2, which no SM's cycle touches. Once every SM is through, the launch's thread
//! alone makes the SMs' global-memory writes, in SM order ([`Sm::commit`]). An SM's cycle
//! reads and writes only the SM and its memory (global memory is only read), so which thread
//! runs which SM changes nothing, and the statistics and results are the same for every
//! thread count (docs/timing.md, "Parallel timing and memory semantics").
//!
//! What the threads share is laid out so that each cache line has one writer: a thread's
//! claim word and progress word, and a flag per SM for the SMs another thread took. Between
//! cycles a worker spins for a while (the launch's thread commits, dispatches CTAs and hands
//! out the next cycle within microseconds), then parks until woken. A panic in an SM's cycle
//! on a worker is caught and raised again on the launch's thread.

use crate::memory::SmMemory;
use crate::sm::Sm;
use std::any::Any;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::thread::Thread;

/// Spins of a waiting worker before it parks (tens of microseconds).
const SPINS: u32 = 20_000;

/// Spins of the launch's thread waiting for another thread's SM between yields of its core
/// (to a thread the host descheduled).
const SPINS_BEFORE_YIELD: u32 = 2_000;

/// A word alone on its cache line.
#[repr(align(64))]
struct Line(AtomicU64);

impl Line {
    fn new() -> Line {
        Line(AtomicU64::new(0))
    }
}

/// The generation (its low 32 bits) in the high half of a word.
fn tagged(generation: u64, low: u64) -> u64 {
    (generation << 32) | low
}

/// Whether `word`'s generation is `generation`, and its low half.
fn untag(word: u64, generation: u64) -> Option<u64> {
    (word >> 32 == generation & 0xffff_ffff).then_some(word & 0xffff_ffff)
}

/// What the crew's threads share: the cycle being run and the SMs being taken.
struct Phase<'a> {
    /// The cycle handed out last, counting from 1 (0: none yet). Publishes the fields below.
    generation: AtomicU64,
    /// Per thread, how much of its block was taken in a generation: the SMs taken from the
    /// front by the thread itself and those taken from the back by the others (16 bits each),
    /// moved by compare-and-swap. Exactly one thread takes each SM, and a thread that is late
    /// (still on an earlier generation) takes none, since every SM was taken in its
    /// generation.
    claims: Vec<Line>,
    /// Per thread, how many of its block's SMs it has run to the end, from the front, in a
    /// generation.
    progress: Vec<Line>,
    /// Per SM, the last generation in which a thread other than its own ran it to the end.
    stolen: Vec<Line>,
    /// SMs, and threads (the launch's included).
    sm_count: usize,
    threads: usize,
    /// The SMs and their memories of the cycle (written before the generation is published).
    sms: AtomicPtr<Sm<'a>>,
    mems: AtomicPtr<SmMemory>,
    now: AtomicU64,
    stop: AtomicBool,
    /// Workers parked (or about to park), one flag each.
    parked: Vec<AtomicBool>,
    /// The first panic of an SM's cycle on a worker.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl<'a> Phase<'a> {
    /// The first SM of thread `t`'s block: thread `t` runs SMs `first`, `first + threads`,
    /// `first + 2·threads`, ... The launch's thread (0) takes the last of the residues, so it
    /// gets the smaller share when there is one: it also makes the commits.
    fn first_sm(&self, t: usize) -> usize {
        (t + self.threads - 1) % self.threads
    }

    /// How many SMs thread `t`'s block holds.
    fn block_len(&self, t: usize) -> usize {
        (self.sm_count + self.threads - 1 - self.first_sm(t)) / self.threads
    }

    /// The SM at `offset` in thread `t`'s block.
    fn block_sm(&self, t: usize, offset: usize) -> usize {
        self.first_sm(t) + offset * self.threads
    }

    /// The thread whose block holds SM `i`, and its offset there.
    fn owner(&self, i: usize) -> (usize, usize) {
        ((i + 1) % self.threads, i / self.threads)
    }

    /// Takes the next SM of thread `b`'s block in `generation`, from its front (thread `b`
    /// itself) or its back (the others): its offset in the block, unless every SM is taken
    /// or the generation is over.
    fn take(&self, b: usize, generation: u64, from_front: bool) -> Option<usize> {
        let size = self.block_len(b) as u64;
        let claim = &self.claims[b].0;
        let mut word = claim.load(Ordering::Acquire);
        loop {
            let (front, back) = match untag(word, generation) {
                Some(taken) => (taken >> 16, taken & 0xffff),
                // A later generation: this thread is late.
                None if ((word >> 32) as u32).wrapping_sub(generation as u32) as i32 > 0 => {
                    return None;
                }
                // Not touched yet in this generation.
                None => (0, 0),
            };
            if front + back >= size {
                return None;
            }
            let (front, back, offset) = if from_front {
                (front + 1, back, front)
            } else {
                (front, back + 1, size - 1 - back)
            };
            let new = tagged(generation, (front << 16) | back);
            match claim.compare_exchange_weak(word, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(offset as usize),
                Err(now) => word = now,
            }
        }
    }

    /// Runs the cycle of SM `i` (taken in the current generation).
    fn run(&self, i: usize) {
        // The SM is ours alone until we say it is done: nobody else takes it in this
        // generation, and the launch's thread waits for it before it touches the SMs again
        // (or publishes the next generation's pointers).
        let now = self.now.load(Ordering::Acquire);
        // SAFETY: `i` is below the number of SMs, the length of the slices published for this
        // generation, which stay borrowed by the launch's thread until every SM of it is done.
        let (sm, mem) = unsafe {
            (
                &mut *self.sms.load(Ordering::Acquire).add(i),
                &mut *self.mems.load(Ordering::Acquire).add(i),
            )
        };
        let cycle = std::panic::AssertUnwindSafe(|| sm.run_cycle(now, mem));
        if let Err(payload) = std::panic::catch_unwind(cycle) {
            // The SM counts as done, so the launch's thread stops waiting and raises the
            // panic once every other SM has run.
            let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(payload);
        }
    }

    /// Thread `t`'s part of generation `generation`: the SMs of its block from the front,
    /// then any SM of the other blocks still untaken, from their backs; `after` is called
    /// after each.
    fn take_sms(&self, t: usize, generation: u64, mut after: impl FnMut()) {
        let mut ran = 0;
        while let Some(offset) = self.take(t, generation, true) {
            self.run(self.block_sm(t, offset));
            ran += 1;
            self.progress[t]
                .0
                .store(tagged(generation, ran), Ordering::Release);
            after();
        }
        for k in 1..self.threads {
            let b = (t + k) % self.threads;
            while let Some(offset) = self.take(b, generation, false) {
                let i = self.block_sm(b, offset);
                self.run(i);
                self.stolen[i].0.store(generation, Ordering::Release);
                after();
            }
        }
    }

    /// Whether SM `i`'s cycle of `generation` is done.
    fn is_done(&self, i: usize, generation: u64) -> bool {
        let (t, offset) = self.owner(i);
        let progress = self.progress[t].0.load(Ordering::Acquire);
        untag(progress, generation).is_some_and(|ran| offset < ran as usize)
            || self.stolen[i].0.load(Ordering::Acquire) == generation
    }

    /// Worker `t`'s loop (`t` ≥ 1): each new generation, take SMs; between them spin, then
    /// park.
    fn work(&self, t: usize) {
        let mut seen = 0u64;
        loop {
            let mut spins = 0;
            let generation = loop {
                if self.stop.load(Ordering::Acquire) {
                    return;
                }
                let g = self.generation.load(Ordering::Acquire);
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
                let parked = &self.parked[t - 1];
                parked.store(true, Ordering::SeqCst);
                if self.generation.load(Ordering::SeqCst) == seen
                    && !self.stop.load(Ordering::SeqCst)
                {
                    std::thread::park();
                }
                parked.store(false, Ordering::SeqCst);
            };
            seen = generation;
            self.take_sms(t, generation, || {});
        }
    }
}

/// The launch's handle on its crew: runs a cycle of every SM, on the crew's threads and its
/// own.
pub(crate) struct Crew<'p, 'a> {
    phase: &'p Phase<'a>,
    workers: Vec<Thread>,
    generation: u64,
}

impl<'a> Crew<'_, 'a> {
    /// Runs cycle `now` of every SM ([`Sm::run_cycle`]; `mems[i]` is SM `i`'s memory; as many
    /// SMs as the crew was made for), and calls `then` on each SM and its memory once its
    /// cycle is done, in SM order, on the calling thread. Returns once all are through.
    pub(crate) fn cycle(
        &mut self,
        now: u64,
        sms: &mut [Sm<'a>],
        mems: &mut [SmMemory],
        mut then: impl FnMut(&mut Sm<'a>, &mut SmMemory),
    ) {
        if self.workers.is_empty() {
            // (Each SM's cycle touches nothing the previous SMs' `then` did.)
            for (sm, mem) in sms.iter_mut().zip(mems.iter_mut()) {
                sm.run_cycle(now, mem);
                then(sm, mem);
            }
            return;
        }
        let p = self.phase;
        assert!(sms.len() == p.sm_count && mems.len() == p.sm_count);
        let (sms, mems) = (sms.as_mut_ptr(), mems.as_mut_ptr());
        p.sms.store(sms, Ordering::Relaxed);
        p.mems.store(mems, Ordering::Relaxed);
        p.now.store(now, Ordering::Relaxed);
        self.generation += 1;
        let generation = self.generation;
        // Publishes everything above with the generation.
        p.generation.store(generation, Ordering::SeqCst);
        for (w, thread) in self.workers.iter().enumerate() {
            if p.parked[w].load(Ordering::SeqCst) {
                thread.unpark();
            }
        }
        // The next SM to commit: each whose cycle is done, in order.
        let mut next = 0;
        let mut commit = |next: &mut usize| {
            while *next < p.sm_count && p.is_done(*next, generation) {
                // SAFETY: SM `next`'s cycle is done and nobody takes it again in this
                // generation; the pointers are those of the slices borrowed for the call.
                unsafe { then(&mut *sms.add(*next), &mut *mems.add(*next)) };
                *next += 1;
            }
        };
        p.take_sms(0, generation, || commit(&mut next));
        let mut idle = 0u32;
        while next < p.sm_count {
            commit(&mut next);
            // Waiting for another thread's SM: spin, then give the core away now and then (to
            // a thread the host descheduled).
            idle += 1;
            if idle.is_multiple_of(SPINS_BEFORE_YIELD) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
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
/// 1` workers; at least 1, at most one per SM) for a GPU of `sms` SMs, which lives until `f`
/// returns.
pub(crate) fn with_crew<'a, R>(
    threads: usize,
    sms: usize,
    f: impl FnOnce(&mut Crew<'_, 'a>) -> R,
) -> R {
    // What makes handing an SM to another thread sound.
    fn send<T: Send>() {}
    send::<Sm<'a>>();
    send::<SmMemory>();
    assert!(
        sms <= 0xffff,
        "at most 65535 SMs (a block's count of taken SMs is 16 bits)"
    );
    let threads = threads.clamp(1, sms.max(1));
    let workers = threads - 1;
    let phase = Phase {
        generation: AtomicU64::new(0),
        claims: (0..threads).map(|_| Line::new()).collect(),
        progress: (0..threads).map(|_| Line::new()).collect(),
        stolen: (0..sms).map(|_| Line::new()).collect(),
        sm_count: sms,
        threads,
        sms: AtomicPtr::new(std::ptr::null_mut()),
        mems: AtomicPtr::new(std::ptr::null_mut()),
        now: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        parked: (0..workers).map(|_| AtomicBool::new(false)).collect(),
        panic: Mutex::new(None),
    };
    std::thread::scope(|scope| {
        let phase = &phase;
        let handles: Vec<Thread> = (1..threads)
            .map(|t| {
                std::thread::Builder::new()
                    .name(format!("warpsim-sm-{t}"))
                    .spawn_scoped(scope, move || phase.work(t))
                    .expect("spawn a timing-model thread")
                    .thread()
                    .clone()
            })
            .collect();
        let _stop = Stop {
            phase,
            workers: handles.clone(),
        };
        let mut crew = Crew {
            phase,
            workers: handles,
            generation: 0,
        };
        f(&mut crew)
    })
}
