//! The wall clock over a launch: an optional time limit, and a progress heartbeat on stderr
//! for launches that run long.
//!
//! Neither changes what a launch computes: the heartbeat only prints, and the limit stops a
//! launch with an error (which instruction was running when it struck depends on the host's
//! speed, unlike the instruction budget's fault).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What the wall clock does to a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WallClock {
    /// Stop a launch that runs longer than this (`None`: never).
    pub limit: Option<Duration>,
    /// Print progress every this often on stderr once a launch runs this long (`None`: never).
    pub heartbeat: Option<Duration>,
}

impl WallClock {
    /// Progress every 10 s, no limit: what the command line uses.
    pub const INTERACTIVE: WallClock = WallClock {
        limit: None,
        heartbeat: Some(Duration::from_secs(10)),
    };
}

/// One launch's watch: shared by the host threads running its CTAs.
pub struct LaunchWatch {
    clock: WallClock,
    kernel: String,
    total_ctas: u64,
    ctas_done: AtomicU64,
    start: Instant,
    /// When the next heartbeat is due; the thread that prints it moves it on.
    next_beat: Mutex<Option<Instant>>,
}

impl LaunchWatch {
    /// Starts the clock of a launch of `kernel` over `total_ctas` CTAs.
    pub fn new(clock: WallClock, kernel: &str, total_ctas: u64) -> LaunchWatch {
        let start = Instant::now();
        LaunchWatch {
            clock,
            kernel: kernel.to_string(),
            total_ctas,
            ctas_done: AtomicU64::new(0),
            start,
            next_beat: Mutex::new(clock.heartbeat.map(|every| start + every)),
        }
    }

    /// Counts a finished CTA.
    pub fn cta_done(&self) {
        self.ctas_done.fetch_add(1, Ordering::Relaxed);
    }

    /// Sets the count of finished CTAs (for a caller that keeps its own).
    pub fn set_ctas_done(&self, done: u64) {
        self.ctas_done.store(done, Ordering::Relaxed);
    }

    /// Called every so often while the launch runs: prints the heartbeat when it is due
    /// (`extra` adds to its line, e.g. the simulated cycle), and returns the limit once it has
    /// passed.
    pub fn poll(&self, extra: impl FnOnce() -> String) -> Option<Duration> {
        if self.clock.limit.is_none() && self.clock.heartbeat.is_none() {
            return None;
        }
        let now = Instant::now();
        let elapsed = now - self.start;
        if let Some(limit) = self.clock.limit
            && elapsed > limit
        {
            return Some(limit);
        }
        if let (Some(every), Ok(mut next)) = (self.clock.heartbeat, self.next_beat.try_lock())
            && next.is_some_and(|due| now >= due)
        {
            *next = Some(now + every);
            let extra = extra();
            let sep = if extra.is_empty() { "" } else { ", " };
            eprintln!(
                "warpsim: kernel `{}`: {} of {} CTAs done after {:.0} s{sep}{extra}",
                self.kernel,
                self.ctas_done.load(Ordering::Relaxed),
                self.total_ctas,
                elapsed.as_secs_f64()
            );
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_strikes_only_once_passed() {
        let never = LaunchWatch::new(WallClock::default(), "k", 1);
        assert_eq!(never.poll(String::new), None);
        let limit = Duration::from_millis(20);
        let watch = LaunchWatch::new(
            WallClock {
                limit: Some(limit),
                heartbeat: None,
            },
            "k",
            1,
        );
        assert_eq!(watch.poll(String::new), None);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(watch.poll(String::new), Some(limit));
    }
}
