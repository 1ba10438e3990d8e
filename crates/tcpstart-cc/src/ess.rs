//! Enhanced Slow-Start (ESS): Wang, Ni, Zhu, Wang, "Enhanced slow-start (ESS): improving bandwidth
//! utilization by estimating bandwidth delay product", ICIC Express Letters / IJICIC 2021,
//! sections 3.2-3.5. After slow start, AIMD congestion avoidance (the paper's section 4 uses
//! AIMD; here NewReno, an embedded [`Reno`]).
//!
//! Calculation cycles (section 3.2): the first data packet sent after the first ACK is the
//! *selected* packet; its round trip is one cycle. When its ACK arrives the cycle ends and the next
//! packet sent is the next selected packet, so cycles follow each other back to back.
//!
//! Estimate (section 3.3, equations 2 and 5), for a cycle that starts when the selected packet `e`
//! leaves (time 0) and ends when its ACK arrives (time `t2`, the RTT of `e`):
//! - the ACKs that arrive inside the cycle before `e`'s own acknowledge the rest of the previous
//!   round's burst (packets `b`, `c`, `d` of the paper's Figure 3); the last of them arrives at
//!   `t2 - t1`, so `t1` is the quiet time between the end of that ACK train and `e`'s ACK;
//! - `d1` is all data acknowledged in the cycle (`b + c + d + e`) and `d2` the data of `e`'s ACK,
//!   so `d1 - d2` is what the ACK train delivered in `t2 - t1`;
//! - `B = (d1 - d2) / (t2 - t1)` (bottleneck rate from the train's dispersion) and
//!   `cwnd_max = B x t2`, an upper bound of the optimal window (`k x t2 = rtt_min`, `k <= 1`).
//!
//! State machine:
//! - `slow_start`: cwnd += 1 segment per ACK (Reno's slow start, limit `abc`). At each cycle end:
//!   `t2 > rtt_limit x min RTT` -> exit (section 3.4: a too large sample would give a window far
//!   beyond the optimum); otherwise, when an estimate exists, `cwnd >= cwnd_max` -> exit, else
//!   cwnd = max(cwnd, cwnd_max) = cwnd_max and a new cycle starts.
//! - exit: ssthresh = cwnd and Reno's congestion avoidance takes over (ESS keeps no ssthresh of its
//!   own; setting it to cwnd is how the hand-over to AIMD is expressed).
//! - a congestion event (duplicate ACKs / SACK) or a timeout ends ESS at once with Reno's response;
//!   later slow starts (after a timeout) are standard ones, up to Reno's ssthresh.
//!
//! A cycle whose ACK train is empty (no ACK between the cycle's start and `e`'s ACK, e.g. an
//! initial window of one ACK's worth) gives no estimate; only the RTT limit is checked then.
//!
//! Pacing (`pacing_ss_ratio`, off by default: the paper names none) follows ns-3's socket pacing
//! (`TcpSocketBase::UpdatePacingRate` with `EnablePacing`), the paper's simulator: the rate is
//! `ratio x max(cwnd, bytes in flight) / latest RTT sample`, with `pacing_ss_ratio` while
//! `cwnd < ssthresh / 2` and 1.2 after (ns-3's `PacingSsRatio` 200 % and `PacingCaRatio` 120 %,
//! Linux's too), for the whole connection; nothing is paced before the first RTT sample
//! (`PaceInitialWindow` off).

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::hystart::PACING_CA_RATIO;
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{window_from_reno, Reno, RenoVariant, ABC};
use crate::time::{Duration, Instant};

const RTT_LIMIT: ParamSpec = ParamSpec {
    name: "rtt_limit",
    default: 2.0,
    min: 1.0,
    max: 100.0,
    integer: false,
    doc: "leave slow start when the selected packet's RTT t2 exceeds this multiple of the minimum RTT (paper: 2, i.e. k >= 0.5)",
};

const PACING_SS_RATIO: ParamSpec = ParamSpec {
    name: "pacing_ss_ratio",
    default: 0.0,
    min: 0.0,
    max: 10.0,
    integer: false,
    doc: "0 = unpaced (the paper names no pacing); otherwise pace at this multiple of max(cwnd, inflight) / latest RTT while cwnd < ssthresh / 2, and at 1.2x after (ns-3's EnablePacing: 2)",
};

pub const ESS: Registration = Registration {
    info: AlgorithmInfo {
        name: "ess",
        summary: "Enhanced Slow-Start: per-cycle BDP estimate cwnd_max = B x t2 from ACK-train dispersion; jumps to it, exits when cwnd >= cwnd_max or t2 > 2 min RTT; NewReno AIMD after",
        reference: "Wang, Ni, Zhu, Wang: Enhanced Slow-Start (ESS), 2021, sections 3.2-3.5",
        params: &[RTT_LIMIT, PACING_SS_RATIO, ABC],
    },
    build: |p, cfg| Box::new(Ess::from_params(p, cfg)),
    receiver_hook: None,
};

/// Estimates above this many bytes come from degenerate timings (a train of nanoseconds) and are
/// capped so the window stays finite.
const MAX_ESTIMATE: f64 = (u64::MAX / 4) as f64;

/// One calculation cycle: the round trip of a selected packet.
#[derive(Clone, Copy, Debug)]
struct Cycle {
    /// The selected packet is acknowledged when SND.UNA reaches this sequence number.
    end_seq: u64,
    /// When the selected packet left (time 0 of the cycle).
    start: Instant,
    /// `d1 - d2`: bytes acknowledged in the cycle before the selected packet's ACK.
    train_bytes: u64,
    /// Arrival of the last ACK of that train (`t2 - t1` after `start`).
    train_end: Option<Instant>,
}

/// What a finished cycle measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CycleEstimate {
    /// RTT of the selected packet.
    pub t2: Duration,
    /// `B` in bytes per second, when the cycle had an ACK train.
    pub rate: Option<f64>,
    /// `cwnd_max = B x t2` in bytes.
    pub cwnd_max: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Selection {
    /// No ACK yet: the first cycle starts after the first ACK.
    BeforeFirstAck,
    /// The next new data segment sent becomes the selected packet.
    Next,
    Running,
    /// ESS has ended (congestion, RTT limit, or cwnd >= cwnd_max).
    Done,
}

#[derive(Clone, Debug)]
pub struct Ess {
    reno: Reno,
    rtt_limit: f64,
    selection: Selection,
    cycle: Option<Cycle>,
    last_estimate: Option<CycleEstimate>,
    /// 0 = unpaced.
    pacing_ss_ratio: f64,
    /// The latest RTT sample and the bytes in flight after the latest ACK, for the pacing rate.
    last_rtt: Option<Duration>,
    in_flight: u64,
}

impl Ess {
    pub fn new(reno: Reno, rtt_limit: f64) -> Self {
        Ess {
            reno,
            rtt_limit,
            selection: Selection::BeforeFirstAck,
            cycle: None,
            last_estimate: None,
            pacing_ss_ratio: 0.0,
            last_rtt: None,
            in_flight: 0,
        }
    }

    /// Paced as ns-3 paces a socket, at `ratio` in slow start (0: unpaced).
    pub fn paced(self, ratio: f64) -> Self {
        Ess { pacing_ss_ratio: ratio, ..self }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        Ess::new(Reno::from_params(RenoVariant::NewReno, p, cfg), p["rtt_limit"]).paced(p["pacing_ss_ratio"])
    }

    /// ns-3's `UpdatePacingRate`, in payload bytes per second.
    fn pacing_rate(&self, cwnd: u64, ssthresh: u64) -> Option<f64> {
        let rtt = self.last_rtt.filter(|r| !r.is_zero() && self.pacing_ss_ratio > 0.0)?;
        let ratio = if cwnd < ssthresh / 2 { self.pacing_ss_ratio } else { PACING_CA_RATIO as f64 / 100.0 };
        Some(ratio * cwnd.max(self.in_flight) as f64 / rtt.as_secs_f64())
    }

    /// The estimate of the last finished cycle, for tests and traces.
    pub fn last_estimate(&self) -> Option<CycleEstimate> {
        self.last_estimate
    }

    /// Whether ESS still governs the window (it has not exited slow start).
    pub fn is_active(&self) -> bool {
        self.selection != Selection::Done
    }

    /// ESS is over; the window is NewReno's from now on.
    fn stop(&mut self) {
        self.selection = Selection::Done;
        self.cycle = None;
    }

    /// Leaves slow start with the current window.
    fn exit(&mut self) {
        self.stop();
        let cwnd = self.reno.state().cwnd;
        self.reno.set_window(cwnd, cwnd);
    }

    /// Equations 2 and 5 over a finished cycle.
    fn estimate(c: &Cycle, now: Instant) -> CycleEstimate {
        let t2 = now - c.start;
        let rate = c
            .train_end
            .map(|end| end - c.start)
            .filter(|span| !span.is_zero() && c.train_bytes > 0)
            .map(|span| c.train_bytes as f64 / span.as_secs_f64());
        let cwnd_max = rate.map(|b| (b * t2.as_secs_f64()).min(MAX_ESTIMATE) as u64);
        CycleEstimate { t2, rate, cwnd_max }
    }

    fn end_cycle(&mut self, c: Cycle, ev: &AckEvent) {
        let est = Self::estimate(&c, ev.now);
        self.last_estimate = Some(est);
        let too_slow = ev.min_rtt.is_some_and(|m| est.t2.as_secs_f64() > self.rtt_limit * m.as_secs_f64());
        match est.cwnd_max {
            _ if too_slow => self.exit(),
            Some(max) if self.reno.state().cwnd >= max => self.exit(),
            Some(max) => {
                self.reno.set_window(max, self.reno.state().ssthresh);
                self.selection = Selection::Next;
            }
            None => self.selection = Selection::Next,
        }
    }
}

impl CongestionControl for Ess {
    fn name(&self) -> &'static str {
        "ess"
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        if self.selection == Selection::Next && !ev.is_retransmission {
            self.selection = Selection::Running;
            self.cycle =
                Some(Cycle { end_seq: ev.seq + ev.len as u64, start: ev.now, train_bytes: 0, train_end: None });
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        // Exponential growth is kept during ESS (section 3.4): the per-ACK increase comes first, the
        // cycle end then compares the grown window with cwnd_max.
        self.reno.on_ack(ev);
        self.last_rtt = ev.rtt_sample.or(self.last_rtt);
        self.in_flight = ev.bytes_in_flight;
        if ev.bytes_acked == 0 {
            return;
        }
        match self.selection {
            Selection::BeforeFirstAck => self.selection = Selection::Next,
            Selection::Running => {
                let Some(mut c) = self.cycle else { return };
                if ev.snd_una >= c.end_seq {
                    self.cycle = None;
                    self.end_cycle(c, ev);
                } else {
                    c.train_bytes += ev.bytes_acked;
                    c.train_end = Some(ev.now);
                    self.cycle = Some(c);
                }
            }
            Selection::Next | Selection::Done => {}
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.stop();
        self.reno.on_congestion(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.stop();
        self.reno.on_rto(ev);
    }

    fn state(&self) -> CcState {
        let s = self.reno.state();
        CcState { pacing_rate: self.pacing_rate(s.cwnd, s.ssthresh), ..s }
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.reno.on_recovery_exit(ev);
    }

    window_from_reno!();
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ess(iw: u64) -> Ess {
        Ess::new(Reno::new(RenoVariant::NewReno, MSS, iw * MSS, u64::MAX, 1), 2.0)
    }

    fn ms(v: f64) -> Instant {
        Instant::from_nanos((v * 1e6) as u64)
    }

    fn sent(cc: &mut Ess, at: f64, seq: u64) {
        cc.on_sent(&SentEvent { now: ms(at), seq, len: MSS as u32, ..Default::default() });
    }

    fn ack(cc: &mut Ess, at: f64, snd_una: u64, bytes: u64, min_rtt_ms: u64) {
        cc.on_ack(&AckEvent {
            now: ms(at),
            bytes_acked: bytes,
            snd_una,
            min_rtt: Some(Duration::from_millis(min_rtt_ms)),
            cwnd_limited: true,
            ..Default::default()
        });
    }

    /// Figure 3 by hand: IW 4 (a, b, c, d) at t = 0; a's ACK at 100 ms selects e (seq 4000);
    /// b, c, d are acknowledged 1 ms apart, e's ACK arrives at 202 ms.
    fn figure3(cc: &mut Ess, min_rtt_ms: u64) {
        ack(cc, 100.0, 1000, MSS, min_rtt_ms);
        sent(cc, 100.0, 4000);
        for (i, t) in [101.0, 102.0, 103.0].into_iter().enumerate() {
            ack(cc, t, 2000 + 1000 * i as u64, MSS, min_rtt_ms);
        }
        ack(cc, 202.0, 5000, MSS, min_rtt_ms);
    }

    #[test]
    fn cycle_estimate_follows_equations_2_and_5() {
        let mut cc = ess(4);
        figure3(&mut cc, 100);
        // d1 - d2 = 3000 bytes over t2 - t1 = 3 ms -> B = 1e6 B/s; t2 = 102 ms -> cwnd_max = 102 000 B.
        let est = cc.last_estimate().unwrap();
        assert_eq!(est.t2, Duration::from_millis(102));
        assert!((est.rate.unwrap() - 1.0e6).abs() < 1e-3, "{est:?}");
        assert_eq!(est.cwnd_max, Some(102_000));
        // Five ACKs of slow start took cwnd to 9 segments; the cycle end raises it to cwnd_max.
        assert_eq!(cc.state().cwnd, 102_000);
        assert!(cc.is_active());
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn the_next_packet_after_a_cycle_end_starts_the_next_cycle() {
        let mut cc = ess(4);
        figure3(&mut cc, 100);
        // Packet 9000 leaves after e's ACK: it is the second selected packet. The packets sent
        // before it are acknowledged by a train of 2 ACKs, 10 ms long, then its own ACK arrives at
        // 302 ms: B = 2000 / 0.01 = 200 000 B/s, cwnd_max = 20 000 B (t2 = 100 ms) <= cwnd -> exit
        // with cwnd kept (102 000 B plus the growth of the three ACKs).
        sent(&mut cc, 202.0, 9000);
        ack(&mut cc, 207.0, 6000, MSS, 100);
        ack(&mut cc, 212.0, 7000, MSS, 100);
        ack(&mut cc, 302.0, 10_000, 3 * MSS, 100);
        assert_eq!(cc.last_estimate().unwrap().cwnd_max, Some(20_000));
        assert!(!cc.is_active());
        assert_eq!(cc.state().cwnd, 105_000);
        assert_eq!(cc.state().ssthresh, 105_000);
        assert_eq!(cc.state().phase, "congestion_avoidance");
    }

    #[test]
    fn a_cycle_longer_than_twice_the_minimum_rtt_exits_without_using_the_estimate() {
        let mut cc = ess(4);
        // Same cycle, but the minimum RTT is 50 ms: t2 = 102 ms > 2 x 50 ms.
        figure3(&mut cc, 50);
        assert!(!cc.is_active());
        // cwnd is the exponential growth only: 4 + 5 ACKs.
        assert_eq!(cc.state().cwnd, 9 * MSS);
        assert_eq!(cc.state().ssthresh, 9 * MSS);
        // Exactly twice the minimum RTT is still allowed (the rule is "greater than").
        let mut at_limit = ess(4);
        figure3(&mut at_limit, 51);
        assert!(at_limit.is_active());
    }

    #[test]
    fn rtt_limit_parameter_moves_the_exit() {
        let mut loose = Ess::new(Reno::new(RenoVariant::NewReno, MSS, 4 * MSS, u64::MAX, 1), 3.0);
        figure3(&mut loose, 50);
        assert!(loose.is_active(), "102 ms < 3 x 50 ms");
    }

    #[test]
    fn a_cycle_without_an_ack_train_gives_no_estimate_and_keeps_slow_start() {
        let mut cc = ess(2);
        ack(&mut cc, 100.0, 2000, 2 * MSS, 100);
        sent(&mut cc, 100.0, 2000);
        ack(&mut cc, 201.0, 3000, MSS, 100);
        let est = cc.last_estimate().unwrap();
        assert_eq!((est.rate, est.cwnd_max), (None, None));
        assert!(cc.is_active());
        assert_eq!(cc.state().cwnd, 4 * MSS);
    }

    #[test]
    fn the_first_packet_selected_is_the_one_sent_after_the_first_ack() {
        let mut cc = ess(4);
        // Packets sent before any ACK (the initial window) are never selected.
        sent(&mut cc, 0.0, 0);
        ack(&mut cc, 100.0, 1000, MSS, 100);
        assert!(cc.cycle.is_none());
        // A retransmission is not selected either; the next new segment is.
        cc.on_sent(&SentEvent {
            now: ms(100.0),
            seq: 0,
            len: MSS as u32,
            is_retransmission: true,
            ..Default::default()
        });
        assert!(cc.cycle.is_none());
        sent(&mut cc, 100.0, 4000);
        assert_eq!(cc.cycle.unwrap().end_seq, 5000);
    }

    #[test]
    fn congestion_ends_ess_with_the_newreno_response() {
        let mut cc = ess(4);
        figure3(&mut cc, 100);
        cc.on_congestion(&CongestionEvent { flight_size: 40 * MSS, ..Default::default() });
        assert!(!cc.is_active());
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (20 * MSS, 20 * MSS));
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        assert_eq!(cc.state().phase, "congestion_avoidance");
        // A later cycle-like ACK pattern changes nothing: ESS is over.
        sent(&mut cc, 300.0, 50_000);
        ack(&mut cc, 400.0, 51_000, MSS, 100);
        assert!(cc.state().cwnd <= 20 * MSS + MSS);
    }

    /// An ACK of no new data carrying an RTT sample and the bytes in flight after it.
    fn rtt_ack(cc: &mut Ess, at: f64, rtt_ms: u64, in_flight: u64) {
        cc.on_ack(&AckEvent {
            now: ms(at),
            rtt_sample: Some(Duration::from_millis(rtt_ms)),
            bytes_in_flight: in_flight,
            ..Default::default()
        });
    }

    #[test]
    fn unpaced_by_default_even_with_rtt_samples() {
        let mut cc = ess(4);
        figure3(&mut cc, 100);
        rtt_ack(&mut cc, 203.0, 100, 50_000);
        assert_eq!(cc.state().pacing_rate, None);
    }

    #[test]
    fn paced_as_ns3_paces_a_socket() {
        let mut cc = ess(4).paced(2.0);
        // No RTT sample yet: the initial window and the jump of this cycle are not paced.
        figure3(&mut cc, 100);
        assert_eq!(cc.state().cwnd, 102_000);
        assert_eq!(cc.state().pacing_rate, None);
        // Slow start (ssthresh infinite): 2 x max(cwnd, in flight) / 100 ms.
        rtt_ack(&mut cc, 203.0, 100, 50_000);
        assert_eq!(cc.state().pacing_rate, Some(2.0 * 102_000.0 / 0.1));
        rtt_ack(&mut cc, 204.0, 100, 150_000);
        assert_eq!(cc.state().pacing_rate, Some(2.0 * 150_000.0 / 0.1));
        // After a loss cwnd = ssthresh = 20 segments, not below ssthresh / 2: 1.2 x.
        cc.on_congestion(&CongestionEvent { flight_size: 40 * MSS, ..Default::default() });
        rtt_ack(&mut cc, 205.0, 80, 10_000);
        assert_eq!(cc.state().cwnd, 20 * MSS);
        assert_eq!(cc.state().pacing_rate, Some(1.2 * 20_000.0 / 0.08));
    }

    #[test]
    fn timeout_collapses_to_one_segment_and_ends_ess() {
        let mut cc = ess(10);
        ack(&mut cc, 100.0, 1000, MSS, 100);
        cc.on_rto(&RtoEvent { flight_size: 20 * MSS, consecutive: 1, ..Default::default() });
        assert!(!cc.is_active());
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 10 * MSS));
    }
}
