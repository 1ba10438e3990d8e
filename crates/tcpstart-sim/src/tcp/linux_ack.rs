//! The Linux receiver's ACK and window rules (`tcp.profile = "linux"`), after net/ipv4/tcp_input.c
//! and tcp_output.c of kernel 6.18: when an ACK goes out at once, and what window it offers.
//!
//! - **Quick-ACK budget** (`tcp_incr_quickack`): the first data segment, a gap longer than the
//!   receiver's RTO, and a duplicate segment (`tcp_enter_quickack_mode`) raise `quick` to
//!   min(rcv_wnd / (2 rcv_mss), `tcp.quickack` = TCP_MAX_QUICKACKS), at least 2. While `quick`
//!   is above zero every segment is acknowledged at once; each ACK sent takes one off
//!   (`tcp_dec_quickack_mode`). The receiver here never sends data, so never enters pingpong mode.
//! - **Window growth re-enters quick-ACK mode** (`tcp_grow_window`): every in-order segment of
//!   128 bytes or more raises `rcv_ssthresh` by max(2 advmss, 2 len) while it is below the
//!   buffer's window (`window_clamp`), and sets `quick |= 1`, so that segment is acknowledged at
//!   once. This is why a Linux receiver acknowledges most segments singly through slow start:
//!   the buffer's window grows by autotuning every round trip, and `rcv_ssthresh` climbs after it.
//! - **Otherwise every second segment** (`__tcp_ack_snd_check`): an ACK at once when more than
//!   one full segment (rcv_mss) is unacknowledged and the window offered would not shrink, or
//!   for a segment shorter than rcv_mss (pushed: acknowledged when the application has read
//!   it, `tcp_cleanup_rbuf`, and it reads at once); else
//!   the delayed-ACK timer (`tcp.delack_timeout`, TCP_ATO_MIN 40 ms: the kernel's ACK-timeout
//!   estimate stays there for a bulk receiver whose segments come less than 20 ms apart).
//! - **Out-of-order data** is acknowledged at once while in quick-ACK mode; otherwise the first
//!   three duplicate ACKs for one `rcv_nxt` go at once and later ones are compressed
//!   (`tcp_comp_sack_delay_ns` 1 ms, at most 5 % of the receiver's RTT estimate, at most
//!   `tcp_comp_sack_nr` 44 in one ACK).
//! - **Receive-buffer autotuning** (`tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`): the application
//!   reads at once; once per receiver RTT estimate, if it read more than `space` bytes in it
//!   (`copied`), the buffer's window becomes 2 copied + 4 copied (copied - space) / space (the
//!   sender may double its rate; the kernel's "DRS is one RTT late"), plus the out-of-order
//!   span, capped by `tcp.rcv_buf` (tcp_rmem[2]); `space` starts at 10 segments.
//! - **Receiver RTT** (`tcp_rcv_rtt_measure_ts`, `tcp_rcv_rtt_measure`): from the echoed
//!   timestamp of full-sized segments (the lower of a sample and the estimate, else 7/8 old +
//!   1/8 new), and from the time one window of data takes to arrive (the lowest of those).
//! - **The window offered** (`__tcp_select_window`, `tcp_select_window`): rcv_ssthresh, at most
//!   the buffer's window less the out-of-order data held, never moving the right edge back.
//!   It starts at 64 KB rounded down to whole segments (tcp_rmem[1] = 128 KB at the default
//!   scaling ratio of one half); the buffer's window starts at 64 KB.
//! - **The scaling ratio** (`tcp_measure_rcv_mss`, `tcp_set_window_clamp`): the buffer's window
//!   is its bytes times payload / truesize, in 256ths, which the kernel measures on the first
//!   segment of 536 bytes or more, and again on any longer one (icsk_ack.rcv_mss).
//!   When the ratio changes, the buffer's window becomes the buffer at the new ratio; when that
//!   grows it, rcv_ssthresh rises to at least the window offered so far. A 1448-byte segment
//!   in a 2304-byte skb gives 160/256: the 128 KB buffer's window opens from 64 KB to 80 KB at
//!   the first segment, and rcv_ssthresh climbs into it at two segments per segment, where at
//!   one half it stayed at 64 KB until autotuning (the kernel offered 53-55 segments in the
//!   paced second round trip of Modified Swift Start at 20 Mbps, 100 ms; the model 45).
//!
//! Interpretations: the receiver's RTO, which decides a "too long gap", is the handshake's RTT
//! (SYN-ACK to first data) plus max(2 RTT, `rto_min`). A segment's truesize is that of the
//! testbed's receive path ([`truesize`]). The application reads each segment before the ACK's
//! window is chosen (the kernel chooses it with the segment still queued, one segment's buffer
//! less at the buffer's limit), and autotuning's limit `tcp.rcv_buf` is a window, not a buffer.

use core::time::Duration;

use tcpstart_cc::Instant;

use crate::scenario::TcpConfig;

/// tcp_rmem[1]: the receive buffer's bytes until autotuning grows it.
const INITIAL_BUFFER: u64 = 131_072;
/// TCP_DEFAULT_SCALING_RATIO (one half), in 256ths (TCP_RMEM_TO_WIN_SCALE).
const DEFAULT_RATIO: u64 = 128;
/// TCP_MSS_DEFAULT: the kernel's first guess of the peer's segment size (`tcp_initialize_rcv_mss`).
const MSS_DEFAULT: u64 = 536;
/// The buffer's window at the default ratio.
const INITIAL_SPACE: u64 = INITIAL_BUFFER * DEFAULT_RATIO / 256;
/// TCP_FASTRETRANS_THRESH: duplicate ACKs that always go out at once.
const DUP_ACKS_AT_ONCE: u32 = 3;
/// tcp_comp_sack_nr.
const MAX_COMPRESSED: u32 = 44;
/// tcp_comp_sack_delay_ns.
const MAX_COMPRESS_DELAY: Duration = Duration::from_millis(1);
/// `tcp_grow_window` ignores segments shorter than this.
const GROW_MIN_LEN: u64 = 128;

#[derive(Clone, Debug)]
pub struct LinuxAck {
    mss: u64,
    max_quickacks: u32,
    rto_min: Duration,
    /// tcp.rcv_buf: the buffer's window never grows beyond it.
    cap: u64,
    /// Header bytes of a segment (IP and TCP, with the timestamp option if on), for [`truesize`].
    headers: u64,
    /// scaling_ratio: the buffer's window per byte of buffer, in 256ths, and icsk_ack.rcv_mss as
    /// the kernel keeps it for measuring it (from TCP_MSS_DEFAULT).
    ratio: u64,
    ratio_mss: u64,
    /// sk_rcvbuf: the buffer's bytes.
    buffer: u64,
    /// icsk_ack.quick.
    quick: u32,
    /// icsk_ack.lrcvtime: when the latest in-order data arrived (None before the first).
    last_data: Option<Instant>,
    synack_at: Instant,
    rto: Duration,
    rcv_mss: u64,
    rcv_ssthresh: u64,
    window_clamp: u64,
    /// rcv_nxt when the latest ACK went out (rcv_wup), and the window it offered (rcv_wnd).
    rcv_wup: u64,
    rcv_wnd: u64,
    /// Receive-buffer autotuning: bytes read in the latest measured round, from where, since when.
    space: u64,
    space_seq: u64,
    space_time: Instant,
    /// Receiver RTT estimate (rcv_rtt_est), and the state of its two samplers.
    rcv_rtt: Option<Duration>,
    last_tsecr: u64,
    window_rtt: Option<(u64, Instant)>,
    /// SACK compression: the rcv_nxt the duplicate ACKs are counted for, how many went at once,
    /// how many are held.
    dup_for: u64,
    dup_acks: u32,
    compressed: u32,
}

impl LinuxAck {
    pub fn new(cfg: &TcpConfig) -> Self {
        let mss = cfg.mss as u64;
        let window_clamp = INITIAL_SPACE.min(cfg.rcv_buf);
        let rcv_wnd = (window_clamp / mss * mss).max(mss);
        LinuxAck {
            mss,
            max_quickacks: cfg.quickack,
            rto_min: cfg.rto_min,
            cap: cfg.rcv_buf,
            headers: if cfg.timestamps { 52 } else { 40 },
            ratio: DEFAULT_RATIO,
            ratio_mss: MSS_DEFAULT.min(mss),
            buffer: INITIAL_BUFFER,
            quick: 0,
            last_data: None,
            synack_at: Instant::ZERO,
            rto: cfg.rto_initial,
            rcv_mss: mss,
            rcv_ssthresh: rcv_wnd,
            window_clamp,
            rcv_wup: 0,
            rcv_wnd,
            space: 10 * mss,
            space_seq: 0,
            space_time: Instant::ZERO,
            rcv_rtt: None,
            last_tsecr: 0,
            window_rtt: None,
            dup_for: 0,
            dup_acks: 0,
            compressed: 0,
        }
    }

    /// The window the latest ACK offered (the SYN-ACK's before any).
    pub fn window(&self) -> u64 {
        self.rcv_wnd
    }

    pub fn on_syn(&mut self, now: Instant) {
        self.synack_at = now;
    }

    /// `tcp_incr_quickack`.
    fn incr_quickack(&mut self) {
        let budget = match self.rcv_wnd / (2 * self.rcv_mss) {
            0 => 2,
            n => n.min(u32::MAX as u64) as u32,
        };
        self.quick = self.quick.max(budget.min(self.max_quickacks));
    }

    /// A segment that was received before (`tcp_enter_quickack_mode`).
    pub fn on_duplicate(&mut self) {
        self.incr_quickack();
    }

    /// In-order data of `len` bytes arrived, `rcv_nxt` is now past it (`tcp_event_data_recv`).
    /// `tsecr` is the timestamp it echoes, `clock` the receiver's own clock now.
    pub fn on_data(&mut self, now: Instant, len: u64, rcv_nxt: u64, tsecr: Option<u64>, clock: u64, ooo_bytes: u64) {
        if len > self.ratio_mss {
            self.measure_ratio(len);
            self.ratio_mss = len.min(self.mss);
        }
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.mss);
        }
        self.measure_rtt(now, len, rcv_nxt, tsecr, clock);
        match self.last_data {
            None => {
                let rtt = now - self.synack_at;
                self.rto = rtt + (2 * rtt).max(self.rto_min);
                self.space_time = now;
                self.incr_quickack();
            }
            Some(t) if now - t > self.rto => self.incr_quickack(),
            Some(_) => {}
        }
        self.last_data = Some(now);
        // tcp_grow_window.
        let room = self.free_space(ooo_bytes).saturating_sub(self.rcv_ssthresh);
        if len >= GROW_MIN_LEN && room > 0 {
            self.rcv_ssthresh += room.min((2 * self.mss).max(2 * len));
            self.quick |= 1;
        }
    }

    /// `tcp_measure_rcv_mss`: the ratio from a segment of `len` bytes, and when it changes, the
    /// buffer's window at the new ratio (`tcp_set_window_clamp`).
    fn measure_ratio(&mut self, len: u64) {
        let ratio = (len * 256 / truesize(len + self.headers)).max(1);
        if ratio == self.ratio {
            return;
        }
        self.ratio = ratio;
        let clamp = (self.buffer * ratio / 256).min(self.cap);
        if clamp > self.window_clamp {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(clamp));
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.min(clamp);
        }
        self.window_clamp = clamp;
    }

    fn measure_rtt(&mut self, now: Instant, len: u64, rcv_nxt: u64, tsecr: Option<u64>, clock: u64) {
        // tcp_rcv_rtt_measure: the time one window takes to arrive; only lowers the estimate.
        match self.window_rtt {
            Some((seq, _)) if rcv_nxt < seq => {}
            Some((_, since)) => {
                let sample = (now - since).max(Duration::from_micros(1));
                self.rcv_rtt = Some(self.rcv_rtt.map_or(sample, |r| r.min(sample)));
                self.window_rtt = Some((rcv_nxt + self.rcv_wnd, now));
            }
            None => self.window_rtt = Some((rcv_nxt + self.rcv_wnd, now)),
        }
        // tcp_rcv_rtt_measure_ts: once per echoed value, full-sized segments only.
        let Some(tsecr) = tsecr.filter(|&t| t != 0 && t != self.last_tsecr) else { return };
        self.last_tsecr = tsecr;
        if len < self.rcv_mss || clock <= tsecr {
            return;
        }
        let sample = Duration::from_nanos(clock - tsecr);
        self.rcv_rtt = Some(match self.rcv_rtt {
            Some(r) if sample >= r => r - r / 8 + sample / 8,
            _ => sample,
        });
    }

    /// tcp_space, capped by window_clamp: the buffer's window less the out-of-order data held.
    fn free_space(&self, ooo_bytes: u64) -> u64 {
        self.window_clamp.saturating_sub(ooo_bytes)
    }

    /// The window an ACK sent now would offer (`__tcp_select_window`).
    fn select_window(&self, ooo_bytes: u64) -> u64 {
        self.free_space(ooo_bytes).min(self.rcv_ssthresh)
    }

    /// After in-order data of `len` bytes: acknowledge at once (else the delayed-ACK timer)?
    /// A segment shorter than rcv_mss (the end of a write, pushed) is acknowledged once the
    /// application has read it (`ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf`), which here is at once.
    pub fn ack_now(&self, rcv_nxt: u64, ooo_bytes: u64, len: u64) -> bool {
        let more_than_one_segment = rcv_nxt - self.rcv_wup > self.rcv_mss;
        (more_than_one_segment && self.select_window(ooo_bytes) >= self.rcv_wnd) || self.quick > 0 || len < self.rcv_mss
    }

    /// After out-of-order data: `Some(delay)` holds the ACK back that long (SACK compression),
    /// `None` sends it now.
    pub fn hold_sack(&mut self, rcv_nxt: u64, ooo_bytes: u64) -> Option<Duration> {
        if self.ack_now(rcv_nxt, ooo_bytes, self.rcv_mss) || self.compressed >= MAX_COMPRESSED {
            return None;
        }
        if self.dup_for != rcv_nxt {
            self.dup_for = rcv_nxt;
            self.dup_acks = 0;
        }
        if self.dup_acks < DUP_ACKS_AT_ONCE {
            self.dup_acks += 1;
            return None;
        }
        self.compressed += 1;
        let rtt = self.rcv_rtt.unwrap_or(MAX_COMPRESS_DELAY * 20);
        Some(MAX_COMPRESS_DELAY.min(rtt / 20))
    }

    /// An ACK goes out now (`tcp_event_ack_sent`, `tcp_select_window`); returns its window.
    pub fn on_ack_sent(&mut self, rcv_nxt: u64, ooo_bytes: u64) -> u64 {
        self.quick = self.quick.saturating_sub(1);
        self.compressed = 0;
        // The right edge never moves back.
        let keep = (self.rcv_wup + self.rcv_wnd).saturating_sub(rcv_nxt);
        self.rcv_wnd = self.select_window(ooo_bytes).max(keep);
        self.rcv_wup = rcv_nxt;
        self.rcv_wnd
    }

    /// The application read everything up to `rcv_nxt` (`tcp_rcv_space_adjust`); `ooo_span` is
    /// how far the out-of-order data reaches beyond it.
    pub fn on_read(&mut self, now: Instant, rcv_nxt: u64, ooo_span: u64) {
        let Some(rtt) = self.rcv_rtt else { return };
        if now - self.space_time < rtt {
            return;
        }
        let copied = rcv_nxt - self.space_seq;
        if copied > self.space {
            // tcp_rcvbuf_grow.
            let rcvwin = 2 * copied;
            let grow = (rcvwin as u128 * (copied - self.space) as u128 / self.space as u128) as u64;
            let rcvwin = rcvwin.saturating_add(2 * grow).saturating_add(ooo_span).min(self.cap);
            // The buffer that holds that window at the ratio (tcp_space_from_win), if larger.
            let buffer = (rcvwin as u128 * 256).div_ceil(self.ratio as u128) as u64;
            if buffer > self.buffer {
                self.buffer = buffer;
                self.window_clamp = self.window_clamp.max(rcvwin);
            }
            self.space = copied;
        }
        self.space_seq = rcv_nxt;
        self.space_time = now;
    }
}

/// The buffer bytes (skb truesize) that a received frame of `frame` bytes (IP packet) takes on
/// the testbed's receive path: the TUN device that the delay line writes into allocates each
/// packet as one linear skb (`tun_alloc_skb`), and the routers forward it over veths unchanged,
/// so its truesize is that of `alloc_skb` for NET_SKB_PAD (64) + the frame: the head, aligned to
/// 64 bytes, plus 320 of `skb_shared_info`, in a power-of-two kmalloc bucket, plus the 256 of the
/// `sk_buff` (SKB_TRUESIZE). 2304 bytes for a 1500-byte frame. NIC drivers differ.
fn truesize(frame: u64) -> u64 {
    const SKB_PAD: u64 = 64;
    const SHARED_INFO: u64 = 320;
    const SK_BUFF: u64 = 256;
    ((SKB_PAD + frame).next_multiple_of(64) + SHARED_INFO).next_power_of_two() + SK_BUFF
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::RawTcp;

    const MSS: u64 = 1448;

    fn linux() -> LinuxAck {
        let raw = RawTcp { profile: Some("linux".into()), ..RawTcp::default() };
        LinuxAck::new(&raw.resolve("tcp").unwrap())
    }

    fn ms(n: u64) -> Instant {
        Instant(n * 1_000_000)
    }

    /// Segments `from..to` arrive in order, one every millisecond from `t0` ms; the ACKs sent at
    /// once, as the numbers of segments each acknowledges.
    fn deliver(l: &mut LinuxAck, from: u64, to: u64, t0: u64) -> Vec<u64> {
        let mut acks = Vec::new();
        let mut unacked = 0;
        for n in from..to {
            let now = ms(t0 + n - from);
            l.on_data(now, MSS, (n + 1) * MSS, None, now.0, 0);
            unacked += 1;
            if l.ack_now((n + 1) * MSS, 0, MSS) {
                l.on_ack_sent((n + 1) * MSS, 0);
                acks.push(unacked);
                unacked = 0;
            }
            l.on_read(now, (n + 1) * MSS, 0);
        }
        acks
    }

    #[test]
    fn starts_with_a_64_kb_window_and_16_quick_acks() {
        let mut l = linux();
        assert_eq!(l.window(), 45 * MSS, "64 KB in whole segments");
        l.on_syn(ms(0));
        // rcv_wnd / (2 rcv_mss) = 22, capped at TCP_MAX_QUICKACKS = 16. The first segment opens
        // the buffer's window to 80 KB (ratio 160/256): 16,760 bytes above rcv_ssthresh, which
        // six segments grow it through (2 x 1448 each), each setting quick |= 1 (16 | 1 = 17,
        // one ACK takes it back to 16): 6 + 16 single ACKs.
        let acks = deliver(&mut l, 0, 40, 100);
        assert_eq!(acks[..22], [1; 22]);
        assert!(acks[22..].iter().all(|&n| n == 2), "{acks:?}");
    }

    #[test]
    fn a_full_sized_frame_takes_2304_bytes_of_buffer() {
        // alloc_skb(64 + 1500): 1564 aligned to 1600, + 320 = 1920 in the 2048 bucket, + 256.
        assert_eq!(truesize(1500), 2304);
        // 9000-byte frames: 9064 -> 9088 + 320 = 9408, in the 16 KB bucket.
        assert_eq!(truesize(9000), 16_384 + 256);
    }

    #[test]
    fn the_first_segment_sets_the_scaling_ratio_and_opens_the_buffers_window() {
        let mut l = linux();
        l.on_syn(ms(0));
        assert_eq!((l.ratio, l.window_clamp), (128, 65_536));
        // Four segments (Modified Swift Start's initial window): 1448 x 256 / 2304 = 160, so
        // the 128 KB buffer's window is 80 KB; rcv_ssthresh, 45 segments, grows 2 segments per
        // segment: the fourth's ACK offers 45 + 8 = 53 segments (the kernel on the testbed:
        // 76,800 bytes, the same rounded up to its window scale's 512).
        deliver(&mut l, 0, 4, 100);
        assert_eq!((l.ratio, l.window_clamp), (160, 81_920));
        assert_eq!(l.window(), 53 * MSS);
        // Up to the buffer's window, reached in the sixth segment (the kernel: 80,896, one
        // queued segment's buffer less, rounded up to 512).
        deliver(&mut l, 4, 10, 104);
        assert_eq!(l.window(), 81_920);
    }

    #[test]
    fn a_short_first_segment_sets_a_lower_ratio_until_a_full_one() {
        let mut l = linux();
        l.on_syn(ms(0));
        l.on_data(ms(100), 500, 500, None, 0, 0);
        assert_eq!(l.ratio, 128, "below TCP_MSS_DEFAULT (536): not measured");
        // 600 bytes in a 2304-byte skb: 66/256, the buffer's window shrinks to 33 KB and
        // rcv_ssthresh with it; a full segment then measures 160/256.
        l.on_data(ms(101), 600, 1100, None, 0, 0);
        assert_eq!((l.ratio, l.window_clamp), (66, 131_072 * 66 / 256));
        assert!(l.rcv_ssthresh <= l.window_clamp);
        l.on_data(ms(102), MSS, 1100 + MSS, None, 0, 0);
        assert_eq!((l.ratio, l.window_clamp), (160, 81_920));
    }

    #[test]
    fn a_small_window_allows_fewer_quick_acks() {
        let raw = RawTcp {
            profile: Some("linux".into()),
            rcv_buf: Some(crate::scenario::Quantity::Number(8000.0)),
            ..RawTcp::default()
        };
        let mut l = LinuxAck::new(&raw.resolve("tcp").unwrap());
        // rcv_wnd 5 segments: 5 / 2 = 2 quick ACKs; the first segment grows rcv_ssthresh to the
        // buffer's 8000 bytes and sets quick |= 1: three single ACKs, against 17 with 64 KB.
        assert_eq!(l.window(), 5 * MSS);
        let acks = deliver(&mut l, 0, 7, 100);
        assert_eq!(acks, [1, 1, 1, 2, 2]);
    }

    #[test]
    fn autotuning_opens_the_buffer_each_round_trip_and_every_segment_that_grows_the_window_is_acked_alone() {
        let mut l = linux();
        // As after a first 1448-byte segment: ratio 160/256, the 128 KB buffer's window 80 KB.
        (l.ratio, l.ratio_mss, l.window_clamp) = (160, MSS, 81_920);
        l.rcv_rtt = Some(Duration::from_millis(50));
        l.on_read(ms(49), 20 * MSS, 0);
        assert_eq!(l.window_clamp, 81_920, "less than one receiver RTT");
        // 20 segments read in a round, more than space (10): the buffer's window becomes
        // 2 * 20 + 2 * (2 * 20) * (20 - 10) / 10 = 120 segments, a buffer of 120 x 1448 x 256 / 160.
        l.on_read(ms(50), 20 * MSS, 0);
        assert_eq!((l.window_clamp, l.buffer), (120 * MSS, 278_016));
        l.on_read(ms(100), 30 * MSS, 0);
        assert_eq!(l.window_clamp, 120 * MSS, "10 segments in the next round: no growth");
        // rcv_ssthresh 45 segments, room 75, two per segment: the next 38 segments are each
        // acknowledged alone.
        l.last_data = Some(ms(100));
        let acks = deliver(&mut l, 30, 70, 101);
        assert_eq!(acks[..38], [1; 38]);
        assert_eq!(acks[38..], [2]);
    }

    #[test]
    fn out_of_order_acks_beyond_the_third_are_compressed() {
        let mut l = linux();
        l.quick = 0;
        l.rcv_rtt = Some(Duration::from_millis(10));
        let held: Vec<Option<Duration>> = (0..5).map(|_| l.hold_sack(0, 3 * MSS)).collect();
        let half_ms = Some(Duration::from_micros(500));
        assert_eq!(held, [None, None, None, half_ms, half_ms], "5 % of a 10 ms RTT");
    }

    #[test]
    fn a_short_segment_is_acknowledged_at_once() {
        let mut l = linux();
        l.quick = 0;
        l.rcv_wup = MSS;
        assert!(!l.ack_now(2 * MSS, 0, MSS), "one full segment waits for the second");
        assert!(l.ack_now(MSS + 624, 0, 624), "the last, short segment of a transfer");
    }

    #[test]
    fn the_right_edge_never_moves_back() {
        let mut l = linux();
        let w = l.on_ack_sent(0, 0);
        // Out-of-order data fills the buffer: the offer shrinks only as far as the old edge.
        assert_eq!(l.on_ack_sent(MSS, 40 * MSS), w - MSS);
    }
}
