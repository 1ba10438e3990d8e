//! A Quick-Start router (RFC 4782 section 3) at the output of a link: it decides the Quick-Start
//! Requests of the SYNs that cross it, approving, reducing or refusing the rate each asks for.
//!
//! The decision follows the RFC's guidance (sections 3.2 and 3.3: approve only when the output
//! link has been underutilized recently, counting the rates approved in that time): the router
//! measures the bytes offered to its link over the last `interval` and keeps the rates it
//! approved within the last `interval`; a request gets at most
//!
//! ```text
//!     spare = threshold x capacity - measured rate - rates approved in the last interval
//! ```
//!
//! rounded down to the option's rate steps. A request that fits is approved as it is; one that
//! does not is reduced to the largest step within the spare rate, and refused (rate code 0)
//! when not even the smallest step (80 kbit/s) fits. An approval counts against the budget for
//! `interval` after it was given.
//!
//! A Quick-Start Request that crosses a bottleneck without this element is refused there: a
//! router that does not take part would leave the option untouched, and the sender's check of
//! the Quick-Start TTL against the IP TTL (section 4.2) would then discard the approval, which
//! comes to the same. The hosts' own interfaces (the access links) take no part in the decision.

use core::time::Duration;

use serde::Serialize;
use tcpstart_cc::quick_start::{code_for_rate, rate_of_code};
use tcpstart_cc::Instant;

/// The measurement window is kept in this many slices: the measured rate is that of the last
/// `interval`, to within a tenth of it.
const SLICES: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QuickStartSpec {
    /// Share of the link's capacity that offered load and approved rates together may take.
    pub threshold: f64,
    /// How far back the router looks at its load, and how long an approval counts against it.
    pub interval: Duration,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QuickStartStats {
    pub requests: u64,
    /// Approved at the rate asked for.
    pub approved: u64,
    /// Approved at a lower rate.
    pub reduced: u64,
    pub refused: u64,
}

pub struct QuickStartRouter {
    spec: QuickStartSpec,
    capacity_bps: f64,
    /// Bytes offered to the link per slice of `interval / SLICES`, as a ring; `slice` is the
    /// number of the current slice since the start of the run.
    bytes: [u64; SLICES],
    slice: u64,
    /// Approvals still counting: when each was given, and its rate in bit/s.
    approvals: Vec<(Instant, f64)>,
    pub stats: QuickStartStats,
}

impl QuickStartRouter {
    pub fn new(spec: QuickStartSpec, capacity_bps: f64) -> Self {
        QuickStartRouter {
            spec,
            capacity_bps,
            bytes: [0; SLICES],
            slice: 0,
            approvals: Vec::new(),
            stats: QuickStartStats::default(),
        }
    }

    pub fn spec(&self) -> QuickStartSpec {
        self.spec
    }

    fn slice_ns(&self) -> u64 {
        (self.spec.interval.as_nanos() as u64 / SLICES as u64).max(1)
    }

    /// Moves the ring on to the slice of `now`, emptying the slices it passes.
    fn advance(&mut self, now: Instant) {
        let current = now.as_nanos() / self.slice_ns();
        let passed = current.saturating_sub(self.slice).min(SLICES as u64);
        for k in 1..=passed {
            self.bytes[((self.slice + k) % SLICES as u64) as usize] = 0;
        }
        self.slice = self.slice.max(current);
    }

    /// A packet of `bytes` is offered to the link.
    pub fn observe(&mut self, now: Instant, bytes: u32) {
        self.advance(now);
        self.bytes[(self.slice % SLICES as u64) as usize] += u64::from(bytes);
    }

    /// The link's offered load, bit/s, at `now` (not before the last packet observed): over
    /// the slices of the last interval, the current one as far as it has gone. Before the
    /// run began the link was idle.
    pub fn measured_bps(&self, now: Instant) -> f64 {
        let slice = self.slice_ns();
        let into_current = now.as_nanos().saturating_sub(self.slice * slice);
        let covered = (SLICES as u64 - 1) * slice + into_current;
        self.bytes.iter().sum::<u64>() as f64 * 8.0 / (covered as f64 * 1e-9)
    }

    /// Decides a request for rate code `asked`: returns the code it leaves in the option.
    pub fn decide(&mut self, now: Instant, asked: u8) -> u8 {
        self.advance(now);
        let interval = self.spec.interval;
        self.approvals.retain(|&(at, _)| now - at < interval);
        let approved: f64 = self.approvals.iter().map(|&(_, r)| r).sum();
        let spare = self.spec.threshold * self.capacity_bps - self.measured_bps(now) - approved;
        let code = code_for_rate(spare).min(asked);
        self.stats.requests += 1;
        match code {
            0 => self.stats.refused += 1,
            c if c == asked => self.stats.approved += 1,
            _ => self.stats.reduced += 1,
        }
        if code > 0 {
            self.approvals.push((now, rate_of_code(code)));
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MBPS: f64 = 1e6;

    fn router() -> QuickStartRouter {
        QuickStartRouter::new(QuickStartSpec { threshold: 0.5, interval: Duration::from_millis(100) }, 100.0 * MBPS)
    }

    fn ms(t: u64) -> Instant {
        Instant::from_nanos(t * 1_000_000)
    }

    #[test]
    fn an_idle_link_approves_what_fits_and_reduces_the_rest() {
        let mut r = router();
        // 50 Mbit/s spare on an idle link: 40 kbit/s x 2^10 = 40.96 Mbit/s fits, 2^11 does not.
        assert_eq!(r.decide(ms(0), 10), 10);
        // 9.04 Mbit/s left: reduced to 40 kbit/s x 2^7 = 5.12 Mbit/s.
        assert_eq!(r.decide(ms(1), 15), 7);
        // 3.92 Mbit/s left: 2^6 = 2.56 Mbit/s.
        assert_eq!(r.decide(ms(2), 6), 6);
        assert_eq!(r.stats, QuickStartStats { requests: 3, approved: 2, reduced: 1, refused: 0 });
    }

    #[test]
    fn approvals_count_against_the_budget_for_one_interval() {
        let mut r = router();
        assert_eq!(r.decide(ms(0), 10), 10);
        assert_eq!(r.decide(ms(99), 10), 7, "still counting at 99 ms");
        // The first approval has lapsed; the second (5.12 Mbit/s) still counts.
        assert_eq!(r.decide(ms(100), 10), 10);
    }

    #[test]
    fn a_loaded_link_refuses() {
        let mut r = router();
        // 49.98 Mbit/s offered: 6 247 B a millisecond, measured at 104.5 ms over the slices
        // 10..20 ms to 100..110 ms as far as they have gone (94.5 ms, 95 packets): below
        // 80 kbit/s spare.
        for t in 0..=104 {
            r.observe(Instant::from_nanos(t * 1_000_000 + 500_000), 6_247);
        }
        let at = Instant::from_nanos(104_500_000);
        let measured = r.measured_bps(at);
        assert!((measured - 95.0 * 6_247.0 * 8.0 / 0.0945).abs() < 1e-6, "{measured}");
        assert_eq!(r.decide(at, 15), 0);
        assert_eq!(r.stats.refused, 1);
        // The load is forgotten after an idle interval.
        assert_eq!(r.decide(ms(250), 10), 10);
        assert_eq!(r.measured_bps(ms(250)), 0.0);
    }
}
