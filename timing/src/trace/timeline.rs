//! Counters over time: every so many cycles the GPU notes what its SMs did since the last
//! sample. Every field of a sample is a sum over its interval, so two neighbours merge by
//! adding; when the timeline is full, neighbours merge pairwise and the interval doubles, so
//! a run of any length keeps at most [`TIMELINE_SAMPLES`] samples of equal length (the last
//! of each launch shorter).

use serde::Serialize;

/// The most samples a timeline keeps.
pub const TIMELINE_SAMPLES: usize = 2048;

/// The first sampling interval, in cycles (doubled as the timeline fills).
const FIRST_INTERVAL: u64 = 100;

/// What the GPU did over `cycles` cycles from `cycle` (all SMs together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TimelineSample {
    pub cycle: u64,
    pub cycles: u64,
    pub thread_insts: u64,
    pub warp_insts: u64,
    /// Warps resident, summed over the cycles (divide by `cycles` for the mean).
    pub resident_warp_cycles: u64,
    /// Collector units holding an instruction, summed over the cycles.
    pub busy_collector_cycles: u64,
    pub l1d_misses: u64,
    pub l2_misses: u64,
}

impl TimelineSample {
    /// Thread instructions per cycle.
    pub fn ipc(&self) -> f64 {
        self.thread_insts as f64 / self.cycles.max(1) as f64
    }

    /// The counts of `self` less those of `earlier` (cumulative counts of one launch).
    pub(crate) fn since(&self, earlier: &TimelineSample) -> TimelineSample {
        TimelineSample {
            cycle: earlier.cycle,
            cycles: self.cycle - earlier.cycle,
            thread_insts: self.thread_insts - earlier.thread_insts,
            warp_insts: self.warp_insts - earlier.warp_insts,
            resident_warp_cycles: self.resident_warp_cycles - earlier.resident_warp_cycles,
            busy_collector_cycles: self.busy_collector_cycles - earlier.busy_collector_cycles,
            l1d_misses: self.l1d_misses - earlier.l1d_misses,
            l2_misses: self.l2_misses - earlier.l2_misses,
        }
    }

    fn merge(&mut self, next: &TimelineSample) {
        self.cycles = next.cycle + next.cycles - self.cycle;
        self.thread_insts += next.thread_insts;
        self.warp_insts += next.warp_insts;
        self.resident_warp_cycles += next.resident_warp_cycles;
        self.busy_collector_cycles += next.busy_collector_cycles;
        self.l1d_misses += next.l1d_misses;
        self.l2_misses += next.l2_misses;
    }
}

/// The samples of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timeline {
    /// Cycles a sample covers (the last of each launch may cover fewer).
    pub interval: u64,
    /// Warp slots and collector units of the whole GPU, for occupancies.
    pub warp_slots: u64,
    pub collector_units: u64,
    pub samples: Vec<TimelineSample>,
}

impl Timeline {
    fn push(&mut self, sample: TimelineSample) {
        if self.samples.len() == TIMELINE_SAMPLES {
            let old = std::mem::take(&mut self.samples);
            for pair in old.chunks(2) {
                let mut s = pair[0];
                if let Some(next) = pair.get(1) {
                    s.merge(next);
                }
                self.samples.push(s);
            }
            self.interval *= 2;
        }
        // A sample shorter than the interval (a launch's last) merges into the next only
        // when they are contiguous and together no longer than one interval.
        match self.samples.last_mut() {
            Some(last)
                if last.cycle + last.cycles == sample.cycle
                    && last.cycles + sample.cycles <= self.interval =>
            {
                last.merge(&sample)
            }
            _ => self.samples.push(sample),
        }
    }
}

/// Takes a sample whenever the clock passes the next sampling point.
pub(crate) struct TimelineSampler {
    next_at: u64,
    /// The counts at the last sample, since the launch started (`cycle` the cycle it was at).
    last: TimelineSample,
}

impl TimelineSampler {
    /// Starts sampling a launch at cycle `now` (its counts start at zero).
    pub(crate) fn start(timeline: &mut Timeline, now: u64) -> TimelineSampler {
        if timeline.interval == 0 {
            timeline.interval = FIRST_INTERVAL;
        }
        TimelineSampler {
            next_at: now + timeline.interval,
            last: TimelineSample {
                cycle: now,
                ..TimelineSample::default()
            },
        }
    }

    /// Whether a sample is due at cycle `now`.
    #[inline]
    pub(crate) fn due(&self, now: u64) -> bool {
        now >= self.next_at
    }

    /// Notes the counts since the launch started, `counts` (its `cycle` the current cycle, its
    /// `cycles` unused): a sample of what happened since the last.
    pub(crate) fn sample(&mut self, timeline: &mut Timeline, counts: TimelineSample) {
        if counts.cycle > self.last.cycle {
            timeline.push(counts.since(&self.last));
        }
        self.next_at = counts.cycle + timeline.interval;
        self.last = counts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(cycle: u64, insts: u64) -> TimelineSample {
        TimelineSample {
            cycle,
            thread_insts: insts,
            ..TimelineSample::default()
        }
    }

    #[test]
    fn a_full_timeline_merges_neighbours_and_doubles_its_interval() {
        let mut t = Timeline::default();
        let mut s = TimelineSampler::start(&mut t, 0);
        let mut now = 0;
        for i in 1..=TIMELINE_SAMPLES as u64 + 1 {
            now += FIRST_INTERVAL;
            assert!(s.due(now));
            s.sample(&mut t, counts(now, i * 7));
        }
        assert_eq!(t.interval, 2 * FIRST_INTERVAL);
        assert_eq!(t.samples.len(), TIMELINE_SAMPLES / 2 + 1);
        assert!(
            t.samples
                .iter()
                .all(|x| x.cycles == 2 * FIRST_INTERVAL || x.cycles == FIRST_INTERVAL)
        );
        assert_eq!(
            t.samples[0],
            TimelineSample {
                cycle: 0,
                cycles: 2 * FIRST_INTERVAL,
                thread_insts: 14,
                ..TimelineSample::default()
            }
        );
        // Nothing is lost in merging.
        let total: u64 = t.samples.iter().map(|x| x.thread_insts).sum();
        assert_eq!(total, (TIMELINE_SAMPLES as u64 + 1) * 7);
        let cycles: u64 = t.samples.iter().map(|x| x.cycles).sum();
        assert_eq!(cycles, now);
    }

    #[test]
    fn a_launch_s_short_last_sample_joins_the_next_launch_s_first_when_they_fit() {
        let mut t = Timeline::default();
        let mut s = TimelineSampler::start(&mut t, 0);
        s.sample(&mut t, counts(30, 3));
        let mut s = TimelineSampler::start(&mut t, 30);
        s.sample(&mut t, counts(60, 5));
        s.sample(&mut t, counts(160, 6));
        let spans: Vec<_> = t
            .samples
            .iter()
            .map(|x| (x.cycle, x.cycles, x.thread_insts))
            .collect();
        assert_eq!(spans, [(0, 60, 8), (60, 100, 1)]);
    }
}
