//! Pacing only: the NASA report's second Swift Start kernel (NASA/TM-2004-212938, "Testing with
//! pacing only"): "capacity estimation was not used, and six packets were purposely paced out
//! (same number of packets sent in slow start) in the second RTT".
//!
//! Four segments go out back to back. The first ACK (`th_ack_1`) gives the RTT from the first
//! data segment; from then on the six segments slow start would send in the second round trip
//! (with delayed ACKs, two ACKs each adding one segment to a window of four) are paced evenly over
//! that RTT with a window of six segments, then slow start continues
//! ([`crate::paced_start`]). The report's kernel could only manage a 2-1-2-1 pattern; this one
//! spaces all six evenly, which is what the authors were aiming for.
//!
//! State machine of the probe: `wait_first_ack` -(first ACK of new data)-> pace six segments;
//! any loss or retransmission before that -> plain slow start.

use crate::events::{AckEvent, SentEvent};
use crate::paced_start::{Decision, PacePlan, PacedStart, Probe, Windows};
use crate::registry::{AlgorithmInfo, Registration};
use crate::time::Instant;

/// Segments paced in the second round trip (the report's six).
pub const PACED_SEGMENTS: u64 = 6;

pub const PACING_ONLY: Registration = Registration {
    info: AlgorithmInfo {
        name: "pacing-only",
        summary: "The NASA report's pacing-only kernel: IW 4, the six second-round segments paced over one RTT, then slow start",
        reference: "NASA/TM-2004-212938, \"Testing with pacing only\"",
        params: &[],
    },
    build: |_, cfg| Box::new(PacedStart::new(PacingOnlyProbe { mss: cfg.mss, first_sent: None, done: false }, cfg)),
    receiver_hook: None,
};

#[derive(Clone, Debug)]
pub struct PacingOnlyProbe {
    mss: u64,
    first_sent: Option<Instant>,
    done: bool,
}

impl Probe for PacingOnlyProbe {
    fn name(&self) -> &'static str {
        "pacing-only"
    }

    fn on_sent(&mut self, ev: &SentEvent) -> Decision {
        if ev.is_retransmission {
            return Decision::Abort;
        }
        self.first_sent.get_or_insert(ev.now);
        Decision::Continue
    }

    fn on_ack(&mut self, ev: &AckEvent, _cwnd: Windows) -> Decision {
        if self.done || ev.bytes_acked == 0 {
            return Decision::Continue;
        }
        self.done = true;
        let Some(sent) = self.first_sent else { return Decision::Abort };
        let paced = PACED_SEGMENTS * self.mss;
        Decision::Pace(PacePlan {
            window: paced,
            rtt: ev.now - sent,
            end_seq: Some(ev.snd_nxt + paced),
            endless: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::events::{AckEvent, SentEvent};
    use crate::registry::{build, CcConfig};
    use crate::time::Instant;
    use std::collections::BTreeMap;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn ack(ms: u64, segments: u64, una: u64, nxt: u64) -> AckEvent {
        AckEvent {
            now: Instant(ms * MS),
            bytes_acked: segments * MSS,
            snd_una: una * MSS,
            snd_nxt: nxt * MSS,
            cwnd_limited: true,
            ..Default::default()
        }
    }

    fn sent(ms: u64, seg: u64) -> SentEvent {
        SentEvent { now: Instant(ms * MS), seq: seg * MSS, len: MSS as u32, ..Default::default() }
    }

    #[test]
    fn six_segments_paced_over_the_rtt_of_the_first_ack_then_slow_start() {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        let mut cc = build("pacing-only", &BTreeMap::new(), &cfg).unwrap();
        assert_eq!(cc.state().cwnd, 4 * MSS);
        for seg in 0..4 {
            cc.on_sent(&sent(100, seg));
        }
        cc.on_ack(&ack(400, 2, 2, 4));
        // RTT 300 ms from the first data segment: 6000 bytes / 0.3 s.
        assert_eq!((cc.state().phase, cc.state().cwnd), ("pacing", 6 * MSS));
        assert!((cc.state().pacing_rate.unwrap() - 20_000.0).abs() < 1e-9);
        cc.on_ack(&ack(401, 2, 4, 4));
        assert_eq!(cc.state().cwnd, 6 * MSS, "no growth while pacing");
        for seg in 4..9 {
            cc.on_sent(&sent(401 + 50 * (seg - 4), seg));
            assert_eq!(cc.state().phase, "pacing");
        }
        // The sixth paced segment (4 + 6 = 10 segments sent) ends pacing.
        cc.on_sent(&sent(651, 9));
        assert_eq!((cc.state().phase, cc.state().pacing_rate), ("slow_start", None));
        cc.on_ack(&ack(701, 2, 6, 10));
        assert_eq!(cc.state().cwnd, 7 * MSS);
    }

    #[test]
    fn retransmission_before_the_first_ack_means_plain_slow_start() {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 4 * MSS, initial_ssthresh: u64::MAX };
        let mut cc = build("pacing-only", &BTreeMap::new(), &cfg).unwrap();
        cc.on_sent(&sent(0, 0));
        cc.on_sent(&SentEvent { is_retransmission: true, ..sent(1000, 0) });
        cc.on_ack(&ack(1300, 1, 1, 1));
        assert!(cc.state().pacing_rate.is_none());
        assert_eq!(cc.state().cwnd, 5 * MSS);
    }
}
