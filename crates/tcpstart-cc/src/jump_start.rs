//! Jump Start: Liu, Allman, Jin, Wang, "Congestion control without a startup phase", PFLDnet 2007,
//! section II (mechanism), section IV.F (timeouts) and footnote 3 (no pacing within the standard
//! initial window). The rest of congestion control is NewReno (an embedded [`Reno`]).
//!
//! State machine:
//! - `handshake`: before the connection is established the window is the scenario's initial
//!   window (it only matters if no jump happens).
//! - `jump`: after the handshake, D = min(receiver window, data queued) is sent, paced evenly over
//!   the handshake RTT (D segments at spacing RTT_hs / D). The jump ends when all D bytes have
//!   been sent or when the first ACK (any ACK) arrives, whichever comes first.
//! - after the jump, normal congestion control: cwnd = the bytes the jump sent (at least the
//!   initial window) and ssthresh = cwnd, i.e. NewReno congestion avoidance. The paper: "the
//!   remainder of TCP's congestion control algorithms (additive-increase/multiplicative-decrease
//!   and timeout mechanism) remain intact"; the startup phase is gone, so AIMD follows.
//! - loss of data sent in the jump: NewReno halves the window on detection (section II: "Upon loss
//!   detection the congestion window (cwnd) is halved, per normal TCP"); when that recovery ends,
//!   cwnd = ssthresh = (D - R) / 2, with D the bytes sent in the jump and R the bytes retransmitted
//!   during the recovery ("cwnd = 252" in the OCR text is this formula, `(D-R)/2`), at least two
//!   segments. The paper calls this a further reduction: its ns-2 senders halve cwnd (= D) at
//!   detection. NewReno here halves the FlightSize (RFC 5681), which is smaller when detection
//!   comes late (the queue has drained meanwhile); (D - R) / 2 is set all the same, as the paper's
//!   "half of the load the network was able to support".
//! - a retransmission timeout collapses cwnd to one segment and slow-starts, as normal TCP does
//!   (section IV.F).
//!
//! No jump happens when the handshake gave no RTT sample (a retransmitted SYN: nothing to pace
//! over) or when there is nothing to send; the connection then slow-starts from the initial window.

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, EstablishedEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{window_from_reno, Reno, RenoVariant, ABC};

const UNPACED_WITHIN_IW: ParamSpec = ParamSpec {
    name: "unpaced_within_iw",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    integer: true,
    doc: "1 = the paper's footnote 3: no pacing when D fits in the standard initial window (the scenario's); 0 = always pace (the paper's runs)",
};

pub const JUMP_START: Registration = Registration {
    info: AlgorithmInfo {
        name: "jump-start",
        summary: "Jump Start: sends D = min(rwnd, queued data) paced over the handshake RTT, then NewReno AIMD; loss in the jump leaves cwnd = (D - R)/2",
        reference: "Liu, Allman, Jin, Wang: Congestion control without a startup phase, PFLDnet 2007, section II",
        params: &[UNPACED_WITHIN_IW, ABC],
    },
    build: |p, cfg| Box::new(JumpStart::from_params(p, cfg)),
    receiver_hook: None,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Handshake,
    Jump,
    Normal,
}

#[derive(Clone, Debug)]
pub struct JumpStart {
    reno: Reno,
    mss: u64,
    initial_cwnd: u64,
    unpaced_within_iw: bool,
    state: State,
    /// D in bytes.
    jump_bytes: u64,
    /// Pacing rate of the jump in wire bytes per second; `None` when it is not paced.
    jump_rate: Option<f64>,
    /// New data sent during the jump, and the sequence number just past it.
    jump_sent: u64,
    jump_end_seq: u64,
    /// SND.UNA as of the latest ACK.
    snd_una: u64,
    /// A loss among the jump's data was not yet followed by a recovery.
    jump_loss_pending: bool,
    /// The recovery under way repairs data sent in the jump.
    in_jump_recovery: bool,
}

impl JumpStart {
    pub fn new(reno: Reno, mss: u64, initial_cwnd: u64, unpaced_within_iw: bool) -> Self {
        JumpStart {
            reno,
            mss,
            initial_cwnd: initial_cwnd.max(mss),
            unpaced_within_iw,
            state: State::Handshake,
            jump_bytes: 0,
            jump_rate: None,
            jump_sent: 0,
            jump_end_seq: 0,
            snd_una: 0,
            jump_loss_pending: true,
            in_jump_recovery: false,
        }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        let reno = Reno::from_params(RenoVariant::NewReno, p, cfg);
        JumpStart::new(reno, cfg.mss, cfg.initial_cwnd, p["unpaced_within_iw"] == 1.0)
    }

    /// D in bytes, as decided at the handshake.
    pub fn jump_bytes(&self) -> u64 {
        self.jump_bytes
    }

    /// Leaves the jump: the window is what the jump actually sent, and AIMD takes over.
    fn end_jump(&mut self) {
        if self.state == State::Jump {
            self.state = State::Normal;
            let cwnd = self.jump_sent.max(self.initial_cwnd);
            self.reno.set_window(cwnd, cwnd);
        }
    }
}

impl CongestionControl for JumpStart {
    fn name(&self) -> &'static str {
        "jump-start"
    }

    fn on_established(&mut self, ev: &EstablishedEvent) {
        if self.state != State::Handshake {
            return;
        }
        self.state = State::Normal;
        let Some(rtt) = ev.handshake_rtt.filter(|r| !r.is_zero()) else { return };
        let data_limited = ev.queued_bytes <= ev.rwnd;
        // Whole segments: a receiver window that ends inside a segment cannot carry it.
        let jump_bytes = if data_limited { ev.queued_bytes } else { (ev.rwnd / self.mss).max(1) * self.mss };
        if jump_bytes == 0 {
            return;
        }
        self.state = State::Jump;
        self.jump_bytes = jump_bytes;
        let unpaced = self.unpaced_within_iw && jump_bytes <= self.initial_cwnd;
        // The sender spaces paced segments by payload size / rate, so D bytes take one RTT.
        self.jump_rate = (!unpaced).then(|| jump_bytes as f64 / rtt.as_secs_f64());
        // The window in whole segments, as the kernel counts it: D bytes go out as ceil(D / MSS)
        // segments, and a sender that counts packets would hold back the short last one.
        let window = jump_bytes.div_ceil(self.mss) * self.mss;
        self.reno.set_window(window.max(self.initial_cwnd), self.reno.state().ssthresh);
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        if self.state != State::Jump || ev.is_retransmission {
            return;
        }
        self.jump_sent += ev.len as u64;
        self.jump_end_seq = self.jump_end_seq.max(ev.seq + ev.len as u64);
        if self.jump_sent >= self.jump_bytes {
            self.end_jump();
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        // The first ACK means a round trip has passed: the jump is over.
        self.end_jump();
        self.snd_una = ev.snd_una;
        self.reno.on_ack(ev);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.end_jump();
        // Only the first recovery, and only if the hole is in data the jump sent.
        self.in_jump_recovery = self.jump_loss_pending && self.snd_una < self.jump_end_seq;
        self.jump_loss_pending = false;
        self.reno.on_congestion(ev);
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.reno.on_recovery_exit(ev);
        if std::mem::take(&mut self.in_jump_recovery) {
            // At least two segments, as RFC 5681's halving keeps.
            let cwnd = (self.jump_sent.saturating_sub(ev.retransmitted_bytes) / 2).max(2 * self.mss);
            self.reno.set_window(cwnd, cwnd);
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.end_jump();
        self.in_jump_recovery = false;
        self.jump_loss_pending = false;
        self.reno.on_rto(ev);
    }

    window_from_reno!();
    fn state(&self) -> CcState {
        let reno = self.reno.state();
        match self.state {
            State::Jump => CcState { pacing_rate: self.jump_rate, phase: "jump", ..reno },
            State::Handshake | State::Normal => reno,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Duration, Instant};

    const MSS: u64 = 1000;
    const IW: u64 = 3 * MSS;

    fn js(unpaced_within_iw: bool) -> JumpStart {
        JumpStart::new(Reno::new(RenoVariant::NewReno, MSS, IW, u64::MAX, 1), MSS, IW, unpaced_within_iw)
    }

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    fn established(cc: &mut JumpStart, queued: u64, rwnd: u64) {
        cc.on_established(&EstablishedEvent {
            now: at(100),
            handshake_rtt: Some(Duration::from_millis(100)),
            queued_bytes: queued,
            rwnd,
            quick_start_rate: None,
        });
    }

    fn send_new(cc: &mut JumpStart, n: u64) {
        for i in 0..n {
            let seq = cc.jump_sent;
            cc.on_sent(&SentEvent { now: at(100 + i), seq, len: MSS as u32, ..Default::default() });
        }
    }

    fn ack(cc: &mut JumpStart, snd_una: u64, bytes: u64) {
        cc.on_ack(&AckEvent { now: at(200), bytes_acked: bytes, snd_una, cwnd_limited: true, ..Default::default() });
    }

    #[test]
    fn d_is_the_smaller_of_queued_data_and_receiver_window() {
        let mut data = js(false);
        established(&mut data, 50 * MSS + 1, 1_000_000);
        assert_eq!(data.jump_bytes(), 50 * MSS + 1);
        // 50 segments and one byte take 51 segments of window.
        assert_eq!(data.state().cwnd, 51 * MSS);
        let mut window = js(false);
        // 65 535-byte window: 65 whole segments of 1000 bytes.
        established(&mut window, u64::MAX, 65_535);
        assert_eq!(window.jump_bytes(), 65 * MSS);
        assert_eq!(window.state().phase, "jump");
    }

    #[test]
    fn the_jump_is_paced_evenly_over_the_handshake_rtt() {
        let mut cc = js(false);
        established(&mut cc, 50 * MSS, 1_000_000);
        // 50 segments of 1000 bytes in 100 ms: 500 000 B/s, one every 2 ms.
        let rate = cc.state().pacing_rate.unwrap();
        assert!((rate - 500_000.0).abs() < 1e-6, "{rate}");
        let gap = MSS as f64 / rate;
        assert!((gap - 0.002).abs() < 1e-12, "{gap}");
    }

    #[test]
    fn the_jump_ends_when_all_d_are_sent() {
        let mut cc = js(false);
        established(&mut cc, 10 * MSS, 1_000_000);
        send_new(&mut cc, 9);
        assert_eq!(cc.state().phase, "jump");
        send_new(&mut cc, 1);
        assert_eq!(cc.state().pacing_rate, None);
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (10 * MSS, 10 * MSS));
        assert_eq!(cc.state().phase, "congestion_avoidance");
    }

    #[test]
    fn the_first_ack_ends_the_jump_with_the_window_it_sent() {
        let mut cc = js(false);
        established(&mut cc, 100 * MSS, 1_000_000);
        send_new(&mut cc, 40);
        ack(&mut cc, MSS, MSS);
        assert_eq!(cc.state().pacing_rate, None);
        // cwnd = the 40 segments sent, then one congestion-avoidance increase of MSS^2 / cwnd.
        assert_eq!(cc.state().ssthresh, 40 * MSS);
        assert_eq!(cc.state().cwnd, 40 * MSS + MSS / 40);
    }

    #[test]
    fn loss_in_the_jump_leaves_half_of_what_got_through() {
        let mut cc = js(false);
        established(&mut cc, 100 * MSS, 1_000_000);
        send_new(&mut cc, 100);
        ack(&mut cc, 10 * MSS, 10 * MSS);
        cc.on_ack(&AckEvent { now: at(201), snd_una: 10 * MSS, ..Default::default() });
        // Detection halves the flight of 90 segments, per normal TCP.
        cc.on_congestion(&CongestionEvent { now: at(202), flight_size: 90 * MSS, high_data: 100 * MSS });
        assert_eq!(cc.state().cwnd, 45 * MSS);
        // 30 segments retransmitted: (D - R) / 2 = (100 - 30) / 2 = 35 segments.
        cc.on_recovery_exit(&RecoveryExitEvent { now: at(400), retransmitted_bytes: 30 * MSS, bytes_in_flight: 0 });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (35 * MSS, 35 * MSS));
        // A second recovery is a normal one.
        cc.on_congestion(&CongestionEvent { now: at(500), flight_size: 36 * MSS, high_data: 140 * MSS });
        cc.on_recovery_exit(&RecoveryExitEvent { now: at(600), retransmitted_bytes: 30 * MSS, bytes_in_flight: 0 });
        assert_eq!(cc.state().cwnd, 18 * MSS);
    }

    #[test]
    fn the_jump_rule_applies_even_when_the_flight_at_detection_was_small() {
        let mut cc = js(false);
        established(&mut cc, 100 * MSS, 1_000_000);
        send_new(&mut cc, 100);
        ack(&mut cc, 90 * MSS, 90 * MSS);
        // Only 10 segments were in flight: NewReno leaves 5 during recovery; at its end
        // (D - R) / 2 = (100 - 2) / 2 = 49 segments.
        cc.on_congestion(&CongestionEvent { now: at(202), flight_size: 10 * MSS, high_data: 100 * MSS });
        assert_eq!(cc.state().cwnd, 5 * MSS);
        cc.on_recovery_exit(&RecoveryExitEvent { now: at(400), retransmitted_bytes: 2 * MSS, bytes_in_flight: 0 });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (49 * MSS, 49 * MSS));
    }

    #[test]
    fn the_jump_rule_keeps_two_segments_when_everything_was_retransmitted() {
        let mut cc = js(false);
        established(&mut cc, 4 * MSS, 1_000_000);
        send_new(&mut cc, 4);
        ack(&mut cc, 0, 0);
        cc.on_congestion(&CongestionEvent { now: at(202), flight_size: 4 * MSS, high_data: 4 * MSS });
        cc.on_recovery_exit(&RecoveryExitEvent { now: at(400), retransmitted_bytes: 5 * MSS, bytes_in_flight: 0 });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (2 * MSS, 2 * MSS));
    }

    #[test]
    fn loss_after_the_jumps_data_is_a_normal_recovery() {
        let mut cc = js(false);
        established(&mut cc, 10 * MSS, 1_000_000);
        send_new(&mut cc, 10);
        ack(&mut cc, 10 * MSS, 10 * MSS);
        cc.on_congestion(&CongestionEvent { now: at(300), flight_size: 20 * MSS, high_data: 30 * MSS });
        cc.on_recovery_exit(&RecoveryExitEvent { now: at(400), retransmitted_bytes: 9 * MSS, bytes_in_flight: 0 });
        assert_eq!(cc.state().cwnd, 10 * MSS, "NewReno's FlightSize / 2, not (D - R) / 2 = 0.5 segment");
    }

    #[test]
    fn timeout_collapses_to_one_segment() {
        let mut cc = js(false);
        established(&mut cc, 100 * MSS, 1_000_000);
        send_new(&mut cc, 20);
        cc.on_rto(&RtoEvent { now: at(1100), flight_size: 20 * MSS, consecutive: 1 });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 10 * MSS));
        assert_eq!(cc.state().pacing_rate, None);
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn footnote_3_sends_an_initial_window_sized_jump_unpaced() {
        let mut paced = js(false);
        established(&mut paced, 2 * MSS, 1_000_000);
        assert!(paced.state().pacing_rate.is_some(), "the paper paces even two packets");
        let mut unpaced = js(true);
        established(&mut unpaced, 2 * MSS, 1_000_000);
        assert_eq!(unpaced.state().pacing_rate, None);
        assert_eq!(unpaced.state().cwnd, IW);
        let mut large = js(true);
        established(&mut large, 4 * MSS, 1_000_000);
        assert!(large.state().pacing_rate.is_some(), "4 segments do not fit in IW 3");
    }

    #[test]
    fn no_handshake_sample_means_no_jump() {
        let mut cc = js(false);
        cc.on_established(&EstablishedEvent {
            now: at(3100),
            handshake_rtt: None,
            queued_bytes: 100 * MSS,
            rwnd: 1 << 20,
            quick_start_rate: None,
        });
        assert_eq!((cc.state().cwnd, cc.state().pacing_rate), (IW, None));
        assert_eq!(cc.state().phase, "slow_start");
    }
}
