//! CTA schedulers (`gpu.cta_scheduler`): which SM each CTA of a launch goes to, and when.
//!
//! Each cycle the GPU offers the SMs to the policy in a rotating order; the policy launches
//! CTAs, in CTA order, on the SMs that have room. The policies:
//!
//! - **Round robin** (the default): a pass that offers each SM once, from the SM after the one
//!   that took the last CTA, and one CTA to each SM with room (GPGPU-Sim's
//!   `gpgpu_sim::issue_block2core`, one CTA a cycle per cluster of one core), so a grid of
//!   one wave spreads over every SM.
//! - **BCS** (block CTA scheduling, Lee et al., as seed 002 describes it): a pass that offers
//!   each SM once, from the SM after the one that took the last CTAs, and CTAs go in pairs
//!   of consecutive ones to one SM, and only to an SM with room for both (neighbouring CTAs
//!   often share data, which the pair's L1 then holds once). The last CTA
//!   of an odd grid goes alone. An SM with room for one CTA waits for a second: the resource
//!   starvation the seed names as BCS's cost.
//! - **PAVER** (seed 002, chapter 3; crate::paver): CTAs go in the groups of the launch's
//!   locality graph. A pass offers each SM once, as BCS's does; an SM with room takes the
//!   next CTA of its group, and when its group is done, the next group of the global queue.
//!   When no group is left, an SM with room steals from the SM with the most CTAs waiting
//!   (the seed's task stealing, Algorithm 2): the donor's last `max − mean` waiting CTAs,
//!   at least one.
//!
//! Which CTAs are timed (`TimedCtas`) does not depend on the policy: they are the first ones
//! in CTA order, and every policy dispatches exactly those.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How CTAs are placed on SMs (`gpu.cta_scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CtaSchedulerPolicy {
    /// One CTA per SM with room, SMs in rotating order (GPGPU-Sim's loose round robin).
    #[default]
    RoundRobin,
    /// Pairs of consecutive CTAs to one SM with room for both.
    Bcs,
    /// Groups of CTAs sharing data, from the launch's locality graph, with task stealing.
    Paver,
}

/// The SMs as the CTA scheduler sees them: how much room they have.
pub(crate) trait CtaRoom {
    /// How many SMs there are.
    fn sm_count(&self) -> usize;
    /// Whether SM `sm` can take `n` more CTAs now.
    fn has_room(&self, sm: usize, n: u32) -> bool;
}

/// The SMs as the CTA scheduler sees them, to launch CTAs on.
pub(crate) trait CtaSlots: CtaRoom {
    /// Launches CTA `cta` on SM `sm`.
    fn launch(&mut self, sm: usize, cta: u64);
}

/// Dispatches the CTAs `0..end` of one launch under a policy.
#[derive(Clone, Debug)]
pub(crate) struct CtaDispatcher {
    policy: CtaSchedulerPolicy,
    /// Where the next pass over the SMs starts.
    start: usize,
    /// How many CTAs were launched: the next one in CTA order (round robin, BCS).
    next: u64,
    end: u64,
    /// PAVER's groups (empty under the other policies).
    groups: GroupQueues,
}

impl CtaDispatcher {
    /// A dispatcher of the CTAs `0..end` in CTA order (`policy` is not PAVER).
    pub fn new(policy: CtaSchedulerPolicy, end: u64) -> Self {
        CtaDispatcher {
            policy,
            start: 0,
            next: 0,
            end,
            groups: GroupQueues::default(),
        }
    }

    /// A PAVER dispatcher of the CTAs in `groups`, in that order, over `sms` SMs.
    pub fn paver(groups: Vec<Vec<u64>>, sms: usize) -> Self {
        CtaDispatcher {
            policy: CtaSchedulerPolicy::Paver,
            start: 0,
            next: 0,
            end: groups.iter().map(|g| g.len() as u64).sum(),
            groups: GroupQueues {
                global: groups.into_iter().map(VecDeque::from).collect(),
                per_sm: vec![VecDeque::new(); sms],
                steals: 0,
                stolen: 0,
            },
        }
    }

    /// Task-stealing counters: (steals, CTAs stolen).
    pub fn steals(&self) -> (u64, u64) {
        (self.groups.steals, self.groups.stolen)
    }

    /// Every CTA was launched.
    pub fn all_launched(&self) -> bool {
        self.next >= self.end
    }

    /// How many CTAs the next launch needs room for on one SM.
    fn batch(&self) -> u32 {
        match self.policy {
            CtaSchedulerPolicy::RoundRobin | CtaSchedulerPolicy::Paver => 1,
            CtaSchedulerPolicy::Bcs => (self.end - self.next).min(2) as u32,
        }
    }

    /// Whether some SM could take the next CTAs now (the GPU skips idle cycles only while
    /// none could).
    pub fn may_launch(&self, slots: &impl CtaRoom) -> bool {
        !self.all_launched() && (0..slots.sm_count()).any(|i| slots.has_room(i, self.batch()))
    }

    /// One cycle of dispatch: a pass over the SMs from the rotation's start.
    pub fn cycle(&mut self, slots: &mut impl CtaSlots) {
        let n = slots.sm_count();
        let first = self.start;
        for k in 0..n {
            if self.all_launched() {
                break;
            }
            let sm = (first + k) % n;
            let batch = self.batch();
            if !slots.has_room(sm, batch) {
                continue;
            }
            for _ in 0..batch {
                // A residency policy that admits by live state may refuse the pair's second.
                if !slots.has_room(sm, 1) {
                    break;
                }
                // Under PAVER some SM's group or the global queue holds every CTA not yet
                // launched, and an SM whose group ran out steals: there always is one.
                let cta = match self.policy {
                    CtaSchedulerPolicy::Paver => self.groups.next_for(sm),
                    _ => Some(self.next),
                };
                let Some(cta) = cta else { break };
                slots.launch(sm, cta);
                self.next += 1;
            }
            self.start = (sm + 1) % n;
        }
    }
}

/// PAVER's queues: the groups no SM has taken yet, and each SM's group.
#[derive(Clone, Debug, Default)]
struct GroupQueues {
    global: VecDeque<VecDeque<u64>>,
    /// The CTAs of each SM's group not launched yet.
    per_sm: Vec<VecDeque<u64>>,
    steals: u64,
    stolen: u64,
}

impl GroupQueues {
    /// The next CTA for SM `sm`: from its group, else from the next group, else stolen.
    fn next_for(&mut self, sm: usize) -> Option<u64> {
        if self.per_sm[sm].is_empty() {
            match self.global.pop_front() {
                Some(group) => self.per_sm[sm] = group,
                None => self.steal_for(sm),
            }
        }
        self.per_sm[sm].pop_front()
    }

    /// Moves the last `max − mean` (at least one) waiting CTAs of the SM with the most
    /// waiting (the lowest such SM) to SM `sm`.
    fn steal_for(&mut self, sm: usize) {
        let waiting: Vec<usize> = self.per_sm.iter().map(VecDeque::len).collect();
        let Some((donor, &most)) = waiting
            .iter()
            .enumerate()
            .max_by_key(|&(i, &w)| (w, std::cmp::Reverse(i)))
        else {
            return;
        };
        if most == 0 {
            return;
        }
        let mean = waiting.iter().sum::<usize>() / waiting.len();
        let count = (most - mean).max(1);
        let donor_queue = &mut self.per_sm[donor];
        let taken = donor_queue.split_off(donor_queue.len() - count);
        self.per_sm[sm] = taken;
        self.steals += 1;
        self.stolen += count as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SMs of `limit` CTA slots each, recording (cycle, SM, CTA) per launch.
    struct Slots {
        resident: Vec<u32>,
        limit: u32,
        cycle: u32,
        launched: Vec<(u32, usize, u64)>,
    }

    impl CtaRoom for Slots {
        fn sm_count(&self) -> usize {
            self.resident.len()
        }
        fn has_room(&self, sm: usize, n: u32) -> bool {
            self.resident[sm] + n <= self.limit
        }
    }

    impl CtaSlots for Slots {
        fn launch(&mut self, sm: usize, cta: u64) {
            self.resident[sm] += 1;
            self.launched.push((self.cycle, sm, cta));
        }
    }

    fn slots(sms: usize, limit: u32) -> Slots {
        Slots {
            resident: vec![0; sms],
            limit,
            cycle: 0,
            launched: Vec::new(),
        }
    }

    #[test]
    fn round_robin_offers_each_sm_once_a_cycle_from_after_the_last_taker() {
        // As GPGPU-Sim's gpgpu_sim::issue_block2core, worked by hand: four SMs of one slot.
        let mut s = slots(4, 1);
        let mut d = CtaDispatcher::new(CtaSchedulerPolicy::RoundRobin, 10);
        d.cycle(&mut s);
        // A wave spreads over every SM; SM 3 took the last, so the next pass starts at SM 0.
        assert_eq!(sm_cta(&s), [(0, 0), (1, 1), (2, 2), (3, 3)]);
        let free = |s: &mut Slots, sms: &[usize]| {
            s.launched.clear();
            for &sm in sms {
                s.resident[sm] = 0;
            }
        };
        free(&mut s, &[1, 3]);
        d.cycle(&mut s);
        assert_eq!(sm_cta(&s), [(1, 4), (3, 5)]);
        free(&mut s, &[1, 2]);
        d.cycle(&mut s);
        assert_eq!(sm_cta(&s), [(1, 6), (2, 7)]);
        // SM 2 took the last: the pass starts at SM 3.
        free(&mut s, &[0, 3]);
        d.cycle(&mut s);
        assert_eq!(sm_cta(&s), [(3, 8), (0, 9)]);
        assert!(d.all_launched());
    }

    /// The (SM, CTA) of each launch recorded.
    fn sm_cta(s: &Slots) -> Vec<(usize, u64)> {
        s.launched.iter().map(|l| (l.1, l.2)).collect()
    }

    #[test]
    fn bcs_launches_consecutive_pairs_and_waits_for_room_for_two() {
        let mut s = slots(2, 3);
        let mut d = CtaDispatcher::new(CtaSchedulerPolicy::Bcs, 7);
        d.cycle(&mut s);
        // SM 0 takes CTAs 0 and 1, SM 1 CTAs 2 and 3.
        assert_eq!(s.launched, [(0, 0, 0), (0, 0, 1), (0, 1, 2), (0, 1, 3)]);
        // Each SM has one slot left: no pair fits, so nothing launches.
        s.cycle = 1;
        assert!(!d.may_launch(&s));
        d.cycle(&mut s);
        assert_eq!(s.launched.len(), 4);
        // SM 1 frees two slots: the next pair goes there.
        s.resident[1] = 1;
        s.cycle = 2;
        d.cycle(&mut s);
        assert_eq!(&s.launched[4..], [(2, 1, 4), (2, 1, 5)]);
        // The odd grid's last CTA goes alone, to an SM with one slot.
        s.cycle = 3;
        assert!(d.may_launch(&s));
        d.cycle(&mut s);
        assert_eq!(&s.launched[6..], [(3, 0, 6)]);
        assert!(d.all_launched());
    }

    #[test]
    fn paver_gives_each_sm_a_group_then_steals_when_none_is_left() {
        let mut s = slots(2, 2);
        let mut d = CtaDispatcher::paver(vec![vec![0, 1], vec![2, 3], vec![4, 5, 6]], 2);
        // Groups in order, one per SM, one CTA per SM per cycle.
        d.cycle(&mut s);
        s.cycle = 1;
        d.cycle(&mut s);
        assert_eq!(s.launched, [(0, 0, 0), (0, 1, 2), (1, 0, 1), (1, 1, 3)]);
        // SM 1 drains first and takes the last group; the pass starts after SM 1, at SM 0.
        s.resident[1] = 0;
        for cycle in 2..4 {
            s.cycle = cycle;
            d.cycle(&mut s);
        }
        assert_eq!(&s.launched[4..], [(2, 1, 4), (3, 1, 5)]);
        assert_eq!(d.steals(), (0, 0));
        // SM 0 drains with no group left: it steals SM 1's last waiting CTA.
        s.resident[0] = 0;
        s.cycle = 4;
        d.cycle(&mut s);
        assert_eq!(&s.launched[6..], [(4, 0, 6)]);
        assert_eq!(d.steals(), (1, 1));
        assert!(d.all_launched());
    }

    #[test]
    fn a_thief_takes_the_excess_over_the_mean_from_the_tail() {
        let mut q = GroupQueues {
            per_sm: vec![
                VecDeque::new(),
                VecDeque::from([10, 11, 12, 13, 14, 15]),
                VecDeque::from([20, 21]),
            ],
            ..GroupQueues::default()
        };
        // Waiting 0, 6, 2: mean 2, so SM 0 takes SM 1's last 6 − 2 = 4.
        assert_eq!(q.next_for(0), Some(12));
        assert_eq!(q.per_sm[0], [13, 14, 15]);
        assert_eq!(q.per_sm[1], [10, 11]);
        assert_eq!((q.steals, q.stolen), (1, 4));
    }
}
