//! eHSTCP, enhanced HighSpeed TCP (Choi, Lee, Cho, "Enhanced Congestion Control Algorithm for
//! High-Speed TCP"): HighSpeed TCP ([`crate::highspeed`]) whose increase and decrease are steered
//! by queueing delay measured with TCP timestamps, with the backward (ACK) path's queueing
//! removed so that congestion on the return path does not slow the sender down.
//!
//! Measurements, on every ACK with an RTT sample (paper section 2, eqs. 1-3):
//! - one-way delays from the timestamp option: forward d_f = TSval(receiver) - TSecr (the echoed
//!   send time), backward d_b = RTT - d_f (= arrival time - TSval(receiver)). The two clocks are
//!   not synchronised, so each carries an unknown constant offset; only d - min(d) is used
//!   ("we are only interested in the relative time difference"). Queueing delays:
//!   d_f,q = d_f - min(d_f), d_b,q = d_b - min(d_b);
//! - effective RTT: eRTT = RTT - d_b,q (eq. 1, 2), the RTT without backward queueing;
//! - backlog: N' = cwnd x d_f,q / eRTT in segments (eq. 3);
//! - RTTmin and RTTmax: smallest and largest RTT sample of the connection.
//!
//! State machine:
//! - `slow_start`: HighSpeed's (standard) slow start;
//! - congestion avoidance, per ACK: N' < N* -> `hstcp_increase`, cwnd += a(w)/w (HighSpeed);
//!   N' >= N* -> `reno_increase`, Reno's congestion avoidance (the network is fully utilised);
//! - loss (`recovery`): 1 - beta_e = RTTmin / eRTT (eq. 4), cwnd = ssthresh = (1 - beta_e) x cwnd.
//!   If beta_e < beta_HSTCP = b(w) the reduction is gentler than HighSpeed's, so w_desg =
//!   (1 - b(w)) x cwnd is kept and a safety check follows recovery;
//! - `safety_check`: lasts `safety_rtts` x RTTmax (5 in the paper); no increase; if N' > N* on any
//!   ACK, cwnd = ssthresh = w_desg and the phase ends; otherwise it ends after its time and
//!   additive increase resumes;
//! - timeout: HighSpeed's (ssthresh = (1 - b(w)) x cwnd, cwnd = 1 segment); any safety check is
//!   dropped.
//!
//! Interpretations (also in docs/algorithms/ehstcp.md):
//! - Timestamp values are read as nanoseconds on both ends (the simulator's timestamp clocks);
//!   clock rates are taken as equal (no skew estimation).
//! - d_f,q is measured directly from one-way samples; eq. 3 writes it as eRTT - RTTmin, which is
//!   the same quantity when the minima of d_f and d_b occur together.
//! - eRTT in eq. 4 is the latest sample before the loss was detected (the paper chooses the
//!   current eRTT over RTTmax because RTT samples at loss time are often below the maximum).
//! - beta_e is clamped to [0, 1): with eRTT <= RTTmin the loss leaves cwnd as it is, and the
//!   safety check decides. When beta_e >= b(w) the paper's eq. 4 reduction is used as is (it is at
//!   least HighSpeed's), with no safety check.
//! - The safety check starts when fast recovery ends, not at detection: until then every RTT
//!   sample describes data sent before the reduction and shows the queue the loss came from,
//!   which would always trip the N' > N* test. It compares with `>` as the paper says ("If N'
//!   exceeds N*"), while the increase rule switches at N' >= N*.
//! - Without timestamps (or with `backward_correction = 0`) eRTT = RTT and d_f,q = RTT - RTTmin:
//!   the plain RTT-based estimate the paper improves on.
//! - N' is computed from every ACK's own sample (`backlog_filter = 0`, the default: the paper
//!   names no filter). `backlog_filter = 1` uses, once per RTT, the sample of the last RTT with
//!   the smallest forward queueing delay (Vegas's practice of reading the queue from the minimum
//!   RTT of a round), so that one delayed ACK or a transient burst does not switch the increase
//!   rule for a whole round; the value holds until the next round ends.

use core::time::Duration;

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent};
use crate::highspeed::{Response, HIGHSPEED_PARAMS};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{Reno, RenoVariant};
use crate::time::Instant;

/// HighSpeed's parameters, then eHSTCP's own.
const PARAMS: [ParamSpec; 10] = {
    let h = HIGHSPEED_PARAMS;
    [
        h[0],
        h[1],
        h[2],
        h[3],
        h[4],
        h[5],
        ParamSpec {
            name: "n_star",
            default: 10.0,
            min: 0.0,
            max: 1e6,
            integer: false,
            doc: "N*: backlog in segments below which the HighSpeed increase is used (paper: 10)",
        },
        ParamSpec {
            name: "safety_rtts",
            default: 5.0,
            min: 0.0,
            max: 100.0,
            integer: false,
            doc: "length of the safety check phase in RTTmax (paper: 5); 0 = no safety check",
        },
        ParamSpec {
            name: "backward_correction",
            default: 1.0,
            min: 0.0,
            max: 1.0,
            integer: true,
            doc: "1 = remove backward queueing delay using timestamps (eRTT); 0 = plain RTT (for comparison)",
        },
        ParamSpec {
            name: "backlog_filter",
            default: 0.0,
            min: 0.0,
            max: 1.0,
            integer: true,
            doc: "0 = backlog N' from every ACK's sample; 1 = from the smallest forward queueing delay of each RTT",
        },
    ]
};

pub const EHSTCP: Registration = Registration {
    info: AlgorithmInfo {
        name: "ehstcp",
        summary: "eHSTCP: HighSpeed TCP steered by forward queueing delay from timestamps (backward queueing excluded)",
        reference: "Choi, Lee, Cho, Enhanced Congestion Control Algorithm for High-Speed TCP, section 2",
        params: &PARAMS,
    },
    build: |p, cfg| Box::new(Ehstcp::from_params(p, cfg)),
    receiver_hook: None,
};

/// eHSTCP's own tunables (the HighSpeed response function is separate).
#[derive(Clone, Copy, Debug)]
pub struct EhstcpParams {
    pub n_star: f64,
    pub safety_rtts: f64,
    pub backward_correction: bool,
    /// N' from the smallest forward queueing delay of each RTT instead of every sample.
    pub backlog_per_rtt: bool,
}

impl EhstcpParams {
    pub const PAPER: EhstcpParams =
        EhstcpParams { n_star: 10.0, safety_rtts: 5.0, backward_correction: true, backlog_per_rtt: false };
}

/// The safety check after a gentler-than-HighSpeed reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Safety {
    Off,
    /// Decided at the loss, starts when recovery ends.
    Pending {
        w_desg: u64,
    },
    Until {
        end: Instant,
        w_desg: u64,
    },
}

/// One RTT of samples for the filtered backlog: it ends at `end`; `least` is its sample with the
/// smallest forward queueing delay.
#[derive(Clone, Copy, Debug)]
struct Round {
    end: Instant,
    least: DelaySample,
}

/// Delay measurements of one ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelaySample {
    pub ertt: Duration,
    pub forward_queueing: Duration,
    pub backward_queueing: Duration,
}

#[derive(Clone, Debug)]
pub struct Ehstcp {
    reno: Reno,
    response: Response,
    params: EhstcpParams,
    /// Minima of the one-way delay samples, in the (offset) units of the timestamps.
    min_forward: Option<i64>,
    min_backward: Option<i64>,
    rtt_min: Option<Duration>,
    rtt_max: Option<Duration>,
    last: Option<DelaySample>,
    /// Latest backlog N' in segments.
    backlog: f64,
    /// The round in progress when the backlog is filtered per RTT.
    round: Option<Round>,
    safety: Safety,
}

fn nanos(d: Duration) -> i64 {
    d.as_nanos() as i64
}

impl Ehstcp {
    pub fn new(reno: Reno, response: Response, params: EhstcpParams) -> Self {
        Ehstcp {
            reno,
            response,
            params,
            min_forward: None,
            min_backward: None,
            rtt_min: None,
            rtt_max: None,
            last: None,
            backlog: 0.0,
            round: None,
            safety: Safety::Off,
        }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        let params = EhstcpParams {
            n_star: p["n_star"],
            safety_rtts: p["safety_rtts"],
            backward_correction: p["backward_correction"] == 1.0,
            backlog_per_rtt: p["backlog_filter"] == 1.0,
        };
        Ehstcp::new(Reno::from_params(RenoVariant::NewReno, p, cfg), Response::from_params(p), params)
    }

    /// The latest delay measurements, if any.
    pub fn last_sample(&self) -> Option<DelaySample> {
        self.last
    }

    /// The latest backlog estimate N' in segments.
    pub fn backlog(&self) -> f64 {
        self.backlog
    }

    /// Eqs. 1-3: eRTT, the queueing delays and N' from one ACK.
    fn measure(&mut self, ev: &AckEvent, rtt: Duration) {
        let rtt_min = *self.rtt_min.insert(self.rtt_min.map_or(rtt, |m| m.min(rtt)).min(ev.min_rtt.unwrap_or(rtt)));
        self.rtt_max = Some(self.rtt_max.map_or(rtt, |m| m.max(rtt)));
        let sample = match ev.timestamps.filter(|_| self.params.backward_correction) {
            Some(ts) => {
                let forward = ts.tsval.wrapping_sub(ts.tsecr) as i64;
                let backward = nanos(rtt) - forward;
                let min_f = *self.min_forward.insert(self.min_forward.map_or(forward, |m| m.min(forward)));
                let min_b = *self.min_backward.insert(self.min_backward.map_or(backward, |m| m.min(backward)));
                let backward_queueing = Duration::from_nanos((backward - min_b) as u64);
                DelaySample {
                    ertt: rtt.saturating_sub(backward_queueing).max(Duration::from_nanos(1)),
                    forward_queueing: Duration::from_nanos((forward - min_f) as u64),
                    backward_queueing,
                }
            }
            None => DelaySample {
                ertt: rtt.max(Duration::from_nanos(1)),
                forward_queueing: rtt.saturating_sub(rtt_min),
                backward_queueing: Duration::ZERO,
            },
        };
        let segments = self.reno.cwnd as f64 / self.reno.mss as f64;
        let backlog = |s: DelaySample| segments * s.forward_queueing.as_secs_f64() / s.ertt.as_secs_f64();
        if !self.params.backlog_per_rtt {
            self.backlog = backlog(sample);
        } else {
            match &mut self.round {
                Some(round) if ev.now < round.end => {
                    if sample.forward_queueing < round.least.forward_queueing {
                        round.least = sample;
                    }
                }
                ended => {
                    if let Some(round) = ended {
                        self.backlog = backlog(round.least);
                    }
                    *ended = Some(Round { end: ev.now + rtt, least: sample });
                }
            }
        }
        self.last = Some(sample);
    }

    /// The decrease factor of eq. 4, beta_e = 1 - RTTmin / eRTT, in [0, 1).
    pub fn beta(&self) -> Option<f64> {
        let (min, ertt) = (self.rtt_min?, self.last?.ertt);
        Some((1.0 - min.as_secs_f64() / ertt.as_secs_f64()).clamp(0.0, 0.999))
    }

    fn safety_check(&mut self, now: Instant) {
        if let Safety::Until { end, w_desg } = self.safety {
            if self.backlog > self.params.n_star {
                // beta_e was too aggressive: fall back to HighSpeed's window.
                let w = w_desg.max(2 * self.reno.mss).min(self.reno.cwnd);
                self.reno.cwnd = w;
                self.reno.ssthresh = w;
                self.safety = Safety::Off;
            } else if now >= end {
                self.safety = Safety::Off;
            }
        }
    }
}

impl CongestionControl for Ehstcp {
    fn name(&self) -> &'static str {
        "ehstcp"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(rtt) = ev.rtt_sample {
            self.measure(ev, rtt);
        }
        if !self.reno.in_recovery {
            self.safety_check(ev.now);
        }
        if matches!(self.safety, Safety::Until { .. }) {
            return;
        }
        let (response, hstcp) = (self.response, self.backlog < self.params.n_star);
        self.reno.grow(ev, |r, bytes| {
            if hstcp {
                response.avoid(r, bytes);
            } else {
                r.congestion_avoidance(bytes);
            }
        });
    }

    fn on_congestion(&mut self, _ev: &CongestionEvent) {
        let (cwnd, mss) = (self.reno.cwnd, self.reno.mss);
        let beta_hstcp = self.response.b(cwnd as f64 / mss as f64);
        let beta = self.beta().unwrap_or(beta_hstcp);
        self.safety = if beta < beta_hstcp && self.params.safety_rtts > 0.0 {
            Safety::Pending { w_desg: self.response.decreased(cwnd, mss) }
        } else {
            Safety::Off
        };
        self.reno.enter_recovery(cwnd - (cwnd as f64 * beta) as u64);
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.reno.on_recovery_exit(ev);
        if let Safety::Pending { w_desg } = self.safety {
            let length = self.rtt_max.unwrap_or_default().mul_f64(self.params.safety_rtts);
            self.safety = Safety::Until { end: ev.now + length, w_desg };
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.reno.timeout(ev, self.response.decreased(self.reno.cwnd, self.reno.mss));
        self.safety = Safety::Off;
    }

    fn state(&self) -> CcState {
        let reno = self.reno.state();
        let phase = match (reno.phase, self.safety) {
            ("congestion_avoidance", Safety::Until { .. }) => "safety_check",
            ("congestion_avoidance", _) if self.backlog < self.params.n_star => "hstcp_increase",
            ("congestion_avoidance", _) => "reno_increase",
            (other, _) => other,
        };
        CcState { phase, ..reno }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::AckTimestamps;

    const MSS: u64 = 1000;
    /// The receiver's clock runs this far ahead of the sender's (unknown to the algorithm).
    const OFFSET: u64 = 7_000_000_000;
    const MS: u64 = 1_000_000;

    fn ehstcp(cwnd_segments: u64, params: EhstcpParams) -> Ehstcp {
        let reno = Reno::new(RenoVariant::NewReno, MSS, cwnd_segments * MSS, cwnd_segments * MSS, 1);
        Ehstcp::new(reno, Response::RFC3649, params)
    }

    /// An ACK arriving at `t_ms` for a segment sent `fwd + bwd` ms earlier that spent `fwd` ms on
    /// the way out and `bwd` ms on the way back.
    fn ack(t_ms: u64, fwd: u64, bwd: u64) -> AckEvent {
        let now = t_ms * MS;
        let sent = now - (fwd + bwd) * MS;
        let rtt = Duration::from_millis(fwd + bwd);
        AckEvent {
            now: Instant::from_nanos(now),
            bytes_acked: MSS,
            rtt_sample: Some(rtt),
            cwnd_limited: true,
            timestamps: Some(AckTimestamps { tsval: now - bwd * MS + OFFSET, tsecr: sent }),
            ..Default::default()
        }
    }

    /// A controller at `cwnd_segments` that saw an empty path (30 ms out, 20 ms back) and then one
    /// ACK with `fwd` ms out and `bwd` ms back, at 1.1 s.
    fn measured(cwnd_segments: u64, params: EhstcpParams, fwd: u64, bwd: u64) -> Ehstcp {
        let mut cc = ehstcp(cwnd_segments, params);
        cc.on_ack(&ack(1000, 30, 20));
        cc.on_ack(&ack(1100, fwd, bwd));
        cc
    }

    fn exit_recovery(cc: &mut Ehstcp, t_ms: u64) {
        cc.on_recovery_exit(&RecoveryExitEvent { now: Instant::from_nanos(t_ms * MS), ..Default::default() });
    }

    #[test]
    fn backward_queueing_is_removed_from_the_rtt() {
        let mut cc = ehstcp(100, EhstcpParams::PAPER);
        cc.on_ack(&ack(1000, 30, 20)); // empty queues: 50 ms
        cc.on_ack(&ack(1100, 30, 80)); // 60 ms of backward queueing
        let s = cc.last_sample().unwrap();
        assert_eq!(s.backward_queueing, Duration::from_millis(60));
        assert_eq!(s.forward_queueing, Duration::ZERO);
        assert_eq!(s.ertt, Duration::from_millis(50));
        assert_eq!(cc.backlog(), 0.0);
        assert_eq!(cc.state().phase, "hstcp_increase");
        // The same path without the correction reads the backward queue as backlog:
        // N = 100 x 60 / 110 = 54.5 segments.
        let plain = EhstcpParams { backward_correction: false, ..EhstcpParams::PAPER };
        let rtt_based = measured(100, plain, 30, 80);
        assert!((rtt_based.backlog() - 100.0 * 60.0 / 110.0).abs() < 0.5, "{}", rtt_based.backlog());
        assert_eq!(rtt_based.state().phase, "reno_increase");
    }

    #[test]
    fn backlog_from_forward_queueing_switches_to_reno_increase() {
        // 100 segments, 10 ms of forward queueing on a 50 ms path: N' = 100 x 10 / 60 = 16.7 > 10.
        let mut cc = measured(100, EhstcpParams::PAPER, 40, 20);
        assert!((cc.backlog() - 100.0 * 10.0 / 60.0).abs() < 1e-9, "{}", cc.backlog());
        assert_eq!(cc.state().phase, "reno_increase");
        // Reno: about one segment per window of ACKs at 100 segments.
        let before = cc.state().cwnd;
        for i in 0..100 {
            cc.on_ack(&ack(1200 + i, 40, 20));
        }
        let grown = cc.state().cwnd - before;
        assert!((850..=1000).contains(&grown), "{grown}");
    }

    #[test]
    fn filtered_backlog_ignores_one_inflated_sample_and_follows_a_standing_queue() {
        let per_rtt = EhstcpParams { backlog_per_rtt: true, ..EhstcpParams::PAPER };
        // Empty path, 50 ms: the first sample starts a round ending at 1.05 s.
        let mut cc = ehstcp(100, per_rtt);
        cc.on_ack(&ack(1000, 30, 20));
        // One ACK with 10 ms of forward queueing: raw N' = 100 x 10 / 60 = 16.7 > N* would switch
        // to Reno's increase (as the per-ACK reading does), the round's minimum is still 0.
        let raw = measured(100, EhstcpParams::PAPER, 40, 20);
        assert_eq!(raw.state().phase, "reno_increase");
        cc.on_ack(&ack(1010, 40, 20));
        assert_eq!(cc.state().phase, "hstcp_increase");
        cc.on_ack(&ack(1020, 30, 20));
        // The round ends at this ACK, whose 10 ms of queueing opens the next round (60 ms long).
        cc.on_ack(&ack(1051, 40, 20));
        assert_eq!(cc.backlog(), 0.0, "the ended round's least queue was 0");
        assert_eq!(cc.state().phase, "hstcp_increase");
        // At least 10 ms of queue on every ACK of the round (1.051-1.111 s).
        for (t, fwd) in [(1060, 41), (1080, 42), (1110, 40)] {
            cc.on_ack(&ack(t, fwd, 20));
        }
        assert_eq!(cc.state().phase, "hstcp_increase", "the value holds until the round ends");
        let segments = cc.state().cwnd as f64 / MSS as f64;
        cc.on_ack(&ack(1112, 45, 20));
        // N' = cwnd x 10 / 60 (the round's least queue and its eRTT), from the window at the ACK.
        let want = segments * 10.0 / 60.0;
        assert!((cc.backlog() - want).abs() < 1e-9, "{} vs {want}", cc.backlog());
        assert_eq!(cc.state().phase, "reno_increase");
    }

    #[test]
    fn hstcp_increase_below_n_star_grows_a_of_w_per_window() {
        // 1058 segments with no queueing: a(1058) = 8.31 segments per window of ACKs (RFC 3649).
        let mut cc = ehstcp(1058, EhstcpParams::PAPER);
        let before = cc.state().cwnd;
        for i in 0..1058 {
            cc.on_ack(&ack(1000 + i, 30, 20));
        }
        let grown = (cc.state().cwnd - before) as f64 / MSS as f64;
        assert!((7.9..=8.4).contains(&grown), "{grown}");
    }

    #[test]
    fn decrease_is_rttmin_over_ertt_and_a_safety_check_follows() {
        // RTTmin 50 ms, last eRTT 60 ms (10 ms forward queue; 40 ms backward queue ignored):
        // 1 - beta_e = 50/60, beta_e = 0.167 < b(1000) = 0.33, so a safety check follows.
        let mut cc = measured(1000, EhstcpParams::PAPER, 40, 60);
        let cwnd = cc.state().cwnd;
        cc.on_congestion(&CongestionEvent::default());
        let want = cwnd - (cwnd as f64 * (1.0 - 50.0 / 60.0)) as u64;
        assert!(cc.state().cwnd.abs_diff(want) <= 1, "{} vs {want}", cc.state().cwnd);
        assert_eq!(cc.state().phase, "recovery");
        exit_recovery(&mut cc, 1200);
        assert_eq!(cc.state().phase, "safety_check");
        // No increase during the check while the backlog stays small (833 x 0 / 50 = 0).
        let before = cc.state().cwnd;
        cc.on_ack(&ack(1210, 30, 20));
        assert_eq!(cc.state().cwnd, before);
        // RTTmax = 100 ms: the phase lasts 500 ms from the recovery exit.
        cc.on_ack(&ack(1699, 30, 20));
        assert_eq!(cc.state().phase, "safety_check");
        cc.on_ack(&ack(1700, 30, 20));
        assert_eq!(cc.state().phase, "hstcp_increase");
    }

    #[test]
    fn backlog_in_the_safety_check_falls_back_to_the_hstcp_window() {
        let mut cc = measured(1000, EhstcpParams::PAPER, 40, 20);
        let w_desg = Response::RFC3649.decreased(cc.state().cwnd, MSS);
        cc.on_congestion(&CongestionEvent::default());
        exit_recovery(&mut cc, 1200);
        // A forward queue of 5 ms at ~833 segments: N' = 833 x 5 / 55 = 76 > N* = 10.
        cc.on_ack(&ack(1250, 35, 20));
        assert_eq!(cc.state().ssthresh, w_desg);
        assert!(cc.state().cwnd - w_desg <= 2, "then Reno growth of about MSS^2 / cwnd");
        assert_ne!(cc.state().phase, "safety_check");
    }

    #[test]
    fn a_deeper_queue_than_hstcp_allows_decreases_by_beta_e_without_a_check() {
        // eRTT 150 ms on a 50 ms path: beta_e = 2/3 > b(1000) = 0.33.
        let mut cc = measured(1000, EhstcpParams::PAPER, 130, 20);
        cc.on_congestion(&CongestionEvent::default());
        assert!(cc.state().cwnd.abs_diff(1000 * MSS / 3) <= 1, "{}", cc.state().cwnd);
        exit_recovery(&mut cc, 1300);
        assert_ne!(cc.state().phase, "safety_check");
    }
}
