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
