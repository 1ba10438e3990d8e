//! Modified Swift Start (the receiver measures the packet pair; paper in
//! `shared/papers/modified-swift-start.txt`, section 2.2 "Modification Swift Start Algorithm" and
//! section 4.1).
//!
//! Sender: the initial window's four segments go out back to back as two packet pairs, marked
//! First / Second ([`FIRST`], [`SECOND`] via `segment_mark`). Receiver ([`PairGapHook`]): when a
//! First arrives it records its end sequence and arrival time; when the Second that follows it
//! arrives it computes the arrival gap `dt` and echoes it, in microseconds, in an option on the
//! next ACK it sends, which with delayed ACKs is the ACK covering the pair. Sender: on an ACK
//! carrying `dt`, `cwnd = RTT x MSS / dt` with no `gamma` (the receiver-side gap is free of ACK
//! compression and delayed-ACK errors, so the paper uses the whole estimate), where RTT runs from
//! sending the pair's First to this ACK. The window is paced over the next round trip
//! ([`crate::paced_start`]); the second pair's echo, a moment later, replaces the estimate (the
//! paper's figure 4: 21929 then 24849 bytes). Then slow start.
//!
//! State machine of the sender probe: `marking` (IW pairs) -(ACK with dt)-> pace `RTT x MSS / dt`
//! -(ACK with the next pair's dt while pacing)-> re-plan; a loss or retransmission before the
//! first estimate, or an estimate not above the window, -> plain slow start.
//!
//! Interpretations (the paper does not say): an estimate not above the current window is not
//! used (as in the NASA Swift Start fixes), and losses before the estimate abort it.

use crate::events::{AckEvent, SentEvent};
use crate::paced_start::{Decision, PacePlan, PacedStart, Probe, Windows, INITIAL_WINDOW_SEGMENTS};
use crate::receiver::{ReceiverHook, SegmentArrival};
use crate::registry::{AlgorithmInfo, Registration};
use crate::time::{Duration, Instant};

/// Segment marks: the first and the second segment of a packet pair.
pub const FIRST: u8 = 1;
pub const SECOND: u8 = 2;

pub const MODIFIED_SWIFT_START: Registration = Registration {
    info: AlgorithmInfo {
        name: "modified-swift-start",
        summary: "Modified Swift Start: the receiver measures the packet-pair gap and echoes it; cwnd = RTT x MSS / gap, paced, then slow start",
        reference: "Modified Swift Start paper, section 2.2 (receiver-side packet pair) and 4.1",
        params: &[],
    },
    build: |_, cfg| Box::new(PacedStart::new(PairProbe::new(cfg.mss), cfg)),
    receiver_hook: Some(|_| Box::new(PairGapHook::default())),
};

/// The sender side: marks the initial window's pairs and turns echoed gaps into a window.
#[derive(Clone, Debug)]
pub struct PairProbe {
    mss: u64,
    /// Send time of each pair's First, by pair index.
    first_sent: [Option<Instant>; (INITIAL_WINDOW_SEGMENTS / 2) as usize],
    /// Segments below this sequence were marked already (retransmissions are not marked).
    marked_to: u64,
    estimated: bool,
}

impl PairProbe {
    pub fn new(mss: u64) -> Self {
        PairProbe { mss, first_sent: [None; (INITIAL_WINDOW_SEGMENTS / 2) as usize], marked_to: 0, estimated: false }
    }

    /// Pair index and position (0 = First) of the initial-window segment starting at `seq`.
    fn slot(&self, seq: u64) -> Option<(usize, u64)> {
        let i = seq / self.mss;
        (seq.is_multiple_of(self.mss) && i < INITIAL_WINDOW_SEGMENTS).then_some(((i / 2) as usize, i % 2))
    }
}

impl Probe for PairProbe {
    fn name(&self) -> &'static str {
        "modified-swift-start"
    }

    fn segment_mark(&mut self, seq: u64) -> u8 {
        match self.slot(seq) {
            Some((_, pos)) if seq >= self.marked_to => {
                self.marked_to = seq + self.mss;
                if pos == 0 {
                    FIRST
                } else {
                    SECOND
                }
            }
            _ => 0,
        }
    }

    fn on_sent(&mut self, ev: &SentEvent) -> Decision {
        if ev.is_retransmission {
            return Decision::Abort;
        }
        if let Some((pair, 0)) = self.slot(ev.seq) {
            self.first_sent[pair].get_or_insert(ev.now);
        }
        Decision::Continue
    }

    fn on_ack(&mut self, ev: &AckEvent, cwnd: Windows) -> Decision {
        let Some(gap_us) = ev.receiver_echo.filter(|&g| g > 0) else { return Decision::Continue };
        // The pair just acknowledged: the highest whose Second lies below the cumulative ACK.
        let pairs_acked = ev.snd_una / (2 * self.mss);
        let Some(sent) = pairs_acked.checked_sub(1).and_then(|p| self.first_sent.get(p as usize).copied().flatten())
        else {
            return Decision::Continue;
        };
        let rtt = ev.now - sent;
        let gap = Duration::from_micros(gap_us);
        let window = (rtt.as_secs_f64() * self.mss as f64 / gap.as_secs_f64()) as u64;
        let replan = self.estimated;
        self.estimated = true;
        if window <= cwnd.before && !replan {
            return Decision::Abort;
        }
        if window <= cwnd.before {
            return Decision::Continue;
        }
        Decision::Pace(PacePlan { window, rtt, end_seq: None, endless: false })
    }
}

/// The receiver side: the arrival gap of each marked pair, in microseconds.
#[derive(Clone, Debug, Default)]
pub struct PairGapHook {
    /// End sequence and arrival time of the last First seen.
    first: Option<(u64, Instant)>,
}

impl ReceiverHook for PairGapHook {
    fn on_segment(&mut self, seg: &SegmentArrival) -> Option<u64> {
        match seg.mark {
            FIRST => {
                self.first = Some((seg.seq + seg.len as u64, seg.now));
                None
            }
            SECOND => {
                // Only the Second that directly follows the recorded First closes the pair.
                let (end, at) = self.first.take()?;
                (end == seg.seq).then(|| (seg.now - at).as_micros() as u64)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{build, build_receiver_hook, CcConfig};
    use std::collections::BTreeMap;

    const MSS: u64 = 1460;

    fn at_us(us: u64) -> Instant {
        Instant(us * 1000)
    }

    #[test]
    fn initial_window_pairs_are_marked_first_second_once() {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        let mut cc = build("modified-swift-start", &BTreeMap::new(), &cfg).unwrap();
        let marks: Vec<u8> = (0..6).map(|i| cc.segment_mark(i * MSS)).collect();
        assert_eq!(marks, [FIRST, SECOND, FIRST, SECOND, 0, 0]);
        assert_eq!(cc.segment_mark(0), 0, "a retransmission is not marked again");
    }

    #[test]
    fn receiver_hook_echoes_the_gap_of_a_pair_in_microseconds() {
        let mut hook = build_receiver_hook("modified-swift-start", &BTreeMap::new()).unwrap().unwrap();
        let seg = |us, seq, mark| SegmentArrival { now: at_us(us), seq, len: MSS as u32, mark };
        assert_eq!(hook.on_segment(&seg(1_000, 0, FIRST)), None);
        // The paper's T1 gap: 7772 us.
        assert_eq!(hook.on_segment(&seg(8_772, MSS, SECOND)), Some(7_772));
        // A Second that does not follow the recorded First is ignored, as is unmarked data.
        assert_eq!(hook.on_segment(&seg(9_000, 2 * MSS, FIRST)), None);
        assert_eq!(hook.on_segment(&seg(9_500, 4 * MSS, SECOND)), None);
        assert_eq!(hook.on_segment(&seg(9_600, 5 * MSS, 0)), None);
        assert_eq!(hook.on_segment(&seg(9_700, 6 * MSS, SECOND)), None);
    }

    fn sent(us: u64, seg: u64) -> SentEvent {
        SentEvent { now: at_us(us), seq: seg * MSS, len: MSS as u32, ..Default::default() }
    }

    fn ack(us: u64, una: u64, echo: Option<u64>) -> AckEvent {
        AckEvent {
            now: at_us(us),
            bytes_acked: 2 * MSS,
            snd_una: una * MSS,
            snd_nxt: 4 * MSS,
            cwnd_limited: true,
            receiver_echo: echo,
            ..Default::default()
        }
    }

    #[test]
    fn window_is_rtt_times_mss_over_the_echoed_gap_without_gamma() {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        let mut cc = build("modified-swift-start", &BTreeMap::new(), &cfg).unwrap();
        for seg in 0..4 {
            cc.on_sent(&sent(0, seg));
        }
        // The paper's first pair: RTT 0.11674 s, gap 7.772 ms -> 1460 x 0.11674 / 0.007772 = 21 930.
        cc.on_ack(&ack(116_740, 2, Some(7_772)));
        assert_eq!((cc.state().phase, cc.state().cwnd), ("pacing", 21_930));
        assert!((cc.state().pacing_rate.unwrap() - 21_930.0 / 0.11674).abs() < 1e-6);
        // The second pair's echo replaces the estimate: RTT 0.13228 s -> 24 849 (paper: 24 849).
        cc.on_ack(&ack(132_280, 4, Some(7_772)));
        assert_eq!((cc.state().phase, cc.state().cwnd), ("pacing", 24_849));
        // Pacing ends with the first ACK beyond what was sent when it began; slow start follows.
        cc.on_ack(&AckEvent { snd_nxt: 30 * MSS, ..ack(250_000, 5, None) });
        assert_eq!((cc.state().phase, cc.state().pacing_rate), ("slow_start", None));
    }

    #[test]
    fn estimate_below_the_window_or_a_retransmission_first_means_plain_slow_start() {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 4 * MSS, initial_ssthresh: u64::MAX };
        let mut cc = build("modified-swift-start", &BTreeMap::new(), &cfg).unwrap();
        cc.on_sent(&sent(0, 0));
        // 1460 x 0.01 / 0.005 = 2920 bytes: less than the four-segment window.
        cc.on_ack(&ack(10_000, 2, Some(5_000)));
        assert_eq!(cc.state().phase, "slow_start");
        let mut cc = build("modified-swift-start", &BTreeMap::new(), &cfg).unwrap();
        cc.on_sent(&sent(0, 0));
        cc.on_sent(&SentEvent { is_retransmission: true, ..sent(1_000_000, 0) });
        cc.on_ack(&ack(1_100_000, 2, Some(100)));
        assert_eq!(cc.state().phase, "slow_start");
    }
}
