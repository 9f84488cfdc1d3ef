//! CTA schedulers (`gpu.cta_scheduler`): which SM each CTA of a launch goes to, and when.
//!
//! Each cycle the GPU offers the SMs to the policy in a rotating order; the policy launches
//! CTAs, in CTA order, on the SMs that have room. The policies:
//!
//! - **Round robin** (the default): one CTA to each SM with room, the rotation's start moving
//!   past the SM that took the last one. The start moves inside the cycle's pass too, so the
//!   pass may skip SMs and offer one twice (at a launch's start, some SMs take two CTAs in the
//!   first cycle and others none); the golden statistics hold this order.
//! - **BCS** (block CTA scheduling, Lee et al., as seed 002 describes it): a pass that offers
//!   each SM once, from the SM after the one that took the last CTAs, and CTAs go in pairs
//!   of consecutive ones to one SM, and only to an SM with room for both (neighbouring CTAs
//!   often share data, which the pair's L1 then holds once). The last CTA
//!   of an odd grid goes alone. An SM with room for one CTA waits for a second: the resource
//!   starvation the seed names as BCS's cost.
//!
//! Which CTAs are timed (`TimedCtas`) does not depend on the policy: they are the first ones
//! in CTA order, and every policy dispatches exactly those.

use serde::{Deserialize, Serialize};

/// How CTAs are placed on SMs (`gpu.cta_scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CtaSchedulerPolicy {
    /// One CTA per SM with room, SMs in rotating order (GPGPU-Sim's loose round robin).
    #[default]
    RoundRobin,
    /// Pairs of consecutive CTAs to one SM with room for both.
    Bcs,
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
    next: u64,
    end: u64,
}

impl CtaDispatcher {
    pub fn new(policy: CtaSchedulerPolicy, end: u64) -> Self {
        CtaDispatcher {
            policy,
            start: 0,
            next: 0,
            end,
        }
    }

    /// Every CTA was launched.
    pub fn all_launched(&self) -> bool {
        self.next >= self.end
    }

    /// How many CTAs the next launch needs room for on one SM.
    fn batch(&self) -> u32 {
        match self.policy {
            CtaSchedulerPolicy::RoundRobin => 1,
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
            let from = match self.policy {
                // Kept as the golden statistics have it (the module's documentation).
                CtaSchedulerPolicy::RoundRobin => self.start,
                CtaSchedulerPolicy::Bcs => first,
            };
            let sm = (from + k) % n;
            let batch = self.batch();
            if !slots.has_room(sm, batch) {
                continue;
            }
            for _ in 0..batch {
                // A residency policy that admits by live state may refuse the pair's second.
                if !slots.has_room(sm, 1) {
                    break;
                }
                slots.launch(sm, self.next);
                self.next += 1;
            }
            self.start = (sm + 1) % n;
        }
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
    fn round_robin_moves_its_start_within_the_pass() {
        // Four SMs: the pass from SM 0 launches on 0, then starts again after it at 2 (k = 1),
        // then at (3 + 2) % 4 = 1, then at (2 + 3) % 4 = 1 again.
        let mut s = slots(4, 8);
        let mut d = CtaDispatcher::new(CtaSchedulerPolicy::RoundRobin, 100);
        d.cycle(&mut s);
        let sms: Vec<usize> = s.launched.iter().map(|l| l.1).collect();
        assert_eq!(sms, [0, 2, 1, 1]);
        assert_eq!(
            s.launched.iter().map(|l| l.2).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
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
}
