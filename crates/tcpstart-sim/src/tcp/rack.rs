//! RACK loss detection (RFC 8985) as Linux runs it (net/ipv4/tcp_recovery.c), for the Linux
//! profile: a segment is lost once a segment sent after it has been delivered and the latest
//! RTT plus a reordering window has passed since it was sent. Unlike RFC 6675's count of SACKed
//! segments above a hole, this finds a lost *retransmission* too (its send time is the
//! retransmission's), and a hole at the tail with a single SACKed segment above it.
//!
//! - `on_delivered` (`tcp_rack_advance`): every segment newly SACKed or cumulatively acked
//!   (not SACKed before) sets RACK.rtt to now minus its send time, unless it was retransmitted
//!   and that is below min RTT (the ACK may be for the original); the most recently sent of
//!   them is RACK's reference (send time, then end sequence, break ties).
//! - `detect` (`tcp_rack_detect_loss`): every segment not SACKed, not already waiting as lost,
//!   sent before the reference, is lost if sent at least RACK.rtt + reo_wnd ago; for the others
//!   it returns the longest wait, for the reordering timer.
//! - The reordering window (`tcp_rack_reo_wnd`, no reordering ever seen on a simulated path):
//!   zero in recovery and once as many segments as dupthresh are SACKed, else min RTT / 4, at
//!   most SRTT; the sender computes it.

use core::time::Duration;

use tcpstart_cc::Instant;

use crate::tcp::scoreboard::{Scoreboard, Segment};

#[derive(Clone, Copy, Debug, Default)]
pub struct Rack {
    /// Send time and end sequence of the most recently sent segment delivered.
    reference: Option<(Instant, u64)>,
    rtt: Duration,
    /// A delivery since the last detection (`rack.advanced`): else nothing can have changed.
    advanced: bool,
}

/// Whether (t1, end1) was sent after (t2, end2): later, or at the same time and higher.
fn sent_after(t1: Instant, end1: u64, t2: Instant, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

impl Rack {
    pub fn on_delivered(&mut self, now: Instant, s: &Segment, min_rtt: Option<Duration>) {
        let rtt = now - s.sent;
        if s.retransmitted && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        self.advanced = true;
        self.rtt = rtt;
        let end = s.seq + s.len as u64;
        if self.reference.is_none_or(|(t, e)| sent_after(s.sent, end, t, e)) {
            self.reference = Some((s.sent, end));
        }
    }

    /// After an ACK: marks the lost segments on `board` if anything was delivered since the
    /// last time; returns the reordering timer's wait, if a segment must still wait.
    pub fn on_ack(&mut self, now: Instant, board: &mut Scoreboard, reo_wnd: Duration) -> Option<Duration> {
        if !std::mem::take(&mut self.advanced) {
            return None;
        }
        self.detect(now, board, reo_wnd)
    }

    /// Marks the lost segments on `board`; returns the longest wait of those not yet lost.
    pub fn detect(&self, now: Instant, board: &mut Scoreboard, reo_wnd: Duration) -> Option<Duration> {
        let (ref_sent, ref_end) = self.reference?;
        let mut wait: Option<Duration> = None;
        for idx in 0..board.len() {
            let s = *board.get(idx).expect("index below len");
            if s.sacked || s.lost {
                continue;
            }
            if !sent_after(ref_sent, ref_end, s.sent, s.seq + s.len as u64) {
                // Never-retransmitted segments were sent in sequence order: those above this
                // one, and retransmissions of them, were all sent after the reference too.
                if s.retransmitted {
                    continue;
                }
                break;
            }
            let due = s.sent + self.rtt + reo_wnd;
            if due <= now {
                board.mark_lost(idx);
            } else {
                wait = Some(wait.unwrap_or_default().max(due - now));
            }
        }
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::delivery_rate::TxState;

    const MSS: u32 = 1000;

    fn ms(n: u64) -> Instant {
        Instant(n * 1_000_000)
    }

    /// Segments 0..n, segment i sent at i ms.
    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(MSS, false);
        for i in 0..n {
            b.push_new(i * MSS as u64, MSS, ms(i), TxState::default());
        }
        b
    }

    fn sack(rack: &mut Rack, b: &mut Scoreboard, now: Instant, seg: u64) {
        b.sack(seg * MSS as u64, (seg + 1) * MSS as u64, |s, _| rack.on_delivered(now, s, None));
    }

    fn lost(b: &Scoreboard) -> Vec<u64> {
        (0..b.len()).filter(|&i| b.get(i).unwrap().lost).map(|i| i as u64).collect()
    }

    #[test]
    fn a_hole_is_lost_once_a_later_segment_is_delivered_and_rtt_plus_reo_wnd_passed() {
        let mut b = board(5);
        let mut rack = Rack::default();
        // Segment 1 (sent at 1 ms) SACKed at 101 ms: RACK.rtt 100 ms. Segment 0, sent at 0 ms,
        // is lost at 100 ms + reo_wnd.
        sack(&mut rack, &mut b, ms(101), 1);
        let wait = rack.on_ack(ms(101), &mut b, Duration::from_millis(25));
        assert_eq!(wait, Some(Duration::from_millis(24)), "0 + 100 + 25 - 101");
        assert!(lost(&b).is_empty());
        assert_eq!(rack.detect(ms(125), &mut b, Duration::from_millis(25)), None);
        assert_eq!(lost(&b), [0], "2-4 were sent after the reference");
    }

    #[test]
    fn a_lost_retransmission_is_lost_again_when_a_later_send_is_delivered() {
        let mut b = board(4);
        let mut rack = Rack::default();
        sack(&mut rack, &mut b, ms(100), 1);
        rack.on_ack(ms(100), &mut b, Duration::ZERO);
        assert_eq!(lost(&b), [0]);
        b.on_retransmit(0, ms(100), TxState::default());
        // The retransmission of 0 (sent at 100 ms) is lost; segments 2 and 3 were sent before
        // it, so their delivery says nothing. A new segment 4, sent at 110 ms, delivered at
        // 210 ms, does.
        sack(&mut rack, &mut b, ms(102), 2);
        rack.on_ack(ms(102), &mut b, Duration::ZERO);
        assert!(lost(&b).is_empty());
        b.push_new(4 * MSS as u64, MSS, ms(110), TxState::default());
        sack(&mut rack, &mut b, ms(210), 4);
        rack.on_ack(ms(210), &mut b, Duration::ZERO);
        assert_eq!(lost(&b), [0, 3], "the retransmission of 0, and 3 (sent at 3 ms)");
    }

    #[test]
    fn an_ambiguous_delivery_of_a_retransmission_is_ignored() {
        let mut b = board(3);
        let mut rack = Rack::default();
        b.mark_lost(1);
        b.on_retransmit(1, ms(50), TxState::default());
        // Delivered 10 ms after its retransmission, below the 100 ms min RTT: the original's.
        b.sack(MSS as u64, 2 * MSS as u64, |s, _| rack.on_delivered(ms(60), s, Some(Duration::from_millis(100))));
        assert_eq!(rack.on_ack(ms(60), &mut b, Duration::ZERO), None);
        assert!(lost(&b).is_empty());
    }
}
