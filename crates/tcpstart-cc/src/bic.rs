//! BIC-TCP (Xu, Harfoush, Rhee, "Binary Increase Congestion Control for Fast, Long Distance
//! Networks", INFOCOM 2004) as Linux runs it (`net/ipv4/tcp_bic.c`, current kernels).
//!
//! State machine: `slow_start` (Reno's) -> congestion avoidance, traced as `congestion_avoidance`
//! at or below `low_window`, `binary_search` below W_max (`last_max_cwnd`) and `max_probing` at or
//! above it -> `recovery` on a loss -> congestion avoidance when recovery ends (cwnd = ssthresh);
//! a timeout sets ssthresh, cwnd = 1 segment and forgets W_max (Linux resets BIC's state on
//! entering TCP_CA_Loss).
//!
//! Congestion avoidance grows one segment per `cnt` segments acknowledged (`tcp_cong_avoid_ai`,
//! counted per acknowledged byte here), with `cnt` from `bictcp_update` (w = cwnd in segments,
//! B = 4, S_max = `max_increment`):
//! - w <= low_window: cnt = w, Reno (here Reno's own congestion avoidance, with its `abc`);
//! - w < W_max: dist = (W_max - w) / B; dist > S_max: cnt = w / S_max (+S_max per RTT, linear);
//!   dist <= 1: cnt = w x smooth_part / B (+0.2 per RTT); else cnt = w / dist (binary search:
//!   halfway to the midpoint per RTT) — fast far from W_max, slow near it: a concave approach;
//! - w >= W_max (max probing): w < W_max + B: cnt = w x smooth_part / B; w < W_max + S_max (B - 1):
//!   cnt = w (B - 1) / (w - W_max) (slow-start-like); else cnt = w / S_max — convex;
//! - no W_max yet: cnt <= 20 (at least 5 % per RTT);
//! - delayed-ACK compensation: cnt = cnt x 16 / delayed_ack, where delayed_ack is an EWMA of
//!   packets per ACK x 16 (init 32), updated on every ACK outside recovery:
//!   delayed_ack += packets_acked - delayed_ack / 16. cnt is at least 1.
//! - `bictcp_update` recomputes cnt only when cwnd changed or 31 ms (HZ/32 at HZ = 1000) passed.
//!
//! On loss (`bictcp_recalc_ssthresh`): W_max = w x (1024 + beta) / 2048 if w < W_max and
//! `fast_convergence` (leave room for a newcomer), else w; ssthresh = w / 2 if w <= low_window,
//! else w x beta / 1024, at least two segments. Linux computes it from cwnd, not FlightSize.
//!
//! Interpretations: Linux counts acknowledged *packets* in `tcp_cong_avoid_ai` and also divides cnt
//! by the measured packets per ACK; with delayed ACKs (2 packets per ACK) BIC therefore grows twice
//! as fast per RTT as the table above says. That is what current kernels do and what we do.
//! Linux updates delayed_ack only in the Open state (no dupacks, no SACK holes); we update it on
//! every ACK that acknowledges new data outside recovery. Undo of spurious reductions is not modelled.

use core::time::Duration;

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{Reno, RenoVariant, ABC};
use crate::time::Instant;

/// Binary search divides the distance to W_max by B (BICTCP_B).
const B: u64 = 4;
/// Fixed-point shift of the packets-per-ACK ratio (ACK_RATIO_SHIFT).
const ACK_RATIO_SHIFT: u32 = 4;
/// Without a W_max, cnt is capped so cwnd grows at least 5 % per RTT.
const NO_MAX_CNT: u64 = 20;
/// `bictcp_update` throttle: HZ / 32 jiffies at HZ = 1000.
const UPDATE_INTERVAL: Duration = Duration::from_millis(31);

pub const BIC: Registration = Registration {
    info: AlgorithmInfo {
        name: "bic",
        summary: "BIC: binary search towards the last loss window W_max, then max probing; beta 0.8",
        reference: "Xu, Harfoush, Rhee, INFOCOM 2004; Linux net/ipv4/tcp_bic.c",
        params: &[
            ABC,
            ParamSpec {
                name: "fast_convergence",
                default: 1.0,
                min: 0.0,
                max: 1.0,
                integer: true,
                doc: "1 = on a loss below W_max, set W_max to (1 + beta) / 2 x cwnd",
            },
            ParamSpec {
                name: "max_increment",
                default: 16.0,
                min: 1.0,
                max: 1e6,
                integer: true,
                doc: "S_max: largest increase in segments per RTT during binary search and max probing",
            },
            ParamSpec {
                name: "low_window",
                default: 14.0,
                min: 2.0,
                max: 1e6,
                integer: true,
                doc: "at or below this window (segments) BIC behaves like Reno (halving on loss)",
            },
            ParamSpec {
                name: "beta",
                default: 819.0,
                min: 1.0,
                max: 1023.0,
                integer: true,
                doc: "window kept on loss, in 1/1024 (819 = 0.8)",
            },
            ParamSpec {
                name: "smooth_part",
                default: 20.0,
                min: 1.0,
                max: 1000.0,
                integer: true,
                doc: "RTTs to go from W_max - B to W_max (cnt = cwnd x smooth_part / B near W_max)",
            },
        ],
    },
    build: |p, cfg| Box::new(Bic::from_params(p, cfg)),
    receiver_hook: None,
};

/// BIC's tunables, as in the Linux module parameters.
#[derive(Clone, Copy, Debug)]
pub struct BicParams {
    pub fast_convergence: bool,
    pub max_increment: u64,
    pub low_window: u64,
    pub beta: u64,
    pub smooth_part: u64,
}

impl BicParams {
    pub const LINUX: BicParams =
        BicParams { fast_convergence: true, max_increment: 16, low_window: 14, beta: 819, smooth_part: 20 };
}

#[derive(Clone, Debug)]
pub struct Bic {
    reno: Reno,
    params: BicParams,
    /// Segments acknowledged per segment of growth.
    cnt: u64,
    /// W_max in segments; 0 = none yet.
    last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: Option<Instant>,
    /// Packets per ACK x 16, moving average.
    delayed_ack: u64,
}

impl Bic {
    pub fn new(reno: Reno, params: BicParams) -> Self {
        Bic { reno, params, cnt: 0, last_max_cwnd: 0, last_cwnd: 0, last_time: None, delayed_ack: 2 << ACK_RATIO_SHIFT }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        let params = BicParams {
            fast_convergence: p["fast_convergence"] == 1.0,
            max_increment: p["max_increment"] as u64,
            low_window: p["low_window"] as u64,
            beta: p["beta"] as u64,
            smooth_part: p["smooth_part"] as u64,
        };
        Bic::new(Reno::from_params(RenoVariant::NewReno, p, cfg), params)
    }

    fn segments(&self) -> u64 {
        self.reno.cwnd / self.reno.mss
    }

    /// Linux `bictcp_reset`: what a timeout forgets.
    fn reset(&mut self) {
        *self = Bic::new(self.reno.clone(), self.params);
    }

    /// `bictcp_update` above the low window: segments to acknowledge per segment of growth.
    fn update(&mut self, w: u64, now: Instant) {
        let recent = self.last_time.is_some_and(|t| now.saturating_since(t) <= UPDATE_INTERVAL);
        if self.last_cwnd == w && recent {
            return;
        }
        self.last_cwnd = w;
        self.last_time = Some(now);
        let BicParams { max_increment: smax, smooth_part, .. } = self.params;
        let max = self.last_max_cwnd;
        let mut cnt = if w < max {
            let dist = (max - w) / B;
            if dist > smax {
                w / smax
            } else if dist <= 1 {
                w * smooth_part / B
            } else {
                w / dist
            }
        } else if w < max + B {
            w * smooth_part / B
        } else if w < max + smax * (B - 1) {
            w * (B - 1) / (w - max)
        } else {
            w / smax
        };
        if max == 0 {
            cnt = cnt.min(NO_MAX_CNT);
        }
        self.cnt = ((cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1)).max(1);
    }

    /// `bictcp_recalc_ssthresh`: sets W_max and returns the new ssthresh in bytes.
    fn recalc_ssthresh(&mut self) -> u64 {
        let w = self.segments();
        let BicParams { fast_convergence, low_window, beta, .. } = self.params;
        self.last_max_cwnd = if w < self.last_max_cwnd && fast_convergence { w * (1024 + beta) / 2048 } else { w };
        let cwnd = self.reno.cwnd;
        if w <= low_window {
            cwnd / 2
        } else {
            cwnd * beta / 1024
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.bytes_acked > 0 && !ev.in_recovery && !self.reno.in_recovery {
            let packets = ev.bytes_acked.div_ceil(self.reno.mss);
            self.delayed_ack = self.delayed_ack + packets - (self.delayed_ack >> ACK_RATIO_SHIFT);
        }
        let w = self.segments();
        if w > self.params.low_window && self.reno.cwnd >= self.reno.ssthresh {
            self.update(w, ev.now);
        }
        let (low_window, cnt) = (self.params.low_window, self.cnt);
        self.reno.grow(ev, |r, bytes| {
            if r.cwnd / r.mss <= low_window {
                r.congestion_avoidance(bytes);
            } else {
                r.additive_increase(bytes, cnt.max(1) * r.mss);
            }
        });
    }

    fn on_congestion(&mut self, _ev: &CongestionEvent) {
        let ssthresh = self.recalc_ssthresh();
        self.reno.enter_recovery(ssthresh);
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.reno.on_recovery_exit(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        let ssthresh = self.recalc_ssthresh();
        self.reno.timeout(ev, ssthresh);
        self.reset();
    }

    fn state(&self) -> CcState {
        let reno = self.reno.state();
        let phase = match reno.phase {
            "congestion_avoidance" if self.segments() > self.params.low_window => {
                if self.segments() < self.last_max_cwnd {
                    "binary_search"
                } else {
                    "max_probing"
                }
            }
            other => other,
        };
        CcState { phase, ..reno }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(ms: u64, segments: u64) -> AckEvent {
        AckEvent {
            now: Instant::from_nanos(ms * 1_000_000),
            bytes_acked: segments * MSS,
            cwnd_limited: true,
            ..Default::default()
        }
    }

    fn bic(cwnd_segments: u64) -> Bic {
        let reno = Reno::new(RenoVariant::NewReno, MSS, cwnd_segments * MSS, cwnd_segments * MSS, 1);
        Bic::new(reno, BicParams::LINUX)
    }

    /// cnt before the delayed-ACK scaling (ratio 16 = one packet per ACK), for W_max = 1000;
    /// expected values worked by hand from the rules in `tcp_bic.c`.
    #[test]
    fn cnt_follows_the_linux_regions() {
        for (w, want) in [
            (800, 50),    // dist 50 > 16: linear, w / 16
            (990, 495),   // dist 2: binary search, w / dist
            (997, 4985),  // dist 0 <= 1: smooth, w x 20 / 4
            (1002, 5010), // within B above W_max: smooth
            (1020, 153),  // below W_max + 48: w x 3 / (w - W_max)
            (1100, 68),   // beyond: linear, w / 16
        ] {
            let mut cc = bic(w);
            cc.last_max_cwnd = 1000;
            cc.delayed_ack = 16;
            cc.update(w, Instant::ZERO);
            assert_eq!(cc.cnt, want, "w = {w}");
        }
        let mut fresh = bic(1000);
        fresh.delayed_ack = 16;
        fresh.update(1000, Instant::ZERO);
        assert_eq!(fresh.cnt, 20, "no W_max yet: at least 5 % per RTT");
    }

    #[test]
    fn loss_sets_w_max_and_keeps_beta_with_fast_convergence_below_it() {
        let mut cc = bic(1000);
        cc.on_congestion(&CongestionEvent::default());
        assert_eq!(cc.last_max_cwnd, 1000);
        assert_eq!(cc.state().ssthresh, 1000 * MSS * 819 / 1024, "beta = 819/1024");
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        // A second loss below W_max: W_max = 799 x 1843 / 2048 = 719 (fast convergence).
        assert_eq!(cc.segments(), 799);
        cc.on_congestion(&CongestionEvent::default());
        assert_eq!(cc.last_max_cwnd, 719);
    }

    #[test]
    fn at_or_below_low_window_it_halves_and_grows_like_reno() {
        let mut cc = bic(14);
        let mut reno = Reno::new(RenoVariant::NewReno, MSS, 14 * MSS, 14 * MSS, 1);
        for i in 0..10 {
            cc.on_ack(&ack(i, 1));
            reno.on_ack(&ack(i, 1));
        }
        assert_eq!(cc.state().cwnd, reno.state().cwnd);
        let mut small = bic(14);
        small.on_congestion(&CongestionEvent::default());
        assert_eq!(small.state().ssthresh, 7 * MSS);
    }

    #[test]
    fn delayed_acks_halve_cnt_and_acked_packets_are_counted() {
        // After a loss at 1000: cwnd 799 segments, W_max 1000, dist 50: cnt = 799 / 16 = 49, and
        // with two packets per ACK (ratio 32) cnt = 49 x 16 / 32 = 24: +1 segment per 12 ACKs.
        let mut cc = bic(1000);
        cc.on_congestion(&CongestionEvent::default());
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        let start = cc.state().cwnd;
        for i in 0..11 {
            cc.on_ack(&ack(i, 2));
        }
        assert_eq!(cc.cnt, 24);
        assert_eq!(cc.state().cwnd, start);
        cc.on_ack(&ack(11, 2));
        assert_eq!(cc.state().cwnd, start + MSS);
        assert_eq!(cc.state().phase, "binary_search");
    }

    #[test]
    fn timeout_forgets_w_max() {
        let mut cc = bic(1000);
        cc.on_rto(&RtoEvent { consecutive: 1, ..Default::default() });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh, cc.last_max_cwnd), (MSS, 1000 * MSS * 819 / 1024, 0));
    }
}
