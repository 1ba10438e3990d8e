//! A bottleneck whose rate and propagation delay change at given times: a piecewise-constant
//! schedule, once or repeating with a period.
//!
//! Between two changes the link is an ordinary constant link. A packet whose transmission spans a
//! change is serialised at each rate for the part of it sent then (its bits are integrated over
//! the schedule), so a rate change takes effect at its instant, not at the next packet. A delay
//! change applies to the packets that enter propagation after it; the delay line never lets a
//! packet overtake an earlier one (see [`crate::delay_line`]), so a drop in delay holds the later
//! packets behind the earlier ones, as on a FIFO path.

use serde::Serialize;

/// The link's rate and one-way delay from one change to the next.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Level {
    pub rate_bps: f64,
    /// Nanoseconds.
    pub delay_ns: u64,
}

/// A change: from `at_ns` (from the run's start, or from each period's start when the schedule
/// repeats) the link has `level`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Change {
    pub at_ns: u64,
    pub level: Level,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    /// The level before the first change (of each period).
    pub base: Level,
    /// Strictly increasing `at_ns`; each level is complete (a change of rate alone carries the
    /// delay in force before it).
    pub changes: Vec<Change>,
    /// When set, every `period_ns` the link returns to `base` and the changes repeat; every
    /// change then lies before the period's end.
    pub period_ns: Option<u64>,
}

impl Schedule {
    /// The level in force at `t` (ns) and when it next changes, if ever.
    pub fn level_at(&self, t: u64) -> (Level, Option<u64>) {
        let (start, phase) = match self.period_ns {
            Some(p) => (t - t % p, t % p),
            None => (0, t),
        };
        let i = self.changes.partition_point(|c| c.at_ns <= phase);
        let level = if i == 0 { self.base } else { self.changes[i - 1].level };
        let next = match (self.changes.get(i), self.period_ns) {
            (Some(c), _) => Some(start + c.at_ns),
            (None, Some(p)) => Some(start + p),
            (None, None) => None,
        };
        (level, next)
    }

    pub fn delay_at(&self, t: u64) -> u64 {
        self.level_at(t).0.delay_ns
    }

    /// When a packet of `bytes` whose transmission starts at `now` (ns) has been sent, its bits
    /// taken at the rate in force as each is sent. Within one level this is the constant link's
    /// rounding of the serialisation time.
    pub fn transmission_end(&self, now: u64, bytes: u32) -> u64 {
        let mut bits = bytes as f64 * 8.0;
        let mut t = now;
        loop {
            let (level, next) = self.level_at(t);
            let end = t + (bits * 1e9 / level.rate_bps).round() as u64;
            match next {
                Some(change) if end > change => {
                    bits -= level.rate_bps * (change - t) as f64 / 1e9;
                    t = change;
                }
                _ => return end,
            }
        }
    }

    /// Bits the link can send from the start to `end` (ns).
    pub fn bits_until(&self, end: u64) -> f64 {
        let (mut t, mut bits) = (0, 0.0);
        while t < end {
            let (level, next) = self.level_at(t);
            let until = next.map_or(end, |n| n.min(end));
            bits += level.rate_bps * (until - t) as f64 / 1e9;
            t = until;
        }
        bits
    }

    /// Whether any change alters the delay (the bottleneck then needs a delay line of its own).
    pub fn varies_delay(&self) -> bool {
        self.changes.iter().any(|c| c.level.delay_ns != self.base.delay_ns)
    }

    /// Whether any change alters the rate.
    pub fn varies_rate(&self) -> bool {
        self.changes.iter().any(|c| c.level.rate_bps != self.base.rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn level(mbps: f64, delay_ms: u64) -> Level {
        Level { rate_bps: mbps * 1e6, delay_ns: delay_ms * MS }
    }

    fn steps() -> Schedule {
        Schedule {
            base: level(10.0, 20),
            changes: vec![
                Change { at_ns: 100 * MS, level: level(5.0, 20) },
                Change { at_ns: 300 * MS, level: level(5.0, 40) },
            ],
            period_ns: None,
        }
    }

    #[test]
    fn levels_follow_the_changes_and_stay_after_the_last() {
        let s = steps();
        assert_eq!(s.level_at(0), (level(10.0, 20), Some(100 * MS)));
        assert_eq!(s.level_at(100 * MS - 1), (level(10.0, 20), Some(100 * MS)));
        assert_eq!(s.level_at(100 * MS), (level(5.0, 20), Some(300 * MS)));
        assert_eq!(s.level_at(10_000 * MS), (level(5.0, 40), None));
        assert!(s.varies_delay() && s.varies_rate());
    }

    #[test]
    fn a_repeating_schedule_returns_to_its_base_every_period() {
        let s = Schedule { period_ns: Some(500 * MS), ..steps() };
        assert_eq!(s.level_at(450 * MS), (level(5.0, 40), Some(500 * MS)));
        assert_eq!(s.level_at(500 * MS), (level(10.0, 20), Some(600 * MS)));
        assert_eq!(s.level_at(1_350 * MS), (level(5.0, 40), Some(1_500 * MS)));
        assert_eq!(s.delay_at(1_299 * MS), 20 * MS);
    }

    #[test]
    fn a_transmission_across_a_rate_change_takes_each_rate_for_its_part() {
        let s = steps();
        // 1500 B = 12 000 bits: 1.2 ms at 10 Mbps, 2.4 ms at 5 Mbps.
        assert_eq!(s.transmission_end(0, 1500), 1_200_000);
        assert_eq!(s.transmission_end(200 * MS, 1500), 200 * MS + 2_400_000);
        // Started 0.6 ms before the change: half the bits at 10 Mbps (0.6 ms), the other 6000 at
        // 5 Mbps (1.2 ms).
        assert_eq!(s.transmission_end(100 * MS - 600_000, 1500), 100 * MS + 1_200_000);
    }

    #[test]
    fn capacity_sums_each_level_over_its_time() {
        // 100 ms at 10 Mbps, then 5 Mbps: 1 Mb + 0.5 Mb by 200 ms.
        assert_eq!(steps().bits_until(200 * MS), 1.5e6);
        let first = steps().changes[..1].to_vec();
        let s = Schedule { changes: first, period_ns: Some(150 * MS), ..steps() };
        // 100 ms at 10, 50 at 5, 100 at 10 (the next period), 50 at 5: 2.5 Mb.
        assert_eq!(s.bits_until(300 * MS), 2.5e6);
    }
}
