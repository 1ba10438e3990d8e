//! The sender's record of every unacknowledged segment: when it was sent, whether it was
//! retransmitted, SACKed or deemed lost, and whether a copy is still in the network.
//!
//! Segments never change boundaries (each is one MSS, except the last of a transfer), so a
//! segment is found by `seq / mss` in O(1). Bytes in flight follow Linux's accounting: sent and
//! not yet acked, minus SACKed and lost, plus retransmitted copies (RFC 6675's `pipe`): a segment
//! retransmitted by NextSeg rule 3 or 4 while its first copy may still be travelling counts twice,
//! as RFC 6675 SetPipe and Linux's `retrans_out` count it.
//!
//! Beside each record the scoreboard keeps the delivery-rate snapshot of the segment's latest
//! transmission, when the sender takes rate samples; it hands every segment it newly SACKs or
//! cumulatively removes, with its snapshot, to a callback, which the sender points at its
//! delivery-rate sampler. The snapshots are a deque of their own, kept only for the controllers
//! that use rate samples: a record is 24 bytes and a snapshot 40, and the records of a large
//! window are much of what a run holds (B1: 0.7 MB at 30 s, 1 MB at 300 s, when every record
//! carried its snapshot).

use std::collections::VecDeque;

use tcpstart_cc::Instant;

use crate::tcp::delivery_rate::TxState;
use crate::tcp::sacked::SackedRanges;

/// Appends to one of a scoreboard's deques, which when full grows by a quarter rather than
/// doubling. Its capacity follows the largest window its flow ever reaches, and the peak memory
/// of a long run with it: doubled, a flow whose window passed 1024 segments for a moment held
/// 2048 for the rest of the run (B1 at 300 s: five of ten flows, 123 KB more than at 30 s).
#[inline]
fn push_grown<T>(q: &mut VecDeque<T>, item: T) {
    if q.len() == q.capacity() {
        q.reserve_exact(q.capacity() / 4 + 16);
    }
    q.push_back(item);
}

#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// Last transmission time, on the sender's clock.
    pub sent: Instant,
    pub retransmitted: bool,
    pub sacked: bool,
    /// Deemed lost and not yet retransmitted since.
    pub lost: bool,
    /// Copies believed to be in the network: 0 (SACKed or deemed lost), 1, or 2 after a
    /// retransmission of a segment not deemed lost (RFC 6675 NextSeg rules 3 and 4).
    pub copies: u8,
}

// The size the module docs weigh against the snapshot's.
const _: () = assert!(size_of::<Segment>() == 24 && size_of::<TxState>() == 40);

/// The snapshot handed to the callbacks of a scoreboard that keeps none.
const NO_TX: TxState = TxState {
    sent: Instant::ZERO,
    delivered: 0,
    delivered_time: Instant::ZERO,
    first_sent_time: Instant::ZERO,
    is_app_limited: false,
};

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acked {
    pub bytes: u64,
    /// Bytes removed that had been SACKed already (delivered earlier).
    pub previously_sacked: u64,
    /// Send time of the newest acknowledged segment, if it was never retransmitted (Karn).
    pub rtt_send_time: Option<Instant>,
}

pub struct Scoreboard {
    mss: u64,
    segs: VecDeque<Segment>,
    /// The delivery state at each segment's latest transmission, in step with `segs`; empty
    /// unless `keeps_tx`.
    txs: VecDeque<TxState>,
    keeps_tx: bool,
    /// The SACKed segments' ranges, so a SACK block costs only what it newly covers.
    sacked_ranges: SackedRanges,
    in_flight: u64,
    sacked: u64,
    /// Segments deemed lost and not yet retransmitted, so that NextSeg rule 1 costs nothing on
    /// the common path (no loss).
    lost_waiting: usize,
    /// Index of the first segment that may be marked lost and not yet retransmitted.
    retransmit_cursor: usize,
    /// Index of the first segment that may qualify for NextSeg rule 3. A segment it passes (SACKed,
    /// lost or retransmitted) never qualifies again: lost ones are retransmitted, and stay so.
    rule3_cursor: usize,
    /// Segment numbers below this were already examined by SACK loss detection.
    lost_frontier: u64,
    highest_sacked_end: u64,
    /// Bytes ever marked lost (Linux `tp->lost`), for delivery-rate samples.
    lost_total: u64,
}

impl Scoreboard {
    /// `keeps_tx`: keep each transmission's delivery-rate snapshot (the sender takes rate
    /// samples); else the callbacks see an empty one.
    pub fn new(mss: u32, keeps_tx: bool) -> Self {
        Scoreboard {
            mss: mss as u64,
            segs: VecDeque::new(),
            txs: VecDeque::new(),
            keeps_tx,
            sacked_ranges: SackedRanges::default(),
            in_flight: 0,
            sacked: 0,
            lost_waiting: 0,
            retransmit_cursor: 0,
            rule3_cursor: 0,
            lost_frontier: 0,
            highest_sacked_end: 0,
            lost_total: 0,
        }
    }

    pub fn bytes_in_flight(&self) -> u64 {
        self.in_flight
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    /// Some segment is deemed lost and waits for its retransmission.
    pub fn has_lost(&self) -> bool {
        self.lost_waiting > 0
    }
    pub fn get(&self, idx: usize) -> Option<&Segment> {
        self.segs.get(idx)
    }
    pub fn highest_sacked_end(&self) -> u64 {
        self.highest_sacked_end
    }
    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }

    fn index_of(&self, seq: u64) -> Option<usize> {
        let front = self.segs.front()?;
        let idx = (seq.checked_sub(front.seq)? / self.mss) as usize;
        (idx < self.segs.len()).then_some(idx)
    }

    pub fn push_new(&mut self, seq: u64, len: u32, now: Instant, tx: TxState) {
        debug_assert!(self.segs.back().is_none_or(|s| s.seq + s.len as u64 == seq));
        push_grown(
            &mut self.segs,
            Segment { seq, len, sent: now, retransmitted: false, sacked: false, lost: false, copies: 1 },
        );
        if self.keeps_tx {
            push_grown(&mut self.txs, tx);
        }
        self.in_flight += len as u64;
    }

    pub fn on_retransmit(&mut self, idx: usize, now: Instant, tx: TxState) {
        let s = &mut self.segs[idx];
        s.sent = now;
        if self.keeps_tx {
            self.txs[idx] = tx;
        }
        s.retransmitted = true;
        self.lost_waiting -= s.lost as usize;
        s.lost = false;
        s.copies += 1;
        self.in_flight += s.len as u64;
    }

    /// Removes every segment that ends at or below `ack`, calling `removed` on each with its
    /// snapshot.
    pub fn ack_to(&mut self, ack: u64, mut removed: impl FnMut(&Segment, &TxState)) -> Acked {
        let mut out = Acked::default();
        while let Some(s) = self.segs.front() {
            if s.seq + s.len as u64 > ack {
                break;
            }
            removed(s, self.txs.front().unwrap_or(&NO_TX));
            out.bytes += s.len as u64;
            self.in_flight -= s.copies as u64 * s.len as u64;
            if s.sacked {
                self.sacked -= s.len as u64;
                out.previously_sacked += s.len as u64;
            }
            self.lost_waiting -= s.lost as usize;
            out.rtt_send_time = (!s.retransmitted).then_some(s.sent);
            // Read in place and dropped: no copy of the record out of the deque.
            self.segs.pop_front();
            self.txs.pop_front();
            self.retransmit_cursor = self.retransmit_cursor.saturating_sub(1);
            self.rule3_cursor = self.rule3_cursor.saturating_sub(1);
        }
        self.sacked_ranges.forget_below(ack);
        out
    }

    /// Marks the segments inside [start, end) as SACKed, calling `newly_sacked` on each with its
    /// snapshot; returns the bytes newly SACKed.
    pub fn sack(&mut self, start: u64, end: u64, mut newly_sacked: impl FnMut(&Segment, &TxState)) -> u64 {
        let mut newly = 0;
        let (in_flight, highest, lost_waiting, txs) =
            (&mut self.in_flight, &mut self.highest_sacked_end, &mut self.lost_waiting, &self.txs);
        let span = |s: &Segment| (s.seq, s.seq + s.len as u64);
        self.sacked_ranges.mark_block(&mut self.segs, self.mss, start, end, span, |idx, s| {
            debug_assert!(!s.sacked, "SACKed segments are in the covered ranges");
            s.sacked = true;
            *lost_waiting -= s.lost as usize;
            s.lost = false;
            newly += s.len as u64;
            *in_flight -= s.copies as u64 * s.len as u64;
            s.copies = 0;
            *highest = (*highest).max(s.seq + s.len as u64);
            newly_sacked(s, txs.get(idx).unwrap_or(&NO_TX));
        });
        self.sacked += newly;
        newly
    }

    /// Deems segment `idx` lost unless it was SACKed; its copy no longer counts as in flight.
    pub fn mark_lost(&mut self, idx: usize) {
        let s = &mut self.segs[idx];
        if s.sacked || s.lost {
            return;
        }
        s.lost = true;
        self.lost_waiting += 1;
        self.lost_total += s.len as u64;
        self.in_flight -= s.copies as u64 * s.len as u64;
        s.copies = 0;
        self.retransmit_cursor = self.retransmit_cursor.min(idx);
    }

    /// After a retransmission timeout every unSACKed segment is presumed lost.
    pub fn mark_all_lost(&mut self) {
        for idx in 0..self.segs.len() {
            self.mark_lost(idx);
        }
    }

    /// RFC 6675 IsLost, segment form: a segment with at least `dupthresh` SACKed segments above
    /// it is lost. Segments already retransmitted are left to the retransmission timer.
    /// Returns whether any segment was newly marked.
    pub fn detect_sack_losses(&mut self, dupthresh: u32) -> bool {
        // No SACKed segment outstanding (the common case): nothing can be marked.
        if self.sacked == 0 {
            return false;
        }
        let mut sacked_above = 0;
        let mut boundary = None;
        // Nothing above the highest SACKed byte can count, so the scan starts there.
        let Some(top) = self.highest_sacked_end.checked_sub(1).and_then(|b| self.index_of(b)) else { return false };
        for idx in (0..=top).rev() {
            if self.segs[idx].sacked {
                sacked_above += 1;
                if sacked_above >= dupthresh {
                    boundary = Some(idx);
                    break;
                }
            }
            if self.segs[idx].seq / self.mss < self.lost_frontier {
                break;
            }
        }
        let Some(boundary) = boundary else { return false };
        let front_no = self.segs[0].seq / self.mss;
        let start = self.lost_frontier.saturating_sub(front_no) as usize;
        let mut marked = false;
        for idx in start..boundary {
            let s = self.segs[idx];
            if !s.sacked && !s.lost && !s.retransmitted {
                self.mark_lost(idx);
                marked = true;
            }
        }
        self.lost_frontier = self.lost_frontier.max(front_no + boundary as u64);
        marked
    }

    /// The lowest segment deemed lost and not yet retransmitted.
    pub fn next_lost(&mut self) -> Option<usize> {
        // Leaving the cursor behind is safe: nothing below it is lost, and it walks on later.
        if self.lost_waiting == 0 {
            return None;
        }
        while let Some(s) = self.segs.get(self.retransmit_cursor) {
            if s.lost && !s.sacked {
                return Some(self.retransmit_cursor);
            }
            self.retransmit_cursor += 1;
        }
        None
    }

    /// RFC 6675 NextSeg rule 3: the lowest unSACKed segment above HighRxt that lies below the
    /// highest SACKed byte, lost or not. Segment form of "above HighRxt": never retransmitted
    /// (rule 1 and this rule both take the lowest candidate, so every unSACKed segment below
    /// HighRxt has been retransmitted). Deemed-lost segments are rule 1's and are skipped.
    pub fn next_rule3(&mut self) -> Option<usize> {
        while let Some(s) = self.segs.get(self.rule3_cursor) {
            if s.seq >= self.highest_sacked_end {
                return None;
            }
            if !s.sacked && !s.lost && !s.retransmitted {
                return Some(self.rule3_cursor);
            }
            self.rule3_cursor += 1;
        }
        None
    }

    /// The highest unSACKed outstanding segment: what NextSeg rule 4's rescue retransmission
    /// must include.
    pub fn highest_unsacked(&self) -> Option<usize> {
        self.segs.iter().rposition(|s| !s.sacked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 100;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(MSS, false);
        for i in 0..n {
            b.push_new(i * MSS as u64, MSS, Instant(i), TxState::default());
        }
        b
    }

    #[test]
    fn a_window_just_past_a_power_of_two_does_not_double_the_capacity() {
        for keeps_tx in [false, true] {
            let mut b = Scoreboard::new(MSS, keeps_tx);
            for i in 0..1100 {
                b.push_new(i * MSS as u64, MSS, Instant(i), TxState::default());
            }
            // Doubling would hold 2048 of each; growing by a quarter at most 1.25 x 1100 + 16.
            assert!((1100..=1391).contains(&b.segs.capacity()), "segments: {}", b.segs.capacity());
            if keeps_tx {
                assert!((1100..=1391).contains(&b.txs.capacity()), "snapshots: {}", b.txs.capacity());
            }
            assert_eq!(b.segs.len(), 1100);
        }
    }

    #[test]
    fn cumulative_ack_removes_segments_and_reports_karn_sample() {
        let mut b = board(5);
        let a = b.ack_to(200, |_, _| {});
        assert_eq!((a.bytes, a.rtt_send_time), (200, Some(Instant(1))));
        assert_eq!(b.bytes_in_flight(), 300);
        b.mark_lost(0);
        b.on_retransmit(0, Instant(9), TxState::default());
        let a = b.ack_to(300, |_, _| {});
        assert_eq!(a.rtt_send_time, None, "no sample from a retransmitted segment");
    }

    #[test]
    fn sack_and_loss_detection_follow_rfc6675() {
        let mut b = board(6);
        // Segment 0 lost; 1, 2, 3 SACKed: three SACKed segments above 0 make it lost.
        assert_eq!(b.sack(100, 400, |_, _| {}), 300);
        assert_eq!(b.bytes_in_flight(), 300);
        assert!(b.detect_sack_losses(3));
        assert_eq!(b.next_lost(), Some(0));
        assert_eq!(b.bytes_in_flight(), 200);
        b.on_retransmit(0, Instant(10), TxState::default());
        assert_eq!(b.bytes_in_flight(), 300);
        assert_eq!(b.next_lost(), None);
        let a = b.ack_to(400, |_, _| {});
        assert_eq!((a.bytes, a.previously_sacked), (400, 300));
        assert_eq!(b.sacked_bytes(), 0);
    }

    #[test]
    fn two_sacked_segments_are_not_enough() {
        let mut b = board(4);
        b.sack(200, 400, |_, _| {});
        assert!(!b.detect_sack_losses(3));
    }

    #[test]
    fn several_holes_in_one_window_are_all_found() {
        let mut b = board(10);
        // Holes at 0 and 2; SACKed 1, 3..=6.
        b.sack(100, 200, |_, _| {});
        b.sack(300, 700, |_, _| {});
        assert!(b.detect_sack_losses(3));
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Instant(20), TxState::default());
        assert_eq!(b.next_lost(), Some(2));
    }

    #[test]
    fn loss_detection_after_the_sacked_data_was_cumulatively_acked() {
        let mut b = board(6);
        b.sack(100, 400, |_, _| {});
        b.ack_to(500, |_, _| {});
        assert!(!b.detect_sack_losses(3), "no SACKed segment remains above the front");
    }

    #[test]
    fn timeout_marks_everything_unsacked() {
        let mut b = board(4);
        b.sack(200, 300, |_, _| {});
        b.mark_all_lost();
        assert_eq!(b.bytes_in_flight(), 0);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Instant(5), TxState::default());
        assert_eq!(b.next_lost(), Some(1));
        b.on_retransmit(1, Instant(5), TxState::default());
        assert_eq!(b.next_lost(), Some(3), "the SACKed segment is skipped");
    }

    #[test]
    fn lost_segments_leave_the_waiting_set_however_they_go() {
        let mut b = board(5);
        b.mark_all_lost();
        // Segment 0 (seq 0) is acknowledged, 1 (seq 100) SACKed, 2 (seq 200) retransmitted:
        // 3 and 4 still wait. Indices count from the first unacknowledged segment.
        b.ack_to(100, |_, _| {});
        b.sack(100, 200, |_, _| {});
        b.on_retransmit(1, Instant(5), TxState::default());
        assert_eq!(b.next_lost(), Some(2));
        b.on_retransmit(2, Instant(5), TxState::default());
        b.on_retransmit(3, Instant(5), TxState::default());
        assert_eq!(b.next_lost(), None);
        b.mark_lost(0);
        assert_eq!(b.next_lost(), None, "a SACKed segment is not lost");
        b.mark_lost(1);
        assert_eq!(b.next_lost(), Some(1));
    }

    #[test]
    fn rule_3_takes_unsacked_segments_below_the_highest_sack_once() {
        let mut b = board(8);
        // Holes at 0, 1 and 5; SACKed 2, 3, 4 and 6; 7 not yet reported.
        b.sack(200, 500, |_, _| {});
        b.sack(600, 700, |_, _| {});
        assert!(b.detect_sack_losses(3));
        // 0 and 1 have three SACKed segments above: rule 1's. 5 has one: rule 3's. 7 lies above
        // the highest SACKed byte: neither.
        assert_eq!(b.next_rule3(), Some(5));
        b.on_retransmit(5, Instant(10), TxState::default());
        assert_eq!(b.next_rule3(), None, "segment 5 went out already");
        // A later SACK of 7 makes nothing new eligible: everything below it is SACKed, lost or
        // retransmitted.
        b.sack(700, 800, |_, _| {});
        assert_eq!(b.next_rule3(), None);
    }

    #[test]
    fn a_second_copy_counts_twice_in_pipe_until_delivered() {
        let mut b = board(4);
        b.sack(300, 400, |_, _| {});
        assert_eq!(b.bytes_in_flight(), 300);
        // Segment 2, not deemed lost, is retransmitted (rule 3): RFC 6675 SetPipe counts both.
        b.on_retransmit(2, Instant(10), TxState::default());
        assert_eq!(b.bytes_in_flight(), 400);
        // Its SACK takes both copies out of the network.
        b.sack(200, 300, |_, _| {});
        assert_eq!(b.bytes_in_flight(), 200);
        // A timeout's loss marking also drops both copies of a twice-sent segment.
        b.on_retransmit(1, Instant(11), TxState::default());
        assert_eq!(b.bytes_in_flight(), 300);
        b.mark_all_lost();
        assert_eq!(b.bytes_in_flight(), 0);
    }

    /// A snapshot told apart by its `delivered` count.
    fn tx(delivered: u64) -> TxState {
        TxState { delivered, ..TxState::default() }
    }

    #[test]
    fn each_segment_comes_back_with_its_latest_snapshot_when_they_are_kept() {
        let mut b = Scoreboard::new(MSS, true);
        for i in 0..6 {
            b.push_new(i * MSS as u64, MSS, Instant(i), tx(10 + i));
        }
        b.mark_lost(1);
        b.on_retransmit(1, Instant(9), tx(99));
        let mut seen = Vec::new();
        b.sack(300, 500, |s, t| seen.push((s.seq, t.delivered)));
        assert_eq!(seen, [(300, 13), (400, 14)]);
        seen.clear();
        b.ack_to(200, |s, t| seen.push((s.seq, t.delivered)));
        assert_eq!(seen, [(0, 10), (100, 99)], "the retransmission's snapshot replaced the first");
        // Removing from the front keeps the two in step.
        seen.clear();
        b.sack(500, 600, |s, t| seen.push((s.seq, t.delivered)));
        b.ack_to(600, |s, t| seen.push((s.seq, t.delivered)));
        assert_eq!(seen, [(500, 15), (200, 12), (300, 13), (400, 14), (500, 15)]);
    }

    #[test]
    fn without_snapshots_the_callbacks_see_an_empty_one() {
        let mut b = Scoreboard::new(MSS, false);
        b.push_new(0, MSS, Instant(1), tx(7));
        b.push_new(100, MSS, Instant(2), tx(8));
        let mut seen = Vec::new();
        b.sack(100, 200, |s, t| seen.push((s.seq, t.delivered)));
        b.ack_to(200, |s, t| seen.push((s.seq, t.delivered)));
        assert_eq!(seen, [(100, 0), (0, 0), (100, 0)]);
    }

    #[test]
    fn the_rescue_candidate_is_the_highest_unsacked_segment() {
        let mut b = board(5);
        assert_eq!(b.highest_unsacked(), Some(4));
        b.sack(300, 500, |_, _| {});
        assert_eq!(b.highest_unsacked(), Some(2));
        b.sack(0, 300, |_, _| {});
        assert_eq!(b.highest_unsacked(), None);
    }
}
