//! A test harness for the sender alone: the test plays the receiver and the network, hands the
//! sender ACKs (cumulative, SACK, duplicate), moves time on, and reads what the sender sent.
//!
//! Everything is counted in segments of [`MSS`] bytes, numbered from 0: segment `n` is bytes
//! `[n * MSS, (n + 1) * MSS)`. What the sender sent since the last look is written as a string,
//! one item per segment, a retransmission with an `r` after its number: `"3r 10 11"`.

use core::time::Duration;

use tcpstart_cc::{registry, CcConfig, Instant};

use crate::packet::{Packet, PacketKind};
use crate::tcp::Sender;

pub const MSS: u64 = 1000;

pub struct Harness {
    pub sender: Sender,
    pub now: Instant,
    out: Vec<Packet>,
}

impl Harness {
    /// A connection of `segments` segments with `algorithm` and the flow's `tcp` options (JSON
    /// object text; `mss` is fixed at [`MSS`], timestamps off unless set), established at t = 0
    /// with a SYN-ACK after `rtt`; the initial window is out when it returns.
    pub fn new(algorithm: &str, tcp: &str, segments: u64, rtt: Duration) -> Self {
        Self::with_size(algorithm, tcp, segments * MSS, rtt)
    }

    /// As [`Harness::new`], for a transfer of `size` bytes: its last segment is short unless
    /// `size` is a multiple of [`MSS`].
    pub fn with_size(algorithm: &str, tcp: &str, size: u64, rtt: Duration) -> Self {
        let text = format!(
            r#"{{"network": {{"rate": "10Mbps", "rtt": "40ms"}},
                "tcp": {{"timestamps": false, {}"mss": {MSS}}},
                "flows": [{{"algorithm": "{algorithm}", "size": {}}}]}}"#,
            if tcp.is_empty() { String::new() } else { format!("{tcp}, ") },
            size
        );
        let s = crate::scenario::from_json(&text).expect("harness scenario");
        let f = &s.flows[0];
        let cfg = CcConfig { mss: MSS, initial_cwnd: f.tcp.initial_window, initial_ssthresh: f.tcp.initial_ssthresh };
        let cc = registry::build(&f.algorithm, &f.params, &cfg).expect("harness algorithm");
        let mut h = Harness {
            sender: Sender::new(0, f.tcp.clone(), cc, f.size, crate::milestones::Milestones::new(0)),
            now: Instant::ZERO,
            out: Vec::new(),
        };
        h.sender.start(h.now, &mut h.out);
        h.out.clear();
        h.now = h.now + rtt;
        let synack = Packet { kind: PacketKind::SynAck, rwnd: f.tcp.rcv_buf, ..Packet::default() };
        h.sender.on_packet(h.now, &synack, &mut h.out);
        h
    }

    /// The receiver acknowledges everything below segment `next` and SACKs the segment ranges
    /// `[start, end)` in `sacks` (most recent first); returns what the sender sent in answer.
    pub fn ack(&mut self, next: u64, sacks: &[(u64, u64)]) -> String {
        let mut p = Packet { kind: PacketKind::Ack, ack: next * MSS, rwnd: u64::MAX / 2, ..Packet::default() };
        for (i, &(s, e)) in sacks.iter().enumerate() {
            p.sack[i] = (s * MSS, e * MSS);
        }
        p.sack_count = sacks.len() as u8;
        self.sender.on_packet(self.now, &p, &mut self.out);
        self.sent()
    }

    /// Moves time on by `dt`, firing the retransmission (probe, reordering) and pacing timers that fall due (each at
    /// its deadline, in order); returns what the sender sent meanwhile.
    pub fn advance(&mut self, dt: Duration) -> String {
        let end = self.now + dt;
        loop {
            let timers = self.sender.poll_at();
            let next = [timers.retransmit, timers.pacing].into_iter().flatten().min();
            match next {
                Some(t) if t <= end => {
                    self.now = self.now.max(t);
                    self.sender.on_rto_timer(self.now, &mut self.out);
                    self.sender.on_pacing_timer(self.now, &mut self.out);
                }
                _ => break,
            }
        }
        self.now = end;
        self.sent()
    }

    /// What the sender sent since the last look.
    pub fn sent(&mut self) -> String {
        let items: Vec<String> = self
            .out
            .drain(..)
            .filter(|p| p.kind == PacketKind::Data)
            .map(|p| format!("{}{}", p.seq / MSS, if p.retransmission { "r" } else { "" }))
            .collect();
        items.join(" ")
    }
}

/// `"0 1 2 ... n-1"` shifted to start at `from`: the new segments `from..to`.
pub fn span(from: u64, to: u64) -> String {
    (from..to).map(|n| n.to_string()).collect::<Vec<_>>().join(" ")
}
