//! Start times of the flows one `[[flows]]` entry stands for: periodic (the first at `start`,
//! then every `interval`) or Poisson (exponential gaps of mean `interval` after `start`, so the
//! first flow starts one gap after `start`, as the first arrival of a Poisson process does).
//! An explicit list (`starts`) needs no schedule.

use core::time::Duration;

use rand::Rng;

use super::dist::exponential;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    Periodic,
    Poisson,
}

impl Arrivals {
    pub const NAMES: &'static str = "\"periodic\" or \"poisson\"";

    pub const ALL: [Arrivals; 2] = [Arrivals::Periodic, Arrivals::Poisson];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Arrivals::Periodic => "periodic",
            Arrivals::Poisson => "poisson",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// `count` start times from `start`, spaced by `interval` (periodic) or by exponential gaps of
/// that mean (Poisson).
pub fn start_times(
    arrivals: Arrivals,
    start: Duration,
    interval: Duration,
    count: u32,
    rng: &mut impl Rng,
) -> Vec<Duration> {
    match arrivals {
        Arrivals::Periodic => (0..count).map(|k| start + interval * k).collect(),
        Arrivals::Poisson => {
            let mean = interval.as_secs_f64();
            let mut t = start;
            (0..count)
                .map(|_| {
                    t += Duration::from_secs_f64(exponential(mean, rng));
                    t
                })
                .collect()
        }
    }
}
