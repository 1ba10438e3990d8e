//! Quick-Start (RFC 4782, Floyd, Allman, Jain, Sarolahti, 2007), the sender's part: the SYN asks
//! the path for a rate, every router on it approves, reduces or refuses it (the simulator's
//! router element), the receiver echoes the approved rate in the SYN-ACK, and the sender paces
//! the window that rate fills in one round trip before its host algorithm (NewReno or CUBIC)
//! carries on. Registered as `newreno+quick-start` and `cubic+quick-start`.
//!
//! State machine (RFC 4782 sections 4.1, 4.6.1, 4.6.2):
//!
//! | phase | per ACK / send | leaves to | when |
//! |---|---|---|---|
//! | `requesting` (host's phase name) | host | `quick_start` | SYN-ACK reports rate R > 0 and QS-cwnd > cwnd: cwnd = QS-cwnd, paced at QS-cwnd / T |
//! | `requesting` | host | `off` | no response, R = 0, no handshake RTT, or QS-cwnd <= cwnd |
//! | `quick_start` | ACKs do not grow cwnd; sends paced | `off` | the first ACK of a Quick-Start packet: cwnd = max(bytes sent, cwnd before), then the host's per-ACK rule |
//! | `quick_start` (or Quick-Start packets unacknowledged) | | `off` | loss of Quick-Start packets: host's response, then cwnd = ssthresh = max(QS bytes acknowledged / 2, 2 MSS) |
//! | any | | `off` | timeout: the host's response |
//!
//! with QS-cwnd = R x T x MSS / (MSS + H) rounded down to whole segments (section 4.6.1: R the
//! approved rate in bytes per second, T the handshake RTT, H = [`HEADER_BYTES`]).
//!
//! Interpretations (docs/algorithms/quick-start.md has them all):
//! - The request is `request_mbps` (0, the default: the largest rate the option can carry,
//!   1310.72 Mbit/s), encoded as the largest rate code not above it: the routers reduce it to
//!   what they can spare, so asking for the most the sender could use costs nothing.
//! - Only the first SYN asks; a retransmitted SYN does not (it gives no RTT to size the window).
//! - The Quick-Start packets are the data from sequence 0 to QS-cwnd; the phase ends with the
//!   first ACK of one of them (section 4.6.1), one round trip after pacing began.
//! - After a loss of Quick-Start packets (section 4.6.2: "revert to the congestion control
//!   procedures that would have been used without Quick-Start"), the window is half of what
//!   the path delivered of the Quick-Start window before the loss was detected.

use crate::controller::{Capabilities, CcState, CongestionControl};
use crate::cubic::{self, Cubic};
use crate::events::{AckEvent, CongestionEvent, EstablishedEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::registry::{AlgorithmInfo, ParamSpec, Params, Registration};
use crate::reno::{Reno, RenoVariant, ABC};

/// K of the Rate Request field: code N (1..=15) asks for K x 2^N bit/s; 0 asks for nothing
/// (RFC 4782 section 3.1).
pub const RATE_UNIT_BPS: f64 = 40_000.0;
/// The largest rate code of the 4-bit field.
pub const MAX_RATE_CODE: u8 = 15;
/// H of section 4.6.1: estimated IP and TCP header bytes per data packet.
pub const HEADER_BYTES: u64 = 40;

/// The rate, bit/s, that rate code `n` stands for (0 for 0).
pub fn rate_of_code(n: u8) -> f64 {
    if n == 0 {
        0.0
    } else {
        RATE_UNIT_BPS * f64::from(1u32 << n.min(MAX_RATE_CODE))
    }
}

/// The largest rate code whose rate does not exceed `bps` (0 below the smallest rate).
pub fn code_for_rate(bps: f64) -> u8 {
    (1..=MAX_RATE_CODE).rev().find(|&n| rate_of_code(n) <= bps).unwrap_or(0)
}

const REQUEST_MBPS: ParamSpec = ParamSpec {
    name: "request_mbps",
    default: 0.0,
    min: 0.0,
    max: 1310.72,
    integer: false,
    doc: "rate asked for in the SYN in Mbit/s, rounded down to the option's steps (0 = the largest, 1310.72)",
};

/// The host algorithm's window, as Quick-Start sets it.
pub trait Host: CongestionControl {
    /// Sets cwnd and ssthresh in bytes.
    fn set_window(&mut self, cwnd: u64, ssthresh: u64);
}

impl Host for Reno {
    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        Reno::set_window(self, cwnd, ssthresh);
    }
}

impl Host for Cubic {
    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        // CUBIC counts packets; its byte window is packets x MSS exactly.
        let mss = self.state().cwnd / self.packets().0.max(1);
        let ssthresh = if ssthresh == u64::MAX { u64::MAX } else { (ssthresh / mss).max(2) };
        self.set_packets(cwnd / mss, ssthresh);
    }
}

const RENO_PARAMS: [ParamSpec; 2] = [REQUEST_MBPS, ABC];
const CUBIC_PARAMS: [ParamSpec; 8] = {
    let h = cubic::HYSTART_PARAMS;
    [REQUEST_MBPS, h[0], h[1], h[2], h[3], h[4], h[5], h[6]]
};

pub const NEWRENO_QUICK_START: Registration = Registration {
    info: AlgorithmInfo {
        name: "newreno+quick-start",
        summary: "NewReno that asks the routers for a rate in the SYN and paces the approved window over the first round trip",
        reference: "RFC 4782 (Quick-Start for TCP and IP) sections 3-4 over RFC 6582",
        params: &RENO_PARAMS,
    },
    build: |p, cfg| {
        let reno = Reno::from_params(RenoVariant::NewReno, p, cfg);
        Box::new(QuickStart::new("newreno+quick-start", reno, request(p), cfg.mss))
    },
    receiver_hook: None,
};

pub const CUBIC_QUICK_START: Registration = Registration {
    info: AlgorithmInfo {
        name: "cubic+quick-start",
        summary: "CUBIC (with HyStart) that asks the routers for a rate in the SYN and paces the approved window over the first round trip",
        reference: "RFC 4782 (Quick-Start for TCP and IP) sections 3-4 over RFC 9438 / Linux net/ipv4/tcp_cubic.c",
        params: &CUBIC_PARAMS,
    },
    build: |p, cfg| Box::new(QuickStart::new("cubic+quick-start", cubic::with_hystart(p, cfg), request(p), cfg.mss)),
    receiver_hook: None,
};

/// The requested rate in bytes per second.
fn request(p: &Params) -> f64 {
    let mbps = if p["request_mbps"] == 0.0 { rate_of_code(MAX_RATE_CODE) / 1e6 } else { p["request_mbps"] };
    rate_of_code(code_for_rate(mbps * 1e6)) / 8.0
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// Before the SYN-ACK.
    Requesting,
    /// The approved window is being paced; `window` bytes (the Quick-Start packets are the data
    /// below it), `rate` bytes per second.
    Paced {
        window: u64,
        rate: f64,
    },
    Off,
}

pub struct QuickStart<H: Host> {
    name: &'static str,
    host: H,
    /// Bytes per second asked for in the SYN.
    request: f64,
    mss: u64,
    phase: Phase,
    /// End of the Quick-Start packets (0: none were approved).
    qs_end: u64,
    /// Highest sequence sent so far, and SND.UNA as of the latest ACK.
    snd_nxt: u64,
    snd_una: u64,
}

impl<H: Host> QuickStart<H> {
    pub fn new(name: &'static str, host: H, request: f64, mss: u64) -> Self {
        QuickStart { name, host, request, mss, phase: Phase::Requesting, qs_end: 0, snd_nxt: 0, snd_una: 0 }
    }

    pub fn qs_phase(&self) -> Phase {
        self.phase
    }

    /// Loss of Quick-Start packets (RFC 4782 4.6.2); `acked` is SND.UNA when it was detected.
    fn quick_start_lost(&mut self, acked: u64) {
        let window = (acked.min(self.qs_end) / 2 / self.mss * self.mss).max(2 * self.mss);
        self.host.set_window(window, window);
        self.phase = Phase::Off;
        self.qs_end = 0;
    }
}

impl<H: Host> CongestionControl for QuickStart<H> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            partial_ack_policy: self.host.capabilities().partial_ack_policy,
            uses_rate_samples: false,
            quick_start_request: Some(self.request),
            ..Capabilities::default()
        }
    }

    fn on_established(&mut self, ev: &EstablishedEvent) {
        self.host.on_established(ev);
        self.phase = Phase::Off;
        let (Some(rate), Some(rtt)) = (ev.quick_start_rate, ev.handshake_rtt) else { return };
        let wire_share = self.mss as f64 / (self.mss + HEADER_BYTES) as f64;
        let window = (rate * rtt.as_secs_f64() * wire_share) as u64 / self.mss * self.mss;
        if window <= self.host.state().cwnd || rtt.is_zero() {
            return;
        }
        let ssthresh = self.host.state().ssthresh;
        self.host.set_window(window, ssthresh);
        self.phase = Phase::Paced { window, rate: window as f64 / rtt.as_secs_f64() };
        self.qs_end = window;
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        self.snd_nxt = self.snd_nxt.max(ev.seq + u64::from(ev.len));
        self.host.on_sent(ev);
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.snd_una = ev.snd_una;
        if let Phase::Paced { window, .. } = self.phase {
            if ev.snd_una == 0 {
                return;
            }
            // The first ACK of a Quick-Start packet: the window is what was sent of it.
            let ssthresh = self.host.state().ssthresh;
            self.host.set_window(self.snd_nxt.min(window).max(self.mss), ssthresh);
            self.phase = Phase::Off;
        }
        self.host.on_ack(ev);
        if ev.snd_una >= self.qs_end {
            self.qs_end = 0;
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.host.on_congestion(ev);
        if self.qs_end > 0 {
            self.quick_start_lost(self.snd_una);
        }
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.host.on_recovery_exit(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.phase = Phase::Off;
        self.qs_end = 0;
        self.host.on_rto(ev);
    }

    fn state(&self) -> CcState {
        let host = self.host.state();
        match self.phase {
            Phase::Paced { rate, .. } => CcState { pacing_rate: Some(rate), phase: "quick_start", ..host },
            _ => host,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::CcConfig;
    use crate::time::{Duration, Instant};

    const MSS: u64 = 1000;

    fn newreno() -> QuickStart<Reno> {
        let reno = Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 0);
        QuickStart::new("newreno+quick-start", reno, rate_of_code(MAX_RATE_CODE) / 8.0, MSS)
    }

    fn at_ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    /// The SYN-ACK at 100 ms: handshake RTT 100 ms and rate code `code` approved.
    fn established(cc: &mut QuickStart<Reno>, code: Option<u8>) {
        cc.on_established(&EstablishedEvent {
            now: at_ms(100),
            handshake_rtt: Some(Duration::from_millis(100)),
            quick_start_rate: code.map(|c| rate_of_code(c) / 8.0),
            ..Default::default()
        });
    }

    fn send(cc: &mut QuickStart<Reno>, ms: u64, seg: u64) {
        cc.on_sent(&SentEvent { now: at_ms(ms), seq: seg * MSS, len: MSS as u32, ..Default::default() });
    }

    fn ack(ms: u64, una: u64, acked: u64, sent: u64) -> AckEvent {
        AckEvent {
            now: at_ms(ms),
            bytes_acked: acked * MSS,
            snd_una: una * MSS,
            snd_nxt: sent * MSS,
            bytes_in_flight: (sent - una) * MSS,
            cwnd_limited: true,
            ..Default::default()
        }
    }

    #[test]
    fn rate_codes_follow_the_rfc_steps() {
        // 40 kbit/s x 2^N; 0 stands for no rate.
        assert_eq!([rate_of_code(0), rate_of_code(1), rate_of_code(15)], [0.0, 80_000.0, 1_310_720_000.0]);
        assert_eq!(code_for_rate(10_240_000.0), 8, "an exact step");
        assert_eq!(code_for_rate(10_239_999.0), 7, "rounded down");
        assert_eq!(code_for_rate(79_999.0), 0);
        assert_eq!(code_for_rate(1e12), 15);
        assert_eq!(HEADER_BYTES, 40);
    }

    #[test]
    fn the_request_is_rounded_down_to_a_step() {
        let cc = |mbps: f64| {
            let p = Params::from([("request_mbps", mbps), ("abc", 2.0)]);
            (NEWRENO_QUICK_START.build)(&p, &CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX })
                .capabilities()
                .quick_start_request
        };
        assert_eq!(cc(0.0), Some(1_310_720_000.0 / 8.0), "0: the largest step");
        assert_eq!(cc(15.0), Some(10_240_000.0 / 8.0));
    }

    #[test]
    fn an_approved_rate_paces_its_window_over_one_rtt() {
        let mut cc = newreno();
        assert_eq!(cc.qs_phase(), Phase::Requesting);
        // Code 7: 5.12 Mbit/s = 640 000 B/s; over 100 ms with 40 header bytes per 1000:
        // 64 000 x 1000 / 1040 = 61 538 B, 61 segments.
        established(&mut cc, Some(7));
        assert_eq!(cc.state().cwnd, 61 * MSS);
        assert_eq!(cc.qs_phase(), Phase::Paced { window: 61 * MSS, rate: 610_000.0 });
        assert_eq!((cc.state().pacing_rate, cc.state().phase), (Some(610_000.0), "quick_start"));
        for seg in 0..61 {
            send(&mut cc, 100 + seg * 100 / 61, seg);
        }
        // The first ACK of a Quick-Start packet ends the phase; slow start goes on from the window.
        cc.on_ack(&ack(200, 1, 1, 61));
        assert_eq!((cc.qs_phase(), cc.state().pacing_rate, cc.state().phase), (Phase::Off, None, "slow_start"));
        assert_eq!(cc.state().cwnd, 62 * MSS);
    }

    #[test]
    fn an_unused_window_is_cut_to_what_was_sent() {
        let mut cc = newreno();
        established(&mut cc, Some(7));
        // Only 20 segments to send.
        for seg in 0..20 {
            send(&mut cc, 100, seg);
        }
        cc.on_ack(&ack(200, 1, 1, 20));
        assert_eq!(cc.state().cwnd, 21 * MSS, "20 sent, plus slow start's growth for the ACK");
    }

    #[test]
    fn a_refused_or_useless_rate_leaves_the_host_alone() {
        for code in [None, Some(0), Some(3)] {
            // Code 3: 320 kbit/s x 100 ms = 4 kB, below the initial window.
            let mut cc = newreno();
            established(&mut cc, code);
            assert_eq!(
                (cc.qs_phase(), cc.state().cwnd, cc.state().pacing_rate),
                (Phase::Off, 10 * MSS, None),
                "{code:?}"
            );
            cc.on_ack(&ack(200, 1, 1, 10));
            assert_eq!(cc.state().cwnd, 11 * MSS);
        }
        // No RTT from the handshake (a retransmitted SYN): nothing to size the window by.
        let mut cc = newreno();
        cc.on_established(&EstablishedEvent { quick_start_rate: Some(1e6), ..Default::default() });
        assert_eq!((cc.qs_phase(), cc.state().cwnd), (Phase::Off, 10 * MSS));
    }

    #[test]
    fn a_lost_quick_start_packet_halves_what_was_delivered() {
        let mut cc = newreno();
        established(&mut cc, Some(7));
        for seg in 0..61 {
            send(&mut cc, 150, seg);
        }
        // Segments 0..30 acknowledged, then a hole at 30 (duplicate ACKs carry no growth).
        cc.on_ack(&ack(200, 30, 30, 61));
        cc.on_ack(&ack(201, 30, 0, 61));
        cc.on_congestion(&CongestionEvent { now: at_ms(202), flight_size: 31 * MSS, high_data: 61 * MSS });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (15 * MSS, 15 * MSS));
        assert_eq!(cc.qs_phase(), Phase::Off);
        // A later loss is the host's alone.
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        cc.on_ack(&ack(400, 61, 31, 61));
        cc.on_congestion(&CongestionEvent { now: at_ms(500), flight_size: 40 * MSS, high_data: 100 * MSS });
        assert_eq!(cc.state().ssthresh, 20 * MSS, "NewReno: half the flight size");
    }

    #[test]
    fn a_timeout_ends_quick_start() {
        let mut cc = newreno();
        established(&mut cc, Some(7));
        cc.on_rto(&RtoEvent { now: at_ms(1100), flight_size: 61 * MSS, consecutive: 1 });
        assert_eq!((cc.qs_phase(), cc.state().cwnd, cc.state().pacing_rate), (Phase::Off, MSS, None));
    }

    #[test]
    fn cubic_gets_the_window_in_packets() {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        let p = crate::registry::resolve_params("cubic+quick-start", &Default::default()).unwrap();
        let mut cc = QuickStart::new("cubic+quick-start", cubic::with_hystart(&p, &cfg), 1e9, MSS);
        cc.on_established(&EstablishedEvent {
            handshake_rtt: Some(Duration::from_millis(100)),
            quick_start_rate: Some(640_000.0),
            ..Default::default()
        });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh, cc.state().phase), (61 * MSS, u64::MAX, "quick_start"));
    }
}
