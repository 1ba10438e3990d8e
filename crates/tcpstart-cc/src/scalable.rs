//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area networks",
//! CCR 33(2), 2003; Linux `net/ipv4/tcp_scalable.c`, current kernels).
//!
//! State machine (Reno's, see [`crate::reno`]): `slow_start` -> `congestion_avoidance` ->
//! `recovery` on a loss -> `congestion_avoidance`; a timeout gives cwnd = 1 segment and slow start.
//! The window arithmetic follows Linux:
//! - congestion avoidance: `tcp_cong_avoid_ai(tp, min(cwnd, TCP_SCALABLE_AI_CNT), acked)` with
//!   TCP_SCALABLE_AI_CNT = 100: one segment per `ai_cnt` segments acknowledged, counted per
//!   acknowledged byte, so cwnd grows by 1/ai_cnt per segment = 1 % per RTT whatever the ACK
//!   pattern. Below `ai_cnt` segments `min(cwnd, 100)` is cwnd itself, i.e. Reno (here: Reno's
//!   congestion avoidance, with its `abc` setting);
//! - on loss (and on the first timeout, like Linux's `ssthresh` hook): ssthresh =
//!   cwnd - cwnd x b with b = 1/8 (`TCP_SCALABLE_MD_SCALE` = 3), at least two segments. Linux applies
//!   it at every window size, so below `ai_cnt` the decrease is 1/8 and not Reno's 1/2; we follow.
//!
//! The paper states a = 0.01 per ACK and b = 0.125 with a legacy window of 16 segments; old kernels
//! used TCP_SCALABLE_AI_CNT = 50 "to account for delayed ack" when the hook ran once per ACK.
//! Current kernels (checked in torvalds/linux `tcp_scalable.c`) count acknowledged packets and
//! use 100, which is the paper's 1 % per RTT. Its defining property: after a loss cwnd needs
//! log(1 / (1 - b)) / log(1 + 1/ai_cnt) = 13.4 RTTs to regain its size, whatever that size is.

use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{Aimd, AimdRule, Reno, RenoVariant, ABC};

pub const SCALABLE: Registration = Registration {
    info: AlgorithmInfo {
        name: "scalable",
        summary: "Scalable TCP: +1 segment per 100 acknowledged (1 %/RTT), cwnd x 7/8 on loss; Reno below 100 segments",
        reference: "Kelly, CCR 2003; Linux net/ipv4/tcp_scalable.c",
        params: &[
            ABC,
            ParamSpec {
                name: "ai_cnt",
                default: 100.0,
                min: 2.0,
                max: 100_000.0,
                integer: true,
                doc: "segments acknowledged per segment of growth (Linux TCP_SCALABLE_AI_CNT); also the window below which the increase is Reno's",
            },
            ParamSpec {
                name: "b",
                default: 0.125,
                min: 0.01,
                max: 0.5,
                integer: false,
                doc: "multiplicative decrease on loss: cwnd -= b x cwnd (Linux 1/8, TCP_SCALABLE_MD_SCALE = 3)",
            },
        ],
    },
    build: |p, cfg| Box::new(from_params(p, cfg)),
    receiver_hook: None,
};

/// Scalable's increase and decrease constants.
#[derive(Clone, Copy, Debug)]
pub struct ScalableRule {
    /// Segments acknowledged per segment of growth; also the window below which growth is Reno's.
    pub ai_cnt: u64,
    /// Fraction of cwnd given up on a loss.
    pub b: f64,
}

impl ScalableRule {
    pub const LINUX: ScalableRule = ScalableRule { ai_cnt: 100, b: 0.125 };
}

impl AimdRule for ScalableRule {
    const NAME: &'static str = "scalable";
    fn avoid(&self, r: &mut Reno, bytes_acked: u64) {
        let per = self.ai_cnt * r.mss;
        if r.cwnd < per {
            r.congestion_avoidance(bytes_acked);
        } else {
            r.additive_increase(bytes_acked, per);
        }
    }
    fn decreased(&self, r: &Reno) -> u64 {
        r.cwnd - (r.cwnd as f64 * self.b) as u64
    }
}

/// Scalable TCP: Reno's machinery around Scalable's constants.
pub type Scalable = Aimd<ScalableRule>;

fn from_params(p: &Params, cfg: &CcConfig) -> Scalable {
    let rule = ScalableRule { ai_cnt: p["ai_cnt"] as u64, b: p["b"] };
    Aimd::new(Reno::from_params(RenoVariant::NewReno, p, cfg), rule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::CongestionControl;
    use crate::events::{CongestionEvent, RecoveryExitEvent, RtoEvent};
    use crate::reno::testing::ack;

    const MSS: u64 = 1000;

    fn scalable(cwnd_segments: u64) -> Scalable {
        let reno = Reno::new(RenoVariant::NewReno, MSS, cwnd_segments * MSS, cwnd_segments * MSS, 1);
        Scalable::new(reno, ScalableRule::LINUX)
    }

    #[test]
    fn one_segment_per_hundred_acknowledged_above_the_low_window() {
        let mut cc = scalable(1000);
        for _ in 0..99 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.state().cwnd, 1000 * MSS);
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.state().cwnd, 1001 * MSS);
        // Counted per segment acknowledged: 50 delayed ACKs of two segments give the next one.
        for _ in 0..50 {
            cc.on_ack(&ack(2 * MSS));
        }
        assert_eq!(cc.state().cwnd, 1002 * MSS);
    }

    #[test]
    fn below_the_low_window_it_is_reno() {
        let mut cc = scalable(99);
        let mut reno = Reno::new(RenoVariant::NewReno, MSS, 99 * MSS, 99 * MSS, 1);
        for _ in 0..50 {
            cc.on_ack(&ack(MSS));
            reno.on_ack(&ack(MSS));
        }
        assert_eq!(cc.state().cwnd, reno.state().cwnd);
        assert!(cc.state().cwnd > 99 * MSS);
    }

    /// Linux reference (research notes, test vectors): cwnd 1000 -> ssthresh 875.
    #[test]
    fn loss_keeps_seven_eighths() {
        let mut cc = scalable(1000);
        cc.on_congestion(&CongestionEvent { flight_size: 10 * MSS, ..Default::default() });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (875 * MSS, 875 * MSS));
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        assert_eq!(cc.state().cwnd, 875 * MSS);
        cc.on_rto(&RtoEvent { consecutive: 1, ..Default::default() });
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (MSS, 765_625));
    }
}
