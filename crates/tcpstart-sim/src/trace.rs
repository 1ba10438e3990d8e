//! Columnar recorders for the time series a run produces. Rows are appended to plain vectors
//! (no per-row allocation beyond their growth) and handed to Python as columns.

use core::time::Duration;

use serde::Serialize;
use tcpstart_cc::Instant;

use crate::tcp::sender::FlowSample;

fn secs(d: Option<Duration>) -> f64 {
    d.map_or(f64::NAN, |d| d.as_secs_f64())
}

/// Per-flow state over time, sampled on change at most once per `interval` (a phase change is
/// always recorded, so short phases are never lost).
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
    interval: Duration,
    #[serde(skip)]
    last: Vec<Option<(Instant, FlowSample)>>,
}

impl FlowTrace {
    pub fn new(flows: usize, interval: Duration) -> Self {
        FlowTrace { interval, last: vec![None; flows], ..Default::default() }
    }

    pub fn record(&mut self, now: Instant, flow: u32, s: FlowSample) {
        if let Some((t, prev)) = self.last[flow as usize] {
            let changed = (prev.cwnd, prev.ssthresh, prev.inflight, prev.delivered)
                != (s.cwnd, s.ssthresh, s.inflight, s.delivered);
            if prev.phase == s.phase && (!changed || now - t < self.interval) {
                return;
            }
        }
        self.last[flow as usize] = Some((now, s));
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

/// Queue length of every link, recorded when it changes, at most once per `interval` per link.
#[derive(Debug, Default, Serialize)]
pub struct QueueTrace {
    pub t: Vec<f64>,
    pub link: Vec<u32>,
    pub packets: Vec<u64>,
    pub bytes: Vec<u64>,
    #[serde(skip)]
    interval: Duration,
    #[serde(skip)]
    last: Vec<Option<(Instant, u64)>>,
}

impl QueueTrace {
    pub fn new(links: usize, interval: Duration) -> Self {
        QueueTrace { interval, last: vec![None; links], ..Default::default() }
    }

    pub fn record(&mut self, now: Instant, link: u32, packets: u64, bytes: u64) {
        match self.last[link as usize] {
            Some((_, p)) if p == packets => return,
            Some((t, _)) if now - t < self.interval && packets != 0 => return,
            _ => {}
        }
        self.last[link as usize] = Some((now, packets));
        self.t.push(now.as_secs_f64());
        self.link.push(link);
        self.packets.push(packets);
        self.bytes.push(bytes);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketEvent {
    /// A data segment left its sender for the first time.
    Send,
    Retransmit,
    /// A data segment reached the receiver.
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
