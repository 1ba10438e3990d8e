//! Proportional Rate Reduction (RFC 6937 section 3, with the slow-start reduction bound PRR-SSRB),
//! as Linux's `tcp_cwnd_reduction` applies it: during SACK recovery the sender's window is, after
//! each ACK, `pipe + sndcnt`, where `sndcnt` lets out `ssthresh / RecoverFS` of what the ACK
//! delivered while `pipe` is above ssthresh, and up to one segment more than was delivered once
//! it is at or below (so recovery after heavy losses climbs back to ssthresh like slow start).
//!
//! State machine: created at the start of recovery (counters zero, `RecoverFS` = SND.NXT -
//! SND.UNA); every ACK in recovery adds its DeliveredData and recomputes the window; every
//! transmission adds to `prr_out`; dropped when recovery ends (the controller then sets cwnd to
//! ssthresh, as `tcp_end_cwnd_reduction`) or on a timeout.
//!
//! As Linux and ns-3 do, the first ACK's `sndcnt` is at least one segment, so the fast
//! retransmission is always allowed out (RFC 6675 step 4.3 sends it unconditionally).

/// The PRR counters of one recovery episode (bytes).
#[derive(Clone, Copy, Debug)]
pub struct Prr {
    recover_fs: u64,
    delivered: u64,
    out: u64,
    /// The window the sender obeys until the next ACK: `pipe + sndcnt`.
    pub cwnd: u64,
}

impl Prr {
    /// `recover_fs`: FlightSize (SND.NXT - SND.UNA) when recovery starts.
    pub fn new(recover_fs: u64) -> Self {
        Prr { recover_fs: recover_fs.max(1), delivered: 0, out: 0, cwnd: 0 }
    }

    /// An ACK in recovery reported `delivered_data` bytes newly delivered (cumulatively acked or
    /// SACKed); `pipe` is RFC 6675's pipe after it. Sets and returns the window; `sndcnt` is
    /// `cwnd - pipe`.
    pub fn on_ack(&mut self, delivered_data: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered_data;
        let sndcnt = if pipe > ssthresh {
            // CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out, rounded up to whole segments
            // as Linux counts it in packets (a byte-exact share would allow fractions of a
            // segment that are never sent). In 128 bits: the product of two byte counts may not
            // fit 64.
            let share = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128 * mss as u128);
            (share as u64 * mss).saturating_sub(self.out)
        } else {
            let limit = self.delivered.saturating_sub(self.out).max(delivered_data) + mss;
            (ssthresh - pipe).min(limit)
        };
        let sndcnt = if self.out == 0 { sndcnt.max(mss) } else { sndcnt };
        self.cwnd = pipe + sndcnt;
        self.cwnd
    }

    /// Data sent (new or retransmitted) during recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Plays RFC 6937's section 3.1 examples: from the ACK that triggers recovery on, each ACK
    /// delivers one segment; `pipe` is the pipe after the ACK (before sending); the sender then
    /// sends whole segments up to the window. Returns the segments sent per ACK.
    fn play(recover_fs: u64, ssthresh: u64, mut pipe: u64, acks: usize) -> Vec<u64> {
        let mut prr = Prr::new(recover_fs * MSS);
        let mut sent = Vec::new();
        for _ in 0..acks {
            let cwnd = prr.on_ack(MSS, pipe * MSS, ssthresh * MSS, MSS);
            let n = (cwnd - pipe * MSS) / MSS;
            prr.on_sent(n * MSS);
            sent.push(n);
            // The next ACK delivers one segment; what was sent is in flight.
            pipe = pipe + n - 1;
        }
        sent
    }

    // RFC 6937 section 3.1 sets cwnd = FlightSize = pipe = 20 segments, and limited transmit
    // sends two more before the third duplicate ACK, so RecoverFS = SND.NXT - SND.UNA = 22 and
    // the example's RFC 6675 row shows cwnd = ssthresh = 22 / 2 = 11 (the prose says 10; its
    // PRR "sent" rows come out exactly with 11).

    #[test]
    fn single_loss_spreads_the_reduction_over_the_round_trip() {
        // Segment 0 lost; ACKs of segments 3..=19. At the ACK of 3, pipe = 22 - 3 SACKed - 1
        // lost = 18. RFC: "sent: R . N . N . N . N . N . N . . N N", the last two by RB "s".
        let sent = play(22, 11, 18, 17);
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]);
        // The same total as RFC 6675 sends in the round (the fast retransmission and 8 new).
        assert_eq!(sent.iter().sum::<u64>(), 9);
    }

    #[test]
    fn burst_loss_grows_like_slow_start_with_ssrb() {
        // Segments 0..=14 lost; ACKs of 17, 18, 19. At the ACK of 17, pipe = 22 - 3 SACKed - 15
        // lost = 4: RFC "pipe 4 5 6, sent 2R 2R 2R" (PRR-SSRB, RB "bd d d").
        assert_eq!(play(22, 11, 4, 3), [2, 2, 2]);
    }

    #[test]
    fn the_first_ack_always_lets_the_fast_retransmission_out() {
        // Pipe far above ssthresh and ssthresh a small fraction of RecoverFS: the proportional
        // share of one delivered segment, 1/10 segment, rounds up to one segment anyway; with
        // nothing delivered, the first ACK still lets one segment out.
        let mut prr = Prr::new(100 * MSS);
        assert_eq!(prr.on_ack(0, 90 * MSS, 10 * MSS, MSS), 91 * MSS);
        prr.on_sent(MSS);
        // Next ACK delivers one segment: the share is still one segment, already sent.
        assert_eq!(prr.on_ack(MSS, 89 * MSS, 10 * MSS, MSS), 89 * MSS);
        // Eleven segments delivered in all: 11/10 rounds up to 2 segments, one of them new.
        assert_eq!(prr.on_ack(10 * MSS, 79 * MSS, 10 * MSS, MSS), 80 * MSS);
    }
}
