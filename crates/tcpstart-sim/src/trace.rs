//! Columnar recorders for the time series a run produces. Rows are appended to plain vectors
//! (no per-row allocation beyond their growth) and handed to Python as columns.

use core::time::Duration;

use serde::Serialize;
use tcpstart_cc::Instant;

use crate::tcp::sender::FlowSample;

fn secs(d: Option<Duration>) -> f64 {
    d.map_or(f64::NAN, |d| d.as_secs_f64())
}

/// Decimation shared by the time series: per key (flow or link), a row is written when the state
/// changes, at most once per `interval`. A change inside the interval is held back and written
/// before the next row (or at the end), so a series never shows a stale value after a burst.
#[derive(Debug, Default)]
struct Decimator<S> {
    interval: Duration,
    last: Vec<Option<(Instant, S)>>,
    pending: Vec<Option<(Instant, S)>>,
}

impl<S: Copy> Decimator<S> {
    fn new(keys: usize, interval: Duration) -> Self {
        Decimator { interval, last: vec![None; keys], pending: vec![None; keys] }
    }

    /// Returns the rows to write now, oldest first. `same` says two states need no new row;
    /// `urgent` says the change must be written even within the interval.
    fn offer(
        &mut self,
        now: Instant,
        key: usize,
        s: S,
        same: impl Fn(&S, &S) -> bool,
        urgent: impl Fn(&S, &S) -> bool,
    ) -> [Option<(Instant, S)>; 2] {
        if let Some((t, prev)) = self.last[key] {
            if same(&prev, &s) {
                self.pending[key] = None;
                return [None, None];
            }
            if !urgent(&prev, &s) && now - t < self.interval {
                self.pending[key] = Some((now, s));
                return [None, None];
            }
        }
        self.last[key] = Some((now, s));
        [self.pending[key].take(), Some((now, s))]
    }

    fn drain(&mut self) -> impl Iterator<Item = (usize, (Instant, S))> + '_ {
        self.pending.iter_mut().enumerate().filter_map(|(k, p)| p.take().map(|row| (k, row)))
    }
}

/// Per-flow state over time (a phase change is always written at once).
#[derive(Debug, Default, Serialize)]
pub struct FlowTrace {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<u64>,
    pub ssthresh: Vec<u64>,
    pub inflight: Vec<u64>,
    pub srtt: Vec<f64>,
    pub rtt: Vec<f64>,
    pub pacing_rate: Vec<f64>,
    pub delivered: Vec<u64>,
    pub retransmissions: Vec<u64>,
    pub phase: Vec<&'static str>,
    #[serde(skip)]
    decimator: Decimator<FlowSample>,
}

impl FlowTrace {
    pub fn new(flows: usize, interval: Duration) -> Self {
        FlowTrace { decimator: Decimator::new(flows, interval), ..Default::default() }
    }

    pub fn record(&mut self, now: Instant, flow: u32, s: FlowSample) {
        let key = |x: &FlowSample| (x.cwnd, x.ssthresh, x.inflight, x.delivered, x.phase);
        let rows = self.decimator.offer(now, flow as usize, s, |a, b| key(a) == key(b), |a, b| a.phase != b.phase);
        for (t, row) in rows.into_iter().flatten() {
            self.push(t, flow, row);
        }
    }

    /// Writes the states still held back; call once when the run ends.
    pub fn flush(&mut self) {
        let held: Vec<_> = self.decimator.drain().collect();
        for (flow, (t, s)) in held {
            self.push(t, flow as u32, s);
        }
    }

    fn push(&mut self, now: Instant, flow: u32, s: FlowSample) {
        self.t.push(now.as_secs_f64());
        self.flow.push(flow);
        self.cwnd.push(s.cwnd);
        self.ssthresh.push(s.ssthresh);
        self.inflight.push(s.inflight);
        self.srtt.push(secs(s.srtt));
        self.rtt.push(secs(s.rtt));
        self.pacing_rate.push(s.pacing_rate.unwrap_or(f64::NAN));
        self.delivered.push(s.delivered);
        self.retransmissions.push(s.retransmissions);
        self.phase.push(s.phase);
    }
}

/// Queue length of every link over time (a queue that empties is written at once), with the
/// sojourn time of the packet the link most recently started sending (NaN before the first).
#[derive(Debug, Default, Serialize)]
pub struct QueueTrace {
    pub t: Vec<f64>,
    pub link: Vec<u32>,
    pub packets: Vec<u64>,
    pub bytes: Vec<u64>,
    pub sojourn: Vec<f64>,
    #[serde(skip)]
    decimator: Decimator<(u64, u64, Option<Duration>)>,
}

impl QueueTrace {
    pub fn new(links: usize, interval: Duration) -> Self {
        QueueTrace { decimator: Decimator::new(links, interval), ..Default::default() }
    }

    pub fn record(&mut self, now: Instant, link: u32, packets: u64, bytes: u64, sojourn: Option<Duration>) {
        // Called twice per packet and link, and the length is mostly the one last written: the
        // decimator's `same` case, decided here without building and copying the whole state.
        let key = link as usize;
        if matches!(self.decimator.last[key], Some((_, (p, _, _))) if p == packets) {
            self.decimator.pending[key] = None;
            return;
        }
        let state = (packets, bytes, sojourn);
        let rows = self.decimator.offer(now, link as usize, state, |a, b| a.0 == b.0, |_, b| b.0 == 0);
        for (t, row) in rows.into_iter().flatten() {
            self.push(t, link, row);
        }
    }

    pub fn flush(&mut self) {
        let held: Vec<_> = self.decimator.drain().collect();
        for (link, (t, row)) in held {
            self.push(t, link as u32, row);
        }
    }

    fn push(&mut self, now: Instant, link: u32, (packets, bytes, sojourn): (u64, u64, Option<Duration>)) {
        self.t.push(now.as_secs_f64());
        self.link.push(link);
        self.packets.push(packets);
        self.bytes.push(bytes);
        self.sojourn.push(secs(sojourn));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketEvent {
    /// A data segment (or UDP datagram) left its sender for the first time.
    Send,
    Retransmit,
    /// A data segment (or UDP datagram) reached the receiver.
    Arrive,
    AckSend,
    AckArrive,
    Drop,
}

impl PacketEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            PacketEvent::Send => "send",
            PacketEvent::Retransmit => "retransmit",
            PacketEvent::Arrive => "arrive",
            PacketEvent::AckSend => "ack_send",
            PacketEvent::AckArrive => "ack_arrive",
            PacketEvent::Drop => "drop",
        }
    }
}

/// Every packet event, for time-sequence graphs. Off unless asked for: it grows with traffic.
#[derive(Debug, Default, Serialize)]
pub struct PacketTrace {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub event: Vec<&'static str>,
    pub seq: Vec<u64>,
    pub ack: Vec<u64>,
    pub len: Vec<u32>,
    /// Link index for drops; u32::MAX for events at an end host.
    pub link: Vec<u32>,
}

impl PacketTrace {
    pub fn record(&mut self, now: Instant, ev: PacketEvent, pkt: &crate::packet::Packet, link: Option<u32>) {
        self.t.push(now.as_secs_f64());
        self.flow.push(pkt.flow);
        self.event.push(ev.as_str());
        self.seq.push(pkt.seq);
        self.ack.push(pkt.ack);
        self.len.push(pkt.len);
        self.link.push(link.unwrap_or(u32::MAX));
    }
}
