//! StopEG, **reconstructed**: Arghavani, Zhang, Eyers, Arghavani, "StopEG: Detecting when to stop
//! exponential growth in TCP slow-start", IEEE LCN 2020 (the comparator of the ESS paper).
//!
//! What is public (the paper's abstract): StopEG watches the data in flight on the forward path
//! rather than losses or delay; its theory puts the forward-path share of inflight at 56.8 % as
//! the boundary between an unsaturated and a saturated bottleneck. The estimator, where it is
//! evaluated and the direction of the test are not public. This module is the lab's
//! operationalisation (derivation in docs/algorithms/stopeg.md), **not the paper's code**:
//!
//! - forward-path data ≈ the bytes sent during the last forward one-way delay
//!   (`OWD = forward_delay x min RTT`; one-way delays are unknown to a sender, so half the minimum
//!   RTT by default), counting the segments the current ACK releases ([`forward_share`]);
//! - in a fluid model of ACK-clocked slow start growing by `g` per RTT on an unsaturated path
//!   that share is `sqrt(g) / (1 + sqrt(g))` ([`unsaturated_share`]: 0.586 for doubling, 0.550
//!   for the 1.5x of delayed ACKs); once the bottleneck paces the ACK clock, the data sent per
//!   forward delay stops growing while inflight keeps growing, and the share falls toward and
//!   below 0.5;
//! - per-ACK shares swing between 0 and 1 inside an ACK train, so they are averaged over one
//!   round (the ACKs of one window of data); at the end of each round, with `g` the round's
//!   window growth, exponential growth stops when the mean falls below
//!   `threshold x unsaturated_share(g) / unsaturated_share(2)` (the abstract's 0.568 for doubling,
//!   scaled for slower growth): ssthresh = cwnd and NewReno congestion avoidance follows.
//!
//! State machine: `slow_start` (watching) -> `congestion_avoidance` on the stop; a loss or a
//! timeout before it gets NewReno's response and ends the watch. After the stop everything is
//! NewReno (an embedded [`Reno`]); StopEG judges only the first slow start.
//!
//! The estimator is the function [`forward_share`] over a [`SentWindow`]; the per-round mean and
//! the comparison live in [`RoundMean`] and [`StopEg::on_ack`]. Replacing either changes the rule
//! without touching the rest.

use std::collections::VecDeque;

use crate::controller::CongestionControl;
use crate::events::{AckEvent, CongestionEvent, RtoEvent, SentEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{window_from_reno, Reno, RenoVariant, ABC};
use crate::time::{Duration, Instant};

const THRESHOLD: ParamSpec = ParamSpec {
    name: "threshold",
    default: 0.568,
    min: 0.01,
    max: 1.0,
    integer: false,
    doc: "stop exponential growth when the per-round mean forward-path share of inflight falls below this (paper: 0.568; for doubling growth, scaled for slower growth)",
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
        summary: "StopEG (reconstruction): NewReno slow start that stops when the per-round forward-path share of inflight falls below 0.568",
        reference: "Arghavani, Zhang, Eyers, Arghavani: StopEG, IEEE LCN 2020 (abstract); rule derived in docs/algorithms/stopeg.md",
        params: &[THRESHOLD, FORWARD_DELAY, ABC],
    },
    build: |p, cfg| Box::new(StopEg::from_params(p, cfg)),
    receiver_hook: None,
};

/// The fluid model's forward-path share of inflight for slow start growing by `growth` per RTT on
/// an unsaturated path with a symmetric delay: the data sent in the last half RTT over the data
/// sent in the last RTT, `(1 - g^-1/2) / (1 - g^-1) = sqrt(g) / (1 + sqrt(g))`.
pub fn unsaturated_share(growth: f64) -> f64 {
    growth.sqrt() / (1.0 + growth.sqrt())
}

/// Bytes sent over time, kept back to one forward delay.
#[derive(Clone, Debug, Default)]
pub struct SentWindow {
    /// (send time, bytes), oldest first.
    sends: VecDeque<(Instant, u64)>,
    /// Sum of the bytes in `sends`.
    bytes: u64,
}

impl SentWindow {
    pub fn record(&mut self, now: Instant, bytes: u64) {
        self.sends.push_back((now, bytes));
        self.bytes += bytes;
    }

    /// Bytes sent after `now - window`, forgetting older sends: queries only move forward in time
    /// and the window never grows (it follows the minimum RTT).
    pub fn sent_within(&mut self, now: Instant, window: Duration) -> u64 {
        while let Some(&(t, b)) = self.sends.front() {
            if now - t < window {
                break;
            }
            self.sends.pop_front();
            self.bytes -= b;
        }
        self.bytes
    }
}

/// Estimated forward-path share of inflight right after an ACK: the bytes sent within the last
/// forward delay plus those this ACK releases, over inflight plus those releases.
pub fn forward_share(sent_within_owd: u64, releases: u64, in_flight: u64) -> f64 {
    let total = in_flight + releases;
    if total == 0 {
        return 0.0;
    }
    ((sent_within_owd + releases) as f64 / total as f64).min(1.0)
}

/// The mean of per-ACK samples over one round: the ACKs up to the one covering `end`.
#[derive(Clone, Debug)]
pub struct RoundMean {
    /// Sequence number whose acknowledgment closes the round.
    end: u64,
    /// cwnd when the round began.
    start_cwnd: u64,
    sum: f64,
    count: u32,
}

/// A finished round: mean share and the window growth over it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Round {
    pub mean_share: f64,
    pub growth: f64,
}

impl RoundMean {
    /// A round that ends when `end` is acknowledged, begun with window `start_cwnd`.
    pub fn open(end: u64, start_cwnd: u64) -> Self {
        RoundMean { end, start_cwnd, sum: 0.0, count: 0 }
    }

    pub fn end(&self) -> u64 {
        self.end
    }

    pub fn add(&mut self, sample: f64) {
        self.sum += sample;
        self.count += 1;
    }

    /// Ends this round with window `cwnd` and opens the next, which ends when `next_end` is
    /// acknowledged. `None` when the round had no sample.
    pub fn close(&mut self, next_end: u64, cwnd: u64) -> Option<Round> {
        let round = (self.count > 0).then(|| Round {
            mean_share: self.sum / f64::from(self.count),
            growth: cwnd as f64 / self.start_cwnd as f64,
        });
        *self = RoundMean::open(next_end, cwnd);
        round
    }
}

#[derive(Clone, Debug)]
pub struct StopEg {
    reno: Reno,
    threshold: f64,
    forward_delay: f64,
    sent: SentWindow,
    /// The round being measured; `None` before the first ACK.
    round: Option<RoundMean>,
    /// Exponential growth still runs under StopEG's watch.
    watching: bool,
}

impl StopEg {
    pub fn new(reno: Reno, threshold: f64, forward_delay: f64) -> Self {
        StopEg { reno, threshold, forward_delay, sent: SentWindow::default(), round: None, watching: true }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        StopEg::new(Reno::from_params(RenoVariant::NewReno, p, cfg), p["threshold"], p["forward_delay"])
    }

    /// Whether the stop rule still watches slow start.
    pub fn is_watching(&self) -> bool {
        self.watching
    }

    /// The mean share below which a round with window growth `growth` stops slow start.
    pub fn stop_below(&self, growth: f64) -> f64 {
        self.threshold * unsaturated_share(growth) / unsaturated_share(2.0)
    }
}

impl CongestionControl for StopEg {
    fn name(&self) -> &'static str {
        "stopeg"
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        if self.watching {
            self.sent.record(ev.now, u64::from(ev.len));
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let cwnd_before = self.reno.state().cwnd;
        self.reno.on_ack(ev);
        if !self.watching {
            return;
        }
        if !self.reno.state().in_slow_start {
            // Slow start ended by itself (a configured ssthresh): nothing left to judge.
            self.watching = false;
            return;
        }
        let (Some(min_rtt), true, false) = (ev.min_rtt, ev.bytes_acked > 0, ev.in_recovery) else {
            return;
        };
        let cwnd = self.reno.state().cwnd;
        let releases = cwnd.saturating_sub(ev.bytes_in_flight);
        let sent = self.sent.sent_within(ev.now, min_rtt.mul_f64(self.forward_delay));
        let sample = forward_share(sent, releases, ev.bytes_in_flight);
        // The first ACK opens the initial window's round: it ends with the data already sent and
        // starts from the window before this ACK's growth.
        let round = self.round.get_or_insert_with(|| RoundMean::open(ev.snd_nxt, cwnd_before));
        let end = round.end();
        let closed = if ev.snd_una > end {
            // This ACK also covers data sent in response to the round's ACKs (a delayed ACK pairs
            // the round's last segment with the next round's first): it opens the next round,
            // whose data is what was sent before it.
            let closed = round.close(ev.snd_nxt, cwnd_before);
            round.add(sample);
            closed
        } else {
            round.add(sample);
            // The round's last ACK: the next round ends with the data its releases complete.
            (ev.snd_una == end).then(|| round.close(ev.snd_una + cwnd.max(ev.bytes_in_flight), cwnd)).flatten()
        };
        let Some(round) = closed else {
            return;
        };
        // No growth over the round (application-limited) says nothing about the path.
        if round.growth > 1.0 && round.mean_share < self.stop_below(round.growth.min(2.0)) {
            self.watching = false;
            self.reno.set_window(cwnd, cwnd);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.watching = false;
        self.reno.on_congestion(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.watching = false;
        self.reno.on_rto(ev);
    }

    window_from_reno!(state_and_recovery_exit);
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const RTT_MS: u64 = 100;

    fn stopeg(threshold: f64) -> StopEg {
        StopEg::new(Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 1), threshold, 0.5)
    }

    fn at_us(us: u64) -> Instant {
        Instant::from_nanos(us * 1_000)
    }

    /// A fake ACK-clocked bulk sender over a path with base RTT 100 ms whose bottleneck serves one
    /// segment per `slot_us` (infinite queue): segment i's ACK leaves the path at
    /// max(sent + RTT, previous segment's + slot). The receiver acknowledges every `ack_every`-th
    /// segment. Runs `acks` ACKs, or until the rule stops; returns the ACKs processed.
    fn drive(cc: &mut StopEg, slot_us: u64, ack_every: u64, acks: usize) -> usize {
        let rtt = Duration::from_millis(RTT_MS);
        let (mut snd_una, mut snd_nxt, mut last_departure) = (0u64, 0u64, 0u64);
        let mut pending = VecDeque::new(); // (arrival in µs, acknowledged up to)
        let mut send = |cc: &mut StopEg, now: u64, snd_nxt: &mut u64, pending: &mut VecDeque<(u64, u64)>| {
            cc.on_sent(&SentEvent { now: at_us(now), seq: *snd_nxt, len: MSS as u32, ..Default::default() });
            *snd_nxt += MSS;
            last_departure = (now + RTT_MS * 1000).max(last_departure + slot_us);
            if (*snd_nxt / MSS).is_multiple_of(ack_every) {
                pending.push_back((last_departure, *snd_nxt));
            }
        };
        while snd_nxt < cc.state().cwnd {
            send(cc, 0, &mut snd_nxt, &mut pending);
        }
        for n in 0..acks {
            let Some((now, acked_to)) = pending.pop_front() else { return n };
            let prior_in_flight = snd_nxt - snd_una;
            let bytes_acked = acked_to - snd_una;
            snd_una = acked_to;
            cc.on_ack(&AckEvent {
                now: at_us(now),
                bytes_acked,
                min_rtt: Some(rtt),
                prior_in_flight,
                bytes_in_flight: snd_nxt - snd_una,
                cwnd_limited: true,
                snd_una,
                snd_nxt,
                ..Default::default()
            });
            if !cc.is_watching() {
                return n + 1;
            }
            while snd_nxt - snd_una < cc.state().cwnd {
                send(cc, now, &mut snd_nxt, &mut pending);
            }
        }
        acks
    }

    #[test]
    fn fluid_model_shares() {
        // sqrt(2) / (1 + sqrt(2)) and sqrt(1.5) / (1 + sqrt(1.5)), by hand.
        assert!((unsaturated_share(2.0) - 0.585_786).abs() < 1e-6);
        assert!((unsaturated_share(1.5) - 0.550_510).abs() < 1e-6);
        let cc = stopeg(0.568);
        assert!((cc.stop_below(2.0) - 0.568).abs() < 1e-12);
        // 0.568 x 0.550510 / 0.585786 = 0.53379.
        assert!((cc.stop_below(1.5) - 0.533_79).abs() < 1e-5);
    }

    #[test]
    fn sent_window_counts_the_last_forward_delay_and_share_adds_the_releases() {
        let mut w = SentWindow::default();
        w.record(at_us(0), 1000);
        w.record(at_us(30), 500);
        w.record(at_us(60), 200);
        assert_eq!(w.sent_within(at_us(70), Duration::from_micros(50)), 700);
        // The 30 µs send is now exactly one window old: outside the half-open window.
        assert_eq!(w.sent_within(at_us(80), Duration::from_micros(50)), 200);
        assert_eq!(w.sent_within(at_us(80), Duration::from_micros(20)), 0);
        // 3 sent in the window + 2 released, over 8 in flight + 2 released.
        assert_eq!(forward_share(3, 2, 8), 0.5);
        assert_eq!(forward_share(0, 0, 0), 0.0);
    }

    #[test]
    fn short_ack_trains_never_stop_doubling() {
        // A 10 µs slot: a window of 320 segments passes the bottleneck in 3.2 ms, far inside the
        // 50 ms forward delay; per-round means are 2 sum_j j/(W + j) / W = 0.662, 0.638, ... > 0.568.
        let mut cc = stopeg(0.568);
        assert_eq!(drive(&mut cc, 10, 1, 10 + 20 + 40 + 80 + 160), 310);
        assert!(cc.is_watching());
        assert_eq!(cc.state().cwnd, 320 * MSS);
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn delayed_acks_growth_is_not_mistaken_for_saturation() {
        // One ACK per two segments adds one segment (RFC 5681 counting): 1.5x per round, whose
        // unsaturated means sit near 0.567, under 0.568 but above the scaled 0.534.
        let mut cc = stopeg(0.568);
        drive(&mut cc, 10, 2, 400);
        assert!(cc.is_watching(), "stopped at cwnd {}", cc.state().cwnd / MSS);
        assert_eq!(cc.state().cwnd, 410 * MSS);
    }

    #[test]
    fn a_saturated_ack_clock_stops_growth_near_the_bdp() {
        // A 1 ms slot: BDP = 100 segments. The trains of 10, 20 and 40 ACKs fit in the 50 ms
        // forward delay (means 0.662, 0.638, 0.626). The 80-ACK train does not: after ACK j the
        // last 50 ms hold 2 min(j, 50) segments of 80 + j in flight, mean 0.542 < 0.568, so slow
        // start ends with that round, at cwnd = 160 segments.
        let mut cc = stopeg(0.568);
        assert_eq!(drive(&mut cc, 1000, 1, 1000), 150);
        assert!(!cc.is_watching());
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (160 * MSS, 160 * MSS));
        assert_eq!(cc.state().phase, "congestion_avoidance");
        // Congestion avoidance from here: the next ACK adds MSS^2 / cwnd.
        cc.on_ack(&AckEvent { now: at_us(500_000), bytes_acked: MSS, cwnd_limited: true, ..Default::default() });
        assert_eq!(cc.state().cwnd, 160 * MSS + MSS / 160);
    }

    #[test]
    fn threshold_parameter_moves_the_stop() {
        // 0.63 is above the 40-ACK round's mean 0.626 (and under the 20-ACK round's 0.638):
        // the stop comes one round earlier, at 80 segments.
        let mut cc = stopeg(0.63);
        assert_eq!(drive(&mut cc, 1000, 1, 1000), 70);
        assert_eq!(cc.state().ssthresh, 80 * MSS);
    }

    #[test]
    fn loss_and_timeout_end_the_watch_with_newreno_responses() {
        let mut cc = stopeg(0.568);
        cc.on_congestion(&CongestionEvent { flight_size: 10 * MSS, ..Default::default() });
        assert!(!cc.is_watching());
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (5 * MSS, 5 * MSS));
        let mut cc = stopeg(0.568);
        cc.on_rto(&RtoEvent { flight_size: 10 * MSS, consecutive: 1, ..Default::default() });
        assert!(!cc.is_watching());
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 5 * MSS));
    }
}
