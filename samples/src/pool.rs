//! Independent jobs on a pool of host threads (`warpsim rf`'s simulations, `warpsim sweep`'s
//! points): each worker takes the next job not yet taken, so long and short jobs mix without a
//! plan, and the results come back in job order, so what a command prints or writes from them
//! does not depend on the thread count or on which job finished first.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `work` on every job on `threads` host threads (at least one, at most one per job) and
/// returns the results in job order.
pub(crate) fn map<T: Sync, R: Send>(
    jobs: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let results: Vec<Mutex<Option<R>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else {
                        break;
                    };
                    let r = work(job);
                    *results[i].lock().expect("result slot") = Some(r);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().expect("result slot").expect("every job ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_job_order_on_any_thread_count() {
        let jobs: Vec<u64> = (0..50).collect();
        for threads in [1, 2, 7, 100] {
            // Early jobs take longest, so later ones finish first on several threads.
            let out = super::map(&jobs, threads, |&j| {
                std::thread::sleep(std::time::Duration::from_micros(50 * (50 - j)));
                j * j
            });
            assert_eq!(out, jobs.iter().map(|j| j * j).collect::<Vec<_>>());
        }
        assert!(super::map(&[] as &[u8], 4, |_| 0).is_empty());
    }
}
