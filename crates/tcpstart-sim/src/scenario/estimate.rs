//! The size of a run, estimated from the scenario as written, before any of it is expanded or
//! simulated, and the limits it is held to: a scenario too large for the machine is refused in
//! one line naming the field that makes it large, instead of ending in an allocation abort or
//! running for hours (issue 17, "resources are bounded before they are spent").
//!
//! The estimate is arithmetic on the scenario's fields: connections are counted (`count`,
//! `starts`, and a web workload's objects exactly, see [`object_count`]); packets follow from
//! what the traffic asks for, capped by what the two bottleneck links carry in the run's
//! duration; rows follow from the trace intervals. It is a rough figure, within a small factor
//! of the run (tests/estimate.rs compares the two). A field that is not valid counts as unset
//! here; validation names it afterwards.

use core::time::Duration;
use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::defaults::{MSS, RCV_BUF};
use super::ranges::{
    bytes, default_trace_interval, direction, fmt_rate, in_range, limit, rate, time, trace_interval,
    MAX_FLOWS_PER_ENTRY, MAX_TIME,
};
use super::{Limit, Quantity, RawScenario};
use crate::error::ScenarioError;
use crate::packet::Direction;
use crate::traffic::udp::UDP_HEADER_BYTES;
use crate::traffic::web::object_count;
use crate::traffic::{stream, Stream};

/// `[limits]`: what a run may use. Unset fields take the value of the `TCPSTART_LIMITS`
/// environment variable (`"memory=8GB,packets=5e9"`), then [`Limits::DEFAULT`]'s.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    /// Memory the run's state and output may take, e.g. "8GB".
    pub memory: Option<Quantity>,
    /// Packets (data, ACKs, handshakes, datagrams) the run may carry over the two bottleneck
    /// links: what its CPU time grows with.
    pub packets: Option<f64>,
}

/// The limits a run's [`Estimate`] must stay within.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Limits {
    pub memory: u64,
    pub packets: u64,
}

/// The environment variable that sets limits for every scenario that sets none of its own.
pub const ENV: &str = "TCPSTART_LIMITS";

impl Limits {
    /// 4 GB: a tenth to a quarter of a workstation, and more than any shipped scenario,
    /// reproduction or benchmark needs (the largest, ehstcp's, about 0.6 GB). 1e9 packets: a few
    /// CPU-minutes; the 100 Gbps x 1000 s of issue 17 would be 1.2e10, about 25 CPU-minutes.
    pub const DEFAULT: Limits = Limits { memory: 4_000_000_000, packets: 1_000_000_000 };
}

impl RawLimits {
    /// These limits over `base`; `at` prefixes the field names of errors.
    fn over(&self, base: Limits, at: &str) -> Result<Limits, ScenarioError> {
        let memory = match &self.memory {
            Some(q) => bytes(&format!("{at}.memory"), q, 1e6, 1e15)?,
            None => base.memory,
        };
        let packets = match self.packets {
            Some(p) => in_range(&format!("{at}.packets"), p, 1.0, 1e15)?.round() as u64,
            None => base.packets,
        };
        Ok(Limits { memory, packets })
    }

    /// `TCPSTART_LIMITS`'s form: `name=value` pairs separated by commas.
    pub fn parse_env(text: &str) -> Result<RawLimits, ScenarioError> {
        let mut raw = RawLimits::default();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = |m: String| ScenarioError::new(ENV, m);
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("expected name=value pairs such as memory=8GB, got {pair:?}")))?;
            let value = value.trim();
            match name.trim() {
                "memory" => raw.memory = Some(Quantity::Text(value.to_string())),
                "packets" => {
                    raw.packets =
                        Some(value.parse().map_err(|_| bad(format!("packets: expected a number, got {value:?}")))?)
                }
                other => return Err(bad(format!("unknown limit {other:?}; the limits are memory and packets"))),
            }
        }
        Ok(raw)
    }
}

/// The limits of `TCPSTART_LIMITS` over the defaults, read once per process.
fn env_limits() -> Result<Limits, ScenarioError> {
    static FROM_ENV: OnceLock<Result<Limits, ScenarioError>> = OnceLock::new();
    FROM_ENV
        .get_or_init(|| match std::env::var(ENV) {
            Ok(text) => RawLimits::parse_env(&text)?.over(Limits::DEFAULT, ENV),
            Err(_) => Ok(Limits::DEFAULT),
        })
        .clone()
}

impl RawScenario {
    /// The estimated size of this scenario's run and the limits it is held to, from the
    /// scenario as written: nothing is expanded, so a scenario far too large is sized at once.
    pub fn estimate(&self) -> Result<(Estimate, Limits), ScenarioError> {
        Ok((Estimate::of(self), self.limits()?))
    }

    /// The limits this scenario's run is held to: its `[limits]`, then `TCPSTART_LIMITS`, then
    /// the defaults.
    pub fn limits(&self) -> Result<Limits, ScenarioError> {
        self.limits.over(env_limits()?, "limits")
    }
}

/// Bytes of memory per unit, measured on the native runs of tests/estimate.rs and rounded up;
/// rows count twice, as the table built at the end of a run and the copy handed to Python.
/// A connection, run from Python: 12.5 KB natively while it runs (3 KB once finished), and its
/// flow description, summary row and summary frame on the Python side (100000 flows of 1 s
/// peaked at 3.4 GB, 1.3 M flow rows included).
const CONNECTION_BYTES: f64 = 32_000.0;
const UDP_SOURCE_BYTES: f64 = 1_000.0;
const FLOW_ROW_BYTES: f64 = 2.0 * 77.0;
const QUEUE_ROW_BYTES: f64 = 2.0 * 36.0;
/// 52 bytes a row, in a vector that grows by doubling, then Python's copy.
const PACKET_ROW_BYTES: f64 = 2.0 * 52.0 + 52.0;
/// Record header (16), IPv4 (20) and TCP (20-60) headers: the payload is not captured.
const PCAP_RECORD_BYTES: f64 = 90.0;
/// A packet held in a queue or on a wire, with its sender's record of it.
const PACKET_BYTES: f64 = 200.0;

/// CPU cost, as on the machine of docs/performance.md: B1 carries 10 M bottleneck packets (data
/// and ACKs) per second, ehstcp's 2.5 Gbps run with thousands of web objects 1.6 M; a
/// connection's set-up, trace and summary cost about 20 us.
const PACKETS_PER_CPU_SECOND: f64 = 3e6;
const CONNECTIONS_PER_CPU_SECOND: f64 = 5e4;

/// A field of the scenario, printed as its path when an error needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Culprit {
    /// Nothing in particular (an empty scenario).
    #[default]
    None,
    /// A top-level field or list: `duration`, `flows`, `trace.packets`.
    Top(&'static str),
    /// A field of a list's entry: `flows[3].count`; an entry itself when the name is empty.
    Entry(&'static str, usize, &'static str),
}

impl fmt::Display for Culprit {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Culprit::None => Ok(()),
            Culprit::Top(name) => f.write_str(name),
            Culprit::Entry(list, i, "") => write!(f, "{list}[{i}]"),
            Culprit::Entry(list, i, name) => write!(f, "{list}[{i}].{name}"),
        }
    }
}

/// The largest contributor seen so far to some quantity.
#[derive(Clone, Copy, Debug, Default)]
struct Largest {
    field: Culprit,
    amount: f64,
}

impl Largest {
    fn offer(&mut self, field: Culprit, amount: f64) {
        if amount > self.amount {
            *self = Largest { field, amount };
        }
    }
}

/// How large a run will be: what it holds and what it carries.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Estimate {
    /// TCP connections: every flow of every `[[flows]]` entry and every web object.
    pub connections: u64,
    pub udp_sources: u64,
    /// Simulated time: the duration, or when the transfers of a run without one should be done.
    pub simulated_seconds: f64,
    /// Packets over the two bottleneck links: data segments, ACKs, handshakes and datagrams.
    pub packets: u64,
    /// Packets the bottleneck queues and links can hold at once, as far as the connections'
    /// receive windows fill them.
    pub packets_held: u64,
    /// Rows of the `flows`, `queues` and `packets` tables, and bytes of the pcap files.
    pub flow_rows: u64,
    pub queue_rows: u64,
    pub packet_rows: u64,
    pub pcap_bytes: u64,
    /// Peak memory of the run with its output.
    pub memory_bytes: u64,
    /// CPU time of the simulation on a machine like docs/performance.md's.
    pub cpu_seconds: f64,
    /// The fields behind the connections and the packets.
    #[serde(skip)]
    blame: Blame,
}

#[derive(Clone, Debug, Default)]
struct Blame {
    connections: Largest,
    /// The packets are capped by a link over `duration` (else by what the traffic asks for).
    capped_by: Option<Duration>,
    packets: Largest,
    flow_rows: Culprit,
    pcap: Largest,
    /// The rate of the link whose packets `duration` caps.
    capped_rate_bps: f64,
}

/// Traffic that one direction's bottleneck link is asked to carry, in packets.
#[derive(Clone, Copy, Debug, Default)]
struct Demand {
    tcp: f64,
    udp: f64,
}

impl Estimate {
    /// The estimate of `raw`'s run.
    pub fn of(raw: &RawScenario) -> Estimate {
        let mut e = Estimate::default();
        let mut blame = Blame::default();
        let seed = raw.seed.unwrap_or(1);
        let duration = raw.resolve_duration().ok().flatten();
        let base_mss = raw.tcp.mss.unwrap_or(MSS).max(64) as f64;
        let mut demand = [Demand::default(); 2];
        // Connections that send until the end, and those that end (sized flows, web objects)
        // with the packets they ask for: each traces differently.
        let (mut bulk, mut sized, mut sized_packets) = (0.0, 0.0, 0.0);
        // Connections by the direction of their data.
        let mut senders = [0.0; 2];
        // When the last traffic should have started, in seconds, for a run without a duration.
        let mut last_start: f64 = 0.0;
        let secs = |q: Option<&Quantity>| {
            q.and_then(|q| time("", q, Duration::ZERO, MAX_TIME).ok()).map_or(0.0, |d| d.as_secs_f64())
        };
        let dir_index = |d: &Option<String>| direction("", d).unwrap_or_default() as usize;

        for (i, f) in raw.flows.iter().enumerate() {
            let (n, count_field) = match &f.starts {
                Some(list) => (list.len() as u64, "starts"),
                None => (f.count.unwrap_or(1) as u64, "count"),
            };
            // Out of range: validation refuses the entry in its own words.
            if n == 0 || n > MAX_FLOWS_PER_ENTRY as u64 {
                continue;
            }
            let mss = f.tcp.mss.map_or(base_mss, |m| m.max(64) as f64);
            let packets = match &f.size {
                None => f64::INFINITY,
                Some(Quantity::Text(t)) if t == "unlimited" || t == "inf" => f64::INFINITY,
                Some(q) => bytes("", q, 1.0, 1e15).map_or(1.0, |b| (b as f64 / mss).ceil()),
            };
            e.connections += n;
            match packets.is_finite() {
                true => (sized, sized_packets) = (sized + n as f64, sized_packets + n as f64 * packets),
                false => bulk += n as f64,
            }
            blame.connections.offer(Culprit::Entry("flows", i, if n > 1 { count_field } else { "" }), n as f64);
            let asked = n as f64 * packets;
            demand[dir_index(&f.direction)].tcp += asked;
            senders[dir_index(&f.direction)] += n as f64;
            blame.packets.offer(Culprit::Entry("flows", i, if n > 1 { count_field } else { "size" }), asked);
            let start = match &f.starts {
                Some(list) => list.iter().map(|q| secs(Some(q))).fold(0.0, f64::max),
                None => secs(f.start.as_ref()) + secs(f.interval.as_ref()) * (n - 1) as f64,
            };
            last_start = last_start.max(start);
        }

        for (i, w) in raw.web.iter().enumerate() {
            let Ok((spec, _)) = w.spec("") else { continue };
            let objects = object_count(&spec, stream(seed, Stream::Web(i)));
            e.connections += objects;
            // Of the fields that multiply the objects, the one furthest above its default.
            let (field, _) = [
                ("sessions", spec.sessions as f64 / 50.0),
                ("pages", spec.pages as f64 / 5.0),
                ("page_objects_mean", spec.page_objects.mean() / 4.0),
            ]
            .into_iter()
            .fold(("sessions", 0.0), |a, b| if b.1 > a.1 { b } else { a });
            blame.connections.offer(Culprit::Entry("web", i, field), objects as f64);
            // An object of Y packets, Y rounded up: about half a packet above the mean.
            let asked = objects as f64 * (spec.object_packets.mean() + 0.5);
            (sized, sized_packets) = (sized + objects as f64, sized_packets + asked);
            demand[dir_index(&w.direction)].tcp += asked;
            senders[dir_index(&w.direction)] += objects as f64;
            let field = if spec.object_packets.mean() / 4.0 > spec.page_objects.mean() / 4.0 {
                "object_packets_mean"
            } else {
                field
            };
            blame.packets.offer(Culprit::Entry("web", i, field), asked);
            let page = spec.page_interval.as_secs_f64() + spec.object_interval.as_secs_f64() * spec.page_objects.mean();
            let last_session =
                spec.start.as_secs_f64() + spec.session_interval.as_secs_f64() * (spec.sessions - 1) as f64;
            last_start = last_start.max(last_session + spec.pages as f64 * page);
        }

        for (i, u) in raw.udp.iter().enumerate() {
            let Ok(spec) = u.resolve("") else { continue };
            let n = u.count.unwrap_or(1);
            let Some(stop) = spec.stop.or(duration) else { continue };
            if n == 0 || n > MAX_FLOWS_PER_ENTRY {
                continue;
            }
            e.udp_sources += n as u64;
            let duty = spec.on_off.map_or(1.0, |o| o.on.as_secs_f64() / (o.on + o.off).as_secs_f64());
            let per_second = spec.rate_bps / (8.0 * (spec.packet_size + UDP_HEADER_BYTES) as f64);
            let asked = n as f64 * per_second * stop.saturating_sub(spec.start).as_secs_f64() * duty;
            demand[spec.direction as usize].udp += asked;
            blame.packets.offer(Culprit::Entry("udp", i, "rate"), asked);
            last_start = last_start.max(spec.start.as_secs_f64());
        }

        // What each bottleneck direction carries per second, in packets of one MSS.
        let net = &raw.network;
        let wire_bits = (base_mss + 40.0) * 8.0;
        let forward = net.rate.as_ref().and_then(|q| rate("", q, 1e3, 1e13).ok()).unwrap_or(0.0);
        let reverse = net.reverse_rate.as_ref().and_then(|q| rate("", q, 1e3, 1e13).ok()).unwrap_or(forward);
        let cap = |bps: f64, pps: Option<f64>| (bps / wire_bits).min(pps.unwrap_or(f64::INFINITY));
        let per_second = [cap(forward, net.router_pps), cap(reverse, net.reverse_router_pps.or(net.router_pps))];
        let seconds = match duration {
            Some(d) => d.as_secs_f64(),
            None => {
                // Until the traffic that started last could be through, at full rate.
                let busiest = (0..2)
                    .map(|d| (demand[d].tcp + demand[d].udp) / per_second[d])
                    .filter(|s| s.is_finite())
                    .fold(0.0, f64::max);
                last_start + busiest
            }
        };
        e.simulated_seconds = seconds;
        let mut carried = [Demand::default(); 2];
        for d in 0..2 {
            let room = per_second[d] * seconds;
            let udp = demand[d].udp.min(room);
            carried[d] = Demand { udp, tcp: demand[d].tcp.min(room - udp) };
            if duration.is_some() && demand[d].tcp + demand[d].udp > room && blame.capped_by.is_none() {
                blame.capped_by = duration;
                blame.capped_rate_bps = [forward, reverse][d];
            }
        }
        // ACKs cross the other link: one per `delack_count` segments with delayed ACKs.
        let per_ack = match raw.tcp.delayed_ack {
            Some(false) => 1.0,
            _ => raw.tcp.delack_count.unwrap_or(2).max(1) as f64,
        };
        let handshakes = e.connections as f64;
        let link: Vec<f64> =
            (0..2).map(|d| carried[d].tcp + carried[d].udp + carried[1 - d].tcp / per_ack + handshakes).collect();
        let with_acks = 1.0 + 1.0 / per_ack;
        let tcp_data: f64 = carried.iter().map(|c| c.tcp).sum();
        let tcp_packets = tcp_data * with_acks + 2.0 * handshakes;
        let sized_packets = sized_packets.min(tcp_data) * with_acks + 2.0 * sized;
        e.packets = (link[0] + link[1]) as u64;

        let tr = &raw.trace;
        let default_interval = default_trace_interval(duration);
        let ticks = |q: &Option<Quantity>| match trace_interval("", q, default_interval).unwrap_or(default_interval) {
            i if i.is_zero() => None,
            i => Some(seconds / i.as_secs_f64() + 1.0),
        };
        let connections = e.connections as f64;
        // A flow has a row per tick while it lives, but pauses after 10 ticks without an event,
        // so at most 10 for each of its packets (many flows sharing a link are mostly idle);
        // with "0s", a row at every change (at most one per packet it sends or is acknowledged).
        let flow_rows = match ticks(&tr.interval) {
            Some(t) => (bulk * t).min(10.0 * (tcp_packets - sized_packets)) + (sized * t).min(10.0 * sized_packets),
            None => tcp_packets,
        } + 3.0 * connections;
        // The bottleneck queues; the access links rarely hold a queue.
        let queue_rows: f64 = (0..2)
            .map(|d| match ticks(&tr.queue_interval) {
                Some(t) => t.min(2.0 * link[d]),
                None => 2.0 * link[d],
            })
            .sum();
        // A data segment is sent and arrives, an ACK is sent and arrives.
        let packet_rows = if tr.packets == Some(true) { 2.0 * (link[0] + link[1]) } else { 0.0 };
        let hosts = net.hosts.map_or(connections + e.udp_sources as f64, f64::from).max(1.0);
        let mut pcap = 0.0;
        for (k, name) in tr.pcap.iter().enumerate() {
            let packets = match name.as_str() {
                "bottleneck" => link[Direction::Forward as usize],
                "bottleneck_rev" => link[Direction::Reverse as usize],
                _ => link[0].max(link[1]) / hosts,
            };
            let bytes = packets * PCAP_RECORD_BYTES;
            blame.pcap.offer(Culprit::Entry("trace.pcap", k, ""), bytes);
            pcap += bytes;
        }
        e.flow_rows = flow_rows as u64;
        e.queue_rows = queue_rows as u64;
        e.packet_rows = packet_rows as u64;
        e.pcap_bytes = pcap as u64;
        e.packets_held = packets_held(raw, per_second, wire_bits / 8.0, senders) as u64;
        e.memory_bytes = (connections * CONNECTION_BYTES
            + e.packets_held as f64 * PACKET_BYTES
            + e.udp_sources as f64 * UDP_SOURCE_BYTES
            + flow_rows * FLOW_ROW_BYTES
            + queue_rows * QUEUE_ROW_BYTES
            + packet_rows * PACKET_ROW_BYTES
            + 2.0 * pcap) as u64;
        e.cpu_seconds = e.packets as f64 / PACKETS_PER_CPU_SECOND + connections / CONNECTIONS_PER_CPU_SECOND;
        // Rows on the default grid grow with the connections, or, without a duration, with the
        // time the transfers take.
        blame.flow_rows = match (&tr.interval, duration) {
            (Some(_), _) => Culprit::Top("trace.interval"),
            (None, Some(_)) => blame.connections.field,
            (None, None) => blame.packets.field,
        };
        e.blame = blame;
        e
    }

    /// Refuses a run larger than `limits`, in one line naming the field responsible.
    pub fn within(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let raise = |name: &str, value: String| {
            format!(
                "raise it with [limits] {name} = {value} in the scenario or {ENV}=\"{name}={}\"",
                value.trim_matches('"')
            )
        };
        if self.memory_bytes > limits.memory {
            let (field, what) = self.memory_culprit();
            return Err(ScenarioError::new(
                field,
                format!(
                    "the run would need about {} of memory ({what}), above the limit of {}; {}",
                    fmt_bytes(self.memory_bytes as f64),
                    fmt_bytes(limits.memory as f64),
                    raise("memory", format!("\"{}GB\"", (self.memory_bytes as f64 / 1e9).ceil()))
                ),
            ));
        }
        if self.packets > limits.packets {
            let b = &self.blame;
            let (field, why) = match b.capped_by {
                Some(d) => (Culprit::Top("duration"), format!(" ({} for {d:?})", fmt_rate(b.capped_rate_bps))),
                None => (b.packets.field, String::new()),
            };
            return Err(ScenarioError::new(
                field,
                format!(
                    "the run would simulate about {:.1e} packets{why}, about {} of CPU time, above the limit of {:.0e}; {}",
                    self.packets as f64,
                    fmt_seconds(self.cpu_seconds),
                    limits.packets as f64,
                    raise("packets", format!("{:e}", round_up(self.packets as f64)))
                ),
            ));
        }
        Ok(())
    }

    /// The part of the memory that is largest, the field behind it and what it is.
    fn memory_culprit(&self) -> (Culprit, String) {
        let b = &self.blame;
        let parts = [
            (
                self.connections as f64 * CONNECTION_BYTES,
                b.connections.field,
                format!("{} connections", self.connections),
            ),
            (
                self.flow_rows as f64 * FLOW_ROW_BYTES,
                b.flow_rows,
                format!("{:.1e} rows of the flows table", self.flow_rows as f64),
            ),
            (
                self.queue_rows as f64 * QUEUE_ROW_BYTES,
                Culprit::Top("trace.queue_interval"),
                format!("{:.1e} rows of the queues table", self.queue_rows as f64),
            ),
            (
                self.packet_rows as f64 * PACKET_ROW_BYTES,
                Culprit::Top("trace.packets"),
                format!("{:.1e} rows of the packets table", self.packet_rows as f64),
            ),
            (
                self.packets_held as f64 * PACKET_BYTES,
                Culprit::Top("network.queue"),
                format!("{:.1e} packets queued at once", self.packets_held as f64),
            ),
            (2.0 * self.pcap_bytes as f64, b.pcap.field, format!("{} of pcap", fmt_bytes(self.pcap_bytes as f64))),
        ];
        let (_, field, what) =
            parts.into_iter().fold((0.0, Culprit::None, String::new()), |a, b| if b.0 > a.0 { b } else { a });
        (field, what)
    }
}

/// Packets the two bottleneck directions hold at once (queue and wire) when the receive windows
/// of the connections sending that way are full: a queue of a billion packets holds only what
/// is sent into it.
fn packets_held(raw: &RawScenario, per_second: [f64; 2], mtu: f64, senders: [f64; 2]) -> f64 {
    let net = &raw.network;
    let rtt = match (&net.rtt, &net.delay) {
        (Some(q), _) => time("", q, Duration::ZERO, MAX_TIME).ok(),
        (None, Some(q)) => time("", q, Duration::ZERO, MAX_TIME).ok().map(|d| 2 * d),
        (None, None) => None,
    }
    .map_or(0.0, |d| d.as_secs_f64());
    let rcv_buf = raw.tcp.rcv_buf.as_ref().and_then(|q| bytes("", q, 1.0, 1e12).ok()).unwrap_or(RCV_BUF);
    let queues = [net.queue.as_ref(), net.reverse_queue.as_ref().or(net.queue.as_ref())];
    (0..2)
        .map(|d| {
            let wire = per_second[d] * rtt;
            let queue = match queues[d].map(|q| limit("", q, wire * mtu, mtu)) {
                Some(Ok(Limit::Packets(p))) => p as f64,
                Some(Ok(Limit::Bytes(b))) => b as f64 / mtu,
                Some(Err(_)) => 0.0,
                None => wire,
            };
            (wire + queue).min(senders[d] * rcv_buf as f64 / mtu)
        })
        .sum()
}

/// `x` rounded up to two significant digits: a limit that lets the run through.
fn round_up(x: f64) -> f64 {
    let step = 10f64.powi(x.log10().floor() as i32 - 1);
    (x / step).ceil() * step
}

fn fmt_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b => format!("{:.0} MB", b / 1e6),
    }
}

fn fmt_seconds(s: f64) -> String {
    match s {
        s if s >= 7200.0 => format!("{:.0} hours", s / 3600.0),
        s if s >= 120.0 => format!("{:.0} minutes", s / 60.0),
        s => format!("{s:.0} s"),
    }
}
