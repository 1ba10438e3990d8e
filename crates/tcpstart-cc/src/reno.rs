//! Reno (RFC 5681) and NewReno (RFC 6582) window management.
//!
//! State machine: `slow_start` (cwnd < ssthresh) -> `congestion_avoidance`; a loss detected by
//! duplicate ACKs moves to `recovery` (ssthresh = cwnd = max(FlightSize/2, 2 SMSS), RFC 5681
//! eq. 4; the sender inflates by 3 SMSS and per further duplicate ACK when SACK is off) and back to
//! congestion avoidance with cwnd = ssthresh when recovery ends; a retransmission timeout sets
//! ssthresh the same way and cwnd = 1 SMSS (the loss window), back into slow start.
//!
//! Reno and NewReno share this window arithmetic. They differ only in how the sender's recovery
//! treats a partial ACK ([`PartialAckPolicy`]): Reno leaves recovery on the first new ACK, NewReno
//! stays until the recovery point is acknowledged.
//!
//! Growth per new ACK, with `abc` = the RFC 3465 byte-counting limit L in segments:
//! - slow start: cwnd += min(bytes_acked, L x SMSS) (L = 1 is RFC 5681, 2 is RFC 3465,
//!   0 means no limit, as Linux counts every acknowledged segment);
//! - congestion avoidance: with L = 1, cwnd += SMSS x SMSS / cwnd per ACK (RFC 5681 eq. 3); with
//!   byte counting (L != 1), cwnd += SMSS each time a window's worth of bytes has been acked
//!   (RFC 3465 section 2.1).
//!
//! With [`HyStartPlusPlus`] attached (`reno+hystartpp`, `newreno+hystartpp`, registered in
//! `hystartpp.rs`) the slow-start growth computed above is handed to it per ACK, and it decides
//! whether that growth applies in full, divided (Conservative Slow Start), or slow start ends.

use crate::controller::{Capabilities, CcState, CongestionControl, PartialAckPolicy};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent};
use crate::hystartpp::{HyStartPlusPlus, Phase, SlowStartStep};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};

/// Shared with the algorithms that run Reno below their low window (HighSpeed, Scalable, BIC).
pub const ABC: ParamSpec = ParamSpec {
    name: "abc",
    default: 1.0,
    min: 0.0,
    max: 64.0,
    integer: true,
    doc: "byte-counting limit L in segments per ACK (RFC 3465): 1 = RFC 5681 per-ACK growth, 2 = RFC 3465, 0 = unlimited (Linux)",
};

pub const RENO: Registration = Registration {
    info: AlgorithmInfo {
        name: "reno",
        summary: "Reno: slow start, AIMD, fast retransmit; any new ACK ends fast recovery",
        reference: "RFC 5681",
        params: &[ABC],
    },
    build: |p, cfg| Box::new(Reno::from_params(RenoVariant::Reno, p, cfg)),
    receiver_hook: None,
};

pub const NEWRENO: Registration = Registration {
    info: AlgorithmInfo {
        name: "newreno",
        summary: "NewReno: Reno with partial-ACK handling that recovers several losses per window",
        reference: "RFC 6582 (window arithmetic RFC 5681, byte counting RFC 3465)",
        params: &[ABC],
    },
    build: |p, cfg| Box::new(Reno::from_params(RenoVariant::NewReno, p, cfg)),
    receiver_hook: None,
};

/// For a controller that keeps its window in an embedded [`Reno`] field `reno` (start-up
/// algorithms that hand over to Reno's AIMD): Reno's partial-ACK policy, with the trait's other
/// capabilities. With `state_and_recovery_exit`, the state (window, phase) and the end of
/// recovery are Reno's as well.
macro_rules! window_from_reno {
    (state_and_recovery_exit) => {
        $crate::reno::window_from_reno!();
        fn state(&self) -> $crate::controller::CcState {
            self.reno.state()
        }
        fn on_recovery_exit(&mut self, ev: &$crate::events::RecoveryExitEvent) {
            self.reno.on_recovery_exit(ev);
        }
    };
    () => {
        fn capabilities(&self) -> $crate::controller::Capabilities {
            $crate::controller::Capabilities {
                partial_ack_policy: self.reno.capabilities().partial_ack_policy,
                ..Default::default()
            }
        }
    };
}
pub(crate) use window_from_reno;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoVariant {
    Reno,
    NewReno,
}

/// Reno's window state and arithmetic. HighSpeed, Scalable and BIC embed one: they share its slow
/// start, its recovery and timeout bookkeeping and its congestion avoidance below their low window,
/// and replace only the increase above it and the decrease factor.
#[derive(Clone, Debug)]
pub struct Reno {
    variant: RenoVariant,
    pub(crate) mss: u64,
    /// RFC 3465 limit L in segments; 0 = unlimited.
    abc: u64,
    pub(crate) cwnd: u64,
    pub(crate) ssthresh: u64,
    /// Bytes acknowledged in congestion avoidance since cwnd last grew (byte counting).
    bytes_acked_in_ca: u64,
    pub(crate) in_recovery: bool,
    /// HyStart++ in front of the initial slow start, when attached.
    hystartpp: Option<HyStartPlusPlus>,
}

impl Reno {
    pub fn new(variant: RenoVariant, mss: u64, initial_cwnd: u64, initial_ssthresh: u64, abc: u64) -> Self {
        Reno {
            variant,
            mss,
            abc,
            cwnd: initial_cwnd.max(mss),
            ssthresh: initial_ssthresh,
            bytes_acked_in_ca: 0,
            in_recovery: false,
            hystartpp: None,
        }
    }

    pub fn with_hystartpp(mut self, h: HyStartPlusPlus) -> Self {
        self.hystartpp = Some(h);
        self
    }

    /// Replaces the window, for start-up algorithms that run their own first phase and hand over
    /// to Reno's arithmetic afterwards (cwnd at least one segment, ssthresh at least two).
    pub fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd.max(self.mss);
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.bytes_acked_in_ca = 0;
    }

    pub(crate) fn from_params(variant: RenoVariant, p: &Params, cfg: &CcConfig) -> Self {
        Reno::new(variant, cfg.mss, cfg.initial_cwnd, cfg.initial_ssthresh, p["abc"] as u64)
    }

    /// RFC 5681 eq. 4: half the data in flight, at least two segments.
    fn halved(&self, flight_size: u64) -> u64 {
        (flight_size / 2).max(2 * self.mss)
    }

    /// `bytes_acked` is 0 for an ACK that may not grow the window (it still counts for HyStart++).
    pub(crate) fn slow_start(&mut self, ev: &AckEvent, bytes_acked: u64) -> u64 {
        let limit = if self.abc == 0 { u64::MAX } else { self.abc * self.mss };
        let mut increment = bytes_acked.min(limit);
        if let Some(h) = self.hystartpp.as_mut() {
            match h.on_ack(ev, increment, self.mss) {
                SlowStartStep::Grow(n) => increment = n,
                SlowStartStep::ExitSlowStart => {
                    self.ssthresh = self.cwnd.max(2 * self.mss);
                    return bytes_acked;
                }
            }
        }
        let room = self.ssthresh.saturating_sub(self.cwnd);
        let grow = increment.min(room);
        self.cwnd += grow;
        // What slow start did not use is carried into congestion avoidance (Linux tcp_slow_start).
        if grow < increment {
            bytes_acked - grow
        } else {
            0
        }
    }

    pub(crate) fn congestion_avoidance(&mut self, bytes_acked: u64) {
        if self.abc == 1 {
            self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
        } else {
            self.additive_increase(bytes_acked, self.cwnd);
        }
    }

    /// Linux `tcp_cong_avoid_ai` in bytes: adds `credit` to the counter and one segment to cwnd
    /// for every `per` bytes of counter (Reno: per = cwnd, so one segment per window).
    pub(crate) fn additive_increase(&mut self, credit: u64, per: u64) {
        self.bytes_acked_in_ca += credit;
        let per = per.max(1);
        self.cwnd += self.bytes_acked_in_ca / per * self.mss;
        self.bytes_acked_in_ca %= per;
    }

    /// The growth step the loss-based algorithms share: none in recovery, on duplicate ACKs or when
    /// not cwnd-limited; slow start below ssthresh; then `avoid` with the acknowledged bytes slow
    /// start did not use (Linux `tcp_slow_start` hands the rest to congestion avoidance likewise).
    pub(crate) fn grow(&mut self, ev: &AckEvent, avoid: impl FnOnce(&mut Reno, u64)) {
        if self.in_recovery || ev.bytes_acked == 0 {
            return;
        }
        // An ACK that is not cwnd-limited grows nothing but still counts for HyStart++'s rounds.
        let usable = if ev.cwnd_limited { ev.bytes_acked } else { 0 };
        let leftover = if self.cwnd < self.ssthresh { self.slow_start(ev, usable) } else { usable };
        if self.cwnd >= self.ssthresh && leftover > 0 {
            avoid(self, leftover);
        }
    }

    /// Fast recovery entry with the algorithm's new ssthresh (at least two segments).
    pub(crate) fn enter_recovery(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.ssthresh;
        self.bytes_acked_in_ca = 0;
        self.in_recovery = true;
        if let Some(h) = self.hystartpp.as_mut() {
            h.stop();
        }
    }

    /// Retransmission timeout: cwnd falls to one segment; ssthresh takes `ssthresh` on the first
    /// timeout only (RFC 5681 section 3.1: later ones would compute it from a collapsed window).
    pub(crate) fn timeout(&mut self, ev: &RtoEvent, ssthresh: u64) {
        // RFC 5681 section 3.1: after repeated timeouts FlightSize would shrink ssthresh further; the
        // RFC keeps the value from the first timeout. A timeout during fast recovery keeps the
        // ssthresh the recovery set when that is lower, as Linux does (tcp_enter_loss recomputes it
        // only outside recovery): FlightSize then still counts the SACKed data above the holes
        // and would raise ssthresh after the stronger congestion signal. RFC 5681 asks for "no
        // more than" FlightSize / 2, which the smaller value satisfies.
        if ev.consecutive <= 1 {
            let fresh = ssthresh.max(2 * self.mss);
            self.ssthresh = if self.in_recovery { self.ssthresh.min(fresh) } else { fresh };
        }
        self.cwnd = self.mss;
        self.bytes_acked_in_ca = 0;
        self.in_recovery = false;
        if let Some(h) = self.hystartpp.as_mut() {
            h.stop();
        }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        match (self.variant, self.hystartpp.is_some()) {
            (RenoVariant::Reno, false) => "reno",
            (RenoVariant::NewReno, false) => "newreno",
            (RenoVariant::Reno, true) => "reno+hystartpp",
            (RenoVariant::NewReno, true) => "newreno+hystartpp",
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.grow(ev, |r, bytes| r.congestion_avoidance(bytes));
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.enter_recovery(self.halved(ev.flight_size));
    }

    fn on_recovery_exit(&mut self, _ev: &RecoveryExitEvent) {
        // Deflate only out of a recovery this controller entered (ssthresh is set then).
        if self.in_recovery {
            self.cwnd = self.ssthresh;
            self.in_recovery = false;
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.timeout(ev, self.halved(ev.flight_size));
    }

    fn state(&self) -> CcState {
        let phase = if self.in_recovery {
            "recovery"
        } else if self.cwnd < self.ssthresh {
            match self.hystartpp.as_ref().map(HyStartPlusPlus::phase) {
                Some(Phase::Conservative) => "conservative_slow_start",
                _ => "slow_start",
            }
        } else {
            "congestion_avoidance"
        };
        CcState::window(self.cwnd, self.ssthresh, phase)
    }
    /// Reno grows on ACKs only (HyStart++ too counts ACKs): `on_sent` and `segment_mark` are
    /// the trait's defaults. Reno (and HyStart++) read the bytes acknowledged and the RTT, not
    /// the delivery rate.
    fn capabilities(&self) -> Capabilities {
        let partial_ack_policy = match self.variant {
            RenoVariant::Reno => PartialAckPolicy::EndsRecovery,
            RenoVariant::NewReno => PartialAckPolicy::StayInRecovery,
        };
        Capabilities { partial_ack_policy, observes_sends: false, uses_rate_samples: false, quick_start_request: None }
    }
}

/// The part of a Reno-family algorithm that differs from Reno when that is only congestion
/// avoidance and the decrease (HighSpeed, Scalable); [`Aimd`] supplies the rest.
pub trait AimdRule: Send {
    const NAME: &'static str;
    /// Congestion avoidance for one ACK, given the bytes it acknowledged beyond slow start.
    fn avoid(&self, r: &mut Reno, bytes_acked: u64);
    /// ssthresh after a loss (or the first timeout) at the current window.
    fn decreased(&self, r: &Reno) -> u64;
}

/// Reno's slow start, recovery and timeout around an [`AimdRule`]; phases as Reno's.
#[derive(Clone, Debug)]
pub struct Aimd<R> {
    pub(crate) reno: Reno,
    pub(crate) rule: R,
}

impl<R: AimdRule> Aimd<R> {
    pub fn new(reno: Reno, rule: R) -> Self {
        Aimd { reno, rule }
    }
}

impl<R: AimdRule> CongestionControl for Aimd<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        let rule = &self.rule;
        self.reno.grow(ev, |r, bytes| rule.avoid(r, bytes));
    }
    fn on_congestion(&mut self, _ev: &CongestionEvent) {
        self.reno.enter_recovery(self.rule.decreased(&self.reno));
    }
    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.reno.on_recovery_exit(ev);
    }
    fn on_rto(&mut self, ev: &RtoEvent) {
        self.reno.timeout(ev, self.rule.decreased(&self.reno));
    }
    fn state(&self) -> CcState {
        self.reno.state()
    }
    /// The rule sees Reno and the bytes acknowledged only: as Reno, no sends, no rate samples
    /// (and NewReno's partial ACKs).
    fn capabilities(&self) -> Capabilities {
        Capabilities { observes_sends: false, uses_rate_samples: false, ..Capabilities::default() }
    }
}

/// Test helpers for the Reno family.
#[cfg(test)]
pub(crate) mod testing {
    use core::fmt::Debug;

    use crate::controller::CongestionControl;
    use crate::events::{AckEvent, RateSample, SentEvent};
    use crate::time::{Duration, Instant};

    /// A window-limited ACK of `bytes` new bytes at time zero.
    pub fn ack(bytes: u64) -> AckEvent {
        AckEvent { now: Instant::ZERO, bytes_acked: bytes, cwnd_limited: true, ..Default::default() }
    }

    /// Holds `cc` to its declarations that it ignores sends and rate samples: a send and its mark
    /// change no state, and ACKs with a rate sample leave it as the same ACKs without one.
    pub fn assert_ignores_sends_and_rate_samples<C: CongestionControl + Clone + Debug>(mut cc: C, mss: u64) {
        assert!(!cc.capabilities().observes_sends && !cc.capabilities().uses_rate_samples);
        let before = format!("{cc:?}");
        cc.on_sent(&SentEvent { seq: 0, len: mss as u32, bytes_in_flight: mss, ..SentEvent::default() });
        assert_eq!(cc.segment_mark(0), 0);
        assert_eq!(format!("{cc:?}"), before, "a send changed the state");
        let sample =
            RateSample { delivered: 5 * mss, interval: Some(Duration::from_millis(1)), ..RateSample::default() };
        let mut without = cc.clone();
        for i in 1..=20 {
            let ev = AckEvent { now: Instant(i * 1_000_000), rtt_sample: Some(Duration::from_millis(10)), ..ack(mss) };
            cc.on_ack(&AckEvent { rate: Some(sample), ..ev });
            without.on_ack(&ev);
        }
        assert_eq!(format!("{cc:?}"), format!("{without:?}"), "a rate sample changed the state");
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{ack, assert_ignores_sends_and_rate_samples};
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn reno_and_aimd_ignore_sends_and_rate_samples_as_they_declare() {
        /// A rule that grows and shrinks like Reno: `Aimd` around any rule hands it no event.
        #[derive(Clone, Debug)]
        struct Halving;
        impl AimdRule for Halving {
            const NAME: &'static str = "halving";
            fn avoid(&self, r: &mut Reno, bytes_acked: u64) {
                r.congestion_avoidance(bytes_acked);
            }
            fn decreased(&self, r: &Reno) -> u64 {
                r.cwnd / 2
            }
        }
        // In slow start with HyStart++ attached, and in congestion avoidance.
        for ssthresh in [u64::MAX, 10 * MSS] {
            let reno = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, ssthresh, 1)
                .with_hystartpp(HyStartPlusPlus::new(crate::hystartpp::Config::default()));
            assert_ignores_sends_and_rate_samples(reno.clone(), MSS);
            assert_ignores_sends_and_rate_samples(Aimd::new(reno, Halving), MSS);
        }
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_with_rfc5681_limit() {
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 1);
        cc.on_ack(&ack(2 * MSS)); // a delayed ACK covering two segments
        assert_eq!(cc.state().cwnd, 11 * MSS);
    }

    #[test]
    fn slow_start_counts_bytes_up_to_limit() {
        let mut abc2 = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 2);
        abc2.on_ack(&ack(3 * MSS));
        assert_eq!(abc2.state().cwnd, 12 * MSS);
        let mut linux = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 0);
        linux.on_ack(&ack(3 * MSS));
        assert_eq!(linux.state().cwnd, 13 * MSS);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_carries_leftover() {
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, 11 * MSS, 0);
        cc.on_ack(&ack(2 * MSS));
        assert_eq!(cc.state().cwnd, 11 * MSS);
        assert_eq!(cc.state().phase, "congestion_avoidance");
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, 10 * MSS, 1);
        for _ in 0..10 {
            cc.on_ack(&ack(MSS));
        }
        // Ten ACKs of one segment each at cwnd ~ 10 segments: about +1 segment.
        assert!(cc.state().cwnd >= 10 * MSS + 950 && cc.state().cwnd <= 11 * MSS, "{}", cc.state().cwnd);
    }

    #[test]
    fn byte_counting_in_congestion_avoidance_grows_exactly_once_per_window() {
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, 10 * MSS, 2);
        for _ in 0..5 {
            cc.on_ack(&ack(2 * MSS));
        }
        assert_eq!(cc.state().cwnd, 11 * MSS);
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.state().cwnd, 11 * MSS);
    }

    #[test]
    fn fast_recovery_halves_flight_and_restores_ssthresh_on_exit() {
        // Reference vector: FlightSize 20 segments -> ssthresh 10 (RFC 5681 eq. 4).
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 20 * MSS, u64::MAX, 1);
        cc.on_congestion(&CongestionEvent { flight_size: 20 * MSS, ..Default::default() });
        assert_eq!(cc.state().ssthresh, 10 * MSS);
        assert_eq!(cc.state().phase, "recovery");
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.state().cwnd, 10 * MSS, "no growth during recovery");
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        assert_eq!(cc.state().cwnd, 10 * MSS);
        assert_eq!(cc.state().phase, "congestion_avoidance");
    }

    #[test]
    fn ssthresh_never_below_two_segments() {
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 3 * MSS, u64::MAX, 1);
        cc.on_congestion(&CongestionEvent { flight_size: MSS, ..Default::default() });
        assert_eq!(cc.state().ssthresh, 2 * MSS);
    }

    #[test]
    fn rto_collapses_to_one_segment_and_keeps_first_ssthresh() {
        let mut cc = Reno::new(RenoVariant::Reno, MSS, 40 * MSS, u64::MAX, 1);
        cc.on_rto(&RtoEvent { flight_size: 40 * MSS, consecutive: 1, ..Default::default() });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 20 * MSS));
        cc.on_rto(&RtoEvent { flight_size: MSS, consecutive: 2, ..Default::default() });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 20 * MSS));
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn rto_during_recovery_never_raises_ssthresh() {
        // Recovery from FlightSize 40 sets ssthresh 20; a timeout while 60 segments are still
        // unacknowledged (SACKed data above the holes) keeps 20 rather than raising it to 30.
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 40 * MSS, u64::MAX, 1);
        cc.on_congestion(&CongestionEvent { flight_size: 40 * MSS, ..Default::default() });
        cc.on_rto(&RtoEvent { flight_size: 60 * MSS, consecutive: 1, ..Default::default() });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 20 * MSS));
        // A smaller FlightSize still lowers it (RFC 5681: no more than FlightSize / 2).
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 40 * MSS, u64::MAX, 1);
        cc.on_congestion(&CongestionEvent { flight_size: 40 * MSS, ..Default::default() });
        cc.on_rto(&RtoEvent { flight_size: 16 * MSS, consecutive: 1, ..Default::default() });
        assert_eq!(cc.state().ssthresh, 8 * MSS);
    }

    #[test]
    fn no_growth_when_not_window_limited() {
        let mut cc = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 1);
        cc.on_ack(&AckEvent { bytes_acked: MSS, cwnd_limited: false, ..Default::default() });
        assert_eq!(cc.state().cwnd, 10 * MSS);
    }

    #[test]
    fn variants_differ_only_in_partial_ack_policy() {
        let reno = Reno::new(RenoVariant::Reno, MSS, MSS, u64::MAX, 1);
        let newreno = Reno::new(RenoVariant::NewReno, MSS, MSS, u64::MAX, 1);
        assert_eq!(reno.capabilities().partial_ack_policy, PartialAckPolicy::EndsRecovery);
        assert_eq!(newreno.capabilities().partial_ack_policy, PartialAckPolicy::StayInRecovery);
    }
}
