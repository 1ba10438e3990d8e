//! Delivery-rate estimation in the sender, after draft-cheng-iccrg-delivery-rate-estimation and
//! Linux `net/ipv4/tcp_rate.c`.
//!
//! Every transmission (new or retransmitted) takes a snapshot of the connection's delivery
//! state: bytes delivered so far, when that count last grew, when the first segment of the
//! current flight was sent, and whether the sender was application-limited. When an ACK
//! cumulatively acknowledges or SACKs segments, the most recently sent of them defines the
//! sample: it delivered `total_delivered - snapshot.delivered` bytes over
//! `max(send_elapsed, ack_elapsed)`. Counting is in bytes rather than Linux's packets.
//!
//! Interpretations, each as Linux does it:
//! - the segment that defines a sample is the most recently *sent* one (ties by higher
//!   sequence), Linux `tcp_skb_sent_after`;
//! - a sample is invalid (no interval) when no segment was (S)ACKed or the interval is shorter
//!   than the connection's minimum RTT (`tcp_rate_gen`);
//! - without SACK each duplicate ACK counts one segment delivered, and a cumulative ACK counts
//!   what it acknowledges beyond those credits, at least one segment (`tcp_add_reno_sack`,
//!   `tcp_remove_reno_sacks`);
//! - the RTT of a sample is that of the most recently sent SACKed segment never retransmitted,
//!   else of the highest cumulatively acknowledged one if no retransmitted segment was among
//!   them, else the timestamp echo (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`);
//! - losses are the bytes marked lost since the previous ACK's sample; the marks of a
//!   retransmission timeout are not attributed to any ACK (Linux counts them at the timeout).
//!
//! The snapshots live in the scoreboard beside its segment records (as Linux keeps them in the
//! skb), so a segment is pushed, SACKed and removed once: the scoreboard reports each segment it
//! newly SACKs ([`DeliveryRate::on_sacked`]) or cumulatively removes ([`DeliveryRate::on_acked`]),
//! with its snapshot.

use tcpstart_cc::{Duration, Instant, RateSample};

use crate::tcp::scoreboard::Segment;

/// The delivery state a transmission saw (Linux `tcp_rate_skb_sent`), kept beside the segment's
/// scoreboard record until the segment is cumulatively acknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxState {
    /// Send time in simulated time (the scoreboard's `sent` is on the sender's clock ticks).
    pub sent: Instant,
    pub delivered: u64,
    pub delivered_time: Instant,
    pub first_sent_time: Instant,
    pub is_app_limited: bool,
}

/// What the sample needs of the segment that defines it.
#[derive(Clone, Copy, Debug)]
struct Chosen {
    seq: u64,
    retransmitted: bool,
    tx: TxState,
}

/// The segment chosen to define this ACK's sample, and the RTT candidates.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    chosen: Option<Chosen>,
    acked_sacked: u64,
    /// Send time of the most recently sent newly SACKed, never retransmitted segment.
    sack_rtt_sent: Option<Instant>,
    /// Send time of the highest cumulatively acknowledged segment, unless one was retransmitted.
    ack_rtt_sent: Option<Instant>,
    retransmitted_acked: bool,
}

pub struct DeliveryRate {
    mss: u64,
    /// Whether samples will be asked for (the controller reads them). Without, only the
    /// delivered count and the application-limited state, which the send events report, are
    /// kept: no snapshot is taken and no segment is weighed for a sample.
    samples: bool,
    delivered: u64,
    delivered_time: Instant,
    first_sent_time: Instant,
    /// 0 when not application-limited, else the delivered count that ends the app-limited bubble.
    app_limited: u64,
    /// Lost bytes already reported in a sample (or forgotten after a timeout).
    lost_seen: u64,
    /// Without SACK: duplicate-ACK credits not yet covered by the cumulative ACK.
    dupack_credit: u64,
    pending: Pending,
}

impl DeliveryRate {
    pub fn new(mss: u32, samples: bool) -> Self {
        DeliveryRate {
            mss: mss as u64,
            samples,
            delivered: 0,
            delivered_time: Instant::ZERO,
            first_sent_time: Instant::ZERO,
            app_limited: 0,
            lost_seen: 0,
            dupack_credit: 0,
            pending: Pending::default(),
        }
    }

    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// A segment leaves the sender: returns the snapshot to keep with it. `nothing_outstanding`:
    /// no unacknowledged data before it (Linux `!tp->packets_out`), so the flight, and the sample
    /// interval, start now.
    pub fn on_sent(&mut self, now: Instant, nothing_outstanding: bool) -> TxState {
        if !self.samples {
            return TxState::default();
        }
        if nothing_outstanding {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxState {
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            is_app_limited: self.app_limited != 0,
        }
    }

    /// The scoreboard marked segment `s` SACKed: it is delivered.
    pub fn on_sacked(&mut self, s: &Segment, tx: &TxState) {
        self.delivered += s.len as u64;
        if !self.samples {
            return;
        }
        self.pending.acked_sacked += s.len as u64;
        if !s.retransmitted {
            self.pending.sack_rtt_sent = self.pending.sack_rtt_sent.max(Some(tx.sent));
        }
        self.consider(s, tx);
    }

    /// The cumulative ACK removed segment `s` from the scoreboard. Segments SACKed before were
    /// counted then; the bytes of the others are counted by [`Self::on_cumulative_ack`].
    pub fn on_acked(&mut self, s: &Segment, tx: &TxState) {
        if s.sacked || !self.samples {
            return;
        }
        self.pending.retransmitted_acked |= s.retransmitted;
        self.pending.ack_rtt_sent = Some(tx.sent);
        self.consider(s, tx);
    }

    /// Picks the most recently sent delivered segment as the one defining the sample.
    fn consider(&mut self, s: &Segment, tx: &TxState) {
        let later = self.pending.chosen.is_none_or(|c| tx.sent > c.tx.sent || (tx.sent == c.tx.sent && s.seq > c.seq));
        if later {
            self.pending.chosen = Some(Chosen { seq: s.seq, retransmitted: s.retransmitted, tx: *tx });
            // The next flight's send phase starts at this segment (Linux `first_tx_mstamp`).
            self.first_sent_time = tx.sent;
        }
    }

    /// A duplicate ACK without SACK: one segment left the network, which one is unknown.
    pub fn on_dupack(&mut self) {
        self.delivered += self.mss;
        self.dupack_credit += self.mss;
        self.pending.acked_sacked += self.mss;
    }

    /// The cumulative ACK moved on, acknowledging `bytes` not SACKed before (after
    /// [`Self::on_acked`] for each removed segment). `sack`: whether SACK is in use (else
    /// duplicate-ACK credits are settled here).
    pub fn on_cumulative_ack(&mut self, bytes: u64, sack: bool) {
        if bytes == 0 {
            return;
        }
        let counted = if sack {
            bytes
        } else {
            let counted = bytes.saturating_sub(self.dupack_credit).max(bytes.min(self.mss));
            self.dupack_credit = self.dupack_credit.saturating_sub(bytes.saturating_sub(self.mss));
            counted
        };
        self.delivered += counted;
        self.pending.acked_sacked += counted;
    }

    /// The retransmission timeout marked everything lost; those losses belong to no ACK.
    pub fn on_timeout(&mut self, lost_total: u64) {
        self.lost_seen = lost_total;
    }

    /// Ends the ACK: produces its sample (Linux `tcp_rate_gen`). `lost_total`: bytes ever
    /// marked lost; `min_rtt`: the connection's minimum RTT; `ts_rtt`: RTT from the timestamp
    /// echo when the ACK advanced the cumulative point.
    pub fn sample(
        &mut self,
        now: Instant,
        lost_total: u64,
        min_rtt: Option<Duration>,
        ts_rtt: Option<Duration>,
    ) -> RateSample {
        debug_assert!(self.samples, "an estimator made without samples");
        let p = std::mem::take(&mut self.pending);
        self.end_app_limited();
        if p.acked_sacked > 0 {
            self.delivered_time = now;
        }
        let losses = lost_total.saturating_sub(self.lost_seen);
        self.lost_seen = lost_total;
        let ack_rtt_sent = p.ack_rtt_sent.filter(|_| !p.retransmitted_acked);
        let rtt = p.sack_rtt_sent.or(ack_rtt_sent).map(|sent| now - sent).or(ts_rtt);
        let mut rs = RateSample {
            rtt,
            losses,
            acked_sacked: p.acked_sacked,
            total_delivered: self.delivered,
            total_lost: lost_total,
            delivered_time: self.delivered_time,
            dupack_credit: self.dupack_credit,
            ..RateSample::default()
        };
        let Some(c) = p.chosen else { return rs };
        rs.prior_delivered = c.tx.delivered;
        rs.prior_time = c.tx.delivered_time;
        rs.is_app_limited = c.tx.is_app_limited;
        rs.is_retrans = c.retransmitted;
        rs.delivered = self.delivered - c.tx.delivered;
        rs.send_elapsed = c.tx.sent - c.tx.first_sent_time;
        rs.ack_elapsed = now - c.tx.delivered_time;
        let interval = rs.send_elapsed.max(rs.ack_elapsed);
        // Shorter than a round trip: the sample would overestimate (e.g. a spurious
        // retransmission acknowledged at once), so it carries no rate.
        rs.interval = min_rtt.is_none_or(|m| interval >= m).then_some(interval);
        rs
    }

    /// Ends the ACK of an estimator made without samples: the application-limited state moves
    /// on as in [`Self::sample`].
    pub fn end_ack_unsampled(&mut self) {
        debug_assert!(!self.samples, "an estimator made for samples");
        self.pending.acked_sacked = 0;
        self.end_app_limited();
    }

    /// The app-limited bubble is gone once everything sent in it is delivered.
    fn end_app_limited(&mut self) {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
    }

    /// The sender found nothing to send (RFC draft "app-limited" check, Linux
    /// `tcp_rate_check_app_limited`): with the window not full and no lost segment waiting for
    /// retransmission, the flight now in the network is application-limited.
    pub fn check_app_limited(&mut self, bytes_in_flight: u64, window: u64, lost_waiting: bool) {
        if bytes_in_flight < window && !lost_waiting {
            self.mark_app_limited(bytes_in_flight);
        }
    }

    /// Marks the data now in flight application-limited.
    pub fn mark_app_limited(&mut self, bytes_in_flight: u64) {
        self.app_limited = (self.delivered + bytes_in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::scoreboard::Scoreboard;

    const MSS: u32 = 1000;

    /// The scoreboard and the sampler, driven as the sender drives them.
    struct Conn {
        board: Scoreboard,
        rate: DeliveryRate,
        snd_max: u64,
    }

    impl Conn {
        fn new() -> Self {
            Conn::with(true)
        }

        fn with(samples: bool) -> Self {
            Conn { board: Scoreboard::new(MSS, samples), rate: DeliveryRate::new(MSS, samples), snd_max: 0 }
        }

        /// Sends the segment starting at `seq`: a retransmission if it was sent before.
        fn send(&mut self, now: Instant, seq: u64) {
            let tx = self.rate.on_sent(now, self.board.is_empty());
            if seq < self.snd_max {
                let front = self.board.get(0).expect("an outstanding segment").seq;
                self.board.on_retransmit(((seq - front) / MSS as u64) as usize, now, tx);
            } else {
                self.board.push_new(seq, MSS, now, tx);
                self.snd_max = seq + MSS as u64;
            }
        }

        fn sack(&mut self, start: u64, end: u64) {
            self.board.sack(start, end, |s, tx| self.rate.on_sacked(s, tx));
        }

        fn ack(&mut self, ack: u64, sack: bool) {
            let acked = self.board.ack_to(ack, |s, tx| self.rate.on_acked(s, tx));
            self.rate.on_cumulative_ack(acked.bytes - acked.previously_sacked, sack);
        }
    }

    fn ms(x: u64) -> Instant {
        Instant(x * 1_000_000)
    }

    /// Ten segments sent 1 ms apart from t = 0 on an idle connection.
    fn flight() -> Conn {
        let mut r = Conn::new();
        for i in 0..10 {
            r.send(ms(i), i * MSS as u64);
        }
        r
    }

    #[test]
    fn first_ack_of_a_flight_measures_from_the_first_send() {
        let mut r = flight();
        // ACK of segments 0 and 1 at 100 ms: 2000 bytes since delivered_time 0 (the flight
        // started on an idle connection), send phase 1 ms, ack phase 100 ms.
        r.ack(2000, true);
        let s = r.rate.sample(ms(100), 0, Some(Duration::from_millis(99)), None);
        assert_eq!((s.delivered, s.prior_delivered, s.acked_sacked), (2000, 0, 2000));
        assert_eq!(s.send_elapsed, Duration::from_millis(1));
        assert_eq!(s.ack_elapsed, Duration::from_millis(100));
        assert_eq!(s.interval, Some(Duration::from_millis(100)));
        assert_eq!(s.rtt, Some(Duration::from_millis(99)), "newest acked segment was sent at 1 ms");
        assert_eq!(s.delivery_rate(), Some(20_000.0));
    }

    #[test]
    fn later_acks_measure_from_the_previous_delivery() {
        let mut r = flight();
        r.ack(2000, true);
        r.rate.sample(ms(100), 0, None, None);
        // Segment 10 is sent at 101 ms, after delivered = 2000 at 100 ms.
        r.send(ms(101), 10_000);
        r.ack(10_000, true);
        r.rate.sample(ms(108), 0, None, None);
        r.ack(11_000, true);
        let s = r.rate.sample(ms(201), 0, None, None);
        // prior: delivered 2000 at 100 ms; now 11 000 at 201 ms. Send phase: segment 10 at
        // 101 ms minus the flight start, which was segment 1's send time (1 ms) = 100 ms.
        assert_eq!((s.prior_delivered, s.delivered), (2000, 9000));
        assert_eq!(s.prior_time, ms(100));
        assert_eq!(s.send_elapsed, Duration::from_millis(100));
        assert_eq!(s.ack_elapsed, Duration::from_millis(101));
        assert_eq!(s.interval, Some(Duration::from_millis(101)));
    }

    #[test]
    fn sacked_segment_counts_once_and_defines_the_sample() {
        let mut r = flight();
        // Segment 0 lost; SACK of 1..4 at 100 ms.
        r.sack(1000, 4000);
        let s = r.rate.sample(ms(100), 0, None, None);
        assert_eq!((s.acked_sacked, s.delivered), (3000, 3000));
        assert_eq!(s.rtt, Some(Duration::from_millis(97)), "segment 3 sent at 3 ms");
        assert_eq!(s.send_elapsed, Duration::from_millis(3));
        // The cumulative ACK after the retransmission of 0 (at 101 ms) covers 0..4: only
        // segment 0 is new, and the retransmission gives no RTT from the cumulative ACK.
        r.send(ms(101), 0);
        r.ack(4000, true);
        let s = r.rate.sample(ms(201), 1000, None, None);
        assert_eq!((s.acked_sacked, s.delivered, s.losses), (1000, 1000, 1000));
        assert_eq!(s.prior_delivered, 3000, "the retransmission saw 3000 delivered");
        assert!(s.is_retrans);
        assert_eq!(s.rtt, None);
        assert_eq!(r.rate.sample(ms(202), 1000, None, None).losses, 0, "losses are reported once");
    }

    #[test]
    fn interval_shorter_than_min_rtt_is_invalid() {
        let mut r = flight();
        r.ack(1000, true);
        let s = r.rate.sample(ms(50), 0, Some(Duration::from_millis(60)), None);
        assert_eq!(s.interval, None);
        assert_eq!(s.delivery_rate(), None);
        assert_eq!(s.acked_sacked, 1000);
    }

    #[test]
    fn app_limited_marks_later_sends_until_the_bubble_is_delivered() {
        let mut r = Conn::new();
        r.send(ms(0), 0);
        r.send(ms(0), 1000);
        // Out of data with 2000 bytes in flight and room in the window: bubble ends at 2000.
        r.rate.check_app_limited(2000, 10_000, false);
        assert!(r.rate.is_app_limited());
        r.send(ms(1), 2000);
        r.ack(2000, true);
        let s = r.rate.sample(ms(100), 0, None, None);
        assert!(!s.is_app_limited, "segment 1 was sent before the mark");
        assert!(r.rate.is_app_limited(), "delivered 2000 is not beyond the bubble yet");
        r.ack(3000, true);
        let s = r.rate.sample(ms(101), 0, None, None);
        assert!(s.is_app_limited, "segment 2 was sent while app-limited");
        assert!(!r.rate.is_app_limited(), "delivered 3000 > 2000 ends the bubble");
    }

    #[test]
    fn without_samples_the_app_limited_state_moves_alike() {
        let (mut with, mut without) = (Conn::with(true), Conn::with(false));
        for r in [&mut with, &mut without] {
            r.send(ms(0), 0);
            r.send(ms(0), 1000);
            r.rate.check_app_limited(2000, 10_000, false);
            r.send(ms(1), 2000);
            r.send(ms(1), 3000);
        }
        // One step at a time: SACK of segment 2, then cumulative ACKs; the bubble (2000 bytes
        // delivered) ends only when more than 2000 bytes are delivered.
        let steps: [&dyn Fn(&mut Conn); 3] = [&|r| r.sack(2000, 3000), &|r| r.ack(1000, true), &|r| r.ack(2000, true)];
        for step in steps {
            step(&mut with);
            step(&mut without);
            with.rate.sample(ms(100), 0, None, None);
            without.rate.end_ack_unsampled();
            assert_eq!(with.rate.is_app_limited(), without.rate.is_app_limited());
            assert_eq!(with.rate.delivered, without.rate.delivered);
        }
        assert!(!without.rate.is_app_limited(), "3000 bytes delivered end the bubble");
    }

    #[test]
    fn no_app_limited_mark_when_window_full_or_losses_wait() {
        let mut r = Conn::new();
        r.rate.check_app_limited(10_000, 10_000, false);
        assert!(!r.rate.is_app_limited());
        r.rate.check_app_limited(1000, 10_000, true);
        assert!(!r.rate.is_app_limited());
    }

    #[test]
    fn duplicate_acks_without_sack_count_one_segment_each() {
        let mut r = flight();
        r.rate.on_dupack();
        r.rate.on_dupack();
        let s = r.rate.sample(ms(100), 0, None, None);
        assert_eq!((s.acked_sacked, s.total_delivered, s.dupack_credit), (2000, 2000, 2000));
        assert_eq!(s.interval, None, "no segment identified");
        // A cumulative ACK of 5 segments: 2 were already credited, 3 are new.
        r.ack(5000, false);
        let s = r.rate.sample(ms(101), 0, None, None);
        assert_eq!((s.acked_sacked, s.total_delivered, s.dupack_credit), (3000, 5000, 0));
    }

    #[test]
    fn timeout_losses_are_not_attributed_to_an_ack() {
        let mut r = flight();
        r.rate.on_timeout(10_000);
        r.ack(1000, true);
        let s = r.rate.sample(ms(100), 10_000, None, None);
        assert_eq!((s.losses, s.total_lost), (0, 10_000));
    }
}
