//! StopEG, **reconstructed**: Arghavani, Zhang, Eyers, Arghavani, "StopEG: Detecting when to stop
//! exponential growth in TCP slow-start", IEEE LCN 2020 (the comparator of the ESS paper).
//!
//! What is public (the paper's abstract): StopEG watches changes of the congestion window rather
//! than losses or delay; while the bottleneck is unsaturated the packets in flight on the forward
//! path are at most 56.8 % of all packets in flight, and StopEG stops exponential growth when that
//! share is exceeded. The estimator of the forward-path share and where it is evaluated are not
//! public. This module implements the lab's operationalisation from the research notes
//! (`algorithms.md` section 7), **not the paper's code**:
//!
//! - in ACK-clocked slow start each ACK adds one segment to cwnd and releases two, so the data sent
//!   during the last forward one-way delay, i.e. still on the forward path, is about
//!   `2 x (cwnd(now) - cwnd(now - OWD))` ([`forward_inflight`]);
//! - OWD is `forward_delay x min RTT` (half the minimum RTT by default: one-way delays are not
//!   known to a sender);
//! - on every ACK in slow start, after the usual growth: when that estimate exceeds
//!   `threshold x inflight` (inflight = cwnd, what is in flight once the ACK's releases have left),
//!   exponential growth stops: ssthresh = cwnd and NewReno congestion avoidance follows.
//!
//! The estimator is the single function [`forward_inflight`]; replacing it (or the comparison in
//! [`StopEg::on_ack`]) changes the rule without touching the rest. After the stop, and after any
//! loss or timeout, the window is NewReno's (an embedded [`Reno`]); StopEG judges only the first
//! slow start.

use std::collections::VecDeque;

use crate::controller::CongestionControl;
use crate::events::{AckEvent, CongestionEvent, RtoEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{window_from_reno, Reno, RenoVariant, ABC};
use crate::time::{Duration, Instant};

const THRESHOLD: ParamSpec = ParamSpec {
    name: "threshold",
    default: 0.568,
    min: 0.01,
    max: 1.0,
    integer: false,
    doc: "stop exponential growth when the estimated forward-path share of inflight exceeds this (paper: 0.568)",
};

const FORWARD_DELAY: ParamSpec = ParamSpec {
    name: "forward_delay",
    default: 0.5,
    min: 0.01,
    max: 1.0,
    integer: false,
    doc: "forward one-way delay as a fraction of the minimum RTT (reconstruction; 0.5 = symmetric path)",
};

pub const STOPEG: Registration = Registration {
    info: AlgorithmInfo {
        name: "stopeg",
        summary: "StopEG (reconstruction): NewReno slow start that stops when 2 x cwnd growth over the forward delay exceeds 0.568 x inflight",
        reference: "Arghavani, Zhang, Eyers, Arghavani: StopEG, IEEE LCN 2020 (abstract); rule as in the lab's research notes, section 7",
        params: &[THRESHOLD, FORWARD_DELAY, ABC],
    },
    build: |p, cfg| Box::new(StopEg::from_params(p, cfg)),
    receiver_hook: None,
};

/// The window over time, kept back to one forward delay before the latest ACK.
#[derive(Clone, Debug)]
pub struct CwndHistory {
    /// (time, cwnd after that time), oldest first; never empty.
    samples: VecDeque<(Instant, u64)>,
}

impl CwndHistory {
    pub fn new(initial_cwnd: u64) -> Self {
        CwndHistory { samples: VecDeque::from([(Instant::ZERO, initial_cwnd)]) }
    }

    pub fn record(&mut self, now: Instant, cwnd: u64) {
        self.samples.push_back((now, cwnd));
    }

    /// The window at time `t` (the initial window before the first ACK), dropping the samples no
    /// later query needs: queries only move forward in time and the forward delay never grows (it
    /// follows the minimum RTT).
    pub fn at(&mut self, t: Instant) -> u64 {
        while self.samples.len() > 1 && self.samples[1].0 <= t {
            self.samples.pop_front();
        }
        self.samples[0].1
    }
}

/// Estimated data on the forward path: twice the window growth over the last forward delay.
pub fn forward_inflight(history: &mut CwndHistory, now: Instant, cwnd: u64, owd: Duration) -> u64 {
    let then = Instant::from_nanos(now.as_nanos().saturating_sub(owd.as_nanos() as u64));
    2 * cwnd.saturating_sub(history.at(then))
}

#[derive(Clone, Debug)]
pub struct StopEg {
    reno: Reno,
    threshold: f64,
    forward_delay: f64,
    history: CwndHistory,
    /// Exponential growth still runs under StopEG's watch.
    watching: bool,
}

impl StopEg {
    pub fn new(reno: Reno, threshold: f64, forward_delay: f64) -> Self {
        let history = CwndHistory::new(reno.cwnd());
        StopEg { reno, threshold, forward_delay, history, watching: true }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        StopEg::new(Reno::from_params(RenoVariant::NewReno, p, cfg), p["threshold"], p["forward_delay"])
    }

    /// Whether the stop rule still watches slow start.
    pub fn is_watching(&self) -> bool {
        self.watching
    }
}

impl CongestionControl for StopEg {
    fn name(&self) -> &'static str {
        "stopeg"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.reno.on_ack(ev);
        if !self.watching || ev.bytes_acked == 0 {
            return;
        }
        let cwnd = self.reno.cwnd();
        if let Some(min_rtt) = ev.min_rtt {
            let owd = min_rtt.mul_f64(self.forward_delay);
            let forward = forward_inflight(&mut self.history, ev.now, cwnd, owd);
            if forward as f64 > self.threshold * cwnd as f64 {
                self.watching = false;
                self.reno.set_window(cwnd, cwnd);
                return;
            }
        }
        self.history.record(ev.now, cwnd);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.watching = false;
        self.reno.on_congestion(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.watching = false;
        self.reno.on_rto(ev);
    }

    window_from_reno!(phase_and_recovery_exit);
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn stopeg(threshold: f64) -> StopEg {
        StopEg::new(Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 1), threshold, 0.5)
    }

    fn ack_at(cc: &mut StopEg, ms: u64) {
        cc.on_ack(&AckEvent {
            now: Instant::from_nanos(ms * 1_000_000),
            bytes_acked: MSS,
            min_rtt: Some(Duration::from_millis(100)),
            cwnd_limited: true,
            ..Default::default()
        });
    }

    /// ACKs 1 ms apart after a 100 ms RTT; returns the ACK count at which the rule fired.
    fn stop_after(cc: &mut StopEg) -> Option<u64> {
        (1..=100).find(|&j| {
            ack_at(cc, 100 + j);
            !cc.is_watching()
        })
    }

    #[test]
    fn history_answers_the_window_at_a_past_time() {
        let mut h = CwndHistory::new(10);
        h.record(Instant::from_nanos(100), 11);
        h.record(Instant::from_nanos(200), 12);
        assert_eq!(h.at(Instant::from_nanos(50)), 10);
        assert_eq!(h.at(Instant::from_nanos(150)), 11);
        assert_eq!(h.at(Instant::from_nanos(200)), 12);
        let mut h = CwndHistory::new(10);
        h.record(Instant::from_nanos(100), 11);
        assert_eq!(forward_inflight(&mut h, Instant::from_nanos(120), 13, Duration::from_nanos(50)), 6);
        assert_eq!(forward_inflight(&mut h, Instant::from_nanos(300), 13, Duration::from_nanos(50)), 4);
    }

    #[test]
    fn a_burst_of_acks_stops_growth_when_twice_the_growth_exceeds_0_568_of_cwnd() {
        // Within one forward delay (50 ms) cwnd grows from 10 by one per ACK: after ACK j,
        // 2j > 0.568 (10 + j) first holds for j = 4 (8 > 7.95), cwnd 14 segments.
        let mut cc = stopeg(0.568);
        assert_eq!(stop_after(&mut cc), Some(4));
        assert_eq!((cc.cwnd(), cc.ssthresh()), (14 * MSS, 14 * MSS));
        assert_eq!(cc.phase(), "congestion_avoidance");
        // Congestion avoidance from here: the next ACK adds MSS^2 / cwnd.
        ack_at(&mut cc, 110);
        assert_eq!(cc.cwnd(), 14 * MSS + MSS / 14);
    }

    #[test]
    fn threshold_parameter_moves_the_stop() {
        // 2j > 0.9 (10 + j) first holds for j = 9.
        let mut cc = stopeg(0.9);
        assert_eq!(stop_after(&mut cc), Some(9));
        assert_eq!(cc.cwnd(), 19 * MSS);
    }

    #[test]
    fn growth_spread_over_more_than_a_forward_delay_does_not_stop() {
        let mut cc = stopeg(0.568);
        // One ACK every 60 ms: each check sees one segment of growth within the last 50 ms.
        for j in 1..=40 {
            ack_at(&mut cc, 100 + 60 * j);
        }
        assert!(cc.is_watching());
        assert_eq!(cc.cwnd(), 50 * MSS);
        assert_eq!(cc.phase(), "slow_start");
    }

    #[test]
    fn loss_and_timeout_end_the_watch_with_newreno_responses() {
        let mut cc = stopeg(0.568);
        cc.on_congestion(&CongestionEvent { flight_size: 10 * MSS, ..Default::default() });
        assert!(!cc.is_watching());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (5 * MSS, 5 * MSS));
        let mut cc = stopeg(0.568);
        cc.on_rto(&RtoEvent { flight_size: 10 * MSS, consecutive: 1, ..Default::default() });
        assert!(!cc.is_watching());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 5 * MSS));
    }
}
