//! Swift Start (Partridge et al., "A Swifter Start for TCP", BBN TR-8339, 2002) as evaluated and
//! corrected by NASA (Lawas-Grodek and Tran, NASA/TM-2004-212938, section "Swift Start
//! Implementation Problems").
//!
//! Four segments go out back to back. With delayed ACKs the receiver acknowledges them in two
//! ACKs, `th_ack_1` (segments 1-2) and `th_ack_2` (segments 3-4); their spacing `delta` is the
//! time the bottleneck needed for two segments (packet pair). The capacity-estimate window is
//! `ce_cwnd = bytes x RTT / delta`, divided by `gamma` because a packet pair measures the
//! bottleneck's capacity, not what is available. That window is paced over the second round
//! trip ([`crate::paced_start`]), then slow start continues from it.
//!
//! Two registered variants share this probe:
//!
//! - `swift-start` (the NASA fixes): the RTT runs from the first *data* segment to `th_ack_1`;
//!   `delta = t(th_ack_2) - t(th_ack_1)`; the bytes are those `th_ack_2` acknowledges (both
//!   segments, byte-based); abort (plain slow start) on any retransmission or loss, when the
//!   receiver's delayed-ACK timer split a pair (the two ACKs cover different byte counts: the
//!   timer acknowledged a lone segment), when `delta` is zero on the sender's clock (a 1 ms tick
//!   cannot see a pair on a path faster than about 23 Mbit/s, as the report found), or when
//!   `ce_cwnd <= cwnd` before `th_ack_2`'s growth; pacing starts only once `ce_cwnd` is known,
//!   stops when the window is sent, and ACKs during pacing do not grow the window.
//! - `swift-start-bbn` (the original code as the report found it): the SYN-ACK is the first
//!   sample, so `delta = t(th_ack_2) - t(SYN-ACK)` and the RTT is the handshake's; one segment is
//!   counted per `delta`; pacing begins at `th_ack_1` with the current window (premature
//!   pacing); when `ce_cwnd` is below the window the window is used; nothing aborts, and pacing
//!   never stops (the sender paces at cwnd / RTT for the rest of the connection).
//!
//! State machine of the probe: `wait_first_ack` -(th_ack_1)-> `wait_second_ack`
//! -(th_ack_2)-> estimate -> pace or abort; then [`crate::paced_start`] takes over.

use crate::events::{AckEvent, EstablishedEvent, SentEvent};
use crate::paced_start::{Decision, PacePlan, PacedStart, Probe, Windows};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::time::{Duration, Instant};

const GAMMA: ParamSpec = ParamSpec {
    name: "gamma",
    default: 4.0,
    min: 1.0,
    max: 8.0,
    integer: false,
    doc: "fraction of the packet-pair estimate used: ce_cwnd / gamma (the NASA report tested 1, 4, 8 and recommends 4 or more)",
};

pub const SWIFT_START: Registration = Registration {
    info: AlgorithmInfo {
        name: "swift-start",
        summary: "Swift Start with the NASA fixes: packet-pair estimate from the first two ACKs, paced over the second RTT, then slow start",
        reference: "BBN TR-8339 (Partridge et al. 2002); NASA/TM-2004-212938 (Lawas-Grodek, Tran 2004)",
        params: &[GAMMA],
    },
    build: |p, cfg| Box::new(swift_start(Variant::Nasa, p, cfg)),
    receiver_hook: None,
};

pub const SWIFT_START_BBN: Registration = Registration {
    info: AlgorithmInfo {
        name: "swift-start-bbn",
        summary:
            "Swift Start as BBN's code behaved before the NASA fixes (SYN-ACK as first sample, early endless pacing)",
        reference: "NASA/TM-2004-212938, section \"Swift Start Implementation Problems\"",
        params: &[GAMMA],
    },
    build: |p, cfg| Box::new(swift_start(Variant::Bbn, p, cfg)),
    receiver_hook: None,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The original BBN code with the flaws the NASA report describes.
    Bbn,
    /// The NASA-corrected code.
    Nasa,
}

/// Swift Start: the packet-pair probe in front of NewReno.
pub type SwiftStart = PacedStart<SwiftProbe>;

/// Builds Swift Start of `variant` with the registry's parameters.
pub fn swift_start(variant: Variant, p: &Params, cfg: &CcConfig) -> SwiftStart {
    PacedStart::new(SwiftProbe::new(variant, p["gamma"], cfg.mss), cfg)
}

#[derive(Clone, Debug)]
pub struct SwiftProbe {
    variant: Variant,
    gamma: f64,
    mss: u64,
    /// Start of the RTT measurement: the first data segment (NASA) or the SYN (BBN).
    rtt_from: Option<Instant>,
    /// The handshake RTT (the BBN code's RTT).
    handshake_rtt: Option<Duration>,
    /// The first sample of the pair: `th_ack_1` (NASA) or the SYN-ACK (BBN), with the bytes acked.
    first: Option<(Instant, u64)>,
    rtt: Option<Duration>,
    seen_first_ack: bool,
    /// The last estimate (bytes, before `gamma`), for traces and tests.
    pub estimate: Option<u64>,
    finished: bool,
}

impl SwiftProbe {
    pub fn new(variant: Variant, gamma: f64, mss: u64) -> Self {
        SwiftProbe {
            variant,
            gamma,
            mss,
            rtt_from: None,
            handshake_rtt: None,
            first: None,
            rtt: None,
            seen_first_ack: false,
            estimate: None,
            finished: false,
        }
    }

    /// `ce_cwnd / gamma` in bytes, from `bytes` arriving `delta` apart over a round trip `rtt`.
    fn window(&mut self, bytes: u64, rtt: Duration, delta: Duration) -> Option<u64> {
        if delta.is_zero() {
            return None;
        }
        let ce = bytes as f64 * rtt.as_secs_f64() / delta.as_secs_f64();
        self.estimate = Some(ce as u64);
        Some((ce / self.gamma) as u64)
    }

    fn nasa_ack(&mut self, ev: &AckEvent, cwnd: Windows) -> Decision {
        let Some((t1, bytes1)) = self.first else {
            let Some(from) = self.rtt_from else { return Decision::Abort };
            self.first = Some((ev.now, ev.bytes_acked));
            self.rtt = Some(ev.now - from);
            return Decision::Continue;
        };
        self.finished = true;
        if ev.bytes_acked != bytes1 {
            // The receiver's delayed-ACK timer acknowledged a lone segment of a pair.
            return Decision::Abort;
        }
        let rtt = self.rtt.unwrap_or_default();
        match self.window(ev.bytes_acked, rtt, ev.now - t1) {
            Some(w) if w > cwnd.before => {
                Decision::Pace(PacePlan { window: w, rtt, end_seq: Some(ev.snd_una + w), endless: false })
            }
            _ => Decision::Abort,
        }
    }

    fn bbn_ack(&mut self, ev: &AckEvent, cwnd: Windows) -> Decision {
        let rtt = self.handshake_rtt.unwrap_or_default();
        let pace = |window| Decision::Pace(PacePlan { window, rtt, end_seq: None, endless: true });
        if !self.seen_first_ack {
            // th_ack_1: the BBN code started pacing here, with the window it had.
            self.seen_first_ack = true;
            return pace(cwnd.after);
        }
        self.finished = true;
        let (t_synack, _) = self.first.unwrap_or((ev.now, 0));
        // One segment counted per delta, and delta measured from the SYN-ACK.
        let w = self.window(self.mss, rtt, ev.now - t_synack).unwrap_or(0);
        pace(w.max(cwnd.after))
    }
}

impl Probe for SwiftProbe {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Bbn => "swift-start-bbn",
            Variant::Nasa => "swift-start",
        }
    }

    fn on_established(&mut self, ev: &EstablishedEvent) {
        if self.variant == Variant::Bbn {
            self.first = Some((ev.now, 0));
            self.handshake_rtt = ev.handshake_rtt;
        }
    }

    fn on_sent(&mut self, ev: &SentEvent) -> Decision {
        if self.variant == Variant::Bbn {
            return Decision::Continue;
        }
        if ev.is_retransmission {
            return Decision::Abort;
        }
        if self.rtt_from.is_none() {
            self.rtt_from = Some(ev.now);
        }
        Decision::Continue
    }

    fn on_ack(&mut self, ev: &AckEvent, cwnd: Windows) -> Decision {
        if self.finished || ev.bytes_acked == 0 {
            return Decision::Continue;
        }
        match self.variant {
            Variant::Nasa => self.nasa_ack(ev, cwnd),
            Variant::Bbn => self.bbn_ack(ev, cwnd),
        }
    }

    fn aborts_on_loss(&self) -> bool {
        self.variant == Variant::Nasa
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::CongestionControl;
    use std::collections::BTreeMap;

    const MSS: u64 = 1448;
    const MS: u64 = 1_000_000;

    fn build(variant: Variant, gamma: f64) -> SwiftStart {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        let p = crate::registry::resolve_params(
            if variant == Variant::Nasa { "swift-start" } else { "swift-start-bbn" },
            &BTreeMap::from([("gamma".to_string(), gamma)]),
        )
        .unwrap();
        swift_start(variant, &p, &cfg)
    }

    fn at(ms: f64) -> Instant {
        Instant((ms * MS as f64) as u64)
    }

    fn send(cc: &mut SwiftStart, ms: f64, seg: u64) {
        cc.on_sent(&SentEvent { now: at(ms), seq: seg * MSS, len: MSS as u32, ..Default::default() });
    }

    fn ack(cc: &mut SwiftStart, ms: f64, segments: u64, una: u64, nxt: u64) {
        cc.on_ack(&AckEvent {
            now: at(ms),
            bytes_acked: segments * MSS,
            snd_una: una * MSS,
            snd_nxt: nxt * MSS,
            cwnd_limited: true,
            ..Default::default()
        });
    }

    /// The handshake at t = 0 .. 500 ms, then the initial window of four back to back.
    fn start(cc: &mut SwiftStart) {
        cc.on_established(&EstablishedEvent {
            now: at(500.0),
            handshake_rtt: Some(Duration::from_millis(500)),
            ..Default::default()
        });
        for seg in 0..4 {
            send(cc, 500.0, seg);
        }
    }

    #[test]
    fn initial_window_is_four_segments_whatever_the_scenario_says() {
        assert_eq!(build(Variant::Nasa, 4.0).state().cwnd, 4 * MSS);
    }

    #[test]
    fn nasa_estimate_is_bytes_times_rtt_over_delta_divided_by_gamma() {
        // 5 Mbit/s, 500 ms (the report's figure 3 path): two 1448-byte segments per 4.6336 ms.
        let mut cc = build(Variant::Nasa, 4.0);
        start(&mut cc);
        ack(&mut cc, 1000.0, 2, 2, 4);
        assert_eq!(cc.state().phase, "slow_start", "th_ack_1 only measures the RTT");
        assert_eq!(cc.state().cwnd, 5 * MSS, "and grows the window as slow start does");
        for seg in 4..7 {
            send(&mut cc, 1000.0, seg);
        }
        ack(&mut cc, 1004.6336, 2, 4, 7);
        // ce_cwnd = 2896 B x 500 ms / 4.6336 ms = 312 500 B (appendix B, gamma 1); / 4 = 78 125.
        assert_eq!(cc.probe().estimate, Some(312_500));
        assert_eq!(cc.state().phase, "pacing");
        assert_eq!(cc.state().cwnd, 78_125);
        let rate = cc.state().pacing_rate.unwrap();
        assert!((rate - 78_125.0 / 0.5).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn pacing_stops_once_the_window_is_sent_and_acks_meanwhile_do_not_grow_it() {
        let mut cc = build(Variant::Nasa, 4.0);
        start(&mut cc);
        ack(&mut cc, 1000.0, 2, 2, 4);
        ack(&mut cc, 1004.6336, 2, 4, 7);
        let window = cc.state().cwnd;
        // The three slow-start segments sent at th_ack_1 come back while pacing.
        ack(&mut cc, 1500.0, 2, 6, 40);
        assert_eq!((cc.state().phase, cc.state().cwnd), ("pacing", window));
        // The segment reaching snd_una + window (4 x 1448 + 78 125 = 83 917) ends pacing: segment
        // 56 ends at 82 536, segment 57 at 83 984.
        send(&mut cc, 1501.0, 56);
        assert_eq!(cc.state().phase, "pacing");
        send(&mut cc, 1502.0, 57);
        assert_eq!(cc.state().phase, "slow_start");
        assert_eq!(cc.state().pacing_rate, None);
        assert_eq!(cc.state().cwnd, window);
        ack(&mut cc, 1510.0, 1, 7, 58);
        assert_eq!(cc.state().cwnd, window + MSS, "slow start from the paced window");
    }

    #[test]
    fn timer_split_pair_aborts() {
        // th_ack_2 covers one segment where th_ack_1 covered two: the receiver's delayed-ACK
        // timer acknowledged a lone segment.
        let mut cc = build(Variant::Nasa, 1.0);
        start(&mut cc);
        ack(&mut cc, 1000.0, 2, 2, 4);
        ack(&mut cc, 1200.0, 1, 3, 7);
        assert_eq!(cc.state().phase, "slow_start");
        assert_eq!(cc.probe().estimate, None);
        ack(&mut cc, 1300.0, 2, 5, 7);
        assert_eq!(cc.state().phase, "slow_start", "no later estimate");
    }

    #[test]
    fn retransmission_or_loss_before_the_estimate_aborts() {
        let mut cc = build(Variant::Nasa, 1.0);
        start(&mut cc);
        ack(&mut cc, 1000.0, 2, 2, 4);
        cc.on_sent(&SentEvent {
            now: at(1100.0),
            seq: 2 * MSS,
            len: MSS as u32,
            is_retransmission: true,
            ..Default::default()
        });
        ack(&mut cc, 1104.0, 2, 4, 7);
        assert_eq!(cc.state().phase, "slow_start");
        let mut cc = build(Variant::Nasa, 1.0);
        start(&mut cc);
        cc.on_rto(&crate::events::RtoEvent { now: at(1500.0), flight_size: 4 * MSS, consecutive: 1 });
        ack(&mut cc, 2000.0, 2, 2, 4);
        ack(&mut cc, 2004.0, 2, 4, 4);
        assert!(cc.state().pacing_rate.is_none());
        assert_ne!(cc.state().phase, "pacing");
    }

    #[test]
    fn estimate_not_above_the_window_is_not_used() {
        // 0.5 Mbit/s, 100 ms, gamma 8: ce = 2896 x 100 / 46.336 = 6250 B, / 8 = 781 < 5 segments.
        let mut cc = build(Variant::Nasa, 8.0);
        start(&mut cc);
        ack(&mut cc, 600.0, 2, 2, 4);
        ack(&mut cc, 646.336, 2, 4, 7);
        assert_eq!(cc.probe().estimate, Some(6250));
        assert_eq!((cc.state().phase, cc.state().cwnd), ("slow_start", 6 * MSS));
    }

    #[test]
    fn zero_delta_on_a_coarse_clock_aborts() {
        let mut cc = build(Variant::Nasa, 1.0);
        start(&mut cc);
        ack(&mut cc, 1000.0, 2, 2, 4);
        ack(&mut cc, 1000.0, 2, 4, 7);
        assert_eq!(cc.state().phase, "slow_start");
        assert!(cc.state().pacing_rate.is_none());
    }

    #[test]
    fn bbn_paces_early_counts_one_segment_from_the_synack_and_never_stops() {
        let mut cc = build(Variant::Bbn, 1.0);
        start(&mut cc);
        ack(&mut cc, 1000.0, 2, 2, 4);
        // Premature pacing with the current window (5 segments) over the handshake RTT.
        assert_eq!((cc.state().phase, cc.state().cwnd), ("pacing", 5 * MSS));
        assert!((cc.state().pacing_rate.unwrap() - 5.0 * MSS as f64 / 0.5).abs() < 1e-6);
        ack(&mut cc, 1004.6336, 2, 4, 7);
        // delta = 1004.6 - 500 ms from the SYN-ACK, one segment: 1448 x 500 / 504.6 = 1434 B.
        assert_eq!(cc.probe().estimate, Some(1434));
        assert_eq!(cc.state().cwnd, 6 * MSS, "the slow-start window is used instead");
        for i in 0..20 {
            ack(&mut cc, 1500.0 + i as f64, 1, 5 + i, 40);
            send(&mut cc, 1500.0 + i as f64, 40 + i);
        }
        assert_eq!(cc.state().phase, "pacing", "pacing never stops");
        assert_eq!(cc.state().cwnd, 26 * MSS, "while slow start keeps growing the window");
        assert!((cc.state().pacing_rate.unwrap() - 26.0 * MSS as f64 / 0.5).abs() < 1e-6);
    }
}
