//! The TCP receiver: cumulative and selective acknowledgements (RFC 2018), delayed ACKs
//! (RFC 1122 4.2.3.2 / RFC 5681 4.2: every `delack_count` full segments or after a timer, at once
//! for out-of-order data and for data that fills a hole), timestamps echo (RFC 7323 4.3) and the
//! advertised window. The application reads in-order data at once, so only out-of-order data
//! occupies the receive buffer.
//!
//! ACK policies, from the `tcp` options: every segment (`delayed_ack = false` or
//! `delack_count = 1`); every k segments or after `delack_timeout`, whichever comes first
//! (`delack_count = k`; the OPNET "segment/clock based" setting is k = 2 with a 0.2 s maximum
//! delay); and optionally Linux's quick-ACK mode at connection start: the first `quickack` ACKs
//! after data begins are sent at once, one per segment. Linux (net/ipv4/tcp_input.c
//! `tcp_incr_quickack`, called on the first data segment) allows min(16 = TCP_MAX_QUICKACKS,
//! rcv_wnd / (2 rcv_mss)) of them, at least 2, and counts one down per ACK sent
//! (`tcp_dec_quickack_mode`); with Linux's initial receive window of 10 segments that is 5, with
//! a window of 32 segments or more it is 16.
//!
//! With `tcp.profile = "linux"` the ACK and window rules are Linux's instead ([`LinuxAck`]):
//! quick ACKs re-entered whenever the window grows, receive-buffer autotuning, SACK compression.

use std::collections::VecDeque;

use tcpstart_cc::{Instant, ReceiverHook, SegmentArrival};

use crate::packet::{Packet, PacketKind, MAX_SACK_BLOCKS};
use crate::scenario::{Profile, TcpConfig};
use crate::tcp::linux_ack::LinuxAck;
use crate::tcp::sack_blocks::{SackBlocks, BLOCKS_EXPECTED};

/// 64 KB cap of the window field when window scaling is off.
const UNSCALED_WINDOW_MAX: u64 = 65_535;

pub struct Receiver {
    cfg: TcpConfig,
    rcv_nxt: u64,
    /// Out-of-order data held, as disjoint, non-touching sorted [start, end) ranges. A deque
    /// with a byte total, since there can be thousands of ranges (every other segment lost) and
    /// in-order data removes them from the front: the cost per segment does not grow with them.
    ooo: VecDeque<(u64, u64)>,
    ooo_bytes: u64,
    /// Start of the block that most recently received data: it goes first in the SACK option.
    recent_block: Option<u64>,
    /// The Linux profile's SACK blocks (with SACK on): what its ACKs report instead.
    linux_sacks: Option<SackBlocks>,
    /// Full segments received since the last ACK was sent.
    unacked_segments: u32,
    delack_deadline: Option<Instant>,
    /// Quick ACKs left (Linux `icsk_ack.quick`).
    quickacks_left: u32,
    /// RFC 7323 TS.Recent and Last.ACK.sent.
    ts_recent: u64,
    last_ack_sent: u64,
    /// This end's clock runs this far ahead of simulated time (clocks are not synchronised).
    clock_offset: u64,
    hook: Option<Box<dyn ReceiverHook>>,
    pending_echo: Option<u64>,
    /// The receiver-side hook failed (see [`ReceiverHook::take_failure`]): the simulator takes
    /// it after the segment and stops the run.
    pub hook_failure: Option<tcpstart_cc::ControllerFailure>,
    /// The Linux profile's ACK and window rules (boxed: the other profile does without).
    linux: Option<Box<LinuxAck>>,
    /// An ACK is held back (the Linux profile's SACK compression) and goes out with the timer.
    ack_held: bool,
}

impl Receiver {
    pub fn new(cfg: TcpConfig, clock_offset: u64, hook: Option<Box<dyn ReceiverHook>>) -> Self {
        Receiver {
            quickacks_left: cfg.quickack,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            ooo_bytes: 0,
            recent_block: None,
            linux_sacks: (cfg.profile == Profile::Linux && cfg.sack).then(SackBlocks::default),
            unacked_segments: 0,
            delack_deadline: None,
            ts_recent: 0,
            last_ack_sent: 0,
            clock_offset,
            hook,
            pending_echo: None,
            hook_failure: None,
            linux: (cfg.profile == Profile::Linux).then(|| Box::new(LinuxAck::new(&cfg))),
            ack_held: false,
            cfg,
        }
    }

    /// Frees the out-of-order store once the sender has finished (a late duplicate may still
    /// arrive and is handled as usual).
    pub fn release_buffers(&mut self) {
        self.ooo = VecDeque::new();
        self.ooo_bytes = 0;
        if let Some(b) = self.linux_sacks.as_mut() {
            *b = SackBlocks::default();
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    fn window(&self) -> u64 {
        let w = match &self.linux {
            Some(l) => l.window(),
            None => self.cfg.rcv_buf.saturating_sub(self.ooo_bytes),
        };
        if self.cfg.window_scaling {
            w
        } else {
            w.min(UNSCALED_WINDOW_MAX)
        }
    }

    /// Handles an arriving SYN or data segment; appends to `out` the ACK (or SYN-ACK) to send
    /// now, if any (the sender's shape: an endpoint's handlers all append what they send).
    pub fn on_packet(&mut self, now: Instant, pkt: &Packet, out: &mut Vec<Packet>) {
        if let Some((tsval, _)) = pkt.ts() {
            // Echo the segment that covers the last byte acknowledged, so a delayed ACK reports
            // the earliest unacknowledged segment's time (RFC 7323 4.3).
            if pkt.seq <= self.last_ack_sent {
                self.ts_recent = tsval;
            }
        }
        if pkt.kind == PacketKind::Syn {
            if let Some(l) = self.linux.as_mut() {
                l.on_syn(now);
            }
            self.ts_recent = pkt.ts().map_or(0, |t| t.0);
            let mut synack = self.ack_packet(now);
            synack.kind = PacketKind::SynAck;
            // The Quick-Start Response reports the rate the routers left in the Request.
            synack.set_quick_start(pkt.quick_start());
            out.push(synack);
            return;
        }
        if let Some(hook) = self.hook.as_mut() {
            let arrival = SegmentArrival { now, seq: pkt.seq, len: pkt.len, mark: pkt.mark };
            if let Some(v) = hook.on_segment(&arrival) {
                self.pending_echo = Some(v);
            }
            if let Some(failure) = hook.take_failure() {
                self.hook_failure.get_or_insert(failure);
            }
        }
        let (start, end) = (pkt.seq, pkt.seq + pkt.len as u64);
        let had_hole = !self.ooo.is_empty();
        if end <= self.rcv_nxt {
            // A duplicate (spurious retransmission): ACK at once so the sender learns rcv_nxt.
            if let Some(l) = self.linux.as_mut() {
                l.on_duplicate();
            }
            out.push(self.send_ack(now));
            return;
        }
        if start > self.rcv_nxt {
            // A held ACK goes first when this segment would change a block beyond those the
            // sender is sure to see (`tcp_sack_new_ofo_skb`): it reports the blocks as they were.
            let flushed = match &self.linux_sacks {
                Some(b) if self.ack_held && b.position(start, end) >= BLOCKS_EXPECTED => Some(self.send_ack(now)),
                _ => None,
            };
            self.insert_ooo(start, end);
            if let Some(b) = self.linux_sacks.as_mut() {
                b.add(start, end);
            }
            let hold = self.linux.as_mut().and_then(|l| l.hold_sack(self.rcv_nxt, self.ooo_bytes));
            if let Some(delay) = hold.filter(|_| self.cfg.delayed_ack) {
                self.ack_held = true;
                let due = now + delay;
                self.delack_deadline = Some(self.delack_deadline.map_or(due, |d| d.min(due)));
                out.extend(flushed);
                return;
            }
            // One ACK per segment: if this one goes at once too, it reports the newer blocks.
            out.push(self.send_ack(now));
            return;
        }
        self.rcv_nxt = end;
        self.absorb_ooo();
        if let Some(b) = self.linux_sacks.as_mut() {
            b.advance(self.rcv_nxt);
        }
        if let Some(l) = self.linux.as_mut() {
            let clock = now.0 + self.clock_offset;
            let tsecr = pkt.ts().map(|t| t.1);
            l.on_data(now, end - start, self.rcv_nxt, tsecr, clock, self.ooo_bytes);
        }
        self.unacked_segments += 1;
        let at_once = match &self.linux {
            _ if had_hole || !self.cfg.delayed_ack => true,
            Some(l) => l.ack_now(self.rcv_nxt, self.ooo_bytes, end - start),
            None => self.quickacks_left > 0 || self.unacked_segments >= self.cfg.delack_count,
        };
        if at_once {
            out.push(self.send_ack(now));
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.cfg.delack_timeout);
        }
        if let Some(l) = self.linux.as_mut() {
            // The application reads what arrived in order.
            let span = self.ooo.back().map_or(0, |&(_, e)| e - self.rcv_nxt);
            l.on_read(now, self.rcv_nxt, span);
        }
    }

    /// When the delayed-ACK timer next needs to run.
    pub fn poll_at(&self) -> Option<Instant> {
        self.delack_deadline
    }

    /// The delayed-ACK timer fired: appends the ACK it holds back, unless its time has moved.
    pub fn on_delack_timer(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if self.delack_deadline.is_none_or(|d| d > now) {
            return;
        }
        self.delack_deadline = None;
        if self.unacked_segments > 0 || self.ack_held {
            out.push(self.send_ack(now));
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        // Ranges from `lo` to `hi` (exclusive) overlap or touch [start, end) and merge with it;
        // the others are apart from it and from each other already.
        let lo = self.ooo.partition_point(|&(_, e)| e < start);
        let hi = self.ooo.partition_point(|&(s, _)| s <= end);
        let mut merged = (start, end);
        for (s, e) in self.ooo.drain(lo..hi) {
            merged = (merged.0.min(s), merged.1.max(e));
            self.ooo_bytes -= e - s;
        }
        self.ooo.insert(lo, merged);
        self.ooo_bytes += merged.1 - merged.0;
        self.recent_block = Some(merged.0);
    }

    fn absorb_ooo(&mut self) {
        while let Some(&(s, e)) = self.ooo.front() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo_bytes -= e - s;
            self.ooo.pop_front();
        }
    }

    fn send_ack(&mut self, now: Instant) -> Packet {
        self.unacked_segments = 0;
        self.ack_held = false;
        self.delack_deadline = None;
        if let Some(l) = self.linux.as_mut() {
            l.on_ack_sent(self.rcv_nxt, self.ooo_bytes);
        }
        self.quickacks_left = self.quickacks_left.saturating_sub(1);
        self.last_ack_sent = self.rcv_nxt;
        let mut ack = self.ack_packet(now);
        ack.set_echo(self.pending_echo.take());
        ack
    }

    // Always inlined, so the ACK is built in the caller's return slot rather than in a
    // temporary whose 128 bytes are then copied out.
    #[inline(always)]
    fn ack_packet(&self, now: Instant) -> Packet {
        let mut p = Packet { kind: PacketKind::Ack, ack: self.rcv_nxt, rwnd: self.window(), ..Packet::default() };
        if self.cfg.timestamps {
            p.set_ts(Some((now.0 + self.clock_offset, self.ts_recent)));
        }
        if self.cfg.sack && !self.ooo.is_empty() {
            // Room for four blocks, three when the timestamp option takes its 12 bytes.
            let max = if self.cfg.timestamps { MAX_SACK_BLOCKS - 1 } else { MAX_SACK_BLOCKS };
            if let Some(b) = &self.linux_sacks {
                for (i, block) in b.iter().take(max).enumerate() {
                    p.sack[i] = block;
                    p.sack_count = i as u8 + 1;
                }
                return p;
            }
            let first = self.recent_block.and_then(|r| {
                let idx = self.ooo.partition_point(|b| b.0 < r);
                self.ooo.get(idx).filter(|b| b.0 == r).copied()
            });
            let rest = self.ooo.iter().rev().filter(|b| Some(**b) != first).copied();
            for (i, block) in first.into_iter().chain(rest).take(max).enumerate() {
                p.sack[i] = block;
                p.sack_count = i as u8 + 1;
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::RawTcp;
    use core::time::Duration;

    fn cfg(delayed: bool) -> TcpConfig {
        let raw = RawTcp { delayed_ack: Some(delayed), ..RawTcp::default() };
        raw.resolve("tcp").unwrap()
    }

    /// What one call of a receiver's handler sent: one packet at most.
    fn sent(handler: impl FnOnce(&mut Vec<Packet>)) -> Option<Packet> {
        let mut out = Vec::new();
        handler(&mut out);
        assert!(out.len() <= 1, "one ACK at a time: {out:?}");
        out.pop()
    }

    fn answer(r: &mut Receiver, now: Instant, pkt: &Packet) -> Option<Packet> {
        sent(|out| r.on_packet(now, pkt, out))
    }

    fn on_timer(r: &mut Receiver, now: Instant) -> Option<Packet> {
        sent(|out| r.on_delack_timer(now, out))
    }

    fn data(seq: u64) -> Packet {
        Packet { kind: PacketKind::Data, seq, len: 1000, ..Packet::default() }.with_ts(Some((seq, 0)))
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_timer() {
        let mut r = Receiver::new(cfg(true), 0, None);
        assert!(answer(&mut r, Instant(0), &data(0)).is_none());
        assert_eq!(r.poll_at(), Some(Instant(0) + Duration::from_millis(200)));
        let ack = answer(&mut r, Instant(10), &data(1000)).unwrap();
        assert_eq!(ack.ack, 2000);
        assert_eq!(ack.ts().unwrap().1, 0, "echoes the earliest unacknowledged segment");
        assert!(answer(&mut r, Instant(20), &data(2000)).is_none());
        let due = Instant(20) + Duration::from_millis(200);
        assert_eq!(r.poll_at(), Some(due));
        assert!(on_timer(&mut r, Instant(due.0 - 1)).is_none(), "early: it waits");
        let ack = on_timer(&mut r, due).unwrap();
        assert_eq!(ack.ack, 3000);
        assert_eq!(r.poll_at(), None);
        assert!(on_timer(&mut r, due).is_none());
    }

    #[test]
    fn linux_sends_a_held_ack_before_a_block_it_would_report_is_displaced() {
        // Only out-of-order data (every other segment lost), so no quick ACKs: the first three
        // duplicate ACKs go at once, later ones are held for SACK compression (1 ms). Four new
        // blocks within one hold would leave the first of them out of the held ACK's three;
        // Linux sends the held ACK whenever a new block would push the others beyond the two
        // a sender is sure to see, so each block is reported first in some ACK.
        let raw = RawTcp { profile: Some("linux".into()), ..RawTcp::default() };
        let mut r = Receiver::new(raw.resolve("tcp").unwrap(), 0, None);
        let mut acks = Vec::new();
        for (i, seq) in [2000, 4000, 6000, 8000, 10_000, 12_000, 14_000].into_iter().enumerate() {
            acks.extend(answer(&mut r, Instant(i as u64 * 1000), &data(seq)));
        }
        assert_eq!(acks.len(), 6, "three at once, then one flushed per new block after the first held one");
        let due = r.poll_at().unwrap();
        acks.extend(on_timer(&mut r, due));
        let firsts: Vec<u64> = acks.iter().map(|a| a.sack[0].0).collect();
        assert_eq!(firsts, [2000, 4000, 6000, 8000, 10_000, 12_000, 14_000]);
        let last = acks.last().unwrap();
        assert_eq!(&last.sack[..last.sack_count as usize], [(14_000, 15_000), (12_000, 13_000), (10_000, 11_000)]);
    }

    #[test]
    fn quick_acks_answer_each_of_the_first_segments_then_delayed_acks_resume() {
        let raw = RawTcp { quickack: Some(3), ..RawTcp::default() };
        let mut r = Receiver::new(raw.resolve("tcp").unwrap(), 0, None);
        let acked: Vec<bool> = (0..9).map(|i| answer(&mut r, Instant(i), &data(i * 1000)).is_some()).collect();
        assert_eq!(acked, [true, true, true, false, true, false, true, false, true]);
    }

    #[test]
    fn every_kth_segment_is_acknowledged() {
        let raw = RawTcp { delack_count: Some(3), ..RawTcp::default() };
        let mut r = Receiver::new(raw.resolve("tcp").unwrap(), 0, None);
        let acks: Vec<u64> =
            (0..9).filter_map(|i| answer(&mut r, Instant(i), &data(i * 1000))).map(|a| a.ack).collect();
        assert_eq!(acks, [3000, 6000, 9000]);
    }

    #[test]
    fn out_of_order_data_is_acked_at_once_with_sack_blocks() {
        let mut r = Receiver::new(cfg(true), 0, None);
        answer(&mut r, Instant(0), &data(0));
        let dup = answer(&mut r, Instant(1), &data(2000)).unwrap();
        assert_eq!((dup.ack, dup.sack_count, dup.sack[0]), (1000, 1, (2000, 3000)));
        let dup = answer(&mut r, Instant(2), &data(4000)).unwrap();
        assert_eq!(dup.sack_count, 2);
        assert_eq!(dup.sack[0], (4000, 5000), "most recent block first");
        // Filling the first hole is acknowledged at once too.
        let ack = answer(&mut r, Instant(3), &data(1000)).unwrap();
        assert_eq!((ack.ack, ack.sack_count, ack.sack[0]), (3000, 1, (4000, 5000)));
    }

    #[test]
    fn window_is_capped_without_scaling_and_shrinks_with_held_data() {
        let raw = RawTcp { window_scaling: Some(false), ..RawTcp::default() };
        let mut r = Receiver::new(raw.resolve("tcp").unwrap(), 0, None);
        let ack = answer(&mut r, Instant(0), &data(5000)).unwrap();
        assert_eq!(ack.rwnd, 65_535);
        let mut small = Receiver::new(
            RawTcp { rcv_buf: Some(crate::scenario::Quantity::Number(10_000.0)), ..RawTcp::default() }
                .resolve("tcp")
                .unwrap(),
            0,
            None,
        );
        assert_eq!(answer(&mut small, Instant(0), &data(5000)).unwrap().rwnd, 9_000);
    }

    fn marked(seq: u64, mark: u8) -> Packet {
        Packet { mark, ..data(seq) }
    }

    fn pair_hook() -> Option<Box<dyn ReceiverHook>> {
        tcpstart_cc::build_receiver_hook("modified-swift-start", &Default::default()).unwrap()
    }

    #[test]
    fn delayed_ack_of_a_marked_pair_carries_the_gap() {
        let mut r = Receiver::new(cfg(true), 0, pair_hook());
        assert!(answer(&mut r, Instant(0), &marked(0, 1)).is_none());
        let ack = answer(&mut r, Instant(7_772_000), &marked(1000, 2)).unwrap();
        assert_eq!((ack.ack, ack.echo()), (2000, Some(7_772)));
        // The echo is sent once.
        answer(&mut r, Instant(8_000_000), &data(2000));
        assert_eq!(answer(&mut r, Instant(9_000_000), &data(3000)).unwrap().echo(), None);
    }

    #[test]
    fn echo_waits_for_the_delayed_ack_timer_when_the_pair_straddles_two_acks() {
        // The First completes an ACK of two segments; the Second waits for the timer, whose ACK
        // (the ACK of the second segment) carries the gap.
        let mut r = Receiver::new(cfg(true), 0, pair_hook());
        answer(&mut r, Instant(0), &data(0));
        let ack = answer(&mut r, Instant(1_000), &marked(1000, 1)).unwrap();
        assert_eq!((ack.ack, ack.echo()), (2000, None));
        assert!(answer(&mut r, Instant(501_000), &marked(2000, 2)).is_none());
        let ack = on_timer(&mut r, Instant(200_501_000)).unwrap();
        assert_eq!((ack.ack, ack.echo()), (3000, Some(500)));
    }

    #[test]
    fn receiver_timestamps_use_its_own_clock() {
        let mut r = Receiver::new(cfg(false), 5_000, None);
        let ack = answer(&mut r, Instant(100), &data(0)).unwrap();
        assert_eq!(ack.ts(), Some((5_100, 0)));
    }
}
