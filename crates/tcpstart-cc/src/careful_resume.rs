//! Careful Resume over NewReno: draft-ietf-tsvwg-careful-resume-24, "Convergence of Congestion
//! Control from Retained State" (Kuhn, Emile, Fairhurst, Secchi, Huitema, IETF TSVWG, 2025;
//! github.com/tsvwg/careful-resume). A new connection reuses the capacity (`saved_cwnd`) and
//! minimum RTT (`saved_rtt_ms`) an earlier connection observed on the same path: after the
//! initial window is acknowledged and the RTT confirms the path, the window jumps to half the
//! saved one, paced over the current RTT, and the jump is validated by the ACKs of the packets
//! it let out, or undone.
//!
//! The saved state is given as parameters (a scenario's `params`); the Observing phase of the
//! earlier connection, the Lifetime of saved state, the Remote-Endpoint match and the single-use
//! rule are the operator's business and not modelled. Without saved state (`saved_cwnd` = 0 or
//! `saved_rtt_ms` = 0) the algorithm is NewReno.
//!
//! State machine (draft section 4; PipeSize counts validated bytes):
//!
//! | phase | per ACK / send | leaves to | when |
//! |---|---|---|---|
//! | `reconnaissance` | NewReno (cwnd = IW at start) | `unvalidated` | an ACK covers the initial window, the flow is cwnd-limited, saved_rtt / 2 < min RTT <= 10 saved_rtt and jump_cwnd > cwnd: PipeSize = flight size, cwnd = jump_cwnd = min(max_jump, saved_cwnd / 2) |
//! | `reconnaissance` | | normal | the RTT or jump test fails, loss, timeout |
//! | `unvalidated` | no growth; paced at jump_cwnd / min RTT; PipeSize += acked | `validating` | window used up (less than an MSS left), first unvalidated packet acked, or one RTT since entry: cwnd = flight size |
//! | `unvalidated` | | normal | the same events with flight size < IW or <= PipeSize: cwnd = max(PipeSize, IW) (rate-limited) |
//! | `unvalidated`, `validating` | | `safe_retreat` | loss: cwnd = ssthresh = PipeSize / 2 (whole segments, at least 2) |
//! | `validating` | NewReno growth; PipeSize += acked | normal | last unvalidated packet acked |
//! | `safe_retreat` | no growth (and no PRR); PipeSize += acked | normal | last unvalidated packet acked: ssthresh = PipeSize x beta, cwnd stays |
//! | any | | normal | timeout: NewReno's response |
//!
//! Interpretations (docs/algorithms/careful-resume.md):
//! - The jump waits for the first ACK that covers the initial window while the sender is
//!   cwnd-limited (the draft lets it be deferred until more data is sent than CC would allow, as
//!   picoquic does); a rate-limited sender stays in reconnaissance.
//! - "Current RTT" for the path check and the pacing is the connection's minimum RTT so far
//!   (draft note: the check uses the minimum over reconnaissance); the pacing counts payload
//!   bytes, as the simulator's pacing does, where the draft's ITT uses the packet size with headers.
//! - A jump no larger than the current window is not made (nothing to gain): normal CC.
//! - Safe Retreat's window is PipeSize / 2 rounded down to whole segments, at least two
//!   (the draft's example: PipeSize 63 packets gives 31); on leaving it cwnd keeps that value
//!   and slow start grows it towards ssthresh = PipeSize x beta (the draft's example).
//! - The last unvalidated packet is the highest sent when Validating began, or, entering Safe
//!   Retreat straight from Unvalidated, when the loss was detected.
//! - The one-RTT limit of the Unvalidated phase is checked at sends and ACKs (no timer).

use crate::controller::{Capabilities, CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{Reno, RenoVariant, ABC};
use crate::time::{Duration, Instant};

const SAVED_CWND: ParamSpec = ParamSpec {
    name: "saved_cwnd",
    default: 0.0,
    min: 0.0,
    max: 1e12,
    integer: true,
    doc: "saved_cwnd in bytes: the capacity an earlier connection observed (0 = no saved state: NewReno)",
};
const SAVED_RTT_MS: ParamSpec = ParamSpec {
    name: "saved_rtt_ms",
    default: 0.0,
    min: 0.0,
    max: 1e6,
    integer: false,
    doc: "saved_rtt in ms: the minimum RTT an earlier connection observed (0 = no saved state: NewReno)",
};
const MAX_JUMP: ParamSpec = ParamSpec {
    name: "max_jump",
    default: 0.0,
    min: 0.0,
    max: 1e12,
    integer: true,
    doc: "max_jump in bytes: the largest jump_cwnd (0 = no limit beyond saved_cwnd / 2)",
};
const BETA: ParamSpec = ParamSpec {
    name: "beta",
    default: 0.5,
    min: 0.5,
    max: 1.0,
    integer: false,
    doc: "Beta: on leaving Safe Retreat ssthresh = PipeSize x beta",
};

pub const NEWRENO_CAREFUL_RESUME: Registration = Registration {
    info: AlgorithmInfo {
        name: "newreno+careful-resume",
        summary:
            "NewReno that resumes half a saved window, paced, after confirming the path, and validates or retreats",
        reference:
            "draft-ietf-tsvwg-careful-resume-24 (Convergence of Congestion Control from Retained State) over RFC 6582",
        params: &[SAVED_CWND, SAVED_RTT_MS, MAX_JUMP, BETA, ABC],
    },
    build: |p, cfg| Box::new(CarefulResume::from_params(p, cfg)),
    receiver_hook: None,
};

/// The state an earlier connection left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saved {
    pub cwnd: u64,
    pub rtt: Duration,
    /// None: no limit.
    pub max_jump: Option<u64>,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Reconnaissance,
    Unvalidated,
    Validating,
    SafeRetreat,
    Normal,
}

#[derive(Clone, Debug)]
pub struct CarefulResume {
    reno: Reno,
    saved: Saved,
    phase: Phase,
    iw: u64,
    pipe_size: u64,
    /// Paced rate in the Unvalidated phase, bytes per second.
    rate: f64,
    unvalidated_since: Instant,
    /// Minimum RTT when the jump was made: the Unvalidated phase's length and pacing base.
    rtt: Duration,
    first_unvalidated: u64,
    last_unvalidated: u64,
    /// The current fast recovery is Safe Retreat's: its end keeps the retreat window.
    retreat_recovery: bool,
}

impl CarefulResume {
    pub fn new(reno: Reno, saved: Option<Saved>) -> Self {
        let iw = reno.cwnd;
        CarefulResume {
            reno,
            saved: saved.unwrap_or(Saved { cwnd: 0, rtt: Duration::ZERO, max_jump: None, beta: 0.5 }),
            phase: if saved.is_some() { Phase::Reconnaissance } else { Phase::Normal },
            iw,
            pipe_size: 0,
            rate: 0.0,
            unvalidated_since: Instant::ZERO,
            rtt: Duration::ZERO,
            first_unvalidated: 0,
            last_unvalidated: 0,
            retreat_recovery: false,
        }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        let reno = Reno::from_params(RenoVariant::NewReno, p, cfg);
        let (cwnd, rtt_ms) = (p["saved_cwnd"] as u64, p["saved_rtt_ms"]);
        let saved = (cwnd > 0 && rtt_ms > 0.0).then(|| Saved {
            cwnd,
            rtt: Duration::from_secs_f64(rtt_ms / 1000.0),
            max_jump: (p["max_jump"] > 0.0).then_some(p["max_jump"] as u64),
            beta: p["beta"],
        });
        CarefulResume::new(reno, saved)
    }

    pub fn cr_phase(&self) -> Phase {
        self.phase
    }

    pub fn pipe_size(&self) -> u64 {
        self.pipe_size
    }

    fn jump_cwnd(&self) -> u64 {
        let half = self.saved.cwnd / 2;
        self.saved.max_jump.map_or(half, |m| m.min(half))
    }

    /// Reconnaissance (Path confirmed) and entry to the Unvalidated phase, on an ACK.
    fn try_jump(&mut self, ev: &AckEvent) {
        if ev.snd_una < self.iw || !ev.cwnd_limited {
            return;
        }
        let Some(rtt) = ev.min_rtt else { return };
        let jump = self.jump_cwnd();
        if rtt <= self.saved.rtt / 2 || rtt > self.saved.rtt * 10 || jump <= self.reno.cwnd {
            self.phase = Phase::Normal;
            return;
        }
        self.phase = Phase::Unvalidated;
        self.pipe_size = ev.bytes_in_flight;
        self.reno.cwnd = jump;
        self.rtt = rtt;
        self.rate = jump as f64 / rtt.as_secs_f64();
        self.unvalidated_since = ev.now;
        self.first_unvalidated = ev.snd_nxt;
    }

    /// Unvalidated (Check flight_size): leave the Unvalidated phase with `flight` bytes out and
    /// `snd_nxt` the end of the last unvalidated packet.
    fn end_unvalidated(&mut self, flight: u64, snd_nxt: u64) {
        if flight < self.iw || flight <= self.pipe_size {
            self.reno.cwnd = self.pipe_size.max(self.iw);
            self.phase = Phase::Normal;
        } else {
            self.reno.cwnd = flight;
            self.last_unvalidated = snd_nxt;
            self.phase = Phase::Validating;
        }
    }

    fn unvalidated_rtt_over(&self, now: Instant) -> bool {
        now - self.unvalidated_since > self.rtt
    }
}

impl CongestionControl for CarefulResume {
    fn name(&self) -> &'static str {
        "newreno+careful-resume"
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        let used_up = ev.bytes_in_flight + self.reno.mss > self.reno.cwnd;
        if self.phase == Phase::Unvalidated && (used_up || self.unvalidated_rtt_over(ev.now)) {
            self.end_unvalidated(ev.bytes_in_flight, ev.seq + u64::from(ev.len));
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let acked = ev.bytes_acked + ev.bytes_sacked;
        match self.phase {
            Phase::Normal => self.reno.on_ack(ev),
            Phase::Reconnaissance => {
                self.reno.on_ack(ev);
                self.try_jump(ev);
            }
            Phase::Unvalidated => {
                self.pipe_size += acked;
                if ev.snd_una > self.first_unvalidated || self.unvalidated_rtt_over(ev.now) {
                    self.end_unvalidated(ev.bytes_in_flight, ev.snd_nxt);
                }
            }
            Phase::Validating => {
                self.pipe_size += acked;
                self.reno.on_ack(ev);
                if ev.snd_una >= self.last_unvalidated {
                    self.phase = Phase::Normal;
                }
            }
            Phase::SafeRetreat => {
                self.pipe_size += acked;
                if ev.snd_una >= self.last_unvalidated {
                    let ssthresh = (self.pipe_size as f64 * self.saved.beta) as u64;
                    self.reno.ssthresh = ssthresh.max(2 * self.reno.mss);
                    self.phase = Phase::Normal;
                }
            }
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.reno.on_congestion(ev);
        match self.phase {
            Phase::Unvalidated | Phase::Validating => {
                if self.phase == Phase::Unvalidated {
                    self.last_unvalidated = ev.high_data;
                }
                let mss = self.reno.mss;
                let retreat = (self.pipe_size / 2 / mss * mss).max(2 * mss);
                self.reno.cwnd = retreat;
                self.reno.ssthresh = retreat;
                self.retreat_recovery = true;
                self.phase = Phase::SafeRetreat;
            }
            _ => self.phase = Phase::Normal,
        }
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        let cwnd = self.reno.cwnd;
        self.reno.on_recovery_exit(ev);
        if std::mem::take(&mut self.retreat_recovery) {
            self.reno.cwnd = cwnd;
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.phase = Phase::Normal;
        self.retreat_recovery = false;
        self.reno.on_rto(ev);
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            partial_ack_policy: self.reno.capabilities().partial_ack_policy,
            uses_rate_samples: false,
            ..Capabilities::default()
        }
    }

    /// Safe Retreat sets its window itself: the draft rules out PRR for that reduction.
    fn state(&self) -> CcState {
        let reno = self.reno.state();
        let phase = match self.phase {
            Phase::Reconnaissance => "reconnaissance",
            Phase::Unvalidated => "unvalidated",
            Phase::Validating => "validating",
            Phase::SafeRetreat => "safe_retreat",
            Phase::Normal => reno.phase,
        };
        CcState {
            pacing_rate: (self.phase == Phase::Unvalidated).then_some(self.rate),
            phase,
            sets_recovery_window: self.phase == Phase::SafeRetreat,
            ..reno
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn cr(saved_cwnd_segments: u64, saved_rtt_ms: u64) -> CarefulResume {
        let saved = Saved {
            cwnd: saved_cwnd_segments * MSS,
            rtt: Duration::from_millis(saved_rtt_ms),
            max_jump: None,
            beta: 0.5,
        };
        CarefulResume::new(Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 0), Some(saved))
    }

    fn at_ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    /// An ACK at `ms` acknowledging up to segment `una` with `sent` segments sent, min RTT 100 ms.
    fn ack(ms: u64, acked: u64, una: u64, sent: u64) -> AckEvent {
        AckEvent {
            now: at_ms(ms),
            bytes_acked: acked * MSS,
            min_rtt: Some(Duration::from_millis(100)),
            bytes_in_flight: (sent - una) * MSS,
            cwnd_limited: true,
            snd_una: una * MSS,
            snd_nxt: sent * MSS,
            ..Default::default()
        }
    }

    fn send(cc: &mut CarefulResume, ms: u64, seg: u64, una: u64) {
        cc.on_sent(&SentEvent {
            now: at_ms(ms),
            seq: seg * MSS,
            len: MSS as u32,
            bytes_in_flight: (seg + 1 - una) * MSS,
            ..Default::default()
        });
    }

    /// As in the draft's first example, saved_cwnd 300 packets and IW 10: the ACK covering the
    /// initial window (the tenth; 28 segments sent, 18 in flight) confirms the path:
    /// PipeSize 18, cwnd 150.
    fn at_the_jump() -> CarefulResume {
        let mut cc = cr(300, 100);
        for i in 1..=10 {
            cc.on_ack(&ack(100 + i, 1, i, 8 + 2 * i));
            if i < 10 {
                assert_eq!(cc.cr_phase(), Phase::Reconnaissance);
            }
        }
        cc
    }

    #[test]
    fn the_jump_follows_the_drafts_first_example() {
        let cc = at_the_jump();
        assert_eq!(cc.cr_phase(), Phase::Unvalidated);
        assert_eq!((cc.pipe_size(), cc.state().cwnd), (18 * MSS, 150 * MSS));
        // Paced: jump_cwnd per current RTT, 150 000 B / 0.1 s.
        assert_eq!(cc.state().pacing_rate, Some(1_500_000.0));
        assert_eq!(cc.state().phase, "unvalidated");
    }

    #[test]
    fn a_path_whose_rtt_changed_is_not_resumed() {
        // Current 100 ms against saved 200 ms (<= half) or 9 ms (> 10 times): NewReno as usual.
        for saved_rtt in [200, 9] {
            let mut cc = cr(300, saved_rtt);
            for i in 1..=10 {
                cc.on_ack(&ack(100 + i, 1, i, 8 + 2 * i));
            }
            assert_eq!((cc.cr_phase(), cc.state().cwnd, cc.state().pacing_rate), (Phase::Normal, 20 * MSS, None));
        }
        // Just above half: resumed.
        let mut cc = cr(300, 199);
        for i in 1..=10 {
            cc.on_ack(&ack(100 + i, 1, i, 8 + 2 * i));
        }
        assert_eq!(cc.cr_phase(), Phase::Unvalidated);
    }

    #[test]
    fn validated_when_the_unvalidated_packets_are_acknowledged() {
        let mut cc = at_the_jump();
        // Send until less than an MSS of the window is left: 150 in flight (segments 28..159).
        let una = 10;
        for seg in 28..(una + 150) {
            send(&mut cc, 120, seg, una);
        }
        assert_eq!(cc.cr_phase(), Phase::Validating);
        assert_eq!(cc.state().cwnd, 150 * MSS, "cwnd = flight size");
        // ACKs of the pre-jump data grow the window by slow start and count into PipeSize.
        cc.on_ack(&ack(210, 1, 11, 160));
        assert_eq!((cc.state().cwnd, cc.pipe_size()), (151 * MSS, 19 * MSS));
        // The ACK of the last unvalidated packet (segment 159) ends Careful Resume.
        cc.on_ack(&ack(330, 149, 160, 160));
        assert_eq!(cc.cr_phase(), Phase::Normal);
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn a_rate_limited_sender_falls_back_to_the_pipe_size() {
        let mut cc = at_the_jump();
        // Nothing more to send; more than one RTT after the jump an ACK finds 12 in flight,
        // no more than PipeSize (18 + 6 acknowledged = 24): cwnd = PipeSize.
        cc.on_ack(&ack(150, 6, 16, 28));
        assert_eq!(cc.cr_phase(), Phase::Unvalidated);
        cc.on_ack(&ack(212, 0, 16, 28));
        assert_eq!((cc.cr_phase(), cc.state().cwnd), (Phase::Normal, 24 * MSS));
    }

    #[test]
    fn a_loss_of_unvalidated_data_retreats_as_in_the_drafts_example() {
        // The draft's third example: PipeSize 63 (29 + 34) when the loss is detected: cwnd 31.
        let mut cc = at_the_jump();
        cc.pipe_size = 29 * MSS;
        cc.on_ack(&ack(210, 34, 44, 150));
        cc.on_congestion(&CongestionEvent { flight_size: 106 * MSS, high_data: 160 * MSS, ..Default::default() });
        assert_eq!((cc.cr_phase(), cc.state().cwnd, cc.state().ssthresh), (Phase::SafeRetreat, 31 * MSS, 31 * MSS));
        assert!(cc.state().sets_recovery_window, "no PRR for this reduction");
        // ACKs during the retreat add to PipeSize but not to the window.
        cc.on_ack(&AckEvent { in_recovery: true, ..ack(310, 20, 64, 160) });
        assert_eq!((cc.state().cwnd, cc.pipe_size()), (31 * MSS, 83 * MSS));
        // The last unvalidated packet acknowledged: ssthresh = 120 x 0.5, cwnd stays, slow start.
        cc.on_ack(&AckEvent { in_recovery: true, ..ack(410, 37, 160, 160) });
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        assert_eq!((cc.cr_phase(), cc.state().cwnd, cc.state().ssthresh), (Phase::Normal, 31 * MSS, 60 * MSS));
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn without_saved_state_or_after_a_timeout_it_is_newreno() {
        let mut plain = CarefulResume::new(Reno::new(RenoVariant::NewReno, MSS, 10 * MSS, u64::MAX, 0), None);
        assert_eq!(plain.cr_phase(), Phase::Normal);
        for i in 1..=10 {
            plain.on_ack(&ack(100 + i, 1, i, 8 + 2 * i));
        }
        assert_eq!(plain.state().cwnd, 20 * MSS);
        let mut cc = at_the_jump();
        cc.on_rto(&RtoEvent { flight_size: 150 * MSS, consecutive: 1, ..Default::default() });
        assert_eq!(
            (cc.cr_phase(), cc.state().cwnd, cc.state().ssthresh, cc.state().pacing_rate),
            (Phase::Normal, MSS, 75 * MSS, None)
        );
    }
}
